(** * The core's [rd] at every order over ℝ

    A program of the core is smooth ([smooth_prog]) when each of its
    instructions is an operation [cop_deriv_covered] covers (no
    [maxpool]-family operation) and each elementwise map is smooth
    ([smooth_efun], rdcore_smooth.v).  [rd_core] keeps smoothness
    ([smooth_rd_core]): the forward copy has the program's operations,
    the backward sweep emits the vector–Jacobian products of smooth
    operations, which are smooth ([vjp_smooth]), sums of adjoints and
    zeros, and [prune] keeps a subset of the instructions.

    Hence, by induction on [k], for every primitive whose forward map
    [core_prog 0 p] is smooth ([smooth_core p], computed), [core_prog k p]
    is smooth and judged for every [k], [op_diff] holds at every point,
    and [rd_core_rev_deriv_covered] gives the headline
    [core_rdk_correct]: [core_prog (S k) p] is the reverse derivative of
    [core_prog k p] at every point, for every [k].  The fourteen
    primitives of [smooth_prim] (prims.v) and [sce] are smooth
    ([smooth_prim_core], [smooth_core_sce]). *)
From RevHandlers.Analysis Require Import base vec prims rdcore_real rdcore_sound rdcore_deriv rdcore_opderiv rdcore_smooth.
From RevHandlers Require Import rdcore core_dims prune_dims.
Open Scope R_scope.

(** ** Smooth programs *)

Definition smooth_op (o : cop) : bool :=
  deriv_cop o && match o with OMap f => smooth_efun f | _ => true end.

Definition smooth_instrs (body : list (cop * list nat)) : Prop :=
  Forall (fun ins => smooth_op (fst ins) = true) body.

Definition smooth_prog (P : cprog) : Prop := smooth_instrs (cp_body P).

(** An expression all of whose operations are smooth. *)
Fixpoint smooth_rexp (e : rexp) : Prop :=
  match e with
  | RV _ => True
  | RO o es => fold_right and (smooth_op o = true) (map smooth_rexp es)
  end.

Definition smooth_opt (c : option rexp) : Prop :=
  match c with Some e => smooth_rexp e | None => True end.

Definition smooth_st (s : bstate) : Prop := smooth_instrs (bs_acc s).

(** [emit] of a smooth expression pushes smooth instructions. *)
Lemma emit_smooth e : forall s, smooth_st s -> smooth_rexp e -> smooth_st (snd (emit e s)).
Proof.
  induction e as [i|o es IH] using rexp_ind'; intros s Hs He; [exact Hs|].
  cbn [emit]. cbn [smooth_rexp] in He. apply fold_right_and_map in He as [Hes Ho].
  match goal with |- context [?F es s] => pose (go := F); change (F es s) with (go es s) end.
  assert (Hgo : forall l s, Forall (fun e => forall s, smooth_st s -> smooth_rexp e -> smooth_st (snd (emit e s))) l ->
            Forall smooth_rexp l -> smooth_st s -> smooth_st (snd (go l s))).
  { clear. induction l as [|e l IHl]; intros s IH Hl Hs; [exact Hs|].
    inversion IH as [|? ? He IH']; subst. inversion Hl as [|? ? Hle Hl']; subst.
    change (go (e :: l) s) with (let '(i, s1) := emit e s in let '(is, s2) := go l s1 in (i :: is, s2)).
    pose proof (He s Hs Hle) as Hs1. destruct (emit e s) as [i s1]. cbn [snd] in Hs1.
    pose proof (IHl s1 IH' Hl' Hs1) as Hs2. destruct (go l s1) as [is s2]. exact Hs2. }
  pose proof (Hgo es s IH Hes Hs) as Hs1. destruct (go es s) as [is s1]. cbn [snd] in *.
  constructor; [exact Ho|exact Hs1].
Qed.

Lemma accum_smooth adj i c s : smooth_st s -> smooth_st (snd (accum adj i c s)).
Proof.
  intros Hs. unfold accum. destruct (nth i adj None) as [old|]; [|exact Hs].
  pose proof (emit_smooth (radd (RV old) (RV c)) s Hs ltac:(cbn; auto)) as H.
  destruct (emit _ s). exact H.
Qed.

Lemma contribs_smooth args : forall cs adj s, Forall smooth_opt cs -> smooth_st s ->
  smooth_st (snd (contribs args cs adj s)).
Proof.
  induction args as [|a args IH]; intros cs adj s Hcs Hs; [destruct cs; exact Hs|].
  destruct cs as [|[e|] cs]; [exact Hs| |]; inversion Hcs as [|? ? He Hcs']; subst; cbn [contribs].
  - pose proof (emit_smooth e s Hs He) as H1. destruct (emit e s) as [c s1]. cbn [snd] in H1.
    pose proof (accum_smooth adj a c s1 H1) as H2. destruct (accum adj a c s1) as [adj1 s2].
    apply IH; assumption.
  - apply IH; assumption.
Qed.

(** The vector–Jacobian products of a smooth operation are smooth. *)
Lemma vjp_smooth o as_ ds y g : smooth_op o = true -> Forall smooth_opt (vjp o as_ ds y g).
Proof.
  intros Ho. destruct o; try discriminate Ho;
    try (destruct f; try discriminate Ho);
    cbn; repeat constructor.
Qed.

Lemma back_smooth nin q dims instrs : forall adj s,
  Forall (fun ins => smooth_op (fst (snd ins)) = true) instrs -> smooth_st s ->
  smooth_st (snd (back nin q dims instrs adj s)).
Proof.
  induction instrs as [|[j [o args]] instrs IH]; intros adj s Hi Hs; [exact Hs|].
  inversion Hi as [|? ? Ho Hi']; subst. cbn [back].
  destruct (nth (nin + j) adj None) as [g|]; [|apply IH; assumption].
  pose proof (contribs_smooth args _ adj s
    (vjp_smooth o (map (ren nin q) args) (map (fun i => nth i dims 0%nat) args) (ren nin q (nin + j)) g Ho) Hs) as H1.
  destruct (contribs _ _ _ _) as [adj1 s1]. apply IH; assumption.
Qed.

Lemma seed_smooth nin outs : forall r adj s, smooth_st s -> smooth_st (snd (seed nin outs r adj s)).
Proof.
  induction outs as [|o outs IH]; intros r adj s Hs; [exact Hs|]. cbn [seed].
  pose proof (accum_smooth adj o (nin + r) s Hs) as H1. destruct (accum _ _ _ _) as [adj1 s1]. apply IH, H1.
Qed.

Lemma finals_smooth ds : forall i adj s, smooth_st s -> smooth_st (snd (finals i ds adj s)).
Proof.
  induction ds as [|d ds IH]; intros i adj s Hs; [exact Hs|]. cbn [finals].
  assert (H1 : smooth_st (snd (match nth i adj None with Some x => (x, s) | None => emit (RO (OZero d) []) s end))).
  { destruct (nth i adj None); [exact Hs|]. apply emit_smooth; [exact Hs|]. cbn. reflexivity. }
  destruct (match nth i adj None with Some x => (x, s) | None => emit (RO (OZero d) []) s end) as [x s1].
  pose proof (IH (S i) adj s1 H1) as H2. destruct (finals _ _ _ _) as [xs s2]. exact H2.
Qed.

Lemma smooth_rd_prog P : smooth_prog P -> smooth_prog (rd_prog P).
Proof.
  intros HP. unfold rd_prog, smooth_prog.
  set (s0 := {| bs_next := _; bs_acc := rev _ |}).
  assert (H0 : smooth_st s0).
  { unfold smooth_st, smooth_instrs. cbn [bs_acc s0]. apply Forall_rev, Forall_map.
    unfold smooth_prog, smooth_instrs in HP. rewrite Forall_forall in HP |- *. intros ins Hin. exact (HP ins Hin). }
  pose proof (seed_smooth (length (cp_dims P)) (cp_out P) 0 (repeat None (length (cp_dims P) + length (cp_body P))) s0 H0) as H1.
  destruct (seed _ _ _ _ _) as [adj1 s1]. cbn [snd] in H1.
  assert (Hi : Forall (fun ins => smooth_op (fst (snd ins)) = true) (rev (combine (seq 0 (length (cp_body P))) (cp_body P)))).
  { apply Forall_rev. rewrite Forall_forall. intros [j ins] Hin. apply in_combine_r in Hin.
    unfold smooth_prog, smooth_instrs in HP. rewrite Forall_forall in HP. apply HP, Hin. }
  pose proof (back_smooth (length (cp_dims P)) (length (cp_out P)) (body_dims (cp_dims P) (cp_body P)) _ adj1 s1 Hi H1) as H2. destruct (back _ _ _ _ _ _) as [adj2 s2]. cbn [snd] in H2.
  pose proof (finals_smooth (cp_dims P) 0 adj2 s2 H2) as H3. destruct (finals _ _ _ _) as [outs s3]. cbn [snd] in H3.
  cbn [cp_body]. apply Forall_rev, H3.
Qed.

(** [prune] keeps some of the instructions, with their operations. *)
Lemma smooth_prune P : smooth_prog P -> smooth_prog (prune P).
Proof.
  intros HP. unfold prune, smooth_prog, smooth_instrs. cbn [cp_body].
  rewrite Forall_forall. intros ins Hin. apply in_map_iff in Hin as ([v ins'] & <- & Hin).
  apply filter_In in Hin as [Hin _]. apply in_combine_r in Hin.
  unfold smooth_prog, smooth_instrs in HP. rewrite Forall_forall in HP. exact (HP _ Hin).
Qed.

Theorem smooth_rd_core P : smooth_prog P -> smooth_prog (rd_core P).
Proof. intros HP. apply smooth_prune, smooth_rd_prog, HP. Qed.

(** ** [rd^k] of a smooth primitive, for every [k] *)

(** The primitives whose forward map in the core is smooth. *)
Definition smooth_core (p : prim) : bool :=
  forallb (fun ins => smooth_op (fst ins)) (cp_body (prim_core p)).

Lemma smooth_core_prog k p : smooth_core p = true -> smooth_prog (core_prog k p).
Proof.
  intros Hs. induction k as [|k IH].
  - change (core_prog 0 p) with (prim_core p). unfold smooth_prog, smooth_instrs.
    apply Forall_forall. intros ins Hin. exact (proj1 (forallb_forall _ _) Hs ins Hin).
  - change (core_prog (S k) p) with (rd_core (core_prog k p)). apply smooth_rd_core, IH.
Qed.

(** A smooth operation satisfies [op_diff] at every argument. *)
Lemma op_diff_of_smooth o xs : smooth_op o = true -> op_diff o xs.
Proof.
  intros Ho. destruct o; try exact I. apply op_diff_smooth.
  unfold smooth_op in Ho. apply andb_prop in Ho. apply Ho.
Qed.

(** The headline: for every primitive whose forward map is smooth and
    every [k], [rd^{k+1}] of the core is the reverse derivative of
    [rd^k] at every point of [ℝ^{pdom k p}]. *)
Theorem core_rdk_correct k p x :
  smooth_core p = true -> prim_ok p = true -> length x = pdom k p ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof.
  intros Hs Hok Hx.
  destruct (@core_prog_wd vec rd_core_wd k p Hok) as (Hwd & Hin & Hout).
  pose proof (smooth_core_prog k p Hs) as Hsm. unfold smooth_prog, smooth_instrs in Hsm.
  unfold pdom, pcod in *. rewrite <- Hin, <- Hout in *.
  change (core_prog (S k) p) with (rd_core (core_prog k p)).
  apply rd_core_rev_deriv_covered; [exact Hwd|exact Hx| |].
  - rewrite Forall_forall in Hsm |- *. intros ins Hin'. specialize (Hsm ins Hin').
    unfold smooth_op in Hsm. apply andb_prop in Hsm. apply Hsm.
  - intros j Hj. apply op_diff_of_smooth. rewrite Forall_forall in Hsm. apply Hsm, nth_In, Hj.
Qed.

(** The fourteen primitives of [smooth_prim] (prims.v) and [sce] have a
    smooth forward map. *)
Lemma smooth_prim_core p : smooth_prim p = true -> smooth_core p = true.
Proof. intros Hs. destruct p; try discriminate Hs; reflexivity. Qed.

Lemma smooth_core_sce n : smooth_core (PSce n) = true.
Proof. reflexivity. Qed.

Corollary core_rdk_correct_smooth k p x :
  smooth_prim p = true -> prim_ok p = true -> length x = pdom k p ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof. intros Hs. apply core_rdk_correct, smooth_prim_core, Hs. Qed.

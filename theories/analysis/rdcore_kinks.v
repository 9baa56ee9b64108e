(** * The core's [rd] of every order off the kinks

    [core_rdk_correct] (rdcore_k.v) covers the primitives whose core
    program is smooth.  The others ([relu], [round], [log], [maxpool])
    are differentiable only on a set, and so are the operations of the
    core they bring in: an elementwise map [OMap f] is differentiable,
    with the derivative [efun_d] writes, at a coordinate [a] where
    [efun_smooth_at f a] holds ([relu] and its step: [a ≠ 0]; [round]:
    [a + 1/2] not an integer; [log]: [a > 0]; its derivatives [1/a],
    [-1/a²]: [a ≠ 0]; the smooth maps: everywhere), and the [maxpool]
    family where every window of its first argument has its maximum at
    one position only ([windows_strict], maxpool.v).  [cop_smooth_at o xs]
    collects these conditions; under it and the lengths [cop_ok] asks,
    [cop_tan o xs] is the Fréchet derivative of [o] at [xs] and [op_diff]
    holds ([cop_deriv_at]), for every operation of the core.

    For a program, [prog_smooth_at P x]: every instruction of [P],
    evaluated at the point [x], is at a smooth point of its operation.
    Then [rd_core P] is the reverse derivative of [P] at [x]
    ([rd_core_rev_deriv_at]), and for every primitive and every [k],
    [core_prog (S k) p] is the reverse derivative of [core_prog k p] at
    every point [x] with [prog_smooth_at (core_prog k p) x]
    ([core_rdk_correct_at]).  The premise is about every instruction of
    [core_prog k p], not only the primitive's own input: at [k ≥ 1] the
    derivative programs contain the step [relu'] and the derivatives of
    [log], themselves with kinks.  The premise is decidable
    ([prog_smooth_at_dec], with the decisions of Coq's reals); it holds
    everywhere for a smooth program ([smooth_prog_smooth_at], so
    [core_rdk_correct] is a special case).  For [relu], [round], [log]
    and [maxpool], every kink of [core_prog k p] is read at the
    primitive's own input, for every [k]: the premise holds at every
    point whose first block has no coordinate [0] ([relu_smooth_at]), no
    half-integer ([round_smooth_at]), only positive coordinates
    ([log_smooth_at]), a strict maximum in every window
    ([maxpool_smooth_at]); hence [core_rdk_correct_relu],
    [core_rdk_correct_round], [core_rdk_correct_log],
    [core_rdk_correct_maxpool].  At [k = 2] for [relu] of length [1] the
    premise is [x₀ ≠ 0] ([relu_k2_smooth], [relu_k2_kink]).

    The premise is sufficient, not claimed necessary: it asks each
    instruction's operation to be differentiable at its arguments with
    the derivative the core writes ([relu] has no derivative at [0],
    [relu_not_derivable_0]; Coq's [ln] is [0] on [x ≤ 0], where [1/x] is
    not its derivative). *)
From RevHandlers.Analysis Require Import base vec sums templates prims prims_more round maxpool rdcore_real rdcore_sound rdcore_chain rdcore_fwd rdcore_prog rdcore_prune rdcore_deriv rdcore_opderiv rdcore_smooth rdcore_k.
From RevHandlers Require Import rdcore core_dims prune_dims.
Open Scope R_scope.

#[local] Arguments cop_eval : simpl never.

(** ** Elementwise maps *)

(** Where the scalar function of an elementwise map is differentiable
    with the derivative [efun_d] writes. *)
Definition efun_smooth_at (f : efun) (a : R) : Prop :=
  match f with
  | ERound => forall z : Z, a + / 2 <> IZR z
  | ERelu | ERelu1 => a <> 0
  | ELog => 0 < a
  | ELog1 | ELog2 => a <> 0
  | _ => True
  end.

Lemma zeros_map (x : vec) : zeros (length x) = map (fun _ => 0) x.
Proof. induction x as [|a x IH]; [reflexivity|]. cbn. f_equal. exact IH. Qed.

(** [efun_d f] at [x] is the map of one scalar function, the real
    derivative of [efs f] wherever [efun_smooth_at f] holds. *)
Lemma efun_dval_at f x :
  exists h, efun_dval f x = map h x /\ forall a, efun_smooth_at f a -> is_derive (efs f) a (h a).
Proof.
  destruct (smooth_efun f) eqn:Hs.
  - destruct (efun_dval_smooth f x Hs) as (h & E & D). exists h. split; [exact E|]. intros a _. apply D.
  - destruct f; try discriminate Hs; unfold efun_dval; cbn [efun_d].
    + (* round *) exists (fun _ => 0). split; [apply zeros_map|]. intros a Ha. apply is_derive_Rround, Ha.
    + (* relu *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_relu, Ha.
    + (* its step *) exists (fun _ => 0). split; [apply zeros_map|]. intros a Ha. apply is_derive_relu', Ha.
    + (* log *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_ln', Ha.
    + (* 1/x *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_log', Ha.
    + (* -1/x² *) eexists. split; [unfold rmap, rtwice, rmul; pw_goal; pw_solve|]. intros a Ha.
      cbn in Ha. cbn [efs]. unfold log', log''. cbn. auto_derive; [repeat split; exact Ha|]. field. exact Ha.
Qed.

Lemma op_diff_map_at f x :
  (forall i, (i < length x)%nat -> efun_smooth_at f (x@@i)) -> op_diff (OMap f) [x].
Proof.
  intros H i Hi. cbn [nth] in *. destruct (efun_dval_at f x) as (h & -> & D).
  rewrite (nth_map_lt _ _ _ 0 0) by exact Hi. apply D, H, Hi.
Qed.

(** ** The [maxpool] family where every window has a strict maximum *)

Section maxpool_family.
Variables c n m : nat.
Hypothesis Hm : (0 < m)%nat.

(** Near a point whose windows have strict maxima, [maxpool_adj] and
    [maxpool_gather] do not depend on their first argument. *)
Lemma mp_first_near x : length x = (c * n)%nat -> windows_strict c n m x ->
  exists d, 0 < d /\ forall u, length u = (c * n)%nat -> norm1 u < d ->
    (forall g, length g = (c * ceil_div n m)%nat -> maxpool_adj Rsc c n m (vp x u) g = maxpool_adj Rsc c n m x g) /\
    (forall y, length y = (c * n)%nat -> maxpool_gather Rsc c n m (vp x u) y = maxpool_gather Rsc c n m x y).
Proof.
  intros Hx Hs. destruct (mp_near c n m Hm x Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
  intros u Hu Hn. assert (Hl : length (vp x u) = (c * n)%nat) by (rewrite length_vp; lia).
  split.
  - intros g Hg. rewrite !(adj_form c n m Hm) by assumption. f_equal. apply map_ext_in. intros i Hi. apply in_seq in Hi.
    f_equal. apply map_ext_in. intros t Ht. apply in_seq in Ht. unfold adj_w.
    rewrite H by (auto; lia). rewrite (length_win n m (vp x u) x i t) by lia. reflexivity.
  - intros y Hy. rewrite !(gather_tab c n m Hm) by assumption. apply tab2_ext. intros i t Hi Ht. rewrite H; auto.
Qed.

Lemma cop_deriv_maxpool x0 : length x0 = (c * n)%nat -> windows_strict c n m x0 ->
  cop_deriv (OMaxpool c n m) [x0].
Proof.
  intros Hx Hs.
  apply (cop_deriv_unary _ _ (c * ceil_div n m) (maxpool Rsc c n m) (maxpool_gather Rsc c n m x0));
    [reflexivity|intros w _; reflexivity|intros h _; reflexivity|].
  rewrite Hx. apply has_deriv_loc_lin; [exact Hx| |apply (lin_gather c n m Hm), Hx|].
  - intros v Hv. rewrite (maxpool_tab c n m Hm) by exact Hv. apply length_tab2.
  - destruct (mp_near c n m Hm x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|]. intros h Hh Hn.
    assert (Hl : length (vp x0 h) = (c * n)%nat) by (rewrite length_vp; lia).
    rewrite (maxpool_tab c n m Hm), (gather_tab c n m Hm) by assumption. apply tab2_ext. intros i t Hi Ht.
    rewrite H; auto.
Qed.

(** An operation of [x] (length [c·n]) and a second argument of length
    [q], with results of length [r], linear in the second argument and,
    near [x0], independent of the first. *)
Lemma cop_deriv_first_const o x0 y0 q r (B : vec -> vec -> vec) :
  length x0 = (c * n)%nat -> length y0 = q -> cop_dim o [(c * n)%nat; q] = r ->
  lin q r (B x0) -> (forall u v, length u = (c * n)%nat -> length v = q -> length (B u v) = r) ->
  (forall u v, cop_eval Rvo o [u; v] = B u v) ->
  (forall h0 h1, cop_tan o [x0; y0] [h0; h1] = B x0 h1) ->
  (exists d, 0 < d /\ forall u, length u = (c * n)%nat -> norm1 u < d ->
     forall v, length v = q -> B (vp x0 u) v = B x0 v) ->
  cop_deriv o [x0; y0].
Proof.
  intros Hx Hy Hdim HL HBl Ee Et [d [Hd Hnear]]. set (N := (c * n)%nat) in *.
  apply (cop_deriv_binary _ _ _ r (fun w => B (firstn N w) (skipn N w)) (fun h => B x0 (skipn N h))).
  - rewrite Hx, Hy. symmetry. exact Hdim.
  - intros w _. rewrite Hx. apply Ee.
  - intros h _. rewrite Hx. apply Et.
  - rewrite Hx, Hy. apply has_deriv_loc_lin.
    + rewrite app_length. lia.
    + intros v Hv. apply HBl; [rewrite firstn_length|rewrite skipn_length]; lia.
    + apply (lin_comp _ q _ (B x0) (skipn N)); [apply lin_skipn|exact HL].
    + exists d. split; [exact Hd|]. intros h Hh Hn.
      rewrite firstn_vp, firstn_app_exact by exact Hx. apply Hnear.
      * rewrite firstn_length. lia.
      * eapply Rle_lt_trans; [apply norm1_firstn|exact Hn].
      * rewrite skipn_length, length_vp, app_length. lia.
Qed.

Lemma cop_deriv_maxpool_adj x0 g0 : length x0 = (c * n)%nat -> length g0 = (c * ceil_div n m)%nat ->
  windows_strict c n m x0 -> cop_deriv (OMaxpoolAdj c n m) [x0; g0].
Proof.
  intros Hx Hg Hs. apply (cop_deriv_first_const _ x0 g0 _ _ (maxpool_adj Rsc c n m) Hx Hg eq_refl).
  - apply (lin_adj c n m Hm), Hx.
  - intros u v Hu Hv. apply (length_adj c n m Hm); assumption.
  - intros u v. reflexivity.
  - intros h0 h1. reflexivity.
  - destruct (mp_first_near x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
    intros u Hu Hn v Hv. apply (proj1 (H u Hu Hn)), Hv.
Qed.

Lemma cop_deriv_maxpool_gather x0 y0 : length x0 = (c * n)%nat -> length y0 = (c * n)%nat ->
  windows_strict c n m x0 -> cop_deriv (OMaxpoolGather c n m) [x0; y0].
Proof.
  intros Hx Hy Hs.
  apply (cop_deriv_first_const (OMaxpoolGather c n m) x0 y0 _ (c * ceil_div n m) (maxpool_gather Rsc c n m) Hx Hy eq_refl).
  - apply (lin_gather c n m Hm), Hx.
  - intros u v Hu Hv. rewrite (gather_tab c n m Hm) by assumption. apply length_tab2.
  - intros u v. reflexivity.
  - intros h0 h1. reflexivity.
  - destruct (mp_first_near x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
    intros u Hu Hn v Hv. apply (proj2 (H u Hu Hn)), Hv.
Qed.
End maxpool_family.

(** ** Every operation at its smooth points *)

(** An elementwise map at every coordinate of its argument; the [maxpool]
    family where every window of its first argument has a strict
    maximum; the other operations everywhere. *)
Definition cop_smooth_at (o : cop) (xs : list vec) : Prop :=
  match o with
  | OMap f => let x := nth 0 xs [] in forall i, (i < length x)%nat -> efun_smooth_at f (x@@i)
  | OMaxpool c n m | OMaxpoolAdj c n m | OMaxpoolGather c n m => windows_strict c n m (nth 0 xs [])
  | _ => True
  end.

(** [cop_tan o xs] is the Fréchet derivative of [o] at [xs], and
    [op_diff] holds, at every smooth point of every operation. *)
Theorem cop_deriv_at o xs :
  cop_ok o (map (@length R) xs) -> cop_smooth_at o xs -> cop_deriv o xs /\ op_diff o xs.
Proof.
  intros Hok Hs.
  assert (Hd : op_diff o xs).
  { destruct o; try exact I. destruct xs as [|x0 [|x1 xs]]; cbn in Hok; try contradiction.
    apply op_diff_map_at, Hs. }
  split; [|exact Hd].
  destruct (deriv_cop o) eqn:Ho; [apply cop_deriv_covered; assumption|].
  destruct o; try discriminate Ho; cbn [cop_smooth_at] in Hs;
    (destruct xs as [|x0 [|x1 [|x2 xs]]]; cbn in Hok; try contradiction); cbn [nth] in Hs.
  - destruct Hok as [Hm Hx]. apply cop_deriv_maxpool; assumption.
  - destruct Hok as (Hm & Hx & Hg). apply cop_deriv_maxpool_adj; assumption.
  - destruct Hok as (Hm & Hx & Hy). apply cop_deriv_maxpool_gather; assumption.
Qed.

(** ** Programs at a point *)

(** The arguments of instruction [j] of [P] evaluated at the flat point [x]. *)
Definition instr_args (P : cprog) (x : vec) (j : nat) : list vec :=
  map (fun k => nth k (vals (split_at 0 (cp_dims P) x) (cp_body P)) []) (snd (nth j (cp_body P) (OZero 0, []))).

(** Every instruction of [P], evaluated at [x], is at a smooth point of
    its operation. *)
Definition prog_smooth_at (P : cprog) (x : vec) : Prop :=
  forall j, (j < length (cp_body P))%nat -> cop_smooth_at (fst (nth j (cp_body P) (OZero 0, []))) (instr_args P x j).

(** [rd_core P] is the reverse derivative of [P] at every point where
    [P] is smooth, for every judged program. *)
Theorem rd_core_rev_deriv_at P x :
  wd_prog P -> length x = dsum (cp_dims P) -> prog_smooth_at P x ->
  is_rev_deriv (dsum (cp_dims P)) (dsum (out_dims P)) (core_fun P) x (fun y => core_fun (rd_core P) (x ++ y)).
Proof.
  intros HP Hx Hs. apply rd_core_rev_deriv; [exact HP|exact Hx|]. intros j Hj. cbv zeta.
  apply cop_deriv_at; [|exact (Hs j Hj)].
  destruct HP as [Hwd _]. destruct (wd_nth _ _ j Hwd Hj) as [Hargs Hok].
  rewrite map_map. erewrite map_ext_in; [exact Hok|]. intros a Ha. cbv beta.
  rewrite Forall_forall in Hargs. specialize (Hargs a Ha).
  apply (xv_len (cp_dims P) _ (cp_body P) Hwd (split_at_fits 0 (cp_dims P) x ltac:(lia))). lia.
Qed.

(** The headline: for every primitive and every [k], [rd^{k+1}] of the
    core is the reverse derivative of [rd^k] at every point where every
    instruction of [rd^k] is at a smooth point of its operation. *)
Theorem core_rdk_correct_at k p x :
  prim_ok p = true -> length x = pdom k p -> prog_smooth_at (core_prog k p) x ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof.
  intros Hok Hx Hs.
  destruct (@core_prog_wd vec rd_core_wd k p Hok) as (Hwd & Hin & Hout).
  unfold pdom, pcod in *. rewrite <- Hin, <- Hout in *.
  change (core_prog (S k) p) with (rd_core (core_prog k p)).
  apply rd_core_rev_deriv_at; assumption.
Qed.

(** A smooth program is smooth at every point, so [core_rdk_correct]
    is the case of a smooth forward map. *)
Lemma smooth_op_smooth_at o xs : smooth_op o = true -> cop_smooth_at o xs.
Proof.
  intros Ho. unfold smooth_op in Ho. apply andb_prop in Ho as [Hd Hf].
  destruct o; try discriminate Hd; try exact I. intros i _. destruct f; try discriminate Hf; exact I.
Qed.

Lemma smooth_prog_smooth_at P x : smooth_prog P -> prog_smooth_at P x.
Proof.
  intros HP j Hj. apply smooth_op_smooth_at. unfold smooth_prog, smooth_instrs in HP.
  rewrite Forall_forall in HP. apply HP, nth_In, Hj.
Qed.

(** ** The premise is decidable

    With the decisions of Coq's reals ([Req_EM_T], [Rlt_dec]): an
    elementwise condition coordinate by coordinate, a strict maximum in
    each of the finitely many windows, every instruction of the body. *)

Lemma forall_lt_dec (P : nat -> Prop) n : (forall j, {P j} + {~ P j}) ->
  {forall j, (j < n)%nat -> P j} + {~ forall j, (j < n)%nat -> P j}.
Proof.
  intros Pd. induction n as [|n IH]; [left; intros j Hj; lia|].
  destruct IH as [H|H]; [destruct (Pd n) as [Hn|Hn]|].
  - left. intros j Hj. destruct (Nat.eq_dec j n) as [->|Hne]; [exact Hn|apply H; lia].
  - right. intros H'. apply Hn, H'. lia.
  - right. intros H'. apply H. intros j Hj. apply H'. lia.
Qed.

Lemma exists_lt_dec (P : nat -> Prop) n : (forall j, {P j} + {~ P j}) ->
  {exists j, (j < n)%nat /\ P j} + {~ exists j, (j < n)%nat /\ P j}.
Proof.
  intros Pd. induction n as [|n IH]; [right; intros (j & Hj & _); lia|].
  destruct IH as [H|H]; [left; destruct H as (j & Hj & Pj); exists j; split; [lia|exact Pj]|].
  destruct (Pd n) as [Hn|Hn]; [left; exists n; split; [lia|exact Hn]|].
  right. intros (j & Hj & Pj). destruct (Nat.eq_dec j n) as [->|Hne]; [exact (Hn Pj)|].
  apply H. exists j. split; [lia|exact Pj].
Qed.

Lemma half_int_dec a : {forall z : Z, a + / 2 <> IZR z} + {~ forall z : Z, a + / 2 <> IZR z}.
Proof.
  destruct (Req_EM_T (a + / 2) (IZR (up (a + / 2) - 1))) as [E|E].
  - right. intros H. exact (H _ E).
  - left. intros z Hz. apply E. rewrite Hz.
    assert (Hu : z = (up (IZR z) - 1)%Z).
    { assert (Hz1 : (z + 1)%Z = up (IZR z)) by (apply tech_up; rewrite plus_IZR; lra). lia. }
    rewrite <- Hu. reflexivity.
Qed.

Lemma efun_smooth_at_dec f a : {efun_smooth_at f a} + {~ efun_smooth_at f a}.
Proof.
  destruct f; cbn [efun_smooth_at]; try (left; exact I);
    try (destruct (Req_EM_T a 0) as [E|E]; [right; intros H; exact (H E)|left; exact E]).
  - apply half_int_dec.
  - apply Rlt_dec.
Qed.

Lemma strict_max_dec w j : {strict_max w j} + {~ strict_max w j}.
Proof.
  unfold strict_max. destruct (lt_dec j (length w)) as [Hj|Hj]; [|right; intros [H _]; exact (Hj H)].
  destruct (forall_lt_dec (fun i => i <> j -> w@@i < w@@j) (length w)) as [H|H].
  - intros i. destruct (Nat.eq_dec i j) as [->|Hne]; [left; intros H; contradiction|].
    destruct (Rlt_dec (w@@i) (w@@j)) as [Hl|Hl]; [left; intros _; exact Hl|right; intros H; exact (Hl (H Hne))].
  - left. split; assumption.
  - right. intros [_ H']. exact (H H').
Qed.

Lemma windows_strict_dec c n m x : {windows_strict c n m x} + {~ windows_strict c n m x}.
Proof.
  unfold windows_strict. induction (concat (map (chunks m) (rows c n x))) as [|w ws IH].
  - left. intros w [].
  - destruct (exists_lt_dec (strict_max w) (length w) (strict_max_dec w)) as [Hw|Hw].
    + destruct IH as [H|H].
      * left. intros v [<-|Hv]; [destruct Hw as (j & _ & Hj); exists j; exact Hj|exact (H v Hv)].
      * right. intros H'. apply H. intros v Hv. apply H'. right. exact Hv.
    + right. intros H'. destruct (H' w (or_introl eq_refl)) as [j Hj]. apply Hw. exists j.
      split; [exact (proj1 Hj)|exact Hj].
Qed.

Lemma cop_smooth_at_dec o xs : {cop_smooth_at o xs} + {~ cop_smooth_at o xs}.
Proof.
  destruct o; cbn [cop_smooth_at]; try (left; exact I); try apply windows_strict_dec.
  apply forall_lt_dec. intros i. apply efun_smooth_at_dec.
Qed.

Theorem prog_smooth_at_dec P x : {prog_smooth_at P x} + {~ prog_smooth_at P x}.
Proof. apply forall_lt_dec. intros j. apply cop_smooth_at_dec. Qed.

(** ** [relu], [round], [log], [maxpool]: the premise at every order

    For a set [F] of elementwise maps closed under [efun_d] (the
    derivative of a map of [F] at the variable [0] is written with maps
    of [F] at the variable [0]: [relu] and its step; [round]; [log],
    [1/x], [-1/x²]) and a set [MP] of [maxpool] parameters, a program
    whose elementwise maps are maps of [F] applied to the input variable
    [0] and whose [maxpool]-family operations have parameters in [MP] and
    the input variable [0] as first argument ([kprog F MP]) stays so under
    [rd_prog] (the forward copy keeps the inputs' indices; the backward
    sweep emits [g·f'(x)] for a map and the other two of the family at
    [x] for a [maxpool]-family operation; [rd_prog_keeps]) and under
    [prune] (which keeps the inputs' indices).  So, for [relu], [round],
    [log] and [maxpool], every kink of [core_prog k p] is read at the
    primitive's own input, for every [k], and the premise of
    [core_rdk_correct_at] holds at every point whose first block avoids
    the kinks ([kinks_smooth_at]): no coordinate [0] for [relu]
    ([relu_smooth_at]), no half-integer for [round] ([round_smooth_at]),
    every coordinate positive for [log] ([log_smooth_at]), a strict
    maximum in every window for [maxpool] ([maxpool_smooth_at]). *)

(** *** What [rd_prog] emits, for an invariant of the instructions

    [Q] an invariant of instructions, [E] one of expressions that [emit]
    turns into [Q]-instructions; sums of two variables and zeros are
    [E]-expressions.  If [P]'s instructions renumbered are [Q] and their
    vector–Jacobian products [E], every instruction of [rd_prog P] is
    [Q] ([rd_prog_keeps]). *)
Section keep.
Variables (Q : cop * list nat -> Prop) (E : rexp -> Prop).

Definition qst (s : bstate) : Prop := Forall Q (bs_acc s).
Definition qopt (c : option rexp) : Prop := match c with Some e => E e | None => True end.

Hypothesis Hemit : forall e s, qst s -> E e -> qst (snd (emit e s)).
Hypothesis Hadd : forall i j, E (radd (RV i) (RV j)).
Hypothesis Hzero : forall d, E (RO (OZero d) []).

Lemma accum_keeps adj i c s : qst s -> qst (snd (accum adj i c s)).
Proof.
  intros Hs. unfold accum. destruct (nth i adj None) as [old|]; [|exact Hs].
  generalize (Hemit _ s Hs (Hadd old c)). destruct (emit _ s). exact (fun h => h).
Qed.

Lemma contribs_keeps args : forall cs adj s, Forall qopt cs -> qst s -> qst (snd (contribs args cs adj s)).
Proof.
  induction args as [|a args IH]; intros [|[e|] cs] adj s Hcs Hs; cbn [contribs]; try exact Hs;
    inversion Hcs as [|? ? He Hcs']; subst; [|auto].
  generalize (Hemit e s Hs He). destruct (emit e s) as [c s1]. intros H1.
  generalize (accum_keeps adj a c s1 H1). destruct (accum adj a c s1). auto.
Qed.

Lemma back_keeps nin q dims : forall instrs adj s,
  Forall (fun ins => forall ds y g, Forall qopt (vjp (fst (snd ins)) (map (ren nin q) (snd (snd ins))) ds y g)) instrs ->
  qst s -> qst (snd (back nin q dims instrs adj s)).
Proof.
  induction instrs as [|[j [o args]] instrs IH]; intros adj s Hi Hs; [exact Hs|].
  inversion Hi as [|? ? Ho Hi']; subst. cbn [back]. destruct (nth (nin + j) adj None) as [g|]; [|auto].
  generalize (contribs_keeps args _ adj s (Ho (map (fun i => nth i dims 0%nat) args) (ren nin q (nin + j)) g) Hs).
  destruct (contribs _ _ _ _). auto.
Qed.

Lemma seed_keeps nin outs : forall r adj s, qst s -> qst (snd (seed nin outs r adj s)).
Proof.
  induction outs as [|o outs IH]; intros r adj s Hs; [exact Hs|]. cbn [seed].
  generalize (accum_keeps adj o (nin + r) s Hs). destruct (accum _ _ _ _). auto.
Qed.

Lemma finals_keeps ds : forall i adj s, qst s -> qst (snd (finals i ds adj s)).
Proof.
  induction ds as [|d ds IH]; intros i adj s Hs; [exact Hs|]. cbn [finals].
  generalize (match nth i adj None as o return qst (snd (match o with Some x => (x, s) | None => emit (RO (OZero d) []) s end))
              with Some x => Hs | None => Hemit _ s Hs (Hzero d) end).
  destruct (match nth i adj None with Some x => (x, s) | None => emit (RO (OZero d) []) s end) as [x s1]. intros H1.
  generalize (IH (S i) adj s1 H1). destruct (finals _ _ _ _). exact (fun h => h).
Qed.

Lemma forall_rev_combine {A} (R : A -> Prop) (l : list A) k :
  Forall R l -> Forall (fun ins => R (snd ins)) (rev (combine (seq k (length l)) l)).
Proof.
  intros Hl. apply Forall_rev. rewrite Forall_forall in Hl |- *. intros [j a] Hin. exact (Hl a (in_combine_r _ _ _ _ Hin)).
Qed.

Theorem rd_prog_keeps P :
  Forall (fun ins => Q (fst ins, map (ren (length (cp_dims P)) (length (cp_out P))) (snd ins))) (cp_body P) ->
  Forall (fun ins => forall ds y g, Forall qopt (vjp (fst ins) (map (ren (length (cp_dims P)) (length (cp_out P))) (snd ins)) ds y g))
    (cp_body P) ->
  Forall Q (cp_body (rd_prog P)).
Proof.
  intros Hf Hv. unfold rd_prog. set (s0 := {| bs_next := _; bs_acc := rev _ |}).
  assert (H0 : qst s0) by (apply Forall_rev, Forall_map, Hf).
  generalize (seed_keeps (length (cp_dims P)) (cp_out P) 0 (repeat None (length (cp_dims P) + length (cp_body P))) s0 H0).
  destruct (seed _ _ _ _ _) as [adj1 s1]. intros H1.
  generalize (back_keeps _ _ (body_dims (cp_dims P) (cp_body P)) _ adj1 s1 (forall_rev_combine _ _ 0 Hv) H1).
  destruct (back _ _ _ _ _ _) as [adj2 s2]. intros H2.
  generalize (finals_keeps (cp_dims P) 0 adj2 s2 H2). destruct (finals _ _ _ _) as [outs s3]. intros H3.
  apply Forall_rev, H3.
Qed.
End keep.

Section kinks.
Variable F : efun -> bool.
Variable MP : nat -> nat -> nat -> Prop.

Definition kop_ok (o : cop) (args : list nat) : Prop :=
  match o with
  | OMap f => F f = true /\ args = [0%nat]
  | OMaxpool c n m | OMaxpoolAdj c n m | OMaxpoolGather c n m => MP c n m /\ hd_error args = Some 0%nat
  | _ => True
  end.

Definition kinstrs (body : list (cop * list nat)) : Prop :=
  Forall (fun ins => kop_ok (fst ins) (snd ins)) body.

Definition kprog (P : cprog) : Prop := kinstrs (cp_body P) /\ (0 < length (cp_dims P))%nat.

Definition ktop (o : cop) (es : list rexp) : Prop :=
  match o with
  | OMap f => F f = true /\ es = [RV 0]
  | OMaxpool c n m | OMaxpoolAdj c n m | OMaxpoolGather c n m => MP c n m /\ hd_error es = Some (RV 0)
  | _ => True
  end.

Fixpoint krexp (e : rexp) : Prop :=
  match e with
  | RV _ => True
  | RO o es => fold_right and (ktop o es) (map krexp es)
  end.

Definition kopt (c : option rexp) : Prop :=
  match c with Some e => krexp e | None => True end.

(** [F] is closed under [efun_d]. *)
Hypothesis HF : forall f y, F f = true -> kopt (efun_d f (RV 0) (RV y)).

Definition kq (ins : cop * list nat) : Prop := kop_ok (fst ins) (snd ins).

Lemma emit_k e : forall s, qst kq s -> krexp e ->
  qst kq (snd (emit e s)).
Proof.
  induction e as [i|o es IH] using rexp_ind'; intros s Hs He; [exact Hs|].
  cbn [emit]. cbn [krexp] in He. apply fold_right_and_map in He as [Hes Ho].
  match goal with |- context [?G es s] => pose (go := G); change (G es s) with (go es s) end.
  assert (Hgo : forall l s, Forall (fun e => forall s, qst kq s -> krexp e -> qst kq (snd (emit e s))) l ->
            Forall krexp l -> qst kq s ->
            qst kq (snd (go l s))).
  { clear. induction l as [|e l IHl]; intros s IH Hl Hs; [exact Hs|].
    apply Forall_cons_iff in IH as [He IH]. apply Forall_cons_iff in Hl as [Hle Hl].
    change (go (e :: l) s) with (let '(i, s1) := emit e s in let '(is, s2) := go l s1 in (i :: is, s2)).
    generalize (He s Hs Hle). destruct (emit e s) as [i s1]. intros Hs1.
    generalize (IHl s1 IH Hl Hs1). destruct (go l s1). exact (fun h => h). }
  assert (Hop : kop_ok o (fst (go es s))).
  { destruct o; try exact I; [destruct Ho as [Hf ->]; split; [exact Hf|reflexivity]|..];
      (destruct Ho as [HM Hes0]; split; [exact HM|]; destruct es as [|e0 es]; [discriminate|];
       injection Hes0 as ->; change (go (RV 0 :: es) s) with (let '(is, s2) := go es s in (0%nat :: is, s2));
       destruct (go es s); reflexivity). }
  generalize (Hgo es s IH Hes Hs). destruct (go es s) as [is s1]. cbn [snd fst] in *. intros Hs1.
  constructor; [exact Hop|exact Hs1].
Qed.

Lemma ren_0 nin q : (0 < nin)%nat -> ren nin q 0 = 0%nat.
Proof. intros H. unfold ren. destruct (Nat.ltb_spec 0 nin); lia. Qed.

Lemma kop_ok_ren nin q o args : (0 < nin)%nat -> kop_ok o args -> kop_ok o (map (ren nin q) args).
Proof.
  intros Hn Ho. destruct o; try exact I; [destruct Ho as [Hf ->]; cbn [map]; rewrite ren_0 by exact Hn; split; [exact Hf|reflexivity]|..];
    (destruct Ho as [HM Ha]; split; [exact HM|]; destruct args as [|a args]; [discriminate|];
     injection Ha as ->; cbn [map hd_error]; rewrite ren_0 by exact Hn; reflexivity).
Qed.

(** The vector–Jacobian products of these instructions. *)
Lemma vjp_k nin q o args ds y g : (0 < nin)%nat -> kop_ok o args ->
  Forall (qopt krexp) (vjp o (map (ren nin q) args) ds y g).
Proof.
  intros Hn Ho. pose proof (kop_ok_ren nin q o args Hn Ho) as Hr.
  destruct o; try (cbn; repeat constructor; fail);
    [|(destruct Hr as [HM Ha]; destruct (map (ren nin q) args) as [|a0 ?]; [discriminate|];
       injection Ha as ->; cbn; repeat constructor; exact HM)..].
  destruct Hr as [Hf Hr]. cbn [vjp]. rewrite Hr. cbn [nth].
  pose proof (HF f y Hf) as Hd. constructor; [|constructor].
  destruct (efun_d f (RV 0) (RV y)) as [d|]; [|exact I].
  cbn [option_map qopt kopt krexp map fold_right ktop]. cbn [kopt] in Hd. repeat split; exact Hd.
Qed.

Lemma k_rd_prog P : kprog P -> kprog (rd_prog P).
Proof.
  intros [HP Hn]. split; [|rewrite rd_prog_dims, app_length; lia]. unfold kinstrs in HP.
  apply (rd_prog_keeps _ krexp emit_k (fun i j => conj I (conj I I)) (fun d => I)); rewrite Forall_forall in HP |- *;
    intros [o args] Hin; cbn [fst snd]; [apply kop_ok_ren|intros ds y g; apply vjp_k]; try exact Hn; exact (HP _ Hin).
Qed.

Lemma fold_left_snd_prefix (G : nat * list nat -> bool -> nat * list nat) :
  (forall st b, exists t, snd (G st b) = snd st ++ t) ->
  forall l st, exists t, snd (fold_left G l st) = snd st ++ t.
Proof.
  intros HG l. induction l as [|b l IH]; intros st; [exists []; rewrite app_nil_r; reflexivity|].
  cbn [fold_left]. destruct (IH (G st b)) as [t1 E1]. destruct (HG st b) as [t2 E2].
  exists (t2 ++ t1). rewrite E1, E2, app_assoc. reflexivity.
Qed.

(** [prune] keeps the inputs' indices. *)
Lemma k_prune P : kprog P -> kprog (prune P).
Proof.
  intros [HP Hn]. split; [|exact Hn]. unfold prune, kinstrs. cbn [cp_body].
  match goal with |- context [nth _ (snd (fold_left ?G ?l ?st)) 0%nat] =>
    destruct (fold_left_snd_prefix G ltac:(intros st' b; eexists; reflexivity) l st) as [t Et]; rewrite Et end.
  cbn [snd]. rewrite Forall_forall. intros ins Hin. apply in_map_iff in Hin as ([v ins'] & <- & Hin).
  apply filter_In in Hin as [Hin _]. apply in_combine_r in Hin.
  unfold kinstrs in HP. rewrite Forall_forall in HP. pose proof (HP _ Hin) as Ho. cbn [fst snd].
  destruct ins' as [o args]. cbn [fst snd] in *.
  assert (H0 : nth 0 (seq 0 (length (cp_dims P)) ++ t) 0%nat = 0%nat).
  { rewrite app_nth1 by (rewrite seq_length; exact Hn). rewrite seq_nth by exact Hn. reflexivity. }
  destruct o; try exact I; [destruct Ho as [Hf ->]; split; [exact Hf|]; cbn [map]; rewrite H0; reflexivity|..];
    (destruct Ho as [HM Ha]; split; [exact HM|]; destruct args as [|a args]; [discriminate|];
     injection Ha as ->; cbn [map hd_error]; rewrite H0; reflexivity).
Qed.

Lemma k_core_prog k p : kprog (prim_core p) ->
  kprog (core_prog k p) /\ nth 0 (cp_dims (core_prog k p)) 0%nat = nth 0 (cp_dims (prim_core p)) 0%nat.
Proof.
  intros H0. induction k as [|k [IH Hd]]; [split; [exact H0|reflexivity]|].
  change (core_prog (S k) p) with (rd_core (core_prog k p)). split.
  - apply k_prune, k_rd_prog, IH.
  - rewrite rd_core_dims, app_nth1 by exact (proj2 IH). exact Hd.
Qed.

Lemma vals_input0 D body (x : vec) : (0 < length D)%nat ->
  nth 0 (vals (split_at 0 D x) body) [] = firstn (nth 0 D 0%nat) x.
Proof.
  intros Hn. rewrite (vals_nth_prefix _ _ 0); [|lia|rewrite split_at_length; lia].
  cbn [firstn]. rewrite vals_nil, split_at_nth by exact Hn. reflexivity.
Qed.

(** The premise of [core_rdk_correct_at] at every [k]: every point whose
    first block has its coordinates where every map of [F] is smooth. *)
Theorem kinks_smooth_at k p x : kprog (prim_core p) ->
  (forall f i, F f = true -> (i < nth 0 (cp_dims (prim_core p)) 0)%nat -> efun_smooth_at f (x@@i)) ->
  (forall c n m, MP c n m -> windows_strict c n m (firstn (nth 0 (cp_dims (prim_core p)) 0%nat) x)) ->
  prog_smooth_at (core_prog k p) x.
Proof.
  intros H0 Hx Hw j Hj. destruct (k_core_prog k p H0) as [[HP Hn] Hd].
  set (P := core_prog k p) in *. unfold instr_args.
  unfold kinstrs in HP. rewrite Forall_forall in HP. pose proof (HP _ (nth_In _ (OZero 0, []) Hj)) as Ho.
  destruct (nth j (cp_body P) (OZero 0, [])) as [o args]. cbn [fst snd] in *.
  destruct o; try exact I;
    [|(destruct Ho as [HM Ha]; destruct args as [|a args]; [discriminate|]; injection Ha as ->;
       cbn [map nth cop_smooth_at]; rewrite vals_input0, Hd by exact Hn; apply Hw, HM)..].
  destruct Ho as [Hf ->]. cbn [map nth cop_smooth_at].
  intros i Hi. rewrite vals_input0, Hd in Hi |- * by exact Hn. rewrite firstn_length in Hi.
  rewrite nth_firstn_lt by lia. apply Hx; [exact Hf|lia].
Qed.
End kinks.

(** The instances: [relu], [round], [log] (no [maxpool]-family
    operation), [maxpool] (no elementwise map). *)
Definition relu_efun (f : efun) : bool := match f with ERelu | ERelu1 => true | _ => false end.
Definition round_efun (f : efun) : bool := match f with ERound => true | _ => false end.
Definition log_efun (f : efun) : bool := match f with ELog | ELog1 | ELog2 => true | _ => false end.
Definition no_efun (f : efun) : bool := false.
Definition no_mp (c n m : nat) : Prop := False.

Ltac closed_solve := intros f y Hf; destruct f; try discriminate Hf; cbn; repeat split.
Lemma relu_closed : forall f y, relu_efun f = true -> kopt relu_efun no_mp (efun_d f (RV 0) (RV y)).
Proof. closed_solve. Qed.
Lemma round_closed : forall f y, round_efun f = true -> kopt round_efun no_mp (efun_d f (RV 0) (RV y)).
Proof. closed_solve. Qed.
Lemma log_closed : forall f y, log_efun f = true -> kopt log_efun no_mp (efun_d f (RV 0) (RV y)).
Proof. closed_solve. Qed.

Ltac core_k_solve := split; [repeat constructor|cbn; lia].

Theorem relu_smooth_at k n x : (forall i, (i < n)%nat -> x@@i <> 0) -> prog_smooth_at (core_prog k (PRelu n)) x.
Proof.
  intros Hx. apply (kinks_smooth_at relu_efun no_mp relu_closed); [core_k_solve| |intros ? ? ? []].
  intros f i Hf Hi. destruct f; try discriminate Hf; apply Hx, Hi.
Qed.

Theorem round_smooth_at k n x : (forall i (z : Z), (i < n)%nat -> x@@i + / 2 <> IZR z) ->
  prog_smooth_at (core_prog k (PRound n)) x.
Proof.
  intros Hx. apply (kinks_smooth_at round_efun no_mp round_closed); [core_k_solve| |intros ? ? ? []].
  intros f i Hf Hi. destruct f; try discriminate Hf. intros z. apply Hx, Hi.
Qed.

Theorem log_smooth_at k n x : (forall i, (i < n)%nat -> 0 < x@@i) -> prog_smooth_at (core_prog k (PLog n)) x.
Proof.
  intros Hx. apply (kinks_smooth_at log_efun no_mp log_closed); [core_k_solve| |intros ? ? ? []].
  intros f i Hf Hi. specialize (Hx i Hi). destruct f; try discriminate Hf; cbn; lra.
Qed.

Theorem maxpool_smooth_at k c n m x : windows_strict c n m (firstn (c * n) x) ->
  prog_smooth_at (core_prog k (PMaxpool c n m)) x.
Proof.
  intros Hx. apply (kinks_smooth_at no_efun (fun c' n' m' => c' = c /\ n' = n /\ m' = m)).
  - intros f y Hf. discriminate Hf.
  - split; [repeat constructor|cbn; lia].
  - intros f i Hf. discriminate Hf.
  - intros c' n' m' (-> & -> & ->). exact Hx.
Qed.

Corollary core_rdk_correct_relu k n x :
  length x = pdom k (PRelu n) -> (forall i, (i < n)%nat -> x@@i <> 0) ->
  is_rev_deriv (pdom k (PRelu n)) (pcod k (PRelu n)) (core_fun (core_prog k (PRelu n))) x
    (fun y => core_fun (core_prog (S k) (PRelu n)) (x ++ y)).
Proof. intros Hl Hx. apply core_rdk_correct_at; [reflexivity|exact Hl|apply relu_smooth_at, Hx]. Qed.

Corollary core_rdk_correct_round k n x :
  length x = pdom k (PRound n) -> (forall i (z : Z), (i < n)%nat -> x@@i + / 2 <> IZR z) ->
  is_rev_deriv (pdom k (PRound n)) (pcod k (PRound n)) (core_fun (core_prog k (PRound n))) x
    (fun y => core_fun (core_prog (S k) (PRound n)) (x ++ y)).
Proof. intros Hl Hx. apply core_rdk_correct_at; [reflexivity|exact Hl|apply round_smooth_at, Hx]. Qed.

Corollary core_rdk_correct_log k n x :
  length x = pdom k (PLog n) -> (forall i, (i < n)%nat -> 0 < x@@i) ->
  is_rev_deriv (pdom k (PLog n)) (pcod k (PLog n)) (core_fun (core_prog k (PLog n))) x
    (fun y => core_fun (core_prog (S k) (PLog n)) (x ++ y)).
Proof. intros Hl Hx. apply core_rdk_correct_at; [reflexivity|exact Hl|apply log_smooth_at, Hx]. Qed.

Corollary core_rdk_correct_maxpool k c n m x :
  (0 < m)%nat -> length x = pdom k (PMaxpool c n m) -> windows_strict c n m (firstn (c * n) x) ->
  is_rev_deriv (pdom k (PMaxpool c n m)) (pcod k (PMaxpool c n m)) (core_fun (core_prog k (PMaxpool c n m))) x
    (fun y => core_fun (core_prog (S k) (PMaxpool c n m)) (x ++ y)).
Proof.
  intros Hm Hl Hx. apply core_rdk_correct_at; [destruct m; [lia|reflexivity]|exact Hl|apply maxpool_smooth_at, Hx].
Qed.

(** An illustration at [k = 2], [n = 1]: [rd²[relu]] of the core reads
    the step [relu'] at the input ([relu'(x)·w], and a zero adjoint for
    the cotangent), so the premise is [x₀ ≠ 0]: it holds at [(1, 1, 1)]
    and fails at [(0, 1, 1)]. *)
Example relu_k2_body :
  cp_body (core_prog 2 (PRelu 1)) = [(OMap ERelu1, [0%nat]); (OMul, [2%nat; 3%nat]); (OZero 1, [])].
Proof. vm_compute. reflexivity. Qed.

Example relu_k2_smooth : prog_smooth_at (core_prog 2 (PRelu 1)) [1; 1; 1].
Proof. apply relu_smooth_at. intros i Hi. destruct i as [|i]; [cbn; lra|lia]. Qed.

Example relu_k2_kink : ~ prog_smooth_at (core_prog 2 (PRelu 1)) [0; 1; 1].
Proof.
  intros H. assert (Hd : cp_dims (core_prog 2 (PRelu 1)) = [1; 1; 1]%nat) by (vm_compute; reflexivity).
  specialize (H 0%nat ltac:(rewrite relu_k2_body; cbn; lia)). unfold instr_args in H.
  rewrite relu_k2_body in H. cbn [nth fst snd map cop_smooth_at efun_smooth_at] in H.
  rewrite vals_input0, Hd in H by (rewrite Hd; cbn; lia). cbn in H. apply (H 0%nat); [lia|reflexivity].
Qed.

Example relu_k2_rev_deriv :
  is_rev_deriv (pdom 2 (PRelu 1)) (pcod 2 (PRelu 1)) (core_fun (core_prog 2 (PRelu 1))) [1; 1; 1]
    (fun y => core_fun (core_prog 3 (PRelu 1)) ([1; 1; 1] ++ y)).
Proof. apply core_rdk_correct_at; [reflexivity|reflexivity|exact relu_k2_smooth]. Qed.

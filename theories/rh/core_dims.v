(** * Dimensions of the core's programs

    A dimension judgment on the straight-line programs of rdcore.v
    ([wd_prog]): every instruction reads earlier variables only, and the
    lengths of what it reads satisfy its operation's condition
    ([cop_ok]); every returned variable exists.  The lengths of all the
    variables are then [body_dims] (rdcore.v), computed from the inputs'.

    Proved here:
    - the judgment is sound for the vector model: on inputs of the
      declared lengths, a judged program returns vectors of the lengths
      [out_dims] ([eval_cprog_fits], from [vec_shapes], shapes.v), so
      [eval_core] answers ([eval_core_total]);
    - every primitive's forward map satisfies it with the dimensions of
      the primitive's type ([prim_core_wd]);
    - hence [Ev] of [rd^k[p]] answers on every well-shaped argument for
      every [k] at which [core_prog k p] is judged with the dimensions of
      [rd^k[p]]'s domain and codomain ([exec_ev_total_core]).

    - [rd_prog] keeps the judgment and returns one adjoint per input, of
      the input's length ([rd_prog_wd]), from: every contribution of
      [vjp] is a judged expression of the adjoint's length ([vjp_dims]);
      [emit] extends a judged body ([emit_ok]); [accum], [contribs],
      [seed], [back], [finals] keep every adjoint at its variable's
      length ([accum_ok], [contribs_ok], [seed_ok], [back_ok],
      [finals_ok]); the renumbered forward copy keeps the lengths
      ([fwd_ok], [instrs_ok]).

    The last piece, that [prune] keeps the judgment and the output
    lengths, is prune_dims.v's [prune_wd]; with [rd_prog_wd] it gives
    [rd_core_wd_step] ([rd_core_wd], since [rd_core = prune ∘ rd_prog]),
    so [core_prog k p] is judged at every [k] and [Ev] answers at every
    order with no hypothesis ([exec_ev_total_all], prune_dims.v;
    docs/decisions.md, "Ev total on shapes at every order").
    [exec_ev_total_of_step] is kept, stated with the step as a
    hypothesis. *)
From RevHandlers Require Import prelude signature syntax typing rdcore instance shapes ev_total.

(** ** The judgment *)

(** The condition an operation puts on the lengths of its arguments: its
    arity, and the lengths its vector operation needs ([vec_shapes]). *)
Definition cop_ok (o : cop) (ds : list nat) : Prop :=
  match o, ds with
  | OZero _, [] => True
  | (OAdd | OSub | OMul | ODot), [a; b] => a = b
  | (ONeg | OMap _ | OSoftmax | OSum | OLse), [_] => True
  | OScale, [a; _] => a = 1
  | OBcast _, [a] => a = 1
  | OMatmul m n k, [a; b] => a = m * n /\ b = n * k
  | OTranspose m n, [a] => a = m * n
  | OPad c n _, [a] => a = c * n
  | OUpscale c n m, [a] => 0 < m /\ a = c * n
  | OUpscaleAdj c _ m, [g] => 0 < m /\ g = c * m
  | OConv c c' n m, [K; x] => 0 < m /\ m <= n /\ K = c' * c * m /\ x = c * n
  | OConvDK c c' n m, [g; x] => 0 < m /\ m <= n /\ g = c' * (n - m + 1) /\ x = c * n
  | OConvDx c c' n m, [K; g] => 0 < m /\ m <= n /\ K = c' * c * m /\ g = c' * (n - m + 1)
  | OMaxpool c n m, [x] => 0 < m /\ x = c * n
  | OMaxpoolAdj c n m, [x; g] => 0 < m /\ x = c * n /\ g = c * ceil_div n m
  | OMaxpoolGather c n m, [x; y] => 0 < m /\ x = c * n /\ y = c * n
  | OAppend, [_; _] => True
  | (OFirstn k | OSkipn k), [a] => k <= a
  | _, _ => False
  end.

(** [D]: the lengths of the variables so far. *)
Fixpoint wd_body (D : list nat) (body : list (cop * list nat)) : Prop :=
  match body with
  | [] => True
  | (o, args) :: body' =>
      Forall (fun a => a < length D) args /\
      cop_ok o (map (fun a => nth a D 0) args) /\
      wd_body (D ++ [cop_dim o (map (fun a => nth a D 0) args)]) body'
  end.

Definition wd_prog (P : cprog) : Prop :=
  wd_body (cp_dims P) (cp_body P) /\
  Forall (fun o => o < length (cp_dims P) + length (cp_body P)) (cp_out P).

(** The lengths of the outputs. *)
Definition out_dims (P : cprog) : list nat :=
  map (fun i => nth i (body_dims (cp_dims P) (cp_body P)) 0) (cp_out P).

Lemma body_dims_cons D o args body :
  body_dims D ((o, args) :: body) = body_dims (D ++ [cop_dim o (map (fun a => nth a D 0) args)]) body.
Proof. reflexivity. Qed.

Lemma body_dims_length D body : length (body_dims D body) = length D + length body.
Proof.
  revert D. induction body as [|[o args] body IH]; intros D; [cbn; lia|].
  rewrite body_dims_cons, IH, app_length. cbn. lia.
Qed.

(** ** Soundness for the vector model *)
Section sound.
Context {Vec : Type} (vo : vec_ops Vec) (HS : vec_shapes vo).

Local Notation len := (v_len vo).

Lemma cop_eval_fits o ds xs :
  cop_ok o ds -> fit_dims vo ds xs -> len (cop_eval vo o xs) = cop_dim o ds.
Proof.
  unfold fit_dims. intros Hok Hf.
  destruct o; destruct ds as [|d0 [|d1 [|d2 ds]]]; cbn in Hok; try contradiction;
    repeat match goal with H : Forall2 _ (_ :: _) _ |- _ => inversion H; subst; clear H end;
    repeat match goal with H : Forall2 _ [] _ |- _ => inversion H; subst; clear H end;
    cbn [cop_eval cop_dim nth];
    repeat match goal with H : _ /\ _ |- _ => destruct H end; subst;
    try destruct f; cbn [efun_eval];
    try first
      [ apply (vs_zero vo HS) | apply (vs_add vo HS) | apply (vs_sub vo HS) | apply (vs_mul vo HS) | apply (vs_neg vo HS)
      | apply (vs_scale vo HS) | apply (vs_dot vo HS) | apply (vs_swish vo HS) | apply (vs_swish1 vo HS)
      | apply (vs_swish2 vo HS) | apply (vs_round vo HS) | apply (vs_relu vo HS) | apply (vs_relu1 vo HS)
      | apply (vs_sigmoid vo HS) | apply (vs_sigmoid1 vo HS) | apply (vs_sigmoid2 vo HS)
      | apply (vs_tanh vo HS) | apply (vs_tanh1 vo HS) | apply (vs_tanh2 vo HS) | apply (vs_exp vo HS)
      | apply (vs_log vo HS) | apply (vs_log1 vo HS) | apply (vs_log2 vo HS) | apply (vs_sum vo HS)
      | apply (vs_bcast vo HS) | apply (vs_softmax vo HS) | apply (vs_lse vo HS)
      | apply (vs_matmul vo HS) | apply (vs_transpose vo HS) | apply (vs_pad vo HS)
      | apply (vs_upscale vo HS) | apply (vs_upscale_adj vo HS) | apply (vs_conv1d vo HS)
      | apply (vs_conv1d_dK vo HS) | apply (vs_conv1d_dx vo HS) | apply (vs_maxpool vo HS)
      | apply (vs_maxpool_adj vo HS) | apply (vs_maxpool_gather vo HS) | apply (vs_firstn vo HS)
      | apply (vs_skipn vo HS) | apply (vs_append vo HS) ]; auto; try lia.
Qed.

Lemma Forall2_nth' {A B} (P : A -> B -> Prop) l1 l2 a d1 d2 :
  Forall2 P l1 l2 -> a < length l1 -> P (nth a l1 d1) (nth a l2 d2).
Proof.
  intros H. revert a. induction H as [|x y l1 l2 Hxy H IH]; intros a Ha; cbn in Ha; [lia|].
  destruct a; cbn; [exact Hxy|]. apply IH. lia.
Qed.

(** Reading variables [args] of an environment kept last first. *)
Lemma read_fits D env args :
  fit_dims vo D (rev env) -> Forall (fun a => a < length D) args ->
  fit_dims vo (map (fun a => nth a D 0) args)
               (map (fun i => nth (length D - 1 - i) env (v_zero vo 0)) args).
Proof.
  intros Hf Ha. pose proof (Forall2_length' _ _ _ Hf) as Hl. rewrite rev_length in Hl.
  induction Ha as [|a args Ha Has IH]; constructor; [|exact IH].
  rewrite Hl. replace (length env - 1 - a) with (length env - S a) by lia.
  rewrite <- (rev_nth env (v_zero vo 0)) by lia.
  exact (Forall2_nth' _ _ _ a 0 (v_zero vo 0) Hf Ha).
Qed.

Lemma eval_body_fits body : forall D env n,
  wd_body D body -> n = length D -> fit_dims vo D (rev env) ->
  fit_dims vo (body_dims D body) (rev (eval_body (cop_eval vo) (v_zero vo 0) n env body)).
Proof.
  induction body as [|[o args] body IH]; intros D env n Hwd Hn Hf; [exact Hf|].
  destruct Hwd as (Hargs & Hok & Hwd). rewrite body_dims_cons. cbn [eval_body]. subst n.
  apply IH; [exact Hwd| rewrite app_length; cbn; lia|].
  cbn [rev]. apply Forall2_app; [exact Hf|]. constructor; [|constructor].
  apply (cop_eval_fits _ _ _ Hok). exact (read_fits D env args Hf Hargs).
Qed.

(** A judged program, on inputs of its declared lengths, returns vectors of
    the lengths [out_dims]. *)
Theorem eval_cprog_fits P xs :
  wd_prog P -> fit_dims vo (cp_dims P) xs ->
  fit_dims vo (out_dims P) (eval_cprog (cop_eval vo) (v_zero vo 0) P xs).
Proof.
  intros [Hwd Hout] Hf. pose proof (Forall2_length' _ _ _ Hf) as Hl.
  pose proof (eval_body_fits (cp_body P) (cp_dims P) (rev xs) (length xs) Hwd (eq_sym Hl)
                (eq_ind_r (fit_dims vo _) Hf (rev_involutive xs))) as Hb.
  unfold eval_cprog, out_dims.
  pose proof (Forall2_length' _ _ _ Hb) as Hlb. rewrite rev_length, body_dims_length in Hlb.
  induction Hout as [|o outs Ho Hos IH]; constructor; [|exact IH].
  set (env := eval_body (cop_eval vo) (v_zero vo 0) (length xs) (rev xs) (cp_body P)) in *.
  replace (length xs + length (cp_body P) - 1 - o) with (length env - S o) by lia.
  rewrite <- (rev_nth _ (v_zero vo 0)) by lia.
  apply (Forall2_nth' _ _ _ o 0 (v_zero vo 0) Hb). rewrite body_dims_length. exact Ho.
Qed.

(** [eval_core] answers on every argument of the declared lengths of a
    judged program. *)
Theorem eval_core_total P ds xs :
  wd_prog P -> out_dims P = ds -> fit_dims vo (cp_dims P) xs ->
  exists outs, eval_core vo P ds xs = Some outs.
Proof.
  intros Hwd <- Hf. unfold eval_core.
  rewrite (Forall2_length' _ _ _ Hf), Nat.eqb_refl.
  rewrite (fit_dims_dims_fitb vo _ _ (eval_cprog_fits P xs Hwd Hf)). eexists. reflexivity.
Qed.
End sound.

(** ** The primitives' forward maps *)

(** Every primitive's forward map is judged, with the dimensions of its
    type: inputs [prim_dom p], output [prim_cod p]. *)
Theorem prim_core_wd p :
  prim_ok p = true -> wd_prog (prim_core p) /\ out_dims (prim_core p) = [prim_cod p].
Proof.
  intros Hok. unfold wd_prog, out_dims.
  destruct p; cbn in Hok |- *;
    repeat match goal with H : (_ && _)%bool = true |- _ => apply andb_true_iff in H as [? ?] end;
    repeat match goal with H : Nat.ltb _ _ = true |- _ => apply Nat.ltb_lt in H
                         | H : Nat.leb _ _ = true |- _ => apply Nat.leb_le in H end;
    repeat split; repeat constructor; cbn; try lia; try reflexivity;
    try (f_equal; lia); destruct m; (discriminate || lia).
Qed.

(** ** [rd^k[p]]'s dimensions *)
Section dims.
Context {Vec : Type}.

Lemma ty_dims_fdom0 p : @ty_dims Vec (@fdom Vec 0 p) = prim_dom p.
Proof. destruct p; reflexivity. Qed.

Lemma ty_dims_fdomS k p :
  @ty_dims Vec (@fdom Vec (S k) p) = @ty_dims Vec (@fdom Vec k p) ++ @ty_dims Vec (@fcod Vec k p).
Proof. cbn. rewrite app_nil_r. reflexivity. Qed.

Lemma ty_dims_fcodS k p : @ty_dims Vec (@fcod Vec (S k) p) = @ty_dims Vec (@fdom Vec k p).
Proof. reflexivity. Qed.
End dims.

(** [rd_core P] takes [P]'s inputs followed by one cotangent per output. *)
Lemma rd_core_dims P : cp_dims (rd_core P) = cp_dims P ++ out_dims P.
Proof.
  unfold rd_core, prune, rd_prog.
  destruct (seed _ _ _ _ _) as [adj1 s1].
  destruct (back _ _ _ _ _ _) as [adj2 s2].
  destruct (finals _ _ _ _) as [outs s3]. reflexivity.
Qed.

(** [core_prog k p] is judged with the dimensions of [rd^k[p]]'s domain
    and codomain, as soon as [rd_core] keeps the judgment and returns one
    adjoint per input: the induction on [k] (the step, [rd_core_wd_step],
    is what stays to prove). *)
Definition rd_core_wd_step : Prop :=
  forall P, wd_prog P -> wd_prog (rd_core P) /\ out_dims (rd_core P) = cp_dims P.

Theorem core_prog_wd {Vec : Type} (Hrd : rd_core_wd_step) k p :
  prim_ok p = true ->
  wd_prog (core_prog k p) /\
  cp_dims (core_prog k p) = @ty_dims Vec (@fdom Vec k p) /\
  out_dims (core_prog k p) = @ty_dims Vec (@fcod Vec k p).
Proof.
  intros Hok. induction k as [|k (Hwd & Hin & Hout)].
  - change (core_prog 0 p) with (prim_core p). destruct (prim_core_wd p Hok) as [Hwd Hout].
    split; [exact Hwd|]. split; [rewrite ty_dims_fdom0; destruct p; reflexivity|].
    rewrite Hout. reflexivity.
  - change (core_prog (S k) p) with (rd_core (core_prog k p)).
    destruct (Hrd _ Hwd) as [Hwd' Hout'].
    split; [exact Hwd'|]. split.
    + rewrite rd_core_dims, Hin, Hout, ty_dims_fdomS. reflexivity.
    + rewrite Hout', Hin. reflexivity.
Qed.

(** ** [Ev] at every order *)
Section ev_total_all.
Context {Vec : Type} (vo : vec_ops Vec) (HS : vec_shapes vo).
#[local] Instance core_dims_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance core_dims_signature : signature := exec_signature vo decls locs.

Lemma leaves_fit_dims_of (ls : list (nat * Vec)) :
  Forall (fun c : nat * Vec => v_len vo (snd c) = fst c) ls -> fit_dims vo (map fst ls) (map snd ls).
Proof. induction 1; constructor; assumption. Qed.

(** [Ev] of [rd^k[p]], for every [k], answers on every closed value typed
    at its domain whose constants have their declared lengths, given the
    step [rd_core_wd_step] (for [k ≤ 2] without it: [exec_ev_total]). *)
Theorem exec_ev_total_of_step (Hrd : rd_core_wd_step) k p V :
  prim_ok p = true -> value V -> typed_tm [] V (@fdom Vec k p) -> consts_fit vo V ->
  exists V', exec_ev vo (k, p) V = Some V'.
Proof.
  intros Hok HV HT Hfit.
  destruct (Nat.le_gt_cases k 2) as [Hk|Hk]; [exact (exec_ev_total vo decls locs k p V Hk Hok HV HT Hfit)|].
  unfold exec_ev.
  pose proof (leaves_dims vo decls locs V _ HV HT) as Hdims.
  rewrite Hok, (leaves_fit_of vo _ _ Hdims Hfit). cbn [andb].
  rewrite (eval_prim_core vo k p _ ltac:(lia)).
  destruct (core_prog_wd (Vec := Vec) Hrd k p Hok) as (Hwd & Hin & Hout).
  assert (Hf : fit_dims vo (cp_dims (core_prog k p)) (map snd (@leaves Vec V))).
  { rewrite Hin, <- Hdims. apply leaves_fit_dims_of, Hfit. }
  destruct (eval_core_total vo HS _ _ _ Hwd Hout Hf) as [outs Houts].
  rewrite Houts. eexists. reflexivity.
Qed.
End ev_total_all.


(** ** The contributions of [vjp] have the lengths of the adjoints *)

(** The length of an expression over variables of lengths [D], and its
    judgment: every variable exists and every operation's condition holds. *)
Fixpoint rexp_dim (D : list nat) (e : rexp) : nat :=
  match e with
  | RV i => nth i D 0
  | RO o es => cop_dim o (map (rexp_dim D) es)
  end.

Fixpoint rexp_ok (D : list nat) (e : rexp) : Prop :=
  match e with
  | RV i => i < length D
  | RO o es => fold_right and (cop_ok o (map (rexp_dim D) es)) (map (rexp_ok D) es)
  end.

Definition rdim (D : list nat) (e : rexp) (d : nat) : Prop := rexp_ok D e /\ rexp_dim D e = d.

(** Each contribution of [vjp o] to an argument's adjoint has that
    argument's length, when the arguments' lengths satisfy [cop_ok o]
    and the result and its cotangent have [o]'s result length. *)
Theorem vjp_dims D o as_ ds y g :
  cop_ok o ds -> Forall2 (fun a d => a < length D /\ nth a D 0 = d) as_ ds ->
  y < length D -> nth y D 0 = cop_dim o ds -> g < length D -> nth g D 0 = cop_dim o ds ->
  Forall2 (fun c d => match c with Some e => rdim D e d | None => True end) (vjp o as_ ds y g) ds.
Proof.
  intros Hok Has Hy HY Hg HG.
  destruct o; destruct ds as [|d0 [|d1 [|d2 ds]]]; cbn in Hok; try contradiction;
    repeat match goal with H : Forall2 _ _ (_ :: _) |- _ => inversion H; subst; clear H end;
    repeat match goal with H : Forall2 _ _ [] |- _ => inversion H; subst; clear H end;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    cbn [cop_dim nth] in HY, HG; try destruct f;
    cbn [vjp efun_d rmap radd rmul rtwice sigm3 option_map nth];
    repeat constructor; unfold rdim, sigm3, rtwice in *; unfold rmul, rmap, radd in *;
    cbn [rexp_ok rexp_dim map fold_right cop_ok cop_dim nth];
    unfold ceil_div in *; subst; repeat split; try lia.
Qed.

(** ** Building programs: [emit] *)

Fixpoint rexp_ind' (P : rexp -> Prop) (HV : forall i, P (RV i))
    (HO : forall o es, Forall P es -> P (RO o es)) (e : rexp) {struct e} : P e :=
  match e with
  | RV i => HV i
  | RO o es =>
      HO o es ((fix go (es : list rexp) : Forall P es :=
                  match es with
                  | [] => Forall_nil P
                  | e :: es' => Forall_cons e (rexp_ind' P HV HO e) (go es')
                  end) es)
  end.

Lemma fold_right_and_map {A} (Q : Prop) (f : A -> Prop) l :
  fold_right and Q (map f l) <-> Forall f l /\ Q.
Proof.
  induction l as [|x l IH]; cbn.
  - split; [intros; split; [constructor|assumption] | intros [_ H]; exact H].
  - rewrite IH. split.
    + intros (H1 & H2 & H3). split; [constructor|]; assumption.
    + intros [H1 H3]. inversion H1; subst. auto.
Qed.

(** Judged expressions stay judged, with the same length, when variables
    are added. *)
Lemma rexp_mono D E e : rexp_ok D e -> rexp_ok (D ++ E) e /\ rexp_dim (D ++ E) e = rexp_dim D e.
Proof.
  induction e as [i|o es IH] using rexp_ind'; cbn.
  - intros Hi. rewrite app_length, app_nth1 by exact Hi. split; [lia|reflexivity].
  - rewrite !fold_right_and_map. intros [Hes Hok].
    assert (Hm : map (rexp_dim (D ++ E)) es = map (rexp_dim D) es).
    { clear Hok. induction IH as [|e es' He _ IHes]; [reflexivity|].
      inversion Hes as [|? ? He' Hes']; subst. cbn.
      rewrite (proj2 (He He')), (IHes Hes'). reflexivity. }
    rewrite Hm. split; [|reflexivity]. split; [|exact Hok].
    clear Hok Hm. induction IH as [|e es' He _ IHes]; [constructor|].
    inversion Hes as [|? ? He' Hes']; subst.
    constructor; [exact (proj1 (He He'))|]. exact (IHes Hes').
Qed.

Lemma body_dims_app D b1 b2 : body_dims D (b1 ++ b2) = body_dims (body_dims D b1) b2.
Proof. unfold body_dims. apply fold_left_app. Qed.

Lemma body_dims_prefix D b : exists E, body_dims D b = D ++ E.
Proof.
  revert D. induction b as [|[o args] b IH]; intros D.
  - exists []. rewrite app_nil_r. reflexivity.
  - rewrite body_dims_cons. destruct (IH (D ++ [cop_dim o (map (fun a => nth a D 0) args)])) as [E HE].
    rewrite HE, <- app_assoc. eexists. reflexivity.
Qed.

Lemma wd_body_app D b1 b2 : wd_body D (b1 ++ b2) <-> wd_body D b1 /\ wd_body (body_dims D b1) b2.
Proof.
  revert D. induction b1 as [|[o args] b1 IH]; intros D; cbn [app wd_body].
  - unfold body_dims. cbn. tauto.
  - rewrite IH, body_dims_cons. tauto.
Qed.

(** A state of the builder over inputs of lengths [D0]: its instructions,
    the first first, are judged, and the next variable is the one after
    them. *)
Definition st_ok (D0 : list nat) (s : bstate) : Prop :=
  wd_body D0 (rev (bs_acc s)) /\ bs_next s = length D0 + length (bs_acc s).

Definition st_dims (D0 : list nat) (s : bstate) : list nat := body_dims D0 (rev (bs_acc s)).

Lemma st_dims_length D0 s : length (st_dims D0 s) = length D0 + length (bs_acc s).
Proof. unfold st_dims. rewrite body_dims_length, rev_length. reflexivity. Qed.

(** Emitting one instruction whose arguments are judged. *)
Lemma push_ok D0 s o is :
  st_ok D0 s -> Forall (fun a => a < length (st_dims D0 s)) is ->
  cop_ok o (map (fun a => nth a (st_dims D0 s) 0) is) ->
  let s' := {| bs_next := S (bs_next s); bs_acc := (o, is) :: bs_acc s |} in
  st_ok D0 s' /\
  st_dims D0 s' = st_dims D0 s ++ [cop_dim o (map (fun a => nth a (st_dims D0 s) 0) is)].
Proof.
  intros [Hwd Hn] His Hok. unfold st_ok, st_dims in *. cbn [bs_acc bs_next rev].
  rewrite wd_body_app, body_dims_app. cbn [length]. split; [split; [split; [exact Hwd|]|]|].
  - cbn. split; [exact His|]. split; [exact Hok|]. exact I.
  - lia.
  - reflexivity.
Qed.

Definition emit_spec (D0 : list nat) (e : rexp) (s : bstate) : Prop :=
  st_ok D0 (snd (emit e s)) /\
  fst (emit e s) < length (st_dims D0 (snd (emit e s))) /\
  nth (fst (emit e s)) (st_dims D0 (snd (emit e s))) 0 = rexp_dim (st_dims D0 s) e /\
  exists E, st_dims D0 (snd (emit e s)) = st_dims D0 s ++ E.

(** [emit] of a judged expression extends a judged body with a variable
    of the expression's length. *)
Lemma emit_ok D0 e : forall s, st_ok D0 s -> rexp_ok (st_dims D0 s) e -> emit_spec D0 e s.
Proof.
  induction e as [i|o es IH] using rexp_ind'; intros s Hs Hok; unfold emit_spec.
  - cbn. split; [exact Hs|]. split; [exact Hok|]. split; [reflexivity|]. exists []. symmetry. apply app_nil_r.
  - cbn [emit].
    match goal with |- context [?F es s] => pose (go := F); change (F es s) with (go es s) end.
    assert (Hgo : forall l s, Forall (fun e => forall s, st_ok D0 s -> rexp_ok (st_dims D0 s) e -> emit_spec D0 e s) l ->
              st_ok D0 s -> Forall (rexp_ok (st_dims D0 s)) l ->
              st_ok D0 (snd (go l s)) /\
              Forall2 (fun i e => i < length (st_dims D0 (snd (go l s))) /\
                                  nth i (st_dims D0 (snd (go l s))) 0 = rexp_dim (st_dims D0 s) e)
                      (fst (go l s)) l /\
              exists E, st_dims D0 (snd (go l s)) = st_dims D0 s ++ E).
    { clear IH Hs Hok s. induction l as [|e l IHl]; intros s IH Hs Hok.
      - cbn. split; [exact Hs|]. split; [constructor|]. exists []. symmetry. apply app_nil_r.
      - inversion IH as [|? ? He IH']; subst. inversion Hok as [|? ? Hoke Hok']; subst.
        change (go (e :: l) s) with (let '(i, s1) := emit e s in
                                     let '(is, s2) := go l s1 in (i :: is, s2)).
        destruct (He s Hs Hoke) as (Hs1 & Hi & Hni & E1 & HE1).
        destruct (emit e s) as [i s1] eqn:Hem. cbn [fst snd] in Hs1, Hi, Hni, HE1.
        assert (Hok1 : Forall (rexp_ok (st_dims D0 s1)) l).
        { rewrite HE1. clear -Hok'. induction Hok'; constructor; [apply rexp_mono|]; assumption. }
        destruct (IHl s1 IH' Hs1 Hok1) as (Hs2 & Hl & E2 & HE2).
        destruct (go l s1) as [is s2]. cbn [fst snd] in *.
        split; [exact Hs2|]. split.
        + constructor.
          * rewrite HE2, app_length, app_nth1 by exact Hi. split; [lia|exact Hni].
          * clear -Hl HE1 Hok'. induction Hl as [|j e' js l' [Hj Hnj] Hl IHl']; constructor.
            -- split; [exact Hj|]. rewrite Hnj, HE1. inversion Hok'; subst.
               apply rexp_mono. assumption.
            -- inversion Hok'; subst. apply IHl'. assumption.
        + exists (E1 ++ E2). rewrite HE2, HE1, app_assoc. reflexivity. }
    destruct (Hgo es s IH Hs) as (Hs1 & His & E1 & HE1).
    { cbn in Hok. apply fold_right_and_map in Hok. exact (proj1 Hok). }
    cbn in Hok. apply fold_right_and_map in Hok as [_ Hcop].
    destruct (go es s) as [is s1]. cbn [fst snd] in *.
    assert (Hm : map (fun a => nth a (st_dims D0 s1) 0) is = map (rexp_dim (st_dims D0 s)) es).
    { clear -His. induction His as [|j e js l [_ Hj] _ IHs]; [reflexivity|]. cbn. rewrite Hj, IHs. reflexivity. }
    assert (Hargs : Forall (fun a => a < length (st_dims D0 s1)) is).
    { clear -His. induction His as [|j e js l [Hj _] _ IHs]; constructor; assumption. }
    rewrite <- Hm in Hcop.
    destruct (push_ok D0 s1 o is Hs1 Hargs Hcop) as [Hs2 Hd2]. cbn [fst snd].
    split; [exact Hs2|]. rewrite Hd2. destruct Hs1 as [_ Hn].
    rewrite Hn, <- st_dims_length, app_length, app_nth2, Nat.sub_diag by lia. cbn.
    split; [lia|]. split; [rewrite Hm; reflexivity|].
    exists (E1 ++ [cop_dim o (map (fun a => nth a (st_dims D0 s1) 0) is)]).
    rewrite HE1, app_assoc. reflexivity.
Qed.

(** ** The adjoints *)

Lemma upd_length {A} (l : list A) i x : length (upd l i x) = length l.
Proof. revert i. induction l as [|y l IH]; intros [|i]; cbn; auto. Qed.

Lemma nth_upd_eq {A} (l : list A) i x d : i < length l -> nth i (upd l i x) d = x.
Proof. revert i. induction l as [|y l IH]; intros [|i] Hi; cbn in *; try lia; auto. apply IH. lia. Qed.

Lemma nth_upd_ne {A} (l : list A) i k x d : k <> i -> nth k (upd l i x) d = nth k l d.
Proof.
  revert i k. induction l as [|y l IH]; intros [|i] [|k] Hki; cbn; auto; lia.
Qed.

(** [adj]: the variable holding the adjoint of each variable of [P] (of
    lengths [Dp]) so far, if any; it exists in the state [s] and has the
    length of the variable it is the adjoint of. *)
Definition adj_ok (D0 Dp : list nat) (adj : list (option nat)) (s : bstate) : Prop :=
  length adj = length Dp /\
  forall i j, nth i adj None = Some j ->
    j < length (st_dims D0 s) /\ nth j (st_dims D0 s) 0 = nth i Dp 0.

Lemma adj_ok_ext D0 Dp adj s s' E :
  adj_ok D0 Dp adj s -> st_dims D0 s' = st_dims D0 s ++ E -> adj_ok D0 Dp adj s'.
Proof.
  intros [Hl Hadj] HE. split; [exact Hl|]. intros i j Hij.
  destruct (Hadj i j Hij) as [Hj Hn]. rewrite HE, app_length, app_nth1 by exact Hj. split; [lia|exact Hn].
Qed.

(** What a step of the backward sweep keeps. *)
Definition sweep_spec (D0 Dp : list nat) (s : bstate) (r : list (option nat) * bstate) : Prop :=
  st_ok D0 (snd r) /\ adj_ok D0 Dp (fst r) (snd r) /\ exists E, st_dims D0 (snd r) = st_dims D0 s ++ E.

Lemma accum_ok D0 Dp adj i c s :
  st_ok D0 s -> adj_ok D0 Dp adj s -> i < length Dp ->
  c < length (st_dims D0 s) -> nth c (st_dims D0 s) 0 = nth i Dp 0 ->
  sweep_spec D0 Dp s (accum adj i c s).
Proof.
  intros Hs [Hl Hadj] Hi Hc Hnc. unfold accum, sweep_spec.
  destruct (nth i adj None) as [old|] eqn:Hold.
  - destruct (Hadj i old Hold) as [Ho Hno].
    assert (Hok : rexp_ok (st_dims D0 s) (radd (RV old) (RV c))).
    { cbn. split; [exact Ho|]. split; [exact Hc|]. congruence. }
    destruct (emit_ok D0 _ s Hs Hok) as (Hs1 & Hj & Hnj & E & HE).
    destruct (emit _ s) as [j s1]. cbn [fst snd] in *.
    split; [exact Hs1|]. split; [|exists E; exact HE].
    split; [rewrite upd_length; exact Hl|]. intros k j' Hk.
    destruct (Nat.eq_dec k i) as [->|Hki].
    + rewrite nth_upd_eq in Hk by lia. injection Hk as <-. split; [exact Hj|].
      rewrite Hnj. cbn. exact Hno.
    + rewrite nth_upd_ne in Hk by exact Hki. exact (proj2 (adj_ok_ext D0 Dp adj s s1 E (conj Hl Hadj) HE) k j' Hk).
  - cbn [fst snd]. split; [exact Hs|]. split; [|exists []; symmetry; apply app_nil_r].
    split; [rewrite upd_length; exact Hl|]. intros k j' Hk.
    destruct (Nat.eq_dec k i) as [->|Hki].
    + rewrite nth_upd_eq in Hk by lia. injection Hk as <-. split; [exact Hc|exact Hnc].
    + rewrite nth_upd_ne in Hk by exact Hki. exact (Hadj k j' Hk).
Qed.

Lemma sweep_spec_refl D0 Dp adj s : st_ok D0 s -> adj_ok D0 Dp adj s -> sweep_spec D0 Dp s (adj, s).
Proof. intros Hs Ha. split; [exact Hs|]. split; [exact Ha|]. exists []. symmetry. apply app_nil_r. Qed.

Lemma sweep_spec_trans D0 Dp s r1 r2 :
  sweep_spec D0 Dp s r1 -> (sweep_spec D0 Dp (snd r1) r2) -> sweep_spec D0 Dp s r2.
Proof.
  intros (_ & _ & E1 & HE1) (Hs2 & Ha2 & E2 & HE2). split; [exact Hs2|]. split; [exact Ha2|].
  exists (E1 ++ E2). rewrite HE2, HE1, app_assoc. reflexivity.
Qed.

(** The contributions of one instruction, judged in an earlier state
    [s0], each added to the adjoint of its argument. *)
Lemma contribs_ok D0 Dp s0 args ds :
  Forall2 (fun a d => a < length Dp /\ nth a Dp 0 = d) args ds -> forall cs adj s E0,
  Forall2 (fun c d => match c with Some e => rdim (st_dims D0 s0) e d | None => True end) cs ds ->
  st_ok D0 s -> adj_ok D0 Dp adj s -> st_dims D0 s = st_dims D0 s0 ++ E0 ->
  sweep_spec D0 Dp s (contribs args cs adj s).
Proof.
  induction 1 as [|a d args ds Had Hargs IH]; intros cs adj s E0 Hcs Hs Hadj HE0.
  - destruct cs; apply sweep_spec_refl; assumption.
  - destruct Had as [Ha Hna]. inversion Hcs as [|c d' cs' ds' Hc Hcs']; subst.
    destruct c as [e|]; cbn [contribs].
    + destruct Hc as [Hok Hd].
      assert (Hok' : rexp_ok (st_dims D0 s) e) by (rewrite HE0; apply rexp_mono, Hok).
      destruct (emit_ok D0 e s Hs Hok') as (Hs1 & Hi & Hni & E1 & HE1).
      destruct (emit e s) as [c s1]. cbn [fst snd] in *.
      assert (Hadj1 : adj_ok D0 Dp adj s1) by exact (adj_ok_ext _ _ _ _ _ _ Hadj HE1).
      assert (Hnc : nth c (st_dims D0 s1) 0 = nth a Dp 0).
      { rewrite Hni, HE0, (proj2 (rexp_mono _ _ _ Hok)). exact Hd. }
      pose proof (accum_ok D0 Dp adj a c s1 Hs1 Hadj1 Ha Hi Hnc) as Hacc.
      destruct (accum adj a c s1) as [adj2 s2] eqn:Eacc.
      refine (sweep_spec_trans _ _ _ (adj2, s2) _ _ _).
      * destruct Hacc as (Hs2 & Ha2 & E2 & HE2). split; [exact Hs2|]. split; [exact Ha2|].
        exists (E1 ++ E2). cbn [snd] in *. rewrite HE2, HE1, app_assoc. reflexivity.
      * cbn [snd]. destruct Hacc as (Hs2 & Ha2 & E2 & HE2). cbn [fst snd] in *.
        apply (IH cs' adj2 s2 (E0 ++ E1 ++ E2) Hcs' Hs2 Ha2).
        rewrite HE2, HE1, HE0, !app_assoc. reflexivity.
    + apply (IH cs' adj s E0 Hcs' Hs Hadj HE0).
Qed.

Lemma st_dims_prefix D0 s : exists E, st_dims D0 s = D0 ++ E.
Proof. apply body_dims_prefix. Qed.

Lemma st_dims_nth_in D0 s i : i < length D0 -> i < length (st_dims D0 s) /\ nth i (st_dims D0 s) 0 = nth i D0 0.
Proof.
  intros Hi. destruct (st_dims_prefix D0 s) as [E HE]. rewrite HE, app_length, app_nth1 by exact Hi.
  split; [lia|reflexivity].
Qed.

(** The cotangent of output [r + k] is the input [nin + r + k] of the
    reverse program, of the length of the output. *)
Lemma seed_ok D0 Dp nin outs : forall r adj s,
  st_ok D0 s -> adj_ok D0 Dp adj s -> Forall (fun o => o < length Dp) outs ->
  (forall k, k < length outs -> nin + r + k < length D0 /\ nth (nin + r + k) D0 0 = nth (nth k outs 0) Dp 0) ->
  sweep_spec D0 Dp s (seed nin outs r adj s).
Proof.
  induction outs as [|o outs IH]; intros r adj s Hs Hadj Houts Hk; cbn [seed].
  - apply sweep_spec_refl; assumption.
  - inversion Houts as [|? ? Ho Houts']; subst.
    destruct (Hk 0 ltac:(cbn; lia)) as [H0 Hn0]. rewrite Nat.add_0_r in H0, Hn0. cbn [nth] in Hn0.
    destruct (st_dims_nth_in D0 s (nin + r) H0) as [Hc Hnc].
    pose proof (accum_ok D0 Dp adj o (nin + r) s Hs Hadj Ho Hc (eq_trans Hnc Hn0)) as Hacc.
    destruct (accum adj o (nin + r) s) as [adj1 s1].
    apply (sweep_spec_trans _ _ _ (adj1, s1)); [exact Hacc|]. cbn [snd].
    destruct Hacc as (Hs1 & Ha1 & _). cbn [fst snd] in *.
    apply IH; [exact Hs1|exact Ha1|exact Houts'|].
    intros k Hk'. specialize (Hk (S k) ltac:(cbn; lia)). cbn [nth] in Hk.
    replace (nin + S r + k) with (nin + r + S k) by lia. exact Hk.
Qed.

Lemma Forall2_map_self {A} (P : A -> A -> Prop) (f : A -> A) l :
  Forall (fun a => P a (f a)) l -> Forall2 P l (map f l).
Proof. induction 1; constructor; assumption. Qed.

(** The backward sweep over instructions of [P] (of variables of lengths
    [Dp]) whose variables [ren] places, in a state extending [s0], at
    variables of the same lengths. *)
Lemma back_ok D0 Dp nin q s0 instrs :
  (forall i, i < length Dp ->
     ren nin q i < length (st_dims D0 s0) /\ nth (ren nin q i) (st_dims D0 s0) 0 = nth i Dp 0) ->
  Forall (fun ji : nat * (cop * list nat) =>
            nin + fst ji < length Dp /\ Forall (fun a => a < length Dp) (snd (snd ji)) /\
            cop_ok (fst (snd ji)) (map (fun a => nth a Dp 0) (snd (snd ji))) /\
            nth (nin + fst ji) Dp 0 = cop_dim (fst (snd ji)) (map (fun a => nth a Dp 0) (snd (snd ji))))
         instrs ->
  forall adj s E0, st_ok D0 s -> adj_ok D0 Dp adj s -> st_dims D0 s = st_dims D0 s0 ++ E0 ->
  sweep_spec D0 Dp s (back nin q Dp instrs adj s).
Proof.
  intros Hren Hins. induction Hins as [|[j [o args]] instrs Hji Hins IH]; intros adj s E0 Hs Hadj HE0.
  - apply sweep_spec_refl; assumption.
  - cbn [fst snd] in Hji. destruct Hji as (Hj & Hargs & Hok & Hdj). cbn [back].
    destruct (nth (nin + j) adj None) as [g|] eqn:Hg; [|exact (IH adj s E0 Hs Hadj HE0)].
    assert (Hren' : forall i, i < length Dp ->
              ren nin q i < length (st_dims D0 s) /\ nth (ren nin q i) (st_dims D0 s) 0 = nth i Dp 0).
    { intros i Hi. destruct (Hren i Hi) as [H1 H2]. rewrite HE0, app_length, app_nth1 by exact H1.
      split; [lia|exact H2]. }
    destruct (proj2 Hadj _ _ Hg) as [Hgl Hgn].
    destruct (Hren' _ Hj) as [Hyl Hyn].
    pose proof (vjp_dims (st_dims D0 s) o (map (ren nin q) args) (map (fun a => nth a Dp 0) args)
                  (ren nin q (nin + j)) g Hok) as Hv.
    assert (Has : Forall2 (fun a d => a < length (st_dims D0 s) /\ nth a (st_dims D0 s) 0 = d)
                    (map (ren nin q) args) (map (fun a => nth a Dp 0) args)).
    { clear -Hargs Hren'. induction Hargs as [|a args Ha _ IHa]; constructor; [|exact IHa].
      exact (Hren' a Ha). }
    specialize (Hv Has Hyl (eq_trans Hyn Hdj) Hgl (eq_trans Hgn Hdj)).
    pose proof (contribs_ok D0 Dp s args (map (fun a => nth a Dp 0) args)
                  (Forall2_map_self _ _ _ (Forall_impl _ (fun a Ha => conj Ha eq_refl) Hargs))
                  _ adj s [] Hv Hs Hadj (eq_sym (app_nil_r _))) as Hc.
    destruct (contribs args _ adj s) as [adj1 s1].
    apply (sweep_spec_trans _ _ _ (adj1, s1)); [exact Hc|]. cbn [snd].
    destruct Hc as (Hs1 & Ha1 & E1 & HE1). cbn [fst snd] in *.
    apply (IH adj1 s1 (E0 ++ E1) Hs1 Ha1). rewrite HE1, HE0, app_assoc. reflexivity.
Qed.

(** The adjoints of the inputs, [zero d] for those nothing reached. *)
Lemma finals_ok D0 Dp ds : forall i adj s,
  st_ok D0 s -> adj_ok D0 Dp adj s ->
  (forall k, k < length ds -> nth (i + k) Dp 0 = nth k ds 0) ->
  st_ok D0 (snd (finals i ds adj s)) /\
  Forall2 (fun x d => x < length (st_dims D0 (snd (finals i ds adj s))) /\
                      nth x (st_dims D0 (snd (finals i ds adj s))) 0 = d)
          (fst (finals i ds adj s)) ds /\
  exists E, st_dims D0 (snd (finals i ds adj s)) = st_dims D0 s ++ E.
Proof.
  induction ds as [|d ds IH]; intros i adj s Hs Hadj Hk.
  - cbn. split; [exact Hs|]. split; [constructor|]. exists []. symmetry. apply app_nil_r.
  - cbn [finals].
    assert (Hd : nth i Dp 0 = d) by (specialize (Hk 0 ltac:(cbn; lia)); rewrite Nat.add_0_r in Hk; exact Hk).
    assert (Hx : exists x s1 E1, (match nth i adj None with
                                   | Some x => (x, s)
                                   | None => emit (RO (OZero d) []) s
                                   end) = (x, s1) /\ st_ok D0 s1 /\
                 x < length (st_dims D0 s1) /\ nth x (st_dims D0 s1) 0 = d /\
                 st_dims D0 s1 = st_dims D0 s ++ E1).
    { destruct (nth i adj None) as [x|] eqn:Hi.
      - destruct (proj2 Hadj _ _ Hi) as [H1 H2]. exists x, s, [].
        split; [reflexivity|]. split; [exact Hs|]. split; [exact H1|]. split; [congruence|].
        symmetry. apply app_nil_r.
      - assert (Hok : rexp_ok (st_dims D0 s) (RO (OZero d) [])) by exact I.
        destruct (emit_ok D0 _ s Hs Hok) as (Hs1 & H1 & H2 & E1 & HE1).
        exists (fst (emit (RO (OZero d) []) s)), (snd (emit (RO (OZero d) []) s)), E1.
        split; [destruct (emit _ s); reflexivity|]. split; [exact Hs1|]. split; [exact H1|].
        split; [exact H2|exact HE1]. }
    destruct Hx as (x & s1 & E1 & -> & Hs1 & Hxl & Hxn & HE1).
    assert (Hk' : forall k, k < length ds -> nth (S i + k) Dp 0 = nth k ds 0).
    { intros k Hk'. specialize (Hk (S k) ltac:(cbn; lia)). replace (S i + k) with (i + S k) by lia. exact Hk. }
    destruct (IH (S i) adj s1 Hs1 (adj_ok_ext _ _ _ _ _ _ Hadj HE1) Hk') as (Hs2 & Hf & E2 & HE2).
    destruct (finals (S i) ds adj s1) as [xs s2]. cbn [fst snd] in *.
    split; [exact Hs2|]. split.
    + constructor; [|exact Hf]. rewrite HE2, app_length, app_nth1 by exact Hxl. split; [lia|exact Hxn].
    + exists (E1 ++ E2). rewrite HE2, HE1, app_assoc. reflexivity.
Qed.

(** ** The forward copy and the instructions of [P] *)

Lemma body_dims_nth D body a : a < length D -> nth a (body_dims D body) 0 = nth a D 0.
Proof. intros Ha. destruct (body_dims_prefix D body) as [E ->]. apply app_nth1, Ha. Qed.

(** The instructions of [P], numbered from [t], with the facts the
    backward sweep needs about the lengths [F] of all of [P]'s variables. *)
Lemma instrs_ok base body : forall D t, length D = base + t -> wd_body D body ->
  Forall (fun ji : nat * (cop * list nat) =>
            base + fst ji < length (body_dims D body) /\
            Forall (fun a => a < length (body_dims D body)) (snd (snd ji)) /\
            cop_ok (fst (snd ji)) (map (fun a => nth a (body_dims D body) 0) (snd (snd ji))) /\
            nth (base + fst ji) (body_dims D body) 0 =
              cop_dim (fst (snd ji)) (map (fun a => nth a (body_dims D body) 0) (snd (snd ji))))
         (combine (seq t (length body)) body).
Proof.
  induction body as [|[o args] body IH]; intros D t HD Hwd; [constructor|].
  destruct Hwd as (Hargs & Hok & Hwd). cbn [length seq combine]. rewrite body_dims_cons.
  set (d := cop_dim o (map (fun a => nth a D 0) args)).
  assert (Hm : map (fun a => nth a (body_dims (D ++ [d]) body) 0) args = map (fun a => nth a D 0) args).
  { apply map_ext_in. intros a Ha. rewrite body_dims_nth by (rewrite app_length; cbn;
      rewrite Forall_forall in Hargs; specialize (Hargs a Ha); lia).
    apply app_nth1. rewrite Forall_forall in Hargs. exact (Hargs a Ha). }
  constructor.
  - cbn [fst snd]. rewrite body_dims_length, app_length. cbn [length]. rewrite Hm.
    split; [lia|]. split.
    + eapply Forall_impl; [|exact Hargs]. intros a Ha. cbn beta in Ha |- *. lia.
    + split; [exact Hok|]. rewrite <- HD, body_dims_nth by (rewrite app_length; cbn; lia).
      rewrite app_nth2, Nat.sub_diag by lia. reflexivity.
  - apply IH; [rewrite app_length; cbn; lia|exact Hwd].
Qed.

(** The forward copy of [P]'s body in the reverse program: [P]'s variable
    [i] is [ren i], of the same length. *)
Lemma fwd_ok nin q body : forall Dc Dr,
  nin <= length Dc -> length Dr = length Dc + q ->
  (forall i, i < length Dc -> ren nin q i < length Dr /\ nth (ren nin q i) Dr 0 = nth i Dc 0) ->
  wd_body Dc body ->
  wd_body Dr (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body) /\
  length (body_dims Dr (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body)) =
    length (body_dims Dc body) + q /\
  (forall i, i < length (body_dims Dc body) ->
     ren nin q i < length (body_dims Dr (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body)) /\
     nth (ren nin q i) (body_dims Dr (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body)) 0 =
       nth i (body_dims Dc body) 0).
Proof.
  induction body as [|[o args] body IH]; intros Dc Dr Hn HDr Hren Hwd; [split; [exact I|]; split; assumption|].
  destruct Hwd as (Hargs & Hok & Hwd). cbn [map fst snd wd_body]. rewrite !body_dims_cons.
  assert (Hm : map (fun a => nth a Dr 0) (map (ren nin q) args) = map (fun a => nth a Dc 0) args).
  { rewrite map_map. apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs.
    exact (proj2 (Hren a (Hargs a Ha))). }
  rewrite Hm. split; [split; [|split; [exact Hok|]]|].
  { rewrite Forall_map. eapply Forall_impl; [|exact Hargs]. intros a Ha. exact (proj1 (Hren a Ha)). }
  (* The rest of the body and the dimensions: both halves of [IH] at the
     contexts extended by the instruction's result, one renaming fact. *)
  all: [> refine (proj1 (IH _ _ _ _ _ Hwd)) | refine (proj2 (IH _ _ _ _ _ Hwd))];
    rewrite ?app_length; cbn; try lia.
  all: intros i Hi; unfold ren in *; destruct (Nat.eq_dec i (length Dc)) as [->|Hne];
    [destruct (Nat.ltb_spec (length Dc) nin); [lia|];
     rewrite app_nth2 by lia; rewrite app_nth2 by lia; rewrite HDr;
     replace (length Dc + q - (length Dc + q)) with 0 by lia; rewrite Nat.sub_diag; split; [lia|reflexivity]
    |destruct (Hren i ltac:(lia)) as [H1 H2]; rewrite !app_nth1 by lia; split; [lia|exact H2]].
Qed.

(** ** [rd_prog] keeps the judgment *)

Lemma map_nth_of_Forall2 F xs ds :
  Forall2 (fun x d => x < length F /\ nth x F 0 = d) xs ds -> map (fun x => nth x F 0) xs = ds.
Proof. induction 1 as [|x d xs ds [_ H] _ IH]; cbn; [reflexivity|]. rewrite H, IH. reflexivity. Qed.

Lemma Forall2_fst F xs (ds : list nat) :
  Forall2 (fun x d => x < length F /\ nth x F 0 = d) xs ds -> Forall (fun x => x < length F) xs.
Proof. induction 1 as [|x d xs ds [H _] _ IH]; constructor; assumption. Qed.

Theorem rd_prog_wd P : wd_prog P -> wd_prog (rd_prog P) /\ out_dims (rd_prog P) = cp_dims P.
Proof.
  intros [Hwd Hout].
  set (nin := length (cp_dims P)). set (q := length (cp_out P)). set (m := length (cp_body P)).
  set (Dp := body_dims (cp_dims P) (cp_body P)).
  set (D0 := cp_dims P ++ map (fun i => nth i Dp 0) (cp_out P)).
  set (fwd := map (fun ins => (fst ins, map (ren nin q) (snd ins))) (cp_body P)).
  set (s0 := {| bs_next := nin + q + m; bs_acc := rev fwd |}).
  assert (HDp : length Dp = nin + m) by (unfold Dp; rewrite body_dims_length; reflexivity).
  assert (HD0 : length D0 = nin + q) by (unfold D0; rewrite app_length, map_length; reflexivity).
  destruct (fwd_ok nin q (cp_body P) (cp_dims P) D0 ltac:(unfold nin; lia) ltac:(rewrite HD0; reflexivity))
    as (Hfwd & Hlen & Hren).
  { intros i Hi. unfold ren. destruct (Nat.ltb_spec i nin); [|unfold nin in *; lia].
    unfold D0. rewrite app_length, app_nth1 by exact Hi. split; [lia|reflexivity]. }
  { exact Hwd. }
  fold fwd in Hfwd, Hlen, Hren. fold Dp in Hlen, Hren.
  assert (Hs0 : st_ok D0 s0).
  { unfold st_ok, s0. cbn [bs_acc bs_next]. rewrite rev_involutive. split; [exact Hfwd|].
    rewrite rev_length, HD0. unfold fwd. rewrite map_length. reflexivity. }
  assert (Hst0 : st_dims D0 s0 = body_dims D0 fwd) by (unfold st_dims, s0; cbn; rewrite rev_involutive; reflexivity).
  assert (Hadj0 : adj_ok D0 Dp (repeat None (nin + m)) s0).
  { split; [rewrite repeat_length; lia|]. intros i j Hij. exfalso.
    assert (Hr : forall n i, nth i (repeat (@None nat) n) None = None)
      by (induction n as [|n IHn]; intros [|i']; cbn; auto).
    rewrite Hr in Hij. discriminate. }
  pose proof (seed_ok D0 Dp nin (cp_out P) 0 _ s0 Hs0 Hadj0) as Hseed.
  assert (Hseed' : sweep_spec D0 Dp s0 (seed nin (cp_out P) 0 (repeat None (nin + m)) s0)).
  { apply Hseed.
    - eapply Forall_impl; [|exact Hout]. intros o Ho. cbn beta in Ho |- *. rewrite HDp. exact Ho.
    - intros k Hk. rewrite Nat.add_0_r. unfold D0. rewrite app_length, map_length.
      split; [unfold q in *; unfold nin; lia|].
      rewrite app_nth2 by (unfold nin; lia). fold nin. rewrite Nat.add_comm, Nat.add_sub.
      rewrite (nth_indep _ 0 (nth 0 Dp 0)) by (rewrite map_length; exact Hk).
      rewrite (map_nth (fun i => nth i Dp 0)). reflexivity. }
  clear Hseed.
  destruct (seed nin (cp_out P) 0 (repeat None (nin + m)) s0) as [adj1 s1] eqn:Eseed.
  destruct Hseed' as (Hs1 & Ha1 & E1 & HE1). cbn [fst snd] in *.
  assert (Hins := instrs_ok nin (cp_body P) (cp_dims P) 0 ltac:(unfold nin; lia) Hwd).
  fold Dp in Hins.
  assert (Hren0 : forall i, i < length Dp ->
            ren nin q i < length (st_dims D0 s0) /\ nth (ren nin q i) (st_dims D0 s0) 0 = nth i Dp 0).
  { rewrite Hst0. intros i Hi. exact (Hren i Hi). }
  pose proof (back_ok D0 Dp nin q s0 (rev (combine (seq 0 m) (cp_body P))) Hren0
                (Forall_rev Hins)
                adj1 s1 E1 Hs1 Ha1 HE1) as Hback.
  destruct (back nin q Dp (rev (combine (seq 0 m) (cp_body P))) adj1 s1) as [adj2 s2] eqn:Eback.
  destruct Hback as (Hs2 & Ha2 & E2 & HE2). cbn [fst snd] in *.
  pose proof (finals_ok D0 Dp (cp_dims P) 0 adj2 s2 Hs2 Ha2) as Hfin.
  destruct Hfin as (Hs3 & Hf & E3 & HE3).
  { intros k Hk. cbn. unfold Dp. apply body_dims_nth. exact Hk. }
  destruct (finals 0 (cp_dims P) adj2 s2) as [outs s3] eqn:Efin. cbn [fst snd] in *.
  unfold rd_prog. fold nin q m. fold Dp. fold fwd. fold s0.
  rewrite Eseed, Eback, Efin. unfold wd_prog, out_dims. cbn [cp_dims cp_body cp_out].
  fold D0. destruct Hs3 as [Hwd3 Hn3].
  split; [split; [exact Hwd3|]|].
  - eapply Forall_impl; [|exact (Forall2_fst _ _ _ Hf)]. intros x Hx. cbn beta in *.
    rewrite st_dims_length in Hx. rewrite rev_length. exact Hx.
  - apply map_nth_of_Forall2. exact Hf.
Qed.

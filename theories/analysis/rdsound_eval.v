(** * The evaluation of [W.rd(x.N)(V)] at every [rd]-depth

    Whatever [W.R_V(x.N)] evaluates to denotes [⟦W.rd(x.N)(V)⟧], the real
    reverse derivative of the body, for every [okg b] body [N], every [b]
    ([rdsound_all.v]), whatever its [rd]-depth: the rewriting may apply
    [rd^k[p]] for every [k], which [Ev] computes with the core beyond
    [rd²] (rdcore_ev.v).  The rewriting is not
    [rd]-free in general: R-Fun and R-Let copy forward subterms [M[θ]] of
    the body, which may contain [rd]s, so later steps fire more [rd]
    redexes, and [rdsound.v]'s argument ([rd]-freeness kept by the steps)
    does not apply.  The invariant kept instead:

    [okp M]: every primitive [rd^k[p]] of [M] sends trees of the shape of
    its domain to trees of the shape of its codomain ([prim_fits]), the
    constants have the length of their type, and every [rd] of [M] has an
    [okg b] body for some [b] ([okg_okp]: [okg b] terms are [okp], every
    [b]; [prim_fits] holds for every [rd^k[p]], [prim_fits_all]).

    - [okp_rdr]: the rewriting at the level [d] of an [okg c] body
      (every [c]) of [rd]-depth at most [d], with [okg 0] point
      substitution and cotangent, is [okp]: it applies [rd[f]] for the
      primitives [f] of the body ([prim_fits_all]), and the subterms it
      copies and the inner rewritings of R-Rd are [okg c]
      ([okg_subst], [okg_rdr]).
    - [head_step_okp], [step_tm_okp]: every step of a closed well-typed
      [okp] term gives an [okp] term: [f(V)] and [c1 + c2] give closed
      values of the denotation of the redex, which has the shape of its
      type, so their constants have the right lengths
      ([value_fits_okp]); [let] substitutes an [okg 0] value
      ([okp_subst]); the [rd] step is [okp_rdr].
    - [steps_den_all]: every evaluation of a closed well-typed [okp] term
      keeps its denotation.
    - [rd_eval_den_all], [rd_eval_rev_deriv]: whatever [W.R_V(x.N)]
      evaluates to denotes [⟦W.rd(x.N)(V)⟧], and flattened is [r ⟦W⟧]
      for every reverse derivative [r] of the body at [⟦V⟧], for closed
      [W], [V] that are [okg 0] (closed values whose constants have the
      lengths of their types are, [okp_value_okg]).  [rd_eval_den_all']:
      the same for the whole evaluation of [W.rd(x.N)(V)] from any closed
      [okp] [W] and [V] (which may apply any fitting primitive, or contain
      [rd]s with [okg] bodies).
    - [rd_eval_den_depth2], [rd_eval_den_depth3]: the hypotheses are met
      by a body of [rd]-depth two applying [swish], and by one whose
      rewriting applies [rd³[swish]].

    Not covered, as in [rdsound_all.v]: primitives that are not
    differentiable everywhere ([round], [maxpool], [relu], [log]) in
    bodies with [rd]s. *)
From Coq Require Import Relation_Operators.
From RevHandlers.Analysis Require Import base_rd rdsound_all.
Open Scope R_scope.

Section eval.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σv : signature := exec_signature Rvo decls locs.
#[local] Instance Evl : evaluator := exec_evaluator Rvo.
#[local] Instance Evlok : evaluator_ok := exec_evaluator_ok Rvo decls locs.

(** ** The invariant *)
Fixpoint okp (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => prim_fits f /\ okp M
  | Add M1 M2 => okp M1 /\ okp M2
  | Tuple Ms => fold_right and True (map okp Ms)
  | Proj _ M => okp M
  | Let M N => okp M /\ okp N
  | Rd M N L => okp M /\ (exists b, okg b N) /\ okp L
  end.

Lemma okp_tuple Ms : okp (Tuple Ms) <-> Forall okp Ms.
Proof. apply fold_and_Forall. Qed.

Lemma okg_okp M : forall b, okg b M -> okp M.
Proof.
  tm_induction M; intros b H; cbn [okg okp] in *; auto.
  2-5: tm_cong okg_tuple okp_tuple.
  - destruct f as [k p]. destruct H as [[[_ Hok] _] HM]. split; [exact (prim_fits_all k p Hok)|]. eapply IH; eauto.
  - destruct H as [H1 [H2 H3]]. split; [eauto|split; [exists (pred b); exact H2|eauto]].
Qed.

Lemma okp_value_okg V : value V -> okp V -> okg 0 V.
Proof.
  induction V as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Hv H; cbn [okg okp] in *; try discriminate; auto.
  apply okp_tuple in H. apply okg_tuple. apply value_tuple_iff in Hv.
  rewrite Forall_forall in IH, H, Hv |- *. intros M HM. apply IH; auto.
Qed.

Lemma okp_ren M : forall ξ, okp M -> okp (ren_tm ξ M).
Proof.
  tm_induction M; intros ξ H; cbn [okp ren_tm] in *; auto.
  - destruct H. split; auto.
  - destruct H. split; auto.
  - apply okp_tuple in H. apply okp_tuple. rewrite Forall_forall in H, IH |- *. intros M' HM'.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - destruct H. split; auto.
  - destruct H as [H1 [[b H2] H3]]. split; [|split]; auto. exists b. apply okg_ren. exact H2.
Qed.

(** Substitution of terms that are [okg 0]: closed values of [okp], and
    variables. *)
Lemma okp_subst M : forall σ, (forall x, okg 0 (σ x)) -> okp M -> okp (subst_tm σ M).
Proof.
  tm_induction M; intros σ Hσ H; cbn [okp subst_tm] in *.
  3-7: tm_subst_cong okp_tuple okg_ren.
  - apply okg_okp with 0%nat; auto.
  - exact H.
  - destruct H as [H1 [[b H2] H3]]. split; [|split]; auto. exists b.
    apply okg_subst; auto. intros [|x]; simpl; auto. apply okg_ren. auto.
Qed.

(** [okp] is closed under the rewriting's building blocks ([tmclosed.v]). *)
Lemma okp_closed : closed okp.
Proof.
  split; cbn [okp]; intros; try tauto.
  - apply okp_tuple. auto.
  - apply okp_ren. auto.
Qed.

Lemma okp_plus A M N : okp M -> okp N -> okp (plus A M N).
Proof. exact (closed_plus _ okp_closed A M N). Qed.

Lemma okp_sum_tms A Ms : Forall okp Ms -> okp (sum_tms A Ms).
Proof. exact (closed_sum_tms _ okp_closed (fun b => repeat_length _ _) A Ms). Qed.

Lemma okp_rdr_tuple (r : tm -> tm -> tm) W i Ms :
  Forall (fun M => forall W, okg 0 W -> okp (r W M)) Ms -> okg 0 W -> Forall okp (rdr_tuple r W i Ms).
Proof. apply closed_rdr_tuple. intros j M H. exact H. Qed.

(** ** The rewriting of an [okg c] body *)
(** Its primitives are one level up ([prim_fits] of [rd f]:
    [prim_fits_all]), and the subterms it copies and the inner rewritings
    are [okg c]. *)
Lemma okp_rdr d : forall N Γ0 As θ W c,
  okg c N -> (rd_depth N <= d)%nat -> (forall x, okg 0 (θ x)) -> okg 0 W ->
  okp (rdr d Γ0 As θ W N).
(** Informal proof: by induction on [d], then on [N], as [okg_rdr].
    R-Var and R-Const give [onehot] and [0], which are [okg 0].  R-Fun
    gives [let u ← rd[f](<M[θ], W>) in …]: [rd[f]] fits ([prim_fits_all]) and
    [M[θ]] is [okg c] ([okg_subst]), so [okp].  R-Let copies [M[θ]]
    likewise.  R-Rd at [d + 1] is the rewriting at [d] of
    [T := let l ← L in let u ← M in u.R_l(y.N')]: the inner body [N'] is
    [okg (c - 1)], its rewriting [okg c] ([okg_rdr], [lift_budget]), so
    [T] is [okg c] of depth at most [d] and the hypothesis on [d]
    applies. *)
Proof.
  induction d as [|d IHd]; intros N;
  induction N as [x|c0|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ0 As θ W c Ho Hd Hθ HW.
  all: try (rewrite rdr_Var; apply okg_okp with 0%nat; destruct (Nat.ltb x (length As));
            [apply okg_onehot; exact HW|apply okg_zero]).
  all: try (rewrite rdr_Const; apply okg_okp with 0%nat; apply okg_zero).
  all: try (rewrite rdr_App; destruct Ho as [[Hg Hf] HoM];
            cbn [okp]; split;
            [split; [exact (prim_fits_all (S (fst f)) (snd f) (proj2 Hg))|]; apply okp_tuple; constructor;
               [apply okg_okp with c; apply okg_subst; auto
               |constructor; [apply okg_okp with 0%nat; exact HW|constructor]]
            |apply IH with (c := c); auto; [intros x; apply okg_ren; auto|exact I]]).
  all: try rdr_case_add okp_plus IH1 IH2 Ho Hd c.
  all: try rdr_case_tuple okp_sum_tms okp_rdr_tuple okg_tuple IH Ho Hd Ms c.
  all: try (rewrite rdr_Proj; destruct (infer_tm (As ++ Γ0) M) as [[n|Bs]|];
            try (apply okg_okp with 0%nat; apply okg_zero);
            apply IH with (c := c); auto; apply okg_onehot; auto).
  all: try (rewrite rdr_Let; destruct Ho as [HoM HoN]; cbn [rd_depth] in Hd;
            destruct (infer_tm (As ++ Γ0) M) as [A'|]; [|apply okg_okp with 0%nat; apply okg_zero];
            cbn [okp]; split; [apply okg_okp with c; apply okg_subst; auto|];
            rdr_case_let_end okp_plus okp_tuple okg_ren IHM IHN c).
  - (* Rd, level 0: excluded by the depth *)
    cbn [rd_depth] in Hd. lia.
  - (* Rd, level d + 1 *)
    rewrite rdr_Rd. destruct Ho as [HoM [HoN HoL]]. cbn [rd_depth] in Hd.
    destruct (infer_tm (As ++ Γ0) L) as [Ay|]; [|apply okg_okp with 0%nat; apply okg_zero].
    apply IHd with (c := c); auto; [|apply rd_depth_rd_body; lia].
    cbn [okg]. split; [exact HoL|]. split; [apply okg_ren; auto|].
    apply (okg_rdr decls locs) with (c := pred c); auto;
      [apply lift_budget|lia|lia|intros [|x]; exact I|exact I].
Qed.

(** ** The steps keep the invariant *)
Lemma okp_fill_frame F M : okp (fill_frame F M) -> okp M /\ (forall M', okp M' -> okp (fill_frame F M')).
Proof.
  destruct F; cbn [fill_frame okp]; intros H; try tauto.
  apply okp_tuple in H. apply Forall_app in H. destruct H as [H1 H2]. inversion H2; subst.
  split; auto. intros M' HM'. apply okp_tuple. apply Forall_app. split; auto.
Qed.

Lemma okp_fill_ectx K : forall M, okp (fill_ectx K M) -> okp M /\ (forall M', okp M' -> okp (fill_ectx K M')).
Proof.
  induction K as [|F K IH]; intros M H; simpl in *; [split; auto|].
  destruct (IH _ H) as [H1 H2]. destruct (okp_fill_frame F M H1) as [H3 H4]. split; auto.
Qed.

(** A closed value whose denotation has the shape of its type has
    constants of the lengths of their types. *)
Lemma value_fits_okp V : forall A, typed_tm [] V A -> value V -> fits A (tval V) -> okp V.
Proof.
  induction V as [x|c|f M IH|M1 M2 IH1 IH2|Vs IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros A HT Hv Hf; cbn [okp]; try discriminate; auto.
  - inversion HT; subst. inversion Hf; subst. assumption.
  - apply okp_tuple. apply value_tuple_iff in Hv.
    inversion HT as [| | | |? ? As HF| | |]; subst. inversion Hf as [|? ts HF']; subst.
    clear HT Hf. revert As HF HF'. induction IH as [|V Vs HV HVs IHl]; intros As HF HF'; constructor;
      inversion Hv; subst; inversion HF; subst; inversion HF'; subst.
    + eapply HV; eauto.
    + eapply IHl; eauto.
Qed.

(** An environment for closed terms. *)
Definition rho0 : nat -> rv := fun _ => RNode [].

Lemma env_fits_nil ρ : env_fits [] ρ.
Proof. intros x D Hx. destruct x; discriminate. Qed.

Lemma okp_list_subst V : value V -> okp V -> forall x, okg 0 (list_subst [V] x).
Proof.
  intros Hv Ho [|x]; unfold list_subst; simpl; [apply okp_value_okg; auto|]. destruct x; exact I.
Qed.

(** A head step of a closed well-typed [okp] term gives an [okp] term. *)
Lemma head_step_okp M0 M0' A : typed_tm [] M0 A -> okp M0 -> head_step_tm M0 M0' -> okp M0'.
(** Informal proof: by cases on the head step.  [f(V)], [c1 + c2]: the
    answer is a closed value with the denotation of the redex
    ([head_step_den]), which has the shape of its type ([prim_fits] of
    [f], [den_fits_g]), so its constants have the right lengths
    ([value_fits_okp]).  Projection: a component of an [okp] tuple.
    [let]: [okp_subst], the value being [okg 0].  [rd]: [okp_rdr] with
    [θ = V/x], [V] and [W] being [okg 0] values. *)
Proof.
  intros HT Ho Hs. pose proof (head_step_tm_preservation _ _ _ HT Hs) as HT'.
  destruct Hs as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A' HW HV HA'].
  - assert (Hv' : value V').
    { simpl in Hev. destruct f as [k p]. unfold exec_ev in Hev.
      match type of Hev with context [if ?b then _ else _] => destruct b end; [|discriminate].
      match type of Hev with context [match ?e with Some _ => _ | None => _ end] =>
        destruct e as [outs|] eqn:Eo end; [|discriminate].
      injection Hev as <-. destruct (encode_typed Rvo decls locs (fcod k p) outs) as [Hv _]. exact Hv. }
    destruct Ho as [Hf HoV]. inversion HT; subst.
    assert (E : den rho0 (App f V) = den rho0 V')
      by (eapply head_step_den; [eassumption|econstructor; eauto|intros; discriminate]).
    apply value_fits_okp with (fsym_cod f); auto.
    rewrite <- (den_value decls locs rho0 V' _ HT' Hv'), <- E, den_App. apply Hf.
    apply (den_fits_g decls locs 0 [] V); auto; [apply okp_value_okg; auto|apply env_fits_nil].
  - assert (E : den rho0 (Add (Const c1) (Const c2)) = den rho0 (Const (cadd c1 c2)))
      by (eapply head_step_den; [eassumption|constructor|intros; discriminate]).
    apply value_fits_okp with A; [exact HT'|reflexivity|].
    rewrite <- (den_value decls locs rho0 _ _ HT' eq_refl), <- E.
    apply (den_fits_g decls locs 0 [] _ _ HT); [exact Ho|apply env_fits_nil].
  - cbn [okp] in Ho. apply okp_tuple in Ho. rewrite Forall_forall in Ho. apply Ho.
    eapply nth_error_In; eauto.
  - destruct Ho as [HoV HoN]. apply okp_subst; auto. apply okp_list_subst; auto.
  - destruct Ho as [HoW [[b HoN] HoV]]. unfold rd_rewrite. cbn [okp].
    apply okp_rdr with b; auto. apply okp_list_subst; auto. apply okp_value_okg; auto.
Qed.

(** Every step of a closed well-typed [okp] term gives an [okp] term. *)
Lemma step_tm_okp M M' A : typed_tm [] M A -> okp M -> step_tm M M' -> okp M'.
(** Informal proof: the redex of an [okp] term is [okp], and an [okp]
    term put back in its place keeps the term [okp] ([okp_fill_ectx]);
    [head_step_okp] for the redex, typed by [fill_ectx_typed]. *)
Proof.
  intros HT Ho Hs. destruct Hs as [K M0 M0' M1 M1' _ -> -> Hhead].
  destruct (okp_fill_ectx K M0 Ho) as [Ho0 Hplug]. destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB _]].
  apply Hplug. eapply head_step_okp; eauto.
Qed.

(** ** Every evaluation keeps the denotation *)
(** Every evaluation of a closed well-typed [okp] term keeps its
    denotation. *)
Theorem steps_den_all ρ M M' A :
  typed_tm [] M A -> okp M -> clos_refl_trans_1n tm step_tm M M' -> den ρ M = den ρ M'.
(** Informal proof: by induction on the evaluation; each step keeps the
    type ([step_tm_preservation]) and [okp] ([step_tm_okp]); the redex of
    a step of an [okp] term is [okp] ([okp_fill_ectx]), so an [rd] redex
    [W.rd(x.N)(V)] has an [okg b] body and values [V], [W] that are
    [okg 0] ([okp_value_okg]), and the step keeps the denotation
    ([step_tm_den_all] of [rdsound_all.v]). *)
Proof.
  intros HT Ho Hs. revert A HT Ho. induction Hs as [|M M1 M' Hstep Hs IH]; intros A HT Ho; [reflexivity|].
  pose proof (step_tm_preservation _ _ _ HT Hstep) as HT1.
  pose proof (step_tm_okp _ _ _ HT Ho Hstep) as Ho1.
  rewrite <- (IH A HT1 Ho1).
  destruct Hstep as [K M0 M0' M2 M2' _ -> -> Hhead].
  apply (step_tm_den_all decls locs ρ K M0 M0' A HT Hhead).
  intros W N V ->. destruct (okp_fill_ectx K _ Ho) as [[HoW [HoN HoV]] _].
  inversion Hhead; subst. split; [exact HoN|split; exists 0%nat; apply okp_value_okg; auto].
Qed.

(** Whatever [W.R_V(x.N)] evaluates to denotes [⟦W.rd(x.N)(V)⟧], for a
    closed [W.rd(x.N)(V)] with an [okg b] body, every [b], of any [rd]-depth, and a
    point and a cotangent that are [okg 0]. *)
Theorem rd_eval_den_all ρ W N V A B M' b :
  typed_tm [] W B -> typed_tm [A] N B -> typed_tm [] V A -> okg b N -> okg 0 V -> okg 0 W ->
  clos_refl_trans_1n tm step_tm (rd_rewrite [] A W V N) M' ->
  den ρ M' = den ρ (Rd W N V).
(** Informal proof: [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]
    ([rd_step_sound_all]); [W.R_V(x.N)] is well typed
    ([rd_rewrite_typed]) and [okp] ([okp_rdr] with [θ = V/x]), so
    [steps_den_all] applies. *)
Proof.
  intros HW HN HV HoN HoV HoW Hs.
  transitivity (den ρ (rd_rewrite [] A W V N)).
  2: { apply (rd_step_sound_all decls locs [] ρ A B W V N b HN HoN (env_fits_nil ρ));
       eapply (den_fits_g decls locs 0); eauto; apply env_fits_nil. }
  symmetry. apply (steps_den_all ρ _ _ A); auto.
  - apply rd_rewrite_typed with B; auto.
  - unfold rd_rewrite. cbn [okp]. apply okp_rdr with b; auto.
    intros [|x]; unfold list_subst; simpl; auto. destruct x; exact I.
Qed.

(** The same from [W.rd(x.N)(V)] itself, for [W] and [V] any [okp] terms:
    whatever it evaluates to (first [W], then [V], then the [rd] step,
    then the rewriting) denotes [⟦W.rd(x.N)(V)⟧]. *)
Corollary rd_eval_den_all' ρ W N V A B M' b :
  typed_tm [] W B -> typed_tm [A] N B -> typed_tm [] V A -> okg b N -> okp V -> okp W ->
  clos_refl_trans_1n tm step_tm (Rd W N V) M' ->
  den ρ M' = den ρ (Rd W N V).
(** Informal proof: [W.rd(x.N)(V)] is well typed and [okp]: [steps_den_all]. *)
Proof.
  intros HW HN HV HoN HoV HoW Hs. symmetry. apply (steps_den_all ρ _ _ A); auto.
  - econstructor; eauto.
  - cbn [okp]. split; [exact HoW|split; [exists b; exact HoN|exact HoV]].
Qed.

(** Whatever [W.R_V(x.N)] evaluates to is the real reverse derivative:
    flattened, it is [r ⟦W⟧] for every reverse derivative [r] at [⟦V⟧]
    of the body read as a map of flat vectors. *)
Corollary rd_eval_rev_deriv ρ W N V A B M' b r :
  typed_tm [] W B -> typed_tm [A] N B -> typed_tm [] V A -> okg b N -> okg 0 V -> okg 0 W ->
  clos_refl_trans_1n tm step_tm (rd_rewrite [] A W V N) M' ->
  is_rev_deriv (dim A) (dim B) (fun y => rflat (den (scons (reshape (den ρ V) y) ρ) N)) (rflat (den ρ V)) r ->
  rflat (den ρ M') = r (rflat (den ρ W)).
(** Informal proof: [rd_eval_den_all] and [rd_den_correct]; the lengths
    of the flattened point and cotangent are [dim A] and [dim B]
    ([fits_len], [den_fits_g]). *)
Proof.
  intros HW HN HV HoN HoV HoW Hs Hr.
  rewrite (rd_eval_den_all ρ W N V A B M' b HW HN HV HoN HoV HoW Hs), den_Rd.
  assert (HlV : length (rflat (den ρ V)) = dim A)
    by (apply fits_len; eapply (den_fits_g decls locs 0); eauto; apply env_fits_nil).
  assert (HlW : length (rflat (den ρ W)) = dim B)
    by (apply fits_len; eapply (den_fits_g decls locs 0); eauto; apply env_fits_nil).
  apply rd_den_correct with (m := dim B); [|exact HlW].
  rewrite HlV. exact Hr.
Qed.

(** The hypotheses are met by a body of [rd]-depth two with a primitive:
    for [N = x.rd(y.rd(z.z)(y)·y)(swish_3(x))·x] (an [rd] whose point
    applies [swish] and whose body is itself an [rd]), every point and
    cotangent of [Real(3)] and whatever [W.R_V(x.N)] evaluates to. *)
Example rd_eval_den_depth2 ρ (v w : vec) M' :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Var 0) (Rd (Var 0) (Var 0) (Var 0)) (App (0%nat, PSwish 3%nat) (Var 0)) in
  clos_refl_trans_1n tm step_tm (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) M' ->
  den ρ M' = den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hw N Hs.
  apply rd_eval_den_all with (B := @TBase Rsorts4 3%nat) (A := @TBase Rsorts4 3%nat) (b := 2%nat); auto.
  - constructor.
  - unfold N. apply typed_tm_rd with (B := @TBase Rsorts4 3%nat).
    + constructor. reflexivity.
    + apply typed_tm_rd with (B := @TBase Rsorts4 3%nat); constructor; reflexivity.
    + typed_app.
      constructor. reflexivity.
  - constructor.
  - unfold N. cbn [okg pred]. refine (conj I (conj (conj I (conj I I)) (conj (conj _ _) I))).
    + split; reflexivity.
    + simpl. lia.
Qed.

(** And by a body whose rewriting applies [rd³[swish]], which [Ev]
    computes with the core (rdcore.v): [swish] under two [rd]s, for
    [N = x.rd(y. y.rd(z. swish_3(z))(y))(x)] (the budget [3]), every point
    and cotangent of [Real(3)] and whatever [W.R_V(x.N)] evaluates to. *)
Example rd_eval_den_depth3 ρ (v w : vec) M' :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Var 0) (Rd (Var 0) (App (0%nat, PSwish 3%nat) (Var 0)) (Var 0)) (Var 0) in
  clos_refl_trans_1n tm step_tm (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) M' ->
  den ρ M' = den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hw N Hs.
  apply rd_eval_den_all with (B := @TBase Rsorts4 3%nat) (A := @TBase Rsorts4 3%nat) (b := 3%nat);
    [constructor|unfold N; typed_body|constructor|unfold N; cbn [okg pred]; repeat split; cbn; lia|..]; auto.
Qed.
End eval.

(** ** What is not covered

    Primitives that are not differentiable everywhere ([round],
    [maxpool], [relu], [log]) in a body with [rd]s: [goodg] asks
    [smooth_all_prim].  [rd^k[p]] for [k ≥ 3], the core's (rdcore.v,
    [eval_prim_rd3_core] of ev_total.v), is covered for the others:
    [rd_correct_all] ([rdsound_all.v]) with [ev_rdk_correct]
    (rdcore_ev.v). *)

(** * Values by their syntax, and progress that needs typing

    The paper defines a value as "a pullback term that cannot be reduced
    further, i.e. a term in normal form" (§3.4), and Remark 3.6 counts
    stuck pullbacks among them; [value] (reduction.v) transcribes that, so
    [progress_premise] (progress.v) cannot fail.  Here the values are given
    by a grammar of answers instead, independent of the rules
    (docs/decisions-pullback.md, "Values by their syntax"):
<<
    V ::= λx.S | r | r* | 0 | V + V | ⟨V, V⟩ | J f · V
        | (λx.S)* · V     S an open normal form, the whole not a redex (5⁺, 6)
        | (Ω λy.E) · V  | (Ω λy.⟨y, E⟩) · V                 (chains, §6)
>>
    No variable, application, projection, [f(P)] or [let] is a value: the
    stuck forms of Remark 3.6 (a pullback applied to a point that no rule
    reduces) and [f(V)] with [V] not a numeral are not answers.  The body of
    a dual map is open and evaluated under its binder (the context
    [(λx.C)* · V]); it is a value when it is a normal form, as Remark 3.6
    has it for open terms.  Syntactic values are normal forms
    ([svalue_value]).

    Progress with these values:
    - [progress_num]: a closed well-typed term of the numeric fragment
      [nfrag] (variables, λ, application, pairs, projections, reals, [f(P)],
      Jacobians, numeric duals, dual maps, [let]; no pullback, and no [0]
      or sum outside the bodies of dual maps: the reverse phase) is a
      syntactic value or steps.  It needs typing (canonical forms: a closed
      value of type [R^n] is a numeral, of an arrow type an abstraction or
      a Jacobian, of a dual type a numeric dual or a dual map).
    - [nfrag_safety]: the fragment is closed under reduction when the
      symbols and their Jacobians give dense tuples ([step_nfrag]), so
      every term such a term reduces to is a value or steps (type safety);
      [exec_nfrag_safety]: the same for [pullback-eval]'s signature,
      without hypotheses.
    - It does not hold for the whole language, nor for first-order terms
      with sums: [stuck_fun_sum] is a closed, well-typed, well-formed
      first-order term, [f(r + r)], that is neither a value nor steps (the
      paper has no rule for a sum of numerals: sums are formal);
      [stuck_remark36] is a closed, well-typed, well-formed higher-order
      query, [((Ω λy. π1(y) π2(y)) · ω) ⟨0, r⟩], stuck in the value 2 of
      Remark 3.6 ([π1(V)] is [0], not an abstraction). *)
From Pullback Require Import syntax typing anf backprop reduction preservation progress decide wf exec_sig.

Section progress_typed.
Context {Σ : signature}.

(** ** The grammar of values *)
Fixpoint svalue (t : tm) : Prop :=
  match t with
  | Lam _ | Real _ | NDual _ | Zero => True
  | Pair a b | Plus a b => svalue a /\ svalue b
  | Jac _ a => svalue a
  | Dual s a => value s /\ svalue a /\ ~ head_redex (Dual s a)
  | Pb p w => chain_body p /\ svalue w
  | Var _ | App _ _ | Proj _ _ | Fun _ _ | Let _ _ => False
  end.

(** Informal proof: by induction on [t]; no constructor of the grammar is
    the head of a redex but a dual map, whose clause says it is not one,
    and a chain, whose body is not a let series ([chain_body_not_lets]). *)
Lemma svalue_value t : svalue t -> value t.
Proof.
  induction t; simpl; intros H; try contradiction; try tauto.
  - (* chain *)
    destruct H as [Hc Hw]. split; [|auto]. intros Hl. exact (chain_body_not_lets _ Hc Hl).
Qed.

(** ** The fragment without pullbacks *)

(** No pullback in [t]. *)
Fixpoint no_pb (t : tm) : Prop :=
  match t with
  | Pb _ _ => False
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => no_pb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => no_pb a /\ no_pb b
  end.

(** The numeric fragment: λ-terms over reals, [f(P)], Jacobians and dual
    maps (the reverse phase), without pullbacks, and without [0] or sums
    outside the bodies of dual maps (a body is open and only brought to a
    normal form). *)
Fixpoint nfrag (t : tm) : Prop :=
  match t with
  | Var _ | Real _ | NDual _ => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => nfrag s
  | App a b | Pair a b | Let a b => nfrag a /\ nfrag b
  | Dual s a => no_pb s /\ nfrag a
  | Pb _ _ | Zero | Plus _ _ => False
  end.

Lemma no_pb_pb_wf t : no_pb t -> pb_wf t.
Proof. induction t; simpl; tauto. Qed.

Lemma no_pb_efills C r : no_pb (efills C r) -> no_pb r.
Proof. induction C as [|F C IH]; simpl; auto. destruct F; simpl; tauto. Qed.

Lemma premise_redex_pb r : premise_redex r -> ~ no_pb r.
Proof. intros (e & w & v & -> & _). simpl. tauto. Qed.

(** An open term without pullbacks is a normal form or steps: its redex
    cannot be one with a premise. *)
Lemma no_pb_progress s : no_pb s -> value s \/ exists s', step s s'.
Proof.
  intros H. destruct (progress_premise s (no_pb_pb_wf s H)) as [Hv|[Hs|(C & r & _ & Hr & ->)]]; auto.
  exfalso. exact (premise_redex_pb r Hr (no_pb_efills C r H)).
Qed.

(** Types of numeric tuples: [R] and products of them. *)
Fixpoint gty (A : ty) : Prop :=
  match A with TR => True | TProd A B => gty A /\ gty B | _ => False end.

Lemma gty_Rn n : gty (Rn n).
Proof. induction n as [|[|n] IH]; simpl; auto. Qed.

Ltac inv H := inversion H; subst; clear H.

(** Canonical forms, for closed values of the fragment. *)
Lemma canon_gty t A :
  nfrag t -> svalue t -> typed [] t A -> gty A -> exists r, dense r /\ t = num_tm r.
Proof.
  revert A. induction t; simpl; intros A Hf Hv Ht Hg; try contradiction;
    try (inv Ht; simpl in Hg; contradiction).
  - destruct Hf as [Ha Hb], Hv as [Va Vb]. inv Ht. destruct Hg as [G1 G2].
    destruct (IHt1 _ Ha Va ltac:(eassumption) G1) as (r1 & D1 & ->).
    destruct (IHt2 _ Hb Vb ltac:(eassumption) G2) as (r2 & D2 & ->).
    exists (NP r1 r2). simpl. auto.
  - exists (NR r). simpl. auto.
Qed.

Lemma canon_arr t A B :
  nfrag t -> svalue t -> typed [] t (TArr A B) ->
  (exists s, t = Lam s) \/ (exists f a, t = Jac f a /\ nfrag a /\ svalue a /\ typed [] a (Rn (fdom f))).
Proof.
  destruct t; simpl; intros Hf Hv Ht; try contradiction; try (inv Ht; fail).
  - left. eauto.
  - right. inv Ht. eauto 8.
Qed.

Lemma canon_prod t A B :
  nfrag t -> svalue t -> typed [] t (TProd A B) -> exists a b, t = Pair a b /\ svalue a /\ svalue b.
Proof.
  destruct t; simpl; intros Hf Hv Ht; try contradiction; try (inv Ht; fail). eauto.
Qed.

Lemma canon_dual t A :
  nfrag t -> svalue t -> typed [] t (TDual A) -> (exists c, t = NDual c) \/ (exists s a, t = Dual s a).
Proof.
  destruct t; simpl; intros Hf Hv Ht; try contradiction; try (inv Ht; fail); eauto.
Qed.

(** Informal proof: by induction on the typing derivation, in the empty
    context.  A variable has no type there.  An abstraction, a real and a
    numeric dual are values.  For a pair, an application, a projection,
    [f(P)], [J f · S], [let] and a dual map, the first position that is not
    a value steps, by induction, in its evaluation context ([step_ctx]);
    the body of a dual map is open, and steps or is a normal form because
    it holds no pullback ([no_pb_progress]).  When every position holds a
    value, canonical forms give the head redex: β (1) for an abstraction
    applied, (4) for a Jacobian applied (its point and argument are
    numerals), (2) for a projection of a pair, (3) for [f] of a numeral,
    [let]; a dual map is a value unless it is a redex of (5⁺) or (6). *)
Lemma progress_num t A :
  typed [] t A -> nfrag t -> svalue t \/ exists t', step t t'.
Proof.
  remember (@nil ty) as Γ eqn:HΓ.
  induction 1 as [Γ σ|Γ s p σ _ _ _ _|Γ n σ Hn|Γ s σ τ _ _|Γ s p σ τ Hs IHs Hp IHp
                 |Γ s σ1 σ2 Hs IHs|Γ s σ1 σ2 Hs IHs|Γ s1 s2 σ1 σ2 H1 IH1 H2 IH2|Γ r
                 |Γ f p Hp IHp|Γ f s Hs IHs|Γ r σ _|Γ s1 s2 σ τ _ _ H2 IH2 _|Γ p s σ τ _ _ _ _
                 |Γ e l σ τ He IHe _ _];
    subst Γ; simpl; intros Hf; try contradiction.
  - (* typed_var *) destruct n; discriminate.
  - (* typed_lam *) left. exact I.
  - (* typed_app *)
    destruct Hf as [Fs Fp]. right.
    destruct (IHs eq_refl Fs) as [Vs|(s' & Ss)]; [|exists (App s' p); apply (step_ctx (EAppL p)); simpl; auto].
    destruct (IHp eq_refl Fp) as [Vp|(p' & Sp)];
      [|exists (App s p'); apply (step_ctx (EAppR s)); [apply svalue_value|]; auto].
    destruct (canon_arr s σ τ Fs Vs Hs) as [(b & ->)|(f & a & -> & Fa & Va & Ha)].
    + exists (subst1 p b). apply step_beta, svalue_value, Vp.
    + (* (4): σ is R^(fdom f) *)
      inv Hs. destruct (canon_gty a _ Fa Va Ha (gty_Rn _)) as (r & Dr & ->).
      destruct (canon_gty p _ Fp Vp Hp (gty_Rn _)) as (r' & Dr' & ->).
      eexists. apply step_jac; assumption.
  - (* typed_proj1 *)
    right. destruct (IHs eq_refl Hf) as [Vs|(s' & Ss)]; [|exists (Proj false s'); apply (step_ctx (EProj false)); simpl; auto].
    destruct (canon_prod s σ1 σ2 Hf Vs Hs) as (a & b & -> & Va & Vb).
    exists a. apply step_proj1; apply svalue_value; assumption.
  - (* typed_proj2 *)
    right. destruct (IHs eq_refl Hf) as [Vs|(s' & Ss)]; [|exists (Proj true s'); apply (step_ctx (EProj true)); simpl; auto].
    destruct (canon_prod s σ1 σ2 Hf Vs Hs) as (a & b & -> & Va & Vb).
    exists b. apply step_proj2; apply svalue_value; assumption.
  - (* typed_pair *)
    destruct Hf as [F1 F2].
    destruct (IH1 eq_refl F1) as [V1|(s' & S1)]; [|right; exists (Pair s' s2); apply (step_ctx (EPairL s2)); simpl; auto].
    destruct (IH2 eq_refl F2) as [V2|(s' & S2)];
      [left; simpl; auto|right; exists (Pair s1 s'); apply (step_ctx (EPairR s1)); [apply svalue_value|]; auto].
  - (* typed_real *) left. exact I.
  - (* typed_fun *)
    right. destruct (IHp eq_refl Hf) as [Vp|(p' & Sp)]; [|exists (Fun f p'); apply (step_ctx (EFun f)); simpl; auto].
    destruct (canon_gty p _ Hf Vp Hp (gty_Rn _)) as (r & Dr & ->).
    eexists. apply step_fun. exact Dr.
  - (* typed_jac *)
    destruct (IHs eq_refl Hf) as [Vs|(s' & Ss)]; [left; exact Vs|].
    right. exists (Jac f s'). apply (step_ctx (EJac f)); simpl; auto.
  - (* typed_ndual *) left. exact I.
  - (* typed_dual: the argument first, then the body *)
    destruct Hf as [Fb Fa].
    destruct (IH2 eq_refl Fa) as [Va|(a' & Sa)]; [|right; exists (Dual s1 a'); apply (step_ctx (EDualR s1)); simpl; auto].
    destruct (no_pb_progress s1 Fb) as [Vb|(b' & Sb)];
      [|right; exists (Dual b' s2); apply (step_ctx (EDualL s2)); [apply svalue_value|]; auto].
    destruct (head_redex_dec (Dual s1 s2)) as [Hr|Hr]; [right|left; simpl; auto].
    destruct (canon_dual s2 τ Fa Va H2) as [(c & ->)|(s' & a' & ->)]; simpl in Hr.
    + destruct Hr as [Hn (r' & Hb)]. eexists. apply step_bp; eassumption.
    + eexists. apply step_dual_comp; [exact Vb|apply svalue_value, Va].
  - (* typed_let *)
    destruct Hf as [Fe Fl]. right.
    destruct (IHe eq_refl Fe) as [Ve|(e' & Se)]; [|exists (Let e' l); apply (step_ctx (ELet l)); simpl; auto].
    exists (subst1 e l). apply step_let, svalue_value, Ve.
Qed.

(** ** Type safety for the fragment

    The fragment is closed under reduction when the function symbols and
    their Jacobians give dense tuples on dense tuples (no [0] comes out of
    (3) or (4)); with subject reduction ([step_typed]) every term a closed
    well-typed term of the fragment reduces to is a value or steps. *)
Lemma no_pb_ren t : forall ρ, no_pb (ren ρ t) <-> no_pb t.
Proof.
  induction t; intros ρ; simpl;
    repeat match goal with IH : forall ρ, _ <-> _ |- _ => rewrite IH; clear IH end; tauto.
Qed.

Lemma nfrag_ren t : forall ρ, nfrag (ren ρ t) <-> nfrag t.
Proof.
  induction t; intros ρ; simpl; rewrite ?no_pb_ren;
    repeat match goal with IH : forall ρ, _ <-> _ |- _ => rewrite IH; clear IH end; tauto.
Qed.

Lemma nfrag_no_pb t : nfrag t -> no_pb t.
Proof. induction t; simpl; tauto. Qed.

Lemma no_pb_subst t : forall σ, (forall n, no_pb (σ n)) -> no_pb t -> no_pb (subst σ t).
Proof.
  assert (Hup : forall σ, (forall n, no_pb (σ n)) -> forall n, no_pb (up σ n)).
  { intros σ H [|n]; simpl; [exact I|]. unfold shift. apply no_pb_ren, H. }
  induction t; intros σ H Ht; simpl in *; auto.
  all: split; [apply IHt1|apply IHt2]; try apply Hup; tauto.
Qed.

Lemma nfrag_subst t : forall σ, (forall n, nfrag (σ n)) -> nfrag t -> nfrag (subst σ t).
Proof.
  assert (Hup : forall σ, (forall n, nfrag (σ n)) -> forall n, nfrag (up σ n)).
  { intros σ H [|n]; simpl; [exact I|]. unfold shift. apply nfrag_ren, H. }
  induction t; intros σ H Ht; simpl in *; auto.
  all: try solve [split; [apply IHt1|apply IHt2]; try apply Hup; tauto].
  split; [|apply IHt2; tauto]. apply no_pb_subst; [|tauto]. intros [|n]; simpl; [exact I|].
  unfold shift. apply no_pb_ren, nfrag_no_pb, H.
Qed.

Lemma no_pb_num (r : num scalar) : no_pb (num_tm r).
Proof. induction r; simpl; auto. Qed.

Lemma nfrag_num (r : num scalar) : dense r -> nfrag (num_tm r).
Proof. induction r; simpl; tauto. Qed.

Lemma step_no_pb t t' : step t t' -> no_pb t -> no_pb t'.
Proof.
  induction 1; simpl; intros Hn; try tauto; auto using no_pb_num.
  - (* (1) *) apply no_pb_subst; [intros [|n]; simpl|]; tauto.
  - (* (6) *) split; [|tauto]. apply no_pb_subst; [intros [|n]; simpl|]; tauto.
  - (* let *) apply no_pb_subst; [intros [|n]; simpl|]; tauto.
  - (* contexts *) destruct F; simpl in *; tauto.
Qed.

Section closed.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

Lemma step_nfrag t t' : step t t' -> nfrag t -> nfrag t'.
Proof.
  induction 1; simpl; intros Hn; try tauto.
  - (* (1) *) apply nfrag_subst; [intros [|n]; simpl|]; tauto.
  - (* (3) *) apply nfrag_num, fsem_dense. assumption.
  - (* (4) *) apply nfrag_num, fjac_dense; assumption.
  - (* (6) *) split; [|tauto]. apply no_pb_subst; [intros [|n]; simpl|]; tauto.
  - (* let *) apply nfrag_subst; [intros [|n]; simpl|]; tauto.
  - (* contexts *)
    destruct F; simpl in *; try tauto.
    split; [|tauto]. eapply step_no_pb; [eassumption|tauto].
Qed.

(** Informal proof: by induction on the reduction sequence; each step
    keeps the type ([step_typed]) and the fragment ([step_nfrag]), and
    [progress_num] applies to the last term. *)
Lemma nfrag_safety t u A :
  typed [] t A -> nfrag t -> steps t u -> svalue u \/ exists u', step u u'.
Proof.
  intros Ht Hf Hs. revert A Ht Hf. induction Hs as [t|t t' t'' H1 _ IH]; intros A Ht Hf.
  - eapply progress_num; eassumption.
  - eapply IH; [eapply step_typed; eassumption|eapply step_nfrag; eassumption].
Qed.
End closed.

(** ** Where progress fails: two closed, well-typed, well-formed terms
    that are stuck *)
Section stuck.
Variables (f : fsym) (x : num scalar) (r : scalar).
Hypothesis Hx : num_ty x (Rn (fdom f)).

(** First order: [f(x + x)], a sum of numerals given to [f].  The paper
    has no rule for a sum of numerals. *)
Definition fun_sum : tm := Fun f (Plus (num_tm x) (num_tm x)).

Lemma stuck_fun_sum :
  typed [] fun_sum (Rn (fcod f)) /\ wf_tm fun_sum /\ ~ svalue fun_sum /\ forall t', ~ step fun_sum t'.
Proof.
  split; [|split; [|split]].
  - unfold fun_sum. constructor. constructor; apply typed_num; exact Hx.
  - unfold fun_sum, wf_tm. simpl.
    assert (forall r0 : num scalar, pb_lets_ok (num_tm r0) /\ pb_jac_ok (num_tm r0))
      by (induction r0; simpl; tauto).
    destruct (H x). tauto.
  - unfold fun_sum. simpl. tauto.
  - intros t' Hs. apply (value_not_step _ _ Hs). unfold fun_sum. simpl. split.
    + intros (r0 & _ & Heq). destruct r0; discriminate.
    + split; [intros []|]. split; apply value_num.
Qed.

(** Higher order: the value 2 of Remark 3.6 on a closed point,
    [((Ω λy:(R⇒R)×R. π1(y) π2(y)) · (λu:R. [r]∗)) ⟨0, r⟩]. *)
Definition remark36 : tm :=
  App (Pb (App (Proj false (Var 0)) (Proj true (Var 0))) (Lam (NDual (NR r)))) (Pair Zero (Real r)).

Lemma stuck_remark36 :
  typed [] remark36 (TDual (TProd (TArr TR TR) TR)) /\ wf_tm remark36 /\ ~ svalue remark36 /\
  forall t', ~ step remark36 t'.
Proof.
  split; [|split; [|split]].
  - unfold remark36. eapply (typed_app _ _ _ (TProd (TArr TR TR) TR)).
    + apply (typed_pb _ _ _ _ TR).
      * eapply typed_app; [eapply typed_proj1|eapply typed_proj2]; constructor; reflexivity.
      * constructor. constructor. constructor.
    + constructor; constructor.
  - unfold remark36, wf_tm. simpl. tauto.
  - unfold remark36. simpl. tauto.
  - intros t' Hs. apply (value_not_step _ _ Hs). unfold remark36.
    assert (Hc : chain_body (App (Proj false (Var 0)) (Proj true (Var 0)))).
    { left. apply elem_app; repeat constructor. }
    simpl. split; [|split].
    + intros [_ Hns]. apply Hns. right. exists [false], [true]. split; [reflexivity|].
      simpl. discriminate.
    + split; [|split; [exact Hc|]].
      * intros Hl. exact (chain_body_not_lets _ Hc Hl).
      * split; [intros []|exact I].
    + split; [intros []|]. split; split; try intros []; exact I.
Qed.
(** Both satisfy the checkers' whole judgment ([wf_query], wf.v): the
    rule [param_app_free] does not exclude them (no parameter is applied
    in [remark36]'s body, which applies a path of the pullback's own
    variable; [fun_sum] has no pullback), nor does [pb_point_ok]
    ([remark36]'s point has a [0], no Jacobian or pullback, at the applied
    path; [ztyped] excludes it). *)
Lemma stuck_wf_query : wf_query fun_sum /\ wf_query remark36.
Proof.
  split; split; [|split| |split].
  - exact (proj1 (proj2 stuck_fun_sum)).
  - unfold fun_sum. simpl.
    assert (forall r0 : num scalar, pb_param_ok (num_tm r0)) by (induction r0; simpl; tauto).
    split; auto.
  - unfold fun_sum. simpl.
    assert (forall r0 : num scalar, pb_point_ok (num_tm r0)) by (induction r0; simpl; tauto).
    split; auto.
  - exact (proj1 (proj2 stuck_remark36)).
  - unfold remark36. simpl. split; [|tauto].
    repeat split. intros n E. injection E as <-. discriminate.
  - unfold remark36. simpl. repeat split.
Qed.
End stuck.

End progress_typed.

(** The executable signature ([exec_sig.v], that of [pullback-eval]) gives
    a number for every function symbol and Jacobian, so the fragment is
    type safe there without hypotheses. *)
Lemma exec_nfrag_safety {K} (o : scalar_ops K) t u A :
  @typed (exec_sig o) [] t A -> @nfrag (exec_sig o) t -> @steps (exec_sig o) t u ->
  @svalue (exec_sig o) u \/ exists u', @step (exec_sig o) u u'.
Proof.
  apply nfrag_safety.
  - intros f x _. destruct f; simpl; unfold esem; try (destruct (epr o x)); exact I.
  - intros f x v _ _. destruct f; simpl; unfold ejac;
      try (destruct (epr o x)); try (destruct (epr o v)); exact I.
Qed.

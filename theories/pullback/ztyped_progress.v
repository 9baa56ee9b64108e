(** * Progress under the typed premise: without pullbacks, and on the
      first-order fragment

    docs/decisions-pullback.md, "Progress beyond the first-order fragment:
    the premise is typed".  [progress_num] (progress_typed.v) proves
    progress with syntactic values for the numeric fragment [nfrag], which
    has no [0] and no sum outside the bodies of dual maps.  Under
    [ztyped] a [0] or a sum may stand anywhere at a dual type, and the
    canonical forms still hold: a closed value of a type [R^n] is a numeral,
    of an arrow type an abstraction or a Jacobian, of a product a pair,
    because [0] and sums have dual types only ([zcanon_gty], [zcanon_arr],
    [zcanon_prod]).  At a dual type a value may now be [0] or a formal
    sum [V + V]: both are values of the grammar, and a dual map applied to
    one is no redex (reductions (5⁺) and (6) need [r*] or a dual map).

    - [zprogress_no_pb]: a closed [ztyped] term without pullbacks (the
      reverse phase, with [0] and sums at dual types) is a syntactic value
      or steps;
    - [zno_pb_safety]: so is every term it reduces to, when the signature's
      functions keep numerals dense (as [ztyped_steps] needs);
      [exec_zno_pb_safety]: at [pullback-eval]'s signature, without
      hypotheses;
    - [zfo_progress]: a closed [ztyped] term of the first-order fragment
      [fq] (fo.v: first-order queries, their 1-forms and points) is a
      syntactic value or steps; [zfo_safety], [exec_zfo_safety]: so is
      every term it reduces to; [zfo_svalue_norm]: it reduces to a
      syntactic value of its type.  [fo_progress] needs [nzq] (no [0] or
      sum outside dual maps' bodies), which the steps do not keep;
      [ztyped] replaces it ([zfo_value_svalue]: a closed normal form of
      [fq] in [ztyped] is a syntactic value), since [0] and sums at dual
      types never block a rule.

    Beyond [fq]: fo2.v extends the result to [fq2], whose pullback
    bodies may hold any [let] and Jacobians and numeric duals
    ([zfo2_progress], [zfo2_safety], [zfo2_svalue_norm],
    [exec_zfo2_safety]), from its normalization ([fq2_norm]) and a lemma
    for the whole language: a closed [ztyped] normal form none of whose
    pullbacks has an application as its body is a syntactic value
    ([zvalue_svalue]).

    Open: terms with pullbacks outside [fq2].  Rules 16b-19b reduce a
    pullback applied to a point only once a premise, the body run on the
    point along a variable 1-form, ends in a dual map or [0]; progress for
    them needs the normalization of those premises, proved for no
    higher-order body, dual map or pullback in a body.  An application in
    a body is not only open: a Jacobian of the point applied in the body
    leaves a closed, [ztyped], well-formed normal form that is not a
    syntactic value ([zstuck_jac_point], fo2.v), so progress with
    syntactic values does not hold of every closed [ztyped] term (the
    checkers' judgment [wf_query] now refuses that query: [pb_point_ok],
    wf.v); and a
    body [λx.L] whose last [let] does not depend on [y] while an earlier
    one does leaves rule 18's premise in a dual map along [0], which the
    zero variant of 18 ([step_pb_lam_zero], reduction.v) reduces
    ([zpb_lam_value], fo2.v; 19b has the same variant,
    [step_pb_app_lam_zero]; 16b and 16c have none).  Both
    fragments here contain terms [fo_progress] does not cover ([nzq]
    excludes [r* + s*] and [⟨0, r⟩ : R* × R]). *)
From Pullback Require Import syntax typing reduction preservation progress progress_typed exec_sig
  fo norm_fo fo_progress fo_grad ztyped ztyped_pres.

Section ztyped_progress.
Context {Σ : signature}.

Ltac inv H := inversion H; subst; clear H.

(** ** Canonical forms under [ztyped]: [0] and sums have dual types *)
Lemma zcanon_gty t A :
  svalue t -> ztyped [] t A -> gty A -> exists r, dense r /\ t = num_tm r.
Proof.
  revert A. induction t as [| | | |a IHa b IHb|r| | | | | | | |]; intros A Hv Ht Hg;
    simpl in Hv; try contradiction; inv Ht; simpl in Hg; try contradiction.
  - (* a pair of numerals *)
    destruct Hv as [Va Vb], Hg as [Ga Gb].
    destruct (IHa _ Va ltac:(eassumption) Ga) as (ra & Da & ->).
    destruct (IHb _ Vb ltac:(eassumption) Gb) as (rb & Db & ->).
    exists (NP ra rb). split; [split; assumption|reflexivity].
  - (* a real *)
    exists (NR r). split; [exact I|reflexivity].
Qed.

Lemma zcanon_arr t A B :
  no_pb t -> svalue t -> ztyped [] t (TArr A B) ->
  (exists s, t = Lam s) \/ (exists f a, t = Jac f a /\ no_pb a /\ svalue a /\ ztyped [] a (Rn (fdom f))).
Proof.
  intros Hp Hv Ht. inv Ht; simpl in Hp, Hv; try contradiction; [left; eauto|right; eauto 8].
Qed.

Lemma zcanon_prod t A B :
  svalue t -> ztyped [] t (TProd A B) -> exists a b, t = Pair a b /\ svalue a /\ svalue b.
Proof. intros Hv Ht. inv Ht; simpl in Hv; try contradiction. destruct Hv. eauto. Qed.
(** [t] steps inside the frame [F] (whose value positions hold values). *)
Ltac in_frame F :=
  right; eexists; apply (step_ctx F); [simpl; auto using svalue_value|eassumption].

(** Informal proof: by induction on the [ztyped] derivation, in the empty
    context.  [0], an abstraction, a real and [r*] are values.  In every
    other term the first evaluation position (left to right; in a dual map
    the argument, then the body) that is not a value steps, by induction,
    in its frame; the body of a dual map is open and holds no pullback, so
    it steps or is a normal form ([no_pb_progress]).  With values in every
    position: a sum of values is a value; a pair is one; an application,
    a projection, [f(V)] and [J f · V] applied are redexes by the canonical
    forms, which [ztyped] gives because [0] and sums have dual types; a
    [let] is one; a dual map is a value unless it is a redex of (5⁺) or
    (6), whose argument is then [r*] or a dual map. *)
Lemma zprogress_no_pb t A :
  ztyped [] t A -> no_pb t -> svalue t \/ exists t', step t t'.
Proof.
  remember (@nil ty) as Γ eqn:HΓ. intros Ht. revert HΓ.
  induction Ht as [Γ σ|Γ s p σ _ IHs _ IHp|Γ n σ Hn|Γ s σ τ _ _|Γ s p σ τ Hs IHs Hp IHp
                  |Γ s σ1 σ2 Hs IHs|Γ s σ1 σ2 Hs IHs|Γ s1 s2 σ1 σ2 _ IH1 _ IH2|Γ r
                  |Γ f p Hp IHp|Γ f s _ IHs|Γ r σ _|Γ s1 s2 σ τ _ H2 IH2 _|Γ p s σ τ _ _ _ _
                  |Γ e l σ τ _ IHe _ _];
    intros ->; simpl; intros Hnp; try contradiction; try (left; exact I).
  - (* zt_plus: a formal sum of values is a value *)
    destruct Hnp as [Ns Np].
    destruct (IHs eq_refl Ns) as [Vs|[s' Ss]]; [|in_frame (EPlusL p)].
    destruct (IHp eq_refl Np) as [Vp|[p' Sp]]; [left; split; assumption|in_frame (EPlusR s)].
  - (* zt_var: no variable is closed *)
    destruct n; discriminate.
  - (* zt_app *)
    destruct Hnp as [Ns Np].
    destruct (IHs eq_refl Ns) as [Vs|[s' Ss]]; [|in_frame (EAppL p)].
    destruct (IHp eq_refl Np) as [Vp|[p' Sp]]; [|in_frame (EAppR s)].
    right. destruct (zcanon_arr s σ τ Ns Vs Hs) as [[b ->]|(f & a & -> & Na & Va & Ha)].
    + (* (1) *) eexists. apply step_beta, svalue_value, Vp.
    + (* (4): the point and the argument are numerals of [R^(fdom f)] *)
      inversion Hs; subst.
      destruct (zcanon_gty a _ Va Ha (gty_Rn _)) as (r & Dr & ->).
      destruct (zcanon_gty p _ Vp Hp (gty_Rn _)) as (r' & Dr' & ->).
      eexists. apply step_jac; assumption.
  - (* zt_proj1 *)
    destruct (IHs eq_refl Hnp) as [Vs|[s' Ss]]; [|in_frame (EProj false)].
    destruct (zcanon_prod s σ1 σ2 Vs Hs) as (a & b & -> & Va & Vb).
    right. exists a. apply step_proj1; apply svalue_value; assumption.
  - (* zt_proj2 *)
    destruct (IHs eq_refl Hnp) as [Vs|[s' Ss]]; [|in_frame (EProj true)].
    destruct (zcanon_prod s σ1 σ2 Vs Hs) as (a & b & -> & Va & Vb).
    right. exists b. apply step_proj2; apply svalue_value; assumption.
  - (* zt_pair *)
    destruct Hnp as [N1 N2].
    destruct (IH1 eq_refl N1) as [V1|[s' S1]]; [|in_frame (EPairL s2)].
    destruct (IH2 eq_refl N2) as [V2|[s' S2]]; [left; split; assumption|in_frame (EPairR s1)].
  - (* zt_fun: (3) on a numeral *)
    destruct (IHp eq_refl Hnp) as [Vp|[p' Sp]]; [|in_frame (EFun f)].
    destruct (zcanon_gty p _ Vp Hp (gty_Rn _)) as (r & Dr & ->).
    right. eexists. apply step_fun. exact Dr.
  - (* zt_jac: a Jacobian at a value is a value *)
    destruct (IHs eq_refl Hnp) as [Vs|[s' Ss]]; [left; exact Vs|in_frame (EJac f)].
  - (* zt_dual: the argument, then the body, then (5⁺) or (6) *)
    destruct Hnp as [Nb Na].
    destruct (IH2 eq_refl Na) as [Va|[a' Sa]]; [|in_frame (EDualR s1)].
    destruct (no_pb_progress s1 Nb) as [Vb|[b' Sb]]; [|in_frame (EDualL s2)].
    destruct (head_redex_dec (Dual s1 s2)) as [Hr|Hr]; [right|left; simpl; auto].
    destruct s2 as [| | | | | | | | | |c| | |]; simpl in Hr; try contradiction.
    + (* (6) *) eexists. apply step_dual_comp; [exact Vb|apply svalue_value, Va].
    + (* (5⁺) *) destruct Hr as [Hn (r' & Hbp)]. eexists. apply step_bp; eassumption.
  - (* zt_let *)
    destruct Hnp as [Ne Nl].
    destruct (IHe eq_refl Ne) as [Ve|[e' Se]]; [|in_frame (ELet l)].
    right. eexists. apply step_let, svalue_value, Ve.
Qed.

(** Beyond [nfrag]: [⟨0, r⟩ : R* × R] and [r* + r* : R*] are in the
    fragment (both values), outside [nfrag]. *)
Example zprogress_beyond_nfrag r :
  ztyped [] (Pair Zero (Real r)) (TProd (TDual TR) TR) /\ no_pb (Pair Zero (Real r)) /\
  ~ nfrag (Pair Zero (Real r)) /\
  ztyped [] (Plus (NDual (NR r)) (NDual (NR r))) (TDual TR) /\ ~ nfrag (Plus (NDual (NR r)) (NDual (NR r))).
Proof. repeat split; repeat constructor; simpl; tauto. Qed.

(** ** The first-order fragment under [ztyped] *)

(** Informal proof: as [fo_value_svalue], by induction on [t], with
    [ztyped] in place of [typed] and [nzq]: a closed normal form of [fq]
    is a syntactic value.  A variable is not closed; [0] is a value, and
    a sum of normal forms of the fragment is a sum of values.  An
    application in normal form is impossible: its function is a value of
    an arrow type, which under [ztyped] is no [0] or sum, hence an
    abstraction ((1) applies), a Jacobian at a numeral ((4) applies) or a
    pullback of a first-order body (a rule 9-20 applies: no stuck form of
    Remark 3.6 applies an atom there).  Nor is a projection (of a pair), a
    [f(V)] (of a numeral) or a [let].  A pair, [J f · V], a dual map and a
    pullback are values when their parts are. *)
Lemma zfo_value_svalue t A : ztyped [] t A -> fq t -> value t -> svalue t.
Proof.
  revert A.
  induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs q IHq|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    intros A Ht Hq Hv; simpl; try exact I; apply fq_cases in Hq; cbn [flat form] in Hq.
  - (* a variable is not closed *)
    inv Ht. destruct n; discriminate.
  - (* an application is not a normal form *)
    exfalso. destruct Hv as [Hh [Va Vb]].
    assert (Qa : fq a /\ (flat a \/ form a)) by (split; [destruct Hq as [Hq|[[]|Hq]]; [apply flat_fq|apply form_fq]|]; tauto).
    assert (Qb : flat b) by (destruct Hq as [Hq|[[]|Hq]]; tauto).
    inv Ht.
    match goal with H1 : ztyped [] a (TArr ?σ _), H2 : ztyped [] b ?σ |- _ =>
      pose proof (IHa _ H1 (proj1 Qa) Va) as Sa; pose proof (IHb _ H2 (flat_fq _ Qb) Vb) as Sb;
      rename H1 into Ta, H2 into Tb end.
    destruct a as [| | | | | |f a'|f a'| |p w| | | |]; simpl in Sa; try contradiction; try (inv Ta; fail);
      try (apply Hh; exact I).
    + (* (4) would apply *)
      inv Ta. destruct (zcanon_gty a' _ Sa ltac:(eassumption) (gty_Rn _)) as (r & Dr & ->).
      destruct (zcanon_gty b _ Sb Tb (gty_Rn _)) as (r' & Dr' & ->).
      apply Hh. simpl. eauto 6.
    + (* a rule 9-20 would apply: the body is first order *)
      destruct Qa as [_ [Fa|[[Hp _] _]]]; [simpl in Fa; contradiction|].
      apply Hh. simpl. split; [tauto|].
      intros [(a0 & q0 & _ & _ & ->)|(p1 & q0 & -> & _)]; simpl in Hp; exact Hp.
  - (* a projection is not a normal form *)
    exfalso. destruct Hv as [Hh Va]. destruct Hq as [Hq|[[]|[]]].
    inv Ht;
      match goal with H1 : ztyped [] a _ |- _ => pose proof (IHa _ H1 (flat_fq _ Hq) Va) as Sa; rename H1 into Ta end;
      destruct a; simpl in Sa; try contradiction; try (inv Ta; fail); apply Hh; exact I.
  - (* a pair of values *)
    destruct Hv as [_ [Va Vb]]. destruct Hq as [[Fa Fb]|[[]|[]]]. inv Ht.
    split; [eapply IHa|eapply IHb]; eauto using flat_fq.
  - (* [f(P)] is not a normal form *)
    exfalso. destruct Hv as [Hh Va]. destruct Hq as [Hq|[[]|[]]]. inv Ht.
    destruct (zcanon_gty a _ (IHa _ ltac:(eassumption) (flat_fq _ Hq) Va) ltac:(eassumption) (gty_Rn _))
      as (r & Dr & ->).
    apply Hh. simpl. eauto.
  - (* [J f · V] *)
    destruct Hv as [_ Va]. destruct Hq as [Hq|[[]|[]]]. inv Ht. eauto using flat_fq.
  - (* a dual map *)
    destruct Hv as [Hh [Vs Vq]]. destruct Hq as [[]|[[]|[_ Qq]]]. inv Ht. eauto.
  - (* a pullback along a 1-form *)
    destruct Hv as [_ [Hc Vw]]. destruct Hq as [[]|[[_ Fw]|[]]]. inv Ht. eauto using form_fq.
  - (* a sum of values *)
    destruct Hv as [_ [Va Vb]]. destruct Hq as [[Fa Fb]|[[]|[]]]. inv Ht.
    split; [eapply IHa|eapply IHb]; eauto using flat_fq.
  - (* [let] is not a normal form *)
    destruct Hv as [_ []].
Qed.

(** Progress on the fragment under [ztyped]: [fq_norm] reduces [t] to a
    normal form; if that takes no step, [t] is one, hence a syntactic
    value ([zfo_value_svalue]); otherwise [t] steps.  Unlike
    [fo_progress], [0] and sums stand anywhere at dual types. *)
Lemma zfo_progress t A : ztyped [] t A -> fq t -> svalue t \/ exists t', step t t'.
Proof.
  intros Ht Hq. destruct (fq_norm t Hq) as (v & Hs & Hv & _).
  inversion Hs as [t0 E|t0 t' v0 H1 _ E1 E2]; subst; [left; exact (zfo_value_svalue v A Ht Hq Hv)|right; eauto].
Qed.

(** [⟨0, r⟩ : R* × R] is in [fq], outside [nzq] ([nzq_not_kept]): covered
    by [zfo_progress], not by [fo_progress]. *)
Example zfo_beyond_nzq r : fq (Pair Zero (Real r)) /\ ~ nzq (Pair Zero (Real r)).
Proof. split; [left; simpl; tauto|unfold nzq; simpl; tauto]. Qed.

(** ** Type safety without pullbacks *)
Section dense.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

(** Informal proof: by induction on the reduction sequence; each step
    keeps [ztyped] ([ztyped_preservation], which needs the hypotheses) and
    the absence of pullbacks ([step_no_pb]); [zprogress_no_pb] applies to
    the last term. *)
Lemma zno_pb_safety t u A :
  ztyped [] t A -> no_pb t -> steps t u -> svalue u \/ exists u', step u u'.
Proof.
  intros Ht Hp Hs. revert A Ht Hp. induction Hs as [t|t t' t'' H1 _ IH]; intros A Ht Hp.
  - exact (zprogress_no_pb t A Ht Hp).
  - apply (IH A); [exact (ztyped_preservation fsem_dense fjac_dense t t' A Ht H1)|exact (step_no_pb t t' H1 Hp)].
Qed.

(** Type safety on the first-order fragment under [ztyped]: the type by
    [ztyped_steps], the fragment by [fq_steps], then [zfo_progress]. *)
Lemma zfo_safety t u A :
  ztyped [] t A -> fq t -> steps t u -> svalue u \/ exists u', step u u'.
Proof.
  intros Ht Hq Hs.
  exact (zfo_progress u A (ztyped_steps fsem_dense fjac_dense t u A Ht Hs) (fq_steps t u Hs Hq)).
Qed.

(** Normalization to a syntactic value of the same type (Corollary 5.2
    with the values of the grammar) on the first-order fragment under
    [ztyped]: [fq_norm]'s normal form is one ([zfo_value_svalue]). *)
Lemma zfo_svalue_norm t A :
  ztyped [] t A -> fq t -> exists v, steps t v /\ svalue v /\ ztyped [] v A.
Proof.
  intros Ht Hq. destruct (fq_norm t Hq) as (v & Hs & Hv & Hqv).
  pose proof (ztyped_steps fsem_dense fjac_dense t v A Ht Hs) as Htv.
  exists v. split; [exact Hs|split; [exact (zfo_value_svalue v A Htv Hqv Hv)|exact Htv]].
Qed.
End dense.

End ztyped_progress.

(** At [pullback-eval]'s signature ([exec_sig.v]) the functions and their
    Jacobians give numbers, so type safety holds without hypotheses. *)
Lemma exec_zno_pb_safety {K} (o : scalar_ops K) t u A :
  @ztyped (exec_sig o) [] t A -> @no_pb (exec_sig o) t -> @steps (exec_sig o) t u ->
  @svalue (exec_sig o) u \/ exists u', @step (exec_sig o) u u'.
Proof. apply zno_pb_safety; [exact (exec_fsem_dense o)|exact (exec_fjac_dense o)]. Qed.

Lemma exec_zfo_safety {K} (o : scalar_ops K) t u A :
  @ztyped (exec_sig o) [] t A -> @fq (exec_sig o) t -> @steps (exec_sig o) t u ->
  @svalue (exec_sig o) u \/ exists u', @step (exec_sig o) u u'.
Proof. apply zfo_safety; [exact (exec_fsem_dense o)|exact (exec_fjac_dense o)]. Qed.

(** * Progress with typing and syntactic values on the first-order fragment

    [norm_fo.v] proves that every term of the first-order fragment [fq]
    ([fo.v]) reduces to a normal form ([value], reduction.v), which admits
    stuck terms.  This file states progress with the syntactic values
    [svalue] of [progress_typed.v]: a closed well-typed term of the
    fragment is an [svalue] or steps ([fo_progress]), every term it reduces
    to as well ([fo_safety]), and it reduces to an [svalue] of its type
    ([fo_svalue_norm]).

    The premise [nzq].  [fq] holds stuck terms that are closed and well
    typed: [stuck_fun_sum] ([f(r + r)], progress_typed.v) is [flat], so it
    is in [fq]; a pullback body with a sum or a [0] ([(Ω λy. sin(y + y)) ·
    ω) r] or [sin(add⟨y, 0⟩)]) puts [r + r] or [⟨r, 0⟩] into a point, where
    no rule reduces [f] of it.  The paper has no rule for a sum of
    numerals (sums are formal) and reads [0] as the zero of a dual type.
    [nzq t] excludes exactly that: no [0] and no sum in [t] outside the
    bodies of dual maps (which are open and evaluated only to a normal form),
    none in the body of a pullback at all, except a [0] on the spine of
    dual maps ([zsp], the answer of rule (9) for a body that does not depend
    on [y]: [0] and [(λv.S)* · 0] are syntactic values).  A first-order
    query [((Ω λy.P) · (λx.e* )) r0] with no [0] and no sum in [P] and a
    tuple of scalars [r0] satisfies it ([fo_grad_query_nzq]);
    docs/decisions-pullback.md, "Progress on the first-order fragment".

    It is kept by every step of the fragment ([nzq_step]) when the function
    symbols and their Jacobians give tuples of scalars on tuples of scalars
    (no [NZ] comes out of (3) or (4); [pullback-eval]'s signature does,
    [exec_fo_safety] in fo_grad.v).

    What a query's syntactic value is ([canon_dual_fo]): a numeric
    dual [r*], a [0] on the spine of dual maps (the body, or the last term
    of its let series, does not depend on [y]:
    [((Ω λy. let x = sin y in let z = 3 in z) · ω) 2] ends in
    [(λv.⟨v, (J sin · v) 2⟩)* · 0]), or a dual map that is not a redex
    (fo_grad.v excludes it for gradient queries [((Ω λy.P) · (λx.e* )) r0],
    and the [0] on the spine when [P] does not end in a scalar). *)
From Pullback Require Import syntax typing anf anf_termination backprop reduction preservation
  progress decide fo norm_fo progress_typed exec_sig.

Section fo_progress.
Context {Σ : signature}.

Ltac inv H := inversion H; subst; clear H.

(** ** No [0] and no sum outside the bodies of dual maps *)

(** No [0] and no sum anywhere (bodies of pullbacks). *)
Fixpoint nzp (t : tm) : Prop :=
  match t with
  | Zero | Plus _ _ => False
  | Var _ | Real _ | NDual _ => True
  | Lam a | Proj _ a | Fun _ a | Jac _ a => nzp a
  | App a b | Pair a b | Let a b | Dual a b | Pb a b => nzp a /\ nzp b
  end.

(** A [0] on the spine of dual maps (as [zsp], query_transpose.v). *)
Fixpoint zsp0 (t : tm) : Prop :=
  match t with
  | Zero => True
  | Dual _ q => zsp0 q
  | _ => False
  end.

(** No [0] and no sum outside the bodies of dual maps, but a [0] on the
    spine of dual maps. *)
Fixpoint nzs (t : tm) : Prop :=
  match t with
  | Zero | Plus _ _ => False
  | Var _ | Real _ | NDual _ => True
  | Lam a => nzs a \/ zsp0 a
  | Proj _ a | Fun _ a | Jac _ a => nzs a
  | App a b | Pair a b | Let a b => nzs a /\ nzs b
  | Dual _ q => nzs q \/ zsp0 q
  | Pb p w => nzp p /\ nzs w
  end.

Definition nzq (t : tm) : Prop := nzs t \/ zsp0 t.

(** ** Renaming and substitution *)

Lemma nzp_ren ρ t : nzp (ren ρ t) <-> nzp t.
Proof. revert ρ. induction t; intros ρ; simpl; rewrite ?IHt, ?IHt1, ?IHt2; tauto. Qed.

Lemma zsp0_ren ρ t : zsp0 (ren ρ t) <-> zsp0 t.
Proof. revert ρ. induction t; intros ρ; simpl; rewrite ?IHt2; tauto. Qed.

Lemma nzs_ren ρ t : nzs (ren ρ t) <-> nzs t.
Proof.
  revert ρ. induction t; intros ρ; simpl; rewrite ?IHt, ?IHt1, ?IHt2, ?zsp0_ren, ?nzp_ren; tauto.
Qed.

Lemma nzp_subst σ t : (forall n, nzp (σ n)) -> nzp t -> nzp (subst σ t).
Proof.
  assert (Hup : forall τ, (forall n, nzp (τ n)) -> forall n, nzp (up τ n))
    by (intros τ H [|n]; simpl; [exact I|unfold shift; apply nzp_ren, H]).
  revert σ. induction t; intros σ Hσ H; simpl in *; try tauto; auto.
  all: split; [apply IHt1|apply IHt2]; auto; tauto.
Qed.

Lemma zsp0_subst σ t : zsp0 t -> zsp0 (subst σ t).
Proof. revert σ. induction t; intros σ H; simpl in *; try tauto. apply IHt2. exact H. Qed.

Lemma nzp_nzs t : nzp t -> nzs t.
Proof. induction t; simpl; tauto. Qed.

Lemma flat_nzs_nzp t : flat t -> nzs t -> nzp t.
Proof. induction t; simpl; tauto. Qed.

(** Substitution of terms without [0] and sums (the points). *)
Lemma nzs_subst σ t : (forall n, nzp (σ n)) -> nzs t -> nzs (subst σ t).
Proof.
  assert (Hup : forall τ, (forall n, nzp (τ n)) -> forall n, nzp (up τ n))
    by (intros τ H [|n]; simpl; [exact I|unfold shift; apply nzp_ren, H]).
  revert σ. induction t; intros σ Hσ H; simpl in *; try tauto; auto using nzp_nzs.
  - destruct H as [H|H]; [left; apply IHt; auto|right; apply zsp0_subst, H].
  - split; [apply IHt1|apply IHt2]; tauto.
  - split; [apply IHt1|apply IHt2]; tauto.
  - destruct H as [H|H]; [left; apply IHt2; auto|right; apply zsp0_subst, H].
  - split; [apply nzp_subst; auto; tauto|apply IHt2; [auto|tauto]].
  - split; [apply IHt1|apply IHt2]; auto; tauto.
Qed.

Lemma nzp_num (r : num scalar) : dense r -> nzp (num_tm r).
Proof. induction r; simpl; tauto. Qed.

Lemma nzs_num (r : num scalar) : dense r -> nzs (num_tm r).
Proof. intros H. apply nzp_nzs, nzp_num, H. Qed.

(** ** A-normalisation adds no [0] and no sum ([pred_bind], [pred_ared], fo.v) *)
Lemma nzp_let a b : nzp (Let a b) <-> nzp a /\ nzp b.
Proof. reflexivity. Qed.

Lemma nzp_bind L K : nzp L -> nzp K -> nzp (bind L K).
Proof. apply pred_bind; [intros ρ t; apply nzp_ren|apply nzp_let]. Qed.

Lemma nzp_ared r : nzp r -> nzp (ared r).
Proof.
  intros H. apply pred_ared; [intros ρ t; apply nzp_ren|apply nzp_let|].
  destruct r; simpl in *; rewrite ?nzp_ren; tauto.
Qed.

Lemma afill_nzp C r r' : (nzp r -> nzp r') -> nzp (afill C r) -> nzp (afill C r').
Proof.
  induction C as [|F C IH]; simpl; auto. intros H. destruct F; simpl; intuition.
Qed.

Lemma astep_nzp t t' : astep t t' -> nzp t -> nzp t'.
Proof. intros Hs. destruct Hs as [C r HC Hr Hok]. apply afill_nzp. apply nzp_ared. Qed.

Lemma sub8_nzp n : nzp (sub8 n).
Proof. destruct n as [|[|k]]; simpl; auto. Qed.

Lemma nzp_ppath p : forall t, nzp t -> nzp (ppath p t).
Proof. induction p as [|i p IH]; intros t H; simpl; auto. Qed.

Lemma nzp_yp p : nzp (yp p).
Proof. apply nzp_ppath. exact I. Qed.

Lemma zsp0_dec t : zsp0 t \/ ~ zsp0 t.
Proof. induction t; simpl; tauto. Qed.

(** ** A [0] on the spine stays there *)
Lemma zsp0_step t t' : step t t' -> zsp0 t -> zsp0 t'.
Proof.
  induction 1; simpl; intros Hz; try tauto.
  destruct F; simpl in *; tauto.
Qed.

(** ** The premise is kept by the steps of the fragment *)
Section closed.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

Lemma nzs_step_flat t t' : step t t' -> flat t -> nzs t -> nzs t'.
Proof.
  induction 1; simpl; intros Hf Hn; try tauto.
  - (* (3) *) apply nzs_num, fsem_dense. assumption.
  - (* (4) *) apply nzs_num, fjac_dense; assumption.
  - (* let *)
    apply nzs_subst; [intros [|m]; simpl; [apply flat_nzs_nzp; tauto|exact I]|tauto].
  - (* contexts *) destruct F; simpl in *; tauto.
Qed.

Lemma nzs_step_form t t' : step t t' -> form t -> nzs t -> nzs t'.
Proof.
  induction 1; simpl; intros Hf Hn; try tauto.
  - (* (8) *)
    split; [simpl; tauto|]. split; [apply nzp_subst; [apply sub8_nzp|tauto]|tauto].
  - (* an A-step in the body *) split; [eapply astep_nzp; [eassumption|tauto]|tauto].
  - (* contexts *) destruct F; simpl in *; tauto.
Qed.

Lemma fq_cases t : fq t -> flat t \/ form t \/
  match t with App w v => form w /\ flat v | Dual s q => flat s /\ fq q | _ => False end.
Proof. destruct t; simpl; tauto. Qed.

Lemma nzs_out w v e : nzs w -> nzp v -> nzp e -> nzs (out w v e).
Proof.
  intros Hw Hv He. unfold out. simpl. split; [exact Hw|].
  apply nzs_subst; [intros [|m]; simpl; auto|apply nzp_nzs, He].
Qed.

(** Informal proof: by induction on the step.  A step of a [flat] term or
    of a [form] keeps [nzs] ([nzs_step_flat], [nzs_step_form]: (3) and (4)
    give tuples of scalars, A-steps and (7), (8) add no [0] or sum to a
    body).  (1) substitutes a point without [0] into the body of a 1-form;
    the rules 9-20 that fire on a first-order body give [0] (9, on the
    spine) or a dual map along the next 1-form applied to the image of the
    point, which has no [0] or sum; (6) keeps the argument of the inner
    dual map; a step of the argument of a dual map keeps [nzq] by
    induction; the body of a dual map is not constrained. *)
Lemma nzs_step t t' : step t t' -> fq t -> nzs t -> nzq t'.
Proof.
  intros Hst. pose proof Hst as Hst0. revert Hst0.
  induction Hst; intros Hst0 Hq Hn; unfold nzq; apply fq_cases in Hq;
    (destruct Hq as [Hf|[Hw|Hm]];
      [left; exact (nzs_step_flat _ _ Hst0 Hf Hn)|left; exact (nzs_step_form _ _ Hst0 Hw Hn)|]).
  all: cbn [fq form flat nzs nzp] in Hm, Hn; try (unfold fo_body in Hm; cbn [fob] in Hm); try tauto.
  all: try solve [left; cbn [nzs]; left; apply nzs_out; [tauto|apply flat_nzs_nzp; tauto|tauto]].
  all: try solve [right; exact I].
  all: try solve [left; exact I].
  all: try solve [left; cbn [nzs]; left; apply nzs_out;
                  [tauto|apply flat_nzs_nzp; tauto|cbn [nzp]; rewrite ?nzp_yp; tauto]].
  all: try solve [left; cbn [nzs]; tauto].
  - (* (1) *)
    destruct Hn as [[Hs|Hs] Hv]; [left; apply nzs_subst|right; apply zsp0_subst, Hs]; [|exact Hs].
    intros [|m]; simpl; [apply flat_nzs_nzp; tauto|exact I].
  - (* a step in an evaluation context *)
    destruct F; cbn [efill] in *; cbn [fq flat form nzs] in Hm, Hn |- *; try tauto.
    + (* [] P *) left. split; [eapply nzs_step_form|]; try eassumption; tauto.
    + (* V [] *) left. split; [|eapply nzs_step_flat]; try eassumption; tauto.
    + (* (λx.S)* · [] *)
      left. destruct Hn as [Hn|Hn]; [apply IHHst; [exact Hst|tauto|exact Hn]|].
      right. eapply zsp0_step; eassumption.
Qed.

Lemma nzq_step t t' : step t t' -> fq t -> nzq t -> nzq t'.
Proof.
  intros Hs Hq [Hn|Hz]; [exact (nzs_step _ _ Hs Hq Hn)|right; exact (zsp0_step _ _ Hs Hz)].
Qed.

Lemma nzq_steps t t' : steps t t' -> fq t -> nzq t -> nzq t'.
Proof.
  induction 1 as [t|t t1 t2 H _ IH]; auto.
  intros Hq Hn. apply IH; [exact (fq_step _ _ H Hq)|exact (nzq_step _ _ H Hq Hn)].
Qed.

End closed.

(** ** Canonical forms *)

Lemma nzq_nzs t : nzq t -> ~ zsp0 t -> nzs t.
Proof. intros [H|H] Hz; tauto. Qed.

(** A closed syntactic value of a type of tuples of scalars, without [0]
    or sum, is a numeral. *)
Lemma canon_num t A :
  svalue t -> typed [] t A -> gty A -> nzs t -> exists r, dense r /\ t = num_tm r.
Proof.
  revert A. induction t; simpl; intros A Hv Ht Hg Hn; try contradiction;
    try (inv Ht; simpl in Hg; contradiction).
  - destruct Hv as [Va Vb], Hn as [Na Nb]. inv Ht. destruct Hg as [G1 G2].
    destruct (IHt1 _ Va ltac:(eassumption) G1 Na) as (r1 & D1 & ->).
    destruct (IHt2 _ Vb ltac:(eassumption) G2 Nb) as (r2 & D2 & ->).
    exists (NP r1 r2). simpl. auto.
  - exists (NR r). simpl. auto.
Qed.

(** Informal proof: by induction on [t].  No closed term is a variable;
    an abstraction, a scalar and a numeric dual are values; [0] and a sum
    are excluded but for a [0] on the spine, which is a value.  For a
    pair, [J f · S], a dual map and a pullback, the positions the values
    of [progress_typed.v] look at are closed, typed and in the fragment,
    so values by induction (the body of a dual map is a normal form).  An
    application [S V] in normal form cannot be: [S] is a value of an arrow
    type, an abstraction (then (1) applies), a Jacobian [J f · r] (its
    argument is a numeral of [R^n], then (4) applies) or a pullback
    [(Ω λy.E) · ω] of a first-order body (then a rule 9-20 applies: the
    body is a [chain_body] and the stuck forms of Remark 3.6 apply an
    atom, which a first-order body does not); a projection in normal form
    cannot be (its argument is a pair), nor [f(P)] (its argument is a
    numeral), nor a [let]. *)
Lemma fo_value_svalue t A : typed [] t A -> fq t -> nzq t -> value t -> svalue t.
Proof.
  revert A. induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs q IHq|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    intros A Ht Hq Hn Hv; simpl; try exact I.
  - (* a variable *) inv Ht. destruct n; discriminate.
  - (* an application *)
    exfalso. destruct Hn as [Hn|Hn]; [|contradiction]. destruct Hv as [Hh [Va Vb]].
    apply fq_cases in Hq. cbn [flat form] in Hq.
    assert (Hq' : fq a /\ fq b /\ (flat a \/ form a) /\ flat b)
      by (destruct Hq as [Hq|[Hq|Hq]]; [|contradiction|]; split; try split;
          try (apply flat_fq; tauto); try (apply form_fq; tauto); tauto).
    destruct Hq' as (Qa & Qb & Fa & Fb). destruct Hn as [Na Nb].
    inv Ht.
    match goal with H1 : typed [] a (TArr ?σ _), H2 : typed [] b ?σ |- _ =>
      pose proof (IHa _ H1 Qa (or_introl Na) Va) as Sa; pose proof (IHb _ H2 Qb (or_introl Nb) Vb) as Sb;
      rename H1 into Ta, H2 into Tb end.
    destruct a as [| | | | | |f a'|f a'| |p w| | | |]; simpl in Sa, Na; try contradiction; try (inv Ta; fail);
      try (apply Hh; exact I).
    + (* (4) *)
      inv Ta. destruct (canon_num a' _ Sa ltac:(eassumption) (gty_Rn _) Na) as (r & Dr & ->).
      destruct (canon_num b _ Sb ltac:(eassumption) (gty_Rn _) Nb) as (r' & Dr' & ->).
      apply Hh. simpl. eauto 6.
    + (* a rule 9-20 *)
      destruct Fa as [Fa|Fa]; [simpl in Fa; contradiction|].
      destruct Fa as [[Hp _] _]. apply Hh. simpl. split; [tauto|].
      intros [(a0 & q0 & _ & _ & ->)|(p1 & q0 & -> & _)]; simpl in Hp; exact Hp.
  - (* a projection *)
    exfalso. destruct Hn as [Hn|Hn]; [|contradiction]. destruct Hv as [Hh Va].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    inv Ht;
    (match goal with H1 : typed [] a _ |- _ =>
      pose proof (IHa _ H1 (flat_fq _ Hq) (or_introl Hn) Va) as Sa; rename H1 into Ta end);
    (destruct a; simpl in Sa, Hn; try contradiction; try (inv Ta; fail)); apply Hh; exact I.
  - (* a pair *)
    destruct Hn as [Hn|Hn]; [|contradiction]. destruct Hv as [_ [Va Vb]].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    simpl in Hn. inv Ht.
    split; [eapply IHa|eapply IHb]; try eassumption; try (apply flat_fq; tauto); left; tauto.
  - (* f(P) *)
    exfalso. destruct Hn as [Hn|Hn]; [|contradiction]. destruct Hv as [Hh Va].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    inv Ht. pose proof (IHa _ ltac:(eassumption) (flat_fq _ Hq) (or_introl Hn) Va) as Sa.
    destruct (canon_num a _ Sa ltac:(eassumption) (gty_Rn _) Hn) as (r & Dr & ->).
    apply Hh. simpl. eauto.
  - (* J f · S *)
    destruct Hn as [Hn|Hn]; [|contradiction]. destruct Hv as [_ Va].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    inv Ht. eapply IHa; try eassumption; [apply flat_fq, Hq|left; exact Hn].
  - (* a dual map *)
    destruct Hv as [Hh [Vs Vq]]. split; [exact Vs|split; [|exact Hh]].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    inv Ht. eapply IHq; [eassumption|tauto| |exact Vq].
    destruct Hn as [Hn|Hn]; simpl in Hn; [|right; exact Hn].
    destruct Hn; [left|right]; assumption.
  - (* a pullback *)
    destruct Hv as [_ [Hc Vw]]. split; [exact Hc|].
    apply fq_cases in Hq. destruct Hq as [Hq|[Hq|Hq]]; simpl in Hq; try contradiction.
    destruct Hn as [Hn|Hn]; [|contradiction].
    inv Ht. eapply IHw; [eassumption|apply form_fq; tauto|left; simpl in Hn; tauto|exact Vw].
  - (* a sum *) destruct Hn as [Hn|Hn]; contradiction.
  - (* let *) destruct Hv as [_ []].
Qed.

(** ** Progress, type safety, normalization to a syntactic value *)

(** Informal proof: [fq_norm] reduces [t] to a normal form; if that takes
    no step, [t] is a normal form, hence a syntactic value
    ([fo_value_svalue]); otherwise [t] steps. *)
Lemma fo_progress t A : typed [] t A -> fq t -> nzq t -> svalue t \/ exists t', step t t'.
Proof.
  intros Ht Hq Hn. destruct (fq_norm t Hq) as (v & Hs & Hv & _).
  destruct Hs as [t|t t' v H _]; [left; exact (fo_value_svalue t A Ht Hq Hn Hv)|right; eauto].
Qed.

Section closed2.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

(** Type safety: every term a closed well-typed term of the fragment
    without [0] or sums reduces to is a syntactic value or steps (the
    type by [steps_typed], the fragment by [fq_steps], the premise by
    [nzq_steps]). *)
Lemma fo_safety t u A :
  typed [] t A -> fq t -> nzq t -> steps t u -> svalue u \/ exists u', step u u'.
Proof.
  intros Ht Hq Hn Hs. apply (fo_progress u A).
  - eapply steps_typed; eassumption.
  - eapply fq_steps; eassumption.
  - eapply nzq_steps; eassumption.
Qed.

(** Normalization to a syntactic value (Corollary 5.2 with the values of
    the paper's grammar), computed without fuel by [fo_eval]. *)
Lemma fo_svalue_norm t A : typed [] t A -> fq t -> nzq t ->
  exists u, steps t u /\ svalue u /\ typed [] u A /\ fo_eval t = Some u.
Proof.
  intros Ht Hq Hn. destruct (fo_eval_complete t Hq) as [u Hu].
  destruct (fo_eval_sound t u Hu) as [Hs Hv].
  exists u. split; [exact Hs|]. split; [|split; [eapply steps_typed; eassumption|exact Hu]].
  eapply fo_value_svalue; [eapply steps_typed; eassumption|eapply fq_steps; eassumption|
                           eapply nzq_steps; eassumption|exact Hv].
Qed.
End closed2.

(** ** First-order queries *)

(** The queries [((Ω λy.P) · (λx.e* )) r0] with no [0] and no sum in the
    body [P], a tuple of scalars [r0] and a covector [e]. *)
Definition fo_grad_query (P : tm) (e r0 : num scalar) : tm := App (Pb P (Lam (NDual e))) (num_tm r0).

Lemma fo_grad_query_fq P e r0 : fo_body P -> fq (fo_grad_query P e r0).
Proof.
  intros HP. apply fo_query_fq. exists P, (Lam (NDual e)), (num_tm r0).
  split; [reflexivity|]. split; [exact HP|]. split; [simpl; exact I|apply flat_num].
Qed.

Lemma fo_grad_query_nzq P e r0 : nzp P -> dense r0 -> nzq (fo_grad_query P e r0).
Proof.
  intros HP Hr. left. simpl. split; [split; [exact HP|left; exact I]|apply nzs_num, Hr].
Qed.

(** Canonical forms of the dual type: a closed syntactic value of type
    [σ*] of the fragment without [0] or sums is a numeric dual, a [0] on
    the spine of dual maps, or a dual map [(λv.S)* · Q] that is not a
    redex; the last two are the cases where a query does not end in
    [r*]. *)
Lemma canon_dual_fo t σ : svalue t -> typed [] t (TDual σ) -> nzq t ->
  (exists r, t = NDual r) \/ zsp0 t \/ (exists s q, t = Dual s q /\ ~ zsp0 q /\ ~ head_redex t).
Proof.
  intros Hv Ht Hn. destruct t; simpl in Hv; try contradiction; try (inv Ht; fail).
  - (* a dual map *)
    destruct (zsp0_dec t2) as [Hz|Hz]; [right; left; exact Hz|].
    right; right. exists t1, t2. tauto.
  - left. eauto.
  - right; left. exact I.
  - destruct Hn as [Hn|Hn]; contradiction.
Qed.

End fo_progress.

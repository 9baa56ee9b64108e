(** * Normalization of the first-order fragment (Corollary 5.2)

    Every term of the fragment [fq] of [fo.v] (in particular every
    first-order query [((Ω λy.P) · ω) V], [fo_query]) reduces to a value
    ([fq_norm], [fo_query_norm]); since [step] is deterministic, every
    reduction sequence from it is finite ([fq_sn]).  No typing is needed:
    the fragment is first-order by its syntax.  The proof follows the
    call-by-value strategy, phase by phase, with a measure only where a
    substitution makes a term larger:
    - [flat] terms ([flat_norm]): by induction on the number of [let]s,
      then on the term (a [let] of a value substitutes a value, which has
      no [let], so the count drops; every other step is in a subterm or
      removes a projection, a function symbol or a Jacobian);
    - a dual map whose body and argument are values ([dual_head]): (5⁺)
      gives a numeric dual, (6) a dual map whose argument is not a dual
      map, so at most one more (5⁺);
    - a 1-form ([form_norm]): the body is A-normalised ([anf_exists];
      A-steps keep [fob], [astep_fob]), then (7) and (8) unfold the let
      series into a chain [(Ω λy.E1) · ((Ω λy.⟨y,E2⟩) · …)] (by induction
      on the number of [let]s, which (8) keeps in its inner pullback and
      lowers by one);
    - a chain applied to a point ([chain_app_norm]): by induction on the
      chain; every first-order elementary body has a rule (9, 10a and its
      mirror, 11, 12, 13a-c, 15, 20a whose premise is one of these, 20b;
      [pb_elem_step], [pb_pair_premise]), the point of the next
      pullback is a [flat] term, and the dual map in front of the rest is
      a [dual_head].
    The normaliser [fo_normalize] needs no fuel: it searches the fuel of
    [eval_fn] by well-founded recursion ([ConstructiveEpsilon]), whose
    termination is the normalization theorem. *)
From Coq Require Import ConstructiveEpsilon.
From Pullback Require Import syntax typing anf anf_termination backprop reduction preservation
  progress decide step_fn reverse_phase fo.

Section norm_fo.
Context {Σ : signature}.

(** ** Auxiliary lemmas on the syntax *)

Lemma not_head t : head_redexb t = false -> ~ head_redex t.
Proof. intros E H. apply head_redexb_spec in H. congruence. Qed.

Lemma steps_one t t' : step t t' -> steps t t'.
Proof. intros H. econstructor; [exact H|constructor]. Qed.

Lemma steps_snoc t t' t'' : steps t t' -> step t' t'' -> steps t t''.
Proof. intros H1 H2. eapply steps_trans; [exact H1|apply steps_one, H2]. Qed.

Lemma ren_num_inv ρ t r : ren ρ t = num_tm r -> t = num_tm r.
Proof.
  revert t. induction r as [x|a IHa b IHb|]; intros t H; destruct t; simpl in H; try discriminate.
  - exact H.
  - injection H as H1 H2. simpl. f_equal; auto.
  - reflexivity.
Qed.

(** A renamed first-order value is a value. *)
Lemma value_ren_flat ρ v : flat v -> value v -> value (ren ρ v).
Proof.
  induction v as [n|s|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros Hf [Hn Hv]; try contradiction.
  - split; [intros []|exact I].
  - split; [|split; [apply IHa; tauto|apply IHb; tauto]].
    intros H. apply Hn. destruct a; simpl in H, Hf |- *; try exact H; try tauto.
    destruct H as (r & r' & Hd & Hd' & E1 & E2).
    exists r, r'. repeat split; auto; eapply ren_num_inv; eassumption.
  - split; [|apply IHa; tauto].
    intros H. apply Hn. destruct a; simpl in H |- *; tauto.
  - split; [intros []|split; [apply IHa; tauto|apply IHb; tauto]].
  - split; [intros []|exact I].
  - split; [|apply IHa; tauto].
    intros (r & Hd & E). apply Hn. exists r. split; [exact Hd|eapply ren_num_inv; eassumption].
  - split; [intros []|apply IHa; tauto].
  - split; [intros []|exact I].
  - split; [intros []|exact I].
  - split; [intros []|split; [apply IHa; tauto|apply IHb; tauto]].
Qed.

Lemma ren_ren ρ τ t : ren ρ (ren τ t) = ren (fun n => ρ (τ n)) t.
Proof.
  assert (Hext : forall t ρ1 ρ2, (forall n, ρ1 n = ρ2 n) -> ren ρ1 t = ren ρ2 t).
  { induction t0; intros ρ1 ρ2 H; simpl; f_equal; auto;
      match goal with IH : forall ρ1 ρ2, _ -> ren ρ1 ?u = ren ρ2 ?u |- ren _ ?u = ren _ ?u =>
        apply IH; intros [|n]; simpl; auto end. }
  revert ρ τ. induction t; intros ρ τ; simpl; f_equal; auto;
    match goal with IH : forall ρ τ, ren ρ (ren τ ?u) = _ |- ren _ (ren _ ?u) = _ =>
      rewrite IH; apply Hext; intros [|n]; reflexivity end.
Qed.

Lemma ren_upS_yp p : ren (up_ren S) (yp p) = yp p.
Proof. unfold yp. rewrite ren_ppath. reflexivity. Qed.

Lemma atom_subst σ a : atom a -> (forall n, atom (σ n)) -> atom (subst σ a).
Proof. intros Ha Hσ. induction Ha; simpl; [apply Hσ|constructor; auto]. Qed.

Lemma atom_nlets a : atom a -> nlets a = 0.
Proof. induction 1; simpl; auto. Qed.

Lemma atom_fob a : atom a -> fob a.
Proof. induction 1; simpl; auto. Qed.

Lemma nlets_wf_let t : nlets t = 0 -> wf_let t.
Proof.
  induction t; simpl; intros H; try discriminate; try exact I; try (apply IHt; exact H);
    (split; [apply IHt1|apply IHt2]; lia).
Qed.

(** ** Flat terms *)

Lemma flat_norm_lt n : forall t, nlets t < n -> flat t -> exists v, steps t v /\ value v /\ flat v.
Proof.
  induction n as [|n IHn]; intros t; [intros Hn; lia|].
  induction t as [k|s|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros Hn Hf; try contradiction.
  - (* variable *) exists (Var k). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* application *)
    destruct (IHa ltac:(lia) (proj1 Hf)) as (va & Ha & Hva & Hfa).
    destruct (IHb ltac:(lia) (proj2 Hf)) as (vb & Hb & Hvb & Hfb).
    assert (Hs : steps (App a b) (App va vb)).
    { eapply steps_trans; [apply (steps_ctx (EAppL b)); [exact I|exact Ha]|].
      apply (steps_ctx (EAppR va)); [exact Hva|exact Hb]. }
    destruct (head_redexb (App va vb)) eqn:E.
    + apply head_redexb_spec in E. destruct va; simpl in E, Hfa; try contradiction.
      (* (4) *)
      destruct E as (r & r' & Hd & Hd' & -> & ->).
      exists (num_tm (fjac f r' r)). split; [eapply steps_snoc; [exact Hs|apply step_jac; assumption]|].
      split; [apply value_num|apply flat_num].
    + exists (App va vb). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|tauto]|simpl; tauto].
  - (* projection *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    assert (Hs : steps (Proj i a) (Proj i va)) by (apply (steps_ctx (EProj i)); [exact I|exact Ha]).
    destruct (head_redexb (Proj i va)) eqn:E.
    + apply head_redexb_spec in E. destruct va as [| | | |v1 v2| | | | | | | | |]; simpl in E; try contradiction.
      (* (2) *)
      cbn [value] in Hva. simpl in Hfa. destruct Hva as [_ [Hv1 Hv2]]. destruct i.
      * exists v2. split; [eapply steps_snoc; [exact Hs|apply step_proj2; assumption]|tauto].
      * exists v1. split; [eapply steps_snoc; [exact Hs|apply step_proj1; assumption]|tauto].
    + exists (Proj i va). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|exact Hva]|exact Hfa].
  - (* pair *)
    destruct (IHa ltac:(lia) (proj1 Hf)) as (va & Ha & Hva & Hfa).
    destruct (IHb ltac:(lia) (proj2 Hf)) as (vb & Hb & Hvb & Hfb).
    exists (Pair va vb). split.
    + eapply steps_trans; [apply (steps_ctx (EPairL b)); [exact I|exact Ha]|].
      apply (steps_ctx (EPairR va)); [exact Hva|exact Hb].
    + split; [split; [intros []|tauto]|simpl; tauto].
  - (* scalar *) exists (Real r). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* function symbol *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    assert (Hs : steps (Fun f a) (Fun f va)) by (apply (steps_ctx (EFun f)); [exact I|exact Ha]).
    destruct (head_redexb (Fun f va)) eqn:E.
    + (* (3) *)
      apply head_redexb_spec in E. destruct E as (r & Hd & ->).
      exists (num_tm (fsem f r)). split; [eapply steps_snoc; [exact Hs|apply step_fun; assumption]|].
      split; [apply value_num|apply flat_num].
    + exists (Fun f va). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|exact Hva]|exact Hfa].
  - (* Jacobian *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    exists (Jac f va). split; [apply (steps_ctx (EJac f)); [exact I|exact Ha]|].
    split; [split; [intros []|exact Hva]|exact Hfa].
  - (* numeric dual *) exists (NDual r). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* 0 *) exists Zero. split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* sum *)
    destruct (IHa ltac:(lia) (proj1 Hf)) as (va & Ha & Hva & Hfa).
    destruct (IHb ltac:(lia) (proj2 Hf)) as (vb & Hb & Hvb & Hfb).
    exists (Plus va vb). split.
    + eapply steps_trans; [apply (steps_ctx (EPlusL b)); [exact I|exact Ha]|].
      apply (steps_ctx (EPlusR va)); [exact Hva|exact Hb].
    + split; [split; [intros []|tauto]|simpl; tauto].
  - (* let *)
    destruct (IHe ltac:(lia) (proj1 Hf)) as (ve & He & Hve & Hfe).
    assert (Hl : nlets (subst1 ve l) < n).
    { unfold subst1. rewrite nlets_subst; [lia|].
      intros [|m]; simpl; [apply value_nlets; assumption|reflexivity]. }
    assert (Hfl : flat (subst1 ve l)).
    { apply flat_subst; [intros [|m]; simpl; auto|tauto]. }
    destruct (IHn _ Hl Hfl) as (v & Hs & Hv & Hfv).
    exists v. split; [|tauto].
    eapply steps_trans; [apply (steps_ctx (ELet l)); [exact I|exact He]|].
    econstructor; [apply step_let; exact Hve|exact Hs].
Qed.

Lemma flat_norm t : flat t -> exists v, steps t v /\ value v /\ flat v.
Proof. apply (flat_norm_lt (S (nlets t))). lia. Qed.

End norm_fo.

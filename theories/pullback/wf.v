(** * Well-formed terms: the pullback bodies the paper's theorems speak of

    The checker of [pullback-eval] accepts a term when it is well typed
    ([infer.v]) and well formed ([wf_tm]): in the body of every pullback
    [(Ω λy.P) · S], wherever it occurs (under a λ and in a dual map's body
    too),
    - every [let] is part of a let series ([wf_let], the hypothesis of
      Lemma B.1): Fig. 1 has no [let]; the lets the reductions meet are the
      let series A-normalisation produces (§4), and a written [let]
      elsewhere is the sugar [(λz.L) E] (docs/decisions.md, "Well-formed
      pullback bodies");
    - no Jacobian is applied, [(J f · S) P] ([jac_app_free]): once
      A-normalised and moved into the point by (8) the application is
      [y^p y^q] with [V^p = J f · r], the value 2 of Remark 3.6 (rule 19
      asks for an abstraction), and its derivative in the point would need
      the second derivative of [f], which the signature does not give.

    [wf_tmb] decides [wf_tm] ([wf_tmb_spec]); [wf_letb] and
    [jac_app_freeb] decide the two conditions one by one, so the driver
    names the one that fails.  A well-formed term satisfies [pb_wf], the
    hypothesis of [progress] ([wf_tm_pb_wf]).

    What reduction does to the judgment: A-steps keep [wf_let]
    ([astep_wf_let], anf.v); β does not keep [wf_tm] when it substitutes a
    value into a pullback's body under a λ ([wf_beta_let], [wf_beta_jac]:
    closed, well-typed, well-formed terms whose one step is not well
    formed).  Those are higher-order terms (the pullback sits under a λ). *)
From Coq Require Import Setoid.
From Pullback Require Import syntax typing anf backprop reduction progress decide.

Section wf.
Context {Σ : signature}.

(** ** The judgment *)

Definition is_jac (t : tm) : bool := match t with Jac _ _ => true | _ => false end.

(** No subterm of [t] is a Jacobian applied, [(J f · S) P]. *)
Fixpoint jac_app_free (t : tm) : Prop :=
  match t with
  | App a b => is_jac a = false /\ jac_app_free a /\ jac_app_free b
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => jac_app_free s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => jac_app_free a /\ jac_app_free b
  end.

(** The body of every pullback of [t] has only let series as lets. *)
Fixpoint pb_lets_ok (t : tm) : Prop :=
  match t with
  | Pb p s => wf_let p /\ pb_lets_ok p /\ pb_lets_ok s
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_lets_ok s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_lets_ok a /\ pb_lets_ok b
  end.

(** The body of every pullback of [t] applies no Jacobian. *)
Fixpoint pb_jac_ok (t : tm) : Prop :=
  match t with
  | Pb p s => jac_app_free p /\ pb_jac_ok s
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_jac_ok s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_jac_ok a /\ pb_jac_ok b
  end.

Definition wf_tm (t : tm) : Prop := pb_lets_ok t /\ pb_jac_ok t.

(** ** Deciders *)
Fixpoint wf_letb (t : tm) : bool :=
  match t with
  | Let e l => is_lets (Let e l)
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => wf_letb s
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b => wf_letb a && wf_letb b
  end.

Fixpoint jac_app_freeb (t : tm) : bool :=
  match t with
  | App a b => negb (is_jac a) && jac_app_freeb a && jac_app_freeb b
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => jac_app_freeb s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => jac_app_freeb a && jac_app_freeb b
  end.

Fixpoint pb_lets_okb (t : tm) : bool :=
  match t with
  | Pb p s => wf_letb p && pb_lets_okb p && pb_lets_okb s
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_lets_okb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_lets_okb a && pb_lets_okb b
  end.

Fixpoint pb_jac_okb (t : tm) : bool :=
  match t with
  | Pb p s => jac_app_freeb p && pb_jac_okb s
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_jac_okb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_jac_okb a && pb_jac_okb b
  end.

Definition wf_tmb (t : tm) : bool := pb_lets_okb t && pb_jac_okb t.

Ltac bspec :=
  repeat match goal with
         | |- context [ (_ && _) = true ] => rewrite Bool.andb_true_iff
         | IH : _ = true <-> _ |- _ => rewrite IH; clear IH
         end.

Lemma wf_letb_spec t : wf_letb t = true <-> wf_let t.
Proof.
  induction t; simpl; bspec; try tauto.
  apply is_lets_spec.
Qed.

Lemma jac_app_freeb_spec t : jac_app_freeb t = true <-> jac_app_free t.
Proof.
  induction t; simpl; bspec; try tauto.
  rewrite Bool.negb_true_iff. tauto.
Qed.

Lemma pb_lets_okb_spec t : pb_lets_okb t = true <-> pb_lets_ok t.
Proof.
  induction t; simpl; bspec; try tauto.
  rewrite wf_letb_spec. tauto.
Qed.

Lemma pb_jac_okb_spec t : pb_jac_okb t = true <-> pb_jac_ok t.
Proof.
  induction t; simpl; bspec; try tauto.
  rewrite jac_app_freeb_spec. tauto.
Qed.

Lemma wf_tmb_spec t : wf_tmb t = true <-> wf_tm t.
Proof.
  unfold wf_tmb, wf_tm. rewrite Bool.andb_true_iff, pb_lets_okb_spec, pb_jac_okb_spec. tauto.
Qed.

(** ** A well-formed term satisfies the hypothesis of [progress] *)
Lemma wf_tm_pb_wf t : wf_tm t -> pb_wf t.
Proof.
  intros [Hl _]. induction t; simpl in *; tauto.
Qed.

(** ** Reduction does not keep the judgment

    β substitutes a value into a pullback's body under a λ: a pair into a
    let series (whose bound term is then no longer elementary), a Jacobian
    into a function position.  Both terms are closed and well typed. *)
Section counterexamples.
Variables (r : scalar) (f : fsym).

(** [(λx:R×R. (Ω λy:R. let z = x in z) · (λu:R×R. ⟨0, 0⟩ ∗)) ⟨r, r⟩] *)
Definition beta_let : tm :=
  App (Lam (Pb (Let (Var 1) (Var 0)) (Lam (NDual NZ)))) (Pair (Real r) (Real r)).

(** [(λg:R^n ⇒ R^m. (Ω λy:R^n. g y) · ω) (J f · 0)] with [ω] the
    1-form [λu:R^m. 0]. *)
Definition beta_jac : tm :=
  App (Lam (Pb (App (Var 1) (Var 0)) (Lam Zero))) (Jac f Zero).

Lemma beta_let_typed : typed [] beta_let (TOmega TR).
Proof.
  unfold beta_let, TOmega. eapply (typed_app _ _ _ (TProd TR TR)).
  - econstructor. eapply (typed_pb _ _ _ _ (TProd TR TR)).
    + econstructor; econstructor; reflexivity.
    + econstructor. econstructor. constructor.
  - repeat econstructor.
Qed.

Lemma beta_jac_typed : typed [] beta_jac (TOmega (Rn (fdom f))).
Proof.
  unfold beta_jac, TOmega. eapply typed_app.
  - econstructor. eapply (typed_pb _ _ _ _ (Rn (fcod f))).
    + eapply typed_app; econstructor; reflexivity.
    + econstructor. constructor.
  - econstructor. constructor.
Qed.

Lemma wf_beta_let : wf_tm beta_let /\ exists t', step beta_let t' /\ ~ wf_tm t'.
Proof.
  split.
  - unfold beta_let, wf_tm. simpl. repeat split; auto; repeat constructor.
  - eexists. split.
    + apply step_beta. simpl. tauto.
    + unfold wf_tm, subst1. simpl. intros [[Hl _] _].
      inversion Hl as [e He|e l He Hl']; subst.
      * inversion He; subst; match goal with H : atom _ |- _ => inversion H end.
      * inversion Hl'.
Qed.

Lemma wf_beta_jac : wf_tm beta_jac /\ exists t', step beta_jac t' /\ ~ wf_tm t'.
Proof.
  split.
  - unfold beta_jac, wf_tm. simpl. tauto.
  - eexists. split.
    + apply step_beta. simpl. tauto.
    + unfold wf_tm, subst1. simpl. intros [_ [[H _] _]]. discriminate H.
Qed.
End counterexamples.

End wf.

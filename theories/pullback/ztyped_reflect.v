(** * The checkers reflect the annotated typings

    [zcheck_sound] and [zinfer_sound] (ztyped_infer.v) speak of the erased
    term: [ztyped Γ (erase a) A].  Here the checker of the typed premise
    is related to [aztyped] (ztyped_complete.v), the typing of the
    annotated term itself, whose binders must carry the types of their
    variables; and [infer.v]'s checker to [atyped] (infer_complete.v)
    alike.

    - Sound on every annotated term, without premise: [zcheck_aztyped],
      [zinfer_aztyped] ([check_atyped], [infer_atyped]).
    - [zcheck_reflect]: on the fragment [chk] the annotations determine,
      [reflect (aztyped Γ a A) (zcheck Γ a A)]; [zinfer_iff]: on [syn],
      [zinfer Γ a = Some A <-> aztyped Γ a A], and the type is unique
      ([aztyped_syn_unique]); [zinfer_none]: [None] means no type.
      The same for [check] and [infer] ([check_reflect], [infer_iff]).

    Why the premise [chk (erase a)]: soundness needs none, but the checker
    does not search all types for a term whose type nothing in it states.
    [let z = 0 in ⟨(λx:R. x)* · z, r⟩] is [aztyped] at [R* × R] ([z : R*]),
    and [zcheck] refuses it: the bound [0] has no inferred type, and
    [R*] is none of the candidates [zcheck] tries for [z] (the guess [R],
    [R], [R²], the expected [R* × R], the binder type [R]); the term is
    not [chk] ([zcheck_reflect_needs_chk]).  So the reflection fails
    without a premise, and [chk] is the premise of the completeness
    theorems ([zcheck_complete]) it comes from. *)
From Pullback Require Import syntax typing decide infer infer_complete ztyped ztyped_infer ztyped_complete.

Section ztyped_reflect.
Context {Σ : signature}.

#[local] Arguments ty_eq_dec : simpl never.
#[local] Arguments first_ok : simpl never.
#[local] Arguments let_candidates : simpl never.

Lemma tc_unfold Γ a exp : tc Γ a exp = tc_step false tc tc Γ a exp.
Proof. destruct a; reflexivity. Qed.

(** The checker's answer on one term, the tests it made taken apart: each
    [match] the answer [H] depends on is split, the failing branches
    dropped, the tests decided ([linb], [num_tyb], [num_shape], a
    [let]-bound type's candidate), the answers of the parts read by their
    soundness (an induction hypothesis, or a lemma [L] in the context for
    a dual map's body) with their types equated. *)
Ltac split_answer :=
  repeat first
    [ discriminate
    | match goal with
      | H : Some _ = Some _ |- _ => injection H as H; subst
      | H : linb is0b _ = true |- _ => apply lin_is0_of in H
      | H : num_tyb _ _ = true |- _ => apply num_tyb_sound in H
      | H : num_shape _ = Some _ |- _ => apply num_shape_sound in H
      | H : first_ok _ _ = Some _ |- _ => apply first_ok_some in H as [? H]
      | IH : forall (Γ : list ty) (exp : option ty) (B : ty), ?c Γ ?s exp = Some B -> _,
        E : ?c ?G ?s ?e = Some ?B |- _ =>
          let Hr := fresh "Hr" in let He := fresh "He" in
          destruct (IH G e B E) as [Hr He]; clear E; try specialize (He _ eq_refl); subst
      | L : forall (a : atm) (Γ : list ty) (exp : option ty) (B : ty), ?c Γ a exp = Some B -> _,
        E : ?c ?G ?s ?e = Some ?B |- _ =>
          let Hr := fresh "Hr" in let He := fresh "He" in
          destruct (L s G e B E) as [Hr He]; clear E; try specialize (He _ eq_refl); subst
      | H : context [match ?x with _ => _ end] |- _ => destruct x eqn:?
      | |- context [match ?x with _ => _ end] => destruct x
      end ].

(** [tc] answers only types that [atyped] gives the annotated term. *)
Lemma tc_asound a : forall Γ exp B,
  tc Γ a exp = Some B -> atyped Γ a B /\ (forall A, exp = Some A -> B = A).
Proof.
  induction a; intros Γ exp B H; rewrite tc_unfold in H; cbn in H;
    destruct exp as [A0|]; split_answer.
  all: split; [econstructor; eauto|intros ? E; inversion E; subst; reflexivity].
Qed.

(** [ztc] answers only types that [aztyped] gives the annotated term (a
    dual map's body by [tc_asound]). *)
Lemma ztc_asound a : forall Γ exp B,
  ztc Γ a exp = Some B -> aztyped Γ a B /\ (forall A, exp = Some A -> B = A).
Proof.
  pose proof tc_asound as L.
  induction a; intros Γ exp B H; rewrite ztc_unfold in H; cbn in H;
    destruct exp as [A0|]; split_answer.
  all: split; [econstructor; eauto|intros ? E; inversion E; subst; reflexivity].
Qed.

(** ** Soundness on annotated terms, without premise *)

(** A checker sound for [R] answer by answer, in checking mode as a
    boolean ([checked_sound], infer.v, for relations on annotated terms). *)
Lemma checked_asound (c : list ty -> atm -> option ty -> option ty) (R : list ty -> atm -> ty -> Prop) :
  (forall a Γ exp B, c Γ a exp = Some B -> R Γ a B /\ (forall A, exp = Some A -> B = A)) ->
  forall Γ a A, match c Γ a (Some A) with Some _ => true | None => false end = true -> R Γ a A.
Proof.
  intros Hc Γ a A. destruct (c Γ a (Some A)) as [B|] eqn:E; [intros _|discriminate].
  destruct (Hc a Γ (Some A) B E) as [H He]. rewrite <- (He A eq_refl). exact H.
Qed.

Theorem zinfer_aztyped Γ a A : zinfer Γ a = Some A -> aztyped Γ a A.
Proof. intros H. exact (proj1 (ztc_asound a Γ None A H)). Qed.

Theorem zcheck_aztyped Γ a A : zcheck Γ a A = true -> aztyped Γ a A.
Proof. exact (checked_asound ztc aztyped ztc_asound Γ a A). Qed.

Theorem infer_atyped Γ a A : infer Γ a = Some A -> atyped Γ a A.
Proof. intros H. exact (proj1 (tc_asound a Γ None A H)). Qed.

Theorem check_atyped Γ a A : check Γ a A = true -> atyped Γ a A.
Proof. exact (checked_asound tc atyped tc_asound Γ a A). Qed.

(** ** Reflection on the fragment the annotations determine *)

(** [zcheck] decides [aztyped] on [chk] terms. *)
Theorem zcheck_reflect Γ a A : chk (erase a) -> reflect (aztyped Γ a A) (zcheck Γ a A).
Proof.
  intros Hc. apply Bool.iff_reflect. split; [intros H; exact (zcheck_complete Γ a A H Hc)|apply zcheck_aztyped].
Qed.

(** The type of an [aztyped] [syn] term is unique. *)
Theorem aztyped_syn_unique Γ a A B : syn (erase a) -> aztyped Γ a A -> aztyped Γ a B -> A = B.
Proof.
  intros Hs HA HB. pose proof (zinfer_complete Γ a A HA Hs) as EA.
  rewrite (zinfer_complete Γ a B HB Hs) in EA. injection EA as ->. reflexivity.
Qed.

(** [zinfer] finds exactly the type of a [syn] term, ... *)
Theorem zinfer_iff Γ a A : syn (erase a) -> zinfer Γ a = Some A <-> aztyped Γ a A.
Proof. intros Hs. split; [apply zinfer_aztyped|intros H; exact (zinfer_complete Γ a A H Hs)]. Qed.

(** ... and answers [None] exactly when it has none. *)
Theorem zinfer_none Γ a : syn (erase a) -> zinfer Γ a = None <-> forall A, ~ aztyped Γ a A.
Proof.
  intros Hs. split.
  - intros E A H. rewrite (zinfer_complete Γ a A H Hs) in E. discriminate.
  - intros Hn. destruct (zinfer Γ a) as [A|] eqn:E; [|reflexivity].
    exfalso. exact (Hn A (zinfer_aztyped Γ a A E)).
Qed.

(** The same for [infer.v]'s checker and [atyped]. *)
Theorem check_reflect Γ a A : chk (erase a) -> reflect (atyped Γ a A) (check Γ a A).
Proof.
  intros Hc. apply Bool.iff_reflect. split; [intros H; exact (check_complete Γ a A H Hc)|apply check_atyped].
Qed.

Theorem infer_iff Γ a A : syn (erase a) -> infer Γ a = Some A <-> atyped Γ a A.
Proof. intros Hs. split; [apply infer_atyped|intros H; exact (infer_complete Γ a A H Hs)]. Qed.

(** ** The premise is needed *)

(** [let z = 0 in ⟨(λx:R. x)* · z, r⟩] at [R* × R]: [aztyped] with
    [z : R*], refused by [zcheck] (no candidate type of [z] is dual), not
    [chk]. *)
Example zcheck_reflect_needs_chk r :
  let a := XLet XZero (XPair (XDual TR (XVar 0) (XVar 0)) (XReal r)) in
  aztyped [] a (TProd (TDual TR) TR) /\ zcheck [] a (TProd (TDual TR) TR) = false /\ ~ chk (erase a).
Proof.
  cbn zeta. split; [|split; [reflexivity|]].
  - apply aztyped_let with (σ := TDual TR); [constructor|].
    econstructor; [econstructor|constructor].
    + constructor. reflexivity.
    + constructor. reflexivity.
    + apply lin_is0_of. reflexivity.
  - cbn. intros H. inversion H as [t Hs| | | | | |e l He _]; subst; [inversion Hs; subst|];
      match goal with H' : syn Zero |- _ => inversion H' end.
Qed.

End ztyped_reflect.

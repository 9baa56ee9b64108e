(** * The type checker is complete

    [infer_sound] and [check_sound] ([infer.v]) say that the checker
    accepts only typed terms.  This file proves the converse on the terms
    whose types the checker's annotations determine.

    - [atyped Γ a A] is the typing relation [typed] read on annotated
      terms: the rules of Fig. 2 with the annotation of each binder
      ([λx:σ.S], [(λx:σ.S1)* · S2], [(Ω λx:σ.P) · S]) as the type of its
      variable.  It is [typed] of the erased term ([atyped_typed]), and
      every typed term has annotations under which it is [atyped]
      ([typed_annotated]: annotate each binder with the type its
      derivation gives the variable).
    - Not every typed term can be checked from its binder annotations: the
      typing rules leave some intermediate types free, types that no
      annotation of the surface syntax names, e.g. [π1(0)] (the second
      component of the pair), [0 P] (the argument's type), [(Ω λx:R. 0)·0]
      (the 1-form's type), [let z = 0 in π1(π1 z)] (the type of [z]).  The
      fragment the checker decides is given syntactically, bidirectionally:
      [syn t] (the type of [t] is determined by its context and its
      annotations: a variable, an application of a term of known type, a
      projection of one, [f(P)], [J f · S], [r*] without [0] entries, a dual
      map or pullback whose body or argument has a known type, a sum with a
      summand of known type, …) and [chk t] (the type is given from
      outside: also [0], every [r*], an abstraction, a pair or a sum of
      checkable terms, a [let] of a term of known type).
    - [infer_complete]: a [syn] term typed at [A] is inferred at [A]
      (hence its type is unique); [check_complete]: a [chk] term typed at
      [A] is checked at [A]; [typed_check]: a typed [chk] term has
      annotations with which [check] accepts it.

    The fragment is closed under the annotations the surface syntax
    requires (every binder annotated); a program outside it has a subterm
    whose type nothing in the program states. *)
From Pullback Require Import syntax typing decide infer.

Section infer_complete.
Context {Σ : signature}.

(** ** Typing of annotated terms *)
Inductive atyped : list ty -> atm -> ty -> Prop :=
| atyped_zero Γ σ : atyped Γ XZero σ
| atyped_plus Γ s p σ : atyped Γ s σ -> atyped Γ p σ -> atyped Γ (XPlus s p) σ
| atyped_var Γ n σ : nth_error Γ n = Some σ -> atyped Γ (XVar n) σ
(**
<<
     Γ ∪ {x:σ} ⊢ S : τ
    ──────────────────────  (abs)
     Γ ⊢ λx:σ.S : σ ⇒ τ
>> *)
| atyped_lam Γ s σ τ : atyped (σ :: Γ) s τ -> atyped Γ (XLam σ s) (TArr σ τ)
| atyped_app Γ s p σ τ : atyped Γ s (TArr σ τ) -> atyped Γ p σ -> atyped Γ (XApp s p) τ
| atyped_proj1 Γ s σ1 σ2 : atyped Γ s (TProd σ1 σ2) -> atyped Γ (XProj false s) σ1
| atyped_proj2 Γ s σ1 σ2 : atyped Γ s (TProd σ1 σ2) -> atyped Γ (XProj true s) σ2
| atyped_pair Γ s1 s2 σ1 σ2 :
    atyped Γ s1 σ1 -> atyped Γ s2 σ2 -> atyped Γ (XPair s1 s2) (TProd σ1 σ2)
| atyped_real Γ r : atyped Γ (XReal r) TR
| atyped_fun Γ f p : atyped Γ p (Rn (fdom f)) -> atyped Γ (XFun f p) (Rn (fcod f))
| atyped_jac Γ f s :
    atyped Γ s (Rn (fdom f)) -> atyped Γ (XJac f s) (TArr (Rn (fdom f)) (Rn (fcod f)))
| atyped_ndual Γ r σ : num_ty r σ -> atyped Γ (XNDual r) (TDual σ)
(**
<<
     Γ ∪ {x:σ} ⊢ S1 : τ    Γ ⊢ S2 : τ*    x ∈ lin(S1)
    ─────────────────────────────────────────────────  (dual)
               Γ ⊢ (λx:σ.S1)* · S2 : σ*
>> *)
| atyped_dual Γ s1 s2 σ τ :
    atyped (σ :: Γ) s1 τ -> atyped Γ s2 (TDual τ) -> lin is0 (erase s1) ->
    atyped Γ (XDual σ s1 s2) (TDual σ)
(**
<<
     Γ ∪ {x:σ} ⊢ P : τ    Γ ⊢ S : Ω τ
    ───────────────────────────────────  (pb)
        Γ ⊢ (Ω λx:σ.P) · S : Ω σ
>> *)
| atyped_pb Γ p s σ τ :
    atyped (σ :: Γ) p τ -> atyped Γ s (TOmega τ) -> atyped Γ (XPb σ p s) (TOmega σ)
| atyped_let Γ e l σ τ : atyped Γ e σ -> atyped (σ :: Γ) l τ -> atyped Γ (XLet e l) τ.

#[local] Hint Constructors atyped typed : core.

Lemma atyped_typed Γ a A : atyped Γ a A -> typed Γ (erase a) A.
Proof. induction 1; simpl; eauto. Qed.

(** Every typed term is the erasure of an annotated term typed alike. *)
Lemma typed_annotated Γ t A : typed Γ t A -> exists a, erase a = t /\ atyped Γ a A.
Proof.
  induction 1;
    try (destruct IHtyped as (a & <- & Ha));
    try (destruct IHtyped1 as (a1 & <- & Ha1); destruct IHtyped2 as (a2 & <- & Ha2)).
  - exists XZero. eauto.
  - exists (XPlus a1 a2). eauto.
  - exists (XVar n). eauto.
  - exists (XLam σ a). eauto.
  - exists (XApp a1 a2). eauto.
  - exists (XProj false a). eauto.
  - exists (XProj true a). eauto.
  - exists (XPair a1 a2). eauto.
  - exists (XReal r). eauto.
  - exists (XFun f a). eauto.
  - exists (XJac f a). eauto.
  - exists (XNDual r). eauto.
  - exists (XDual σ a1 a2). eauto.
  - exists (XPb σ a1 a2). eauto.
  - exists (XLet a1 a2). eauto.
Qed.

(** ** The fragment the annotations determine *)

(** Terms whose type [tc] never infers: [0], [r*] with [0] entries, and
    the terms built on them by abstraction, application, projection, pairs
    and sums. *)
Inductive noinf : tm -> Prop :=
| noinf_zero : noinf Zero
| noinf_ndual r : ~ dense r -> noinf (NDual r)
| noinf_lam s : noinf s -> noinf (Lam s)
| noinf_app s p : noinf s -> noinf (App s p)
| noinf_proj i s : noinf s -> noinf (Proj i s)
| noinf_pair_l s1 s2 : noinf s1 -> noinf (Pair s1 s2)
| noinf_pair_r s1 s2 : noinf s2 -> noinf (Pair s1 s2)
| noinf_plus s p : noinf s -> noinf p -> noinf (Plus s p).

(** [syn t]: the type of [t] is fixed by its context and annotations;
    [chk t]: [t] can be checked against a given type. *)
Inductive syn : tm -> Prop :=
| syn_var n : syn (Var n)
| syn_lam s : syn s -> syn (Lam s)
| syn_app s p : syn s -> chk p -> syn (App s p)
| syn_proj i s : syn s -> syn (Proj i s)
| syn_pair s1 s2 : syn s1 -> syn s2 -> syn (Pair s1 s2)
| syn_real r : syn (Real r)
| syn_fun f p : chk p -> syn (Fun f p)
| syn_jac f s : chk s -> syn (Jac f s)
| syn_dual s1 s2 : syn s1 -> chk s2 -> syn (Dual s1 s2)
| syn_dual_arg s1 s2 : noinf s1 -> syn s2 -> chk s1 -> syn (Dual s1 s2)
| syn_pb p s : syn p -> chk s -> syn (Pb p s)
| syn_pb_arg p s : noinf p -> syn s -> chk p -> syn (Pb p s)
| syn_ndual r : dense r -> syn (NDual r)
| syn_plus s p : syn s -> chk p -> syn (Plus s p)
| syn_plus_r s p : noinf s -> syn p -> chk s -> syn (Plus s p)
| syn_let e l : syn e -> syn l -> syn (Let e l)
with chk : tm -> Prop :=
| chk_syn t : syn t -> chk t
| chk_zero : chk Zero
| chk_ndual r : chk (NDual r)
| chk_lam s : chk s -> chk (Lam s)
| chk_pair s1 s2 : chk s1 -> chk s2 -> chk (Pair s1 s2)
| chk_plus s p : chk s -> chk p -> chk (Plus s p)
| chk_let e l : syn e -> chk l -> chk (Let e l).

(** ** Lemmas on the checker's parts *)
#[local] Arguments ty_eq_dec : simpl never.

Lemma num_shape_dense r σ : num_shape r = Some σ -> dense r.
Proof.
  revert σ. induction r as [x|a IHa b IHb|]; simpl; intros σ H; auto; try discriminate.
  destruct (num_shape a) as [A|] eqn:Ea; [|discriminate].
  destruct (num_shape b) as [B|] eqn:Eb; [|discriminate]. eauto.
Qed.

Lemma num_shape_complete r σ : num_ty r σ -> dense r -> num_shape r = Some σ.
Proof.
  induction 1; simpl; intros Hd; auto; [|contradiction].
  destruct Hd as [Ha Hb]. rewrite IHnum_ty1, IHnum_ty2 by assumption. reflexivity.
Qed.

Lemma num_tyb_complete r σ : num_ty r σ -> num_tyb r σ = true.
Proof.
  induction 1; simpl; auto. rewrite IHnum_ty1, IHnum_ty2. reflexivity.
Qed.

Lemma ty_eq_dec_refl {T} A (b c : T) : (if ty_eq_dec A A then b else c) = b.
Proof. destruct (ty_eq_dec A A) as [_|n]; [reflexivity|contradiction n; reflexivity]. Qed.

Lemma noinf_tc a : forall Γ, noinf (erase a) -> tc Γ a None = None.
Proof.
  induction a; intros Γ H; simpl in H |- *; inversion H; subst;
    repeat match goal with
    | IH : forall Γ, noinf (erase ?b) -> tc Γ ?b None = None, Hn : noinf (erase ?b) |- _ =>
        rewrite (IH _ Hn); clear IH
    end; auto.
  - destruct (tc Γ a1 None) as [[]|]; reflexivity.
  - destruct (num_shape r) as [σ|] eqn:E; [|reflexivity].
    exfalso. match goal with Hn : ~ dense r |- _ => exact (Hn (num_shape_dense r σ E)) end.
Qed.

(** [tc] in checking mode answers the expected type when it answers. *)
Notation tc_ok Γ a A := (tc Γ a (Some A) = Some A).

(** Informal proof: by induction on the annotated derivation, following
    [tc].  An annotation is the type the derivation gives its variable, so
    the abstraction, dual map and pullback rules find the context the
    induction hypotheses speak of; a term of [syn] is inferred at its type,
    so the type [tc] infers for a function, a pair, a body or a bound term
    is the derivation's and the other parts are checked against the types
    the derivation gives them; a [noinf] part is never inferred
    ([noinf_tc]), so [tc] turns to the other part, which is [syn]. *)
Lemma tc_complete Γ a A : atyped Γ a A ->
  (syn (erase a) -> tc Γ a None = Some A /\ tc_ok Γ a A) /\ (chk (erase a) -> tc_ok Γ a A).
Proof.
  induction 1 as [Γ σ|Γ s p σ Hs [IS1 IC1] Hp [IS2 IC2]|Γ n σ Hn|Γ s σ τ Hs [IS IC]
                 |Γ s p σ τ Hs [IS1 IC1] Hp [IS2 IC2]|Γ s σ1 σ2 Hs [IS IC]|Γ s σ1 σ2 Hs [IS IC]
                 |Γ s1 s2 σ1 σ2 H1 [IS1 IC1] H2 [IS2 IC2]|Γ r|Γ f p Hp [IS IC]|Γ f s Hs [IS IC]
                 |Γ r σ Hr|Γ s1 s2 σ τ H1 [IS1 IC1] H2 [IS2 IC2] Hl|Γ p s σ τ H1 [IS1 IC1] H2 [IS2 IC2]
                 |Γ e l σ τ He [IS1 IC1] Hl [IS2 IC2]].
  - (* atyped_zero *)
    split; intros H; [inversion H|reflexivity].
  - (* atyped_plus *)
    assert (S : syn (erase (XPlus s p)) -> tc Γ (XPlus s p) None = Some σ /\ tc_ok Γ (XPlus s p) σ).
    { intros H; cbn [erase] in H; inversion H; subst; simpl.
      - destruct (IS1 ltac:(assumption)) as [-> ->]. rewrite (IC2 ltac:(assumption)). auto.
      - rewrite (noinf_tc s Γ ltac:(assumption)).
        destruct (IS2 ltac:(assumption)) as [-> ->]. rewrite (IC1 ltac:(assumption)). auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst; [apply S; assumption|].
    simpl. rewrite (IC1 ltac:(assumption)), (IC2 ltac:(assumption)). reflexivity.
  - (* atyped_var *)
    assert (E : tc_ok Γ (XVar n) σ) by (simpl; rewrite Hn, ty_eq_dec_refl; reflexivity).
    split; [intros _; split; [simpl; rewrite Hn; reflexivity|exact E]|intros _; exact E].
  - (* atyped_lam *)
    assert (E : chk (erase s) -> tc_ok Γ (XLam σ s) (TArr σ τ)).
    { intros H. simpl. rewrite ty_eq_dec_refl, (IC H). reflexivity. }
    split.
    + intros H; cbn [erase] in H; inversion H; subst. split; [|apply E; constructor; assumption].
      simpl. rewrite (proj1 (IS ltac:(assumption))). reflexivity.
    + intros H; cbn [erase] in H; inversion H; subst; apply E; [|assumption].
      match goal with H' : syn (Lam _) |- _ => inversion H'; subst end. constructor. assumption.
  - (* atyped_app *)
    assert (S : syn (erase (XApp s p)) -> tc Γ (XApp s p) None = Some τ /\ tc_ok Γ (XApp s p) τ).
    { intros H; cbn [erase] in H; inversion H; subst; simpl.
      destruct (IS1 ltac:(assumption)) as [-> _]. rewrite (IC2 ltac:(assumption)).
      rewrite ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_proj1 *)
    assert (S : syn (erase (XProj false s)) -> tc Γ (XProj false s) None = Some σ1 /\ tc_ok Γ (XProj false s) σ1).
    { intros H; cbn [erase] in H; inversion H; subst; simpl.
      destruct (IS ltac:(assumption)) as [-> _]. rewrite ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_proj2 *)
    assert (S : syn (erase (XProj true s)) -> tc Γ (XProj true s) None = Some σ2 /\ tc_ok Γ (XProj true s) σ2).
    { intros H; cbn [erase] in H; inversion H; subst; simpl.
      destruct (IS ltac:(assumption)) as [-> _]. rewrite ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_pair *)
    assert (E : chk (erase s1) -> chk (erase s2) -> tc_ok Γ (XPair s1 s2) (TProd σ1 σ2)).
    { intros Hc1 Hc2. simpl. rewrite (IC1 Hc1), (IC2 Hc2). reflexivity. }
    split.
    + intros H; cbn [erase] in H; inversion H; subst. split; [|apply E; constructor; assumption].
      simpl. rewrite (proj1 (IS1 ltac:(assumption))), (proj1 (IS2 ltac:(assumption))). reflexivity.
    + intros H; cbn [erase] in H; inversion H; subst; [|apply E; assumption].
      match goal with H' : syn (Pair _ _) |- _ => inversion H'; subst end.
      apply E; constructor; assumption.
  - (* atyped_real *)
    split; [intros _; simpl; rewrite ?ty_eq_dec_refl; auto|intros _; simpl; rewrite ?ty_eq_dec_refl; auto].
  - (* atyped_fun *)
    assert (S : syn (erase (XFun f p)) -> tc Γ (XFun f p) None = Some (Rn (fcod f)) /\ tc_ok Γ (XFun f p) (Rn (fcod f))).
    { intros H; cbn [erase] in H; inversion H; subst; simpl. rewrite (IC ltac:(assumption)), ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_jac *)
    assert (S : syn (erase (XJac f s)) -> tc Γ (XJac f s) None = Some (TArr (Rn (fdom f)) (Rn (fcod f))) /\
                tc_ok Γ (XJac f s) (TArr (Rn (fdom f)) (Rn (fcod f)))).
    { intros H; cbn [erase] in H; inversion H; subst; simpl. rewrite (IC ltac:(assumption)), ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_ndual *)
    assert (E : tc_ok Γ (XNDual r) (TDual σ)) by (simpl; rewrite (num_tyb_complete r σ Hr); reflexivity).
    split; [|intros _; exact E].
    intros H; cbn [erase] in H; inversion H; subst. split; [|exact E].
    simpl. rewrite (num_shape_complete r σ Hr ltac:(assumption)). reflexivity.
  - (* atyped_dual *)
    assert (S : syn (erase (XDual σ s1 s2)) -> tc Γ (XDual σ s1 s2) None = Some (TDual σ) /\
                tc_ok Γ (XDual σ s1 s2) (TDual σ)).
    { intros H; cbn [erase] in H; simpl. rewrite (proj2 (linb_is0 (erase s1)) Hl).
      inversion H; subst.
      - destruct (IS1 ltac:(assumption)) as [-> _]. rewrite (IC2 ltac:(assumption)), ty_eq_dec_refl. auto.
      - rewrite (noinf_tc s1 (σ :: Γ) ltac:(assumption)).
        destruct (IS2 ltac:(assumption)) as [-> _]. rewrite (IC1 ltac:(assumption)), ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_pb *)
    assert (S : syn (erase (XPb σ p s)) -> tc Γ (XPb σ p s) None = Some (TOmega σ) /\
                tc_ok Γ (XPb σ p s) (TOmega σ)).
    { intros H; cbn [erase] in H; simpl. inversion H; subst.
      - destruct (IS1 ltac:(assumption)) as [-> _]. rewrite (IC2 ltac:(assumption)), ty_eq_dec_refl. auto.
      - rewrite (noinf_tc p (σ :: Γ) ltac:(assumption)).
        destruct (IS2 ltac:(assumption)) as [E _]. rewrite E. unfold TOmega at 1. simpl.
        rewrite ty_eq_dec_refl, (IC1 ltac:(assumption)), ?ty_eq_dec_refl. auto. }
    split; [exact S|]. intros H; cbn [erase] in H; inversion H; subst. apply S; assumption.
  - (* atyped_let *)
    split.
    + intros H; cbn [erase] in H; inversion H; subst. simpl. destruct (IS1 ltac:(assumption)) as [-> _].
      exact (IS2 ltac:(assumption)).
    + intros H; cbn [erase] in H; inversion H; subst; simpl.
      * match goal with H' : syn (Let _ _) |- _ => inversion H'; subst end.
        destruct (IS1 ltac:(assumption)) as [-> _]. exact (proj2 (IS2 ltac:(assumption))).
      * destruct (IS1 ltac:(assumption)) as [-> _]. exact (IC2 ltac:(assumption)).
Qed.

(** ** Completeness *)

(** [infer] finds the type of every typed [syn] term (so that type is
    unique). *)
Theorem infer_complete Γ a A : atyped Γ a A -> syn (erase a) -> infer Γ a = Some A.
Proof. intros Ht Hs. exact (proj1 (proj1 (tc_complete Γ a A Ht) Hs)). Qed.

(** [check] accepts every typed [chk] term at its type. *)
Theorem check_complete Γ a A : atyped Γ a A -> chk (erase a) -> check Γ a A = true.
Proof. intros Ht Hc. unfold check. rewrite (proj2 (tc_complete Γ a A Ht) Hc). reflexivity. Qed.

(** A typed term of the fragment, annotated with the types of its
    derivation's bound variables, is accepted by [check]. *)
Corollary typed_check Γ t A : typed Γ t A -> chk t -> exists a, erase a = t /\ check Γ a A = true.
Proof.
  intros Ht Hc. destruct (typed_annotated Γ t A Ht) as (a & <- & Ha).
  exists a. split; [reflexivity|]. exact (check_complete Γ a A Ha Hc).
Qed.

(** The type of a [syn] term is unique. *)
Corollary syn_type_unique Γ a A B : atyped Γ a A -> atyped Γ a B -> syn (erase a) -> A = B.
Proof.
  intros HA HB Hs. pose proof (infer_complete Γ a A HA Hs) as EA.
  rewrite (infer_complete Γ a B HB Hs) in EA. injection EA as ->. reflexivity.
Qed.

End infer_complete.

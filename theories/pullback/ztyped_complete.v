(** * The checker of the typed premise is complete

    [zinfer_sound] and [zcheck_sound] (ztyped_infer.v) say that [ztc]
    accepts only [ztyped] terms.  This file proves the converse on the
    fragment the annotations determine, the fragment of [infer_complete.v]
    ([syn], [chk]), so that on it [ztyped] is decided.

    - [aztyped Γ a A] is [ztyped] read on annotated terms, as [atyped]
      (infer_complete.v) is [typed]: the annotation of each binder is the
      type of its variable, [0] and sums stand only at dual types, and the
      body of a dual map is [atyped].  It is [ztyped] of the erased term
      ([aztyped_ztyped]), and every [ztyped] term has annotations under
      which it is [aztyped] ([ztyped_annotated]).
    - [zinfer_complete]: a [syn] term [aztyped] at [A] is inferred at [A];
      [zcheck_complete]: a [chk] term [aztyped] at [A] is checked at [A];
      [ztyped_zcheck]: a [ztyped] [chk] term has annotations with which
      [zcheck] accepts it; [zcheck_decides]: on [chk] terms, [ztyped Γ t A]
      holds exactly when some annotation of [t] passes [zcheck].
    - The dual map's body is checked by [tc]: its completeness is
      [infer_complete.v]'s [tc_complete]; the part of a dual map, a
      pullback or a sum that is never inferred ([noinf]) is never inferred
      by [ztc] either ([noinf_ztc]). *)
From Pullback Require Import syntax typing decide infer infer_complete ztyped ztyped_infer.

Section ztyped_complete.
Context {Σ : signature}.

(** ** Typing of annotated terms, with the restriction of [ztyped] *)
Inductive aztyped : list ty -> atm -> ty -> Prop :=
(**
<<
    ──────────────  (zero), at a dual type only
     Γ ⊢ 0 : σ*
>> *)
| aztyped_zero Γ σ : aztyped Γ XZero (TDual σ)
(**
<<
     Γ ⊢ S : σ*    Γ ⊢ P : σ*
    ───────────────────────────  (sum), at a dual type only
         Γ ⊢ S + P : σ*
>> *)
| aztyped_plus Γ s p σ :
    aztyped Γ s (TDual σ) -> aztyped Γ p (TDual σ) -> aztyped Γ (XPlus s p) (TDual σ)
(** variables and functions: the annotation of [λx:σ] is [x]'s type *)
| aztyped_var Γ n σ : nth_error Γ n = Some σ -> aztyped Γ (XVar n) σ
| aztyped_lam Γ s σ τ : aztyped (σ :: Γ) s τ -> aztyped Γ (XLam σ s) (TArr σ τ)
| aztyped_app Γ s p σ τ : aztyped Γ s (TArr σ τ) -> aztyped Γ p σ -> aztyped Γ (XApp s p) τ
(** pairs *)
| aztyped_proj1 Γ s σ1 σ2 : aztyped Γ s (TProd σ1 σ2) -> aztyped Γ (XProj false s) σ1
| aztyped_proj2 Γ s σ1 σ2 : aztyped Γ s (TProd σ1 σ2) -> aztyped Γ (XProj true s) σ2
| aztyped_pair Γ s1 s2 σ1 σ2 :
    aztyped Γ s1 σ1 -> aztyped Γ s2 σ2 -> aztyped Γ (XPair s1 s2) (TProd σ1 σ2)
(** scalars, primitive functions, their Jacobians, numeric duals *)
| aztyped_real Γ r : aztyped Γ (XReal r) TR
| aztyped_fun Γ f p : aztyped Γ p (Rn (fdom f)) -> aztyped Γ (XFun f p) (Rn (fcod f))
| aztyped_jac Γ f s : aztyped Γ s (Rn (fdom f)) -> aztyped Γ (XJac f s) (TArr (Rn (fdom f)) (Rn (fcod f)))
| aztyped_ndual Γ r σ : num_ty r σ -> aztyped Γ (XNDual r) (TDual σ)
(**
<<
     Γ ∪ {x:σ} ⊢ S1 : τ (typed)    Γ ⊢ S2 : τ*    x ∈ lin(S1)
    ──────────────────────────────────────────────────────────  (dual)
                  Γ ⊢ (λx:σ.S1)* · S2 : σ*
>> *)
| aztyped_dual Γ s1 s2 σ τ :
    atyped (σ :: Γ) s1 τ -> aztyped Γ s2 (TDual τ) -> lin is0 (erase s1) ->
    aztyped Γ (XDual σ s1 s2) (TDual σ)
(** pullbacks and [let] *)
| aztyped_pb Γ p s σ τ :
    aztyped (σ :: Γ) p τ -> aztyped Γ s (TOmega τ) -> aztyped Γ (XPb σ p s) (TOmega σ)
| aztyped_let Γ e l σ τ : aztyped Γ e σ -> aztyped (σ :: Γ) l τ -> aztyped Γ (XLet e l) τ.

#[local] Hint Constructors aztyped ztyped : core.

Lemma aztyped_ztyped Γ a A : aztyped Γ a A -> ztyped Γ (erase a) A.
Proof. induction 1; simpl; eauto using atyped_typed. Qed.

(** Every [ztyped] term is the erasure of an annotated term typed alike:
    each binder annotated with the type the derivation gives it. *)
Lemma ztyped_annotated Γ t A : ztyped Γ t A -> exists a, erase a = t /\ aztyped Γ a A.
Proof.
  induction 1 as [Γ σ|Γ s p σ _ [a1 [<- ?]] _ [a2 [<- ?]]|Γ n σ ?|Γ s σ τ _ [a [<- ?]]
                 |Γ s p σ τ _ [a1 [<- ?]] _ [a2 [<- ?]]|Γ s σ1 σ2 _ [a [<- ?]]|Γ s σ1 σ2 _ [a [<- ?]]
                 |Γ s1 s2 σ1 σ2 _ [a1 [<- ?]] _ [a2 [<- ?]]|Γ r|Γ f p _ [a [<- ?]]|Γ f s _ [a [<- ?]]
                 |Γ r σ ?|Γ s1 s2 σ τ Hb _ [a2 [<- ?]] ?|Γ p s σ τ _ [a1 [<- ?]] _ [a2 [<- ?]]
                 |Γ e l σ τ _ [a1 [<- ?]] _ [a2 [<- ?]]];
    [eexists XZero|eexists (XPlus a1 a2)|eexists (XVar n)|eexists (XLam σ a)|eexists (XApp a1 a2)
    |eexists (XProj false a)|eexists (XProj true a)|eexists (XPair a1 a2)|eexists (XReal r)
    |eexists (XFun f a)|eexists (XJac f a)|eexists (XNDual r)| |eexists (XPb σ a1 a2)
    |eexists (XLet a1 a2)];
    try (split; [reflexivity|eauto]).
  (* dual: the body is annotated by [typed_annotated] *)
  destruct (typed_annotated _ _ _ Hb) as (a1 & <- & Ha1).
  exists (XDual σ a1 a2). split; [reflexivity|eauto].
Qed.

(** ** Lemmas on [ztc] *)
#[local] Arguments ty_eq_dec : simpl never.

Lemma ztc_unfold Γ a exp : ztc Γ a exp = tc_step true ztc tc Γ a exp.
Proof. destruct a; reflexivity. Qed.

(** What [tc] never infers, [ztc] never infers. *)
Lemma noinf_ztc a : forall Γ, noinf (erase a) -> ztc Γ a None = None.
Proof.
  induction a; intros Γ Hn; cbn [erase] in Hn; rewrite ztc_unfold; cbn;
    inversion Hn; subst;
    repeat match goal with
    | IH : forall Γ, noinf (erase ?b) -> ztc Γ ?b None = None, H : noinf (erase ?b) |- context [ztc ?Δ ?b None] =>
        rewrite (IH Δ H)
    end;
    try reflexivity.
  - (* a pair whose second part is not inferred *)
    destruct (ztc Γ a1 None); reflexivity.
  - (* [r*] with [0] entries *)
    destruct (num_shape r) as [σ|] eqn:E; [|reflexivity].
    exfalso. match goal with Hd : ~ dense r |- _ => exact (Hd (num_shape_dense r σ E)) end.
Qed.

(** [ztc] in checking mode answers the expected type when it answers. *)
Notation ztc_ok Γ a A := (ztc Γ a (Some A) = Some A).

(** The facts a case of [ztc_complete] needs, from its hypotheses: the
    syntactic judgments of compound terms inverted, the induction
    hypotheses and [tc_complete] (for a dual map's body) applied, the
    parts never inferred turned into equations. *)
Ltac zfacts :=
  repeat match goal with
  | H : syn ?t |- _ => lazymatch t with erase _ => fail | _ => inversion H; subst; clear H end
  | H : chk ?t |- _ => lazymatch t with erase _ => fail | _ => inversion H; subst; clear H end
  | H : atyped ?G ?b ?T |- _ => destruct (tc_complete G b T H); clear H
  | H : noinf (erase ?b) |- _ =>
      pose proof (fun G => noinf_ztc b G H); pose proof (fun G => noinf_tc b G H); clear H
  | IH : syn ?t -> _, H : syn ?t |- _ => let E := fresh "E" in pose proof (IH H) as E; clear IH
  | IH : chk ?t -> _, H : syn ?t |- _ => let E := fresh "E" in pose proof (IH (chk_syn _ H)) as E; clear IH
  | IH : chk ?t -> _, H : chk ?t |- _ => let E := fresh "E" in pose proof (IH H) as E; clear IH
  | E : _ /\ _ |- _ => destruct E
  end.

(** Then the checker computes: every equation rewritten, the tests
    [ty_eq_dec], [zok], [num_tyb], [num_shape] and [linb] decided. *)
Ltac zcompute :=
  repeat match goal with
  | E : ztc _ _ _ = _ |- _ => rewrite E
  | E : tc _ _ _ = _ |- _ => rewrite E
  | E : forall G, ztc G ?b None = None |- context [ztc _ ?b None] => rewrite E
  | E : forall G, tc G ?b None = None |- context [tc _ ?b None] => rewrite E
  | H : lin is0 (erase ?b) |- context [linb is0b (erase ?b)] => rewrite (proj2 (linb_is0 (erase b)) H)
  | H : num_ty ?r ?s, D : dense ?r |- context [num_shape ?r] => rewrite (num_shape_complete r s H D)
  | H : num_ty ?r ?s |- context [num_tyb ?r ?s] => rewrite (num_tyb_complete r s H)
  | |- context [ty_eq_dec ?A ?A] => rewrite ty_eq_dec_refl
  | E : nth_error _ _ = Some _ |- context [nth_error _ _] => rewrite E
  | |- context [TOmega ?A] => unfold TOmega
  | |- _ => progress cbn
  end;
  cbn [zok].

(** Informal proof: by induction on the annotated derivation, as
    [tc_complete]: the annotations are the derivation's types, a [syn]
    part is inferred at its type and the other parts are checked against
    the types the derivation gives them; a [noinf] part is never inferred
    ([noinf_ztc], [noinf_tc]), so [ztc] turns to the other part.  The new
    cases are [0] and the sum, which stand at a dual type, where [zok]
    lets them through, and the dual map's body, which [ztc] checks by
    [tc]: [tc_complete]. *)
Lemma ztc_complete Γ a A : aztyped Γ a A ->
  (syn (erase a) -> ztc Γ a None = Some A /\ ztc_ok Γ a A) /\ (chk (erase a) -> ztc_ok Γ a A).
Proof.
  induction 1; split; intros Hf; cbn [erase] in Hf; zfacts; rewrite ?ztc_unfold; cbn;
    zcompute; try (split; reflexivity); try reflexivity.

Qed.

(** ** Completeness *)

(** [zinfer] finds the type of every [aztyped] [syn] term. *)
Theorem zinfer_complete Γ a A : aztyped Γ a A -> syn (erase a) -> zinfer Γ a = Some A.
Proof. intros Ht Hs. exact (proj1 (proj1 (ztc_complete Γ a A Ht) Hs)). Qed.

(** [zcheck] accepts every [aztyped] [chk] term at its type. *)
Theorem zcheck_complete Γ a A : aztyped Γ a A -> chk (erase a) -> zcheck Γ a A = true.
Proof. intros Ht Hc. unfold zcheck. rewrite (proj2 (ztc_complete Γ a A Ht) Hc). reflexivity. Qed.

(** A [ztyped] term of the fragment, annotated with the types of its
    derivation's bound variables, is accepted by [zcheck]. *)
Corollary ztyped_zcheck Γ t A : ztyped Γ t A -> chk t -> exists a, erase a = t /\ zcheck Γ a A = true.
Proof.
  intros Ht Hc. destruct (ztyped_annotated Γ t A Ht) as (a & <- & Ha).
  exists a. split; [reflexivity|exact (zcheck_complete Γ a A Ha Hc)].
Qed.

(** [ztyped] is decided on the fragment: a term of [chk] is [ztyped] at
    [A] exactly when one of its annotations passes [zcheck] (by
    [zcheck_sound] and [ztyped_zcheck]). *)
Corollary zcheck_decides Γ t A : chk t -> (ztyped Γ t A <-> exists a, erase a = t /\ zcheck Γ a A = true).
Proof.
  intros Hc. split; [intros Ht; exact (ztyped_zcheck Γ t A Ht Hc)|].
  intros (a & <- & Ha). exact (zcheck_sound Γ a A Ha).
Qed.

(** [⟨0, r⟩ : R* × R]: [aztyped], [chk] (not [syn]: [0] has no inferred
    type), accepted. *)
Example zcheck_complete_pair r :
  aztyped [] (XPair XZero (XReal r)) (TProd (TDual TR) TR) /\
  zcheck [] (XPair XZero (XReal r)) (TProd (TDual TR) TR) = true.
Proof. split; [repeat constructor|reflexivity]. Qed.

End ztyped_complete.

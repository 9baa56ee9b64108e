(** * The typed premise of progress: [0] and sums only at dual types

    docs/decisions-pullback.md, "Progress beyond the first-order fragment:
    the premise is typed".  The paper types [0] and [S + P] at every type
    (Fig. 2); they are the formal sums of the differential λ-calculus, and
    the stuck classes are a [0] or a sum where a rule needs a numeral, a
    pair or an abstraction.  [ztyped Γ t A] is [typed Γ t A] with rules
    (zero) and (sum) restricted to dual types outside the bodies of dual
    maps (which are open, only brought to a normal form, and typed by
    [typed]).  It is a refinement of [typed] ([ztyped_typed]); it rejects
    both stuck terms of [progress_typed.v] ([fun_sum_not_ztyped],
    [remark36_not_ztyped]) and accepts the term [⟨0, r⟩ : R* × R] that
    reduction (9) makes out of a term with no [0] ([pair_const_ztyped]),
    which [nzq] rejects ([nzq_not_kept], nz_decide.v): the same term
    [⟨0, r⟩] is [stuck_remark36]'s point at type [(R ⇒ R) × R], and only
    its type tells the two apart.

    That the steps keep [ztyped] is [ztyped_pres.v]; a sound checker of
    it on annotated terms is [ztyped_infer.v].  Open: progress under it,
    which needs the premises of 16b-20a to end in a dual map or [0]
    (normalization beyond the first-order fragment). *)
From Pullback Require Import syntax typing reduction progress_typed nz_decide.

Section ztyped.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B σ τ : ty).

Inductive ztyped : list ty -> tm -> ty -> Prop :=
| zt_zero Γ σ : ztyped Γ Zero (TDual σ)
| zt_plus Γ s p σ : ztyped Γ s (TDual σ) -> ztyped Γ p (TDual σ) -> ztyped Γ (Plus s p) (TDual σ)
| zt_var Γ n σ : nth_error Γ n = Some σ -> ztyped Γ (Var n) σ
| zt_lam Γ s σ τ : ztyped (σ :: Γ) s τ -> ztyped Γ (Lam s) (TArr σ τ)
| zt_app Γ s p σ τ : ztyped Γ s (TArr σ τ) -> ztyped Γ p σ -> ztyped Γ (App s p) τ
| zt_proj1 Γ s σ1 σ2 : ztyped Γ s (TProd σ1 σ2) -> ztyped Γ (Proj false s) σ1
| zt_proj2 Γ s σ1 σ2 : ztyped Γ s (TProd σ1 σ2) -> ztyped Γ (Proj true s) σ2
| zt_pair Γ s1 s2 σ1 σ2 :
    ztyped Γ s1 σ1 -> ztyped Γ s2 σ2 -> ztyped Γ (Pair s1 s2) (TProd σ1 σ2)
| zt_real Γ r : ztyped Γ (Real r) TR
| zt_fun Γ f p : ztyped Γ p (Rn (fdom f)) -> ztyped Γ (Fun f p) (Rn (fcod f))
| zt_jac Γ f s :
    ztyped Γ s (Rn (fdom f)) -> ztyped Γ (Jac f s) (TArr (Rn (fdom f)) (Rn (fcod f)))
| zt_ndual Γ r σ : num_ty r σ -> ztyped Γ (NDual r) (TDual σ)
(** the body of a dual map is typed by [typed]: sums and [0] stand there
    at any type *)
| zt_dual Γ s1 s2 σ τ :
    typed (σ :: Γ) s1 τ -> ztyped Γ s2 (TDual τ) -> lin is0 s1 ->
    ztyped Γ (Dual s1 s2) (TDual σ)
| zt_pb Γ p s σ τ :
    ztyped (σ :: Γ) p τ -> ztyped Γ s (TOmega τ) -> ztyped Γ (Pb p s) (TOmega σ)
| zt_let Γ e l σ τ :
    ztyped Γ e σ -> ztyped (σ :: Γ) l τ -> ztyped Γ (Let e l) τ.

Lemma ztyped_typed Γ t A : ztyped Γ t A -> typed Γ t A.
Proof. induction 1; econstructor; eassumption. Qed.

#[local] Hint Constructors ztyped : core.

(** ** Weakening and substitution (the first lemmas of its preservation) *)
Lemma ztyped_ren Γ Δ ρ t A :
  ztyped Γ t A ->
  (forall n B, nth_error Γ n = Some B -> nth_error Δ (ρ n) = Some B) ->
  ztyped Δ (ren ρ t) A.
Proof.
  intros Ht. revert Δ ρ. induction Ht; intros Δ ρ Hρ; simpl; eauto using ctx_ren_up.
  - (* dual: its body is typed by [typed] *)
    econstructor; eauto using typed_ren, ctx_ren_up, lin_is0_ren_up.
Qed.

Lemma ztyped_shift Γ t A B : ztyped Γ t A -> ztyped (B :: Γ) (shift t) A.
Proof. intros H. eapply ztyped_ren; eauto. Qed.

Lemma ztyped_subst Γ Δ θ t A :
  ztyped Γ t A ->
  (forall n B, nth_error Γ n = Some B -> ztyped Δ (θ n) B) ->
  ztyped Δ (subst θ t) A.
Proof.
  intros Ht. revert Δ θ. induction Ht; intros Δ θ Hθ; simpl; eauto using (ctx_subst_up ztyped zt_var ztyped_shift).
  - (* dual: its body is typed by [typed] *)
    econstructor; eauto using (ctx_subst_up ztyped zt_var ztyped_shift), lin_is0_subst_up.
    eapply typed_subst; [eassumption|]. apply (ctx_subst_up typed typed_var typed_shift).
    intros n B Hn. apply ztyped_typed. auto.
Qed.

Lemma ztyped_subst1 Γ u t A B :
  ztyped (B :: Γ) t A -> ztyped Γ u B -> ztyped Γ (subst1 u t) A.
Proof. exact (subst1_of ztyped zt_var ztyped_subst Γ u t A B). Qed.

Lemma Rn_not_dual n σ : Rn n <> TDual σ.
Proof. destruct n as [|[|n]]; simpl; discriminate. Qed.

Ltac inv H := inversion H; subst; clear H.

(** [f(r + r)]: the sum stands at [R^n], not a dual type. *)
Lemma fun_sum_not_ztyped f x A : ~ ztyped [] (fun_sum f x) A.
Proof.
  unfold fun_sum. intros H. inv H.
    match goal with H : ztyped _ (Plus _ _) _ |- _ => inv H end.
  match goal with H : _ = _ |- _ => symmetry in H; apply Rn_not_dual in H; exact H | H : _ = _ |- _ => apply Rn_not_dual in H; exact H end.
Qed.

(** [((Ω λy. π1(y) π2(y)) · ω) ⟨0, r⟩]: [π1(y)] is applied, so [y]'s first
    component, the [0] of the point, has an arrow type. *)
Lemma remark36_not_ztyped r A : ~ ztyped [] (remark36 r) A.
Proof.
  unfold remark36. intros H. inv H.
  match goal with H : ztyped _ (Pb _ _) _ |- _ => inv H end.
  match goal with H : ztyped _ (App (Proj _ _) _) _ |- _ => inv H end.
  match goal with H : ztyped _ (Proj false _) _ |- _ => inv H end.
  match goal with H : ztyped _ (Var 0) _ |- _ => inv H end.
  match goal with H : nth_error _ 0 = Some _ |- _ => simpl in H; injection H as H end.
  subst.
  match goal with H : ztyped _ (Pair _ _) _ |- _ => inv H end.
  match goal with H : ztyped _ Zero _ |- _ => inv H end.
Qed.

(** Both are nevertheless [typed] ([stuck_fun_sum], [stuck_remark36]): the
    restriction is what separates them. *)

(** [⟨0, r⟩ : R* × R], reduction (9)'s answer in a pair, is accepted, and so
    is the term it comes from ([nzq_not_kept]). *)
Lemma pair_const_ztyped r :
  ztyped [] (pair_const r) (TProd (TDual TR) TR) /\ ztyped [] (Pair Zero (Real r)) (TProd (TDual TR) TR).
Proof.
  unfold pair_const. split.
  - apply zt_pair; [|constructor].
    apply (zt_app _ _ _ TR); [|constructor].
    apply (zt_pb _ _ _ _ TR); repeat constructor.
  - repeat constructor.
Qed.

End ztyped.

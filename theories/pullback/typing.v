(** * Typing (Mak and Ong, Fig. 2; spec §3)

    [typed Γ t A] is [Γ ⊢ t : A].  Contexts are lists, index [0] at the
    head.  The rules are those of Fig. 2, with three additions that the
    grammar closure of spec §2.1 and A-reduction need:
    - [typed_ndual] types a numeric dual [r*] at [σ*] for every numeric
      tuple [r : σ] (the paper's [r ∈ R^n : (R^n)*] is the left-nested case);
    - [typed_let] types the let series of A-normal forms (§4);
    - the linearity side condition of (dual) is [lin is0 S1], the joint
      linearity of [syntax.v] at the bound variable. *)
From Pullback Require Import syntax.

Notation ctx := (list ty) (only parsing).

Section typing.
Context {Σ : signature}.

Implicit Types (Γ Δ : ctx) (A B σ τ : ty).

Inductive typed : ctx -> tm -> ty -> Prop :=
(**
<<
    ─────────────  (zero)
     Γ ⊢ 0 : σ
>> *)
| typed_zero Γ σ : typed Γ Zero σ
(**
<<
     Γ ⊢ S : σ    Γ ⊢ P : σ
    ─────────────────────────  (sum)
         Γ ⊢ S + P : σ
>> *)
| typed_plus Γ s p σ : typed Γ s σ -> typed Γ p σ -> typed Γ (Plus s p) σ
(**
<<
    ───────────────────────  (var)
     Γ ∪ {x:σ} ⊢ x : σ
>> *)
| typed_var Γ n σ : nth_error Γ n = Some σ -> typed Γ (Var n) σ
(**
<<
     Γ ∪ {x:σ} ⊢ S : τ
    ────────────────────  (abs)
     Γ ⊢ λx.S : σ ⇒ τ
>> *)
| typed_lam Γ s σ τ : typed (σ :: Γ) s τ -> typed Γ (Lam s) (TArr σ τ)
(**
<<
     Γ ⊢ S : σ ⇒ τ    Γ ⊢ P : σ
    ─────────────────────────────  (app)
            Γ ⊢ S P : τ
>> *)
| typed_app Γ s p σ τ : typed Γ s (TArr σ τ) -> typed Γ p σ -> typed Γ (App s p) τ
(**
<<
     Γ ⊢ S : σ1 × σ2
    ──────────────────  (proj)
     Γ ⊢ πi(S) : σi
>> *)
| typed_proj1 Γ s σ1 σ2 : typed Γ s (TProd σ1 σ2) -> typed Γ (Proj false s) σ1
| typed_proj2 Γ s σ1 σ2 : typed Γ s (TProd σ1 σ2) -> typed Γ (Proj true s) σ2
(**
<<
     Γ ⊢ S1 : σ1    Γ ⊢ S2 : σ2
    ─────────────────────────────  (pair)
      Γ ⊢ ⟨S1, S2⟩ : σ1 × σ2
>> *)
| typed_pair Γ s1 s2 σ1 σ2 :
    typed Γ s1 σ1 -> typed Γ s2 σ2 -> typed Γ (Pair s1 s2) (TProd σ1 σ2)
(**
<<
       r ∈ ℝ
    ───────────  (real)
     Γ ⊢ r : R
>> *)
| typed_real Γ r : typed Γ (Real r) TR
(**
<<
     Γ ⊢ P : R^n    f : ℝ^n → ℝ^m ∈ F
    ───────────────────────────────────  (fun)
            Γ ⊢ f(P) : R^m
>> *)
| typed_fun Γ f p : typed Γ p (Rn (fdom f)) -> typed Γ (Fun f p) (Rn (fcod f))
(**
<<
     Γ ⊢ S : R^n    f : ℝ^n → ℝ^m ∈ F
    ───────────────────────────────────  (jac)
       Γ ⊢ J f · S : R^n ⇒ R^m
>> *)
| typed_jac Γ f s :
    typed Γ s (Rn (fdom f)) -> typed Γ (Jac f s) (TArr (Rn (fdom f)) (Rn (fcod f)))
(**
<<
     r a numeric tuple of type σ
    ─────────────────────────────  (cst-dual)
           Γ ⊢ r* : σ*
>> *)
| typed_ndual Γ r σ : num_ty r σ -> typed Γ (NDual r) (TDual σ)
(**
<<
     Γ ∪ {x:σ} ⊢ S1 : τ    Γ ⊢ S2 : τ*    x ∈ lin(S1)
    ─────────────────────────────────────────────────  (dual)
               Γ ⊢ (λx.S1)* · S2 : σ*
>> *)
| typed_dual Γ s1 s2 σ τ :
    typed (σ :: Γ) s1 τ -> typed Γ s2 (TDual τ) -> lin is0 s1 ->
    typed Γ (Dual s1 s2) (TDual σ)
(**
<<
     Γ ∪ {x:σ} ⊢ P : τ    Γ ⊢ S : Ω τ
    ───────────────────────────────────  (pb)
        Γ ⊢ (Ω λx.P) · S : Ω σ
>> *)
| typed_pb Γ p s σ τ :
    typed (σ :: Γ) p τ -> typed Γ s (TOmega τ) -> typed Γ (Pb p s) (TOmega σ)
(**
<<
     Γ ⊢ E : σ    Γ ∪ {z:σ} ⊢ L : τ
    ─────────────────────────────────  (let)
       Γ ⊢ let z = E in L : τ
>> *)
| typed_let Γ e l σ τ :
    typed Γ e σ -> typed (σ :: Γ) l τ -> typed Γ (Let e l) τ.

#[local] Hint Constructors typed : core.

(** ** Numeric tuples *)
Lemma typed_num Γ r σ : num_ty r σ -> typed Γ (num_tm r) σ.
Proof. induction 1; simpl; eauto. Qed.

Lemma typed_num_inv Γ r σ : typed Γ (num_tm r) σ -> num_ty r σ.
Proof.
  revert σ. induction r; intros σ H; simpl in H; inversion H; subst; constructor; auto.
Qed.

(** ** Access paths: [σ^{p}] is the type reached by following [p]. *)
Fixpoint path_ty (σ : ty) (p : list bool) {struct p} : option ty :=
  match p with
  | [] => Some σ
  | i :: p' =>
      match σ with
      | TProd σ1 σ2 => path_ty (if i then σ2 else σ1) p'
      | _ => None
      end
  end.

Lemma typed_ppath Γ t σ p τ :
  typed Γ t σ -> path_ty σ p = Some τ -> typed Γ (ppath p t) τ.
Proof.
  revert t σ. induction p as [|i p IH]; intros t σ Ht Hp; simpl in *.
  - injection Hp as <-. exact Ht.
  - destruct σ; try discriminate. destruct i; eapply IH; eauto.
Qed.

Lemma typed_ppath_inv Γ t p τ :
  typed Γ (ppath p t) τ -> exists σ, typed Γ t σ /\ path_ty σ p = Some τ.
Proof.
  revert t τ. induction p as [|i p IH]; intros t τ Ht; simpl in *.
  - eauto.
  - destruct (IH _ _ Ht) as (σ & Hσ & Hp).
    inversion Hσ; subst; eexists; split; eauto; simpl; assumption.
Qed.

(** ** Weakening: typing is stable under renaming.

    The side conditions under a binder ([ctx_ren_up], [ctx_subst_up],
    [ctx_scons], [lin_is0_ren_up], [lin_is0_subst_up]) and [subst1_of]
    are stated for any relation with the rule (var) and weakening, so that
    [typed] and its refinement [ztyped] (ztyped.v) share them. *)
Lemma ctx_ren_up Γ Δ ρ C :
  (forall n B, nth_error Γ n = Some B -> nth_error Δ (ρ n) = Some B) ->
  forall n B, nth_error (C :: Γ) n = Some B -> nth_error (C :: Δ) (up_ren ρ n) = Some B.
Proof. intros H [|n] B; simpl; auto. Qed.

(** The bound variable of a dual map stays its linear variable. *)
Lemma lin_is0_ren_up ρ s : lin is0 s -> lin is0 (ren (up_ren ρ) s).
Proof.
  apply lin_ren. intros [|n]; unfold is0; simpl; split; intros; congruence.
Qed.

Lemma typed_ren Γ Δ ρ t A :
  typed Γ t A ->
  (forall n B, nth_error Γ n = Some B -> nth_error Δ (ρ n) = Some B) ->
  typed Δ (ren ρ t) A.
Proof.
  intros Ht. revert Δ ρ. induction Ht; intros Δ ρ Hρ; simpl; eauto using ctx_ren_up.
  - (* dual *) econstructor; eauto using ctx_ren_up, lin_is0_ren_up.
Qed.

Lemma typed_shift Γ t A B : typed Γ t A -> typed (B :: Γ) (shift t) A.
Proof. intros H. eapply typed_ren; eauto. Qed.

(** Inversion of weakening: a renamed term is typed in any context that
    agrees with the target context along the renaming. *)
Lemma typed_ren_inv Γ Δ ρ t A :
  typed Δ (ren ρ t) A ->
  (forall n B, nth_error Δ (ρ n) = Some B -> nth_error Γ n = Some B) ->
  typed Γ t A.
Proof.
  assert (Hup : forall Γ Δ ρ C, (forall n B, nth_error Δ (ρ n) = Some B -> nth_error Γ n = Some B) ->
     forall n B, nth_error (C :: Δ) (up_ren ρ n) = Some B -> nth_error (C :: Γ) n = Some B)
    by (intros ? ? ? ? H [|n] B; simpl; auto).
  revert Γ Δ ρ A. induction t; intros Γ Δ ρ A Ht Hρ; simpl in Ht; inversion Ht; subst; eauto.
  - (* dual *)
    econstructor; eauto. eapply lin_ren_inv; [|eassumption].
    intros [|n]; unfold is0; simpl; split; intros; congruence.
Qed.

(** ** Substitution *)
Lemma nocc_empty (X : nat -> Prop) t : (forall n, ~ X n) -> nocc X t.
Proof.
  assert (HL : forall X : nat -> Prop, (forall n, ~ X n) -> forall n, ~ lift X n)
    by (intros X' H [|n]; simpl; auto).
  revert X. induction t; intros X HX; simpl; auto.
Qed.

Lemma nocc_false t : nocc (fun _ => False) t.
Proof. apply nocc_empty. auto. Qed.

Section ctx_subst.
(** A typing relation [T] with the rule (var) and weakening. *)
Variable T : ctx -> tm -> ty -> Prop.
Hypothesis T_var : forall Γ n σ, nth_error Γ n = Some σ -> T Γ (Var n) σ.

Lemma ctx_scons Γ u B :
  T Γ u B -> forall n C, nth_error (B :: Γ) n = Some C -> T Γ (scons u Var n) C.
Proof.
  intros Hu [|n] C; simpl; intros Hn.
  - congruence.
  - apply T_var. assumption.
Qed.

(** The lemma for [subst1] follows from the one for [subst]. *)
Lemma subst1_of :
  (forall Γ Δ θ t A, T Γ t A -> (forall n B, nth_error Γ n = Some B -> T Δ (θ n) B) -> T Δ (subst θ t) A) ->
  forall Γ u t A B, T (B :: Γ) t A -> T Γ u B -> T Γ (subst1 u t) A.
Proof. intros Hs Γ u t A B Ht Hu. eapply Hs; [eassumption|]. apply ctx_scons. exact Hu. Qed.

Hypothesis T_shift : forall Γ t A B, T Γ t A -> T (B :: Γ) (shift t) A.

Lemma ctx_subst_up Γ Δ θ C :
  (forall n B, nth_error Γ n = Some B -> T Δ (θ n) B) ->
  forall n B, nth_error (C :: Γ) n = Some B -> T (C :: Δ) (up θ n) B.
Proof.
  intros H [|n] B; simpl; intros Hn.
  - injection Hn as ->. apply T_var. reflexivity.
  - apply T_shift. auto.
Qed.
End ctx_subst.

Lemma lin_is0_subst_up θ s : lin is0 s -> lin is0 (subst (up θ) s).
Proof.
  apply lin_subst.
  - intros [|n]; unfold is0; simpl; intros Hn0; [reflexivity|discriminate].
  - intros [|n]; simpl; intros Hn0; [exfalso; apply Hn0; reflexivity|].
    unfold shift. eapply nocc_ren with (X := fun _ => False); simpl; auto.
    + intros m Hm. unfold is0 in Hm. discriminate.
    + apply nocc_false.
Qed.

Lemma typed_subst Γ Δ θ t A :
  typed Γ t A ->
  (forall n B, nth_error Γ n = Some B -> typed Δ (θ n) B) ->
  typed Δ (subst θ t) A.
Proof.
  intros Ht. revert Δ θ. induction Ht; intros Δ θ Hθ; simpl; eauto using (ctx_subst_up typed typed_var typed_shift).
  - (* dual *) econstructor; eauto using (ctx_subst_up typed typed_var typed_shift), lin_is0_subst_up.
Qed.

Lemma typed_subst1 Γ u t A B :
  typed (B :: Γ) t A -> typed Γ u B -> typed Γ (subst1 u t) A.
Proof. exact (subst1_of typed typed_var typed_subst Γ u t A B). Qed.

End typing.

#[export] Hint Constructors typed : core.

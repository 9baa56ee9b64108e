(** * Pullback queries compute real gradients (Corollary 4.8(1) in ℝ)

    Mak and Ong's Corollary 4.8(1): the query [((Ω λy.P) · ω) V] computes
    the pullback of the 1-form [ω] along [⟦λy.P⟧] at [⟦V⟧], a row of the
    Jacobian when [ω] is [λx. e*].  [query_transpose.v] proves it over any
    commutative semiring with adjoint Jacobians, for a formal forward
    tangent [fwd_at] of the first-order body.  This file takes the
    executable signature of [pullback-eval] ([exec_sig.v]: [add], [mul],
    [neg], [sin], [cos], [exp], [sq]) over Coq's reals ([Rsig]) and proves
    - that its transposed Jacobians are adjoint to its Jacobians and the
      reals a commutative semiring ([Rjac_adjoint], [Rsr]), so the
      semiring theorem applies;
    - that the formal forward tangent is the Fréchet derivative of the
      denotation of the body ([fwd_at_deriv], by [fo_has_deriv] on every
      first-order term in an environment of differentiable variables),
      with the derivative on ℝⁿ of [vec.v] ([has_deriv], its chain rule,
      Coquelicot's [is_derive] on ℝ for [sin], [cos], [exp]);
    - hence that a query that reduces to [r*] has [r] equal to the
      gradient: [r = (J ⟦λy.P⟧(V))ᵀ e] ([query_gradient]).

    Numeric tuples of a type [σ] are vectors of [ℝ^{ndim σ}] ([nvec],
    read in the order of the leaves; its inverse [vecn]).  The denotation
    of the body ([pb_den]) evaluates the first-order term ([pv]), so it is
    defined without the reductions.  The statement is conditional on the
    query reaching a numeric dual: termination of the reductions is a
    separate theorem (not proved here).  The point [V] is a tuple of reals
    ([dense]: no [NZ], the zero of a dual type, inside). *)
From Coq Require Import Reals Lra List Lia Ring_theory.
From Coquelicot Require Import Coquelicot.
From Pullback Require Import syntax typing anf backprop reduction preservation progress
  transpose exec_sig query_transpose.
From RevHandlers.Analysis Require Import vec.
Import ListNotations.
Open Scope R_scope.

(** ** The executable signature over the reals *)
Definition Ro : scalar_ops R := {|
  k_zero := 0; k_add := Rplus; k_mul := Rmult; k_neg := Ropp;
  k_sin := sin; k_cos := cos; k_exp := exp |}.

#[local] Instance Rsig : signature := exec_sig Ro.

Notation nm := (num R).

(** The scalars of [Rsig] are the reals, for [ring]. *)
Ltac rs := change (@scalar Rsig) with R in *; cbn [szero sadd smul Rsig exec_sig k_zero k_add k_mul Ro] in *.

Lemma Rsr : semi_ring_theory (@szero Rsig) 1 (@sadd Rsig) (@smul Rsig) eq.
Proof. constructor; intros; simpl; ring. Qed.

(** ** Numeric tuples of a type as vectors of ℝⁿ *)
Fixpoint ndim (A : ty) : nat :=
  match A with
  | TR => 1
  | TProd A B => ndim A + ndim B
  | _ => 0
  end.

Fixpoint nvec (A : ty) (x : nm) : vec :=
  match A with
  | TR => [ecp Ro x]
  | TProd A B => nvec A (fst (nsplit x)) ++ nvec B (snd (nsplit x))
  | _ => []
  end.

Fixpoint vecn (A : ty) (v : vec) : nm :=
  match A with
  | TR => NR (v@@0)
  | TProd A B => NP (vecn A (firstn (ndim A) v)) (vecn B (skipn (ndim A) v))
  | _ => NZ
  end.

Lemma length_nvec A x : length (nvec A x) = ndim A.
Proof. revert x. induction A; intros x; simpl; auto. rewrite app_length, IHA1, IHA2. reflexivity. Qed.

Lemma nvec_vecn A v : length v = ndim A -> nvec A (vecn A v) = v.
Proof.
  revert v. induction A; intros v Hv; simpl in *.
  - destruct v as [|a [|]]; try discriminate. reflexivity.
  - rewrite IHA1, IHA2 by (rewrite ?firstn_length, ?skipn_length; lia). apply firstn_skipn.
  - destruct v; [reflexivity|discriminate].
  - destruct v; [reflexivity|discriminate].
Qed.

Lemma vecn_ty A v : num_ty (vecn A v) A.
Proof. revert v. induction A; intros v; simpl; constructor; auto. Qed.

Lemma vecn_nvec x A : num_ty x A -> dense x -> vecn A (nvec A x) = x.
Proof.
  induction 1; simpl; intros Hd; [reflexivity| |contradiction].
  destruct Hd as [Ha Hb].
  rewrite firstn_app_exact, skipn_app_exact by apply length_nvec.
  rewrite IHnum_ty1, IHnum_ty2 by assumption. reflexivity.
Qed.

Lemma nvec_nz A : nvec A NZ = zeros (ndim A).
Proof.
  induction A; simpl; auto. rewrite IHA1, IHA2. unfold zeros. rewrite repeat_app. reflexivity.
Qed.

Lemma vp_zeros_len_l v n : length v = n -> vp (zeros n) v = v.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma vp_zeros_len_r v n : length v = n -> vp v (zeros n) = v.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma nvec_nadd x y A : num_ty x A -> num_ty y A -> nvec A (nadd x y) = vp (nvec A x) (nvec A y).
Proof.
  intros Hx. revert y. induction Hx; intros y Hy.
  - inversion Hy; subst; cbn; f_equal; rs; ring.
  - inversion Hy; subst.
    + simpl. rewrite IHHx1, IHHx2 by assumption.
      rewrite vp_app by (rewrite !length_nvec; reflexivity). reflexivity.
    + rewrite nvec_nz, vp_zeros_len_r by apply length_nvec. reflexivity.
  - rewrite nvec_nz, vp_zeros_len_l by apply length_nvec. reflexivity.
Qed.

Lemma nvec_comp_l A B x : nvec A (comp false x) = firstn (ndim A) (nvec (TProd A B) x).
Proof. unfold comp. simpl. destruct (nsplit x). rewrite firstn_app_exact by apply length_nvec. reflexivity. Qed.

Lemma nvec_comp_r A B x : nvec B (comp true x) = skipn (ndim A) (nvec (TProd A B) x).
Proof. unfold comp. simpl. destruct (nsplit x). rewrite skipn_app_exact by apply length_nvec. reflexivity. Qed.

(** The pairing of [transpose.v] is the inner product of ℝⁿ. *)
Lemma dot_nvec a c A : num_ty a A -> num_ty c A -> transpose.dot a c = vec.dot (nvec A a) (nvec A c).
Proof.
  intros Ha. revert c. induction Ha; intros c Hc.
  - inversion Hc; subst; cbn; rs; ring.
  - inversion Hc; subst; simpl.
    + rewrite IHHa1, IHHa2 by assumption. rewrite dot_app by (rewrite !length_nvec; reflexivity).
      reflexivity.
    + rewrite !nvec_nz, dot_app by (rewrite length_nvec, length_zeros; reflexivity).
      rewrite !dot_zeros_r. rs. ring.
  - rewrite nvec_nz, dot_zeros_l. destruct c; reflexivity.
Qed.

(** ** The function symbols as maps of ℝⁿ, and their derivatives *)
Definition fR (f : fprim) (z : vec) : vec :=
  match f with
  | Padd => [z@@0 + z@@1]
  | Pmul => [z@@0 * z@@1]
  | Pneg => [- z@@0]
  | Psin => [sin (z@@0)]
  | Pcos => [cos (z@@0)]
  | Pexp => [exp (z@@0)]
  | Psq => [z@@0 * z@@0]
  end.

Definition dfR (f : fprim) (z h : vec) : vec :=
  match f with
  | Padd => [h@@0 + h@@1]
  | Pmul => [z@@1 * h@@0 + z@@0 * h@@1]
  | Pneg => [- h@@0]
  | Psin => [cos (z@@0) * h@@0]
  | Pcos => [- sin (z@@0) * h@@0]
  | Pexp => [exp (z@@0) * h@@0]
  | Psq => [(z@@0 + z@@0) * h@@0]
  end.

Lemma ndim_rn_edom f : ndim (Rn (edom f)) = edom f.
Proof. destruct f; reflexivity. Qed.

Lemma nvec_esem f y : nvec TR (esem Ro f y) = fR f (nvec (Rn (edom f)) y).
Proof. destruct f; simpl; try reflexivity; destruct y; reflexivity. Qed.

Lemma nvec_ejac f y v : nvec TR (ejac Ro f y v) = dfR f (nvec (Rn (edom f)) y) (nvec (Rn (edom f)) v).
Proof. destruct f; simpl; try reflexivity; destruct y, v; reflexivity. Qed.

(** The transposed Jacobians of the signature are adjoint to its Jacobians. *)
Lemma Rjac_adjoint f x c v :
  num_ty x (Rn (fdom f)) -> num_ty c (Rn (fcod f)) -> num_ty v (Rn (fdom f)) ->
  transpose.dot (fjac_t f x c) v = transpose.dot c (fjac f x v).
Proof.
  intros Hx Hc Hv. simpl in f, Hx, Hc, Hv.
  destruct f; simpl in Hx, Hc, Hv;
    repeat match goal with
    | H : num_ty _ (TProd _ _) |- _ => inversion H; subst; clear H
    | H : num_ty _ TR |- _ => inversion H; subst; clear H
    end; cbn; rs; ring.
Qed.

(** A unary symbol is Coquelicot-differentiable. *)
Lemma has_deriv_unary (g : R -> R) l (dg : vec -> vec) z :
  length z = 1%nat -> is_derive g (z@@0) l -> (forall h, length h = 1%nat -> dg h = [l * h@@0]) ->
  has_deriv 1 1 (fun v => [g (v@@0)]) z dg.
Proof.
  intros Hz Hd Hdg. destruct z as [|a [|]]; try discriminate.
  apply (proj1 (has_deriv_is_derive g a l)) in Hd.
  eapply has_deriv_ext; [| |exact Hd].
  - intros v _. reflexivity.
  - intros h Hh. rewrite Hdg by exact Hh. destruct h as [|b [|]]; try discriminate. reflexivity.
Qed.

Lemma lin_add2 : lin 2 1 (fun h => [h@@0 + h@@1]).
Proof.
  constructor.
  - intros v _. reflexivity.
  - intros h k _ _. rewrite !nth_vp. simpl. f_equal. ring.
  - intros a h _. rewrite !nth_vs. simpl. f_equal. ring.
Qed.

Lemma bilin_mul : bilin 1 1 1 (fun a b => [a@@0 * b@@0]).
Proof.
  constructor.
  - intros b _. constructor.
    + intros v _. reflexivity.
    + intros h k _ _. rewrite nth_vp. simpl. f_equal. ring.
    + intros a h _. rewrite nth_vs. simpl. f_equal. ring.
  - intros a _. constructor.
    + intros v _. reflexivity.
    + intros h k _ _. rewrite nth_vp. simpl. f_equal. ring.
    + intros c h _. rewrite nth_vs. simpl. f_equal. ring.
Qed.

Lemma has_deriv_fR f z : length z = edom f -> has_deriv (edom f) 1 (fR f) z (dfR f z).
Proof.
  intros Hz. destruct f; simpl in Hz |- *.
  - apply has_deriv_lin; [exact lin_add2|exact Hz].
  - pose proof (has_deriv_bilin 1 1 1 _ z bilin_mul Hz) as H.
    eapply has_deriv_ext; [| |exact H].
    + intros v Hv. destruct v as [|a [|b [|]]]; try discriminate. reflexivity.
    + intros h Hh. destruct h as [|a [|b [|]]]; try discriminate.
      destruct z as [|c [|d [|]]]; try discriminate. simpl. f_equal. ring.
  - apply has_deriv_unary with (-1); auto.
    + auto_derive; auto; ring.
    + intros h _. simpl. f_equal. ring.
  - apply has_deriv_unary with (cos (z@@0)); auto.
    + auto_derive; auto; ring.
  - apply has_deriv_unary with (- sin (z@@0)); auto.
    + auto_derive; auto; ring.
  - apply has_deriv_unary with (exp (z@@0)); auto.
    + auto_derive; auto; ring.
  - apply (has_deriv_unary (fun t => t * t) (z@@0 + z@@0)); auto.
    + auto_derive; auto; ring.
Qed.

Lemma nvec_fsem f y : nvec TR (@fsem Rsig f y) = fR f (nvec (Rn (edom f)) y).
Proof. exact (nvec_esem f y). Qed.

Lemma nvec_fjac f y v :
  nvec TR (@fjac Rsig f y v) = dfR f (nvec (Rn (edom f)) y) (nvec (Rn (edom f)) v).
Proof. exact (nvec_ejac f y v). Qed.

(** ** The denotation of a first-order body, and its derivative *)

(** The value of a defined point, and the tangent of a defined forward
    propagation ([NZ], read as zero, when undefined). *)
Definition pval (o : option nm) : nm := match o with Some y => y | None => NZ end.
Definition ptan (o : option (nm * nm)) : nm := match o with Some (_, d) => d | None => NZ end.

(** A more defined environment gives the same forward propagation (over
    any signature). *)
Lemma fw_mono {Σ : signature} t : forall η η' xd, esub η η' -> fw η t = Some xd -> fw η' t = Some xd.
Proof.
  induction t; intros η η' xd H Ht; simpl in *; try discriminate; auto;
    try (apply H; exact Ht);
    repeat match goal with
    | Ht : context [fw η ?u], IH : forall η0 η'0 x0, esub η0 η'0 -> fw η0 ?u = Some x0 -> _ |- _ =>
        let E := fresh in destruct (fw η u) as [[? ?]|] eqn:E; [rewrite (IH _ _ _ H E); clear IH | discriminate]
    end; auto.
  match goal with
  | IH : forall η0 η'0 x0, esub η0 η'0 -> fw η0 ?u = Some x0 -> _, Ht : fw _ ?u = _ |- _ =>
      refine (IH _ _ _ _ Ht); intros [|m] z; simpl; auto
  end.
Qed.

Section body.
(** The input of the body ranges over [ℝ^N]; [x] is the point of derivation. *)
Variables (N : nat) (x : vec).
Hypothesis Hlx : length x = N.

(** An environment gives each variable a value [G n u] at every input [u],
    and a tangent [T n h] at every input tangent [h]. *)
Definition penv (G : nat -> vec -> nm) (u : vec) : nat -> option nm := fun n => Some (G n u).
Definition tenv (G T : nat -> vec -> nm) (h : vec) : nat -> option (nm * nm) :=
  fun n => Some (G n x, T n h).

(** Each variable of [Γ] is a differentiable function of the input, whose
    derivative is its tangent. *)
Definition denv (Γ : list ty) (G T : nat -> vec -> nm) : Prop :=
  forall n A, nth_error Γ n = Some A ->
    has_deriv N (ndim A) (fun u => nvec A (G n u)) x (fun h => nvec A (T n h)) /\
    (forall u, num_ty (G n u) A) /\ (forall h, num_ty (T n h) A).

Lemma fw_def t Γ A G T h : fo t -> typed Γ t A -> exists y d, fw (tenv G T h) t = Some (y, d).
Proof.
  intros Hfo Ht. destruct (fw_total t Hfo Γ A (tenv G T h) Ht) as [[y d] E].
  - intros n B _. eexists. reflexivity.
  - eauto.
Qed.

Lemma fw_point t G T h y d : fw (tenv G T h) t = Some (y, d) -> pv (penv G x) t = Some y.
Proof.
  intros E. rewrite (pv_ext t _ (@efst Rsig (tenv G T h))) by (intros n; reflexivity).
  rewrite fw_pv, E. reflexivity.
Qed.

Lemma pv_def t Γ A G u : fo t -> typed Γ t A -> exists y, pv (penv G u) t = Some y.
Proof.
  intros Hfo Ht.
  destruct (fw_total t Hfo Γ A (fun n => Some (G n u, NZ)) Ht) as [[y d] E].
  - intros n B _. eexists. reflexivity.
  - exists y. rewrite (pv_ext t _ (@efst Rsig (fun n => Some (G n u, NZ)))) by (intros n; reflexivity).
    rewrite fw_pv, E. reflexivity.
Qed.

Lemma denv_penv Γ G T u : denv Γ G T -> penv_ty Γ (penv G u).
Proof. intros HG n y A E HA. injection E as <-. apply (HG n A HA). Qed.

Lemma denv_tenv Γ G T h : denv Γ G T -> fenv_ty Γ (tenv G T h).
Proof. intros HG n y d A E HA. injection E as <- <-. split; apply (HG n A HA). Qed.

Lemma pval_ty t Γ A G T u : fo t -> typed Γ t A -> denv Γ G T -> num_ty (pval (pv (penv G u) t)) A.
Proof.
  intros Hfo Ht HG. destruct (pv_def t Γ A G u Hfo Ht) as [y E]. rewrite E.
  exact (pv_ty Γ t A Ht _ y (denv_penv Γ G T u HG) E).
Qed.

Lemma ptan_ty t Γ A G T h : fo t -> typed Γ t A -> denv Γ G T -> num_ty (ptan (fw (tenv G T h) t)) A.
Proof.
  intros Hfo Ht HG. destruct (fw_def t Γ A G T h Hfo Ht) as (y & d & E). rewrite E.
  exact (proj2 (fw_ty Γ t A Ht _ y d (denv_tenv Γ G T h HG) E)).
Qed.

Lemma comp_nz i : comp i NZ = NZ.
Proof. destruct i; reflexivity. Qed.

Lemma pval_proj i s η : pval (pv η (Proj i s)) = comp i (pval (pv η s)).
Proof. simpl. destruct (pv η s); simpl; auto using comp_nz. Qed.

Lemma ptan_proj i s η : ptan (fw η (Proj i s)) = comp i (ptan (fw η s)).
Proof. simpl. destruct (fw η s) as [[]|]; simpl; auto using comp_nz. Qed.

Lemma has_deriv_const n m c : length c = m -> length x = n ->
  has_deriv n m (fun _ => c) x (fun _ => zeros m).
Proof.
  intros Hc Hx. split; [auto|]. split; [intros v _; auto|]. split.
  - constructor.
    + intros v _. apply length_zeros.
    + intros h k _ _. rewrite vp_zeros_len_l by apply length_zeros. reflexivity.
    + intros a h _. apply vec_ext; [rewrite length_vs; auto|]. intros i. rewrite nth_vs, nth_zeros. ring.
  - intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
    rewrite norm1_0; [pose proof (norm1_nonneg h); nra|]. intros i. rewrite !nth_vm, nth_zeros. ring.
Qed.

(** Informal proof: by induction on the first-order body.  A variable is
    the hypothesis on the environment; a projection is the linear map
    [firstn]/[skipn] after its argument (chain rule); a pair is
    [has_deriv_pair]; a scalar and [0] are constant; a sum is [has_deriv_vp]
    (sums of numeric tuples are sums of vectors, [nvec_nadd]); [f(P)] is the
    chain rule with the derivative of [f] ([has_deriv_fR]), whose Jacobian is
    the one [fw] applies; [let z = E in L] extends the environment with the
    value of [E] and its tangent, which the induction hypothesis on [E] makes
    differentiable. *)
(** A projection's case of [fo_has_deriv]: the chain rule ([IH] on the
    pair, [HG] on the environment) through the linear map [cut], [firstn]
    or [skipn] ([Hlin]; [T] the pair's type); both the point and the tangent are the
    component of the pair's ([nvec_comp_l], [nvec_comp_r]). *)
Ltac proj_deriv IH HG cut Hlin T :=
  let Hd := fresh "Hd" in let Hc := fresh "Hc" in
  pose proof (IH _ _ _ _ ltac:(eassumption) HG) as Hd;
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ Hd (has_deriv_lin _ _ cut _ Hlin (length_nvec T _))) as Hc;
  eapply has_deriv_ext; [| |exact Hc]; cbn beta;
  [intros v _; rewrite pval_proj | intros h _; rewrite ptan_proj];
  symmetry; first [apply nvec_comp_l|apply nvec_comp_r].

Lemma fo_has_deriv t : fo t -> forall Γ A G T, typed Γ t A -> denv Γ G T ->
  has_deriv N (ndim A) (fun u => nvec A (pval (pv (penv G u) t))) x
    (fun h => nvec A (ptan (fw (tenv G T h) t))).
Proof.
  induction 1 as [n|i s Hs IH|a b Ha IHa Hb IHb|r| |a b Ha IHa Hb IHb|f a Ha IH|e l He IHe Hl IHl];
    intros Γ A G T Ht HG; inversion Ht; subst.
  - (* fo_var *)
    exact (proj1 (HG n A ltac:(assumption))).
  - (* fo_proj, π1 *)
    rename σ2 into B.
    proj_deriv IH HG (@firstn R (ndim A)) (lin_firstn (ndim A) (ndim B)) (TProd A B).
  - (* fo_proj, π2 *)
    rename σ1 into B.
    proj_deriv IH HG (@skipn R (ndim B)) (lin_skipn (ndim B) (ndim A)) (TProd B A).
  - (* fo_pair *)
    pose proof (has_deriv_pair _ _ _ _ _ _ _ _ (IHa _ _ _ _ ltac:(eassumption) HG)
                  (IHb _ _ _ _ ltac:(eassumption) HG)) as Hc.
    eapply has_deriv_ext; [| |exact Hc]; cbn beta.
    + intros v _. destruct (pv_def a Γ σ1 G v Ha ltac:(eassumption)) as [y1 E1].
      destruct (pv_def b Γ σ2 G v Hb ltac:(eassumption)) as [y2 E2].
      simpl. rewrite E1, E2. reflexivity.
    + intros h _. destruct (fw_def a Γ σ1 G T h Ha ltac:(eassumption)) as (y1 & d1 & E1).
      destruct (fw_def b Γ σ2 G T h Hb ltac:(eassumption)) as (y2 & d2 & E2).
      simpl. rewrite E1, E2. reflexivity.
  - (* fo_real *)
    exact (has_deriv_const N 1 [r] eq_refl Hlx).
  - (* fo_zero *)
    eapply has_deriv_ext; [| |exact (has_deriv_const N (ndim A) (nvec A NZ) (length_nvec A NZ) Hlx)].
    + intros v _. reflexivity.
    + intros h _. cbn [fw ptan]. symmetry. apply nvec_nz.
  - (* fo_plus *)
    pose proof (has_deriv_vp _ _ _ _ _ _ _ (IHa _ _ _ _ ltac:(eassumption) HG)
                  (IHb _ _ _ _ ltac:(eassumption) HG)) as Hc.
    eapply has_deriv_ext; [| |exact Hc]; cbn beta.
    + intros v _. destruct (pv_def a Γ A G v Ha ltac:(eassumption)) as [y1 E1].
      destruct (pv_def b Γ A G v Hb ltac:(eassumption)) as [y2 E2].
      pose proof (pval_ty a Γ A G T v Ha ltac:(eassumption) HG) as T1.
      pose proof (pval_ty b Γ A G T v Hb ltac:(eassumption) HG) as T2.
      rewrite E1 in T1. rewrite E2 in T2.
      simpl. rewrite E1, E2. symmetry. apply nvec_nadd; assumption.
    + intros h _. destruct (fw_def a Γ A G T h Ha ltac:(eassumption)) as (y1 & d1 & E1).
      destruct (fw_def b Γ A G T h Hb ltac:(eassumption)) as (y2 & d2 & E2).
      pose proof (ptan_ty a Γ A G T h Ha ltac:(eassumption) HG) as T1.
      pose proof (ptan_ty b Γ A G T h Hb ltac:(eassumption) HG) as T2.
      rewrite E1 in T1. rewrite E2 in T2.
      simpl. rewrite E1, E2. symmetry. apply nvec_nadd; assumption.
  - (* fo_fun *)
    change (fdom f) with (edom f) in *. change (Rn (fcod f)) with TR.
    pose proof (IH _ _ _ _ ltac:(eassumption) HG) as Hd. rewrite ndim_rn_edom in Hd.
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ Hd
                  (has_deriv_fR f _ ltac:(rewrite length_nvec; apply ndim_rn_edom))) as Hc.
    eapply has_deriv_ext; [| |exact Hc]; cbn beta.
    + intros v _. destruct (pv_def a Γ _ G v Ha ltac:(eassumption)) as [y E].
      cbn [pv]. rewrite E. cbn [pval]. rewrite nvec_fsem. reflexivity.
    + intros h _. destruct (fw_def a Γ _ G T h Ha ltac:(eassumption)) as (y & d & E).
      rewrite (fw_point a G T h y d E). cbn [fw]. rewrite E. cbn [pval ptan].
      rewrite nvec_fjac. reflexivity.
  - (* fo_let *)
    rename σ into B.
    pose (G' := fun n => match n with 0 => fun u => pval (pv (penv G u) e) | S k => G k end).
    pose (T' := fun n => match n with 0 => fun h => ptan (fw (tenv G T h) e) | S k => T k end).
    assert (HG' : denv (B :: Γ) G' T').
    { intros [|k] C HC; simpl in HC.
      - injection HC as <-. split; [exact (IHe _ _ _ _ ltac:(eassumption) HG)|]. split.
        + intros u. exact (pval_ty e Γ B G T u He ltac:(eassumption) HG).
        + intros h. exact (ptan_ty e Γ B G T h He ltac:(eassumption) HG).
      - exact (HG k C HC). }
    pose proof (IHl _ _ _ _ ltac:(eassumption) HG') as Hc.
    eapply has_deriv_ext; [| |exact Hc]; cbn beta.
    + intros v _. destruct (pv_def e Γ B G v He ltac:(eassumption)) as [y E].
      assert (Eq : pv (penv G' v) l = pv (econs (Some y) (penv G v)) l).
      { apply pv_ext. intros [|k]; unfold penv, econs, G'; [rewrite E|]; reflexivity. }
      cbn [pv]. rewrite E, Eq. reflexivity.
    + intros h _. destruct (fw_def e Γ B G T h He ltac:(eassumption)) as (y & d & E).
      assert (Eq : fw (tenv G' T' h) l = fw (econs (Some (y, d)) (tenv G T h)) l).
      { apply fw_ext. intros [|k]; unfold tenv, econs, G', T';
          [rewrite (fw_point e G T h y d E), E|]; reflexivity. }
      cbn [fw]. rewrite E, Eq. reflexivity.
Qed.

End body.

(** ** The body [λy.P] of a query as a map of ℝⁿ *)

(** [⟦λy.P⟧ : ℝ^{ndim σ} → ℝ^{ndim τ}]: the point of [P] when [y] is the
    tuple of type [σ] read off the input.  It is defined by evaluation of
    the first-order body ([pv]), not by the reductions. *)
Definition pb_den (σ τ : ty) (P : tm) (u : vec) : vec :=
  nvec τ (pval (pv (econs (Some (vecn σ u)) enil) P)).

(** The environment of a body with one free variable. *)
Definition G1 (σ : ty) (n : nat) (u : vec) : nm := match n with 0 => vecn σ u | S _ => NZ end.

Lemma denv_one σ x : length x = ndim σ -> denv (ndim σ) x [σ] (G1 σ) (G1 σ).
Proof.
  intros Hx [|k] A HA; simpl in HA; [|destruct k; discriminate].
  injection HA as <-. split; [|split; intros; apply vecn_ty].
  assert (Hid : lin (ndim σ) (ndim σ) (fun v => v)).
  { constructor; [intros v Hv; exact Hv|intros; reflexivity|intros; reflexivity]. }
  eapply has_deriv_ext; [| |exact (has_deriv_lin _ _ _ x Hid Hx)]; simpl;
    intros v Hv; symmetry; apply nvec_vecn; exact Hv.
Qed.

(** The forward tangent [fwd_at P r0 v] of [query_transpose.v] is the
    derivative of [⟦λy.P⟧] at [r0]: on a first-order body, at a point [r0]
    of ℝⁿ (no [NZ] in it), [h ↦ J P(r0) · h] is the Fréchet derivative. *)
Theorem fwd_at_deriv P σ τ (r0 : num R) :
  fo P -> typed [σ] P τ -> num_ty r0 σ -> dense r0 ->
  has_deriv (ndim σ) (ndim τ) (pb_den σ τ P) (nvec σ r0)
    (fun h => nvec τ (ptan (fwd_at P r0 (vecn σ h)))).
Proof.
  intros Hfo HP Hr Hd.
  set (x := nvec σ r0).
  assert (Hx : length x = ndim σ) by apply length_nvec.
  pose proof (fo_has_deriv (ndim σ) x Hx P Hfo [σ] τ (G1 σ) (G1 σ) HP (denv_one σ x Hx)) as H.
  eapply has_deriv_ext; [| |exact H]; cbn beta.
  - intros v _. unfold pb_den.
    destruct (pv_def P [σ] τ (G1 σ) v Hfo HP) as [y E]. rewrite E.
    destruct (fw_total P Hfo [σ] τ (econs (Some (vecn σ v, NZ)) enil) HP) as [[y' d'] E'].
    { intros [|k] B Hk; simpl in Hk; [eexists; reflexivity|destruct k; discriminate]. }
    assert (Ep : pv (econs (Some (vecn σ v)) enil) P = Some y').
    { rewrite (pv_ext P _ (@efst Rsig (econs (Some (vecn σ v, NZ)) enil))) by (intros [|k]; reflexivity).
      rewrite fw_pv, E'. reflexivity. }
    assert (Es : esub (econs (Some (vecn σ v)) enil) (penv (G1 σ) v)).
    { intros [|n] z Hn; [exact Hn|discriminate]. }
    rewrite Ep. rewrite (pv_mono P _ _ y' Es Ep) in E. injection E as ->. reflexivity.
  - intros h _.
    assert (Ef : fwd_at P r0 (vecn σ h) = fw (tenv x (G1 σ) (G1 σ) h) P).
    { unfold fwd_at.
      destruct (fw_total P Hfo [σ] τ (econs (Some (r0, vecn σ h)) enil) HP) as [[y d] E].
      { intros [|k] B Hk; simpl in Hk; [eexists; reflexivity|destruct k; discriminate]. }
      transitivity (Some (y, d)); [exact E|].
      symmetry. apply (fw_mono P (econs (Some (r0, vecn σ h)) enil) _ (y, d)); [|exact E].
      intros [|n] z Hn; simpl in Hn; [|discriminate].
      unfold tenv, G1, x. rewrite vecn_nvec by assumption. exact Hn. }
    rewrite Ef. reflexivity.
Qed.

(** ** Corollary 4.8(1) in ℝ: a query computes the real gradient

    A first-order body [y : σ ⊢ P : τ] over the executable signature, a
    covector [e] of [τ] (the 1-form [λx. e*]) and a point [r0] of ℝⁿ: if
    the query [((Ω λy.P) · (λx. e* )) r0] reduces to [r*], then [r] is the
    transposed Jacobian of [⟦λy.P⟧] at [r0] applied to [e]: there is a
    Fréchet derivative [L] of [⟦λy.P⟧] at [r0] with [⟨h, r⟩ = ⟨L h, e⟩]
    for every [h] of ℝⁿ, that is, [r = (J ⟦λy.P⟧(r0))ᵀ e], the gradient of
    [⟨e, ⟦λy.P⟧⟩].  (The derivative is unique, so [r] is determined.)

    Informal proof: [query_transpose_fo] (the reductions compute the
    transpose of the formal forward tangent, over any commutative semiring
    with adjoint Jacobians) at the real signature, whose semiring laws and
    adjointness are [Rsr], [Rjac_adjoint]; and [fwd_at_deriv] (the formal
    forward tangent is the real derivative).  The pairings of numeric
    tuples are the inner products of ℝⁿ ([dot_nvec]). *)
Theorem query_gradient P (e r0 r : num R) σ τ :
  fo P -> typed [σ] P τ -> num_ty e τ -> num_ty r0 σ -> dense r0 ->
  steps (App (Pb P (Lam (NDual e))) (num_tm r0)) (NDual r) ->
  exists L, has_deriv (ndim σ) (ndim τ) (pb_den σ τ P) (nvec σ r0) L /\
    forall h, length h = ndim σ -> vec.dot h (nvec σ r) = vec.dot (L h) (nvec τ e).
Proof.
  intros Hfo HP He Hr Hd Hs.
  assert (Hq : typed [] (App (Pb P (Lam (NDual e))) (num_tm r0)) (TDual σ)).
  { apply typed_app with σ; [|apply typed_num; exact Hr].
    apply typed_pb with τ; [exact HP|]. apply typed_lam. apply typed_ndual. exact He. }
  assert (Hrt : num_ty r σ).
  { pose proof (steps_typed _ _ _ _ Hs Hq) as H. inversion H; subst. assumption. }
  exists (fun h => nvec τ (ptan (fwd_at P r0 (vecn σ h)))). split.
  - exact (fwd_at_deriv P σ τ r0 Hfo HP Hr Hd).
  - intros h Hh.
    destruct (query_transpose_fo (Σ := Rsig) (1 : R) Rsr Rjac_adjoint P e r0 r σ (vecn σ h) Hfo Hq Hs
                (vecn_ty σ h)) as (y & dy & Ef & Edot).
    destruct (fw_ty (Σ := Rsig) [σ] P τ HP _ y dy (fenv_one (Σ := Rsig) σ r0 (vecn σ h) Hr (vecn_ty σ h)) Ef)
      as [_ Hdy].
    rewrite Ef. cbn [ptan].
    rewrite dot_comm, <- (nvec_vecn σ h Hh) at 1.
    rewrite <- (dot_nvec r (vecn σ h) σ Hrt (vecn_ty σ h)), Edot, (dot_nvec e dy τ He Hdy).
    apply dot_comm.
Qed.

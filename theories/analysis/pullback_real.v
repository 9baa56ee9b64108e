(** * Pullback queries compute real gradients (Corollary 4.8(1) in ℝ)

    Draft. *)
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
Fixpoint dim (A : ty) : nat :=
  match A with
  | TR => 1
  | TProd A B => dim A + dim B
  | _ => 0
  end.

Fixpoint flat (A : ty) (x : nm) : vec :=
  match A with
  | TR => [ecp Ro x]
  | TProd A B => flat A (fst (nsplit x)) ++ flat B (snd (nsplit x))
  | _ => []
  end.

Fixpoint unflat (A : ty) (v : vec) : nm :=
  match A with
  | TR => NR (v@@0)
  | TProd A B => NP (unflat A (firstn (dim A) v)) (unflat B (skipn (dim A) v))
  | _ => NZ
  end.

Lemma length_flat A x : length (flat A x) = dim A.
Proof. revert x. induction A; intros x; simpl; auto. rewrite app_length, IHA1, IHA2. reflexivity. Qed.

Lemma flat_unflat A v : length v = dim A -> flat A (unflat A v) = v.
Proof.
  revert v. induction A; intros v Hv; simpl in *.
  - destruct v as [|a [|]]; try discriminate. reflexivity.
  - rewrite IHA1, IHA2 by (rewrite ?firstn_length, ?skipn_length; lia). apply firstn_skipn.
  - destruct v; [reflexivity|discriminate].
  - destruct v; [reflexivity|discriminate].
Qed.

Lemma unflat_ty A v : num_ty (unflat A v) A.
Proof. revert v. induction A; intros v; simpl; constructor; auto. Qed.

Lemma unflat_flat x A : num_ty x A -> dense x -> unflat A (flat A x) = x.
Proof.
  induction 1; simpl; intros Hd; [reflexivity| |contradiction].
  destruct Hd as [Ha Hb].
  rewrite firstn_app_exact, skipn_app_exact by apply length_flat.
  rewrite IHnum_ty1, IHnum_ty2 by assumption. reflexivity.
Qed.

Lemma flat_nz A : flat A NZ = zeros (dim A).
Proof.
  induction A; simpl; auto. rewrite IHA1, IHA2. unfold zeros. rewrite repeat_app. reflexivity.
Qed.

Lemma vp_zeros_l v n : length v = n -> vp (zeros n) v = v.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma vp_zeros_r v n : length v = n -> vp v (zeros n) = v.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma flat_nadd x y A : num_ty x A -> num_ty y A -> flat A (nadd x y) = vp (flat A x) (flat A y).
Proof.
  intros Hx. revert y. induction Hx; intros y Hy.
  - inversion Hy; subst; cbn; f_equal; rs; ring.
  - inversion Hy; subst.
    + simpl. rewrite IHHx1, IHHx2 by assumption.
      rewrite vp_app by (rewrite !length_flat; reflexivity). reflexivity.
    + rewrite flat_nz, vp_zeros_r by apply length_flat. reflexivity.
  - rewrite flat_nz, vp_zeros_l by apply length_flat. reflexivity.
Qed.

Lemma flat_comp_l A B x : flat A (comp false x) = firstn (dim A) (flat (TProd A B) x).
Proof. unfold comp. simpl. destruct (nsplit x). rewrite firstn_app_exact by apply length_flat. reflexivity. Qed.

Lemma flat_comp_r A B x : flat B (comp true x) = skipn (dim A) (flat (TProd A B) x).
Proof. unfold comp. simpl. destruct (nsplit x). rewrite skipn_app_exact by apply length_flat. reflexivity. Qed.

(** The pairing of [transpose.v] is the inner product of ℝⁿ. *)
Lemma dot_flat a c A : num_ty a A -> num_ty c A -> transpose.dot a c = vec.dot (flat A a) (flat A c).
Proof.
  intros Ha. revert c. induction Ha; intros c Hc.
  - inversion Hc; subst; cbn; rs; ring.
  - inversion Hc; subst; simpl.
    + rewrite IHHa1, IHHa2 by assumption. rewrite dot_app by (rewrite !length_flat; reflexivity).
      reflexivity.
    + rewrite !flat_nz, dot_app by (rewrite length_flat, length_zeros; reflexivity).
      rewrite !dot_zeros_r. rs. ring.
  - rewrite flat_nz, dot_zeros_l. destruct c; reflexivity.
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

Lemma dim_rn_edom f : dim (Rn (edom f)) = edom f.
Proof. destruct f; reflexivity. Qed.

Lemma flat_esem f y : flat TR (esem Ro f y) = fR f (flat (Rn (edom f)) y).
Proof. destruct f; simpl; try reflexivity; destruct y; reflexivity. Qed.

Lemma flat_ejac f y v : flat TR (ejac Ro f y v) = dfR f (flat (Rn (edom f)) y) (flat (Rn (edom f)) v).
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

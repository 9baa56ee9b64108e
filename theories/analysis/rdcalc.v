(** * The rules of the reverse derivative (Fig. 4) as theorems of ℝⁿ

    For maps of flat vectors, the reverse derivative of a variable is a
    one-hot vector, of a constant 0, of a sum the sum, of a tuple the sum of
    its components' (each on its block of the cotangent), of a composite
    [f(M)] the reverse derivative of [M] at the reverse derivative of [f]
    (R-Fun), and of [let y ← M in N] the rule R-Let.  These are the facts
    a denotational proof of the rewriting [W.R_V(x.N)] rests on. *)
From Coq Require Import Reals Lra List Lia.
From RevHandlers.Analysis Require Import vec templates.
Import ListNotations.
Open Scope R_scope.

(** R-Var: a coordinate block [x_i] of [x]; its reverse derivative puts the
    cotangent in block [i] and zeros elsewhere. *)
Theorem rd_proj n k d x : (k + d <= n)%nat -> length x = n ->
  is_rev_deriv n d (proj k d) x (fun y => zeros k ++ y ++ zeros (n - k - d)).
Proof.
  intros Hkd Hx. exists (proj k d). split; [apply has_deriv_proj; auto|]. split.
  - intros y Hy. rewrite !app_length, !length_zeros. lia.
  - intros h y Hh Hy. rewrite (dot_split3 k d (n - k - d)) by (rewrite ?length_zeros; auto; lia).
    rewrite !dot_zeros_r. ring.
Qed.

(** R-Const: a constant map. *)
Theorem rd_const n m (C : vec) x : length C = m -> length x = n ->
  is_rev_deriv n m (fun _ => C) x (fun _ => zeros n).
Proof.
  intros HC Hx. exists (fun _ => zeros m). split.
  - split; [auto|]. split; [intros v _; auto|]. split.
    + constructor.
      * intros v _. apply length_zeros.
      * intros h k _ _. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
        intros i. rewrite nth_vp, !nth_zeros. ring.
      * intros a h _. apply vec_ext; [rewrite length_vs; auto|]. intros i. rewrite nth_vs, nth_zeros. ring.
    + intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
      rewrite norm1_0; [pose proof (norm1_nonneg h); nra|]. intros i. rewrite !nth_vm, nth_zeros. ring.
  - split; [intros y _; apply length_zeros|]. intros h y _ _. rewrite dot_zeros_l, dot_zeros_r. reflexivity.
Qed.

(** The identity. *)
Theorem rd_id n x : length x = n -> is_rev_deriv n n (fun v => v) x (fun y => y).
Proof.
  intros Hx. exists (fun v => v). split.
  - apply has_deriv_lin; auto. constructor; auto. intros v Hv. auto.
  - split; [intros y Hy; auto|]. intros. reflexivity.
Qed.

(** R-Fun (the chain rule): [W.R(x.f(M)) = let w ← rd[f](M, W) in w.R(x.M)]. *)
Theorem rd_comp n m p f g x rf rg :
  is_rev_deriv n m g x rg -> is_rev_deriv m p f (g x) rf ->
  is_rev_deriv n p (fun v => f (g v)) x (fun y => rg (rf y)).
Proof.
  intros [Lg [Hg [Hrg Ag]]] [Lf [Hf [Hrf Af]]]. exists (fun h => Lf (Lg h)). split.
  - eapply has_deriv_comp; eauto.
  - split.
    + intros y Hy. apply Hrg, Hrf. auto.
    + intros h y Hh Hy. destruct Hg as [_ [_ [HLg _]]].
      rewrite Af, Ag; auto. apply (lin_len _ _ _ HLg). auto.
Qed.

(** R-Add: the sum of two maps. *)
Theorem rd_add n m f g x rf rg :
  is_rev_deriv n m f x rf -> is_rev_deriv n m g x rg ->
  is_rev_deriv n m (fun v => vp (f v) (g v)) x (fun y => vp (rf y) (rg y)).
Proof.
  intros [Lf [Hf [Hrf Af]]] [Lg [Hg [Hrg Ag]]]. exists (fun h => vp (Lf h) (Lg h)). split.
  - apply has_deriv_vp; auto.
  - split.
    + intros y Hy. rewrite length_vp, Hrf, Hrg; auto. lia.
    + intros h y Hh Hy. rewrite dot_vp_l, dot_vp_r, Af, Ag; auto.
Qed.

(** R-Tuple: a pair of maps; the cotangent is split in its two blocks. *)
Theorem rd_pair n m p f g x rf rg :
  is_rev_deriv n m f x rf -> is_rev_deriv n p g x rg ->
  is_rev_deriv n (m + p) (fun v => f v ++ g v) x
    (fun y => vp (rf (proj 0 m y)) (rg (proj m p y))).
Proof.
  intros [Lf [Hf [Hrf Af]]] [Lg [Hg [Hrg Ag]]]. exists (fun h => Lf h ++ Lg h). split.
  - apply has_deriv_pair; auto.
  - split.
    + intros y Hy. rewrite length_vp, Hrf, Hrg; try (apply length_proj; lia). lia.
    + intros h y Hh Hy. destruct Hf as [_ [_ [HLf _]]].
      rewrite (split2 m p y) at 1 by auto.
      rewrite dot_app by (rewrite length_proj by lia; apply (lin_len _ _ _ HLf); auto).
      rewrite dot_vp_r, Af, Ag; auto; apply length_proj; lia.
Qed.

(** R-Let: [W.R(x. let y ← M in N) = let p ← W.R_{(M, x)}(<y, x>.N) in
    p_x + p_y.R(x.M)], with [N] a map of [(y, x)]. *)
Theorem rd_let n m p M N x rM rN :
  is_rev_deriv n m M x rM -> is_rev_deriv (m + n) p N (M x ++ x) rN ->
  is_rev_deriv n p (fun v => N (M v ++ v)) x
    (fun w => vp (rM (proj 0 m (rN w))) (proj m n (rN w))).
Proof.
  intros HM HN.
  assert (Hx : length x = n) by (destruct HM as [? [[? _] _]]; auto).
  pose proof (rd_pair _ _ _ _ _ _ _ _ HM (rd_id n x Hx)) as HP.
  exact (rd_comp _ _ _ N _ x rN _ HP HN).
Qed.

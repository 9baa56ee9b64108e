(** * The derivative and the reverse derivative are unique

    Two derivatives of [f] at [x] agree on every vector of the right
    length, and so do two reverse derivatives.  This is what turns "the
    value of an [rd] term is a reverse derivative" ([rd_eval_rev_deriv],
    [rdsound_eval.v]) into "it is this vector" (e.g. [y ⊙ swish'(u)] for
    [RH-4]'s [rd] of [swish], which a proof that one run of the evaluator
    computes [mlp_train] needs; docs/decisions.md, "Backpropagation at
    every size"). *)
From Coq Require Import Reals Lra List Lia.
From RevHandlers.Analysis Require Import vec sums mlp_grad.
Import ListNotations.
Open Scope R_scope.

(** [a ≤ ε·b] for every [ε > 0], with [b ≥ 0], forces [a ≤ 0]. *)
Lemma le_all_eps a b : 0 <= b -> (forall eps, 0 < eps -> a <= eps * b) -> a <= 0.
Proof.
  intros Hb H. destruct (Rle_or_lt a 0) as [Ha|Ha]; [exact Ha|].
  destruct (Req_dec b 0) as [->|Hb0].
  - specialize (H 1 ltac:(lra)). lra.
  - assert (Hbp : 0 < b) by lra.
    specialize (H (a / (2 * b)) ltac:(apply Rdiv_lt_0_compat; lra)).
    replace (a / (2 * b) * b) with (a / 2) in H by (field; lra). lra.
Qed.

Lemma has_deriv_unique n m f x L1 L2 :
  has_deriv n m f x L1 -> has_deriv n m f x L2 -> forall h, length h = n -> L1 h = L2 h.
Proof.
  intros [Hx [Hf [HL1 D1]]] [_ [_ [HL2 D2]]] h Hh.
  set (d := vm (L1 h) (L2 h)).
  assert (Hd : norm1 d <= 0).
  { apply (le_all_eps _ (2 * norm1 h)); [pose proof (norm1_nonneg h); lra|].
    intros eps Heps.
    destruct (D1 eps Heps) as [d1 [Hd1 H1]]. destruct (D2 eps Heps) as [d2 [Hd2 H2]].
    set (t := Rmin d1 d2 / (2 * (norm1 h + 1))).
    pose proof (norm1_nonneg h) as Hn.
    assert (Hmin : 0 < Rmin d1 d2) by (apply Rmin_pos; auto).
    assert (Ht : 0 < t) by (unfold t; apply Rdiv_lt_0_compat; lra).
    set (th := vs t h).
    assert (Hth : length th = n) by (unfold th; rewrite length_vs; auto).
    assert (Hnth : norm1 th = t * norm1 h) by (unfold th; rewrite norm1_vs, Rabs_pos_eq; lra).
    assert (Hsmall : norm1 th < Rmin d1 d2).
    { rewrite Hnth. assert (t * norm1 h <= t * (norm1 h + 1)) by nra.
      assert (t * (norm1 h + 1) = Rmin d1 d2 / 2) by (unfold t; field; lra). lra. }
    specialize (H1 th Hth ltac:(pose proof (Rmin_l d1 d2); lra)).
    specialize (H2 th Hth ltac:(pose proof (Rmin_r d1 d2); lra)).
    assert (E : vm (L1 th) (L2 th) = vs t d).
    { unfold th, d. rewrite (lin_scal _ _ _ HL1), (lin_scal _ _ _ HL2) by auto.
      apply vec_ext; [rewrite length_vm, !length_vs, length_vm; lia|].
      intros i. rewrite nth_vm, !nth_vs, nth_vm. ring. }
    assert (Hle : norm1 (vm (L1 th) (L2 th)) <=
                  norm1 (vm (vm (f (vp x th)) (f x)) (L1 th)) + norm1 (vm (vm (f (vp x th)) (f x)) (L2 th))).
    { apply norm1_le2. intros i. rewrite !nth_vm.
      replace ((L1 th)@@i - (L2 th)@@i) with
        (- ((f (vp x th))@@i - (f x)@@i - (L1 th)@@i) + ((f (vp x th))@@i - (f x)@@i - (L2 th)@@i)) by ring.
      eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_Ropp. lra. }
    rewrite E, norm1_vs, Rabs_pos_eq in Hle by lra.
    assert (t * norm1 d <= t * (2 * eps * norm1 h)) by nra.
    apply Rmult_le_reg_l in H; [lra|exact Ht]. }
  assert (Hd0 : forall i, d@@i = 0).
  { intros i. pose proof (norm1_nth_le d i). pose proof (Rabs_pos (d@@i)).
    destruct (Req_dec (d@@i) 0) as [E0|E0]; [exact E0|].
    pose proof (Rabs_pos_lt _ E0). lra. }
  apply vec_ext.
  - rewrite (lin_len _ _ _ HL1), (lin_len _ _ _ HL2); auto.
  - intros i. specialize (Hd0 i). unfold d in Hd0. rewrite nth_vm in Hd0. lra.
Qed.

Lemma is_rev_deriv_unique n m f x r1 r2 :
  is_rev_deriv n m f x r1 -> is_rev_deriv n m f x r2 -> forall y, length y = m -> r1 y = r2 y.
Proof.
  intros [L1 [HD1 [Hr1 A1]]] [L2 [HD2 [Hr2 A2]]] y Hy.
  apply vec_ext; [rewrite Hr1, Hr2; auto|].
  intros i. destruct (Nat.lt_ge_cases i n) as [Hi|Hi].
  - assert (He : length (ek n i) = n) by apply length_tab.
    rewrite <- (dot_ek n i (r1 y)), <- (dot_ek n i (r2 y)) by exact Hi.
    rewrite <- A1, <- A2 by auto. f_equal. apply (has_deriv_unique n m f x); auto.
  - rewrite !nth_overflow by (rewrite ?Hr1, ?Hr2; auto; lia). reflexivity.
Qed.

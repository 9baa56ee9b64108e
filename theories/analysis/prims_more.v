(** * Correctness on a set; [relu] and [log]

    [rd_correct_on k p D] is [rd_correct_at k p] restricted to the points
    [x] with [D x]: there, [rd^{k+1}[p](x, ·)] is the reverse derivative of
    [rd^k[p]] at [x].  The primitives not covered everywhere by
    [prim_rd_correct] are covered on an open set on which they are
    differentiable (this file, [sce.v], [maxpool.v]; all together in
    [prims_all.v]):

    - [relu] off 0 (every coordinate nonzero), for [k = 0, 1].  At 0,
      [relu] has no derivative; the instance's [relu'(0) = 0] is a
      convention ([relu_not_derivable_0] shows there is no other choice
      to be made: no number is the derivative there).
    - [log] on the positive coordinates for [k = 0] (Coq's [ln] is [0] on
      [x ≤ 0], whose derivative is not [1/x]); for [k = 1], [rd[log]]
      involves [1/x] only, differentiable on every nonzero coordinate,
      a larger set.
    - [maxpool] where the maximum of every window is attained at one
      position only ([windows_strict]): there the argmax of every window
      is locally constant, so [maxpool] is locally the linear map that
      gathers the argmax positions ([k = 0, 1]; [maxpool.v]).
    - [sce] everywhere ([sce.v]): the max-shifted [logsumexp] of the instance equals
      the unshifted [ln Σ exp z_j] ([logsumexp_unshifted]), a smooth
      function, and likewise [softmax] ([softmax_unshifted]). *)
From RevHandlers.Analysis Require Import base vec templates sums prims round.
Open Scope R_scope.

(** ** Correctness on a domain *)
Definition rd_correct_on (k : nat) (p : prim) (D : vec -> Prop) : Prop :=
  forall x, length x = pdom k p -> D x ->
    is_rev_deriv (pdom k p) (pcod k p) (prim_fun k p) x (fun y => prim_fun (S k) p (x ++ y)).

Lemma rd_correct_on_all k p : rd_correct_at k p <-> rd_correct_on k p (fun _ => True).
Proof. split; intros H x Hx; [intros _|]; apply H; auto. Qed.

Lemma rd_from_template_on k p n m f r (D : vec -> Prop) :
  pdom k p = n -> pcod k p = m ->
  (forall v, length v = n -> prim_fun k p v = f v) ->
  (forall v, length v = (n + m)%nat -> prim_fun (S k) p v = r v) ->
  (forall x, length x = n -> D x -> is_rev_deriv n m f x (fun y => r (x ++ y))) ->
  rd_correct_on k p D.
Proof.
  intros Hn Hm Hf Hr H x Hx HD. rewrite Hn, Hm in *.
  eapply is_rev_deriv_ext; [| |apply (H x Hx HD)].
  - intros v Hv. symmetry. auto.
  - intros y Hy. symmetry. apply Hr. rewrite app_length. lia.
Qed.

(** Every one of the first [n] coordinates satisfies [P]. *)
Definition coords (P : R -> Prop) (n : nat) (x : vec) : Prop := forall i, (i < n)%nat -> P (x@@i).

(** ** Pointwise maps on a domain: [pw_rd0], [pw_rd1] with the derivatives
    needed only at the coordinates of the point *)
Section pointwise_on.
Variables (n : nat) (p : prim) (f f1 f2 : R -> R) (D0 D1 : R -> Prop).
Hypotheses (Hd1 : forall a, D0 a -> is_derive f a (f1 a)) (Hd2 : forall a, D1 a -> is_derive f1 a (f2 a))
  (Hdom0 : pdom 0 p = n) (Hcod0 : pcod 0 p = n) (Hdom1 : pdom 1 p = (n + n)%nat) (Hcod1 : pcod 1 p = n)
  (Hf0 : forall v, length v = n -> prim_fun 0 p v = map f v)
  (Hf1 : forall v, length v = (n + n)%nat -> prim_fun 1 p v = pw1 n f1 v)
  (Hf2 : forall v, length v = (n + n + n)%nat -> prim_fun 2 p v = pw2 n f1 f2 v).

Lemma pw_rd0_on : rd_correct_on 0 p (coords D0 n).
Proof.
  apply (rd_from_template_on 0 _ n n (map f) (pw1 n f1)); auto.
  intros x Hx HD. exists (vmul (map f1 x)). split.
  - apply has_deriv_map; auto.
  - assert (E : forall y, length y = n -> pw1 n f1 (x ++ y) = vmul y (map f1 x)).
    { intros y Hy. unfold pw1. rewrite (proj_app_l 0 n), (proj_app_r n n) by lia. unfold proj. simpl.
      rewrite !firstn_all2 by lia. reflexivity. }
    split.
    + intros y Hy. rewrite E by auto. rewrite length_vmul, map_length. lia.
    + intros h y Hh Hy. rewrite E by auto. rewrite dot_vmul, vmul_comm. reflexivity.
Qed.

Lemma pw_rd1_on : rd_correct_on 1 p (coords D1 n).
Proof.
  apply (rd_from_template_on 1 _ (n + n) n (pw1 n f1) (pw2 n f1 f2)); auto.
  intros x Hx HD.
  set (x0 := proj 0 n x). set (u0 := proj n n x).
  assert (Hx0 : length x0 = n) by (apply length_proj; lia).
  assert (Hu0 : length u0 = n) by (apply length_proj; lia).
  assert (HD' : forall i, (i < n)%nat -> is_derive f1 (x0@@i) (f2 (x0@@i))).
  { intros i Hi. apply Hd2. unfold x0, proj. simpl. rewrite nth_firstn_lt by auto. apply HD. auto. }
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (has_deriv_proj (n + n) 0 n x ltac:(lia) Hx)
                (has_deriv_map n f1 f2 x0 Hx0 HD')) as HG.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n)
                (has_deriv_proj (n + n) n n x ltac:(lia) Hx) HG) as HDe.
  eexists. split; [exact HDe|].
  assert (E : forall y, length y = n -> pw2 n f1 f2 (x ++ y) =
    vmul y (vmul u0 (map f2 x0)) ++ vmul y (map f1 x0)).
  { intros y Hy. unfold pw2. rewrite (proj_app_l 0 n), (proj_app_l n n), (proj_app_r (n + n) n) by lia.
    rewrite firstn_all2 by lia. reflexivity. }
  split.
  - intros y Hy. rewrite E by auto. rewrite app_length, !length_vmul, !map_length. lia.
  - intros h y Hh Hy. rewrite E by auto.
    rewrite (dot_split2 n n) by (rewrite ?length_vmul, ?map_length; lia).
    fold x0 u0. rewrite dot_vp_l.
    rewrite (vmul_comm (proj n n h)), dot_vmul, dot_vmul, dot_vmul.
    rewrite (vmul_comm (map f1 x0) y).
    replace (vmul (map f2 x0) (vmul u0 y)) with (vmul y (vmul u0 (map f2 x0))).
    + ring.
    + apply vec_ext; [rewrite !length_vmul, !map_length; lia|].
      intros i. rewrite !nth_vmul. ring.
Qed.
End pointwise_on.

(** A function equal to an affine one near [a] has its slope as derivative. *)
Lemma is_derive_loc_affine (f : R -> R) a l :
  (exists d, 0 < d /\ forall h, Rabs h < d -> f (a + h) = f a + l * h) -> is_derive f a l.
Proof.
  intros [d [Hd H]]. apply is_derive_Reals. intros eps Heps. exists (mkposreal d Hd).
  intros h Hh0 Hh. simpl in Hh. rewrite H by auto.
  replace ((f a + l * h - f a) / h - l) with 0 by (field; auto). rewrite Rabs_R0. auto.
Qed.

(** ** relu, off 0 *)
Lemma relu_pos a : 0 < a -> relu Rsc a = a.
Proof. intros H. unfold relu. simpl. destruct (Rlt_dec a 0); [lra|auto]. Qed.
Lemma relu_neg a : a < 0 -> relu Rsc a = 0.
Proof. intros H. unfold relu. simpl. destruct (Rlt_dec a 0); [auto|lra]. Qed.
Lemma relu'_pos a : 0 < a -> relu' Rsc a = 1.
Proof. intros H. unfold relu'. simpl. destruct (Rlt_dec 0 a); [auto|lra]. Qed.
Lemma relu'_nonpos a : a <= 0 -> relu' Rsc a = 0.
Proof. intros H. unfold relu'. simpl. destruct (Rlt_dec 0 a); [lra|auto]. Qed.

(** Near a nonzero [a], [relu] and [relu'] are affine. *)
Lemma relu_near a : a <> 0 -> exists d, 0 < d /\ forall h, Rabs h < d ->
  relu Rsc (a + h) = relu Rsc a + relu' Rsc a * h /\ relu' Rsc (a + h) = relu' Rsc a + 0 * h.
Proof.
  intros Ha. exists (Rabs a). split; [apply Rabs_pos_lt; auto|]. intros h Hh.
  destruct (Rlt_dec 0 a) as [Hp|Hn].
  - rewrite (Rabs_pos_eq a) in Hh by lra. apply Rabs_def2 in Hh.
    rewrite !relu_pos, !relu'_pos by lra. split; ring.
  - assert (a < 0) by lra. rewrite (Rabs_left a) in Hh by lra. apply Rabs_def2 in Hh.
    rewrite !relu_neg, !relu'_nonpos by lra. split; ring.
Qed.

Lemma is_derive_relu a : a <> 0 -> is_derive (relu Rsc) a (relu' Rsc a).
Proof.
  intros Ha. apply is_derive_loc_affine. destruct (relu_near a Ha) as [d [Hd H]].
  exists d. split; auto. intros h Hh. apply H; auto.
Qed.

Lemma is_derive_relu' a : a <> 0 -> is_derive (relu' Rsc) a 0.
Proof.
  intros Ha. apply is_derive_loc_affine. destruct (relu_near a Ha) as [d [Hd H]].
  exists d. split; auto. intros h Hh. apply H; auto.
Qed.

(** [relu] has no derivative at 0 (its difference quotients are 0 on the
    left and 1 on the right), so the instance's [relu'(0) = 0] is a
    convention, not a derivative. *)
Lemma relu_not_derivable_0 l : ~ is_derive (relu Rsc) 0 l.
Proof.
  intros H. apply is_derive_Reals in H. destruct (H (/ 2) ltac:(lra)) as [d Hd].
  pose proof (cond_pos d) as Hd0.
  set (h := d / 2). assert (Hh : 0 < h) by (unfold h; lra).
  assert (Hhd : Rabs h < d) by (rewrite Rabs_pos_eq by lra; unfold h; lra).
  assert (Hhd' : Rabs (- h) < d) by (rewrite Rabs_Ropp; auto).
  pose proof (Hd h ltac:(lra) Hhd) as H1. pose proof (Hd (- h) ltac:(lra) Hhd') as H2.
  rewrite Rplus_0_l, relu_pos in H1 by lra. rewrite Rplus_0_l, relu_neg in H2 by lra.
  replace (relu Rsc 0) with 0 in H1, H2 by (unfold relu; simpl; destruct (Rlt_dec 0 0); lra).
  replace ((h - 0) / h - l) with (1 - l) in H1 by (field; lra).
  replace ((0 - 0) / - h - l) with (- l) in H2 by (field; lra).
  apply Rabs_def2 in H1. apply Rabs_def2 in H2. lra.
Qed.

Section relu.
Variable n : nat.

Lemma relu_forms0 : forall v, length v = n -> prim_fun 0 (PRelu n) v = map (relu Rsc) v.
Proof. pw_forms. Qed.
Lemma relu_forms1 : forall v, length v = (n + n)%nat -> prim_fun 1 (PRelu n) v = pw1 n (relu' Rsc) v.
Proof. pw_forms. Qed.
Lemma relu_forms2 v : length v = (n + n + n)%nat ->
  prim_fun 2 (PRelu n) v = pw2 n (relu' Rsc) (fun _ => 0) v.
Proof.
  intros Hv. unfold prim_fun, pw2. simpl. rewrite app_nil_r, !vmul_inst. f_equal.
  apply vec_ext; [rewrite length_zeros, !length_vmul, map_length, !length_proj; lia|].
  intros i. rewrite nth_zeros, !nth_vmul, nth_map_0. ring.
Qed.

(** [rd[relu]] is the reverse derivative of [relu] at every point with no
    coordinate 0, and [rd²[relu]] that of [rd[relu]]. *)
Theorem relu_rd0 : rd_correct_on 0 (PRelu n) (coords (fun a => a <> 0) n).
Proof.
  apply (pw_rd0_on n _ (relu Rsc) (relu' Rsc) (fun a => a <> 0)); try prim_dims.
  - exact is_derive_relu.
  - exact relu_forms0.
  - exact relu_forms1.
Qed.

Theorem relu_rd1 : rd_correct_on 1 (PRelu n) (coords (fun a => a <> 0) n).
Proof.
  apply (pw_rd1_on n _ (relu' Rsc) (fun _ => 0) (fun a => a <> 0)); try prim_dims.
  - exact is_derive_relu'.
  - exact relu_forms1.
  - exact relu_forms2.
Qed.
End relu.

(** ** log: [k = 0] on the positive coordinates, [k = 1] on the nonzero ones *)
Lemma is_derive_ln' a : 0 < a -> is_derive ln a (log' Rsc a).
Proof. intros Ha. unfold log'. simpl. auto_derive; auto. Qed.

Lemma is_derive_log' a : a <> 0 -> is_derive (log' Rsc) a (log'' Rsc a).
Proof. intros Ha. unfold log', log''. simpl. auto_derive; auto. field. auto. Qed.

Section log.
Variable n : nat.

Theorem log_rd0 : rd_correct_on 0 (PLog n) (coords (fun a => 0 < a) n).
Proof.
  apply (pw_rd0_on n _ ln (log' Rsc) (fun a => 0 < a)); try prim_dims; try pw_forms.
  exact is_derive_ln'.
Qed.

Theorem log_rd1 : rd_correct_on 1 (PLog n) (coords (fun a => a <> 0) n).
Proof.
  apply (pw_rd1_on n _ (log' Rsc) (log'' Rsc) (fun a => a <> 0)); try prim_dims; try pw_forms.
  exact is_derive_log'.
Qed.

Corollary log_rd1_pos : rd_correct_on 1 (PLog n) (coords (fun a => 0 < a) n).
Proof. intros x Hx HD. apply log_rd1; auto. intros i Hi. specialize (HD i Hi). simpl in HD. lra. Qed.
End log.

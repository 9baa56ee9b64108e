(** * [rd²[p]] is differentiable

    The reverse derivative of a body that already contains [rd[p]] involves
    [rd²[p]] (the instance evaluates it); a denotational account of nested
    [rd] needs it differentiable.  It is, at every point, for every
    primitive but [maxpool] ([prim_level2_differentiable]); with
    [maxpool], [relu] and [log] on their domains, [prim_level2_diff_on]
    ([prims_all.v]). *)
From RevHandlers.Analysis Require Import base vec templates sums prims round rdcalc.
Open Scope R_scope.

Definition differentiable_at (n m : nat) (f : vec -> vec) (x : vec) : Prop :=
  exists L, has_deriv n m f x L.

Lemma has_deriv_dim n m1 m2 f x L : m1 = m2 -> has_deriv n m1 f x L -> has_deriv n m2 f x L.
Proof. intros ->. auto. Qed.

Lemma lin2_differentiable n m L x : lin n m L -> length x = (n + m + n)%nat ->
  differentiable_at (n + m + n) (n + m) (lin2 n m L) x.
Proof.
  intros HL Hx. exists (lin2 n m L). apply has_deriv_lin; auto. unfold lin2.
  apply (lin_pair (n + m + n) n m (fun _ => zeros n) (fun v => L (proj (n + m) n v))).
  - apply lin_zero.
  - apply (lin_comp _ n _ L (proj (n + m) n)); auto. apply lin_proj. lia.
Qed.

Lemma bil2_differentiable p q r B P Q x :
  bilin p q r B -> bilin r q p P -> bilin p r q Q -> length x = (p + q + r + (p + q))%nat ->
  differentiable_at (p + q + r + (p + q)) (p + q + r) (bil2 p q r B P Q) x.
Proof.
  intros HB HP HQ Hx. set (N := (p + q + r + (p + q))%nat).
  assert (Pr : forall k d, (k + d <= N)%nat -> has_deriv N d (proj k d) x (proj k d))
    by (intros; apply has_deriv_proj; auto).
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ HP (Pr (p + q)%nat r ltac:(unfold N; lia))
                (Pr (p + q + r + p)%nat q ltac:(unfold N; lia))) as D1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ HQ (Pr (p + q + r)%nat p ltac:(unfold N; lia))
                (Pr (p + q)%nat r ltac:(unfold N; lia))) as D2.
  pose proof (has_deriv_vp _ _ _ _ _ _ _
                (has_deriv_prod _ _ _ _ _ _ _ x _ _ HB (Pr (p + q + r)%nat p ltac:(unfold N; lia))
                   (Pr p q ltac:(unfold N; lia)))
                (has_deriv_prod _ _ _ _ _ _ _ x _ _ HB (Pr 0%nat p ltac:(unfold N; lia))
                   (Pr (p + q + r + p)%nat q ltac:(unfold N; lia)))) as D3.
  pose proof (has_deriv_pair _ _ _ _ _ _ _ _ D1 (has_deriv_pair _ _ _ _ _ _ _ _ D2 D3)) as D.
  eexists. apply has_deriv_dim with (p + (q + r))%nat; [lia|]. exact D.
Qed.

Lemma diff_from_form k p n m f :
  pdom k p = n -> pcod k p = m -> (forall v, length v = n -> prim_fun k p v = f v) ->
  (forall x, length x = n -> differentiable_at n m f x) ->
  forall x, length x = pdom k p -> differentiable_at (pdom k p) (pcod k p) (prim_fun k p) x.
Proof.
  intros Hn Hm Hf H x Hx. rewrite Hn, Hm in *. destruct (H x Hx) as [L HL]. exists L.
  eapply has_deriv_ext; [| |exact HL]; auto. intros v Hv. symmetry. auto.
Qed.

Lemma ex_derive_swish'' x : ex_derive (swish'' Rsc) x.
Proof.
  unfold swish'', sigm, two. simpl. auto_derive.
  pose proof (sigm_pos x). unfold Rminus in *. rewrite ?Rplus_0_l in *. lra.
Qed.

Lemma pw2_differentiable_on n f1 f2 x :
  (forall i, (i < n)%nat -> is_derive f1 (x@@i) (f2 (x@@i))) ->
  (forall i, (i < n)%nat -> ex_derive f2 (x@@i)) -> length x = (n + n + n)%nat ->
  differentiable_at (n + n + n) (n + n) (pw2 n f1 f2) x.
Proof.
  intros Hd2 He2 Hx. set (N := (n + n + n)%nat).
  assert (Pr : forall k d, (k + d <= N)%nat -> has_deriv N d (proj k d) x (proj k d))
    by (intros; apply has_deriv_proj; auto).
  assert (Hx0 : length (proj 0 n x) = n) by (apply length_proj; lia).
  assert (Hc : forall i, (i < n)%nat -> (proj 0 n x)@@i = x@@i)
    by (intros i Hi; unfold proj; simpl; apply nth_firstn_lt; auto).
  assert (H1 : forall i, (i < n)%nat -> is_derive f1 ((proj 0 n x)@@i) (f2 ((proj 0 n x)@@i)))
    by (intros i Hi; rewrite Hc; auto).
  assert (H2 : forall i, (i < n)%nat -> is_derive f2 ((proj 0 n x)@@i) (Derive f2 ((proj 0 n x)@@i)))
    by (intros i Hi; apply Derive_correct; rewrite Hc; auto).
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (Pr 0%nat n ltac:(unfold N; lia))
                (has_deriv_map n f2 (Derive f2) _ Hx0 H2)) as G2.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (Pr 0%nat n ltac:(unfold N; lia))
                (has_deriv_map n f1 f2 _ Hx0 H1)) as G1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n) (Pr n n ltac:(unfold N; lia)) G2) as D0.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n) (Pr (n + n)%nat n ltac:(unfold N; lia)) D0) as D1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n) (Pr (n + n)%nat n ltac:(unfold N; lia)) G1) as D2.
  eexists. exact (has_deriv_pair _ _ _ _ _ _ _ _ D1 D2).
Qed.

Lemma pw2_differentiable n f1 f2 x :
  (forall a, is_derive f1 a (f2 a)) -> (forall a, ex_derive f2 a) -> length x = (n + n + n)%nat ->
  differentiable_at (n + n + n) (n + n) (pw2 n f1 f2) x.
Proof. intros Hd2 He2. apply pw2_differentiable_on; auto. Qed.

Lemma sw2_differentiable n x : length x = (n + n + n)%nat ->
  differentiable_at (n + n + n) (n + n) (sw2 n) x.
Proof. apply (pw2_differentiable n (swish' Rsc) (swish'' Rsc) x is_derive_swish' ex_derive_swish''). Qed.

Lemma ex_derive_sigm'' x : ex_derive (sigm'' Rsc) x.
Proof.
  unfold sigm'', sigm, two. simpl. auto_derive.
  pose proof (sigm_pos x). unfold Rminus in *. rewrite ?Rplus_0_l in *. lra.
Qed.

Lemma ex_derive_tanh'' x : ex_derive (tanh'' Rsc) x.
Proof. unfold tanh'', two. simpl. unfold Rtanh. auto_derive. repeat split; apply tanh_den. Qed.

Lemma ex_derive_exp x : ex_derive exp x.
Proof. auto_derive. auto. Qed.

Lemma round2_differentiable n x : length x = (n + n + n)%nat ->
  differentiable_at (n + n + n) (n + n) (fun _ => zeros n ++ zeros n) x.
Proof.
  intros Hx. destruct (rd_const (n + n + n) (n + n) (zeros n ++ zeros n) x) as [L [HL _]]; auto.
  - rewrite app_length, length_zeros. auto.
  - exists L. exact HL.
Qed.

(** A linear (bilinear) primitive whose [rd²] is [lin2 L] ([bil2 B P Q]):
    [rd²[p]] is differentiable everywhere. *)
Lemma linear_level2 p n m L :
  lin n m L -> pdom 2 p = (n + m + n)%nat -> pcod 2 p = (n + m)%nat ->
  (forall v, length v = (n + m + n)%nat -> prim_fun 2 p v = lin2 n m L v) ->
  forall x, length x = pdom 2 p -> differentiable_at (pdom 2 p) (pcod 2 p) (prim_fun 2 p) x.
Proof.
  intros HL Hn Hm Hf. apply (diff_from_form 2 p _ _ _ Hn Hm Hf).
  intros x Hx. apply lin2_differentiable; auto.
Qed.

Lemma bilinear_level2 p a b c B P Q :
  bilin a b c B -> bilin c b a P -> bilin a c b Q ->
  pdom 2 p = (a + b + c + (a + b))%nat -> pcod 2 p = (a + b + c)%nat ->
  (forall v, length v = (a + b + c + (a + b))%nat -> prim_fun 2 p v = bil2 a b c B P Q v) ->
  forall x, length x = pdom 2 p -> differentiable_at (pdom 2 p) (pcod 2 p) (prim_fun 2 p) x.
Proof.
  intros HB HP HQ Hn Hm Hf. apply (diff_from_form 2 p _ _ _ Hn Hm Hf).
  intros x Hx. apply bil2_differentiable; auto.
Qed.

(** Every primitive but [maxpool], with parameters accepted by [prim_ok]:
    [rd²[p]] is differentiable at every point. *)
Theorem prim_level2_differentiable p :
  (smooth_prim p = true \/ exists n, p = PRound n) -> prim_ok p = true ->
  forall x, length x = pdom 2 p -> differentiable_at (pdom 2 p) (pcod 2 p) (prim_fun 2 p) x.
Proof.
  intros Hs Hok.
  destruct p as [n|n|n|m n k|m n|n|c n m|c n m|c c' n|c c' n m|c n m|n|n|n|n|n|n|n|n].
  - apply (diff_from_form 2 _ (n + n + n) (n + n) (sw2 n)); try prim_dims.
    + apply sw_forms2.
    + apply sw2_differentiable.
  - apply (bilinear_level2 _ 1 n n sm_B sm_P sm_Q); try prim_dims;
      [apply sm_bilin|apply sm_P_bilin|apply sm_bilin|apply sm_forms2].
  - apply (linear_level2 _ (n + n) n (sub_L n)); try prim_dims; [apply sub_lin|apply sub_forms2].
  - apply (bilinear_level2 _ (m * n) (n * k) (m * k) (mm_B m n k) (mm_P m n k) (mm_Q m n k)); try prim_dims;
      [apply mm_bilin|apply mm_P_bilin|apply mm_Q_bilin|apply mm_forms2].
  - apply (linear_level2 _ (m * n) (n * m) (tr_L m n)); try prim_dims; [apply lin_tab2_w|apply tr_forms2].
  - apply (diff_from_form 2 _ (n + n + n) (n + n) (fun _ => zeros n ++ zeros n)); try prim_dims.
    + intros v Hv. apply round_forms2.
    + apply round2_differentiable.
  - apply (linear_level2 _ (c * n) (c * m) (pad_L c n m)); try prim_dims; [apply lin_tab2_w|apply pad_forms2].
  - apply (linear_level2 _ (c * n) (c * m) (up_L c n m)); try prim_dims; [apply lin_tab2_w|apply up_forms2].
  - set (N := (c * n + c' * n)%nat).
    apply (linear_level2 _ N N idv); [apply idv_lin| | |apply cc_forms2];
      unfold pdom, pcod, dsum, N; simpl; rewrite cc_N; lia.
  - simpl in Hok. apply andb_true_iff in Hok. destruct Hok as [H1 H2].
    apply Nat.ltb_lt in H1. apply Nat.leb_le in H2.
    apply (bilinear_level2 _ (c' * c * m) (c * n) (c' * (n - m + 1)) (cv_B c c' n m) (cv_P c c' n m) (cv_Q c c' n m));
      try prim_dims; [apply cv_B_bilin|apply cv_P_bilin|apply cv_Q_bilin|apply cv_forms2]; auto.
  all: try solve [exfalso; destruct Hs as [Hs|[n' Hs]]; discriminate].
  - apply (diff_from_form 2 _ (n + n + n) (n + n) (pw2 n (sigm' Rsc) (sigm'' Rsc))); try prim_dims; try pw_forms.
    intros x Hx. apply pw2_differentiable; auto. apply is_derive_sigm'. apply ex_derive_sigm''.
  - apply (diff_from_form 2 _ (n + n + n) (n + n) (pw2 n (tanh' Rsc) (tanh'' Rsc))); try prim_dims; try pw_forms.
    intros x Hx. apply pw2_differentiable; auto. apply is_derive_tanh'. apply ex_derive_tanh''.
  - apply (diff_from_form 2 _ (n + n + n) (n + n) (pw2 n exp exp)); try prim_dims; try pw_forms.
    intros x Hx. apply pw2_differentiable; auto. apply is_derive_exp'. apply ex_derive_exp.
  - apply (bilinear_level2 _ n n n vmul vmul vmul); try prim_dims; try apply vmul_bilin. apply mul_forms2.
  - apply (linear_level2 _ n 1 (sum_L n)); try prim_dims; [apply sum_lin|apply sum_forms2].
Qed.

(** * [sce]: softmax cross-entropy, everywhere

    The instance computes [logsumexp] and [softmax] with the maximum [m]
    of the logits subtracted first ([shifted_exp]).  Over ℝ the shift
    changes nothing: [m + ln Σ exp(z_j − m) = ln Σ exp z_j]
    ([logsumexp_unshifted]) and [exp(z_i − m)/Σ exp(z_j − m) = exp z_i/Σ exp z_j]
    ([softmax_unshifted]), for any [m].  The unshifted forms [LSE] and
    [SM] are smooth; their derivatives are [∂LSE(z)h = <SM z, h>]
    ([has_deriv_lse]) and [∂SM(z)h = SM z ⊙ h − <SM z, h>·SM z]
    ([has_deriv_SM]).  From them: [rd[sce]] is the reverse derivative of
    [sce] ([sce_rd0]) and [rd²[sce]] that of [rd[sce]] ([sce_rd1]), at
    every point, for every [n]. *)
From RevHandlers.Analysis Require Import base vec templates sums prims.
Open Scope R_scope.

Definition sumv (v : vec) : R := fold_right Rplus 0 v.
Definition sexp (z : vec) : R := sumv (map exp z).
(** The unshifted [logsumexp] and [softmax]. *)
Definition LSE (z : vec) : R := ln (sexp z).
Definition SM (z : vec) : vec := vs (/ sexp z) (map exp z).

Lemma sexp_pos z : z <> [] -> 0 < sexp z.
Proof.
  destruct z as [|a z]; [congruence|]. intros _. unfold sexp, sumv. simpl.
  assert (0 <= fold_right Rplus 0 (map exp z)).
  { induction z as [|b z IH]; simpl; [lra|]. pose proof (exp_pos b). lra. }
  pose proof (exp_pos a). lra.
Qed.

Lemma sumv_shift m z : sumv (map (fun x => exp (x - m)) z) = exp (- m) * sexp z.
Proof.
  unfold sexp, sumv. induction z as [|a z IH]; simpl; [ring|]. rewrite IH.
  unfold Rminus. rewrite exp_plus. ring.
Qed.

Lemma vsum_sumv v : vsum Rsc v = sumv v.
Proof. unfold vsum, sumv. rewrite vsum_fold. simpl. ring. Qed.

(** The instance's max-shifted [logsumexp] is [ln Σ exp z_j] (also for the
    empty vector: [0 + ln 0 = ln 0]). *)
Theorem logsumexp_unshifted z : logsumexp Rsc z = LSE z.
Proof.
  unfold logsumexp, shifted_exp, LSE. rewrite vsum_sumv. simpl.
  destruct z as [|a z].
  - simpl. unfold sexp, sumv. simpl. ring.
  - change (fun x => exp (x - vmax Rsc (a :: z))) with (fun x => exp (x - vmax Rsc (a :: z))).
    rewrite sumv_shift, ln_mult, ln_exp; [ring|apply exp_pos|apply sexp_pos; discriminate].
Qed.

(** Likewise its [softmax] is [exp z_i / Σ exp z_j]. *)
Theorem softmax_unshifted z : softmax Rsc z = SM z.
Proof.
  unfold softmax, shifted_exp, SM, vs. rewrite vsum_sumv. simpl.
  destruct z as [|a z]; [reflexivity|].
  rewrite sumv_shift, !map_map. apply map_ext. intros x.
  assert (0 < sexp (a :: z)) by (apply sexp_pos; discriminate).
  pose proof (exp_pos (- vmax Rsc (a :: z))).
  unfold Rminus. rewrite exp_plus. field. lra.
Qed.

Lemma length_SM z : length (SM z) = length z.
Proof. unfold SM. rewrite length_vs, map_length. auto. Qed.

(** ** Sums and inner products *)
Lemma sumv_vmul a h : sumv (vmul a h) = dot a h.
Proof. revert h; induction a; intros [|b h]; simpl; auto. unfold sumv in *. rewrite IHa. auto. Qed.

Lemma dot_repeat t a : dot t (repeat a (length t)) = a * sumv t.
Proof. induction t; simpl; [ring|]. rewrite IHt. unfold sumv. simpl. ring. Qed.

Lemma dot_ones' t : dot (ones (length t)) t = sumv t.
Proof. unfold ones. rewrite dot_comm, dot_repeat. ring. Qed.

Lemma dot_vm_r u a b : dot u (vm a b) = dot u a - dot u b.
Proof. unfold vm. rewrite dot_vp_r, dot_vs_r. ring. Qed.
Lemma dot_vm_l u a b : dot (vm a b) u = dot a u - dot b u.
Proof. rewrite !(dot_comm _ u). apply dot_vm_r. Qed.

Lemma lin_dot n a : lin n 1 (fun h => [dot a h]).
Proof.
  constructor; [intros ? ?; reflexivity| |].
  - intros h k _ _. rewrite dot_vp_r. reflexivity.
  - intros c h _. rewrite dot_vs_r. reflexivity.
Qed.

(** ** Derivatives *)
(** On [ℝ⁰] every map is differentiable, with any linear map as derivative. *)
Lemma has_deriv_dim0 m f x L : maps 0 m f -> lin 0 m L -> length x = 0%nat -> has_deriv 0 m f x L.
Proof.
  intros Hf HL Hx. split; [auto|]. split; [auto|]. split; [auto|].
  intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
  destruct x; [|discriminate]. destruct h; [|discriminate]. simpl.
  rewrite norm1_0; [simpl; lra|]. intros i. rewrite !nth_vm.
  assert (E : L [] = vs 0 (L [])) by (rewrite <- (lin_scal _ _ _ HL); reflexivity).
  rewrite E, nth_vs. ring.
Qed.

(** A scalar function of a scalar-valued map: the chain rule with
    Coquelicot's derivative. *)
Lemma has_deriv_scalar_comp (φ : R -> R) (φ' : R) n F x LF :
  is_derive φ ((F x)@@0) φ' -> has_deriv n 1 F x LF ->
  has_deriv n 1 (fun v => [φ ((F v)@@0)]) x (fun h => [φ' * (LF h)@@0]).
Proof.
  intros Hφ HF. apply has_deriv_is_derive in Hφ.
  assert (HFx : F x = [(F x)@@0]).
  { destruct HF as [Hx [HFm _]]. specialize (HFm x Hx). destruct (F x) as [|a [|]]; simpl in *; auto; lia. }
  assert (Hφ' : has_deriv 1 1 (lift1 φ) (F x) (vs φ')) by (rewrite HFx; exact Hφ).
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HF Hφ') as H.
  eapply has_deriv_ext; [| |exact H]; [reflexivity|]. intros h Hh. simpl.
  destruct HF as [_ [_ [HL _]]]. pose proof (lin_len _ _ _ HL h Hh) as Hl.
  destruct (LF h) as [|a [|]]; simpl in *; try lia. reflexivity.
Qed.

Lemma has_deriv_sexp n z : length z = n -> has_deriv n 1 (fun v => [sexp v]) z (fun h => [dot (map exp z) h]).
Proof.
  intros Hz.
  assert (Hm : length (map exp z) = n) by (rewrite map_length; auto).
  pose proof (has_deriv_map n exp exp z Hz (fun i _ => is_derive_exp' _)) as H1.
  pose proof (has_deriv_lin _ _ _ _ (sum_lin n) Hm) as H2.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ H1 H2) as H.
  eapply has_deriv_ext; [| |exact H]; simpl.
  - intros v Hv. unfold sum_L, sexp. rewrite <- Hv, <- (map_length exp v), dot_ones'. reflexivity.
  - intros h Hh. unfold sum_L.
    replace n with (length (vmul (map exp z) h)) at 1 by (rewrite length_vmul, map_length; lia).
    rewrite dot_ones', sumv_vmul. reflexivity.
Qed.

Lemma has_deriv_lse n z : length z = n -> has_deriv n 1 (fun v => [LSE v]) z (fun h => [dot (SM z) h]).
Proof.
  intros Hz. destruct n as [|n].
  - apply has_deriv_dim0; auto; [intros ? ?; reflexivity|apply lin_dot].
  - assert (Hs : 0 < sexp z) by (apply sexp_pos; intros ->; discriminate).
    assert (Hl : is_derive ln (sexp z) (/ sexp z)) by (auto_derive; [lra|field; lra]).
    pose proof (has_deriv_scalar_comp ln (/ sexp z) _ (fun v => [sexp v]) z _ Hl
                  (has_deriv_sexp _ z Hz)) as H.
    eapply has_deriv_ext; [| |exact H]; [reflexivity|]. intros h Hh. simpl.
    unfold SM. rewrite dot_vs_l. reflexivity.
Qed.

Definition DSM (z h : vec) : vec := vm (vmul (SM z) h) (vs (dot (SM z) h) (SM z)).

Lemma lin_DSM n z : length z = n -> lin n n (DSM z).
Proof.
  intros Hz. unfold DSM. constructor.
  - intros v Hv. rewrite length_vm, length_vmul, length_vs, length_SM. lia.
  - intros h k Hh Hk. apply vec_ext.
    + rewrite !length_vp, !length_vm, !length_vmul, !length_vs, !length_vp, !length_SM. lia.
    + intros i. rewrite nth_vp, !nth_vm, !nth_vmul, !nth_vs, nth_vp, dot_vp_r. ring.
  - intros a h Hh. apply vec_ext.
    + rewrite !length_vs, !length_vm, !length_vmul, !length_vs, !length_SM. lia.
    + intros i. rewrite !nth_vs, !nth_vm, !nth_vmul, !nth_vs, dot_vs_r. ring.
Qed.

Lemma has_deriv_SM n z : length z = n -> has_deriv n n SM z (DSM z).
Proof.
  intros Hz. destruct n as [|n].
  - apply has_deriv_dim0; auto; [|apply lin_DSM; auto]. intros v Hv. rewrite length_SM. auto.
  - assert (Hs : 0 < sexp z) by (apply sexp_pos; intros ->; discriminate).
    assert (Hl : is_derive Rinv (sexp z) (- / (sexp z * sexp z))) by (auto_derive; [lra|field; lra]).
    pose proof (has_deriv_scalar_comp Rinv _ _ (fun v => [sexp v]) z _ Hl (has_deriv_sexp _ z Hz)) as HF.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ z _ _ (sm_bilin (S n)) HF
                  (has_deriv_map (S n) exp exp z Hz (fun i _ => is_derive_exp' _))) as H.
    eapply has_deriv_ext; [| |exact H]; [reflexivity|]. intros h Hh. simpl.
    unfold sm_B, DSM, SM. simpl. apply vec_ext.
    + rewrite length_vp, length_vm, length_vmul, !length_vs, !map_length, length_vmul, map_length. lia.
    + intros i. rewrite nth_vp, nth_vm, !nth_vs, !nth_vmul, !nth_vs, dot_vs_l. field. lra.
Qed.

Lemma has_deriv_vm n m f g x Lf Lg :
  has_deriv n m f x Lf -> has_deriv n m g x Lg ->
  has_deriv n m (fun v => vm (f v) (g v)) x (fun h => vm (Lf h) (Lg h)).
Proof.
  intros Hf Hg. unfold vm. apply has_deriv_vp; auto.
  apply (has_deriv_comp _ _ _ _ _ _ _ _ Hg). apply has_deriv_lin; [apply lin_vs|].
  destruct Hg as [Hx [Hgm _]]. auto.
Qed.

Lemma dot_repeat_l t a k : length t = k -> dot (repeat a k) t = a * sumv t.
Proof. intros <-. rewrite dot_comm. apply dot_repeat. Qed.
Lemma dot_repeat_r t a k : length t = k -> dot t (repeat a k) = a * sumv t.
Proof. intros <-. apply dot_repeat. Qed.

Lemma lin_sumv_proj N k n : (k + n <= N)%nat -> lin N 1 (fun v => [sumv (proj k n v)]).
Proof.
  intros H. apply lin_ext with (fun v => sum_L n (proj k n v)).
  - intros v Hv. unfold sum_L. rewrite <- dot_ones', length_proj by lia. reflexivity.
  - apply (lin_comp _ n _ (sum_L n) (proj k n)); [apply lin_proj; auto|apply sum_lin].
Qed.

(** ** [rd^k[sce]] in the unshifted forms *)
#[local] Arguments logsumexp : simpl never.
#[local] Arguments softmax : simpl never.
Section sce.
Variable n : nat.

Definition sce_f0 (v : vec) : vec :=
  let z := proj 0 n v in let t := proj n n v in [LSE z * sumv t - dot t z].
Definition sce_f1 (v : vec) : vec :=
  let z := proj 0 n v in let t := proj n n v in let g := (proj (n + n) 1 v)@@0 in
  vs g (vm (vs (sumv t) (SM z)) t) ++ vs g (vm (repeat (LSE z) n) z).
Definition sce_f2 (v : vec) : vec :=
  let z := proj 0 n v in let t := proj n n v in let g := (proj (n + n) 1 v)@@0 in
  let cz := proj (n + n + 1) n v in let ct := proj (n + n + 1 + n) n v in
  let p := SM z in let pc := dot p cz in
  vp (vs g (vs (sumv t) (vm (vmul p cz) (vs pc p)))) (vs g (vm (vs (sumv ct) p) ct))
  ++ vs g (vm (repeat pc n) cz)
  ++ [dot (vm (vs (sumv t) p) t) cz + dot (vm (repeat (LSE z) n) z) ct].

Lemma vscale_vs a v : vscale Rsc a v = vs a v.
Proof. reflexivity. Qed.

Lemma sce_forms0 v : length v = (n + n)%nat -> prim_fun 0 (PSce n) v = sce_f0 v.
Proof.
  intros Hv. unfold prim_fun, sce_f0. simpl. rewrite vdot_dot, vsub_vm, logsumexp_unshifted
    by (rewrite repeat_length, length_proj; lia).
  rewrite dot_vm_r, dot_repeat_r by (apply length_proj; lia). reflexivity.
Qed.

Lemma sce_forms1 v : length v = (n + n + 1)%nat -> prim_fun 1 (PSce n) v = sce_f1 v.
Proof.
  intros Hv. unfold prim_fun, sce_f1. simpl. rewrite ?app_nil_r, vsum_sumv, softmax_unshifted, logsumexp_unshifted.
  rewrite !vsub_vm by (unfold vscale; rewrite ?map_length, ?repeat_length, ?length_SM, ?length_proj; lia).
  reflexivity.
Qed.

Lemma sce_forms2 v : length v = (n + n + 1 + (n + n))%nat -> prim_fun 2 (PSce n) v = sce_f2 v.
Proof.
  intros Hv. unfold prim_fun, sce_f2. simpl. rewrite ?app_nil_r, !vsum_sumv, !softmax_unshifted, !logsumexp_unshifted.
  rewrite !vdot_dot, !vmul_inst.
  assert (Hz : length (proj 0 n v) = n) by (apply length_proj; lia).
  assert (Hcz : length (proj (n + n + 1) n v) = n) by (apply length_proj; lia).
  assert (Hct : length (proj (n + n + 1 + n) n v) = n) by (apply length_proj; lia).
  assert (Ht : length (proj n n v) = n) by (apply length_proj; lia).
  rewrite !vsub_vm by (unfold vscale; repeat rewrite ?map_length, ?repeat_length, ?length_SM, ?length_vmul, ?length_vm; lia).
  rewrite vadd_vp by (unfold vscale; repeat rewrite ?map_length, ?repeat_length, ?length_SM, ?length_vmul, ?length_vm; lia).
  reflexivity.
Qed.

(** [rd[sce]] is the reverse derivative of [sce], at every point. *)
Theorem sce_rd0 : rd_correct_at 0 (PSce n).
Proof.
  apply (rd_from_template 0 _ (n + n) 1 sce_f0 sce_f1).
  - unfold pdom, dsum. simpl. lia.
  - unfold pcod, dsum. simpl. lia.
  - exact sce_forms0.
  - exact sce_forms1.
  - intros x Hx. set (z := proj 0 n x). set (t := proj n n x).
    assert (Hz : length z = n) by (apply length_proj; lia).
    assert (Ht : length t = n) by (apply length_proj; lia).
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (has_deriv_proj (n + n) 0 n x ltac:(lia) Hx)
                  (has_deriv_lse n z Hz)) as HA.
    pose proof (has_deriv_lin _ _ _ x (lin_sumv_proj (n + n) n n ltac:(lia)) Hx) as HB.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin 1) HA HB) as HAB.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_P_bilin n)
                  (has_deriv_proj (n + n) n n x ltac:(lia) Hx) (has_deriv_proj (n + n) 0 n x ltac:(lia) Hx)) as HC.
    pose proof (has_deriv_vm _ _ _ _ _ _ _ HAB HC) as HD.
    eexists. split.
    { eapply has_deriv_ext; [| |exact HD]; [|reflexivity].
      intros v Hv. unfold sce_f0, sm_B, sm_P, vm, vs. simpl. f_equal. ring. }
    assert (E : forall y, length y = 1%nat -> sce_f1 (x ++ y) =
      vs (y@@0) (vm (vs (sumv t) (SM z)) t) ++ vs (y@@0) (vm (repeat (LSE z) n) z)).
    { intros y Hy. unfold sce_f1. rewrite (proj_app_l 0 n), (proj_app_l n n), (proj_app_r (n + n) 1) by lia.
      rewrite firstn_all2 by lia. reflexivity. }
    split.
    + intros y Hy. rewrite E by auto. rewrite app_length, !length_vs, !length_vm, length_vs, length_SM,
        repeat_length. lia.
    + intros h y Hh Hy. rewrite E by auto.
      assert (Hhz : length (proj 0 n h) = n) by (apply length_proj; lia).
      assert (Hht : length (proj n n h) = n) by (apply length_proj; lia).
      rewrite (dot_split2 n n) by (rewrite ?length_vs, ?length_vm, ?length_vs, ?length_SM; lia).
      rewrite !dot_vs_r, !dot_vm_r, dot_vs_r, dot_repeat_r by auto.
      destruct y as [|y0 [|]]; simpl in Hy; try lia.
      unfold sm_B, sm_P. simpl. fold z t.
      rewrite (dot_comm (SM z)), (dot_comm t (proj 0 n h)). ring.
Qed.

Local Ltac sl := repeat (rewrite ?app_length, ?length_vp, ?length_vs, ?length_vm, ?length_vmul, ?length_SM,
  ?repeat_length in * ); simpl; try lia.

(** [rd²[sce]] is the reverse derivative of [rd[sce]], at every point. *)
Theorem sce_rd1 : rd_correct_at 1 (PSce n).
Proof.
  apply (rd_from_template 1 _ (n + n + 1) (n + n) (sce_f1) (sce_f2)).
  - unfold pdom, dsum. simpl. lia.
  - unfold pcod, dsum. simpl. lia.
  - exact sce_forms1.
  - exact sce_forms2.
  - intros x Hx. set (N := (n + n + 1)%nat).
    set (z := proj 0 n x). set (t := proj n n x). set (g := proj (n + n) 1 x).
    assert (Hz : length z = n) by (apply length_proj; lia).
    assert (Ht : length t = n) by (apply length_proj; lia).
    assert (Hg : length g = 1%nat) by (apply length_proj; lia).
    assert (Pr : forall k d, (k + d <= N)%nat -> has_deriv N d (proj k d) x (proj k d))
      by (intros; apply has_deriv_proj; auto).
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (Pr 0%nat n ltac:(unfold N; lia)) (has_deriv_SM n z Hz)) as HP.
    pose proof (has_deriv_lin _ _ _ x (lin_sumv_proj N n n ltac:(unfold N; lia)) Hx) as HS.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) HS HP) as H1a.
    pose proof (has_deriv_vm _ _ _ _ _ _ _ H1a (Pr n n ltac:(unfold N; lia))) as H1b.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) (Pr (n + n)%nat 1%nat ltac:(unfold N; lia)) H1b)
      as H1.
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (Pr 0%nat n ltac:(unfold N; lia)) (has_deriv_lse n z Hz)) as HL.
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HL (has_deriv_lin 1 n (sum_Lt n) [LSE z] (sum_Lt_lin n) eq_refl)) as H2a.
    pose proof (has_deriv_vm _ _ _ _ _ _ _ H2a (Pr 0%nat n ltac:(unfold N; lia))) as H2b.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) (Pr (n + n)%nat 1%nat ltac:(unfold N; lia)) H2b)
      as H2.
    pose proof (has_deriv_pair _ _ _ _ _ _ _ _ H1 H2) as HD.
    eexists. split.
    { eapply has_deriv_ext; [| |exact HD]; [|reflexivity].
      intros v Hv. unfold sce_f1, sm_B, sum_Lt, ones. rewrite <- repeat_vs. reflexivity. }
    assert (E : forall c, length c = (n + n)%nat -> sce_f2 (x ++ c) =
      let cz := proj 0 n c in let ct := proj n n c in let p := SM z in let pc := dot p cz in
      vp (vs (g@@0) (vs (sumv t) (vm (vmul p cz) (vs pc p)))) (vs (g@@0) (vm (vs (sumv ct) p) ct))
      ++ vs (g@@0) (vm (repeat pc n) cz)
      ++ [dot (vm (vs (sumv t) p) t) cz + dot (vm (repeat (LSE z) n) z) ct]).
    { intros c Hc. unfold sce_f2.
      rewrite (proj_app_l 0 n), (proj_app_l n n), (proj_app_l (n + n) 1) by lia.
      rewrite (proj_app_r' (n + n + 1) n), (proj_app_r' (n + n + 1 + n) n) by lia.
      replace (n + n + 1 - length x)%nat with 0%nat by lia.
      replace (n + n + 1 + n - length x)%nat with n by lia. reflexivity. }
    split.
    + intros c Hc. rewrite E by auto. cbv zeta.
      assert (length (proj 0 n c) = n) by (apply length_proj; lia).
      assert (length (proj n n c) = n) by (apply length_proj; lia).
      sl.
    + intros h c Hh Hc. rewrite E by auto. cbv zeta.
      set (hz := proj 0 n h). set (ht := proj n n h). set (hg := proj (n + n) 1 h).
      set (cz := proj 0 n c). set (ct := proj n n c). set (p := SM z).
      assert (Hhz : length hz = n) by (apply length_proj; lia).
      assert (Hht : length ht = n) by (apply length_proj; lia).
      assert (Hhg : length hg = 1%nat) by (apply length_proj; lia).
      assert (Hcz : length cz = n) by (apply length_proj; lia).
      assert (Hct : length ct = n) by (apply length_proj; lia).
      assert (Hp : length p = n) by (unfold p; rewrite length_SM; auto).
      rewrite (dot_split3 n n 1) by sl.
      fold hz ht hg.
      rewrite (split2 n n c) by auto. fold cz ct.
      unfold sm_B, sum_Lt, DSM, ones. fold z t g. fold p.
      rewrite dot_app by (unfold ones; sl).
      simpl nth. rewrite dot_single by auto.
      repeat rewrite ?dot_vp_l, ?dot_vs_l, ?dot_vm_l, ?dot_vp_r, ?dot_vs_r, ?dot_vm_r.
      rewrite !dot_vmul, !dot_repeat_l, !dot_repeat_r by auto.
      rewrite (dot_comm p hz). ring.
Qed.
End sce.

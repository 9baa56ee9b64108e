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
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature instance.
From RevHandlers.Analysis Require Import vec templates sums prims.
Import ListNotations.
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

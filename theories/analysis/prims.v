From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature instance.
From RevHandlers.Analysis Require Import vec templates.
Import ListNotations.
Open Scope R_scope.

Definition Rround (x : R) : R := IZR (Int_part (x + / 2)).

Definition Rsc : scalar_ops R := {|
  s_zero := 0; s_one := 1; s_add := Rplus; s_sub := Rminus; s_mul := Rmult; s_div := Rdiv;
  s_exp := exp; s_round := Rround;
  s_lt := fun a b => if Rlt_dec a b then true else false |}.

Lemma sigm_pos x : 0 < 1 + exp (0 - x).
Proof. pose proof (exp_pos (0 - x)). lra. Qed.

Lemma is_derive_swish x : is_derive (swish Rsc) x (swish' Rsc x).
Proof.
  unfold swish, swish', sigm, two. simpl.
  auto_derive.
  - pose proof (sigm_pos x). unfold Rminus in *. rewrite Rplus_0_l in *. lra.
  - pose proof (sigm_pos x). unfold Rminus in *. rewrite !Rplus_0_l in *.
    field. lra.
Qed.

Lemma is_derive_swish' x : is_derive (swish' Rsc) x (swish'' Rsc x).
Proof.
  unfold swish', swish'', sigm, two. simpl.
  auto_derive.
  - pose proof (sigm_pos x). unfold Rminus in *. rewrite Rplus_0_l in *. lra.
  - pose proof (sigm_pos x). unfold Rminus in *. rewrite !Rplus_0_l in *.
    field. lra.
Qed.

(** ** The instance over the reals *)
Definition Rvo : vec_ops (list R) := list_vec_ops Rsc.

Fixpoint split_at (k : nat) (ds : list nat) (v : vec) : list vec :=
  match ds with [] => [] | d :: ds' => proj k d v :: split_at (k + d) ds' v end.

Definition dsum (ds : list nat) : nat := fold_right Nat.add 0%nat ds.
Definition pdom (k : nat) (p : prim) : nat := dsum (@ty_dims vec (@fdom vec k p)).
Definition pcod (k : nat) (p : prim) : nat := dsum (@ty_dims vec (@fcod vec k p)).

(** [rd^k[p]] as a map of [ℝ^{pdom k p}] to [ℝ^{pcod k p}]: the leaves of its
    argument are the consecutive blocks of the flat vector, and the leaves
    of its result are concatenated. *)
Definition prim_fun (k : nat) (p : prim) (v : vec) : vec :=
  match eval_prim Rvo k p (split_at 0 (@ty_dims vec (@fdom vec k p)) v) with
  | Some outs => concat outs
  | None => []
  end.

(** [rd[p]] is the reverse derivative of [p] at every point, and [rd²[p]]
    that of [rd[p]]. *)
Definition rd_correct_at (k : nat) (p : prim) : Prop :=
  forall x, length x = pdom k p ->
    is_rev_deriv (pdom k p) (pcod k p) (prim_fun k p) x (fun y => prim_fun (S k) p (x ++ y)).

Lemma rd_from_template k p n m f r :
  pdom k p = n -> pcod k p = m ->
  (forall v, length v = n -> prim_fun k p v = f v) ->
  (forall v, length v = (n + m)%nat -> prim_fun (S k) p v = r v) ->
  (forall x, length x = n -> is_rev_deriv n m f x (fun y => r (x ++ y))) ->
  rd_correct_at k p.
Proof.
  intros Hn Hm Hf Hr H x Hx. rewrite Hn, Hm in *.
  eapply is_rev_deriv_ext; [| |apply (H x Hx)].
  - intros v Hv. symmetry. auto.
  - intros y Hy. symmetry. apply Hr. rewrite app_length. lia.
Qed.

(** ** The instance's vector operations, on vectors of equal length *)
Lemma vadd_vp u v : length u = length v -> vadd Rsc u v = vp u v.
Proof.
  revert v; induction u; intros [|b v] H; simpl in *; try discriminate; auto.
  unfold vadd, vmap2 in *. simpl. f_equal. apply IHu. lia.
Qed.

Lemma vsub_vm u v : length u = length v -> vsub Rsc u v = vm u v.
Proof.
  revert v; induction u; intros [|b v] H; simpl in *; try discriminate; auto.
  unfold vsub, vmap2, vm, vs in *. simpl. f_equal; [ring|]. apply IHu. lia.
Qed.

Lemma vneg_vs v : vneg Rsc v = vs (-1) v.
Proof. unfold vneg, vs. apply map_ext. intros a. simpl. ring. Qed.

Lemma vmul_inst u v : instance.vmul Rsc u v = vmul u v.
Proof.
  revert v; induction u; intros [|b v]; simpl; auto.
  unfold instance.vmul, vmap2 in *. simpl. f_equal. apply IHu.
Qed.

Lemma vsum_fold l a : fold_left (s_add Rsc) l a = a + fold_right Rplus 0 l.
Proof.
  revert a; induction l as [|b l IH]; intros a; simpl; [ring|]. rewrite IH. ring.
Qed.

Lemma vdot_dot u v : vdot Rsc u v = dot u v.
Proof.
  unfold vdot, vsum. rewrite vsum_fold, vmul_inst. rewrite Rplus_0_l.
  revert v; induction u; intros [|b v]; simpl; try ring. rewrite IHu. ring.
Qed.

Lemma proj_proj a b k d v : (a + b <= d)%nat -> proj a b (proj k d v) = proj (k + a) b v.
Proof.
  intros H. unfold proj. rewrite skipn_firstn_comm, firstn_firstn, skipn_skipn'.
  f_equal; [lia|]. f_equal. lia.
Qed.

Lemma firstn_add' a b (w : vec) : firstn (a + b) w = firstn a w ++ firstn b (skipn a w).
Proof.
  revert w; induction a; intros [|x w]; simpl; auto. rewrite firstn_nil. auto. f_equal; auto.
Qed.

Lemma proj_concat k a b v : proj k a v ++ proj (k + a) b v = proj k (a + b) v.
Proof.
  unfold proj. replace (k + a)%nat with (a + k)%nat by lia. rewrite <- skipn_skipn'.
  symmetry. apply firstn_add'.
Qed.

Lemma zeros_app a b : zeros (a + b) = zeros a ++ zeros b.
Proof. apply repeat_app. Qed.

(** ** smul: [Real(1) × Real(n) → Real(n)], bilinear *)
Section smul.
Variable n : nat.
Definition sm_B (a b : vec) : vec := vs (a@@0) b.
Definition sm_P (g b : vec) : vec := [dot g b].
Definition sm_Q (a g : vec) : vec := vs (a@@0) g.

Lemma sm_bilin : bilin 1 n n sm_B.
Proof.
  constructor.
  - intros b Hb. constructor.
    + intros a _. unfold sm_B. rewrite length_vs. auto.
    + intros h k _ _. unfold sm_B. rewrite nth_vp. apply vec_ext; [rewrite length_vp, !length_vs; lia|].
      intros i. rewrite nth_vp, !nth_vs. ring.
    + intros a h _. unfold sm_B. rewrite nth_vs. apply vec_ext; [rewrite !length_vs; lia|].
      intros i. rewrite !nth_vs. ring.
  - intros a Ha. unfold sm_B. apply lin_vs.
Qed.

Lemma sm_P_bilin : bilin n n 1 sm_P.
Proof.
  unfold sm_P. constructor.
  - intros b Hb. constructor; [intros ? ?; reflexivity| |].
    + intros h k _ _. rewrite dot_vp_l. reflexivity.
    + intros a h _. rewrite dot_vs_l. reflexivity.
  - intros a Ha. constructor; [intros ? ?; reflexivity| |].
    + intros h k _ _. rewrite dot_vp_r. reflexivity.
    + intros c h _. rewrite dot_vs_r. reflexivity.
Qed.

Lemma dot_single a v : length v = 1%nat -> dot v [a] = v@@0 * a.
Proof. destruct v as [|b [|]]; simpl; intros H; try discriminate. ring. Qed.

Lemma sm_rd0 : rd_correct_at 0 (PSmul n).
Proof.
  apply (rd_from_template 0 _ (1 + n) n (bil0 1 n sm_B) (bil1 1 n n sm_P sm_Q)).
  - unfold pdom, pcod, dsum. simpl. lia.
  - unfold pdom, pcod, dsum. simpl. lia.
  - intros v Hv. unfold prim_fun. simpl. apply app_nil_r.
  - intros v Hv. unfold prim_fun, bil1. simpl. rewrite vdot_dot, app_nil_r. reflexivity.
  - intros x Hx. apply bilinear_rd0; auto.
    + apply sm_bilin.
    + exact sm_P_bilin.
    + apply sm_bilin.
    + intros a b g Ha Hb Hg. unfold sm_B, sm_P. rewrite dot_single, dot_vs_l, dot_comm by auto. auto.
    + intros a b g Ha Hb Hg. unfold sm_B, sm_Q. rewrite dot_vs_l, dot_vs_r. auto.
Qed.

Lemma sm_rd1 : rd_correct_at 1 (PSmul n).
Proof.
  apply (rd_from_template 1 _ (1 + n + n) (1 + n) (bil1 1 n n sm_P sm_Q) (bil2 1 n n sm_B sm_P sm_Q)).
  - unfold pdom, pcod, dsum. simpl. lia.
  - unfold pdom, pcod, dsum. simpl. lia.
  - intros v Hv. unfold prim_fun, bil1. simpl. rewrite vdot_dot, app_nil_r. reflexivity.
  - intros v Hv. unfold prim_fun, bil2. simpl. rewrite vdot_dot, app_nil_r.
    rewrite vadd_vp; [reflexivity|]. unfold vscale. rewrite !map_length, !length_proj; simpl in *; lia.
  - intros x Hx. apply bilinear_rd1; auto.
    + apply sm_bilin.
    + exact sm_P_bilin.
    + apply sm_bilin.
    + intros a b g Ha Hb Hg. unfold sm_B, sm_P. rewrite dot_single, dot_vs_l, dot_comm by auto. auto.
    + intros a b g Ha Hb Hg. unfold sm_B, sm_Q. rewrite dot_vs_l, dot_vs_r. auto.
Qed.
End smul.

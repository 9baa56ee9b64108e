(** * The primitives not differentiable everywhere have the shapes of their types

    [prim_fits (k, p)] ([rdsound.v]: [rd^k[p]] sends trees of the shape
    of its domain to trees of the shape of its codomain) for [relu], [log],
    [round] and [maxpool], at every level [k ≤ 2] ([relu_prim_fits],
    [log_prim_fits], [round_prim_fits], [maxpool_prim_fits]); with the
    smooth primitives and [sce] ([smooth_all_prim_fits]) this covers every
    primitive of the instance with parameters accepted by [prim_ok]
    ([all_prim_fits]).  As in [sce_prim_fits], the length of every leaf of
    [Ev]'s answer is computed directly: the pointwise primitives keep the
    length of their input, and the windows of [maxpool] give
    [maxpool_tab], [gather_tab] and [length_adj] ([maxpool.v]). *)
From Coq Require Import Reals List Lia.
From RevHandlers Require Import prelude signature syntax instance.
From RevHandlers.Analysis Require Import vec templates sums prims maxpool rdsound.
Import ListNotations.

Local Ltac F2_cons :=
  repeat match goal with
         | |- Forall2 _ (_ :: _) (_ :: _) => apply Forall2_cons
         | |- Forall2 _ [] [] => apply Forall2_nil
         end.

(** [rd^k[relu]] has the shapes of its type for [k ≤ 2]. *)
Theorem relu_prim_fits k n : (k <= 2)%nat -> prim_fits (k, PRelu n).
(** Informal proof: [prim_fits_gen]; [relu], [relu'] are mapped over the
    input, the products are pointwise between vectors of length [n], and
    the zero vector has length [n]. *)
Proof.
  intros Hk. apply prim_fits_gen. intros xs HF.
  assert (Hk' : k = 0%nat \/ k = 1%nat \/ k = 2%nat) by lia.
  destruct Hk' as [-> | [-> | ->]]; simpl in HF |- *; inv_F2; eexists; (split; [reflexivity|]);
    F2_cons; simpl;
    unfold instance.vmul, instance.vmap2, vzero; repeat rewrite ?map_length, ?combine_length, ?repeat_length;
    unfold vec in *; lia.
Qed.

(** [rd^k[log]] has the shapes of its type for [k ≤ 2]. *)
Theorem log_prim_fits k n : (k <= 2)%nat -> prim_fits (k, PLog n).
(** Informal proof: as [relu_prim_fits], through [pointwise]. *)
Proof.
  intros Hk. apply prim_fits_gen. intros xs HF.
  assert (Hk' : k = 0%nat \/ k = 1%nat \/ k = 2%nat) by lia.
  destruct Hk' as [-> | [-> | ->]]; simpl in HF |- *; inv_F2; eexists; (split; [reflexivity|]);
    F2_cons; simpl;
    unfold instance.vmul, instance.vmap2; repeat rewrite ?map_length, ?combine_length; unfold vec in *; lia.
Qed.

(** [rd^k[round]] has the shapes of its type for [k ≤ 2]. *)
Theorem round_prim_fits k n : (k <= 2)%nat -> prim_fits (k, PRound n).
(** Informal proof: [round] is mapped over the input; its reverse
    derivatives answer zero vectors of length [n]. *)
Proof.
  intros Hk. apply prim_fits_gen. intros xs HF.
  assert (Hk' : k = 0%nat \/ k = 1%nat \/ k = 2%nat) by lia.
  destruct Hk' as [-> | [-> | ->]]; simpl in HF |- *; inv_F2; eexists; (split; [reflexivity|]);
    F2_cons; simpl; unfold vzero; repeat rewrite ?map_length, ?repeat_length; unfold vec in *; lia.
Qed.

(** [maxpool] answers [c·⌈n/m⌉] entries on an input of [c·n]. *)
Lemma length_maxpool c n m (x : vec) : (0 < m)%nat -> length x = (c * n)%nat ->
  length (maxpool Rsc c n m x) = (c * ceil_div n m)%nat.
Proof. intros Hm Hx. rewrite maxpool_tab by auto. apply length_tab2. Qed.

(** So does the gather of [c·n] entries at the argmax positions of [x]. *)
Lemma length_gather c n m (x y : vec) : (0 < m)%nat -> length x = (c * n)%nat -> length y = (c * n)%nat ->
  length (maxpool_gather Rsc c n m x y) = (c * ceil_div n m)%nat.
Proof. intros Hm Hx Hy. rewrite gather_tab by auto. apply length_tab2. Qed.

(** [rd^k[maxpool]] has the shapes of its type for [k ≤ 2] and windows of positive width. *)
Theorem maxpool_prim_fits k c n m : (0 < m)%nat -> (k <= 2)%nat -> prim_fits (k, PMaxpool c n m).
(** Informal proof: [prim_fits_gen]; [maxpool] and the gather at the
    argmax positions answer one entry per window ([maxpool_tab],
    [gather_tab]), the adjoint one per input entry ([length_adj]). *)
Proof.
  intros Hm Hk. apply prim_fits_gen. intros xs HF.
  assert (Hk' : k = 0%nat \/ k = 1%nat \/ k = 2%nat) by lia.
  destruct Hk' as [-> | [-> | ->]]; simpl in HF |- *; inv_F2; eexists; (split; [reflexivity|]);
    F2_cons; simpl.
  - apply length_maxpool; auto.
  - apply length_adj; auto.
  - unfold vzero. apply repeat_length.
  - apply length_gather; auto.
Qed.

(** Every primitive of the instance accepted by [prim_ok] has the shapes of its type for [k ≤ 2]. *)
Theorem all_prim_fits p k : prim_ok p = true -> (k <= 2)%nat -> prim_fits (k, p).
(** Informal proof: [relu], [log], [round] and [maxpool] above (for
    [maxpool], [prim_ok] is [0 < m]); every other primitive is smooth or
    [sce] ([smooth_all_prim_fits]). *)
Proof.
  intros Hok Hk. destruct p as [| | | | |n| | | | |c n m|n| | | |n| | |];
    try (apply smooth_all_prim_fits; auto; reflexivity).
  - apply round_prim_fits; auto.
  - simpl in Hok. apply Nat.ltb_lt in Hok. apply maxpool_prim_fits; auto.
  - apply relu_prim_fits; auto.
  - apply log_prim_fits; auto.
Qed.

(** * [rd²] of the core for [matmul], [conv1d], [maxpool] and [sce]

    rdcore_real.v proves that [core_prog 2 p], the second reverse
    derivative obtained by differentiating the core's programs
    (theories/rh/rdcore.v), computes over ℝ the hand-written kernel
    [rd²[p]] of instance.v for fifteen primitives ([core2_prim]).  This
    file adds the other four, for every parameter and every argument of
    the type's length:

    - [maxpool]: both sides are [(0, maxpool_gather(x, cx))], the same
      operation on the same inputs, so they agree everywhere, ties in a
      window included ([core_fun_maxpool2]);
    - [conv1d]: the core adds [conv1d(K, cx) + conv1d(cK, x)] in the
      other order ([core_fun_conv1d2]);
    - [matmul]: the core writes [G·cBᵀ] as [(cB·Gᵀ)ᵀ], [cAᵀ·G] as
      [(Gᵀ·cA)ᵀ] and reads [A] as [(Aᵀ)ᵀ]; equal by the coordinate forms
      of prims.v ([core_fun_matmul2]). *)
From RevHandlers.Analysis Require Import base vec templates sums prims prims_more sce prims_all rdcore_real.
From RevHandlers Require Import rdcore.
Open Scope R_scope.

(** ** Lists *)

(** The instance's sum of vectors is commutative, at any lengths (it
    stops at the shorter). *)
Lemma vadd_comm_R (u v : vec) : vadd Rsc u v = vadd Rsc v u.
Proof.
  unfold vadd, vmap2. revert v. induction u as [|a u IH]; intros [|b v]; simpl; auto.
  rewrite IH. f_equal. apply Rplus_comm.
Qed.

(** A vector of [a·b] entries is the table of its entries. *)
Lemma tab2_eta a b (A : vec) : length A = (a * b)%nat -> tab2 a b (fun j i => A@@(j * b + i)) = A.
Proof.
  intros HA. destruct b as [|b].
  - assert (E : A = []) by (apply length_zero_iff_nil; lia). subst A.
    apply length_zero_iff_nil. rewrite length_tab2. lia.
  - rewrite tab2_flat by lia. rewrite <- HA at 1. rewrite <- (tab_nth A) at 2. unfold tab. apply map_ext.
    intros r. rewrite Nat.mul_comm, <- Nat.div_mod by lia. reflexivity.
Qed.

Lemma transpose_transpose m n (A : vec) : length A = (m * n)%nat ->
  transpose Rsc n m (transpose Rsc m n A) = A.
Proof.
  intros HA. rewrite (transpose_tab m n) by exact HA. rewrite transpose_tab by apply length_tab2.
  transitivity (tab2 m n (fun j i => A@@(j * n + i))); [|apply tab2_eta; exact HA].
  apply tab2_ext. intros j i Hj Hi. rewrite nth_tab2 by lia. reflexivity.
Qed.

(** ** [maxpool] *)

(** The core's [rd²[maxpool]] is the kernel's on every argument: both
    return [(0, maxpool_gather(x, cx))].  (No condition on ties: where
    a window's maximum is tied, both pick the same entry, the one
    [maxpool_gather] picks.) *)
Lemma core_fun_maxpool2 c n m v :
  core_fun (core_prog 2 (PMaxpool c n m)) v = prim_fun 2 (PMaxpool c n m) v.
Proof. core_eval. reflexivity. Qed.

(** ** [conv1d] *)

(** The core adds the two products in the other order. *)
Lemma core_fun_conv1d2 c c' n m v :
  core_fun (core_prog 2 (PConv1d c c' n m)) v = prim_fun 2 (PConv1d c c' n m) v.
Proof. core_eval. rewrite vadd_comm_R. reflexivity. Qed.

(** ** [matmul] *)

(** With [A, B, G, cA, cB] the five blocks: the core computes
    [((cB·Gᵀ)ᵀ, (Gᵀ·cA)ᵀ, (Aᵀ)ᵀ·cB + cA·(Bᵀ)ᵀ)], the kernel
    [(G·cBᵀ, cAᵀ·G, cA·B + A·cB)]. *)
Lemma core_fun_matmul2 m n k v : length v = pdom 2 (PMatmul m n k) ->
  core_fun (core_prog 2 (PMatmul m n k)) v = prim_fun 2 (PMatmul m n k) v.
Proof.
  intros Hv. unfold pdom, dsum in Hv; simpl in Hv. unfold core_fun, prim_fun.
  change (core_prog 2 (PMatmul m n k)) with
    {| cp_dims := [m * n; n * k; m * k; m * n; n * k]%nat;
       cp_body := [(OTranspose n k, [1%nat]); (OTranspose m n, [0%nat]);
            (OTranspose m k, [2%nat]); (OMatmul n k m, [4%nat; 7%nat]);
            (OTranspose n m, [6%nat]); (OMatmul m n k, [9%nat; 4%nat]);
            (OTranspose n m, [8%nat]); (OTranspose k n, [5%nat]);
            (OMatmul m n k, [3%nat; 12%nat]); (OAdd, [10%nat; 13%nat]);
            (OTranspose m k, [2%nat]); (OMatmul k m n, [15%nat; 3%nat]);
            (OTranspose k n, [16%nat])];
       cp_out := [11%nat; 17%nat; 14%nat] |}.
  unfold ceval, eval_cprog. simpl.
  assert (HA : length (proj 0 (m * n) v) = (m * n)%nat) by (apply length_proj; lia).
  assert (HB : length (proj (m * n) (n * k) v) = (n * k)%nat) by (apply length_proj; lia).
  assert (HG : length (proj (m * n + n * k) (m * k) v) = (m * k)%nat) by (apply length_proj; lia).
  assert (HcA : length (proj (m * n + n * k + m * k) (m * n) v) = (m * n)%nat) by (apply length_proj; lia).
  assert (HcB : length (proj (m * n + n * k + m * k + m * n) (n * k) v) = (n * k)%nat)
    by (apply length_proj; lia).
  set (A := proj 0 (m * n) v) in *. set (B := proj (m * n) (n * k) v) in *.
  set (G := proj (m * n + n * k) (m * k) v) in *. set (cA := proj (m * n + n * k + m * k) (m * n) v) in *.
  set (cB := proj (m * n + n * k + m * k + m * n) (n * k) v) in *.
  rewrite (transpose_transpose m n A HA), (transpose_transpose n k B HB).
  rewrite (vadd_comm_R (matmul Rsc m n k A cB)).
  f_equal; [|f_equal].
  - rewrite (mm_P_eq n m k cB G HcB HG), (mm_P_eq m n k G cB HG HcB). unfold mm_P.
    rewrite transpose_tab by apply length_tab2. apply tab2_ext. intros j i Hj Hi.
    rewrite nth_tab2 by lia. apply sumn_ext. intros l Hl. ring.
  - rewrite (mm_Q_eq m k n G cA HG HcA), (mm_Q_eq m n k cA G HcA HG). unfold mm_Q.
    rewrite transpose_tab by apply length_tab2. apply tab2_ext. intros j i Hj Hi.
    rewrite nth_tab2 by lia. apply sumn_ext. intros l Hl. ring.
Qed.

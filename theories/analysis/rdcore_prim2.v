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
      of prims.v ([core_fun_matmul2]);
    - [sce]: the same up to real arithmetic on [softmax z], [Σ t] and
      [⟨p, cz⟩] ([core_fun_sce2]).

    Hence [core_prog 2 p] is the kernel for every primitive
    ([core_fun_prim2_all]) and the core's [rd²] is the reverse derivative
    of its [rd¹] on [prim_domain 1 p] for every primitive
    ([core_rd2_correct_all_on]), without rdcore_real.v's [core2_prim]. *)
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

(** ** [sce] *)
#[local] Arguments logsumexp : simpl never.
#[local] Arguments softmax : simpl never.
#[local] Arguments vdot : simpl never.
#[local] Arguments vsum : simpl never.
#[local] Arguments vadd : simpl never.
#[local] Arguments vsub : simpl never.
#[local] Arguments instance.vmul : simpl never.
#[local] Arguments vneg : simpl never.
#[local] Arguments vscale : simpl never.
#[local] Arguments proj : simpl never.

Lemma sumv_vs a (t : vec) : sumv (vs a t) = a * sumv t.
Proof. unfold sumv, vs. induction t as [|b t IH]; simpl; [ring|]. rewrite IH. ring. Qed.

(** With [z, t, g = [a], cz, ct] the five blocks and [p = softmax z]:
    the core computes [(Σ a·t)·cz] where the kernel has [a·(Σ t)·cz],
    [⟨cz, p⟩] for [⟨p, cz⟩], [u + (−1)·v] for [u − v]; equal over ℝ on
    inputs of the type's lengths.  (The program is reduced by a [cbv]
    restricted to the evaluator once the blocks are named; [simpl] does
    not finish.) *)
Lemma core_fun_sce2 n v : length v = pdom 2 (PSce n) ->
  core_fun (core_prog 2 (PSce n)) v = prim_fun 2 (PSce n) v.
Proof.
  intros Hv. unfold pdom, dsum in Hv; simpl in Hv.
  rewrite sce_forms2 by lia. remember (sce_f2 n v) as R eqn:ER. unfold core_fun.
  assert (Ep : core_prog 2 (PSce n) =
    {| cp_dims := [n; n; 1%nat; n; n];
       cp_body :=
           [(OLse, [0%nat]); (OBcast n, [5%nat]); (
            OSub, [6%nat; 0%nat]); (OScale, [2%nat; 1%nat]); (
            OSum, [8%nat]); (OSoftmax, [0%nat]); (
            ODot, [3%nat; 10%nat]); (OScale, [9%nat; 3%nat]);
            (OMul, [10%nat; 12%nat]); (ODot, [10%nat; 12%nat]);
            (OScale, [14%nat; 10%nat]); (OSub, [13%nat; 15%nat]);
            (OBcast n, [11%nat]); (ONeg, [3%nat]); (
            OAdd, [17%nat; 18%nat]); (ODot, [19%nat; 1%nat]);
            (OScale, [2%nat; 19%nat]); (ODot, [4%nat; 7%nat]);
            (OAdd, [20%nat; 22%nat]); (OScale, [2%nat; 4%nat]);
            (ONeg, [24%nat]); (OAdd, [16%nat; 25%nat]); (
            OSum, [24%nat]); (OSoftmax, [0%nat]); (
            OScale, [27%nat; 28%nat]); (OAdd, [26%nat; 29%nat])];
         cp_out := [30%nat; 21%nat; 23%nat] |}) by (vm_compute; reflexivity).
  rewrite Ep; clear Ep.
  unfold ceval, eval_cprog. cbn [cp_dims].
  change (split_at 0 [n; n; 1%nat; n; n] v) with
    [proj 0 n v; proj n n v; proj (n + n) 1 v; proj (n + n + 1) n v; proj (n + n + 1 + n) n v].
  subst R. unfold sce_f2. cbv zeta.
  assert (Hz : length (proj 0 n v) = n) by (apply length_proj; lia).
  assert (Ht : length (proj n n v) = n) by (apply length_proj; lia).
  assert (Hcz : length (proj (n + n + 1) n v) = n) by (apply length_proj; lia).
  assert (Hct : length (proj (n + n + 1 + n) n v) = n) by (apply length_proj; lia).
  remember (proj 0 n v) as z eqn:Ez. remember (proj n n v) as t eqn:Et.
  remember (proj (n + n) 1 v) as g eqn:Eg. remember (proj (n + n + 1) n v) as cz eqn:Ecz.
  remember (proj (n + n + 1 + n) n v) as ct eqn:Ect.
  assert (Hg : length g = 1%nat) by (subst g; apply length_proj; lia).
  destruct g as [|a [|]]; try discriminate. clear Hg Eg.
  cbn [rev app].
  cbv beta iota zeta delta [eval_body map nth length cp_body cp_dims cp_out Nat.add Nat.sub concat cop_eval Rvo list_vec_ops v_zero v_add v_sub v_mul v_neg v_scale v_dot v_sum v_bcast v_softmax v_lse vget].
  change (s_zero Rsc) with 0.
  rewrite !softmax_unshifted, !logsumexp_unshifted, !vsum_sumv, !vdot_dot, !vmul_inst, !vneg_vs, !vscale_vs.
  repeat match goal with |- context [vscale ?s ?b ?w] => change (vscale s b w) with (vs b w) end.
  repeat match goal with |- context [vsub ?s ?u ?w] => rewrite (vsub_vm u w) by (repeat rewrite ?length_vs, ?length_vm, ?length_vp, ?length_vmul, ?repeat_length, ?length_SM; simpl; lia) end.
  repeat match goal with |- context [vadd ?s ?u ?w] => rewrite (vadd_vp u w) by (repeat rewrite ?length_vs, ?length_vm, ?length_vp, ?length_vmul, ?repeat_length, ?length_SM; simpl; lia) end.
  rewrite app_nil_r, !sumv_vs, !dot_vs_r.
  assert (Hp : length (SM z) = n) by (rewrite length_SM; exact Hz).
  set (p := SM z) in *.
  cbn [vp]. f_equal; [|f_equal; [|f_equal]].
  - apply vec_ext; [repeat rewrite ?length_vs, ?length_vm, ?length_vp, ?length_vmul, ?repeat_length; lia|].
    intros i. repeat rewrite ?nth_vp, ?nth_vs, ?nth_vm, ?nth_vmul. try rewrite (dot_comm cz p). ring.
  - apply vec_ext; [repeat rewrite ?length_vs, ?length_vm, ?length_vp, ?length_vmul, ?repeat_length; lia|].
    intros i. repeat rewrite ?nth_vp, ?nth_vs, ?nth_vm. try rewrite (dot_comm cz p). ring.
  - rewrite ?dot_vp_l, ?dot_vs_l, ?dot_vm_l, ?dot_vm_r, ?dot_vs_l.
    rewrite (dot_repeat_l t _ n Ht), (dot_repeat_r ct _ n Hct), (dot_repeat_l ct _ n Hct).
    try rewrite (dot_comm cz p). try rewrite (dot_comm cz t). try rewrite (dot_comm ct z). ring.
Qed.

(** ** Every primitive *)

(** [core_prog 2 p] is the kernel [rd²[p]] over ℝ for every primitive,
    on every argument of the type's length. *)
Lemma core_fun_prim2_all p v : length v = pdom 2 p ->
  core_fun (core_prog 2 p) v = prim_fun 2 p v.
Proof.
  intros Hv. destruct (core2_prim p) eqn:Hp; [exact (core_fun_prim2 p v Hp Hv)|].
  destruct p; try discriminate.
  - exact (core_fun_matmul2 _ _ _ _ Hv).
  - apply core_fun_conv1d2.
  - apply core_fun_maxpool2.
  - exact (core_fun_sce2 _ _ Hv).
Qed.

(** [core_prog 2 p] is the reverse derivative of [core_prog 1 p] at every
    point of [prim_domain 1 p] (prims_all.v), for every primitive with
    sensible parameters. *)
Theorem core_rd2_correct_all_on p x :
  prim_ok p = true -> length x = pdom 1 p -> prim_domain 1 p x ->
  is_rev_deriv (pdom 1 p) (pcod 1 p) (core_fun (core_prog 1 p)) x
    (fun y => core_fun (core_prog 2 p) (x ++ y)).
Proof. intros Hok. exact (fun Hx HD => core_rd_of_kernels 1 p x Hok (Nat.le_refl 1) Hx HD (core_fun_prim1 p) (core_fun_prim2_all p)). Qed.

(** * The core's programs over the reals

    [theories/rh/rdcore.v] writes each primitive's forward map once as a
    straight-line program of the core ([prim_core]) and obtains
    [rd^{k+1}[p]] from [rd^k[p]] by reverse differentiation of programs
    ([rd_core], [core_prog k p]).  [eval_cprog] is parametric in the
    interpretation of the operations; its real meaning is the instance's
    interpretation [cop_eval] at the real vector model [Rvo] of
    [prims.v] ([ceval]), no second evaluator.  [core_fun P] is that
    meaning as a map of flat vectors, as [prim_fun] is for [Ev]: the
    inputs are consecutive blocks of lengths [cp_dims P], the outputs
    are concatenated.

    Proved here:
    - [core_prog 0 p] is the primitive's forward map that the real model
      already uses, for every primitive ([core_fun_prim0]);
    - [core_prog 1 p] is [rd[p]], the hand-written kernel, over ℝ for
      every primitive ([core_fun_prim1]);
    - hence [core_prog 1 p] is the reverse derivative of [core_prog 0 p]
      at every point of the primitive's domain ([core_rd1_correct_on]),
      everywhere for the smooth primitives ([core_rd1_correct]);
    - [core_prog 2 p] is the kernel [rd²[p]] over ℝ for fifteen of the
      nineteen primitives ([core2_prim], [core_fun_prim2]), hence the
      reverse derivative of [core_prog 1 p] on the primitive's domain
      ([core_rd2_correct_on]).

    [rd_core] computes the transposed Jacobian of every judged program
    without [maxpool]-family operations wherever its elementwise maps
    satisfy [op_diff] (rdcore_opderiv.v, [rd_core_rev_deriv_covered]).
    [op_diff] at every point for the smooth elementwise maps, and so
    [rd^k] of the core for every [k], is rdcore_smooth.v and rdcore_k.v;
    that [Ev] of [rd^k[p]] is [core_prog k p] over ℝ for every [k] is
    rdcore_ev.v. *)
From RevHandlers.Analysis Require Import base vec templates sums prims prims_more sce prims_all.
From RevHandlers Require Import rdcore.
Open Scope R_scope.

(** ** The real meaning of a core program *)

(** The instance's evaluation of core programs, at the real vectors. *)
Definition ceval (P : cprog) (xs : list vec) : list vec :=
  eval_cprog (cop_eval Rvo) (v_zero Rvo 0) P xs.

(** As a map of flat vectors: [ℝ^{Σ cp_dims P} → ℝ^{Σ out}]. *)
Definition core_fun (P : cprog) (v : vec) : vec :=
  concat (ceval P (split_at 0 (cp_dims P) v)).

Lemma ceval_length P xs : length (ceval P xs) = length (cp_out P).
Proof. apply eval_cprog_length. Qed.

(** ** [rd⁰] and [rd¹] of the core are the real model's *)

(** The forward map written in the core is the primitive's, for every
    primitive. *)
Lemma core_fun_prim0 p v : core_fun (core_prog 0 p) v = prim_fun 0 p v.
Proof. destruct p; reflexivity. Qed.

#[local] Arguments logsumexp : simpl never.
#[local] Arguments softmax : simpl never.

(** [rd[concat]]: the core's last input has length [c·n + c'·n], the
    type's [(c + c')·n]. *)
Lemma core_fun_concat1 c c' n v :
  core_fun (core_prog 1 (PConcat c c' n)) v = prim_fun 1 (PConcat c c' n) v.
Proof.
  unfold core_fun, prim_fun.
  assert (E : cp_dims (core_prog 1 (PConcat c c' n)) = [c * n; c' * n; c * n + c' * n]%nat)
    by reflexivity.
  rewrite E, <- Nat.mul_add_distr_r. reflexivity.
Qed.

(** [rd[sce]]: the core sums the contributions of [z]'s two uses,
    [−g·t + (Σ g·t)·softmax z], the kernel writes [g·((Σ t)·softmax z − t)];
    equal over ℝ on inputs of the type's lengths. *)
Lemma core_fun_sce1 n v : length v = (n + n + 1)%nat ->
  core_fun (core_prog 1 (PSce n)) v = prim_fun 1 (PSce n) v.
Proof.
  intros Hv. rewrite sce_forms1 by exact Hv. unfold core_fun, sce_f1.
  assert (E : cp_dims (core_prog 1 (PSce n)) = [n; n; 1]%nat) by reflexivity.
  rewrite E. cbn [split_at]. rewrite Nat.add_0_l.
  assert (Hz : length (proj 0 n v) = n) by (apply length_proj; lia).
  assert (Ht : length (proj n n v) = n) by (apply length_proj; lia).
  set (z := proj 0 n v) in *. set (t := proj n n v) in *. set (g := proj (n + n) 1 v).
  assert (Ep : core_prog 1 (PSce n) =
    {| cp_dims := [n; n; 1%nat];
       cp_body := [(OLse, [0%nat]); (OBcast n, [3%nat]); (OSub, [4%nat; 0%nat]);
                   (OScale, [2%nat; 5%nat]); (OScale, [2%nat; 1%nat]); (ONeg, [7%nat]);
                   (OSum, [7%nat]); (OSoftmax, [0%nat]); (OScale, [9%nat; 10%nat]);
                   (OAdd, [8%nat; 11%nat])];
       cp_out := [12%nat; 6%nat] |}) by reflexivity.
  rewrite Ep. unfold ceval, eval_cprog. simpl.
  rewrite app_nil_r, !vscale_vs, vneg_vs, vsum_sumv, softmax_unshifted, logsumexp_unshifted.
  rewrite vsub_vm by (rewrite repeat_length; lia).
  rewrite vadd_vp by (rewrite length_vs, length_vs, length_vs, length_SM; lia).
  f_equal. unfold vget. simpl. set (a := nth 0 g 0).
  assert (Hs : sumv (vs a t) = a * sumv t).
  { unfold sumv, vs. clear. induction t as [|b t IH]; simpl; [ring|]. rewrite IH. ring. }
  rewrite Hs. apply vec_ext.
  - rewrite length_vp, !length_vs, length_vm, length_vs, length_SM. lia.
  - intros i. rewrite nth_vp, !nth_vs, nth_vm, !nth_vs. ring.
Qed.

(** Symbolic reverse mode of each primitive's forward map computes, over
    ℝ, the hand-written kernel [rd[p]] of instance.v: by computation for
    every primitive but [concat] (the same up to [(c + c')·n = c·n + c'·n])
    and [sce] (the same up to real arithmetic, on inputs of the type's
    lengths). *)
Lemma core_fun_prim1 p v : length v = pdom 1 p ->
  core_fun (core_prog 1 p) v = prim_fun 1 p v.
Proof.
  intros Hv. destruct p; try reflexivity.
  - apply core_fun_concat1.
  - apply core_fun_sce1. rewrite Hv. prim_dims.
Qed.

(** ** [rd¹] of the core is the reverse derivative of [rd⁰] *)

Lemma dsum_app' a b : dsum (a ++ b) = (dsum a + dsum b)%nat.
Proof. induction a as [|d a IH]; simpl; [reflexivity|]. unfold dsum in *. simpl. rewrite IH. lia. Qed.

(** [rd^{k+1}[p]] takes [rd^k[p]]'s argument and a cotangent. *)
Lemma pdom_S k p : pdom (S k) p = (pdom k p + pcod k p)%nat.
Proof.
  unfold pdom, pcod.
  change (@ty_dims vec (@fdom vec (S k) p))
    with (@ty_dims vec (@fdom vec k p) ++ @ty_dims vec (@fcod vec k p) ++ []).
  rewrite app_nil_r. apply dsum_app'.
Qed.

(** Where the core's [rd^k[p]] and [rd^{k+1}[p]] (for [k ≤ 1]) compute
    the kernels [prim_fun] on arguments of the type's lengths, the second
    is the reverse derivative of the first at every point of
    [prim_domain k p] (prims_all.v's [prim_rd_correct_on]). *)
Lemma core_rd_of_kernels k p x :
  prim_ok p = true -> (k <= 1)%nat -> length x = pdom k p -> prim_domain k p x ->
  (forall v, length v = pdom k p -> core_fun (core_prog k p) v = prim_fun k p v) ->
  (forall v, length v = pdom (S k) p -> core_fun (core_prog (S k) p) v = prim_fun (S k) p v) ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof.
  intros Hok Hk Hx HD Hk0 Hk1.
  eapply is_rev_deriv_ext; [| |exact (prim_rd_correct_on p k Hok Hk x Hx HD)].
  - intros v Hv. symmetry. apply Hk0, Hv.
  - intros y Hy. symmetry. apply Hk1. rewrite app_length, Hx, Hy, pdom_S. reflexivity.
Qed.

(** [core_prog 1 p] is the reverse derivative of [core_prog 0 p] at every
    point of [prim_domain 0 p] (prims_all.v: everywhere for the smooth
    primitives, off the kink for [relu], [round] and [maxpool], [x > 0]
    for [log]), for every primitive with sensible parameters. *)
Theorem core_rd1_correct_on p x :
  prim_ok p = true -> length x = pdom 0 p -> prim_domain 0 p x ->
  is_rev_deriv (pdom 0 p) (pcod 0 p) (core_fun (core_prog 0 p)) x
    (fun y => core_fun (core_prog 1 p) (x ++ y)).
Proof. intros Hok Hx HD. apply (core_rd_of_kernels 0 p x Hok (Nat.le_0_l 1) Hx HD); [intros v _; apply core_fun_prim0|apply core_fun_prim1]. Qed.

(** For a smooth primitive, at every point. *)
Theorem core_rd1_correct p x :
  smooth_prim p = true -> prim_ok p = true -> length x = pdom 0 p ->
  is_rev_deriv (pdom 0 p) (pcod 0 p) (core_fun (core_prog 0 p)) x
    (fun y => core_fun (core_prog 1 p) (x ++ y)).
Proof.
  intros Hs Hok Hx.
  eapply is_rev_deriv_ext; [| |exact (prim_rd_correct p 0 Hs Hok (Nat.le_0_l 1) x Hx)].
  - intros v _. symmetry. apply core_fun_prim0.
  - intros y Hy. symmetry. apply core_fun_prim1. rewrite app_length, Hx, Hy, pdom_S. reflexivity.
Qed.

(** ** [rd²] of the core is the real model's, for most primitives

    At [k = 2] the core's programs differ from the hand-written kernels
    in form (the order of products, [u + (−v)] for [u − v], contributions
    summed in another order); over ℝ they are equal on inputs of the
    type's lengths.  [core_eval] computes the program ([vm_compute]) and
    runs it symbolically; [core_vec] closes the equation coordinatewise. *)
Ltac core_eval :=
  unfold core_fun, prim_fun;
  match goal with |- context [core_prog ?k ?p] =>
    let t := eval vm_compute in (core_prog k p) in change (core_prog k p) with t end;
  unfold ceval, eval_cprog; simpl.

Ltac core_lens :=
  repeat rewrite ?length_vs, ?length_vmul, ?map_length, ?length_vp, ?length_vm,
    ?repeat_length, ?length_zeros, ?length_proj by lia; lia.

Ltac core_vec :=
  rewrite ?vmul_inst, ?vneg_vs, ?vscale_vs, ?vsum_sumv, ?vdot_dot;
  rewrite ?vadd_vp, ?vsub_vm by core_lens;
  rewrite ?length_proj by lia;
  repeat match goal with
         | |- _ ++ _ = _ ++ _ => f_equal
         | |- _ :: _ = _ :: _ => f_equal
         end;
  try reflexivity; try apply dot_comm;
  try (apply vec_ext; [core_lens | intros ?i; rewrite ?nth_vp, ?nth_vm, ?nth_vs, ?nth_vmul; ring]).

(** [upscale] and [concat]: the program computed with the dimensions'
    products kept. *)
Lemma core_fun_upscale2 c n m v : length v = pdom 2 (PUpscale c n m) ->
  core_fun (core_prog 2 (PUpscale c n m)) v = prim_fun 2 (PUpscale c n m) v.
Proof.
  intros Hv. unfold pdom, dsum in Hv; simpl in Hv. unfold core_fun, prim_fun.
  change (core_prog 2 (PUpscale c n m)) with
    {| cp_dims := [c * n; c * m; c * n]%nat;
       cp_body := [(OUpscale c n m, [2%nat]); (OZero (c * n), [])];
       cp_out := [4%nat; 3%nat] |}.
  unfold ceval, eval_cprog. simpl. rewrite length_proj by lia. reflexivity.
Qed.

(** [concat]: the core adds [(0, cy)] and [(cx, 0)]. *)
Lemma core_fun_concat2 c c' n v : length v = pdom 2 (PConcat c c' n) ->
  core_fun (core_prog 2 (PConcat c c' n)) v = prim_fun 2 (PConcat c c' n) v.
Proof.
  intros Hv. unfold pdom, dsum in Hv; simpl in Hv. unfold core_fun, prim_fun.
  change (core_prog 2 (PConcat c c' n)) with
    {| cp_dims := [c * n; c' * n; c * n + c' * n; c * n; c * n + c' * n - c * n]%nat;
       cp_body := [(OZero (c * n), []); (OAppend, [5%nat; 4%nat]);
                   (OZero (c * n + c' * n - c * n), []); (OAppend, [3%nat; 7%nat]);
                   (OAdd, [6%nat; 8%nat]); (OZero (c * n), []); (OZero (c' * n), [])];
       cp_out := [10%nat; 11%nat; 9%nat] |}.
  replace (c * n + c' * n - c * n)%nat with (c' * n)%nat by lia.
  rewrite <- Nat.mul_add_distr_r.
  unfold ceval, eval_cprog. simpl.
  assert (Hx : length (proj ((c * n + c' * n + (c + c') * n)) (c * n) v) = (c * n)%nat) by (apply length_proj; lia).
  set (cx := proj ((c * n + c' * n + (c + c') * n)) (c * n) v) in *.
  assert (Hy : length (proj (c * n + c' * n + (c + c') * n + c * n) (c' * n) v) = (c' * n)%nat)
    by (apply length_proj; lia).
  set (cy := proj (c * n + c' * n + (c + c') * n + c * n) (c' * n) v) in *.
  do 3 f_equal. unfold vzero.
  rewrite vadd_vp by (rewrite !app_length, !repeat_length; lia).
  apply vec_ext; [rewrite length_vp, !app_length, !repeat_length; lia|]. intros i.
  rewrite nth_vp. destruct (Nat.lt_ge_cases i (c * n)) as [Hi|Hi].
  - rewrite !app_nth1 by (rewrite ?repeat_length; lia). rewrite nth_repeat. ring.
  - rewrite !app_nth2 by (rewrite ?repeat_length; lia). rewrite repeat_length, Hx.
    change (nth (i - c * n) (repeat 0 (c' * n)) 0) with ((zeros (c' * n))@@(i - c * n)).
    rewrite nth_zeros. ring.
Qed.

(** The primitives whose [rd²] is proved here to be the core's. *)
Definition core2_prim (p : prim) : bool :=
  match p with
  | PSwish _ | PSmul _ | PSub _ | PTranspose _ _ | PPad _ _ _ | PUpscale _ _ _ | PConcat _ _ _
  | PRound _
  | PRelu _ | PSigmoid _ | PTanh _ | PExp _ | PLog _ | PMul _ | PSum _ => true
  | _ => false
  end.

(** [core_prog 2 p] is the kernel [rd²[p]] over ℝ, for every primitive
    but [matmul], [conv1d], [maxpool] and [sce]. *)
Lemma core_fun_prim2 p v : core2_prim p = true -> length v = pdom 2 p ->
  core_fun (core_prog 2 p) v = prim_fun 2 p v.
Proof.
  intros Hp Hv. destruct p; try discriminate;
    lazymatch goal with
    | |- context [PUpscale _ _ _] => exact (core_fun_upscale2 _ _ _ _ Hv)
    | |- context [PConcat _ _ _] => exact (core_fun_concat2 _ _ _ _ Hv)
    | _ => unfold pdom, dsum in Hv; simpl in Hv; core_eval; core_vec
    end.
Qed.

(** [core_prog 2 p] is the reverse derivative of [core_prog 1 p] at every
    point of [prim_domain 1 p] (prims_all.v), for those primitives. *)
Theorem core_rd2_correct_on p x :
  core2_prim p = true -> prim_ok p = true -> length x = pdom 1 p -> prim_domain 1 p x ->
  is_rev_deriv (pdom 1 p) (pcod 1 p) (core_fun (core_prog 1 p)) x
    (fun y => core_fun (core_prog 2 p) (x ++ y)).
Proof.
  intros Hp Hok Hx HD. apply (core_rd_of_kernels 1 p x Hok (Nat.le_refl 1) Hx HD); [apply core_fun_prim1|].
  intros v. apply core_fun_prim2, Hp.
Qed.

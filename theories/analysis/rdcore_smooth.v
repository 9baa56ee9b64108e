(** * The smooth elementwise maps of the core: [op_diff] at every point

    [smooth_efun f]: the elementwise maps differentiable everywhere over
    ℝ, [swish], [sigmoid], [tanh], [exp] and the derivatives the core
    writes for them ([ESwish1], [ESwish2], [ESigm1], [ESigm2], [ETanh1],
    [ETanh2]).  For each of them, [efun_d] (rdcore.v) writes, with the
    core's operations, an expression whose value at [x] is the real
    derivative of [efs f] at every coordinate of [x]
    ([efun_dval_smooth]), so [op_diff (OMap f)] holds at every argument
    ([op_diff_smooth]).  [round], [relu], its step and [log] with its
    derivatives are left out: they are not differentiable at [0]
    (or not defined at [x ≤ 0]).

    The proof is one tactic for the ten maps: the expression [efun_d f]
    is shown to be the map of one scalar function ([pw]), whose
    derivative [auto_derive] computes, the identity closed by [field]
    under [1 + e^(-x) > 0] or [e^x + e^(-x) ≠ 0]. *)
From RevHandlers.Analysis Require Import base vec prims rdcore_sound.
From RevHandlers Require Import instance rdcore.
Open Scope R_scope.

Definition smooth_efun (f : efun) : bool :=
  match f with
  | ESwish | ESwish1 | ESwish2 | ESigm | ESigm1 | ESigm2
  | ETanh | ETanh1 | ETanh2 | EExp => true
  | ERound | ERelu | ERelu1 | ELog | ELog1 | ELog2 => false
  end.

(** [u] is the map of the scalar function [h] over [x]. *)
Definition pw (x : vec) (h : R -> R) (u : vec) : Prop := u = map h x.

Lemma vmap2_map (k : R -> R -> R) (f g : R -> R) (x : vec) :
  vmap2 k (map f x) (map g x) = map (fun a => k (f a) (g a)) x.
Proof. induction x as [|a x IH]; [reflexivity|]. cbn. f_equal. exact IH. Qed.

Section pointwise.
Variable x : vec.

Lemma pw_refl h : pw x h (map h x).
Proof. reflexivity. Qed.

Lemma pw_id : pw x (fun a => a) x.
Proof. symmetry. apply map_id. Qed.

Lemma pw_map e f u : pw x f u -> pw x (fun a => efs e (f a)) (cop_eval Rvo (OMap e) [u]).
Proof. intros ->. rewrite ce_map, map_map. reflexivity. Qed.

Lemma pw_add f g u v : pw x f u -> pw x g v ->
  pw x (fun a => f a + g a) (cop_eval Rvo OAdd [u; v]).
Proof. intros -> ->. apply (vmap2_map (s_add Rsc)). Qed.

Lemma pw_sub f g u v : pw x f u -> pw x g v ->
  pw x (fun a => f a - g a) (cop_eval Rvo OSub [u; v]).
Proof. intros -> ->. apply (vmap2_map (s_sub Rsc)). Qed.

Lemma pw_mul f g u v : pw x f u -> pw x g v ->
  pw x (fun a => f a * g a) (cop_eval Rvo OMul [u; v]).
Proof. intros -> ->. apply (vmap2_map (s_mul Rsc)). Qed.

Lemma pw_neg f u : pw x f u -> pw x (fun a => 0 - f a) (cop_eval Rvo ONeg [u]).
Proof. intros ->. change (map (s_sub Rsc 0) (map f x) = map (fun a => 0 - f a) x). apply map_map. Qed.
End pointwise.

(** An expression of the two variables [x] and [map (efs f) x] built of
    [map], [add], [sub], [mul] and [neg] is the map of a scalar function. *)
Ltac pw_solve :=
  repeat match goal with
  | |- pw _ _ (reval _ (RO _ _)) => rewrite reval_RO; cbn [map]
  | |- pw _ _ (reval _ _) => progress unfold rmap, radd, rmul, rtwice, sigm3
  | |- pw _ _ (reval _ (RV 0)) => apply pw_id
  | |- pw _ _ (reval _ (RV 1)) => cbn [reval nth]; apply pw_refl
  | |- pw _ _ (cop_eval Rvo (OMap _) _) => apply pw_map
  | |- pw _ _ (cop_eval Rvo OAdd _) => apply pw_add
  | |- pw _ _ (cop_eval Rvo OSub _) => apply pw_sub
  | |- pw _ _ (cop_eval Rvo OMul _) => apply pw_mul
  | |- pw _ _ (cop_eval Rvo ONeg _) => apply pw_neg
  end.

Ltac pw_goal := lazymatch goal with |- ?u = map ?h ?x => change (pw x h u) end.

(** The derivative of a smooth map at a real [a]: every function
    unfolded to [exp], [auto_derive], the positivity of the
    denominators, [field]. *)
Ltac smooth_derive a :=
  cbn [efs]; unfold swish, swish', swish'', sigm, sigm', sigm'', s_tanh, tanh', tanh'', two; cbn;
  unfold Rtanh; auto_derive;
  pose proof (sigm_pos a); pose proof (exp_pos a); pose proof (exp_pos (- a));
  unfold Rminus in *; rewrite ?Rplus_0_l in *;
  first [repeat split; lra | field; repeat split; lra].

(** For each smooth map, [efun_d] is the map of a scalar function that is
    the real derivative of the map at every real. *)
Lemma efun_dval_smooth f x : smooth_efun f = true ->
  exists h, efun_dval f x = map h x /\ forall a, is_derive (efs f) a (h a).
Proof.
  intros Hs. unfold efun_dval.
  destruct f; try discriminate Hs; cbn [efun_d]; unfold rmap, radd, rmul, rtwice, sigm3;
    (eexists; split; [pw_goal; pw_solve|intros a; smooth_derive a]).
Qed.

Theorem op_diff_smooth f xs : smooth_efun f = true -> op_diff (OMap f) xs.
Proof.
  intros Hs i Hi. cbv zeta in *. destruct (efun_dval_smooth f (nth 0 xs []) Hs) as (h & -> & Hd).
  rewrite (nth_map_lt _ _ _ 0 0) by exact Hi. apply Hd.
Qed.

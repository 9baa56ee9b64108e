(** * [Ev] of [rd^k[p]] over ℝ is the core's, and a reverse derivative, for every [k]

    The instance's [Ev] ([exec_ev], [eval_prim] of instance.v) computes
    [rd^k[p]] with the hand-written kernels for [k ≤ 2] and with the
    core's program [core_prog k p] (rdcore.v) beyond.  Over ℝ both are
    the core's real meaning [core_fun (core_prog k p)] on every argument
    of the type's lengths ([core_fun_prim_k]): for [k ≤ 2] by
    rdcore_real.v and rdcore_prim2.v ([core_fun_prim0], [core_fun_prim1],
    [core_fun_prim2_all]); for [k ≥ 3] because [eval_prim] is [eval_core]
    there, which answers the core's outputs since [core_prog k p] is
    judged with the dimensions of [rd^k[p]]'s type ([core_prog_wd],
    [rd_core_wd]) and the list model keeps lengths ([eval_cprog_fits]).

    Hence, with [core_rdk_correct] (rdcore_k.v), for every primitive whose
    forward map is smooth ([smooth_core]: the fourteen of [smooth_prim]
    and [sce]) and every [k], [Ev] of [rd^{k+1}[p]] is the reverse
    derivative of [Ev] of [rd^k[p]] at every point ([ev_rdk_correct],
    [prim_fun] being [Ev] on flat vectors, [ev_flat]), and what [Ev]
    answers at [<V, W>] is that reverse derivative at [V] applied to [W]
    ([ev_rdk_value]).  [Ev] answers on every well-shaped argument, for
    every [k] and every primitive, with the core's value ([ev_core_all]),
    and every [rd^k[p]] has the shapes of its type ([eval_prim_shapes]). *)
From RevHandlers.Analysis Require Import base vec templates prims ev rdcore_real rdcore_prim2 rdcore_k.
From RevHandlers Require Import prelude signature syntax typing shapes rdcore core_dims prune_dims ev_total.
Open Scope R_scope.

(** ** [rd^k[p]] is the core's program over ℝ, for every [k] *)

Lemma split_at_fit_dims c D (v : vec) : (c + dsum D <= length v)%nat ->
  fit_dims Rvo D (split_at c D v).
Proof.
  revert c. induction D as [|d D IH]; intros c Hc; cbn [split_at]; constructor;
    change (dsum (d :: D)) with (d + dsum D)%nat in Hc.
  - cbn. apply length_proj. lia.
  - apply IH. lia.
Qed.

Lemma split_at_len c D (v : vec) : length (split_at c D v) = length D.
Proof. revert c. induction D as [|d D IH]; intros c; cbn; [reflexivity|]. rewrite IH. reflexivity. Qed.

(** Beyond [rd²], [Ev] is [eval_core] of the core's program, which
    answers its outputs on inputs of the type's lengths. *)
Lemma eval_prim_core_real k p xs : (3 <= k)%nat -> prim_ok p = true ->
  fit_dims Rvo (@ty_dims vec (@fdom vec k p)) xs ->
  eval_prim Rvo k p xs = Some (ceval (core_prog k p) xs).
Proof.
  intros Hk Hok Hf. rewrite (eval_prim_core Rvo k p xs Hk).
  destruct (@core_prog_wd vec rd_core_wd k p Hok) as (Hwd & Hin & Hout).
  rewrite <- Hin in Hf. unfold eval_core.
  rewrite <- (Forall2_length' _ _ _ Hf), Nat.eqb_refl.
  pose proof (eval_cprog_fits Rvo (list_vec_shapes Rsc) _ _ Hwd Hf) as Ho.
  rewrite Hout in Ho. cbv zeta. unfold vec in *. rewrite (fit_dims_dims_fitb Rvo _ _ Ho). reflexivity.
Qed.

Lemma core_fun_prim_core k p v : (3 <= k)%nat -> prim_ok p = true -> length v = pdom k p ->
  core_fun (core_prog k p) v = prim_fun k p v.
Proof.
  intros Hk Hok Hv. unfold prim_fun.
  rewrite (eval_prim_core_real k p _ Hk Hok) by (apply split_at_fit_dims; unfold pdom in Hv; lia).
  unfold core_fun. destruct (@core_prog_wd vec rd_core_wd k p Hok) as (_ & Hin & _).
  rewrite Hin. reflexivity.
Qed.

(** [core_prog k p] is [rd^k[p]] over ℝ, for every [k], every primitive
    with sensible parameters and every argument of the type's lengths. *)
Theorem core_fun_prim_k k p v : prim_ok p = true -> length v = pdom k p ->
  core_fun (core_prog k p) v = prim_fun k p v.
Proof.
  intros Hok Hv. destruct k as [|[|[|k']]].
  - apply core_fun_prim0.
  - apply core_fun_prim1, Hv.
  - apply core_fun_prim2_all, Hv.
  - apply core_fun_prim_core; [lia|exact Hok|exact Hv].
Qed.

(** ** [Ev] of [rd^{k+1}[p]] is the reverse derivative of [Ev] of [rd^k[p]] *)

(** For every primitive whose forward map in the core is smooth and every
    [k]: [rd^{k+1}[p]] is the reverse derivative of [rd^k[p]] at every
    point ([rd_correct_at], prims.v, at every [k]). *)
Theorem ev_rdk_correct k p :
  smooth_core p = true -> prim_ok p = true -> rd_correct_at k p.
Proof.
  intros Hs Hok x Hx.
  eapply is_rev_deriv_ext; [| |exact (core_rdk_correct k p x Hs Hok Hx)].
  - intros v Hv. apply core_fun_prim_k; assumption.
  - intros y Hy. apply core_fun_prim_k; [exact Hok|]. rewrite app_length, Hx, Hy, pdom_S. reflexivity.
Qed.

(** The same at the level of [Ev]'s answer: when [Ev] answers [U] for
    [rd^{k+1}[p]] at [<V, W>], [U] flattened is the reverse derivative of
    [rd^k[p]] at [V] applied to [W], for every [k]. *)
Theorem ev_rdk_value k p V W U :
  smooth_core p = true -> prim_ok p = true ->
  length (flat V) = pdom k p -> length (flat W) = pcod k p ->
  exec_ev Rvo (S k, p) (Tuple [V; W]) = Some U ->
  is_rev_deriv (pdom k p) (pcod k p) (prim_fun k p) (flat V) (fun y => prim_fun (S k) p (flat V ++ y)) /\
  flat U = prim_fun (S k) p (flat V ++ flat W).
Proof.
  intros Hs Hok HV HW Hev. apply ev_flat in Hev. rewrite flat_pair in Hev.
  split; [exact (ev_rdk_correct k p Hs Hok (flat V) HV)|exact Hev].
Qed.

(** ** [Ev] answers the core's value on every well-shaped argument *)

Lemma leaves_fit_length dims (ls : list (nat * vec)) : leaves_fit Rvo dims ls = true ->
  length (concat (map snd ls)) = dsum dims.
Proof.
  intros H. apply leaves_fit_Forall2 in H. induction H as [|d v ds vs Hv _ IH]; [reflexivity|].
  cbn [concat]. rewrite app_length, Hv, IH. reflexivity.
Qed.

(** What [Ev] answers for [rd^k[p]] is, flattened, the core's
    [core_prog k p] at the argument flattened, for every [k]. *)
Theorem ev_core k p V U : exec_ev Rvo (k, p) V = Some U ->
  flat U = core_fun (core_prog k p) (flat V).
Proof.
  intros Hev. pose proof Hev as E. unfold exec_ev in E.
  destruct (prim_ok p && leaves_fit Rvo _ _) eqn:Hb; [|discriminate].
  apply andb_true_iff in Hb as [Hok Hfit].
  rewrite (ev_flat k p V U Hev). symmetry. apply core_fun_prim_k; [exact Hok|].
  unfold flat, pdom. exact (leaves_fit_length _ _ Hfit).
Qed.

#[local] Instance Rsorts_ev : sorts := exec_sorts vec.

Section ev_all.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σev : signature := exec_signature Rvo decls locs.

(** [Ev] of [rd^k[p]], for every [k] and every primitive with sensible
    parameters, answers on every closed value typed at its domain whose
    constants have their lengths, and its answer is the core's. *)
Theorem ev_core_all k p V :
  prim_ok p = true -> value V -> typed_tm [] V (@fdom vec k p) -> consts_fit Rvo V ->
  exists U, exec_ev Rvo (k, p) V = Some U /\ flat U = core_fun (core_prog k p) (flat V).
Proof.
  intros Hok HV HT Hfit.
  destruct (exec_ev_total_all_list Rsc decls locs k p V Hok HV HT Hfit) as [U HU].
  exists U. split; [exact HU|]. exact (ev_core k p V U HU).
Qed.
End ev_all.

(** ** Every [rd^k[p]] has the shapes of its type *)

(** On leaves of the lengths of [rd^k[p]]'s domain, [Ev] answers leaves
    of the lengths of its codomain, for every [k] and every primitive with
    sensible parameters. *)
Theorem eval_prim_shapes k p xs : prim_ok p = true ->
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (@fdom vec k p)) xs ->
  exists outs, eval_prim Rvo k p xs = Some outs /\
    Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (@fcod vec k p)) outs.
Proof.
  intros Hok Hf. destruct (Nat.le_gt_cases k 2) as [Hk|Hk].
  - destruct (eval_prim Rvo k p xs) as [outs|] eqn:E.
    + exists outs. split; [reflexivity|]. exact (eval_prim_fits Rvo (list_vec_shapes Rsc) k p xs outs Hk Hok Hf E).
    + exfalso. refine (eval_prim_total Rvo k p xs Hk _ E). symmetry. exact (Forall2_length' _ _ _ Hf).
  - rewrite (eval_prim_core_real k p xs ltac:(lia) Hok Hf). eexists. split; [reflexivity|].
    exact (eval_prim_fits_core Rvo k p xs _ ltac:(lia) (eval_prim_core_real k p xs ltac:(lia) Hok Hf)).
Qed.

(** The primitives differentiable everywhere in the calculus's sense (the
    fourteen of [smooth_prim] and [sce]) have a smooth forward map. *)
Lemma smooth_core_of_cases p : smooth_prim p = true \/ (exists n, p = PSce n) -> smooth_core p = true.
Proof. intros [Hs|[n ->]]; [apply smooth_prim_core, Hs|apply smooth_core_sce]. Qed.

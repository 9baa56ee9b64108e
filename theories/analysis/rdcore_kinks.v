(** * The core's [rd] of every order off the kinks

    [core_rdk_correct] (rdcore_k.v) covers the primitives whose core
    program is smooth.  The others ([relu], [round], [log], [maxpool])
    are differentiable only on a set, and so are the operations of the
    core they bring in: an elementwise map [OMap f] is differentiable,
    with the derivative [efun_d] writes, at a coordinate [a] where
    [efun_smooth_at f a] holds ([relu] and its step: [a ≠ 0]; [round]:
    [a + 1/2] not an integer; [log]: [a > 0]; its derivatives [1/a],
    [-1/a²]: [a ≠ 0]; the smooth maps: everywhere), and the [maxpool]
    family where every window of its first argument has its maximum at
    one position only ([windows_strict], maxpool.v).  [cop_smooth_at o xs]
    collects these conditions; under it and the lengths [cop_ok] asks,
    [cop_tan o xs] is the Fréchet derivative of [o] at [xs] and [op_diff]
    holds ([cop_deriv_at]), for every operation of the core.

    For a program, [prog_smooth_at P x]: every instruction of [P],
    evaluated at the point [x], is at a smooth point of its operation.
    Then [rd_core P] is the reverse derivative of [P] at [x]
    ([rd_core_rev_deriv_at]), and for every primitive and every [k],
    [core_prog (S k) p] is the reverse derivative of [core_prog k p] at
    every point [x] with [prog_smooth_at (core_prog k p) x]
    ([core_rdk_correct_at]).  The premise is about every instruction of
    [core_prog k p], not only the primitive's own input: at [k ≥ 1] the
    derivative programs contain the step [relu'] and the derivatives of
    [log], themselves with kinks.  The premise is decidable
    ([prog_smooth_at_dec], with the decisions of Coq's reals); it holds
    everywhere for a smooth program ([smooth_prog_smooth_at], so
    [core_rdk_correct] is a special case) and, for [relu] at every [k],
    at every point whose first block has no coordinate [0]
    ([relu_smooth_at]). *)
From RevHandlers.Analysis Require Import base vec sums templates prims prims_more round maxpool rdcore_real rdcore_sound rdcore_chain rdcore_prog rdcore_deriv rdcore_opderiv rdcore_smooth rdcore_k.
From RevHandlers Require Import rdcore core_dims prune_dims.
Open Scope R_scope.

#[local] Arguments cop_eval : simpl never.

(** ** Elementwise maps *)

(** Where the scalar function of an elementwise map is differentiable
    with the derivative [efun_d] writes. *)
Definition efun_smooth_at (f : efun) (a : R) : Prop :=
  match f with
  | ERound => forall z : Z, a + / 2 <> IZR z
  | ERelu | ERelu1 => a <> 0
  | ELog => 0 < a
  | ELog1 | ELog2 => a <> 0
  | _ => True
  end.

Lemma zeros_map (x : vec) : zeros (length x) = map (fun _ => 0) x.
Proof. induction x as [|a x IH]; [reflexivity|]. cbn. f_equal. exact IH. Qed.

(** [efun_d f] at [x] is the map of one scalar function, the real
    derivative of [efs f] wherever [efun_smooth_at f] holds. *)
Lemma efun_dval_at f x :
  exists h, efun_dval f x = map h x /\ forall a, efun_smooth_at f a -> is_derive (efs f) a (h a).
Proof.
  destruct (smooth_efun f) eqn:Hs.
  - destruct (efun_dval_smooth f x Hs) as (h & E & D). exists h. split; [exact E|]. intros a _. apply D.
  - destruct f; try discriminate Hs; unfold efun_dval; cbn [efun_d].
    + (* round *) exists (fun _ => 0). split; [apply zeros_map|]. intros a Ha. apply is_derive_Rround, Ha.
    + (* relu *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_relu, Ha.
    + (* its step *) exists (fun _ => 0). split; [apply zeros_map|]. intros a Ha. apply is_derive_relu', Ha.
    + (* log *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_ln', Ha.
    + (* 1/x *) eexists. split; [unfold rmap; pw_goal; pw_solve|]. intros a Ha. apply is_derive_log', Ha.
    + (* -1/x² *) eexists. split; [unfold rmap, rtwice, rmul; pw_goal; pw_solve|]. intros a Ha.
      cbn in Ha. cbn [efs]. unfold log', log''. cbn. auto_derive; [repeat split; exact Ha|]. field. exact Ha.
Qed.

Lemma op_diff_map_at f x :
  (forall i, (i < length x)%nat -> efun_smooth_at f (x@@i)) -> op_diff (OMap f) [x].
Proof.
  intros H i Hi. cbn [nth] in *. destruct (efun_dval_at f x) as (h & -> & D).
  rewrite (nth_map_lt _ _ _ 0 0) by exact Hi. apply D, H, Hi.
Qed.

(** ** The [maxpool] family where every window has a strict maximum *)

Section maxpool_family.
Variables c n m : nat.
Hypothesis Hm : (0 < m)%nat.

(** Near a point whose windows have strict maxima, [maxpool_adj] and
    [maxpool_gather] do not depend on their first argument. *)
Lemma mp_first_near x : length x = (c * n)%nat -> windows_strict c n m x ->
  exists d, 0 < d /\ forall u, length u = (c * n)%nat -> norm1 u < d ->
    (forall g, length g = (c * ceil_div n m)%nat -> maxpool_adj Rsc c n m (vp x u) g = maxpool_adj Rsc c n m x g) /\
    (forall y, length y = (c * n)%nat -> maxpool_gather Rsc c n m (vp x u) y = maxpool_gather Rsc c n m x y).
Proof.
  intros Hx Hs. destruct (mp_near c n m Hm x Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
  intros u Hu Hn. assert (Hl : length (vp x u) = (c * n)%nat) by (rewrite length_vp; lia).
  split.
  - intros g Hg. rewrite !(adj_form c n m Hm) by assumption. f_equal. apply map_ext_in. intros i Hi. apply in_seq in Hi.
    f_equal. apply map_ext_in. intros t Ht. apply in_seq in Ht. unfold adj_w.
    rewrite H by (auto; lia). rewrite (length_win n m (vp x u) x i t) by lia. reflexivity.
  - intros y Hy. rewrite !(gather_tab c n m Hm) by assumption. apply tab2_ext. intros i t Hi Ht. rewrite H; auto.
Qed.

Lemma cop_deriv_maxpool x0 : length x0 = (c * n)%nat -> windows_strict c n m x0 ->
  cop_deriv (OMaxpool c n m) [x0].
Proof.
  intros Hx Hs.
  apply (cop_deriv_unary _ _ (c * ceil_div n m) (maxpool Rsc c n m) (maxpool_gather Rsc c n m x0));
    [reflexivity|intros w _; reflexivity|intros h _; reflexivity|].
  rewrite Hx. apply has_deriv_loc_lin; [exact Hx| |apply (lin_gather c n m Hm), Hx|].
  - intros v Hv. rewrite (maxpool_tab c n m Hm) by exact Hv. apply length_tab2.
  - destruct (mp_near c n m Hm x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|]. intros h Hh Hn.
    assert (Hl : length (vp x0 h) = (c * n)%nat) by (rewrite length_vp; lia).
    rewrite (maxpool_tab c n m Hm), (gather_tab c n m Hm) by assumption. apply tab2_ext. intros i t Hi Ht.
    rewrite H; auto.
Qed.

(** An operation of [x] (length [c·n]) and a second argument of length
    [q], with results of length [r], linear in the second argument and,
    near [x0], independent of the first. *)
Lemma cop_deriv_first_const o x0 y0 q r (B : vec -> vec -> vec) :
  length x0 = (c * n)%nat -> length y0 = q -> cop_dim o [(c * n)%nat; q] = r ->
  lin q r (B x0) -> (forall u v, length u = (c * n)%nat -> length v = q -> length (B u v) = r) ->
  (forall u v, cop_eval Rvo o [u; v] = B u v) ->
  (forall h0 h1, cop_tan o [x0; y0] [h0; h1] = B x0 h1) ->
  (exists d, 0 < d /\ forall u, length u = (c * n)%nat -> norm1 u < d ->
     forall v, length v = q -> B (vp x0 u) v = B x0 v) ->
  cop_deriv o [x0; y0].
Proof.
  intros Hx Hy Hdim HL HBl Ee Et [d [Hd Hnear]]. set (N := (c * n)%nat) in *.
  apply (cop_deriv_binary _ _ _ r (fun w => B (firstn N w) (skipn N w)) (fun h => B x0 (skipn N h))).
  - rewrite Hx, Hy. symmetry. exact Hdim.
  - intros w _. rewrite Hx. apply Ee.
  - intros h _. rewrite Hx. apply Et.
  - rewrite Hx, Hy. apply has_deriv_loc_lin.
    + rewrite app_length. lia.
    + intros v Hv. apply HBl; [rewrite firstn_length|rewrite skipn_length]; lia.
    + apply (lin_comp _ q _ (B x0) (skipn N)); [apply lin_skipn|exact HL].
    + exists d. split; [exact Hd|]. intros h Hh Hn.
      rewrite firstn_vp, firstn_app_exact by exact Hx. apply Hnear.
      * rewrite firstn_length. lia.
      * eapply Rle_lt_trans; [apply norm1_firstn|exact Hn].
      * rewrite skipn_length, length_vp, app_length. lia.
Qed.

Lemma cop_deriv_maxpool_adj x0 g0 : length x0 = (c * n)%nat -> length g0 = (c * ceil_div n m)%nat ->
  windows_strict c n m x0 -> cop_deriv (OMaxpoolAdj c n m) [x0; g0].
Proof.
  intros Hx Hg Hs. apply (cop_deriv_first_const _ x0 g0 _ _ (maxpool_adj Rsc c n m) Hx Hg eq_refl).
  - apply (lin_adj c n m Hm), Hx.
  - intros u v Hu Hv. apply (length_adj c n m Hm); assumption.
  - intros u v. reflexivity.
  - intros h0 h1. reflexivity.
  - destruct (mp_first_near x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
    intros u Hu Hn v Hv. apply (proj1 (H u Hu Hn)), Hv.
Qed.

Lemma cop_deriv_maxpool_gather x0 y0 : length x0 = (c * n)%nat -> length y0 = (c * n)%nat ->
  windows_strict c n m x0 -> cop_deriv (OMaxpoolGather c n m) [x0; y0].
Proof.
  intros Hx Hy Hs.
  apply (cop_deriv_first_const (OMaxpoolGather c n m) x0 y0 _ (c * ceil_div n m) (maxpool_gather Rsc c n m) Hx Hy eq_refl).
  - apply (lin_gather c n m Hm), Hx.
  - intros u v Hu Hv. rewrite (gather_tab c n m Hm) by assumption. apply length_tab2.
  - intros u v. reflexivity.
  - intros h0 h1. reflexivity.
  - destruct (mp_first_near x0 Hx Hs) as [d [Hd H]]. exists d. split; [exact Hd|].
    intros u Hu Hn v Hv. apply (proj2 (H u Hu Hn)), Hv.
Qed.
End maxpool_family.

(** ** Every operation at its smooth points *)

(** An elementwise map at every coordinate of its argument; the [maxpool]
    family where every window of its first argument has a strict
    maximum; the other operations everywhere. *)
Definition cop_smooth_at (o : cop) (xs : list vec) : Prop :=
  match o with
  | OMap f => let x := nth 0 xs [] in forall i, (i < length x)%nat -> efun_smooth_at f (x@@i)
  | OMaxpool c n m | OMaxpoolAdj c n m | OMaxpoolGather c n m => windows_strict c n m (nth 0 xs [])
  | _ => True
  end.

(** [cop_tan o xs] is the Fréchet derivative of [o] at [xs], and
    [op_diff] holds, at every smooth point of every operation. *)
Theorem cop_deriv_at o xs :
  cop_ok o (map (@length R) xs) -> cop_smooth_at o xs -> cop_deriv o xs /\ op_diff o xs.
Proof.
  intros Hok Hs.
  assert (Hd : op_diff o xs).
  { destruct o; try exact I. destruct xs as [|x0 [|x1 xs]]; cbn in Hok; try contradiction.
    apply op_diff_map_at, Hs. }
  split; [|exact Hd].
  destruct (deriv_cop o) eqn:Ho; [apply cop_deriv_covered; assumption|].
  destruct o; try discriminate Ho; cbn [cop_smooth_at] in Hs;
    (destruct xs as [|x0 [|x1 [|x2 xs]]]; cbn in Hok; try contradiction); cbn [nth] in Hs.
  - destruct Hok as [Hm Hx]. apply cop_deriv_maxpool; assumption.
  - destruct Hok as (Hm & Hx & Hg). apply cop_deriv_maxpool_adj; assumption.
  - destruct Hok as (Hm & Hx & Hy). apply cop_deriv_maxpool_gather; assumption.
Qed.

(** ** Programs at a point *)

(** The arguments of instruction [j] of [P] evaluated at the flat point [x]. *)
Definition instr_args (P : cprog) (x : vec) (j : nat) : list vec :=
  map (fun k => nth k (vals (split_at 0 (cp_dims P) x) (cp_body P)) []) (snd (nth j (cp_body P) (OZero 0, []))).

(** Every instruction of [P], evaluated at [x], is at a smooth point of
    its operation. *)
Definition prog_smooth_at (P : cprog) (x : vec) : Prop :=
  forall j, (j < length (cp_body P))%nat -> cop_smooth_at (fst (nth j (cp_body P) (OZero 0, []))) (instr_args P x j).

(** [rd_core P] is the reverse derivative of [P] at every point where
    [P] is smooth, for every judged program. *)
Theorem rd_core_rev_deriv_at P x :
  wd_prog P -> length x = dsum (cp_dims P) -> prog_smooth_at P x ->
  is_rev_deriv (dsum (cp_dims P)) (dsum (out_dims P)) (core_fun P) x (fun y => core_fun (rd_core P) (x ++ y)).
Proof.
  intros HP Hx Hs. apply rd_core_rev_deriv; [exact HP|exact Hx|]. intros j Hj. cbv zeta.
  apply cop_deriv_at; [|exact (Hs j Hj)].
  destruct HP as [Hwd _]. destruct (wd_nth _ _ j Hwd Hj) as [Hargs Hok].
  rewrite map_map. erewrite map_ext_in; [exact Hok|]. intros a Ha. cbv beta.
  rewrite Forall_forall in Hargs. specialize (Hargs a Ha).
  apply (xv_len (cp_dims P) _ (cp_body P) Hwd (split_at_fits 0 (cp_dims P) x ltac:(lia))). lia.
Qed.

(** The headline: for every primitive and every [k], [rd^{k+1}] of the
    core is the reverse derivative of [rd^k] at every point where every
    instruction of [rd^k] is at a smooth point of its operation. *)
Theorem core_rdk_correct_at k p x :
  prim_ok p = true -> length x = pdom k p -> prog_smooth_at (core_prog k p) x ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof.
  intros Hok Hx Hs.
  destruct (@core_prog_wd vec rd_core_wd k p Hok) as (Hwd & Hin & Hout).
  unfold pdom, pcod in *. rewrite <- Hin, <- Hout in *.
  change (core_prog (S k) p) with (rd_core (core_prog k p)).
  apply rd_core_rev_deriv_at; assumption.
Qed.

(** A smooth program is smooth at every point, so [core_rdk_correct]
    is the case of a smooth forward map. *)
Lemma smooth_op_smooth_at o xs : smooth_op o = true -> cop_smooth_at o xs.
Proof.
  intros Ho. unfold smooth_op in Ho. apply andb_prop in Ho as [Hd Hf].
  destruct o; try discriminate Hd; try exact I. intros i _. destruct f; try discriminate Hf; exact I.
Qed.

Lemma smooth_prog_smooth_at P x : smooth_prog P -> prog_smooth_at P x.
Proof.
  intros HP j Hj. apply smooth_op_smooth_at. unfold smooth_prog, smooth_instrs in HP.
  rewrite Forall_forall in HP. apply HP, nth_In, Hj.
Qed.

Corollary core_rdk_correct_smooth_core k p x :
  smooth_core p = true -> prim_ok p = true -> length x = pdom k p ->
  is_rev_deriv (pdom k p) (pcod k p) (core_fun (core_prog k p)) x
    (fun y => core_fun (core_prog (S k) p) (x ++ y)).
Proof.
  intros Hs Hok Hx. apply core_rdk_correct_at; [exact Hok|exact Hx|].
  apply smooth_prog_smooth_at, smooth_core_prog, Hs.
Qed.

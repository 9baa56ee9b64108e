(** * The primitives of the instance over the reals

    The instance's scalars at ℝ ([Rsc]: [exp] is the real exponential,
    [round x = ⌊x + 1/2⌋], [s_lt] is [Rlt_dec]) and its vectors at the list
    model [list_vec_ops Rsc] ([Rvo]): the very definitions the evaluator
    runs.  [prim_fun k p] is [rd^k[p]] ([eval_prim Rvo k p]) as a map of
    flat vectors [ℝ^{pdom k p} → ℝ^{pcod k p}]: the leaves of the argument
    are its consecutive blocks, the result's leaves are concatenated.

    [rd_correct_at k p]: at every point [x], [rd^{k+1}[p](x, ·)] is the
    reverse derivative of [rd^k[p]] at [x].  Each primitive's list
    functions are first given a formula for their coordinates, then fed to
    the linear or bilinear template of [templates.v] ([sum], [mul] too);
    [swish] is a pointwise map, and so are [sigmoid], [tanh] and [exp]
    (the template [pw_rd0], [pw_rd1]).  [prim_rd_correct] collects them:
    every primitive but [round] ([round.v]), [maxpool], [relu], [log] and
    [sce] (on the sets where they are differentiable: [prims_more.v],
    [sce.v], [maxpool.v], all collected in [prims_all.v]), for [k = 0, 1]. *)
From RevHandlers.Analysis Require Import base vec templates sums.
Open Scope R_scope.

Definition Rround (x : R) : R := IZR (Int_part (x + / 2)).

(** The hyperbolic tangent over ℝ (the float evaluator's [tanh] is libm's). *)
Definition Rtanh (x : R) : R := (exp x - exp (- x)) / (exp x + exp (- x)).

Definition Rsc : scalar_ops R := {|
  s_zero := 0; s_czero := 0; s_one := 1; s_add := Rplus; s_sub := Rminus; s_mul := Rmult; s_div := Rdiv;
  s_exp := exp; s_log := ln; s_tanh := Rtanh; s_round := Rround;
  s_lt := fun a b => if Rlt_dec a b then true else false |}.

Lemma sigm_pos x : 0 < 1 + exp (0 - x).
Proof. pose proof (exp_pos (0 - x)). lra. Qed.

(** The derivatives of the functions built of the sigmoid: [auto_derive],
    its side condition and the field equation both under [1 + e^(-x) > 0]. *)
Ltac sigm_derive x :=
  auto_derive;
  [ pose proof (sigm_pos x); unfold Rminus in *; rewrite Rplus_0_l in *; lra
  | pose proof (sigm_pos x); unfold Rminus in *; rewrite !Rplus_0_l in *; field; lra ].

Lemma is_derive_swish x : is_derive (swish Rsc) x (swish' Rsc x).
Proof.
  unfold swish, swish', sigm, two. simpl.
  sigm_derive x.
Qed.

Lemma is_derive_swish' x : is_derive (swish' Rsc) x (swish'' Rsc x).
Proof.
  unfold swish', swish'', sigm, two. simpl.
  sigm_derive x.
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

(** ** Linear and bilinear primitives

    A primitive whose [rd⁰] is a linear map [L] with adjoint [Lt] has
    [rd¹ = lin1 Lt] and [rd² = lin2 L] ([templates.v]); a bilinear one
    [B] with adjoints [P], [Q] in each argument has [bil1 P Q] and
    [bil2 B P Q].  Given the forms of [prim_fun], the two lemmas of each
    section are [rd_correct_at 0] and [rd_correct_at 1] for such a
    primitive; the sizes are closed by [prim_dims]. *)
Ltac prim_dims := unfold pdom, pcod, dsum; simpl; lia.

Section linear_prim.
Variables (pr : prim) (n m : nat) (L Lt : vec -> vec).
Hypotheses (HL : lin n m L) (HLt : lin m n Lt)
  (Hadj : forall h y, length h = n -> length y = m -> dot (L h) y = dot h (Lt y)).

Lemma linear_prim_rd0 :
  pdom 0 pr = n -> pcod 0 pr = m ->
  (forall v, length v = n -> prim_fun 0 pr v = L v) ->
  (forall v, length v = (n + m)%nat -> prim_fun 1 pr v = lin1 n m Lt v) ->
  rd_correct_at 0 pr.
Proof.
  intros. apply (rd_from_template 0 pr n m L (lin1 n m Lt)); auto.
  intros x Hx. apply linear_rd0; auto.
Qed.

Lemma linear_prim_rd1 :
  pdom 1 pr = (n + m)%nat -> pcod 1 pr = n ->
  (forall v, length v = (n + m)%nat -> prim_fun 1 pr v = lin1 n m Lt v) ->
  (forall v, length v = (n + m + n)%nat -> prim_fun 2 pr v = lin2 n m L v) ->
  rd_correct_at 1 pr.
Proof.
  intros. apply (rd_from_template 1 pr (n + m) n (lin1 n m Lt) (lin2 n m L)); auto.
  intros x Hx. apply linear_rd1; auto.
Qed.
End linear_prim.

Section bilinear_prim.
Variables (pr : prim) (p q r : nat) (B P Q : vec -> vec -> vec).
Hypotheses (HB : bilin p q r B) (HP : bilin r q p P) (HQ : bilin p r q Q)
  (adjP : forall a b g, length a = p -> length b = q -> length g = r -> dot (B a b) g = dot a (P g b))
  (adjQ : forall a b g, length a = p -> length b = q -> length g = r -> dot (B a b) g = dot b (Q a g)).

Lemma bilinear_prim_rd0 :
  pdom 0 pr = (p + q)%nat -> pcod 0 pr = r ->
  (forall v, length v = (p + q)%nat -> prim_fun 0 pr v = bil0 p q B v) ->
  (forall v, length v = (p + q + r)%nat -> prim_fun 1 pr v = bil1 p q r P Q v) ->
  rd_correct_at 0 pr.
Proof.
  intros. apply (rd_from_template 0 pr (p + q) r (bil0 p q B) (bil1 p q r P Q)); auto.
  intros x Hx. apply bilinear_rd0; auto.
Qed.

Lemma bilinear_prim_rd1 :
  pdom 1 pr = (p + q + r)%nat -> pcod 1 pr = (p + q)%nat ->
  (forall v, length v = (p + q + r)%nat -> prim_fun 1 pr v = bil1 p q r P Q v) ->
  (forall v, length v = (p + q + r + (p + q))%nat -> prim_fun 2 pr v = bil2 p q r B P Q v) ->
  rd_correct_at 1 pr.
Proof.
  intros. apply (rd_from_template 1 pr (p + q + r) (p + q) (bil1 p q r P Q) (bil2 p q r B P Q)); auto.
  intros x Hx. apply bilinear_rd1; auto.
Qed.
End bilinear_prim.


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

(** The lanes of [vdot] (instance.v) sum every entry once: over ℝ their
    order does not matter. *)
Lemma sum_app (l l' : vec) : fold_right Rplus 0 (l ++ l') = fold_right Rplus 0 l + fold_right Rplus 0 l'.
Proof. induction l as [|a l IH]; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma lanes_add_length acc blk : length (lanes_add Rsc acc blk) = length acc.
Proof. revert blk; induction acc as [|a acc IH]; intros [|x blk]; simpl; auto. Qed.

Lemma lanes_add_sum acc blk : (length blk <= length acc)%nat ->
  fold_right Rplus 0 (lanes_add Rsc acc blk) = fold_right Rplus 0 acc + fold_right Rplus 0 blk.
Proof.
  revert blk; induction acc as [|a acc IH]; intros [|x blk] H; simpl in *; try lia; try ring.
  rewrite IH by lia. ring.
Qed.

Lemma lanes_fold_sum bs acc : Forall (fun b => (length b <= length acc)%nat) bs ->
  fold_right Rplus 0 (fold_left (lanes_add Rsc) bs acc)
  = fold_right Rplus 0 acc + fold_right Rplus 0 (concat bs).
Proof.
  revert acc; induction bs as [|b bs IH]; intros acc H; simpl; [ring|].
  inversion H as [|? ? Hb Hbs]; subst.
  rewrite IH.
  - rewrite lanes_add_sum, sum_app by exact Hb. ring.
  - eapply Forall_impl; [|exact Hbs]. intros c Hc. rewrite lanes_add_length. exact Hc.
Qed.

Lemma lanes_fold_length bs acc : length (fold_left (lanes_add Rsc) bs acc) = length acc.
Proof. revert acc; induction bs as [|b bs IH]; intros acc; simpl; [|rewrite IH, lanes_add_length]; reflexivity. Qed.

Lemma chunks_aux_concat f n (l : vec) : (0 < n)%nat -> (length l <= f)%nat -> concat (chunks_aux f n l) = l.
Proof.
  revert l; induction f as [|f IH]; intros l Hn Hl; simpl.
  - destruct l; simpl in *; [reflexivity|lia].
  - destruct l as [|a l']; [reflexivity|]. simpl concat.
    rewrite IH; [apply firstn_skipn|lia|]. rewrite skipn_length. cbn [length] in *. lia.
Qed.

Lemma chunks_aux_short f n (l : vec) : Forall (fun b => (length b <= n)%nat) (chunks_aux f n l).
Proof.
  revert l; induction f as [|f IH]; intros l; simpl; [constructor|].
  destruct l; constructor; [rewrite firstn_length; lia|apply IH].
Qed.

Lemma vsum_lanes_sum v : vsum_lanes Rsc v = fold_right Rplus 0 v.
Proof.
  assert (H := lanes_fold_sum (chunks vlanes v) (repeat (s_zero Rsc) vlanes)).
  unfold chunks, vlanes in *. rewrite repeat_length, chunks_aux_concat in H by lia.
  specialize (H (chunks_aux_short _ _ _)).
  unfold vsum_lanes, chunks, vlanes.
  assert (Hl := lanes_fold_length (chunks_aux (length v) 8 v) (repeat (s_zero Rsc) 8)).
  destruct (fold_left (lanes_add Rsc) (chunks_aux (length v) 8 v) (repeat (s_zero Rsc) 8)) as [|s0 ss];
    simpl in Hl; [lia|].
  rewrite vsum_fold. simpl in H. lra.
Qed.

Lemma vdot_dot u v : vdot Rsc u v = dot u v.
Proof.
  unfold vdot. rewrite vsum_lanes_sum, vmul_inst.
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

Lemma sm_adjP a b g : length a = 1%nat -> length b = n -> length g = n -> dot (sm_B a b) g = dot a (sm_P g b).
Proof. intros Ha Hb Hg. unfold sm_B, sm_P. rewrite dot_single, dot_vs_l, dot_comm by auto. auto. Qed.

Lemma sm_adjQ a b g : dot (sm_B a b) g = dot b (sm_Q a g).
Proof. unfold sm_B, sm_Q. rewrite dot_vs_l, dot_vs_r. auto. Qed.

Lemma sm_forms1 v : prim_fun 1 (PSmul n) v = bil1 1 n n sm_P sm_Q v.
Proof. unfold prim_fun, bil1. simpl. rewrite vdot_dot, app_nil_r. reflexivity. Qed.

Lemma sm_forms2 v : length v = (1 + n + n + (1 + n))%nat ->
  prim_fun 2 (PSmul n) v = bil2 1 n n sm_B sm_P sm_Q v.
Proof.
  intros Hv. unfold prim_fun, bil2. simpl. rewrite vdot_dot, app_nil_r.
  rewrite vadd_vp; [reflexivity|]. unfold vscale. rewrite !map_length, !length_proj; simpl in *; lia.
Qed.

Lemma sm_rd0 : rd_correct_at 0 (PSmul n).
Proof.
  apply (bilinear_prim_rd0 _ 1 n n sm_B sm_P sm_Q sm_bilin sm_P_bilin sm_bilin sm_adjP);
    try prim_dims; intros; [apply sm_adjQ|apply app_nil_r|apply sm_forms1].
Qed.

Lemma sm_rd1 : rd_correct_at 1 (PSmul n).
Proof.
  apply (bilinear_prim_rd1 _ 1 n n sm_B sm_P sm_Q sm_bilin sm_P_bilin sm_bilin sm_adjP);
    try prim_dims; intros; [apply sm_adjQ|apply sm_forms1|apply sm_forms2; auto].
Qed.
End smul.

Ltac lens := repeat (rewrite ?length_vp, ?length_vs, ?length_vm, ?length_zeros, ?app_length,
                  ?map_length, ?length_vmul, ?length_proj in *; try lia); simpl in *; try lia.

(** ** sub: [Real(n) × Real(n) → Real(n)], linear *)
Section sub.
Variable n : nat.
Definition sub_L (v : vec) : vec := vm (proj 0 n v) (proj n n v).
Definition sub_Lt (w : vec) : vec := w ++ vs (-1) w.

Lemma sub_lin : lin (n + n) n sub_L.
Proof.
  unfold sub_L. constructor.
  - intros v Hv. rewrite length_vm, !length_proj; lia.
  - intros h k Hh Hk. unfold proj. rewrite !skipn_vp, !firstn_vp. simpl.
    apply vec_ext; [rewrite !length_vm, !length_vp, !length_vm, !firstn_length, !skipn_length; lia|].
    intros i. rewrite !nth_vm, !nth_vp, !nth_vm. ring.
  - intros a h Hh. unfold proj. rewrite !skipn_vs, !firstn_vs. simpl.
    apply vec_ext; [rewrite !length_vm, !length_vs, !length_vm; lia|].
    intros i. rewrite !nth_vm, !nth_vs, !nth_vm. ring.
Qed.

Lemma sub_Lt_lin : lin n (n + n) sub_Lt.
Proof.
  unfold sub_Lt. constructor.
  - intros v Hv. rewrite app_length, length_vs. lia.
  - intros h k Hh Hk. rewrite vp_app by lia.
    f_equal. apply vec_ext; [rewrite !length_vs, !length_vp, !length_vs; lia|].
    intros i. rewrite !nth_vs, !nth_vp, !nth_vs. ring.
  - intros a h Hh. rewrite vs_app. f_equal.
    apply vec_ext; [rewrite !length_vs; lia|]. intros i. rewrite !nth_vs. ring.
Qed.

Lemma sub_adj h y : length h = (n + n)%nat -> length y = n -> dot (sub_L h) y = dot h (sub_Lt y).
Proof.
  intros Hh Hy. unfold sub_L, sub_Lt, vm. rewrite (dot_split2 n n) by auto.
  rewrite dot_vp_l, dot_vs_l, dot_vs_r. ring.
Qed.

Lemma sub_forms0 v : length v = (n + n)%nat -> prim_fun 0 (PSub n) v = sub_L v.
Proof.
  intros Hv. unfold prim_fun, sub_L. simpl. rewrite app_nil_r. apply vsub_vm. lens.
Qed.

Lemma sub_forms1 v : length v = (n + n + n)%nat -> prim_fun 1 (PSub n) v = lin1 (n + n) n sub_Lt v.
Proof.
  intros Hv. unfold prim_fun, lin1, sub_Lt. simpl. rewrite vneg_vs, app_nil_r.
  replace (n + n)%nat with (n + n)%nat by lia. reflexivity.
Qed.

Lemma sub_forms2 v : length v = (n + n + n + (n + n))%nat ->
  prim_fun 2 (PSub n) v = lin2 (n + n) n sub_L v.
Proof.
  intros Hv. unfold prim_fun, lin2, sub_L. simpl. rewrite app_nil_r, zeros_app, <- app_assoc.
  rewrite !proj_proj by lia. rewrite vsub_vm by lens. unfold zeros.
  rewrite Nat.add_0_r. reflexivity.
Qed.

Lemma sub_rd0 : rd_correct_at 0 (PSub n).
Proof. apply (linear_prim_rd0 _ _ _ _ _ sub_lin sub_Lt_lin sub_adj); try prim_dims; [exact sub_forms0|exact sub_forms1]. Qed.

Lemma sub_rd1 : rd_correct_at 1 (PSub n).
Proof. apply (linear_prim_rd1 _ _ _ _ _ sub_lin sub_Lt_lin sub_adj); try prim_dims; [exact sub_forms1|exact sub_forms2]. Qed.
End sub.

(** ** concat: [Real(c·n) × Real(c'·n) → Real((c+c')·n)], the identity of the flat vector *)
Section concat.
Variables c c' n : nat.
Let N := (c * n + c' * n)%nat.
Definition idv (v : vec) : vec := v.

Lemma idv_lin k : lin k k idv.
Proof. unfold idv. constructor; auto. intros v Hv. auto. Qed.

Lemma cc_N : ((c + c') * n)%nat = N.
Proof. unfold N. apply Nat.mul_add_distr_r. Qed.

Lemma cc_forms0 v : length v = N -> prim_fun 0 (PConcat c c' n) v = idv v.
Proof.
  intros Hv. unfold prim_fun, idv. simpl. rewrite app_nil_r, proj_concat.
  unfold proj. simpl. apply firstn_all2. unfold N in Hv. lia.
Qed.

Lemma cc_forms1 v : length v = (N + N)%nat -> prim_fun 1 (PConcat c c' n) v = lin1 N N idv v.
Proof.
  intros Hv. unfold prim_fun, lin1, idv. simpl. rewrite app_nil_r, firstn_skipn, cc_N.
  unfold N. reflexivity.
Qed.

Lemma cc_forms2 v : length v = (N + N + N)%nat -> prim_fun 2 (PConcat c c' n) v = lin2 N N idv v.
Proof.
  intros Hv. unfold prim_fun, lin2, idv. simpl. rewrite app_nil_r, cc_N.
  unfold N. rewrite proj_concat, zeros_app, <- app_assoc. reflexivity.
Qed.

Lemma cc_rd0 : rd_correct_at 0 (PConcat c c' n).
Proof.
  apply (linear_prim_rd0 _ N N idv idv (idv_lin N) (idv_lin N) (fun h y _ _ => eq_refl));
    [unfold N; prim_dims|unfold pcod, dsum; simpl; rewrite Nat.add_0_r; apply cc_N|exact cc_forms0|exact cc_forms1].
Qed.

Lemma cc_rd1 : rd_correct_at 1 (PConcat c c' n).
Proof.
  apply (linear_prim_rd1 _ N N idv idv (idv_lin N) (idv_lin N) (fun h y _ _ => eq_refl));
    [unfold pdom, dsum, N; simpl; rewrite cc_N; unfold N; lia|unfold N; prim_dims|exact cc_forms1|exact cc_forms2].
Qed.
End concat.

(** ** swish: [Real(n) → Real(n)], pointwise *)
Lemma vmul_comm u v : vmul u v = vmul v u.
Proof. revert v; induction u; intros [|b v]; simpl; auto. f_equal; [ring|auto]. Qed.

Lemma vmul_bilin n : bilin n n n vmul.
Proof.
  constructor.
  - intros b Hb. apply lin_ext with (vmul b); [intros; apply vmul_comm|]. apply lin_vmul_r. auto.
  - intros a Ha. apply lin_vmul_r. auto.
Qed.

Section swish.
Variable n : nat.
Definition sw0 (v : vec) : vec := map (swish Rsc) v.
Definition sw1 (v : vec) : vec := vmul (proj n n v) (map (swish' Rsc) (proj 0 n v)).
Definition sw2 (v : vec) : vec :=
  let x := proj 0 n v in let u := proj n n v in let c := proj (n + n) n v in
  vmul c (vmul u (map (swish'' Rsc) x)) ++ vmul c (map (swish' Rsc) x).

Lemma sw_forms0 v : length v = n -> prim_fun 0 (PSwish n) v = sw0 v.
Proof.
  intros Hv. unfold prim_fun, sw0. simpl. rewrite app_nil_r. unfold proj. simpl.
  rewrite firstn_all2 by lia. reflexivity.
Qed.

Lemma sw_forms1 v : length v = (n + n)%nat -> prim_fun 1 (PSwish n) v = sw1 v.
Proof. intros Hv. unfold prim_fun, sw1. simpl. rewrite app_nil_r, vmul_inst. reflexivity. Qed.

Lemma sw_forms2 v : length v = (n + n + n)%nat -> prim_fun 2 (PSwish n) v = sw2 v.
Proof. intros Hv. unfold prim_fun, sw2. simpl. rewrite app_nil_r, !vmul_inst. reflexivity. Qed.

End swish.

(** ** The instance's list functions in coordinates *)
Lemma rows_tab r n A : (r * n <= length A)%nat ->
  rows r n A = map (fun i => tab n (fun j => A@@(i * n + j))) (seq 0 r).
Proof.
  intros H. unfold rows. apply map_ext_in. intros i Hi. apply in_seq in Hi.
  fold (proj (i * n) n A). apply proj_tab.
  assert (i * n + n = S i * n)%nat by (simpl; lia).
  assert (S i * n <= r * n)%nat by (apply Nat.mul_le_mono_r; lia). lia.
Qed.

Lemma columns_tab k r n g : (k <= n)%nat ->
  columns Rsc k (map (fun i => tab n (g i)) (seq 0 r)) = map (fun j => tab r (fun i => g i j)) (seq 0 k).
Proof.
  intros H. unfold columns. apply map_ext_in. intros j Hj. apply in_seq in Hj.
  rewrite map_map. unfold tab at 2. apply map_ext. intros i. unfold vget. simpl.
  apply nth_tab_lt. lia.
Qed.

Lemma transpose_tab m n A : length A = (m * n)%nat ->
  transpose Rsc m n A = tab2 n m (fun j i => A@@(i * n + j)).
Proof.
  intros H. unfold transpose. rewrite rows_tab by lia. rewrite columns_tab by lia. reflexivity.
Qed.

Lemma resize_tab n m f : resize Rsc n m (tab n f) = tab m (fun t => if Nat.ltb t n then f t else 0).
Proof.
  unfold resize. apply vec_ext.
  - rewrite app_length, firstn_length, length_tab, length_tab. unfold vzero. rewrite repeat_length. lia.
  - intros t. rewrite nth_tab. destruct (Nat.ltb_spec t m).
    + destruct (Nat.ltb_spec t n).
      * rewrite nth_app_lt by (rewrite firstn_length, length_tab; lia).
        rewrite nth_firstn_lt, nth_tab_lt by lia. reflexivity.
      * rewrite nth_app_ge by (rewrite firstn_length, length_tab; lia).
        unfold vzero. apply nth_zeros.
    + apply nth_overflow. rewrite app_length, firstn_length, length_tab. unfold vzero.
      rewrite repeat_length. lia.
Qed.

Lemma pad_tab c n m x : length x = (c * n)%nat ->
  pad Rsc c n m x = tab2 c m (fun i t => if Nat.ltb t n then x@@(i * n + t) else 0).
Proof.
  intros H. unfold pad. rewrite rows_tab by lia. rewrite map_map. unfold tab2. f_equal.
  apply map_ext. intros i. apply resize_tab.
Qed.

(** Maps whose coordinates are weighted coordinates of the argument are linear. *)
Lemma lin_tab2_w N a b (w : nat -> nat -> R) (φ : nat -> nat -> nat) :
  lin N (a * b) (fun A => tab2 a b (fun j i => w j i * A@@(φ j i))).
Proof.
  constructor.
  - intros v _. apply length_tab2.
  - intros h k _ _. rewrite tab2_vp. apply tab2_ext. intros j i _ _. rewrite nth_vp. ring.
  - intros c h _. rewrite tab2_vs. apply tab2_ext. intros j i _ _. rewrite nth_vs. ring.
Qed.

Lemma v_len_zero (v : vec) : v_zero Rvo (v_len Rvo v) = zeros (length v).
Proof. reflexivity. Qed.

(** The goals of [linear_prim_rd0], [linear_prim_rd1] for a primitive whose
    maps are given by tables ([tab2]), [eqL] and [eqLt] rewriting the
    instance's function into them; the same for [bilinear_prim_rd0],
    [bilinear_prim_rd1]. *)
Ltac linear_tab_rd adj eqL eqLt :=
  try prim_dims;
  first [ solve [apply lin_tab2_w] | solve [apply lin_tab2_sum] | solve [apply adj]
        | intros v Hv; unfold prim_fun, lin1, lin2; simpl; rewrite app_nil_r;
          first [ rewrite proj_all, eqL; auto; rewrite ?skipn_length; simpl; lia
                | rewrite eqLt; auto; apply length_proj; lia
                | rewrite eqL by (apply length_proj; lia); rewrite length_proj by lia; reflexivity ] ].

Ltac bilinear_tab_rd B eqB eqP eqQ :=
  try prim_dims;
  intros v Hv; unfold prim_fun, bil0, bil1, bil2; simpl; rewrite app_nil_r;
  rewrite ?eqP, ?eqQ, ?eqB by (apply length_proj; lia);
  try (unfold B; rewrite vadd_vp by (rewrite !length_tab2; auto)); reflexivity.

(** ** transpose: [Real(m·n) → Real(n·m)], linear *)
Section transpose.
Variables m n : nat.
Definition tr_L (A : vec) : vec := tab2 n m (fun j i => 1 * A@@(i * n + j)).
Definition tr_Lt (Y : vec) : vec := tab2 m n (fun i j => 1 * Y@@(j * m + i)).

Lemma tr_L_eq A : length A = (m * n)%nat -> transpose Rsc m n A = tr_L A.
Proof. intros H. rewrite transpose_tab by auto. apply tab2_ext. intros. ring. Qed.
Lemma tr_Lt_eq Y : length Y = (n * m)%nat -> transpose Rsc n m Y = tr_Lt Y.
Proof. intros H. rewrite transpose_tab by auto. apply tab2_ext. intros. ring. Qed.

Lemma tr_adj h y : length h = (m * n)%nat -> length y = (n * m)%nat -> dot (tr_L h) y = dot h (tr_Lt y).
Proof.
  intros Hh Hy. unfold tr_L, tr_Lt. rewrite (dot_comm h), !dot_tab2, sumn_swap.
  apply sumn_ext. intros i Hi. apply sumn_ext. intros j Hj. ring.
Qed.

Lemma tr_rd0 : rd_correct_at 0 (PTranspose m n).
Proof. apply (linear_prim_rd0 _ (m * n) (n * m) tr_L tr_Lt); linear_tab_rd tr_adj tr_L_eq tr_Lt_eq. Qed.

Lemma tr_forms2 : forall v, length v = (m * n + n * m + m * n)%nat ->
  prim_fun 2 (PTranspose m n) v = lin2 (m * n) (n * m) tr_L v.
Proof. linear_tab_rd tr_adj tr_L_eq tr_Lt_eq. Qed.

Lemma tr_rd1 : rd_correct_at 1 (PTranspose m n).
Proof. apply (linear_prim_rd1 _ (m * n) (n * m) tr_L tr_Lt); linear_tab_rd tr_adj tr_L_eq tr_Lt_eq. Qed.
End transpose.

(** ** pad: [Real(c·n) → Real(c·m)], linear, adjoint [pad c m n] *)
Section pad.
Variables c n m : nat.
Definition pad_L (n m : nat) (x : vec) : vec :=
  tab2 c m (fun i t => (if Nat.ltb t n then 1 else 0) * x@@(i * n + t)).

Lemma pad_L_eq n' m' x : length x = (c * n')%nat -> pad Rsc c n' m' x = pad_L n' m' x.
Proof.
  intros H. rewrite pad_tab by auto. apply tab2_ext. intros. destruct (Nat.ltb _ _); ring.
Qed.

Lemma pad_adj h y : length h = (c * n)%nat -> length y = (c * m)%nat ->
  dot (pad_L n m h) y = dot h (pad_L m n y).
Proof.
  intros Hh Hy. unfold pad_L. rewrite (dot_comm h), !dot_tab2.
  apply sumn_ext. intros i Hi.
  transitivity (sumn m (fun t => if Nat.ltb t n then h@@(i * n + t) * y@@(i * m + t) else 0)).
  { apply sumn_ext. intros t _. destruct (Nat.ltb _ _); ring. }
  transitivity (sumn n (fun t => if Nat.ltb t m then h@@(i * n + t) * y@@(i * m + t) else 0)).
  2: { apply sumn_ext. intros t _. destruct (Nat.ltb _ _); ring. }
  rewrite !sumn_cut, Nat.min_comm. reflexivity.
Qed.

Lemma pad_rd0 : rd_correct_at 0 (PPad c n m).
Proof. apply (linear_prim_rd0 _ (c * n) (c * m) (pad_L n m) (pad_L m n)); linear_tab_rd pad_adj pad_L_eq pad_L_eq. Qed.

Lemma pad_forms2 : forall v, length v = (c * n + c * m + c * n)%nat ->
  prim_fun 2 (PPad c n m) v = lin2 (c * n) (c * m) (pad_L n m) v.
Proof. linear_tab_rd pad_adj pad_L_eq pad_L_eq. Qed.

Lemma pad_rd1 : rd_correct_at 1 (PPad c n m).
Proof. apply (linear_prim_rd1 _ (c * n) (c * m) (pad_L n m) (pad_L m n)); linear_tab_rd pad_adj pad_L_eq pad_L_eq. Qed.
End pad.

(** ** matmul: [Real(m·n) × Real(n·k) → Real(m·k)], bilinear *)
Section matmul.
Variables m n k : nat.
Definition mm_B (A B : vec) : vec := tab2 m k (fun i j => sumn n (fun l => A@@(i * n + l) * B@@(l * k + j))).
Definition mm_P (G B : vec) : vec := tab2 m n (fun i l => sumn k (fun j => G@@(i * k + j) * B@@(l * k + j))).
Definition mm_Q (A G : vec) : vec := tab2 n k (fun l j => sumn m (fun i => A@@(i * n + l) * G@@(i * k + j))).

Lemma matmul_tab a b d A B : length A = (a * b)%nat -> length B = (b * d)%nat ->
  matmul Rsc a b d A B = tab2 a d (fun i j => sumn b (fun l => A@@(i * b + l) * B@@(l * d + j))).
Proof.
  intros HA HB. unfold matmul. rewrite (rows_tab b d) by lia. rewrite columns_tab by lia.
  rewrite rows_tab by lia. rewrite map_map. unfold tab2. f_equal. apply map_ext. intros i.
  rewrite map_map. unfold tab. apply map_ext. intros j. rewrite vdot_dot. fold (tab b (fun l => A@@(i * b + l))).
  change (map (fun i => nth (i * d + j) B 0) (seq 0 b)) with (tab b (fun i => B@@(i * d + j))).
  rewrite dot_tab. apply sumn_ext. intros l Hl. rewrite nth_tab_lt; auto.
Qed.

Lemma mm_B_eq A B : length A = (m * n)%nat -> length B = (n * k)%nat -> matmul Rsc m n k A B = mm_B A B.
Proof. apply matmul_tab. Qed.

Lemma mm_P_eq G B : length G = (m * k)%nat -> length B = (n * k)%nat ->
  matmul Rsc m k n G (transpose Rsc n k B) = mm_P G B.
Proof.
  intros HG HB. rewrite transpose_tab by auto. rewrite matmul_tab; auto; [|apply length_tab2].
  apply tab2_ext. intros i l Hi Hl. apply sumn_ext. intros j Hj. rewrite nth_tab2; auto.
Qed.

Lemma mm_Q_eq A G : length A = (m * n)%nat -> length G = (m * k)%nat ->
  matmul Rsc n m k (transpose Rsc m n A) G = mm_Q A G.
Proof.
  intros HA HG. rewrite transpose_tab by auto. rewrite matmul_tab; auto; [|apply length_tab2].
  apply tab2_ext. intros l j Hl Hj. apply sumn_ext. intros i Hi. rewrite nth_tab2; auto.
Qed.

Lemma mm_bilin : bilin (m * n) (n * k) (m * k) mm_B.
Proof.
  constructor.
  - intros B _. apply (lin_tab2_sum (m * n) m k n (fun i j l => B@@(l * k + j)) (fun i j l => i * n + l)%nat)
      || (eapply lin_ext; [|apply (lin_tab2_sum (m * n) m k n (fun i j l => B@@(l * k + j)) (fun i j l => i * n + l)%nat)];
          intros h _; unfold mm_B; apply tab2_ext; intros; apply sumn_ext; intros; ring).
  - intros A _. eapply lin_ext; [|apply (lin_tab2_sum (n * k) m k n (fun i j l => A@@(i * n + l)) (fun i j l => l * k + j)%nat)].
    intros h _. unfold mm_B. reflexivity.
Qed.

Lemma mm_P_bilin : bilin (m * k) (n * k) (m * n) mm_P.
Proof.
  constructor.
  - intros B _. eapply lin_ext; [|apply (lin_tab2_sum (m * k) m n k (fun i l j => B@@(l * k + j)) (fun i l j => i * k + j)%nat)].
    intros h _. unfold mm_P. apply tab2_ext; intros; apply sumn_ext; intros; ring.
  - intros G _. eapply lin_ext; [|apply (lin_tab2_sum (n * k) m n k (fun i l j => G@@(i * k + j)) (fun i l j => l * k + j)%nat)].
    intros h _. unfold mm_P. reflexivity.
Qed.

Lemma mm_Q_bilin : bilin (m * n) (m * k) (n * k) mm_Q.
Proof.
  constructor.
  - intros G _. eapply lin_ext; [|apply (lin_tab2_sum (m * n) n k m (fun l j i => G@@(i * k + j)) (fun l j i => i * n + l)%nat)].
    intros h _. unfold mm_Q. apply tab2_ext; intros; apply sumn_ext; intros; ring.
  - intros A _. eapply lin_ext; [|apply (lin_tab2_sum (m * k) n k m (fun l j i => A@@(i * n + l)) (fun l j i => i * k + j)%nat)].
    intros h _. unfold mm_Q. reflexivity.
Qed.

Lemma mm_adjP A B G : length A = (m * n)%nat -> length B = (n * k)%nat -> length G = (m * k)%nat ->
  dot (mm_B A B) G = dot A (mm_P G B).
Proof.
  intros HA HB HG. unfold mm_B, mm_P. rewrite (dot_comm A), !dot_tab2.
  apply sumn_ext. intros i Hi.
  transitivity (sumn k (fun j => sumn n (fun l => A@@(i * n + l) * B@@(l * k + j) * G@@(i * k + j)))).
  { apply sumn_ext. intros j Hj. apply sumn_mul_r. }
  rewrite sumn_swap. apply sumn_ext. intros l Hl. rewrite sumn_mul_r. apply sumn_ext. intros j Hj. ring.
Qed.

Lemma mm_adjQ A B G : length A = (m * n)%nat -> length B = (n * k)%nat -> length G = (m * k)%nat ->
  dot (mm_B A B) G = dot B (mm_Q A G).
Proof.
  intros HA HB HG. unfold mm_B, mm_Q. rewrite (dot_comm B), !dot_tab2.
  transitivity (sumn m (fun i => sumn k (fun j => sumn n (fun l =>
    A@@(i * n + l) * B@@(l * k + j) * G@@(i * k + j))))).
  { apply sumn_ext. intros i Hi. apply sumn_ext. intros j Hj. rewrite sumn_mul_r. reflexivity. }
  transitivity (sumn n (fun l => sumn k (fun j => sumn m (fun i =>
    A@@(i * n + l) * B@@(l * k + j) * G@@(i * k + j))))).
  { rewrite (sumn_ext m _ (fun i => sumn n (fun l => sumn k (fun j =>
      A@@(i * n + l) * B@@(l * k + j) * G@@(i * k + j))))).
    - rewrite sumn_swap. apply sumn_ext. intros l Hl. apply sumn_swap.
    - intros i Hi. apply sumn_swap. }
  apply sumn_ext. intros l Hl. apply sumn_ext. intros j Hj. rewrite sumn_mul_r.
  apply sumn_ext. intros i Hi. ring.
Qed.

Lemma mm_rd0 : rd_correct_at 0 (PMatmul m n k).
Proof.
  apply (bilinear_prim_rd0 _ (m * n) (n * k) (m * k) mm_B mm_P mm_Q mm_bilin mm_P_bilin mm_Q_bilin mm_adjP mm_adjQ);
    bilinear_tab_rd mm_B mm_B_eq mm_P_eq mm_Q_eq.
Qed.

Lemma mm_forms2 : forall v, length v = (m * n + n * k + m * k + (m * n + n * k))%nat ->
  prim_fun 2 (PMatmul m n k) v = bil2 (m * n) (n * k) (m * k) mm_B mm_P mm_Q v.
Proof. bilinear_tab_rd mm_B mm_B_eq mm_P_eq mm_Q_eq. Qed.

Lemma mm_rd1 : rd_correct_at 1 (PMatmul m n k).
Proof.
  apply (bilinear_prim_rd1 _ (m * n) (n * k) (m * k) mm_B mm_P mm_Q mm_bilin mm_P_bilin mm_Q_bilin mm_adjP mm_adjQ);
    bilinear_tab_rd mm_B mm_B_eq mm_P_eq mm_Q_eq.
Qed.
End matmul.

Lemma vsum_sumn n f : vsum Rsc (map f (seq 0 n)) = sumn n f.
Proof. unfold vsum. rewrite vsum_fold, sumn_seq. simpl. ring. Qed.

(** ** upscale: [Real(c·n) → Real(c·m)], linear, nearest neighbour *)
Section upscale.
Variables c n m : nat.
Definition up_L (x : vec) : vec :=
  tab2 c m (fun i t => (if Nat.ltb (t * n / m) n then 1 else 0) * x@@(i * n + t * n / m)).
Definition up_Lt (g : vec) : vec :=
  tab2 c n (fun i s => sumn m (fun t => (if Nat.eqb (t * n / m) s then 1 else 0) * g@@(i * m + t))).

Lemma up_L_eq x : length x = (c * n)%nat -> upscale Rsc c n m x = up_L x.
Proof.
  intros H. unfold upscale, up_L. rewrite rows_tab by lia. rewrite map_map. unfold tab2. f_equal.
  apply map_ext. intros i. unfold tabulate. fold (tab m (fun t => vget Rsc (tab n (fun j => x@@(i * n + j))) (t * n / m))).
  apply tab_ext. intros t Ht. unfold vget. simpl. rewrite nth_tab. destruct (Nat.ltb _ _); ring.
Qed.

Lemma up_Lt_eq g : length g = (c * m)%nat -> upscale_adj Rsc c n m g = up_Lt g.
Proof.
  intros H. unfold upscale_adj, up_Lt. rewrite rows_tab by lia. rewrite map_map. unfold tab2. f_equal.
  apply map_ext. intros i. unfold tabulate. fold (tab n (fun s => vsum Rsc (map (fun t =>
    if Nat.eqb (t * n / m) s then vget Rsc (tab m (fun j => g@@(i * m + j))) t else s_zero Rsc) (seq 0 m)))).
  apply tab_ext. intros s Hs. rewrite vsum_sumn. apply sumn_ext. intros t Ht. unfold vget. simpl.
  rewrite nth_tab_lt by auto. destruct (Nat.eqb _ _); ring.
Qed.

Lemma up_adj h y : length h = (c * n)%nat -> length y = (c * m)%nat -> dot (up_L h) y = dot h (up_Lt y).
Proof.
  intros Hh Hy. unfold up_L, up_Lt. rewrite (dot_comm h), !dot_tab2. apply sumn_ext. intros i Hi.
  transitivity (sumn m (fun t => sumn n (fun s =>
    if Nat.eqb (t * n / m) s then y@@(i * m + t) * h@@(i * n + s) else 0))).
  - apply sumn_ext. intros t Ht. rewrite sumn_single. destruct (Nat.ltb _ _); ring.
  - rewrite sumn_swap. apply sumn_ext. intros s Hs. rewrite sumn_mul_r. apply sumn_ext. intros t Ht.
    destruct (Nat.eqb_spec (t * n / m) s); [subst|]; ring.
Qed.

Lemma up_rd0 : rd_correct_at 0 (PUpscale c n m).
Proof. apply (linear_prim_rd0 _ (c * n) (c * m) up_L up_Lt); linear_tab_rd up_adj up_L_eq up_Lt_eq. Qed.

Lemma up_forms2 : forall v, length v = (c * n + c * m + c * n)%nat ->
  prim_fun 2 (PUpscale c n m) v = lin2 (c * n) (c * m) up_L v.
Proof. linear_tab_rd up_adj up_L_eq up_Lt_eq. Qed.

Lemma up_rd1 : rd_correct_at 1 (PUpscale c n m).
Proof. apply (linear_prim_rd1 _ (c * n) (c * m) up_L up_Lt); linear_tab_rd up_adj up_L_eq up_Lt_eq. Qed.
End upscale.

Lemma combine_map_seq {A B} (f : nat -> A) (g : nat -> B) a k :
  combine (map f (seq a k)) (map g (seq a k)) = map (fun i => (f i, g i)) (seq a k).
Proof. revert a; induction k; intros a; simpl; auto. f_equal. auto. Qed.

Lemma nth_map_seq {A} (f : nat -> A) k i d : (i < k)%nat -> nth i (map f (seq 0 k)) d = f i.
Proof.
  intros H. rewrite nth_indep with (d' := f 0%nat) by (rewrite map_length, seq_length; auto).
  rewrite map_nth, seq_nth; auto.
Qed.

Lemma window_tab n f t m : (t + m <= n)%nat -> window (tab n f) t m = tab m (fun j => f (t + j)%nat).
Proof.
  intros H. unfold window. fold (proj t m (tab n f)). rewrite proj_tab by (rewrite length_tab; lia).
  apply tab_ext. intros j Hj. apply nth_tab_lt. lia.
Qed.

Lemma rows_tab' r n d f : (r * n <= d)%nat ->
  rows r n (tab d f) = map (fun i => tab n (fun j => f (i * n + j)%nat)) (seq 0 r).
Proof.
  intros H. rewrite rows_tab by (rewrite length_tab; lia). apply map_ext_in. intros i Hi.
  apply in_seq in Hi. apply tab_ext. intros j Hj. apply nth_tab_lt.
  assert (i * n + n <= r * n)%nat by nia. lia.
Qed.

(** ** conv1d: kernel [Real(c'·c·m)] × signal [Real(c·n)] → [Real(c'·(n−m+1))], bilinear *)
Section conv1d.
Variables c c' n m : nat.
Hypotheses (Hm : (0 < m)%nat) (Hmn : (m <= n)%nat).

Definition cv_B (K x : vec) : vec :=
  tab2 c' (n - m + 1) (fun o t => sumn c (fun i => sumn m (fun j =>
    K@@(o * (c * m) + (i * m + j)) * x@@(i * n + (t + j))))).
Definition cv_P (g x : vec) : vec :=
  tab2 c' (c * m) (fun o r => sumn (n - m + 1) (fun t =>
    g@@(o * (n - m + 1) + t) * x@@(r / m * n + (r mod m + t)))).
Definition cv_Q (K g : vec) : vec :=
  tab2 c n (fun i s => sumn c' (fun o => sumn m (fun j =>
    (if Nat.leb j s && Nat.ltb (s - j) (n - m + 1) then 1 else 0) *
    K@@(o * (c * m) + (i * m + j)) * g@@(o * (n - m + 1) + (s - j))))).

Lemma cv_B_eq K x : length K = (c' * c * m)%nat -> length x = (c * n)%nat ->
  conv1d Rsc c c' n m K x = cv_B K x.
Proof.
  intros HK Hx. unfold conv1d, cv_B. rewrite (rows_tab c n x) by lia.
  rewrite (rows_tab c' (c * m) K) by (rewrite HK, Nat.mul_assoc; lia).
  rewrite map_map. unfold tab2. f_equal. apply map_ext. intros o.
  rewrite rows_tab' by lia. unfold tabulate.
  fold (tab (n - m + 1) (fun t => vsum Rsc (map (fun p => vdot Rsc (fst p) (window (snd p) t m))
    (combine (map (fun i => tab m (fun j => K@@(o * (c * m) + (i * m + j)))) (seq 0 c))
             (map (fun i => tab n (fun j => x@@(i * n + j))) (seq 0 c)))))).
  apply tab_ext. intros t Ht. rewrite combine_map_seq, map_map, vsum_sumn.
  apply sumn_ext. intros i Hi. simpl. rewrite window_tab by lia. rewrite vdot_dot, dot_tab.
  apply sumn_ext. intros j Hj. rewrite nth_tab_lt; auto.
Qed.

Lemma cv_P_eq g x : length g = (c' * (n - m + 1))%nat -> length x = (c * n)%nat ->
  conv1d_dK Rsc c c' n m g x = cv_P g x.
Proof.
  intros Hg Hx. unfold conv1d_dK, cv_P. rewrite (rows_tab c n x) by lia.
  rewrite (rows_tab c' (n - m + 1) g) by lia. rewrite map_map. unfold tab2 at 1. f_equal.
  apply map_ext. intros o. rewrite map_map. unfold tabulate.
  transitivity (tab2 c m (fun i j => vdot Rsc (tab (n - m + 1) (fun t => g@@(o * (n - m + 1) + t)))
                                    (window (tab n (fun s => x@@(i * n + s))) j (n - m + 1)))).
  { reflexivity. }
  rewrite tab2_flat by auto. apply tab_ext. intros r Hr.
  assert (Hi : (r / m < c)%nat) by (apply Nat.div_lt_upper_bound; lia).
  assert (Hj : (r mod m < m)%nat) by (apply Nat.mod_upper_bound; lia).
  rewrite window_tab by lia. rewrite vdot_dot, dot_tab. apply sumn_ext. intros t Ht.
  rewrite nth_tab_lt by auto. reflexivity.
Qed.

Lemma cv_Q_eq K g : length K = (c' * c * m)%nat -> length g = (c' * (n - m + 1))%nat ->
  conv1d_dx Rsc c c' n m K g = cv_Q K g.
Proof.
  intros HK Hg. unfold conv1d_dx, cv_Q.
  rewrite (rows_tab c' (c * m) K) by (rewrite HK, Nat.mul_assoc; lia).
  rewrite (rows_tab c' (n - m + 1) g) by lia. rewrite map_map. unfold tab2. f_equal.
  apply map_ext_in. intros i Hi. apply in_seq in Hi. unfold tabulate.
  match goal with |- map ?f (seq 0 n) = _ => change (map f (seq 0 n)) with (tab n f) end.
  apply tab_ext. intros s Hs. rewrite combine_map_seq, map_map, vsum_sumn.
  apply sumn_ext. intros o Ho. simpl. rewrite rows_tab' by lia. rewrite nth_map_seq by lia.
  rewrite vsum_sumn. apply sumn_ext. intros j Hj.
  destruct (Nat.leb j s && Nat.ltb (s - j) (n - m + 1)) eqn:E; [|ring].
  apply andb_true_iff in E. destruct E as [_ E]. apply Nat.ltb_lt in E.
  unfold vget. simpl. rewrite !nth_tab_lt by lia. ring.
Qed.

Lemma lin_dim N M1 M2 L : M1 = M2 -> lin N M1 L -> lin N M2 L.
Proof. intros ->. auto. Qed.

Lemma cv_assoc : (c' * c * m = c' * (c * m))%nat.
Proof. ring. Qed.

Lemma cv_B_bilin : bilin (c' * c * m) (c * n) (c' * (n - m + 1)) cv_B.
Proof.
  constructor.
  - intros x _. eapply lin_ext; [|apply (lin_tab2_sum2 (c' * c * m) c' (n - m + 1) c m
      (fun o t i j => x@@(i * n + (t + j))) (fun o t i j => o * (c * m) + (i * m + j))%nat)].
    intros h _. unfold cv_B. apply tab2_ext. intros. apply sumn_ext. intros. apply sumn_ext. intros. ring.
  - intros K _. apply (lin_tab2_sum2 (c * n) c' (n - m + 1) c m
      (fun o t i j => K@@(o * (c * m) + (i * m + j))) (fun o t i j => i * n + (t + j))%nat).
Qed.

Lemma cv_P_bilin : bilin (c' * (n - m + 1)) (c * n) (c' * c * m) cv_P.
Proof.
  constructor.
  - intros x _. apply (lin_dim _ _ _ _ (eq_sym cv_assoc)).
    eapply lin_ext; [|apply (lin_tab2_sum (c' * (n - m + 1)) c' (c * m) (n - m + 1)
      (fun o r t => x@@(r / m * n + (r mod m + t))) (fun o r t => o * (n - m + 1) + t)%nat)].
    intros h _. unfold cv_P. apply tab2_ext. intros. apply sumn_ext. intros. ring.
  - intros g _. apply (lin_dim _ _ _ _ (eq_sym cv_assoc)).
    apply (lin_tab2_sum (c * n) c' (c * m) (n - m + 1)
      (fun o r t => g@@(o * (n - m + 1) + t)) (fun o r t => r / m * n + (r mod m + t))%nat).
Qed.

Lemma cv_Q_bilin : bilin (c' * c * m) (c' * (n - m + 1)) (c * n) cv_Q.
Proof.
  constructor.
  - intros g _. eapply lin_ext; [|apply (lin_tab2_sum2 (c' * c * m) c n c' m
      (fun i s o j => (if Nat.leb j s && Nat.ltb (s - j) (n - m + 1) then 1 else 0) * g@@(o * (n - m + 1) + (s - j)))
      (fun i s o j => o * (c * m) + (i * m + j))%nat)].
    intros h _. unfold cv_Q. apply tab2_ext. intros. apply sumn_ext. intros. apply sumn_ext. intros. ring.
  - intros K _. apply (lin_tab2_sum2 (c' * (n - m + 1)) c n c' m
      (fun i s o j => (if Nat.leb j s && Nat.ltb (s - j) (n - m + 1) then 1 else 0) * K@@(o * (c * m) + (i * m + j)))
      (fun i s o j => o * (n - m + 1) + (s - j))%nat).
Qed.

Lemma sumn_cm (f : nat -> nat -> nat -> R) :
  sumn (c * m) (fun r => f (r / m) (r mod m) r)%nat = sumn c (fun i => sumn m (fun j => f i j (i * m + j)))%nat.
Proof.
  rewrite sumn_mul. apply sumn_ext. intros i Hi. apply sumn_ext. intros j Hj.
  replace ((i * m + j) / m)%nat with i by (rewrite Nat.div_add_l, Nat.div_small by lia; lia).
  replace ((i * m + j) mod m)%nat with j by (rewrite Nat.add_comm, Nat.mod_add, Nat.mod_small by lia; lia).
  reflexivity.
Qed.

Lemma cv_adjP K x g : length K = (c' * c * m)%nat -> length x = (c * n)%nat ->
  length g = (c' * (n - m + 1))%nat -> dot (cv_B K x) g = dot K (cv_P g x).
Proof.
  intros HK Hx Hg. unfold cv_B, cv_P. rewrite (dot_comm K), !dot_tab2. apply sumn_ext. intros o Ho.
  rewrite (sumn_cm (fun i j r => sumn (n - m + 1) (fun t => g@@(o * (n - m + 1) + t) * x@@(i * n + (j + t)))
                                   * K@@(o * (c * m) + r))).
  transitivity (sumn c (fun i => sumn m (fun j => sumn (n - m + 1) (fun t =>
    K@@(o * (c * m) + (i * m + j)) * x@@(i * n + (t + j)) * g@@(o * (n - m + 1) + t))))).
  - transitivity (sumn (n - m + 1) (fun t => sumn c (fun i => sumn m (fun j =>
      K@@(o * (c * m) + (i * m + j)) * x@@(i * n + (t + j)) * g@@(o * (n - m + 1) + t))))).
    + apply sumn_ext. intros t Ht. rewrite sumn_mul_r. apply sumn_ext. intros i Hi. apply sumn_mul_r.
    + rewrite sumn_swap. apply sumn_ext. intros i Hi. apply sumn_swap.
  - apply sumn_ext. intros i Hi. apply sumn_ext. intros j Hj. rewrite sumn_mul_r. apply sumn_ext.
    intros t Ht. rewrite (Nat.add_comm t j). ring.
Qed.

Lemma cv_adjQ K x g : length K = (c' * c * m)%nat -> length x = (c * n)%nat ->
  length g = (c' * (n - m + 1))%nat -> dot (cv_B K x) g = dot x (cv_Q K g).
Proof.
  intros HK Hx Hg. unfold cv_B, cv_Q. rewrite (dot_comm x), !dot_tab2.
  set (F := fun o i j t => K@@(o * (c * m) + (i * m + j)) * x@@(i * n + (t + j)) * g@@(o * (n - m + 1) + t)).
  transitivity (sumn c (fun i => sumn c' (fun o => sumn m (fun j => sumn (n - m + 1) (fun t => F o i j t))))).
  - transitivity (sumn c' (fun o => sumn c (fun i => sumn m (fun j => sumn (n - m + 1) (fun t => F o i j t))))).
    2: apply sumn_swap.
    apply sumn_ext. intros o Ho.
    transitivity (sumn (n - m + 1) (fun t => sumn c (fun i => sumn m (fun j => F o i j t)))).
    + apply sumn_ext. intros t Ht. rewrite sumn_mul_r. apply sumn_ext. intros i Hi. apply sumn_mul_r.
    + rewrite sumn_swap. apply sumn_ext. intros i Hi. apply sumn_swap.
  - apply sumn_ext. intros i Hi.
    transitivity (sumn c' (fun o => sumn m (fun j => sumn n (fun s =>
      (if Nat.leb j s && Nat.ltb (s - j) (n - m + 1) then 1 else 0) *
      K@@(o * (c * m) + (i * m + j)) * g@@(o * (n - m + 1) + (s - j)) * x@@(i * n + s))))).
    + apply sumn_ext. intros o Ho. apply sumn_ext. intros j Hj.
      rewrite <- (sumn_reindex n (n - m + 1) j (fun t => F o i j t)) by lia.
      apply sumn_ext. intros s Hs. unfold F.
      destruct (Nat.leb_spec j s); simpl; [|ring].
      destruct (Nat.ltb (s - j) (n - m + 1)); [|ring].
      replace (s - j + j)%nat with s by lia. ring.
    + transitivity (sumn n (fun s => sumn c' (fun o => sumn m (fun j =>
        (if Nat.leb j s && Nat.ltb (s - j) (n - m + 1) then 1 else 0) *
        K@@(o * (c * m) + (i * m + j)) * g@@(o * (n - m + 1) + (s - j)) * x@@(i * n + s))))).
      * apply sumn_swap3.
      * apply sumn_ext. intros s Hs. rewrite sumn_mul_r. apply sumn_ext. intros o Ho.
        rewrite sumn_mul_r. reflexivity.
Qed.

Lemma cv_rd0 : rd_correct_at 0 (PConv1d c c' n m).
Proof.
  apply (bilinear_prim_rd0 _ (c' * c * m) (c * n) (c' * (n - m + 1)) cv_B cv_P cv_Q cv_B_bilin cv_P_bilin cv_Q_bilin cv_adjP cv_adjQ);
    bilinear_tab_rd cv_B cv_B_eq cv_P_eq cv_Q_eq.
Qed.

Lemma cv_forms2 : forall v, length v = (c' * c * m + c * n + c' * (n - m + 1) + (c' * c * m + c * n))%nat ->
  prim_fun 2 (PConv1d c c' n m) v = bil2 (c' * c * m) (c * n) (c' * (n - m + 1)) cv_B cv_P cv_Q v.
Proof. bilinear_tab_rd cv_B cv_B_eq cv_P_eq cv_Q_eq. Qed.

Lemma cv_rd1 : rd_correct_at 1 (PConv1d c c' n m).
Proof.
  apply (bilinear_prim_rd1 _ (c' * c * m) (c * n) (c' * (n - m + 1)) cv_B cv_P cv_Q cv_B_bilin cv_P_bilin cv_Q_bilin cv_adjP cv_adjQ);
    bilinear_tab_rd cv_B cv_B_eq cv_P_eq cv_Q_eq.
Qed.
End conv1d.

(** ** Pointwise primitives [map f : ℝⁿ → ℝⁿ] with [f' = f1], [f1' = f2], in
    the shape of the instance's [pointwise] ([sigmoid], [tanh], [exp]) *)
Section pointwise.
Variables (n : nat) (p : prim) (f f1 f2 : R -> R).
Definition pw1 (v : vec) : vec := vmul (proj n n v) (map f1 (proj 0 n v)).
Definition pw2 (v : vec) : vec :=
  let x := proj 0 n v in let u := proj n n v in let c := proj (n + n) n v in
  vmul c (vmul u (map f2 x)) ++ vmul c (map f1 x).
Hypotheses (Hd1 : forall a, is_derive f a (f1 a)) (Hd2 : forall a, is_derive f1 a (f2 a))
  (Hdom0 : pdom 0 p = n) (Hcod0 : pcod 0 p = n) (Hdom1 : pdom 1 p = (n + n)%nat) (Hcod1 : pcod 1 p = n)
  (Hf0 : forall v, length v = n -> prim_fun 0 p v = map f v)
  (Hf1 : forall v, length v = (n + n)%nat -> prim_fun 1 p v = pw1 v)
  (Hf2 : forall v, length v = (n + n + n)%nat -> prim_fun 2 p v = pw2 v).

Lemma pw_rd0 : rd_correct_at 0 p.
Proof.
  apply (rd_from_template 0 _ n n (map f) pw1).
  - exact Hdom0.
  - exact Hcod0.
  - exact Hf0.
  - exact Hf1.
  - intros x Hx. exists (vmul (map (f1) x)). split.
    + apply has_deriv_map; auto; intros i _; apply Hd1.
    + assert (E : forall y, length y = n -> pw1 (x ++ y) = vmul y (map (f1) x)).
      { intros y Hy. unfold pw1. rewrite (proj_app_l 0 n), (proj_app_r n n) by lia. unfold proj. simpl.
        rewrite !firstn_all2 by lia. reflexivity. }
      split.
      * intros y Hy. rewrite E by auto. rewrite length_vmul, map_length. lia.
      * intros h y Hh Hy. rewrite E by auto. rewrite dot_vmul, vmul_comm. reflexivity.
Qed.

Lemma pw_rd1 : rd_correct_at 1 p.
Proof.
  apply (rd_from_template 1 _ (n + n) n pw1 pw2).
  - exact Hdom1.
  - exact Hcod1.
  - exact Hf1.
  - exact Hf2.
  - intros x Hx.
    set (x0 := proj 0 n x). set (u0 := proj n n x).
    assert (Hx0 : length x0 = n) by (apply length_proj; lia).
    assert (Hu0 : length u0 = n) by (apply length_proj; lia).
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ (has_deriv_proj (n + n) 0 n x ltac:(lia) Hx)
                  (has_deriv_map n (f1) (f2) x0 Hx0
                     (fun i _ => Hd2 _))) as HG.
    pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n)
                  (has_deriv_proj (n + n) n n x ltac:(lia) Hx) HG) as HD.
    eexists. split; [exact HD|].
    assert (E : forall y, length y = n -> pw2 (x ++ y) =
      vmul y (vmul u0 (map (f2) x0)) ++ vmul y (map (f1) x0)).
    { intros y Hy. unfold pw2. rewrite (proj_app_l 0 n), (proj_app_l n n), (proj_app_r (n + n) n) by lia.
      rewrite firstn_all2 by lia. reflexivity. }
    split.
    + intros y Hy. rewrite E by auto. rewrite app_length, !length_vmul, !map_length. lia.
    + intros h y Hh Hy. rewrite E by auto.
      assert (Hha : length (proj 0 n h) = n) by (apply length_proj; lia).
      assert (Hhb : length (proj n n h) = n) by (apply length_proj; lia).
      rewrite (dot_split2 n n) by (rewrite ?length_vmul, ?map_length; lia).
      fold x0 u0. rewrite dot_vp_l.
      rewrite (vmul_comm (proj n n h)), dot_vmul, dot_vmul, dot_vmul.
      rewrite (vmul_comm (map (f1) x0) y).
      replace (vmul (map (f2) x0) (vmul u0 y)) with (vmul y (vmul u0 (map (f2) x0))).
      * ring.
      * apply vec_ext; [rewrite !length_vmul, !map_length; lia|].
        intros i. rewrite !nth_vmul. ring.
Qed.
End pointwise.

Lemma is_derive_sigm x : is_derive (sigm Rsc) x (sigm' Rsc x).
Proof.
  unfold sigm', sigm, two. simpl.
  sigm_derive x.
Qed.

Lemma is_derive_sigm' x : is_derive (sigm' Rsc) x (sigm'' Rsc x).
Proof.
  unfold sigm', sigm'', sigm, two. simpl.
  sigm_derive x.
Qed.

Lemma tanh_den x : exp x + exp (- x) <> 0.
Proof. pose proof (exp_pos x). pose proof (exp_pos (- x)). lra. Qed.

(** The same for [tanh], under [e^x + e^(-x) ≠ 0]. *)
Ltac tanh_derive x :=
  auto_derive; [repeat split; apply tanh_den|]; pose proof (tanh_den x);
  set (e := exp x) in *; set (e' := exp (- x)) in *; field; auto.

Lemma is_derive_tanh x : is_derive Rtanh x (tanh' Rsc x).
Proof.
  unfold tanh'. simpl. unfold Rtanh.
  tanh_derive x.
Qed.

Lemma is_derive_tanh' x : is_derive (tanh' Rsc) x (tanh'' Rsc x).
Proof.
  unfold tanh', tanh'', two. simpl. unfold Rtanh.
  tanh_derive x.
Qed.

Lemma is_derive_exp' x : is_derive exp x (exp x).
Proof. auto_derive; auto. ring. Qed.

Ltac pw_forms := intros v Hv; unfold prim_fun;
  first [ unfold pw1; simpl; rewrite app_nil_r, vmul_inst; reflexivity
        | unfold pw2; simpl; rewrite app_nil_r, !vmul_inst; reflexivity
        | simpl; rewrite app_nil_r; unfold proj; simpl; rewrite firstn_all2 by lia; reflexivity ].


Lemma sg_rd0 n : rd_correct_at 0 (PSigmoid n).
Proof. apply (pw_rd0 n _ (sigm Rsc) (sigm' Rsc)); try prim_dims; try pw_forms. apply is_derive_sigm. Qed.
Lemma sg_rd1 n : rd_correct_at 1 (PSigmoid n).
Proof.
  apply (pw_rd1 n _ (sigm' Rsc) (sigm'' Rsc)); try prim_dims; try pw_forms. apply is_derive_sigm'.
Qed.
Lemma th_rd0 n : rd_correct_at 0 (PTanh n).
Proof. apply (pw_rd0 n _ Rtanh (tanh' Rsc)); try prim_dims; try pw_forms. apply is_derive_tanh. Qed.
Lemma th_rd1 n : rd_correct_at 1 (PTanh n).
Proof.
  apply (pw_rd1 n _ (tanh' Rsc) (tanh'' Rsc)); try prim_dims; try pw_forms. apply is_derive_tanh'.
Qed.
Lemma exp_rd0 n : rd_correct_at 0 (PExp n).
Proof. apply (pw_rd0 n _ exp exp); try prim_dims; try pw_forms. apply is_derive_exp'. Qed.
Lemma exp_rd1 n : rd_correct_at 1 (PExp n).
Proof. apply (pw_rd1 n _ exp exp); try prim_dims; try pw_forms. apply is_derive_exp'. Qed.
Lemma sw_rd0 n : rd_correct_at 0 (PSwish n).
Proof. apply (pw_rd0 n _ (swish Rsc) (swish' Rsc)); try prim_dims; try pw_forms. apply is_derive_swish. Qed.
Lemma sw_rd1 n : rd_correct_at 1 (PSwish n).
Proof.
  apply (pw_rd1 n _ (swish' Rsc) (swish'' Rsc)); try prim_dims; try pw_forms. apply is_derive_swish'.
Qed.

(** ** mul: [Real(n) × Real(n) → Real(n)], the elementwise product, bilinear *)
Section mul.
Variable n : nat.

Lemma mul_adjP a b g : dot (vmul a b) g = dot a (vmul g b).
Proof. rewrite (vmul_comm a b), dot_vmul, (vmul_comm b g). reflexivity. Qed.

Lemma mul_forms0 v : length v = (n + n)%nat -> prim_fun 0 (PMul n) v = bil0 n n vmul v.
Proof. intros Hv. unfold prim_fun, bil0. simpl. rewrite app_nil_r, vmul_inst. reflexivity. Qed.

Lemma mul_forms1 v : length v = (n + n + n)%nat -> prim_fun 1 (PMul n) v = bil1 n n n vmul vmul v.
Proof. intros Hv. unfold prim_fun, bil1. simpl. rewrite app_nil_r, !vmul_inst. reflexivity. Qed.

Lemma mul_forms2 v : length v = (n + n + n + (n + n))%nat ->
  prim_fun 2 (PMul n) v = bil2 n n n vmul vmul vmul v.
Proof.
  intros Hv. unfold prim_fun, bil2. simpl. rewrite app_nil_r, !vmul_inst.
  rewrite vadd_vp; [reflexivity|]. rewrite !length_vmul, !length_proj; lia.
Qed.

Lemma mul_rd0 : rd_correct_at 0 (PMul n).
Proof.
  apply (bilinear_prim_rd0 _ _ _ _ vmul vmul vmul (vmul_bilin n) (vmul_bilin n) (vmul_bilin n)
           (fun a b g _ _ _ => mul_adjP a b g) (fun a b g _ _ _ => dot_vmul a b g));
    try prim_dims; [exact mul_forms0|exact mul_forms1].
Qed.

Lemma mul_rd1 : rd_correct_at 1 (PMul n).
Proof.
  apply (bilinear_prim_rd1 _ _ _ _ vmul vmul vmul (vmul_bilin n) (vmul_bilin n) (vmul_bilin n)
           (fun a b g _ _ _ => mul_adjP a b g) (fun a b g _ _ _ => dot_vmul a b g));
    try prim_dims; [exact mul_forms1|exact mul_forms2].
Qed.
End mul.

(** ** sum: [Real(n) → Real(1)], linear: [Σ x = <1, x>], adjoint [g ↦ g·1] *)
Section sum.
Variable n : nat.
Definition ones : vec := repeat 1 n.
Definition sum_L (v : vec) : vec := [dot ones v].
Definition sum_Lt (g : vec) : vec := vs (g@@0) ones.

Lemma length_ones : length ones = n.
Proof. apply repeat_length. Qed.

Lemma sum_lin : lin n 1 sum_L.
Proof.
  unfold sum_L. constructor.
  - intros v _. reflexivity.
  - intros h k _ _. simpl. rewrite dot_vp_r. reflexivity.
  - intros a h _. simpl. rewrite dot_vs_r. reflexivity.
Qed.

Lemma sum_Lt_lin : lin 1 n sum_Lt.
Proof.
  unfold sum_Lt. constructor.
  - intros v _. rewrite length_vs. apply length_ones.
  - intros h k _ _. apply vec_ext; [rewrite length_vp, !length_vs, Nat.max_id; reflexivity|].
    intros i. repeat rewrite ?nth_vp, ?nth_vs. ring.
  - intros a h _. apply vec_ext; [rewrite !length_vs; reflexivity|].
    intros i. rewrite !nth_vs. ring.
Qed.

Lemma sum_adj h y : length h = n -> length y = 1%nat -> dot (sum_L h) y = dot h (sum_Lt y).
Proof.
  intros Hh Hy. unfold sum_L, sum_Lt. rewrite dot_vs_r, (dot_comm h).
  destruct y as [|b [|]]; simpl in *; try discriminate. ring.
Qed.

Lemma vsum_ones w : vsum Rsc w = dot (repeat 1 (length w)) w.
Proof.
  unfold vsum. rewrite vsum_fold, Rplus_0_l. induction w as [|a w IH]; simpl; [ring|].
  rewrite IH. ring.
Qed.

Lemma repeat_vs a k : repeat a k = vs a (repeat 1 k).
Proof. unfold vs. induction k; simpl; auto. f_equal; [ring|auto]. Qed.

Lemma sum_forms0 v : length v = n -> prim_fun 0 (PSum n) v = sum_L v.
Proof.
  intros Hv. unfold prim_fun, sum_L, ones. simpl. rewrite vsum_ones.
  unfold proj. simpl. rewrite firstn_all2 by lia. rewrite Hv. reflexivity.
Qed.

Lemma sum_forms1 v : length v = (n + 1)%nat -> prim_fun 1 (PSum n) v = lin1 n 1 sum_Lt v.
Proof.
  intros Hv. unfold prim_fun, lin1, sum_Lt, ones. simpl. rewrite app_nil_r, repeat_vs. reflexivity.
Qed.

Lemma sum_forms2 v : length v = (n + 1 + n)%nat -> prim_fun 2 (PSum n) v = lin2 n 1 sum_L v.
Proof.
  intros Hv. unfold prim_fun, lin2, sum_L, ones. simpl.
  rewrite vsum_ones, !length_proj by lia. reflexivity.
Qed.

Lemma sum_rd0 : rd_correct_at 0 (PSum n).
Proof. apply (linear_prim_rd0 _ _ _ _ _ sum_lin sum_Lt_lin sum_adj); try prim_dims; [exact sum_forms0|exact sum_forms1]. Qed.

Lemma sum_rd1 : rd_correct_at 1 (PSum n).
Proof. apply (linear_prim_rd1 _ _ _ _ _ sum_lin sum_Lt_lin sum_adj); try prim_dims; [exact sum_forms1|exact sum_forms2]. Qed.
End sum.

(** ** Every smooth primitive *)
(** Excluded here: [round], [maxpool] and [relu] are not differentiable
    everywhere, [log] is smooth on the positive coordinates only, and
    [sce] needs its own proof ([round.v], [prims_more.v], [maxpool.v],
    [sce.v]; every primitive on its domain: [prim_rd_correct_on],
    [prims_all.v]). *)
Definition smooth_prim (p : prim) : bool :=
  match p with
  | PSwish _ | PSmul _ | PSub _ | PMatmul _ _ _ | PTranspose _ _ | PPad _ _ _ | PUpscale _ _ _
  | PConcat _ _ _ | PConv1d _ _ _ _ | PMul _ | PSum _ | PSigmoid _ | PTanh _ | PExp _ => true
  | _ => false
  end.

(** For every smooth primitive [p] with sensible parameters (all but
    [round], [maxpool], [relu], [log] and [sce]), at every point:
    [rd[p]] is the reverse derivative of [p] ([k = 0]), and [rd²[p]] that of
    [rd[p]] ([k = 1]). *)
Theorem prim_rd_correct p k :
  smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat -> rd_correct_at k p.
Proof.
  intros Hs Hok Hk. assert (Hk' : k = 0%nat \/ k = 1%nat) by lia.
  destruct p as [n|n|n|m n k'|m n|n|c n m|c n m|c c' n|c c' n m|c n m|n|n|n|n|n|n|n|n]; simpl in Hs;
    try discriminate;
    destruct Hk' as [->| ->].
  all: try solve [apply sw_rd0 | apply sw_rd1 | apply sm_rd0 | apply sm_rd1 | apply sub_rd0 | apply sub_rd1
    | apply mm_rd0 | apply mm_rd1 | apply tr_rd0 | apply tr_rd1 | apply pad_rd0 | apply pad_rd1
    | apply up_rd0 | apply up_rd1 | apply cc_rd0 | apply cc_rd1
    | apply mul_rd0 | apply mul_rd1 | apply sum_rd0 | apply sum_rd1
    | apply sg_rd0 | apply sg_rd1 | apply th_rd0 | apply th_rd1 | apply exp_rd0 | apply exp_rd1].
  all: simpl in Hok; apply andb_true_iff in Hok; destruct Hok as [H1 H2];
    apply Nat.ltb_lt in H1; apply Nat.leb_le in H2; first [apply cv_rd0; auto | apply cv_rd1; auto].
Qed.

(** * [cop_tan] is the Fréchet derivative, operation by operation

    [cop_deriv o xs] (rdcore_deriv.v) asks that [cop_tan o xs] be the
    Fréchet derivative at [xs] of [o] as a map of its arguments
    concatenated.  Here, for the operations of one or two arguments,
    the statement is brought to a map of [ℝⁿ] ([cop_deriv_unary]) or of
    [ℝ^{p+q}] read as [(firstn p, skipn p)] ([cop_deriv_binary]), and
    proved at arguments of the lengths [cop_ok] asks for the elementwise
    maps (from [op_diff]), [zero], [add], [sub], [mul], [neg], [scale],
    [dot], [sum], [bcast], [softmax], [logsumexp], [matmul], [transpose],
    [pad], [upscale] and its adjoint, the three convolutions, [append],
    [firstn] and [skipn]
    ([cop_deriv_covered], the operations [deriv_cop] lists); hence
    [rd_core P] is the reverse derivative of every judged program of
    those operations where its elementwise maps satisfy [op_diff]
    ([rd_core_rev_deriv_covered]).

    Not proved here (docs/decisions.md, "rd of every order over ℝ:
    prune and the derivative of a program"): the [maxpool] family
    ([maxpool], [maxpool_adj], [maxpool_gather]: differentiable only
    where every window has a strict maximum, and [cop_tan] gives
    [maxpool_adj] and [maxpool_gather] no derivative in their first
    argument). *)
From RevHandlers.Analysis Require Import base vec sums templates prims sce round rdcore_real rdcore_sound rdcore_chain rdcore_prog rdcore_deriv.
From RevHandlers Require Import rdcore core_dims.
Open Scope R_scope.

#[local] Arguments cop_eval : simpl never.

(** ** One argument, two arguments *)

Lemma proj0_all n (w : vec) : length w = n -> proj 0 n w = w.
Proof. intros Hw. unfold proj. cbn [skipn]. apply firstn_all2. lia. Qed.

Lemma cop_deriv_unary o x0 m (f L : vec -> vec) :
  m = cop_dim o [length x0] ->
  (forall w, length w = length x0 -> cop_eval Rvo o [w] = f w) ->
  (forall h, length h = length x0 -> cop_tan o [x0] [h] = L h) ->
  has_deriv (length x0) m f x0 L -> cop_deriv o [x0].
Proof.
  intros Hm Ef EL H. unfold cop_deriv. cbn [map concat split_at]. rewrite app_nil_r, <- Hm.
  change (dsum [length x0]) with (length x0 + 0)%nat. rewrite Nat.add_0_r.
  refine (has_deriv_ext _ _ f _ _ L _ _ _ H).
  - intros w Hw. rewrite proj0_all by exact Hw. symmetry. apply Ef, Hw.
  - intros h Hh. rewrite proj0_all by exact Hh. symmetry. apply EL, Hh.
Qed.

Lemma proj_rest n0 n1 (w : vec) : length w = (n0 + n1)%nat -> proj (0 + n0) n1 w = skipn n0 w.
Proof. intros Hw. unfold proj. rewrite Nat.add_0_l. apply firstn_all2. rewrite skipn_length. lia. Qed.

Lemma proj_first n0 (w : vec) : proj 0 n0 w = firstn n0 w.
Proof. reflexivity. Qed.

Lemma cop_deriv_binary o x0 x1 m (f L : vec -> vec) :
  m = cop_dim o [length x0; length x1] ->
  (forall w, length w = (length x0 + length x1)%nat ->
     cop_eval Rvo o [firstn (length x0) w; skipn (length x0) w] = f w) ->
  (forall h, length h = (length x0 + length x1)%nat ->
     cop_tan o [x0; x1] [firstn (length x0) h; skipn (length x0) h] = L h) ->
  has_deriv (length x0 + length x1) m f (x0 ++ x1) L -> cop_deriv o [x0; x1].
Proof.
  intros Hm Ef EL H. unfold cop_deriv. cbn [map concat split_at]. rewrite app_nil_r, <- Hm.
  change (dsum [length x0; length x1]) with (length x0 + (length x1 + 0))%nat. rewrite Nat.add_0_r.
  refine (has_deriv_ext _ _ f _ _ L _ _ _ H).
  - intros w Hw. rewrite proj_first, proj_rest by exact Hw. symmetry. apply Ef, Hw.
  - intros h Hh. rewrite proj_first, proj_rest by exact Hh. symmetry. apply EL, Hh.
Qed.

(** ** The operations *)

(** An elementwise map, where [op_diff] holds: [Derive] of the scalar
    function at each coordinate. *)
Lemma cop_deriv_map f x0 : op_diff (OMap f) [x0] -> cop_deriv (OMap f) [x0].
Proof.
  intros Hd. apply (cop_deriv_unary _ _ (length x0) (map (efs f)) (vmul (map (Derive (efs f)) x0))).
  - reflexivity.
  - intros w _. apply ce_map.
  - intros h _. reflexivity.
  - apply has_deriv_map; [reflexivity|]. intros i Hi. cbn in Hd.
    pose proof (Hd i Hi) as Hi'. rewrite (is_derive_unique _ _ _ Hi'). exact Hi'.
Qed.

Lemma cop_deriv_neg x0 : cop_deriv ONeg [x0].
Proof.
  apply (cop_deriv_unary _ _ (length x0) (vs (-1)) (vs (-1))); [reflexivity|intros w _; apply ce_neg|intros h _; reflexivity|].
  apply has_deriv_lin; [apply lin_vs|reflexivity].
Qed.

(** An operation of two arguments of one length, linear in both together. *)
Lemma cop_deriv_linear2 o x0 x1 (B : vec -> vec -> vec) :
  length x0 = length x1 -> cop_dim o [length x0; length x1] = length x0 ->
  (forall u v, length u = length v -> cop_eval Rvo o [u; v] = B u v) ->
  (forall u v, cop_tan o [x0; x1] [u; v] = B u v) ->
  lin (length x0 + length x0) (length x0) (fun w => B (firstn (length x0) w) (skipn (length x0) w)) ->
  cop_deriv o [x0; x1].
Proof.
  intros Hl Hd Ee Et HB. set (n := length x0) in *.
  apply (cop_deriv_binary _ _ _ n (fun w => B (firstn n w) (skipn n w)) (fun w => B (firstn n w) (skipn n w))).
  - symmetry. exact Hd.
  - intros w Hw. apply Ee. rewrite firstn_length, skipn_length. lia.
  - intros h _. apply Et.
  - rewrite <- Hl. apply has_deriv_lin; [exact HB|rewrite app_length; lia].
Qed.

Lemma cop_deriv_add x0 x1 : length x0 = length x1 -> cop_deriv OAdd [x0; x1].
Proof.
  intros Hl. apply (cop_deriv_linear2 OAdd x0 x1 vp Hl eq_refl ce_add (fun u v => eq_refl)).
  apply lin_vp; [apply lin_firstn|apply lin_skipn].
Qed.

Lemma cop_deriv_sub x0 x1 : length x0 = length x1 -> cop_deriv OSub [x0; x1].
Proof.
  intros Hl. apply (cop_deriv_linear2 OSub x0 x1 vm Hl eq_refl ce_sub (fun u v => eq_refl)). unfold vm.
  apply lin_vp; [apply lin_firstn|].
  apply (lin_comp (length x0 + length x0) (length x0) (length x0) (vs (-1)) (skipn (length x0))); [apply lin_skipn|apply lin_vs].
Qed.

Lemma cop_deriv_append x0 x1 : cop_deriv OAppend [x0; x1].
Proof.
  set (n := length x0).
  apply (cop_deriv_binary _ _ _ (length x0 + length x1) (fun w => w) (fun w => w)).
  - reflexivity.
  - intros w _. rewrite ce_append. apply firstn_skipn.
  - intros h _. cbn [cop_tan nth]. apply firstn_skipn.
  - apply has_deriv_lin; [|rewrite app_length; reflexivity].
    constructor; [intros v Hv; exact Hv|reflexivity|reflexivity].
Qed.

Lemma cop_deriv_sum x0 : cop_deriv OSum [x0].
Proof.
  apply (cop_deriv_unary _ _ 1 (fun w => [sumv w]) (fun w => [sumv w])); [reflexivity|intros w _; apply ce_sum|intros h _; reflexivity|].
  apply has_deriv_lin; [|reflexivity].
  apply (lin_ext _ _ (fun v => [sumv (proj 0 (length x0) v)])); [intros h Hh; rewrite proj0_all by exact Hh; reflexivity|].
  apply lin_sumv_proj. lia.
Qed.

(** [vmul] is bilinear. *)
Lemma bilin_vmul n : bilin n n n vmul.
Proof.
  constructor.
  - intros b Hb. apply (lin_ext _ _ (vmul b)); [intros h Hh; apply vmul_comm|]. apply lin_vmul_r, Hb.
  - intros a Ha. apply lin_vmul_r, Ha.
Qed.

Lemma cop_deriv_mul x0 x1 : length x0 = length x1 -> cop_deriv OMul [x0; x1].
Proof.
  intros Hl. set (n := length x0).
  apply (cop_deriv_binary _ _ _ n (fun w => vmul (firstn n w) (skipn n w))
           (fun h => vp (vmul (firstn n h) (skipn n (x0 ++ x1))) (vmul (firstn n (x0 ++ x1)) (skipn n h)))).
  - reflexivity.
  - intros w _. apply ce_mul.
  - intros h _. cbn [cop_tan nth].
    unfold n. rewrite firstn_app_exact, skipn_app_exact by reflexivity. reflexivity.
  - rewrite <- Hl. fold n. apply has_deriv_bilin; [apply bilin_vmul|rewrite app_length; lia].
Qed.

Lemma cop_deriv_softmax x0 : cop_deriv OSoftmax [x0].
Proof.
  apply (cop_deriv_unary _ _ (length x0) SM (DSM x0)); [reflexivity|intros w _; apply ce_softmax| |].
  - intros h _. cbn [cop_tan nth]. rewrite ce_softmax. reflexivity.
  - apply has_deriv_SM. reflexivity.
Qed.

Lemma cop_deriv_lse x0 : cop_deriv OLse [x0].
Proof.
  apply (cop_deriv_unary _ _ 1 (fun v => [LSE v]) (fun h => [dot (SM x0) h])); [reflexivity| | |].
  - intros w _. change (cop_eval Rvo OLse [w]) with [logsumexp Rsc w]. rewrite logsumexp_unshifted. reflexivity.
  - intros h _. cbn [cop_tan nth]. rewrite ce_softmax. reflexivity.
  - apply has_deriv_lse. reflexivity.
Qed.

Lemma cop_deriv_zero n : cop_deriv (OZero n) [].
Proof.
  unfold cop_deriv. cbn [map concat split_at]. change (dsum []) with 0%nat.
  apply (has_deriv_ext _ _ (fun _ => zeros n) _ _ (fun _ => zeros n)); [intros v _; reflexivity|intros h _; reflexivity|].
  apply has_deriv_lin; [apply lin_zero|reflexivity].
Qed.

Lemma cop_deriv_dot x0 x1 : length x0 = length x1 -> cop_deriv ODot [x0; x1].
Proof.
  intros Hl. set (n := length x0).
  apply (cop_deriv_binary _ _ _ 1 (fun w => [dot (firstn n w) (skipn n w)])
           (fun h => vp [dot (firstn n h) (skipn n (x0 ++ x1))] [dot (firstn n (x0 ++ x1)) (skipn n h)])).
  - reflexivity.
  - intros w _. apply ce_dot.
  - intros h _. cbn [cop_tan nth]. unfold n. rewrite firstn_app_exact, skipn_app_exact by reflexivity. reflexivity.
  - rewrite <- Hl. fold n. apply (has_deriv_bilin n n 1 (fun a b => [dot a b])); [|rewrite app_length; lia].
    constructor.
    + intros b Hb. apply (lin_ext _ _ (fun h => [dot b h])); [intros h _; rewrite dot_comm; reflexivity|]. apply lin_dot.
    + intros a Ha. apply lin_dot.
Qed.

(** [firstn k] and [skipn k] of an argument of length [n ≥ k]. *)
Lemma cop_deriv_firstn k x0 : (k <= length x0)%nat -> cop_deriv (OFirstn k) [x0].
Proof.
  intros Hk. apply (cop_deriv_unary _ _ k (firstn k) (firstn k)); [reflexivity|intros w _; apply ce_firstn|intros h _; reflexivity|].
  apply has_deriv_lin; [|reflexivity].
  replace (length x0) with (k + (length x0 - k))%nat by lia. apply lin_firstn.
Qed.

Lemma cop_deriv_skipn k x0 : (k <= length x0)%nat -> cop_deriv (OSkipn k) [x0].
Proof.
  intros Hk. apply (cop_deriv_unary _ _ (length x0 - k) (skipn k) (skipn k)); [reflexivity|intros w _; apply ce_skipn|intros h _; reflexivity|].
  apply has_deriv_lin; [|reflexivity].
  pose proof (lin_skipn k (length x0 - k)) as H. replace (k + (length x0 - k))%nat with (length x0) in H by lia. exact H.
Qed.

(** ** Linear and bilinear operations of the tensor layouts *)

(** An operation of one argument, linear. *)
Lemma cop_deriv_linear1 o x0 m (Lf : vec -> vec) :
  m = cop_dim o [length x0] -> lin (length x0) m Lf ->
  (forall u, length u = length x0 -> cop_eval Rvo o [u] = Lf u) ->
  (forall u, length u = length x0 -> cop_tan o [x0] [u] = Lf u) ->
  cop_deriv o [x0].
Proof.
  intros Hm HL Ee Et. apply (cop_deriv_unary _ _ m Lf Lf Hm Ee Et). apply has_deriv_lin; [exact HL|reflexivity].
Qed.

(** An operation of two arguments, bilinear, whose [cop_tan] is the sum
    of the two partial applications. *)
Lemma cop_deriv_bilinear o x0 x1 p q r (B : vec -> vec -> vec) :
  length x0 = p -> length x1 = q -> r = cop_dim o [p; q] -> bilin p q r B ->
  (forall u v, length u = p -> length v = q -> cop_eval Rvo o [u; v] = B u v) ->
  (forall u v, length u = p -> length v = q -> cop_tan o [x0; x1] [u; v] = vp (B u x1) (B x0 v)) ->
  cop_deriv o [x0; x1].
Proof.
  intros H0 H1 Hr HB Ee Et. subst p q.
  apply (cop_deriv_binary _ _ _ r (fun w => B (firstn (length x0) w) (skipn (length x0) w))
           (fun h => vp (B (firstn (length x0) h) (skipn (length x0) (x0 ++ x1)))
                        (B (firstn (length x0) (x0 ++ x1)) (skipn (length x0) h)))).
  - exact Hr.
  - intros w Hw. apply Ee; [rewrite firstn_length|rewrite skipn_length]; lia.
  - intros h Hh. rewrite firstn_app_exact, skipn_app_exact by reflexivity.
    apply Et; [rewrite firstn_length|rewrite skipn_length]; lia.
  - apply has_deriv_bilin; [exact HB|rewrite app_length; reflexivity].
Qed.

(** A bilinear operation whose [cop_tan] is the sum of the operation at
    the two partial arguments, equal to [B] at arguments of its lengths. *)
Lemma cop_deriv_bilin_self o x0 x1 p q (B : vec -> vec -> vec) :
  bilin p q (cop_dim o [p; q]) B -> length x0 = p -> length x1 = q ->
  (forall u v, length u = p -> length v = q -> cop_eval Rvo o [u; v] = B u v) ->
  (forall u v, cop_tan o [x0; x1] [u; v] = vp (cop_eval Rvo o [u; x1]) (cop_eval Rvo o [x0; v])) ->
  cop_deriv o [x0; x1].
Proof.
  intros HB H0 H1 Ee Et. apply (cop_deriv_bilinear o x0 x1 p q _ B H0 H1 eq_refl HB Ee).
  intros u v Hu Hv. rewrite Et, !Ee by assumption. reflexivity.
Qed.

(** A linear operation of one argument whose [cop_tan] is the operation
    itself, equal to [Lf] at arguments of its length. *)
Lemma cop_deriv_self o x0 (Lf : vec -> vec) :
  lin (length x0) (cop_dim o [length x0]) Lf ->
  (forall u, length u = length x0 -> cop_eval Rvo o [u] = Lf u) ->
  (forall u, cop_tan o [x0] [u] = cop_eval Rvo o [u]) ->
  cop_deriv o [x0].
Proof. intros HL Ee Et. apply (cop_deriv_linear1 o x0 _ Lf eq_refl HL Ee). intros u Hu. rewrite Et. apply Ee, Hu. Qed.

Lemma cop_deriv_transpose m n x0 : length x0 = (m * n)%nat -> cop_deriv (OTranspose m n) [x0].
Proof.
  intros H0. apply (cop_deriv_self _ _ (tr_L m n)); [apply lin_tab2_w|intros u Hu; rewrite ce_transpose; apply tr_L_eq; lia|reflexivity].
Qed.

Lemma cop_deriv_pad c n m x0 : length x0 = (c * n)%nat -> cop_deriv (OPad c n m) [x0].
Proof. intros H0. apply (cop_deriv_self _ _ (pad_L c n m)); [apply lin_tab2_w|intros u Hu; rewrite ce_pad; apply pad_L_eq; lia|reflexivity]. Qed.

Lemma cop_deriv_upscale c n m x0 : length x0 = (c * n)%nat -> cop_deriv (OUpscale c n m) [x0].
Proof. intros H0. apply (cop_deriv_self _ _ (up_L c n m)); [apply lin_tab2_w|intros u Hu; rewrite ce_upscale; apply up_L_eq; lia|reflexivity]. Qed.

Lemma cop_deriv_upscale_adj c n m x0 : length x0 = (c * m)%nat -> cop_deriv (OUpscaleAdj c n m) [x0].
Proof.
  intros H0. apply (cop_deriv_self _ _ (up_Lt c n m)); [|intros u Hu; rewrite ce_upscale_adj; apply up_Lt_eq; lia|reflexivity].
  apply (lin_tab2_sum _ c n m (fun i s t => if Nat.eqb (t * n / m) s then 1 else 0) (fun i s t => (i * m + t)%nat)).
Qed.

Lemma nth_repeat_in {A} (a d : A) n i : (i < n)%nat -> nth i (repeat a n) d = a.
Proof. revert i; induction n as [|n IH]; intros [|i] Hi; cbn; try lia; auto. apply IH; lia. Qed.

(** [bcast n] of a scalar: linear. *)
Lemma lin_bcast n : lin 1 n (fun a => repeat (a@@0) n).
Proof.
  constructor.
  - intros v _. apply repeat_length.
  - intros h k Hh Hk. apply vec_ext; [rewrite length_vp, !repeat_length; lia|].
    intros i. destruct (Nat.lt_ge_cases i n) as [Hi|Hi].
    + rewrite (nth_vp (repeat _ n)), !nth_repeat_in by exact Hi. apply nth_vp.
    + rewrite !nth_overflow by (rewrite ?length_vp, ?repeat_length; lia). reflexivity.
  - intros a h Hh. apply vec_ext; [rewrite length_vs, !repeat_length; lia|].
    intros i. destruct (Nat.lt_ge_cases i n) as [Hi|Hi].
    + rewrite (nth_vs a (repeat _ n)), !nth_repeat_in by exact Hi. apply nth_vs.
    + rewrite !nth_overflow by (rewrite ?length_vs, ?repeat_length; lia). reflexivity.
Qed.

Lemma cop_deriv_bcast n x0 : length x0 = 1%nat -> cop_deriv (OBcast n) [x0].
Proof.
  intros H0. apply (cop_deriv_linear1 (OBcast n) x0 _ (fun a => repeat (a@@0) n) eq_refl).
  - rewrite H0. apply lin_bcast.
  - intros u _. apply ce_bcast.
  - intros u _. reflexivity.
Qed.

(** [scale]: [(a, v) ↦ a₀·v], bilinear on [ℝ¹ × ℝⁿ]. *)
Lemma bilin_scale n : bilin 1 n n (fun a v => vs (a@@0) v).
Proof.
  constructor.
  - intros b Hb. constructor.
    + intros v _. rewrite length_vs. exact Hb.
    + intros h k Hh Hk. apply vec_ext; [rewrite length_vp, !length_vs; lia|].
      intros i. rewrite nth_vs, (nth_vp (vs _ b)), !nth_vs, nth_vp. ring.
    + intros a h Hh. apply vec_ext; [rewrite !length_vs; lia|]. intros i. rewrite !nth_vs. ring.
  - intros a Ha. apply lin_vs.
Qed.

Lemma cop_deriv_scale x0 x1 : length x0 = 1%nat -> cop_deriv OScale [x0; x1].
Proof.
  intros H0. assert (Ee : forall u v, length u = 1%nat -> length v = length x1 ->
                              cop_eval Rvo OScale [u; v] = vs (u@@0) v) by (intros u v _ _; apply ce_scale).
  apply (cop_deriv_bilinear OScale x0 x1 _ _ _ (fun a v => vs (a@@0) v) H0 eq_refl eq_refl (bilin_scale (length x1)) Ee).
  intros u v Hu Hv. reflexivity.
Qed.

(** ** The operations covered, and programs of them *)

(** The operations whose [cop_deriv] is proved here. *)
Definition deriv_cop (o : cop) : bool :=
  match o with
  | OZero _ | OAdd | OSub | OMul | ONeg | OScale | ODot | OMap _ | OSum | OBcast _ | OSoftmax | OLse
  | OMatmul _ _ _ | OTranspose _ _ | OPad _ _ _ | OUpscale _ _ _ | OUpscaleAdj _ _ _
  | OConv _ _ _ _ | OConvDK _ _ _ _ | OConvDx _ _ _ _
  | OAppend | OFirstn _ | OSkipn _ => true
  | _ => false
  end.

Lemma cop_deriv_covered o xs :
  deriv_cop o = true -> cop_ok o (map (@length R) xs) -> op_diff o xs -> cop_deriv o xs.
Proof.
  intros Ho Hok Hd. destruct o; try discriminate;
    (destruct xs as [|x0 [|x1 [|x2 xs]]]; cbn in Hok; try contradiction).
  - apply cop_deriv_zero.
  - apply cop_deriv_add, Hok.
  - apply cop_deriv_sub, Hok.
  - apply cop_deriv_mul, Hok.
  - apply cop_deriv_neg.
  - apply cop_deriv_scale, Hok.
  - apply cop_deriv_dot, Hok.
  - apply cop_deriv_map, Hd.
  - apply cop_deriv_sum.
  - apply cop_deriv_bcast, Hok.
  - apply cop_deriv_softmax.
  - apply cop_deriv_lse.
  - (* matmul *) destruct Hok as [H0 H1].
    apply (cop_deriv_bilin_self (OMatmul m n k) x0 x1 _ _ (mm_B m n k) (mm_bilin m n k) H0 H1); [|reflexivity].
    intros u v Hu Hv. rewrite ce_matmul. apply mm_B_eq; assumption.
  - apply cop_deriv_transpose, Hok.
  - apply cop_deriv_pad, Hok.
  - apply cop_deriv_upscale, Hok.
  - apply cop_deriv_upscale_adj, Hok.
  - (* conv1d *) destruct Hok as (Hm & Hmn & H0 & H1).
    apply (cop_deriv_bilin_self (OConv c c' n m) x0 x1 _ _ (cv_B c c' n m) (cv_B_bilin c c' n m) H0 H1); [|reflexivity].
    intros u v Hu Hv. rewrite ce_conv. apply cv_B_eq; assumption.
  - (* its adjoint in the kernel *) destruct Hok as (Hm & Hmn & H0 & H1).
    apply (cop_deriv_bilin_self (OConvDK c c' n m) x0 x1 _ _ (cv_P c c' n m) (cv_P_bilin c c' n m) H0 H1); [|reflexivity].
    intros u v Hu Hv. rewrite ce_convdk. apply cv_P_eq; assumption.
  - (* its adjoint in the input *) destruct Hok as (Hm & Hmn & H0 & H1).
    apply (cop_deriv_bilin_self (OConvDx c c' n m) x0 x1 _ _ (cv_Q c c' n m) (cv_Q_bilin c c' n m) H0 H1); [|reflexivity].
    intros u v Hu Hv. rewrite ce_convdx. apply cv_Q_eq; assumption.
  - apply cop_deriv_append.
  - apply cop_deriv_firstn, Hok.
  - apply cop_deriv_skipn, Hok.
Qed.

(** For a judged program of the operations covered, [rd_core P] is the
    reverse derivative of [P] at every point where its elementwise maps
    satisfy [op_diff]. *)
Theorem rd_core_rev_deriv_covered P x :
  wd_prog P -> length x = dsum (cp_dims P) ->
  Forall (fun ins => deriv_cop (fst ins) = true) (cp_body P) ->
  (forall j, (j < length (cp_body P))%nat ->
     op_diff (fst (nth j (cp_body P) (OZero 0, [])))
             (map (fun k => nth k (vals (split_at 0 (cp_dims P) x) (cp_body P)) []) (snd (nth j (cp_body P) (OZero 0, []))))) ->
  is_rev_deriv (dsum (cp_dims P)) (dsum (out_dims P)) (core_fun P) x (fun y => core_fun (rd_core P) (x ++ y)).
Proof.
  intros HP Hx Hc Hd. apply rd_core_rev_deriv; [exact HP|exact Hx|]. intros j Hj. cbv zeta.
  split; [|exact (Hd j Hj)].
  destruct HP as [Hwd _]. destruct (wd_nth _ _ j Hwd Hj) as [Hargs Hok].
  apply cop_deriv_covered; [rewrite Forall_forall in Hc; apply Hc, nth_In, Hj| |exact (Hd j Hj)].
  rewrite map_map. erewrite map_ext_in; [exact Hok|]. intros a Ha. cbv beta.
  rewrite Forall_forall in Hargs. specialize (Hargs a Ha).
  apply (xv_len (cp_dims P) _ (cp_body P) Hwd (split_at_fits 0 (cp_dims P) x ltac:(lia))). lia.
Qed.

(** * [cop_tan] is the Fréchet derivative, operation by operation

    [cop_deriv o xs] (rdcore_deriv.v) asks that [cop_tan o xs] be the
    Fréchet derivative at [xs] of [o] as a map of its arguments
    concatenated.  Here, for the operations of one or two arguments,
    the statement is brought to a map of [ℝⁿ] ([cop_deriv_unary]) or of
    [ℝ^{p+q}] read as [(firstn p, skipn p)] ([cop_deriv_binary]), and
    proved for the elementwise maps (from [op_diff]), [neg], [add],
    [sub], [mul], [append], [sum], [softmax] and [logsumexp] at arguments
    of the lengths [cop_ok] asks ([cop_deriv_map] …).

    Not proved here (docs/decisions.md, "rd of every order over ℝ:
    prune and the derivative of a program"): [zero], [scale], [dot],
    [bcast], [firstn], [skipn], [matmul], [transpose], [pad], [upscale]
    and its adjoint, the three convolutions, and the [maxpool] family. *)
From RevHandlers.Analysis Require Import base vec sums templates prims sce rdcore_real rdcore_sound rdcore_deriv.
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

(** * The core's reverse differentiation over ℝ, operation by operation

    [theories/rh/rdcore.v] differentiates a core program instruction by
    instruction: the backward sweep adds, for each instruction
    [y = o(x₀, …)] with cotangent [g], the expressions [vjp o … g] to the
    adjoints of the arguments.  This file gives those expressions their
    real meaning and proves, once per operation [cop] of the core, the
    adjoint identity the sweep rests on:
    [Σᵢ ⟨hᵢ, ⟦vjpᵢ⟧⟩ = ⟨D o(x)·h, g⟩], where [D o(x)] ([cop_tan]) is
    the operation's derivative, written independently of [vjp]: the sum
    of the partial derivatives for the bilinear operations, the
    operation itself for the linear ones, and for an elementwise
    function the real derivative ([Derive]) of its scalar function.
    [D o(x)] is also proved to be the Fréchet derivative ([has_deriv])
    of the operation on flat vectors for the operations listed in
    [op_lin].

    The smoothness predicate [op_diff o xs]: for an elementwise function
    [OMap f], at every coordinate of its argument the scalar function is
    differentiable with derivative the value of [efun_d] (for [round]
    and [step], whose [efun_d] is zero, the derivative is [0]: off the
    kinks); nothing for the other operations covered here.

    The chain rule over a body is in rdcore_chain.v and rdcore_prog.v
    ([rd_prog_adjoint]); [cop_tan] as the Fréchet derivative of each
    operation and of a program, and [prune], in rdcore_opderiv.v,
    rdcore_deriv.v and rdcore_prune.v.  Not proved (docs/decisions.md,
    "rd of every order over ℝ: prune and the derivative of a program"):
    [core_prog (S k) p] the reverse derivative of [core_prog k p] for
    every [k]. *)
From RevHandlers.Analysis Require Import base vec templates sums prims prims_more sce maxpool prims_all rdcore_real.
From RevHandlers Require Import rdcore core_dims.
Open Scope R_scope.

(** ** The meaning of the expressions the sweep emits *)

(** [reval env e]: [e] evaluated with the instance's operations at the
    real vectors, its variables read in [env]. *)
Fixpoint reval (env : nat -> vec) (e : rexp) {struct e} : vec :=
  match e with
  | RV i => env i
  | RO o es => cop_eval Rvo o (map (reval env) es)
  end.

Lemma reval_RV env i : reval env (RV i) = env i.
Proof. reflexivity. Qed.
Lemma reval_RO env o es : reval env (RO o es) = cop_eval Rvo o (map (reval env) es).
Proof. reflexivity. Qed.

(** ** The operations at the real vectors *)

(** The scalar function of an elementwise map. *)
Definition efs (f : efun) : R -> R :=
  match f with
  | ESwish => swish Rsc | ESwish1 => swish' Rsc | ESwish2 => swish'' Rsc
  | ERound => s_round Rsc | ERelu => relu Rsc | ERelu1 => relu' Rsc
  | ESigm => sigm Rsc | ESigm1 => sigm' Rsc | ESigm2 => sigm'' Rsc
  | ETanh => s_tanh Rsc | ETanh1 => tanh' Rsc | ETanh2 => tanh'' Rsc
  | EExp => s_exp Rsc | ELog => s_log Rsc | ELog1 => log' Rsc | ELog2 => log'' Rsc
  end.

Lemma ce_zero n : cop_eval Rvo (OZero n) [] = zeros n.
Proof. reflexivity. Qed.
Lemma ce_add u v : length u = length v -> cop_eval Rvo OAdd [u; v] = vp u v.
Proof. apply vadd_vp. Qed.
Lemma ce_sub u v : length u = length v -> cop_eval Rvo OSub [u; v] = vm u v.
Proof. apply vsub_vm. Qed.
Lemma ce_mul u v : cop_eval Rvo OMul [u; v] = vmul u v.
Proof. apply vmul_inst. Qed.
Lemma ce_neg u : cop_eval Rvo ONeg [u] = vs (-1) u.
Proof. apply vneg_vs. Qed.
Lemma ce_scale a v : cop_eval Rvo OScale [a; v] = vs (a@@0) v.
Proof. apply vscale_vs. Qed.
Lemma ce_dot u v : cop_eval Rvo ODot [u; v] = [dot u v].
Proof. change (cop_eval Rvo ODot [u; v]) with [vdot Rsc u v]. f_equal. apply vdot_dot. Qed.
Lemma ce_sum v : cop_eval Rvo OSum [v] = [sumv v].
Proof. change (cop_eval Rvo OSum [v]) with [vsum Rsc v]. f_equal. apply vsum_sumv. Qed.
Lemma ce_bcast n a : cop_eval Rvo (OBcast n) [a] = repeat (a@@0) n.
Proof. reflexivity. Qed.
Lemma ce_map f x : cop_eval Rvo (OMap f) [x] = map (efs f) x.
Proof. destruct f; reflexivity. Qed.
Lemma ce_append u v : cop_eval Rvo OAppend [u; v] = u ++ v.
Proof. reflexivity. Qed.
Lemma ce_firstn k u : cop_eval Rvo (OFirstn k) [u] = firstn k u.
Proof. reflexivity. Qed.
Lemma ce_skipn k u : cop_eval Rvo (OSkipn k) [u] = skipn k u.
Proof. reflexivity. Qed.

Lemma ce_softmax z : cop_eval Rvo OSoftmax [z] = SM z.
Proof. apply softmax_unshifted. Qed.
Lemma ce_matmul m n k a b : cop_eval Rvo (OMatmul m n k) [a; b] = matmul Rsc m n k a b.
Proof. reflexivity. Qed.
Lemma ce_transpose m n a : cop_eval Rvo (OTranspose m n) [a] = transpose Rsc m n a.
Proof. reflexivity. Qed.
Lemma ce_pad c n m a : cop_eval Rvo (OPad c n m) [a] = pad Rsc c n m a.
Proof. reflexivity. Qed.
Lemma ce_upscale c n m a : cop_eval Rvo (OUpscale c n m) [a] = upscale Rsc c n m a.
Proof. reflexivity. Qed.
Lemma ce_upscale_adj c n m a : cop_eval Rvo (OUpscaleAdj c n m) [a] = upscale_adj Rsc c n m a.
Proof. reflexivity. Qed.
Lemma ce_conv c c' n m a b : cop_eval Rvo (OConv c c' n m) [a; b] = conv1d Rsc c c' n m a b.
Proof. reflexivity. Qed.
Lemma ce_convdk c c' n m a b : cop_eval Rvo (OConvDK c c' n m) [a; b] = conv1d_dK Rsc c c' n m a b.
Proof. reflexivity. Qed.
Lemma ce_convdx c c' n m a b : cop_eval Rvo (OConvDx c c' n m) [a; b] = conv1d_dx Rsc c c' n m a b.
Proof. reflexivity. Qed.
Lemma ce_mp_adj c n m a b : cop_eval Rvo (OMaxpoolAdj c n m) [a; b] = maxpool_adj Rsc c n m a b.
Proof. reflexivity. Qed.
Lemma ce_mp_gather c n m a b : cop_eval Rvo (OMaxpoolGather c n m) [a; b] = maxpool_gather Rsc c n m a b.
Proof. reflexivity. Qed.

#[local] Arguments cop_eval : simpl never.

(** ** The derivative of each operation

    [cop_tan o xs hs] is [D o(xs)·hs], the directional derivative at the
    arguments [xs] in the direction [hs] (one tangent per argument),
    written without [vjp]: the operation itself for the linear ones, the
    sum of the two partial applications for the bilinear ones
    ([mul], [scale], [dot], [matmul], the three convolutions), the real
    derivative of the scalar function ([Derive]) for an elementwise map,
    [s·h − ⟨s, h⟩s] and [⟨s, h⟩] for [softmax] and [logsumexp] ([s] the
    softmax), and for [maxpool] the gather at the argmax (its derivative
    where every window has a strict maximum; [maxpool_adj] and
    [maxpool_gather] are linear in their second argument there). *)
Definition cop_tan (o : cop) (xs hs : list vec) : vec :=
  let x0 := nth 0 xs [] in let x1 := nth 1 xs [] in
  let h0 := nth 0 hs [] in let h1 := nth 1 hs [] in
  let ev o l := cop_eval Rvo o l in
  match o with
  | OZero n => zeros n
  | OAdd => vp h0 h1
  | OSub => vm h0 h1
  | OMul => vp (vmul h0 x1) (vmul x0 h1)
  | ONeg => vs (-1) h0
  | OScale => vp (vs (h0@@0) x1) (vs (x0@@0) h1)
  | ODot => [dot h0 x1 + dot x0 h1]
  | OMap f => vmul (map (Derive (efs f)) x0) h0
  | OSum => [sumv h0]
  | OBcast n => repeat (h0@@0) n
  | OSoftmax => let s := ev OSoftmax [x0] in vm (vmul s h0) (vs (dot s h0) s)
  | OLse => [dot (ev OSoftmax [x0]) h0]
  | OMatmul _ _ _ | OConv _ _ _ _ | OConvDK _ _ _ _ | OConvDx _ _ _ _ =>
      vp (ev o [h0; x1]) (ev o [x0; h1])
  | OTranspose _ _ | OPad _ _ _ | OUpscale _ _ _ | OUpscaleAdj _ _ _ => ev o [h0]
  | OMaxpool c n m => ev (OMaxpoolGather c n m) [x0; h0]
  | OMaxpoolAdj _ _ _ | OMaxpoolGather _ _ _ => ev o [x0; h1]
  | OAppend => h0 ++ h1
  | OFirstn k => firstn k h0
  | OSkipn k => skipn k h0
  end.

(** The value of [efun_d f] at [x] (whose image is [f x]); [0] where
    [efun_d] says the derivative is zero. *)
Definition efun_dval (f : efun) (x : vec) : vec :=
  match efun_d f (RV 0) (RV 1) with
  | Some e => reval (fun i => nth i [x; map (efs f) x] []) e
  | None => zeros (length x)
  end.

(** The smoothness predicate: an elementwise function is differentiable
    at every coordinate of its argument, with derivative the one
    [efun_d] writes. *)
Definition op_diff (o : cop) (xs : list vec) : Prop :=
  match o with
  | OMap f => let x := nth 0 xs [] in
      forall i, (i < length x)%nat -> is_derive (efs f) (x@@i) ((efun_dval f x)@@i)
  | _ => True
  end.

(** [efun_d] reads its two variables only. *)
Lemma reval_efun_d env a y f x :
  env a = x -> env y = map (efs f) x ->
  option_map (reval env) (efun_d f (RV a) (RV y)) =
  match efun_d f (RV 0) (RV 1) with
  | Some e => Some (reval (fun i => nth i [x; map (efs f) x] []) e)
  | None => None
  end.
Proof. intros Ha Hy. destruct f; cbn [efun_d option_map reval map rmap radd rmul rtwice sigm3 nth]; rewrite ?Ha, ?Hy; reflexivity. Qed.

(** ** The adjoint identities *)

(** [Σᵢ ⟨hᵢ, ⟦cᵢ⟧⟩] over the contributions [cs] to the arguments' adjoints
    ([None]: nothing). *)
Fixpoint ctr (env : nat -> vec) (hs : list vec) (cs : list (option rexp)) : R :=
  match hs, cs with
  | h :: hs', Some e :: cs' => dot h (reval env e) + ctr env hs' cs'
  | _ :: hs', None :: cs' => ctr env hs' cs'
  | _, _ => 0
  end.

Lemma dot_zero_coords u v : (forall i, u@@i = 0) -> dot u v = 0.
Proof.
  revert v; induction u as [|a u IH]; intros [|b v] H; simpl; try reflexivity.
  pose proof (H 0%nat) as H0. simpl in H0. rewrite H0, IH; [ring|]. intros i. exact (H (S i)).
Qed.

(** [dot] reads its first argument's coordinates only. *)
Lemma dot_ext_l u u' v : (forall i, u@@i = u'@@i) -> dot u v = dot u' v.
Proof.
  revert u' v; induction u as [|a u IH]; intros u' v H.
  - symmetry. apply dot_zero_coords. intros i. rewrite <- H. destruct i; reflexivity.
  - destruct u' as [|a' u'].
    + apply dot_zero_coords. intros i. rewrite H. destruct i; reflexivity.
    + destruct v as [|b v]; [reflexivity|]. simpl. pose proof (H 0%nat) as H0. simpl in H0.
      rewrite H0, (IH u' v); [reflexivity|]. intros i. exact (H (S i)).
Qed.

Lemma dot_ext_r u v v' : (forall i, v@@i = v'@@i) -> dot u v = dot u v'.
Proof. intros H. rewrite !(dot_comm u). apply dot_ext_l. exact H. Qed.

Lemma dot_single_l a v : length v = 1%nat -> dot [a] v = a * v@@0.
Proof. intros H. destruct v as [|b [|]]; try discriminate. simpl. ring. Qed.
Lemma dot_single_r a v : length v = 1%nat -> dot v [a] = v@@0 * a.
Proof. intros H. rewrite dot_comm, dot_single_l by exact H. ring. Qed.

Lemma dot_vmul_swap a b c : dot a (vmul b c) = dot (vmul a c) b.
Proof.
  revert b c; induction a as [|x a IH]; intros [|y b] [|z c]; simpl; try ring;
    rewrite ?dot_nil_r; try ring. rewrite IH. ring.
Qed.

Lemma nth_map_lt {A B} (f : A -> B) l i d d' : (i < length l)%nat -> nth i (map f l) d' = f (nth i l d).
Proof. intros H. rewrite nth_indep with (d' := f d) by (rewrite map_length; exact H). apply map_nth. Qed.

(** The identity of [vjp] for every operation, at arguments of the
    lengths [cop_ok] asks, tangents of the same lengths, a cotangent of
    the result's length, and where [op_diff] holds. *)
Theorem vjp_adjoint o as_ xs hs env y g :
  cop_ok o (map (@length R) xs) ->
  map (@length R) hs = map (@length R) xs ->
  length as_ = length xs ->
  (forall i, (i < length xs)%nat -> env (nth i as_ 0%nat) = nth i xs []) ->
  env y = cop_eval Rvo o xs ->
  length (env g) = cop_dim o (map (@length R) xs) ->
  op_diff o xs ->
  ctr env hs (vjp o as_ (map (@length R) xs) y g) = dot (cop_tan o xs hs) (env g).
Proof.
  intros Hok Hhs Has Henv Hy Hg Hd.
  destruct o;
    (destruct xs as [|x0 [|x1 [|x2 xs]]]; cbn in Hok; try contradiction);
    (destruct hs as [|h0 [|h1 [|h2 hs]]]; cbn in Hhs; try discriminate);
    (destruct as_ as [|a0 [|a1 [|a2 as_]]]; cbn in Has; try discriminate);
    cbn [cop_tan nth]; cbn [cop_dim nth map] in Hg;
    (first [injection Hhs as Hh0 Hh1 | injection Hhs as Hh0 | idtac]);
    try (pose proof (Henv 0%nat ltac:(cbn; lia)) as E0; cbn in E0);
    try (pose proof (Henv 1%nat ltac:(cbn; lia)) as E1; cbn in E1);
    unfold vjp; cbn [ctr nth map option_map reval rmul]; rewrite ?E0, ?E1; set (G := env g) in *.
  - (* OZero *) rewrite dot_zeros_l. reflexivity.
  - (* OAdd *) rewrite dot_vp_l. ring.
  - (* OSub *) rewrite ce_neg, dot_vs_r. unfold vm. rewrite dot_vp_l, dot_vs_l. ring.
  - (* OMul *) rewrite !ce_mul, dot_vp_l, !dot_vmul_swap, (vmul_comm h1 G).
    rewrite (dot_vmul G h1 x0), (dot_vmul x0 h1 G), (vmul_comm G x0). ring.
  - (* ONeg *) rewrite ce_neg, dot_vs_r, dot_vs_l. ring.
  - (* OScale *) rewrite ce_dot, ce_scale, dot_single_r by lia.
    rewrite dot_vp_l, !dot_vs_l, dot_vs_r, (dot_comm x1 G). ring.
  - (* ODot *) rewrite !ce_scale, !dot_vs_r, dot_single_l by exact Hg.
    rewrite (dot_comm x0 h1). ring.
  - (* OMap *)
    destruct (efun_d f (RV a0) (RV y)) as [d|] eqn:Ed.
    + cbn [ctr option_map reval map rmul]. rewrite ce_mul.
      pose proof (reval_efun_d env a0 y f x0 E0 ltac:(rewrite Hy; apply ce_map)) as R.
      rewrite Ed in R. unfold op_diff, efun_dval in Hd. cbv zeta in Hd. change (nth 0 [x0] []) with x0 in Hd.
      destruct (efun_d f (RV 0) (RV 1)) as [e|]; [|discriminate R].
      injection R as R.
      assert (Hd' : forall i, (i < length x0)%nat -> is_derive (efs f) (x0@@i) ((reval env d)@@i))
        by (intros i Hi; rewrite R; exact (Hd i Hi)).
      change (env g) with G.
      rewrite (dot_ext_r h0 (vmul G (reval env d)) (vmul G (map (Derive (efs f)) x0))).
      * rewrite dot_vmul_swap, (vmul_comm h0). ring.
      * intros i. rewrite !nth_vmul. destruct (Nat.lt_ge_cases i (length x0)) as [Hi|Hi].
        -- rewrite (nth_map_lt _ _ _ 0 0) by exact Hi. rewrite (is_derive_unique _ _ _ (Hd' i Hi)). reflexivity.
        -- rewrite (nth_overflow G) by lia. ring.
    + cbn [ctr option_map]. symmetry. apply dot_zero_coords. intros i. rewrite nth_vmul.
      pose proof (reval_efun_d env a0 y f x0 E0 ltac:(rewrite Hy; apply ce_map)) as R.
      rewrite Ed in R. unfold op_diff, efun_dval in Hd. cbv zeta in Hd. change (nth 0 [x0] []) with x0 in Hd.
      destruct (efun_d f (RV 0) (RV 1)) as [e|]; [discriminate R|].
      destruct (Nat.lt_ge_cases i (length x0)) as [Hi|Hi].
      * rewrite (nth_map_lt _ _ _ 0 0) by exact Hi.
        rewrite (is_derive_unique _ _ _ (Hd i Hi)), nth_zeros. ring.
      * rewrite nth_overflow by (rewrite map_length; lia). ring.
  - (* OSum *) rewrite ce_bcast, dot_single_l by exact Hg. rewrite <- Hh0, dot_repeat. ring.
  - (* OBcast *) rewrite ce_sum, dot_single_r by lia. rewrite dot_repeat_l by exact Hg. ring.
  - (* OSoftmax *) rewrite Hy, !ce_softmax, ce_mul, ce_dot, ce_scale. cbn [nth].
    assert (Hs : length (SM x0) = length x0) by apply length_SM.
    rewrite ce_sub by (rewrite length_vmul, length_vs; lia).
    rewrite dot_vm_r, dot_vm_l, dot_vs_r, dot_vs_l, dot_vmul, (dot_comm h0 (SM x0)). ring.
  - (* OLse *) rewrite ce_scale, ce_softmax, dot_vs_r, dot_single_l by exact Hg.
    rewrite (dot_comm h0). ring.
  - (* OMatmul *) destruct Hok as [HA HB].
    rewrite !ce_transpose, !ce_matmul, mm_P_eq, mm_Q_eq by lia.
    rewrite dot_vp_l, !mm_B_eq by lia. rewrite mm_adjP, (mm_adjQ m n k x0) by lia. ring.
  - (* OTranspose *) rewrite !ce_transpose, (tr_L_eq m n h0), (tr_Lt_eq m n G), (tr_adj m n h0 G) by lia. ring.
  - (* OPad *) rewrite !ce_pad, (pad_L_eq c n m h0), (pad_L_eq c m n G), pad_adj by lia. ring.
  - (* OUpscale *) destruct Hok as [Hm H0].
    rewrite ce_upscale, ce_upscale_adj, up_L_eq, up_Lt_eq, up_adj by lia. ring.
  - (* OUpscaleAdj *) destruct Hok as [Hm H0].
    rewrite ce_upscale, ce_upscale_adj, up_L_eq, up_Lt_eq by lia.
    rewrite (dot_comm h0), up_adj, dot_comm by lia. ring.
  - (* OConv *) destruct Hok as (Hm & Hmn & HK & Hx).
    rewrite ce_convdk, ce_convdx, !ce_conv, cv_P_eq, cv_Q_eq by lia.
    rewrite dot_vp_l, !cv_B_eq by lia.
    rewrite cv_adjP with (K := h0) by lia. rewrite cv_adjQ with (K := x0) by lia. ring.
  - (* OConvDK *) destruct Hok as (Hm & Hmn & Hg' & Hx).
    rewrite ce_conv, ce_convdx, !ce_convdk, cv_B_eq, cv_Q_eq by lia.
    rewrite dot_vp_l, !cv_P_eq by lia.
    rewrite (dot_comm h0). rewrite cv_adjP with (K := G) (x := x1) by lia.
    rewrite <- cv_adjQ with (K := G) (x := h1) (g := x0) by lia.
    rewrite cv_adjP with (K := G) (x := h1) (g := x0) by lia.
    rewrite !(dot_comm G). ring.
  - (* OConvDx *) destruct Hok as (Hm & Hmn & HK & Hg').
    rewrite ce_convdk, ce_conv, !ce_convdx, cv_P_eq, cv_B_eq by lia.
    rewrite dot_vp_l, !cv_Q_eq by lia.
    rewrite <- cv_adjP with (K := h0) (x := G) (g := x1) by lia.
    rewrite cv_adjQ with (K := h0) (x := G) (g := x1) by lia.
    rewrite (dot_comm h1). rewrite cv_adjQ with (K := x0) (x := G) (g := h1) by lia.
    rewrite !(dot_comm G). ring.
  - (* OMaxpool *) destruct Hok as [Hm H0].
    rewrite ce_mp_adj, ce_mp_gather, (mp_adj c n m Hm) by (unfold ceil_div; lia). ring.
  - (* OMaxpoolAdj *) destruct Hok as (Hm & H0 & H1). cbn [ctr].
    rewrite ce_mp_adj, ce_mp_gather, (dot_comm h1), (mp_adj c n m Hm) by (unfold ceil_div in *; lia).
    rewrite dot_comm. ring.
  - (* OMaxpoolGather *) destruct Hok as (Hm & H0 & H1). cbn [ctr].
    rewrite ce_mp_adj, ce_mp_gather, (mp_adj c n m Hm) by (unfold ceil_div in *; lia). ring.
  - (* OAppend *) rewrite ce_firstn, ce_skipn.
    rewrite <- (firstn_skipn (length x0) G) at 3. rewrite dot_app; [ring|].
    rewrite firstn_length. lia.
  - (* OFirstn *) rewrite ce_append, ce_zero.
    rewrite <- (firstn_skipn k h0) at 1. rewrite dot_app by (rewrite firstn_length; lia).
    rewrite dot_zeros_r, dot_comm. ring.
  - (* OSkipn *) rewrite ce_append, ce_zero.
    rewrite <- (firstn_skipn k h0) at 1. rewrite dot_app by (rewrite firstn_length, length_zeros; lia).
    rewrite dot_zeros_r, dot_comm. ring.
Qed.

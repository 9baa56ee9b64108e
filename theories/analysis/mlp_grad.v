(** * Backpropagation through the paper's MLP computes the gradient, at every size

    The paper's multilayer perceptron (§2.1, §4.1; Table 1, row 1) for the
    widths [n_0, n_1, …, n_L] ([L ≥ 1] layers):
<<
    x_1 = m_0 x_in,    x_{i+1} = m_i swish(x_i)  (0 < i < L),    f_m(x_in) = x_L
>>
    where [m_i] is an [n_{i+1} × n_i] matrix, stored row-major as a vector
    of [n_{i+1}·n_i] reals (the layout of [Real(n·m)], decisions.md item 4).

    The training handler [H_train] (spec §9.1) runs the network forwards,
    starts the backward pass with the cotangent [α(f_m(v) − t)] (its return
    clause), and for each layer, from the last to the first, writes
    [m_i − y_i a_iᵀ] into [ℓ_i] and passes [m_iᵀ y_i] on, which [RH-4]
    multiplies by [swish'] of the layer's pre-activation ([rd[swish]]).
    [mlp_train] is that computation, with the instance's very functions
    at ℝ ([matmul Rsc], [transpose Rsc], [vsub Rsc], [swish Rsc]).

    [mlp_train_gradient] (the headline): for every list of widths, every
    weights of those shapes, every input [v], target [t] and rate [α], the
    new weight at every entry [k] of every layer [i] is
    [m_i[k] − α · ∂/∂m_i[k] ½‖f_m(v) − t‖²] (Coquelicot's [Derive] of the
    loss as a function of that one entry, which exists), and the returned
    cotangent at every entry [j] of the input is [α · ∂/∂v_j ½‖f_m(v) − t‖²].

    The proof is the chain rule of [vec.v]/[rdcalc.v] by induction on the
    layers: the network from a layer on is a map of the flat vector
    [u ++ m_i ++ m_{i+1} ++ …] (the layer's pre-activation and the
    remaining weights); one layer is [swish] on the first block, then the
    bilinear [matmul] of the first two blocks; the identity on the rest
    ([rd_first]).  Coordinates are then read off the reverse derivative
    ([rev_deriv_partial]).

    This is a statement about the numbers the handler computes.  That one
    run of the evaluator over the real instance computes exactly them (for
    the program [P_MLP_gen] of [theories/rh/mlp_gen.v]) is not proved
    yet: it is tested on floats at random depths and widths
    ([tests/test_train_gradient.py]); docs/decisions.md, "Backpropagation
    at every size", says what the proof needs. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature instance.
From RevHandlers.Analysis Require Import vec templates sums prims rdcalc.
Import ListNotations.
Open Scope R_scope.

(** ** Reverse derivatives of the pieces *)

(** [swish] coordinatewise: its reverse derivative multiplies the
    cotangent by [swish'] of the point. *)
Lemma rd_swish n u : length u = n ->
  is_rev_deriv n n (map (swish Rsc)) u (vmul (map (swish' Rsc) u)).
Proof.
  intros Hu. exists (vmul (map (swish' Rsc) u)). split.
  - apply has_deriv_map; auto. intros i _. apply is_derive_swish.
  - split.
    + intros y Hy. rewrite length_vmul, map_length. lia.
    + intros h y Hh Hy. apply dot_vmul.
Qed.

Lemma vp_zeros_r u n : (n <= length u)%nat -> vp u (zeros n) = u.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma vp_zeros_l u n : (n <= length u)%nat -> vp (zeros n) u = u.
Proof.
  intros H. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
  intros i. rewrite nth_vp, nth_zeros. ring.
Qed.

Lemma rev_deriv_len n m f x r : is_rev_deriv n m f x r -> length x = n.
Proof. intros [L [[Hx _] _]]. exact Hx. Qed.

Lemma rev_deriv_maps n m f x r : is_rev_deriv n m f x r -> maps m n r.
Proof. intros [L [_ [Hr _]]]. exact Hr. Qed.

(** A map of the first block, the identity on the rest: the reverse
    derivative is the block's on the first block of the cotangent, the
    identity on the rest. *)
Lemma rd_first b b' c φ x q rφ : length q = c -> is_rev_deriv b b' φ x rφ ->
  is_rev_deriv (b + c) (b' + c) (fun v => φ (proj 0 b v) ++ proj b c v) (x ++ q)
    (fun y => rφ (proj 0 b' y) ++ proj b' c y).
Proof.
  intros Hq Hφ. pose proof (rev_deriv_len _ _ _ _ _ Hφ) as Hx.
  pose proof (rev_deriv_maps _ _ _ _ _ Hφ) as Hr.
  assert (Hxq : length (x ++ q) = (b + c)%nat) by (rewrite app_length; lia).
  assert (H1 : is_rev_deriv (b + c) b' (fun v => φ (proj 0 b v)) (x ++ q)
                 (fun y => zeros 0 ++ rφ y ++ zeros (b + c - 0 - b))).
  { apply (rd_comp _ b _ φ (proj 0 b) (x ++ q) rφ (fun z => zeros 0 ++ z ++ zeros (b + c - 0 - b)));
      [apply rd_proj; auto; lia|].
    rewrite proj_app_l by lia. unfold proj. simpl. rewrite firstn_all2 by lia. exact Hφ. }
  assert (H2 := rd_proj (b + c) b c (x ++ q) ltac:(lia) Hxq).
  pose proof (rd_pair _ _ _ _ _ _ _ _ H1 H2) as HP.
  eapply is_rev_deriv_ext; [intros v _; reflexivity| |exact HP].
  intros y Hy. simpl.
  assert (Hy1 : length (proj 0 b' y) = b') by (apply length_proj; lia).
  assert (Hy2 : length (proj b' c y) = c) by (apply length_proj; lia).
  replace (b + c - 0 - b)%nat with c by lia. replace (b + c - b - c)%nat with 0%nat by lia.
  rewrite vp_app by (rewrite length_zeros; apply Hr; auto).
  rewrite vp_zeros_r by (rewrite Hr; auto).
  rewrite app_nil_r. rewrite vp_zeros_l by lia. reflexivity.
Qed.

(** ** [matmul] of the weights by the activation

    [mmT n n' (a ++ w) = w a] for [a ∈ ℝⁿ], [w] an [n' × n] matrix. Its
    reverse derivative: [y ↦ (wᵀ y, y aᵀ)], in the instance's functions,
    the very terms [H_train]'s backward clause evaluates. *)
Definition mmT (n n' : nat) (v : vec) : vec := matmul Rsc n' n 1 (proj n (n' * n) v) (proj 0 n v).

Lemma bilin_swap p q r B : bilin p q r B -> bilin q p r (fun b a => B a b).
Proof. intros [Hl Hr]. constructor; [exact Hr|exact Hl]. Qed.

Lemma bilin_dims p q r p' q' r' B : p = p' -> q = q' -> r = r' -> bilin p q r B -> bilin p' q' r' B.
Proof. intros -> -> ->. auto. Qed.

Lemma rd_mmT n n' a w : length a = n -> length w = (n' * n)%nat ->
  is_rev_deriv (n + n' * n) n' (mmT n n') (a ++ w)
    (fun y => matmul Rsc n n' 1 (transpose Rsc n' n w) y ++ matmul Rsc n' 1 n y (transpose Rsc n 1 a)).
Proof.
  intros Ha Hw.
  set (B' := fun a w => mm_B n' n 1 w a).
  set (P' := fun g w => mm_Q n' n 1 w g).
  set (Q' := fun a g => mm_P n' n 1 g a).
  assert (HB : bilin n (n' * n) n' B').
  { apply bilin_swap. eapply bilin_dims; [| | |apply mm_bilin]; lia. }
  assert (HP : bilin n' (n' * n) n P').
  { apply bilin_swap. eapply bilin_dims; [| | |apply mm_Q_bilin]; lia. }
  assert (HQ : bilin n n' (n' * n) Q').
  { apply bilin_swap. eapply bilin_dims; [| | |apply mm_P_bilin]; lia. }
  assert (adjP : forall a w g, length a = n -> length w = (n' * n)%nat -> length g = n' ->
            dot (B' a w) g = dot a (P' g w)).
  { intros a0 w0 g Ha0 Hw0 Hg. unfold B', P'. apply mm_adjQ; lia. }
  assert (adjQ : forall a w g, length a = n -> length w = (n' * n)%nat -> length g = n' ->
            dot (B' a w) g = dot w (Q' a g)).
  { intros a0 w0 g Ha0 Hw0 Hg. unfold B', Q'. apply mm_adjP; lia. }
  pose proof (bilinear_rd0 n (n' * n) n' B' P' Q' HB HP HQ adjP adjQ (a ++ w)
                ltac:(rewrite app_length; lia)) as H.
  eapply is_rev_deriv_ext; [| |exact H].
  - intros v Hv. unfold bil0, mmT, B'.
    rewrite mm_B_eq; [reflexivity| |]; rewrite length_proj; lia.
  - intros y Hy. unfold bil1, P', Q'.
    assert (E1 : proj (n + n' * n) n' ((a ++ w) ++ y) = y).
    { rewrite proj_app_r by (rewrite app_length; lia). apply firstn_all2. lia. }
    assert (E2 : proj n (n' * n) ((a ++ w) ++ y) = w).
    { rewrite proj_app_l by (rewrite app_length; lia). rewrite proj_app_r by lia. apply firstn_all2. lia. }
    assert (E3 : proj 0 n ((a ++ w) ++ y) = a).
    { rewrite proj_app_l by (rewrite app_length; lia). rewrite proj_app_l by lia.
      unfold proj. simpl. apply firstn_all2. lia. }
    rewrite E1, E2, E3.
    rewrite mm_Q_eq, mm_P_eq by lia. reflexivity.
Qed.

Lemma rev_deriv_dims n m n' m' f x r : n = n' -> m = m' -> is_rev_deriv n m f x r -> is_rev_deriv n' m' f x r.
Proof. intros -> ->. auto. Qed.

(** [rd_first] at any point of the right length. *)
Lemma rd_first' b b' c φ s rφ : length s = (b + c)%nat -> is_rev_deriv b b' φ (proj 0 b s) rφ ->
  is_rev_deriv (b + c) (b' + c) (fun v => φ (proj 0 b v) ++ proj b c v) s
    (fun y => rφ (proj 0 b' y) ++ proj b' c y).
Proof.
  intros Hs Hφ. pose proof (rd_first b b' c φ (proj 0 b s) (proj b c s) rφ
                              ltac:(apply length_proj; lia) Hφ) as H.
  rewrite <- (split2 b c s) in H by auto. exact H.
Qed.

(** ** One layer, on the flat vector [u ++ m ++ rest]

    [lay_sw]: [swish] on the first block (the pre-activation [u]);
    [lay_mm]: [m a] of the first two blocks ([a], then [m]).  Their reverse
    derivatives at the point [s], on a cotangent [d] (resp. [z]). *)
Definition lay_sw (n c : nat) (s : vec) : vec := map (swish Rsc) (proj 0 n s) ++ proj n c s.
Definition lay_mm (n n' c : nat) (s : vec) : vec := mmT n n' (proj 0 (n + n' * n) s) ++ proj (n + n' * n) c s.

Definition rlay_sw (n c : nat) (s d : vec) : vec :=
  vmul (map (swish' Rsc) (proj 0 n s)) (proj 0 n d) ++ proj n c d.
Definition rlay_mm (n n' c : nat) (s z : vec) : vec :=
  (matmul Rsc n n' 1 (transpose Rsc n' n (proj n (n' * n) s)) (proj 0 n' z)
   ++ matmul Rsc n' 1 n (proj 0 n' z) (transpose Rsc n 1 (proj 0 n s))) ++ proj n' c z.

Lemma rd_lay_sw n c s : length s = (n + c)%nat -> is_rev_deriv (n + c) (n + c) (lay_sw n c) s (rlay_sw n c s).
Proof.
  intros Hs. apply (rd_first' n n c (map (swish Rsc)) s). { exact Hs. }
  apply rd_swish. apply length_proj. lia.
Qed.

Lemma rd_lay_mm n n' c s : length s = (n + n' * n + c)%nat ->
  is_rev_deriv (n + n' * n + c) (n' + c) (lay_mm n n' c) s (rlay_mm n n' c s).
Proof.
  intros Hs. unfold lay_mm, rlay_mm.
  apply (rd_first' (n + n' * n) n' c (mmT n n') s
           (fun y => matmul Rsc n n' 1 (transpose Rsc n' n (proj n (n' * n) s)) y
                     ++ matmul Rsc n' 1 n y (transpose Rsc n 1 (proj 0 n s)))). { exact Hs. }
  rewrite <- (proj_concat 0 n (n' * n)). simpl.
  apply rd_mmT; apply length_proj; lia.
Qed.

(** ** The network from a layer on, as a map of [u ++ m_i ++ m_{i+1} ++ …] *)

(** The number of weights of the layers of the widths [ns]. *)
Fixpoint psize (ns : list nat) : nat :=
  match ns with
  | n :: ((n' :: _) as ns') => (n' * n + psize ns')%nat
  | _ => 0%nat
  end.

(** Layers after the first: [swish], then the layer's matrix. *)
Fixpoint Nrest (ns : list nat) (s : vec) : vec :=
  match ns with
  | n :: ((n' :: _) as ns') => Nrest ns' (lay_mm n n' (psize ns') (lay_sw n (n' * n + psize ns') s))
  | _ => s
  end.

Fixpoint Rrest (ns : list nat) (s y : vec) : vec :=
  match ns with
  | n :: ((n' :: _) as ns') =>
      let s1 := lay_sw n (n' * n + psize ns') s in
      rlay_sw n (n' * n + psize ns') s (rlay_mm n n' (psize ns') s1 (Rrest ns' (lay_mm n n' (psize ns') s1) y))
  | _ => y
  end.

Lemma Nrest_rd ns : forall s, length s = (hd 0%nat ns + psize ns)%nat ->
  is_rev_deriv (hd 0%nat ns + psize ns) (last ns 0%nat) (Nrest ns) s (Rrest ns s).
Proof.
  induction ns as [|n ns IH]; intros s Hs.
  - apply rd_id. exact Hs.
  - destruct ns as [|n' ns''].
    + simpl in *. rewrite Nat.add_0_r in *. apply rd_id. exact Hs.
    + change (hd 0%nat (n :: n' :: ns'')) with n in *.
      change (psize (n :: n' :: ns'')) with (n' * n + psize (n' :: ns''))%nat in *.
      set (P := psize (n' :: ns'')) in *.
      assert (H1 := rd_lay_sw n (n' * n + P) s Hs).
      assert (Hs1 : length (lay_sw n (n' * n + P) s) = (n + n' * n + P)%nat).
      { unfold lay_sw. rewrite app_length, map_length, !length_proj; lia. }
      assert (H2 := rd_lay_mm n n' P _ Hs1).
      assert (Hs2 : length (lay_mm n n' P (lay_sw n (n' * n + P) s)) = (n' + P)%nat).
      { destruct H2 as [L [[_ [Hm _]] _]]. apply Hm. exact Hs1. }
      specialize (IH _ Hs2). cbn [hd] in IH.
      replace (last (n :: n' :: ns'') 0%nat) with (last (n' :: ns'') 0%nat) by reflexivity.
      eapply rev_deriv_dims; [reflexivity|reflexivity|].
      apply (rd_comp _ (n' + P) _ (Nrest (n' :: ns''))
               (fun v => lay_mm n n' P (lay_sw n (n' * n + P) v)) s
               (Rrest (n' :: ns'') (lay_mm n n' P (lay_sw n (n' * n + P) s)))
               (fun z => rlay_sw n (n' * n + P) s (rlay_mm n n' P (lay_sw n (n' * n + P) s) z))); [|exact IH].
      apply (rd_comp _ (n + (n' * n + P)) _ (lay_mm n n' P) (lay_sw n (n' * n + P)) s
               (rlay_mm n n' P (lay_sw n (n' * n + P) s)) (rlay_sw n (n' * n + P) s)); [exact H1|].
      eapply rev_deriv_dims; [|reflexivity|exact H2]. lia.
Qed.

(** The whole network: the first layer has no [swish] before it. *)
Definition Nnet (ns : list nat) (s : vec) : vec :=
  match ns with
  | n :: ((n' :: _) as ns') => Nrest ns' (lay_mm n n' (psize ns') s)
  | _ => s
  end.

Definition Rnet (ns : list nat) (s y : vec) : vec :=
  match ns with
  | n :: ((n' :: _) as ns') => rlay_mm n n' (psize ns') s (Rrest ns' (lay_mm n n' (psize ns') s) y)
  | _ => y
  end.

Lemma Nnet_rd ns s : length s = (hd 0%nat ns + psize ns)%nat ->
  is_rev_deriv (hd 0%nat ns + psize ns) (last ns 0%nat) (Nnet ns) s (Rnet ns s).
Proof.
  intros Hs. destruct ns as [|n [|n' ns'']].
  - apply rd_id. exact Hs.
  - simpl in *. rewrite Nat.add_0_r in *. apply rd_id. exact Hs.
  - change (hd 0%nat (n :: n' :: ns'')) with n in *.
    change (psize (n :: n' :: ns'')) with (n' * n + psize (n' :: ns''))%nat in *.
    cbn [Nnet Rnet].
    set (P := psize (n' :: ns'')) in *.
    assert (H2 := rd_lay_mm n n' P s ltac:(lia)).
    assert (Hs2 : length (lay_mm n n' P s) = (n' + P)%nat).
    { destruct H2 as [L [[_ [Hm _]] _]]. apply Hm. lia. }
    pose proof (Nrest_rd (n' :: ns'') _ Hs2) as IH. cbn [hd] in IH.
    replace (last (n :: n' :: ns'') 0%nat) with (last (n' :: ns'') 0%nat) by reflexivity.
    apply (rd_comp _ (n' + P) _ (Nrest (n' :: ns'')) (lay_mm n n' P) s
             (Rrest (n' :: ns'') (lay_mm n n' P s)) (rlay_mm n n' P s)); [|exact IH].
    eapply rev_deriv_dims; [|reflexivity|exact H2]. lia.
Qed.

(** ** The loss [½‖o − t‖²] *)
Definition sqerr (t o : vec) : vec := [/2 * dot (vm o t) (vm o t)].

Lemma has_deriv_shift n t y : length t = n -> length y = n ->
  has_deriv n n (fun v => vm v t) y (fun h => h).
Proof.
  intros Ht Hy. split; [auto|]. split; [intros v Hv; rewrite length_vm; lia|]. split.
  - constructor; [intros v Hv; auto|reflexivity|reflexivity].
  - intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
    rewrite norm1_0; [pose proof (norm1_nonneg h); nra|]. intros i. rewrite !nth_vm, !nth_vp. ring.
Qed.

Lemma rd_sqerr n t o : length t = n -> length o = n ->
  is_rev_deriv n 1 (sqerr t) o (fun c => vs (c@@0) (vm o t)).
Proof.
  intros Ht Ho.
  pose proof (has_deriv_prod n n n 1 (fun v => vm v t) (fun v => vm v t) (sm_P) o _ _ (sm_P_bilin n)
                (has_deriv_shift n t o Ht Ho) (has_deriv_shift n t o Ht Ho)) as HP.
  assert (Hl : length (sm_P (vm o t) (vm o t)) = 1%nat) by reflexivity.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HP (has_deriv_lin 1 1 (vs (/2)) _ (lin_vs 1 (/2)) Hl)) as HC.
  eexists. split.
  - eapply has_deriv_ext; [|intros h _; reflexivity|exact HC]. intros v _. reflexivity.
  - split.
    + intros c _. rewrite length_vs, length_vm. lia.
    + intros h c Hh Hc. destruct c as [|c [|]]; try discriminate. unfold sm_P. simpl.
      rewrite dot_vs_r, (dot_comm (vm o t) h). field.
Qed.

(** ** Partial derivatives from a reverse derivative *)
Definition set_at (s : vec) (k : nat) (z : R) : vec := firstn k s ++ z :: skipn (S k) s.

Lemma length_set_at s k z : (k < length s)%nat -> length (set_at s k z) = length s.
Proof. intros Hk. unfold set_at. rewrite app_length, firstn_length. cbn [length]. rewrite skipn_length. lia. Qed.

Lemma nth_set_at s k z i : (k < length s)%nat -> (set_at s k z)@@i = if Nat.eqb i k then z else s@@i.
Proof.
  intros Hk. unfold set_at. destruct (Nat.eqb_spec i k) as [->|Hne].
  - rewrite nth_app_ge by (rewrite firstn_length; lia). rewrite firstn_length.
    replace (k - Nat.min k (length s))%nat with 0%nat by lia. reflexivity.
  - destruct (Nat.lt_ge_cases i k) as [Hlt|Hge].
    + rewrite nth_app_lt by (rewrite firstn_length; lia). apply nth_firstn_lt. exact Hlt.
    + rewrite nth_app_ge by (rewrite firstn_length; lia). rewrite firstn_length.
      replace (i - Nat.min k (length s))%nat with (S (i - S k)) by lia.
      change (nth (S (i - S k)) (z :: skipn (S k) s) 0) with ((skipn (S k) s)@@(i - S k)).
      rewrite nth_skipn'. f_equal. lia.
Qed.

Lemma set_at_same s k : (k < length s)%nat -> set_at s k (s@@k) = s.
Proof.
  intros Hk. apply vec_ext; [apply length_set_at; auto|]. intros i. rewrite nth_set_at by auto.
  destruct (Nat.eqb_spec i k); subst; reflexivity.
Qed.

Definition ek (N k : nat) : vec := tab N (fun i => if Nat.eqb i k then 1 else 0).

Lemma dot_ek N k v : (k < N)%nat -> dot (ek N k) v = v@@k.
Proof.
  intros Hk. unfold ek. rewrite dot_tab.
  rewrite (sumn_ext N _ (fun i => if Nat.eqb k i then v@@i else 0)).
  - rewrite sumn_single. destruct (Nat.ltb_spec k N); [reflexivity|lia].
  - intros i _. rewrite Nat.eqb_sym. destruct (Nat.eqb k i); ring.
Qed.

Lemma length_one (a : vec) : length a = 1%nat -> a = [a@@0].
Proof. destruct a as [|x [|]]; simpl; try discriminate; reflexivity. Qed.

(** If [r] is the reverse derivative at [s] of a real function [F] of
    [ℝᴺ], the [k]-th entry of [r(1)] is Coquelicot's derivative of [F]
    in its [k]-th argument (the others fixed), and [r] is linear. *)
Lemma rev_deriv_partial N F s r k : is_rev_deriv N 1 F s r -> (k < N)%nat ->
  is_derive (fun z => (F (set_at s k z))@@0) (s@@k) ((r [1])@@k) /\
  (forall c, (r [c])@@k = c * (r [1])@@k).
Proof.
  intros [L [HD [Hr Ha]]] Hk.
  pose proof HD as [Hs [HF [HL _]]].
  assert (Hek : length (ek N k) = N) by apply length_tab.
  assert (HLe : length (L (ek N k)) = 1%nat) by (apply (lin_len _ _ _ HL); auto).
  assert (HLk : forall c, (r [c])@@k = (L (ek N k))@@0 * c).
  { intros c. rewrite <- (dot_ek N k (r [c])) by auto. rewrite <- Ha by auto.
    rewrite (length_one _ HLe). simpl. ring. }
  split; [|intros c; rewrite !HLk; ring].
  rewrite HLk, Rmult_1_r.
  set (E := fun v : vec => set_at s k (v@@0)).
  assert (HE : has_deriv 1 N E [s@@k] (fun h => vs (h@@0) (ek N k))).
  { split; [reflexivity|]. split; [intros v _; unfold E; rewrite length_set_at; lia|]. split.
    - constructor.
      + intros v _. rewrite length_vs. auto.
      + intros h h' _ _. apply vec_ext; [rewrite length_vp, !length_vs; lia|].
        intros i. rewrite ?nth_vp, ?nth_vs, ?nth_vp, ?nth_vs. ring.
      + intros a h _. apply vec_ext; [rewrite !length_vs; lia|].
        intros i. rewrite !nth_vs. ring.
    - intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
      rewrite norm1_0; [pose proof (norm1_nonneg h); nra|]. intros i. unfold E.
      rewrite !nth_vm, nth_vs, !nth_set_at by lia. rewrite nth_vp. unfold ek. rewrite nth_tab.
      destruct (Nat.ltb_spec i N); destruct (Nat.eqb_spec i k) as [->|Hne]; simpl; try lia; ring. }
  assert (HEs : E [s@@k] = s) by (unfold E; cbn [nth]; apply set_at_same; lia).
  rewrite <- HEs in HD.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HE HD) as HC.
  apply has_deriv_is_derive.
  eapply has_deriv_ext; [| |exact HC].
  - intros v Hv. unfold lift1. apply length_one. apply HF. unfold E. rewrite length_set_at; lia.
  - intros h Hh. cbv beta. rewrite (lin_scal _ _ _ HL) by auto. rewrite (length_one _ HLe), (length_one _ Hh).
    simpl. f_equal. ring.
Qed.

(** ** The network and [H_train]'s computation on lists of weight matrices *)

(** The weights [ws = [m_0; …; m_{L-1}]] have the shapes of the widths
    [ns = [n_0; …; n_L]]: [m_i] holds [n_{i+1}·n_i] reals. *)
Fixpoint mlp_shapes (ns : list nat) (ws : list vec) : Prop :=
  match ns, ws with
  | n :: ((n' :: _) as ns'), w :: ws' => length w = (n' * n)%nat /\ mlp_shapes ns' ws'
  | [_], [] => True
  | _, _ => False
  end.

(** The layers after the first ([u] is the previous layer's output). *)
Fixpoint fwd_rest (ns : list nat) (ws : list vec) (u : vec) : vec :=
  match ns, ws with
  | n :: ((n' :: _) as ns'), w :: ws' => fwd_rest ns' ws' (matmul Rsc n' n 1 w (map (swish Rsc) u))
  | _, _ => u
  end.

(** [f_m(x) = m_{L-1} swish(… swish(m_1 swish(m_0 x)))]. *)
Definition mlp_forward (ns : list nat) (ws : list vec) (x : vec) : vec :=
  match ns, ws with
  | n :: ((n' :: _) as ns'), w :: ws' => fwd_rest ns' ws' (matmul Rsc n' n 1 w x)
  | _, _ => x
  end.

(** The loss [½‖f_m(x) − t‖²]. *)
Definition mlp_loss (ns : list nat) (ws : list vec) (x t : vec) : R :=
  /2 * dot (vm (mlp_forward ns ws x) t) (vm (mlp_forward ns ws x) t).

(** The backward pass of [H_train] from the cotangent [y] of the output,
    layer by layer from the last: [FC[ℓ_i]]'s backward clause receives the
    cotangent [y_i] of its output and its residual [<m_i, a_i>] and
    computes [y_i a_iᵀ] (the step it subtracts from [m_i]) and [m_iᵀ y_i];
    [rd[swish]] then multiplies the latter by [swish'] of the layer's
    pre-activation ([a_i = swish(u)]).  Returns the steps and the
    cotangent of the layer's input. *)
Fixpoint bp_rest (ns : list nat) (ws : list vec) (u y : vec) : list vec * vec :=
  match ns, ws with
  | n :: ((n' :: _) as ns'), w :: ws' =>
      let a := map (swish Rsc) u in
      let r := bp_rest ns' ws' (matmul Rsc n' n 1 w a) y in
      (matmul Rsc n' 1 n (snd r) (transpose Rsc n 1 a) :: fst r,
       instance.vmul Rsc (matmul Rsc n n' 1 (transpose Rsc n' n w) (snd r)) (map (swish' Rsc) u))
  | _, _ => ([], y)
  end.

Definition mlp_backprop (ns : list nat) (ws : list vec) (x y : vec) : list vec * vec :=
  match ns, ws with
  | n :: ((n' :: _) as ns'), w :: ws' =>
      let r := bp_rest ns' ws' (matmul Rsc n' n 1 w x) y in
      (matmul Rsc n' 1 n (snd r) (transpose Rsc n 1 x) :: fst r,
       matmul Rsc n n' 1 (transpose Rsc n' n w) (snd r))
  | _, _ => ([], y)
  end.

(** One sample of [rev handle(v)<x_in>.R_MLP with H_train] with rate [α]
    and target [t]: the return clause's cotangent [α·(f_m(v) − t)], the
    backward pass, each [m_i] replaced by [m_i − y_i a_iᵀ]; with the
    cotangent of the input, the value the run returns. *)
Definition mlp_train (ns : list nat) (ws : list vec) (v t : vec) (α : R) : list vec * vec :=
  let r := mlp_backprop ns ws v (vscale Rsc α (vsub Rsc (mlp_forward ns ws v) t)) in
  (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst r)), snd r).

(** ** From the lists to the flat vector *)

Lemma length_matmul m n k A B : length A = (m * n)%nat -> length B = (n * k)%nat ->
  length (matmul Rsc m n k A B) = (m * k)%nat.
Proof. intros HA HB. rewrite matmul_tab by auto. apply length_tab2. Qed.

Lemma length_transpose m n A : length A = (m * n)%nat -> length (transpose Rsc m n A) = (n * m)%nat.
Proof. intros HA. rewrite transpose_tab by auto. apply length_tab2. Qed.

Lemma proj_app_exact_l k (u w : vec) : length u = k -> proj 0 k (u ++ w) = u.
Proof. intros Hu. unfold proj. simpl. apply firstn_app_exact. auto. Qed.

Lemma proj_app_exact_r k c (u w : vec) : length u = k -> length w = c -> proj k c (u ++ w) = w.
Proof. intros Hu Hw. rewrite proj_app_r by auto. apply firstn_all2. lia. Qed.

Lemma lay_sw_app n c u r : length u = n -> length r = c -> lay_sw n c (u ++ r) = map (swish Rsc) u ++ r.
Proof. intros Hu Hr. unfold lay_sw. rewrite proj_app_exact_l, proj_app_exact_r by auto. reflexivity. Qed.

Lemma lay_mm_app n n' c a w r : length a = n -> length w = (n' * n)%nat -> length r = c ->
  lay_mm n n' c (a ++ w ++ r) = matmul Rsc n' n 1 w a ++ r.
Proof.
  intros Ha Hw Hr. unfold lay_mm, mmT. rewrite app_assoc.
  rewrite (proj_app_exact_l (n + n' * n) (a ++ w) r) by (rewrite app_length; lia).
  rewrite (proj_app_exact_r (n + n' * n) c (a ++ w) r) by (rewrite ?app_length; lia).
  rewrite (proj_app_exact_l n a w), (proj_app_exact_r n (n' * n) a w) by auto. reflexivity.
Qed.

Lemma rlay_mm_app n n' c a w r y g : length a = n -> length w = (n' * n)%nat -> length r = c ->
  length y = n' -> length g = c ->
  rlay_mm n n' c (a ++ w ++ r) (y ++ g) =
  (matmul Rsc n n' 1 (transpose Rsc n' n w) y ++ matmul Rsc n' 1 n y (transpose Rsc n 1 a)) ++ g.
Proof.
  intros Ha Hw Hr Hy Hg. unfold rlay_mm.
  rewrite (proj_app_exact_l n' y g), (proj_app_exact_r n' c y g) by auto.
  rewrite (proj_app_exact_l n a (w ++ r)) by auto.
  rewrite (proj_app_r n (n' * n) a) by auto.
  rewrite firstn_app_exact by auto. reflexivity.
Qed.

Lemma rlay_sw_app n c u r d1 d2 : length u = n -> length r = c -> length d1 = n -> length d2 = c ->
  rlay_sw n c (u ++ r) (d1 ++ d2) = instance.vmul Rsc d1 (map (swish' Rsc) u) ++ d2.
Proof.
  intros Hu Hr Hd1 Hd2. unfold rlay_sw.
  rewrite !proj_app_exact_l, proj_app_exact_r by auto.
  rewrite vmul_inst, vmul_comm. reflexivity.
Qed.

Lemma mlp_shapes_length ns : forall ws, mlp_shapes ns ws -> length (concat ws) = psize ns.
Proof.
  induction ns as [|n ns IH]; intros ws Hf; [destruct ws; contradiction|].
  destruct ns as [|n' ns'']; destruct ws as [|w ws']; try contradiction; [reflexivity|].
  destruct Hf as [Hw Hf]. change (concat (w :: ws')) with (w ++ concat ws').
  change (psize (n :: n' :: ns'')) with (n' * n + psize (n' :: ns''))%nat.
  rewrite app_length, Hw, (IH ws' Hf). reflexivity.
Qed.

Lemma Nrest_cons n n' ns s :
  Nrest (n :: n' :: ns) s = Nrest (n' :: ns) (lay_mm n n' (psize (n' :: ns)) (lay_sw n (n' * n + psize (n' :: ns)) s)).
Proof. reflexivity. Qed.

Lemma Rrest_cons n n' ns s y :
  Rrest (n :: n' :: ns) s y =
  let s1 := lay_sw n (n' * n + psize (n' :: ns)) s in
  rlay_sw n (n' * n + psize (n' :: ns)) s
    (rlay_mm n n' (psize (n' :: ns)) s1 (Rrest (n' :: ns) (lay_mm n n' (psize (n' :: ns)) s1) y)).
Proof. reflexivity. Qed.

Lemma fwd_rest_cons n n' ns w ws u :
  fwd_rest (n :: n' :: ns) (w :: ws) u = fwd_rest (n' :: ns) ws (matmul Rsc n' n 1 w (map (swish Rsc) u)).
Proof. reflexivity. Qed.

Lemma bp_rest_cons n n' ns w ws u y :
  bp_rest (n :: n' :: ns) (w :: ws) u y =
  let a := map (swish Rsc) u in
  let r := bp_rest (n' :: ns) ws (matmul Rsc n' n 1 w a) y in
  (matmul Rsc n' 1 n (snd r) (transpose Rsc n 1 a) :: fst r,
   instance.vmul Rsc (matmul Rsc n n' 1 (transpose Rsc n' n w) (snd r)) (map (swish' Rsc) u)).
Proof. reflexivity. Qed.

(** [flat_ok Nf Rf f b ns ws x y]: the map [Nf] of the flat vector
    [x ++ concat ws] (the input and the weights of the layers [ns]) is the
    forward pass [f], of the output's width, and its reverse derivative
    [Rf] at the cotangent [y] is the backward pass [b] (the input's
    cotangent, then the weights', of their shapes), flattened. *)
Definition flat_ok (Nf : vec -> vec) (Rf : vec -> vec -> vec) (f : vec) (b : list vec * vec)
    (ns : list nat) (ws : list vec) (x y : vec) : Prop :=
  Nf (x ++ concat ws) = f /\ length f = last ns 0%nat /\
  Rf (x ++ concat ws) y = snd b ++ concat (fst b) /\ length (snd b) = hd 0%nat ns /\
  mlp_shapes ns (fst b).

Lemma rest_flat ns : forall ws u y, mlp_shapes ns ws -> length u = hd 0%nat ns -> length y = last ns 0%nat ->
  flat_ok (Nrest ns) (Rrest ns) (fwd_rest ns ws u) (bp_rest ns ws u y) ns ws u y.
Proof.
  unfold flat_ok.
  induction ns as [|n ns IH]; intros ws u y Hf Hu Hy; [destruct ws; contradiction|].
  destruct ns as [|n' ns'']; destruct ws as [|w ws']; try contradiction.
  - cbn [Nrest Rrest fwd_rest bp_rest fst snd concat last hd] in *. rewrite !app_nil_r. auto.
  - destruct Hf as [Hw Hf]. change (hd 0%nat (n :: n' :: ns'')) with n in Hu.
    change (last (n :: n' :: ns'') 0%nat) with (last (n' :: ns'') 0%nat) in Hy |- *.
    set (P := psize (n' :: ns'')).
    assert (HP : length (concat ws') = P) by (apply mlp_shapes_length; auto).
    set (a := map (swish Rsc) u).
    assert (Ha : length a = n) by (unfold a; rewrite map_length; auto).
    set (u' := matmul Rsc n' n 1 w a).
    assert (Hu' : length u' = n') by (unfold u'; rewrite length_matmul; lia).
    destruct (IH ws' u' y Hf Hu' Hy) as (IH1 & IH2 & IH3 & IH4 & IH5).
    assert (Hs1 : lay_sw n (n' * n + P) (u ++ concat (w :: ws')) = a ++ w ++ concat ws').
    { simpl. apply lay_sw_app; auto. rewrite app_length. lia. }
    assert (Hs2 : lay_mm n n' P (a ++ w ++ concat ws') = u' ++ concat ws') by (apply lay_mm_app; auto).
    rewrite Nrest_cons, Rrest_cons, fwd_rest_cons, bp_rest_cons. cbv zeta. fold P. fold a u'.
    rewrite Hs1, Hs2, IH1, IH3. cbn [fst snd].
    set (r := bp_rest (n' :: ns'') ws' u' y) in *.
    change (hd 0%nat (n' :: ns'')) with n' in IH4.
    assert (Hg : length (concat (fst r)) = P) by (apply mlp_shapes_length; auto).
    rewrite rlay_mm_app by auto.
    assert (Hgw : length (matmul Rsc n n' 1 (transpose Rsc n' n w) (snd r)) = n).
    { rewrite length_matmul; [lia| |lia]. rewrite length_transpose; lia. }
    assert (Hgm : length (matmul Rsc n' 1 n (snd r) (transpose Rsc n 1 a)) = (n' * n)%nat).
    { rewrite length_matmul; [lia|lia|]. rewrite length_transpose; lia. }
    rewrite <- app_assoc.
    rewrite rlay_sw_app by (cbn [concat]; rewrite ?app_length; auto; lia).
    repeat split; auto.
    rewrite vmul_inst, length_vmul, map_length. cbn [hd]. lia.
Qed.

Lemma net_flat ns ws x y : (2 <= length ns)%nat -> mlp_shapes ns ws -> length x = hd 0%nat ns ->
  length y = last ns 0%nat ->
  flat_ok (Nnet ns) (Rnet ns) (mlp_forward ns ws x) (mlp_backprop ns ws x y) ns ws x y.
Proof.
  unfold flat_ok. intros Hns Hf Hx Hy. destruct ns as [|n [|n' ns'']]; [simpl in Hns; lia|simpl in Hns; lia|].
  destruct ws as [|w ws']; [contradiction|]. destruct Hf as [Hw Hf].
  change (hd 0%nat (n :: n' :: ns'')) with n in Hx |- *.
  change (last (n :: n' :: ns'') 0%nat) with (last (n' :: ns'') 0%nat) in Hy |- *.
  set (P := psize (n' :: ns'')).
  assert (HP : length (concat ws') = P) by (apply mlp_shapes_length; auto).
  set (u' := matmul Rsc n' n 1 w x).
  assert (Hu' : length u' = n') by (unfold u'; rewrite length_matmul; lia).
  destruct (rest_flat (n' :: ns'') ws' u' y Hf Hu' Hy) as (IH1 & IH2 & IH3 & IH4 & IH5).
  change (hd 0%nat (n' :: ns'')) with n' in IH4.
  change (Nnet (n :: n' :: ns'') (x ++ concat (w :: ws'))) with
    (Nrest (n' :: ns'') (lay_mm n n' P (x ++ w ++ concat ws'))).
  change (Rnet (n :: n' :: ns'') (x ++ concat (w :: ws')) y) with
    (rlay_mm n n' P (x ++ w ++ concat ws') (Rrest (n' :: ns'') (lay_mm n n' P (x ++ w ++ concat ws')) y)).
  rewrite lay_mm_app by auto. fold u'.
  change (mlp_forward (n :: n' :: ns'') (w :: ws') x) with (fwd_rest (n' :: ns'') ws' u').
  change (mlp_backprop (n :: n' :: ns'') (w :: ws') x y) with
    (let r := bp_rest (n' :: ns'') ws' u' y in
     (matmul Rsc n' 1 n (snd r) (transpose Rsc n 1 x) :: fst r,
      matmul Rsc n n' 1 (transpose Rsc n' n w) (snd r))).
  cbv zeta. cbn [fst snd]. rewrite IH1, IH3.
  set (r := bp_rest (n' :: ns'') ws' u' y) in *.
  assert (Hg : length (concat (fst r)) = P) by (apply mlp_shapes_length; auto).
  rewrite rlay_mm_app by auto. rewrite <- app_assoc.
  repeat split; auto.
  - rewrite length_matmul; [lia| |lia]. rewrite length_transpose; lia.
  - rewrite length_matmul; [lia|lia|]. rewrite length_transpose; lia.
Qed.

(** ** One entry of one weight matrix *)
Fixpoint set_w (ws : list vec) (i k : nat) (z : R) : list vec :=
  match ws, i with
  | [], _ => []
  | w :: ws', O => set_at w k z :: ws'
  | w :: ws', S i' => w :: set_w ws' i' k z
  end.

Lemma set_at_app_l u v j z : (j < length u)%nat -> set_at (u ++ v) j z = set_at u j z ++ v.
Proof.
  intros Hj. apply vec_ext.
  - rewrite length_set_at, !app_length, length_set_at; rewrite ?app_length; lia.
  - intros i. rewrite nth_set_at by (rewrite app_length; lia).
    destruct (Nat.lt_ge_cases i (length u)) as [Hi|Hi].
    + rewrite !nth_app_lt by (rewrite ?length_set_at; lia). rewrite nth_set_at by lia. reflexivity.
    + rewrite !nth_app_ge by (rewrite ?length_set_at; lia). rewrite length_set_at by lia.
      destruct (Nat.eqb_spec i j); [lia|reflexivity].
Qed.

Lemma set_at_app_r u v j z : (j < length v)%nat -> set_at (u ++ v) (length u + j) z = u ++ set_at v j z.
Proof.
  intros Hj. apply vec_ext.
  - rewrite length_set_at, !app_length, length_set_at; rewrite ?app_length; lia.
  - intros i. rewrite nth_set_at by (rewrite app_length; lia).
    destruct (Nat.lt_ge_cases i (length u)) as [Hi|Hi].
    + rewrite !nth_app_lt by lia. destruct (Nat.eqb_spec i (length u + j)); [lia|reflexivity].
    + rewrite !nth_app_ge by lia. rewrite nth_set_at by lia.
      destruct (Nat.eqb_spec i (length u + j)); destruct (Nat.eqb_spec (i - length u) j); try lia; reflexivity.
Qed.

Lemma set_w_flat ws : forall i k z x, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
  x ++ concat (set_w ws i k z) = set_at (x ++ concat ws) (length x + length (concat (firstn i ws)) + k) z.
Proof.
  induction ws as [|w ws IH]; intros i k z x Hi Hk; [simpl in Hi; lia|].
  destruct i as [|i].
  - simpl in Hk |- *. rewrite Nat.add_0_r. rewrite set_at_app_r by (rewrite app_length; lia).
    rewrite set_at_app_l by lia. reflexivity.
  - simpl in Hi, Hk |- *. rewrite app_assoc, IH by lia. rewrite app_assoc, app_length, app_length. f_equal. lia.
Qed.

Lemma concat_index (ws : list vec) : forall i k, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
  (length (concat (firstn i ws)) + k < length (concat ws))%nat /\
  (concat ws)@@(length (concat (firstn i ws)) + k) = (nth i ws [])@@k.
Proof.
  induction ws as [|w ws IH]; intros i k Hi Hk; [simpl in Hi; lia|].
  destruct i as [|i].
  - simpl in Hk |- *. rewrite app_length. split; [lia|]. apply nth_app_lt. lia.
  - simpl in Hi, Hk |- *. destruct (IH i k ltac:(lia) Hk) as [H1 H2].
    rewrite !app_length. split; [lia|]. rewrite nth_app_ge by lia.
    replace (length w + length (concat (firstn i ws)) + k - length w)%nat
      with (length (concat (firstn i ws)) + k)%nat by lia. exact H2.
Qed.

Lemma mlp_shapes_set_w ns : forall ws i k z, mlp_shapes ns ws -> (k < length (nth i ws []))%nat -> mlp_shapes ns (set_w ws i k z).
Proof.
  induction ns as [|n ns IH]; intros ws i k z Hf Hk; [destruct ws; contradiction|].
  destruct ns as [|n' ns'']; destruct ws as [|w ws']; try contradiction; [exact Hf|].
  destruct Hf as [Hw Hf]. destruct i as [|i]; simpl in Hk |- *.
  - split; [rewrite length_set_at; lia|exact Hf].
  - split; [exact Hw|]. apply IH; auto.
Qed.

Lemma mlp_shapes_lengths ns : forall ws gs, mlp_shapes ns ws -> mlp_shapes ns gs -> map (@length R) ws = map (@length R) gs.
Proof.
  induction ns as [|n ns IH]; intros ws gs Hw Hg; [destruct ws; contradiction|].
  destruct ns as [|n' ns'']; destruct ws as [|w ws']; destruct gs as [|g gs']; try contradiction; [reflexivity|].
  destruct Hw as [Hw Hw']. destruct Hg as [Hg Hg']. simpl. rewrite Hw, Hg. f_equal. apply IH; auto.
Qed.

Lemma len_concat_firstn (ws gs : list vec) : forall i, map (@length R) ws = map (@length R) gs ->
  length (concat (firstn i ws)) = length (concat (firstn i gs)).
Proof.
  revert gs. induction ws as [|w ws IH]; intros [|g gs] i E; try discriminate; [destruct i; reflexivity|].
  simpl in E. injection E as E1 E2. destruct i; [reflexivity|]. simpl. rewrite !app_length, E1, (IH gs i E2). reflexivity.
Qed.

Lemma nth_map_vsub (ws gs : list vec) : forall i, length ws = length gs -> (i < length ws)%nat ->
  nth i (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws gs)) [] = vsub Rsc (nth i ws []) (nth i gs []).
Proof.
  revert gs. induction ws as [|w ws IH]; intros [|g gs] i E Hi; simpl in *; try lia.
  destruct i; [reflexivity|]. apply IH; lia.
Qed.

(** Reading a gradient step off a reverse derivative on the flat vector
    [v ++ m_0 ++ …]: the part of the proofs of [mlp_train_gradient] and
    [resnet_grad.v]'s [res_train_gradient] that does not depend on the
    network. *)
Lemma grad_readout ns (ws : list vec) (v : vec) (F : vec -> vec) rF (loss_w : nat -> nat -> R -> R)
    (loss_x : nat -> R -> R) (gx : vec) (gs : list vec) α :
  mlp_shapes ns ws -> length v = hd 0%nat ns ->
  is_rev_deriv (hd 0%nat ns + psize ns) 1 F (v ++ concat ws) rF ->
  rF [α] = gx ++ concat gs -> length gx = length v -> mlp_shapes ns gs ->
  (forall i k z, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
     (F (v ++ concat (set_w ws i k z)))@@0 = loss_w i k z) ->
  (forall j z, (j < length v)%nat -> (F (set_at v j z ++ concat ws))@@0 = loss_x j z) ->
  (forall i k, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
     ex_derive (loss_w i k) ((nth i ws [])@@k) /\
     (nth i ws [])@@k - (nth i gs [])@@k = (nth i ws [])@@k - α * Derive (loss_w i k) ((nth i ws [])@@k)) /\
  (forall j, (j < length v)%nat -> ex_derive (loss_x j) (v@@j) /\ gx@@j = α * Derive (loss_x j) (v@@j)).
Proof.
  intros Hf Hv HF Er Hgx Hgf Hw Hx.
  set (s := v ++ concat ws).
  assert (Hr : forall q, (q < hd 0%nat ns + psize ns)%nat ->
    is_derive (fun z => (F (set_at s q z))@@0) (s@@q) ((rF [1])@@q) /\
    (gx ++ concat gs)@@q = α * (rF [1])@@q).
  { intros q Hq. destruct (rev_deriv_partial _ _ _ _ q HF Hq) as [Hd Hl]. split; [exact Hd|].
    rewrite <- Er. apply Hl. }
  assert (Hlen : map (@length R) ws = map (@length R) gs) by (apply (mlp_shapes_lengths ns); auto).
  split.
  - intros i k Hi Hk.
    set (q := (length v + length (concat (firstn i ws)) + k)%nat).
    destruct (concat_index ws i k Hi Hk) as [Hq1 Hq2].
    assert (Hq : (q < hd 0%nat ns + psize ns)%nat) by (unfold q; rewrite <- (mlp_shapes_length ns ws Hf); lia).
    destruct (Hr q Hq) as [Hd Hstep].
    assert (Hsq : s@@q = (nth i ws [])@@k).
    { unfold s, q. rewrite nth_app_ge by lia. rewrite <- Hq2. f_equal. lia. }
    assert (Hfun : forall z, (F (set_at s q z))@@0 = loss_w i k z).
    { intros z. unfold s, q. rewrite <- set_w_flat by auto. apply Hw; auto. }
    rewrite Hsq in Hd. apply (is_derive_ext _ _ _ _ Hfun) in Hd.
    split; [eexists; exact Hd|].
    rewrite (is_derive_unique _ _ _ Hd).
    assert (Hlenws : length ws = length gs).
    { pose proof (f_equal (@length nat) Hlen) as E. rewrite !map_length in E. exact E. }
    assert (Hwi : length (nth i ws []) = length (nth i gs [])).
    { rewrite <- !(map_nth (@length R) _ [] i). simpl. rewrite Hlen. reflexivity. }
    destruct (concat_index gs i k ltac:(lia) ltac:(lia)) as [_ Hg2].
    rewrite <- Hg2, <- (len_concat_firstn ws gs i Hlen).
    replace (length (concat (firstn i ws)) + k)%nat with (q - length gx)%nat by (unfold q; lia).
    rewrite <- nth_app_ge by (unfold q; lia). rewrite Hstep. ring.
  - intros j Hj.
    assert (Hq : (j < hd 0%nat ns + psize ns)%nat) by lia.
    destruct (Hr j Hq) as [Hd Hstep].
    assert (Hsq : s@@j = v@@j) by (unfold s; apply nth_app_lt; lia).
    assert (Hfun : forall z, (F (set_at s j z))@@0 = loss_x j z).
    { intros z. unfold s. rewrite set_at_app_l by lia. apply Hx. exact Hj. }
    rewrite Hsq in Hd. apply (is_derive_ext _ _ _ _ Hfun) in Hd.
    split; [eexists; exact Hd|].
    rewrite (is_derive_unique _ _ _ Hd).
    rewrite <- (nth_app_lt gx (concat gs)) by lia. exact Hstep.
Qed.

(** ** The theorem: one training step is one step of gradient descent

    For every widths [ns = [n_0; …; n_L]] ([L ≥ 1]), weights [ws] of
    those shapes, input [v ∈ ℝ^{n_0}], target [t ∈ ℝ^{n_L}] and rate [α],
    [mlp_train] (what [H_train] computes) maps every entry [k] of every
    weight matrix [m_i] to [m_i[k] − α · ∂/∂m_i[k] ½‖f_m(v) − t‖²], and
    returns [α · ∂/∂v_j ½‖f_m(v) − t‖²] at every entry [j] of the input;
    the partial derivatives exist (Coquelicot's [ex_derive], [Derive]).

    Informal proof: the loss is [sqerr t ∘ Nnet ns] on the flat vector
    [v ++ m_0 ++ … ++ m_{L-1}]; [Nnet_rd] (by induction on the layers)
    and [rd_sqerr] give its reverse derivative, which at the cotangent
    [α] is what [mlp_train] subtracts ([net_flat]); [rev_deriv_partial]
    reads Coquelicot's partial derivatives off it, coordinate by
    coordinate ([set_w_flat], [concat_index] locate entry [k] of [m_i]). *)
Theorem mlp_train_gradient ns ws v t α :
  (2 <= length ns)%nat -> mlp_shapes ns ws -> length v = hd 0%nat ns -> length t = last ns 0%nat ->
  length (fst (mlp_train ns ws v t α)) = length ws /\
  (forall i k, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
     ex_derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k) /\
     (nth i (fst (mlp_train ns ws v t α)) [])@@k =
       (nth i ws [])@@k - α * Derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k)) /\
  length (snd (mlp_train ns ws v t α)) = length v /\
  (forall j, (j < length v)%nat ->
     ex_derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j) /\
     (snd (mlp_train ns ws v t α))@@j = α * Derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j)).
Proof.
  intros Hns Hf Hv Ht.
  set (s := v ++ concat ws).
  assert (Hs : length s = (hd 0%nat ns + psize ns)%nat) by (unfold s; rewrite app_length, (mlp_shapes_length ns ws Hf); lia).
  set (out := mlp_forward ns ws v).
  set (y := vscale Rsc α (vsub Rsc out t)).
  destruct (net_flat ns ws v (zeros (last ns 0%nat)) Hns Hf Hv (length_zeros _)) as (Eo & Ho & _).
  fold out in Eo, Ho.
  assert (Hy : y = vs α (vm out t)).
  { unfold y. rewrite vsub_vm by lia. reflexivity. }
  assert (Hyl : length y = last ns 0%nat) by (rewrite Hy, length_vs, length_vm; lia).
  destruct (net_flat ns ws v y Hns Hf Hv Hyl) as (_ & _ & Er & Hg & Hgf).
  set (bp := mlp_backprop ns ws v y) in *.
  assert (Etrain : mlp_train ns ws v t α = (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst bp)), snd bp))
    by reflexivity.
  rewrite Etrain. cbn [fst snd].
  (* the reverse derivative of the loss on the flat vector *)
  pose proof (rd_comp _ (last ns 0%nat) _ (sqerr t) (Nnet ns) s _ _ (Nnet_rd ns s Hs)
                (rd_sqerr _ t (Nnet ns s) Ht ltac:(unfold s; rewrite Eo; exact Ho))) as HF.
  cbv beta in HF.
  assert (HrF : (fun c => Rnet ns s (vs (c@@0) (vm (Nnet ns s) t))) [α] = snd bp ++ concat (fst bp)).
  { cbv beta. cbn [nth]. unfold s. rewrite Eo, <- Hy. fold s. rewrite <- Er. reflexivity. }
  assert (Hgv : length (snd bp) = length v) by lia.
  destruct (grad_readout ns ws v (fun s' => sqerr t (Nnet ns s')) _
              (fun i k z => mlp_loss ns (set_w ws i k z) v t) (fun j z => mlp_loss ns ws (set_at v j z) t)
              (snd bp) (fst bp) α Hf Hv HF HrF Hgv Hgf) as [Hw Hx].
  - intros i k z Hi Hk.
    destruct (net_flat ns (set_w ws i k z) v (zeros (last ns 0%nat)) Hns (mlp_shapes_set_w ns ws i k z Hf Hk) Hv
                (length_zeros _)) as (E' & _).
    rewrite E'. reflexivity.
  - intros j z Hj.
    destruct (net_flat ns ws (set_at v j z) (zeros (last ns 0%nat)) Hns Hf
                ltac:(rewrite length_set_at; lia) (length_zeros _)) as (E' & _).
    rewrite E'. reflexivity.
  - assert (Hlen : map (@length R) ws = map (@length R) (fst bp)) by (apply (mlp_shapes_lengths ns); auto).
    assert (Hlenws : length ws = length (fst bp)).
    { pose proof (f_equal (@length nat) Hlen) as E. rewrite !map_length in E. exact E. }
    split; [|split; [|split]].
    + rewrite map_length, combine_length. lia.
    + intros i k Hi Hk. destruct (Hw i k Hi Hk) as [Hd He]. split; [exact Hd|].
      rewrite <- He, nth_map_vsub by lia.
      assert (Hwi : length (nth i ws []) = length (nth i (fst bp) [])).
      { rewrite <- !(map_nth (@length R) _ [] i). simpl. rewrite Hlen. reflexivity. }
      rewrite vsub_vm by exact Hwi. apply nth_vm.
    + exact Hgv.
    + exact Hx.
Qed.

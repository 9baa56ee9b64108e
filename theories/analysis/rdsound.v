(** * Soundness of the [rd] step over ℝ: [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]

    The rewriting [W.R_θ(x⃗.N)] of [rd.v] ([rdr]) denotes a reverse
    derivative of its body: read [N] (typed in [As ++ Γ0]) as the map [G]
    of flat vectors that refills the block [x⃗ : As] with [y] and leaves the
    other variables at [θ]; then [⟦W.R_θ(x⃗.N)⟧], flattened, is [r ⟦W⟧] for
    a reverse derivative [r] of [G] at [⟦θ⟧] ([rdr_sound_rdfree], with
    [rdr_sound_gen]: by induction on the typing of [N], one case per rule
    of Fig. 4 with the theorems of [rdcalc.v]).  With [rd_den_correct]
    this gives the soundness of the [rd] step ([rd_step_sound_rdfree]):
    [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧], and of every step of a closed
    well-typed term ([step_tm_den_rdfree]).

    Assumptions, on the body [N] ([okt N]): no [rd] inside, its constants
    have the length of their type, and every primitive [rd^k[p]] it applies
    has [p] smooth or [sce] ([smooth_all_prim]: differentiable
    everywhere), [prim_ok p], [k ≤ 1], and [rd^k[p]], [rd^{k+1}[p]]
    sending trees of the shape of their domain to trees of the shape of
    their codomain ([prim_fits]).  [prim_fits] holds for every such
    primitive and [k ≤ 2] ([smooth_prim_fits], [smooth_prim_fits2],
    [sce_prim_fits], [smooth_all_prim_fits2]), so nothing is assumed of the
    primitives but [smooth_all_prim], [prim_ok] and [k ≤ 1]
    ([good_smooth_all]), and of the constants their lengths ([smooth_body],
    [rd_step_sound_smooth], [step_tm_den_smooth] for the smooth
    primitives; [sce] included: [rd_step_sound_smooth_all],
    [rdsound_all.v]).  The environment, the
    point and the cotangent
    are trees of the shapes of their types ([fits]).

    Bodies with [rd] inside, of [rd]-depth one ([okn]: each inner [rd] has
    an [okt] cotangent and point and a body with plain smooth primitives,
    [smooth0]): the inner rewriting then applies [rd[p]] only and satisfies
    [okt] ([okt_rdr0]), denotes the inner [rd] in every environment
    ([rd_core]), and the R-Rd case follows ([rdr_sound_depth1],
    [rd_step_sound_depth1]).  Every depth, function symbols included,
    the rewriting applying [rd^k[p]] for every [k] (the core's beyond
    [rd²], rdcore_ev.v): [rdsound_all.v] (linear bodies:
    [rdsound_lin.v]); the evaluation at every depth: [rdsound_eval.v]. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd rdr_rel rd_bound term_sem instance normalization tactics.
From Coq Require Import Relation_Operators.
From RevHandlers.Analysis Require Import vec templates sums prims ev denot rdden rdprim rdcalc level2 tmclosed.
From RevHandlers.Analysis Require sce.
Import ListNotations.
Open Scope R_scope.

#[local] Instance Rsorts4 : sorts := exec_sorts vec.

(** Inverts the [Forall2] hypotheses on lists of known length (also used
    by [prims_fits.v]). *)
(** The side conditions of an instance of the [rd]-step soundness at
    constants [<v>] and [<w>] whose lengths are [Hv] and [Hw]: the empty
    environment fits, and so do the two constants. *)
Ltac rd_sides Hv Hw :=
  first [ intros x D Hx; destruct x; discriminate | simpl; constructor; exact Hv | simpl; constructor; exact Hw ].

Ltac inv_F2 :=
  repeat match goal with
         | H : Forall2 _ (_ :: _) _ |- _ => inversion H; subst; clear H
         | H : Forall2 _ [] _ |- _ => inversion H; subst; clear H
         end.

(** ** Trees of the shape of a type *)
Inductive fits : ty -> rv -> Prop :=
| fits_leaf n v : length v = n -> fits (TBase n) (RLeaf v)
| fits_node As ts : Forall2 fits As ts -> fits (TProd As) (RNode ts).

Definition dim (A : ty) : nat := dsum (@ty_dims vec A).

Lemma dsum_app a b : dsum (a ++ b) = (dsum a + dsum b)%nat.
Proof. unfold dsum. rewrite fold_right_app. apply fold_right_Nat_acc. Qed.

Lemma dim_prod As : dim (TProd As) = dsum (map dim As).
Proof.
  unfold dim. simpl. induction As as [|A As IH]; simpl; auto. rewrite dsum_app, IH. reflexivity.
Qed.

Lemma dim_base n : dim (TBase n) = n.
Proof. unfold dim, dsum. simpl. lia. Qed.

Lemma fits_len A : forall t, fits A t -> length (rflat t) = dim A.
Proof.
  induction A as [n|As IH] using ty_ind'; intros t Ht; inversion Ht as [? v Hv|? ts HF]; subst.
  - unfold rflat. simpl. rewrite app_nil_r, dim_base. auto.
  - rewrite rflat_node, dim_prod. clear Ht. induction HF as [|A t As ts HA HF IHF]; simpl; auto.
    inversion IH; subst. rewrite app_length, IHF, H1 by auto. reflexivity.
Qed.

Lemma fits_leaves A : forall t, fits A t -> Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec A) (rleaves t).
Proof.
  induction A as [n|As IH] using ty_ind'; intros t Ht; inversion Ht as [? v Hv|? ts HF]; subst.
  - simpl. constructor; auto.
  - simpl. clear Ht. induction HF as [|A t As ts HA HF IHF]; simpl; [constructor|].
    inversion IH; subst. apply Forall2_app; auto.
Qed.

(** Two trees of the same shape: the second is the first refilled with its
    leaves. *)
Lemma reshape_aux_fits A : forall t t' r, fits A t -> fits A t' ->
  reshape_aux t (rflat t' ++ r) = (t', r).
Proof.
  induction A as [n|As IH] using ty_ind'; intros t t' r Ht Ht'.
  - inversion Ht as [n1 v Hv|]; inversion Ht' as [n2 v' Hv'|]; subst.
    unfold rflat. simpl. rewrite app_nil_r.
    rewrite firstn_app_exact, skipn_app_exact by congruence. reflexivity.
  - inversion Ht as [|As1 ts HF]; inversion Ht' as [|As2 ts' HF']; subst.
    simpl. rewrite rflat_node.
    assert (Hgo : forall ts ts' r, Forall2 fits As ts -> Forall2 fits As ts' ->
      (fix go (ts : list rv) (y : vec) : list rv * vec :=
           match ts with
           | [] => ([], y)
           | t :: ts => let '(t', y1) := reshape_aux t y in
                        let '(ts', y2) := go ts y1 in (t' :: ts', y2)
           end) ts (concat (map rflat ts') ++ r) = (ts', r)).
    { clear -IH. induction IH as [|A As HA HAs IHl]; intros ts ts' r H1 H2;
        inversion H1 as [|? t0 ? ts0 Ht0 Hts0]; inversion H2 as [|? t1 ? ts1 Ht1 Hts1]; subst; simpl; auto.
      rewrite <- app_assoc, (HA t0 t1 _ Ht0 Ht1).
      rewrite (IHl ts0 ts1 r Hts0 Hts1). reflexivity. }
    rewrite Hgo; auto.
Qed.

Lemma reshape_fits_eq A t t' : fits A t -> fits A t' -> reshape t (rflat t') = t'.
Proof.
  intros Ht Ht'. unfold reshape. rewrite <- (app_nil_r (rflat t')), (reshape_aux_fits A t t' []); auto.
Qed.

(** Refilling keeps the shape. *)
Lemma reshape_aux_keeps A : forall t y, fits A t -> (dim A <= length y)%nat ->
  fits A (fst (reshape_aux t y)).
Proof.
  induction A as [n|As IH] using ty_ind'; intros t y Ht Hy;
    inversion Ht as [? v Hv|? ts HF]; subst.
  - simpl. constructor. rewrite firstn_length, dim_base in *. lia.
  - simpl.
    assert (Hgo : forall ts y, Forall2 fits As ts -> (dsum (map dim As) <= length y)%nat ->
      Forall2 fits As (fst ((fix go (ts : list rv) (y : vec) : list rv * vec :=
           match ts with
           | [] => ([], y)
           | t :: ts => let '(t', y1) := reshape_aux t y in
                        let '(ts', y2) := go ts y1 in (t' :: ts', y2)
           end) ts y))).
    { clear -IH. induction IH as [|A As HA HAs IHl]; intros ts y H1 Hy;
        inversion H1 as [|? t ? ts' Ht Hts]; subst; simpl; [constructor|].
      simpl in Hy.
      destruct (reshape_aux t y) as [t1 y1] eqn:Hr.
      pose proof (reshape_aux_flat t y) as Hf. rewrite (fits_len A t Ht) in Hf.
      specialize (Hf ltac:(lia)). rewrite Hr in Hf. destruct Hf as [_ Hy1]. simpl in Hy1.
      specialize (IHl ts' y1 Hts ltac:(rewrite Hy1, skipn_length; lia)).
      match goal with |- context [let '(_, _) := ?e in _] => destruct e as [ts2 y2] eqn:Hg end.
      simpl in *. constructor; auto.
      specialize (HA t y Ht ltac:(lia)). rewrite Hr in HA. exact HA. }
    specialize (Hgo ts y HF ltac:(rewrite <- dim_prod; lia)).
    match goal with |- context [let '(_, _) := ?e in _] => destruct e as [ts2 y2] eqn:Hg end.
    simpl in *. constructor. exact Hgo.
Qed.

Lemma reshape_keeps A t y : fits A t -> length y = dim A -> fits A (reshape t y).
Proof. intros. apply reshape_aux_keeps; auto. lia. Qed.

Lemma reshape_rflat A t y : fits A t -> length y = dim A -> rflat (reshape t y) = y.
Proof. intros Ht Hy. apply reshape_flat. rewrite (fits_len A t Ht). auto. Qed.

(** ** Blocks of a flat vector *)
Definition off (As : list ty) (i : nat) : nat := dsum (map dim (firstn i As)).

Lemma concat_rflat_len As ts : Forall2 fits As ts -> length (concat (map rflat ts)) = dsum (map dim As).
Proof.
  induction 1 as [|A t As ts HA HF IH]; simpl; auto. rewrite app_length, IH, (fits_len A t HA). reflexivity.
Qed.

Lemma block_nth As ts i A : Forall2 fits As ts -> nth_error As i = Some A ->
  rflat (nth i ts (RNode [])) = proj (off As i) (dim A) (concat (map rflat ts)) /\
  fits A (nth i ts (RNode [])).
Proof.
  intros HF. revert i. induction HF as [|B t As ts HB HF IH]; intros [|i] Hi; simpl in Hi |- *; try discriminate.
  - injection Hi as <-. unfold off. simpl. rewrite proj_app_l by (rewrite (fits_len _ _ HB); lia).
    unfold proj. simpl. rewrite firstn_all2 by (rewrite (fits_len _ _ HB); lia). auto.
  - destruct (IH i Hi) as [IH1 IH2]. split; auto. rewrite IH1. unfold off. simpl.
    rewrite proj_app_r' by (rewrite (fits_len _ _ HB); lia). rewrite (fits_len _ _ HB).
    f_equal. lia.
Qed.

Lemma off_le As i A : nth_error As i = Some A -> (off As i + dim A <= dsum (map dim As))%nat.
Proof.
  revert i. induction As as [|B As IH]; intros [|i] Hi; simpl in Hi |- *; try discriminate.
  - injection Hi as <-. unfold off. simpl. lia.
  - specialize (IH i Hi). unfold off in *. simpl. lia.
Qed.

Section derived.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σd : signature := exec_signature Rvo decls locs.

Lemma den_zero A ρ : fits A (den ρ (zero A)) /\ rflat (den ρ (zero A)) = zeros (dim A).
Proof.
  induction A as [n|As IH] using ty_ind'.
  - simpl. split.
    + constructor. simpl. unfold vzero. apply repeat_length.
    + unfold rflat. simpl. rewrite app_nil_r, dim_base. reflexivity.
  - simpl. rewrite rflat_node, dim_prod. induction IH as [|A As HA HAs IHl]; simpl.
    + split; [constructor; constructor|reflexivity].
    + destruct HA as [HA1 HA2]. destruct IHl as [IH1 IH2]. inversion IH1; subst. split.
      * constructor. constructor; auto.
      * rewrite HA2, IH2. symmetry. apply zeros_app.
Qed.

Lemma fits_vadd n u v : fits (TBase n) (RLeaf u) -> fits (TBase n) (RLeaf v) ->
  fits (TBase n) (RLeaf (vadd Rsc u v)) /\ vadd Rsc u v = vp u v.
Proof.
  intros Hu Hv. inversion Hu; inversion Hv; subst. rewrite vadd_vp by congruence.
  split; auto. constructor. rewrite length_vp. lia.
Qed.

(** [M +_A N] is the sum of the flat vectors. *)
Lemma den_plus A : forall ρ M N, fits A (den ρ M) -> fits A (den ρ N) ->
  fits A (den ρ (plus A M N)) /\ rflat (den ρ (plus A M N)) = vp (rflat (den ρ M)) (rflat (den ρ N)).
Proof.
  induction A as [n|As IH] using ty_ind'; intros ρ M N HM HN.
  - simpl. inversion HM as [? u Hu E1|]. inversion HN as [? v Hv E2|].
    destruct (fits_vadd n u v) as [H1 H2]; [constructor; auto|constructor; auto|].
    split; auto. rewrite H2. unfold rflat. simpl. rewrite !app_nil_r. reflexivity.
  - simpl.
    assert (E : den (fun x => scons (den ρ M) ρ (S x)) N = den ρ N) by (apply den_ext; reflexivity).
    unfold shift. rewrite den_ren. rewrite E.
    inversion HM as [|? ta Hta]. inversion HN as [|? tb Htb]. subst.
    match goal with H : RNode ta = den ρ M |- _ => rename H into HMa end.
    match goal with H : RNode tb = den ρ N |- _ => rename H into HNb end.
    assert (Hgo : forall As' i, Forall (fun A => forall ρ M N, fits A (den ρ M) -> fits A (den ρ N) ->
        fits A (den ρ (plus A M N)) /\ rflat (den ρ (plus A M N)) = vp (rflat (den ρ M)) (rflat (den ρ N))) As' ->
      Forall2 fits As' (skipn i ta) -> Forall2 fits As' (skipn i tb) ->
      let ts := map (den (scons (den ρ N) (scons (den ρ M) ρ)))
        ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                   match As with
                   | [] => []
                   | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                   end) i As') in
      Forall2 fits As' ts /\
      concat (map rflat ts) = vp (concat (map rflat (skipn i ta))) (concat (map rflat (skipn i tb)))).
    { intros As' i HI. revert i. induction HI as [|A As' HA HAs IHl]; intros i Ha Hb; simpl.
      - apply Forall2_length' in Ha, Hb. simpl in Ha, Hb.
        destruct (skipn i ta); destruct (skipn i tb); simpl in *; try discriminate. split; auto.
      - inversion Ha as [|? t1 ? ts1 Ht1 Hts1]. inversion Hb as [|? t2 ? ts2 Ht2 Hts2].
        match goal with H : t1 :: ts1 = skipn i ta |- _ => rename H into Ea end.
        match goal with H : t2 :: ts2 = skipn i tb |- _ => rename H into Eb end.
                assert (Ea' : nth i ta (RNode []) = t1 /\ skipn (S i) ta = ts1).
        { clear -Ea. revert ta Ea. induction i as [|i IHi]; intros [|a ta] E; simpl in *; try discriminate.
          - injection E; auto.
          - auto. }
        assert (Eb' : nth i tb (RNode []) = t2 /\ skipn (S i) tb = ts2).
        { clear -Eb. revert tb Eb. induction i as [|i IHi]; intros [|a tb] E; simpl in *; try discriminate.
          - injection E; auto.
          - auto. }
        destruct Ea' as [Ea1 Ea2]. destruct Eb' as [Eb1 Eb2].
        destruct (HA (scons (den ρ N) (scons (den ρ M) ρ)) (Proj i (Var 1)) (Proj i (Var 0))) as [P1 P2].
        + simpl. rewrite <- HMa. rewrite Ea1. auto.
        + simpl. rewrite <- HNb. rewrite Eb1. auto.
        + destruct (IHl (S i)) as [I1 I2]; [rewrite Ea2; auto|rewrite Eb2; auto|].
          split; [constructor; auto|]. simpl.
          etransitivity; [apply (f_equal2 (@app R)); [exact P2|exact I2]|].
          rewrite Ea2, Eb2. simpl. rewrite <- HMa, <- HNb. simpl. rewrite Ea1, Eb1.
          symmetry. apply vp_app. rewrite (fits_len _ _ Ht1), (fits_len _ _ Ht2). reflexivity. }
    destruct (Hgo As 0%nat IH Hta Htb) as [G1 G2]. simpl in G1, G2. rewrite <- HMa, <- HNb in G1, G2.
    split; [constructor; exact G1|]. rewrite !rflat_node. exact G2.
Qed.

Lemma vp_zeros_r v n : length v = n -> vp v (zeros n) = v.
Proof.
  intros H. subst n. induction v as [|a v IH]; [reflexivity|].
  change (zeros (length (a :: v))) with (0 :: zeros (length v)). simpl. rewrite IH. f_equal. ring.
Qed.

Lemma vp_zeros_l v n : length v = n -> vp (zeros n) v = v.
Proof.
  intros H. subst n. induction v as [|a v IH]; [reflexivity|].
  change (zeros (length (a :: v))) with (0 :: zeros (length v)). simpl. rewrite IH. f_equal. ring.
Qed.

(** The one-hot vector of the flat cotangent, block by block. *)
Lemma onehot_flat_gen (w : vec) i As : forall j,
  concat (map (fun jA => if Nat.eqb (fst jA) i then w else zeros (dim (snd jA)))
             (combine (seq j (length As)) As)) =
  if Nat.ltb i j then zeros (dsum (map dim As))
  else match nth_error As (i - j) with
       | Some A => zeros (off As (i - j)) ++ w ++ zeros (dsum (map dim As) - off As (i - j) - dim A)
       | None => zeros (dsum (map dim As))
       end.
Proof.
  induction As as [|B As IH]; intros j; simpl.
  - destruct (Nat.ltb i j); [reflexivity|]. destruct (i - j)%nat; reflexivity.
  - rewrite IH. destruct (Nat.eqb_spec j i) as [<-|Hne].
    + rewrite Nat.ltb_irrefl, Nat.sub_diag. simpl.
      assert (Hlt : Nat.ltb j (S j) = true) by (apply Nat.ltb_lt; lia). rewrite Hlt.
      unfold off. simpl. rewrite Nat.sub_0_r. f_equal. f_equal. f_equal. lia.
    + destruct (Nat.ltb_spec i j) as [Hij|Hij].
      * assert (Hlt : Nat.ltb i (S j) = true) by (apply Nat.ltb_lt; lia). rewrite Hlt.
        rewrite <- zeros_app. reflexivity.
      * assert (Hlt : Nat.ltb i (S j) = false) by (apply Nat.ltb_ge; lia). rewrite Hlt.
        replace (i - j)%nat with (S (i - S j)) by lia. simpl.
        destruct (nth_error As (i - S j)) as [A|] eqn:HA.
        -- unfold off. simpl. rewrite app_assoc, <- zeros_app. f_equal. f_equal. f_equal. lia.
        -- rewrite <- zeros_app. reflexivity.
Qed.

Lemma onehot_flat (w : vec) i As A : nth_error As i = Some A ->
  concat (map (fun jA => if Nat.eqb (fst jA) i then w else zeros (dim (snd jA)))
             (combine (seq 0 (length As)) As)) =
  zeros (off As i) ++ w ++ zeros (dsum (map dim As) - off As i - dim A).
Proof.
  intros HA. rewrite onehot_flat_gen. rewrite Nat.sub_0_r, HA. destruct i; reflexivity.
Qed.


Lemma den_onehot ρ As i A W : nth_error As i = Some A -> fits A (den ρ W) ->
  fits (TProd As) (den ρ (onehot As i W)) /\
  rflat (den ρ (onehot As i W)) =
    zeros (off As i) ++ rflat (den ρ W) ++ zeros (dsum (map dim As) - off As i - dim A).
Proof.
  intros HA HW. unfold onehot. simpl. rewrite rflat_node, <- (onehot_flat _ _ _ _ HA).
  assert (Hgen : forall As' j, (forall n B, nth_error As' n = Some B -> (j + n)%nat = i -> B = A) ->
    Forall2 fits As' (map (den ρ) (map (fun jA => if Nat.eqb (fst jA) i then W else zero (snd jA))
                                     (combine (seq j (length As')) As'))) /\
    concat (map rflat (map (den ρ) (map (fun jA => if Nat.eqb (fst jA) i then W else zero (snd jA))
                                     (combine (seq j (length As')) As')))) =
    concat (map (fun jA => if Nat.eqb (fst jA) i then rflat (den ρ W) else zeros (dim (snd jA)))
             (combine (seq j (length As')) As'))).
  { induction As' as [|B As' IH]; intros j Hj; simpl; [split; auto|].
    destruct (IH (S j)) as [I1 I2]; [intros n C Hn Hjn; apply (Hj (S n)); [exact Hn|lia]|].
    destruct (Nat.eqb_spec j i) as [<-|Hne].
    - rewrite (Hj 0%nat B eq_refl (Nat.add_0_r j)). split; [constructor; auto|]. rewrite I2. reflexivity.
    - destruct (den_zero B ρ) as [Z1 Z2]. split; [constructor; auto|]. rewrite I2. f_equal. exact Z2. }
  destruct (Hgen As 0%nat) as [G1 G2]; [intros n B Hn Hni; simpl in Hni; subst n; congruence|].
  split; [constructor; exact G1|exact G2].
Qed.

(** [M1 +_A … +_A Mn]. *)
Lemma den_sum_tms ρ A Ms : Forall (fun M => fits A (den ρ M)) Ms ->
  fits A (den ρ (sum_tms A Ms)) /\
  rflat (den ρ (sum_tms A Ms)) = fold_right vp (zeros (dim A)) (map (fun M => rflat (den ρ M)) Ms).
Proof.
  induction 1 as [|M Ms HM HMs IH].
  - simpl. apply den_zero.
  - destruct Ms as [|M' Ms].
    + simpl. split; auto. rewrite vp_zeros_r; auto. apply fits_len; auto.
    + change (sum_tms A (M :: M' :: Ms)) with (plus A M (sum_tms A (M' :: Ms))).
      destruct IH as [I1 I2]. destruct (den_plus A ρ M (sum_tms A (M' :: Ms)) HM I1) as [P1 P2].
      split; auto. rewrite P2, I2. reflexivity.
Qed.

(** [<proj_2 p, …, proj_{k+1} p>]: the tail of [p]. *)
Lemma den_tail_tuple ρ t0 ts :
  ρ 0%nat = RNode (t0 :: ts) ->
  den ρ (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length ts)))) = RNode ts.
Proof.
  intros H0. simpl. f_equal. rewrite map_map. simpl. rewrite H0. simpl.
  assert (Hg : forall j n, map (fun x => nth x ts (RNode [])) (seq j n) = firstn n (skipn j ts)
                      \/ (length ts < j + n)%nat).
  { intros j n. revert j. induction n as [|n IH]; intros j; simpl; [left; reflexivity|].
    destruct (IH (S j)) as [E|E]; [|right; lia].
    destruct (Nat.lt_ge_cases j (length ts)) as [Hj|Hj]; [|right; lia].
    left. rewrite E. clear -Hj. revert ts Hj. induction j as [|j IHj]; intros [|t ts] Hj; simpl in *; try lia; auto.
    apply IHj. lia. }
  destruct (Hg 0%nat (length ts)) as [E|E]; [|lia]. rewrite E. simpl. apply firstn_all.
Qed.


(** ** Primitives on trees *)
Definition app_den (f : nat * prim) (t : rv) : rv :=
  match eval_prim Rvo (fst f) (snd f) (rleaves t) with
  | Some outs => tval (fst (encode Rvo (fcod (fst f) (snd f)) outs))
  | None => RNode []
  end.

Lemma den_App ρ f M : den ρ (App f M) = app_den f (den ρ M).
Proof. reflexivity. Qed.

(** [rd^k[p]] sends trees of the shape of its domain to trees of the
    shape of its codomain. *)
Definition prim_fits (f : nat * prim) : Prop :=
  forall t, fits (fdom (fst f) (snd f)) t -> fits (fcod (fst f) (snd f)) (app_den f t).

Lemma app_den_flat k p t : fits (fdom k p) t -> rflat (app_den (k, p) t) = prim_fun k p (rflat t).
Proof.
  intros Ht. apply fits_leaves in Ht. unfold app_den, prim_fun. simpl.
  unfold rflat at 2. pose proof (split_at_concat _ _ [] Ht) as HS. simpl in HS. rewrite HS.
  destruct (eval_prim Rvo k p (rleaves t)) as [outs|] eqn:Ev; [|reflexivity].
  rewrite rflat_tval. unfold flat. apply eval_prim_count in Ev.
  destruct (encode_leaves (fcod k p) outs) as [H _]; [unfold vec in *; lia|].
  unfold vec in *. rewrite H, firstn_all2 by lia. reflexivity.
Qed.

(** The primitives differentiable everywhere: the smooth ones and [sce]
    (softmax cross-entropy, [sce.v]). *)
Definition smooth_all_prim (p : prim) : bool :=
  match p with
  | PSce _ => true
  | _ => smooth_prim p
  end.

Lemma smooth_all_of_smooth p : smooth_prim p = true -> smooth_all_prim p = true.
Proof. destruct p; simpl; auto. Qed.

Lemma smooth_all_prim_cases p : smooth_all_prim p = true -> smooth_prim p = true \/ exists n, p = PSce n.
Proof. destruct p; simpl; eauto. Qed.

(** [rd[p]] is the reverse derivative of [p], and [rd²[p]] that of [rd[p]],
    at every point, for every smooth primitive and [sce]. *)
Theorem prim_rd_correct_all p k :
  smooth_all_prim p = true -> prim_ok p = true -> (k <= 1)%nat -> rd_correct_at k p.
(** Informal proof: [prim_rd_correct] for the smooth primitives,
    [sce_rd0] and [sce_rd1] for [sce]. *)
Proof.
  intros Hs Hok Hk. destruct (smooth_all_prim_cases p Hs) as [Hs'|[n ->]]; [apply prim_rd_correct; auto|].
  destruct k as [|[|k]]; [apply sce.sce_rd0|apply sce.sce_rd1|lia].
Qed.

(** The assumptions on a primitive [rd^k[p]] applied in a body. *)
Definition good (f : nat * prim) : Prop :=
  smooth_all_prim (snd f) = true /\ prim_ok (snd f) = true /\ (fst f <= 1)%nat /\
  prim_fits f /\ prim_fits (S (fst f), snd f).

(** The bodies treated: no [rd] inside, constants of the length of their
    type, good primitives. *)
Fixpoint okt (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => good f /\ okt M
  | Add M1 M2 => okt M1 /\ okt M2
  | Tuple Ms => fold_right and True (map okt Ms)
  | Proj _ M => okt M
  | Let M N => okt M /\ okt N
  | Rd _ _ _ => False
  end.

Lemma okt_tuple Ms : okt (Tuple Ms) <-> Forall okt Ms.
Proof. apply fold_and_Forall. Qed.

Lemma okt_rd_depth M : okt M -> rd_depth M = 0%nat.
Proof.
  tm_induction M; simpl; intros H; auto; try tauto.
  - destruct H. rewrite IH1, IH2; auto.
  - unfold list_max'. induction IH as [|M Ms HM HMs IHl]; simpl in *; auto.
    destruct H as [H1 H2]. rewrite HM, IHl; auto.
  - destruct H. rewrite IHM, IHN; auto.
Qed.

Definition env_fits (Γ : ctx) (ρ : nat -> rv) : Prop :=
  forall x A, nth_error Γ x = Some A -> fits A (ρ x).

Lemma env_fits_cons Γ ρ A t : env_fits Γ ρ -> fits A t -> env_fits (A :: Γ) (scons t ρ).
Proof. intros H Ht [|x] B Hx; simpl in *; [congruence|auto]. Qed.

(** ** The body as a map of flat vectors *)
(** The point: the values of the block [x⃗]. *)
Definition pt (k : nat) (val : nat -> rv) : rv := RNode (map val (seq 0 k)).

(** The environment with the block refilled from [y]. *)
Definition benv (k : nat) (val : nat -> rv) (y : vec) : nat -> rv :=
  fun x => if Nat.ltb x k then
             match reshape (pt k val) y with RNode ts => nth x ts (RNode []) | _ => RNode [] end
           else val x.

(** [N] read as a map of the flat block. *)
Definition G (k : nat) (val : nat -> rv) (N : tm) (y : vec) : vec := rflat (den (benv k val y) N).

Lemma G_ext k val val' N y : (forall x, val x = val' x) -> G k val N y = G k val' N y.
Proof.
  intros H. unfold G. f_equal. apply den_ext. intros x. unfold benv, pt.
  rewrite (map_ext val val') by auto. rewrite H. reflexivity.
Qed.

Lemma pt_fits As Γ0 val : env_fits (As ++ Γ0) val -> fits (TProd As) (pt (length As) val).
Proof.
  intros H. unfold pt. constructor.
  assert (Hg : forall As' j, (forall n A, nth_error As' n = Some A -> nth_error (As ++ Γ0) (j + n) = Some A) ->
    Forall2 fits As' (map val (seq j (length As')))).
  { induction As' as [|A As' IH]; intros j Hj; simpl; constructor.
    - apply H. rewrite <- (Nat.add_0_r j). apply Hj. reflexivity.
    - apply IH. intros n B Hn. replace (S j + n)%nat with (j + S n)%nat by lia. apply Hj. exact Hn. }
  apply Hg. intros n A Hn. simpl. rewrite nth_error_app1; auto. apply nth_error_Some. congruence.
Qed.

Lemma reshape_node As t y : fits (TProd As) t -> length y = dim (TProd As) ->
  exists ts, reshape t y = RNode ts /\ Forall2 fits As ts /\ concat (map rflat ts) = y.
Proof.
  intros Ht Hy. pose proof (reshape_keeps _ _ _ Ht Hy) as HK. pose proof (reshape_rflat _ _ _ Ht Hy) as HR.
  inversion HK as [|? ts HF E]. exists ts. split; auto. split; auto. rewrite <- rflat_node. congruence.
Qed.

Lemma benv_block As Γ0 val y x A : env_fits (As ++ Γ0) val -> length y = dim (TProd As) ->
  nth_error As x = Some A ->
  rflat (benv (length As) val y x) = proj (off As x) (dim A) y /\ fits A (benv (length As) val y x).
Proof.
  intros Hv Hy Hx. unfold benv.
  assert (Hlt : Nat.ltb x (length As) = true) by (apply Nat.ltb_lt, nth_error_Some; congruence).
  rewrite Hlt. destruct (reshape_node As (pt (length As) val) y (pt_fits _ _ _ Hv) Hy) as [ts [E [HF Hc]]].
  rewrite E. rewrite <- Hc at 1. apply block_nth; auto.
Qed.

Lemma benv_fits As Γ0 val y : env_fits (As ++ Γ0) val -> length y = dim (TProd As) ->
  env_fits (As ++ Γ0) (benv (length As) val y).
Proof.
  intros Hv Hy x A Hx. destruct (Nat.lt_ge_cases x (length As)) as [Hlt|Hge].
  - rewrite nth_error_app1 in Hx by auto. apply (benv_block As Γ0 val y x A); auto.
  - unfold benv. assert (Hl : Nat.ltb x (length As) = false) by (apply Nat.ltb_ge; lia).
    rewrite Hl. apply Hv. auto.
Qed.

Lemma benv_point As Γ0 val x : env_fits (As ++ Γ0) val ->
  benv (length As) val (rflat (pt (length As) val)) x = val x.
Proof.
  intros Hv. unfold benv. pose proof (pt_fits _ _ _ Hv) as Hp.
  rewrite (reshape_fits_eq _ _ _ Hp Hp). destruct (Nat.ltb_spec x (length As)) as [Hlt|Hge]; auto.
  unfold pt. rewrite nth_indep with (d' := val 0%nat) by (rewrite map_length, seq_length; auto).
  rewrite map_nth, seq_nth by auto. reflexivity.
Qed.

Lemma G_point As Γ0 val N : env_fits (As ++ Γ0) val ->
  G (length As) val N (rflat (pt (length As) val)) = rflat (den val N).
Proof. intros Hv. unfold G. f_equal. apply den_ext. intros x. apply benv_point with Γ0. auto. Qed.

Lemma vp_comm u v : vp u v = vp v u.
Proof.
  revert v. induction u as [|a u IH]; intros [|b v]; simpl; auto. rewrite IH. f_equal. ring.
Qed.

Lemma off_S As i A : nth_error As i = Some A -> off As (S i) = (off As i + dim A)%nat.
Proof.
  revert i. induction As as [|B As IH]; intros [|i] Hi; simpl in Hi; try discriminate.
  - injection Hi as <-. unfold off. simpl. unfold dsum. simpl. lia.
  - specialize (IH i Hi). unfold off, dsum in *. simpl in *. lia.
Qed.

Lemma off_0 As : off As 0 = 0%nat.
Proof. reflexivity. Qed.

(** The environment of the body of a [let], refilled. *)
Lemma benv_let As Γ0 val A' tM y gm x : env_fits (As ++ Γ0) val -> fits A' tM ->
  length y = dim (TProd As) -> fits A' (reshape tM gm) -> rflat (reshape tM gm) = gm ->
  benv (S (length As)) (scons tM val) (gm ++ y) x = scons (reshape tM gm) (benv (length As) val y) x.
Proof.
  intros Hv HtM Hy Hg1 Hg2.
  destruct (reshape_node As (pt (length As) val) y (pt_fits _ _ _ Hv) Hy) as [ts [E [HF Hc]]].
  assert (Hp : pt (S (length As)) (scons tM val) = RNode (tM :: map val (seq 0 (length As)))).
  { unfold pt. simpl. f_equal. f_equal. rewrite <- seq_shift, map_map. reflexivity. }
  assert (Hr : reshape (pt (S (length As)) (scons tM val)) (gm ++ y) = RNode (reshape tM gm :: ts)).
  { rewrite <- Hg2 at 1. rewrite <- Hc.
    replace (rflat (reshape tM gm) ++ concat (map rflat ts)) with (rflat (RNode (reshape tM gm :: ts)))
      by (rewrite rflat_node; reflexivity).
    apply (reshape_fits_eq (TProd (A' :: As))).
    - rewrite Hp. constructor. constructor; auto. pose proof (pt_fits _ _ _ Hv) as Hq. inversion Hq; auto.
    - constructor. constructor; auto. }
  unfold benv. rewrite Hr. destruct x as [|x]; simpl; auto.
  replace (Nat.ltb (S x) (S (length As))) with (Nat.ltb x (length As)) by reflexivity.
  rewrite E. destruct (Nat.ltb x (length As)); reflexivity.
Qed.

Lemma den_shift t ρ M : den (scons t ρ) (shift M) = den ρ M.
Proof. unfold shift. rewrite den_ren. apply den_ext. reflexivity. Qed.

Lemma pt_ext k val val' : (forall x, val x = val' x) -> pt k val = pt k val'.
Proof. intros H. unfold pt. f_equal. apply map_ext. auto. Qed.

Lemma den_Let ρ M N : den ρ (Let M N) = den (scons (den ρ M) ρ) N.
Proof. reflexivity. Qed.

Lemma rflat_leaf v : rflat (RLeaf v) = v.
Proof. unfold rflat. simpl. apply app_nil_r. Qed.

(** The conclusion: the rewriting has the shape [∏ As] and denotes [r ⟦W⟧]
    for a reverse derivative [r] of the body at the point. *)
Definition rd_ok (As : list ty) (B : ty) (val : nat -> rv) (N : tm) (R w : rv) : Prop :=
  fits (TProd As) R /\
  exists r, is_rev_deriv (dim (TProd As)) (dim B) (G (length As) val N) (rflat (pt (length As) val)) r /\
            rflat R = r (rflat w).

(** ** Soundness of the rewriting *)
(** What a body asks of its immediate subterms, one rule at a time: the
    clauses of [okt] and [okn] but for R-Rd, which is left to each level. *)
Definition ok_step (ok : tm -> Prop) (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => good f /\ ok M
  | Add M1 M2 => ok M1 /\ ok M2
  | Tuple Ms => Forall ok Ms
  | Proj _ M => ok M
  | Let M N => ok M /\ ok N
  | Rd _ _ _ => True
  end.

(** What a primitive [f] applied to a tree [t] asks of the rewriting:
    [rd^k[p]] and [rd^{k+1}[p]] keep the shapes, and [rd^{k+1}[p]] is the
    reverse derivative of [rd^k[p]] at [t]. *)
Definition good_at (f : nat * prim) (t : rv) : Prop :=
  prim_fits f /\ prim_fits (S (fst f), snd f) /\
  (fits (fdom (fst f) (snd f)) t ->
   is_rev_deriv (pdom (fst f) (snd f)) (pcod (fst f) (snd f)) (prim_fun (fst f) (snd f)) (rflat t)
     (fun y => prim_fun (S (fst f)) (snd f) (rflat t ++ y))).

(** The same as [ok_step] for a predicate [ok val M] that may depend on
    the values [val] of the free variables of [M]: a primitive asks
    [good_at] at the value of its argument, and the body of a [let] is
    read with the bound value. *)
Definition ok_step_env (ok : (nat -> rv) -> tm -> Prop) (val : nat -> rv) (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => good_at f (den val M) /\ ok val M
  | Add M1 M2 => ok val M1 /\ ok val M2
  | Tuple Ms => Forall (ok val) Ms
  | Proj _ M => ok val M
  | Let M N => ok val M /\ ok (scons (den val M) val) N
  | Rd _ _ _ => True
  end.

(** The denotation of a well-typed term has the shape of its type, for a
    predicate [ok val] that asks [ok_step_env] of the subterms ([good_at]
    gives the shapes of the primitives) and of an [rd] its point. *)
Lemma den_fits_env (ok : (nat -> rv) -> tm -> Prop)
  (ok_sub : forall val M, ok val M -> ok_step_env ok val M)
  (ok_rd : forall val M N L, ok val (Rd M N L) -> ok val L) Γ M A :
  typed_tm Γ M A -> forall val, ok val M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM; elim HM using typed_tm_ind'; clear Γ M A HM.
  - intros Γ x A Hx val _ ρ Hρ. simpl. auto.
  - intros Γ c val Ho ρ Hρ. apply ok_sub in Ho. simpl in *. constructor. auto.
  - intros Γ f M HM IH val Ho ρ Hρ. destruct (ok_sub _ _ Ho) as [[Hf _] HoM].
    rewrite den_App. apply Hf. eapply IH; eauto.
  - intros Γ M1 M2 b H1 IH1 H2 IH2 val Ho ρ Hρ. destruct (ok_sub _ _ Ho) as [Ho1 Ho2]. simpl.
    specialize (IH1 val Ho1 ρ Hρ). specialize (IH2 val Ho2 ρ Hρ).
    inversion IH1 as [? u Hu E1|]. inversion IH2 as [? v Hv E2|]. simpl.
    destruct (fits_vadd b u v) as [F _]; [constructor; auto|constructor; auto|]. exact F.
  - intros Γ Ms As HF IH val Ho ρ Hρ. apply ok_sub in Ho. simpl in Ho |- *. constructor.
    clear HF. induction IH as [|M A Ms As HMA HF IHl]; simpl; constructor; inversion Ho; subst; eauto.
  - intros Γ M As i A HM IH Hi val Ho ρ Hρ. apply ok_sub in Ho. simpl. specialize (IH val Ho ρ Hρ).
    inversion IH as [|? ts HF E]. simpl. eapply block_nth; eauto.
  - intros Γ M N A B HM IHM HN IHN val Ho ρ Hρ. destruct (ok_sub _ _ Ho) as [HoM HoN]. simpl.
    eapply IHN; eauto. apply env_fits_cons; eauto.
  - intros Γ M N L A B HM _ HN _ HL IHL val Ho ρ Hρ. rewrite den_Rd. unfold rd_den.
    assert (Hl : fits A (den ρ L)) by (eapply IHL; eauto).
    apply reshape_keeps; auto. rewrite length_tab. apply fits_len. auto.
Qed.

(** The induction shared by every soundness theorem of the rewriting:
    the rewriting at a level [d] of the bodies satisfying a predicate
    [ok val] (of the values [val] of their free variables) which asks
    [ok_step_env] of the subterms and whose bodies' denotations have the
    shapes of their types, given the R-Rd case.  [rdr_sound_gen] below is
    the case of a predicate that does not look at [val] ([rdr_sound_rdfree],
    [rdr_sound_depth1], [rdr_sound_all]); [rdsound_on.v] uses [val] to ask
    each primitive to be applied in the set where it is differentiable. *)
Section rdr_sound_env.
Variable d : nat.
Variable ok : (nat -> rv) -> tm -> Prop.
Hypothesis ok_ext : forall val val' M, (forall x, val x = val' x) -> ok val M -> ok val' M.
Hypothesis ok_sub : forall val M, ok val M -> ok_step_env ok val M.
Hypothesis ok_fits : forall Γ M A, typed_tm Γ M A -> (exists val, ok val M) -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Hypothesis rd_case : forall Γf M N L A B, typed_tm Γf M B -> typed_tm (A :: Γf) N B -> typed_tm Γf L A ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits A (den ρ W) -> ok (fun x => den ρ (θ x)) (Rd M N L) ->
  rd_ok As A (fun x => den ρ (θ x)) (Rd M N L) (den ρ (rdr d Γ0 As θ W (Rd M N L))) (den ρ W).

Lemma okf Γ M A val : typed_tm Γ M A -> ok val M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof. intros HM Ho. apply ok_fits; eauto. Qed.

Lemma G_len_ok Γf As Γ0 val val' N B y : typed_tm Γf N B -> ok val' N -> Γf = As ++ Γ0 -> env_fits Γf val ->
  length y = dim (TProd As) -> length (G (length As) val N y) = dim B.
Proof.
  intros HN Ho -> Hv Hy. unfold G. apply fits_len. eapply okf; eauto. apply benv_fits; auto.
Qed.

Lemma rdr_sound_env Γf N B : typed_tm Γf N B ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) -> ok (fun x => den ρ (θ x)) N ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr d Γ0 As θ W N)) (den ρ W).
(** Informal proof: by induction on the typing of [N], for every block
    [As], point [θ], cotangent [W] and environment [ρ]; [G] is [N] read as
    a map of the flat block.  R-Var: [G] is a block projection, whose
    reverse derivative is the one-hot vector ([rd_proj]), or a constant
    ([rd_const]).  R-Const: [rd_const].  R-Fun: [G] is [rd^k[p] ∘ G_M];
    [rd^{k+1}[p]] is the reverse derivative of [rd^k[p]]
    ([prim_rd_correct_all]) and the chain rule ([rd_comp]) composes it with the
    hypothesis for [M] at the cotangent [w := rd[f](M[θ], W)].  R-Add:
    [rd_add] and [den_plus].  R-Tuple: [G] is the concatenation of the
    components', by induction on the components with [rd_pair], the
    cotangent [proj_i W] being block [i] of [W]; the sum is [den_sum_tms].
    R-Proj: [G] is a block of [G_M]; [rd_comp] with [rd_proj] and the
    one-hot cotangent.  R-Let: [G(y) = G_N(G_M(y) ++ y)] ([benv_let]) and
    [rd_let], the tail of [p] and the hypothesis for [M] at [proj_1 p]
    summed by [den_plus].  R-Rd: the hypothesis [rd_case]. *)
Proof.
  intros HN; elim HN using typed_tm_ind'; clear Γf N B HN.
  - (* Var *)
    intros Γf x A Hx As Γ0 -> θ W ρ Hv HW _. rewrite rdr_Var.
    set (val := fun x => den ρ (θ x)) in *.
    destruct (Nat.ltb_spec x (length As)) as [Hlt|Hge].
    + rewrite nth_error_app1 in Hx by auto.
      destruct (den_onehot ρ As x A W Hx HW) as [O1 O2]. split; auto.
      exists (fun y => zeros (off As x) ++ y ++ zeros (dim (TProd As) - off As x - dim A)). split.
      * eapply is_rev_deriv_ext; [| |apply (rd_proj (dim (TProd As)) (off As x) (dim A) (rflat (pt (length As) val)))].
        -- intros v Hvl. symmetry. unfold G. simpl. apply (benv_block As Γ0 val v x A Hv Hvl Hx).
        -- intros y Hy. reflexivity.
        -- rewrite dim_prod. apply off_le; auto.
        -- apply fits_len. apply pt_fits with Γ0; auto.
      * rewrite O2, dim_prod. reflexivity.
    + destruct (den_zero (TProd As) ρ) as [Z1 Z2]. split; auto.
      exists (fun _ => zeros (dim (TProd As))). split.
      * eapply is_rev_deriv_ext; [| |apply (rd_const _ (dim A) (rflat (val x)) (rflat (pt (length As) val)))].
        -- intros v Hvl. unfold G. simpl. unfold benv.
           assert (Hl : Nat.ltb x (length As) = false) by (apply Nat.ltb_ge; lia). rewrite Hl. reflexivity.
        -- intros y Hy. reflexivity.
        -- apply fits_len. apply Hv; auto.
        -- apply fits_len, pt_fits with Γ0; auto.
      * rewrite Z2. reflexivity.
  - (* Const *)
    intros Γf c As Γ0 -> θ W ρ Hv HW Ho. rewrite rdr_Const.
    set (val := fun x => den ρ (θ x)) in *.
    destruct (den_zero (TProd As) ρ) as [Z1 Z2]. split; auto.
    exists (fun _ => zeros (dim (TProd As))). split.
    + eapply is_rev_deriv_ext; [| |apply (rd_const _ (dim (TBase (const_ty c))) (rflat (RLeaf (snd c))) (rflat (pt (length As) val)))].
      * intros v Hvl. reflexivity.
      * intros y Hy. reflexivity.
      * apply fits_len. constructor. exact (ok_sub _ _ Ho).
      * apply fits_len, pt_fits with Γ0; auto.
    + rewrite Z2. reflexivity.
  - (* App *)
    intros Γf [k' p] M HM IH As Γ0 -> θ W ρ Hv HW Ho.
    set (val := fun x => den ρ (θ x)) in *.
    destruct (ok_sub _ _ Ho) as [[Hf [Hf1 Hder]] HoM].
    simpl in Hf, Hf1, Hder. rewrite rdr_App.
    set (tM := den val M).
    assert (HtM : fits (fdom k' p) tM) by (eapply okf; eauto).
    set (u := app_den (S k', p) (RNode [tM; den ρ W])).
    assert (Hin : fits (fdom (S k') p) (RNode [tM; den ρ W])).
    { simpl. constructor. constructor; [exact HtM|]. constructor; [exact HW|constructor]. }
    assert (Hu : fits (fdom k' p) u) by (apply (Hf1 _ Hin)).
    rewrite den_Let.
    match goal with |- context [den ρ ?E] => match E with App _ _ =>
      assert (Eu : den ρ E = u) end end.
    { transitivity (app_den (S k', p) (RNode [den ρ (subst_tm θ M); den ρ W])); [reflexivity|].
      unfold u, tM, val. rewrite den_subst. reflexivity. }
    rewrite Eu.
    assert (Hval : forall x, den (scons u ρ) (shift_subst θ x) = val x) by (intros x; apply den_shift).
    destruct (IH As Γ0 eq_refl (shift_subst θ) (Var 0) (scons u ρ)) as [F1 [rM [HrM EM]]].
    { intros x A Hx. rewrite Hval. apply Hv. auto. }
    { exact Hu. }
    { apply ok_ext with val; [intros x; symmetry; apply Hval|exact HoM]. }
    split; [exact F1|].
    exists (fun y => rM (prim_fun (S k') p (rflat tM ++ y))). split.
    + assert (HrM' : is_rev_deriv (dim (TProd As)) (pdom k' p) (G (length As) val M) (rflat (pt (length As) val)) rM).
      { rewrite <- (pt_ext _ _ _ Hval). eapply is_rev_deriv_ext; [| |exact HrM]; [|reflexivity].
        intros v _. apply G_ext. auto. }
      assert (Hx0 : length (G (length As) val M (rflat (pt (length As) val))) = pdom k' p).
      { eapply G_len_ok; eauto. apply fits_len, pt_fits with Γ0; auto. }
      assert (HP : is_rev_deriv (pdom k' p) (pcod k' p) (prim_fun k' p) (G (length As) val M (rflat (pt (length As) val)))
                     (fun y => prim_fun (S k') p (G (length As) val M (rflat (pt (length As) val)) ++ y)))
        by (rewrite (G_point As Γ0) by auto; exact (Hder HtM)).
      eapply is_rev_deriv_ext; [| |exact (rd_comp _ _ _ _ _ _ _ _ HrM' HP)].
      * intros v Hvl. unfold G at 2. rewrite den_App. symmetry. apply app_den_flat.
        eapply okf; eauto. apply benv_fits; auto.
      * intros y Hy. rewrite (G_point As Γ0); auto.
    + etransitivity; [exact EM|]. simpl den. unfold u. rewrite app_den_flat by exact Hin.
      rewrite rflat_node. simpl. rewrite app_nil_r. reflexivity.
  - (* Add *)
    intros Γf M1 M2 b H1 IH1 H2 IH2 As Γ0 -> θ W ρ Hv HW Ho. rewrite rdr_Add.
    destruct (ok_sub _ _ Ho) as [Ho1 Ho2].
    set (val := fun x => den ρ (θ x)) in *.
    destruct (IH1 As Γ0 eq_refl θ W ρ Hv HW Ho1) as [F1 [r1 [Hr1 E1]]].
    destruct (IH2 As Γ0 eq_refl θ W ρ Hv HW Ho2) as [F2 [r2 [Hr2 E2]]].
    destruct (den_plus (TProd As) ρ _ _ F1 F2) as [P1 P2]. split; auto.
    exists (fun y => vp (r1 y) (r2 y)). split.
    + eapply is_rev_deriv_ext; [| |exact (rd_add _ _ _ _ _ _ _ Hr1 Hr2)]; [|reflexivity].
      intros v Hvl. unfold G. simpl.
      assert (G1 : fits (TBase b) (den (benv (length As) val v) M1)) by (eapply okf; eauto; apply benv_fits; auto).
      assert (G2 : fits (TBase b) (den (benv (length As) val v) M2)) by (eapply okf; eauto; apply benv_fits; auto).
      inversion G1 as [? u1 Hu1 E3 E4|]. inversion G2 as [? u2 Hu2 E5 E6|].
      destruct (fits_vadd b u1 u2) as [_ Ev]; [constructor; auto|constructor; auto|].
      unfold val in *. rewrite <- E4, <- E6. rewrite Ev, !rflat_leaf. reflexivity.
    + rewrite P2, E1, E2. reflexivity.
  - (* Tuple *)
    intros Γf Ms Bs HF IH As Γ0 -> θ W ρ Hv HW Ho. apply ok_sub in Ho. rewrite rdr_Tuple.
    set (val := fun x => den ρ (θ x)) in *.
    change (Forall (ok val) Ms) in Ho.
    assert (IH' : Forall2 (fun M B => forall W', fits B (den ρ W') ->
        rd_ok As B val M (den ρ (rdr d Γ0 As θ W' M)) (den ρ W')) Ms Bs).
    { clear HF HW. revert Ho. induction IH as [|M B Ms' Bs' HMB HF' IHl]; intros Ho; constructor.
      - intros W' HW'. inversion Ho; subst. apply HMB; auto.
      - inversion Ho; subst. apply IHl; auto. }
    clear IH HF.
    inversion HW as [|? tsw Hw].
    match goal with H : RNode tsw = den ρ W |- _ => rename H into Ew end.
    assert (Hgen : forall Ms' Bs' i, Forall2 (fun M B => forall W', fits B (den ρ W') ->
        rd_ok As B val M (den ρ (rdr d Γ0 As θ W' M)) (den ρ W')) Ms' Bs' ->
      (forall j B, nth_error Bs' j = Some B -> nth_error Bs (i + j) = Some B) ->
      Forall (fun R => fits (TProd As) (den ρ R)) (rdr_tuple (rdr d Γ0 As θ) W i Ms') /\
      exists r, is_rev_deriv (dim (TProd As)) (dsum (map dim Bs'))
                  (fun y => concat (map (fun M => G (length As) val M y) Ms')) (rflat (pt (length As) val)) r /\
        fold_right vp (zeros (dim (TProd As))) (map (fun R => rflat (den ρ R)) (rdr_tuple (rdr d Γ0 As θ) W i Ms'))
        = r (proj (off Bs i) (dsum (map dim Bs')) (rflat (den ρ W)))).
    { intros Ms' Bs' i HI. revert i. induction HI as [|M B Ms' Bs' HMB HI IHl]; intros i Hnth.
      - simpl. split; [constructor|]. exists (fun _ => zeros (dim (TProd As))). split; [|reflexivity].
        eapply is_rev_deriv_ext; [| |apply (rd_const _ 0 [] (rflat (pt (length As) val)))]; try reflexivity.
        apply fits_len, pt_fits with Γ0; auto.
      - assert (HBi : nth_error Bs i = Some B) by (rewrite <- (Nat.add_0_r i); apply Hnth; reflexivity).
        destruct (block_nth Bs tsw i B Hw HBi) as [Bl1 Bl2].
        assert (HWi : den ρ (Proj i W) = nth i tsw (RNode [])) by (simpl; rewrite <- Ew; reflexivity).
        destruct (HMB (Proj i W)) as [F1 [r1 [Hr1 E1]]]; [rewrite HWi; exact Bl2|].
        destruct (IHl (S i)) as [FF [r2 [Hr2 E2]]].
        { intros j C Hj. replace (S i + j)%nat with (i + S j)%nat by lia. apply Hnth. exact Hj. }
        split; [constructor; auto|].
        exists (fun y => vp (r1 (proj 0 (dim B) y)) (r2 (proj (dim B) (dsum (map dim Bs')) y))). split.
        + exact (rd_pair _ _ _ _ _ _ _ _ Hr1 Hr2).
        + rewrite HWi, Bl1, <- rflat_node, Ew in E1. simpl.
          change (dsum (dim B :: map dim Bs')) with (dim B + dsum (map dim Bs'))%nat.
          f_equal.
          * etransitivity; [exact E1|]. f_equal. rewrite proj_proj by lia. rewrite Nat.add_0_r. reflexivity.
          * etransitivity; [exact E2|]. f_equal. rewrite proj_proj by lia. rewrite (off_S Bs i B HBi). reflexivity. }
    destruct (Hgen Ms Bs 0%nat IH' ltac:(auto)) as [FF [r [Hr E]]].
    destruct (den_sum_tms ρ (TProd As) _ FF) as [S1 S2]. split; auto.
    exists r. split.
    + rewrite (dim_prod Bs). eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
      intros v _. unfold G. simpl. rewrite rflat_node, map_map. reflexivity.
    + rewrite S2. etransitivity; [exact E|]. f_equal. rewrite <- Ew. unfold proj. simpl. apply firstn_all2. rewrite Ew.
      rewrite (fits_len _ _ HW), (dim_prod Bs). lia.
  - (* Proj *)
    intros Γf M Bs i A HM IH Hi As Γ0 -> θ W ρ Hv HW Ho. apply ok_sub in Ho.
    rewrite rdr_Proj, (infer_tm_complete _ _ _ HM).
    set (val := fun x => den ρ (θ x)) in *.
    change (ok val M) in Ho.
    destruct (den_onehot ρ Bs i A W Hi HW) as [O1 O2].
    destruct (IH As Γ0 eq_refl θ (onehot Bs i W) ρ Hv O1 Ho) as [F1 [rM [HrM EM]]].
    split; auto.
    exists (fun y => rM (zeros (off Bs i) ++ y ++ zeros (dim (TProd Bs) - off Bs i - dim A))). split.
    + assert (Hx0 : length (G (length As) val M (rflat (pt (length As) val))) = dim (TProd Bs)).
      { eapply G_len_ok; eauto. apply fits_len, pt_fits with Γ0; auto. }
      eapply is_rev_deriv_ext; [| |eapply rd_comp; [exact HrM|apply rd_proj; [|exact Hx0]]].
      * intros v Hvl. unfold G. simpl.
        assert (G1 : fits (TProd Bs) (den (benv (length As) val v) M)) by (eapply okf; eauto; apply benv_fits; auto).
        inversion G1 as [|? ts HF]. unfold val in *. match goal with H : RNode ts = _ |- _ => rewrite <- H end. rewrite rflat_node. symmetry. apply (block_nth Bs ts i A HF Hi).
      * intros y Hy. reflexivity.
      * rewrite dim_prod. apply off_le; auto.
    + rewrite EM, O2, dim_prod. reflexivity.
  - (* Let *)
    intros Γf M N' A' B HM IHM HN IHN As Γ0 -> θ W ρ Hv HW Ho.
    rewrite rdr_Let, (infer_tm_complete _ _ _ HM).
    set (val := fun x => den ρ (θ x)) in *.
    destruct (ok_sub _ _ Ho) as [HoM HoN].
    set (tM := den val M) in *.
    assert (HtM : fits A' tM) by (eapply okf; eauto).
    assert (EtM : den ρ (subst_tm θ M) = tM) by (unfold tM, val; apply den_subst).
    set (ρ1 := scons (den ρ (subst_tm θ M)) ρ).
    assert (Hval1 : forall x, den ρ1 (up θ x) = scons tM val x).
    { intros [|x]; simpl; [exact EtM|]. apply den_shift. }
    destruct (IHN (A' :: As) Γ0 eq_refl (up θ) (shift W) ρ1) as [FN [rN [HrN EN]]].
    { intros x C Hx. rewrite Hval1. destruct x as [|x]; simpl in Hx |- *; [congruence|]. apply Hv. auto. }
    { unfold ρ1. rewrite den_shift. exact HW. }
    { apply ok_ext with (scons tM val); [intros x; symmetry; apply Hval1|exact HoN]. }
    set (p := den ρ1 (rdr d Γ0 (A' :: As) (up θ) (shift W) N')) in *.
    inversion FN as [|? ps0 Hps].
    match goal with H : RNode ps0 = p |- _ => rename H into Ep end.
    inversion Hps as [|? p0 ? ps Hp0 Hps']. try subst ps0.
    set (ρ2 := scons p ρ1).
    assert (Hval2 : forall x, den ρ2 (shift_subst (shift_subst θ) x) = val x).
    { intros z. unfold ρ2, shift_subst. rewrite den_shift. unfold ρ1. apply den_shift. }
    assert (Hp02 : den ρ2 (Proj 0 (Var 0)) = p0) by (simpl; rewrite <- Ep; reflexivity).
    destruct (IHM As Γ0 eq_refl (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) ρ2) as [FM [rM [HrM EM]]].
    { intros z C Hz. rewrite Hval2. apply Hv. auto. }
    { rewrite Hp02. exact Hp0. }
    { apply ok_ext with val; [intros z; symmetry; apply Hval2|exact HoM]. }
    assert (Htail : den ρ2 (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As)))) = RNode ps).
    { rewrite (Forall2_length' _ _ _ Hps'). apply (den_tail_tuple ρ2 p0 ps). simpl. symmetry. exact Ep. }
    destruct (den_plus (TProd As) ρ2 (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As))))
                (rdr d Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M)) as [P1 P2].
    { rewrite Htail. constructor. exact Hps'. }
    { exact FM. }
    rewrite !den_Let. fold ρ1. fold p. fold ρ2.
    split; [exact P1|].
    set (m := dim A'). set (n := dim (TProd As)).
    exists (fun w => vp (rM (proj 0 m (rN w))) (proj m n (rN w))). split.
    + assert (HrM' : is_rev_deriv n m (G (length As) val M) (rflat (pt (length As) val)) rM).
      { rewrite <- (pt_ext _ _ _ Hval2). eapply is_rev_deriv_ext; [| |exact HrM]; [|reflexivity].
        intros v _. apply G_ext. auto. }
      assert (Hpt : rflat (pt (S (length As)) (scons tM val)) =
                    G (length As) val M (rflat (pt (length As) val)) ++ rflat (pt (length As) val)).
      { rewrite (G_point As Γ0) by auto. unfold pt. simpl. rewrite !rflat_node. simpl.
        rewrite <- seq_shift, !map_map. reflexivity. }
      assert (HrN' : is_rev_deriv (m + n) (dim B) (G (S (length As)) (scons tM val) N')
                       (G (length As) val M (rflat (pt (length As) val)) ++ rflat (pt (length As) val)) rN).
      { rewrite <- Hpt. rewrite <- (pt_ext _ _ _ Hval1).
        replace (m + n)%nat with (dim (TProd (A' :: As))) by (unfold m, n; rewrite !dim_prod; reflexivity).
        eapply is_rev_deriv_ext; [| |exact HrN]; [|reflexivity].
        intros v _. apply G_ext. auto. }
      eapply is_rev_deriv_ext; [| |exact (rd_let _ _ _ _ _ _ _ _ HrM' HrN')]; [|reflexivity].
      intros v Hvl.
      assert (Hgm : length (G (length As) val M v) = dim A') by (eapply G_len_ok; eauto).
      assert (GM : fits A' (den (benv (length As) val v) M)) by (eapply okf; eauto; apply benv_fits; auto).
      assert (Er : reshape tM (G (length As) val M v) = den (benv (length As) val v) M)
        by (apply (reshape_fits_eq A'); auto).
      transitivity (rflat (den (scons (den (benv (length As) val v) M) (benv (length As) val v)) N'));
        [|reflexivity].
      unfold G at 1. f_equal. apply den_ext. intros z.
      rewrite (benv_let As Γ0 val A' tM v); auto.
      * rewrite Er. reflexivity.
      * rewrite Er. exact GM.
      * apply reshape_rflat with A'; auto.
    + etransitivity; [exact P2|]. rewrite Htail.
      unfold ρ1 in EN. rewrite den_shift in EN. rewrite <- EN, <- Ep.
      rewrite rflat_node. simpl. rewrite vp_comm. f_equal.
      * etransitivity; [exact EM|]. transitivity (rM (rflat p0)); [f_equal; f_equal; exact Hp02|].
        f_equal. unfold proj. simpl. rewrite rflat_node. simpl. rewrite firstn_app_exact; auto. unfold m. apply fits_len; auto.
      * rewrite rflat_node. simpl. rewrite proj_app_r by (unfold m; apply fits_len; auto). rewrite firstn_all2; auto.
        rewrite (concat_rflat_len _ _ Hps'). unfold n. rewrite dim_prod. lia.
  - (* Rd *)
    intros Γf M N' L A B HM _ HN _ HL _ As Γ0 E θ W ρ Hv HW Ho.
    exact (rd_case Γf M N' L A B HM HN HL As Γ0 E θ W ρ Hv HW Ho).
Qed.
End rdr_sound_env.

(** A good primitive is good at every tree of its domain's shape. *)
Lemma good_good_at f t : good f -> good_at f t.
Proof.
  destruct f as [k p]. intros [Hs [Hok [Hk [Hf Hf1]]]]. split; [exact Hf|]. split; [exact Hf1|].
  intros Ht. simpl in *. apply (prim_rd_correct_all p k Hs Hok Hk). apply fits_len in Ht.
  rewrite Ht. unfold pdom, dim. reflexivity.
Qed.


(** A predicate on bodies alone, asking [ok_step], asks [ok_step_env]. *)
Lemma ok_step_env_of (ok : tm -> Prop) : (forall M, ok M -> ok_step ok M) ->
  forall val M, ok M -> ok_step_env (fun _ M => ok M) val M.
Proof.
  intros ok_sub val M HM. pose proof (ok_sub M HM) as H. destruct M; simpl in H |- *; auto.
  destruct H. split; auto. apply good_good_at. auto.
Qed.

(** The induction for a predicate [ok] on bodies alone. *)
Section rdr_sound.
Variable d : nat.
Variable ok : tm -> Prop.
Hypothesis ok_sub : forall M, ok M -> ok_step ok M.
Hypothesis ok_fits : forall Γ M A, typed_tm Γ M A -> ok M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Hypothesis rd_case : forall Γf M N L A B, typed_tm Γf M B -> typed_tm (A :: Γf) N B -> typed_tm Γf L A ->
  ok (Rd M N L) -> forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits A (den ρ W) ->
  rd_ok As A (fun x => den ρ (θ x)) (Rd M N L) (den ρ (rdr d Γ0 As θ W (Rd M N L))) (den ρ W).

Lemma rdr_sound_gen Γf N B : typed_tm Γf N B -> ok N ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr d Γ0 As θ W N)) (den ρ W).
(** Informal proof: [rdr_sound_env] for the predicate [fun _ M => ok M]. *)
Proof.
  intros HN Ho As Γ0 E θ W ρ Hv HW.
  refine (rdr_sound_env d (fun _ M => ok M) _ _ _ _ Γf N B HN As Γ0 E θ W ρ Hv HW Ho).
  - intros val val' M _ H. exact H.
  - apply ok_step_env_of. exact ok_sub.
  - intros Γ M A HT [_ HM]. apply ok_fits; auto.
  - intros Γf' M N' L A B' HM' HN' HL' As' Γ0' E' θ' W' ρ' Hv' HW' Ho'.
    exact (rd_case Γf' M N' L A B' HM' HN' HL' Ho' As' Γ0' E' θ' W' ρ' Hv' HW').
Qed.
End rdr_sound.

Lemma okt_sub M : okt M -> ok_step okt M.
Proof. destruct M; simpl; intros H; auto. apply okt_tuple. exact H. Qed.

(** The denotation of a well-typed body has the shape of its type. *)
Lemma den_fits Γ M A : typed_tm Γ M A -> okt M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM Ho. refine (den_fits_env (fun _ M => okt M) _ _ Γ M A HM (fun _ => RNode []) Ho).
  - apply ok_step_env_of, okt_sub.
  - intros val M' N L [].
Qed.

(** ** Soundness of the rewriting for [rd]-free bodies *)
Theorem rdr_sound_rdfree Γf N B : typed_tm Γf N B -> okt N ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr 0 Γ0 As θ W N)) (den ρ W).
(** Informal proof: no R-Rd case, [okt] excluding [rd]; the others are
    those of [rdr_sound_gen] at the level 0 for [okt] ([okt_sub],
    [den_fits]). *)
Proof.
  intros HN Ho. refine (rdr_sound_gen 0 okt okt_sub den_fits _ Γf N B HN Ho).
  intros Γf' M N' L A B' _ _ _ HoR. destruct HoR.
Qed.

Lemma fits_eq A t1 t2 : fits A t1 -> fits A t2 -> rflat t1 = rflat t2 -> t1 = t2.
Proof.
  intros H1 H2 E. rewrite <- (reshape_fits_eq A t1 t1 H1 H1), <- (reshape_fits_eq A t1 t2 H1 H2), E.
  reflexivity.
Qed.

Lemma rflat_single t : rflat (RNode [t]) = rflat t.
Proof. rewrite rflat_node. simpl. apply app_nil_r. Qed.

(** ** Soundness of the [rd] step

    For an [rd]-free body [x:A, Γ ⊢ N : B] satisfying [okt], an
    environment [ρ] of [Γ], and a point [V] and a cotangent [W] whose
    denotations have the shapes of [A] and [B]:
    [⟦W.R_V(x.N)⟧ρ = ⟦W.rd(x.N)(V)⟧ρ], the real reverse derivative of the
    body.  The body is differentiable everywhere (its primitives are the
    smooth ones), so no differentiability hypothesis is needed. *)
Theorem rd_step_sound_rdfree Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> okt N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: [rdr_sound_rdfree] with [As = [A]] and [θ = V/x]
    gives a reverse derivative [r] of the body at [⟦V⟧] with
    [⟦W.R_V(x.N)⟧ = r ⟦W⟧] (flattened); [rd_den_correct] gives the same of
    [⟦W.rd(x.N)(V)⟧]; both have the shape of [A], so they are equal
    ([fits_eq]). *)
Proof.
  intros HN Ho Hρ HV HW. unfold rd_rewrite. rewrite (okt_rd_depth N Ho).
  set (θ := list_subst [V]).
  assert (Hval : forall x, den ρ (θ x) = scons (den ρ V) ρ x).
  { intros [|x]; [reflexivity|]. unfold θ, list_subst. simpl. destruct x; reflexivity. }
  assert (Hv : env_fits ([A] ++ Γ) (fun x => den ρ (θ x))).
  { intros x C Hx. rewrite Hval. destruct x; simpl in *; [congruence|auto]. }
  destruct (rdr_sound_rdfree _ N B HN Ho [A] Γ eq_refl θ W ρ Hv HW) as [F [r [Hr E]]].
  inversion F as [|? ts HF]. inversion HF as [|? t ? ts' Ht Hts]. inversion Hts. subst.
  match goal with H : RNode [t] = _ |- _ => rename H into ER end.
  match goal with |- den ρ ?E = _ => assert (EP : den ρ E = t) end.
  { transitivity (match den ρ (rdr_step None Γ [A] θ W N) with RNode ts => nth 0 ts (RNode []) | _ => RNode [] end);
      [reflexivity|]. rewrite <- ER. reflexivity. }
  rewrite EP, den_Rd.
  set (l := den ρ V). set (w := den ρ W).
  assert (Hl : length (rflat l) = dim A) by (apply fits_len; auto).
  apply (fits_eq A); auto.
  - unfold rd_den. apply reshape_keeps; auto. rewrite length_tab. auto.
  - rewrite <- rflat_single, ER. transitivity (r (rflat w)); [exact E|]. symmetry.
    apply (rd_den_correct w l (fun a => den (scons a ρ) N) (dim B) r); [|apply fits_len; auto].
    cbv zeta. rewrite Hl.
    assert (Ept : rflat (pt (length [A]) (fun x => den ρ (θ x))) = rflat l) by apply rflat_single.
    rewrite Ept in Hr.
    replace (dim A) with (dim (TProd [A])) by (rewrite dim_prod; simpl; unfold dsum; simpl; lia).
    eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
    intros y Hy. unfold G. f_equal. apply den_ext. intros [|x].
    + unfold benv. simpl.
      assert (Er : reshape (pt 1 (fun x => den ρ (θ x))) y = RNode [reshape l y]).
      { assert (Hk : fits (TProd [A]) (pt 1 (fun x => den ρ (θ x)))) by (apply (pt_fits [A] Γ); auto).
        assert (Hy' : length y = dim A) by (rewrite Hy, dim_prod; simpl; unfold dsum; simpl; lia).
        assert (Hr1 : fits A (reshape l y)) by (apply reshape_keeps; auto).
        transitivity (reshape (pt 1 (fun x => den ρ (θ x))) (rflat (RNode [reshape l y]))).
        { f_equal. rewrite rflat_single. symmetry. apply (reshape_rflat A); auto. }
        apply (reshape_fits_eq (TProd [A])); auto. constructor. constructor; auto. }
      rewrite Er. reflexivity.
    + unfold benv. simpl. apply Hval.
Qed.
(** ** The smooth primitives have the shapes of their types

    [prim_fits (k, p)] for every smooth primitive [p] and [k ≤ 2]
    ([smooth_prim_fits], [smooth_prim_fits2]), and for [sce]
    ([sce_prim_fits]): so a body whose primitives are such [rd^k[p]],
    [k ≤ 1], satisfies [okt] as soon as its constants have the lengths of
    their types ([good_smooth_all], [good_smooth], [smooth_body_okt]). *)
Lemma tval_encode_fits A : forall xs rest, Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec A) xs ->
  snd (encode Rvo A (xs ++ rest)) = rest /\ fits A (tval (fst (encode Rvo A (xs ++ rest)))).
Proof.
  induction A as [n|As IH] using ty_ind'; intros xs rest HF.
  - simpl in HF. inversion HF as [|? x ? xs' Hx Hxs]; subst. inversion Hxs; subst. simpl.
    split; [reflexivity|]. constructor. reflexivity.
  - simpl. simpl in HF.
    assert (Hgo : forall As' xs rest, Forall (fun A => forall xs rest,
          Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec A) xs ->
          snd (encode Rvo A (xs ++ rest)) = rest /\ fits A (tval (fst (encode Rvo A (xs ++ rest))))) As' ->
        Forall2 (fun d (v : vec) => length v = d) (concat (map (@ty_dims vec) As')) xs ->
        let r := (fix go (As : list ty) (xs : list vec) : list tm * list vec :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode Rvo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As' (xs ++ rest) in
        snd r = rest /\ Forall2 fits As' (map tval (fst r))).
    { intros As' xs0 rest0 HI. revert xs0 rest0. induction HI as [|A As' HA HAs IHl]; intros xs0 rest0 HF0; simpl.
      - simpl in HF0. inversion HF0; subst. split; [reflexivity|constructor].
      - simpl in HF0. apply Forall2_app_inv_l in HF0. destruct HF0 as [l1 [l2 [H1 [H2 ->]]]].
        rewrite <- app_assoc. destruct (HA l1 (l2 ++ rest0) H1) as [E1 F1].
        destruct (encode Rvo A (l1 ++ l2 ++ rest0)) as [V xs1] eqn:Ee. simpl in E1, F1. subst xs1.
        destruct (IHl l2 rest0 H2) as [E2 F2].
        match goal with |- context [let '(_, _) := ?e in _] => destruct e as [Vs xs2] eqn:Eg end.
        simpl in *. split; [exact E2|]. constructor; auto. }
    destruct (Hgo As xs rest IH HF) as [E F]. simpl in E, F.
    assert (Hpair : forall (q : list tm * list vec), snd q = rest -> Forall2 fits As (map tval (fst q)) ->
      snd (let '(a, b) := q in (Tuple a, b)) = rest /\
      fits (TProd As) (tval (fst (let '(a, b) := q in (Tuple a, b))))).
    { intros [a b] H1 H2. simpl in *. split; auto. constructor. auto. }
    apply Hpair; [exact E|exact F].
Qed.

Lemma prim_fits_gen k p :
  (forall xs, Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (fdom k p)) xs ->
     exists outs, eval_prim Rvo k p xs = Some outs /\
                  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (fcod k p)) outs) ->
  prim_fits (k, p).
Proof.
  intros H t Ht. unfold app_den. simpl. destruct (H (rleaves t) (fits_leaves _ _ Ht)) as [outs [E HF]].
  rewrite E. rewrite <- (app_nil_r outs). apply tval_encode_fits. exact HF.
Qed.

Lemma eval_some k p xs : smooth_prim p = true -> (k <= 1)%nat ->
  length xs = length (@ty_dims vec (fdom k p)) -> exists outs, eval_prim Rvo k p xs = Some outs.
Proof.
  intros Hs Hk Hl. assert (Hk' : k = 0%nat \/ k = 1%nat) by lia.
  destruct p; simpl in Hs; try discriminate; destruct Hk' as [-> | ->]; simpl in Hl;
    do 6 (try (destruct xs as [|? xs]; simpl in Hl; try lia)); eexists; reflexivity.
Qed.

Lemma eval_concat_len k p xs outs : smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat ->
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (fdom k p)) xs ->
  eval_prim Rvo k p xs = Some outs -> length (concat outs) = pcod k p.
Proof.
  intros Hs Hok Hk HF E. destruct (Forall2_lengths _ _ HF) as [_ Hl].
  destruct (prim_rd_correct p k Hs Hok Hk (concat xs) Hl) as [L [[_ [Hm _]] _]].
  specialize (Hm (concat xs) Hl). unfold prim_fun in Hm.
  pose proof (split_at_concat _ _ [] HF) as HS. simpl in HS. rewrite HS, E in Hm. exact Hm.
Qed.

Lemma one_leaf d (o : vec) : length (concat [o]) = dsum [d] ->
  Forall2 (fun d (v : vec) => length v = d) [d] [o].
Proof. intros H. simpl in H. unfold dsum in H. simpl in H. rewrite app_nil_r in H. constructor; auto. lia. Qed.

Lemma two_leaves d1 d2 (o1 o2 : vec) : length o1 = d1 -> length (concat [o1; o2]) = dsum [d1; d2] ->
  Forall2 (fun d (v : vec) => length v = d) [d1; d2] [o1; o2].
Proof.
  intros H1 H. simpl in H. unfold dsum in H. simpl in H. rewrite app_nil_r, app_length in H.
  constructor; auto. constructor; [lia|constructor].
Qed.

Theorem smooth_prim_fits p k : smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat -> prim_fits (k, p).
(** Informal proof: [prim_fits_gen]: [Ev] answers on leaves of the
    dimensions of the domain ([eval_some]), the result concatenated has the
    dimension of the codomain ([eval_concat_len], from [prim_rd_correct]);
    a codomain of one leaf is then done, and for one of two leaves the
    length of the first is computed, primitive by primitive. *)
Proof.
  intros Hs Hok Hk. apply prim_fits_gen. intros xs HF.
  destruct (eval_some k p xs Hs Hk (eq_sym (Forall2_length' _ _ _ HF))) as [outs E].
  exists outs. split; [exact E|].
  pose proof (eval_concat_len k p xs outs Hs Hok Hk HF E) as Hc. unfold pcod in Hc.
  assert (Hk' : k = 0%nat \/ k = 1%nat) by lia.
  destruct p; simpl in Hs; try discriminate; destruct Hk' as [-> | ->]; simpl in HF, Hc |- *; inv_F2;
    simpl in E; injection E as <-;
    first [ apply one_leaf; exact Hc
          | apply two_leaves; [|exact Hc] ].
  - reflexivity.
  - auto.
  - rewrite mm_P_eq by (rewrite ?length_transpose; auto). apply length_tab2.
  - rewrite firstn_length. rewrite Nat.mul_add_distr_r in *. lia.
  - simpl in Hok. apply andb_true_iff in Hok. destruct Hok as [Hm1 Hm2].
    apply Nat.ltb_lt in Hm1. apply Nat.leb_le in Hm2.
    match goal with |- length (conv1d_dK _ ?c ?c' ?n ?m ?g ?x) = _ =>
      rewrite (cv_P_eq c c' n m Hm1 Hm2 g x); [unfold cv_P; rewrite length_tab2; lia|assumption|assumption] end.
  - rewrite vmul_inst, length_vmul. lia.
Qed.

(** Level 2: [rd²[p]] has the shapes of its type too, so [good (k, p)]
    holds for every smooth [p] and [k ≤ 1] ([good_smooth]). *)
Lemma eval_some2 p xs : smooth_prim p = true ->
  length xs = length (@ty_dims vec (fdom 2 p)) -> exists outs, eval_prim Rvo 2 p xs = Some outs.
Proof.
  intros Hs Hl. destruct p; simpl in Hs; try discriminate; simpl in Hl;
    do 7 (try (destruct xs as [|? xs]; simpl in Hl; try lia)); eexists; reflexivity.
Qed.

Lemma eval_concat_len2 p xs outs : smooth_prim p = true -> prim_ok p = true ->
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (fdom 2 p)) xs ->
  eval_prim Rvo 2 p xs = Some outs -> length (concat outs) = pcod 2 p.
Proof.
  intros Hs Hok HF E. destruct (Forall2_lengths _ _ HF) as [_ Hl].
  destruct (prim_level2_differentiable p (or_introl Hs) Hok (concat xs) Hl) as [L [_ [Hm _]]].
  specialize (Hm (concat xs) Hl). unfold prim_fun in Hm.
  pose proof (split_at_concat _ _ [] HF) as HS.
  change (split_at 0 (@ty_dims vec (fdom 2 p)) (concat xs) = xs) in HS. rewrite HS, E in Hm. exact Hm.
Qed.

Lemma three_leaves d1 d2 d3 (o1 o2 o3 : vec) : length o1 = d1 -> length o2 = d2 ->
  length (concat [o1; o2; o3]) = dsum [d1; d2; d3] ->
  Forall2 (fun d (v : vec) => length v = d) [d1; d2; d3] [o1; o2; o3].
Proof.
  intros H1 H2 H. simpl in H. unfold dsum in H. simpl in H. rewrite app_nil_r, !app_length in H.
  constructor; auto. constructor; auto. constructor; [lia|constructor].
Qed.

Theorem smooth_prim_fits2 p : smooth_prim p = true -> prim_ok p = true -> prim_fits (2%nat, p).
(** Informal proof: as [smooth_prim_fits], the total length from
    [prim_level2_differentiable], the lengths of all leaves but the last
    computed primitive by primitive. *)
Proof.
  intros Hs Hok. apply prim_fits_gen. intros xs HF.
  destruct (eval_some2 p xs Hs (eq_sym (Forall2_length' _ _ _ HF))) as [outs E].
  exists outs. split; [exact E|].
  pose proof (eval_concat_len2 p xs outs Hs Hok HF E) as Hc. unfold pcod in Hc.
  destruct p; simpl in Hs; try discriminate; simpl in HF, Hc |- *; inv_F2;
    simpl in E; injection E as <-;
    first [ apply two_leaves; [|exact Hc]
          | apply three_leaves; [| |exact Hc] ];
    unfold vzero, vscale, v_zero; simpl;
    rewrite ?repeat_length, ?map_length, ?vmul_inst, ?length_vmul, ?map_length, ?length_vmul, ?map_length;
    try lia.
  - rewrite mm_P_eq by auto. apply length_tab2.
  - rewrite mm_Q_eq by auto. apply length_tab2.
  - simpl in Hok. apply andb_true_iff in Hok. destruct Hok as [Hm1 Hm2].
    apply Nat.ltb_lt in Hm1. apply Nat.leb_le in Hm2.
    match goal with |- length (conv1d_dK _ ?c ?c' ?n ?m ?g ?x) = _ =>
      rewrite (cv_P_eq c c' n m Hm1 Hm2 g x); [unfold cv_P; rewrite length_tab2; lia|assumption|assumption] end.
  - simpl in Hok. apply andb_true_iff in Hok. destruct Hok as [Hm1 Hm2].
    apply Nat.ltb_lt in Hm1. apply Nat.leb_le in Hm2.
    match goal with |- length (conv1d_dx _ ?c ?c' ?n ?m ?K ?g) = _ =>
      rewrite (cv_Q_eq c c' n m Hm1 Hm2 K g); [unfold cv_Q; rewrite length_tab2; lia|assumption|assumption] end.
Qed.

(** [sce] too: [rd^k[sce]] has the shapes of its type for [k ≤ 2]. *)
Theorem sce_prim_fits k n : (k <= 2)%nat -> prim_fits (k, PSce n).
(** Informal proof: [prim_fits_gen]: [Ev] answers on leaves of the
    dimensions of the domain, and the length of every leaf of the result
    is computed (maps, pointwise operations of vectors of equal length,
    one-entry inner products). *)
Proof.
  intros Hk. apply prim_fits_gen. intros xs HF.
  assert (Hk' : k = 0%nat \/ k = 1%nat \/ k = 2%nat) by lia.
  destruct Hk' as [-> | [-> | ->]]; simpl in HF |- *; inv_F2; eexists; (split; [reflexivity|]).
  all: repeat match goal with
              | |- Forall2 _ (_ :: _) (_ :: _) => apply Forall2_cons
              | |- Forall2 _ [] [] => apply Forall2_nil
              end.
  all: unfold vadd, vsub, instance.vmul, vmap2, vscale, softmax, shifted_exp;
    cbv zeta; simpl; repeat rewrite ?map_length, ?combine_length, ?repeat_length; lia.
Qed.

(** Every primitive differentiable everywhere has the shapes of its type,
    for [k ≤ 2]. *)
Theorem smooth_all_prim_fits p k : smooth_all_prim p = true -> prim_ok p = true -> (k <= 2)%nat ->
  prim_fits (k, p).
Proof.
  intros Hs Hok Hk. destruct (smooth_all_prim_cases p Hs) as [Hs'|[n ->]]; [|apply sce_prim_fits; auto].
  destruct k as [|[|[|k]]]; try lia; [apply smooth_prim_fits; auto; lia..|apply smooth_prim_fits2; auto].
Qed.

Theorem smooth_all_prim_fits2 p : smooth_all_prim p = true -> prim_ok p = true -> prim_fits (2%nat, p).
Proof. intros Hs Hok. apply smooth_all_prim_fits; auto. Qed.

(** So [good (k, p)] holds for every smooth [p], [sce] included, and [k ≤ 1]. *)
Theorem good_smooth_all k p : smooth_all_prim p = true -> prim_ok p = true -> (k <= 1)%nat -> good (k, p).
Proof.
  intros Hs Hok Hk. repeat split; auto; simpl; apply smooth_all_prim_fits; auto; lia.
Qed.

Lemma good_smooth k p : smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat -> good (k, p).
Proof. intros Hs Hok Hk. apply good_smooth_all; auto. apply smooth_all_of_smooth. exact Hs. Qed.

(** ** [⟦u.R_l(y.N)⟧ = ⟦u.rd(y.N)(l)⟧] for any point substitution *)
Lemma rd_core d Γ' ρ' A B W N θ :
  env_fits (A :: Γ') (fun x => den ρ' (θ x)) -> fits B (den ρ' W) ->
  rd_ok [A] B (fun x => den ρ' (θ x)) N (den ρ' (rdr d Γ' [A] θ W N)) (den ρ' W) ->
  den ρ' (Proj 0 (rdr d Γ' [A] θ W N)) =
  rd_den (den ρ' W) (den ρ' (θ 0%nat)) (fun a => den (scons a (fun x => den ρ' (θ (S x)))) N).
Proof.
  intros Hv HW [F [r [Hr E]]].
  set (val := fun x => den ρ' (θ x)) in *.
  assert (Hval : forall x, val x = scons (val 0%nat) (fun x => val (S x)) x) by (intros [|x]; reflexivity).
  inversion F as [|? ts HF]. inversion HF as [|? t ? ts' Ht Hts]. inversion Hts. subst.
  match goal with H : RNode [t] = _ |- _ => rename H into ER end.
  match goal with |- den ρ' ?E = _ => assert (EP : den ρ' E = t) end.
  { transitivity (match den ρ' (rdr d Γ' [A] θ W N) with RNode ts => nth 0 ts (RNode []) | _ => RNode [] end);
      [reflexivity|]. rewrite <- ER. reflexivity. }
  rewrite EP.
  set (l := val 0%nat). set (w := den ρ' W).
  assert (HV : fits A l) by (apply Hv; reflexivity).
  assert (Hl : length (rflat l) = dim A) by (apply fits_len; auto).
  apply (fits_eq A); auto.
  - unfold rd_den. apply reshape_keeps; auto. rewrite length_tab. auto.
  - rewrite <- rflat_single, ER. transitivity (r (rflat w)); [exact E|]. symmetry.
    apply (rd_den_correct w l _ (dim B) r); [|apply fits_len; auto].
    cbv zeta. rewrite Hl.
    assert (Ept : rflat (pt (length [A]) val) = rflat l) by apply rflat_single.
    rewrite Ept in Hr.
    replace (dim A) with (dim (TProd [A])) by (rewrite dim_prod; simpl; unfold dsum; simpl; lia).
    eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
    intros y Hy. unfold G. f_equal. apply den_ext. intros [|x].
    + unfold benv. simpl.
      assert (Er : reshape (pt 1 val) y = RNode [reshape l y]).
      { assert (Hk : fits (TProd [A]) (pt 1 val)) by (apply (pt_fits [A] Γ'); auto).
        assert (Hy' : length y = dim A) by (rewrite Hy, dim_prod; simpl; unfold dsum; simpl; lia).
        assert (Hr1 : fits A (reshape l y)) by (apply reshape_keeps; auto).
        transitivity (reshape (pt 1 val) (rflat (RNode [reshape l y]))).
        { f_equal. rewrite rflat_single. symmetry. apply (reshape_rflat A); auto. }
        apply (reshape_fits_eq (TProd [A])); auto. constructor. constructor; auto. }
      rewrite Er. reflexivity.
    + unfold benv. simpl. reflexivity.
Qed.

(** The term [T] of R-Rd is well typed. *)
Lemma rd_body_typed d Γf M N L A B :
  typed_tm Γf M B -> typed_tm (A :: Γf) N B -> typed_tm Γf L A ->
  typed_tm Γf (Let L (Let (shift M) (Proj 0 (rdr d Γf [A] rd_inner_subst (Var 0) N)))) A.
Proof.
  intros HM HN HL. econstructor; [exact HL|]. econstructor; [apply typed_tm_shift; exact HM|].
  apply typed_tm_proj with (As := [A]); [|reflexivity].
  apply (rdr_typed d Γf [A] rd_inner_subst (Var 0) N B); [exact HN|constructor; reflexivity|].
  intros [|x] C Hx; simpl in Hx |- *; constructor; [simpl; congruence|exact Hx].
Qed.

(** The R-Rd case: [W.R_θ(x⃗. M.rd(y.N)(L))] is [W.R_θ(x⃗.T)] for
    [T := let l ← L in let u ← M in u.R_l(y.N)], and [T] denotes
    [M.rd(y.N)(L)] in every environment ([rd_core]) when the inner
    rewriting is sound, so the rewriting of [T] at the level [d] gives the
    R-Rd case at [d + 1].  Shared by [rdr_sound_depth1], [rdr_sound_all]. *)
Lemma rd_case_from d Γf M N L A B As Γ0 θ W ρ :
  typed_tm Γf M B -> typed_tm (A :: Γf) N B -> typed_tm Γf L A -> Γf = As ++ Γ0 ->
  env_fits Γf (fun x => den ρ (θ x)) ->
  (forall e, env_fits Γf e -> fits B (den e M) /\ fits A (den e L)) ->
  (forall ρ', env_fits (A :: Γf) (fun x => den ρ' (rd_inner_subst x)) -> fits B (den ρ' (Var 0)) ->
     rd_ok [A] B (fun x => den ρ' (rd_inner_subst x)) N (den ρ' (rdr d Γf [A] rd_inner_subst (Var 0) N))
       (den ρ' (Var 0))) ->
  rd_ok As A (fun x => den ρ (θ x))
    (Let L (Let (shift M) (Proj 0 (rdr d Γf [A] rd_inner_subst (Var 0) N))))
    (den ρ (rdr d Γ0 As θ W (Let L (Let (shift M) (Proj 0 (rdr d Γf [A] rd_inner_subst (Var 0) N))))))
    (den ρ W) ->
  rd_ok As A (fun x => den ρ (θ x)) (Rd M N L) (den ρ (rdr (S d) Γ0 As θ W (Rd M N L))) (den ρ W).
Proof.
  intros HM HN HL -> Hv Hfits Hinner Hout.
  rewrite rdr_Rd, (infer_tm_complete _ _ _ HL).
  set (val := fun x => den ρ (θ x)) in *.
  destruct Hout as [F [r [Hr E]]].
  split; [exact F|]. exists r. split; [|exact E].
  eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
  intros y Hy. unfold G. f_equal.
  set (e := benv (length As) val y).
  assert (He : env_fits (As ++ Γ0) e) by (apply benv_fits; auto).
  set (l := den e L). set (u := den e M).
  destruct (Hfits e He) as [Hu Hl]. fold u in Hu. fold l in Hl.
  set (ρ' := scons u (scons l e)).
  assert (Hv' : env_fits (A :: As ++ Γ0) (fun x => den ρ' (rd_inner_subst x))).
  { intros [|x] C Hx; simpl in *; [congruence|]. apply He; auto. }
  pose proof (Hinner ρ' Hv' Hu) as Hin.
  pose proof (rd_core d (As ++ Γ0) ρ' A B (Var 0) N rd_inner_subst Hv' Hu Hin) as Hc.
  transitivity (den ρ' (Proj 0 (rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N))).
  { rewrite !den_Let. unfold ρ', u, l. f_equal. f_equal. apply den_shift. }
  etransitivity; [exact Hc|]. transitivity (rd_den u l (fun a => den (scons a e) N)); [|reflexivity].
  apply rd_den_ext. intros a. apply den_ext. intros [|x]; reflexivity.
Qed.

(** The point [V/x] of the [rd] step. *)
Lemma env_fits_point Γ ρ A V : env_fits Γ ρ -> fits A (den ρ V) ->
  env_fits ([A] ++ Γ) (fun x => den ρ (list_subst [V] x)).
Proof.
  intros Hρ HV [|x] C Hx; simpl in *; [injection Hx as <-; exact HV|].
  unfold list_subst. simpl. destruct x; simpl; apply Hρ; auto.
Qed.

(** The [rd] step from the soundness of the one-variable rewriting at the
    point [V/x] ([rd_core]). *)
Lemma rd_step_from d Γ ρ A B W V N :
  env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  rd_ok [A] B (fun x => den ρ (list_subst [V] x)) N (den ρ (rdr d Γ [A] (list_subst [V] ) W N)) (den ρ W) ->
  den ρ (Proj 0 (rdr d Γ [A] (list_subst [V]) W N)) = den ρ (Rd W N V).
Proof.
  intros Hρ HV HW Hok.
  etransitivity; [apply (rd_core d Γ ρ A B W N (list_subst [V]) (env_fits_point Γ ρ A V Hρ HV) HW Hok)|].
  transitivity (rd_den (den ρ W) (den ρ V) (fun a => den (scons a ρ) N)); [|reflexivity].
  apply rd_den_ext. intros a. apply den_ext. intros [|x]; [reflexivity|].
  unfold list_subst. simpl. destruct x; reflexivity.
Qed.

(** ** The rewriting of a body with plain smooth primitives satisfies [okt] *)
Fixpoint smooth0 (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => fst f = 0%nat /\ smooth_prim (snd f) = true /\ prim_ok (snd f) = true /\ smooth0 M
  | Add M1 M2 => smooth0 M1 /\ smooth0 M2
  | Tuple Ms => fold_right and True (map smooth0 Ms)
  | Proj _ M => smooth0 M
  | Let M N => smooth0 M /\ smooth0 N
  | Rd _ _ _ => False
  end.

Lemma smooth0_tuple Ms : smooth0 (Tuple Ms) <-> Forall smooth0 Ms.
Proof. apply fold_and_Forall. Qed.

Lemma smooth0_okt M : smooth0 M -> okt M.
Proof.
  tm_induction M; simpl; intros H; auto; try tauto.
  - destruct f as [k p]. simpl in H. destruct H as [-> [Hs [Hok HM]]]. split; auto. apply good_smooth; auto.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
Qed.

Lemma okt_ren M : forall ξ, okt M -> okt (ren_tm ξ M).
Proof.
  tm_induction M; intros ξ H.
  - exact I.
  - exact H.
  - destruct H. split; auto.
  - destruct H. split; auto.
  - apply okt_tuple in H. simpl ren_tm. apply okt_tuple. apply Forall_forall. intros M' HM'.
    rewrite Forall_forall in H, IH.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - apply IH. exact H.
  - destruct H. split; auto.
  - destruct H.
Qed.

Lemma okt_subst M : forall σ, (forall x, okt (σ x)) -> okt M -> okt (subst_tm σ M).
Proof.
  tm_induction M; intros σ Hσ H.
  - apply Hσ.
  - exact H.
  - destruct H. split; auto.
  - destruct H. split; auto.
  - apply okt_tuple in H. simpl subst_tm. apply okt_tuple. apply Forall_forall. intros M' HM'.
    rewrite Forall_forall in H, IH.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - apply IH; auto.
  - destruct H as [H1 H2]. split; auto. apply IHN; auto. intros [|x]; simpl; auto. apply okt_ren. auto.
  - destruct H.
Qed.

(** [okt] is closed under the rewriting's building blocks ([tmclosed.v]). *)
Lemma okt_closed : closed okt.
Proof.
  split; cbn [okt]; intros; try tauto.
  - apply okt_tuple. auto.
  - apply okt_ren. auto.
Qed.

Lemma okt_zero A : okt (zero A).
Proof. exact (closed_zero _ okt_closed (fun b => repeat_length _ _) A). Qed.

Lemma okt_plus A M N : okt M -> okt N -> okt (plus A M N).
Proof. exact (closed_plus _ okt_closed A M N). Qed.

Lemma okt_onehot As i W : okt W -> okt (onehot As i W).
Proof. exact (closed_onehot _ okt_closed (fun b => repeat_length _ _) As i W). Qed.

Lemma okt_sum_tms A Ms : Forall okt Ms -> okt (sum_tms A Ms).
Proof. exact (closed_sum_tms _ okt_closed (fun b => repeat_length _ _) A Ms). Qed.

Lemma okt_rdr0 Γf N B : typed_tm Γf N B -> smooth0 N ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W, (forall x, okt (θ x)) -> okt W ->
  okt (rdr 0 Γ0 As θ W N).
Proof.
  intros HN; elim HN using typed_tm_ind'; clear Γf N B HN.
  - (* Var *) intros Γf x A Hx _ As Γ0 -> θ W Hθ HW. rewrite rdr_Var.
    destruct (Nat.ltb x (length As)); [apply okt_onehot; auto|apply okt_zero].
  - (* Const *) intros. rewrite rdr_Const. apply okt_zero.
  - (* App *) intros Γf [k p] M HM IH [Hk [Hs [Hok HoM]]] As Γ0 -> θ W Hθ HW. simpl in Hk, Hs, Hok.
    subst k. rewrite rdr_App. simpl. split.
    + split; [apply (good_smooth 1 p); auto|]. split; [|split; auto].
      apply okt_subst; auto. apply smooth0_okt; auto.
    + apply IH; auto; [|exact I]. intros x. apply okt_ren. auto.
  - (* Add *) intros Γf M1 M2 b H1 IH1 H2 IH2 [Ho1 Ho2] As Γ0 -> θ W Hθ HW. rewrite rdr_Add.
    apply okt_plus; auto.
  - (* Tuple *) intros Γf Ms Bs HF IH Ho As Γ0 -> θ W Hθ HW. apply smooth0_tuple in Ho. rewrite rdr_Tuple.
    apply okt_sum_tms.
    assert (Hg : forall Ms' (Bs' : list ty) i, Forall2 (fun M (B : ty) => smooth0 M -> forall As0 Γ1, As ++ Γ0 = As0 ++ Γ1 ->
        forall θ W, (forall x, okt (θ x)) -> okt W -> okt (rdr 0 Γ1 As0 θ W M)) Ms' Bs' ->
      Forall smooth0 Ms' -> Forall okt (rdr_tuple (rdr 0 Γ0 As θ) W i Ms')).
    { intros Ms' Bs' i HI. revert i. induction HI as [|M B Ms' Bs' HMB HF' IHl]; intros i Ho';
        simpl; constructor; inversion Ho'; subst.
      - apply HMB; auto.
      - apply IHl; auto. }
    apply (Hg Ms Bs 0%nat IH Ho).
  - (* Proj *) intros Γf M Bs i A HM IH Hi Ho As Γ0 -> θ W Hθ HW.
    rewrite rdr_Proj, (infer_tm_complete _ _ _ HM). apply IH; auto. apply okt_onehot. auto.
  - (* Let *) intros Γf M N A' B HM IHM HN IHN [HoM HoN] As Γ0 -> θ W Hθ HW.
    rewrite rdr_Let, (infer_tm_complete _ _ _ HM). cbn [okt]. split; [apply okt_subst; auto; apply smooth0_okt; auto|].
    split.
    + apply (IHN HoN (A' :: As) Γ0 eq_refl); [|apply okt_ren; auto].
      intros [|x]; simpl; auto. apply okt_ren. auto.
    + apply okt_plus.
      * apply okt_tuple. rewrite Forall_forall. intros M' HM'. apply in_map_iff in HM'.
        destruct HM' as [j [<- _]]. simpl. auto.
      * apply IHM; auto; [|exact I]. intros x. apply okt_ren, okt_ren. auto.
  - (* Rd *) intros. simpl in *. tauto.
Qed.

(** ** Bodies with [rd] inside, of depth one *)
(** The bodies treated: as [okt], but an [rd] may occur, whose cotangent
    and point are [okt] and whose body has plain smooth primitives
    ([smooth0]). *)
Fixpoint okn (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => good f /\ okn M
  | Add M1 M2 => okn M1 /\ okn M2
  | Tuple Ms => fold_right and True (map okn Ms)
  | Proj _ M => okn M
  | Let M N => okn M /\ okn N
  | Rd M N L => okt M /\ smooth0 N /\ okt L
  end.

Lemma okn_tuple Ms : okn (Tuple Ms) <-> Forall okn Ms.
Proof. apply fold_and_Forall. Qed.

Lemma okn_rd_depth M : okn M -> (rd_depth M <= 1)%nat.
Proof.
  tm_induction M; simpl; intros H; try lia.
  - apply IH. tauto.
  - destruct H. specialize (IH1 H). specialize (IH2 H0). lia.
  - unfold list_max'. induction IH as [|M Ms HM HMs IHl]; simpl in *; [lia|].
    destruct H as [H1 H2]. specialize (HM H1). specialize (IHl H2). lia.
  - auto.
  - destruct H. specialize (IHM H). specialize (IHN H0). lia.
  - destruct H as [H1 [H2 H3]]. apply le_n_S.
    apply Nat.max_lub; [|apply Nat.max_lub]; apply Nat.eq_le_incl.
    + exact (okt_rd_depth M H1).
    + exact (okt_rd_depth N (smooth0_okt N H2)).
    + exact (okt_rd_depth L H3).
Qed.

Lemma okt_okn M : okt M -> okn M.
Proof.
  tm_induction M; cbn [okt okn]; intros H; try tauto.
  - apply okn_tuple. apply okt_tuple in H. rewrite Forall_forall in IH, H |- *. auto.
Qed.

Lemma okn_sub M : okn M -> ok_step okn M.
Proof. destruct M; simpl; intros H; auto. apply okn_tuple. exact H. Qed.

Lemma den_fits_n Γ M A : typed_tm Γ M A -> okn M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM Ho. refine (den_fits_env (fun _ M => okn M) _ _ Γ M A HM (fun _ => RNode []) Ho).
  - apply ok_step_env_of, okn_sub.
  - intros val M' N L [_ [_ HL]]. apply okt_okn. exact HL.
Qed.

(** The rewriting of a body of depth one denotes a reverse derivative of
    the body. *)
Theorem rdr_sound_depth1 Γf N B : typed_tm Γf N B -> okn N ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr 1 Γ0 As θ W N)) (den ρ W).
(** Informal proof: [rdr_sound_gen] at the level 1 for [okn], which asks
    [ok_step] of the subterms ([okn_sub]) and gives the shape of the type
    ([den_fits_n]), so every case is that of [rdr_sound_rdfree] but R-Rd:
    [W.R_θ(x⃗. M.rd(y.N)(L))] is the rewriting [W.R_θ(x⃗.T)] of the
    [rd]-free [T := let l ← L in let u ← M in u.R_l(y.N)], which satisfies
    [okt] ([okt_rdr0]: the inner rewriting applies [rd[p]] for the plain
    [p] of [N]), so [rdr_sound_rdfree] gives a reverse derivative of [T]
    read as a map of the block; and [T] denotes [M.rd(y.N)(L)] in every
    environment ([rd_core] with [rdr_sound_rdfree] for the inner
    rewriting), so that is one of [M.rd(y.N)(L)]. *)
Proof.
  intros HN Ho. refine (rdr_sound_gen 1 okn okn_sub den_fits_n _ Γf N B HN Ho).
  clear Γf N B HN Ho.
  (* R-Rd *)
  intros Γf M N' L A B HM HN HL [HoM [HpN HoL]] As Γ0 E θ W ρ Hv HW. subst Γf.
  set (T := Let L (Let (shift M) (Proj 0 (rdr 0 (As ++ Γ0) [A] rd_inner_subst (Var 0) N')))).
  assert (HT : typed_tm (As ++ Γ0) T A) by (apply rd_body_typed with B; auto).
  assert (HoT : okt T).
  { unfold T. cbn [okt]. split; [exact HoL|]. split; [apply okt_ren; exact HoM|].
    apply (okt_rdr0 _ N' B HN HpN [A] (As ++ Γ0) eq_refl); [|exact I]. intros [|x]; exact I. }
  apply (rd_case_from 0 _ M N' L A B As Γ0 θ W ρ HM HN HL eq_refl Hv).
  - intros e He. split; eapply den_fits; eauto.
  - intros ρ' Hv' Hu. apply (rdr_sound_rdfree _ N' B HN (smooth0_okt _ HpN) [A] (As ++ Γ0) eq_refl); auto.
  - exact (rdr_sound_rdfree _ T A HT HoT As Γ0 eq_refl θ W ρ Hv HW).
Qed.

(** The soundness of the [rd] step for bodies of depth one: for
    [x:A, Γ ⊢ N : B] with [okn N] (an [rd] inside has [okt] cotangent and
    point and a body with plain smooth primitives),
    [⟦W.R_V(x.N)⟧ρ = ⟦W.rd(x.N)(V)⟧ρ]. *)
Theorem rd_step_sound_depth1 Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> okn N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: the rewriting at the bound [rd_depth N] is the one at
    the bound 1 ([rd_rewrite_enough], [okn_rd_depth]); [rdr_sound_depth1]
    with [As = [A]], [θ = V/x] and [rd_step_from]. *)
Proof.
  intros HN Ho Hρ HV HW.
  transitivity (den ρ (Proj 0 (rdr 1 Γ [A] (list_subst [V]) W N))).
  { f_equal. symmetry. apply rd_rewrite_enough. apply okn_rd_depth. auto. }
  apply rd_step_from with B; auto.
  exact (rdr_sound_depth1 _ N B HN Ho [A] Γ eq_refl _ W ρ (env_fits_point Γ ρ A V Hρ HV) HW).
Qed.

(** The hypotheses are met by a body with [rd] inside: for
    [N = x.rd(y.swish_3(y))(x)] ([rd[swish]] at [x] with cotangent [x]),
    every point and cotangent of [Real(3)],
    [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧], a second derivative of [swish]. *)
Example rd_step_sound_nested ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Var 0) (App (0%nat, PSwish 3%nat) (Var 0)) (Var 0) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hw N. apply rd_step_sound_depth1 with (B := @TBase Rsorts4 3%nat).
  3-5: rd_sides Hv Hw.
  - unfold N. apply typed_tm_rd with (B := @TBase Rsorts4 3%nat).
    + constructor. reflexivity.
    + typed_app.
      constructor. reflexivity.
    + constructor. reflexivity.
  - simpl. repeat split; reflexivity.
Qed.

(** ** Every step of the term semantics *)
#[local] Instance Ea : evaluator := exec_evaluator Rvo.

(** Every step of a well-typed closed term keeps its denotation, given
    the soundness of the [rd] step for the bodies [okb] and the shapes of
    the points and cotangents [okv]; the theorems below and
    [step_tm_den_all] ([rdsound_all.v]) are its instances. *)
Lemma step_tm_den_via (okb okv : tm -> Prop) ρ K M0 M0' C :
  (forall Γ ρ A B W V N, typed_tm (A :: Γ) N B -> okb N -> env_fits Γ ρ ->
     fits A (den ρ V) -> fits B (den ρ W) -> den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V)) ->
  (forall M A, typed_tm [] M A -> okv M -> fits A (den ρ M)) ->
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> okb N /\ okv V /\ okv W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: the redex has a type ([fill_ectx_typed]) and the
    context keeps equal denotations ([den_fill_ectx]); an [rd] redex is
    the hypothesis, the others [head_step_den]. *)
Proof.
  intros Hrd Hfits HT Hs Hok. destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB _]].
  apply den_fill_ectx.
  assert (Hc : (exists W N V, M0 = Rd W N V) \/ (forall W N V, M0 <> Rd W N V)).
  { destruct M0; try (right; intros; discriminate). left; eauto. }
  destruct Hc as [[W [N [V ->]]]|Hn].
  - destruct (Hok W N V eq_refl) as [HoN [HoV HoW]].
    inversion Hs as [| | | |? ? ? A HW HV HA]; subst.
    inversion HB; subst.
    match goal with HTV : typed_tm [] V _ |- _ => rewrite (infer_tm_complete _ _ _ HTV) in HA; injection HA as <- end.
    match goal with HTN : typed_tm (?A2 :: []) N ?B1 |- _ =>
      symmetry; apply (Hrd [] ρ A2 B1 W V N HTN) end; auto.
    intros x D Hx. destruct x; discriminate.
  - eapply head_step_den; eauto.
Qed.

Lemma den_fits_closed ρ M A : typed_tm [] M A -> okt M -> fits A (den ρ M).
Proof. intros HM Ho. eapply den_fits; eauto. intros x D Hx. destruct x; discriminate. Qed.

(** Every step of a well-typed closed term keeps its denotation, the [rd]
    step included when the body of the [rd] redex is [rd]-free and
    satisfies [okt], and the constants of its point and cotangent have the
    lengths of their types. *)
Theorem step_tm_den_rdfree ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> okt N /\ okt V /\ okt W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: [step_tm_den_via] with [rd_step_sound_rdfree]. *)
Proof. apply step_tm_den_via; [apply rd_step_sound_rdfree|apply den_fits_closed]. Qed.

(** The same with [rd] redexes whose bodies have [rd]-depth one ([okn]). *)
Theorem step_tm_den_depth1 ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> okn N /\ okt V /\ okt W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: [step_tm_den_via] with [rd_step_sound_depth1]. *)
Proof. apply step_tm_den_via; [apply rd_step_sound_depth1|apply den_fits_closed]. Qed.
End derived.

(** Bodies with smooth primitives: no [rd] inside, constants of the length
    of their type, primitives [rd^k[p]] with [p] smooth, [prim_ok p] and
    [k ≤ 1]. *)
Fixpoint smooth_body (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => (fst f <= 1)%nat /\ smooth_prim (snd f) = true /\ prim_ok (snd f) = true /\ smooth_body M
  | Add M1 M2 => smooth_body M1 /\ smooth_body M2
  | Tuple Ms => fold_right and True (map smooth_body Ms)
  | Proj _ M => smooth_body M
  | Let M N => smooth_body M /\ smooth_body N
  | Rd _ _ _ => False
  end.

Lemma smooth_body_okt M : smooth_body M -> okt M.
Proof.
  tm_induction M; simpl; intros H; auto; try tauto.
  - destruct f as [k p]. simpl in H. destruct H as [Hk [Hs [Hok HM]]]. split; auto. apply good_smooth; auto.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
Qed.

Section smoothsteps.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σq : signature := exec_signature Rvo decls locs.

(** The soundness of the [rd] step for bodies with smooth primitives, with
    no hypothesis on the primitives left. *)
Corollary rd_step_sound_smooth Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> smooth_body N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
Proof. intros HN Hp. apply (rd_step_sound_rdfree decls locs); auto. apply smooth_body_okt; auto. Qed.

#[local] Instance Es : evaluator := exec_evaluator Rvo.

(** Every step of a well-typed closed term keeps its denotation when the
    body, point and cotangent of its [rd] redex satisfy [smooth_body]. *)
Corollary step_tm_den_smooth ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> smooth_body N /\ smooth_body V /\ smooth_body W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
Proof.
  intros HT Hs Hp. apply (step_tm_den_rdfree decls locs ρ K M0 M0' C HT Hs).
  intros W N V E. destruct (Hp W N V E) as [H1 [H2 H3]]. split; [|split]; apply smooth_body_okt; auto.
Qed.
(** The hypotheses are met: for [N = let p ← <x, x> in mul_3(p)] (the
    square of [x : Real(3)], through [let], a tuple and a primitive of two
    arguments), every point and cotangent of [Real(3)],
    [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]. *)
Example rd_step_sound_square ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat ->
  let N := Let (Tuple [Var 0; Var 0]) (App (0%nat, PMul 3%nat) (Var 0)) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hw N. apply rd_step_sound_smooth with (B := @TBase Rsorts4 3%nat).
  3-5: rd_sides Hv Hw.
  - unfold N. econstructor.
    + constructor. repeat constructor.
    + match goal with |- typed_tm ?G (App ?f ?M) ?T => assert (E : T = fsym_cod f) by reflexivity; rewrite E; apply typed_tm_app end. constructor. reflexivity.
  - simpl. repeat split; lia.
Qed.

(** ** The evaluation of [W.rd(x.N)(V)]

    Its first step goes to [W.R_V(x.N)] ([head_step_tm_rd]), whose
    denotation is that of [W.rd(x.N)(V)] ([rd_step_sound_rdfree]); the
    rewriting of an [rd]-free body is [rd]-free ([rdr_depth]), and every
    later step keeps the denotation ([step_tm_den], [rd]-freeness being
    kept by the steps, [step_tm_tdec]).  So whatever [W.R_V(x.N)]
    evaluates to, in particular the value it ends with, denotes the real
    reverse derivative [⟦W.rd(x.N)(V)⟧] ([rd_eval_den]). *)
#[local] Instance Eeok : evaluator_ok := exec_evaluator_ok Rvo decls locs.

Lemma rd_depth_fill_frame F M : (rd_depth M <= rd_depth (fill_frame F M))%nat.
Proof.
  destruct F; simpl; try lia. rewrite map_app, list_max'_app. simpl. unfold list_max' at 2. simpl. lia.
Qed.

Lemma rd_depth_fill K M : (rd_depth M <= rd_depth (fill_ectx K M))%nat.
Proof.
  revert M. induction K as [|F K IH]; intros M; simpl; [lia|].
  eapply Nat.le_trans; [apply (rd_depth_fill_frame F M)|apply IH].
Qed.

(** Every evaluation of a closed well-typed [rd]-free term keeps its
    denotation. *)
Theorem steps_den_rdfree ρ M M' A :
  typed_tm [] M A -> rd_depth M = 0%nat -> clos_refl_trans_1n tm step_tm M M' -> den ρ M = den ρ M'.
(** Informal proof: by induction on the evaluation; each step keeps the
    type ([step_tm_preservation]), does not increase the [rd]-depth
    ([step_tm_tdec]), and has a redex that is not an [rd] (the term is
    [rd]-free, [rd_depth_fill]), so it keeps the denotation
    ([step_tm_den_rdfree]). *)
Proof.
  intros HT Hd Hs. revert A HT Hd. induction Hs as [|M M1 M' Hstep Hs IH]; intros A HT Hd; [reflexivity|].
  pose proof (step_tm_preservation _ _ _ HT Hstep) as HT1.
  pose proof (step_tm_tdec _ _ _ HT Hstep) as [Hd1 _].
  assert (Hd1' : rd_depth M1 = 0%nat).
  { apply Nat.le_0_r. eapply Nat.le_trans; [exact Hd1|]. apply Nat.eq_le_incl. exact Hd. }
  rewrite <- (IH A HT1 Hd1').
  destruct Hstep as [K M0 M0' M2 M2' _ -> -> Hhead].
  apply (step_tm_den_rdfree decls locs ρ K M0 M0' A HT Hhead).
  intros W N V ->. pose proof (rd_depth_fill K (Rd W N V)) as Hle. simpl in Hle.
  exfalso. eapply Nat.nle_succ_0. eapply Nat.le_trans; [exact Hle|]. apply Nat.eq_le_incl. exact Hd.
Qed.

(** Whatever [W.R_V(x.N)] evaluates to denotes [⟦W.rd(x.N)(V)⟧], for a
    closed [W.rd(x.N)(V)] with an [rd]-free body satisfying [okt]. *)
Theorem rd_eval_den ρ W N V A B M' :
  typed_tm [] W B -> typed_tm [A] N B -> typed_tm [] V A -> okt N -> okt V -> okt W ->
  clos_refl_trans_1n tm step_tm (rd_rewrite [] A W V N) M' ->
  den ρ M' = den ρ (Rd W N V).
(** Informal proof: [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]
    ([rd_step_sound_rdfree]); [W.R_V(x.N)] is well typed
    ([rd_rewrite_typed]) and [rd]-free ([rdr_depth]: the body, [V] and [W]
    are), so [steps_den_rdfree] applies. *)
Proof.
  intros HW HN HV HoN HoV HoW Hs.
  assert (Hρ : env_fits [] ρ) by (intros x D Hx; destruct x; discriminate).
  transitivity (den ρ (rd_rewrite [] A W V N)).
  2: { apply (rd_step_sound_rdfree decls locs [] ρ A B W V N HN HoN Hρ); eapply den_fits; eauto. }
  symmetry. apply (steps_den_rdfree ρ _ _ A); auto.
  - apply rd_rewrite_typed with B; auto.
  - unfold rd_rewrite. simpl. rewrite (okt_rd_depth N HoN).
    assert (Hθ : rd_free (list_subst [V])).
    { intros [|x]; simpl; [apply okt_rd_depth; auto|destruct x; reflexivity]. }
    pose proof (rdr_depth 0 N [] [A] (list_subst [V]) W ltac:(rewrite (okt_rd_depth N HoN); lia) Hθ) as Hd.
    rewrite (okt_rd_depth N HoN), (okt_rd_depth W HoW) in Hd.
    apply Nat.le_0_r. eapply Nat.le_trans; [exact Hd|]. simpl. lia.
Qed.
End smoothsteps.

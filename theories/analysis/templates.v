(** * Reverse derivatives of linear and bilinear maps, in the shape of the
    instance ([instance.v], [linear] and [bilinear])

    A primitive of several arguments is a map of the flat vector of its
    leaves ([ℝ^{p+q}] for two arguments of dimensions [p] and [q]).
    [proj k d v] is the leaf of dimension [d] at offset [k].

    - A linear [L : ℝⁿ → ℝᵐ] with adjoint [Lᵀ]: [rd[L](x, g) = Lᵀ g],
      [rd²[L]((x, g), c) = (0, L c)].
    - A bilinear [B : ℝᵖ × ℝ^q → ℝʳ] with adjoints [P(g, b)] (in [a]) and
      [Q(a, g)] (in [b]): [rd[B]((a, b), g) = (P(g, b), Q(a, g))] and
      [rd²[B](((a, b), g), (ca, cb)) = ((P(g, cb), Q(ca, g)), B(ca, b) + B(a, cb))].

    For each, [rd[f]] is the reverse derivative of [f] and [rd²[f]] that of
    [rd[f]], everywhere. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers.Analysis Require Import vec.
Import ListNotations.
Open Scope R_scope.

Definition proj (k d : nat) (v : vec) : vec := firstn d (skipn k v).

Lemma length_proj k d v : (k + d <= length v)%nat -> length (proj k d v) = d.
Proof. intros H. unfold proj. rewrite firstn_length, skipn_length. lia. Qed.

Lemma lin_proj n k d : (k + d <= n)%nat -> lin n d (proj k d).
Proof.
  intros H. constructor.
  - intros v Hv. apply length_proj. lia.
  - intros. unfold proj. rewrite skipn_vp, firstn_vp. reflexivity.
  - intros. unfold proj. rewrite skipn_vs, firstn_vs. reflexivity.
Qed.

Lemma proj_app_l k d (u w : vec) : (k + d <= length u)%nat -> proj k d (u ++ w) = proj k d u.
Proof.
  intros H. unfold proj. rewrite skipn_app.
  replace (k - length u)%nat with 0%nat by lia. simpl.
  rewrite firstn_app. rewrite skipn_length. replace (d - (length u - k))%nat with 0%nat by lia.
  simpl. apply app_nil_r.
Qed.

Lemma proj_app_r k d (u w : vec) : length u = k -> proj k d (u ++ w) = firstn d w.
Proof. intros H. unfold proj. rewrite skipn_app_exact; auto. Qed.

Lemma proj_app_r' k d (u w : vec) : (length u <= k)%nat -> proj k d (u ++ w) = proj (k - length u) d w.
Proof. intros H. unfold proj. rewrite skipn_app. rewrite skipn_all2 by lia. reflexivity. Qed.

Lemma proj_all k d (v : vec) : length v = (k + d)%nat -> proj k d v = skipn k v.
Proof. intros H. unfold proj. apply firstn_all2. rewrite skipn_length. lia. Qed.

Lemma split2 p q (h : vec) : length h = (p + q)%nat -> h = proj 0 p h ++ proj p q h.
Proof.
  intros H. unfold proj. simpl. rewrite (firstn_all2 (n := q)).
  - symmetry. apply firstn_skipn.
  - rewrite skipn_length. lia.
Qed.

Lemma skipn_skipn' (v : vec) a b : skipn a (skipn b v) = skipn (a + b) v.
Proof.
  revert v; induction b as [|b IH]; intros v.
  - rewrite Nat.add_0_r. reflexivity.
  - destruct v as [|x v]; simpl.
    + rewrite !skipn_nil. reflexivity.
    + rewrite Nat.add_succ_r. simpl. apply IH.
Qed.

Lemma split3 p q r (h : vec) : length h = (p + q + r)%nat ->
  h = proj 0 p h ++ proj p q h ++ proj (p + q) r h.
Proof.
  intros H. unfold proj. simpl. rewrite (firstn_all2 (n := r)) by (rewrite skipn_length; lia).
  rewrite <- (firstn_skipn p h) at 1. f_equal.
  replace (p + q)%nat with (q + p)%nat by lia. rewrite <- skipn_skipn'.
  symmetry. apply firstn_skipn.
Qed.

Lemma dot_proj2 p q h y : length h = (p + q)%nat -> length y = (p + q)%nat ->
  dot h y = dot (proj 0 p h) (proj 0 p y) + dot (proj p q h) (proj p q y).
Proof.
  intros Hh Hy. rewrite (split2 p q h) at 1 by auto. rewrite (split2 p q y) at 1 by auto.
  apply dot_app. rewrite !length_proj; lia.
Qed.

Lemma dot_split2 p q h u w : length h = (p + q)%nat -> length u = p ->
  dot h (u ++ w) = dot (proj 0 p h) u + dot (proj p q h) w.
Proof.
  intros Hh Hu. rewrite (split2 p q h) at 1 by auto. apply dot_app. rewrite length_proj; lia.
Qed.

Lemma dot_split3 p q r h u w z : length h = (p + q + r)%nat -> length u = p -> length w = q ->
  dot h (u ++ w ++ z) = dot (proj 0 p h) u + dot (proj p q h) w + dot (proj (p + q) r h) z.
Proof.
  intros Hh Hu Hw. rewrite (split3 p q r h) at 1 by auto.
  rewrite dot_app by (rewrite length_proj; lia). rewrite dot_app by (rewrite length_proj; lia). ring.
Qed.

Lemma has_deriv_proj n k d x : (k + d <= n)%nat -> length x = n -> has_deriv n d (proj k d) x (proj k d).
Proof. intros. apply has_deriv_lin; auto. apply lin_proj. auto. Qed.

(** ** Linear maps *)
Section linear.
Variables (n m : nat) (L Lt : vec -> vec).
Hypotheses (HL : lin n m L) (HLt : lin m n Lt)
  (Hadj : forall h y, length h = n -> length y = m -> dot (L h) y = dot h (Lt y)).

Definition lin1 (v : vec) : vec := Lt (proj n m v).
Definition lin2 (v : vec) : vec := zeros n ++ L (proj (n + m) n v).

Lemma linear_rd0 x : length x = n -> is_rev_deriv n m L x (fun y => lin1 (x ++ y)).
Proof.
  intros Hx. exists L. split; [apply has_deriv_lin; auto|]. unfold lin1. split.
  - intros y Hy. rewrite proj_app_r, firstn_all2 by lia. apply HLt. auto.
  - intros h y Hh Hy. rewrite proj_app_r, firstn_all2 by lia. auto.
Qed.

Lemma lin_lin1 : lin (n + m) n lin1.
Proof. apply (lin_comp _ m _ Lt (proj n m)); auto. apply lin_proj. lia. Qed.

Lemma linear_rd1 x : length x = (n + m)%nat -> is_rev_deriv (n + m) n lin1 x (fun c => lin2 (x ++ c)).
Proof.
  intros Hx. exists lin1. split; [apply has_deriv_lin; auto; apply lin_lin1|]. unfold lin2. split.
  - intros c Hc. rewrite app_length, length_zeros, (lin_len _ _ _ HL); auto.
    rewrite proj_app_r, firstn_all2 by lia. auto.
  - intros h c Hh Hc. rewrite proj_app_r, firstn_all2 by lia. unfold lin1.
    rewrite (dot_split2 n m) by (rewrite ?length_zeros; auto).
    rewrite dot_zeros_r, Rplus_0_l, dot_comm, <- Hadj, dot_comm; auto.
    apply length_proj. lia.
Qed.
End linear.

(** ** Bilinear maps *)
Section bilinear.
Variables (p q r : nat) (B P Q : vec -> vec -> vec).
Hypotheses (HB : bilin p q r B) (HP : bilin r q p P) (HQ : bilin p r q Q)
  (adjP : forall a b g, length a = p -> length b = q -> length g = r -> dot (B a b) g = dot a (P g b))
  (adjQ : forall a b g, length a = p -> length b = q -> length g = r -> dot (B a b) g = dot b (Q a g)).

Definition bil0 (v : vec) : vec := B (proj 0 p v) (proj p q v).
Definition bil1 (v : vec) : vec :=
  P (proj (p + q) r v) (proj p q v) ++ Q (proj 0 p v) (proj (p + q) r v).
Definition bil2 (v : vec) : vec :=
  let a := proj 0 p v in let b := proj p q v in let g := proj (p + q) r v in
  let ca := proj (p + q + r) p v in let cb := proj (p + q + r + p) q v in
  P g cb ++ Q ca g ++ vp (B ca b) (B a cb).

Lemma lenB a b : length a = p -> length b = q -> length (B a b) = r.
Proof. intros Ha Hb. apply (lin_len _ _ _ (bilin_r _ _ _ _ HB a Ha)). auto. Qed.
Lemma lenP g b : length g = r -> length b = q -> length (P g b) = p.
Proof. intros Ha Hb. apply (lin_len _ _ _ (bilin_r _ _ _ _ HP g Ha)). auto. Qed.
Lemma lenQ a g : length a = p -> length g = r -> length (Q a g) = q.
Proof. intros Ha Hb. apply (lin_len _ _ _ (bilin_r _ _ _ _ HQ a Ha)). auto. Qed.

Lemma bilinear_rd0 x : length x = (p + q)%nat ->
  is_rev_deriv (p + q) r bil0 x (fun g => bil1 (x ++ g)).
Proof.
  intros Hx.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ HB
                (has_deriv_proj (p + q) 0 p x ltac:(lia) Hx)
                (has_deriv_proj (p + q) p q x ltac:(lia) Hx)) as HD.
  eexists. split; [exact HD|]. unfold bil1.
  assert (E : forall g, length g = r ->
    P (proj (p + q) r (x ++ g)) (proj p q (x ++ g)) ++ Q (proj 0 p (x ++ g)) (proj (p + q) r (x ++ g))
    = P g (proj p q x) ++ Q (proj 0 p x) g).
  { intros g Hg. rewrite proj_app_r, firstn_all2 by lia. rewrite !proj_app_l by lia. reflexivity. }
  split.
  - intros g Hg. rewrite E by auto. rewrite app_length, lenP, lenQ; auto; apply length_proj; lia.
  - intros h g Hh Hg. rewrite E by auto.
    assert (Ha : length (proj 0 p h) = p) by (apply length_proj; lia).
    assert (Hb : length (proj p q h) = q) by (apply length_proj; lia).
    assert (Ha' : length (proj 0 p x) = p) by (apply length_proj; lia).
    assert (Hb' : length (proj p q x) = q) by (apply length_proj; lia).
    rewrite (dot_split2 p q) by (rewrite ?lenP; auto).
    rewrite dot_vp_l, adjP, adjQ; auto.
Qed.

Lemma bilinear_rd1 x : length x = (p + q + r)%nat ->
  is_rev_deriv (p + q + r) (p + q) bil1 x (fun c => bil2 (x ++ c)).
Proof.
  intros Hx.
  set (N := (p + q + r)%nat).
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ HP
                (has_deriv_proj N (p + q) r x ltac:(unfold N; lia) Hx)
                (has_deriv_proj N p q x ltac:(unfold N; lia) Hx)) as H1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ HQ
                (has_deriv_proj N 0 p x ltac:(unfold N; lia) Hx)
                (has_deriv_proj N (p + q) r x ltac:(unfold N; lia) Hx)) as H2.
  pose proof (has_deriv_pair _ _ _ _ _ _ _ _ H1 H2) as HD.
  eexists. split; [exact HD|]. unfold bil2.
  set (a := proj 0 p x). set (b := proj p q x). set (g := proj (p + q) r x).
  assert (Ha : length a = p) by (apply length_proj; lia).
  assert (Hb : length b = q) by (apply length_proj; lia).
  assert (Hg : length g = r) by (apply length_proj; lia).
  assert (E : forall c, length c = (p + q)%nat ->
    (let a0 := proj 0 p (x ++ c) in let b0 := proj p q (x ++ c) in let g0 := proj (p + q) r (x ++ c) in
     let ca := proj (p + q + r) p (x ++ c) in let cb := proj (p + q + r + p) q (x ++ c) in
     P g0 cb ++ Q ca g0 ++ vp (B ca b0) (B a0 cb))
    = P g (proj p q c) ++ Q (proj 0 p c) g ++ vp (B (proj 0 p c) b) (B a (proj p q c))).
  { intros c Hc. cbv zeta.
    rewrite (proj_app_l 0 p), (proj_app_l p q), (proj_app_l (p + q) r) by lia.
    rewrite (proj_app_r' (p + q + r) p), (proj_app_r' (p + q + r + p) q) by lia.
    replace (p + q + r - length x)%nat with 0%nat by lia.
    replace (p + q + r + p - length x)%nat with p by lia. reflexivity. }
  split.
  - intros c Hc. rewrite E by auto.
    assert (length (proj 0 p c) = p) by (apply length_proj; lia).
    assert (length (proj p q c) = q) by (apply length_proj; lia).
    rewrite !app_length, length_vp, lenP, lenQ, !lenB; auto. lia.
  - intros h c Hh Hc. rewrite E by auto.
    set (ha := proj 0 p h). set (hb := proj p q h). set (hg := proj (p + q) r h).
    set (ca := proj 0 p c). set (cb := proj p q c).
    assert (Hha : length ha = p) by (apply length_proj; lia).
    assert (Hhb : length hb = q) by (apply length_proj; lia).
    assert (Hhg : length hg = r) by (apply length_proj; lia).
    assert (Hca : length ca = p) by (apply length_proj; lia).
    assert (Hcb : length cb = q) by (apply length_proj; lia).
    rewrite (split2 p q c) at 1 by auto. fold ca cb.
    rewrite (dot_split3 p q r) by (rewrite ?lenP, ?lenQ; auto). fold ha hb hg.
    rewrite dot_app by (rewrite ?length_vp, ?lenP; auto; lia).
    rewrite !dot_vp_l, dot_vp_r.
    rewrite (dot_comm (P hg b)), <- (adjP ca b hg) by auto.
    rewrite (dot_comm (P g hb)), <- (adjP ca hb g), (adjQ ca hb g) by auto.
    rewrite (dot_comm (Q ha g)), <- (adjQ ha cb g), (adjP ha cb g) by auto.
    rewrite (dot_comm (Q a hg)), <- (adjQ a cb hg) by auto.
    rewrite (dot_comm hg (B ca b)), (dot_comm hg (B a cb)).
    ring.
Qed.
End bilinear.

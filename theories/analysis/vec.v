(** * Real vectors and the Fréchet derivative on ℝⁿ

    A vector of [ℝⁿ] is a list of [n] reals, as in the list model of the
    instance ([instance.v], [list_vec_ops]).  The operations below pad the
    shorter argument with zeros instead of truncating, so that their
    coordinates ([nth i _ 0]) are given by one equation with no side
    condition; on vectors of equal length they are the instance's
    operations ([vp_vadd] and friends in [prims.v]).

    The derivative is Fréchet's, on the 1-norm [‖v‖ = Σ |v_i|]:
    [has_deriv n m f x L] says that [L : ℝⁿ → ℝᵐ] is linear and
    [‖f(x+h) − f(x) − L h‖ ≤ ε‖h‖] for [‖h‖ < δ].  All norms of ℝⁿ being
    equivalent, the choice of norm does not change the notion.  On ℝ it is
    Coquelicot's [is_derive] ([has_deriv_is_derive]).

    [is_rev_deriv n m f x r] says that [f] is differentiable at [x] and
    that [r y = (J f(x))ᵀ y]: [⟨L h, y⟩ = ⟨h, r y⟩] for every [h], [y]. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
Import ListNotations.
Open Scope R_scope.

Definition vec := list R.

Fixpoint vp (u v : vec) : vec :=
  match u, v with
  | a :: u', b :: v' => a + b :: vp u' v'
  | [], _ => v
  | _, [] => u
  end.
Definition vs (a : R) (v : vec) : vec := map (Rmult a) v.
Definition vm (u v : vec) : vec := vp u (vs (-1) v).
Definition zeros (n : nat) : vec := repeat 0 n.

Definition norm1 (v : vec) : R := fold_right (fun a s => Rabs a + s) 0 v.

Fixpoint dot (u v : vec) : R :=
  match u, v with
  | a :: u', b :: v' => a * b + dot u' v'
  | _, _ => 0
  end.

Notation "v @@ i" := (nth i v 0) (at level 1, format "v @@ i").

(** ** Coordinates *)
Lemma nth_vp u v i : (vp u v)@@i = u@@i + v@@i.
Proof.
  revert v i. induction u as [|a u IH]; intros [|b v] [|i]; simpl; try lra; auto.
  
Qed.

Lemma nth_vs a v i : (vs a v)@@i = a * v@@i.
Proof.
  revert i. induction v as [|b v IH]; intros [|i]; simpl; try lra; auto.
Qed.

Lemma nth_vm u v i : (vm u v)@@i = u@@i - v@@i.
Proof. unfold vm. rewrite nth_vp, nth_vs. lra. Qed.

Lemma nth_zeros n i : (zeros n)@@i = 0.
Proof. revert i; induction n; intros [|i]; simpl; auto. Qed.

Lemma nth_app_lt (u v : vec) i : (i < length u)%nat -> (u ++ v)@@i = u@@i.
Proof. apply app_nth1. Qed.
Lemma nth_app_ge (u v : vec) i : (length u <= i)%nat -> (u ++ v)@@i = v@@(i - length u).
Proof. apply app_nth2. Qed.

Lemma length_vp u v : length (vp u v) = Nat.max (length u) (length v).
Proof. revert v; induction u; intros [|b v]; simpl; auto. Qed.
Lemma length_vs a v : length (vs a v) = length v.
Proof. apply map_length. Qed.
Lemma length_vm u v : length (vm u v) = Nat.max (length u) (length v).
Proof. unfold vm. rewrite length_vp, length_vs. reflexivity. Qed.
Lemma length_zeros n : length (zeros n) = n.
Proof. apply repeat_length. Qed.

Lemma vec_ext (u v : vec) : length u = length v -> (forall i, u@@i = v@@i) -> u = v.
Proof. intros Hl H. apply nth_ext with 0 0; auto. Qed.

(** Solve an equation between vectors of known lengths coordinatewise. *)
Ltac vec_lengths :=
  repeat (rewrite ?length_vp, ?length_vs, ?length_vm, ?length_zeros, ?app_length,
                  ?firstn_length, ?skipn_length in *); try lia.
Ltac vec_eq :=
  apply vec_ext; [vec_lengths | intros ?i; rewrite ?nth_vp, ?nth_vs, ?nth_vm, ?nth_zeros; try ring].

(** ** The 1-norm *)
Lemma norm1_nonneg v : 0 <= norm1 v.
Proof. induction v; simpl; [lra|]. pose proof (Rabs_pos a). lra. Qed.

Lemma norm1_hd_tl v : norm1 v = Rabs (v@@0) + norm1 (tl v).
Proof. destruct v; simpl; [rewrite Rabs_R0|]; lra. Qed.

Lemma nth_tl (v : vec) i : (tl v)@@i = v@@(S i).
Proof. destruct v; simpl; auto. destruct i; auto. Qed.

(** A coordinatewise bound gives the bound of the norms. *)
Lemma norm1_le2 u v w :
  (forall i, Rabs (u@@i) <= Rabs (v@@i) + Rabs (w@@i)) -> norm1 u <= norm1 v + norm1 w.
Proof.
  revert v w. induction u as [|a u IH]; intros v w H.
  - simpl. pose proof (norm1_nonneg v). pose proof (norm1_nonneg w). lra.
  - rewrite (norm1_hd_tl v), (norm1_hd_tl w). simpl.
    assert (Ha := H 0%nat). simpl in Ha.
    assert (norm1 u <= norm1 (tl v) + norm1 (tl w)).
    { apply IH. intros i. rewrite !nth_tl. apply (H (S i)). }
    lra.
Qed.

Lemma norm1_le1 u v c : 0 <= c -> (forall i, Rabs (u@@i) <= c * Rabs (v@@i)) -> norm1 u <= c * norm1 v.
Proof.
  intros Hc. revert v. induction u as [|a u IH]; intros v H.
  - simpl. pose proof (norm1_nonneg v). nra.
  - rewrite (norm1_hd_tl v). simpl.
    assert (Ha := H 0%nat). simpl in Ha.
    assert (norm1 u <= c * norm1 (tl v)).
    { apply IH. intros i. rewrite !nth_tl. apply (H (S i)). }
    lra.
Qed.

Lemma norm1_0 u : (forall i, u@@i = 0) -> norm1 u = 0.
Proof.
  intros H. apply Rle_antisym; [|apply norm1_nonneg].
  rewrite <- (Rmult_0_l (norm1 [])). apply norm1_le1; [lra|]. intros i. rewrite H, Rabs_R0.
  lra.
Qed.

Lemma norm1_vp u v : norm1 (vp u v) <= norm1 u + norm1 v.
Proof. apply norm1_le2. intros i. rewrite nth_vp. apply Rabs_triang. Qed.

Lemma norm1_vs a v : norm1 (vs a v) = Rabs a * norm1 v.
Proof. induction v; simpl; [ring|]. rewrite IHv, Rabs_mult. ring. Qed.

Lemma norm1_app u v : norm1 (u ++ v) = norm1 u + norm1 v.
Proof. induction u; simpl; lra. Qed.

Lemma norm1_firstn k v : norm1 (firstn k v) <= norm1 v.
Proof.
  rewrite <- (firstn_skipn k v) at 2. rewrite norm1_app. pose proof (norm1_nonneg (skipn k v)). lra.
Qed.
Lemma norm1_skipn k v : norm1 (skipn k v) <= norm1 v.
Proof.
  rewrite <- (firstn_skipn k v) at 2. rewrite norm1_app. pose proof (norm1_nonneg (firstn k v)). lra.
Qed.

Lemma norm1_nth_le v i : Rabs (v@@i) <= norm1 v.
Proof.
  revert i. induction v; intros [|i]; simpl; try (rewrite Rabs_R0; lra).
  - pose proof (norm1_nonneg v). lra.
  - specialize (IHv i). pose proof (Rabs_pos a). lra.
Qed.

(** ** Linear maps [ℝⁿ → ℝᵐ] *)
Definition maps (n m : nat) (f : vec -> vec) : Prop := forall v, length v = n -> length (f v) = m.

Record lin (n m : nat) (L : vec -> vec) : Prop := {
  lin_len : maps n m L;
  lin_add : forall h k, length h = n -> length k = n -> L (vp h k) = vp (L h) (L k);
  lin_scal : forall a h, length h = n -> L (vs a h) = vs a (L h);
}.

Lemma lin_sub n m L h k : lin n m L -> length h = n -> length k = n -> L (vm h k) = vm (L h) (L k).
Proof.
  intros HL Hh Hk. unfold vm. rewrite (lin_add _ _ _ HL), (lin_scal _ _ _ HL); auto.
  rewrite length_vs; auto.
Qed.

Lemma vs_nil a : vs a [] = [].
Proof. reflexivity. Qed.

(** Every linear map of ℝⁿ is bounded (by induction on [n]: [L(a::t) = a·L(e₀) + L(0::t)]). *)
Lemma lin_bounded n : forall m L, lin n m L ->
  exists C, 0 <= C /\ forall h, length h = n -> norm1 (L h) <= C * norm1 h.
Proof.
  induction n as [|n IH]; intros m L HL.
  - exists 0. split; [lra|]. intros h Hh. destruct h; [|discriminate].
    rewrite <- (vs_nil 0), (lin_scal _ _ _ HL) by reflexivity.
    rewrite norm1_vs, Rabs_R0. simpl. lra.
  - set (L' := fun t => L (0 :: t)).
    assert (HL' : lin n m L').
    { constructor; unfold L'.
      - intros v Hv. apply (lin_len _ _ _ HL). simpl. auto.
      - intros h k Hh Hk. rewrite <- (lin_add _ _ _ HL) by (simpl; auto). simpl. rewrite Rplus_0_l. reflexivity.
      - intros a h Hh. rewrite <- (lin_scal _ _ _ HL) by (simpl; auto). unfold vs. simpl. rewrite Rmult_0_r. reflexivity. }
    destruct (IH m L' HL') as [C' [HC' HB']].
    set (e := 1 :: zeros n).
    exists (norm1 (L e) + C'). split; [pose proof (norm1_nonneg (L e)); lra|].
    intros [|a t] Ht; [discriminate|]. simpl in Ht. injection Ht as Ht.
    assert (Hdec : a :: t = vp (vs a e) (0 :: t)).
    { apply vec_ext.
      - unfold e. simpl. rewrite length_vp, length_vs, length_zeros. lia.
      - intros [|i]; rewrite nth_vp, nth_vs; simpl; [ring|]. unfold zeros. rewrite nth_zeros. ring. }
    rewrite Hdec, (lin_add _ _ _ HL), (lin_scal _ _ _ HL).
    2: unfold e; simpl; rewrite length_zeros; auto.
    2: unfold e; rewrite length_vs; simpl; rewrite length_zeros; auto.
    2: simpl; auto.
    eapply Rle_trans; [apply norm1_vp|]. rewrite norm1_vs.
    assert (H1 : norm1 (L (0 :: t)) <= C' * norm1 t) by exact (HB' t Ht).
    change (norm1 (a :: t)) with (Rabs a + norm1 t).
    pose proof (Rabs_pos a). pose proof (norm1_nonneg t). pose proof (norm1_nonneg (L e)).
    pose proof (Rmult_le_pos _ _ H0 H). pose proof (Rmult_le_pos _ _ HC' H).
    rewrite <- Hdec. change (norm1 (a :: t)) with (Rabs a + norm1 t). nra.
Qed.

(** ** The derivative *)
Definition has_deriv (n m : nat) (f : vec -> vec) (x : vec) (L : vec -> vec) : Prop :=
  length x = n /\ maps n m f /\ lin n m L /\
  forall eps, 0 < eps -> exists delta, 0 < delta /\
    forall h, length h = n -> norm1 h < delta ->
      norm1 (vm (vm (f (vp x h)) (f x)) (L h)) <= eps * norm1 h.

(** [r y] is [(J f(x))ᵀ y]. *)
Definition is_rev_deriv (n m : nat) (f : vec -> vec) (x : vec) (r : vec -> vec) : Prop :=
  exists L, has_deriv n m f x L /\ maps m n r /\
    forall h y, length h = n -> length y = m -> dot (L h) y = dot h (r y).

Lemma maps_comp n m p f g : maps n m g -> maps m p f -> maps n p (fun v => f (g v)).
Proof. intros Hg Hf v Hv. auto. Qed.

Lemma lin_comp n m p f g : lin n m g -> lin m p f -> lin n p (fun v => f (g v)).
Proof.
  intros Hg Hf. constructor.
  - apply maps_comp with m; [apply Hg | apply Hf].
  - intros h k Hh Hk. rewrite (lin_add _ _ _ Hg), (lin_add _ _ _ Hf); auto; apply Hg; auto.
  - intros a h Hh. rewrite (lin_scal _ _ _ Hg), (lin_scal _ _ _ Hf); auto; apply Hg; auto.
Qed.

(** A linear map is its own derivative. *)
Lemma has_deriv_lin n m L x : lin n m L -> length x = n -> has_deriv n m L x L.
Proof.
  intros HL Hx. split; [auto|]. split; [apply HL|]. split; [auto|].
  intros eps Heps. exists 1. split; [lra|]. intros h Hh _.
  rewrite (lin_add _ _ _ HL) by auto. rewrite norm1_0.
  - pose proof (norm1_nonneg h). nra.
  - intros i. rewrite !nth_vm, !nth_vp. ring.
Qed.

Lemma vp_vm_cancel u v : length u = length v -> vp v (vm u v) = u.
Proof. intros H. vec_eq. Qed.

(** The chain rule. *)
Lemma has_deriv_comp n m p f g x Lf Lg :
  has_deriv n m g x Lg -> has_deriv m p f (g x) Lf ->
  has_deriv n p (fun v => f (g v)) x (fun h => Lf (Lg h)).
Proof.
  intros [Hx [Hg [HLg Dg]]] [_ [Hf [HLf Df]]].
  split; [auto|]. split; [apply maps_comp with m; auto|]. split; [apply lin_comp with m; auto|].
  destruct (lin_bounded _ _ _ HLg) as [Cg [HCg BCg]].
  destruct (lin_bounded _ _ _ HLf) as [Cf [HCf BCf]].
  intros eps Heps.
  set (ef := eps / (2 * (1 + Cg))).
  set (eg := Rmin 1 (eps / (2 * (1 + Cf)))).
  assert (Hef : 0 < ef) by (unfold ef; apply Rdiv_lt_0_compat; lra).
  assert (Heg : 0 < eg) by (unfold eg; apply Rmin_pos; [lra|apply Rdiv_lt_0_compat; lra]).
  destruct (Df ef Hef) as [df [Hdf Hf']].
  destruct (Dg eg Heg) as [dg [Hdg Hg']].
  exists (Rmin dg (df / (1 + Cg))). split.
  { apply Rmin_pos; auto. apply Rdiv_lt_0_compat; lra. }
  intros h Hh Hnh.
  assert (Hnh1 : norm1 h < dg) by (eapply Rlt_le_trans; [exact Hnh| apply Rmin_l]).
  assert (Hnh2 : norm1 h < df / (1 + Cg)) by (eapply Rlt_le_trans; [exact Hnh| apply Rmin_r]).
  set (k := vm (g (vp x h)) (g x)).
  assert (Hlx : length (vp x h) = n) by (rewrite length_vp; lia).
  assert (Hk : length k = m) by (unfold k; rewrite length_vm, (Hg _ Hlx), (Hg _ Hx); lia).
  assert (HLgh : length (Lg h) = m) by (apply HLg; auto).
  assert (Hgk : g (vp x h) = vp (g x) k).
  { unfold k. symmetry. apply vp_vm_cancel. rewrite (Hg _ Hlx), (Hg _ Hx). auto. }
  specialize (Hg' h Hh Hnh1). fold k in Hg'.
  assert (Hgeg : eg <= 1) by apply Rmin_l.
  assert (Hgeg' : eg <= eps / (2 * (1 + Cf))) by apply Rmin_r.
  pose proof (norm1_nonneg h) as Hh0.
  (* ‖k‖ ≤ (1 + Cg)‖h‖ *)
  assert (Hnk : norm1 k <= (1 + Cg) * norm1 h).
  { assert (norm1 k <= norm1 (vm k (Lg h)) + norm1 (Lg h)).
    { apply norm1_le2. intros i. rewrite nth_vm.
      replace (k@@i) with (k@@i - (Lg h)@@i + (Lg h)@@i) at 1 by ring. apply Rabs_triang. }
    specialize (BCg h Hh). nra. }
  assert (Hnk' : norm1 k < df).
  { eapply Rle_lt_trans; [exact Hnk|].
    apply Rmult_lt_reg_l with (/ (1 + Cg)); [apply Rinv_0_lt_compat; lra|].
    rewrite <- Rmult_assoc, Rinv_l, Rmult_1_l by lra. rewrite Rmult_comm. exact Hnh2. }
  specialize (Hf' k Hk Hnk'). rewrite <- Hgk in Hf'.
  specialize (BCf (vm k (Lg h))). rewrite (lin_sub _ _ _ _ _ HLf) in BCf by auto.
  specialize (BCf ltac:(rewrite length_vm; lia)).
  eapply Rle_trans.
  - apply (norm1_le2 _ (vm (vm (f (g (vp x h))) (f (g x))) (Lf k)) (vm (Lf k) (Lf (Lg h)))).
    intros i. rewrite !nth_vm.
    replace ((f (g (vp x h)))@@i - (f (g x))@@i - (Lf (Lg h))@@i)
      with ((f (g (vp x h)))@@i - (f (g x))@@i - (Lf k)@@i + ((Lf k)@@i - (Lf (Lg h))@@i))
      by ring.
    apply Rabs_triang.
  - assert (E1 : ef * norm1 k <= eps / 2 * norm1 h).
    { apply Rle_trans with (ef * ((1 + Cg) * norm1 h)).
      - apply Rmult_le_compat_l; lra.
      - unfold ef. right. field. lra. }
    assert (HCe : Cf * eg <= eps / 2).
    { apply Rle_trans with ((1 + Cf) * (eps / (2 * (1 + Cf)))).
      - apply Rmult_le_compat; lra.
      - right. field. lra. }
    assert (E2 : Cf * norm1 (vm k (Lg h)) <= eps / 2 * norm1 h).
    { apply Rle_trans with (Cf * (eg * norm1 h)).
      - apply Rmult_le_compat_l; lra.
      - rewrite <- Rmult_assoc. apply Rmult_le_compat_r; lra. }
    lra.
Qed.

(** Pairing: [v ↦ (f v, g v)] in [ℝᵐ × ℝᵖ = ℝ^{m+p}]. *)
Lemma vp_app u1 u2 v1 v2 : length u1 = length v1 -> vp (u1 ++ u2) (v1 ++ v2) = vp u1 v1 ++ vp u2 v2.
Proof. revert v1; induction u1; intros [|b v1] H; simpl in *; try discriminate; auto. f_equal. auto. Qed.
Lemma vs_app a u v : vs a (u ++ v) = vs a u ++ vs a v.
Proof. apply map_app. Qed.
Lemma vm_app u1 u2 v1 v2 : length u1 = length v1 -> vm (u1 ++ u2) (v1 ++ v2) = vm u1 v1 ++ vm u2 v2.
Proof. intros H. unfold vm. rewrite vs_app, vp_app; auto. rewrite length_vs. auto. Qed.

Lemma lin_pair n m p f g : lin n m f -> lin n p g -> lin n (m + p) (fun v => f v ++ g v).
Proof.
  intros Hf Hg. constructor.
  - intros v Hv. rewrite app_length, (lin_len _ _ _ Hf), (lin_len _ _ _ Hg); auto.
  - intros h k Hh Hk. rewrite (lin_add _ _ _ Hf), (lin_add _ _ _ Hg), vp_app; auto.
    rewrite !(lin_len _ _ _ Hf); auto.
  - intros a h Hh. rewrite (lin_scal _ _ _ Hf), (lin_scal _ _ _ Hg), vs_app; auto.
Qed.

(** The last part of [has_deriv] for a map built from two
    differentiable maps [f] and [g] (derivatives [Df], [Dg]): at [ε], the
    smaller of their radii at [ε/2], and each one's bound at [ε/2] for the
    increment [h] ([H1], [H2]). *)
Ltac deriv_halves Df Dg :=
  let eps := fresh "eps" in let Heps := fresh "Heps" in
  let d1 := fresh "d1" in let Hd1 := fresh "Hd1" in let H1 := fresh "H1" in
  let d2 := fresh "d2" in let Hd2 := fresh "Hd2" in let H2 := fresh "H2" in
  let h := fresh "h" in let Hh := fresh "Hh" in let Hnh := fresh "Hnh" in
  intros eps Heps;
  destruct (Df (eps / 2) ltac:(lra)) as [d1 [Hd1 H1]];
  destruct (Dg (eps / 2) ltac:(lra)) as [d2 [Hd2 H2]];
  exists (Rmin d1 d2); split; [apply Rmin_pos; auto|];
  intros h Hh Hnh;
  specialize (H1 h Hh ltac:(eapply Rlt_le_trans; [exact Hnh|apply Rmin_l]));
  specialize (H2 h Hh ltac:(eapply Rlt_le_trans; [exact Hnh|apply Rmin_r])).

Lemma has_deriv_pair n m p f g x Lf Lg :
  has_deriv n m f x Lf -> has_deriv n p g x Lg ->
  has_deriv n (m + p) (fun v => f v ++ g v) x (fun h => Lf h ++ Lg h).
Proof.
  intros [Hx [Hf [HLf Df]]] [_ [Hg [HLg Dg]]].
  split; [auto|]. split; [intros v Hv; rewrite app_length, Hf, Hg; auto|].
  split; [apply lin_pair; auto|].
  deriv_halves Df Dg.
  assert (Hlx : length (vp x h) = n) by (rewrite length_vp; lia).
  rewrite !vm_app by (rewrite ?length_vm, ?Hf, ?(lin_len _ _ _ HLf); auto; lia).
  rewrite norm1_app. lra.
Qed.

(** Sum of two differentiable maps. *)
Lemma lin_vp n m f g : lin n m f -> lin n m g -> lin n m (fun v => vp (f v) (g v)).
Proof.
  intros Hf Hg. constructor.
  - intros v Hv. rewrite length_vp, (lin_len _ _ _ Hf), (lin_len _ _ _ Hg); auto. lia.
  - intros h k Hh Hk. rewrite (lin_add _ _ _ Hf), (lin_add _ _ _ Hg); auto.
    apply vec_ext.
    + rewrite !length_vp, !(lin_len _ _ _ Hf), !(lin_len _ _ _ Hg); auto.
    + intros i. rewrite !nth_vp. ring.
  - intros a h Hh. rewrite (lin_scal _ _ _ Hf), (lin_scal _ _ _ Hg); auto.
    apply vec_ext.
    + rewrite !length_vp, !length_vs, !length_vp, !(lin_len _ _ _ Hf), !(lin_len _ _ _ Hg); auto.
    + intros i. rewrite !nth_vs, !nth_vp, !nth_vs. ring.
Qed.

Lemma has_deriv_vp n m f g x Lf Lg :
  has_deriv n m f x Lf -> has_deriv n m g x Lg ->
  has_deriv n m (fun v => vp (f v) (g v)) x (fun h => vp (Lf h) (Lg h)).
Proof.
  intros [Hx [Hf [HLf Df]]] [_ [Hg [HLg Dg]]].
  split; [auto|]. split; [intros v Hv; rewrite length_vp, Hf, Hg; auto; lia|].
  split; [apply lin_vp; auto|].
  deriv_halves Df Dg.
  eapply Rle_trans; [apply (norm1_le2 _ (vm (vm (f (vp x h)) (f x)) (Lf h)) (vm (vm (g (vp x h)) (g x)) (Lg h)))|].
  2: replace (eps * norm1 h) with (eps / 2 * norm1 h + eps / 2 * norm1 h) by field; lra.
  intros i. rewrite !nth_vm, !nth_vp, ?nth_vm.
  match goal with |- Rabs ?e <= _ => replace e with
    ((f (vp x h))@@i - (f x)@@i - (Lf h)@@i + ((g (vp x h))@@i - (g x)@@i - (Lg h)@@i)) by ring end.
  apply Rabs_triang.
Qed.

(** ** Bilinear maps [ℝᵖ × ℝ^q → ℝʳ], and their derivative on [ℝ^{p+q}] *)
Record bilin (p q r : nat) (B : vec -> vec -> vec) : Prop := {
  bilin_l : forall b, length b = q -> lin p r (fun a => B a b);
  bilin_r : forall a, length a = p -> lin q r (B a);
}.

Lemma bilin_bounded p : forall q r B, bilin p q r B ->
  exists C, 0 <= C /\ forall a b, length a = p -> length b = q -> norm1 (B a b) <= C * norm1 a * norm1 b.
Proof.
  induction p as [|p IH]; intros q r B HB.
  - exists 0. split; [lra|]. intros a b Ha Hb. destruct a; [|discriminate].
    rewrite <- (vs_nil 0), (lin_scal _ _ _ (bilin_l _ _ _ _ HB b Hb)) by reflexivity.
    rewrite norm1_vs, Rabs_R0. simpl. lra.
  - set (B' := fun t b => B (0 :: t) b).
    assert (HB' : bilin p q r B').
    { constructor; unfold B'.
      - intros b Hb. pose proof (bilin_l _ _ _ _ HB b Hb) as Hl. constructor.
        + intros v Hv. apply (lin_len _ _ _ Hl). simpl. auto.
        + intros h k Hh Hk. rewrite <- (lin_add _ _ _ Hl) by (simpl; auto). simpl. rewrite Rplus_0_l. reflexivity.
        + intros a h Hh. rewrite <- (lin_scal _ _ _ Hl) by (simpl; auto). unfold vs. simpl. rewrite Rmult_0_r. reflexivity.
      - intros a Ha. apply (bilin_r _ _ _ _ HB). simpl. auto. }
    destruct (IH q r B' HB') as [C' [HC' HB'b]].
    set (e := 1 :: zeros p).
    assert (He : length e = S p) by (unfold e; simpl; rewrite length_zeros; auto).
    destruct (lin_bounded _ _ _ (bilin_r _ _ _ _ HB e He)) as [Ce [HCe BCe]].
    exists (Ce + C'). split; [lra|].
    intros [|a t] b Ht Hb; [discriminate|]. simpl in Ht. injection Ht as Ht.
    assert (Hdec : a :: t = vp (vs a e) (0 :: t)).
    { apply vec_ext.
      - unfold e. simpl. rewrite length_vp, length_vs, length_zeros. lia.
      - intros [|i]; rewrite nth_vp, nth_vs; simpl; [ring|]. unfold zeros. rewrite nth_zeros. ring. }
    pose proof (bilin_l _ _ _ _ HB b Hb) as Hl.
    rewrite Hdec, (lin_add _ _ _ Hl), (lin_scal _ _ _ Hl); auto.
    2: rewrite length_vs; auto.
    2: simpl; auto.
    eapply Rle_trans; [apply norm1_vp|]. rewrite norm1_vs.
    assert (H1 : norm1 (B (0 :: t) b) <= C' * norm1 t * norm1 b) by exact (HB'b t b Ht Hb).
    specialize (BCe b Hb).
    rewrite <- Hdec. change (norm1 (a :: t)) with (Rabs a + norm1 t).
    pose proof (Rabs_pos a). pose proof (norm1_nonneg t). pose proof (norm1_nonneg b).
    assert (Rabs a * norm1 (B e b) <= Rabs a * (Ce * norm1 b)) by (apply Rmult_le_compat_l; lra).
    assert (0 <= Ce * norm1 t * norm1 b) by (apply Rmult_le_pos; [apply Rmult_le_pos|]; lra).
    assert (0 <= C' * Rabs a * norm1 b) by (apply Rmult_le_pos; [apply Rmult_le_pos|]; lra).
    nra.
Qed.

Lemma vp_nil_r u : vp u [] = u.
Proof. destruct u; reflexivity. Qed.

Lemma firstn_vp k u v : firstn k (vp u v) = vp (firstn k u) (firstn k v).
Proof.
  revert u v; induction k; intros u v; simpl; [reflexivity|].
  destruct u, v; simpl; auto; rewrite ?firstn_nil, ?vp_nil_r; auto. f_equal; auto.
Qed.
Lemma skipn_vp k u v : skipn k (vp u v) = vp (skipn k u) (skipn k v).
Proof.
  revert u v; induction k; intros u v; simpl; [reflexivity|].
  destruct u, v; simpl; auto; rewrite ?skipn_nil, ?vp_nil_r; auto.
Qed.
Lemma firstn_vs k a v : firstn k (vs a v) = vs a (firstn k v).
Proof. apply firstn_map. Qed.
Lemma skipn_vs k a v : skipn k (vs a v) = vs a (skipn k v).
Proof. apply skipn_map. Qed.

(** [firstn p] and [skipn p] are linear: their length, and that they
    commute with [vp] and [vs]. *)
Ltac lin_cut len cut_vp cut_vs :=
  constructor; [intros ? ?; rewrite len; lia|intros; apply cut_vp|intros; apply cut_vs].

Lemma lin_firstn p q : lin (p + q) p (firstn p).
Proof. lin_cut firstn_length firstn_vp firstn_vs. Qed.
Lemma lin_skipn p q : lin (p + q) q (skipn p).
Proof. lin_cut skipn_length skipn_vp skipn_vs. Qed.

(** A bilinear map, as a map of [ℝ^{p+q}], is differentiable:
    [D B(a,b)(h,k) = B(h,b) + B(a,k)]. *)
Lemma has_deriv_bilin p q r B x :
  bilin p q r B -> length x = (p + q)%nat ->
  has_deriv (p + q) r (fun v => B (firstn p v) (skipn p v)) x
    (fun h => vp (B (firstn p h) (skipn p x)) (B (firstn p x) (skipn p h))).
Proof.
  intros HB Hx.
  assert (Hf : forall v : vec, length v = (p + q)%nat -> length (firstn p v) = p)
    by (intros v Hv; rewrite firstn_length; lia).
  assert (Hs : forall v : vec, length v = (p + q)%nat -> length (skipn p v) = q)
    by (intros v Hv; rewrite skipn_length; lia).
  split; [auto|]. split.
  { intros v Hv. apply (lin_len _ _ _ (bilin_l _ _ _ _ HB _ (Hs v Hv))). auto. }
  split.
  { apply lin_vp.
    - apply (lin_comp (p + q) p r (fun a => B a (skipn p x)) (firstn p)); [apply (lin_firstn p q)|].
      apply (bilin_l p q r B HB); auto.
    - apply (lin_comp (p + q) q r (B (firstn p x)) (skipn p)); [apply (lin_skipn p q)|].
      apply (bilin_r p q r B HB); auto. }
  destruct (bilin_bounded _ _ _ _ HB) as [C [HC BC]].
  intros eps Heps. exists (eps / (C + 1)). split; [apply Rdiv_lt_0_compat; lra|].
  intros h Hh Hnh.
  rewrite firstn_vp, skipn_vp.
  set (a := firstn p x). set (b := skipn p x). set (ha := firstn p h). set (hb := skipn p h).
  assert (Ha : length a = p) by (unfold a; auto). assert (Hb : length b = q) by (unfold b; auto).
  assert (Hha : length ha = p) by (unfold ha; auto). assert (Hhb : length hb = q) by (unfold hb; auto).
  assert (HE : vm (vm (B (vp a ha) (vp b hb)) (B a b)) (vp (B ha b) (B a hb)) = B ha hb).
  { assert (Hbb : length (vp b hb) = q) by (rewrite length_vp; lia).
    rewrite (lin_add _ _ _ (bilin_l _ _ _ _ HB _ Hbb)) by auto.
    rewrite (lin_add _ _ _ (bilin_r _ _ _ _ HB _ Ha)) by auto.
    rewrite (lin_add _ _ _ (bilin_r _ _ _ _ HB _ Hha)) by auto.
    apply vec_ext.
    - rewrite !length_vm, !length_vp.
      rewrite !(lin_len _ _ _ (bilin_r _ _ _ _ HB _ Ha)), !(lin_len _ _ _ (bilin_r _ _ _ _ HB _ Hha)) by auto.
      lia.
    - intros i. rewrite !nth_vm, !nth_vp. ring. }
  rewrite HE. specialize (BC ha hb Hha Hhb).
  assert (norm1 ha <= norm1 h) by apply norm1_firstn.
  assert (norm1 hb <= norm1 h) by apply norm1_skipn.
  pose proof (norm1_nonneg ha). pose proof (norm1_nonneg hb).
  assert (norm1 hb < eps / (C + 1)) by lra.
  assert (C * norm1 hb <= eps).
  { apply Rle_trans with ((C + 1) * (eps / (C + 1))).
    - nra.
    - right. field. lra. }
  nra.
Qed.

(** ** Pointwise maps, and Coquelicot's derivative on ℝ *)
Lemma is_derive_eps (f : R -> R) a l : is_derive f a l ->
  forall eps, 0 < eps -> exists delta, 0 < delta /\
    forall b, Rabs b < delta -> Rabs (f (a + b) - f a - l * b) <= eps * Rabs b.
Proof.
  intros Hd eps Heps. apply is_derive_Reals in Hd.
  destruct (Hd eps Heps) as [d Hdd]. exists d. split; [apply cond_pos|].
  intros b Hb. destruct (Req_dec b 0) as [->|Hb0].
  - rewrite Rplus_0_r, Rabs_R0. replace (f a - f a - l * 0) with 0 by ring. rewrite Rabs_R0. lra.
  - specialize (Hdd b Hb0 Hb).
    replace (f (a + b) - f a - l * b) with (((f (a + b) - f a) / b - l) * b) by (field; auto).
    rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos | lra].
Qed.

Definition vmul (u v : vec) : vec :=
  (fix go u v := match u, v with a :: u', b :: v' => a * b :: go u' v' | _, _ => [] end) u v.

Lemma length_vmul u v : length (vmul u v) = Nat.min (length u) (length v).
Proof. revert v; induction u; intros [|b v]; simpl; auto. Qed.

Lemma nth_vmul u v i : (vmul u v)@@i = u@@i * v@@i.
Proof.
  revert v i; induction u; intros [|b v] [|i]; simpl; try ring; auto.
Qed.

Lemma lin_vmul_r n u : length u = n -> lin n n (vmul u).
Proof.
  intros Hu. constructor.
  - intros v Hv. rewrite length_vmul. lia.
  - intros h k Hh Hk. apply vec_ext.
    + rewrite length_vmul, !length_vp, !length_vmul. lia.
    + intros i. rewrite nth_vmul, !nth_vp, !nth_vmul. ring.
  - intros a h Hh. apply vec_ext.
    + rewrite length_vmul, !length_vs, !length_vmul. lia.
    + intros i. rewrite nth_vmul, !nth_vs, !nth_vmul. ring.
Qed.

Lemma has_deriv_map n (f f' : R -> R) x :
  length x = n -> (forall i, (i < n)%nat -> is_derive f (x@@i) (f' (x@@i))) ->
  has_deriv n n (map f) x (vmul (map f' x)).
Proof.
  intros Hx Hd. split; [auto|]. split; [intros v Hv; rewrite map_length; auto|].
  split; [apply lin_vmul_r; rewrite map_length; auto|].
  subst n. induction x as [|a x IH]; intros eps Heps.
  - exists 1. split; [lra|]. intros [|] Hh; [|discriminate]. simpl. lra.
  - destruct (is_derive_eps f a (f' a) (Hd 0%nat ltac:(simpl; lia)) eps Heps) as [d1 [Hd1 H1]].
    destruct (IH (fun i Hi => Hd (S i) ltac:(simpl; lia)) eps Heps) as [d2 [Hd2 H2]].
    exists (Rmin d1 d2). split; [apply Rmin_pos; auto|].
    intros [|b h] Hh Hnh; [discriminate|]. simpl in Hh. injection Hh as Hh.
    simpl in Hnh. pose proof (Rabs_pos b). pose proof (norm1_nonneg h).
    assert (Rmin d1 d2 <= d1) by apply Rmin_l. assert (Rmin d1 d2 <= d2) by apply Rmin_r.
    specialize (H1 b ltac:(lra)). specialize (H2 h Hh ltac:(lra)).
    simpl. unfold vm in *. simpl.
    replace (f (a + b) + -1 * f a + -1 * (f' a * b)) with (f (a + b) - f a - f' a * b) by ring.
    lra.
Qed.

Lemma lin_vs n l : lin n n (vs l).
Proof.
  constructor.
  - intros v Hv. rewrite length_vs. auto.
  - intros h k Hh Hk. apply vec_ext.
    + rewrite length_vs, !length_vp, !length_vs. auto.
    + intros i. rewrite nth_vs, !nth_vp, !nth_vs. ring.
  - intros a h Hh. apply vec_ext.
    + rewrite !length_vs. auto.
    + intros i. rewrite !nth_vs. ring.
Qed.

(** On ℝ (as [ℝ¹]), [has_deriv] is Coquelicot's [is_derive]. *)
Definition lift1 (f : R -> R) (v : vec) : vec := [f (v@@0)].

Lemma has_deriv_is_derive (f : R -> R) a l :
  is_derive f a l <-> has_deriv 1 1 (lift1 f) [a] (vs l).
Proof.
  split.
  - intros Hd. split; [reflexivity|]. split; [intros v _; reflexivity|].
    split.
    { apply lin_vs. }
    intros eps Heps. destruct (is_derive_eps f a l Hd eps Heps) as [d [Hd0 H]].
    exists d. split; auto. intros [|b [|]] Hh Hnh; try discriminate.
    simpl in *. rewrite Rplus_0_r in Hnh. specialize (H b Hnh).
    replace (f (a + b) + -1 * f a + -1 * (l * b)) with (f (a + b) - f a - l * b) by ring. lra.
  - intros [_ [_ [_ D]]]. apply is_derive_Reals. intros eps Heps.
    destruct (D (eps / 2) ltac:(lra)) as [d [Hd H]].
    exists (mkposreal d Hd). intros b Hb0 Hb. simpl in Hb.
    specialize (H [b] eq_refl ltac:(simpl; lra)). simpl in H.
    rewrite Rplus_0_r in H.
    replace (f (a + b) + -1 * f a + -1 * (l * b)) with (f (a + b) - f a - l * b) in H by ring.
    replace ((f (a + b) - f a) / b - l) with ((f (a + b) - f a - l * b) / b) by (field; auto).
    unfold Rdiv. rewrite Rabs_mult, Rabs_inv.
    apply Rle_lt_trans with (eps / 2 * Rabs b * / Rabs b).
    + apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; apply Rabs_pos_lt; auto|lra].
    + field_simplify; [lra|]. apply Rabs_no_R0. auto.
Qed.

(** ** Inner product *)
Lemma dot_nil_r u : dot u [] = 0.
Proof. destruct u; reflexivity. Qed.

Lemma dot_vp_l u u' v : dot (vp u u') v = dot u v + dot u' v.
Proof.
  revert u' v; induction u as [|a u IH]; intros [|a' u'] [|b v]; simpl; try ring;
    rewrite ?dot_nil_r, ?IH; ring.
Qed.

Lemma dot_comm u v : dot u v = dot v u.
Proof. revert v; induction u; intros [|b v]; simpl; auto. rewrite IHu. ring. Qed.

Lemma dot_vp_r u v v' : dot u (vp v v') = dot u v + dot u v'.
Proof. rewrite !(dot_comm u). apply dot_vp_l. Qed.

Lemma dot_vs_l a u v : dot (vs a u) v = a * dot u v.
Proof. revert v; induction u; intros [|b v]; simpl; try ring. rewrite IHu. ring. Qed.
Lemma dot_vs_r a u v : dot u (vs a v) = a * dot u v.
Proof. rewrite !(dot_comm u). apply dot_vs_l. Qed.

Lemma dot_app u1 u2 v1 v2 : length u1 = length v1 -> dot (u1 ++ u2) (v1 ++ v2) = dot u1 v1 + dot u2 v2.
Proof. revert v1; induction u1; intros [|b v1] H; simpl in *; try discriminate; try ring. rewrite IHu1; auto. ring. Qed.

Lemma dot_zeros_l n v : dot (zeros n) v = 0.
Proof. revert v; induction n; intros [|b v]; simpl; try ring. rewrite IHn. ring. Qed.
Lemma dot_zeros_r n v : dot v (zeros n) = 0.
Proof. rewrite dot_comm. apply dot_zeros_l. Qed.

Lemma dot_vmul u v w : dot (vmul u v) w = dot v (vmul u w).
Proof.
  revert v w; induction u; intros [|b v] [|c w]; simpl; try ring;
    rewrite ?dot_nil_r, ?IHu; try ring; destruct v; simpl; ring.
Qed.

(** ** Extensionality on the vectors of the right length *)
Lemma lin_ext n m L L' : (forall h, length h = n -> L h = L' h) -> lin n m L -> lin n m L'.
Proof.
  intros E HL. constructor.
  - intros v Hv. rewrite <- E by auto. apply HL; auto.
  - intros h k Hh Hk. rewrite <- !E; auto. apply HL; auto. rewrite length_vp. lia.
  - intros a h Hh. rewrite <- !E; auto. apply HL; auto. rewrite length_vs. auto.
Qed.

Lemma has_deriv_ext n m f g x L L' :
  (forall v, length v = n -> f v = g v) -> (forall h, length h = n -> L h = L' h) ->
  has_deriv n m f x L -> has_deriv n m g x L'.
Proof.
  intros Ef EL [Hx [Hf [HL D]]]. split; [auto|]. split.
  { intros v Hv. rewrite <- Ef by auto. auto. }
  split; [apply lin_ext with L; auto|].
  intros eps Heps. destruct (D eps Heps) as [d [Hd H]]. exists d. split; auto.
  intros h Hh Hnh. rewrite <- !Ef, <- EL; auto. rewrite length_vp. lia.
Qed.

Lemma is_rev_deriv_ext n m f g x r r' :
  (forall v, length v = n -> f v = g v) -> (forall y, length y = m -> r y = r' y) ->
  is_rev_deriv n m f x r -> is_rev_deriv n m g x r'.
Proof.
  intros Ef Er [L [HD [Hr Ha]]]. exists L. split; [apply has_deriv_ext with f L; auto|]. split.
  - intros y Hy. rewrite <- Er by auto. auto.
  - intros h y Hh Hy. rewrite <- Er by auto. auto.
Qed.

Lemma firstn_app_exact (u w : vec) k : length u = k -> firstn k (u ++ w) = u.
Proof. intros <-. induction u; simpl; [reflexivity|]. f_equal. auto. Qed.
Lemma skipn_app_exact (u w : vec) k : length u = k -> skipn k (u ++ w) = w.
Proof. intros <-. induction u; simpl; auto. Qed.

(** The product rule, for any bilinear product. *)
Lemma has_deriv_prod n p q r F G B x LF LG :
  bilin p q r B -> has_deriv n p F x LF -> has_deriv n q G x LG ->
  has_deriv n r (fun v => B (F v) (G v)) x (fun h => vp (B (LF h) (G x)) (B (F x) (LG h))).
Proof.
  intros HB HF HG.
  pose proof (has_deriv_pair _ _ _ _ _ _ _ _ HF HG) as HP.
  destruct HF as [Hx [HFm [HLF _]]]. destruct HG as [_ [HGm [HLG _]]].
  assert (Hl : length (F x ++ G x) = (p + q)%nat) by (rewrite app_length, HFm, HGm; auto).
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HP (has_deriv_bilin _ _ _ _ _ HB Hl)) as HC.
  eapply has_deriv_ext; [| |exact HC]; simpl.
  - intros v Hv. rewrite firstn_app_exact, skipn_app_exact by auto. reflexivity.
  - intros h Hh. rewrite !firstn_app_exact, !skipn_app_exact by (try apply HLF; try apply HLG; auto).
    reflexivity.
Qed.

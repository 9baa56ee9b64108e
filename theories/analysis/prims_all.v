(** * Every primitive, on the set where it is differentiable

    [prim_domain k p x]: the points where [rd^{k+1}[p]] is claimed to be
    the reverse derivative of [rd^k[p]]: everywhere for the smooth
    primitives and [sce]; off the half-integers for [round] ([k = 0]; its
    [rd] is constant, so [k ≥ 1] everywhere); off 0 for [relu]; on the
    positive coordinates for [log] at [k = 0] and the nonzero ones at
    [k ≥ 1]; where every window of [x] (the first leaf) has a strict
    maximum for [maxpool].  [prim_rd_correct_on]: for every primitive with
    sensible parameters and [k = 0, 1], [rd^{k+1}[p]] is the reverse
    derivative of [rd^k[p]] on [prim_domain k p]; [ev_rd_correct_on]: the
    same for [Ev]'s answers; [prim_level2_diff_on]: [rd²[p]] is
    differentiable on [prim_domain 2 p]. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax instance.
From RevHandlers.Analysis Require Import vec templates sums prims round ev level2 prims_more sce maxpool.
Import ListNotations.
Open Scope R_scope.

Definition prim_domain (k : nat) (p : prim) (x : vec) : Prop :=
  match p with
  | PRound n => match k with 0 => coords (fun a => forall z : Z, a + / 2 <> IZR z) n x | _ => True end
  | PRelu n => coords (fun a => a <> 0) n x
  | PLog n => coords (fun a => match k with 0 => 0 < a | _ => a <> 0 end) n x
  | PMaxpool c n m => windows_strict c n m (proj 0 (c * n) x)
  | _ => True
  end.

Lemma on_of_at k p D : rd_correct_at k p -> rd_correct_on k p D.
Proof. intros H x Hx _. apply H; auto. Qed.

(** For every primitive [p] with parameters accepted by [prim_ok], [k = 0, 1]:
    [rd^{k+1}[p]] is the reverse derivative of [rd^k[p]] at every point of
    [prim_domain k p]. *)
Theorem prim_rd_correct_on p k :
  prim_ok p = true -> (k <= 1)%nat -> rd_correct_on k p (prim_domain k p).
Proof.
  intros Hok Hk. destruct (smooth_prim p) eqn:Hs; [apply on_of_at, prim_rd_correct; auto|].
  assert (Hk' : k = 0%nat \/ k = 1%nat) by lia.
  destruct p; simpl in Hs; try discriminate; destruct Hk' as [->| ->].
  - intros x Hx HD. assert (E : pdom 0 (PRound n) = n) by (unfold pdom, dsum; simpl; lia).
    rewrite E in Hx |- *. replace (pcod 0 (PRound n)) with n by (unfold pcod, dsum; simpl; lia).
    apply round_rd0; auto.
  - apply on_of_at, round_rd1.
  - simpl in Hok. apply Nat.ltb_lt in Hok. intros x Hx HD. apply maxpool_rd0; auto.
    simpl in HD. unfold proj in HD. simpl in HD. rewrite firstn_all2 in HD; auto.
    unfold pdom, dsum in Hx. simpl in Hx. lia.
  - simpl in Hok. apply Nat.ltb_lt in Hok. apply maxpool_rd1; auto.
  - apply relu_rd0.
  - apply relu_rd1.
  - apply log_rd0.
  - apply log_rd1.
  - apply on_of_at, sce_rd0.
  - apply on_of_at, sce_rd1.
Qed.

#[local] Instance Rsorts' : sorts := exec_sorts vec.

(** When [Ev] answers [U] for [rd^{k+1}[p]] at [<V, W>] ([k ≤ 1]) and the
    leaves of [V] are in [prim_domain k p], [U] is the reverse derivative of
    [rd^k[p]] at [V] applied to [W]. *)
Theorem ev_rd_correct_on k p V W U :
  prim_ok p = true -> (k <= 1)%nat ->
  length (flat V) = pdom k p -> prim_domain k p (flat V) -> length (flat W) = pcod k p ->
  exec_ev Rvo (S k, p) (Tuple [V; W]) = Some U ->
  exists L, has_deriv (pdom k p) (pcod k p) (prim_fun k p) (flat V) L /\
    forall h, length h = pdom k p -> dot (L h) (flat W) = dot h (flat U).
Proof.
  intros Hok Hk HV HD HW Hev. apply ev_flat in Hev. rewrite flat_pair in Hev.
  destruct (prim_rd_correct_on p k Hok Hk (flat V) HV HD) as [L [HDe [_ Hadj]]].
  exists L. split; auto. intros h Hh. rewrite Hev. auto.
Qed.

(** ** [rd²[p]] is differentiable on [prim_domain 2 p] *)
Lemma ex_derive_log'' a : a <> 0 -> ex_derive (log'' Rsc) a.
Proof. intros Ha. unfold log''. simpl. auto_derive. auto. Qed.

Lemma sce2_differentiable n x : length x = (n + n + 1 + (n + n))%nat ->
  differentiable_at (n + n + 1 + (n + n)) (n + n + 1) (sce_f2 n) x.
Proof.
  intros Hx. set (N := (n + n + 1 + (n + n))%nat).
  assert (Pr : forall k d, (k + d <= N)%nat -> has_deriv N d (proj k d) x (proj k d))
    by (intros; apply has_deriv_proj; auto).
  set (z := proj 0 n x).
  assert (Hz : length z = n) by (apply length_proj; lia).
  pose proof (Pr 0%nat n ltac:(unfold N; lia)) as Pz.
  pose proof (Pr n n ltac:(unfold N; lia)) as Pt.
  pose proof (Pr (n + n)%nat 1%nat ltac:(unfold N; lia)) as Pg.
  pose proof (Pr (n + n + 1)%nat n ltac:(unfold N; lia)) as Pcz.
  pose proof (Pr (n + n + 1 + n)%nat n ltac:(unfold N; lia)) as Pct.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ Pz (has_deriv_SM n z Hz)) as HP.
  pose proof (has_deriv_lin _ _ _ x (lin_sumv_proj N n n ltac:(unfold N; lia)) Hx) as HSt.
  pose proof (has_deriv_lin _ _ _ x (lin_sumv_proj N (n + n + 1 + n) n ltac:(unfold N; lia)) Hx) as HSct.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_P_bilin n) HP Pcz) as Hpc.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (vmul_bilin n) HP Pcz) as Hm1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) Hpc HP) as Hs1.
  pose proof (has_deriv_vm _ _ _ _ _ _ _ Hm1 Hs1) as Hv1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) HSt Hv1) as Hs2.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) Pg Hs2) as HA1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) HSct HP) as Hs3.
  pose proof (has_deriv_vm _ _ _ _ _ _ _ Hs3 Pct) as Hv3.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) Pg Hv3) as HA2.
  pose proof (has_deriv_vp _ _ _ _ _ _ _ HA1 HA2) as HA.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ Hpc
                (has_deriv_lin 1 n (sum_Lt n) [dot (SM z) (proj (n + n + 1) n x)] (sum_Lt_lin n) eq_refl)) as Hr.
  pose proof (has_deriv_vm _ _ _ _ _ _ _ Hr Pcz) as Hv4.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) Pg Hv4) as HB.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_bilin n) HSt HP) as Hs5.
  pose proof (has_deriv_vm _ _ _ _ _ _ _ Hs5 Pt) as HX1.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_P_bilin n) HX1 Pcz) as HC1.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ Pz (has_deriv_lse n z Hz)) as HL.
  pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HL
                (has_deriv_lin 1 n (sum_Lt n) [LSE z] (sum_Lt_lin n) eq_refl)) as HR.
  pose proof (has_deriv_vm _ _ _ _ _ _ _ HR Pz) as HX2.
  pose proof (has_deriv_prod _ _ _ _ _ _ _ x _ _ (sm_P_bilin n) HX2 Pct) as HC2.
  pose proof (has_deriv_vp _ _ _ _ _ _ _ HC1 HC2) as HC.
  pose proof (has_deriv_pair _ _ _ _ _ _ _ _ HA (has_deriv_pair _ _ _ _ _ _ _ _ HB HC)) as HD.
  eexists. apply has_deriv_dim with (n + (n + 1))%nat; [lia|].
  eapply has_deriv_ext; [| |exact HD]; [|reflexivity].
  intros v Hv. unfold sce_f2, sm_B, sm_P, sum_Lt, ones. rewrite <- !repeat_vs. reflexivity.
Qed.

(** Near a point whose windows all have a strict maximum, [rd²[maxpool]] is linear. *)
Lemma maxpool2_differentiable c n m x : (0 < m)%nat ->
  length x = (c * n + c * ceil_div n m + c * n)%nat -> windows_strict c n m (proj 0 (c * n) x) ->
  differentiable_at (c * n + c * ceil_div n m + c * n) (c * n + c * ceil_div n m)
    (fun v => zeros (c * n) ++ maxpool_gather Rsc c n m (proj 0 (c * n) v)
                                (proj (c * n + c * ceil_div n m) (c * n) v)) x.
Proof.
  intros Hm Hx Hs. set (M := (c * n + c * ceil_div n m)%nat). set (x0 := proj 0 (c * n) x).
  assert (Hx0 : length x0 = (c * n)%nat) by (apply length_proj; unfold M in *; lia).
  exists (fun h => zeros (c * n) ++ maxpool_gather Rsc c n m x0 (proj M (c * n) h)).
  apply has_deriv_loc_lin; auto.
  - intros v Hv. rewrite app_length, length_zeros, gather_tab, length_tab2 by (auto; apply length_proj; lia).
    reflexivity.
  - apply (lin_pair _ (c * n) (c * ceil_div n m) (fun _ => zeros (c * n))); [apply lin_zero|].
    apply (lin_comp _ (c * n) _ (maxpool_gather Rsc c n m x0) (proj M (c * n)));
      [apply lin_proj; unfold M; lia|apply lin_gather; auto].
  - destruct (mp_near c n m Hm x0 Hx0 Hs) as [d [Hd H]]. exists d. split; auto. intros h Hh Hn. f_equal.
    assert (Hh0 : length (proj 0 (c * n) h) = (c * n)%nat) by (apply length_proj; lia).
    assert (Hp : proj 0 (c * n) (vp x h) = vp x0 (proj 0 (c * n) h))
      by (unfold x0, proj; rewrite skipn_vp, firstn_vp; reflexivity).
    assert (Hn0 : norm1 (proj 0 (c * n) h) < d) by (unfold proj; eapply Rle_lt_trans;
      [apply norm1_firstn|]; eapply Rle_lt_trans; [apply norm1_skipn|exact Hn]).
    assert (Hl : length (proj M (c * n) (vp x h)) = (c * n)%nat)
      by (apply length_proj; rewrite length_vp; unfold M in *; lia).
    rewrite Hp, !gather_tab by (auto; rewrite length_vp; lia). apply tab2_ext. intros i t Hi Ht.
    rewrite H; auto.
Qed.

Lemma diff_from_form_at k p n m f x :
  pdom k p = n -> pcod k p = m -> (forall v, length v = n -> prim_fun k p v = f v) ->
  length x = n -> differentiable_at n m f x ->
  differentiable_at (pdom k p) (pcod k p) (prim_fun k p) x.
Proof.
  intros Hn Hm Hf Hx [L HL]. rewrite Hn, Hm. exists L.
  eapply has_deriv_ext; [| |exact HL]; auto. intros v Hv. symmetry. auto.
Qed.

(** For every primitive with parameters accepted by [prim_ok], [rd²[p]] is
    differentiable at every point of [prim_domain 2 p]. *)
Theorem prim_level2_diff_on p : prim_ok p = true ->
  forall x, length x = pdom 2 p -> prim_domain 2 p x ->
    differentiable_at (pdom 2 p) (pcod 2 p) (prim_fun 2 p) x.
Proof.
  intros Hok x Hx HD. destruct (smooth_prim p) eqn:Hs.
  { apply prim_level2_differentiable; auto. }
  destruct p; simpl in Hs; try discriminate.
  - apply prim_level2_differentiable; eauto.
  - simpl in Hok. apply Nat.ltb_lt in Hok.
    assert (Hd : pdom 2 (PMaxpool c n m) = (c * n + c * ceil_div n m + c * n)%nat)
      by (unfold pdom, dsum; simpl; lia).
    apply (diff_from_form_at 2 _ (c * n + c * ceil_div n m + c * n) (c * n + c * ceil_div n m)
             (fun v => zeros (c * n) ++ maxpool_gather Rsc c n m (proj 0 (c * n) v)
                                          (proj (c * n + c * ceil_div n m) (c * n) v))); auto.
    + unfold pcod, dsum. simpl. lia.
    + intros v _. apply maxpool_forms2.
    + lia.
    + apply maxpool2_differentiable; auto. lia.
  - assert (Hd : pdom 2 (PRelu n) = (n + n + n)%nat) by (unfold pdom, dsum; simpl; lia).
    apply (diff_from_form_at 2 _ (n + n + n) (n + n) (pw2 n (relu' Rsc) (fun _ => 0))); auto.
    + unfold pcod, dsum. simpl. lia.
    + apply relu_forms2.
    + lia.
    + apply pw2_differentiable_on; [| |lia].
      * intros i Hi. apply is_derive_relu'. apply HD. auto.
      * intros i Hi. apply ex_derive_const.
  - assert (Hd : pdom 2 (PLog n) = (n + n + n)%nat) by (unfold pdom, dsum; simpl; lia).
    apply (diff_from_form_at 2 _ (n + n + n) (n + n) (pw2 n (log' Rsc) (log'' Rsc))); auto.
    + unfold pcod, dsum. simpl. lia.
    + pw_forms.
    + lia.
    + apply pw2_differentiable_on; [| |lia].
      * intros i Hi. apply is_derive_log'. apply HD. auto.
      * intros i Hi. apply ex_derive_log''. apply HD. auto.
  - assert (Hd : pdom 2 (PSce n) = (n + n + 1 + (n + n))%nat) by (unfold pdom, dsum; simpl; lia).
    apply (diff_from_form_at 2 _ (n + n + 1 + (n + n)) (n + n + 1) (sce_f2 n)); auto.
    + unfold pcod, dsum. simpl. lia.
    + apply sce_forms2.
    + lia.
    + apply sce2_differentiable. lia.
Qed.

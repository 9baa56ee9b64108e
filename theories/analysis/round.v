(** * [round]: derivative 0 off the half-integers

    [round] ([Rround x = ⌊x + 1/2⌋]) is locally constant, hence
    differentiable with derivative 0, at every [x] with [x + 1/2] not an
    integer; it jumps at the others.  So [rd[round](x, g) = 0] is the
    reverse derivative of [round] on the open set of vectors none of whose
    coordinates is a half-integer ([round_rd0]), and [rd²[round] = 0] is the
    reverse derivative of [rd[round]] (a constant) everywhere
    ([round_rd1]). *)
From RevHandlers.Analysis Require Import base vec templates sums prims.
Open Scope R_scope.

Lemma up_locally_const y : (forall z : Z, y <> IZR z) ->
  exists d, 0 < d /\ forall h, Rabs h < d -> up (y + h) = up y.
Proof.
  intros Hy. destruct (archimed y) as [H1 H2].
  assert (H3 : IZR (up y) - y < 1).
  { destruct H2 as [H2|H2]; auto. exfalso. apply (Hy (up y - 1)%Z). rewrite minus_IZR. simpl. lra. }
  exists (Rmin (IZR (up y) - y) (1 - (IZR (up y) - y))). split.
  { apply Rmin_pos; lra. }
  intros h Hh. apply Rabs_def2 in Hh. destruct Hh as [Hh1 Hh2].
  assert (Rmin (IZR (up y) - y) (1 - (IZR (up y) - y)) <= IZR (up y) - y) by apply Rmin_l.
  assert (Rmin (IZR (up y) - y) (1 - (IZR (up y) - y)) <= 1 - (IZR (up y) - y)) by apply Rmin_r.
  symmetry. apply tech_up; lra.
Qed.

Lemma Rround_locally_const x : (forall z : Z, x + / 2 <> IZR z) ->
  exists d, 0 < d /\ forall h, Rabs h < d -> Rround (x + h) = Rround x.
Proof.
  intros Hx. destruct (up_locally_const (x + / 2) Hx) as [d [Hd H]]. exists d. split; auto.
  intros h Hh. unfold Rround, Int_part. replace (x + h + / 2) with (x + / 2 + h) by ring.
  rewrite H; auto.
Qed.

Lemma is_derive_Rround x : (forall z : Z, x + / 2 <> IZR z) -> is_derive Rround x 0.
Proof.
  intros Hx. apply is_derive_Reals. intros eps Heps.
  destruct (Rround_locally_const x Hx) as [d [Hd H]]. exists (mkposreal d Hd).
  intros h Hh0 Hh. simpl in Hh. rewrite H by auto.
  replace ((Rround x - Rround x) / h - 0) with 0 by (field; auto). rewrite Rabs_R0. auto.
Qed.

Lemma nth_map_0 (x : vec) i : (map (fun _ => 0) x)@@i = 0.
Proof. revert i; induction x; intros [|i]; simpl; auto. Qed.

Section round.
Variable n : nat.

Lemma round_forms0 v : length v = n -> prim_fun 0 (PRound n) v = map Rround v.
Proof.
  intros Hv. unfold prim_fun. simpl. rewrite app_nil_r. unfold proj. simpl.
  rewrite firstn_all2 by lia. reflexivity.
Qed.

Lemma round_forms1 v : prim_fun 1 (PRound n) v = zeros n.
Proof. unfold prim_fun. simpl. rewrite app_nil_r. reflexivity. Qed.

Lemma round_forms2 v : prim_fun 2 (PRound n) v = zeros n ++ zeros n.
Proof. unfold prim_fun. simpl. rewrite app_nil_r. reflexivity. Qed.

(** At a point none of whose coordinates is a half-integer, [rd[round]] is
    the reverse derivative of [round]. *)
Theorem round_rd0 x : length x = n -> (forall i z, (i < n)%nat -> x@@i + / 2 <> IZR z) ->
  is_rev_deriv n n (prim_fun 0 (PRound n)) x (fun y => prim_fun 1 (PRound n) (x ++ y)).
Proof.
  intros Hx Hh. eapply is_rev_deriv_ext; [intros v Hv; symmetry; apply round_forms0; auto
                                          | intros y _; reflexivity |].
  exists (vmul (map (fun _ => 0) x)). split.
  - apply has_deriv_map; auto. intros i Hi. apply is_derive_Rround. intros z. apply Hh. auto.
  - split.
    + intros y _. rewrite round_forms1. apply length_zeros.
    + intros h y Hh' Hy. rewrite round_forms1, dot_zeros_r, dot_sumn, sumn_0; auto.
      intros i _. rewrite nth_vmul, nth_map_0. ring.
Qed.

(** [rd²[round]] is the reverse derivative of [rd[round]] everywhere. *)
Lemma lin_zero N M : lin N M (fun _ => zeros M).
Proof.
  constructor.
  - intros v _. apply length_zeros.
  - intros h k _ _. apply vec_ext; [rewrite length_vp, length_zeros; lia|].
    intros i. rewrite nth_vp, !nth_zeros. ring.
  - intros a h _. apply vec_ext; [rewrite length_vs; auto|]. intros i. rewrite nth_vs, nth_zeros. ring.
Qed.

Theorem round_rd1 : rd_correct_at 1 (PRound n).
Proof.
  intros x Hx. exists (fun _ => zeros (pcod 1 (PRound n))). split.
  - split; [auto|]. split.
    { intros v _. rewrite round_forms1. unfold pcod, dsum. simpl. rewrite length_zeros. lia. }
    split; [apply lin_zero|].
    intros eps Heps. exists 1. split; [lra|]. intros h Hh _. rewrite !round_forms1.
    rewrite norm1_0; [pose proof (norm1_nonneg h); nra|]. intros i.
    rewrite !nth_vm, !nth_zeros. ring.
  - split.
    + intros y _. rewrite round_forms2, app_length, !length_zeros. unfold pdom, dsum. simpl. lia.
    + intros h y _ _. rewrite round_forms2, dot_zeros_l, dot_sumn, sumn_0; auto.
      intros i _. destruct (Nat.ltb_spec i n).
      * rewrite nth_app_lt by (rewrite length_zeros; auto). rewrite nth_zeros. ring.
      * rewrite nth_app_ge by (rewrite length_zeros; auto). rewrite nth_zeros. ring.
Qed.
End round.

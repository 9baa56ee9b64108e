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
    same for [Ev]'s answers; [prim_level2_differentiable_on]: [rd²[p]] is
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

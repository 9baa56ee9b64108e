(** * The adjoint table: a finite map from node indices to numbers

    The reverse modes keep the adjoints of the nodes in a table indexed by
    the nodes' creation indices.  It is a binary trie over [nat]: index 0
    at the root, index [k + 1] in the left subtree at [k / 2] when [k] is
    even, in the right one when [k] is odd.  A lookup and an update cost
    O(log k) steps (extracted with [nat] as OCaml's [int], [Nat.div2] and
    [+] are machine operations).  Everything the proofs need is
    [tget_tset]: reading after writing.

    [tset] recurses on the key, which is not structural; it runs on a fuel
    [S k], more than the depth it needs ([tset_f_spec] asks [k < fuel]). *)
From Coq Require Import PeanoNat Lia.

Inductive table (V : Type) : Type :=
| TEmpty
| TNode (v : option V) (l r : table V).
Arguments TEmpty {V}.
Arguments TNode {V} v l r.

(** [k] is odd: [k] differs from twice its half. *)
Definition odd_bit (k : nat) : bool := negb (Nat.eqb k (Nat.div2 k + Nat.div2 k)).

Fixpoint tget {V} (t : table V) (k : nat) : option V :=
  match t with
  | TEmpty => None
  | TNode v l r =>
      match k with
      | 0 => v
      | S k' => if odd_bit k' then tget r (Nat.div2 k') else tget l (Nat.div2 k')
      end
  end.

Definition tsplit {V} (t : table V) : option V * table V * table V :=
  match t with TEmpty => (None, TEmpty, TEmpty) | TNode v l r => (v, l, r) end.

Fixpoint tset_f {V} (fuel : nat) (t : table V) (k : nat) (c : V) : table V :=
  match fuel with
  | 0 => t
  | S f =>
      let '(v, l, r) := tsplit t in
      match k with
      | 0 => TNode (Some c) l r
      | S k' =>
          if odd_bit k' then TNode v l (tset_f f r (Nat.div2 k') c)
          else TNode v (tset_f f l (Nat.div2 k') c) r
      end
  end.

Definition tset {V} (t : table V) (k : nat) (c : V) : table V := tset_f (S k) t k c.

Lemma tget_split {V} (t : table V) k :
  tget t k = let '(v, l, r) := tsplit t in
             match k with
             | 0 => v
             | S k' => if odd_bit k' then tget r (Nat.div2 k') else tget l (Nat.div2 k')
             end.
Proof. destruct t; simpl; [destruct k as [|k]; [|destruct (odd_bit k)]|]; reflexivity. Qed.

Lemma odd_bit_odd k : odd_bit k = Nat.odd k.
Proof.
  unfold odd_bit. pose proof (Nat.div2_odd k) as Hk.
  destruct (Nat.odd k); simpl in Hk.
  - destruct (Nat.eqb_spec k (Nat.div2 k + Nat.div2 k)); [lia|reflexivity].
  - destruct (Nat.eqb_spec k (Nat.div2 k + Nat.div2 k)); [reflexivity|lia].
Qed.

(** A number is determined by its half and its last bit. *)
Lemma half_bit_inj j k :
  Nat.div2 j = Nat.div2 k -> odd_bit j = odd_bit k -> j = k.
Proof.
  rewrite !odd_bit_odd. intros Hd Ho.
  rewrite (Nat.div2_odd j), (Nat.div2_odd k), Hd, Ho. reflexivity.
Qed.

Lemma div2_le k : Nat.div2 k <= k.
Proof. pose proof (Nat.div2_odd k). destruct (Nat.odd k); simpl in *; lia. Qed.

Lemma tset_f_spec {V} fuel : forall (t : table V) k c j, k < fuel ->
  tget (tset_f fuel t k c) j = if Nat.eqb j k then Some c else tget t j.
Proof.
  induction fuel as [|f IH]; intros t k c j Hk; [lia|].
  cbn [tset_f]. rewrite (tget_split t j).
  destruct (tsplit t) as [[v l] r].
  destruct k as [|k'].
  - destruct j as [|j']; reflexivity.
  - destruct j as [|j'].
    + simpl. destruct (odd_bit k'); reflexivity.
    + pose proof (div2_le k'). change (Nat.eqb (S j') (S k')) with (Nat.eqb j' k').
      destruct (odd_bit k') eqn:Ok, (odd_bit j') eqn:Oj; cbn [tget].
      all: rewrite Oj.
      all: try (destruct (Nat.eqb_spec j' k'); [subst; congruence|reflexivity]).
      all: rewrite IH by lia.
      all: destruct (Nat.eqb_spec (Nat.div2 j') (Nat.div2 k')) as [E|E],
             (Nat.eqb_spec j' k') as [E'|E']; auto.
      all: solve [exfalso; apply E', half_bit_inj; congruence | subst; contradiction].
Qed.

(** Reading after writing. *)
Lemma tget_tset {V} (t : table V) k c j :
  tget (tset t k c) j = if Nat.eqb j k then Some c else tget t j.
Proof. apply tset_f_spec. lia. Qed.

(** The table read with a default. *)
Definition tlook {V} (z : V) (t : table V) (k : nat) : V :=
  match tget t k with Some v => v | None => z end.

Lemma tlook_tset {V} (z : V) t k c j :
  tlook z (tset t k c) j = if Nat.eqb j k then c else tlook z t j.
Proof. unfold tlook. rewrite tget_tset. destruct (Nat.eqb j k); reflexivity. Qed.

Lemma tlook_empty {V} (z : V) k : tlook z TEmpty k = z.
Proof. reflexivity. Qed.

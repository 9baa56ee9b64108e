(** * Lists read by index in logarithmic time (Braun trees)

    [bget d (bbuild l) n = nth n l d] ([bget_bbuild]), but [bget] descends
    one level of a tree whose depth is the logarithm of [length l]: the
    element at index [0] is at the root, those at [2i + 1] are in the first
    subtree at [i], those at [2i + 2] in the second at [i].  [bbuild l]
    splits the tail into its elements at even and at odd positions
    ([evens], [odds]), in time [length l · log (length l)] once.  Extracted
    with [nat] as OCaml's [int], [Nat.div2], [+] and [Nat.eqb] are machine
    operations, so a lookup costs O(log n) steps where [nth] costs [n].

    The instance's declarations of operations (instance.v) are read this
    way: the signature looks up [op_coar o] and [op_ar o] at every level of
    a chain, and the list of declarations is as long as the chain. *)
From RevHandlers Require Import prelude.

Inductive btree (A : Type) : Type :=
| BLeaf
| BNode (x : A) (t1 t2 : btree A).
Arguments BLeaf {A}.
Arguments BNode {A} x t1 t2.

Section braun.
Context {A : Type}.

(** The elements at even positions ([0, 2, 4, …]) and at odd positions. *)
Fixpoint evens (l : list A) : list A :=
  match l with [] => [] | x :: l' => x :: odds l' end
with odds (l : list A) : list A :=
  match l with [] => [] | _ :: l' => evens l' end.

(** [bget d t n]: the element at index [n], [d] if there is none.  The
    parity of [n - 1] is decided by halving it and doubling back. *)
Fixpoint bget (d : A) (t : btree A) (n : nat) {struct t} : A :=
  match t with
  | BLeaf => d
  | BNode x t1 t2 =>
      match n with
      | 0 => x
      | S n' =>
          let h := Nat.div2 n' in
          if Nat.eqb (h + h) n' then bget d t1 h else bget d t2 h
      end
  end.

(** [bbuild_f fuel l]: the tree of [l] when [length l <= fuel]. *)
Fixpoint bbuild_f (fuel : nat) (l : list A) : btree A :=
  match fuel, l with
  | S f, x :: l' => BNode x (bbuild_f f (evens l')) (bbuild_f f (odds l'))
  | _, _ => BLeaf
  end.

Definition bbuild (l : list A) : btree A := bbuild_f (length l) l.

Lemma nth_evens_odds (d : A) l : forall i,
  nth i (evens l) d = nth (i + i) l d /\ nth i (odds l) d = nth (S (i + i)) l d.
Proof.
  induction l as [|x l IH]; intros i.
  - destruct i; split; reflexivity.
  - cbn [evens odds]. split.
    + destruct i as [|j]; [reflexivity|].
      replace (S j + S j) with (S (S (j + j))) by lia.
      cbn [nth]. exact (proj2 (IH j)).
    + cbn [nth]. exact (proj1 (IH i)).
Qed.

Lemma length_evens_odds l : length (evens l) <= length l /\ length (odds l) <= length l.
Proof.
  induction l as [|x l [IHe IHo]]; cbn [evens odds length]; [split; reflexivity|lia].
Qed.

Lemma bget_bbuild_f (d : A) fuel : forall l n, length l <= fuel -> bget d (bbuild_f fuel l) n = nth n l d.
Proof.
  induction fuel as [|f IH]; intros l n Hl.
  - destruct l; [destruct n; reflexivity|cbn in Hl; lia].
  - destruct l as [|x l]; [destruct n; reflexivity|].
    cbn [length] in Hl. destruct (length_evens_odds l) as [He Ho].
    destruct n as [|n']; [reflexivity|]. cbn [bbuild_f bget nth]. cbv zeta.
    pose proof (Nat.div2_odd n') as Hn.
    destruct (Nat.eqb_spec (Nat.div2 n' + Nat.div2 n') n') as [E|E].
    + rewrite IH by lia. rewrite (proj1 (nth_evens_odds d l _)). f_equal. exact E.
    + rewrite IH by lia. rewrite (proj2 (nth_evens_odds d l _)). f_equal.
      destruct (Nat.odd n'); cbn [Nat.b2n] in Hn; lia.
Qed.

(** The tree answers what [nth] answers, at every index. *)
Lemma bget_bbuild (d : A) l n : bget d (bbuild l) n = nth n l d.
Proof. apply bget_bbuild_f. lia. Qed.

End braun.

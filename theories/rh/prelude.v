(** * Prelude: list utilities shared by every file (the shared tactics:
    [tactics.v]).

    Nothing here is specific to the calculus. *)
From Coq Require Export List Lia Arith PeanoNat Bool Wellfounded.
Export ListNotations.

(** [nth_error] on a list built by [map]. *)
Lemma nth_error_map_Some {A B} (f : A -> B) (l : list A) (i : nat) (a : A) :
  nth_error l i = Some a -> nth_error (map f l) i = Some (f a).
Proof. intros H. rewrite nth_error_map, H. reflexivity. Qed.

Lemma Forall2_nth_error {A B} (R : A -> B -> Prop) (l1 : list A) (l2 : list B) i a :
  Forall2 R l1 l2 -> nth_error l1 i = Some a ->
  exists b, nth_error l2 i = Some b /\ R a b.
Proof.
  intros HF. revert i. induction HF as [|x y l1' l2' Hxy HF IH]; intros i Hi.
  - destruct i; discriminate.
  - destruct i as [|i]; simpl in *.
    + injection Hi as <-. eauto.
    + eauto.
Qed.

Lemma Forall2_nth_error_r {A B} (R : A -> B -> Prop) (l1 : list A) (l2 : list B) i b :
  Forall2 R l1 l2 -> nth_error l2 i = Some b ->
  exists a, nth_error l1 i = Some a /\ R a b.
Proof.
  intros HF. apply (Forall2_nth_error (fun b a => R a b)).
  induction HF; constructor; auto.
Qed.

(** A conjunction over the elements of a list is [Forall]. *)
Lemma fold_and_Forall {A} (P : A -> Prop) (l : list A) : fold_right and True (map P l) <-> Forall P l.
Proof.
  induction l as [|a l IH]; simpl; split; intros H; auto.
  - destruct H as [H1 H2]. constructor; auto. apply IH; auto.
  - inversion H; subst. split; auto. apply IH; auto.
Qed.

Lemma Forall2_length' {A B} (R : A -> B -> Prop) l1 l2 :
  Forall2 R l1 l2 -> length l1 = length l2.
Proof. induction 1; simpl; auto. Qed.

Lemma Forall2_map_l {A B C} (R : B -> C -> Prop) (f : A -> B) l1 l2 :
  Forall2 (fun a c => R (f a) c) l1 l2 -> Forall2 R (map f l1) l2.
Proof. induction 1; simpl; constructor; auto. Qed.

Lemma Forall2_impl' {A B} (R1 R2 : A -> B -> Prop) l1 l2 :
  (forall a b, R1 a b -> R2 a b) -> Forall2 R1 l1 l2 -> Forall2 R2 l1 l2.
Proof. intros Himp. induction 1; constructor; auto. Qed.

Lemma Forall2_app' {A B} (R : A -> B -> Prop) l1 l2 l1' l2' :
  Forall2 R l1 l2 -> Forall2 R l1' l2' -> Forall2 R (l1 ++ l1') (l2 ++ l2').
Proof. induction 1; simpl; auto. Qed.

Lemma Forall2_self {A B} (R : A -> B -> Prop) (f : A -> B) l :
  (forall a, In a l -> R a (f a)) -> Forall2 R l (map f l).
Proof. induction l; simpl; constructor; auto. Qed.

(** [nth_error] of an appended list, left and right parts. *)
Lemma nth_error_app_lt {A} (l1 l2 : list A) i :
  i < length l1 -> nth_error (l1 ++ l2) i = nth_error l1 i.
Proof. apply nth_error_app1. Qed.

Lemma nth_error_app_ge {A} (l1 l2 : list A) i :
  length l1 <= i -> nth_error (l1 ++ l2) i = nth_error l2 (i - length l1).
Proof. apply nth_error_app2. Qed.

(** Maximum of a list of naturals. *)
Definition list_max' (l : list nat) : nat := fold_right Nat.max 0 l.

(** A relation holds between [map f (seq 0 n)] and a list of length [n]
    when it holds index by index. *)
Lemma Forall2_map_seq {A B} (R : A -> B -> Prop) (f : nat -> A) (l : list B) :
  (forall i b, nth_error l i = Some b -> R (f i) b) ->
  Forall2 R (map f (seq 0 (length l))) l.
Proof.
  intros Hl. cut (forall j, (forall i b, nth_error l i = Some b -> R (f (j + i)) b) ->
                       Forall2 R (map f (seq j (length l))) l).
  { intros Hj. apply Hj. exact Hl. }
  clear Hl. induction l as [|b l IH]; intros j Hj; simpl; constructor.
  - rewrite <- (Nat.add_0_r j). apply Hj. reflexivity.
  - apply IH. intros i b' Hi. replace (S j + i) with (j + S i) by lia. apply Hj. exact Hi.
Qed.

(** * Commutative semirings with a setoid equality (spec §2, "Semirings")

    Mathematical expressions are evaluated in any commutative semiring.  A
    semiring is a record: its carrier, its operations, an equivalence
    relation [sr_eq] that the operations respect, and Coq's
    [semi_ring_theory] (the theory used by the [ring] tactic).  The laws
    are fields of the record, never axioms: every theorem that needs them
    quantifies over the semiring.

    This file also builds the semiring of dual numbers over a semiring
    ([dual]), used by forward mode and, as a proof device, by the proof of
    the reverse modes; and the semiring of natural numbers ([nat_sr]), used
    by the computed examples. *)
From Coq Require Export Setoid Morphisms Ring.
From Coq Require Import ArithRing PeanoNat Arith Lia.

Record semiring : Type := {
  sr_car :> Type;
  sr_zero : sr_car;
  sr_one : sr_car;
  sr_add : sr_car -> sr_car -> sr_car;
  sr_mul : sr_car -> sr_car -> sr_car;
  sr_eq : sr_car -> sr_car -> Prop;
  sr_eq_equiv : Equivalence sr_eq;
  sr_add_ext : Proper (sr_eq ==> sr_eq ==> sr_eq) sr_add;
  sr_mul_ext : Proper (sr_eq ==> sr_eq ==> sr_eq) sr_mul;
  sr_theory : semi_ring_theory sr_zero sr_one sr_add sr_mul sr_eq;
}.

#[export] Existing Instance sr_eq_equiv.
#[export] Existing Instance sr_add_ext.
#[export] Existing Instance sr_mul_ext.

Arguments sr_zero {_}.
Arguments sr_one {_}.
Arguments sr_add {_} _ _.
Arguments sr_mul {_} _ _.
Arguments sr_eq {_} _ _.

Declare Scope sr_scope.
Delimit Scope sr_scope with sr.
Notation "0" := sr_zero : sr_scope.
Notation "1" := sr_one : sr_scope.
Infix "⊕" := sr_add (at level 50, left associativity) : sr_scope.
Infix "⊗" := sr_mul (at level 40, left associativity) : sr_scope.
Infix "≡" := sr_eq (at level 70, no associativity) : sr_scope.

(** The morphism part of the theory, in the form [Add Ring] expects.  Every
    section that computes in a semiring [S] declares
    [Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S))]. *)
Lemma sr_ext (S : semiring) : sring_eq_ext (@sr_add S) (@sr_mul S) (@sr_eq S).
Proof. constructor; [exact (sr_add_ext S)|exact (sr_mul_ext S)]. Qed.

Section laws.
Context (S : semiring).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).
Local Open Scope sr_scope.
Implicit Types a b c : S.

(** [k·1], the image of a natural number. *)
Fixpoint sr_of_nat (k : nat) : S :=
  match k with
  | O => 0
  | Datatypes.S k => 1 ⊕ sr_of_nat k
  end.

(** [a^k]. *)
Fixpoint sr_pow (a : S) (k : nat) : S :=
  match k with
  | O => 1
  | Datatypes.S k => a ⊗ sr_pow a k
  end.

Lemma sr_pow_add a k l : sr_pow a (k + l) ≡ sr_pow a k ⊗ sr_pow a l.
Proof.
  induction k as [|k IH]; simpl.
  - ring.
  - rewrite IH. ring.
Qed.

Lemma sr_pow_mul a k l : sr_pow a (k * l) ≡ sr_pow (sr_pow a k) l.
Proof.
  revert l. induction k as [|k IH]; intros l; simpl.
  - induction l as [|l IHl]; simpl; [reflexivity|]. rewrite <- IHl. ring.
  - rewrite sr_pow_add, IH. clear IH.
    induction l as [|l IHl]; simpl; [ring|]. rewrite <- IHl.
    (* both sides are [a^l ⊗ (a^k)^l] multiplied out *)
    ring.
Qed.

Lemma sr_of_nat_add k l : sr_of_nat (k + l) ≡ sr_of_nat k ⊕ sr_of_nat l.
Proof. induction k as [|k IH]; simpl; [ring|]. rewrite IH. ring. Qed.

(** A finite sum [f 0 ⊕ … ⊕ f (n-1)]. *)
Fixpoint sum_to (n : nat) (f : nat -> S) : S :=
  match n with
  | O => 0
  | Datatypes.S n => sum_to n f ⊕ f n
  end.

Lemma sum_to_ext n f g :
  (forall i, i < n -> f i ≡ g i) -> sum_to n f ≡ sum_to n g.
Proof.
  induction n as [|n IH]; intros H; simpl; [reflexivity|].
  rewrite IH, (H n) by auto. reflexivity.
Qed.

Lemma sum_to_zero n : sum_to n (fun _ => 0) ≡ 0.
Proof. induction n as [|n IH]; simpl; [reflexivity|]. rewrite IH. ring. Qed.

(** Adding [γ] to entry [i] of a vector [α] adds [γ ⊗ g i] to [Σ α ⊗ g]. *)
Definition bump (α : nat -> S) (i : nat) (γ : S) : nat -> S :=
  fun j => if Nat.eqb j i then α j ⊕ γ else α j.

Lemma sum_to_bump n α i γ g :
  i < n ->
  sum_to n (fun j => bump α i γ j ⊗ g j) ≡ sum_to n (fun j => α j ⊗ g j) ⊕ γ ⊗ g i.
Proof.
  unfold bump. induction n as [|n IH]; intros Hi; simpl; [inversion Hi|].
  destruct (Nat.eqb n i) eqn:E.
  - apply Nat.eqb_eq in E. subst n.
    rewrite (sum_to_ext i _ (fun j => α j ⊗ g j)).
    + ring.
    + intros j Hj. destruct (Nat.eqb_spec j i); [exfalso; subst; apply (Nat.lt_irrefl _ Hj)|].
      reflexivity.
  - apply Nat.eqb_neq in E. rewrite IH by lia.
    ring.
Qed.
End laws.

Arguments sr_of_nat {_} _.
Arguments sr_pow {_} _ _.
Arguments sum_to {_} _ _.
Arguments bump {_} _ _ _ _.

(** ** Dual numbers [(a, a')] over a semiring: [(a,a')⊗(b,b') = (ab, a'b ⊕ ab')].
    They form a commutative semiring, with the componentwise equality. *)
Section dual.
Context (S : semiring).
Add Ring S_ring' : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).
Local Open Scope sr_scope.

Definition dual_add (p q : S * S) : S * S := (fst p ⊕ fst q, snd p ⊕ snd q).
Definition dual_mul (p q : S * S) : S * S :=
  (fst p ⊗ fst q, snd p ⊗ fst q ⊕ fst p ⊗ snd q).
Definition dual_eq (p q : S * S) : Prop := fst p ≡ fst q /\ snd p ≡ snd q.

Lemma dual_eq_equiv : Equivalence dual_eq.
Proof.
  unfold dual_eq. split.
  - intros p. split; reflexivity.
  - intros p q [H1 H2]. split; symmetry; assumption.
  - intros p q s [H1 H2] [H3 H4]. split; etransitivity; eauto.
Qed.

Lemma dual_add_ext : Proper (dual_eq ==> dual_eq ==> dual_eq) dual_add.
Proof.
  intros [a a'] [b b'] [H1 H2] [c c'] [d d'] [H3 H4]; simpl in *.
  split; simpl; [rewrite H1, H3|rewrite H2, H4]; reflexivity.
Qed.

Lemma dual_mul_ext : Proper (dual_eq ==> dual_eq ==> dual_eq) dual_mul.
Proof.
  intros [a a'] [b b'] [H1 H2] [c c'] [d d'] [H3 H4]; simpl in *.
  split; simpl; [rewrite H1, H3|rewrite H1, H2, H3, H4]; reflexivity.
Qed.

Lemma dual_theory :
  semi_ring_theory (0, 0) (1, 0) dual_add dual_mul dual_eq.
Proof.
  constructor; intros; unfold dual_eq, dual_add, dual_mul; simpl; split; ring.
Qed.

#[export] Existing Instance dual_eq_equiv.
#[export] Existing Instance dual_add_ext.
#[export] Existing Instance dual_mul_ext.

(** The carrier, the constants and the operations are those of the laws. *)
Definition dual : semiring :=
  Build_semiring _ _ _ _ _ _ dual_eq_equiv dual_add_ext dual_mul_ext dual_theory.
End dual.

(** ** Dual numbers with a vector of tangents [(a, a')], [a' : J -> S]:
    [(a,a')⊗(b,b') = (ab, λj. a' j·b ⊕ a·b' j)], equality componentwise and
    pointwise.  With [J = unit] they are the dual numbers; the proof of the
    reverse modes is written once for every [J] (the gradient uses
    [J = nat]). *)
Section vdual.
Context (S : semiring) (J : Type).
Add Ring S_ring'' : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).
Local Open Scope sr_scope.

Definition vdual_add (p q : S * (J -> S)) : S * (J -> S) :=
  (fst p ⊕ fst q, fun j => snd p j ⊕ snd q j).
Definition vdual_mul (p q : S * (J -> S)) : S * (J -> S) :=
  (fst p ⊗ fst q, fun j => snd p j ⊗ fst q ⊕ fst p ⊗ snd q j).
Definition vdual_eq (p q : S * (J -> S)) : Prop :=
  fst p ≡ fst q /\ forall j, snd p j ≡ snd q j.

Lemma vdual_eq_equiv : Equivalence vdual_eq.
Proof.
  unfold vdual_eq. split.
  - intros p. split; [|intros j]; reflexivity.
  - intros p q [H1 H2]. split; [|intros j]; symmetry; auto.
  - intros p q s [H1 H2] [H3 H4]. split; [|intros j]; etransitivity; eauto.
Qed.

Lemma vdual_add_ext : Proper (vdual_eq ==> vdual_eq ==> vdual_eq) vdual_add.
Proof.
  intros [a a'] [b b'] [H1 H2] [c c'] [d d'] [H3 H4]; simpl in *.
  split; simpl; [|intros j]; [rewrite H1, H3|rewrite H2, H4]; reflexivity.
Qed.

Lemma vdual_mul_ext : Proper (vdual_eq ==> vdual_eq ==> vdual_eq) vdual_mul.
Proof.
  intros [a a'] [b b'] [H1 H2] [c c'] [d d'] [H3 H4]; simpl in *.
  split; simpl; [|intros j]; [rewrite H1, H3|rewrite H1, H2, H3, H4]; reflexivity.
Qed.

Lemma vdual_theory :
  semi_ring_theory (0, fun _ => 0) (1, fun _ => 0) vdual_add vdual_mul vdual_eq.
Proof.
  constructor; intros; unfold vdual_eq, vdual_add, vdual_mul; simpl; split;
    try intros j; ring.
Qed.

#[export] Existing Instance vdual_eq_equiv.
#[export] Existing Instance vdual_add_ext.
#[export] Existing Instance vdual_mul_ext.

Definition vdual : semiring :=
  Build_semiring _ _ _ _ _ _ vdual_eq_equiv vdual_add_ext vdual_mul_ext vdual_theory.
End vdual.

(** ** The natural numbers, with Leibniz equality (for computed examples). *)
Definition nat_sr : semiring := {|
  sr_car := nat;
  sr_zero := 0%nat;
  sr_one := 1%nat;
  sr_add := Nat.add;
  sr_mul := Nat.mul;
  sr_eq := @eq nat;
  sr_eq_equiv := eq_equivalence;
  sr_add_ext := _;
  sr_mul_ext := _;
  sr_theory := natSRth;
|}.

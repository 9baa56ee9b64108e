(** * Mathematical expressions and their derivatives (spec §2, paper
    Definitions 4.1–4.7)

    - [expr I] (Def. 4.1): the constants 0 and 1, variables [Leaf i] drawn
      from [I], and binary nodes [Node op El Er] with [op ∈ {Add, Mul}].
    - [eval ρ E] (Def. 4.2): the value of [E] in a commutative semiring,
      the variables taking their values in [ρ].
    - [pderiv ρ E i] (Def. 4.3): the partial derivative [∂E/∂i] at [ρ],
      defined by the usual rules, in the semiring.
    - [sderiv E i] (Def. 4.4): the symbolic derivative, itself an
      expression; [eval_sderiv] states that evaluating it gives [pderiv].
    - Bindings, contexts, filling and context evaluation (Defs. 4.5–4.7) at
      the end of the file, with the lemma [extension_alt]
      ([ρ{K}(y) = ⟦K[y]⟧ρ]).
    - [eval_dual]: evaluating [E] in dual numbers at [(ρ i, [i = j])]
      gives the pair [(⟦E⟧ρ, ∂E/∂j(ρ))]; this is forward mode's
      correctness, and the reverse modes' proofs use it too.

    The univariate case takes [I = unit], [X = Leaf tt] and
    [E' = deriv E := sderiv E tt]. *)
From Coq Require Import List PeanoNat Lia.
From DefineByRun Require Export semiring.
Import ListNotations.

(** The two arithmetic operations of expressions and of requests. *)
Inductive binop : Type := Add | Mul.

Inductive expr (I : Type) : Type :=
| Zero
| One
| Leaf (i : I)
| Node (op : binop) (El Er : expr I).
Arguments Zero {I}.
Arguments One {I}.
Arguments Leaf {I} i.
Arguments Node {I} op El Er.

Local Open Scope sr_scope.

(** The meaning of an operation in a semiring. *)
Definition binop_den {S : semiring} (op : binop) : S -> S -> S :=
  match op with Add => sr_add | Mul => sr_mul end.

Lemma binop_den_ext (S : semiring) op :
  Proper (sr_eq ==> sr_eq ==> sr_eq) (@binop_den S op).
Proof. destruct op; simpl; typeclasses eauto. Qed.
#[export] Existing Instance binop_den_ext.

Section eval.
Context {I : Type} (S : semiring).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).
Implicit Types (ρ : I -> S) (E : expr I).

(** Definition 4.2: [⟦E⟧ρ]. *)
Fixpoint eval ρ E : S :=
  match E with
  | Zero => 0
  | One => 1
  | Leaf i => ρ i
  | Node op El Er => binop_den op (eval ρ El) (eval ρ Er)
  end.

Lemma eval_ext ρ1 ρ2 E :
  (forall i, ρ1 i ≡ ρ2 i) -> eval ρ1 E ≡ eval ρ2 E.
Proof.
  intros H. induction E as [| |i|op El IHl Er IHr]; simpl; auto; try reflexivity.
  rewrite IHl, IHr. reflexivity.
Qed.

Context (dec : forall i j : I, {i = j} + {i <> j}).

(** Definition 4.3: [∂E/∂i] at [ρ]. *)
Fixpoint pderiv ρ E (i : I) : S :=
  match E with
  | Zero | One => 0
  | Leaf j => if dec i j then 1 else 0
  | Node Add El Er => pderiv ρ El i ⊕ pderiv ρ Er i
  | Node Mul El Er => pderiv ρ El i ⊗ eval ρ Er ⊕ eval ρ El ⊗ pderiv ρ Er i
  end.
End eval.

Arguments eval {I S} ρ E.
Arguments pderiv {I S} dec ρ E i.

Section sderiv.
Context {I : Type} (dec : forall i j : I, {i = j} + {i <> j}).

(** Definition 4.4: the symbolic derivative [∂E/∂i], an expression. *)
Fixpoint sderiv (E : expr I) (i : I) : expr I :=
  match E with
  | Zero | One => Zero
  | Leaf j => if dec i j then One else Zero
  | Node Add El Er => Node Add (sderiv El i) (sderiv Er i)
  | Node Mul El Er =>
      Node Add (Node Mul (sderiv El i) Er) (Node Mul El (sderiv Er i))
  end.

(** Evaluating the symbolic derivative gives the partial derivative. *)
Lemma eval_sderiv (S : semiring) (ρ : I -> S) E i :
  eval ρ (sderiv E i) ≡ pderiv dec ρ E i.
Proof.
  induction E as [| |j|[|] El IHl Er IHr]; simpl; try reflexivity.
  - destruct (dec i j); reflexivity.
  - rewrite IHl, IHr. reflexivity.
  - rewrite IHl, IHr. reflexivity.
Qed.

(** Forward mode in one line: evaluating in dual numbers, with the
    variable [j] seeded with derivative 1 and the others with 0, computes
    the value and the partial derivative along [j]. *)
Lemma eval_dual (S : semiring) (ρ : I -> S) E j :
  eval (S := dual S) (fun i => (ρ i, if dec j i then 1 else 0)) E
  ≡ ((eval ρ E, pderiv dec ρ E j) : dual S).
Proof.
  induction E as [| |i|[|] El IHl Er IHr]; simpl.
  - split; reflexivity.
  - split; reflexivity.
  - split; reflexivity.
  - destruct IHl as [H1 H2], IHr as [H3 H4].
    unfold dual_eq, dual_add in *; simpl in *. rewrite H1, H2, H3, H4. split; reflexivity.
  - destruct IHl as [H1 H2], IHr as [H3 H4].
    unfold dual_eq, dual_mul in *; simpl in *. rewrite H1, H2, H3, H4. split; reflexivity.
Qed.
(** The same with a vector of tangents, one per variable: evaluating in
    [vdual S I] with the variable [i] seeded with the tangent [e_i]
    computes the value and the whole gradient. *)
Lemma eval_vdual (S : semiring) (ρ : I -> S) E :
  eval (S := vdual S I) (fun i => (ρ i, fun j => if dec j i then 1 else 0)) E
  ≡ ((eval ρ E, fun j => pderiv dec ρ E j) : vdual S I).
Proof.
  induction E as [| |i|[|] El IHl Er IHr]; simpl.
  - split; [|intros j]; reflexivity.
  - split; [|intros j]; reflexivity.
  - split; [|intros j]; reflexivity.
  - destruct IHl as [H1 H2], IHr as [H3 H4].
    unfold vdual_eq, vdual_add in *; simpl in *.
    split; [|intros j]; rewrite ?H1, ?H2, ?H3, ?H4; reflexivity.
  - destruct IHl as [H1 H2], IHr as [H3 H4].
    unfold vdual_eq, vdual_mul in *; simpl in *.
    split; [|intros j]; rewrite ?H1, ?H2, ?H3, ?H4; reflexivity.
Qed.
End sderiv.

(** ** The univariate case: [X] and [E'] *)
Definition X : expr unit := Leaf tt.

Definition unit_dec (i j : unit) : {i = j} + {i <> j}.
Proof. left. destruct i, j. reflexivity. Defined.

(** [E'], the derivative with respect to [X] (Def. 4.4 at [I = unit]). *)
Definition deriv (E : expr unit) : expr unit := sderiv unit_dec E tt.

(** [⟦E⟧] at the point [r]. *)
Definition eval1 {S : semiring} (r : S) (E : expr unit) : S := eval (fun _ => r) E.

Lemma eval1_dual (S : semiring) (r : S) E :
  eval1 (S := dual S) (r, 1) E ≡ ((eval1 r E, eval1 r (deriv E)) : dual S).
Proof.
  unfold eval1, deriv.
  transitivity ((eval (fun _ => r) E, pderiv unit_dec (fun _ => r) E tt) : dual S).
  - rewrite <- (eval_dual unit_dec S (fun _ => r) E tt).
    apply eval_ext. intros []. simpl. split; reflexivity.
  - split; simpl; [reflexivity|]. symmetry. apply eval_sderiv.
Qed.

Lemma eval1_vdual (S : semiring) (r : S) E :
  eval1 (S := vdual S unit) (r, fun _ => 1) E
  ≡ ((eval1 r E, fun _ => eval1 r (deriv E)) : vdual S unit).
Proof.
  unfold eval1, deriv.
  transitivity ((eval (fun _ => r) E, fun j => pderiv unit_dec (fun _ => r) E j) : vdual S unit).
  - rewrite <- (eval_vdual unit_dec S (fun _ => r) E).
    apply eval_ext. intros []. simpl. split; [|intros []]; reflexivity.
  - split; simpl; [reflexivity|]. intros []. symmetry. apply eval_sderiv.
Qed.

(** Iterated derivatives [E^(n)]. *)
Fixpoint deriv_n (n : nat) (E : expr unit) : expr unit :=
  match n with O => E | S n => deriv (deriv_n n E) end.

(** ** Bindings, contexts, filling and context evaluation (Defs. 4.5–4.7)

    A binding [let u = a op b] is [(u, (op, a, b))]; a context [K] is a
    list of bindings, in the order they were made.  [fill K y] (Def. 4.6,
    [K[y]]) substitutes, from the last binding to the first, each bound
    variable by its defining node; [extend ρ K] (Def. 4.7, [ρ{K}])
    extends the valuation [ρ] with the values of the bound variables, in
    order.  [extension_alt] relates the two.  The proofs of the reverse
    modes ([reverse.v], [tape.v]) do not need these: their invariant is a
    sum over the nodes (see there); the definitions are given here for the
    paper's map. *)
Section contexts.
Context {I : Type} (dec : forall i j : I, {i = j} + {i <> j}).

Definition binding : Type := I * (binop * I * I).
Definition context : Type := list binding.

(** [E[u := G]]. *)
Fixpoint subst_leaf (u : I) (G : expr I) (E : expr I) : expr I :=
  match E with
  | Zero => Zero
  | One => One
  | Leaf j => if dec u j then G else Leaf j
  | Node op El Er => Node op (subst_leaf u G El) (subst_leaf u G Er)
  end.

(** Definition 4.6: [K[y]]; the first binding of [K] is the outermost. *)
Fixpoint fill (K : context) (y : I) : expr I :=
  match K with
  | [] => Leaf y
  | (u, (op, a, b)) :: K' => subst_leaf u (Node op (Leaf a) (Leaf b)) (fill K' y)
  end.

(** Definition 4.7: [ρ{K}]. *)
Fixpoint extend {S : semiring} (ρ : I -> S) (K : context) : I -> S :=
  match K with
  | [] => ρ
  | (u, (op, a, b)) :: K' =>
      extend (fun j => if dec u j then binop_den op (ρ a) (ρ b) else ρ j) K'
  end.

Lemma eval_subst_leaf (S : semiring) (ρ : I -> S) u G E :
  eval ρ (subst_leaf u G E)
  ≡ eval (fun j => if dec u j then eval ρ G else ρ j) E.
Proof.
  induction E as [| |j|op El IHl Er IHr]; simpl; try reflexivity.
  - destruct (dec u j); reflexivity.
  - rewrite IHl, IHr. reflexivity.
Qed.

Lemma extend_ext (S : semiring) (ρ1 ρ2 : I -> S) K :
  (forall i, ρ1 i ≡ ρ2 i) -> forall i, extend ρ1 K i ≡ extend ρ2 K i.
Proof.
  revert ρ1 ρ2. induction K as [|[u [[op a] b]] K IH]; intros ρ1 ρ2 H i; simpl; auto.
  apply IH. intros j. destruct (dec u j); auto. rewrite (H a), (H b). reflexivity.
Qed.

(** [ρ{K}(y) = ⟦K[y]⟧ρ]. *)
Lemma extension_alt (S : semiring) (ρ : I -> S) K y :
  extend ρ K y ≡ eval ρ (fill K y).
Proof.
  revert ρ. induction K as [|[u [[op a] b]] K IH]; intros ρ; simpl; [reflexivity|].
  rewrite IH, eval_subst_leaf. apply eval_ext. intros j. reflexivity.
Qed.
End contexts.

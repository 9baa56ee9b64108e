(** * The signature (paper §3, spec §2)

    The calculus is parametric in its signature.  Nothing here is an axiom:
    the signature is a pair of type classes, and every later file takes an
    instance as a section variable ([Context]), so every theorem is
    universally quantified over it and [Print Assumptions] of a headline
    theorem shows no assumption at all.

    The signature comes in layers because each layer mentions the syntax
    built from the one before:
    - [sorts]: the carriers (base types, constants, function symbols,
      operation symbols, locations) with the decidable equalities the
      semantics needs;
    - [signature]: types of constants, function symbols and operations,
      the [rd] closure and the constant monoid (this file);
    - [evaluator]: the partial function [Ev] (in [syntax.v], since it maps
      terms to terms);
    - [evaluator_ok]: [Ev] respects types (in [typing.v]). *)
From RevHandlers Require Import prelude.

Class sorts := {
  (** [BType]: base types, e.g. [Real(n)] in the executable instance. *)
  base : Type;
  base_eq_dec : forall b1 b2 : base, {b1 = b2} + {b1 <> b2};
  (** Constant symbols [c : 1 -> β]. *)
  const : Type;
  (** Non-constant function symbols [f : A -> B] (decisions.md item 10:
      constants are kept apart from the other function symbols). *)
  fsym : Type;
  (** Operation symbols declared by the program ([FC[ℓ]], [EnDe[ℓ,ℓ']],
      ...).  [Get[ℓ]] and [Put[ℓ]] are built in (see [opsym]). *)
  op : Type;
  op_eq_dec : forall o1 o2 : op, {o1 = o2} + {o1 <> o2};
  (** Locations of the heap. *)
  loc : Type;
  loc_eq_dec : forall l1 l2 : loc, {l1 = l2} + {l1 <> l2};
}.

Section types.
Context {Srt : sorts}.

(** ** Types (paper §3): [A ::= β | ∏_{i=1..n} A_i], for every n ≥ 0.
    One-tuples are distinct from their component (decisions.md item 2). *)
Inductive ty : Type :=
| TBase (b : base)
| TProd (As : list ty).

(** The binary product [A1 × A2 := ∏_{i=1..2} A_i]. *)
Definition TPair (A1 A2 : ty) : ty := TProd [A1; A2].

(** Induction on types, with the hypothesis for every component. *)
Fixpoint ty_ind' (P : ty -> Prop)
    (Hbase : forall b, P (TBase b))
    (Hprod : forall As, Forall P As -> P (TProd As))
    (A : ty) {struct A} : P A :=
  match A with
  | TBase b => Hbase b
  | TProd As =>
      Hprod As ((fix go (l : list ty) : Forall P l :=
                   match l with
                   | [] => Forall_nil P
                   | A' :: l' => Forall_cons A' (ty_ind' P Hbase Hprod A') (go l')
                   end) As)
  end.

Definition ty_eq_dec : forall A B : ty, {A = B} + {A <> B}.
Proof.
  fix IH 1. intros [b1|As1] [b2|As2].
  - destruct (base_eq_dec b1 b2) as [->|Hne]; [left; reflexivity|].
    right. intros [=]. contradiction.
  - right. discriminate.
  - right. discriminate.
  - assert (Hl : {As1 = As2} + {As1 <> As2}).
    { revert As2. induction As1 as [|A1 As1' IHl]; intros [|A2 As2'].
      - left. reflexivity.
      - right. discriminate.
      - right. discriminate.
      - destruct (IH A1 A2) as [->|Hne]; [|right; intros [=]; contradiction].
        destruct (IHl As2') as [->|Hne]; [left; reflexivity|].
        right. intros [=]. contradiction. }
    destruct Hl as [->|Hne]; [left; reflexivity|].
    right. intros [=]. contradiction.
Defined.

End types.

(* Proofs decide type equality with [destruct (ty_eq_dec …)]; never unfold it. *)
Global Arguments ty_eq_dec : simpl never.

(** ** Operation symbols (paper §2.3, §5.3)
    The program's own operations, and [Get[ℓ] : Real(0) ▷ β_ℓ] and
    [Put[ℓ] : β_ℓ ▷ Real(0)] for every location. *)
Inductive opsym {Srt : sorts} : Type :=
| OpUser (o : op)
| OpGet (l : loc)
| OpPut (l : loc).

Definition opsym_eq_dec {Srt : sorts} (o1 o2 : opsym) : {o1 = o2} + {o1 <> o2}.
Proof.
  destruct o1 as [o1|l1|l1], o2 as [o2|l2|l2];
    try (right; discriminate).
  - destruct (op_eq_dec o1 o2) as [->|Hne]; [left; reflexivity|right; intros [=]; contradiction].
  - destruct (loc_eq_dec l1 l2) as [->|Hne]; [left; reflexivity|right; intros [=]; contradiction].
  - destruct (loc_eq_dec l1 l2) as [->|Hne]; [left; reflexivity|right; intros [=]; contradiction].
Defined.

(** ** Types of the symbols (paper §3, spec §2). *)
Class signature {Srt : sorts} := {
  (** The distinguished unit base type [1] ([Real(0)] in the examples). *)
  unit_base : base;
  (** [c : β]. *)
  const_ty : const -> base;
  (** [0_β] and [+_β]: the constants of each base type form a monoid; only
      the typing of the operations is used by the metatheory. *)
  czero : base -> const;
  cadd : const -> const -> const;
  czero_ty : forall b, const_ty (czero b) = b;
  cadd_ty : forall c1 c2, const_ty c1 = const_ty c2 ->
                          const_ty (cadd c1 c2) = const_ty c1;
  (** [f : A -> B]. *)
  fsym_dom : fsym -> ty;
  fsym_cod : fsym -> ty;
  (** Reverse-derivative closure: [rd[f] : A × B -> A]. *)
  rd : fsym -> fsym;
  rd_dom : forall f, fsym_dom (rd f) = TPair (fsym_dom f) (fsym_cod f);
  rd_cod : forall f, fsym_cod (rd f) = fsym_dom f;
  (** [Op : A ▷ B] for the program's operations. *)
  op_coar : op -> ty;
  op_ar : op -> ty;
  (** The base type stored at a location ([Real(n_t⋯n_1)] for
      [ℓ :: (n_1,…,n_t)]). *)
  loc_base : loc -> base;
}.

Section opsym_types.
Context {Srt : sorts} {Σ : signature}.

(** Coarity (input type) of an operation symbol. *)
Definition coar (o : opsym) : ty :=
  match o with
  | OpUser o => op_coar o
  | OpGet _ => TBase unit_base
  | OpPut l => TBase (loc_base l)
  end.

(** Arity (output type) of an operation symbol. *)
Definition ar (o : opsym) : ty :=
  match o with
  | OpUser o => op_ar o
  | OpGet l => TBase (loc_base l)
  | OpPut _ => TBase unit_base
  end.
End opsym_types.

(** * Syntax (paper §3, spec §3)

    Binders are de Bruijn indices; a context grows at the front, so index
    [0] is the most recently bound variable (spec §0: [Γ ::= ⋄ | x:A, Γ]).
    Projections are 0-based: the paper's [proj_1] is [Proj 0]. *)
From RevHandlers Require Import prelude signature.

Section syntax.
Context {Srt : sorts}.

(** ** Terms
<<
    L, M, N ::= x | c | f(M) | M1 + M2 | <M1,…,Mn> | proj_i(M)
              | let x ← M in N | M.rd(x.N)(L)
>>
    In [Let M N] and [Rd M N L] the term [N] binds index [0]. *)
Inductive tm : Type :=
| Var (x : nat)
| Const (c : const)
| App (f : fsym) (M : tm)
| Add (M1 M2 : tm)
| Tuple (Ms : list tm)
| Proj (i : nat) (M : tm)
| Let (M N : tm)
| Rd (M N L : tm).

(** Induction on terms with a hypothesis for every tuple component. *)
Fixpoint tm_ind' (P : tm -> Prop)
    (Hvar : forall x, P (Var x))
    (Hconst : forall c, P (Const c))
    (Happ : forall f M, P M -> P (App f M))
    (Hadd : forall M1 M2, P M1 -> P M2 -> P (Add M1 M2))
    (Htuple : forall Ms, Forall P Ms -> P (Tuple Ms))
    (Hproj : forall i M, P M -> P (Proj i M))
    (Hlet : forall M N, P M -> P N -> P (Let M N))
    (Hrd : forall M N L, P M -> P N -> P L -> P (Rd M N L))
    (M : tm) {struct M} : P M :=
  let IH := tm_ind' P Hvar Hconst Happ Hadd Htuple Hproj Hlet Hrd in
  match M with
  | Var x => Hvar x
  | Const c => Hconst c
  | App f M => Happ f M (IH M)
  | Add M1 M2 => Hadd M1 M2 (IH M1) (IH M2)
  | Tuple Ms =>
      Htuple Ms ((fix go (l : list tm) : Forall P l :=
                    match l with
                    | [] => Forall_nil P
                    | M' :: l' => Forall_cons M' (IH M') (go l')
                    end) Ms)
  | Proj i M => Hproj i M (IH M)
  | Let M N => Hlet M N (IH M) (IH N)
  | Rd M N L => Hrd M N L (IH M) (IH N) (IH L)
  end.

(** ** Values: [U, V, W ::= x | c | <V1,…,Vn>]. *)
Fixpoint is_value (M : tm) : bool :=
  match M with
  | Var _ | Const _ => true
  | Tuple Ms => (fix go (l : list tm) : bool :=
                   match l with [] => true | M' :: l' => is_value M' && go l' end) Ms
  | _ => false
  end.

Definition value (M : tm) : Prop := is_value M = true.

Lemma value_tuple_iff Ms : value (Tuple Ms) <-> Forall value Ms.
Proof.
  unfold value. simpl. induction Ms as [|M Ms IH]; simpl.
  - split; auto.
  - rewrite Bool.andb_true_iff, IH. split.
    + intros [? ?]. constructor; auto.
    + intros HF. inversion HF. auto.
Qed.

(** ** Commands and reverse handlers
<<
    P, Q, R ::= ⌊M⌋ | Op(M) | let x ⇐ P in Q | rev handle(M)<x1,…,xn>.R with H
    H       ::= {x ↦ P} ∪ {(x ↦ Q^f_Op | y,z ↦ Q^b_Op)}_Op
>>
    - [CLet P Q]: [Q] binds index [0].
    - [RevHandle M R H]: [R] is typed in exactly the binders [x1 … xn]
      (closed otherwise), [xi] being index [i-1]; their number is the length
      of the product type of [M], so it is not stored.
    - [Handler P cls]: the return clause [P] binds [x] (index 0).  [cls] is
      the finite list of explicit clauses (decisions.md item 8); every other
      operation gets the default clause ([typing.v]).
    - [CCons Op D Qf Qb rest]: [D] is the residual type [D_Op]; [Qf] binds
      [x] (index 0); [Qb] binds [y] (index 0) and [z] (index 1), i.e. it is
      typed in [y:B, z:D]. *)
Inductive cmd : Type :=
| Ret (M : tm)
| Op (o : opsym) (M : tm)
| CLet (P Q : cmd)
| RevHandle (M : tm) (R : cmd) (H : handler)
with handler : Type :=
| Handler (P : cmd) (cls : clauses)
with clauses : Type :=
| CNil
| CCons (o : opsym) (D : ty) (Qf Qb : cmd) (rest : clauses).

Scheme cmd_mut := Induction for cmd Sort Prop
  with handler_mut := Induction for handler Sort Prop
  with clauses_mut := Induction for clauses Sort Prop.
Combined Scheme cmd_mutind from cmd_mut, handler_mut, clauses_mut.

(** ** Depth of reverse-handler nesting (paper §3, spec §8.6).
    Default clauses have depth 0, so only explicit clauses count. *)
Fixpoint depth (P : cmd) : nat :=
  match P with
  | Ret _ | Op _ _ => 0
  | CLet P Q => Nat.max (depth P) (depth Q)
  | RevHandle _ R H => S (Nat.max (depth R) (depth_handler H))
  end
with depth_handler (H : handler) : nat :=
  match H with Handler P cls => Nat.max (depth P) (depth_clauses cls) end
with depth_clauses (cls : clauses) : nat :=
  match cls with
  | CNil => 0
  | CCons _ _ Qf Qb rest =>
      Nat.max (Nat.max (depth Qf) (depth Qb)) (depth_clauses rest)
  end.

(** Unfolding equations ([simpl] does not refold this mutual fixpoint). *)
Lemma depth_ret M : depth (Ret M) = 0.
Proof. reflexivity. Qed.
Lemma depth_op o M : depth (Op o M) = 0.
Proof. reflexivity. Qed.
Lemma depth_clet P Q : depth (CLet P Q) = Nat.max (depth P) (depth Q).
Proof. reflexivity. Qed.
Lemma depth_revhandle M R H : depth (RevHandle M R H) = S (Nat.max (depth R) (depth_handler H)).
Proof. reflexivity. Qed.
Lemma depth_handler_eq P cls : depth_handler (Handler P cls) = Nat.max (depth P) (depth_clauses cls).
Proof. reflexivity. Qed.
Lemma depth_clauses_nil : depth_clauses CNil = 0.
Proof. reflexivity. Qed.
Lemma depth_clauses_cons o D Qf Qb rest :
  depth_clauses (CCons o D Qf Qb rest) =
  Nat.max (Nat.max (depth Qf) (depth Qb)) (depth_clauses rest).
Proof. reflexivity. Qed.

(** ** Scopes: [scoped_tm n M] when every free variable of [M] is below
    [n] (the reader's scopes, frontend.v; [tape.v]'s [tm_closed]). *)
Fixpoint scoped_tm (n : nat) (M : tm) : bool :=
  match M with
  | Var i => Nat.ltb i n
  | Const _ => true
  | App _ N | Proj _ N => scoped_tm n N
  | Add M1 M2 => scoped_tm n M1 && scoped_tm n M2
  | Tuple Ms => forallb (scoped_tm n) Ms
  | Let N1 N2 => scoped_tm n N1 && scoped_tm (S n) N2
  | Rd N1 N2 L => scoped_tm n N1 && scoped_tm (S n) N2 && scoped_tm n L
  end.

End syntax.

Ltac simpl_depth :=
  repeat rewrite ?depth_ret, ?depth_op, ?depth_clet, ?depth_revhandle, ?depth_handler_eq,
    ?depth_clauses_nil, ?depth_clauses_cons in *.

(** ** The evaluation function [Ev] (paper §5.1): a partial map from a
    function symbol and a closed value to a closed value.  Its typing
    hypothesis is [evaluator_ok] in [typing.v]. *)
Class evaluator {Srt : sorts} := {
  ev : fsym -> tm -> option tm;
}.

(** * Syntax of the pullback language (Mak and Ong, Fig. 1; spec §1-§2)

    - Types [σ ::= R | σ × σ | σ ⇒ σ | σ*].
    - One datatype [tm] holds simple terms, pullback terms ([0], [S + P]) and
      the let series produced by A-reduction.  It is a superset of the
      grammar of Fig. 1; the grammar itself, closed as spec §2.1 [GAP]
      recommends (pullback terms in pair components and dual bodies), is the
      pair of predicates [simple_tm] / [pb_tm] below.  Sums are plain syntax:
      the paper's identification of [+] up to associativity, commutativity
      and unit is not built in.
    - Binders are de Bruijn indices.  [Lam s], [Dual s1 s2] ([(λx.s1)* · s2])
      and [Pb p s] ([(Ω λx.p) · s]) bind index [0] in their first argument,
      [Let e l] binds index [0] in [l].
    - Projections are binary, [Proj false] is [π1] and [Proj true] is [π2];
      the paper's [y^{πi}] for an n-tuple is an access path ([ppath], spec §1
      [GAP]).
    - Numeric constants [r*] carry a nested tuple of scalars ([num]); the
      spec's [r ∈ R^n] is the left-nested case.

    The signature (function symbols, their values and Jacobians) is a type
    class taken as a section variable: nothing here is an axiom. *)
From Coq Require Export List Bool Arith Lia.
Export ListNotations.

(** ** Numeric tuples: a scalar, a pair of numeric tuples, or the zero
    tuple [NZ] of any shape.  [NZ] lets numeric back-propagation (reduction
    (5⁺)) start from a zero cotangent without knowing its shape; it is
    typed at every type. *)
Inductive num (K : Type) : Type :=
| NR (r : K)
| NP (a b : num K)
| NZ.
Arguments NR {K} r.
Arguments NP {K} a b.
Arguments NZ {K}.

(** A numeric tuple without [NZ]. *)
Fixpoint dense {K} (r : num K) : Prop :=
  match r with
  | NR _ => True
  | NP a b => dense a /\ dense b
  | NZ => False
  end.

(** ** Types *)
Inductive ty : Type :=
| TR
| TProd (A B : ty)
| TArr (A B : ty)
| TDual (A : ty).

(** [Ω σ ≡ σ ⇒ σ*], the type of 1-forms on [σ]. *)
Definition TOmega (A : ty) : ty := TArr A (TDual A).

(** [R^n], left-nested: [R^1 = R], [R^(n+1) = R^n × R].  Arities are
    meant to be at least 1; [R^0] is read as [R]. *)
Fixpoint Rn (n : nat) : ty :=
  match n with
  | 0 | 1 => TR
  | S m => TProd (Rn m) TR
  end.

(** Numeric tuples of a type: only [R] and products have them. *)
Inductive num_ty {K} : num K -> ty -> Prop :=
| num_ty_r r : num_ty (NR r) TR
| num_ty_p a b A B : num_ty a A -> num_ty b B -> num_ty (NP a b) (TProd A B)
| num_ty_z A : num_ty NZ A.

(** ** The signature: scalars and function symbols with their Jacobians.
    [fjac f x v] is [J(f)(x)(v)], [fjac_t f x c] is [(J(f)(x))ᵀ c].  The
    scalar operations are only used by reduction (5⁺); no law about them is
    assumed here ([transpose.v] takes the ring laws as a hypothesis). *)
Class signature := {
  scalar : Type;
  szero : scalar;
  sadd : scalar -> scalar -> scalar;
  smul : scalar -> scalar -> scalar;
  fsym : Type;
  fdom : fsym -> nat;
  fcod : fsym -> nat;
  fsem : fsym -> num scalar -> num scalar;
  fjac : fsym -> num scalar -> num scalar -> num scalar;
  fjac_t : fsym -> num scalar -> num scalar -> num scalar;
  fsem_ty : forall f x, num_ty x (Rn (fdom f)) -> num_ty (fsem f x) (Rn (fcod f));
  fjac_ty : forall f x v, num_ty x (Rn (fdom f)) -> num_ty v (Rn (fdom f)) ->
                          num_ty (fjac f x v) (Rn (fcod f));
  fjac_t_ty : forall f x c, num_ty x (Rn (fdom f)) -> num_ty c (Rn (fcod f)) ->
                            num_ty (fjac_t f x c) (Rn (fdom f));
}.

Section syntax.
Context {Σ : signature}.

Notation nm := (num scalar).

(** ** Terms
<<
    S ::= x | λx.S | S P | πi(S) | ⟨P, P⟩ | r | f(P) | J f · S
        | (λx.P)* · S | (Ω λx.P) · S | r*
    P ::= 0 | S | S + P
    L ::= let z = E in L | let z = E in z        (A-normal forms, §4)
>> *)
Inductive tm : Type :=
| Var (n : nat)
| Lam (s : tm)
| App (s p : tm)
| Proj (i : bool) (s : tm)
| Pair (s1 s2 : tm)
| Real (r : scalar)
| Fun (f : fsym) (p : tm)
| Jac (f : fsym) (s : tm)
| Dual (s1 s2 : tm)
| Pb (p s : tm)
| NDual (r : nm)
| Zero
| Plus (s p : tm)
| Let (e l : tm).

(** Numeric tuples as terms: [⟨r1, r2⟩] etc. *)
Fixpoint num_tm (r : nm) : tm :=
  match r with
  | NR x => Real x
  | NP a b => Pair (num_tm a) (num_tm b)
  | NZ => Zero
  end.

(** ** Access paths [t^{π i1 … ik}]: the head of the list is applied first. *)
Fixpoint ppath (p : list bool) (t : tm) : tm :=
  match p with
  | [] => t
  | i :: p' => ppath p' (Proj i t)
  end.

Lemma ppath_app p q t : ppath (p ++ q) t = ppath q (ppath p t).
Proof. revert t. induction p; simpl; auto. Qed.

(** ** The grammar of Fig. 1, closed as spec §2.1 [GAP] recommends. *)
Inductive simple_tm : tm -> Prop :=
| simple_var n : simple_tm (Var n)
| simple_lam s : simple_tm s -> simple_tm (Lam s)
| simple_app s p : simple_tm s -> pb_tm p -> simple_tm (App s p)
| simple_proj i s : simple_tm s -> simple_tm (Proj i s)
| simple_pair p1 p2 : pb_tm p1 -> pb_tm p2 -> simple_tm (Pair p1 p2)
| simple_real r : simple_tm (Real r)
| simple_fun f p : pb_tm p -> simple_tm (Fun f p)
| simple_jac f s : simple_tm s -> simple_tm (Jac f s)
| simple_dual p s : pb_tm p -> simple_tm s -> simple_tm (Dual p s)
| simple_pb p s : pb_tm p -> simple_tm s -> simple_tm (Pb p s)
| simple_ndual r : simple_tm (NDual r)
with pb_tm : tm -> Prop :=
| pb_zero : pb_tm Zero
| pb_simple s : simple_tm s -> pb_tm s
| pb_plus s p : simple_tm s -> pb_tm p -> pb_tm (Plus s p).

(** ** Renaming and substitution (Autosubst style, written by hand). *)
Definition up_ren (ρ : nat -> nat) : nat -> nat :=
  fun n => match n with 0 => 0 | S m => S (ρ m) end.

Fixpoint ren (ρ : nat -> nat) (t : tm) : tm :=
  match t with
  | Var n => Var (ρ n)
  | Lam s => Lam (ren (up_ren ρ) s)
  | App s p => App (ren ρ s) (ren ρ p)
  | Proj i s => Proj i (ren ρ s)
  | Pair a b => Pair (ren ρ a) (ren ρ b)
  | Real r => Real r
  | Fun f p => Fun f (ren ρ p)
  | Jac f s => Jac f (ren ρ s)
  | Dual s1 s2 => Dual (ren (up_ren ρ) s1) (ren ρ s2)
  | Pb p s => Pb (ren (up_ren ρ) p) (ren ρ s)
  | NDual r => NDual r
  | Zero => Zero
  | Plus a b => Plus (ren ρ a) (ren ρ b)
  | Let e l => Let (ren ρ e) (ren (up_ren ρ) l)
  end.

(** [↑t]: shift every free index by one. *)
Definition shift (t : tm) : tm := ren S t.

Definition up (σ : nat -> tm) : nat -> tm :=
  fun n => match n with 0 => Var 0 | S m => shift (σ m) end.

Fixpoint subst (σ : nat -> tm) (t : tm) : tm :=
  match t with
  | Var n => σ n
  | Lam s => Lam (subst (up σ) s)
  | App s p => App (subst σ s) (subst σ p)
  | Proj i s => Proj i (subst σ s)
  | Pair a b => Pair (subst σ a) (subst σ b)
  | Real r => Real r
  | Fun f p => Fun f (subst σ p)
  | Jac f s => Jac f (subst σ s)
  | Dual s1 s2 => Dual (subst (up σ) s1) (subst σ s2)
  | Pb p s => Pb (subst (up σ) p) (subst σ s)
  | NDual r => NDual r
  | Zero => Zero
  | Plus a b => Plus (subst σ a) (subst σ b)
  | Let e l => Let (subst σ e) (subst (up σ) l)
  end.

Definition scons (u : tm) (σ : nat -> tm) : nat -> tm :=
  fun n => match n with 0 => u | S m => σ m end.

(** [t[u/0]]: substitute [u] for index [0] and lower the others. *)
Definition subst1 (u t : tm) : tm := subst (scons u Var) t.

Lemma ren_ppath ρ p t : ren ρ (ppath p t) = ppath p (ren ρ t).
Proof. revert t. induction p; simpl; auto. intros t. rewrite IHp. reflexivity. Qed.

Lemma subst_ppath σ p t : subst σ (ppath p t) = ppath p (subst σ t).
Proof. revert t. induction p; simpl; auto. intros t. rewrite IHp. reflexivity. Qed.

Lemma ren_num ρ r : ren ρ (num_tm r) = num_tm r.
Proof. induction r; simpl; congruence. Qed.

Lemma subst_num σ r : subst σ (num_tm r) = num_tm r.
Proof. induction r; simpl; congruence. Qed.

(** ** Variable sets, free variables and linearity

    A set of indices is a predicate [X : nat -> Prop].  Under a binder the
    set is shifted: [lift X] leaves the bound variable out, [ext X] puts it
    in. *)
Definition lift (X : nat -> Prop) : nat -> Prop :=
  fun n => match n with 0 => False | S m => X m end.
Definition ext (X : nat -> Prop) : nat -> Prop :=
  fun n => match n with 0 => True | S m => X m end.

(** [nocc X t]: no variable of [X] is free in [t] ([FV(t) ∩ X = ∅]). *)
Fixpoint nocc (X : nat -> Prop) (t : tm) : Prop :=
  match t with
  | Var n => ~ X n
  | Lam s => nocc (lift X) s
  | App a b | Pair a b | Plus a b => nocc X a /\ nocc X b
  | Proj _ s | Fun _ s | Jac _ s => nocc X s
  | Dual s1 s2 | Pb s1 s2 => nocc (lift X) s1 /\ nocc X s2
  | Let e l => nocc X e /\ nocc (lift X) l
  | Real _ | NDual _ | Zero => True
  end.

(** [lin X t]: [t] is (jointly) linear in the variables of [X] (spec §2.2).
    For a single variable, [lin (eq y) t] is the paper's [y ∈ lin(t)] on the
    grammar of Fig. 1, extended as spec §2.2 [GAP] recommends
    ([lin(0)] = every variable, [lin(S + P) = lin(S) ∩ lin(P)], and
    [FV(λx.S1)] in the dual-map clause).  Two further choices of this
    development:
    - the set is a set of variables, not one variable, because a let series
      [let z = E in L] is linear in [y] when [E] is linear in [y] and [L] is
      jointly linear in [y] and [z]; with single variables A-reduction would
      not preserve linearity (e.g. [x + x] is linear in [x], its A-normal
      form [let a = x; b = x; c = a + b in c] is not, variable by variable);
    - [lin(let z = E in L)] is the composition rule read off that remark:
      [E] linear and [L] linear in [X ∪ {z}], or [E] free of [X] and [L]
      linear in [X]. *)
Fixpoint lin (X : nat -> Prop) (t : tm) : Prop :=
  match t with
  | Var n => X n
  | Lam s => lin (lift X) s
  | App s p => lin X s /\ nocc X p
  | Proj _ s => lin X s
  | Pair a b => lin X a /\ lin X b
  | Jac _ s => lin X s
  | Dual s1 s2 => (lin (lift X) s1 /\ nocc X s2) \/ (lin X s2 /\ nocc (lift X) s1)
  | Zero => True
  | Plus a b => lin X a /\ lin X b
  | Let e l => (lin X e /\ lin (ext X) l) \/ (nocc X e /\ lin (lift X) l)
  | Real _ | Fun _ _ | Pb _ _ | NDual _ => False
  end.

(** The bound variable of a dual map: [x ∈ lin(S1)] is [lin is0 S1]. *)
Definition is0 (n : nat) : Prop := n = 0.

Lemma nocc_ext (X Y : nat -> Prop) t : (forall n, Y n -> X n) -> nocc X t -> nocc Y t.
Proof.
  revert X Y. induction t; intros X Y HYX H; simpl in *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split;
    try (eapply IHt; [|eassumption]); try (eapply IHt1; [|eassumption]);
    try (eapply IHt2; [|eassumption]); auto;
    intros [|m]; simpl; auto.
Qed.

Lemma lin_ext (X Y : nat -> Prop) t : (forall n, Y n <-> X n) -> lin X t -> lin Y t.
Proof.
  revert X Y. induction t; intros X Y HXY H; simpl in *; auto;
    try solve [apply HXY; auto];
    try (destruct H as [[? ?]|[? ?]]; [left|right]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split;
    repeat match goal with
      | IH : forall X Y : nat -> Prop, _ -> lin X ?t -> lin Y ?t, H : lin ?X ?t |- lin _ ?t =>
          apply (IH X); [intros [|?]; simpl; firstorder | exact H]
      | H : nocc ?X ?t |- nocc _ ?t =>
          apply (nocc_ext X); [intros [|?]; simpl; firstorder | exact H]
      end.
Qed.

(** *** Renaming *)
Lemma nocc_ren (X Y : nat -> Prop) ρ t :
  (forall n, Y (ρ n) -> X n) -> nocc X t -> nocc Y (ren ρ t).
Proof.
  revert X Y ρ. induction t; intros X Y ρ Hρ H; simpl in *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split; auto;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) ρ, _ -> nocc X ?t -> nocc Y (ren ρ ?t),
        H : nocc ?X ?t |- nocc _ (ren _ ?t) =>
          apply (IH X); [intros [|?]; simpl; auto | exact H]
      end.
Qed.

Lemma lin_ren (X Y : nat -> Prop) ρ t :
  (forall n, Y (ρ n) <-> X n) -> lin X t -> lin Y (ren ρ t).
Proof.
  revert X Y ρ. induction t; intros X Y ρ Hρ H; simpl in *; auto;
    try solve [apply Hρ; auto];
    try (destruct H as [[? ?]|[? ?]]; [left|right]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) ρ, _ -> lin X ?t -> lin Y (ren ρ ?t),
        H : lin ?X ?t |- lin _ (ren _ ?t) =>
          apply (IH X); [intros [|?]; simpl; firstorder | exact H]
      | H : nocc ?X ?t |- nocc _ (ren _ ?t) =>
          apply (nocc_ren X); [intros [|?]; simpl; firstorder | exact H]
      end.
Qed.

Lemma nocc_ren_inv (X Y : nat -> Prop) ρ t :
  (forall n, X n -> Y (ρ n)) -> nocc Y (ren ρ t) -> nocc X t.
Proof.
  revert X Y ρ. induction t; intros X Y ρ Hρ H; simpl in *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split; auto;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) ρ, _ -> nocc Y (ren ρ ?t) -> nocc X ?t,
        H : nocc ?Y (ren ?ρ ?t) |- nocc _ ?t =>
          apply (IH _ Y ρ); [intros [|?]; simpl; auto | exact H]
      end.
Qed.

Lemma lin_ren_inv (X Y : nat -> Prop) ρ t :
  (forall n, Y (ρ n) <-> X n) -> lin Y (ren ρ t) -> lin X t.
Proof.
  revert X Y ρ. induction t; intros X Y ρ Hρ H; simpl in *; auto;
    try solve [apply Hρ; auto];
    try (destruct H as [[? ?]|[? ?]]; [left|right]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) ρ, _ -> lin Y (ren ρ ?t) -> lin X ?t,
        H : lin ?Y (ren ?ρ ?t) |- lin _ ?t =>
          apply (IH _ Y ρ); [intros [|?]; simpl; firstorder | exact H]
      | H : nocc ?Y (ren ?ρ ?t) |- nocc _ ?t =>
          apply (nocc_ren_inv _ Y ρ); [intros [|?]; simpl; firstorder | exact H]
      end.
Qed.

Lemma nocc_union (X Z : nat -> Prop) t :
  nocc X t -> nocc Z t -> nocc (fun n => X n \/ Z n) t.
Proof.
  revert X Z. induction t; intros X Z H Hn; simpl in *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split; try tauto;
    repeat match goal with
      | IH : forall X Z : nat -> Prop, nocc X ?t -> nocc Z ?t -> nocc _ ?t,
        H : nocc ?X ?t, H' : nocc ?Z ?t |- nocc _ ?t =>
          eapply nocc_ext; [|exact (IH X Z H H')]; intros [|?]; simpl; tauto
      end.
Qed.

(** Adding variables that do not occur keeps a term linear. *)
Lemma lin_union (X Z : nat -> Prop) t :
  lin X t -> nocc Z t -> lin (fun n => X n \/ Z n) t.
Proof.
  revert X Z. induction t; intros X Z H Hn; simpl in *; auto;
    try (destruct H as [[? ?]|[? ?]]; [left|right]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split; try tauto;
    repeat match goal with
      | IH : forall X Z : nat -> Prop, lin X ?t -> nocc Z ?t -> lin _ ?t,
        H : lin ?X ?t, H' : nocc ?Z ?t |- lin _ ?t =>
          eapply lin_ext; [|exact (IH X Z H H')]; intros [|?]; simpl; tauto
      | H : nocc ?X ?t, H' : nocc ?Z ?t |- nocc _ ?t =>
          eapply nocc_ext; [|exact (nocc_union X Z t H H')]; intros [|?]; simpl; tauto
      end.
Qed.

(** *** Substitution *)
Lemma nocc_up (X Y : nat -> Prop) σ :
  (forall n, ~ X n -> nocc Y (σ n)) ->
  forall n, ~ lift X n -> nocc (lift Y) (up σ n).
Proof.
  intros H [|n] Hn; simpl in *; auto.
  unfold shift. eapply nocc_ren; [|apply H; exact Hn]. simpl. auto.
Qed.

Lemma nocc_subst (X Y : nat -> Prop) σ t :
  (forall n, ~ X n -> nocc Y (σ n)) -> nocc X t -> nocc Y (subst σ t).
Proof.
  revert X Y σ. induction t; intros X Y σ Hσ H; simpl in *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split; auto;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) σ, _ -> nocc X ?t -> nocc Y (subst σ ?t),
        H : nocc ?X ?t |- nocc _ (subst _ ?t) =>
          apply (IH X); [try apply nocc_up; auto | exact H]
      end.
Qed.

Lemma lin_subst (X Y : nat -> Prop) σ t :
  (forall n, X n -> lin Y (σ n)) ->
  (forall n, ~ X n -> nocc Y (σ n)) ->
  lin X t -> lin Y (subst σ t).
Proof.
  revert X Y σ t.
  assert (HNE : forall (X Y : nat -> Prop) σ, (forall n, ~ X n -> nocc Y (σ n)) ->
                 forall n, ~ ext X n -> nocc (ext Y) (up σ n)).
  { intros X Y σ H [|n] Hn; simpl in *; [tauto|].
    unfold shift. eapply nocc_ren; [|apply H; exact Hn]. simpl. auto. }
  assert (HL : forall (X Y : nat -> Prop) σ, (forall n, X n -> lin Y (σ n)) ->
                 forall n, lift X n -> lin (lift Y) (up σ n)).
  { intros X Y σ H [|n] Hn; simpl in *; [tauto|].
    unfold shift. eapply lin_ren; [|apply H; exact Hn]. simpl. tauto. }
  assert (HE : forall (X Y : nat -> Prop) σ, (forall n, X n -> lin Y (σ n)) ->
                 forall n, ext X n -> lin (ext Y) (up σ n)).
  { intros X Y σ H [|n] Hn; simpl in *; auto.
    unfold shift. eapply lin_ren; [|apply H; exact Hn]. simpl. tauto. }
  intros X0 Y0 σ0 t. revert X0 Y0 σ0. induction t; intros X Y σ Hl Hσ H; simpl in *; auto;
    try (destruct H as [[? ?]|[? ?]]; [left|right]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat split;
    repeat match goal with
      | IH : forall (X Y : nat -> Prop) σ, _ -> _ -> lin X ?t -> lin Y (subst σ ?t),
        H : lin ?X ?t |- lin _ (subst _ ?t) =>
          apply (IH X); [first [apply HL | apply HE | idtac]; auto
                        | first [apply nocc_up | apply HNE | idtac]; auto | exact H]
      | H : nocc ?X ?t |- nocc _ (subst _ ?t) =>
          apply (nocc_subst X); [first [apply nocc_up | idtac]; auto | exact H]
      end.
Qed.

End syntax.

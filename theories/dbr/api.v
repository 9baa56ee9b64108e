(** * The API and its specification (paper Figure 1 and §2; spec §1, §3)

    - [dict Q A V]: the dictionary [{zero; one; add; mul}] of Figure 1 over
      numbers [V]; [add] and [mul] may perform requests [Q ~> A].
    - [exp]: the tagless-final (Church–Böhm–Berarducci) expressions, the
      computations [eval_exp : dict Q A V -> V -> tree Q A V] polymorphic in the
      numbers [V] and in the effect [Q ~> A].  Polymorphism in [Q]/[A] is
      the paper's effect polymorphism made explicit: an [exp] performs
      requests only through the dictionary it is given.
    - [num_spec le Ψ S impl d] (the paper's Figure 6, [isNumDict]): the
      dictionary [d] implements the commutative semiring [S] under the
      protocol [Ψ], where [impl w v s] ("[v] implements [s]" in world [w])
      is a relation preserved by the operations.
    - [denotes e E] (Definition 5.2, [isExp]): [e] denotes [E] when, for
      every worlds, protocol, semiring, representation relation and
      dictionary satisfying [num_spec], and every [x] implementing [r],
      running [e d x] is safe under the protocol and returns a number that
      implements [⟦E⟧(r)].

    The worlds make the relation Kripke-style: [impl] may depend on a world
    that only grows ([le] is a preorder and [impl] is monotone), as Hazel's
    persistent assertions may depend on ghost state.  With [W := unit] the
    relation is the plain one. *)
From DefineByRun Require Export expr effects.

Record dict (Q A V : Type) : Type := {
  zero : V;
  one : V;
  add : V -> V -> tree Q A V;
  mul : V -> V -> tree Q A V;
}.
Arguments zero {Q A V} d.
Arguments one {Q A V} d.
Arguments add {Q A V} d _ _.
Arguments mul {Q A V} d _ _.

(** The dictionary's operation for a [binop]. *)
Definition dict_op {Q A V} (d : dict Q A V) (op : binop) : V -> V -> tree Q A V :=
  match op with Add => add d | Mul => mul d end.

(** As in the paper's OCaml, an expression is a record with one
    polymorphic field; the record keeps the type arguments of [eval_exp]
    visible to extraction. *)
Record exp : Type := MkExp {
  eval_exp : forall (Q A V : Type), dict Q A V -> V -> tree Q A V;
}.

Local Open Scope sr_scope.

Record num_spec {W Q A V : Type} (le : W -> W -> Prop)
    (Ψ : W -> Q -> (W -> A -> Prop) -> Prop) (S : semiring)
    (impl : W -> V -> S -> Prop) (d : dict Q A V) : Prop := {
  ns_le_preorder : PreOrder le;
  ns_impl_mono : forall w w' v s, le w w' -> impl w v s -> impl w' v s;
  ns_impl_eq : forall w v s s', s ≡ s' -> impl w v s -> impl w v s';
  ns_zero : forall w, impl w (zero d) 0;
  ns_one : forall w, impl w (one d) 1;
  ns_add : forall w a b s s', impl w a s -> impl w b s' ->
    wp Ψ w (add d a b) (fun w' c => le w w' /\ impl w' c (s ⊕ s'));
  ns_mul : forall w a b s s', impl w a s -> impl w b s' ->
    wp Ψ w (mul d a b) (fun w' c => le w w' /\ impl w' c (s ⊗ s'));
}.

(** Definition 5.2: [e] denotes [E]. *)
Definition denotes (e : exp) (E : expr unit) : Prop :=
  forall (W Q A V : Type) (le : W -> W -> Prop) (Ψ : W -> Q -> (W -> A -> Prop) -> Prop)
         (S : semiring) (impl : W -> V -> S -> Prop) (d : dict Q A V),
  num_spec le Ψ S impl d ->
  forall w x r, impl w x r ->
  wp Ψ w (eval_exp e Q A V d x) (fun w' y => le w w' /\ impl w' y (eval1 r E)).

Section num_spec_facts.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).

Lemma ns_le_refl w : le w w.
Proof. destruct (ns_le_preorder _ _ _ _ _ Hd) as [Hr _]. apply Hr. Qed.

Lemma ns_le_trans w1 w2 w3 : le w1 w2 -> le w2 w3 -> le w1 w3.
Proof. destruct (ns_le_preorder _ _ _ _ _ Hd) as [_ Ht]. apply Ht. Qed.

Lemma ns_op w op a b s s' : impl w a s -> impl w b s' ->
  wp Ψ w (dict_op d op a b) (fun w' c => le w w' /\ impl w' c (binop_den op s s')).
Proof. destruct op; [apply (ns_add _ _ _ _ _ Hd)|apply (ns_mul _ _ _ _ _ Hd)]. Qed.
End num_spec_facts.

(** [isExp_ext]: [denotes] depends only on the meaning of [E] in every
    commutative semiring.

    Informal proof: the result implements [⟦E1⟧(r)], equal to [⟦E2⟧(r)] in
    the semiring, and [impl] respects the semiring's equality. *)
Lemma denotes_ext e E1 E2 :
  (forall (S : semiring) (r : S), eval1 r E1 ≡ eval1 r E2) ->
  denotes e E1 -> denotes e E2.
Proof.
  intros HE He W Q A V le Ψ S impl d Hd w x r Hx.
  apply (wp_mono _ _ _ _ _ (He W Q A V le Ψ S impl d Hd w x r Hx)).
  intros w' y [Hle Hy]. split; [exact Hle|].
  exact (ns_impl_eq _ _ _ _ _ Hd _ _ _ _ (HE S r) Hy).
Qed.

(** Running an expression with a pure dictionary (no request): the result,
    if the tree is a [Ret]. *)
Definition run {V : Type} (t : tree Empty_set Empty_set V) : option V :=
  match t with Ret v => Some v | Req _ _ => None end.

(** The pure dictionary of a semiring's own operations. *)
Definition sr_dict (S : semiring) : dict Empty_set Empty_set S := {|
  zero := sr_zero;
  one := sr_one;
  add := fun a b => Ret (a ⊕ b);
  mul := fun a b => Ret (a ⊗ b);
|}.

Lemma sr_dict_spec (S : semiring) :
  num_spec (fun (_ _ : unit) => True) no_effect S (fun _ v s => v ≡ s) (sr_dict S).
Proof.
  split.
  - split; intros ?; auto.
  - auto.
  - intros w v s s' Hs Hv. rewrite <- Hs. exact Hv.
  - intros w. reflexivity.
  - intros w. reflexivity.
  - intros w a b s s' Ha Hb. apply wp_ret. split; [exact I|]. simpl. rewrite Ha, Hb. reflexivity.
  - intros w a b s s' Ha Hb. apply wp_ret. split; [exact I|]. simpl. rewrite Ha, Hb. reflexivity.
Qed.

(** An expression that denotes [E], run with a semiring's own pure
    dictionary, performs no request and computes [⟦E⟧(r)].

    Informal proof: the pure dictionary satisfies [num_spec] with one world,
    the empty protocol and [impl v s := v ≡ s] ([sr_dict_spec]); a
    computation safe under the empty protocol is a [Ret]
    ([wp_no_effect]). *)
Lemma denotes_run e E (S : semiring) (r : S) :
  denotes e E -> exists y, eval_exp e _ _ _ (sr_dict S) r = Ret y /\ y ≡ eval1 r E.
Proof.
  intros He.
  destruct (wp_no_effect _ _ _ (He _ _ _ _ _ _ S _ _ (sr_dict_spec S) tt r r
    (reflexivity r))) as (y & Hy & _ & HyE).
  eauto.
Qed.

(** * The first-order fragment of the pullback language

    Corollary 5.2 of Mak and Ong (every reduction ends in a value) is
    proved in [norm_fo.v] for the fragment defined here.  The fragment is
    syntactic: it is the set of terms a first-order query
<<
    ((Ω λy.P) · ω) V
>>
    meets on its way to a value, closed under [step] ([fq_step]).  It is
    given by four predicates:
    - [flat t]: no abstraction, dual map or pullback anywhere in [t] (the
      points and the bodies of dual maps: variables, projections, pairs,
      scalars, [0], sums, function symbols, Jacobians, applications,
      numeric duals and [let]);
    - [fob P]: a first-order pullback body, built from variables,
      projections, pairs, scalars, [0], sums, function symbols and [let]
      only, whose [let]s are let series ([fo_body P] adds [wf_let P], the
      first exclusion of "Where the rules stop": a [let] in a pullback's
      body is a let series; the second exclusion, no Jacobian applied in a
      pullback's body, holds because [fob] has no Jacobian and no
      application at all);
    - [dflat t]: a chain of dual maps with [flat] bodies ending in a
      [flat] term (the reverse phase, and the bodies of the 1-forms);
    - [form w]: a 1-form [λx.D] with [dflat D], or a pullback
      [(Ω λy.P) · w'] of a [fo_body] along a [form];
    and [fq t], the fragment itself: [flat] terms, [form]s, a [form]
    applied to a [flat] point, and dual maps [(λv.S)* · Q] with a [flat]
    body along an [fq] term.

    No typing is assumed: the fragment is first-order by its syntax (its
    only abstractions are the 1-forms, and they are applied only to
    points), so normalization holds of every term of it, typed or not,
    closed or open ([fq_norm]).  The queries of the campaign's
    first-order class whose body has no written [let] other than a let
    series and no Jacobian are in it, with the constant 1-forms
    [λx.c*] and the differential [λx.(λv.(J g · v) x)* · [1]*]. *)
From Pullback Require Import syntax typing anf backprop reduction preservation progress decide.

Section fo.
Context {Σ : signature}.

(** ** The fragment *)

(** First-order terms: no binder but [let], no dual map, no pullback. *)
Fixpoint flat (t : tm) : Prop :=
  match t with
  | Var _ | Real _ | Zero | NDual _ => True
  | Proj _ a | Fun _ a | Jac _ a => flat a
  | App a b | Pair a b | Plus a b | Let a b => flat a /\ flat b
  | Lam _ | Dual _ _ | Pb _ _ => False
  end.

(** First-order pullback bodies (no Jacobian, no application). *)
Fixpoint fob (t : tm) : Prop :=
  match t with
  | Var _ | Real _ | Zero => True
  | Proj _ a | Fun _ a => fob a
  | Pair a b | Plus a b | Let a b => fob a /\ fob b
  | _ => False
  end.

(** The exclusion of "Where the rules stop": a [let] in a pullback's body
    is a let series. *)
Definition fo_body (p : tm) : Prop := fob p /\ wf_let p.

(** Chains of dual maps with first-order bodies. *)
Fixpoint dflat (t : tm) : Prop :=
  match t with
  | Dual s q => flat s /\ dflat q
  | t => flat t
  end.

(** 1-forms: [λx.D], and pullbacks of first-order bodies along 1-forms. *)
Fixpoint form (t : tm) : Prop :=
  match t with
  | Lam b => dflat b
  | Pb p w => fo_body p /\ form w
  | _ => False
  end.

(** The fragment. *)
Fixpoint fq (t : tm) : Prop :=
  flat t \/ form t \/
  match t with
  | App w v => form w /\ flat v
  | Dual s q => flat s /\ fq q
  | _ => False
  end.

(** The first-order queries: [((Ω λy.P) · ω) V]. *)
Definition fo_query (t : tm) : Prop :=
  exists P w V, t = App (Pb P w) V /\ fo_body P /\ form w /\ flat V.

Lemma fo_query_fq t : fo_query t -> fq t.
Proof. intros (P & w & V & -> & HP & Hw & HV). right; right. simpl. tauto. Qed.

(** ** Renaming and substitution *)

Lemma flat_ren ρ t : flat t -> flat (ren ρ t).
Proof. revert ρ. induction t; intros ρ; simpl; intuition. Qed.

Lemma flat_subst σ t : (forall n, flat (σ n)) -> flat t -> flat (subst σ t).
Proof.
  revert σ. induction t; intros σ Hσ; simpl; intuition.
  apply IHt2; [|assumption]. intros [|n]; simpl; [exact I|apply flat_ren, Hσ].
Qed.

Lemma flat_num r : flat (num_tm r).
Proof. induction r; simpl; auto. Qed.

Lemma flat_ppath p t : flat t -> flat (ppath p t).
Proof. revert t. induction p; simpl; auto. Qed.

Lemma fob_flat t : fob t -> flat t.
Proof. induction t; simpl; intuition. Qed.

Lemma fob_ren ρ t : fob t -> fob (ren ρ t).
Proof. revert ρ. induction t; intros ρ; simpl; intuition. Qed.

Lemma fob_subst σ t : (forall n, fob (σ n)) -> fob t -> fob (subst σ t).
Proof.
  revert σ. induction t; intros σ Hσ; simpl; intuition.
  apply IHt2; [|assumption]. intros [|n]; simpl; [exact I|apply fob_ren, Hσ].
Qed.

Lemma flat_dflat t : flat t -> dflat t.
Proof. destruct t; simpl; tauto. Qed.

Lemma dflat_subst σ t : (forall n, flat (σ n)) -> dflat t -> dflat (subst σ t).
Proof.
  revert σ. induction t; intros σ Hσ H;
    try (apply flat_dflat; apply flat_subst; [exact Hσ|exact H]).
  simpl in *. split; [apply flat_subst; [|tauto]|apply IHt2; tauto].
  intros [|n]; simpl; [exact I|apply flat_ren, Hσ].
Qed.

(** ** [let]s *)
Fixpoint nlets (t : tm) : nat :=
  match t with
  | Var _ | Real _ | Zero | NDual _ => 0
  | Lam a | Proj _ a | Fun _ a | Jac _ a => nlets a
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b => nlets a + nlets b
  | Let a b => S (nlets a + nlets b)
  end.

Lemma nlets_ren ρ t : nlets (ren ρ t) = nlets t.
Proof. revert ρ. induction t; intros ρ; simpl; auto. Qed.

Lemma nlets_subst σ t : (forall n, nlets (σ n) = 0) -> nlets (subst σ t) = nlets t.
Proof.
  assert (Hup : forall τ, (forall n, nlets (τ n) = 0) -> forall n, nlets (up τ n) = 0)
    by (intros τ H [|n]; simpl; [reflexivity|unfold shift; rewrite nlets_ren; apply H]).
  revert σ. induction t; intros σ Hσ; simpl; auto.
Qed.

Lemma value_nlets v : flat v -> value v -> nlets v = 0.
Proof.
  induction v; simpl; intros Hf [_ H]; try tauto;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    rewrite ?IHv, ?IHv1, ?IHv2 by assumption; reflexivity.
Qed.

End fo.

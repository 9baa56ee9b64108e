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
    closed or open ([fq_norm]).  A query of the campaign's first-order
    class is in it when its body has no abstraction, application,
    Jacobian, dual map or pullback and its [let]s are let series; its
    1-forms, the constant [λx.c*] and the differential
    [λx.(λv.(J g · v) x)* · [1]*], are [form]s. *)
From Pullback Require Import syntax typing anf anf_termination backprop reduction preservation progress decide.

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

(** [subst_closed R]: a predicate that every component of a substitution
    satisfies, closed under renaming by [R], holds of the substituted
    term (the binder of [let] keeps [Var 0]). *)
Ltac subst_closed R :=
  match goal with s : nat -> tm, t : tm |- _ => revert s; induction t end;
  intros σ Hσ; simpl; intuition;
  match goal with
    IH : forall _, _ |- _ => apply IH; [|assumption]; intros [|n]; simpl; [exact I|apply R, Hσ]
  end.

Lemma flat_ren ρ t : flat t -> flat (ren ρ t).
Proof. revert ρ. induction t; intros ρ; simpl; intuition. Qed.

Lemma flat_subst σ t : (forall n, flat (σ n)) -> flat t -> flat (subst σ t).
Proof. subst_closed flat_ren. Qed.

Lemma flat_num r : flat (num_tm r).
Proof. induction r; simpl; auto. Qed.

Lemma flat_ppath p t : flat t -> flat (ppath p t).
Proof. revert t. induction p; simpl; auto. Qed.

Lemma fob_flat t : fob t -> flat t.
Proof. induction t; simpl; intuition. Qed.

Lemma fob_ren ρ t : fob t -> fob (ren ρ t).
Proof. revert ρ. induction t; intros ρ; simpl; intuition. Qed.

Lemma fob_subst σ t : (forall n, fob (σ n)) -> fob t -> fob (subst σ t).
Proof. subst_closed fob_ren. Qed.

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

(** ** Atoms, elementary bodies, A-normalisation *)
Lemma atom_subst σ a : atom a -> (forall n, atom (σ n)) -> atom (subst σ a).
Proof. intros Ha Hσ. induction Ha; simpl; [apply Hσ|constructor; auto]. Qed.

Lemma atom_nlets a : atom a -> nlets a = 0.
Proof. induction 1; simpl; auto. Qed.

Lemma atom_fob a : atom a -> fob a.
Proof. induction 1; simpl; auto. Qed.

Lemma nlets_wf_let t : nlets t = 0 -> wf_let t.
Proof.
  induction t; simpl; intros H; try discriminate; try exact I; try (apply IHt; exact H);
    (split; [apply IHt1|apply IHt2]; lia).
Qed.

Lemma flat_yp p : flat (yp p).
Proof. apply flat_ppath. exact I. Qed.

Lemma flat_fq t : flat t -> fq t.
Proof. intros H. destruct t; simpl in *; tauto. Qed.

Lemma form_fq t : form t -> fq t.
Proof. intros H. destruct t; simpl in *; tauto. Qed.

Lemma dflat_fq t : dflat t -> fq t.
Proof. induction t; intros H; simpl in *; tauto. Qed.

(** A-normalisation adds no term that a predicate [P] rejects, whenever
    [P] is closed under renaming and takes a [let] apart (the same fact for
    [fob] here and for [nzp], fo_progress.v). *)
Section pred_anf.
Variable P : tm -> Prop.
Hypothesis P_ren : forall ρ t, P t -> P (ren ρ t).
Hypothesis P_let : forall a b, P (Let a b) <-> P a /\ P b.

Lemma pred_bind L K : P L -> P K -> P (bind L K).
Proof.
  revert K. induction L; intros K HL HK; try (simpl; apply P_let; tauto).
  apply P_let in HL. destruct (var0_dec L2) as [->|Hne]; [simpl; apply P_let; tauto|].
  rewrite bind_let by exact Hne. apply P_let. split; [tauto|].
  apply IHL2; [tauto|apply P_ren, HK].
Qed.

(** What [ared] needs of [P] on each redex: its parts and its head on
    variables. *)
Definition pred_split (r : tm) : Prop :=
  match r with
  | Plus l1 l2 => P l1 /\ P l2 /\ P (Var 0) /\ P (Plus (Var 1) (Var 0))
  | App l1 l2 => P l1 /\ P l2 /\ P (Var 0) /\ P (App (Var 1) (Var 0))
  | Pair l1 l2 => P l1 /\ P l2 /\ P (Var 0) /\ P (Pair (Var 1) (Var 0))
  | Proj i l => P l /\ P (Var 0) /\ P (Proj i (Var 0))
  | Fun f l => P l /\ P (Var 0) /\ P (Fun f (Var 0))
  | Jac f l => P l /\ P (Var 0) /\ P (Jac f (Var 0))
  | Dual l l' => P l' /\ P (Var 0) /\ P (Dual (ren (up_ren S) l) (Var 0))
  | Pb l l' => P l' /\ P (Var 0) /\ P (Pb (ren (up_ren S) l) (Var 0))
  | Let l p => P l /\ P p
  | t => P t /\ P (Var 0)
  end.

Lemma pred_ared r : pred_split r -> P (ared r).
Proof.
  destruct r; simpl; intros H; unfold bind2, ret;
    repeat first [apply pred_bind | apply P_ren | apply P_let; split]; tauto.
Qed.
End pred_anf.

Lemma fob_let a b : fob (Let a b) <-> fob a /\ fob b.
Proof. reflexivity. Qed.

Lemma fob_bind L K : fob L -> fob K -> fob (bind L K).
Proof. apply pred_bind; [apply fob_ren|apply fob_let]. Qed.

Lemma fob_ared r : fob r -> fob (ared r).
Proof.
  intros H. apply pred_ared; [apply fob_ren|apply fob_let|].
  destruct r; simpl in *; tauto.
Qed.

Lemma afill_fob C r r' : (fob r -> fob r') -> fob (afill C r) -> fob (afill C r').
Proof.
  induction C as [|F C IH]; simpl; auto. intros H. destruct F; simpl; intuition.
Qed.

Lemma astep_fob t t' : astep t t' -> fob t -> fob t'.
Proof. intros [C r HC Hr]. apply afill_fob. apply fob_ared. Qed.

Lemma elem_subst_fo σ e : elem e -> fob e -> (forall n, atom (σ n)) -> elem (subst σ e).
Proof.
  intros He Hf Hσ.
  destruct He as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl in Hf |- *; try contradiction.
  - apply elem_zero.
  - apply elem_plus; apply atom_subst; auto.
  - apply elem_atom, atom_subst; auto.
  - apply elem_pair; apply atom_subst; auto.
  - apply elem_real.
  - apply elem_fun, atom_subst; auto.
Qed.

Lemma lets_subst_fo σ l : lets l -> fob l -> (forall n, atom (σ n)) -> lets (subst σ l).
Proof.
  intros Hl. revert σ. induction Hl as [e He|e l He Hl IH]; intros σ Hf Hσ; simpl in Hf |- *.
  - apply lets_last. apply elem_subst_fo; tauto.
  - apply lets_cons; [apply elem_subst_fo; tauto|apply IH; [tauto|]].
    intros [|n]; simpl; [constructor|unfold shift; apply atom_ren, Hσ].
Qed.

Lemma sub8_atom n : atom (sub8 n).
Proof. destruct n as [|[|k]]; simpl; repeat constructor. Qed.

Lemma sub8_fob n : fob (sub8 n).
Proof. destruct n as [|[|k]]; simpl; auto. Qed.

Lemma elem_fob_nlets e : elem e -> fob e -> nlets e = 0.
Proof.
  destruct 1; simpl; intros Hf; try contradiction;
    repeat rewrite atom_nlets by assumption; reflexivity.
Qed.

(** ** The fragment is closed under [step] *)

Lemma flat_ren_inv ρ t : flat (ren ρ t) -> flat t.
Proof. revert ρ. induction t; intros ρ; simpl; intuition eauto. Qed.

Lemma flat_step t t' : step t t' -> flat t -> flat t'.
Proof.
  induction 1; intros Hf; simpl in Hf |- *; try tauto; try apply flat_num.
  - (* let *) apply flat_subst; [intros [|m]; simpl; tauto|tauto].
  - destruct F; simpl in *; tauto.
Qed.

Lemma fo_body_elem e : elem e -> fob e -> fo_body e.
Proof. intros He Hf. split; [exact Hf|apply nlets_wf_let, elem_fob_nlets; assumption]. Qed.

Lemma form_step t t' : step t t' -> form t -> form t'.
Proof.
  induction 1; intros Hf; simpl in Hf |- *; try tauto.
  - (* (7) *)
    destruct Hf as [[Hb _] Hw]. simpl in Hb. split; [apply fo_body_elem; tauto|exact Hw].
  - (* (8) *)
    destruct Hf as [[Hb _] Hw]. simpl in Hb.
    split; [split; [simpl; tauto|apply nlets_wf_let; simpl; apply elem_fob_nlets; tauto]|].
    split; [|exact Hw]. split; [apply fob_subst; [apply sub8_fob|tauto]|].
    apply lets_wf_let, lets_subst_fo; [assumption|tauto|apply sub8_atom].
  - (* an A-step in the body *)
    destruct Hf as [[Hb Hl] Hw].
    split; [split; [eapply astep_fob|eapply astep_wf_let]; eassumption|exact Hw].
  - destruct F; simpl in *; tauto.
Qed.

(** The body of a dual map that a pullback along a first-order body
    produces is first-order (20a through its premise). *)
Lemma pb_dual_flat t t' : step t t' -> forall e w v s X,
  t = App (Pb e w) v -> t' = Dual s X -> fob e -> flat v -> flat s.
Proof.
  induction 1; intros e0 w0 v0 s0' X0 Et Et' Hf Hv; try discriminate.
  all: try (destruct F; simpl in Et, Et'; discriminate).
  all: injection Et; injection Et'; intros; subst; simpl in Hf; try contradiction.
  - (* linear bodies *) apply fob_flat, Hf.
  - apply flat_yp.
  - apply flat_yp.
  - simpl. split; [apply flat_yp|exact I].
  - simpl. split; [exact I|apply flat_yp].
  - simpl. split; [apply flat_yp|apply flat_ren, flat_ppath, Hv].
  - (* (20a) *)
    simpl. split; [exact I|].
    match goal with IH : forall e w v s X, App (Pb _ _) _ = _ -> _ |- _ =>
      eapply flat_ren_inv, IH; [reflexivity|reflexivity|apply fob_ren; tauto|apply flat_ren, Hv] end.
  - simpl. tauto.
Qed.

Lemma fq_dual s q : flat s -> fq q -> fq (Dual s q).
Proof. simpl. tauto. Qed.

Lemma fq_out w v e : form w -> flat v -> fob e -> fq (out w v e).
Proof.
  intros Hw Hv He. unfold out. simpl. right; right. split; [exact Hw|].
  apply flat_subst; [intros [|m]; simpl; auto|apply fob_flat, He].
Qed.

Lemma fq_pbapp e w v : fq (App (Pb e w) v) -> fob e /\ form w /\ flat v.
Proof. simpl. unfold fo_body. tauto. Qed.

Lemma fq_pb p w : fq (Pb p w) -> form (Pb p w).
Proof. simpl. tauto. Qed.

(** Informal proof: by induction on the step.  A step of a [flat] term
    or of a [form] keeps it ([flat_step], [form_step]).  (1) substitutes
    a [flat] point into the [dflat] body of a 1-form; (6) substitutes a
    [flat] body into a [flat] body; the rules 9-20 that fire on a
    first-order body give [0] or a dual map with a [flat] body
    ([pb_dual_flat] for 20a) along the next 1-form applied to a [flat]
    point; the rules 16-19 need a body that is an abstraction, an
    application, a dual map or a pullback, which [fob] excludes; a step in
    an evaluation context is one of these inside. *)
Lemma fq_step t t' : step t t' -> fq t -> fq t'.
Proof.
  intros Hst. pose proof Hst as Hst0. revert Hst0.
  induction Hst; intros Hst0 Hq.
  all: try solve [apply flat_fq; (apply flat_num || (simpl; exact I))].
  all: try solve [apply flat_fq; simpl in Hq; tauto].
  all: try solve [apply form_fq; apply fq_pb in Hq; eapply form_step; [exact Hst0|exact Hq]].
  all: try (apply fq_pbapp in Hq; destruct Hq as (Hb & Hw & Hv); simpl in Hb).
  all: try contradiction.
  all: try solve [apply fq_dual; [eapply pb_dual_flat; [exact Hst0|reflexivity|reflexivity|exact Hb|exact Hv]|];
                  apply fq_out; [exact Hw|exact Hv|simpl; tauto]].
  - (* (1) *)
    simpl in Hq. apply dflat_fq, dflat_subst; [intros [|m]; simpl; tauto|tauto].
  - (* (6) *)
    simpl in Hq. apply fq_dual; [apply flat_subst; [intros [|m]; simpl; tauto|tauto]|tauto].
  - (* let *)
    apply flat_fq. simpl in Hq. apply flat_subst; [intros [|m]; simpl; tauto|tauto].
  - (* a step in an evaluation context *)
    match goal with H : step ?a ?b, H0 : step (efill _ ?a) _ |- _ =>
      pose proof (flat_step _ _ H) as Hf; pose proof (form_step _ _ H) as Hw end.
    destruct F; simpl in Hq |- *; tauto.
Qed.

Lemma fq_steps t t' : steps t t' -> fq t -> fq t'.
Proof. induction 1; auto. intros H'. apply IHsteps, (fq_step _ _ H), H'. Qed.

End fo.

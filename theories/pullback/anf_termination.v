(** * A-normalisation terminates and is deterministic (spec §4, the
    "divide" stage)

    Every term whose [let]s are let series ([wf_let], which holds of every
    source term) A-reduces, in finitely many steps and along a unique path,
    to a let series: its A-normal form.  The measure is the number of
    constructors outside maximal let series; an A-step replaces a redex
    (at least one such constructor) by a let series (none). *)
From Coq Require Import Wf_nat.
From Pullback Require Import syntax typing anf backprop reduction progress.

Section anf_termination.
Context {Σ : signature}.

Fixpoint msz (t : tm) : nat :=
  if is_lets t then 0 else
  match t with
  | Var _ | Real _ | NDual _ | Zero => 1
  | Lam s | Proj _ s | Fun _ s | Jac _ s => 1 + msz s
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => 1 + msz a + msz b
  end.

Lemma msz_lets l : lets l -> msz l = 0.
Proof.
  intros H. apply is_elem_lets_complete in H. destruct l; simpl in *; try discriminate.
  rewrite H. reflexivity.
Qed.

Lemma msz_aredex r : aredex r -> 0 < msz r.
Proof.
  destruct 1 as [| | | | | | | | | | | | |l p Hl _]; simpl; try lia.
  destruct (is_lets (Let l p)) eqn:E; [|lia]. exfalso.
  apply is_elem_lets_sound in E. inversion E; subst; exact (lets_not_elem l Hl ltac:(assumption)).
Qed.

Lemma msz_let a b : msz (Let a b) <= 1 + msz a + msz b.
Proof. simpl. destruct (is_lets (Let a b)); lia. Qed.

Lemma msz_let_not a b : ~ lets (Let a b) -> msz (Let a b) = 1 + msz a + msz b.
Proof.
  intros H. simpl. destruct (is_lets (Let a b)) eqn:E; [|reflexivity].
  exfalso. apply H, is_elem_lets_sound, E.
Qed.

(** Informal proof: by induction on [C]; every frame but the two of
    [let] adds its constructors to the measure; a [let] whose bound term
    or body holds the redex is not a let series ([alet_here]), so it
    counts too. *)
Lemma msz_afill C r t' : aredex r -> alet_ok C r -> msz t' < msz r -> msz (afill C t') < msz (afill C r).
Proof.
  intros Hr. induction C as [|F C IH]; simpl; auto. intros [Hh Hk] H. specialize (IH Hk H).
  destruct F; cbn [afill1 alet_here] in Hh |- *; try (simpl; lia).
  - pose proof (msz_let (afill C t') l).
    rewrite (msz_let_not (afill C r) l) by (intros Hl; inversion Hl; subst; auto). lia.
  - pose proof (msz_let e (afill C t')).
    rewrite (msz_let_not e (afill C r)); [lia|].
    intros Hl; inversion Hl; subst; [apply Hh; symmetry; assumption|].
    exact (lets_not_afill C r Hr Hk ltac:(assumption)).
Qed.

Lemma astep_msz t t' : astep t t' -> msz t' < msz t.
Proof.
  intros [C r HC Hr Hk]. apply msz_afill; auto.
  rewrite (msz_lets _ (ared_lets r Hr)). apply msz_aredex. exact Hr.
Qed.

(** A-reduction is well-founded: there is no infinite A-reduction. *)
Lemma astep_wf : well_founded (fun t' t => astep t t').
Proof.
  intros t. induction t as [t IH] using (well_founded_induction (well_founded_ltof tm msz)).
  constructor. intros t' H. apply IH. apply astep_msz. exact H.
Qed.

(** A-reduction is deterministic (from the uniqueness in Lemma B.1). *)
Lemma astep_det t t1 t2 : astep t t1 -> astep t t2 -> t1 = t2.
Proof.
  intros [C r HC Hr Hk] H2. inversion H2 as [C' r' HC' Hr' Hk' Heq]; subst.
  destruct (adecompose_unique C r C' r' HC HC' Hr Hr' Hk Hk' (eq_sym Heq)) as [-> ->]. reflexivity.
Qed.

Inductive asteps : tm -> tm -> Prop :=
| asteps_refl t : asteps t t
| asteps_cons t t' t'' : astep t t' -> asteps t' t'' -> asteps t t''.

(** Informal proof: by well-founded induction on [msz t].  By Lemma B.1
    the term is a let series (done) or an A-context around an A-redex; the
    A-step keeps [wf_let] ([astep_wf_let]) and decreases [msz]
    ([astep_msz]). *)
Lemma anf_exists t : wf_let t -> exists l, asteps t l /\ lets l.
Proof.
  induction t as [t IH] using (well_founded_induction (well_founded_ltof tm msz)).
  intros Hwf. destruct (adecompose t Hwf) as [Hl|(C & r & HC & Hr & Hk & ->)].
  - exists t. split; [constructor|exact Hl].
  - assert (Hs : astep (afill C r) (afill C (ared r))) by (constructor; assumption).
    destruct (IH (afill C (ared r))) as (l & Hsl & Hl).
    + apply astep_msz. exact Hs.
    + eapply astep_wf_let; eassumption.
    + exists l. split; [econstructor; eassumption|exact Hl].
Qed.

(** ** Lemma B.1 for every term

    Since A-contexts enter a [let] (anf.v), the hypothesis [wf_let] of
    [adecompose] is not needed: every term is a let series or an
    A-context around an A-redex, and so every term has an A-normal form.
    This is what A-normalises again a value substituted into a let series.

    Informal proof: by induction on [t].  Every constructor but [let] as
    in [adecompose].  For [let x = a in b]: when [a] is a let series, the
    term is the redex [aredex_let] if [b] is a let series or [x], and
    otherwise [b] decomposes, in the frame [let x = a in C_A]; when [a] is
    elementary, the term is a let series if [b] is one or [x], and
    otherwise [b] decomposes in the same frame; otherwise [a], not
    elementary and not a let series, decomposes, in the frame
    [let x = C_A in b]. *)
Lemma adecompose_all t : lets t \/ decomp t.
Proof.
  induction t;
    try solve [right; apply decomp_redex; constructor].
  (* one subterm *)
  all: try match goal with
    | IH : lets ?u \/ decomp ?u |- lets (?f ?u) \/ _ =>
        right; destruct IH as [Hl|Hd];
        [ apply decomp_redex; constructor; assumption
        | decomp_in_sub1 ]
    end.
  (* two subterms, not a let *)
  all: try match goal with
    | IH1 : lets ?u \/ decomp ?u, IH2 : lets ?v \/ decomp ?v |- lets (?f ?u ?v) \/ _ =>
        match f with Let => fail 1 | _ => idtac end;
        right; destruct IH1 as [Hl1|Hd1];
        [ destruct IH2 as [Hl2|Hd2];
          [ apply decomp_redex; constructor; assumption
          | decomp_in_right u ]
        | decomp_in_left v ]
    end.
  (* let *)
  rename t1 into a, t2 into b, IHt1 into IHa, IHt2 into IHb.
  assert (Hb : lets b \/ b = Var 0 \/ (~ lets b /\ b <> Var 0)).
  { destruct (is_lets b) eqn:El; [left; apply is_elem_lets_sound, El|].
    destruct (is_var0 b) eqn:Ev; [right; left; apply is_var0_spec, Ev|].
    right; right. split.
    - intros Hl. apply (proj2 is_elem_lets_complete) in Hl. congruence.
    - intros ->. discriminate. }
  destruct (is_lets a) eqn:Ela.
  - apply is_elem_lets_sound in Ela.
    destruct Hb as [Hb|[Hb|[Hnl Hn0]]].
    + right. apply decomp_redex. constructor; auto.
    + right. apply decomp_redex. constructor; auto.
    + right. destruct IHb as [Hl|Hd]; [contradiction|].
      apply (decomp_frame (ALetR a)); simpl; auto.
  - destruct (is_elem a) eqn:Eea.
    + apply is_elem_lets_sound in Eea.
      destruct Hb as [Hb|[->|[Hnl Hn0]]].
      * left. apply lets_cons; assumption.
      * left. apply lets_last. assumption.
      * right. destruct IHb as [Hl|Hd]; [contradiction|].
        apply (decomp_frame (ALetR a)); simpl; auto.
    + right. destruct IHa as [Hl|Hd].
      * apply (proj2 is_elem_lets_complete) in Hl. congruence.
      * apply (decomp_frame (ALetL b)); simpl; auto.
        intros He. apply (proj1 is_elem_lets_complete) in He. congruence.
Qed.

(** Every term A-reduces to a let series, its A-normal form (unique,
    [anf_unique]). *)
Lemma anf_exists_all t : exists l, asteps t l /\ lets l.
Proof.
  induction t as [t IH] using (well_founded_induction (well_founded_ltof tm msz)).
  destruct (adecompose_all t) as [Hl|(C & r & HC & Hr & Hk & ->)].
  - exists t. split; [constructor|exact Hl].
  - assert (Hs : astep (afill C r) (afill C (ared r))) by (constructor; assumption).
    destruct (IH (afill C (ared r))) as (l & Hsl & Hl).
    + apply astep_msz. exact Hs.
    + exists l. split; [econstructor; eassumption|exact Hl].
Qed.

(** The A-normal form is unique, and it has the type of the term. *)
Lemma anf_unique t l1 l2 : asteps t l1 -> lets l1 -> asteps t l2 -> lets l2 -> l1 = l2.
Proof.
  intros H1. revert l2. induction H1 as [t|t t' t'' Hs Hrest IH]; intros l2 Hl1 H2 Hl2.
  - inversion H2 as [|? t2 ? Hs2]; subst; auto.
    destruct Hs2 as [C r HC Hr]. exfalso. eapply adecompose_excl; eassumption.
  - inversion H2 as [|? t2 ? Hs2 Hrest2]; subst.
    + destruct Hs as [C r HC Hr]. exfalso. eapply adecompose_excl; eassumption.
    + rewrite (astep_det _ _ _ Hs Hs2) in IH. apply IH; assumption.
Qed.

Lemma asteps_typed Γ t l A : asteps t l -> typed Γ t A -> typed Γ l A.
Proof. induction 1; eauto using astep_typed. Qed.

End anf_termination.

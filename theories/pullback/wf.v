(** * Well-formed terms: the pullback bodies the paper's theorems speak of

    The checker of [pullback-eval] accepts a term when it is well typed
    ([infer.v]) and well formed ([wf_tm]): in the body of every pullback
    [(Ω λy.P) · S], wherever it occurs (under a λ and in a dual map's body
    too),
    - every [let] is part of a let series ([wf_let], the hypothesis of
      Lemma B.1): Fig. 1 has no [let]; the lets the reductions meet are the
      let series A-normalisation produces (§4), and a written [let]
      elsewhere is the sugar [(λz.L) E] (docs/decisions-pullback.md, "Well-formed
      pullback bodies");
    - no Jacobian is applied, [(J f · S) P] ([jac_app_free]): once
      A-normalised and moved into the point by (8) the application is
      [y^p y^q] with [V^p = J f · r], the value 2 of Remark 3.6 (rule 19
      asks for an abstraction), and its derivative in the point would need
      the second derivative of [f], which the signature does not give.

    [wf_tmb] decides [wf_tm] ([wf_tmb_spec]); [wf_letb] and
    [jac_app_freeb] decide the two conditions one by one, so the driver
    names the one that fails.  A well-formed term satisfies [pb_wf], the
    hypothesis of [progress] ([wf_tm_pb_wf]).

    What reduction does to the judgment: an A-step in a pullback's body
    keeps it ([step_pb_anf_wf]: [astep_wf_let], anf.v, and
    [astep_jac_app_free]); β does not keep it when it substitutes a value
    into a pullback's body under a λ ([wf_beta_let], [wf_beta_jac]:
    closed, well-typed, well-formed terms whose one step is not well
    formed).  Those are higher-order terms (the pullback sits under a λ).
    The other rules are not examined here. *)
From Coq Require Import Setoid.
From Pullback Require Import syntax typing anf backprop reduction progress decide.

Section wf.
Context {Σ : signature}.

(** ** The judgment *)

Definition is_jac (t : tm) : bool := match t with Jac _ _ => true | _ => false end.

(** No subterm of [t] is a Jacobian applied, [(J f · S) P]. *)
Fixpoint jac_app_free (t : tm) : Prop :=
  match t with
  | App a b => is_jac a = false /\ jac_app_free a /\ jac_app_free b
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => jac_app_free s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => jac_app_free a /\ jac_app_free b
  end.

(** The body of every pullback of [t] has only let series as lets. *)
Fixpoint pb_lets_ok (t : tm) : Prop :=
  match t with
  | Pb p s => wf_let p /\ pb_lets_ok p /\ pb_lets_ok s
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_lets_ok s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_lets_ok a /\ pb_lets_ok b
  end.

(** The body of every pullback of [t] applies no Jacobian. *)
Fixpoint pb_jac_ok (t : tm) : Prop :=
  match t with
  | Pb p s => jac_app_free p /\ pb_jac_ok s
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_jac_ok s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_jac_ok a /\ pb_jac_ok b
  end.

Definition wf_tm (t : tm) : Prop := pb_lets_ok t /\ pb_jac_ok t.

(** [hd_var s]: the variable an access path [z^{π…}] starts from. *)
Fixpoint hd_var (s : tm) : option nat :=
  match s with Var n => Some n | Proj _ s => hd_var s | _ => None end.

(** No parameter applied to data bound in the body (Remark 3.6, value 1).
    [K] lists the binders crossed inside a pullback's body, innermost
    first, the pullback's own variable last: [true] for a λ or a dual
    map, whose variable is free when (18) or (16b, 16c) differentiates
    the body under it, [false] for the others (a let, a pullback, the
    pullback's variable).  An application whose head is a path of such a
    parameter (index [n]) has an argument that mentions no variable bound
    in the body outside that parameter's binder (no index [m] with
    [n < m < length K]): otherwise the premise of (18) or (16b, 16c)
    meets [z y^{πi}] with [z] free, the value 1 of Remark 3.6, which is
    no dual map.  Variables bound inside the binder's own body may be
    mentioned: [λg. λx. g x] passes ((19a) differentiates [g x] once the
    abstraction is applied and [g] is the pullback's variable).  The rule is
    syntactic and conservative (docs/decisions-pullback.md, "A parameter
    applied in a pullback's body"). *)
Fixpoint param_app_free (K : list bool) (t : tm) : Prop :=
  match t with
  | App a b =>
      (forall n, hd_var a = Some n -> nth_error K n = Some true ->
                 nocc (fun m => n < m < length K) b) /\
      param_app_free K a /\ param_app_free K b
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s => param_app_free (true :: K) s
  | Proj _ s | Fun _ s | Jac _ s => param_app_free K s
  | Pair a b | Plus a b => param_app_free K a /\ param_app_free K b
  | Dual a b => param_app_free (true :: K) a /\ param_app_free K b
  | Pb a b => param_app_free (false :: K) a /\ param_app_free K b
  | Let a b => param_app_free K a /\ param_app_free (false :: K) b
  end.

(** The body of every pullback of [t] applies no parameter to data bound
    in it. *)
Fixpoint pb_param_ok (t : tm) : Prop :=
  match t with
  | Pb p s => param_app_free [false] p /\ pb_param_ok s
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_param_ok s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_param_ok a /\ pb_param_ok b
  end.

(** [var_app t]: [t] has an application whose head is a path [z^{π…}]
    of a variable. *)
Fixpoint var_app (t : tm) : bool :=
  match t with
  | App a b => match hd_var a with Some _ => true | None => var_app a || var_app b end
  | Var _ | Real _ | NDual _ | Zero => false
  | Lam s | Proj _ s | Fun _ s | Jac _ s => var_app s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => var_app a || var_app b
  end.

(** No Jacobian and no pullback in [t]. *)
Fixpoint jac_pb_free (t : tm) : Prop :=
  match t with
  | Jac _ _ | Pb _ _ => False
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s => jac_pb_free s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => jac_pb_free a /\ jac_pb_free b
  end.

(** No function at a path of the point that is not an abstraction
    (Remark 3.6, value 2): a pullback applied to a point, [((Ω λy.P) · S) V],
    whose body [P] applies a path of a variable ([var_app]), has a point
    with no Jacobian and no pullback in it.  Rule 19b differentiates
    [y^p y^q] only when [V^p] is an abstraction; at a closed point the other
    values of a function type are Jacobians [J f · r] and pullbacks (1-forms),
    and a point without either reduces to a term without either (only the
    rules of pullbacks make Jacobians).  The rule is syntactic and
    conservative: it looks at the point as written
    (docs/decisions-pullback.md, "A Jacobian or a pullback at an applied
    path of the point"). *)
Fixpoint pb_point_ok (t : tm) : Prop :=
  match t with
  | App a b =>
      (match a with Pb p _ => var_app p = true -> jac_pb_free b | _ => True end) /\
      pb_point_ok a /\ pb_point_ok b
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_point_ok s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => pb_point_ok a /\ pb_point_ok b
  end.

(** The judgment of the checkers: well formed, no parameter applied to
    data bound in a pullback's body, and no Jacobian or pullback in the
    point of a pullback whose body applies a path. *)
Definition wf_query (t : tm) : Prop := wf_tm t /\ pb_param_ok t /\ pb_point_ok t.

(** ** Deciders *)
Fixpoint wf_letb (t : tm) : bool :=
  match t with
  | Let e l => is_lets (Let e l)
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => wf_letb s
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b => wf_letb a && wf_letb b
  end.

Fixpoint jac_app_freeb (t : tm) : bool :=
  match t with
  | App a b => negb (is_jac a) && jac_app_freeb a && jac_app_freeb b
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => jac_app_freeb s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => jac_app_freeb a && jac_app_freeb b
  end.

Fixpoint pb_lets_okb (t : tm) : bool :=
  match t with
  | Pb p s => wf_letb p && pb_lets_okb p && pb_lets_okb s
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_lets_okb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_lets_okb a && pb_lets_okb b
  end.

Fixpoint pb_jac_okb (t : tm) : bool :=
  match t with
  | Pb p s => jac_app_freeb p && pb_jac_okb s
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_jac_okb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_jac_okb a && pb_jac_okb b
  end.

Definition wf_tmb (t : tm) : bool := pb_lets_okb t && pb_jac_okb t.

Definition param_argb (K : list bool) (a b : tm) : bool :=
  match hd_var a with
  | Some n =>
      match nth_error K n with
      | Some true => noccb (fun m => Nat.ltb n m && Nat.ltb m (length K)) b
      | _ => true
      end
  | None => true
  end.

Fixpoint param_app_freeb (K : list bool) (t : tm) : bool :=
  match t with
  | App a b =>
      param_argb K a b &&
      param_app_freeb K a && param_app_freeb K b
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s => param_app_freeb (true :: K) s
  | Proj _ s | Fun _ s | Jac _ s => param_app_freeb K s
  | Pair a b | Plus a b => param_app_freeb K a && param_app_freeb K b
  | Dual a b => param_app_freeb (true :: K) a && param_app_freeb K b
  | Pb a b => param_app_freeb (false :: K) a && param_app_freeb K b
  | Let a b => param_app_freeb K a && param_app_freeb (false :: K) b
  end.

Fixpoint pb_param_okb (t : tm) : bool :=
  match t with
  | Pb p s => param_app_freeb [false] p && pb_param_okb s
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_param_okb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_param_okb a && pb_param_okb b
  end.

Fixpoint jac_pb_freeb (t : tm) : bool :=
  match t with
  | Jac _ _ | Pb _ _ => false
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s => jac_pb_freeb s
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => jac_pb_freeb a && jac_pb_freeb b
  end.

Definition point_okb (a b : tm) : bool :=
  match a with Pb p _ => negb (var_app p) || jac_pb_freeb b | _ => true end.

Fixpoint pb_point_okb (t : tm) : bool :=
  match t with
  | App a b => point_okb a b && pb_point_okb a && pb_point_okb b
  | Var _ | Real _ | NDual _ | Zero => true
  | Lam s | Proj _ s | Fun _ s | Jac _ s => pb_point_okb s
  | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => pb_point_okb a && pb_point_okb b
  end.

Definition wf_queryb (t : tm) : bool := wf_tmb t && pb_param_okb t && pb_point_okb t.

Ltac bspec :=
  repeat match goal with
         | |- context [ (_ && _) = true ] => rewrite Bool.andb_true_iff
         | IH : _ = true <-> _ |- _ => rewrite IH; clear IH
         end.

(** [bspec_ind L]: a boolean test that follows the predicate constructor
    by constructor, but for one case given by the lemma [L] (an
    equivalence, or the case itself). *)
Ltac bspec_ind L :=
  match goal with t : tm |- _ => induction t end;
  simpl; bspec; try tauto; first [rewrite L; tauto | apply L].

Lemma wf_letb_spec t : wf_letb t = true <-> wf_let t.
Proof. bspec_ind is_lets_spec. Qed.

Lemma jac_app_freeb_spec t : jac_app_freeb t = true <-> jac_app_free t.
Proof. bspec_ind Bool.negb_true_iff. Qed.

Lemma pb_lets_okb_spec t : pb_lets_okb t = true <-> pb_lets_ok t.
Proof. bspec_ind wf_letb_spec. Qed.

Lemma pb_jac_okb_spec t : pb_jac_okb t = true <-> pb_jac_ok t.
Proof. bspec_ind jac_app_freeb_spec. Qed.

Lemma wf_tmb_spec t : wf_tmb t = true <-> wf_tm t.
Proof.
  unfold wf_tmb, wf_tm. rewrite Bool.andb_true_iff, pb_lets_okb_spec, pb_jac_okb_spec. tauto.
Qed.

Lemma param_argb_spec K a b :
  param_argb K a b = true <->
  (forall n, hd_var a = Some n -> nth_error K n = Some true -> nocc (fun m => n < m < length K) b).
Proof.
  unfold param_argb. destruct (hd_var a) as [n|].
  - destruct (nth_error K n) as [[|]|] eqn:E.
    + rewrite (noccb_spec b (fun m => n < m < length K)).
      * split; [intros H n' En'; injection En' as <-; auto|intros H; apply H; auto].
      * intros m. rewrite Bool.andb_true_iff, !Nat.ltb_lt. tauto.
    + split; [intros _ n' En'; injection En' as <-; congruence|reflexivity].
    + split; [intros _ n' En'; injection En' as <-; congruence|reflexivity].
  - split; [intros _ n' En'; discriminate|reflexivity].
Qed.

Lemma param_app_freeb_spec t : forall K, param_app_freeb K t = true <-> param_app_free K t.
Proof.
  induction t; intros K; simpl; rewrite ?Bool.andb_true_iff;
    repeat match goal with IH : forall K, _ = true <-> _ |- _ => rewrite IH; clear IH end;
    try tauto.
  rewrite param_argb_spec. tauto.
Qed.

Lemma pb_param_okb_spec t : pb_param_okb t = true <-> pb_param_ok t.
Proof. bspec_ind param_app_freeb_spec. Qed.

Lemma jac_pb_freeb_spec t : jac_pb_freeb t = true <-> jac_pb_free t.
Proof. induction t; simpl; bspec; try tauto; split; intros H; (discriminate H || destruct H). Qed.

Lemma point_okb_spec a b :
  point_okb a b = true <->
  (match a with Pb p _ => var_app p = true -> jac_pb_free b | _ => True end).
Proof.
  destruct a; simpl; try tauto.
  rewrite Bool.orb_true_iff, Bool.negb_true_iff, jac_pb_freeb_spec.
  destruct (var_app a1); split; intros H.
  - intros _. destruct H as [H|H]; [discriminate|exact H].
  - right. apply H. reflexivity.
  - intros E; discriminate.
  - left. reflexivity.
Qed.

Lemma pb_point_okb_spec t : pb_point_okb t = true <-> pb_point_ok t.
Proof.
  induction t; simpl; rewrite ?Bool.andb_true_iff; try tauto.
  rewrite point_okb_spec, IHt1, IHt2. tauto.
Qed.

Lemma wf_queryb_spec t : wf_queryb t = true <-> wf_query t.
Proof.
  unfold wf_queryb, wf_query.
  rewrite !Bool.andb_true_iff, wf_tmb_spec, pb_param_okb_spec, pb_point_okb_spec. tauto.
Qed.

(** ** A well-formed term satisfies the hypothesis of [progress] *)
Lemma wf_tm_pb_wf t : wf_tm t -> pb_wf t.
Proof.
  intros [Hl _]. induction t; simpl in *; tauto.
Qed.

(** ** A-normalisation keeps the judgment

    An A-step in the body of a pullback (the context [(Ω λy.C_A)·S],
    [step_pb_anf]) keeps it well formed: the reduct of an A-redex is a let
    series whose applications apply variables ([astep_jac_app_free]), and
    every [let] stays a let series ([astep_wf_let], anf.v). *)
Lemma is_jac_ren ρ t : is_jac (ren ρ t) = is_jac t.
Proof. destruct t; reflexivity. Qed.

Lemma jac_app_free_ren t : forall ρ, jac_app_free (ren ρ t) <-> jac_app_free t.
Proof.
  induction t; intros ρ; simpl; rewrite ?is_jac_ren;
    repeat match goal with IH : forall ρ, _ <-> _ |- _ => rewrite IH; clear IH end; tauto.
Qed.

Lemma jac_app_free_bind L : forall K, jac_app_free L -> jac_app_free K -> jac_app_free (bind L K).
Proof.
  induction L as [| | | | | | | | | | | | |e IHe l IHl]; intros K HL HK; try (simpl; tauto); try (cbn in *; tauto).
  destruct (var0_dec l) as [->|Hne].
  - simpl. simpl in HL. tauto.
  - rewrite (bind_let e l K Hne). simpl in HL |- *. split; [tauto|].
    apply IHl; [tauto|]. apply jac_app_free_ren. exact HK.
Qed.

Lemma jac_app_free_ared r : aredex r -> jac_app_free r -> jac_app_free (ared r).
Proof.
  intros Hr H. destruct Hr; simpl in H |- *; unfold bind2, ret, shift;
    repeat first [ apply jac_app_free_bind | apply jac_app_free_ren | progress simpl
                 | split | reflexivity | tauto ].
Qed.

Lemma ared_not_jac r : aredex r -> is_jac (ared r) = false.
Proof.
  intros Hr. pose proof (ared_lets r Hr) as Hl. destruct Hl; reflexivity.
Qed.

Lemma afill_jac_app_free C t t' :
  (jac_app_free t -> jac_app_free t') -> is_jac t' = false ->
  jac_app_free (afill C t) -> jac_app_free (afill C t').
Proof.
  intros Ht Hj. induction C as [|F C IH]; simpl; auto.
  assert (Hs : is_jac (afill C t') = true -> is_jac (afill C t) = true).
  { destruct C as [|F' C']; simpl; [congruence|]. destruct F'; simpl; auto. }
  destruct F; simpl; intuition.
  all: destruct (is_jac (afill C t')) eqn:E; auto; rewrite Hs in *; auto.
Qed.

Lemma astep_jac_app_free t t' : astep t t' -> jac_app_free t -> jac_app_free t'.
Proof.
  intros [C r HC Hr]. apply afill_jac_app_free.
  - apply jac_app_free_ared, Hr.
  - apply ared_not_jac, Hr.
Qed.

Lemma atom_pb_lets_ok a : atom a -> pb_lets_ok a.
Proof. induction 1; simpl; auto. Qed.

Lemma elem_lets_pb_lets_ok :
  (forall e, elem e -> pb_lets_ok e) /\ (forall l, lets l -> pb_lets_ok l).
Proof.
  apply elem_lets_mut; intros; simpl;
    repeat match goal with H : atom _ |- _ => apply atom_pb_lets_ok in H end;
    repeat split; auto.
  apply lets_wf_let. assumption.
Qed.

Lemma wf_let_pb_lets_ok t : wf_let t -> pb_lets_ok t.
Proof.
  induction t as [| | | | | | | | | | | | |e _ l _]; simpl; try tauto.
  intros H. exact (proj2 elem_lets_pb_lets_ok (Let e l) H).
Qed.

Lemma step_pb_anf_wf p p' w : astep p p' -> wf_tm (Pb p w) -> wf_tm (Pb p' w).
Proof.
  intros Hs [[Hl [_ Hw]] [Hj Hw']]. split; [split; [|split]|split].
  - eapply astep_wf_let; eassumption.
  - apply wf_let_pb_lets_ok. eapply astep_wf_let; eassumption.
  - exact Hw.
  - eapply astep_jac_app_free; eassumption.
  - exact Hw'.
Qed.

(** ** Reduction does not keep the judgment

    β substitutes a value into a pullback's body under a λ: a pair into a
    let series (whose bound term is then no longer elementary), a Jacobian
    into a function position.  Both terms are closed and well typed. *)
Section counterexamples.
Variables (r : scalar) (f : fsym).

(** [(λx:R×R. (Ω λy:R. let z = x in z) · (λu:R×R. ⟨0, 0⟩ ∗)) ⟨r, r⟩] *)
Definition beta_let : tm :=
  App (Lam (Pb (Let (Var 1) (Var 0)) (Lam (NDual NZ)))) (Pair (Real r) (Real r)).

(** [(λg:R^n ⇒ R^m. (Ω λy:R^n. g y) · ω) (J f · 0)] with [ω] the
    1-form [λu:R^m. 0]. *)
Definition beta_jac : tm :=
  App (Lam (Pb (App (Var 1) (Var 0)) (Lam Zero))) (Jac f Zero).

Lemma beta_let_typed : typed [] beta_let (TOmega TR).
Proof.
  unfold beta_let, TOmega. eapply (typed_app _ _ _ (TProd TR TR)).
  - econstructor. eapply (typed_pb _ _ _ _ (TProd TR TR)).
    + econstructor; econstructor; reflexivity.
    + econstructor. econstructor. constructor.
  - repeat econstructor.
Qed.

Lemma beta_jac_typed : typed [] beta_jac (TOmega (Rn (fdom f))).
Proof.
  unfold beta_jac, TOmega. eapply typed_app.
  - econstructor. eapply (typed_pb _ _ _ _ (Rn (fcod f))).
    + eapply typed_app; econstructor; reflexivity.
    + econstructor. constructor.
  - econstructor. constructor.
Qed.

Lemma wf_beta_let : wf_tm beta_let /\ exists t', step beta_let t' /\ ~ wf_tm t'.
Proof.
  split.
  - unfold beta_let, wf_tm. simpl. repeat split; auto; repeat constructor.
  - eexists. split.
    + apply step_beta. simpl. tauto.
    + unfold wf_tm, subst1. simpl. intros [[Hl _] _].
      inversion Hl as [e He|e l He Hl']; subst.
      * inversion He; subst; match goal with H : atom _ |- _ => inversion H end.
      * inversion Hl'.
Qed.

Lemma wf_beta_jac : wf_tm beta_jac /\ exists t', step beta_jac t' /\ ~ wf_tm t'.
Proof.
  split.
  - unfold beta_jac, wf_tm. simpl. tauto.
  - eexists. split.
    + apply step_beta. simpl. tauto.
    + unfold wf_tm, subst1. simpl. intros [_ [[H _] _]]. discriminate H.
Qed.
End counterexamples.

End wf.

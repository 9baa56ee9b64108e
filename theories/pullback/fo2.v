(** * Beyond the first-order fragment: any [let] and Jacobians in the
      bodies of pullbacks

    docs/decisions-pullback.md, "Progress and normalization beyond [fq]:
    the fragment [fq2]".  The fragment [fq] of fo.v asks of a pullback's
    body [fob] (variables, projections, pairs, scalars, [0], sums,
    function symbols, [let]) and [wf_let] (every [let] a let series).
    [fq2] drops [wf_let] and adds Jacobians [J f · P] and numeric duals
    [r*] to the bodies ([fob2]):
    - a [let] that is not a let series ([let x = (let a = E in L) in P],
      [let x = E in f(x)]) is A-normalised by the rule [(Ω λy.C_A)·S],
      since A-contexts enter lets ([anf_exists_all]);
    - a Jacobian [J f · y^p] of the body has rule 14 ([lin_shape_jac]), a
      constant one (9) or (20b); once bound by a [let] and moved into the
      point by (8) it is data, a [flat] term, like a scalar.
    Applications stay out of the bodies: applied in a body, a Jacobian
    (or any path of the point) needs rule 19, whose premise asks for an
    abstraction at that path; [zstuck_jac_point] is a closed, [ztyped]
    normal form that is not a syntactic value, well formed ([wf_tm],
    [pb_param_ok]) but refused by the checkers' judgment [wf_query]
    since [pb_point_ok] (wf.v: no Jacobian or pullback in the point of a
    pullback whose body applies a path; Remark 3.6's value 2, which the
    paper calls an "inappropriate" value).  Abstractions
    stay out too; rule 18's premise may end in [(λv.S)* · 0], read as the
    dual map [(λv.0)* · (ω′ V′)] by the zero variant [step_pb_lam_zero]
    (reduction.v), so the closed, [ztyped], well-formed query [lam_query]
    reaches the value [(λv. λx.0)* · 0] ([zpb_lam_value]; it had no step
    before the zero variant).

    Results: [fq2_step] (the fragment is closed under [→]), [fq2_norm]
    (every term of it reduces to a normal form, typed or not, closed or
    open), [fq2_sn] (every reduction sequence from it is finite);
    [zvalue_svalue] (for the whole language: a closed [ztyped] normal form
    none of whose pullbacks has an application as its body is a
    syntactic value), and under [ztyped] on the fragment: [zfo2_progress],
    [zfo2_safety], [zfo2_svalue_norm], [exec_zfo2_safety]; the
    normaliser without fuel [fo2_normalize]. *)
From Pullback Require Import syntax typing anf anf_termination backprop reduction preservation
  progress decide step_fn reverse_phase wf progress_typed exec_sig fo norm_fo fo_progress fo_grad
  ztyped ztyped_pres ztyped_progress.

Section fo2.
Context {Σ : signature}.

Ltac inv H := inversion H; subst; clear H.

(** ** The fragment *)

(** Pullback bodies: no binder but [let], no application. *)
Fixpoint fob2 (t : tm) : Prop :=
  match t with
  | Lam _ | App _ _ | Dual _ _ | Pb _ _ => False
  | Proj _ a | Fun _ a | Jac _ a => fob2 a
  | Pair a b | Plus a b | Let a b => fob2 a /\ fob2 b
  | Var _ | Real _ | Zero | NDual _ => True
  end.

(** 1-forms: [λx.D] with [dflat D], and pullbacks of [fob2] bodies. *)
Fixpoint form2 (t : tm) : Prop :=
  match t with Lam b => dflat b | Pb p w => fob2 p /\ form2 w | _ => False end.

(** The fragment: [flat] terms, 1-forms, a 1-form applied to a [flat]
    point, a dual map with a [flat] body along a term of the fragment. *)
Fixpoint fq2 (t : tm) : Prop :=
  match t with
  | App w v => flat t \/ (form2 w /\ flat v)
  | Dual s q => flat s /\ fq2 q
  | _ => flat t \/ form2 t
  end.

Lemma fq2_inv t : fq2 t ->
  flat t \/ form2 t \/ (exists w v, t = App w v /\ form2 w /\ flat v) \/
  (exists s q, t = Dual s q /\ flat s /\ fq2 q).
Proof. destruct t; simpl; intros H; intuition eauto 7. Qed.

Lemma flat_fq2 t : flat t -> fq2 t.
Proof. destruct t; simpl; tauto. Qed.

Lemma form2_fq2 t : form2 t -> fq2 t.
Proof. destruct t; simpl; tauto. Qed.

Lemma fob_fob2 t : fob t -> fob2 t.
Proof. induction t; simpl; tauto. Qed.

Lemma form_form2 t : form t -> form2 t.
Proof. induction t; simpl; unfold fo_body; intuition auto using fob_fob2. Qed.

(** [fq] is part of [fq2]. *)
Lemma fq_fq2 t : fq t -> fq2 t.
Proof.
  induction t; intros H; apply fq_cases in H; destruct H as [H|[H|H]];
    try solve [apply flat_fq2; exact H | apply form2_fq2, form_form2; exact H];
    simpl in H |- *; intuition auto using form_form2.
Qed.

Lemma fob2_flat t : fob2 t -> flat t.
Proof. induction t; simpl; tauto. Qed.

Lemma dflat_fq2 t : dflat t -> fq2 t.
Proof. intros H. apply fq_fq2, dflat_fq, H. Qed.

Lemma fob2_ren t : forall ρ, fob2 t -> fob2 (ren ρ t).
Proof. induction t; intros ρ; simpl; intuition. Qed.

Lemma fob2_subst t : forall σ, (forall n, fob2 (σ n)) -> fob2 t -> fob2 (subst σ t).
Proof.
  induction t; intros σ Hσ; simpl; intuition.
  match goal with IH : forall σ, _ -> fob2 ?b -> fob2 (subst σ ?b) |- fob2 (subst (up σ) ?b) =>
    apply IH; [intros [|n]; [exact I|apply fob2_ren, Hσ]|assumption] end.
Qed.

(** Elementary bodies of [fob2] are those of [fob], Jacobians and
    numeric duals. *)
Lemma elem_fob2 e : elem e -> fob2 e ->
  fob e \/ (exists f a, e = Jac f a /\ atom a) \/ (exists r, e = NDual r).
Proof.
  destruct 1 as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl; intros Hf; try contradiction; eauto 6;
    left; repeat split; apply atom_fob; assumption.
Qed.

(** ** Closure under the steps *)

Lemma astep_fob2 t t' : astep t t' -> fob2 t -> fob2 t'.
Proof.
  intros [C r _ _ _]. induction C as [|F C IH]; simpl.
  - intros H. apply (pred_ared fob2 (fun ρ t => fob2_ren t ρ) (fun a b => iff_refl _)).
    destruct r; simpl in *; tauto.
  - destruct F; simpl; tauto.
Qed.

Lemma sub8_fob2 n : fob2 (sub8 n).
Proof. apply fob_fob2, sub8_fob. Qed.

Lemma form2_step t t' : step t t' -> form2 t -> form2 t'.
Proof.
  induction 1; simpl; try tauto.
  - (* (8) *) intros [[He Hl] Hw]. split; [split; [exact I|exact He]|].
    split; [apply fob2_subst; [exact sub8_fob2|exact Hl]|exact Hw].
  - (* a body's A-step *) intros [Hp Hw]. split; [eapply astep_fob2; eassumption|exact Hw].
  - destruct F; simpl; tauto.
Qed.

Lemma proj_val_flat p v u : flat v -> proj_val p v = Some u -> flat u.
Proof.
  revert v. induction p as [|i p IH]; simpl; intros v Hv E; [injection E as <-; exact Hv|].
  destruct v; try discriminate. simpl in Hv. destruct i; eapply IH; try eassumption; tauto.
Qed.

(** The body of the dual map a pullback along a [flat] body produces at
    a [flat] point is [flat] (20a through its premise; rule 19 needs an
    abstraction in the point, which [flat] has not). *)
Lemma flat_pb_dual t t' : step t t' -> forall e w v s X,
  t = App (Pb e w) v -> t' = Dual s X -> flat e -> flat v -> flat s.
Proof.
  induction 1; intros e0 w0 v0 s1 X1 E E' Fe Fv; try discriminate;
    try (destruct F; simpl in E, E'; first [discriminate E|discriminate E']);
    injection E as E1 E2 E3; injection E' as E4 E5; subst; cbn [flat] in Fe |- *;
    try contradiction; auto using flat_yp, fob2_flat.
  - split; [apply flat_yp|apply flat_ren, flat_ppath, Fv].
  - (* 19b *) exfalso. match goal with H : proj_val _ _ = Some (Lam _) |- _ =>
      exact (proj_val_flat _ _ _ Fv H) end.
  - (* 19c *) exfalso. match goal with H : proj_val _ _ = Some (Lam _) |- _ =>
      exact (proj_val_flat _ _ _ Fv H) end.
  - (* 19b along 0 *) exfalso. match goal with H : proj_val _ _ = Some (Lam _) |- _ =>
      exact (proj_val_flat _ _ _ Fv H) end.
  - split; [exact I|]. eapply flat_ren_inv, IHstep; try reflexivity; [apply flat_ren; tauto|apply flat_ren, Fv].
Qed.

Lemma fq2_step t t' : step t t' -> fq2 t -> fq2 t'.
Proof.
  intros Hs. pose proof Hs as Hs0. revert Hs0.
  induction Hs; intros Hs0 Hq; apply fq2_inv in Hq;
    destruct Hq as [Hf|[Hw|[(w0 & v0 & E & Hw & Hv)|(sd & qd & E & Hs1 & Hq0)]]];
    try exact (flat_fq2 _ (flat_step _ _ Hs0 Hf));
    try exact (form2_fq2 _ (form2_step _ _ Hs0 Hw));
    try discriminate E; try (injection E as <- <-).
  all: try (cbn [form2] in Hw; destruct Hw as [Hb Hw]; pose proof Hb as Hb'; cbn [fob2] in Hb';
            try contradiction).
  all: try solve [apply flat_fq2; (apply flat_num || exact I)].
  (* rules 9-20: a dual map with a [flat] body along the next 1-form *)
  all: try solve [cbn [fq2]; unfold out; split;
                  [ eapply flat_pb_dual; [exact Hs0|reflexivity|reflexivity|apply fob2_flat, Hb|exact Hv]
                  | right; split; [exact Hw|apply flat_subst; [intros [|m]; simpl; auto|apply fob2_flat, Hb]]]].
  - (* (1) *) apply dflat_fq2, dflat_subst; [intros [|m]; simpl; tauto|exact Hw].
  - (* (6) *)
    simpl in Hq0 |- *. split; [apply flat_subst; [intros [|m]; simpl; tauto|tauto]|tauto].
  - (* a step in an evaluation context *)
    destruct F; simpl in E; try discriminate E; injection E as <- <-; simpl.
    + right. split; [exact (form2_step _ _ Hs Hw)|exact Hv].
    + right. split; [exact Hw|exact (flat_step _ _ Hs Hv)].
  - destruct F; simpl in E; try discriminate E; injection E as <- <-; simpl.
    + split; [exact Hs1|exact (IHHs Hs Hq0)].
    + split; [exact (flat_step _ _ Hs Hs1)|exact Hq0].
Qed.

Lemma fq2_steps t t' : steps t t' -> fq2 t -> fq2 t'.
Proof. induction 1; auto. intros H'. apply IHsteps, (fq2_step _ _ H), H'. Qed.

(** ** Normalization *)

#[local] Hint Constructors atom elem lets : core.

Lemma up_atom σ : (forall n, atom (σ n)) -> forall n, atom (up σ n).
Proof. intros H [|n]; simpl; [constructor|apply atom_ren, H]. Qed.

(** A substitution of atoms keeps elementary terms and let series (the
    substitution of rule (8)), whatever the elements are. *)
Lemma elem_lets_subst_atom :
  (forall e, elem e -> forall σ, (forall n, atom (σ n)) -> elem (subst σ e)) /\
  (forall l, lets l -> forall σ, (forall n, atom (σ n)) -> lets (subst σ l)).
Proof. apply elem_lets_mut; intros; simpl; eauto 6 using atom_subst, up_atom. Qed.

(** A dual map of values with a [flat] body along a value of [fq2]:
    (5⁺), or (6) and at most one (5⁺) (the inner map of a value is not
    along a dual map). *)
Lemma dual_head2 s q : flat s -> value s -> fq2 q -> value q ->
  exists v, steps (Dual s q) v /\ value v /\ fq2 v.
Proof.
  intros Hfs Hvs Hq Hvq.
  destruct (head_redex_dec (Dual s q)) as [Hr|Hr];
    [|exists (Dual s q); split; [constructor|]; split; [cbn [value]; tauto|simpl; tauto]].
  destruct q as [| | | | | | | |v2 v3| |c| | |]; simpl in Hr; try contradiction.
  - (* (6) *)
    destruct Hq as [Hf2 Hq3]. pose proof Hvq as Hvq'. destruct Hvq' as (Hn23 & Hv2 & Hv3).
    destruct (flat_norm (subst (scons s (fun n => Var (S n))) v2)) as (vb & Hsb & Hvb & Hfb);
      [apply flat_subst; [intros [|m]; simpl; auto|exact Hf2]|].
    assert (Hst : steps (Dual s (Dual v2 v3)) (Dual vb v3)).
    { eapply steps_cons; [exact (step_dual_comp s v2 v3 Hvs Hvq)|].
      exact (steps_ctx (EDualL v3) _ _ Hv3 Hsb). }
    destruct (head_redex_dec (Dual vb v3)) as [Hr2|Hr2].
    + destruct v3; simpl in Hr2; try contradiction; try (exfalso; apply Hn23; exact I).
      destruct Hr2 as [Hn [r' Hb]]. exists (NDual r').
      split; [exact (steps_snoc _ _ _ Hst (step_bp _ _ _ Hn Hb))|split; [apply value_ndual|simpl; tauto]].
    + exists (Dual vb v3). split; [exact Hst|]. split; [cbn [value]; tauto|simpl; tauto].
  - (* (5⁺) *)
    destruct Hr as [Hn [r Hb]]. exists (NDual r).
    split; [exact (steps_one _ _ (step_bp _ _ _ Hn Hb))|split; [apply value_ndual|simpl; tauto]].
Qed.

Lemma dual_norm2 s q : flat s -> (exists vq, steps q vq /\ value vq /\ fq2 vq) ->
  exists v, steps (Dual s q) v /\ value v /\ fq2 v.
Proof.
  intros Hs (vq & Hsq & Hvq & Hfq). destruct (flat_norm s Hs) as (vs & Hss & Hvs & Hfs).
  destruct (dual_head2 vs vq Hfs Hvs Hfq Hvq) as (v & Hsv & Hv). exists v. split; [|exact Hv].
  apply (steps_trans _ _ _ (steps_ctx (EDualR s) _ _ I Hsq)).
  exact (steps_trans _ _ _ (steps_ctx (EDualL vq) _ _ Hvq Hss) Hsv).
Qed.

(** The A-steps of a pullback's body [p], up to its A-normal form or a
    chain body, for any property [P] of bodies that A-steps keep. *)
Lemma pb_asteps (P : tm -> Prop) (HP : forall p p', astep p p' -> P p -> P p') w p l :
  asteps p l -> lets l -> P p ->
  exists p', steps (Pb p w) (Pb p' w) /\ P p' /\ (lets p' \/ chain_body p').
Proof.
  induction 1 as [p|p p1 l Hs _ IH]; intros Hl Hp; [exists p; repeat split; auto; constructor|].
  destruct (chain_bodyb p) eqn:E; [exists p; repeat split; auto; [constructor|right; apply chain_bodyb_spec, E]|].
  destruct (IH Hl (HP _ _ Hs Hp)) as (p' & Hs' & Hp' & Hd). exists p'. repeat split; auto.
  assert (Hn : ~ chain_body p) by (rewrite <- chain_bodyb_spec, E; discriminate).
  exact (steps_cons _ _ _ (step_pb_anf p p1 w Hs Hn) Hs').
Qed.

(** Values of the 1-forms of [fq2]: chains of pullbacks along elementary
    [fob2] bodies, ending in [λx.D]. *)
Fixpoint fchain2 (t : tm) : Prop :=
  match t with Lam b => dflat b | Pb e c => chain_body e /\ fob2 e /\ fchain2 c | _ => False end.

Lemma fchain2_form2 c : fchain2 c -> form2 c.
Proof. induction c; simpl; tauto. Qed.

(** (7) and (8) unfold a let series into a chain, by induction on its
    number of [let]s. *)
Lemma lets_norm2 n : forall l w, nlets l < n -> lets l -> fob2 l ->
  (exists c, steps w c /\ value c /\ fchain2 c) -> exists c, steps (Pb l w) c /\ value c /\ fchain2 c.
Proof.
  induction n as [|n IHn]; intros l w Hn Hl Hf (c' & Hsw & Hvc & Hfc); [lia|].
  inversion Hl as [e He|e l' He Hl']; subst; cbn [fob2 nlets] in Hf, Hn.
  - (* (7) *)
    assert (Hcb : chain_body e) by (left; exact He).
    exists (Pb e c'). split; [|split; [exact (value_pb _ _ Hcb Hvc)|simpl; tauto]].
    exact (steps_cons _ _ _ (step_pb_ret e w He) (steps_ctx (EPbR e) _ _ Hcb Hsw)).
  - (* (8) *)
    assert (Hcb : chain_body (Pair (Var 0) e)) by (right; exists e; split; [reflexivity|exact He]).
    destruct (IHn (subst sub8 l') w) as (c & Hsc & Hvc2 & Hfc2).
    + rewrite nlets_subst; [lia|intros [|[|k]]; reflexivity].
    + apply (proj2 elem_lets_subst_atom); [exact Hl'|exact sub8_atom].
    + apply fob2_subst; [exact sub8_fob2|tauto].
    + exists c'. tauto.
    + exists (Pb (Pair (Var 0) e) c). split; [|split; [exact (value_pb _ _ Hcb Hvc2)|simpl; tauto]].
      exact (steps_cons _ _ _ (step_pb_let e l' w He Hl') (steps_ctx (EPbR _) _ _ Hcb Hsc)).
Qed.

(** A 1-form reduces to a chain: its body is A-normalised (any [let];
    [anf_exists_all]), then unfolded by (7) and (8). *)
Lemma form2_norm w : form2 w -> exists c, steps w c /\ value c /\ fchain2 c.
Proof.
  induction w as [n|b _|a _ d _|i a _|a _ d _|r|f a _|f a _|a _ d _|p _ w IHw|r| |a _ d _|a _ d _];
    cbn [form2]; intros H; try contradiction.
  - exists (Lam b). split; [constructor|split; [apply value_lam|exact H]].
  - destruct H as [Hp Hw]. destruct (anf_exists_all p) as (l & Hsl & Hl).
    destruct (pb_asteps fob2 astep_fob2 w p l Hsl Hl Hp) as (p' & Hs & Hp' & [Hlp|Hcb]).
    + destruct (lets_norm2 (S (nlets p')) p' w ltac:(lia) Hlp Hp' (IHw Hw)) as (c & Hsc & Hc).
      exists c. split; [exact (steps_trans _ _ _ Hs Hsc)|exact Hc].
    + destruct (IHw Hw) as (c' & Hsw & Hvc & Hfc). exists (Pb p' c').
      split; [exact (steps_trans _ _ _ Hs (steps_ctx (EPbR p') _ _ Hcb Hsw))|].
      split; [exact (value_pb _ _ Hcb Hvc)|simpl; tauto].
Qed.

(** Every elementary body of [fob2] has a rule: those of [fob]
    ([pb_elem_step]), (9) for a constant, (14) for [J f · y^p]. *)
Lemma pb_elem_step2 e w v : elem e -> fob2 e -> value w -> value v -> flat v ->
  step (App (Pb e w) v) Zero \/ exists s, flat s /\ step (App (Pb e w) v) (Dual s (out w v e)).
Proof.
  intros He Hf Hw Hv Hfv.
  destruct (elem_fob2 e He Hf) as [Hfo|[(f & a & -> & Ha)|(r & ->)]];
    [exact (pb_elem_step e w v He Hfo Hw Hv Hfv)| |left; apply step_pb_const; auto; exact I].
  destruct (atom_split a Ha) as [Hn|(p & ->)]; [left; apply step_pb_const; auto|right].
  exists (Jac f (yp p)). split; [apply flat_yp|].
  apply step_pb_lin; auto using lin_shape_jac, atom_yp.
Qed.

(** The premise of (20a) on a [fob2] body. *)
Lemma pb_pair_premise2 e v : elem e -> fob2 e -> ~ nocc is0 e -> value v -> flat v ->
  exists s0 u, flat s0 /\
    step (App (Pb (ren (up_ren S) e) (Var 0)) (shift v)) (Dual (ren (up_ren S) s0) (App (Var 0) u)).
Proof.
  intros He Hf Hn Hv Hfv.
  destruct (elem_fob2 e He Hf) as [Hfo|[(f & a & -> & Ha)|(r & ->)]];
    [exact (pb_pair_premise e v He Hfo Hn Hv Hfv)| |exfalso; apply Hn; exact I].
  destruct (atom_split a Ha) as [Hna|(p & ->)]; [contradiction|].
  exists (Jac f (yp p)). eexists. split; [apply flat_yp|]. cbn [ren]. rewrite ren_upS_yp.
  apply step_pb_lin; [split; [intros []|exact I]|apply value_ren_flat; assumption|auto using atom_yp|apply lin_shape_jac].
Qed.

(** A chain applied to a [flat] point: by induction on the chain; each
    link gives [0] or a dual map along the rest of the chain at the next
    point ([dual_norm2]). *)
Lemma chain2_app_norm c : fchain2 c -> value c -> forall V, flat V -> value V ->
  exists u, steps (App c V) u /\ value u /\ fq2 u.
Proof.
  induction c as [n|b _|a _ d _|i a _|a _ d _|r|f a _|f a _|a _ d _|e _ c IHc|r| |a _ d _|a _ d _];
    cbn [fchain2]; intros Hc Hvc V HfV HvV; try contradiction.
  - (* (1) *)
    destruct (dflat_norm (subst1 V b)) as (u & Hs & Hu & Hfu);
      [apply dflat_subst; [intros [|m]; simpl; auto|exact Hc]|].
    exists u. split; [exact (steps_cons _ _ _ (step_beta b V HvV) Hs)|split; [exact Hu|apply fq_fq2, Hfu]].
  - destruct Hc as (Hcb & Hfe & Hc). apply value_pb_inv in Hvc. destruct Hvc as [_ Hvc].
    (* the dual map in front of the rest of the chain at the next point *)
    assert (Hk : forall s X, flat s -> flat X -> exists u, steps (Dual s (App c X)) u /\ value u /\ fq2 u).
    { intros s X Hs HX. apply dual_norm2; [exact Hs|].
      destruct (flat_norm X HX) as (VX & HsX & HvX & HfX).
      destruct (IHc Hc Hvc VX HfX HvX) as (D & HsD & HD). exists D. split; [|exact HD].
      exact (steps_trans _ _ _ (steps_ctx (EAppR c) _ _ Hvc HsX) HsD). }
    assert (HX : forall e', fob2 e' -> flat (subst1 V e'))
      by (intros e' He'; apply flat_subst; [intros [|m]; simpl; auto|apply fob2_flat, He']).
    destruct Hcb as [He|(e0 & -> & He0)].
    + destruct (pb_elem_step2 e c V He Hfe Hvc HvV HfV) as [Hz|(s & Hs & Hst)].
      * (* (9) *) exists Zero. split; [exact (steps_one _ _ Hz)|split; [apply value_zero|exact (flat_fq2 Zero I)]].
      * destruct (Hk s (subst1 V e) Hs (HX e Hfe)) as (u & Hsu & Hu).
        exists u. split; [exact (steps_cons _ _ _ Hst Hsu)|exact Hu].
    + destruct (nocc_is0_dec e0) as [Hn|Hn].
      * (* (20b) *)
        destruct (Hk (Pair (Var 0) Zero) _ (conj I I) (HX _ Hfe)) as (u & Hsu & Hu).
        exists u. split; [|exact Hu]. eapply steps_cons; [apply step_pb_pair_const; assumption|exact Hsu].
      * (* (20a) *)
        destruct (pb_pair_premise2 e0 V He0 (proj2 Hfe) Hn HvV HfV) as (s0 & u0 & Hs0 & Hp).
        destruct (Hk (Pair (Var 0) s0) _ (conj I Hs0) (HX _ Hfe)) as (u & Hsu & Hu).
        exists u. split; [|exact Hu]. eapply steps_cons; [eapply step_pb_pair_step; eassumption|exact Hsu].
Qed.

(** Corollary 5.2 on [fq2]: every term of it, closed or open, typed or
    not, reduces to a value (a normal form) of the fragment.

    Informal proof: by induction on the term.  A [flat] term: [flat_norm].
    A 1-form: [form2_norm] (its body A-normalised whatever its lets, then
    unfolded into a chain).  A 1-form applied to a [flat] point: the chain
    and the point are brought to values in the contexts [[] V] and
    [C []], then [chain2_app_norm].  A dual map: its argument by
    induction, then [dual_norm2]. *)
Lemma fq2_norm t : fq2 t -> exists v, steps t v /\ value v /\ fq2 v.
Proof.
  induction t as [n|b _|a _ d _|i a _|a _ d _|r|f a _|f a _|s _ q IHq|p _ w _|r| |a _ d _|a _ d _];
    intros H; pose proof (fq2_inv _ H) as [Hf|[Hw|[(w0 & v0 & E & Hw & Hv)|(s0 & q0 & E & Hs & Hq)]]];
    try discriminate E.
  all: try (destruct (flat_norm _ Hf) as (v & Hsv & Hv & Hfv);
            exists v; split; [exact Hsv|split; [exact Hv|exact (flat_fq2 _ Hfv)]]).
  all: try (destruct (form2_norm _ Hw) as (c & Hsc & Hvc & Hc);
            exists c; split; [exact Hsc|split; [exact Hvc|exact (form2_fq2 _ (fchain2_form2 _ Hc))]]).
  - (* a 1-form applied to a point *)
    injection E as <- <-. destruct (form2_norm _ Hw) as (c & Hsc & Hvc & Hc).
    destruct (flat_norm _ Hv) as (V & HsV & HvV & HfV).
    destruct (chain2_app_norm c Hc Hvc V HfV HvV) as (u & Hsu & Hu). exists u. split; [|exact Hu].
    apply (steps_trans _ _ _ (steps_ctx (EAppL d) _ _ I Hsc)).
    exact (steps_trans _ _ _ (steps_ctx (EAppR c) _ _ Hvc HsV) Hsu).
  - (* a dual map *)
    injection E as <- <-. exact (dual_norm2 s q Hs (IHq Hq)).
Qed.

(** Every reduction sequence from a term of [fq2] is finite ([step] is
    deterministic). *)
Lemma fq2_sn t : fq2 t -> Acc (fun u t => step t u) t.
Proof. intros H. destruct (fq2_norm t H) as (v & Hs & Hv & _). exact (steps_value_acc t v Hs Hv). Qed.

(** ** The normaliser without fuel on [fq2]

    As [fo_normalize] on [fq]: [eval_fn] at the fuel [2^k] for the least
    [k] at which it gives a value ([pow2_search], well-founded search),
    which exists by [fq2_norm] and [eval_fn_complete]. *)
Lemma fq2_fuel t : fq2 t -> exists k, is_val (eval_fn (2 ^ k) t) = true.
Proof.
  intros H. destruct (fq2_norm t H) as (v & Hs & Hv & _).
  destruct (eval_fn_complete t v Hs Hv) as [N HN].
  apply (pow2_exists (fun n => is_val (eval_fn n t)) N). intros n Hn. now rewrite (HN n Hn).
Qed.

Definition fo2_normalize (t : tm) (H : fq2 t) : tm :=
  let n := 2 ^ pow2_search (fun n => is_val (eval_fn n t)) (fq2_fuel t H) in
  match eval_fn n t with EVal v => v | _ => t end.

Lemma fo2_normalize_sound t H : steps t (fo2_normalize t H) /\ value (fo2_normalize t H).
Proof.
  pose proof (pow2_search_spec (fun n => is_val (eval_fn n t)) (fq2_fuel t H)) as Hk.
  cbv beta in Hk. unfold fo2_normalize. cbv zeta. revert Hk.
  destruct (eval_fn (2 ^ pow2_search _ (fq2_fuel t H)) t) eqn:E; intros Hk; try discriminate.
  exact (eval_fn_sound _ _ _ E).
Qed.

(** It returns the value [→*] reaches. *)
Lemma fo2_normalize_steps t H v : steps t v -> value v -> fo2_normalize t H = v.
Proof.
  destruct (fo2_normalize_sound t H) as [Hs Hv]. intros Hs' Hv'. exact (steps_value_det _ _ _ Hs Hv Hs' Hv').
Qed.

(** ** Syntactic values under [ztyped] *)

(** No pullback of [t] outside the binders has an application as its
    body: the stuck pullbacks of Remark 3.6 are such pullbacks applied. *)
Fixpoint pb_noapp (t : tm) : Prop :=
  match t with
  | Pb (App _ _) _ => False
  | Pb _ a | Proj _ a | Fun _ a | Jac _ a | Dual _ a => pb_noapp a
  | App a b | Pair a b | Plus a b => pb_noapp a /\ pb_noapp b
  | _ => True
  end.

(** For the whole language: a closed [ztyped] normal form none of whose
    pullbacks has an application as its body is a syntactic value.

    Informal proof: by induction on [t].  A variable is not closed.  An
    application in normal form would have a function that is, by
    induction, a syntactic value of an arrow type: an abstraction ((1)
    applies), [J f · V] at a numeral applied to a numeral ([zcanon_gty]:
    (4) applies), or a chain [(Ω λy.E) · ω] whose application is a redex
    unless [E] is an application (Remark 3.6), which [pb_noapp] excludes.
    A projection of a syntactic value of a product is one of a pair
    ([zcanon_prod]), and [f(V)] one of a numeral: both redexes.  Every
    other normal form is a syntactic value when its parts in evaluation
    positions are. *)
Lemma zvalue_svalue t A : ztyped [] t A -> value t -> pb_noapp t -> svalue t.
Proof.
  revert A.
  induction t as [n|b _|a IHa d IHd|i a IHa|a IHa d IHd|r|f a IHa|f a IHa|s _ a IHa|p _ w IHw|r| |a IHa d IHd|a _ d _];
    intros A Ht Hv Hn; cbn [svalue]; try exact I.
  - inv Ht. destruct n; discriminate.
  - (* an application is no normal form *)
    exfalso. destruct Hv as [Hh [Va Vd]].
    assert (Hna : pb_noapp a /\ pb_noapp d) by (destruct a; try destruct a1; simpl in Hn |- *; tauto).
    inv Ht. rename H2 into Ta, H4 into Td.
    pose proof (IHa _ Ta Va (proj1 Hna)) as Sa.
    destruct a as [| | | | | |f a'|f a'| |p w| | | |]; cbn [svalue] in Sa; try contradiction; try (inv Ta; fail).
    + inv Ta. destruct (zcanon_gty a' _ Sa ltac:(eassumption) (gty_Rn _)) as (r & Dr & ->).
      destruct (zcanon_gty d _ (IHd _ Td Vd (proj2 Hna)) Td (gty_Rn _)) as (r' & Dr' & ->).
      apply Hh. simpl. eauto 6.
    + apply Hh. cbn [head_redex]. split; [tauto|].
      intros [(a0 & q0 & _ & _ & ->)|(p1 & q0 & -> & _)]; simpl in Hn; tauto.
  - (* a projection is no normal form *)
    exfalso. destruct Hv as [Hh Va].
    inv Ht; match goal with H : ztyped [] a _ |- _ =>
      destruct (zcanon_prod a _ _ (IHa _ H Va Hn) H) as (a1 & a2 & -> & _) end; apply Hh; exact I.
  - destruct Hv as [_ [Va Vd]]. destruct Hn as [Na Nd]. inv Ht. split; eauto.
  - (* [f(V)] is no normal form *)
    exfalso. destruct Hv as [Hh Va]. inv Ht.
    destruct (zcanon_gty a _ (IHa _ ltac:(eassumption) Va Hn) ltac:(eassumption) (gty_Rn _)) as (r & Dr & ->).
    apply Hh. simpl. eauto.
  - destruct Hv as [_ Va]. inv Ht. eauto.
  - destruct Hv as [Hh [Vs Va]]. inv Ht. split; [exact Vs|split; [eauto|exact Hh]].
  - destruct Hv as [_ [Hc Vw]]. assert (Nw : pb_noapp w) by (destruct p; simpl in Hn; tauto).
    inv Ht. split; [exact Hc|eauto].
  - destruct Hv as [_ [Va Vd]]. destruct Hn as [Na Nd]. inv Ht. split; eauto.
  - destruct Hv as [_ []].
Qed.

Lemma flat_pb_noapp t : flat t -> pb_noapp t.
Proof. induction t; simpl; tauto. Qed.

Lemma fq2_pb_noapp t : fq2 t -> pb_noapp t.
Proof.
  assert (Hw : forall w, form2 w -> pb_noapp w) by (induction w; simpl; intuition; destruct w1; simpl in *; tauto).
  induction t; intros H; apply fq2_inv in H;
    destruct H as [Hf|[Hf|[(w0 & v0 & E & Hf & Hv)|(s0 & q0 & E & Hs & Hq)]]];
    auto using flat_pb_noapp; try discriminate E; injection E as <- <-; simpl; auto using flat_pb_noapp.
Qed.

(** ** Progress, type safety, normalization to a syntactic value on [fq2] *)

(** [fq2_norm] reduces [t] to a normal form; if that takes no step, [t]
    is one, a syntactic value ([zvalue_svalue]); otherwise [t] steps. *)
Lemma zfo2_progress t A : ztyped [] t A -> fq2 t -> svalue t \/ exists t', step t t'.
Proof.
  intros Ht Hq. destruct (fq2_norm t Hq) as (v & Hs & Hv & _).
  destruct Hs as [t|t t' v H1 _]; [left; exact (zvalue_svalue t A Ht Hv (fq2_pb_noapp t Hq))|right; eauto].
Qed.

Section dense.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

(** Type safety from progress on any fragment the steps keep. *)
Lemma zsafety_by (P : tm -> Prop) (HP : forall t t', steps t t' -> P t -> P t')
  (Hp : forall t A, ztyped [] t A -> P t -> svalue t \/ exists t', step t t') t u A :
  ztyped [] t A -> P t -> steps t u -> svalue u \/ exists u', step u u'.
Proof. intros Ht Hq Hs. exact (Hp u A (ztyped_steps fsem_dense fjac_dense t u A Ht Hs) (HP t u Hs Hq)). Qed.

Lemma zfo2_safety t u A : ztyped [] t A -> fq2 t -> steps t u -> svalue u \/ exists u', step u u'.
Proof. exact (zsafety_by fq2 fq2_steps zfo2_progress t u A). Qed.

(** Corollary 5.2 with the values of the grammar, on [fq2] under
    [ztyped]. *)
Lemma zfo2_svalue_norm t A :
  ztyped [] t A -> fq2 t -> exists v, steps t v /\ svalue v /\ ztyped [] v A.
Proof.
  intros Ht Hq. destruct (fq2_norm t Hq) as (v & Hs & Hv & Hqv).
  pose proof (ztyped_steps fsem_dense fjac_dense t v A Ht Hs) as Htv.
  exists v. split; [exact Hs|split; [exact (zvalue_svalue v A Htv Hv (fq2_pb_noapp v Hqv))|exact Htv]].
Qed.
End dense.

(** ** Beyond [fq]: a Jacobian bound in a pullback's body, and a [let]
    that is not a let series *)
Example fq2_beyond_fq f :
  let t := Pb (Let (Jac f (Var 0)) (Let (Fun f (Var 1)) (Pair (Var 0) (Var 1)))) (Lam Zero) in
  fq2 t /\ ~ fq t.
Proof. simpl. unfold fo_body. simpl. tauto. Qed.

(** ** Where progress fails under [ztyped]: a Jacobian in the point,
    applied by the body

    [((Ω λy. π1(y) π2(y)) · λu.0) ⟨J f · x, x⟩] is closed, [ztyped] (the
    [0] stands at a dual type), well formed ([wf_tm], [pb_param_ok]: no
    Jacobian is applied in the body as written), and a normal form that
    is not a syntactic value: Remark 3.6's value 2 at a Jacobian.  So
    progress with syntactic values does not hold for every closed
    [ztyped] term; [pb_noapp] is what [zvalue_svalue] excludes.  The
    checkers' judgment refuses it: [pb_point_ok] (wf.v) fails, the body
    applying a path and the point holding a Jacobian, so [~ wf_query]. *)
Section stuck_jac.
Variables (f : fsym) (x : num scalar).
Hypothesis Dx : dense x.
Hypothesis Hx : num_ty x (Rn (fdom f)).

Definition jac_point : tm :=
  App (Pb (App (Proj false (Var 0)) (Proj true (Var 0))) (Lam Zero)) (Pair (Jac f (num_tm x)) (num_tm x)).

Lemma zstuck_jac_point :
  ztyped [] jac_point (TDual (TProd (TArr (Rn (fdom f)) (Rn (fcod f))) (Rn (fdom f)))) /\
  wf_tm jac_point /\ pb_param_ok jac_point /\ ~ wf_query jac_point /\
  value jac_point /\ ~ svalue jac_point /\ forall t', ~ step jac_point t'.
Proof.
  assert (Hv : value jac_point).
  { unfold jac_point. cbn [value head_redex]. split; [|split; [|split]].
    - intros [_ Hns]. apply Hns. right. exists [false], [true]. split; [reflexivity|]. discriminate.
    - assert (Hc : chain_body (App (Proj false (Var 0)) (Proj true (Var 0))))
        by (left; apply elem_app; repeat constructor).
      split; [intros Hl; exact (chain_body_not_lets _ Hc Hl)|split; [exact Hc|split; [intros []|exact I]]].
    - intros [].
    - split; [split; [intros []|apply value_num]|apply value_num]. }
  assert (Hn : forall r : num scalar, pb_lets_ok (num_tm r) /\ pb_jac_ok (num_tm r) /\ pb_param_ok (num_tm r))
    by (induction r; simpl; tauto).
  destruct (Hn x) as (H1 & H2 & H3).
  split; [|split; [|split; [|split; [|split; [exact Hv|split; [unfold jac_point; simpl; tauto|]]]]]].
  - unfold jac_point. eapply zt_app; [apply (zt_pb _ _ _ _ (Rn (fcod f)))|].
    + eapply zt_app; [eapply zt_proj1|eapply zt_proj2]; constructor; reflexivity.
    + repeat constructor.
    + constructor; [constructor|]; apply ztyped_num; assumption.
  - unfold jac_point, wf_tm. simpl. tauto.
  - unfold jac_point. simpl. repeat split; auto. intros n E. injection E as <-. discriminate.
  - (* [pb_point_ok]: the body applies a path, the point holds a Jacobian *)
    unfold jac_point, wf_query. simpl. intros (_ & _ & Hp). exact (proj1 (proj1 Hp eq_refl)).
  - intros t' Hs. exact (value_not_step _ _ Hs Hv).
Qed.
End stuck_jac.

(** ** Rule 18's premise ending in [(λv.S)* · 0]

    [((Ω λy. λx. let a = f(y) in let b = r in b) · λg.0) x0] is closed,
    [ztyped] and well formed; it is no normal form (a chain applied to a
    value), and it has no step: rule 18 asks its premise, the body run
    along a variable 1-form [ω'] at the point, to end in
    [(λv.S)* · (ω' V')], and it ends in [(λv.⟨v, (J f · v) x0⟩)* · 0]
    (rule 20a on [f(y)], then rule 9 on the constant [r]).  So Corollary
    5.2 ("every reduction sequence ends in a value") does not hold of
    every closed [ztyped] well-formed term in this reconstruction. *)
Section stuck_lam.
Variables (f : fsym) (x : num scalar) (r : scalar).
Hypothesis Dx : dense x.
Hypothesis Hx : num_ty x (Rn (fdom f)).

(** [let a = f(y) in let b = r in b] in [x :: y :: Γ]. *)
Definition lam_body : tm := Let (Fun f (Var 1)) (Let (Real r) (Var 0)).

Definition lam_query : tm := App (Pb (Lam lam_body) (Lam Zero)) (num_tm x).

Definition lam_premise_end : tm := Dual (Pair (Var 0) (App (Jac f (Var 0)) (num_tm x))) Zero.

Lemma lam_premise :
  steps (App (Pb (ren swap lam_body) (Var 1)) (ren (fun n => S (S n)) (num_tm x))) lam_premise_end /\
  value lam_premise_end.
Proof.
  assert (Vw : value (Pb (Real r) (Var 1))) by (apply value_pb; [left; apply elem_real|split; [intros []|exact I]]).
  assert (Vx : value (num_tm x)) by apply value_num.
  assert (Ef : elem (Fun f (Var 0))) by (apply elem_fun; constructor).
  split.
  - change (ren swap lam_body) with (Let (Fun f (Var 0)) (Let (Real r) (Var 0))). rewrite ren_num.
    (* (8) *)
    eapply steps_cons; [apply (step_ctx (EAppL (num_tm x))); [exact I|];
      apply step_pb_let; [exact Ef|apply lets_last, elem_real]|]. simpl.
    (* (7) *)
    eapply steps_cons; [apply (step_ctx (EAppL (num_tm x))); [exact I|];
      apply (step_ctx (EPbR (Pair (Var 0) (Fun f (Var 0))))); [right; exists (Fun f (Var 0)); split; [reflexivity|exact Ef]|];
      apply step_pb_ret, elem_real|]. simpl.
    (* (20a), its premise (15) *)
    pose proof (step_pb_fun f [] (Var 0) (num_tm x) ltac:(split; [intros []|exact I]) Vx) as H15.
    unfold yp, shift, out, subst1 in H15. simpl in H15. rewrite ren_num in H15.
    eapply steps_cons; [apply (step_pb_pair_step (Fun f (Var 0)) (App (Jac f (Var 0)) (num_tm x)) (Fun f (num_tm x)));
      [exact Vw|exact Vx|exact Ef|simpl; unfold is0; tauto|]|].
    { unfold shift. cbn [ren up_ren]. rewrite !ren_num. exact H15. }
    unfold out, subst1. simpl.
    (* (3) in the next point *)
    eapply steps_cons; [apply (step_ctx (EDualR _)); [exact I|]; apply (step_ctx (EAppR _)); [exact Vw|];
      apply (step_ctx (EPairR _)); [exact Vx|]; apply step_fun, Dx|]. simpl.
    (* (9) *)
    eapply steps_cons; [apply (step_ctx (EDualR _)); [exact I|]; apply step_pb_const;
      [split; [intros []|exact I]|split; [intros []|split; [exact Vx|apply value_num]]|apply elem_real|exact I]|].
    apply steps_refl.
  - unfold lam_premise_end. cbn [value head_redex].
    repeat split; try (intros []; fail); try exact Vx.
    intros (r1 & r2 & _ & _ & E & _). destruct r1; discriminate.
Qed.

Lemma ppath_not_lam p : forall t, (forall b, t <> Lam b) -> forall b, ppath p t <> Lam b.
Proof. induction p as [|i p IH]; intros t Ht; simpl; [exact Ht|apply IH; discriminate]. Qed.

(** With the zero variant of 18 ([step_pb_lam_zero], reduction.v), the
    query steps: [(λv. λx.0)* · ((λg.0) (λx. L[x0/y]))], then β in the
    dual map's argument, to the value [(λv. λx.0)* · 0], the zero
    functional (the body's value [r] does not depend on [y]). *)
Definition lam_value : tm := Dual (Lam Zero) Zero.

Lemma zpb_lam_value :
  ztyped [] lam_query (TDual (Rn (fdom f))) /\ wf_query lam_query /\ ~ value lam_query /\
  steps lam_query lam_value /\ value lam_value /\ ztyped [] lam_value (TDual (Rn (fdom f))).
Proof.
  assert (Hl : lets lam_body) by (apply lets_cons; [apply elem_fun; constructor|apply lets_last, elem_real]).
  assert (Hc : chain_body (Lam lam_body)) by (left; apply elem_lam, Hl).
  assert (Hz : ztyped [] lam_query (TDual (Rn (fdom f)))).
  { unfold lam_query. apply (zt_app _ _ _ (Rn (fdom f))); [|apply ztyped_num; assumption].
    apply (zt_pb _ _ _ _ (TArr TR TR)); [|repeat constructor].
    apply zt_lam. unfold lam_body. apply (zt_let _ _ _ (Rn (fcod f)));
      [apply zt_fun; constructor; reflexivity|apply (zt_let _ _ _ TR); [constructor|constructor; reflexivity]]. }
  assert (Hs : steps lam_query lam_value).
  { destruct lam_premise as [Hp Hv].
    eapply steps_cons.
    - unfold lam_query. apply (step_pb_lam_zero lam_body (Pair (Var 0) (App (Jac f (Var 0)) (num_tm x))));
        [apply value_lam|apply value_num|exact Hl| |exact Hv|exact Hp].
      simpl. unfold is0. tauto.
    - unfold out. eapply steps_cons; [apply (step_ctx (EDualR _)); [exact I|]; apply step_beta, value_lam|].
      simpl. apply steps_refl. }
  split; [exact Hz|split; [|split; [|split; [exact Hs|split]]]].
  - assert (Hn : forall r0 : num scalar, pb_lets_ok (num_tm r0) /\ pb_jac_ok (num_tm r0) /\ pb_param_ok (num_tm r0))
      by (induction r0; simpl; tauto).
    destruct (Hn x) as (H1 & H2 & H3).
    assert (H4 : pb_point_ok (num_tm x)) by (clear; induction x; simpl; tauto).
    unfold lam_query, wf_query, wf_tm. simpl. repeat split; try tauto; discriminate.
  - intros [Hh _]. apply Hh. cbn [head_redex]. split; [exact Hc|].
    intros [(a & q & _ & _ & E)|(p1 & q & E & _)]; discriminate.
  - unfold lam_value. cbn [value head_redex].
    repeat split; try (intros []; fail).
  - unfold lam_value. apply (zt_dual _ _ _ _ (TArr TR TR)); repeat constructor.
Qed.
End stuck_lam.

End fo2.

(** At [pullback-eval]'s signature ([exec_sig.v]) without hypotheses. *)
Lemma exec_zfo2_safety {K} (o : scalar_ops K) t u A :
  @ztyped (exec_sig o) [] t A -> @fq2 (exec_sig o) t -> @steps (exec_sig o) t u ->
  @svalue (exec_sig o) u \/ exists u', @step (exec_sig o) u u'.
Proof. apply zfo2_safety; [exact (exec_fsem_dense o)|exact (exec_fjac_dense o)]. Qed.

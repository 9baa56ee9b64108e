(** * Normalization of the first-order fragment (Corollary 5.2)

    Every term of the fragment [fq] of [fo.v] (in particular every
    first-order query [((Ω λy.P) · ω) V], [fo_query]) reduces to a value
    ([fq_norm], [fo_query_norm]); since [step] is deterministic, every
    reduction sequence from it is finite ([fq_sn]).  No typing is needed:
    the fragment is first-order by its syntax.  The proof follows the
    call-by-value strategy, phase by phase, with a measure only where a
    substitution makes a term larger:
    - [flat] terms ([flat_norm]): by induction on the number of [let]s,
      then on the term (a [let] of a value substitutes a value, which has
      no [let], so the count drops; every other step is in a subterm or
      removes a projection, a function symbol or a Jacobian);
    - a dual map whose body and argument are values ([dual_head]): (5⁺)
      gives a numeric dual, (6) a dual map whose argument is not a dual
      map, so at most one more (5⁺);
    - a 1-form ([form_norm]): the body is A-normalised ([anf_exists];
      A-steps keep [fob], [astep_fob]), then (7) and (8) unfold the let
      series into a chain [(Ω λy.E1) · ((Ω λy.⟨y,E2⟩) · …)] (by induction
      on the number of [let]s, which (8) keeps in its inner pullback and
      lowers by one);
    - a chain applied to a point ([chain_app_norm]): by induction on the
      chain; every first-order elementary body has a rule (9, 10a and its
      mirror, 11, 12, 13a-c, 15, 20a whose premise is one of these, 20b;
      [pb_elem_step], [pb_pair_premise]), the point of the next
      pullback is a [flat] term, and the dual map in front of the rest is
      a [dual_head].
    The normaliser [fo_normalize] needs no fuel: it searches the fuel of
    [eval_fn] by well-founded recursion ([ConstructiveEpsilon]), whose
    termination is the normalization theorem. *)
From Coq Require Import ConstructiveEpsilon.
From Pullback Require Import wf syntax typing anf anf_termination backprop reduction preservation
  progress decide step_fn normalize cps cps_run_complete reverse_phase fo.

Section norm_fo.
Context {Σ : signature}.

(** ** Auxiliary lemmas on the syntax *)

Lemma not_head t : head_redexb t = false -> ~ head_redex t.
Proof. intros E H. apply head_redexb_spec in H. congruence. Qed.

Lemma steps_one t t' : step t t' -> steps t t'.
Proof. intros H. econstructor; [exact H|constructor]. Qed.

Lemma steps_snoc t t' t'' : steps t t' -> step t' t'' -> steps t t''.
Proof. intros H1 H2. eapply steps_trans; [exact H1|apply steps_one, H2]. Qed.

Lemma ren_num_inv ρ t r : ren ρ t = num_tm r -> t = num_tm r.
Proof.
  revert t. induction r as [x|a IHa b IHb|]; intros t H; destruct t; simpl in H; try discriminate.
  - exact H.
  - injection H as H1 H2. simpl. f_equal; auto.
  - reflexivity.
Qed.

(** A renamed first-order value is a value. *)
Lemma value_ren_flat ρ v : flat v -> value v -> value (ren ρ v).
Proof.
  induction v as [n|s|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros Hf [Hn Hv]; try contradiction.
  - split; [intros []|exact I].
  - split; [|split; [apply IHa; tauto|apply IHb; tauto]].
    intros H. apply Hn. destruct a; simpl in H, Hf |- *; try exact H; try tauto.
    destruct H as (r & r' & Hd & Hd' & E1 & E2).
    exists r, r'. repeat split; auto; eapply ren_num_inv; eassumption.
  - split; [|apply IHa; tauto].
    intros H. apply Hn. destruct a; simpl in H |- *; tauto.
  - split; [intros []|split; [apply IHa; tauto|apply IHb; tauto]].
  - split; [intros []|exact I].
  - split; [|apply IHa; tauto].
    intros (r & Hd & E). apply Hn. exists r. split; [exact Hd|eapply ren_num_inv; eassumption].
  - split; [intros []|apply IHa; tauto].
  - split; [intros []|exact I].
  - split; [intros []|exact I].
  - split; [intros []|split; [apply IHa; tauto|apply IHb; tauto]].
Qed.

Lemma ren_ren ρ τ t : ren ρ (ren τ t) = ren (fun n => ρ (τ n)) t.
Proof.
  assert (Hext : forall t ρ1 ρ2, (forall n, ρ1 n = ρ2 n) -> ren ρ1 t = ren ρ2 t).
  { induction t0; intros ρ1 ρ2 H; simpl; f_equal; auto;
      match goal with IH : forall ρ1 ρ2, _ -> ren ρ1 ?u = ren ρ2 ?u |- ren _ ?u = ren _ ?u =>
        apply IH; intros [|n]; simpl; auto end. }
  revert ρ τ. induction t; intros ρ τ; simpl; f_equal; auto;
    match goal with IH : forall ρ τ, ren ρ (ren τ ?u) = _ |- ren _ (ren _ ?u) = _ =>
      rewrite IH; apply Hext; intros [|n]; reflexivity end.
Qed.

Lemma ren_upS_yp p : ren (up_ren S) (yp p) = yp p.
Proof. unfold yp. rewrite ren_ppath. reflexivity. Qed.

(** ** Flat terms *)

(** [norm_cong2 C FL FR a b IHa IHb Hf]: a term [C a b] whose two
    subterms normalise ([IHa], [IHb]) normalises to [C va vb], through
    the frames [FL b] then [FR va]. *)
Ltac norm_cong2 C FL FR a b IHa IHb Hf :=
  destruct (IHa ltac:(lia) (proj1 Hf)) as (va & Ha & Hva & Hfa);
  destruct (IHb ltac:(lia) (proj2 Hf)) as (vb & Hb & Hvb & Hfb);
  exists (C va vb); split;
  [ eapply steps_trans; [apply (steps_ctx (FL b)); [exact I|exact Ha]|];
    apply (steps_ctx (FR va)); [exact Hva|exact Hb]
  | split; [split; [intros []|tauto]|simpl; tauto] ].

Lemma flat_norm_lt n : forall t, nlets t < n -> flat t -> exists v, steps t v /\ value v /\ flat v.
Proof.
  induction n as [|n IHn]; intros t; [intros Hn; lia|].
  induction t as [k|s|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros Hn Hf; try contradiction.
  - (* variable *) exists (Var k). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* application *)
    destruct (IHa ltac:(lia) (proj1 Hf)) as (va & Ha & Hva & Hfa).
    destruct (IHb ltac:(lia) (proj2 Hf)) as (vb & Hb & Hvb & Hfb).
    assert (Hs : steps (App a b) (App va vb)).
    { eapply steps_trans; [apply (steps_ctx (EAppL b)); [exact I|exact Ha]|].
      apply (steps_ctx (EAppR va)); [exact Hva|exact Hb]. }
    destruct (head_redexb (App va vb)) eqn:E.
    + apply head_redexb_spec in E. destruct va; simpl in E, Hfa; try contradiction.
      (* (4) *)
      destruct E as (r & r' & Hd & Hd' & -> & ->).
      exists (num_tm (fjac f r' r)). split; [eapply steps_snoc; [exact Hs|apply step_jac; assumption]|].
      split; [apply value_num|apply flat_num].
    + exists (App va vb). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|tauto]|simpl; tauto].
  - (* projection *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    assert (Hs : steps (Proj i a) (Proj i va)) by (apply (steps_ctx (EProj i)); [exact I|exact Ha]).
    destruct (head_redexb (Proj i va)) eqn:E.
    + apply head_redexb_spec in E. destruct va as [| | | |v1 v2| | | | | | | | |]; simpl in E; try contradiction.
      (* (2) *)
      cbn [value] in Hva. simpl in Hfa. destruct Hva as [_ [Hv1 Hv2]]. destruct i.
      * exists v2. split; [eapply steps_snoc; [exact Hs|apply step_proj2; assumption]|tauto].
      * exists v1. split; [eapply steps_snoc; [exact Hs|apply step_proj1; assumption]|tauto].
    + exists (Proj i va). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|exact Hva]|exact Hfa].
  - (* pair *)
    norm_cong2 Pair EPairL EPairR a b IHa IHb Hf.
  - (* scalar *) exists (Real r). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* function symbol *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    assert (Hs : steps (Fun f a) (Fun f va)) by (apply (steps_ctx (EFun f)); [exact I|exact Ha]).
    destruct (head_redexb (Fun f va)) eqn:E.
    + (* (3) *)
      apply head_redexb_spec in E. destruct E as (r & Hd & ->).
      exists (num_tm (fsem f r)). split; [eapply steps_snoc; [exact Hs|apply step_fun; assumption]|].
      split; [apply value_num|apply flat_num].
    + exists (Fun f va). split; [exact Hs|]. split; [cbn [value]; split; [apply not_head, E|exact Hva]|exact Hfa].
  - (* Jacobian *)
    destruct (IHa ltac:(lia) Hf) as (va & Ha & Hva & Hfa).
    exists (Jac f va). split; [apply (steps_ctx (EJac f)); [exact I|exact Ha]|].
    split; [split; [intros []|exact Hva]|exact Hfa].
  - (* numeric dual *) exists (NDual r). split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* 0 *) exists Zero. split; [constructor|]. split; [split; [intros []|exact I]|exact I].
  - (* sum *)
    norm_cong2 Plus EPlusL EPlusR a b IHa IHb Hf.
  - (* let *)
    destruct (IHe ltac:(lia) (proj1 Hf)) as (ve & He & Hve & Hfe).
    assert (Hl : nlets (subst1 ve l) < n).
    { unfold subst1. rewrite nlets_subst; [lia|].
      intros [|m]; simpl; [apply value_nlets; assumption|reflexivity]. }
    assert (Hfl : flat (subst1 ve l)).
    { apply flat_subst; [intros [|m]; simpl; auto|tauto]. }
    destruct (IHn _ Hl Hfl) as (v & Hs & Hv & Hfv).
    exists v. split; [|tauto].
    eapply steps_trans; [apply (steps_ctx (ELet l)); [exact I|exact He]|].
    econstructor; [apply step_let; exact Hve|exact Hs].
Qed.

Lemma flat_norm t : flat t -> exists v, steps t v /\ value v /\ flat v.
Proof. apply (flat_norm_lt (S (nlets t))). lia. Qed.

(** ** Dual maps whose body and argument are values: (5⁺), (6) *)
Lemma dual_head s q : flat s -> value s -> fq q -> value q ->
  exists v, steps (Dual s q) v /\ value v /\ fq v.
Proof.
  intros Hfs Hvs Hq Hvq.
  destruct (head_redexb (Dual s q)) eqn:E.
  - apply head_redexb_spec in E. destruct q as [| | | | | | | |v2 v3| |c| | |]; simpl in E; try contradiction.
    + (* (6), then at most one (5⁺) *)
      assert (H23 : flat v2 /\ fq v3) by (simpl in Hq; tauto).
      cbn [value] in Hvq. destruct Hvq as [Hn23 [Hv2 Hv3]].
      assert (Hfb : flat (subst (scons s (fun n => Var (S n))) v2))
        by (apply flat_subst; [intros [|m]; simpl; auto|tauto]).
      destruct (flat_norm _ Hfb) as (vb & Hsb & Hvb & Hfvb).
      assert (Hst : steps (Dual s (Dual v2 v3)) (Dual vb v3)).
      { econstructor; [apply step_dual_comp; [exact Hvs|cbn [value]; tauto]|].
        apply (steps_ctx (EDualL v3)); [exact Hv3|exact Hsb]. }
      destruct (head_redexb (Dual vb v3)) eqn:E2.
      * (* [v3] is not a dual map, since [(λv.V2)* · V3] is a value *)
        apply head_redexb_spec in E2. destruct v3; simpl in E2; try contradiction.
        destruct E2 as [Hn [r' Hb]]. exists (NDual r').
        split; [eapply steps_snoc; [exact Hst|apply step_bp; eassumption]|].
        split; [apply value_ndual|simpl; tauto].
      * exists (Dual vb v3). split; [exact Hst|].
        split; [cbn [value]; split; [apply not_head, E2|tauto]|simpl; tauto].
    + (* (5⁺) *)
      destruct E as [Hn [r Hb]]. exists (NDual r).
      split; [apply steps_one, step_bp; eassumption|]. split; [apply value_ndual|simpl; tauto].
  - exists (Dual s q). split; [constructor|].
    split; [cbn [value]; split; [apply not_head, E|tauto]|simpl; tauto].
Qed.

(** A dual map [s* q] with [s] flat and [q] normalising to a value of
    [fq] normalises ([dual_head] once both are values). *)
Lemma dual_norm s q : flat s -> (exists vq, steps q vq /\ value vq /\ fq vq) ->
  exists v, steps (Dual s q) v /\ value v /\ fq v.
Proof.
  intros Hs (vq & Hsq & Hvq & Hfq).
  destruct (flat_norm s Hs) as (vs & Hss & Hvs & Hfs).
  destruct (dual_head vs vq Hfs Hvs Hfq Hvq) as (v & Hsv & Hv & Hf).
  exists v. split; [|tauto].
  eapply steps_trans; [apply (steps_ctx (EDualR s)); [exact I|exact Hsq]|].
  eapply steps_trans; [apply (steps_ctx (EDualL vq)); [exact Hvq|exact Hss]|exact Hsv].
Qed.

Lemma dflat_norm t : dflat t -> exists v, steps t v /\ value v /\ fq v.
Proof.
  induction t; intros H;
    try (destruct (flat_norm _ H) as (v & Hs & Hv & Hf); exists v;
         split; [exact Hs|split; [exact Hv|apply flat_fq, Hf]]).
  (* a dual map *)
  simpl in H. destruct H as [Hs Hq].
  exact (dual_norm _ _ Hs (IHt2 Hq)).
Qed.

(** The A-steps of a pullback's body, up to a let series or a chain body. *)
Lemma pb_anf p l w : asteps p l -> lets l -> fo_body p ->
  exists p', steps (Pb p w) (Pb p' w) /\ fo_body p' /\ (lets p' \/ chain_body p').
Proof.
  induction 1 as [p|p p1 l Hs _ IH]; intros Hl Hp.
  - exists p. split; [constructor|auto].
  - destruct (chain_bodyb p) eqn:E.
    + exists p. split; [constructor|]. split; [exact Hp|right; apply chain_bodyb_spec, E].
    + assert (Hp1 : fo_body p1).
      { destruct Hp as [Hf Hw]. split; [eapply astep_fob|eapply astep_wf_let]; eassumption. }
      destruct (IH Hl Hp1) as (p' & Hs' & Hp' & Hd).
      exists p'. split; [|tauto].
      econstructor; [apply step_pb_anf; [exact Hs|]|exact Hs'].
      intros Hc. apply chain_bodyb_spec in Hc. congruence.
Qed.

(** Values of 1-forms: chains of pullbacks along elementary bodies. *)
Fixpoint fchain (t : tm) : Prop :=
  match t with
  | Lam b => dflat b
  | Pb e c => chain_body e /\ fob e /\ fchain c
  | _ => False
  end.

Lemma fchain_form c : fchain c -> form c.
Proof.
  induction c; simpl; intros H; try tauto.
  destruct H as [Hcb [Hf Hc]]. split; [split; [exact Hf|]|auto].
  apply nlets_wf_let. destruct Hcb as [He|(e & -> & He)].
  - apply elem_fob_nlets; assumption.
  - simpl in Hf |- *. apply elem_fob_nlets; tauto.
Qed.

(** (7) and (8): a let series unfolds into a chain. *)
Lemma lets_norm_lt n : forall l w, nlets l < n -> lets l -> fob l ->
  (exists c, steps w c /\ value c /\ fchain c) ->
  exists c, steps (Pb l w) c /\ value c /\ fchain c.
Proof.
  induction n as [|n IHn]; intros l w Hn Hl Hf Hw; [lia|].
  destruct Hw as (c' & Hsw & Hvc & Hfc).
  destruct Hl as [e He|e l He Hl].
  - (* (7) *)
    simpl in Hf. exists (Pb e c'). split.
    + econstructor; [apply step_pb_ret; exact He|].
      apply (steps_ctx (EPbR e)); [left; exact He|exact Hsw].
    + split; [apply value_pb; [left; exact He|exact Hvc]|].
      simpl. split; [left; exact He|tauto].
  - (* (8) *)
    simpl in Hf, Hn.
    assert (Hl' : lets (subst sub8 l)) by (apply lets_subst_fo; [exact Hl|tauto|apply sub8_atom]).
    assert (Hn' : nlets (subst sub8 l) < n)
      by (rewrite nlets_subst; [lia|intros [|[|k]]; reflexivity]).
    assert (Hf' : fob (subst sub8 l)) by (apply fob_subst; [apply sub8_fob|tauto]).
    destruct (IHn (subst sub8 l) w Hn' Hl' Hf' (ex_intro _ c' (conj Hsw (conj Hvc Hfc))))
      as (c & Hsc & Hvc2 & Hfc2).
    assert (Hcb : chain_body (Pair (Var 0) e)) by (right; exists e; auto).
    exists (Pb (Pair (Var 0) e) c). split.
    + econstructor; [apply step_pb_let; assumption|].
      apply (steps_ctx (EPbR (Pair (Var 0) e))); [exact Hcb|exact Hsc].
    + split; [apply value_pb; [exact Hcb|exact Hvc2]|].
      simpl. split; [exact Hcb|]. split; [split; [exact I|tauto]|exact Hfc2].
Qed.

Lemma form_norm w : form w -> exists c, steps w c /\ value c /\ fchain c.
Proof.
  induction w as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros H; try contradiction.
  - (* λx.D *) exists (Lam s). split; [constructor|]. split; [apply value_lam|exact H].
  - (* (Ω λy.P) · w *)
    destruct H as [[HP HPw] Hw].
    destruct (anf_exists p HPw) as (l & Hsl & Hl).
    destruct (pb_anf p l w Hsl Hl (conj HP HPw)) as (p' & Hsp & [Hp' Hpw'] & [Hlp|Hcb]).
    + destruct (lets_norm_lt (S (nlets p')) p' w ltac:(lia) Hlp Hp' (IHw Hw)) as (c & Hsc & Hvc & Hfc).
      exists c. split; [eapply steps_trans; eassumption|tauto].
    + destruct (IHw Hw) as (c' & Hsw & Hvc & Hfc).
      exists (Pb p' c'). split.
      * eapply steps_trans; [exact Hsp|]. apply (steps_ctx (EPbR p')); [exact Hcb|exact Hsw].
      * split; [apply value_pb; assumption|]. simpl. tauto.
Qed.

(** ** A chain applied to a point *)

(** Every first-order elementary body has a rule: (9), or a dual map. *)
Lemma pb_elem_step e w v : elem e -> fob e -> value w -> value v -> flat v ->
  step (App (Pb e w) v) Zero \/
  exists s, flat s /\ step (App (Pb e w) v) (Dual s (out w v e)).
Proof.
  intros He Hf Hw Hv Hfv.
  destruct (nocc_is0_dec e) as [Hn|Hn]; [left; apply step_pb_const; assumption|right].
  destruct He as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl in Hf; try contradiction.
  - destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
    + exfalso. apply Hn. simpl. tauto.
    + (* (10a) *) exists (yp q). split; [apply flat_yp|]. apply step_pb_plus_l; assumption.
    + (* (10a), mirrored *) exists (yp p). split; [apply flat_yp|]. apply step_pb_plus_r; assumption.
    + (* (12) *)
      exists (Plus (yp p) (yp q)). split; [simpl; split; apply flat_yp|].
      apply step_pb_lin; [assumption|assumption|apply elem_plus; apply atom_yp|apply lin_shape_plus].
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    (* (11) *)
    exists (yp p). split; [apply flat_yp|].
    apply step_pb_lin; [assumption|assumption|apply elem_atom, atom_yp|apply lin_shape_path].
  - destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
    + exfalso. apply Hn. simpl. tauto.
    + (* (13b) *)
      exists (Pair Zero (yp q)). split; [simpl; split; [exact I|apply flat_yp]|].
      apply step_pb_pair_r; assumption.
    + (* (13a) *)
      exists (Pair (yp p) Zero). split; [simpl; split; [apply flat_yp|exact I]|].
      apply step_pb_pair_l; assumption.
    + (* (13c) *)
      exists (Pair (yp p) (yp q)). split; [simpl; split; apply flat_yp|].
      apply step_pb_lin; [assumption|assumption|apply elem_pair; apply atom_yp|apply lin_shape_pair].
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    (* (15) *)
    exists (App (Jac f (yp p)) (shift (ppath p v))).
    split; [simpl; split; [apply flat_yp|apply flat_ren, flat_ppath, Hfv]|].
    apply step_pb_fun; assumption.
Qed.

Lemma nocc_upS a : nocc is0 a -> nocc is0 (ren (up_ren S) a).
Proof.
  intros H. eapply nocc_ren; [|exact H].
  intros [|k] Hk; unfold is0 in *; simpl in *; [reflexivity|discriminate].
Qed.

(** The premise of (20a): one step of the same rules, along [ω′]. *)
Lemma pb_pair_premise e v : elem e -> fob e -> ~ nocc is0 e -> value v -> flat v ->
  exists s0 u, flat s0 /\
    step (App (Pb (ren (up_ren S) e) (Var 0)) (shift v)) (Dual (ren (up_ren S) s0) (App (Var 0) u)).
Proof.
  intros He Hf Hn Hv Hfv.
  assert (Hw : value (Var 0)) by (split; [intros []|exact I]).
  assert (Hv' : value (shift v)) by (apply value_ren_flat; assumption).
  destruct He as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl in Hf; try contradiction.
  - destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
    + exfalso. apply Hn. simpl. tauto.
    + exists (yp q). eexists. split; [apply flat_yp|]. cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_plus_l; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (yp p). eexists. split; [apply flat_yp|]. cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_plus_r; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (Plus (yp p) (yp q)). eexists. split; [simpl; split; apply flat_yp|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_lin; [assumption|assumption|apply elem_plus; apply atom_yp|apply lin_shape_plus].
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    exists (yp p). eexists. split; [apply flat_yp|]. rewrite !ren_upS_yp.
    apply step_pb_lin; [assumption|assumption|apply elem_atom, atom_yp|apply lin_shape_path].
  - destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
    + exfalso. apply Hn. simpl. tauto.
    + exists (Pair Zero (yp q)). eexists. split; [simpl; split; [exact I|apply flat_yp]|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_pair_r; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (Pair (yp p) Zero). eexists. split; [simpl; split; [apply flat_yp|exact I]|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_pair_l; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (Pair (yp p) (yp q)). eexists. split; [simpl; split; apply flat_yp|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_lin; [assumption|assumption|apply elem_pair; apply atom_yp|apply lin_shape_pair].
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    exists (App (Jac f (yp p)) (shift (ppath p v))). eexists.
    split; [simpl; split; [apply flat_yp|apply flat_ren, flat_ppath, Hfv]|].
    cbn [ren]. rewrite !ren_upS_yp.
    replace (ren (up_ren S) (shift (ppath p v))) with (shift (ppath p (shift v)))
      by (unfold shift; rewrite !ren_ppath, !ren_ren; reflexivity).
    apply step_pb_fun; assumption.
Qed.

Lemma chain_app_norm c : fchain c -> value c -> forall v, flat v -> value v ->
  exists u, steps (App c v) u /\ value u /\ fq u.
Proof.
  induction c as [n|b IHb|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|e IHe c' IHc|r| |a IHa b IHb|e IHe l IHl];
    simpl; intros Hc Hvc V HfV HvV; try contradiction.
  - (* (1) *)
    assert (Hb : dflat (subst1 V b)) by (apply dflat_subst; [intros [|m]; simpl; auto|exact Hc]).
    destruct (dflat_norm _ Hb) as (u & Hs & Hu & Hfu).
    exists u. split; [econstructor; [apply step_beta; exact HvV|exact Hs]|tauto].
  - destruct Hc as [Hcb [Hfe Hc']].
    apply value_pb_inv in Hvc. destruct Hvc as [_ Hvc'].
    (* the rest of the chain, at the next point, under the dual map *)
    assert (Hk : forall s X, flat s -> flat X -> exists u, steps (Dual s (App c' X)) u /\ value u /\ fq u).
    { intros s X Hs HX. destruct (flat_norm X HX) as (VX & HsX & HvX & HfX).
      destruct (IHc Hc' Hvc' VX HfX HvX) as (D & HsD & HvD & HfD).
      destruct (flat_norm s Hs) as (vs & Hss & Hvs & Hfs).
      destruct (dual_head vs D Hfs Hvs HfD HvD) as (u & Hsu & Hu & Hfu).
      exists u. split; [|tauto].
      eapply steps_trans; [apply (steps_ctx (EDualR s)); [exact I|]|].
      { eapply steps_trans; [apply (steps_ctx (EAppR c')); [exact Hvc'|exact HsX]|exact HsD]. }
      eapply steps_trans; [apply (steps_ctx (EDualL D)); [exact HvD|exact Hss]|exact Hsu]. }
    destruct Hcb as [He|(e0 & -> & He0)].
    + destruct (pb_elem_step e c' V He Hfe Hvc' HvV HfV) as [Hz|(s & Hs & Hst)].
      * (* (9) *) exists Zero. split; [apply steps_one, Hz|split; [apply value_zero|simpl; tauto]].
      * destruct (Hk s (subst1 V e) Hs) as (u & Hsu & Hu & Hfu).
        { apply flat_subst; [intros [|m]; simpl; auto|apply fob_flat, Hfe]. }
        exists u. split; [econstructor; [exact Hst|exact Hsu]|tauto].
    + simpl in Hfe. destruct (nocc_is0_dec e0) as [Hn|Hn].
      * (* (20b) *)
        destruct (Hk (Pair (Var 0) Zero) (subst1 V (Pair (Var 0) e0))) as (u & Hsu & Hu & Hfu).
        { simpl. tauto. }
        { apply flat_subst; [intros [|m]; simpl; auto|simpl; split; [exact I|apply fob_flat; tauto]]. }
        exists u. split; [econstructor; [apply step_pb_pair_const; assumption|exact Hsu]|tauto].
      * (* (20a) *)
        destruct (pb_pair_premise e0 V He0 (proj2 Hfe) Hn HvV HfV) as (s0 & u0 & Hs0 & Hp).
        destruct (Hk (Pair (Var 0) s0) (subst1 V (Pair (Var 0) e0))) as (u & Hsu & Hu & Hfu).
        { simpl. tauto. }
        { apply flat_subst; [intros [|m]; simpl; auto|simpl; split; [exact I|apply fob_flat; tauto]]. }
        exists u. split; [econstructor; [eapply step_pb_pair_step; eassumption|exact Hsu]|tauto].
Qed.

(** ** Normalization *)

Lemma flat_fq_norm t : flat t -> exists v, steps t v /\ value v /\ fq v.
Proof.
  intros H. destruct (flat_norm _ H) as (v & Hs & Hv & Hf).
  exists v. split; [exact Hs|split; [exact Hv|apply flat_fq, Hf]].
Qed.

Lemma form_fq_norm t : form t -> exists v, steps t v /\ value v /\ fq v.
Proof.
  intros H. destruct (form_norm _ H) as (c & Hs & Hv & Hc).
  exists c. split; [exact Hs|split; [exact Hv|apply form_fq, fchain_form, Hc]].
Qed.

(** Informal proof: by induction on the term.  A [flat] term, a 1-form:
    [flat_norm], [form_norm].  A 1-form applied to a point: the 1-form
    reduces to a chain (in the context [[] P]), the point to a value (in
    the context [V []]), and the chain applied to the value reduces to a
    value ([chain_app_norm]).  A dual map [(λv.S)* · Q]: [Q] reduces to a
    value by induction (in the context [(λv.S)* · []]), then the body (in
    [(λv.[])* · V]), and [dual_head] ends it. *)
Lemma fq_norm t : fq t -> exists v, steps t v /\ value v /\ fq v.
Proof.
  induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs q IHq|p IHp w IHw|r| |a IHa b IHb|e IHe l IHl];
    intros H; (destruct H as [Hf|[Hw|Hm]]; [apply flat_fq_norm, Hf|apply form_fq_norm, Hw|]);
    simpl in Hm; try contradiction.
  - (* a 1-form applied to a point *)
    destruct Hm as [Ha Hb].
    destruct (form_norm _ Ha) as (c & Hsc & Hvc & Hc).
    destruct (flat_norm _ Hb) as (V & HsV & HvV & HfV).
    destruct (chain_app_norm c Hc Hvc V HfV HvV) as (u & Hsu & Hu & Hfu).
    exists u. split; [|tauto].
    eapply steps_trans; [apply (steps_ctx (EAppL b)); [exact I|exact Hsc]|].
    eapply steps_trans; [apply (steps_ctx (EAppR c)); [exact Hvc|exact HsV]|exact Hsu].
  - (* a dual map *)
    destruct Hm as [Hs Hq].
    exact (dual_norm _ _ Hs (IHq Hq)).
Qed.

(** Corollary 5.2 for first-order queries. *)
Lemma fo_query_norm t : fo_query t -> exists v, steps t v /\ value v.
Proof. intros H. destruct (fq_norm t (fo_query_fq t H)) as (v & Hs & Hv & _). eauto. Qed.

(** Every reduction sequence from a term of the fragment is finite: the
    value it reaches is the end of the only one ([step_det]). *)
Lemma steps_value_acc t v : steps t v -> value v -> Acc (fun u t => step t u) t.
Proof.
  induction 1 as [t|t t' v Hst _ IH]; intros Hv; constructor; intros u Hu.
  - exfalso. exact (value_not_step _ _ Hu Hv).
  - rewrite (step_det _ _ _ Hu Hst). apply IH, Hv.
Qed.

(** Informal proof: [fq_norm] gives a reduction [t →* v] to a value;
    [steps_value_acc] follows it, a value having no step and every step
    of [t] being the one of that reduction ([step_det]). *)
Lemma fq_sn t : fq t -> Acc (fun u t => step t u) t.
Proof. intros H. destruct (fq_norm t H) as (v & Hs & Hv & _). exact (steps_value_acc t v Hs Hv). Qed.

(** A closed well-typed first-order query reduces to a value of its type. *)
Lemma fo_query_typed_norm t A : typed [] t A -> fo_query t ->
  exists v, steps t v /\ value v /\ typed [] v A.
Proof.
  intros Ht Hq. destruct (fo_query_norm t Hq) as (v & Hs & Hv).
  exists v. split; [exact Hs|split; [exact Hv|eapply steps_typed; eassumption]].
Qed.

(** ** The normaliser, without fuel

    [eval_fn] is tried with fuel [2^k] for [k = 0, 1, 2, …]; the search
    is well-founded recursion ([constructive_indefinite_ground_description_nat])
    whose termination is [fq_norm] with [eval_fn_complete]. *)
Definition is_val (r : eres) : bool := match r with EVal _ => true | _ => false end.

(** [pow2_search P H]: the least [k] such that the test [P] passes at the
    fuel [2^k], found by trying [k = 0, 1, 2, …]; it ends since a test
    that passes at every fuel from some [N] on passes at [2^N]
    ([pow2_exists]).  [fo_fuel] below and [fo_run_fuel] (fo_run.v) are
    its instances. *)
Definition pow2_search (P : nat -> bool) (H : exists k, P (2 ^ k) = true) : nat :=
  proj1_sig (constructive_indefinite_ground_description_nat
               (fun k => P (2 ^ k) = true) (fun k => Bool.bool_dec (P (2 ^ k)) true) H).

Lemma pow2_search_spec P H : P (2 ^ pow2_search P H) = true.
Proof.
  unfold pow2_search. destruct (constructive_indefinite_ground_description_nat _ _ _) as [k Hk].
  exact Hk.
Qed.

Lemma pow2_exists (P : nat -> bool) N : (forall n, N <= n -> P n = true) -> exists k, P (2 ^ k) = true.
Proof. intros HN. exists N. apply HN, Nat.lt_le_incl, Nat.pow_gt_lin_r. lia. Qed.

Lemma fq_fuel t : fq t -> exists k, is_val (eval_fn (2 ^ k) t) = true.
Proof.
  intros H. destruct (fq_norm t H) as (v & Hs & Hv & _).
  destruct (eval_fn_complete t v Hs Hv) as [N HN].
  apply (pow2_exists (fun n => is_val (eval_fn n t)) N). intros n Hn. rewrite HN by exact Hn. reflexivity.
Qed.

Definition fo_fuel (t : tm) (H : fq t) : nat := pow2_search (fun n => is_val (eval_fn n t)) (fq_fuel t H).

Definition fo_normalize (t : tm) (H : fq t) : tm :=
  match eval_fn (2 ^ fo_fuel t H) t with EVal v => v | _ => t end.

(** Informal proof: the search returns a [k] at which [eval_fn (2^k) t]
    is a value, which [eval_fn_sound] reaches. *)
Lemma fo_normalize_sound t H : steps t (fo_normalize t H) /\ value (fo_normalize t H).
Proof.
  unfold fo_normalize. assert (Hk : is_val (eval_fn (2 ^ fo_fuel t H) t) = true)
    by exact (pow2_search_spec (fun n => is_val (eval_fn n t)) (fq_fuel t H)).
  destruct (eval_fn (2 ^ fo_fuel t H) t) as [v| |] eqn:E; try discriminate.
  apply eval_fn_sound with (2 ^ fo_fuel t H). exact E.
Qed.

(** The normaliser returns the value the reduction reaches. *)
Lemma fo_normalize_steps t H v : steps t v -> value v -> fo_normalize t H = v.
Proof.
  intros Hs Hv. destruct (fo_normalize_sound t H) as [Hs' Hv'].
  exact (steps_value_det _ _ _ Hs' Hv' Hs Hv).
Qed.

(** It agrees with the fuelled evaluator once the fuel suffices. *)
Lemma fo_normalize_eval_fn t H :
  exists N, forall n, N <= n -> eval_fn n t = EVal (fo_normalize t H).
Proof.
  destruct (fo_normalize_sound t H) as [Hs Hv]. exact (eval_fn_complete _ _ Hs Hv).
Qed.

(** The normaliser of [pullback-eval] ([normalize], the driver's [run])
    and its continuation machine ([cps_run]) reach the same value, with
    enough fuel. *)
Lemma fo_normalize_normalize t H :
  exists k N, forall fuel, N <= fuel -> normalize fuel t = (fo_normalize t H, k, OValue).
Proof.
  destruct (fo_normalize_sound t H) as [Hs Hv]. exact (normalize_complete _ _ Hs Hv).
Qed.

Lemma fo_normalize_cps t H :
  exists k d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EVal (fo_normalize t H) /\
    exists rs, cps_run d' m' t = (fo_normalize t H, k, rs, OValue).
Proof.
  destruct (fo_normalize_normalize t H) as (k & N & HN).
  destruct (cps_normalize_complete N t _ k (HN N (le_n N))) as (d & m & Hdm).
  exists k, d, m. exact Hdm.
Qed.

(** ** The fragment decided, and the normaliser as a total function *)
Fixpoint flatb (t : tm) : bool :=
  match t with
  | Var _ | Real _ | Zero | NDual _ => true
  | Proj _ a | Fun _ a | Jac _ a => flatb a
  | App a b | Pair a b | Plus a b | Let a b => flatb a && flatb b
  | Lam _ | Dual _ _ | Pb _ _ => false
  end.

Fixpoint fobb (t : tm) : bool :=
  match t with
  | Var _ | Real _ | Zero => true
  | Proj _ a | Fun _ a => fobb a
  | Pair a b | Plus a b | Let a b => fobb a && fobb b
  | _ => false
  end.

(** [wf_letb] and [wf_letb_spec] decide [wf_let]: [wf.v]. *)

Fixpoint dflatb (t : tm) : bool :=
  match t with
  | Dual s q => flatb s && dflatb q
  | t => flatb t
  end.

Fixpoint formb (t : tm) : bool :=
  match t with
  | Lam b => dflatb b
  | Pb p w => fobb p && wf_letb p && formb w
  | _ => false
  end.

Fixpoint fqb (t : tm) : bool :=
  flatb t || formb t ||
  match t with
  | App w v => formb w && flatb v
  | Dual s q => flatb s && fqb q
  | _ => false
  end.

Lemma flatb_spec t : flatb t = true <-> flat t.
Proof.
  induction t; simpl; rewrite ?Bool.andb_true_iff, ?IHt, ?IHt1, ?IHt2; split; auto; try tauto;
    intros H; discriminate.
Qed.

Lemma fobb_spec t : fobb t = true <-> fob t.
Proof.
  induction t; simpl; rewrite ?Bool.andb_true_iff, ?IHt, ?IHt1, ?IHt2; split; auto; try tauto;
    intros H; discriminate.
Qed.

Lemma dflatb_spec t : dflatb t = true <-> dflat t.
Proof.
  induction t; try apply flatb_spec.
  simpl. rewrite Bool.andb_true_iff, flatb_spec, IHt2. tauto.
Qed.

Lemma formb_spec t : formb t = true <-> form t.
Proof.
  induction t; simpl; try (split; [discriminate|tauto]).
  - apply dflatb_spec.
  - unfold fo_body. rewrite !Bool.andb_true_iff, fobb_spec, wf_letb_spec, IHt2. tauto.
Qed.

Lemma fqb_spec t : fqb t = true <-> fq t.
Proof.
  induction t; cbn [fqb fq]; rewrite !Bool.orb_true_iff, flatb_spec, formb_spec;
    try solve [intuition discriminate].
  - rewrite Bool.andb_true_iff, formb_spec, flatb_spec. tauto.
  - rewrite Bool.andb_true_iff, flatb_spec, IHt2. tauto.
Qed.

(** [on_fq f t]: [None] outside the fragment, else [f] on [t] and the
    proof that [t] is inside, decided by [fqb]; [fo_eval] below and
    [fo_run_opt] (fo_run.v) are its instances. *)
Definition on_fq {A : Type} (f : forall t, fq t -> A) (t : tm) : option A :=
  match Bool.bool_dec (fqb t) true with
  | left E => Some (f t (proj1 (fqb_spec t) E))
  | right _ => None
  end.

Lemma on_fq_some {A : Type} (f : forall t, fq t -> A) t x :
  on_fq f t = Some x -> exists H, x = f t H.
Proof.
  unfold on_fq. destruct (Bool.bool_dec (fqb t) true) as [E|E]; intros Hx; [|discriminate].
  injection Hx as <-. eauto.
Qed.

Lemma on_fq_complete {A : Type} (f : forall t, fq t -> A) t : fq t -> exists x, on_fq f t = Some x.
Proof.
  intros H. unfold on_fq. destruct (Bool.bool_dec (fqb t) true) as [E|E]; [eauto|].
  exfalso. apply E, fqb_spec, H.
Qed.

Lemma on_fq_none {A : Type} (f : forall t, fq t -> A) t : on_fq f t = None -> ~ fq t.
Proof. intros H Hq. destruct (on_fq_complete f t Hq) as [x Hx]. congruence. Qed.

(** [fo_eval t]: [None] outside the fragment, else the value of [t]; no
    fuel, no proof argument. *)
Definition fo_eval (t : tm) : option tm := on_fq fo_normalize t.

Lemma fo_eval_sound t v : fo_eval t = Some v -> steps t v /\ value v.
Proof. intros H. destruct (on_fq_some _ _ _ H) as [Hq ->]. apply fo_normalize_sound. Qed.

Lemma fo_eval_complete t : fq t -> exists v, fo_eval t = Some v.
Proof. apply on_fq_complete. Qed.

Lemma fo_eval_none t : fo_eval t = None -> ~ fq t.
Proof. apply on_fq_none. Qed.

End norm_fo.

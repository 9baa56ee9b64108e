(** * The continuation machine follows the step function

    For any sound premise evaluators [stp], [ev], the machine of [cps.v]
    does what [step_at stp ev] (the step of [step_fn]) says: from
    [MEval t K], when [t] steps to [t'] it makes exactly one contraction and
    reaches a state standing for [plug K t'], and when [t] is a value it
    returns it to [K] without contracting ([descend]); from [MRet v K] it
    makes exactly one contraction to the step of [plug K v], or halts with
    [plug K v] when that is a value ([ascend]).  Chaining these along a run
    (that the machine then reaches every value [normalize] reaches) is not
    done here. *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn normalize cps.

Section complete.
Context {Σ : signature}.
Variables (stp : tm -> sres) (ev : tm -> eres).
Hypothesis stp_sound : forall x y, stp x = Stepped y -> step x y.
Hypothesis ev_sound : forall x y, ev x = EVal y -> steps x y /\ value y.

(** [reaches s c s']: from [s] the machine reaches [s'] after [c]
    contractions. *)
Definition reaches (s : state) (c : nat) (s' : state) : Prop :=
  exists j, forall n k rs, exists rs', run stp ev (j + n) s k rs = run stp ev n s' (k + c) rs'.

Lemma reaches_refl s : reaches s 0 s.
Proof. exists 0. intros n k rs. exists rs. rewrite PeanoNat.Nat.add_0_r. reflexivity. Qed.

Lemma reaches_trans s1 c1 s2 c2 s3 : reaches s1 c1 s2 -> reaches s2 c2 s3 -> reaches s1 (c1 + c2) s3.
Proof.
  intros [j1 H1] [j2 H2]. exists (j1 + j2). intros n k rs.
  destruct (H1 (j2 + n) k rs) as [rs1 E1]. destruct (H2 n (k + c1) rs1) as [rs2 E2].
  exists rs2. rewrite <- PeanoNat.Nat.add_assoc, E1, E2, PeanoNat.Nat.add_assoc. reflexivity.
Qed.

Lemma reaches_next s s' : transition stp ev s = Next s' None -> reaches s 0 s'.
Proof.
  intros H. exists 1. intros n k rs. exists rs. simpl. rewrite H, PeanoNat.Nat.add_0_r. reflexivity.
Qed.

Lemma reaches_fire s s' r : transition stp ev s = Next s' (Some r) -> reaches s 1 s'.
Proof.
  intros H. exists 1. intros n k rs. exists (r :: rs). simpl. rewrite H, PeanoNat.Nat.add_1_r. reflexivity.
Qed.

Definition lift (K : list eframe) (r : sres) : sres :=
  match r with Stepped t' => Stepped (plug K t') | r => r end.

Lemma value_step_at t : value t -> step_at stp ev t = Value.
Proof. intros H. apply step_at_value, valueb_spec, H. Qed.

Lemma step_at_efill F t :
  eframe_ok F -> step_at stp ev t <> Value -> step_at stp ev (efill F t) = lift [F] (step_at stp ev t).
Proof.
  intros HF Ht. destruct F; simpl in HF |- *.
  all: try (rewrite (value_step_at _ HF)).
  all: try (destruct (is_lets p) eqn:El;
            [apply is_lets_spec in El; exfalso; exact (chain_body_not_lets _ HF El)|];
            assert (Hc : chain_bodyb p = true) by (apply chain_bodyb_spec; exact HF); rewrite Hc).
  all: destruct (step_at stp ev t); try reflexivity; contradiction.
Qed.

Lemma lift_not_value K r : r <> Value -> lift K r <> Value.
Proof. destruct r; simpl; congruence. Qed.

Lemma step_at_plug K : forall t, Forall eframe_ok K -> step_at stp ev t <> Value ->
  step_at stp ev (plug K t) = lift K (step_at stp ev t).
Proof.
  induction K as [|F K IH]; intros t HK Ht; simpl.
  - destruct (step_at stp ev t); reflexivity.
  - inversion HK; subst. rewrite IH; [|assumption|].
    + rewrite step_at_efill by assumption. destruct (step_at stp ev t); reflexivity.
    + rewrite step_at_efill by assumption. apply lift_not_value. exact Ht.
Qed.

(** What the machine does from [MEval t K], by what [step_at] answers on
    [t]. *)
Definition follows (t : tm) (K : list eframe) : Prop :=
  match step_at stp ev t with
  | Value => reaches (St MEval t K) 0 (St MRet t K)
  | Stepped t' => exists s', reaches (St MEval t K) 1 s' /\ plug_state s' = plug K t' /\ inv s'
  | Stuck | NoFuel => True
  end.

Lemma sa_value t : step_at stp ev t = Value -> value t.
Proof. intros E. pose proof (step_at_sound stp ev stp_sound ev_sound t) as X. rewrite E in X. exact X. Qed.

Lemma close_reaches u K s1 :
  transition stp ev s1 = close stp ev u K ->
  (head_redexb u = false -> step_at stp ev u = Value) ->
  match step_at stp ev u with
  | Value => reaches s1 0 (St MRet u K)
  | Stepped t' => reaches s1 1 (St MEval t' K)
  | _ => True
  end.
Proof.
  intros H Hv. unfold close in H. destruct (head_redexb u) eqn:Eh.
  - unfold fire in H. destruct (step_at stp ev u) eqn:E.
    + eapply reaches_fire. exact H.
    + apply reaches_next. exact H.
    + exact I.
    + exact I.
  - rewrite (Hv eq_refl). apply reaches_next. exact H.
Qed.

(** [follows] on a term [T] that evaluates its subterms first: [a] under
    the frame [F] ([follows_unary]), or [a] under [FL] then [b] under [FR]
    ([follows_binary]); the machine goes down into [a] (and [b]) and, once
    they are values, closes on [T] ([close_reaches]).  Both open with
    [follows_open IHa HK T a F K s k]: the machine's first transition
    [R1] into [a] under [F], the hypothesis [IHa] on [a], [close_reaches]
    from the state [s] ([Hc]), the cases where [T]'s step [Et] is [a]'s
    ([Ea]); then [k R1 Hc Et Ea t'] goes on. *)
Ltac follows_open IHa HK T a F K s k :=
  unfold follows;
  assert (R1 : reaches (St MEval T K) 0 (St MEval a (F :: K))) by (apply reaches_next; reflexivity);
  specialize (IHa (F :: K) (@Forall_cons _ eframe_ok F K I HK)); unfold follows in IHa;
  pose proof (close_reaches T K s eq_refl) as Hc;
  destruct (step_at stp ev T) as [t'| | |] eqn:Et; try exact I;
    pose proof Et as Et0; cbn [step_at] in Et; destruct (step_at stp ev a) as [a'| | |] eqn:Ea; try discriminate;
  try solve [injection Et as <-; destruct IHa as (s' & Hr & Hp & Hi);
      exists s'; split; [exact (reaches_trans _ _ _ _ _ R1 Hr)|split; assumption]];
  k R1 Hc Et Ea t'.

Ltac follows_unary T a F K :=
  intros IHa HK; follows_open IHa HK T a F K (St MRet a (F :: K)) ltac:(fun R1 Hc Et Ea t' =>
  cbv beta iota in Et;
  try solve [specialize (Hc (fun Eh => ltac:(exfalso; first [discriminate Eh | rewrite ?Eh in Et; discriminate])));
      simpl in Hc;
      exists (St MEval t' K); split; [|split; [reflexivity|split; [exact HK|discriminate]]];
      exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHa Hc))];
  specialize (Hc (fun _ => eq_refl)); simpl in Hc;
    exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHa Hc))).

Ltac follows_binary T a b FL FR K :=
  intros IHa IHb HK; follows_open IHa HK T a FL K (St MRet b (FR :: K)) ltac:(fun R1 Hc Et Ea t' =>
  assert (R2 : reaches (St MRet a (FL :: K)) 0 (St MEval b (FR :: K))) by (apply reaches_next; reflexivity);
  specialize (IHb (FR :: K) (@Forall_cons _ eframe_ok FR K (sa_value _ Ea) HK)); unfold follows in IHb;
  destruct (step_at stp ev b) as [b'| | |] eqn:Eb; try discriminate;
  try solve [injection Et as <-; destruct IHb as (s' & Hr & Hp & Hi);
      exists s'; split; [|split; assumption];
      exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHa (reaches_trans _ _ _ _ _ R2 Hr)))];
  first
    [ solve [cbv beta iota in Et;
        specialize (Hc (fun Eh => ltac:(exfalso; rewrite ?Eh in Et; discriminate))); simpl in Hc;
        exists (St MEval t' K); split; [|split; [reflexivity|split; [exact HK|discriminate]]];
        exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHa (reaches_trans _ _ _ _ _ R2
                 (reaches_trans _ _ _ _ _ IHb Hc))))]
    | specialize (Hc (fun _ => eq_refl)); simpl in Hc;
      exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHa (reaches_trans _ _ _ _ _ R2
               (reaches_trans _ _ _ _ _ IHb Hc)))) ]).

Lemma follows_app a b K :
  (forall K, Forall eframe_ok K -> follows a K) -> (forall K, Forall eframe_ok K -> follows b K) ->
  Forall eframe_ok K -> follows (App a b) K.
Proof. follows_binary (App a b) a b (EAppL b) (EAppR a) K. Qed.

Lemma follows_pair a b K :
  (forall K, Forall eframe_ok K -> follows a K) -> (forall K, Forall eframe_ok K -> follows b K) ->
  Forall eframe_ok K -> follows (Pair a b) K.
Proof. follows_binary (Pair a b) a b (EPairL b) (EPairR a) K. Qed.

Lemma follows_plus a b K :
  (forall K, Forall eframe_ok K -> follows a K) -> (forall K, Forall eframe_ok K -> follows b K) ->
  Forall eframe_ok K -> follows (Plus a b) K.
Proof. follows_binary (Plus a b) a b (EPlusL b) (EPlusR a) K. Qed.

Lemma follows_dual a s K :
  (forall K, Forall eframe_ok K -> follows a K) -> (forall K, Forall eframe_ok K -> follows s K) ->
  Forall eframe_ok K -> follows (Dual s a) K.
Proof. follows_binary (Dual s a) a s (EDualR s) (EDualL a) K. Qed.

Lemma follows_proj i a K :
  (forall K, Forall eframe_ok K -> follows a K) -> Forall eframe_ok K -> follows (Proj i a) K.
Proof. follows_unary (Proj i a) a (EProj i) K. Qed.

Lemma follows_fun f a K :
  (forall K, Forall eframe_ok K -> follows a K) -> Forall eframe_ok K -> follows (Fun f a) K.
Proof. follows_unary (Fun f a) a (EFun f) K. Qed.

Lemma follows_jac f a K :
  (forall K, Forall eframe_ok K -> follows a K) -> Forall eframe_ok K -> follows (Jac f a) K.
Proof. follows_unary (Jac f a) a (EJac f) K. Qed.

Lemma follows_let e l K :
  (forall K, Forall eframe_ok K -> follows e K) -> Forall eframe_ok K -> follows (Let e l) K.
Proof. follows_unary (Let e l) e (ELet l) K. Qed.

Lemma follows_pb p w K :
  (forall K, Forall eframe_ok K -> follows w K) -> Forall eframe_ok K -> follows (Pb p w) K.
Proof.
  intros IHw HK. unfold follows.
  destruct (chain_bodyb p) eqn:Hc.
  - (* ⟨P | S⟩_y with a chain body: it waits for its continuation *)
    assert (Hcb : chain_body p) by (apply chain_bodyb_spec; exact Hc).
    assert (El : is_lets p = false)
      by (destruct (is_lets p) eqn:E; [apply is_lets_spec in E; exfalso; exact (chain_body_not_lets _ Hcb E)
                                      |reflexivity]).
    assert (R1 : reaches (St MEval (Pb p w) K) 0 (St MEval w (EPbR p :: K)))
      by (apply reaches_next; unfold transition; rewrite Hc; reflexivity).
    specialize (IHw (EPbR p :: K) (@Forall_cons _ eframe_ok (EPbR p) K Hcb HK)). unfold follows in IHw.
    pose proof (close_reaches (Pb p w) K (St MRet w (EPbR p :: K)) eq_refl) as Hcl.
    destruct (step_at stp ev (Pb p w)) as [t'| | |] eqn:Et; try exact I;
      cbn [step_at] in Et; rewrite El, Hc in Et; destruct (step_at stp ev w) as [w'| | |] eqn:Ew; try discriminate.
    + injection Et as <-. destruct IHw as (s' & Hr & Hp & Hi).
      exists s'. split; [exact (reaches_trans _ _ _ _ _ R1 Hr)|split; assumption].
    + specialize (Hcl (fun _ => eq_refl)). simpl in Hcl.
      exact (reaches_trans _ _ _ _ _ R1 (reaches_trans _ _ _ _ _ IHw Hcl)).
  - (* a redex: 7, 8, or an A-step in the body *)
    assert (Ht : transition stp ev (St MEval (Pb p w) K) = fire stp ev (Pb p w) K)
      by (unfold transition; rewrite Hc; reflexivity).
    unfold fire in Ht. destruct (step_at stp ev (Pb p w)) as [t'| | |] eqn:Et; try exact I.
    + exists (St MEval t' K). split; [eapply reaches_fire; exact Ht|split; [reflexivity|split; [exact HK|discriminate]]].
    + apply reaches_next. exact Ht.
Qed.

Lemma follows_leaf t K :
  step_at stp ev t = Value -> transition stp ev (St MEval t K) = Next (St MRet t K) None -> follows t K.
Proof. intros E H. unfold follows. rewrite E. apply reaches_next. exact H. Qed.

(** From [MEval t K], the machine does what [step_at] says of [t]. *)
Theorem descend t : forall K, Forall eframe_ok K -> follows t K.
Proof.
  induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs a IHa
                 |p IHp w IHw|r| |a IHa b IHb|e IHe l IHl]; intros K HK.
  all: try (apply follows_leaf; reflexivity).
  - apply follows_app; assumption.
  - apply follows_proj; assumption.
  - apply follows_pair; assumption.
  - apply follows_fun; assumption.
  - apply follows_jac; assumption.
  - apply follows_dual; assumption.
  - apply follows_pb; assumption.
  - apply follows_plus; assumption.
  - apply follows_let; assumption.
Qed.

Definition closing (F : eframe) : Prop :=
  (forall b, F <> EAppL b) /\ (forall b, F <> EPairL b) /\ (forall b, F <> EPlusL b) /\ (forall s, F <> EDualR s).

Lemma closing_value F v K :
  Forall eframe_ok K -> eframe_ok F -> value v -> closing F ->
  head_redexb (efill F v) = false -> value (efill F v).
Proof.
  intros HK HF Hv (N1 & N2 & N3 & N4) Eh.
  pose proof (close_ok stp ev stp_sound ev_sound F v K HK HF Hv N1 N2 N3 N4) as X.
  unfold close in X. rewrite Eh in X. simpl in X. destruct X as [[_ H] _]. exact (H eq_refl).
Qed.

(** What the machine does from a state, by what [step_at] answers on the
    term it stands for: one contraction to the next term, or a halt on a
    value. *)
Definition goes (s : state) : Prop :=
  match step_at stp ev (plug_state s) with
  | Value => exists j, forall n k rs, exists rs', run stp ev (j + S n) s k rs = (plug_state s, k, rs', OValue)
  | Stepped u' => exists s', reaches s 1 s' /\ plug_state s' = u' /\ inv s'
  | Stuck | NoFuel => True
  end.

Lemma goes_reaches s s' : reaches s 0 s' -> plug_state s' = plug_state s -> goes s' -> goes s.
Proof.
  unfold goes. intros R Ep G. rewrite <- Ep. destruct (step_at stp ev (plug_state s')).
  - destruct G as (s2 & R2 & H2). exists s2. split; [exact (reaches_trans _ _ _ _ _ R R2)|exact H2].
  - destruct R as [j1 R]. destruct G as [j2 G]. exists (j1 + j2). intros n k rs.
    destruct (R (j2 + S n) k rs) as [rs1 E1]. destruct (G n (k + 0) rs1) as [rs2 E2].
    exists rs2. rewrite <- PeanoNat.Nat.add_assoc, E1, E2, PeanoNat.Nat.add_0_r. reflexivity.
  - exact I.
  - exact I.
Qed.

Lemma ascend K : forall v, Forall eframe_ok K -> value v -> goes (St MRet v K).
Proof.
  induction K as [|F K IH]; intros v HK Hv; unfold goes; simpl plug_state.
  - rewrite (value_step_at _ Hv). exists 0. intros n k rs. exists (rev_append rs []). reflexivity.
  - inversion HK as [|F' K' HF HK']; subst.
    (* a frame whose positions hold values: closed *)
    assert (Close : forall F u, eframe_ok F -> closing F -> value u ->
              transition stp ev (St MRet u (F :: K)) = close stp ev (efill F u) K ->
              goes (St MRet u (F :: K))).
    { intros F0 u HF0 Hcl Hu Ht. unfold goes. simpl plug_state.
      pose proof (close_reaches (efill F0 u) K (St MRet u (F0 :: K)) Ht) as Hc.
      assert (Hv0 : head_redexb (efill F0 u) = false -> step_at stp ev (efill F0 u) = Value)
        by (intros Eh; apply value_step_at, (closing_value F0 u K HK' HF0 Hu Hcl Eh)).
      specialize (Hc Hv0).
      destruct (step_at stp ev (efill F0 u)) as [t'| | |] eqn:E.
      - rewrite (step_at_plug K _ HK') by (rewrite E; discriminate). rewrite E. simpl.
        exists (St MEval t' K). split; [exact Hc|split; [reflexivity|split; [exact HK'|discriminate]]].
      - pose proof (IH _ HK' (sa_value _ E)) as G. unfold goes in G. simpl plug_state in G.
        apply (goes_reaches _ _ Hc eq_refl) in G. unfold goes in G. exact G.
      - rewrite (step_at_plug K _ HK') by (rewrite E; discriminate). rewrite E. exact I.
      - rewrite (step_at_plug K _ HK') by (rewrite E; discriminate). rewrite E. exact I. }
    (* a frame with a position left: evaluated, then closed *)
    assert (Push : forall b G, eframe_ok (G v) -> closing (G v) ->
              transition stp ev (St MRet v (F :: K)) = Next (St MEval b (G v :: K)) None ->
              (forall u, value u -> transition stp ev (St MRet u (G v :: K)) = close stp ev (efill (G v) u) K) ->
              efill F v = efill (G v) b ->
              goes (St MRet v (F :: K))).
    { intros b G HG HGc Ht Hclose Eq.
      pose proof (descend b (G v :: K) (Forall_cons _ HG HK')) as D. unfold follows in D.
      destruct (step_at stp ev b) as [b'| | |] eqn:Eb.
      - unfold goes. simpl plug_state. rewrite Eq. change (plug K (efill (G v) b)) with (plug (G v :: K) b).
        rewrite (step_at_plug (G v :: K) b (Forall_cons _ HG HK')) by (rewrite Eb; discriminate).
        rewrite Eb. simpl. destruct D as (s' & R & Hp & Hi). exists s'.
        split; [exact (reaches_trans _ _ _ _ _ (reaches_next _ _ Ht) R)|split; [exact Hp|exact Hi]].
      - pose proof (Close (G v) b HG HGc (sa_value _ Eb) (Hclose b (sa_value _ Eb))) as C.
        refine (goes_reaches _ _ (reaches_trans _ _ _ _ _ (reaches_next _ _ Ht) D) _ C).
        simpl. rewrite Eq. reflexivity.
      - unfold goes. simpl plug_state. rewrite Eq. change (plug K (efill (G v) b)) with (plug (G v :: K) b).
        rewrite (step_at_plug (G v :: K) b (Forall_cons _ HG HK')) by (rewrite Eb; discriminate).
        rewrite Eb. exact I.
      - unfold goes. simpl plug_state. rewrite Eq. change (plug K (efill (G v) b)) with (plug (G v :: K) b).
        rewrite (step_at_plug (G v :: K) b (Forall_cons _ HG HK')) by (rewrite Eb; discriminate).
        rewrite Eb. exact I. }
    assert (Cl : forall P : Prop, P -> P) by auto.
    destruct F as [p|a|p|a|i|b|a|f|f|b|a|p|l].
    + (* EPlusL p *) apply (Push p (fun x => EPlusR x)); try reflexivity; simpl; auto.
      repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply (Push p (fun x => EAppR x)); try reflexivity; simpl; auto. repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply (Push b (fun x => EPairR x)); try reflexivity; simpl; auto. repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply (Push b (fun x => EDualL x)); try reflexivity; simpl; auto. repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
    + apply Close; auto; repeat split; intros; discriminate.
Qed.

End complete.

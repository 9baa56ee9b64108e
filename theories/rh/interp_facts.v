(** * The step functions agree with the step relations

    - [step_tm_fn] returns [TSValue] exactly on values, and [TSStep M']
      exactly when [step_tm M M'];
    - [rh_fn] returns [RHOk R'] only when [rh H Bs Vs R R'], and does so
      for enough fuel whenever [rh H Bs Vs R R'];
    - [step_conf_fn] likewise for [step_conf];
    - [run] is sound: what it returns is reached by [steps_conf].
    As a corollary, the relations are deterministic. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp tactics.

Section interp_facts.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V : tm) (P Q R : cmd) (H : handler).

(** ** Terms *)

(** The loop [step_tm_fn] runs ([interp.v]'s [tuple_step]), the prefix
    kept in reverse order, and the same loop with the prefix in order. *)
Notation tuple_go_rev := (tuple_step step_tm_fn).

Definition tuple_go (pre l : list tm) : tm_step := tuple_go_rev (rev pre) l.

Lemma tuple_go_rev_spec rpre l : tuple_go_rev rpre l = tuple_go (rev rpre) l.
Proof. unfold tuple_go. rewrite rev_involutive. reflexivity. Qed.

Lemma step_tm_fn_tuple Ms : step_tm_fn (Tuple Ms) = tuple_go [] Ms.
Proof. reflexivity. Qed.

Lemma tuple_go_cons pre M l :
  tuple_go pre (M :: l) =
  match step_tm_fn M with
  | TSStep M'' => TSStep (Tuple (pre ++ M'' :: l))
  | TSValue => tuple_go (pre ++ [M]) l
  | r => r
  end.
Proof.
  unfold tuple_go. cbn [tuple_step]. destruct (step_tm_fn M); try reflexivity.
  - rewrite rev_append_rev, rev_involutive. reflexivity.
  - rewrite rev_app_distr. reflexivity.
Qed.

Lemma step_tm_fn_value M : value M -> step_tm_fn M = TSValue.
Proof.
  tm_induction M; intros HV; try reflexivity; try discriminate.
  rewrite step_tm_fn_tuple. apply value_tuple_iff in HV.
  generalize (@nil tm). induction IH as [|M Ms HM HMs IHl]; intros pre; [reflexivity|].
  inversion HV as [|? ? HVM HVs]; subst.
  rewrite tuple_go_cons, HM by exact HVM. apply IHl. exact HVs.
Qed.

Lemma step_tm_fn_value_inv M : step_tm_fn M = TSValue -> value M.
Proof.
  tm_induction M; simpl; intros Hs; try reflexivity.
  - destruct (step_tm_fn M); try discriminate. destruct (ev f M); discriminate.
  - destruct (step_tm_fn M1); try discriminate.
    destruct (step_tm_fn M2); try discriminate. destruct M1, M2; discriminate.
  - apply value_tuple_iff. change (tuple_go_rev [] Ms = TSValue) in Hs.
    rewrite tuple_go_rev_spec in Hs. change (tuple_go [] Ms = TSValue) in Hs.
    revert Hs. generalize (@nil tm). induction IH as [|M Ms HM HMs IHl]; intros pre Hs.
    + constructor.
    + rewrite tuple_go_cons in Hs.
      destruct (step_tm_fn M) eqn:HsM; try discriminate.
      constructor; [apply HM; reflexivity|]. eapply IHl. exact Hs.
  - destruct (step_tm_fn M); try discriminate. destruct M; try discriminate.
    destruct (nth_error Ms i); discriminate.
  - destruct (step_tm_fn M); discriminate.
  - destruct (step_tm_fn M); try discriminate.
    destruct (step_tm_fn L); try discriminate. destruct (infer_tm [] L); discriminate.
Qed.

Lemma fill_ectx_snoc K F M : fill_ectx (K ++ [F]) M = fill_frame F (fill_ectx K M).
Proof. unfold fill_ectx. rewrite fold_left_app. reflexivity. Qed.

Lemma step_tm_frame F M M' :
  frame_ok F -> step_tm M M' -> step_tm (fill_frame F M) (fill_frame F M').
Proof.
  intros HF [K M0 M0' M1 M1' HK -> -> Hh].
  apply (step_tm_ctx (K ++ [F]) M0 M0').
  - apply Forall_app. split; [exact HK|constructor; [exact HF|constructor]].
  - symmetry. apply fill_ectx_snoc.
  - symmetry. apply fill_ectx_snoc.
  - exact Hh.
Qed.

Lemma step_tm_head M M' : head_step_tm M M' -> step_tm M M'.
Proof. intros Hh. apply (step_tm_ctx [] M M'); auto. Qed.

Lemma step_tm_fn_sound M M' : step_tm_fn M = TSStep M' -> step_tm M M'.
Proof.
  revert M'.
  tm_induction M; simpl; intros M' Hs; try discriminate.
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + injection Hs as <-. apply (step_tm_frame (KApp f)); [exact I|auto].
    + destruct (ev f M) eqn:Hev; [|discriminate]. injection Hs as <-.
      apply step_tm_head. constructor; [apply step_tm_fn_value_inv; exact HsM|exact Hev].
  - destruct (step_tm_fn M1) eqn:Hs1; try discriminate.
    + injection Hs as <-. apply (step_tm_frame (KAddL M2)); [exact I|auto].
    + destruct (step_tm_fn M2) eqn:Hs2; try discriminate.
      * injection Hs as <-. apply (step_tm_frame (KAddR M1)); [|auto].
        apply step_tm_fn_value_inv. exact Hs1.
      * destruct M1; try discriminate. destruct M2; try discriminate.
        injection Hs as <-. apply step_tm_head. constructor.
  - change (tuple_go_rev [] Ms = TSStep M') in Hs.
    rewrite tuple_go_rev_spec in Hs. change (tuple_go [] Ms = TSStep M') in Hs.
    assert (Hgen : forall pre, Forall value pre -> tuple_go pre Ms = TSStep M' ->
                   step_tm (Tuple (pre ++ Ms)) M').
    { clear Hs. induction IH as [|M Ms HM HMs IHl]; intros pre Hpre Hg; [discriminate|].
      rewrite tuple_go_cons in Hg. destruct (step_tm_fn M) eqn:HsM; try discriminate.
      - injection Hg as <-. apply (step_tm_frame (KTuple pre Ms)); [exact Hpre|auto].
      - replace (pre ++ M :: Ms) with ((pre ++ [M]) ++ Ms) by (rewrite <- app_assoc; reflexivity).
        apply IHl; [|exact Hg]. apply Forall_app. split; [exact Hpre|].
        constructor; [apply step_tm_fn_value_inv; exact HsM|constructor]. }
    apply (Hgen []); [constructor|exact Hs].
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + injection Hs as <-. apply (step_tm_frame (KProj i)); [exact I|auto].
    + destruct M as [| | | |Vs| | |]; try discriminate.
      destruct (nth_error Vs i) eqn:Hi; [|discriminate]. injection Hs as <-.
      apply step_tm_head. constructor; [|exact Hi].
      apply value_tuple_iff, step_tm_fn_value_inv. exact HsM.
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + injection Hs as <-. apply (step_tm_frame (KLet N)); [exact I|auto].
    + injection Hs as <-. apply step_tm_head. constructor.
      apply step_tm_fn_value_inv. exact HsM.
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + injection Hs as <-. apply (step_tm_frame (KRdL N L)); [exact I|auto].
    + destruct (step_tm_fn L) eqn:HsL; try discriminate.
      * injection Hs as <-. apply (step_tm_frame (KRdR M N)); [|auto].
        apply step_tm_fn_value_inv. exact HsM.
      * destruct (infer_tm [] L) eqn:HA; [|discriminate]. injection Hs as <-.
        apply step_tm_head. econstructor; [apply step_tm_fn_value_inv; auto..|exact HA].
Qed.

Lemma step_tm_fn_proj i N :
  step_tm_fn (Proj i N) =
  match step_tm_fn N with
  | TSStep N' => TSStep (Proj i N')
  | TSValue =>
      match N with
      | Tuple Vs => match nth_error Vs i with Some V => TSStep V | None => TSWrong end
      | _ => TSWrong
      end
  | r => r
  end.
Proof. reflexivity. Qed.

Lemma head_step_tm_fn M M' : head_step_tm M M' -> step_tm_fn M = TSStep M'.
Proof.
  intros Hh. destruct Hh as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A HW HV HA].
  3: { rewrite step_tm_fn_proj, step_tm_fn_value by (apply value_tuple_iff; exact HVs).
       rewrite Hi. reflexivity. }
  all: simpl.
  - rewrite (step_tm_fn_value _ HV), Hev. reflexivity.
  - reflexivity.
  - rewrite (step_tm_fn_value _ HV). reflexivity.
  - rewrite (step_tm_fn_value _ HW), (step_tm_fn_value _ HV), HA. reflexivity.
Qed.

Lemma step_tm_fn_frame F M M' :
  frame_ok F -> step_tm_fn M = TSStep M' -> step_tm_fn (fill_frame F M) = TSStep (fill_frame F M').
Proof.
  intros HF Hs. destruct F as [f|M2|V1|Vs Ms|i|N|N L|W N]; cbn [fill_frame frame_ok] in *.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite (step_tm_fn_value _ HF), Hs. reflexivity.
  - rewrite !step_tm_fn_tuple.
    replace Vs with ([] ++ Vs) at 2 by reflexivity. generalize (@nil tm).
    induction HF as [|V Vs HV HVs IH]; intros pre; cbn [app]; rewrite tuple_go_cons.
    + rewrite Hs, app_nil_r. reflexivity.
    + rewrite (step_tm_fn_value _ HV), IH. rewrite <- !app_assoc. reflexivity.
  - rewrite !step_tm_fn_proj, Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite (step_tm_fn_value _ HF), Hs. reflexivity.
Qed.

Lemma step_tm_fn_complete M M' : step_tm M M' -> step_tm_fn M = TSStep M'.
Proof.
  intros [K M0 M0' M1 M1' HK -> -> Hh]. revert HK.
  induction K as [|F K IH] using rev_ind; intros HK.
  - apply head_step_tm_fn. exact Hh.
  - apply Forall_app in HK as [HK HF]. inversion HF; subst.
    rewrite !fill_ectx_snoc. apply step_tm_fn_frame; auto.
Qed.

Lemma step_tm_fn_correct M M' : step_tm_fn M = TSStep M' <-> step_tm M M'.
Proof. split; [apply step_tm_fn_sound|apply step_tm_fn_complete]. Qed.

Lemma step_tm_deterministic M M1 M2 : step_tm M M1 -> step_tm M M2 -> M1 = M2.
Proof.
  intros H1 H2. apply step_tm_fn_complete in H1, H2. congruence.
Qed.

Lemma value_no_step M M' : value M -> ~ step_tm M M'.
Proof.
  intros HV Hs. apply step_tm_fn_complete in Hs. rewrite step_tm_fn_value in Hs by exact HV.
  discriminate.
Qed.

(** ** [RH] *)

Lemma fill_c_split R : R = fill_c (fst (split_c R)) (snd (split_c R)).
Proof. symmetry. apply split_c_spec. Qed.

Lemma rh_fn_sound fuel H Bs Vs R R' : rh_fn fuel H Bs Vs R = RHOk R' -> rh H Bs Vs R R'.
Proof.
  revert H Bs Vs R R'. induction fuel as [|fuel IH]; intros H Bs Vs R R' Hf; [discriminate|].
  simpl in Hf. pose proof (split_c_spec R) as [HR Hnl].
  destruct (split_c R) as [K R0]. simpl in HR, Hnl. subst R.
  destruct R0 as [M|o M|P Q|M R1 H1]; [| |contradiction|].
  - destruct M as [z| | | | | | |];
      try (destruct (infer_tm Bs _) as [B'|] eqn:Hinf; [|discriminate];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try discriminate;
           injection Hf as <-; eapply (rh_term H Bs Vs K TRet); [exact I|exact Hinf|eapply IH; exact Hrec]).
    destruct K as [|Q K].
    + destruct (nth_error Vs z) eqn:Hz; [|discriminate]. injection Hf as <-.
      apply rh_ret. exact Hz.
    + apply rh_let_var. eapply IH. exact Hf.
  - destruct M as [k| | | | | | |];
      try (destruct (infer_tm Bs _) as [B'|] eqn:Hinf; [|discriminate];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try discriminate;
           injection Hf as <-; eapply (rh_term H Bs Vs K (TOp o)); [exact I|exact Hinf|eapply IH; exact Hrec]).
    destruct (nth_error Vs k) eqn:Hk; [|discriminate].
    destruct (clause_of H o) as [[D Qf] Qb] eqn:Hcl.
    destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try discriminate. injection Hf as <-.
    eapply rh_op; eauto.
  - destruct M as [z| | | | | | |];
      try (destruct (infer_tm Bs _) as [B'|] eqn:Hinf; [|discriminate];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try discriminate;
           injection Hf as <-; eapply (rh_term H Bs Vs K (TRev R1 H1)); [exact I|exact Hinf|eapply IH; exact Hrec]).
    destruct (nth_error Bs z) as [[b|As1]|] eqn:Hz; try discriminate.
    destruct (rh_fn fuel H1 As1 _ R1) as [R1'| |] eqn:H1r; try discriminate.
    eapply rh_rev; eauto.
Qed.

(** More fuel gives the same answer, other than "out of fuel". *)
Lemma rh_fn_stable fuel fuel' H Bs Vs R :
  fuel <= fuel' -> rh_fn fuel H Bs Vs R <> RHNoFuel ->
  rh_fn fuel' H Bs Vs R = rh_fn fuel H Bs Vs R.
Proof.
  revert fuel' H Bs Vs R. induction fuel as [|fuel IH]; intros fuel' H Bs Vs R Hle Hf;
    [simpl in Hf; congruence|].
  destruct fuel' as [|fuel']; [lia|]. assert (Hle' : fuel <= fuel') by lia.
  simpl in Hf |- *. destruct (split_c R) as [K R0].
  destruct R0 as [M|o M|P Q|M R1 H1]; try reflexivity.
  - destruct M as [z| | | | | | |];
      try (destruct (infer_tm Bs _); [|reflexivity];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try congruence;
           rewrite (IH fuel') by (auto; congruence); rewrite Hrec; reflexivity).
    destruct K; [reflexivity|]. apply IH; [exact Hle'|exact Hf].
  - destruct M as [k| | | | | | |];
      try (destruct (infer_tm Bs _); [|reflexivity];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try congruence;
           rewrite (IH fuel') by (auto; congruence); rewrite Hrec; reflexivity).
    destruct (nth_error Vs k); [|reflexivity]. destruct (clause_of H o) as [[D Qf] Qb].
    destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try congruence;
      rewrite (IH fuel') by (auto; congruence); rewrite Hrec; reflexivity.
  - destruct M as [z| | | | | | |];
      try (destruct (infer_tm Bs _); [|reflexivity];
           destruct (rh_fn fuel _ _ _ _) eqn:Hrec; try congruence;
           rewrite (IH fuel') by (auto; congruence); rewrite Hrec; reflexivity).
    destruct (nth_error Bs z) as [[b|As1]|]; try reflexivity.
    destruct (rh_fn fuel H1 As1 _ R1) eqn:H1r; try congruence;
      rewrite (IH fuel') by (auto; congruence); rewrite H1r; [|reflexivity].
    apply IH; [exact Hle'|exact Hf].
Qed.

Lemma rh_fn_mono fuel fuel' H Bs Vs R R' :
  fuel <= fuel' -> rh_fn fuel H Bs Vs R = RHOk R' -> rh_fn fuel' H Bs Vs R = RHOk R'.
Proof. intros Hle Hf. rewrite (rh_fn_stable fuel fuel') by (auto; congruence). exact Hf. Qed.

Lemma split_c_fill_t K F M : split_c (fill_t K F M) = (K, plug_t F M).
Proof. apply split_c_fill. destruct F; exact I. Qed.

Lemma rh_fn_complete H Bs Vs R R' :
  rh H Bs Vs R R' -> exists fuel, rh_fn fuel H Bs Vs R = RHOk R'.
Proof.
  induction 1 as [H Bs Vs k Vk Hk
                 |H Bs Vs K z Q R' Hrec [n IH]
                 |H Bs Vs K o k Vk D Qf Qb Rrec Hk Hcl Hrec [n IH]
                 |H Bs Vs K z As1 R1 H1 R1' R' Hz Hrec1 [n1 IH1] Hrec2 [n2 IH2]
                 |H Bs Vs K F M B' Rrec Hnv Hinf Hrec [n IH]].
  - exists 1. simpl. rewrite Hk. reflexivity.
  - exists (S n). cbn [rh_fn]. rewrite (split_c_fill (Q :: K) (Ret (Var z)) I). exact IH.
  - exists (S n). simpl. rewrite split_c_fill by exact I. rewrite Hk, Hcl, IH. reflexivity.
  - exists (S (Nat.max n1 n2)). simpl. rewrite split_c_fill by exact I. rewrite Hz.
    rewrite (rh_fn_mono n1 (Nat.max n1 n2) _ _ _ _ _ ltac:(lia) IH1).
    apply (rh_fn_mono n2); [lia|exact IH2].
  - exists (S n). simpl. rewrite split_c_fill_t.
    destruct F as [|o|R1 H1]; simpl;
      (destruct M as [x| | | | | | |]; [contradiction| ..]);
      rewrite Hinf, IH; reflexivity.
Qed.

Lemma rh_deterministic H Bs Vs R R1 R2 : rh H Bs Vs R R1 -> rh H Bs Vs R R2 -> R1 = R2.
Proof.
  intros H1 H2. apply rh_fn_complete in H1 as [n1 Hn1]. apply rh_fn_complete in H2 as [n2 Hn2].
  apply (rh_fn_mono n1 (Nat.max n1 n2)) in Hn1; [|lia].
  apply (rh_fn_mono n2 (Nat.max n1 n2)) in Hn2; [|lia]. congruence.
Qed.

(** ** Configurations *)

Lemma term_conf_step_inv hp K F M k hp' P' :
  term_conf_step hp K F M k = CSStep hp' P' ->
  (exists M', step_tm M M' /\ hp' = hp /\ P' = fill_t K F M') \/
  (value M /\ k tt = CSStep hp' P').
Proof.
  unfold term_conf_step. destruct (step_tm_fn M) as [M'| | |] eqn:Hs; try discriminate.
  - intros [= <- <-]. left. exists M'. split; [apply step_tm_fn_sound; exact Hs|auto].
  - intros Hk. right. split; [apply step_tm_fn_value_inv; exact Hs|exact Hk].
Qed.

Lemma step_conf_fn_sound fuel hp P hp' P' :
  step_conf_fn fuel hp P = CSStep hp' P' -> step_conf hp P hp' P'.
Proof.
  unfold step_conf_fn. pose proof (split_c_spec P) as [HP Hnl].
  destruct (split_c P) as [K P0]. simpl in HP, Hnl. subst P.
  destruct P0 as [M|o M|P Q|M R H]; [| |contradiction|]; intros Hs;
    apply term_conf_step_inv in Hs as [[M' [HM [-> ->]]]|[HV Hs]];
    try (apply step_conf_cmd; eapply step_cmd_term; [exact HM| |reflexivity]; reflexivity);
    cbv beta in Hs.
  - destruct K as [|Q K]; [discriminate|]. injection Hs as <- <-.
    apply step_conf_cmd. eapply step_cmd_let_val; [exact HV|reflexivity|reflexivity].
  - destruct o as [o|l|l].
    + discriminate.
    + injection Hs as <- <-. eapply step_conf_get; [exact HV|reflexivity|reflexivity].
    + destruct M; try discriminate. injection Hs as <- <-. eapply step_conf_put; reflexivity.
  - destruct M as [| | | |Vs| | |]; try discriminate.
    destruct (infer_tm [] (Tuple Vs)) as [[b|Bs]|] eqn:HA; try discriminate.
    destruct (rh_fn fuel H Bs Vs R) eqn:Hrh; try discriminate.
    injection Hs as <- <-. apply step_conf_cmd.
    eapply step_cmd_revhandle;
      [apply value_tuple_iff; exact HV|exact HA|eapply rh_fn_sound; exact Hrh|reflexivity|reflexivity].
Qed.

Lemma step_conf_fn_complete hp P hp' P' :
  step_conf hp P hp' P' -> exists fuel, forall fuel', fuel <= fuel' ->
    step_conf_fn fuel' hp P = CSStep hp' P'.
Proof.
  intros Hs. destruct Hs as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - destruct Hs as [K F M M' P P' HM -> ->
                   |K V Q P P' HV -> ->
                   |K Vs Bs R H R' P P' HVs HA Hrh -> ->].
    + exists 0. intros fuel' _. unfold step_conf_fn. rewrite split_c_fill_t.
      apply step_tm_fn_complete in HM.
      destruct F; simpl; unfold term_conf_step; rewrite HM; reflexivity.
    + exists 0. intros fuel' _. unfold step_conf_fn.
      change (fill_c K (CLet (Ret V) Q)) with (fill_c (Q :: K) (Ret V)).
      rewrite split_c_fill by exact I. unfold term_conf_step.
      rewrite (step_tm_fn_value _ HV). reflexivity.
    + apply rh_fn_complete in Hrh as [n Hn]. exists n. intros fuel' Hle.
      unfold step_conf_fn. rewrite split_c_fill by exact I. unfold term_conf_step.
      rewrite step_tm_fn_value by (apply value_tuple_iff; exact HVs). rewrite HA.
      rewrite (rh_fn_mono n fuel' _ _ _ _ _ Hle Hn). reflexivity.
  - exists 0. intros fuel' _. unfold step_conf_fn. rewrite split_c_fill by exact I.
    unfold term_conf_step. rewrite (step_tm_fn_value _ HV). reflexivity.
  - exists 0. intros fuel' _. unfold step_conf_fn. rewrite split_c_fill by exact I.
    reflexivity.
Qed.

Lemma step_conf_deterministic hp P hp1 P1 hp2 P2 :
  step_conf hp P hp1 P1 -> step_conf hp P hp2 P2 -> hp1 = hp2 /\ P1 = P2.
Proof.
  intros H1 H2. apply step_conf_fn_complete in H1 as [n1 Hn1].
  apply step_conf_fn_complete in H2 as [n2 Hn2].
  pose proof (Hn1 (Nat.max n1 n2) ltac:(lia)) as E1.
  pose proof (Hn2 (Nat.max n1 n2) ltac:(lia)) as E2.
  rewrite E1 in E2. injection E2 as -> ->. auto.
Qed.

(** ** The stuck forms *)

(** A closed term stuck on an undefined [Ev]: [E[f(V)]] with [Ev(f, V)]
    undefined. *)
Definition stuck_ev_tm (M : tm) (f : fsym) (V : tm) : Prop :=
  exists K, Forall frame_ok K /\ M = fill_ectx K (App f V) /\ value V /\ ev f V = None.

(** A configuration stuck on an undefined [Ev] in evaluation position. *)
Definition stuck_ev (P : cmd) (f : fsym) (V : tm) : Prop :=
  exists K F M, P = fill_t K F M /\ stuck_ev_tm M f V.

(** A configuration stuck on an operation that no handler covers (not
    [Get] or [Put]: those are answered by the heap). *)
Definition stuck_op (P : cmd) (o : op) (V : tm) : Prop :=
  exists K, P = fill_c K (Op (OpUser o) V) /\ value V.

Lemma step_tm_fn_stuck M f V : step_tm_fn M = TSStuckEv f V -> stuck_ev_tm M f V.
Proof.
  revert f V.
  induction M as [x|c|g M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; simpl; intros f V Hs; try discriminate.
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + destruct (ev g M) eqn:Hev; [discriminate|]. injection Hs as <- <-.
      exists []. repeat split; auto. apply step_tm_fn_value_inv. exact HsM.
    + destruct (IH _ _ eq_refl) as [K [HK [-> HVV]]]. injection Hs as <- <-.
      exists (K ++ [KApp g]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
      apply Forall_app. split; [exact HK|constructor; [exact I|constructor]].
  - destruct (step_tm_fn M1) eqn:Hs1; try discriminate.
    + destruct (step_tm_fn M2) eqn:Hs2; try discriminate.
      * destruct M1, M2; discriminate.
      * injection Hs as <- <-. destruct (IH2 _ _ eq_refl) as [K [HK [-> HVV]]].
        exists (K ++ [KAddR M1]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
        apply Forall_app. split; [exact HK|constructor; [apply step_tm_fn_value_inv; exact Hs1|constructor]].
    + injection Hs as <- <-. destruct (IH1 _ _ eq_refl) as [K [HK [-> HVV]]].
      exists (K ++ [KAddL M2]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
      apply Forall_app. split; [exact HK|constructor; [exact I|constructor]].
  - change (tuple_go_rev [] Ms = TSStuckEv f V) in Hs.
    rewrite tuple_go_rev_spec in Hs. change (tuple_go [] Ms = TSStuckEv f V) in Hs.
    assert (Hgen : forall pre, Forall value pre -> tuple_go pre Ms = TSStuckEv f V ->
                   stuck_ev_tm (Tuple (pre ++ Ms)) f V).
    { clear Hs. induction IH as [|M Ms HM HMs IHl]; intros pre Hpre Hg; [discriminate|].
      rewrite tuple_go_cons in Hg. destruct (step_tm_fn M) eqn:HsM; try discriminate.
      - replace (pre ++ M :: Ms) with ((pre ++ [M]) ++ Ms) by (rewrite <- app_assoc; reflexivity).
        apply IHl; [|exact Hg]. apply Forall_app. split; [exact Hpre|].
        constructor; [apply step_tm_fn_value_inv; exact HsM|constructor].
      - injection Hg as <- <-. destruct (HM _ _ eq_refl) as [K [HK [-> HVV]]].
        exists (K ++ [KTuple pre Ms]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
        apply Forall_app. split; [exact HK|constructor; [exact Hpre|constructor]]. }
    apply (Hgen []); [constructor|exact Hs].
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + destruct M; try discriminate. destruct (nth_error _ i); discriminate.
    + injection Hs as <- <-. destruct (IH _ _ eq_refl) as [K [HK [-> HVV]]].
      exists (K ++ [KProj i]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
      apply Forall_app. split; [exact HK|constructor; [exact I|constructor]].
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    injection Hs as <- <-. destruct (IHM _ _ eq_refl) as [K [HK [-> HVV]]].
    exists (K ++ [KLet N]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
    apply Forall_app. split; [exact HK|constructor; [exact I|constructor]].
  - destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + destruct (step_tm_fn L) eqn:HsL; try discriminate.
      * destruct (infer_tm [] L); discriminate.
      * injection Hs as <- <-. destruct (IHL _ _ eq_refl) as [K [HK [-> HVV]]].
        exists (K ++ [KRdR M N]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
        apply Forall_app. split; [exact HK|constructor; [apply step_tm_fn_value_inv; exact HsM|constructor]].
    + injection Hs as <- <-. destruct (IHM _ _ eq_refl) as [K [HK [-> HVV]]].
      exists (K ++ [KRdL N L]). rewrite fill_ectx_snoc. split; [|split; [reflexivity|exact HVV]].
      apply Forall_app. split; [exact HK|constructor; [exact I|constructor]].
Qed.

(** ** The evaluator is sound *)
Lemma run_sound fuel n hp P :
  match run fuel n hp P with
  | RDone hp' V n' => steps_conf hp P hp' (Ret V) /\ value V
  | RStuckEv hp' P' f V n' => steps_conf hp P hp' P' /\ stuck_ev P' f V
  | RStuckOp hp' P' (OpUser o) V n' => steps_conf hp P hp' P' /\ stuck_op P' o V
  | RStuckOp _ _ _ _ _ => False
  | ROutOfFuel hp' P' n' => steps_conf hp P hp' P'
  | RWrong hp' P' n' => steps_conf hp P hp' P'
  end.
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P; simpl; [constructor|].
  destruct (step_conf_fn (S fuel) hp P) as [hp' P'|V|f V|o V| |] eqn:Hs.
  - specialize (IH (S n) hp' P'). apply step_conf_fn_sound in Hs.
    destruct (run fuel (S n) hp' P') as [? ? ?|? ? ? ? ?|? ? [] ? ?|? ? ?|? ? ?];
      try contradiction; try (destruct IH; split; [econstructor; eassumption|assumption]);
      econstructor; eassumption.
  - unfold step_conf_fn in Hs. pose proof (split_c_spec P) as [HP Hnl].
    destruct (split_c P) as [K P0]. simpl in HP, Hnl. subst P. unfold term_conf_step in Hs.
    destruct P0 as [M|o M|P Q|M R H]; [| |contradiction|];
      destruct (step_tm_fn M) as [M''| | |] eqn:HsM; try discriminate.
    + destruct K; [|discriminate]. injection Hs as <-. simpl.
      split; [constructor|apply step_tm_fn_value_inv; exact HsM].
    + destruct o as [o|l|l]; try discriminate. destruct M; discriminate.
    + destruct M; try discriminate. destruct (infer_tm [] _) as [[]|]; try discriminate.
      destruct (rh_fn _ _ _ _ _); discriminate.
  - split; [constructor|].
    unfold step_conf_fn in Hs. pose proof (split_c_spec P) as [HP Hnl].
    destruct (split_c P) as [K P0]. simpl in HP, Hnl. subst P. unfold term_conf_step in Hs.
    destruct P0 as [M|o M|P Q|M R H]; [| |contradiction|];
      destruct (step_tm_fn M) as [M''| | |] eqn:HsM; try discriminate.
    + destruct K; discriminate.
    + injection Hs as <- <-. exists K, TRet, M. split; [reflexivity|]. apply step_tm_fn_stuck. exact HsM.
    + destruct o as [o|l|l]; try discriminate. destruct M; discriminate.
    + injection Hs as <- <-. exists K, (TOp o), M. split; [reflexivity|]. apply step_tm_fn_stuck. exact HsM.
    + destruct M; try discriminate. destruct (infer_tm [] _) as [[]|]; try discriminate.
      destruct (rh_fn _ _ _ _ _); discriminate.
    + injection Hs as <- <-. exists K, (TRev R H), M. split; [reflexivity|]. apply step_tm_fn_stuck. exact HsM.
  - unfold step_conf_fn in Hs. pose proof (split_c_spec P) as [HP Hnl].
    destruct (split_c P) as [K P0]. simpl in HP, Hnl. subst P. unfold term_conf_step in Hs.
    destruct P0 as [M|o' M|P Q|M R H]; [| |contradiction|];
      destruct (step_tm_fn M) as [M''| | |] eqn:HsM; try discriminate.
    + destruct K; discriminate.
    + destruct o' as [o'|l|l]; try discriminate.
      * injection Hs as <- <-. split; [constructor|]. exists K. split; [reflexivity|].
        apply step_tm_fn_value_inv. exact HsM.
      * destruct M; discriminate.
    + destruct M; try discriminate. destruct (infer_tm [] _) as [[]|]; try discriminate.
      destruct (rh_fn _ _ _ _ _); discriminate.
  - constructor.
  - constructor.
Qed.

End interp_facts.

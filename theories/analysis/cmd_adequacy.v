(** * Adequacy: the evaluator over ℝ reaches the configuration the meaning gives

    For a closed well-typed program of the fragment [okr] ([cmd_sound.v]:
    terms [okp], every [rev handle] body a chain of operations, returns
    and [let]s on terms of the fragment [okg 2], its nested
    [rev handle]s with bodies one level down, [chaing]) and a heap whose constants have the lengths of their
    locations ([heap_fits]):
    - [step_conf_okr]: every step keeps the fragment and the heap's shapes;
    - [adequacy]: the program reaches a final configuration
      ([normalization]) with the same meaning; when it is a value [V] with
      the heap [hp'], the program denotes [(V, hp')];
    - [adequacy_run]: the same for the answer of [run] and of the
      environment machine [run_machine] (the drivers' evaluator), the same
      Coq definitions at the real instance, from some fuel on.
    Stuck configurations keep the meaning too: an operation of the
    program's own at the top level denotes [None] ([prog_den_stuck_op]). *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem cmd_ctx cmd_sem rh instance
  progress interp interp_facts complete machine normalization.
From RevHandlers.Analysis Require Import vec templates sums prims denot rdsound rdsound_all rdsound_eval cmd_den cmd_sound.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

Section adequacy.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σa : signature := exec_signature Rvo decls locs.
#[local] Instance Ea : evaluator := exec_evaluator Rvo.
#[local] Instance Eaok : evaluator_ok := exec_evaluator_ok Rvo decls locs.

Notation cden := (cden decls locs).
Notation hrun := (hrun decls locs).
Notation prog_den := (prog_den decls locs).
Notation heap_fits := (heap_fits decls locs).

(** ** The fragment is kept by substitution and by the rewriting *)
Lemma okr_subst P : forall σ, (forall x, okg 0 (σ x)) -> okr P -> okr (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ Ho; cbn [subst_cmd okr] in *.
  - apply okp_subst; auto.
  - apply okp_subst; auto.
  - destruct Ho as [HoP HoQ]. split; [apply IHP; auto|]. apply IHQ; auto.
    intros [|x]; simpl; [exact I|]. apply okg_ren. auto.
  - destruct Ho as [HoM HoR]. split; [apply okp_subst; auto|exact HoR].
Qed.

Lemma okrh_ret H : okrh H -> okr (ret_clause H).
Proof. destruct H. simpl. tauto. Qed.

Lemma rh_okr H Bs Vs R R' : rh H Bs Vs R R' ->
  okrh H -> Forall (okg 0) Vs -> chaing R -> okr R'.
Proof.
  induction_rh; intros HoH HVs Hvb.
  - (* rh_ret *)
    unfold rh_ret_out. cbn [okr]. split.
    + apply okr_subst; [|apply okrh_ret; exact HoH]. exact (okg0_subst_nth _ _ _ HVs Hk).
    + eapply okg_okp with 0%nat. apply okg_onehot. exact I.
  - (* rh_let_var *)
    rh_let_var_case z IH Hvb chaing_fill_c chaing_subst.
  - (* rh_op *)
    destruct (okrh_clause decls locs _ _ _ _ _ HoH Hcl) as [HoQf HoQb].
    unfold rh_op_out. cbn [okr]. split; [|split; [|split]].
    + apply okr_subst; [|exact HoQf]. exact (okg0_subst_nth _ _ _ HVs Hk).
    + rh_op_ih IH HVs Hvb chaing_fill_c chaing_shift_frames.
    + apply okr_subst; [|exact HoQb]. apply okg0_list_subst. repeat constructor.
    + eapply okg_okp with 0%nat. apply okg_rh_op_result.
  - (* rh_rev *)
    apply IH2; auto. apply chaing_fill_c in Hvb. destruct Hvb as [[_ [Hc1 HcH1]] HcK].
    apply chaing_fill_c. split; [|exact HcK].
    eapply rh_chaing; [exact Hrec1|exact HcH1|apply okg_proj_list|exact Hc1].
  - (* rh_term *)
    unfold fill_t in Hvb. apply chaing_fill_c in Hvb. destruct Hvb as [HcF HcK].
    assert (Hc : okg 2 M) by (destruct F as [|o'|R0 H0]; cbn [plug_t chaing] in HcF; tauto).
    unfold rh_term_out. cbn [okr okp okg]. split; [|split; [|split]].
    + eapply okg_okp with 2%nat. apply okg_subst; [|exact Hc]. apply okg0_list_subst. exact HVs.
    + apply IH; auto.
      * constructor; [exact I|]. apply okg_map_ren. exact HVs.
      * unfold fill_t. apply chaing_fill_c. split; [|apply chaing_shift_frames; exact HcK].
        destruct F; cbn [plug_t chaing okg] in HcF |- *; tauto.
    + split; [exact I|]. split.
      * exists 2%nat. apply okg_subst; [|exact Hc]. intros x. exact I.
      * apply okp_tuple. apply Forall_map. eapply Forall_impl; [|exact HVs].
        intros V HV. eapply okg_okp with 0%nat. apply okg_ren. exact HV.
    + eapply okg_okp with 0%nat. rewrite rh_term_result_nth. apply okg_tuple.
      apply Forall_forall. intros N HN. apply in_map_iff in HN. destruct HN as [i [<- _]].
      apply okg_plus; exact I.
Qed.

(** ** Every step keeps the fragment and the heap's shapes *)
Lemma heap_lookup_fst hp l : heap_fits hp -> fst (heap_lookup hp l) = loc_base l.
Proof.
  induction 1 as [|[l' c] hp' [Hc1 Hc2] Hhp IH]; simpl; [reflexivity|].
  destruct (Nat.eq_dec l l') as [->|]; auto.
Qed.

Lemma step_conf_okr hp P hp' P' A :
  heap_fits hp -> typed_cmd [] P A -> okr P -> step_conf hp P hp' P' ->
  heap_fits hp' /\ okr P'.
Proof.
  intros Hhp HP Ho Hstep.
  destruct Hstep as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - split; [exact Hhp|].
    destruct Hs as [K F M M' P P' HMM' -> ->
                   |K V Q P P' HV -> ->
                   |K Vs Bs R H R' P P' HVs Hinf Hrh -> ->].
    + (* step_cmd_term *)
      unfold fill_t in *. apply okr_fill_c in Ho. destruct Ho as [Ho HK].
      apply okr_fill_c. split; [|exact HK].
      apply fill_c_typed_inv in HP. destruct HP as [B [HB _]].
      destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HM _]].
      destruct F; cbn [plug_t okr] in *.
      * eapply step_tm_okp; eauto.
      * eapply step_tm_okp; eauto.
      * destruct Ho as [HoM HoR]. split; [eapply step_tm_okp; eauto|exact HoR].
    + (* step_cmd_let_val *)
      apply okr_fill_c in Ho. destruct Ho as [[HoV HoQ] HK].
      apply okr_fill_c. split; [|exact HK].
      apply okr_subst; [|exact HoQ]. apply okg0_list_subst. constructor; [|constructor].
      apply okp_value_okg; assumption.
    + (* step_cmd_revhandle *)
      apply okr_fill_c in Ho. destruct Ho as [[HoM [Hvb HoH]] HK].
      apply okr_fill_c. split; [|exact HK].
      apply (rh_okr H Bs Vs R R' Hrh HoH); [|exact Hvb].
      apply okp_tuple in HoM. rewrite Forall_forall in HoM, HVs |- *.
      intros V HV. apply okp_value_okg; auto.
  - (* step_conf_get *)
    split; [exact Hhp|]. apply okr_fill_c in Ho. destruct Ho as [_ HK].
    apply okr_fill_c. split; [|exact HK]. cbn [okr okp].
    etransitivity; [apply (heap_lookup_fits decls locs); exact Hhp|].
    symmetry. apply heap_lookup_fst. exact Hhp.
  - (* step_conf_put *)
    apply okr_fill_c in Ho. destruct Ho as [Hc HK].
    apply fill_c_typed_inv in HP. destruct HP as [B [HB _]].
    inversion HB as [|? ? ? HM| |]; subst.
    assert (Hty : fst c = loc_base l) by (inversion HM; assumption).
    cbn [okr okp] in Hc. split.
    + apply heap_update_fits; [exact Hhp|exact Hty|etransitivity; [exact Hc|exact Hty]].
    + apply okr_fill_c. split; [|exact HK]. reflexivity.
Qed.

Lemma nsteps_den n hp P hp' P' A :
  heap_fits hp -> typed_cmd [] P A -> okr P -> nsteps_conf n hp P hp' P' ->
  prog_den hp P = prog_den hp' P' /\ heap_fits hp' /\ typed_cmd [] P' A /\ okr P'.
Proof.
  intros Hhp HP Ho Hn. revert Hhp HP Ho.
  induction Hn as [hp P|n hp P hp1 P1 hp' P' Hs Hn IH]; intros Hhp HP Ho; [auto|].
  destruct (step_conf_okr _ _ _ _ _ Hhp HP Ho Hs) as [Hhp1 Ho1].
  assert (HP1 : typed_cmd [] P1 A).
  { apply (step_conf_preservation hp P hp1 P1 A); auto.
    unfold heap_ok. eapply Forall_impl; [|exact Hhp]. intros lc [H1 _]. exact H1. }
  destruct (IH Hhp1 HP1 Ho1) as [E Hrest]. split; [|exact Hrest].
  rewrite <- E. apply (step_conf_den decls locs hp P hp1 P1 A); auto.
Qed.

(** A final value denotes itself and its heap. *)
Lemma prog_den_value hp V A : typed_tm [] V A -> value V -> prog_den hp (Ret V) = Some (tval V, hp).
Proof.
  intros HV Hv. unfold prog_den. rewrite cden_ret. simpl.
  rewrite (den_value decls locs rho0 V A HV Hv). reflexivity.
Qed.

(** An operation of the program's own reaching the top level has no meaning. *)
Lemma prog_den_stuck_op hp P o V : stuck_op P o V -> prog_den hp P = None.
Proof.
  intros [K [-> _]]. unfold prog_den. rewrite cden_fill_c, hrun_bind. reflexivity.
Qed.

(** ** Adequacy *)
Theorem adequacy hp P A :
  heap_fits hp -> typed_cmd [] P A -> okr P ->
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_conf P' /\
    prog_den hp P = prog_den hp' P' /\
    (forall V, P' = Ret V -> value V -> prog_den hp P = Some (tval V, hp')).
(** Informal proof: [normalization] gives the run to a final
    configuration; every step on the way keeps the meaning, the types,
    the fragment and the heap's shapes ([nsteps_den]); a value denotes
    itself ([prog_den_value]). *)
Proof.
  intros Hhp HP Ho.
  assert (Hok : heap_ok hp) by (unfold heap_ok; eapply Forall_impl; [|exact Hhp]; intros lc [H1 _]; exact H1).
  destruct (normalization hp P A Hok HP) as [n [hp' [P' [Hn Hfin]]]].
  destruct (nsteps_den n hp P hp' P' A Hhp HP Ho Hn) as [E [_ [HP' _]]].
  exists n, hp', P'. split; [exact Hn|split; [exact Hfin|split; [exact E|]]].
  intros V -> Hv. rewrite E. inversion HP'; subst. eapply prog_den_value; eauto.
Qed.

(** The same for the answers of [run] and of the environment machine. *)
Theorem adequacy_run hp P A :
  heap_fits hp -> typed_cmd [] P A -> okr P ->
  exists (N : nat) r, (forall fuel : nat, (N < fuel)%nat -> run fuel 0 hp P = r /\ run_machine fuel 0 hp P = r) /\
    match r with
    | RDone hp' V _ => prog_den hp P = Some (tval V, hp')
    | RStuckEv hp' P' _ _ _ => prog_den hp P = prog_den hp' P'
    | RStuckOp _ _ _ _ _ => prog_den hp P = None
    | _ => False
    end.
(** Informal proof: [run_total] gives the run of [run] and the answer from
    some fuel on, [run_machine_correct] the machine's; the run is a
    sequence of steps ([nsteps_fuel_nsteps]), which keeps the meaning
    ([nsteps_den]); the final configuration is a value, which denotes
    itself, a stuck [Ev], or an operation of the program's own at the top
    level, which denotes [None]. *)
Proof.
  intros Hhp HP Ho.
  assert (Hok : heap_ok hp) by (unfold heap_ok; eapply Forall_impl; [|exact Hhp]; intros lc [H1 _]; exact H1).
  destruct (run_total hp P A Hok HP) as [n [m [hp' [P' [r [Hn [Hr Hrun]]]]]]].
  destruct (nsteps_den n hp P hp' P' A Hhp HP Ho (nsteps_fuel_nsteps _ _ _ _ _ _ Hn)) as [E [_ [HP' _]]].
  exists (n + m)%nat, r. split.
  - intros fuel Hf. split; [apply Hrun; exact Hf|]. rewrite run_machine_correct. apply Hrun. exact Hf.
  - destruct Hr as [[V [-> [Hv ->]]]|[[f [V [Hst ->]]]|[o [V [Hst ->]]]]].
    + rewrite E. inversion HP'; subst. eapply prog_den_value; eauto.
    + exact E.
    + rewrite E. eapply prog_den_stuck_op; eauto.
Qed.

End adequacy.

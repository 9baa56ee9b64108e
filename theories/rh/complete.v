(** * The evaluator is complete

    [run_sound] ([interp_facts.v]) says that what [run] answers is reached
    by [steps_conf]; this file proves the converse:
    - more fuel never changes an answer other than "out of fuel", for
      [rh_fn] ([rh_fn_stable], in [interp_facts.v], where [rh_fn_mono]
      follows from it), [step_conf_fn] ([step_conf_fn_stable]) and
      [run] ([run_stable]);
    - if [(hp, P)] reaches in [n] steps a value or a stuck form, then
      [run] answers exactly that configuration, with [n] steps counted,
      from some fuel on ([run_complete]); explicitly, from fuel [n + m + 1]
      on, if fuel [m] is enough for each step ([run_complete_fuel]);
    - the step count [run] reports is the number of steps taken
      ([run_nsteps]). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts.

Section complete.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V : tm) (P Q R : cmd) (H : handler).

(** ** More fuel gives the same answer *)

Lemma step_conf_fn_stable fuel fuel' hp P :
  fuel <= fuel' -> step_conf_fn fuel hp P <> CSNoFuel ->
  step_conf_fn fuel' hp P = step_conf_fn fuel hp P.
Proof.
  intros Hle Hf. unfold step_conf_fn in *. destruct (split_c P) as [K P0].
  destruct P0 as [M|o M|P1 Q|M R H]; try reflexivity.
  unfold term_conf_step in *. destruct (step_tm_fn M); try reflexivity.
  destruct M as [| | | |Vs| | |]; try reflexivity.
  destruct (infer_tm [] (Tuple Vs)) as [[b|Bs]|]; try reflexivity.
  destruct (rh_fn fuel H Bs Vs R) eqn:Hr; try congruence;
    rewrite (rh_fn_stable fuel fuel') by (auto; congruence); rewrite Hr; reflexivity.
Qed.

Definition out_of_fuel (r : run_result) : Prop :=
  match r with ROutOfFuel _ _ _ => True | _ => False end.

(** An answer of [run] other than "out of fuel" is the answer for every
    larger fuel. *)
Lemma run_stable fuel fuel' n hp P :
  fuel <= fuel' -> ~ out_of_fuel (run fuel n hp P) ->
  run fuel' n hp P = run fuel n hp P.
Proof.
  revert fuel' n hp P. induction fuel as [|fuel IH]; intros fuel' n hp P Hle Hr;
    [simpl in Hr; tauto|].
  destruct fuel' as [|fuel']; [lia|].
  cbn [run] in Hr |- *.
  destruct (step_conf_fn (S fuel) hp P) eqn:Hs;
    try (rewrite (step_conf_fn_stable (S fuel) (S fuel')) by (auto; congruence); rewrite Hs;
         try reflexivity).
  - apply IH; [lia|exact Hr].
  - simpl in Hr. tauto.
Qed.

(** ** Counted steps *)
Inductive nsteps_conf : nat -> heap -> cmd -> heap -> cmd -> Prop :=
| nsteps_refl hp P : nsteps_conf 0 hp P hp P
| nsteps_step n hp P hp' P' hp'' P'' :
    step_conf hp P hp' P' -> nsteps_conf n hp' P' hp'' P'' -> nsteps_conf (S n) hp P hp'' P''.

Lemma nsteps_steps n hp P hp' P' : nsteps_conf n hp P hp' P' -> steps_conf hp P hp' P'.
Proof. induction 1; econstructor; eauto. Qed.

Lemma steps_nsteps hp P hp' P' : steps_conf hp P hp' P' -> exists n, nsteps_conf n hp P hp' P'.
Proof.
  induction 1 as [|hp P hp' P' hp'' P'' Hs _ [n IH]]; [exists 0; constructor|].
  exists (S n). econstructor; eauto.
Qed.

(** ** The final configurations and the answer [run] gives on them *)

(** [final_result hp P n r]: [(hp, P)] is a value or a stuck form, and [r]
    is the answer that says so, [n] steps having been taken. *)
Definition final_result (hp : heap) (P : cmd) (n : nat) (r : run_result) : Prop :=
  (exists V, P = Ret V /\ value V /\ r = RDone hp V n) \/
  (exists f V, stuck_ev P f V /\ r = RStuckEv hp P f V n) \/
  (exists o V, stuck_op P o V /\ r = RStuckOp hp P (OpUser o) V n).

Lemma tuple_go_values pre Vs l :
  Forall value Vs -> tuple_go pre (Vs ++ l) = tuple_go (pre ++ Vs) l.
Proof.
  intros HVs. revert pre. induction HVs as [|V Vs HV HVs IH]; intros pre.
  - rewrite app_nil_r. reflexivity.
  - change ((V :: Vs) ++ l) with (V :: (Vs ++ l)).
    rewrite tuple_go_cons, (step_tm_fn_value _ HV), IH. rewrite <- app_assoc. reflexivity.
Qed.

Lemma step_tm_fn_frame_stuck F M f V :
  frame_ok F -> step_tm_fn M = TSStuckEv f V -> step_tm_fn (fill_frame F M) = TSStuckEv f V.
Proof.
  intros HF Hs. destruct F as [g|M2|V1|Vs Ms|i|N|N L|W N]; cbn [fill_frame frame_ok] in *.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite (step_tm_fn_value _ HF), Hs. reflexivity.
  - rewrite step_tm_fn_tuple, tuple_go_values by exact HF. rewrite tuple_go_cons, Hs. reflexivity.
  - rewrite step_tm_fn_proj, Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite Hs. reflexivity.
  - simpl. rewrite (step_tm_fn_value _ HF), Hs. reflexivity.
Qed.

Lemma step_tm_fn_stuck_complete M f V : stuck_ev_tm M f V -> step_tm_fn M = TSStuckEv f V.
Proof.
  intros [K [HK [-> [HV Hev]]]]. revert HK.
  induction K as [|F K IH] using rev_ind; intros HK.
  - simpl. rewrite (step_tm_fn_value _ HV), Hev. reflexivity.
  - apply Forall_app in HK as [HK HF]. inversion HF; subst.
    rewrite fill_ectx_snoc. apply step_tm_fn_frame_stuck; auto.
Qed.

Lemma step_conf_fn_stuck_ev fuel hp P f V :
  stuck_ev P f V -> step_conf_fn fuel hp P = CSStuckEv f V.
Proof.
  intros [K [F [M [-> HM]]]]. apply step_tm_fn_stuck_complete in HM.
  unfold step_conf_fn. rewrite split_c_fill_t.
  destruct F; simpl; unfold term_conf_step; rewrite HM; reflexivity.
Qed.

Lemma step_conf_fn_stuck_op fuel hp P o V :
  stuck_op P o V -> step_conf_fn fuel hp P = CSStuckOp (OpUser o) V.
Proof.
  intros [K [-> HV]]. unfold step_conf_fn. rewrite split_c_fill by exact I.
  unfold term_conf_step. rewrite (step_tm_fn_value _ HV). reflexivity.
Qed.

Lemma run_final fuel n hp P r :
  final_result hp P n r -> run (S fuel) n hp P = r.
Proof.
  intros [[V [-> [HV ->]]]|[[f [V [Hst ->]]]|[o [V [Hst ->]]]]]; cbn [run].
  - unfold step_conf_fn. simpl. unfold term_conf_step. rewrite (step_tm_fn_value _ HV).
    reflexivity.
  - rewrite (step_conf_fn_stuck_ev _ _ _ _ _ Hst). reflexivity.
  - rewrite (step_conf_fn_stuck_op _ _ _ _ _ Hst). reflexivity.
Qed.

(** ** Completeness *)

(** If [(hp, P)] reaches in [n] steps a value or a stuck form, then [run]
    started with [k] steps counted answers it, with [k + n] steps, for
    every fuel from some bound on.  The bound is the number of steps plus
    the fuel the [RH] rewritings on the way need, each rewriting being
    given the fuel left when it happens. *)
Lemma run_complete n hp P hp' P' k r :
  nsteps_conf n hp P hp' P' -> final_result hp' P' (k + n) r ->
  exists fuel0, forall fuel, fuel0 <= fuel -> run fuel k hp P = r.
Proof.
  intros Hn. revert k. induction Hn as [hp P|n hp P hp1 P1 hp' P' Hs Hn IH]; intros k Hr.
  - exists 1. intros [|fuel] Hle; [lia|]. apply run_final. rewrite Nat.add_0_r in Hr. exact Hr.
  - destruct (IH (S k)) as [F1 HF1]; [rewrite Nat.add_succ_r in Hr; exact Hr|].
    destruct (step_conf_fn_complete _ _ _ _ Hs) as [F0 HF0].
    exists (S (Nat.max F0 F1)). intros [|fuel] Hle; [lia|]. cbn [run].
    rewrite (HF0 (S fuel)) by lia. apply HF1. lia.
Qed.

(** ** An explicit fuel

    [nsteps_fuel m n hp P hp' P']: [n] steps, each computed by
    [step_conf_fn] with fuel [m] (the fuel only bounds the [RH]
    rewritings, so [m = 0] when no [rev handle] fires).  Fuel [n + m + 1]
    is then enough for [run]. *)
Inductive nsteps_fuel (m : nat) : nat -> heap -> cmd -> heap -> cmd -> Prop :=
| nsteps_fuel_refl hp P : nsteps_fuel m 0 hp P hp P
| nsteps_fuel_step n hp P hp' P' hp'' P'' :
    step_conf_fn m hp P = CSStep hp' P' -> nsteps_fuel m n hp' P' hp'' P'' ->
    nsteps_fuel m (S n) hp P hp'' P''.

Lemma nsteps_fuel_mono m m' n hp P hp' P' :
  m <= m' -> nsteps_fuel m n hp P hp' P' -> nsteps_fuel m' n hp P hp' P'.
Proof.
  intros Hle. induction 1 as [|n hp P hp1 P1 hp' P' Hs _ IH]; [constructor|].
  econstructor; [|exact IH]. rewrite (step_conf_fn_stable m m') by (auto; congruence). exact Hs.
Qed.

Lemma nsteps_fuel_nsteps m n hp P hp' P' :
  nsteps_fuel m n hp P hp' P' -> nsteps_conf n hp P hp' P'.
Proof. induction 1; econstructor; eauto using step_conf_fn_sound. Qed.

Lemma nsteps_nsteps_fuel n hp P hp' P' :
  nsteps_conf n hp P hp' P' -> exists m, nsteps_fuel m n hp P hp' P'.
Proof.
  induction 1 as [|n hp P hp1 P1 hp' P' Hs _ [m IH]]; [exists 0; constructor|].
  destruct (step_conf_fn_complete _ _ _ _ Hs) as [m0 Hm0].
  exists (Nat.max m0 m). econstructor.
  - apply Hm0. lia.
  - eapply nsteps_fuel_mono; [|exact IH]. lia.
Qed.

(** Completeness with an explicit fuel: [n] steps, each computed with
    fuel [m], to a value or a stuck form, and [run] answers it from fuel
    [n + m + 1] on. *)
Lemma run_complete_fuel m n hp P hp' P' k r fuel :
  nsteps_fuel m n hp P hp' P' -> final_result hp' P' (k + n) r -> n + m < fuel ->
  run fuel k hp P = r.
Proof.
  intros Hn. revert k fuel.
  induction Hn as [hp P|n hp P hp1 P1 hp' P' Hs Hn IH]; intros k fuel Hr Hfuel.
  - destruct fuel as [|fuel]; [lia|]. apply run_final. rewrite Nat.add_0_r in Hr. exact Hr.
  - destruct fuel as [|fuel]; [lia|]. cbn [run].
    rewrite (step_conf_fn_stable m (S fuel)) by (lia || congruence). rewrite Hs.
    apply IH; [rewrite Nat.add_succ_r in Hr; exact Hr|lia].
Qed.

(** ** The step count [run] reports is the number of steps taken *)

Lemma step_conf_fn_done fuel hp P V :
  step_conf_fn fuel hp P = CSDone V -> P = Ret V /\ value V.
Proof.
  unfold step_conf_fn. pose proof (split_c_spec P) as [HP Hnl].
  destruct (split_c P) as [K P0]. simpl in HP, Hnl. subst P. unfold term_conf_step.
  destruct P0 as [M|o M|P Q|M R H]; [| |contradiction|];
    destruct (step_tm_fn M) as [M''| | |] eqn:HsM; try discriminate.
  - destruct K; [|discriminate]. intros [= <-]. split; [reflexivity|].
    apply step_tm_fn_value_inv. exact HsM.
  - destruct o as [o|l|l]; try discriminate. destruct M; discriminate.
  - destruct M; try discriminate. destruct (infer_tm [] _) as [[]|]; try discriminate.
    destruct (rh_fn _ _ _ _ _); discriminate.
Qed.

(** Soundness of [run] with step counts: an answer other than "out of
    fuel" or a wrong shape is the final configuration reached in the
    number of steps it reports (minus the [n] counted before). *)
Lemma run_nsteps fuel n hp P :
  match run fuel n hp P with
  | ROutOfFuel hp' P' m | RWrong hp' P' m => exists j, m = n + j /\ nsteps_conf j hp P hp' P'
  | r => exists j hp' P', nsteps_conf j hp P hp' P' /\ final_result hp' P' (n + j) r
  end.
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P.
  - exists 0. split; [lia|constructor].
  - pose proof (run_sound (S fuel) n hp P) as Hsound. cbn [run] in Hsound |- *.
    destruct (step_conf_fn (S fuel) hp P) as [hp1 P1|V|f V|o V| |] eqn:Hs.
    + apply step_conf_fn_sound in Hs. specialize (IH (S n) hp1 P1).
      destruct (run fuel (S n) hp1 P1);
        try (destruct IH as [j [-> Hj]]; exists (S j); split; [lia|econstructor; eassumption]);
        destruct IH as [j [hp' [P' [Hj Hr]]]]; exists (S j), hp', P';
        (split; [econstructor; eassumption|rewrite <- Nat.add_succ_comm; exact Hr]).
    + destruct (step_conf_fn_done _ _ _ _ Hs) as [-> HV].
      exists 0, hp, (Ret V). split; [constructor|]. left. exists V. rewrite Nat.add_0_r. auto.
    + exists 0, hp, P. split; [constructor|]. right; left. exists f, V.
      rewrite Nat.add_0_r. split; [apply Hsound|reflexivity].
    + destruct o as [o|l|l]; try contradiction.
      exists 0, hp, P. split; [constructor|]. right; right. exists o, V.
      rewrite Nat.add_0_r. split; [apply Hsound|reflexivity].
    + exists 0. split; [lia|constructor].
    + exists 0. split; [lia|constructor].
Qed.

(** The counted steps are deterministic. *)
Lemma nsteps_final_unique n1 n2 hp P hp1 P1 hp2 P2 r1 r2 :
  nsteps_conf n1 hp P hp1 P1 -> final_result hp1 P1 n1 r1 ->
  nsteps_conf n2 hp P hp2 P2 -> final_result hp2 P2 n2 r2 ->
  r1 = r2.
Proof.
  intros H1 Hr1 H2 Hr2.
  destruct (run_complete n1 hp P hp1 P1 0 r1 H1 Hr1) as [F1 HF1].
  destruct (run_complete n2 hp P hp2 P2 0 r2 H2 Hr2) as [F2 HF2].
  rewrite <- (HF1 (Nat.max F1 F2)) by lia. apply HF2. lia.
Qed.

End complete.

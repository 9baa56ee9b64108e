(** * A closed program the checker accepts never gets stuck

    [progress] (progress.v) leaves two stuck forms: an operation no handler
    covers, and [f(V)] with [Ev(f, V)] undefined.  [effects.v] excludes the
    first for a program whose [unhandled] set is empty.  This file excludes
    the second for the executable instance, where [Ev(rd^k[p], V)] is
    defined, at every order [k], as soon as [p]'s parameters make sense and
    the leaves of [V] have the dimensions of [rd^k[p]]'s domain
    ([exec_ev_total_all], prune_dims.v).  Two invariants of a run give
    those premises:

    - Constants keep their declared lengths.  A run makes constants with
      [czero], [cadd], [Ev] and the heap; with [vec_shapes] (shapes.v)
      each of them does.
    - Every function symbol a run applies has parameters that make sense
      ([prim_ok]).  The run creates [rd^{k+1}[p]] from [rd^k[p]] when it
      rewrites an [rd] term (R-Fun) and when [RH] puts a term of a
      [rev handle]'s body under an [rd] (RH-4), keeping [p].  The invariant
      is stated for any condition on the symbols that may depend on how
      many more times a symbol may be differentiated: [tm_ok b M] says that
      every symbol [f] of [M] may still be differentiated as many times as
      there are [rd] bodies around it in [M], plus [b] ([fok b f]).  A
      program with [cmd_ok 0 P] (decided before the run: [cmd_okb]) keeps
      it along the run.  The instance's condition no longer depends on the
      count: [Ev] is total at every order, so nesting [rd] at any depth is
      accepted.

    Both are proved once, for any signature, with the properties of the
    constants and symbols they need as hypotheses ([step_conf_inv]), then
    for the executable instance, where [fok b (k, p)] is [prim_ok p] (it
    was [k + b ≤ 2 ∧ prim_ok p] while [Ev] was proved total only up to
    [rd²]) and the constants' property is [const_fits].

    Headline: [never_stuck] (every reachable configuration of a closed,
    checked program is a value or steps), [run_never_stuck],
    [run_machine_never_stuck] and [run_total_fn_never_stuck]. *)
From Coq Require Import String.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd cmd_ctx rh term_sem cmd_sem interp interp_facts progress machine normalization
  complete instance total effects ev_total shapes typecheck frontend prune_dims reader_spec.

(** [value_or_out_of_fuel run hp P]: the run [run fuel 0 hp P] answers,
    at every fuel, a value or "out of fuel"; [runs_to_value run hp P]:
    that, and from some fuel on a value.  The conclusions of
    [run_never_stuck] and of the theorems that carry it to the other
    evaluators, written once.  For parsing only: the statements print as
    they did.  ([run] stands under [/\] on both sides, in [type_scope].) *)
Notation value_or_out_of_fuel run hp P :=
  (forall fuel, match run fuel 0 hp P with
                | RDone _ V _ => value V
                | ROutOfFuel _ _ _ => True
                | _ => False
                end)
  (only parsing).
Notation runs_to_value run hp P :=
  (value_or_out_of_fuel run hp P /\
   exists N, forall fuel, N < fuel -> exists hp' V n, (run)%type fuel 0 hp P = RDone hp' V n /\ value V)
  (only parsing).

(** ** The invariant, for any signature *)
Section invariant.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (M N L V W : tm) (P Q R : cmd) (K : list cmd) (H : handler) (A B : ty).

(** Two runs equal at every fuel: the one runs to a value as the other. *)
Lemma runs_to_value_ext (f g : nat -> nat -> heap -> cmd -> run_result) hp P :
  (forall fuel, g fuel 0 hp P = f fuel 0 hp P) -> runs_to_value f hp P -> runs_to_value g hp P.
Proof.
  intros Hfg [Hall [N HN]].
  split; [intros fuel; rewrite Hfg; apply Hall|].
  exists N. intros fuel Hfuel. rewrite Hfg. apply HN, Hfuel.
Qed.

(** The property of the constants, and of the function symbols at budget
    [b]: a symbol at budget [S b] is one at budget [b], and so is its
    reverse derivative. *)
Variable cok : const -> Prop.
Variable fok : nat -> fsym -> Prop.
Hypothesis fok_mono : forall b f, fok (S b) f -> fok b f.
Hypothesis fok_rd : forall b f, fok (S b) f -> fok b (rd f).
Hypothesis cok_czero : forall b, cok (czero b).
Hypothesis cok_cadd : forall c1 c2, cok c1 -> cok c2 -> const_ty c1 = const_ty c2 -> cok (cadd c1 c2).

Fixpoint tm_ok (b : nat) (M : tm) {struct M} : Prop :=
  match M with
  | Var _ => True
  | Const c => cok c
  | App f M => fok b f /\ tm_ok b M
  | Add M1 M2 | Let M1 M2 => tm_ok b M1 /\ tm_ok b M2
  | Tuple Ms => fix_Forall (tm_ok b) Ms
  | Proj _ M => tm_ok b M
  | Rd M N L => tm_ok b M /\ tm_ok (S b) N /\ tm_ok b L
  end.

Lemma tm_ok_tuple b Ms : tm_ok b (Tuple Ms) <-> Forall (tm_ok b) Ms.
Proof.
  cbn. apply fix_and_Forall.
Qed.

Fixpoint cmd_ok (b : nat) (P : cmd) : Prop :=
  match P with
  | Ret M | Op _ M => tm_ok b M
  | CLet P Q => cmd_ok b P /\ cmd_ok b Q
  | RevHandle M R H => tm_ok b M /\ cmd_ok (S b) R /\ handler_ok b H
  end
with handler_ok (b : nat) (H : handler) : Prop :=
  match H with Handler P cls => cmd_ok b P /\ clauses_ok b cls end
with clauses_ok (b : nat) (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => cmd_ok b Qf /\ cmd_ok b Qb /\ clauses_ok b rest
  end.

(** Constants only, at every budget: what values, points and heaps carry. *)
Definition tm_ok_all (M : tm) : Prop := forall b, tm_ok b M.

Definition heap_cok (hp : heap) : Prop := Forall (fun lc => cok (snd lc)) hp.

(** *** Budgets *)

Lemma tm_ok_mono M : forall b b', b' <= b -> tm_ok b M -> tm_ok b' M.
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros b b' Hb HM; cbn in HM |- *; try tauto.
  - destruct HM as [Hf HM]. split; [|eauto].
    clear IH HM. induction Hb; [exact Hf|]. apply IHHb, fok_mono, Hf.
  - destruct HM; eauto.
  - apply tm_ok_tuple. apply tm_ok_tuple in HM.
    rewrite Forall_forall in IH, HM |- *. eauto.
  - eauto.
  - destruct HM; eauto.
  - destruct HM as [? [? ?]]. split; [eauto|split; [apply (IHN (S b))|eauto]]; auto; lia.
Qed.

Lemma value_tm_ok V b b' : value V -> tm_ok b V -> tm_ok b' V.
Proof.
  revert b b'. induction V as [x|c|f M _|M1 M2 _ _|Ms IH|i M _|M N _ _|M N L _ _ _] using tm_ind';
    intros b b' HV HM; try discriminate HV; cbn in HM |- *; try tauto.
  apply tm_ok_tuple. apply tm_ok_tuple in HM. apply value_tuple_iff in HV.
  rewrite Forall_forall in IH, HM, HV |- *. eauto.
Qed.

(** *** Renaming and substitution *)

Lemma tm_ok_ren M : forall b ξ, tm_ok b M -> tm_ok b (ren_tm ξ M).
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros b ξ HM; cbn in HM |- *; try tauto.
  - destruct HM; repeat split; eauto.
  - destruct HM; repeat split; eauto.
  - apply tm_ok_tuple. apply tm_ok_tuple in HM. rewrite Forall_map.
    rewrite Forall_forall in IH, HM |- *. eauto.
  - eauto.
  - destruct HM; repeat split; eauto.
  - destruct HM as [? [? ?]]. repeat split; eauto.
Qed.

Definition sub_ok (σ : nat -> tm) : Prop := forall x, tm_ok_all (σ x).

Lemma sub_ok_up σ : sub_ok σ -> sub_ok (up σ).
Proof. intros Hσ [|x] b; cbn; [exact I|]. apply tm_ok_ren, Hσ. Qed.

Lemma tm_ok_subst M : forall b σ, sub_ok σ -> tm_ok b M -> tm_ok b (subst_tm σ M).
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros b σ Hσ HM; cbn in HM |- *; try tauto.
  - apply Hσ.
  - destruct HM; eauto.
  - destruct HM; eauto.
  - apply tm_ok_tuple. apply tm_ok_tuple in HM. rewrite Forall_map.
    rewrite Forall_forall in IH, HM |- *. eauto.
  - eauto.
  - destruct HM. split; [eauto|]. apply IHN; [apply sub_ok_up, Hσ|assumption].
  - destruct HM as [? [? ?]]. split; [eauto|split; [|eauto]]. apply IHN; [apply sub_ok_up, Hσ|assumption].
Qed.

Lemma sub_ok_list Vs : Forall tm_ok_all Vs -> sub_ok (list_subst Vs).
Proof.
  intros HVs x b. unfold list_subst.
  destruct (nth_in_or_default x Vs (Var (x - length Vs))) as [Hin | ->].
  - rewrite Forall_forall in HVs. apply HVs, Hin.
  - exact I.
Qed.

Lemma cmd_ok_ren P : forall b ξ, cmd_ok b P -> cmd_ok b (ren_cmd ξ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros b ξ HP; cbn in HP |- *.
  - apply tm_ok_ren, HP.
  - apply tm_ok_ren, HP.
  - destruct HP. eauto.
  - destruct HP as [? [? ?]]. split; [apply tm_ok_ren|split]; assumption.
Qed.

Lemma cmd_ok_subst P : forall b σ, sub_ok σ -> cmd_ok b P -> cmd_ok b (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros b σ Hσ HP; cbn in HP |- *.
  - apply tm_ok_subst; assumption.
  - apply tm_ok_subst; assumption.
  - destruct HP. split; [eauto|]. apply IHQ; [apply sub_ok_up|]; assumption.
  - destruct HP as [? [? ?]]. split; [apply tm_ok_subst|split]; assumption.
Qed.

(** *** Derived terms *)

Lemma tm_ok_zero A b : tm_ok b (zero A).
Proof.
  induction A as [b'|As IH] using ty_ind'; cbn [zero]; [apply cok_czero|].
  apply tm_ok_tuple. rewrite Forall_map. eapply Forall_impl; [|exact IH]. auto.
Qed.

Lemma tm_ok_plus A : forall b M N, tm_ok b M -> tm_ok b N -> tm_ok b (plus A M N).
Proof.
  induction A as [b'|As IH] using ty_ind'; intros b M N HM HN; cbn [plus].
  - cbn. auto.
  - cbn [tm_ok]. split; [exact HM|]. split; [apply tm_ok_ren, HN|].
    apply tm_ok_tuple.
    match goal with |- Forall _ (?g 0 As) => enough (Hg : forall i, Forall (tm_ok b) (g i As)) by apply Hg end.
    induction IH as [|A As HA HAs IHl]; intros i; constructor.
    + apply HA; exact I.
    + apply IHl.
Qed.

Lemma tm_ok_onehot As i W b : tm_ok b W -> tm_ok b (onehot As i W).
Proof.
  intros HW. unfold onehot. apply tm_ok_tuple. apply Forall_forall.
  intros M HM. apply in_map_iff in HM as [[j A] [<- _]]. cbn.
  destruct (Nat.eqb j i); [exact HW|apply tm_ok_zero].
Qed.

Lemma tm_ok_sum_tms A Ms b : Forall (tm_ok b) Ms -> tm_ok b (sum_tms A Ms).
Proof.
  induction 1 as [|M Ms HM HMs IH]; cbn [sum_tms]; [apply tm_ok_zero|].
  destruct Ms; [exact HM|]. apply tm_ok_plus; assumption.
Qed.

(** *** The rewriting [W.R_V(x.N)] *)

(** A body one level deeper than the result, a point and a cotangent at the
    result's level give a result at that level. *)
Definition rdr_ok (r : rdr_fun) : Prop :=
  forall Γ0 As θ W N b, sub_ok θ -> tm_ok b W -> tm_ok (S b) N -> tm_ok b (r Γ0 As θ W N).

Lemma sub_ok_shift_subst θ : sub_ok θ -> sub_ok (shift_subst θ).
Proof. intros Hθ x b. apply tm_ok_ren, Hθ. Qed.

Lemma rdr_step_ok rec :
  (match rec with None => True | Some r => rdr_ok r end) -> rdr_ok (rdr_step rec).
Proof.
  intros Hrec Γ0 As θ W N. revert As θ W.
  induction N as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N' IHM IHN|M N' L IHM IHN IHL]
    using tm_ind'; intros As θ W b Hθ HW HN; cbn [rdr_step].
  - destruct (Nat.ltb x (length As)); [apply tm_ok_onehot, HW|apply tm_ok_zero].
  - apply tm_ok_zero.
  - cbn in HN. destruct HN as [Hf HM]. cbn [tm_ok]. split.
    + split; [apply fok_rd, Hf|]. cbn. split; [|split; [exact HW|exact I]].
      apply tm_ok_subst; [exact Hθ|]. apply (tm_ok_mono _ (S b)); [lia|exact HM].
    + apply IH; [apply sub_ok_shift_subst, Hθ|exact I|exact HM].
  - cbn in HN. destruct HN. apply tm_ok_plus; eauto.
  - apply tm_ok_sum_tms. apply tm_ok_tuple in HN.
    generalize 0 as i. intros i. revert i W HW.
    induction IH as [|M Ms HM HMs IHl]; intros i W HW; inversion HN as [|? ? HN1 HN2]; subst;
      constructor.
    + apply HM; [exact Hθ|exact HW|exact HN1].
    + apply IHl; assumption.
  - cbn in HN. destruct (infer_tm (As ++ Γ0) M) as [[|Bs]|]; try apply tm_ok_zero.
    apply IH; [exact Hθ|apply tm_ok_onehot, HW|exact HN].
  - cbn in HN. destruct HN as [HM HN'].
    destruct (infer_tm (As ++ Γ0) M) as [A'|]; [|apply tm_ok_zero].
    cbn [tm_ok]. split; [apply tm_ok_subst; [exact Hθ|apply (tm_ok_mono _ (S b)); [lia|exact HM]]|].
    split.
    + apply IHN; [apply sub_ok_up, Hθ|apply tm_ok_ren, HW|exact HN'].
    + apply tm_ok_plus.
      * apply tm_ok_tuple. apply Forall_forall. intros P HP. apply in_map_iff in HP as [j [<- _]]. exact I.
      * apply IHM; [apply sub_ok_shift_subst, sub_ok_shift_subst, Hθ|exact I|exact HM].
  - destruct rec as [r|].
    + cbn in HN. destruct HN as [HM [HN' HL]].
      destruct (infer_tm (As ++ Γ0) L) as [Ay|]; [|apply tm_ok_zero].
      apply Hrec; [exact Hθ|exact HW|]. cbn [tm_ok]. split; [exact HL|]. split; [apply tm_ok_ren, HM|].
      apply Hrec; [|exact I|exact HN'].
      intros [|[|x]] b'; exact I.
    + cbn [tm_ok]. split; [exact HW|]. split.
      * apply tm_ok_subst; [|exact HN].
        intros x b'. unfold proj_subst. destruct (Nat.ltb x (length As)); [exact I|apply tm_ok_ren, Hθ].
      * apply tm_ok_tuple. apply Forall_forall. intros P HP. apply in_map_iff in HP as [j [<- _]]. apply Hθ.
Qed.

Lemma rdr_ok_d d : rdr_ok (rdr d).
Proof. induction d as [|d IH]; cbn [rdr]; apply rdr_step_ok; [exact I|exact IH]. Qed.

Lemma rd_rewrite_ok A W V N b :
  tm_ok_all V -> tm_ok b W -> tm_ok (S b) N -> tm_ok b (rd_rewrite [] A W V N).
Proof.
  intros HV HW HN. unfold rd_rewrite. cbn [tm_ok].
  apply rdr_ok_d; [apply sub_ok_list; constructor; [exact HV|constructor]|exact HW|exact HN].
Qed.

(** *** Contexts *)

Lemma cmd_ok_fill_c K P b :
  cmd_ok b (fill_c K P) <-> Forall (cmd_ok b) K /\ cmd_ok b P.
Proof.
  revert P. induction K as [|Q K IH]; intros P; cbn [fill_c fold_left].
  - split; [intros; split; [constructor|assumption]|tauto].
  - fold (fill_c K (CLet P Q)). rewrite IH. cbn [cmd_ok].
    split; [intros [HK [HP HQ]]; split; [constructor|]; assumption|].
    intros [HK HP]. inversion HK; subst. tauto.
Qed.

Definition tcframe_ok (b : nat) (F : tcframe) : Prop :=
  match F with TRev R H => cmd_ok (S b) R /\ handler_ok b H | _ => True end.

Lemma cmd_ok_plug_t F M b : cmd_ok b (plug_t F M) <-> tcframe_ok b F /\ tm_ok b M.
Proof. destruct F; cbn; tauto. Qed.

Lemma cmd_ok_fill_t K F M b :
  cmd_ok b (fill_t K F M) <-> Forall (cmd_ok b) K /\ tcframe_ok b F /\ tm_ok b M.
Proof. unfold fill_t. rewrite cmd_ok_fill_c, cmd_ok_plug_t. tauto. Qed.

Lemma cmd_ok_shift_frames K b : Forall (cmd_ok b) K -> Forall (cmd_ok b) (shift_frames K).
Proof. intros HK. unfold shift_frames. rewrite Forall_map. eapply Forall_impl; [|exact HK]. intros; apply cmd_ok_ren; assumption. Qed.

Lemma tm_ok_fill_frame F M b :
  tm_ok b (fill_frame F M) -> tm_ok b M /\ forall M', tm_ok b M' -> tm_ok b (fill_frame F M').
Proof.
  destruct F; cbn; intros HM; try (split; [tauto|intros; tauto]).
  apply tm_ok_tuple in HM. apply Forall_app in HM as [HVs HMs]. inversion HMs; subst.
  split; [assumption|]. intros M' HM'. apply tm_ok_tuple, Forall_app. split; [exact HVs|constructor; assumption].
Qed.

Lemma tm_ok_fill_ectx (Ks : list tframe) M b :
  tm_ok b (fill_ectx Ks M) -> tm_ok b M /\ forall M', tm_ok b M' -> tm_ok b (fill_ectx Ks M').
Proof.
  revert M. induction Ks as [|F Ks IH]; intros M HM; cbn in HM |- *; [split; auto|].
  destruct (IH _ HM) as [HF Hplug]. destruct (tm_ok_fill_frame _ _ _ HF) as [HM0 Hplug'].
  split; [exact HM0|]. intros M' HM'. apply Hplug, Hplug', HM'.
Qed.

(** *** Handlers and [RH] *)

Lemma clause_of_ok H o D Qf Qb b :
  handler_ok b H -> clause_of H o = (D, Qf, Qb) -> cmd_ok b Qf /\ cmd_ok b Qb.
Proof.
  destruct H as [P cls]. cbn. intros [_ Hcls].
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hf.
  - intros [=<- <- <-]. induction cls as [|o' D'' Qf'' Qb'' rest IH]; cbn in Hf; [discriminate|].
    destruct Hcls as [? [? ?]]. destruct (opsym_eq_dec o o'); [injection Hf as <- <- <-; auto|auto].
  - intros [=<- <- <-]. split; [|apply tm_ok_zero].
    cbn. repeat split. apply cok_czero.
Qed.

Lemma rh_ok H Bs Vs R R' :
  rh H Bs Vs R R' -> forall b, Forall tm_ok_all Vs -> cmd_ok (S b) R -> handler_ok b H -> cmd_ok b R'.
Proof.
  induction 1 as [H Bs Vs k Vk Hk
                 |H Bs Vs K z Q R' Hrec IH
                 |H Bs Vs K o k Vk D Qf Qb Rrec Hk Hcl Hrec IH
                 |H Bs Vs K z As1 R1 H1 R1' R' Hz Hrec1 IH1 Hrec2 IH2
                 |H Bs Vs K F M B' Rrec Hnv Hinf Hrec IH];
    intros b HVs HR HH.
  - (* rh_ret *)
    assert (HVk : tm_ok_all Vk) by (rewrite Forall_forall in HVs; eapply HVs, nth_error_In, Hk).
    unfold rh_ret_out. cbn [cmd_ok]. split.
    + apply cmd_ok_subst; [apply sub_ok_list; constructor; [exact HVk|constructor]|].
      destruct H as [P cls]. cbn in HH |- *. tauto.
    + apply tm_ok_onehot. exact I.
  - (* rh_let_var *)
    apply IH; [exact HVs| |exact HH].
    apply cmd_ok_fill_c in HR as [HK HP]. inversion HK; subst. apply cmd_ok_fill_c. split; [assumption|].
    apply cmd_ok_subst; [|assumption]. apply sub_ok_list. constructor; [intros ?; exact I|constructor].
  - (* rh_op *)
    assert (HVk : tm_ok_all Vk) by (rewrite Forall_forall in HVs; eapply HVs, nth_error_In, Hk).
    destruct (clause_of_ok _ _ _ _ _ _ HH Hcl) as [HQf HQb].
    apply cmd_ok_fill_c in HR as [HK _].
    unfold rh_op_out. cbn [cmd_ok]. split; [|split; [|split]].
    + apply cmd_ok_subst; [apply sub_ok_list; constructor; [exact HVk|constructor]|exact HQf].
    + apply IH; [| |exact HH].
      * constructor; [intros ?; exact I|]. rewrite Forall_map. eapply Forall_impl; [|exact HVs].
        intros V HV b'. apply tm_ok_ren, HV.
      * apply cmd_ok_fill_c. split; [apply cmd_ok_shift_frames, HK|exact I].
    + apply cmd_ok_subst; [|exact HQb]. apply sub_ok_list.
      constructor; [intros ?; exact I|constructor; [intros ?; exact I|constructor]].
    + unfold rh_op_result. apply tm_ok_tuple. apply Forall_forall. intros M HM.
      apply in_map_iff in HM as [i [<- _]]. destruct (Nat.eqb i k); [apply tm_ok_plus; exact I|exact I].
  - (* rh_rev *)
    apply cmd_ok_fill_c in HR as [HK [_ [HR1 HH1]]].
    apply IH2; [exact HVs| |exact HH]. apply cmd_ok_fill_c. split; [exact HK|].
    apply IH1; [|exact HR1|exact HH1].
    unfold proj_list. rewrite Forall_map. apply Forall_forall. intros i _ b'. exact I.
  - (* rh_term *)
    apply cmd_ok_fill_t in HR as [HK [HF HM]].
    assert (HVs' : Forall tm_ok_all (map (ren_tm (fun x => S (S x))) Vs)).
    { rewrite Forall_map. eapply Forall_impl; [|exact HVs]. intros V HV b'. apply tm_ok_ren, HV. }
    unfold rh_term_out. cbn [cmd_ok tm_ok]. split; [|split; [|split]].
    + apply tm_ok_subst; [apply sub_ok_list, HVs|]. apply (tm_ok_mono _ (S b)); [lia|exact HM].
    + apply IH; [| |exact HH].
      * constructor; [intros ?; exact I|]. rewrite Forall_map. eapply Forall_impl; [|exact HVs].
        intros V HV b'. apply tm_ok_ren, HV.
      * apply cmd_ok_fill_t. split; [apply cmd_ok_shift_frames, HK|split; [exact HF|exact I]].
    + split; [exact I|]. split.
      * apply tm_ok_subst; [intros i b'; exact I|exact HM].
      * apply tm_ok_tuple. rewrite Forall_forall in HVs' |- *. intros V HV. apply HVs', HV.
    + rewrite rh_term_result_nth. apply tm_ok_tuple. apply Forall_forall. intros M' HM'.
      apply in_map_iff in HM' as [i [<- _]]. apply tm_ok_plus; exact I.
Qed.

(** *** Steps *)

(** [Ev] returns values whose constants are good when the argument's are. *)
Context {E : evaluator}.
Hypothesis ev_ok : forall f V V', value V -> tm_ok_all V -> ev f V = Some V' -> tm_ok_all V'.

Lemma head_step_tm_ok M M' A b :
  typed_tm [] M A -> tm_ok b M -> head_step_tm M M' -> tm_ok b M'.
Proof.
  intros HT HM Hstep. destruct Hstep as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A' HW HV HA'].
  - (* head_step_tm_app *)
    cbn in HM. destruct HM as [_ HVok]. refine (ev_ok f V V' HV _ Hev b).
    intros b'. eapply value_tm_ok; eassumption.
  - (* head_step_tm_add *)
    cbn in HM |- *. destruct HM as [H1 H2]. apply cok_cadd; [exact H1|exact H2|].
    inversion HT as [| | |Γ M1 M2 b0 HT1 HT2| | | |]; subst.
    inversion HT1; inversion HT2; subst. congruence.
  - (* head_step_tm_proj *)
    cbn in HM. apply tm_ok_tuple in HM. rewrite Forall_forall in HM. eapply HM, nth_error_In, Hi.
  - (* head_step_tm_let *)
    cbn in HM. destruct HM as [HVok HN]. apply tm_ok_subst; [|exact HN].
    apply sub_ok_list. constructor; [|constructor]. intros b'. eapply value_tm_ok; eassumption.
  - (* head_step_tm_rd *)
    cbn in HM. destruct HM as [HWok [HN HVok]]. apply rd_rewrite_ok; [|exact HWok|exact HN].
    intros b'. eapply value_tm_ok; eassumption.
Qed.

Lemma step_tm_ok M M' A b : typed_tm [] M A -> tm_ok b M -> step_tm M M' -> tm_ok b M'.
Proof.
  intros HT HM Hstep. destruct Hstep as [K M0 M0' M1 M1' _ -> -> Hhead].
  destruct (tm_ok_fill_ectx _ _ _ HM) as [HM0 Hplug].
  destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB _]].
  apply Hplug. eapply head_step_tm_ok; eassumption.
Qed.

Lemma step_cmd_ok P P' A b : typed_cmd [] P A -> cmd_ok b P -> step_cmd P P' -> cmd_ok b P'.
Proof.
  intros HP Hok Hstep.
  destruct Hstep as [K F M M' P P' HMM' -> ->
                    |K V Q P P' HV -> ->
                    |K Vs Bs R H R' P P' HVs Hinf Hrh -> ->].
  - (* step_cmd_term *)
    apply cmd_ok_fill_t in Hok as [HK [HF HM]]. apply cmd_ok_fill_t. split; [exact HK|split; [exact HF|]].
    unfold fill_t in HP. apply fill_c_typed_inv in HP as [B [HB _]].
    destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HMC _]].
    eapply step_tm_ok; eassumption.
  - (* step_cmd_let_val *)
    apply cmd_ok_fill_c in Hok as [HK [HVok HQ]]. apply cmd_ok_fill_c. split; [exact HK|].
    apply cmd_ok_subst; [|exact HQ]. apply sub_ok_list. constructor; [|constructor].
    intros b'. eapply value_tm_ok; eassumption.
  - (* step_cmd_revhandle *)
    apply cmd_ok_fill_c in Hok as [HK [HVok [HR HH]]]. apply cmd_ok_fill_c. split; [exact HK|].
    eapply rh_ok; [exact Hrh| |exact HR|exact HH].
    apply tm_ok_tuple in HVok. rewrite Forall_forall in HVok, HVs |- *.
    intros V HV b'. eapply value_tm_ok; [apply HVs, HV|apply HVok, HV].
Qed.

Lemma heap_lookup_cok hp l : heap_cok hp -> cok (heap_lookup hp l).
Proof.
  induction 1 as [|[l' c] hp' Hc Hhp IH]; cbn; [apply cok_czero|].
  destruct (loc_eq_dec l l'); [exact Hc|exact IH].
Qed.

(** Every step keeps the invariant: of the command, at every budget it
    had, and of the heap's constants. *)
Lemma step_conf_inv hp P hp' P' A b :
  typed_cmd [] P A -> cmd_ok b P -> heap_cok hp -> step_conf hp P hp' P' ->
  cmd_ok b P' /\ heap_cok hp'.
Proof.
  intros HP Hok Hhp Hstep.
  destruct Hstep as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - (* step_conf_cmd *) split; [eapply step_cmd_ok; eassumption|exact Hhp].
  - (* step_conf_get *)
    split; [|exact Hhp]. apply cmd_ok_fill_c in Hok as [HK _]. apply cmd_ok_fill_c.
    split; [exact HK|]. apply heap_lookup_cok, Hhp.
  - (* step_conf_put *)
    apply cmd_ok_fill_c in Hok as [HK Hc]. split.
    + apply cmd_ok_fill_c. split; [exact HK|]. apply cok_czero.
    + constructor; [exact Hc|]. unfold heap_cok in *. rewrite Forall_forall in Hhp |- *.
      intros lc Hin. apply filter_In in Hin as [Hin _]. auto.
Qed.

Context {Eok : evaluator_ok}.

Lemma steps_conf_inv hp P hp' P' A b :
  heap_ok hp -> typed_cmd [] P A -> cmd_ok b P -> heap_cok hp -> steps_conf hp P hp' P' ->
  cmd_ok b P' /\ heap_cok hp'.
Proof.
  intros Hhp HP Hok Hc Hsteps. revert Hhp HP Hok Hc.
  induction Hsteps as [|hp P hp' P' hp'' P'' Hs Hss IH]; intros Hhp HP Hok Hc; [auto|].
  destruct (step_conf_inv _ _ _ _ _ _ HP Hok Hc Hs) as [Hok' Hc'].
  destruct (step_conf_preservation _ _ _ _ _ Hhp HP Hs) as [Hhp' HP'].
  auto.
Qed.

End invariant.

(** ** The executable instance *)
Section exec.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance never_stuck_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance never_stuck_signature : signature := exec_signature vo decls locs.
#[local] Instance never_stuck_evaluator : evaluator := exec_evaluator vo.

Implicit Types (M V : tm) (P : cmd) (hp : heap).

(** [rd^k[p]] may be differentiated [b] more times: [p]'s parameters
    make sense.  [Ev] is total at every order ([exec_ev_total_all]), so
    neither [k] nor [b] is bounded. *)
Definition exec_fok (b : nat) (f : nat * prim) : Prop := prim_ok (snd f) = true.

(** No condition on the function symbols: constants only. *)
Definition no_fok (b : nat) (f : nat * prim) : Prop := True.

(** The constants of a command, of a value and of a heap have their
    declared lengths. *)
Definition consts_fit_cmd (P : cmd) : Prop := cmd_ok (const_fits vo) no_fok 0 P.
Definition heap_fits (hp : heap) : Prop := heap_cok (const_fits vo) hp.

(** A closed program whose function symbols have parameters that make
    sense, with its constants at their declared lengths.  (The name is
    kept from when it also bounded the [rd] order by 2.) *)
Definition order_ok (P : cmd) : Prop := cmd_ok (const_fits vo) exec_fok 0 P.

Lemma tm_ok_leaves cok fok b M : tm_ok cok fok b M -> Forall cok (@leaves Vec M).
Proof.
  induction M as [x|c|f M _|M1 M2 _ _|Ms IH|i M _|M N _ _|M N L _ _ _] using tm_ind';
    cbn [leaves]; intros HM; try solve [constructor].
  - constructor; [exact HM|constructor].
  - apply tm_ok_tuple in HM. apply Forall_concat. rewrite Forall_map.
  rewrite Forall_forall in IH, HM |- *. auto.
Qed.

Lemma leaves_tm_ok (cok : nat * Vec -> Prop) fok b V :
  value V -> Forall cok (@leaves Vec V) -> tm_ok cok fok b V.
Proof.
  induction V as [x|c|f M _|M1 M2 _ _|Ms IH|i M _|M N _ _|M N L _ _ _] using tm_ind';
    intros HV HL; try discriminate HV; cbn [tm_ok]; try exact I.
  - inversion HL; assumption.
  - apply tm_ok_tuple. apply value_tuple_iff in HV. cbn [leaves] in HL.
    apply Forall_concat in HL. rewrite Forall_map in HL.
    rewrite Forall_forall in IH, HV, HL |- *. auto.
Qed.

Lemma exec_ev_value f V V' : exec_ev vo f V = Some V' -> value V'.
Proof.
  destruct f as [k p]. unfold exec_ev.
  destruct (prim_ok p && leaves_fit vo _ _); [|discriminate].
  destruct (eval_prim vo k p _) as [outs|]; [|discriminate].
  intros [=<-]. apply (encode_typed vo decls locs).
Qed.

(** ** The check, decided before the run

    [tm_okb fb b M] decides [tm_ok] with the function symbols' condition
    given as a boolean [fb]; the constants' lengths are compared.  With
    [fb] always true it decides [consts_fit_cmd]; with [exec_fokb] it
    decides [order_ok]. *)
Fixpoint tm_okb (fb : nat -> nat * prim -> bool) (b : nat) (M : tm) : bool :=
  match M with
  | Var _ => true
  | Const c => Nat.eqb (v_len vo (snd c)) (fst c)
  | App f M => fb b f && tm_okb fb b M
  | Add M1 M2 | Let M1 M2 => tm_okb fb b M1 && tm_okb fb b M2
  | Tuple Ms => forallb (tm_okb fb b) Ms
  | Proj _ M => tm_okb fb b M
  | Rd M N L => tm_okb fb b M && tm_okb fb (S b) N && tm_okb fb b L
  end.

Fixpoint cmd_okb (fb : nat -> nat * prim -> bool) (b : nat) (P : cmd) : bool :=
  match P with
  | Ret M | Op _ M => tm_okb fb b M
  | CLet P Q => cmd_okb fb b P && cmd_okb fb b Q
  | RevHandle M R H => tm_okb fb b M && cmd_okb fb (S b) R && handler_okb fb b H
  end
with handler_okb (fb : nat -> nat * prim -> bool) (b : nat) (H : handler) : bool :=
  match H with Handler P cls => cmd_okb fb b P && clauses_okb fb b cls end
with clauses_okb (fb : nat -> nat * prim -> bool) (b : nat) (cls : clauses) : bool :=
  match cls with
  | CNil => true
  | CCons _ _ Qf Qb rest => cmd_okb fb b Qf && cmd_okb fb b Qb && clauses_okb fb b rest
  end.

Definition exec_fokb (b : nat) (f : nat * prim) : bool := prim_ok (snd f).
Definition no_fokb (b : nat) (f : nat * prim) : bool := true.

Section reflect.
Variables (fb : nat -> nat * prim -> bool) (fok : nat -> nat * prim -> Prop).
Hypothesis fb_spec : forall b f, fb b f = true <-> fok b f.

Lemma tm_okb_spec M : forall b, tm_okb fb b M = true <-> tm_ok (const_fits vo) fok b M.
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros b; cbn [tm_okb];
    try (cbn [tm_ok]; rewrite ?andb_true_iff, ?fb_spec, ?IH, ?IH1, ?IH2, ?IHM, ?IHN, ?IHL; tauto).
  - cbn. rewrite Nat.eqb_eq. unfold const_fits. tauto.
  - rewrite tm_ok_tuple, forallb_forall, Forall_forall. rewrite Forall_forall in IH.
    split; intros Hall M HM; apply (IH M HM b), Hall, HM.
Qed.

Lemma cmd_okb_spec :
  (forall P b, cmd_okb fb b P = true <-> cmd_ok (const_fits vo) fok b P) /\
  (forall H b, handler_okb fb b H = true <-> handler_ok (const_fits vo) fok b H) /\
  (forall cls b, clauses_okb fb b cls = true <-> clauses_ok (const_fits vo) fok b cls).
Proof.
  apply cmd_mutind; intros; cbn [cmd_okb handler_okb clauses_okb cmd_ok handler_ok clauses_ok];
    rewrite ?andb_true_iff, ?tm_okb_spec;
    repeat match goal with IH : forall b, _ = true <-> _ |- _ => rewrite IH; clear IH end;
    tauto.
Qed.
End reflect.

Lemma exec_fokb_spec b f : exec_fokb b f = true <-> exec_fok b f.
Proof. unfold exec_fokb, exec_fok. tauto. Qed.

Lemma no_fokb_spec b f : no_fokb b f = true <-> no_fok b f.
Proof. unfold no_fokb, no_fok. tauto. Qed.

Lemma order_okb_spec P : cmd_okb exec_fokb 0 P = true <-> order_ok P.
Proof. apply (proj1 (cmd_okb_spec _ _ exec_fokb_spec)). Qed.

Lemma consts_fitb_spec P : cmd_okb no_fokb 0 P = true <-> consts_fit_cmd P.
Proof. apply (proj1 (cmd_okb_spec _ _ no_fokb_spec)). Qed.

(** What the checker of a program refuses, in the order it looks. *)
Inductive program_error : Type :=
| PTypeError (e : type_error)       (** [check_cmd] fails *)
| PConstLength                      (** a constant's vector has not the length it declares *)
| PPrimParams                       (** a function symbol's parameters make no sense ([prim_ok]) *)
| PUnhandled (os : list op).        (** operations no handler covers *)

(** The checker of a closed program: typed, constants at their lengths,
    function symbols with parameters that make sense, no unhandled
    operation.  [rd] may be nested at any depth. *)
Definition check_program (P : cmd) : result ty program_error :=
  match check_cmd [] P with
  | Err e => Err (PTypeError e)
  | Ok A =>
      if negb (cmd_okb no_fokb 0 P) then Err PConstLength
      else if negb (cmd_okb exec_fokb 0 P) then Err PPrimParams
      else match unhandled P with [] => Ok A | os => Err (PUnhandled os) end
  end.

(** It accepts exactly the programs [never_stuck] is about. *)
Lemma check_program_correct P A :
  check_program P = Ok A <->
  typed_cmd [] P A /\ consts_fit_cmd P /\ order_ok P /\ unhandled P = [].
Proof.
  rewrite <- check_cmd_correct, <- consts_fitb_spec, <- order_okb_spec. unfold check_program.
  destruct (check_cmd [] P) as [A'|e].
  - destruct (cmd_okb no_fokb 0 P), (cmd_okb exec_fokb 0 P), (unhandled P) as [|u us]; cbn;
      split; try discriminate; try (intros [? [? [? ?]]]; discriminate); try tauto.
    + intros [=<-]. tauto.
    + intros [[=<-] _]. reflexivity.
  - split; [discriminate|intros [? _]; discriminate].
Qed.

Lemma consts_tm_okb M : consts_tm vo M = true -> forall b, tm_okb no_fokb b M = true.
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros HM b; cbn in HM |- *; rewrite ?andb_true_iff in HM |- *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end; repeat split; auto.
  - apply Nat.eqb_eq in HM. apply Nat.eqb_eq. auto.
  - rewrite forallb_forall in HM |- *. rewrite Forall_forall in IH. auto.
Qed.

Lemma consts_cmd_okb :
  (forall P, consts_cmd vo P = true -> forall b, cmd_okb no_fokb b P = true) /\
  (forall H, consts_handler vo H = true -> forall b, handler_okb no_fokb b H = true) /\
  (forall cls, consts_clauses vo cls = true -> forall b, clauses_okb no_fokb b cls = true).
Proof.
  apply cmd_mutind; intros;
    cbn [consts_cmd consts_handler consts_clauses cmd_okb handler_okb clauses_okb] in *;
    rewrite ?andb_true_iff in *; repeat split;
    repeat match goal with H : _ /\ _ |- _ => destruct H end; auto using consts_tm_okb.
Qed.

(** The reader keeps the lengths: the main command of a program it reads
    passes the constants' part of the check ([read_program_consts],
    frontend.v). *)
Lemma consts_cmd_fit P : consts_cmd vo P = true -> consts_fit_cmd P.
Proof. intros H. apply consts_fitb_spec, (proj1 consts_cmd_okb), H. Qed.

Section with_shapes.
Hypothesis HS : vec_shapes vo.

Lemma exec_ev_ok fok f V V' :
  value V -> tm_ok_all (const_fits vo) fok V -> exec_ev vo f V = Some V' -> tm_ok_all (const_fits vo) fok V'.
Proof.
  intros _ _ Hev b. apply leaves_tm_ok; [eapply exec_ev_value; exact Hev|].
  eapply exec_ev_fits; eassumption.
Qed.

Lemma exec_cok_czero b : const_fits vo (czero b).
Proof. apply (czero_fits vo HS). Qed.

Lemma exec_cok_cadd c1 c2 :
  const_fits vo c1 -> const_fits vo c2 -> const_ty c1 = const_ty c2 -> const_fits vo (cadd c1 c2).
Proof. apply (cadd_fits vo HS). Qed.

Lemma exec_fok_mono b f : exec_fok (S b) f -> exec_fok b f.
Proof. unfold exec_fok. exact (fun H => H). Qed.

Lemma exec_fok_rd b f : exec_fok (S b) f -> exec_fok b (rd f).
Proof. unfold exec_fok. destruct f as [k p]. exact (fun H => H). Qed.

(** Every step keeps the constants at their declared lengths, those of the
    command and those of the heap. *)
Lemma exec_step_conf_consts_fit hp P hp' P' A :
  typed_cmd [] P A -> consts_fit_cmd P -> heap_fits hp -> step_conf hp P hp' P' ->
  consts_fit_cmd P' /\ heap_fits hp'.
Proof.
  apply step_conf_inv; try solve [intros; exact I].
  - exact exec_cok_czero.
  - exact exec_cok_cadd.
  - intros f V V'. apply exec_ev_ok.
Qed.

(** And the symbols' parameters: every step keeps [order_ok]. *)
Lemma exec_step_conf_order_ok hp P hp' P' A :
  typed_cmd [] P A -> order_ok P -> heap_fits hp -> step_conf hp P hp' P' ->
  order_ok P' /\ heap_fits hp'.
Proof.
  apply step_conf_inv.
  - exact exec_fok_mono.
  - exact exec_fok_rd.
  - exact exec_cok_czero.
  - exact exec_cok_cadd.
  - intros f V V'. apply exec_ev_ok.
Qed.

Lemma exec_steps_conf_order_ok hp P hp' P' A :
  heap_ok hp -> typed_cmd [] P A -> order_ok P -> heap_fits hp -> steps_conf hp P hp' P' ->
  order_ok P' /\ heap_fits hp'.
Proof.
  apply (@steps_conf_inv never_stuck_sorts never_stuck_signature (const_fits vo) exec_fok
           exec_fok_mono exec_fok_rd exec_cok_czero exec_cok_cadd never_stuck_evaluator
           (fun f V V' => exec_ev_ok exec_fok f V V') (exec_evaluator_ok vo decls locs)).
Qed.

(** No configuration with [order_ok] is stuck on [Ev], whatever the
    order of its symbols ([exec_ev_total_all]). *)
Lemma order_ok_not_stuck_ev P A f V : typed_cmd [] P A -> order_ok P -> ~ stuck_ev P f V.
Proof.
  intros HP Hok [K [F [M [-> [Ks [_ [-> [HV Hev]]]]]]]].
  apply cmd_ok_fill_t in Hok as [_ [_ HM]].
  destruct (tm_ok_fill_ectx _ _ _ _ _ HM) as [HApp _]. cbn [tm_ok] in HApp. destruct HApp as [Hok HVok].
  unfold fill_t in HP. apply fill_c_typed_inv in HP as [B [HB _]].
  destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HMC _]].
  destruct (fill_ectx_typed _ _ _ _ HMC) as [D [HAppT _]].
  inversion HAppT as [| |? f' V' HVT| | | | |]; subst.
  destruct f as [k p]. cbn in Hok.
  destruct (exec_ev_total_all vo HS decls locs k p V Hok HV HVT) as [V' HV'].
  { apply tm_ok_leaves in HVok. exact HVok. }
  change (exec_ev vo (k, p) V = None) in Hev. rewrite HV' in Hev. discriminate.
Qed.

(** ** Never stuck

    A closed program the checker accepts — typed at some [A], its
    function symbols with parameters that make sense and its constants at
    their declared lengths ([order_ok]; [rd] nested at any depth), with no
    operation that no handler covers
    ([unhandled P = []]) — started with a heap that respects the locations'
    shapes and lengths, only reaches configurations that are a value or
    step. *)
(** Informal proof: [effect_safety] says that every reachable
    configuration is typed, has no unhandled operation, and is a value,
    steps or is stuck on an undefined [Ev]; [exec_steps_conf_order_ok]
    keeps [order_ok] along the steps, and a configuration with it is not
    stuck on [Ev] ([order_ok_not_stuck_ev], by [exec_ev_total_all]). *)
Theorem never_stuck hp P A hp' P' :
  typed_cmd [] P A -> order_ok P -> unhandled P = [] -> heap_ok hp -> heap_fits hp ->
  steps_conf hp P hp' P' ->
  (exists V, P' = Ret V /\ value V) \/ (exists hp'' P'', step_conf hp' P' hp'' P'').
Proof.
  intros HP Hok Hno Hhp Hfit Hsteps.
  destruct (@effect_safety _ _ _ (exec_evaluator_ok vo decls locs) hp P A hp' P' Hhp HP Hno Hsteps)
    as [_ [HP' [_ [Hv|[Hs|[f [V Hst]]]]]]]; [left; exact Hv|right; exact Hs|].
  destruct (exec_steps_conf_order_ok _ _ _ _ _ Hhp HP Hok Hfit Hsteps) as [Hok' _].
  exfalso. exact (order_ok_not_stuck_ev _ _ _ _ HP' Hok' Hst).
Qed.

Theorem check_program_never_stuck hp P A hp' P' :
  check_program P = Ok A -> heap_ok hp -> heap_fits hp -> steps_conf hp P hp' P' ->
  (exists V, P' = Ret V /\ value V) \/ (exists hp'' P'', step_conf hp' P' hp'' P'').
Proof.
  intros Hc Hhp Hfit Hsteps. apply check_program_correct in Hc as [HP [_ [Hok Hno]]].
  eapply never_stuck; eassumption.
Qed.

(** [run], at every fuel, answers a value or "out of fuel"; from some fuel
    on, a value. *)
Theorem run_never_stuck hp P A :
  typed_cmd [] P A -> order_ok P -> unhandled P = [] -> heap_ok hp -> heap_fits hp ->
  runs_to_value run hp P.
Proof.
  intros HP Hok Hno Hhp Hfit.
  assert (Hall : value_or_out_of_fuel run hp P).
  { intros fuel. pose proof (run_sound fuel 0 hp P) as Hs.
    assert (Hw : match run fuel 0 hp P with RWrong _ _ _ => False | _ => True end)
      by exact (@run_not_wrong _ _ _ (exec_evaluator_ok vo decls locs) fuel 0 hp P A Hhp HP).
    destruct (run fuel 0 hp P) as [hp' V n|hp' P' f V n|hp' P' o V n|hp' P' n|hp' P' n];
      cbn in Hw; try exact I; try contradiction.
    - exact (proj2 Hs).
    - destruct Hs as [Hsteps Hst].
      destruct (exec_steps_conf_order_ok _ _ _ _ _ Hhp HP Hok Hfit Hsteps) as [Hok' _].
      destruct (@steps_conf_preservation _ _ _ (exec_evaluator_ok vo decls locs) _ _ _ _ _ Hhp HP Hsteps)
        as [_ HP'].
      exact (order_ok_not_stuck_ev _ _ _ _ HP' Hok' Hst).
    - destruct o as [u|l|l]; cbn in Hs; try contradiction. destruct Hs as [Hsteps Hst].
      apply stuck_op_eff, (steps_conf_eff _ _ _ _ Hsteps), unhandled_In in Hst.
      rewrite Hno in Hst. exact Hst. }
  split; [exact Hall|].
  assert (Htot : exists n m hp' P' r,
    nsteps_fuel m n hp P hp' P' /\ final_result hp' P' n r /\
    forall fuel, n + m < fuel -> run fuel 0 hp P = r)
    by exact (@run_total _ _ _ (exec_evaluator_ok vo decls locs) hp P A Hhp HP).
  destruct Htot as [n [m [hp' [P' [r [_ [Hr Hrun]]]]]]].
  exists (n + m). intros fuel Hfuel. specialize (Hall fuel). rewrite (Hrun fuel Hfuel) in Hall |- *.
  apply final_result_not_out_of_fuel in Hr.
  destruct r as [hp'' V n'| | |hp'' P'' n'|]; try contradiction; try (exfalso; exact (Hr I)).
  exists hp'', V, n'. auto.
Qed.

(** The environment machine the drivers run: the same answers. *)
Theorem run_machine_never_stuck hp P A :
  typed_cmd [] P A -> order_ok P -> unhandled P = [] -> heap_ok hp -> heap_fits hp ->
  runs_to_value run_machine hp P.
Proof.
  intros HP Hok Hno Hhp Hfit.
  apply (runs_to_value_ext run); [intros fuel; apply run_machine_correct|].
  exact (run_never_stuck hp P A HP Hok Hno Hhp Hfit).
Qed.

(** The total evaluator answers, and its answer is a value with a heap. *)
Theorem run_total_fn_never_stuck small hp P A :
  check_cmd [] P = Ok A -> order_ok P -> unhandled P = [] -> heap_ok hp -> heap_fits hp ->
  exists F hp' V n, run_total_fn vo decls locs small hp P = Some (F, RDone hp' V n) /\ value V.
Proof.
  intros Hc Hok Hno Hhp Hfit.
  destruct (run_total_fn_some vo decls locs small hp P A Hc Hhp) as [F [r Ht]].
  pose proof (proj1 (check_cmd_correct _ _ _) Hc) as HP.
  assert (Hr : run F 0 hp P = r) by exact (proj2 (run_total_fn_correct vo decls locs small hp P F r Ht F (le_n F))).
  destruct (run_never_stuck hp P A HP Hok Hno Hhp Hfit) as [Hall _].
  specialize (Hall F). rewrite Hr in Hall.
  pose proof (run_total_fn_not_out_of_fuel vo decls locs small hp P F r Ht) as Hnf.
  destruct r as [hp' V n| | |hp' P' n|]; try contradiction; try (exfalso; exact (Hnf I)).
  exists F, hp', V, n. auto.
Qed.

End with_shapes.
End exec.

(** ** Programs read from text

    The reader ([read_program], frontend.v) keeps the constants' lengths
    ([read_program_consts]) and the data the program gives its locations
    at their lengths ([read_program_given_fits]), so the initial heap has
    its constants at their declared lengths ([init_heap_fits]).  A program
    read from text that the checker accepts, run by the total evaluator
    from its initial heap, answers a value and a heap. *)
(** [ok_inv] of frontend.v: invert a chain of [do] that answered [Ok]
    ([spec_inv] of reader_spec.v). *)
Ltac read_inv := spec_inv.

Section read.
Context {Vec : Type} (vo : vec_ops Vec) (io : reader_io Vec).
#[local] Instance read_sorts : sorts := exec_sorts Vec.
Hypothesis HS : vec_shapes vo.

Lemma entry_of_fits lnames dims unknown what s i v :
  entry_of vo io lnames dims unknown what s = Ok (i, v) -> v_len vo v = nth i dims 0.
Proof.
  unfold entry_of. intros H. read_inv; try discriminate.
  match goal with E : (_ =? _) = true |- _ => apply Nat.eqb_eq in E; exact E end.
Qed.

Lemma read_program_given_fits s p :
  read_program vo io s = Ok p ->
  Forall (fun e => v_len vo (snd e) = nth (fst e) (p_dims p) 0) (p_given p).
Proof.
  unfold read_program, read_fields. intros H.
  destruct s as [|[|[k|] fields]]; try discriminate.
  destruct (String.eqb k "program"%string); [|discriminate].
  read_inv; try discriminate.
  all: cbn; match goal with E : mapM (entry_of _ _ _ _ _ _) _ = Ok _ |- _ =>
         eapply (mapM_Forall _ _ _ _ E); intros x [i v] Hx; exact (entry_of_fits _ _ _ _ _ _ _ Hx) end.
Qed.

Lemma given_at_In (given : list (nat * Vec)) i v : given_at given i = Some v -> In (i, v) given.
Proof.
  induction given as [|[j w] given IH]; cbn; [discriminate|].
  destruct (Nat.eqb_spec j i) as [->|]; [intros [=->]; left; reflexivity|intros; right; auto].
Qed.

Lemma heap_from_fits given dims ds i :
  Forall (fun e => v_len vo (snd e) = nth (fst e) dims 0) given ->
  (forall k, nth (i + k) dims 0 = nth k ds 0) ->
  heap_fits vo (heap_from vo given i ds).
Proof.
  intros Hg. revert i. induction ds as [|d ds IH]; intros i Hds; cbn; constructor.
  - cbn. unfold const_fits. cbn.
    destruct (given_at given i) as [v|] eqn:Hv.
    + apply given_at_In in Hv. rewrite Forall_forall in Hg. pose proof (Hg _ Hv) as Hlen. cbn in Hlen.
      specialize (Hds 0). rewrite Nat.add_0_r in Hds. cbn in Hds. rewrite Hlen. exact Hds.
    + apply (vs_zero _ HS).
  - apply IH. intros k. specialize (Hds (S k)). rewrite Nat.add_succ_r in Hds. exact Hds.
Qed.

Lemma init_heap_fits s p : read_program vo io s = Ok p -> heap_fits vo (init_heap vo p).
Proof.
  intros Hr. apply (heap_from_fits (p_given p) (p_dims p)); [exact (read_program_given_fits s p Hr)|].
  intros k. reflexivity.
Qed.

(** A program read from text that [check_program] accepts: the total
    evaluator, from the program's initial heap, answers a value and a
    heap. *)
Theorem read_program_never_stuck s p A small :
  read_program vo io s = Ok p ->
  check_program vo (p_decls p) (p_dims p) (p_main p) = Ok A ->
  exists F hp' V n,
    run_total_fn vo (p_decls p) (p_dims p) small (init_heap vo p) (p_main p) = Some (F, RDone hp' V n) /\
    value V.
Proof.
  intros Hr Hc. apply check_program_correct in Hc as [HP [_ [Hok Hno]]].
  apply (run_total_fn_never_stuck vo (p_decls p) (p_dims p) HS small (init_heap vo p) (p_main p) A);
    [apply check_cmd_correct, HP|exact Hok|exact Hno|apply init_heap_ok|exact (init_heap_fits s p Hr)].
Qed.
End read.

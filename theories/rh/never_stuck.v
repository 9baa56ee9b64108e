(** * A closed program the checker accepts never gets stuck

    [progress] (progress.v) leaves two stuck forms: an operation no handler
    covers, and [f(V)] with [Ev(f, V)] undefined.  [effects.v] excludes the
    first for a program whose [unhandled] set is empty.  This file excludes
    the second for the executable instance, where [Ev(rd^k[p], V)] is
    defined exactly when [p]'s parameters make sense, [k ≤ 2] and the leaves
    of [V] have the dimensions of [rd^k[p]]'s domain ([exec_ev_total],
    ev_total.v).  Two invariants of a run give those premises:

    - Constants keep their declared lengths.  A run makes constants with
      [czero], [cadd], [Ev] and the heap; with [vec_shapes] (shapes.v)
      each of them does.
    - Every function symbol a run applies has [k ≤ 2].  The run creates
      [rd^{k+1}[p]] from [rd^k[p]] when it rewrites an [rd] term (R-Fun) and
      when [RH] puts a term of a [rev handle]'s body under an [rd] (RH-4).
      So the order a symbol can reach is its own plus the number of [rd]
      bodies and [rev handle] bodies around it: [tm_ok b M] says that every
      symbol [f] of [M] may still be differentiated as many times as there
      are [rd] bodies around it in [M], plus [b] ([fok b f]).  A program
      with [cmd_ok 0 P] (decided before the run: [cmd_okb]) keeps it along
      the run.

    Both are proved once, for any signature, with the properties of the
    constants and symbols they need as hypotheses ([step_conf_inv]), then
    for the executable instance, where [fok b (k, p)] is
    [k + b ≤ 2 ∧ prim_ok p] and the constants' property is [const_fits].

    Headline: [never_stuck] (every reachable configuration of a closed,
    checked program is a value or steps), [run_never_stuck],
    [run_machine_never_stuck] and [run_total_fn_never_stuck]. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd cmd_ctx rh term_sem cmd_sem interp interp_facts progress machine normalization
  instance total effects ev_total shapes.

(** ** The invariant, for any signature *)
Section invariant.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (M N L V W : tm) (P Q R : cmd) (K : list cmd) (H : handler) (A B : ty).

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
  | Tuple Ms => (fix go (l : list tm) : Prop :=
                   match l with [] => True | M' :: l' => tm_ok b M' /\ go l' end) Ms
  | Proj _ M => tm_ok b M
  | Rd M N L => tm_ok b M /\ tm_ok (S b) N /\ tm_ok b L
  end.

Lemma tm_ok_tuple b Ms : tm_ok b (Tuple Ms) <-> Forall (tm_ok b) Ms.
Proof.
  cbn. induction Ms as [|M Ms IH]; [split; auto|].
  rewrite IH. split; [intros [? ?]; constructor; auto|intros HF; inversion HF; auto].
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

(** * Every step of the command semantics keeps the meaning of [cmd_den.v]

    - [cden_ren], [cden_subst]: renaming and substitution lemmas;
      [cden_typed_env]: a well-typed command reads only the variables of
      its context.
    - [cden_fill_c]: the meaning of [F^c[P]] is [P]'s followed by the
      frames' ([kden]).
    - [step_cmd_term_den], [let_val_den], [step_get_den], [step_put_den]:
      the steps other than [rev handle] keep the meaning of a closed
      program ([prog_den]), for commands whose terms are in the fragment
      where the term steps are sound ([okc]: every term [okp],
      [rdsound_eval.v]).
    - [rh_den]: the [RH] rewriting computes the meaning of [rev handle]
      for bodies of the fragment [chaing]: chains of operations whose
      arguments, results and [let]-bound pure computations are terms of
      the fragment of the term-level soundness ([okg 2]), and whose
      nested [rev handle]s have bodies of the same kind one level down
      ([chain1]: terms [okg 1], no further nesting) and clauses in
      [chaing] (the rewriting uses RH-1a, RH-1b, RH-2, RH-3, and RH-4 in
      every evaluation position); [step_conf_den]: every step of a
      program of that fragment ([okr]) keeps its meaning.  The proof of
      RH-4 is the chain rule for the pass: [tsmooth] (a smooth map of
      trees), [rd_den_comp] (the chain rule for [rd_den]), [rd_den_radd],
      [csmooth] (a chain whose pure maps are smooth), [revh_comp] (the
      pass over [G ∘ φ] is the pass over [G] pulled back through [φ]),
      [tsmooth_den] (terms of the fragment are smooth).  RH-3 rewrites
      the inner [rev handle] first; its rewriting is again a [chaing]
      ([rh_chaing]).  Not covered: a nested body whose terms are
      [okg 2] but not [okg 1] (they apply some [rd[p]]; the inner
      rewriting's [rd] terms would then have bodies outside [okg 1], so
      the outer rewriting would leave the fragment of the term-level
      soundness) or a [rev handle] nested twice ([docs/decisions.md], "What a rev handle
      means over ℝ"). *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coq Require Import Relation_Operators.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem cmd_ctx cmd_sem rh instance.
From RevHandlers.Analysis Require Import vec templates sums prims denot rdden rdprim rdcalc rdsound rdsound_all rdsound_eval cmd_den.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

(** Induction on the rewriting [rh], one case per rule of Fig. 5. *)
Ltac induction_rh :=
  induction 1 as [H Bs Vs k Vk Hk
                 |H Bs Vs K z Q R' Hrec IH
                 |H Bs Vs K o k Vk D Qf Qb Rrec Hk Hcl Hrec IH
                 |H Bs Vs K z As1 R1 H1 R1' R' Hz Hrec1 IH1 Hrec2 IH2
                 |H Bs Vs K F M B' Rrec Hnv Hinf Hrec IH].

(** Two of the substitutions of [RH]'s outputs (with [okg0_subst_nth]
    below): one variable for another (RH-1b) and the arguments renamed
    under the new binder; before the section, for the tactics after them. *)
Lemma list_subst_var z x : exists y, list_subst [Var z] x = Var y.
Proof. destruct x as [|x]; unfold list_subst; simpl; [eauto|]. destruct x; simpl; eexists; reflexivity. Qed.

Lemma okg_map_ren b ξ Vs : Forall (okg 0) Vs -> Forall (okg b) (map (ren_tm ξ) Vs).
Proof.
  intros HVs. apply Forall_map. eapply Forall_impl; [|exact HVs].
  intros V HV. apply (okg_mono _ 0 b); [lia|]. apply okg_ren. exact HV.
Qed.

(** Two cases of the inductions on [rh] that carry a predicate [ok] of
    the body ([rh_chaing] with [chain1], [cmd_adequacy.v]'s [rh_okr] with
    [chaing]), given [ok]'s lemmas on [F^c] ([ok_fill_c]), substitution
    ([ok_subst]) and the shifted frames ([ok_shift]) and the hypothesis
    [Hc] that the body is [ok] ([z], [IH] and [HVs] are the names
    [induction_rh] and the lemmas give):
    - [rh_let_var_case]: RH-1b, [F^c[let x ⇐ ⌊z⌋ in Q]] is [ok], so is
      [F^c[Q[z/x]]], to which the induction hypothesis applies;
    - [rh_op_ih]: RH-2's recursive call, whose values are the renamed
      [V⃗] and a variable and whose body is [F^c] shifted under [⌊x⌋]. *)
Ltac rh_let_var_case z IH Hc ok_fill_c ok_subst :=
  let Hσ := fresh "Hσ" in
  pose proof (list_subst_var z) as Hσ;
  apply IH; auto;
  apply ok_fill_c in Hc; destruct Hc as [_ HcK];
  inversion HcK as [|? ? HcQ HcK']; subst;
  apply ok_fill_c; split; [|exact HcK'];
  apply ok_subst; [|exact HcQ]; intros x; destruct (Hσ x) as [y ->]; exact I.

Ltac rh_op_ih IH HVs Hc ok_fill_c ok_shift :=
  apply IH; auto;
  [ constructor; [exact I|]; apply okg_map_ren; exact HVs
  | apply ok_fill_c in Hc; destruct Hc as [_ HcK];
    apply ok_fill_c; split; [exact I|apply ok_shift; exact HcK] ].

Section sound.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σs : signature := exec_signature Rvo decls locs.
#[local] Instance Es : evaluator := exec_evaluator Rvo.
#[local] Instance Esok : evaluator_ok := exec_evaluator_ok Rvo decls locs.

Notation cden := (cden decls locs).
Notation hden := (hden decls locs).
Notation hrun := (hrun decls locs).
Notation prog_den := (prog_den decls locs).

(** ** Renaming and substitution *)
Lemma cden_ren P : forall ξ ρ, cden ρ (ren_cmd ξ P) = cden (fun x => ρ (ξ x)) P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ ρ; cbn [ren_cmd]; cden_simpl.
  - rewrite den_ren. reflexivity.
  - rewrite den_ren. reflexivity.
  - rewrite IHP. f_equal. apply functional_extensionality. intros v. rewrite IHQ.
    f_equal. apply functional_extensionality. intros [|x]; reflexivity.
  - rewrite den_ren. reflexivity.
Qed.

Lemma cden_subst P : forall σ ρ, cden ρ (subst_cmd σ P) = cden (fun x => den ρ (σ x)) P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ ρ; cbn [subst_cmd]; cden_simpl.
  - rewrite den_subst. reflexivity.
  - rewrite den_subst. reflexivity.
  - rewrite IHP. f_equal. apply functional_extensionality. intros v. rewrite IHQ.
    f_equal. apply functional_extensionality. intros [|x]; [reflexivity|].
    simpl. unfold shift. rewrite den_ren. apply den_ext. intros y. reflexivity.
  - rewrite den_subst. reflexivity.
Qed.

(** [P[M/x]] means [P] with [x] bound to [⟦M⟧]. *)
Lemma cden_subst1 ρ M Q : cden ρ (subst_cmd (list_subst [M]) Q) = cden (scons (den ρ M) ρ) Q.
Proof.
  rewrite cden_subst. f_equal. apply functional_extensionality. intros [|x]; [reflexivity|].
  unfold list_subst. simpl. destruct x; simpl; rewrite ?Nat.sub_0_r; reflexivity.
Qed.

(** A well-typed term or command reads only the variables of its context. *)
Lemma den_typed_env Γ M A : typed_tm Γ M A ->
  forall ρ ρ', (forall x, x < length Γ -> ρ x = ρ' x)%nat -> den ρ M = den ρ' M.
Proof.
  intros HM; elim HM using typed_tm_ind'; clear Γ M A HM; intros; simpl.
  - apply H0. apply nth_error_Some. congruence.
  - reflexivity.
  - rewrite (H0 ρ ρ') by auto. reflexivity.
  - rewrite (H0 ρ ρ'), (H2 ρ ρ') by auto. reflexivity.
  - f_equal. clear H. induction H0 as [|M A Ms As HMA HF IHl]; simpl; [reflexivity|].
    rewrite (HMA ρ ρ') by auto. rewrite IHl. reflexivity.
  - rewrite (H0 ρ ρ') by auto. reflexivity.
  - rewrite (H0 ρ ρ') by auto. apply H2. intros [|x] Hx; simpl in *; auto with arith.
  - rewrite (H0 ρ ρ'), (H4 ρ ρ') by auto. apply rd_den_ext. intros a.
    apply H2. intros [|x] Hx; simpl in *; auto with arith.
Qed.

Lemma cden_typed_env Δ P A : typed_cmd Δ P A ->
  forall ρ ρ', (forall x, x < length Δ -> ρ x = ρ' x)%nat -> cden ρ P = cden ρ' P.
Proof.
  induction 1 as [Δ M A HM|Δ o M HM|Δ P Q A B HP IHP HQ IHQ|Δ M R H As C HM HR HH];
    intros ρ ρ' Hρ; cden_simpl.
  - rewrite (den_typed_env _ _ _ HM ρ ρ' Hρ). reflexivity.
  - rewrite (den_typed_env _ _ _ HM ρ ρ' Hρ). reflexivity.
  - rewrite (IHP ρ ρ' Hρ). f_equal. apply functional_extensionality. intros v.
    apply IHQ. intros [|x] Hx; simpl in *; auto with arith.
  - rewrite (den_typed_env _ _ _ HM ρ ρ' Hρ). reflexivity.
Qed.

(** ** Contexts *)
(** The meaning of the frames [K] of [F^c], in [ρ], at the value [v]
    plugged in. *)
Fixpoint kden (ρ : nat -> rv) (K : list cmd) (v : rv) : comp :=
  match K with
  | [] => CRet v
  | Q :: K' => bind (cden (scons v ρ) Q) (kden ρ K')
  end.

Lemma cden_fill_c ρ K : forall P, cden ρ (fill_c K P) = bind (cden ρ P) (kden ρ K).
Proof.
  induction K as [|Q K IH]; intros P; simpl.
  - symmetry. apply bind_ret.
  - rewrite IH. cbn [cden]. rewrite bind_assoc. reflexivity.
Qed.

Lemma kden_shift ρ t K v : kden (scons t ρ) (shift_frames K) v = kden ρ K v.
Proof.
  revert v. induction K as [|Q K IH]; intros v; simpl; [reflexivity|].
  rewrite cden_ren. f_equal; [|apply functional_extensionality; exact IH].
  f_equal. apply functional_extensionality. intros [|x]; reflexivity.
Qed.

(** The command [F^c[⌊y⌋]] with [y] the new variable: the frames at [y]. *)
Lemma cden_fill_shift ρ t K :
  cden (scons t ρ) (fill_c (shift_frames K) (Ret (Var 0))) = kden ρ K t.
Proof. rewrite cden_fill_c. simpl. apply kden_shift. Qed.

Lemma hrun_fill_c ρ K P P' hp hp' :
  hrun hp (cden ρ P) = hrun hp' (cden ρ P') ->
  hrun hp (cden ρ (fill_c K P)) = hrun hp' (cden ρ (fill_c K P')).
Proof. intros H. rewrite !cden_fill_c, !hrun_bind, H. reflexivity. Qed.

(** ** The fragment: every term of the command is [okp] *)
Fixpoint okc (P : cmd) : Prop :=
  match P with
  | Ret M | Op _ M => okp M
  | CLet P Q => okc P /\ okc Q
  | RevHandle M R H => okp M /\ okc R /\ okh H
  end
with okh (H : handler) : Prop :=
  match H with Handler P cls => okc P /\ okcls cls end
with okcls (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => okc Qf /\ okc Qb /\ okcls rest
  end.

(** A predicate of commands that splits on [let] splits on [F^c]. *)
Lemma fill_c_all (ok : cmd -> Prop) : (forall P Q, ok (CLet P Q) <-> ok P /\ ok Q) ->
  forall K P, ok (fill_c K P) <-> ok P /\ Forall ok K.
Proof.
  intros Hlet K. induction K as [|Q K IH]; intros P; simpl.
  - split; [intros; split; auto|tauto].
  - rewrite IH, Hlet. split; [intros [[? ?] ?]; split; auto|intros [? HF]; inversion HF; subst; tauto].
Qed.

Lemma okc_fill_c K : forall P, okc (fill_c K P) <-> okc P /\ Forall okc K.
Proof. apply fill_c_all. intros; reflexivity. Qed.

(** ** The steps other than [rev handle] *)
Lemma step_cmd_term_den ρ K F M M' A :
  typed_cmd [] (fill_t K F M) A -> okc (fill_t K F M) -> step_tm M M' ->
  cden ρ (fill_t K F M) = cden ρ (fill_t K F M').
Proof.
  intros HT Ho Hs. unfold fill_t in *. rewrite !cden_fill_c. f_equal.
  apply fill_c_typed_inv in HT. destruct HT as [B [HB _]].
  destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HM _]].
  apply okc_fill_c in Ho. destruct Ho as [Ho _].
  assert (Hp : okp M) by (destruct F; simpl in Ho; tauto).
  assert (E : den ρ M = den ρ M').
  { apply (steps_den_all decls locs ρ M M' C HM Hp). econstructor; [exact Hs|constructor]. }
  destruct F; cbn [plug_t]; cden_simpl; rewrite E; reflexivity.
Qed.

Lemma let_val_den ρ M Q : cden ρ (CLet (Ret M) Q) = cden ρ (subst_cmd (list_subst [M]) Q).
Proof. rewrite cden_subst1. reflexivity. Qed.

(** A heap whose constants have the lengths of their locations. *)
Definition heap_fits (hp : heap) : Prop :=
  Forall (fun lc => fst (snd lc) = loc_base (fst lc) /\ length (snd (snd lc)) = loc_base (fst lc)) hp.

Lemma heap_lookup_fits hp l : heap_fits hp -> length (snd (heap_lookup hp l)) = loc_base l.
Proof.
  induction 1 as [|[l' c] hp' [Hc1 Hc2] Hhp IH]; simpl.
  - cbn. unfold vczero. apply repeat_length.
  - destruct (Nat.eq_dec l l') as [->|]; auto.
Qed.

Lemma heap_update_fits hp l c :
  heap_fits hp -> fst c = loc_base l -> length (snd c) = loc_base l -> heap_fits (heap_update hp l c).
Proof.
  intros Hhp H1 H2. constructor; [auto|].
  apply Forall_forall. intros lc Hin. apply filter_In in Hin as [Hin _].
  unfold heap_fits in Hhp. rewrite Forall_forall in Hhp. auto.
Qed.

Lemma step_get_den hp K l V :
  heap_fits hp ->
  hrun hp (cden rho0 (fill_c K (Op (OpGet l) V))) =
  hrun hp (cden rho0 (fill_c K (Ret (Const (heap_lookup hp l))))).
Proof.
  intros Hhp. apply hrun_fill_c. simpl. rewrite coerce_fits; [reflexivity|].
  constructor. apply heap_lookup_fits. exact Hhp.
Qed.

Lemma step_put_den hp K l c A :
  typed_cmd [] (fill_c K (Op (OpPut l) (Const c))) A ->
  hrun hp (cden rho0 (fill_c K (Op (OpPut l) (Const c)))) =
  hrun (heap_update hp l c) (cden rho0 (fill_c K (Ret (Const (czero unit_base))))).
Proof.
  intros HT. apply hrun_fill_c. simpl.
  apply fill_c_typed_inv in HT. destruct HT as [B [HB _]].
  inversion HB as [|? ? ? HM| |]; subst. inversion HM; subst.
  rewrite coerce_fits by (constructor; reflexivity).
  destruct c as [n v]. simpl in *. subst n. reflexivity.
Qed.

(** ** Shapes *)
Fixpoint tyof (t : rv) : ty :=
  match t with RLeaf v => TBase (length v) | RNode ts => TProd (map tyof ts) end.

Lemma fits_tyof : forall t, fits (tyof t) t.
Proof.
  fix IH 1. intros [v|ts]; simpl; constructor; [reflexivity|].
  revert ts. fix go 1. intros [|t ts]; simpl; constructor; [apply IH|apply go].
Qed.

Lemma fits_tyof_eq A : forall t, fits A t -> tyof t = A.
Proof.
  induction A as [n|As IH] using ty_ind'; intros t Ht.
  - inversion Ht; subst. reflexivity.
  - inversion Ht as [|? ts HF]; subst. simpl. f_equal. clear Ht. revert ts HF. induction IH as [|A As HA HAs IHl]; intros ts HF; inversion HF; subst; simpl;
      [reflexivity|]. f_equal; auto.
Qed.

Definition is_node (t : rv) : Prop := match t with RNode _ => True | RLeaf _ => False end.

Lemma tyof_rcons_node b ts As : tyof (RNode ts) = TProd As -> tyof (rcons b (RNode ts)) = TProd (tyof b :: As).
Proof. simpl. intros [= <-]. reflexivity. Qed.

Lemma fits_rtail b v p : is_node v -> fits (tyof (rcons b v)) p -> fits (tyof v) (rtail p).
Proof.
  destruct v as [|vs]; [contradiction|]. intros _ Hp. simpl in Hp.
  inversion Hp as [|? ps HF]; subst. inversion HF; subst. simpl. constructor. assumption.
Qed.

Lemma rd_den_fits w l F : fits (tyof l) (rd_den w l F).
Proof.
  unfold rd_den. apply reshape_keeps; [apply fits_tyof|].
  rewrite length_tab. apply (fits_len _ _ (fits_tyof l)).
Qed.

Lemma rd_den_len w l F : length (rflat (rd_den w l F)) = length (rflat l).
Proof.
  rewrite (fits_len _ _ (rd_den_fits w l F)). symmetry. apply fits_len, fits_tyof.
Qed.

(** [rd_den] reads its body at trees of the shape of the point only. *)
Lemma rd_den_ext_fits w l F G : (forall x, fits (tyof l) x -> F x = G x) -> rd_den w l F = rd_den w l G.
Proof.
  intros H. unfold rd_den. f_equal. apply tab_ext. intros j Hj. apply Derive_ext. intros t.
  rewrite H; [reflexivity|]. apply reshape_keeps; [apply fits_tyof|].
  rewrite length_vp, length_vs, length_unitv, (fits_len _ _ (fits_tyof l)). lia.
Qed.

(** ** Computations whose every result satisfies [Q] *)
Fixpoint comp_all (Q : rv -> Prop) (t : comp) : Prop :=
  match t with
  | CRet v => Q v
  | CCall _ _ k => forall y, comp_all Q (k y)
  end.

Lemma comp_all_bind (Q1 Q2 : rv -> Prop) t f :
  comp_all Q1 t -> (forall v, Q1 v -> comp_all Q2 (f v)) -> comp_all Q2 (bind t f).
Proof. induction t as [v|o a k IH]; simpl; auto. Qed.

Lemma bind_ext_all (Q : rv -> Prop) t f g :
  comp_all Q t -> (forall v, Q v -> f v = g v) -> bind t f = bind t g.
Proof.
  induction t as [v|o a k IH]; simpl; auto. intros Hk H. f_equal.
  apply functional_extensionality. intros y. auto.
Qed.

Lemma comp_all_true t : comp_all (fun _ => True) t.
Proof. induction t; simpl; auto. Qed.

(** ** The pass depends on the body at trees of the shape of the point *)
Lemma revh_ext h t : forall F G v, is_node v -> (forall x, fits (tyof v) x -> F x = G x) ->
  revh_aux h t F v = revh_aux h t G v.
Proof.
  induction t as [c|o a k IH]; intros F G v Hv HFG; simpl.
  - f_equal. apply functional_extensionality. intros cb. f_equal.
    apply rd_den_ext_fits. intros x Hx. rewrite HFG by exact Hx. reflexivity.
  - f_equal. apply functional_extensionality. intros bd.
    rewrite (IH (rnth 0 bd) (ext F) (ext G)).
    + f_equal. apply functional_extensionality. intros q. f_equal. apply functional_extensionality. intros ab.
      f_equal. f_equal. apply rd_den_ext_fits. intros x Hx. rewrite HFG by exact Hx. reflexivity.
    + destruct v; [contradiction|exact I].
    + intros p Hp. unfold ext. rewrite HFG; [reflexivity|]. eapply fits_rtail; eauto.
Qed.

(** Every result of the pass has the shape of the point. *)
Lemma revh_fits h t : forall F v, is_node v -> comp_all (fits (tyof v)) (revh_aux h t F v).
Proof.
  induction t as [c|o a k IH]; intros F v Hv; simpl.
  - eapply comp_all_bind; [apply comp_all_true|]. intros cb _. simpl. apply rd_den_fits.
  - eapply comp_all_bind; [apply comp_all_true|]. intros bd _.
    eapply comp_all_bind; [apply IH; destruct v; [contradiction|exact I]|]. intros q Hq.
    eapply comp_all_bind; [apply comp_all_true|]. intros ab _. simpl.
    assert (Ht : fits (tyof v) (rtail q)).
    { destruct v as [|vs]; [contradiction|]. simpl in Hq. inversion Hq as [|? qs HF]; subst.
      inversion HF; subst. simpl. constructor. assumption. }
    unfold radd. apply reshape_keeps; [exact Ht|].
    rewrite length_vp, rd_den_len, (fits_len _ _ Ht), (fits_len _ _ (fits_tyof v)). lia.
Qed.

(** ** The meaning of a well-typed command has the shape of its type *)
Lemma den_fits_p Γ M A : typed_tm Γ M A -> okp M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM; elim HM using typed_tm_ind'; clear Γ M A HM.
  - intros Γ x A Hx _ ρ Hρ. simpl. auto.
  - intros Γ c Ho ρ Hρ. simpl in *. constructor. auto.
  - intros Γ f M HM IH [Hf HoM] ρ Hρ. rewrite den_App. apply Hf. eapply IH; eauto.
  - intros Γ M1 M2 b H1 IH1 H2 IH2 [Ho1 Ho2] ρ Hρ. simpl.
    specialize (IH1 Ho1 ρ Hρ). specialize (IH2 Ho2 ρ Hρ).
    inversion IH1 as [? u Hu E1|]. inversion IH2 as [? v Hv E2|]. simpl.
    destruct (fits_vadd b u v) as [F _]; [constructor; auto|constructor; auto|]. exact F.
  - intros Γ Ms As HF IH Ho ρ Hρ. apply okp_tuple in Ho. simpl. constructor.
    clear HF. induction IH as [|M A Ms As HMA HF IHl]; simpl; constructor; inversion Ho; subst; eauto.
  - intros Γ M As i A HM IH Hi Ho ρ Hρ. simpl. specialize (IH Ho ρ Hρ).
    inversion IH as [|? ts HF E]. simpl. eapply block_nth; eauto.
  - intros Γ M N A B HM IHM HN IHN [HoM HoN] ρ Hρ. simpl.
    eapply IHN; eauto. apply env_fits_cons; eauto.
  - intros Γ M N L A B HM _ HN _ HL IHL [_ [_ HoL]] ρ Hρ. simpl. unfold rd_den.
    assert (Hl : fits A (den ρ L)) by (eapply IHL; eauto).
    apply reshape_keeps; auto. rewrite length_tab. apply fits_len. auto.
Qed.

Lemma coerce_fits_always B y : fits B (coerce decls locs B y).
Proof.
  unfold coerce. destruct (fitsb B y) eqn:E; [apply fitsb_spec; exact E|].
  apply den_zero.
Qed.

Lemma cden_fits Δ P A : typed_cmd Δ P A -> okc P ->
  forall ρ, env_fits Δ ρ -> comp_all (fits A) (cden ρ P).
Proof.
  induction 1 as [Δ M A HM|Δ o M HM|Δ P Q A B HP IHP HQ IHQ|Δ M R H As C HM HR HH];
    intros Ho ρ Hρ; cden_simpl; simpl in Ho.
  - simpl. eapply den_fits_p; eauto.
  - simpl. intros y. apply coerce_fits_always.
  - destruct Ho as [HoP HoQ]. eapply comp_all_bind; [apply IHP; eauto|].
    intros v Hv. apply IHQ; auto. apply env_fits_cons; auto.
  - destruct Ho as [HoM _]. pose proof (den_fits_p _ _ _ HM HoM ρ Hρ) as Hv.
    rewrite <- (fits_tyof_eq _ _ Hv). unfold revh. apply revh_fits.
    inversion Hv; subst. exact I.
Qed.

(** ** The reverse derivative of a projection, and adding a one-hot cotangent *)
Lemma rd_den_proj Bs k Bk v w : fits (TProd Bs) v -> nth_error Bs k = Some Bk -> fits Bk w ->
  rflat (rd_den w v (rnth k)) = zeros (off Bs k) ++ rflat w ++ zeros (dsum (map dim Bs) - off Bs k - dim Bk).
Proof.
  intros Hv Hk Hw.
  assert (Hn : length (rflat v) = dsum (map dim Bs)) by (rewrite (fits_len _ _ Hv), dim_prod; reflexivity).
  apply (rd_den_correct w v (rnth k) (dim Bk)
    (fun y => zeros (off Bs k) ++ y ++ zeros (dsum (map dim Bs) - off Bs k - dim Bk)));
    [|apply fits_len; exact Hw].
  cbv zeta. rewrite Hn. eapply is_rev_deriv_ext; [| |apply (rd_proj _ (off Bs k) (dim Bk) (rflat v))].
  - intros y Hy. rewrite <- Hn in Hy.
    assert (Hy' : length y = dim (TProd Bs)) by (rewrite Hy; apply fits_len; exact Hv).
    destruct (reshape_node Bs v y Hv Hy') as [ts [E [HF Hc]]]. rewrite E. simpl.
    rewrite <- Hc at 1. symmetry. apply block_nth; auto.
  - intros y _. reflexivity.
  - apply off_le. exact Hk.
  - exact Hn.
Qed.

Lemma map_nth_seq0 (l : list rv) : map (fun i => nth i l (RNode [])) (seq 0 (length l)) = l.
Proof.
  induction l as [|a l IH]; [reflexivity|]. simpl. f_equal.
  rewrite <- seq_shift, map_map. exact IH.
Qed.

Lemma nth_firstn' (l : list rv) : forall i k d, (i < k)%nat -> nth i (firstn k l) d = nth i l d.
Proof. induction l as [|a l IH]; intros [|i] [|k] d H; simpl; auto; try lia. apply IH. lia. Qed.

Lemma nth_skipn' (l : list rv) : forall i k d, nth i (skipn k l) d = nth (k + i) l d.
Proof. induction l as [|a l IH]; intros i [|k] d; simpl; auto. destruct i; reflexivity. Qed.

(** The tuple with its component [k] changed to [x]. *)
Lemma map_update_seq (l : list rv) k x : (k < length l)%nat ->
  map (fun i => if Nat.eqb i k then x else nth i l (RNode [])) (seq 0 (length l)) =
  firstn k l ++ x :: skipn (S k) l.
Proof.
  intros Hk. apply nth_ext with (d := RNode []) (d' := RNode []).
  - rewrite map_length, seq_length, app_length, firstn_length. cbn [length]. rewrite skipn_length. lia.
  - intros i Hi. rewrite map_length, seq_length in Hi.
    set (f := fun i => if Nat.eqb i k then x else nth i l (RNode [])).
    rewrite (nth_indep (map f (seq 0 (length l))) (RNode []) (f 0%nat)) by (rewrite map_length, seq_length; lia).
    rewrite map_nth, seq_nth by lia. unfold f. rewrite Nat.add_0_l.
    destruct (Nat.ltb_spec i k) as [Hlt|Hge].
    + rewrite app_nth1 by (rewrite firstn_length; lia). rewrite nth_firstn' by lia.
      destruct (Nat.eqb_spec i k); [lia|reflexivity].
    + rewrite app_nth2 by (rewrite firstn_length; lia). rewrite firstn_length, Nat.min_l by lia.
      destruct (Nat.eqb_spec i k) as [->|Hne].
      * rewrite Nat.sub_diag. reflexivity.
      * replace (i - k)%nat with (S (i - S k)) by lia. cbn [nth]. rewrite nth_skipn'. f_equal. lia.
Qed.

Lemma radd_onehot Bs qs k Bk ab X :
  Forall2 fits Bs qs -> nth_error Bs k = Some Bk -> fits Bk ab ->
  rflat X = zeros (off Bs k) ++ rflat ab ++ zeros (dsum (map dim Bs) - off Bs k - dim Bk) ->
  radd (RNode qs) X = RNode (firstn k qs ++ radd (nth k qs (RNode [])) ab :: skipn (S k) qs).
Proof.
  intros HF Hk Hab HX.
  destruct (nth_error_split _ _ Hk) as [Bs1 [Bs2 [EB HB1]]]. subst Bs.
  apply Forall2_app_inv_l in HF. destruct HF as [qs1 [qs' [HF1 [HF' Eq]]]]. subst qs.
  inversion HF' as [|? qk ? qs2 Hqk HF2]; subst.
  assert (Hl1 : length qs1 = length Bs1) by (symmetry; eapply Forall2_length'; eauto).
  assert (Eoff : off (Bs1 ++ Bk :: Bs2) (length Bs1) = dsum (map dim Bs1)).
  { unfold off. rewrite firstn_app, firstn_all, Nat.sub_diag. simpl. rewrite app_nil_r. reflexivity. }
  rewrite Eoff in HX.
  assert (Ed : dsum (map dim (Bs1 ++ Bk :: Bs2)) = (dsum (map dim Bs1) + dim Bk + dsum (map dim Bs2))%nat).
  { rewrite map_app, dsum_app. simpl. lia. }
  rewrite Ed in HX. replace (dsum (map dim Bs1) + dim Bk + dsum (map dim Bs2) - dsum (map dim Bs1) - dim Bk)%nat
    with (dsum (map dim Bs2)) in HX by lia.
  assert (Hfit : Forall2 fits (Bs1 ++ Bk :: Bs2) (qs1 ++ qk :: qs2))
    by (apply Forall2_app; [exact HF1|constructor; assumption]).
  assert (Hqk' : fits Bk (radd qk ab)).
  { unfold radd. apply reshape_keeps; [exact Hqk|]. rewrite length_vp, (fits_len _ _ Hqk), (fits_len _ _ Hab). lia. }
  rewrite <- Hl1. rewrite firstn_app, firstn_all, Nat.sub_diag, firstn_O, app_nil_r.
  rewrite nth_middle.
  assert (Es : skipn (S (length qs1)) (qs1 ++ qk :: qs2) = qs2) by (clear; induction qs1; simpl; auto).
  rewrite Es.
  apply fits_eq with (TProd (Bs1 ++ Bk :: Bs2)).
  - unfold radd. apply reshape_keeps; [constructor; exact Hfit|].
    rewrite length_vp, HX, (fits_len _ _ (fits_node _ _ Hfit)), dim_prod, !app_length, !length_zeros,
      (fits_len _ _ Hab), Ed. lia.
  - constructor. apply Forall2_app; [exact HF1|constructor; assumption].
  - unfold radd. rewrite reshape_rflat with (A := TProd (Bs1 ++ Bk :: Bs2)).
    + rewrite HX, !rflat_node, !map_app, !concat_app. simpl.
      assert (L1 : length (concat (map rflat qs1)) = dsum (map dim Bs1)) by (apply concat_rflat_len; exact HF1).
      assert (L2 : length (concat (map rflat qs2)) = dsum (map dim Bs2)) by (apply concat_rflat_len; exact HF2).
      rewrite vp_app by (rewrite L1, length_zeros; reflexivity).
      rewrite vp_zeros_r by exact L1.
      rewrite vp_app by (rewrite (fits_len _ _ Hqk), (fits_len _ _ Hab); reflexivity).
      rewrite vp_zeros_r by exact L2.
      unfold radd. rewrite (reshape_rflat Bk) by (auto; rewrite length_vp, (fits_len _ _ Hqk), (fits_len _ _ Hab); lia).
      reflexivity.
    + constructor. exact Hfit.
    + rewrite length_vp, HX, (fits_len _ _ (fits_node _ _ Hfit)), dim_prod, !app_length, !length_zeros,
        (fits_len _ _ Hab), Ed. lia.
Qed.

(** Every explicit clause satisfies [ok]. *)
Fixpoint cls_all (ok : cmd -> Prop) (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => ok Qf /\ ok Qb /\ cls_all ok rest
  end.

(** The clause [clause_of] finds satisfies [ok] when the explicit ones
    and the default clause do. *)
Lemma clause_of_all (ok : cmd -> Prop) P cls o D Qf Qb :
  cls_all ok cls -> ok (snd (fst (default_clause o))) -> ok (snd (default_clause o)) ->
  clause_of (Handler P cls) o = (D, Qf, Qb) -> ok Qf /\ ok Qb.
Proof.
  intros Hcls Hf Hb. simpl. destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hfc.
  - intros [= <- <- <-]. clear P Hf Hb. induction cls as [|o' D0 Qf0 Qb0 rest IH]; simpl in *; [discriminate|].
    destruct Hcls as [H1 [H2 H3]]. destruct (opsym_eq_dec o o'); [injection Hfc as <- <- <-; auto|auto].
  - intros Hd. rewrite Hd in Hf, Hb. auto.
Qed.

(** The clause of an operation in a handler of the fragment, the default
    clause included, is in the fragment, by [clause_of_all]
    ([okh_clause], [okrh_clause]). *)
Ltac handler_clause_ok :=
  let P := fresh "P" in let cls := fresh "cls" in let Hcls := fresh "Hcls" in
  match goal with Hh : handler |- _ => destruct Hh as [P cls] end;
  intros [_ Hcls]; apply clause_of_all;
  [ clear P; induction cls; simpl in *; tauto
  | simpl; split; [exact I|]; split; [exact I|]; split; [reflexivity|exact I]
  | simpl; eapply okg_okp with 0%nat; apply okg_zero ].

Lemma okh_clause H o D Qf Qb : okh H -> clause_of H o = (D, Qf, Qb) -> okc Qf /\ okc Qb.
Proof. handler_clause_ok. Qed.

Lemma okh_ret H : okh H -> okc (ret_clause H).
Proof. destruct H. simpl. tauto. Qed.

Lemma env_fits_envof As v : fits (TProd As) v -> env_fits As (envof v).
Proof.
  intros Hv x A Hx. inversion Hv as [|? ts HF]; subst. unfold envof, rnth.
  destruct (Forall2_nth_error _ _ _ _ _ HF Hx) as [t [Ht HtA]].
  rewrite (nth_error_nth _ _ _ Ht). exact HtA.
Qed.

Lemma envof_cons b ts : envof (RNode (b :: ts)) = scons b (envof (RNode ts)).
Proof. apply functional_extensionality. intros [|x]; reflexivity. Qed.

Lemma map_den_nth ρ Vs k Vk : nth_error Vs k = Some Vk -> rnth k (RNode (map (den ρ) Vs)) = den ρ Vk.
Proof.
  intros Hk. simpl. apply nth_error_nth. rewrite nth_error_map, Hk. reflexivity.
Qed.

Lemma fits_map_den Δ' ρ Vs Bs : Forall2 (typed_tm Δ') Vs Bs -> Forall okp Vs -> env_fits Δ' ρ ->
  fits (TProd Bs) (RNode (map (den ρ) Vs)).
Proof.
  intros HT Ho Hρ. constructor. induction HT as [|V B Vs Bs HV HT IH]; simpl; constructor.
  - inversion Ho; subst. eapply den_fits_p; eauto.
  - inversion Ho; subst. auto.
Qed.

Lemma fits_cons_inv A As t : fits (TProd (A :: As)) t ->
  exists t0 ts, t = RNode (t0 :: ts) /\ fits A t0 /\ Forall2 fits As ts.
Proof. intros H. inversion H as [|? ts' HF]; subst. inversion HF; subst. eauto 6. Qed.

Lemma fits_prod_inv As t : fits (TProd As) t -> exists ts, t = RNode ts /\ Forall2 fits As ts.
Proof. intros H. inversion H; subst. eauto. Qed.

Lemma app_eq_len (a b c d : vec) : a ++ b = c ++ d -> length a = length c -> a = c /\ b = d.
Proof.
  revert c. induction a as [|x a IH]; intros [|y c] E L; simpl in *; try discriminate; auto.
  injection E as -> E. destruct (IH c E) as [-> ->]; auto.
Qed.

Lemma proj_zeros k d n : (k + d <= n)%nat -> proj k d (zeros n) = zeros d.
Proof.
  intros H. unfold proj, zeros. revert n H. induction k as [|k IH]; intros n H; simpl.
  - revert n H. induction d as [|d IHd]; intros [|n] H; simpl; auto; try lia. f_equal. apply IHd. lia.
  - destruct n as [|n]; [lia|]. simpl. apply IH. lia.
Qed.

(** ** Smooth maps of trees and the chain rule for [rd_den] *)
(** [tsmooth f u]: [f] maps the trees of the shape of [u] to trees of the
    shape of [f u], and, read on the flat vectors, has a reverse
    derivative at [u] (so a derivative). *)
Definition tsmooth (f : rv -> rv) (u : rv) : Prop :=
  (forall x, fits (tyof u) x -> fits (tyof (f u)) (f x)) /\
  exists r, is_rev_deriv (length (rflat u)) (length (rflat (f u))) (fun y => rflat (f (reshape u y))) (rflat u) r.

Lemma reshape_shape u y : length y = length (rflat u) -> fits (tyof u) (reshape u y) /\ rflat (reshape u y) = y.
Proof.
  intros Hy. rewrite (fits_len _ _ (fits_tyof u)) in Hy. split.
  - apply reshape_keeps; [apply fits_tyof|exact Hy].
  - apply (reshape_rflat (tyof u)); [apply fits_tyof|exact Hy].
Qed.

Lemma reshape_self u : reshape u (rflat u) = u.
Proof. apply (reshape_fits_eq (tyof u)); apply fits_tyof. Qed.

Lemma rflat_rcons a ts : rflat (rcons a (RNode ts)) = rflat a ++ rflat (RNode ts).
Proof. cbn [rcons]. rewrite !rflat_node. reflexivity. Qed.

(** A reverse derivative is additive. *)
Lemma rev_deriv_vp n m f x r a b : is_rev_deriv n m f x r -> length a = m -> length b = m ->
  r (vp a b) = vp (r a) (r b).
Proof.
  intros [L [_ [Hr Ha]]] Hla Hlb.
  assert (Hab : length (vp a b) = m) by (rewrite length_vp; lia).
  apply vec_ext; [rewrite length_vp, !Hr by auto; lia|].
  intros i. rewrite nth_vp. destruct (Nat.lt_ge_cases i n) as [Hi|Hi].
  - rewrite <- !(dot_unitv n i) by exact Hi. rewrite <- !Ha by (auto; apply length_unitv).
    apply dot_vp_r.
  - rewrite !nth_overflow by (rewrite Hr; auto; lia). ring.
Qed.

(** The composite of smooth maps is smooth; its reverse derivative. *)
Lemma tsmooth_comp_rd φ H u rφ rH :
  (forall x, fits (tyof u) x -> fits (tyof (φ u)) (φ x)) ->
  is_rev_deriv (length (rflat u)) (length (rflat (φ u))) (fun y => rflat (φ (reshape u y))) (rflat u) rφ ->
  is_rev_deriv (length (rflat (φ u))) (length (rflat (H (φ u)))) (fun y => rflat (H (reshape (φ u) y))) (rflat (φ u)) rH ->
  is_rev_deriv (length (rflat u)) (length (rflat (H (φ u)))) (fun y => rflat (H (φ (reshape u y)))) (rflat u)
    (fun z => rφ (rH z)).
Proof.
  intros Sφ Rφ RH.
  assert (RH' : is_rev_deriv (length (rflat (φ u))) (length (rflat (H (φ u)))) (fun y => rflat (H (reshape (φ u) y)))
                  (rflat (φ (reshape u (rflat u)))) rH) by (rewrite reshape_self; exact RH).
  eapply is_rev_deriv_ext; [| |exact (rd_comp _ _ _ _ _ _ _ _ Rφ RH')]; [|reflexivity].
  intros y Hy. cbv beta. f_equal. f_equal. apply (reshape_fits_eq (tyof (φ u))); [apply fits_tyof|].
  apply Sφ. apply reshape_shape. exact Hy.
Qed.

Lemma tsmooth_comp φ H u : tsmooth φ u -> tsmooth H (φ u) -> tsmooth (fun x => H (φ x)) u.
Proof.
  intros [Sφ [rφ Rφ]] [SH [rH RH]]. split.
  - intros x Hx. apply SH, Sφ, Hx.
  - exists (fun z => rφ (rH z)). apply tsmooth_comp_rd; auto.
Qed.

(** The chain rule: the pull-back through [φ] of the pull-back through
    [H] is the pull-back through the composite. *)
Lemma rd_den_comp φ H u w : tsmooth φ u -> tsmooth H (φ u) -> fits (tyof (H (φ u))) w ->
  rd_den w u (fun x => H (φ x)) = rd_den (rd_den w (φ u) H) u φ.
Proof.
  intros [Sφ [rφ Rφ]] [SH [rH RH]] Hw.
  pose proof (tsmooth_comp_rd φ H u rφ rH Sφ Rφ RH) as Rc.
  assert (Hlw : length (rflat w) = length (rflat (H (φ u))))
    by (rewrite (fits_len _ _ Hw); symmetry; apply fits_len, fits_tyof).
  apply fits_eq with (tyof u); [apply rd_den_fits|apply rd_den_fits|].
  rewrite (rd_den_correct w u (fun x => H (φ x)) _ _ Rc Hlw).
  rewrite (rd_den_correct _ u φ _ _ Rφ (rd_den_len _ _ _)).
  rewrite (rd_den_correct w (φ u) H _ _ RH Hlw). reflexivity.
Qed.

(** The sum of two trees of a shape. *)
Lemma radd_fits A s t : fits A s -> fits A t -> fits A (radd s t) /\ rflat (radd s t) = vp (rflat s) (rflat t).
Proof.
  intros Hs Ht. assert (Hl : length (vp (rflat s) (rflat t)) = dim A)
    by (rewrite length_vp, (fits_len _ _ Hs), (fits_len _ _ Ht); lia).
  unfold radd. split; [apply reshape_keeps; auto|apply (reshape_rflat A); auto].
Qed.

(** The pull-back is additive in the cotangent. *)
Lemma rd_den_radd φ u a b : tsmooth φ u -> fits (tyof (φ u)) a -> fits (tyof (φ u)) b ->
  rd_den (radd a b) u φ = radd (rd_den a u φ) (rd_den b u φ).
Proof.
  intros [Sφ [rφ Rφ]] Ha Hb.
  assert (Hm : forall c, fits (tyof (φ u)) c -> length (rflat c) = length (rflat (φ u)))
    by (intros c Hc; rewrite (fits_len _ _ Hc); symmetry; apply fits_len, fits_tyof).
  destruct (radd_fits _ _ _ Ha Hb) as [Hab Eab].
  destruct (radd_fits _ _ _ (rd_den_fits a u φ) (rd_den_fits b u φ)) as [Hr Er].
  apply fits_eq with (tyof u); [apply rd_den_fits|exact Hr|].
  rewrite Er, !(rd_den_correct _ u φ _ _ Rφ) by auto. rewrite Eab.
  apply (rev_deriv_vp _ _ _ _ _ _ _ Rφ); auto.
Qed.

(** The trees of the shape of [rcons b (RNode us)]. *)
Lemma fits_rcons_inv b us q : fits (tyof (rcons b (RNode us))) q ->
  exists q0 qs, q = RNode (q0 :: qs) /\ fits (tyof b) q0 /\ fits (tyof (RNode us)) (RNode qs).
Proof.
  cbn [rcons tyof map]. intros Hq. inversion Hq as [|? qs' HF]; subst.
  inversion HF as [|? q0 ? qs Hq0 HFs]; subst. exists q0, qs. split; [reflexivity|]. split; [exact Hq0|].
  constructor. exact HFs.
Qed.

Lemma fits_rcons b us q0 qs : fits (tyof b) q0 -> fits (tyof (RNode us)) (RNode qs) ->
  fits (tyof (rcons b (RNode us))) (RNode (q0 :: qs)).
Proof.
  cbn [rcons tyof map]. intros H0 Hs. inversion Hs; subst. constructor. constructor; assumption.
Qed.

Lemma fits_prod_node A t : fits A t -> (exists As, A = TProd As) -> exists ts, t = RNode ts.
Proof. intros Ht [As ->]. inversion Ht; subst. eauto. Qed.

Lemma tyof_node us : tyof (RNode us) = TProd (map tyof us).
Proof. reflexivity. Qed.

(** The pass after an operation: the map [φ] on the environment, the
    identity on the operation's result. *)
Definition consmap (φ : rv -> rv) : rv -> rv := fun p => rcons (rnth 0 p) (φ (rtail p)).

Lemma tsmooth_cons φ b us : tsmooth φ (RNode us) -> is_node (φ (RNode us)) ->
  tsmooth (consmap φ) (rcons b (RNode us)) /\
  forall q, fits (tyof (rcons b (φ (RNode us)))) q ->
    rd_den q (rcons b (RNode us)) (consmap φ) = rcons (rnth 0 q) (rd_den (rtail q) (RNode us) φ).
Proof.
  intros [Sφ [rφ Rφ]] Hn. set (u := RNode us) in *.
  assert (Hφn : exists vs, φ u = RNode vs) by (destruct (φ u) as [|vs]; [contradiction|eauto]).
  destruct Hφn as [vs Eφ].
  assert (Ec : consmap φ (rcons b u) = rcons b (φ u)) by reflexivity.
  set (nb := length (rflat b)). set (nu := length (rflat u)). set (mu := length (rflat (φ u))).
  assert (Hn1 : length (rflat (rcons b u)) = (nb + nu)%nat) by (unfold u; rewrite rflat_rcons, app_length; reflexivity).
  assert (Hm1 : length (rflat (rcons b (φ u))) = (nb + mu)%nat) by (rewrite Eφ, rflat_rcons, app_length; fold u; rewrite <- Eφ; reflexivity).
  (* the flat map and its reverse derivative *)
  assert (Hflat : forall y, length y = (nb + nu)%nat ->
    rflat (consmap φ (reshape (rcons b u) y)) = proj 0 nb y ++ rflat (φ (reshape u (proj nb nu y)))).
  { intros y Hy. rewrite <- Hn1 in Hy. destruct (reshape_shape _ _ Hy) as [Hf Hr].
    destruct (fits_rcons_inv b us _ Hf) as [p0 [ps [Ep [Hp0 Hps]]]]. rewrite Ep. unfold consmap. cbn [rnth nth rtail].
    assert (Hps' : fits (tyof (φ u)) (φ (RNode ps))) by (apply Sφ; exact Hps).
    rewrite Eφ in Hps'. destruct (fits_prod_node _ _ Hps') as [ws Ew]; [eexists; reflexivity|].
    rewrite Ew, rflat_rcons, <- Ew.
    assert (E1 : rflat p0 = proj 0 nb y /\ RNode ps = reshape u (proj nb nu y)).
    { rewrite <- Hr, Ep.
      replace (rflat (RNode (p0 :: ps))) with (rflat p0 ++ rflat (RNode ps)) by (rewrite !rflat_node; reflexivity).
      assert (L0 : length (rflat p0) = nb) by (rewrite (fits_len _ _ Hp0); symmetry; apply fits_len, fits_tyof).
      assert (L1 : length (rflat (RNode ps)) = nu) by (rewrite (fits_len _ _ Hps); symmetry; apply fits_len, fits_tyof).
      rewrite proj_app_l by lia. rewrite proj_app_r by exact L0. unfold proj. simpl.
      rewrite !firstn_all2 by lia. split; [reflexivity|].
      symmetry. apply (reshape_fits_eq (tyof u)); [apply fits_tyof|exact Hps]. }
    destruct E1 as [-> <-]. reflexivity. }
  assert (R' : is_rev_deriv (length (rflat (rcons b u))) (nb + mu) (fun y => rflat (consmap φ (reshape (rcons b u) y))) (rflat (rcons b u))
                 (fun z => proj 0 nb z ++ rφ (proj nb mu z))).
  { assert (Hx : length (rflat (rcons b u)) = (nb + nu)%nat) by exact Hn1.
    assert (P1 := rd_proj (nb + nu) 0 nb (rflat (rcons b u)) ltac:(lia) Hx).
    assert (P2 := rd_proj (nb + nu) nb nu (rflat (rcons b u)) ltac:(lia) Hx).
    assert (Ept : proj nb nu (rflat (rcons b u)) = rflat u).
    { unfold u. rewrite rflat_rcons. rewrite proj_app_r by reflexivity. apply firstn_all2. fold u. lia. }
    assert (Rφ' : is_rev_deriv nu mu (fun y => rflat (φ (reshape u y))) (proj nb nu (rflat (rcons b u))) rφ)
      by (rewrite Ept; exact Rφ).
    pose proof (rd_comp _ _ _ _ _ _ _ _ P2 Rφ') as P3.
    pose proof (rd_pair _ _ _ _ _ _ _ _ P1 P3) as P4.
    destruct Rφ as [Lφ [_ [Hrφ _]]]. rewrite Hn1.
    eapply is_rev_deriv_ext; [| |exact P4].
    - intros y Hy. rewrite Hflat by exact Hy. reflexivity.
    - intros z Hz. cbv beta.
      assert (Hz1 : length (proj 0 nb z) = nb) by (apply length_proj; lia).
      assert (Hz2 : length (rφ (proj nb mu z)) = nu) by (apply Hrφ; apply length_proj; lia).
      replace (nb + nu - 0 - nb)%nat with nu by lia. replace (nb + nu - nb - nu)%nat with 0%nat by lia.
      replace (zeros 0) with (@nil R) by reflexivity. rewrite app_nil_l, !app_nil_r.
      rewrite vp_app by (rewrite length_zeros; exact Hz1).
      rewrite (vp_zeros_r (proj 0 nb z) nb Hz1).
      rewrite (vp_zeros_l _ nu Hz2). reflexivity. }
  split.
  - split.
    + intros x Hx. rewrite Ec. rewrite Eφ. destruct (fits_rcons_inv b us x Hx) as [x0 [xs [-> [Hx0 Hxs]]]].
      unfold consmap. cbn [rnth nth rtail]. assert (Hxs' := Sφ _ Hxs). rewrite Eφ in Hxs'.
      destruct (fits_prod_node _ _ Hxs') as [ws Ew]; [eexists; reflexivity|]. rewrite Ew in Hxs' |- *.
      apply fits_rcons; assumption.
    + rewrite Ec, Hm1. eexists. exact R'.
  - intros q Hq. rewrite Eφ in Hq. destruct (fits_rcons_inv b vs q Hq) as [q0 [qs [-> [Hq0 Hqs]]]].
    cbn [rnth nth rtail].
    assert (Hd := rd_den_fits (RNode qs) u φ).
    destruct (fits_prod_node _ _ Hd) as [zs Ez]; [unfold u; rewrite tyof_node; eexists; reflexivity|].
    apply fits_eq with (tyof (rcons b u)); [apply rd_den_fits| |].
    + rewrite Ez. unfold u. apply fits_rcons; [exact Hq0|]. rewrite <- Ez. apply rd_den_fits.
    + assert (Hlq : length (rflat (RNode (q0 :: qs))) = length (rflat (consmap φ (rcons b u)))).
      { rewrite Ec. rewrite (fits_len _ _ Hq), Eφ. symmetry. apply fits_len, fits_tyof. }
      rewrite Ec, Hm1 in Hlq. rewrite (rd_den_correct _ (rcons b u) (consmap φ) _ _ R' Hlq).
      rewrite Ez, rflat_rcons, <- Ez.
      assert (L0 : length (rflat q0) = nb) by (rewrite (fits_len _ _ Hq0); symmetry; apply fits_len, fits_tyof).
      assert (Lq : rflat (RNode (q0 :: qs)) = rflat q0 ++ rflat (RNode qs)) by (rewrite !rflat_node; reflexivity).
      rewrite Lq, proj_app_l by lia. rewrite proj_app_r by exact L0. unfold proj at 1. simpl. rewrite firstn_all2 by lia.
      assert (L1 : length (rflat (RNode qs)) = mu).
      { rewrite <- Eφ in Hqs. rewrite (fits_len _ _ Hqs). symmetry. apply fits_len, fits_tyof. }
      rewrite firstn_all2 by lia. f_equal. symmetry. rewrite <- Eφ in Hqs.
      apply (rd_den_correct _ u φ _ _ Rφ L1).
Qed.

(** The map [x ↦ (M(x), x)] of a [let] of a pure term. *)
Definition letmap (Mf : rv -> rv) : rv -> rv := fun x => rcons (Mf x) x.

Lemma tsmooth_let Mf us : tsmooth Mf (RNode us) ->
  tsmooth (letmap Mf) (RNode us) /\
  forall q, fits (tyof (rcons (Mf (RNode us)) (RNode us))) q ->
    rd_den q (RNode us) (letmap Mf) = radd (rtail q) (rd_den (rnth 0 q) (RNode us) Mf).
Proof.
  intros [SM [rM RM]]. set (u := RNode us) in *.
  set (n := length (rflat u)). set (m := length (rflat (Mf u))).
  assert (Hl : length (rflat (letmap Mf u)) = (m + n)%nat) by (unfold letmap, u; rewrite rflat_rcons, app_length; reflexivity).
  assert (Hflat : forall y, length y = n -> rflat (letmap Mf (reshape u y)) = rflat (Mf (reshape u y)) ++ y).
  { intros y Hy. destruct (reshape_shape _ _ Hy) as [Hf Hr].
    destruct (fits_prod_node _ _ Hf) as [ws Ew]; [unfold u; rewrite tyof_node; eexists; reflexivity|].
    unfold letmap. rewrite Ew, rflat_rcons, <- Ew, Hr. reflexivity. }
  assert (R' : is_rev_deriv n (m + n) (fun y => rflat (letmap Mf (reshape u y))) (rflat u)
                 (fun z => vp (rM (proj 0 m z)) (proj m n z))).
  { eapply is_rev_deriv_ext; [| |exact (rd_pair _ _ _ _ _ _ _ _ RM (rd_id n (rflat u) eq_refl))].
    - intros y Hy. rewrite Hflat by exact Hy. reflexivity.
    - intros z _. reflexivity. }
  split.
  - split.
    + intros x Hx. destruct (fits_prod_node _ _ Hx) as [xs ->]; [unfold u; rewrite tyof_node; eexists; reflexivity|].
      unfold letmap. apply fits_rcons; [apply SM; exact Hx|exact Hx].
    + rewrite Hl. eexists. exact R'.
  - intros q Hq. destruct (fits_rcons_inv _ us q Hq) as [q0 [qs [-> [Hq0 Hqs]]]]. cbn [rnth nth rtail].
    destruct (radd_fits _ _ _ Hqs (rd_den_fits q0 u Mf)) as [Ha Ea].
    apply fits_eq with (tyof u); [apply rd_den_fits|exact Ha|].
    assert (Hlq : length (rflat (RNode (q0 :: qs))) = (m + n)%nat).
    { rewrite <- Hl. rewrite (fits_len _ _ Hq). symmetry. apply fits_len, fits_tyof. }
    rewrite (rd_den_correct _ u (letmap Mf) _ _ R' Hlq), Ea.
    assert (L0 : length (rflat q0) = m) by (rewrite (fits_len _ _ Hq0); symmetry; apply fits_len, fits_tyof).
    assert (L1 : length (rflat (RNode qs)) = n) by (rewrite (fits_len _ _ Hqs); symmetry; apply fits_len, fits_tyof).
    assert (Lq : rflat (RNode (q0 :: qs)) = rflat q0 ++ rflat (RNode qs)) by (rewrite !rflat_node; reflexivity).
    rewrite Lq, proj_app_l by lia. rewrite proj_app_r by exact L0. unfold proj. simpl.
    rewrite !firstn_all2 by lia. rewrite (rd_den_correct _ u Mf _ _ RM L0). apply vp_comm.
Qed.

Lemma tsmooth_ext f g u : (forall x, fits (tyof u) x -> f x = g x) -> tsmooth f u -> tsmooth g u.
Proof.
  intros E [S [r R]]. assert (Eu : f u = g u) by (apply E, fits_tyof).
  split.
  - intros x Hx. rewrite <- Eu, <- E by exact Hx. apply S, Hx.
  - exists r. rewrite <- Eu. eapply is_rev_deriv_ext; [| |exact R]; [|reflexivity].
    intros y Hy. cbv beta. rewrite E; [reflexivity|]. apply reshape_shape. exact Hy.
Qed.

Lemma tsmooth_id u : tsmooth (fun x => x) u.
Proof.
  split; [auto|]. exists (fun z => z). eapply is_rev_deriv_ext; [| |exact (rd_id _ (rflat u) eq_refl)]; [|reflexivity].
  intros y Hy. symmetry. apply reshape_shape. exact Hy.
Qed.

(** ** Smooth chains *)
(** [csmooth C t G u]: [G] at [u] is the chain [t], and every pure map of
    the chain is smooth: the argument of its first operation (or its
    result) as a function of everything in scope, and, for every answer
    of the operation's arity, the rest of the chain; the result has the
    shape [C], each operation's argument its coarity's. *)
Fixpoint csmooth (C : ty) (t : comp) (G : rv -> comp) (u : rv) {struct t} : Prop :=
  G u = t /\ tsmooth (fun x => harg (G x)) u /\
  match t with
  | CRet c => fits C c
  | CCall o a k => fits (coar o) a /\ forall b, fits (ar o) b -> csmooth C (k b) (ext G) (rcons b u)
  end.

(** What the pass asks of the handler: the return clause answers
    cotangents of the result's shape, the forward clause of [Op] answers
    [<b, d>] with [b] of [Op]'s arity, and the backward clause at [d]
    answers cotangents of [Op]'s coarity. *)
Definition hok (C : ty) (h : hmean) : Prop :=
  (forall c, fits C c -> comp_all (fits C) (hret h c)) /\
  (forall o a, fits (coar o) a -> comp_all (fun bd => fits (ar o) (rnth 0 bd) /\
      forall y, fits (ar o) y -> comp_all (fits (coar o)) (hbwd h o y (rnth 1 bd))) (hfwd h o a)).

Lemma is_node_rcons a t : is_node (rcons a t).
Proof. destruct t; exact I. Qed.

Lemma rtail_rcons_node a ws : rtail (rcons a (RNode ws)) = RNode ws.
Proof. reflexivity. Qed.

Lemma ext_consmap F G φ u : is_node u -> (forall x, fits (tyof u) x -> fits (tyof (φ u)) (φ x)) ->
  (forall x, fits (tyof u) x -> F x = G (φ x)) -> is_node (φ u) ->
  forall b x, fits (tyof (rcons b u)) x -> ext F x = ext G (consmap φ x).
Proof.
  intros Hu Hφ E Hn b x Hx. assert (Ht := fits_rtail b u x Hu Hx).
  unfold ext, consmap. rewrite E by exact Ht.
  assert (Hf := Hφ _ Ht).
  destruct (φ u) as [|vs]; [contradiction|]. destruct (fits_prod_node _ _ Hf) as [ws Ew]; [eexists; reflexivity|].
  rewrite Ew. reflexivity.
Qed.

(** The pass over [F = G ∘ φ] is the pass over [G] at [φ(u)], pulled
    back through [φ]. *)
Lemma revh_comp C h : hok C h -> forall t G φ u F, is_node u -> is_node (φ u) -> tsmooth φ u ->
  (forall x, fits (tyof u) x -> F x = G (φ x)) -> csmooth C t G (φ u) ->
  revh_aux h t F u = bind (revh_aux h t G (φ u)) (fun q => CRet (rd_den q u φ)).
Proof.
  intros [Hret Hfwd]. induction t as [c|o a k IH]; intros G φ u F Hu Hn Hφ E [Et [Hs Ht]]; cbn [revh_aux].
  - rewrite bind_assoc. cbn [bind]. apply bind_ext_all with (fits C); [apply Hret; exact Ht|].
    intros cb Hcb. f_equal.
    rewrite (rd_den_ext_fits cb u (fun x => harg (F x)) (fun x => harg (G (φ x)))) by (intros x Hx; rewrite E; auto).
    apply (rd_den_comp φ (fun x => harg (G x)) u cb Hφ Hs). rewrite Et. cbn [harg].
    rewrite (fits_tyof_eq _ _ Ht). exact Hcb.
  - destruct Ht as [Ha Hk]. rewrite bind_assoc.
    apply bind_ext_all with (fun bd => fits (ar o) (rnth 0 bd) /\
      forall y, fits (ar o) y -> comp_all (fits (coar o)) (hbwd h o y (rnth 1 bd))); [apply Hfwd; exact Ha|].
    intros bd [Hb Hbwd]. set (b := rnth 0 bd).
    destruct u as [|us]; [contradiction|].
    destruct (tsmooth_cons φ b us Hφ Hn) as [Hφ' Ed].
    assert (Hφs := proj1 Hφ).
    rewrite (IH b (ext G) (consmap φ) (rcons b (RNode us)) (ext F) I).
    2: { unfold consmap. apply is_node_rcons. }
    2: exact Hφ'.
    2: { apply (ext_consmap F G φ (RNode us) I); auto. }
    2: { unfold consmap. cbn [rnth nth rtail]. exact (Hk b Hb). }
    rewrite !bind_assoc.
    apply bind_ext_all with (fits (tyof (rcons b (φ (RNode us))))).
    { apply revh_fits. apply is_node_rcons. }
    intros q Hq. cbn [bind]. rewrite (Ed q Hq).
    assert (Hq0 : fits (ar o) (rnth 0 q)).
    { destruct (φ (RNode us)) as [|vs] eqn:Ev; [contradiction|].
      destruct (fits_rcons_inv b vs q Hq) as [q0 [qs [-> [Hq0 _]]]]. cbn [rnth nth].
      rewrite <- (fits_tyof_eq _ _ Hb). exact Hq0. }
    assert (Hqt : fits (tyof (φ (RNode us))) (rtail q)) by (apply fits_rtail with b; [exact Hn|exact Hq]).
    assert (Hdn : exists zs, rd_den (rtail q) (RNode us) φ = RNode zs).
    { apply fits_prod_node with (tyof (RNode us)); [apply rd_den_fits|rewrite tyof_node; eexists; reflexivity]. }
    destruct Hdn as [zs Ez]. rewrite Ez. cbn [rnth nth rtail rcons]. rewrite <- Ez.
    rewrite bind_assoc. cbn [bind].
    apply bind_ext_all with (fits (coar o)); [apply Hbwd; exact Hq0|].
    intros ab Hab. f_equal.
    rewrite (rd_den_radd φ (RNode us) (rtail q) _ Hφ Hqt (rd_den_fits _ _ _)). f_equal.
    rewrite (rd_den_ext_fits ab (RNode us) (fun x => harg (F x)) (fun x => harg (G (φ x)))) by (intros x Hx; rewrite E; auto).
    apply (rd_den_comp φ (fun x => harg (G x)) (RNode us) ab Hφ Hs). rewrite Et. cbn [harg].
    rewrite (fits_tyof_eq _ _ Ha). exact Hab.
Qed.

(** A chain composed with a smooth map is a smooth chain. *)
Lemma csmooth_comp C : forall t G φ u F, is_node u -> is_node (φ u) -> tsmooth φ u ->
  (forall x, fits (tyof u) x -> F x = G (φ x)) -> csmooth C t G (φ u) -> csmooth C t F u.
Proof.
  induction t as [c|o a k IH]; intros G φ u F Hu Hn Hφ E [Et [Hs Ht]].
  - split; [rewrite E, Et by apply fits_tyof; reflexivity|]. split; [|exact Ht].
    apply tsmooth_ext with (fun x => harg (G (φ x))); [intros x Hx; rewrite E; auto|].
    apply (tsmooth_comp φ (fun x => harg (G x))); auto.
  - split; [rewrite E, Et by apply fits_tyof; reflexivity|]. split.
    + apply tsmooth_ext with (fun x => harg (G (φ x))); [intros x Hx; rewrite E; auto|].
      apply (tsmooth_comp φ (fun x => harg (G x))); auto.
    + destruct Ht as [Ha Hk]. split; [exact Ha|]. intros b Hb.
      destruct u as [|us]; [contradiction|].
      destruct (tsmooth_cons φ b us Hφ Hn) as [Hφ' _].
      apply (IH b (ext G) (consmap φ) (rcons b (RNode us)) (ext F) I).
      * unfold consmap. apply is_node_rcons.
      * exact Hφ'.
      * apply (ext_consmap F G φ (RNode us) I); auto. exact (proj1 Hφ).
      * unfold consmap. cbn [rnth nth rtail]. exact (Hk b Hb).
Qed.

Lemma csmooth_ext C t G F u : is_node u -> (forall x, fits (tyof u) x -> F x = G x) -> csmooth C t G u -> csmooth C t F u.
Proof. intros Hu E H. apply (csmooth_comp C t G (fun x => x) u F Hu Hu (tsmooth_id u) E H). Qed.

(** ** The wider fragment of bodies: chains of operations on terms *)
(** [chain1 R]: a chain of operations, returns and [let]s on terms of
    the fragment one level down ([okg 1]: primitives [rd^k[p]] with
    [k + j < 1] under [j] enclosing [rd]s), without [rev handle]: the
    bodies of the [rev handle]s nested in a [chaing] body, whose
    rewriting is again a [chaing] ([rh_chaing]). *)
Fixpoint chain1 (R : cmd) : Prop :=
  match R with
  | Ret M | Op _ M => okg 1 M
  | CLet P Q => chain1 P /\ chain1 Q
  | RevHandle _ _ _ => False
  end.

(** [chaing R]: every argument of a [⌊M⌋], [Op(M)] or [rev handle(M)] of
    [R] is a term of the fragment of the term-level soundness ([okg 2]),
    a [let] may bind any such command, and a nested
    [rev handle(M)<u⃗>.R₁ with H₁] has a [chain1] body and clauses that
    are [chaing]: the bodies whose rewriting uses RH-1a, RH-1b, RH-2,
    RH-3 and RH-4 in every evaluation position. *)
Fixpoint chaing (R : cmd) : Prop :=
  match R with
  | Ret M | Op _ M => okg 2 M
  | CLet P Q => chaing P /\ chaing Q
  | RevHandle M R1 H1 => okg 2 M /\ chain1 R1 /\ chaingh H1
  end
with chaingh (H : handler) : Prop :=
  match H with Handler P cls => chaing P /\ chaingcls cls end
with chaingcls (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => chaing Qf /\ chaing Qb /\ chaingcls rest
  end.

Lemma chain1_chaing R : chain1 R -> chaing R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; cbn [chain1 chaing].
  - intros HM. apply (okg_mono M 1 2); [lia|exact HM].
  - intros HM. apply (okg_mono M 1 2); [lia|exact HM].
  - tauto.
  - tauto.
Qed.

(** ** The pure parts of a body are smooth; the handler's answers have their shapes *)
(** A term of the fragment, as a function of the environment of a tuple
    of the shape [∏ Bs], is smooth there ([rdr_sound_all]). *)
Lemma tsmooth_den Bs M B u : typed_tm Bs M B -> okg 2 M -> fits (TProd Bs) u ->
  tsmooth (fun x => den (envof x) M) u.
Proof.
  intros HM Ho Hu. assert (Eu := fits_tyof_eq _ _ Hu).
  assert (HB : forall x, fits (TProd Bs) x -> fits B (den (envof x) M))
    by (intros x Hx; eapply (den_fits_g decls locs 2 Bs M B HM Ho); apply env_fits_envof; exact Hx).
  assert (EB : tyof (den (envof u) M) = B) by (apply fits_tyof_eq, HB, Hu).
  split; [rewrite Eu, EB; exact HB|].
  destruct (fits_prod_inv _ _ Hu) as [us [Eus HF]]. subst u.
  assert (Hl : length us = length Bs) by (symmetry; eapply Forall2_length'; eauto).
  destruct (rdr_sound_all decls locs (rd_depth M) 2 Bs M B HM Ho (le_n _) Bs [] (eq_sym (app_nil_r Bs))
              Var (zero B) (envof (RNode us)) (env_fits_envof Bs _ Hu) (proj1 (den_zero decls locs _ _))) as [_ [r [Hr _]]].
  exists r.
  assert (Ept : pt (length Bs) (fun x => den (envof (RNode us)) (Var x)) = RNode us).
  { unfold pt. f_equal. rewrite <- Hl. apply map_nth_seq0. }
  rewrite Ept in Hr. rewrite <- (fits_len _ _ Hu) in Hr. rewrite <- (fits_len _ _ (HB _ Hu)) in Hr.
  eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
  intros y Hy. unfold G. f_equal. apply (den_typed_env _ _ _ HM). intros x Hx.
  unfold benv. rewrite Ept. destruct (Nat.ltb_spec x (length Bs)) as [_|Hge]; [|exfalso; apply (Nat.lt_irrefl x); eapply Nat.lt_le_trans; [exact Hx|exact Hge]]. unfold envof, rnth. destruct (reshape (RNode us) y); reflexivity.
Qed.

Lemma comp_all_impl (Q1 Q2 : rv -> Prop) t : (forall v, Q1 v -> Q2 v) -> comp_all Q1 t -> comp_all Q2 t.
Proof. induction t as [v|o a k IH]; simpl; auto. Qed.

(** The meaning of a well-typed handler of the fragment answers with the
    shapes the pass asks for. *)
Lemma hden_ok H C : typed_handler H C -> okh H -> hok C (hden H).
Proof.
  intros HH HoH. split.
  - intros c Hc. rewrite hden_ret. eapply cden_fits; [apply ret_clause_typed; exact HH|apply okh_ret; exact HoH|].
    apply env_fits_cons; [apply env_fits_nil|exact Hc].
  - intros o a Ha. destruct (clause_of H o) as [[D Qf] Qb] eqn:Hcl.
    destruct (clause_of_typed _ _ _ _ _ _ HH Hcl) as [HQf HQb].
    destruct (okh_clause _ _ _ _ _ HoH Hcl) as [HoQf HoQb].
    destruct (hden_clause decls locs _ _ _ _ _ Hcl) as [Ef Eb].
    rewrite Ef. eapply comp_all_impl; [|eapply cden_fits; [exact HQf|exact HoQf|]].
    2: { apply env_fits_cons; [apply env_fits_nil|exact Ha]. }
    intros bd Hbd. inversion Hbd as [|? bds HFbd]; subst. inversion HFbd as [|? b ? ds Hb HFd]; subst.
    inversion HFd as [|? d ? ds' Hd HFd']; subst. inversion HFd'; subst.
    cbn [rnth nth]. split; [exact Hb|]. intros y Hy. rewrite Eb.
    eapply cden_fits; [exact HQb|exact HoQb|].
    apply env_fits_cons; [apply env_fits_cons; [apply env_fits_nil|exact Hd]|exact Hy].
Qed.

(** [F^t[M]] is [F^t[w]] with [w] bound to [⟦M⟧] in front. *)
Lemma cden_fill_t_let ρ K F M :
  cden (scons (den ρ M) ρ) (fill_t (shift_frames K) F (Var 0)) = cden ρ (fill_t K F M).
Proof.
  unfold fill_t. rewrite !cden_fill_c. f_equal.
  - destruct F; reflexivity.
  - apply functional_extensionality. intros v. apply kden_shift.
Qed.

(** ** Bodies of the wider fragment *)
Lemma chaing_fill_c K : forall P, chaing (fill_c K P) <-> chaing P /\ Forall chaing K.
Proof. apply fill_c_all. intros; reflexivity. Qed.

Lemma chain1_fill_c K : forall P, chain1 (fill_c K P) <-> chain1 P /\ Forall chain1 K.
Proof. apply fill_c_all. intros; reflexivity. Qed.

(** The cases [⌊M⌋], [op(M)] and [let] of [chaing] and [chain1] under a
    renaming ([Pm] is [okg_ren]) or a substitution of [okg 0] terms
    ([okg_subst]). *)
Ltac chain_map_cases Pm :=
  first
  [ solve [apply Pm; auto]
  | solve [match goal with HP : _ /\ _ |- _ => destruct HP end; split; auto;
           match goal with IH : _ |- _ =>
             solve [apply IH; auto; intros [|x]; simpl; [exact I|]; apply okg_ren; auto] end] ].

Lemma chaing_ren P : forall ξ, chaing P -> chaing (ren_cmd ξ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ HP; cbn [ren_cmd chaing] in *; auto.
  1-3: chain_map_cases okg_ren.
  destruct HP as [HM HR]. split; [apply okg_ren; exact HM|exact HR].
Qed.

Lemma chain1_ren P : forall ξ, chain1 P -> chain1 (ren_cmd ξ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ HP; cbn [ren_cmd chain1] in *; auto.
  all: chain_map_cases okg_ren.
Qed.

Lemma chaing_subst P : forall σ, (forall x, okg 0 (σ x)) -> chaing P -> chaing (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ HP; cbn [subst_cmd chaing] in *; auto.
  1-3: chain_map_cases okg_subst.
  destruct HP as [HM HR]. split; [apply okg_subst; auto|exact HR].
Qed.

Lemma chain1_subst P : forall σ, (forall x, okg 0 (σ x)) -> chain1 P -> chain1 (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ HP; cbn [subst_cmd chain1] in *; auto.
  all: chain_map_cases okg_subst.
Qed.

Lemma chaing_shift_frames K : Forall chaing K -> Forall chaing (shift_frames K).
Proof. intros HK. apply Forall_map. eapply Forall_impl; [|exact HK]. intros Q HQ. apply chaing_ren. exact HQ. Qed.

Lemma chaing_okc_all :
  (forall R, chaing R -> okc R) /\ (forall H, chaingh H -> okh H) /\ (forall cls, chaingcls cls -> okcls cls).
Proof.
  apply cmd_mutind; cbn [chaing chaingh chaingcls okc okh okcls]; intros; try tauto.
  - eapply okg_okp with 2%nat; exact H.
  - eapply okg_okp with 2%nat; exact H.
  - destruct H2 as [HM [HR HH]]. split; [eapply okg_okp with 2%nat; exact HM|].
    split; [apply H, chain1_chaing, HR|auto].
Qed.

Lemma chaing_okc R : chaing R -> okc R.
Proof. apply chaing_okc_all. Qed.

Lemma chaingh_okh H : chaingh H -> okh H.
Proof. apply chaing_okc_all. Qed.

(** The sum of two tuples, component by component. *)
Lemma radd_node Bs : forall qs ys, Forall2 fits Bs qs -> Forall2 fits Bs ys ->
  radd (RNode qs) (RNode ys) = RNode (map (fun i => radd (nth i qs (RNode [])) (nth i ys (RNode []))) (seq 0 (length Bs))).
Proof.
  induction Bs as [|B Bs IH]; intros qs ys Hq Hy; inversion Hq as [|? q ? qs' Hq0 Hqs]; subst;
    inversion Hy as [|? y ? ys' Hy0 Hys]; subst; [reflexivity|].
  cbn [length seq map nth]. rewrite <- seq_shift, map_map. cbn [nth].
  assert (IHe := IH qs' ys' Hqs Hys).
  destruct (radd_fits _ _ _ (fits_node _ _ Hqs) (fits_node _ _ Hys)) as [Hs Es].
  destruct (radd_fits _ _ _ Hq0 Hy0) as [H0 E0].
  destruct (radd_fits _ _ _ (fits_node _ _ Hq) (fits_node _ _ Hy)) as [Ha Ea].
  destruct (fits_prod_inv _ _ Hs) as [zs [Ez HFz]]. rewrite Ez in Hs, Es, IHe.
  injection IHe as <-.
  apply fits_eq with (TProd (B :: Bs)); [exact Ha|constructor; constructor; [exact H0|exact HFz]|].
  rewrite Ea. change (RNode (radd q y :: zs)) with (rcons (radd q y) (RNode zs)).
  rewrite rflat_rcons, E0, Es. rewrite !rflat_node. cbn [map concat].
  apply vp_app. rewrite (fits_len _ _ Hq0), (fits_len _ _ Hy0). reflexivity.
Qed.

(** ** The rewriting of a [chain1] body is a [chaing] *)
Lemma okg0_list_subst Ms : Forall (okg 0) Ms -> forall x, okg 0 (list_subst Ms x).
Proof.
  intros HMs x. unfold list_subst. destruct (nth_error Ms x) as [M|] eqn:E.
  - rewrite (nth_error_nth _ _ _ E). rewrite Forall_forall in HMs. apply HMs. eapply nth_error_In. exact E.
  - rewrite nth_overflow by (apply nth_error_None; exact E). exact I.
Qed.

(** The substitutions of [RH]'s outputs: the argument [V_k] for a
    clause's variable (RH-1a, RH-2), one variable for another (RH-1b), and
    the arguments renamed under the new binder. *)
Lemma okg0_subst_nth Vs k Vk : Forall (okg 0) Vs -> nth_error Vs k = Some Vk ->
  forall x, okg 0 (list_subst [Vk] x).
Proof.
  intros HVs Hk. apply okg0_list_subst. constructor; [|constructor].
  rewrite Forall_forall in HVs. apply HVs. eapply nth_error_In. exact Hk.
Qed.

Lemma okg_rh_op_result m k B : okg 0 (rh_op_result m k B).
Proof.
  unfold rh_op_result. apply okg_tuple. apply Forall_forall. intros M HM.
  apply in_map_iff in HM. destruct HM as [i [<- _]].
  destruct (Nat.eqb i k); [apply okg_plus|]; exact I.
Qed.

Lemma okg_proj_list z l : Forall (okg 0) (proj_list z l).
Proof.
  unfold proj_list. apply Forall_forall. intros N HN. apply in_map_iff in HN. destruct HN as [i [<- _]]. exact I.
Qed.

Lemma chain1_shift_frames K : Forall chain1 K -> Forall chain1 (shift_frames K).
Proof. intros HK. apply Forall_map. eapply Forall_impl; [|exact HK]. intros Q HQ. apply chain1_ren. exact HQ. Qed.

Lemma chaingh_clause H o D Qf Qb : chaingh H -> clause_of H o = (D, Qf, Qb) -> chaing Qf /\ chaing Qb.
Proof.
  destruct H as [P cls]. intros [_ Hcls]. apply clause_of_all.
  - clear P. induction cls as [|o' D0 Qf0 Qb0 rest IH]; simpl in *; tauto.
  - simpl. intuition.
  - simpl. apply okg_zero.
Qed.

(** The rewriting of a body one level down, by a handler whose clauses
    are [chaing], is a [chaing]: the [rd] terms of RH-4 have [okg 1]
    bodies, so they are [okg 2]. *)
Lemma rh_chaing H Bs Vs R R' : rh H Bs Vs R R' ->
  chaingh H -> Forall (okg 0) Vs -> chain1 R -> chaing R'.
Proof.
  induction_rh; intros HcH HVs Hc.
  - (* rh_ret *)
    unfold rh_ret_out. cbn [chaing]. split.
    + apply chaing_subst; [|destruct H; cbn [ret_clause chaingh] in *; tauto]. exact (okg0_subst_nth _ _ _ HVs Hk).
    + apply okg_onehot. exact I.
  - (* rh_let_var *)
    rh_let_var_case z IH Hc chain1_fill_c chain1_subst.
  - (* rh_op *)
    destruct (chaingh_clause _ _ _ _ _ HcH Hcl) as [HcQf HcQb].
    unfold rh_op_out. cbn [chaing]. split; [|split; [|split]].
    + apply chaing_subst; [|exact HcQf]. exact (okg0_subst_nth _ _ _ HVs Hk).
    + rh_op_ih IH HVs Hc chain1_fill_c chain1_shift_frames.
    + apply chaing_subst; [|exact HcQb]. apply okg0_list_subst. repeat constructor.
    + apply (okg_mono _ 0 2); [lia|]. apply okg_rh_op_result.
  - (* rh_rev: no nested rev handle in a chain1 body *)
    apply chain1_fill_c in Hc. destruct Hc as [[] _].
  - (* rh_term *)
    unfold fill_t in Hc. apply chain1_fill_c in Hc. destruct Hc as [HcF HcK].
    assert (HcM : okg 1 M) by (destruct F as [|o'|R0 H0]; cbn [plug_t chain1] in HcF; tauto).
    unfold rh_term_out. cbn [chaing]. split; [|split; [|split]].
    + apply okg_subst; [apply okg0_list_subst; exact HVs|]. apply (okg_mono _ 1 2); [lia|exact HcM].
    + apply IH; auto.
      * constructor; [exact I|]. apply okg_map_ren. exact HVs.
      * unfold fill_t. apply chain1_fill_c. split; [|apply chain1_shift_frames; exact HcK].
        destruct F; cbn [plug_t chain1 okg] in HcF |- *; tauto.
    + cbn [okg]. split; [exact I|]. split.
      * apply okg_subst; [|exact HcM]. intros x. exact I.
      * apply okg_tuple. apply okg_map_ren. exact HVs.
    + rewrite rh_term_result_nth. apply okg_tuple.
      apply Forall_forall. intros N HN. apply in_map_iff in HN. destruct HN as [i [<- _]].
      apply okg_plus; exact I.
Qed.

(** ** [RH] computes the meaning of [rev handle] *)
(** [rh_den] with, kept along the induction for RH-4, the smoothness of
    the body's pure maps at the point ([csmooth]). *)
Lemma rh_den_smooth H Bs Vs R R' : rh H Bs Vs R R' ->
  forall C Δ' ρ, typed_cmd Bs R C -> typed_handler H C -> okh H -> chaing R ->
  Forall2 (typed_tm Δ') Vs Bs -> Forall okp Vs -> env_fits Δ' ρ ->
  cden ρ R' = revh (hden H) (fun x => cden (envof x) R) (RNode (map (den ρ) Vs)) /\
  csmooth C (cden (envof (RNode (map (den ρ) Vs))) R) (fun x => cden (envof x) R) (RNode (map (den ρ) Vs)).
(** Informal proof: by induction on the rewriting.
    - RH-1a, [R = ⌊y_k⌋]: the chain has no operation; both sides run the
      return clause at [V_k] and answer, for its cotangent [c̄], the
      one-hot tuple [<0, …, c̄@k, …, 0>], which is the reverse derivative
      of the projection [y⃗ ↦ y_k] ([rd_den_proj], [den_onehot]).
    - RH-1b: [F^c[let x ⇐ ⌊z⌋ in Q]] and [F^c[Q[z/x]]] have the same
      meaning in every environment.
    - RH-2, [R = F^c[Op(y_k)]]: both sides run the forward clause at
      [V_k]; for each of its answers [<b, d>] (of the shape [B × D],
      [cden_fits]) the rest of the chain is [F^c[⌊y⌋]] in [y, y⃗]
      (induction hypothesis, [revh_ext] for the continuation read at
      the arity's shape); both run the backward clause at the cotangent
      of [y] and [d], and add its answer to the cotangent of [y_k]: the
      reverse derivative of [y⃗ ↦ y_k] is one-hot ([radd_onehot]).
    - RH-4, [R = F^t[M]]: the body is [G ∘ φ] for [G] the meaning of
      [F^t[w]] in [w, y⃗] and [φ(y⃗) = (⟦M⟧(y⃗), y⃗)]; the pass over a chain
      composed with a smooth map is the pass at [φ(⟦V⃗⟧)] pulled back
      through [φ] ([revh_comp]: by induction on the chain, with the chain
      rule [rd_den_comp] at each pull-back and [rd_den_radd] for the
      sums), and the pull-back of [<w', y⃗'>] through [φ] is
      [y⃗' + rd_den w' ⟦V⃗⟧ ⟦M⟧] ([tsmooth_let]): what the rewriting
      computes with its [rd] term.
    - RH-3, [R = F^c[rev handle(y_j)<u⃗>.R₁ with H₁]]: the inner
      rewriting [R₁'] means the inner [rev handle] in every environment
      of the shape of [y⃗] (induction hypothesis for the inner rewriting,
      whose arguments [proj_i y_j] denote the components of [y_j]), so
      [F^c[R₁']] and [R] have the same pass ([revh_ext]) and the same
      smoothness ([csmooth_ext]); [F^c[R₁']] is a [chaing]
      ([rh_chaing]: the inner body is [chain1]), and the induction
      hypothesis for the outer rewriting concludes.
    The second conclusion, kept along the induction for RH-4, says that
    the body's pure maps are smooth at the point ([tsmooth_den]: terms
    of the fragment are; [csmooth_comp], [csmooth_ext]). *)
Proof.
  induction_rh; intros C Δ' ρ HR HH HoH Hvb HVs HoVs Hρ.
  - (* rh_ret *)
    inversion HR as [? ? ? HM| | |]; subst. inversion HM as [? ? ? HkC| | | | | | |]; subst.
    set (v := RNode (map (den ρ) Vs)).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    unfold rh_ret_out, revh. cden_simpl. cbn [revh_aux harg].
    rewrite cden_subst1, (cden_typed_env _ _ _ (ret_clause_typed _ _ HH) _ (scons (den ρ Vk) rho0))
      by (intros [|x] Hx; simpl in *; [reflexivity|lia]).
    rewrite <- hden_ret, <- (map_den_nth ρ Vs k Vk Hk). fold v.
    assert (Hvk : fits C (rnth k v)) by (apply (env_fits_envof Bs v Hv k C HkC)).
    split; [|split; [reflexivity|split; [exact (tsmooth_den Bs (Var k) C v HM I Hv)|exact Hvk]]].
    apply bind_ext_all with (fits C).
    { rewrite hden_ret. eapply cden_fits; [apply ret_clause_typed; exact HH|apply okh_ret; exact HoH|].
      apply env_fits_cons; [apply env_fits_nil|exact Hvk]. }
    intros cb Hcb. cden_simpl. f_equal.
    destruct (den_onehot decls locs (scons cb ρ) Bs k C (Var 0) HkC Hcb) as [O1 O2].
    apply fits_eq with (TProd Bs); [exact O1| |].
    + rewrite <- (fits_tyof_eq _ _ Hv). apply rd_den_fits.
    + etransitivity; [exact O2|]. symmetry. exact (rd_den_proj Bs k C v cb Hv HkC Hcb).
  - (* rh_let_var *)
    apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    inversion HK as [|? ? ? ? B ? HQ HK']; subst.
    inversion HA as [? ? ? Hz| | |]; subst.
    pose proof (list_subst_var z) as Hσ.
    assert (EFx : forall x, cden (envof x) (fill_c K (subst_cmd (list_subst [Var z]) Q)) =
                            cden (envof x) (fill_c (Q :: K) (Ret (Var z)))).
    { intros x. rewrite fill_c_cons, !cden_fill_c, let_val_den. reflexivity. }
    assert (EF : (fun x => cden (envof x) (fill_c K (subst_cmd (list_subst [Var z]) Q))) =
                 (fun x => cden (envof x) (fill_c (Q :: K) (Ret (Var z)))))
      by (apply functional_extensionality; exact EFx).
    destruct (IH C Δ' ρ) as [IHe IHs]; auto.
    + eapply fill_c_typed; [exact HK'|].
      eapply typed_cmd_subst; [exact HQ|].
      apply (subst_ok_list [Var z] [A]). constructor; [exact Hz|constructor].
    + apply chaing_fill_c in Hvb. destruct Hvb as [_ HcK]. inversion HcK as [|? ? HcQ HcK']; subst.
      apply chaing_fill_c. split; [|exact HcK'].
      apply chaing_subst; [|exact HcQ]. intros x. destruct (Hσ x) as [y ->]. exact I.
    + rewrite EF in IHe, IHs. rewrite EFx in IHs. split; assumption.
  - (* rh_op *)
    destruct (rh_op_typed_inv _ _ _ _ _ _ _ _ _ _ _ _ HR HH HVs Hk Hcl) as (HK & Hz & HBk & HVk & HQf & HQb).
    destruct (okh_clause _ _ _ _ _ HoH Hcl) as [HoQf HoQb].
    destruct (hden_clause decls locs _ _ _ _ _ Hcl) as [Ef Eb].
    apply chaing_fill_c in Hvb. destruct Hvb as [_ HcK].
    assert (HcR1 : chaing (fill_c (shift_frames K) (Ret (Var 0))))
      by (apply chaing_fill_c; split; [exact I|apply chaing_shift_frames; exact HcK]).
    assert (HR1 : typed_cmd (ar o :: Bs) (fill_c (shift_frames K) (Ret (Var 0))) C)
      by (eapply fill_c_typed; [apply typed_frames_shift; exact HK|]; constructor; constructor; reflexivity).
    assert (HVs' : Forall2 (typed_tm (TPair (ar o) D :: Δ')) (Proj 0 (Var 0) :: map shift Vs) (ar o :: Bs)).
    { constructor.
      * econstructor; [constructor; reflexivity|reflexivity].
      * apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
        intros V B HV. apply typed_tm_shift. exact HV. }
    assert (HoVs' : Forall okp (Proj 0 (Var 0) :: map shift Vs)).
    { constructor; [exact I|]. apply Forall_map. eapply Forall_impl; [|exact HoVs].
      intros V HV. apply okp_ren. exact HV. }
    assert (IHe := fun ρ' Hρ' => proj1 (IH C (TPair (ar o) D :: Δ') ρ' HR1 HH HoH HcR1 HVs' HoVs' Hρ')).
    assert (IHs := fun ρ' Hρ' => proj2 (IH C (TPair (ar o) D :: Δ') ρ' HR1 HH HoH HcR1 HVs' HoVs' Hρ')).
    set (v := RNode (map (den ρ) Vs)).
    set (Fb := fun x => cden (envof x) (fill_c K (Op o (Var k)))).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    assert (EF : forall x, Fb x = CCall o (rnth k x) (fun y => kden (envof x) K (coerce decls locs (ar o) y))).
    { intros x. unfold Fb. rewrite cden_fill_c. reflexivity. }
    assert (Hvk : fits (coar o) (rnth k v)) by (apply (env_fits_envof Bs v Hv k (coar o) HBk)).
    assert (Epb : forall b d, RNode (map (den (scons (RNode [b; d]) ρ)) (Proj 0 (Var 0) :: map shift Vs)) = rcons b v).
    { intros b d. cbn [map]. rewrite map_map. unfold v. cbn [rcons]. f_equal. f_equal.
      apply map_ext. intros V. apply den_shift. }
    assert (EcohB : forall b, fits (ar o) b -> forall p, fits (tyof (rcons b v)) p ->
      cden (envof p) (fill_c (shift_frames K) (Ret (Var 0))) = ext Fb p).
    { intros b Hb p Hp. simpl in Hp. inversion Hp as [|? ps HFp]; subst.
      inversion HFp as [|? p0 ? ps' Hp0 HFps]; subst.
      unfold ext. cbn [rtail rnth nth]. rewrite EF, envof_cons, cden_fill_shift. cbn [cont].
      rewrite coerce_fits; [reflexivity|]. rewrite <- (fits_tyof_eq _ _ Hb). exact Hp0. }
    split.
    2: { change (cden (envof v) (fill_c K (Op o (Var k)))) with (Fb v). rewrite (EF v) at 1.
         split; [apply EF|]. split.
         - apply tsmooth_ext with (fun x => den (envof x) (Var k)); [intros x _; rewrite EF; reflexivity|].
           exact (tsmooth_den Bs (Var k) (coar o) v Hz I Hv).
         - split; [exact Hvk|]. intros b Hb.
           assert (Hd0 : fits D (den rho0 (zero D))) by apply (proj1 (den_zero decls locs D rho0)).
           assert (Hρ1 : env_fits (TPair (ar o) D :: Δ') (scons (RNode [b; den rho0 (zero D)]) ρ)).
           { apply env_fits_cons; [exact Hρ|]. constructor. constructor; [exact Hb|]. constructor; [exact Hd0|constructor]. }
           pose proof (IHs _ Hρ1) as S. rewrite Epb in S.
           replace (kden (envof v) K (coerce decls locs (ar o) b))
             with (cden (envof (rcons b v)) (fill_c (shift_frames K) (Ret (Var 0)))).
           2: { rewrite coerce_fits by exact Hb. unfold v. cbn [rcons]. rewrite envof_cons, cden_fill_shift. reflexivity. }
           apply (csmooth_ext C _ (fun x => cden (envof x) (fill_c (shift_frames K) (Ret (Var 0))))); [exact I| |exact S].
           intros p Hp. symmetry. apply (EcohB b Hb p Hp). }
    unfold revh. rewrite EF. cbn [revh_aux].
    unfold rh_op_out. cden_simpl.
    rewrite cden_subst1, (cden_typed_env _ _ _ HQf _ (scons (den ρ Vk) rho0))
      by (intros [|x] Hx; simpl in *; [reflexivity|lia]).
    rewrite <- Ef, <- (map_den_nth ρ Vs k Vk Hk). fold v.
    apply bind_ext_all with (fits (TPair (ar o) D)).
    { rewrite Ef. eapply cden_fits; [exact HQf|exact HoQf|].
      apply env_fits_cons; [apply env_fits_nil|exact Hvk]. }
    intros bd Hbd.
    inversion Hbd as [|? bds HFbd]; subst. inversion HFbd as [|? b ? ds Hb HFd]; subst.
    inversion HFd as [|? d ? ds' Hd HFd']; subst. inversion HFd'; subst.
    cbn [rnth nth]. rewrite (coerce_fits _ _ _ _ Hb). cden_simpl.
    (* the rest of the chain *)
    rewrite (IHe (scons (RNode [b; d]) ρ)).
    + cbn [map]. rewrite map_map.
      assert (Em : map (fun x => den (scons (RNode [b; d]) ρ) (shift x)) Vs = map (den ρ) Vs)
        by (apply map_ext; intros V; apply den_shift).
      rewrite Em. change (den (scons (RNode [b; d]) ρ) (Proj 0 (Var 0))) with b.
      change (RNode (b :: map (den ρ) Vs)) with (rcons b v).
      assert (Ecoh : forall p, fits (tyof (rcons b v)) p ->
        cden (envof p) (fill_c (shift_frames K) (Ret (Var 0))) = ext Fb p).
      { intros p Hp. simpl in Hp. inversion Hp as [|? ps HFp]; subst.
        inversion HFp as [|? p0 ? ps' Hp0 HFps]; subst.
        unfold ext. cbn [rtail rnth nth]. rewrite EF, envof_cons, cden_fill_shift. cbn [cont].
        rewrite coerce_fits; [reflexivity|]. rewrite <- (fits_tyof_eq _ _ Hb). exact Hp0. }
      unfold revh.
      replace (cden (envof (rcons b v)) (fill_c (shift_frames K) (Ret (Var 0)))) with (kden (envof v) K b)
        by (unfold v; cbn [rcons]; rewrite envof_cons, cden_fill_shift; reflexivity).
      rewrite (revh_ext _ _ (fun x => cden (envof x) (fill_c (shift_frames K) (Ret (Var 0)))) (ext Fb))
        by (exact I || exact Ecoh).
      apply bind_ext_all with (fits (tyof (rcons b v))); [apply revh_fits; exact I|].
      intros q Hq.
      assert (Hq' : fits (TProd (ar o :: Bs)) q).
      { assert (Et : tyof (rcons b v) = TProd (ar o :: Bs)).
        { unfold v. rewrite (tyof_rcons_node b (map (den ρ) Vs) Bs (fits_tyof_eq _ _ Hv)), (fits_tyof_eq _ _ Hb).
          reflexivity. }
        rewrite Et in Hq. exact Hq. }
      inversion Hq' as [|? qs' HFq]; subst. inversion HFq as [|? q0 ? qs Hq0 HFqs]; subst.
      cden_simpl. rewrite cden_subst, (cden_typed_env _ _ _ HQb _ (scons q0 (scons d rho0))).
      2: { intros [|[|x]] Hx; simpl in *; try reflexivity; lia. }
      rewrite <- Eb. cbn [rnth nth].
      apply bind_ext_all with (fits (coar o)).
      { rewrite Eb. eapply cden_fits; [exact HQb|exact HoQb|].
        apply env_fits_cons; [apply env_fits_cons; [apply env_fits_nil|exact Hd]|exact Hq0]. }
      intros ab Hab. cden_simpl. f_equal.
      cbn [rtail]. rewrite (rd_den_ext_fits ab v (fun x => harg (Fb x)) (rnth k))
        by (intros x _; rewrite EF; reflexivity).
      rewrite (radd_onehot Bs qs k (coar o) ab _ HFqs HBk Hab (rd_den_proj Bs k (coar o) v ab Hv HBk Hab)).
      assert (Hlq : length qs = length Bs) by (symmetry; eapply Forall2_length'; eauto).
      assert (Hkl : (k < length qs)%nat) by (rewrite Hlq; apply nth_error_Some; congruence).
      rewrite <- (map_update_seq qs k _ Hkl).
      unfold rh_op_result. cbn [den]. rewrite map_map, Hlq. f_equal. apply map_ext. intros i.
      destruct (Nat.eqb_spec i k) as [->|Hne]; [|reflexivity].
      destruct (Forall2_nth_error _ _ _ _ _ HFqs HBk) as [qk [Hqk HqkA]].
      assert (Eqk : nth k qs (RNode []) = qk) by (apply nth_error_nth; exact Hqk).
      assert (Hpl := den_plus (coar o) (scons ab (scons (RNode (q0 :: qs)) (scons (RNode [b; d]) ρ)))
                       (Proj (S k) (Var 1)) (Var 0)).
      set (ρ3 := scons ab (scons (RNode (q0 :: qs)) (scons (RNode [b; d]) ρ))) in *.
      assert (E1 : den ρ3 (Proj (S k) (Var 1)) = qk) by (simpl; exact Eqk).
      assert (E0 : den ρ3 (Var 0) = ab) by reflexivity.
      rewrite E1, E0 in Hpl. rewrite Eqk. destruct (Hpl HqkA Hab) as [P1 P2].
      apply fits_eq with (coar o); [exact P1| |].
      * unfold radd. apply reshape_keeps; [exact HqkA|].
        rewrite length_vp, (fits_len _ _ HqkA), (fits_len _ _ Hab). lia.
      * etransitivity; [exact P2|]. unfold radd. rewrite (reshape_rflat (coar o)); auto.
        rewrite length_vp, (fits_len _ _ HqkA), (fits_len _ _ Hab). lia.
    + apply env_fits_cons; [exact Hρ|]. constructor. constructor; [exact Hb|]. constructor; [exact Hd|constructor].
  - (* rh_rev *)
    apply fill_c_typed_inv in HR as HR0. destruct HR0 as [A [HA HK]].
    inversion HA as [| | |? ? ? ? As C1 HM HR1 HH1]; subst.
    inversion HM as [? ? ? Hz'| | | | | | |]; subst.
    rewrite Hz in Hz'. injection Hz' as <-.
    apply chaing_fill_c in Hvb. destruct Hvb as [[_ [Hc1 HcH1]] HcK].
    assert (HoH1 := chaingh_okh H1 HcH1).
    assert (HVs1 : Forall2 (typed_tm Bs) (proj_list z (length As1)) As1).
    { unfold proj_list. apply Forall2_map_seq. intros i B HiB. econstructor; [constructor; exact Hz|exact HiB]. }
    assert (HoVs1 : Forall okp (proj_list z (length As1))).
    { unfold proj_list. apply Forall_forall. intros N HN. apply in_map_iff in HN. destruct HN as [i [<- _]]. exact I. }
    assert (HRK : typed_cmd Bs (fill_c K R1') C).
    { eapply fill_c_typed; [exact HK|]. eapply rh_typed; [exact Hrec1|exact HR1|exact HH1|exact HVs1]. }
    assert (HcRK : chaing (fill_c K R1')).
    { apply chaing_fill_c. split; [|exact HcK].
      apply (rh_chaing _ _ _ _ _ Hrec1 HcH1 (okg_proj_list z (length As1)) Hc1). }
    destruct (IH2 C Δ' ρ HRK HH HoH HcRK HVs HoVs Hρ) as [E2 S2].
    set (v := RNode (map (den ρ) Vs)) in *.
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    assert (EF : forall x, fits (tyof v) x ->
      cden (envof x) (fill_c K R1') = cden (envof x) (fill_c K (RevHandle (Var z) R1 H1))).
    { intros x Hx. rewrite (fits_tyof_eq _ _ Hv) in Hx. rewrite !cden_fill_c. f_equal.
      assert (Hxz : fits (TProd As1) (envof x z)) by exact (env_fits_envof Bs x Hx z _ Hz).
      destruct (IH1 C1 Bs (envof x) HR1 HH1 HoH1 (chain1_chaing _ Hc1) HVs1 HoVs1 (env_fits_envof Bs x Hx)) as [E1 _].
      rewrite E1, cden_revhandle. f_equal.
      destruct (fits_prod_inv _ _ Hxz) as [ts [Ets HFts]].
      unfold proj_list. rewrite map_map. cbn [den]. rewrite Ets.
      f_equal. etransitivity; [|exact (map_nth_seq0 ts)]. f_equal. f_equal. exact (Forall2_length' _ _ _ HFts). }
    split.
    + rewrite E2. unfold revh. rewrite (EF v (fits_tyof v)). apply revh_ext; [exact I|exact EF].
    + rewrite <- (EF v (fits_tyof v)).
      apply csmooth_ext with (fun x => cden (envof x) (fill_c K R1')); [exact I| |exact S2].
      intros x Hx. symmetry. apply EF, Hx.
  - (* rh_term *)
    unfold fill_t in Hvb. apply chaing_fill_c in Hvb. destruct Hvb as [HcF HcK].
    assert (HcM : okg 2 M) by (destruct F as [|o'|R0 H0]; cbn [plug_t chaing] in HcF; tauto).
    unfold fill_t in HR. apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    destruct (plug_t_typed_inv _ _ _ _ HA) as [B'' [HM HF']].
    rewrite (infer_tm_complete _ _ _ HM) in Hinf. injection Hinf as <-.
    set (v := RNode (map (den ρ) Vs)).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    assert (Hlen : length Vs = length Bs) by (eapply Forall2_length'; eauto).
    set (Mf := fun x => den (envof x) M).
    assert (HsM : tsmooth Mf v) by exact (tsmooth_den Bs M B'' v HM HcM Hv).
    assert (Ew : den ρ (subst_tm (list_subst Vs) M) = Mf v).
    { rewrite den_subst. unfold Mf. apply (den_typed_env _ _ _ HM). intros x Hx.
      unfold list_subst, envof, v, rnth.
      rewrite (nth_indep (map (den ρ) Vs) (RNode []) (den ρ (Var (x - length Vs))))
        by (rewrite map_length; lia).
      rewrite map_nth. reflexivity. }
    assert (Hw : fits B'' (Mf v)).
    { unfold Mf. eapply (den_fits_g decls locs 2 Bs M B'' HM HcM). apply env_fits_envof. exact Hv. }
    set (R1 := fill_t (shift_frames K) F (Var 0)).
    assert (HR1 : typed_cmd (B'' :: Bs) R1 C).
    { unfold R1, fill_t. eapply fill_c_typed; [apply typed_frames_shift; exact HK|]. apply HF'. constructor. reflexivity. }
    assert (HcR1 : chaing R1).
    { unfold R1, fill_t. apply chaing_fill_c. split; [|apply chaing_shift_frames; exact HcK].
      destruct F; cbn [plug_t chaing okg] in HcF |- *; tauto. }
    destruct (IH C (B'' :: Δ') (scons (Mf v) ρ) HR1 HH HoH HcR1) as [IHe IHs].
    { constructor; [constructor; reflexivity|]. apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
      intros V B HV. apply typed_tm_shift. exact HV. }
    { constructor; [exact I|]. apply Forall_map. eapply Forall_impl; [|exact HoVs].
      intros V HV. apply okp_ren. exact HV. }
    { apply env_fits_cons; [exact Hρ|exact Hw]. }
    assert (Ept : RNode (map (den (scons (Mf v) ρ)) (Var 0 :: map shift Vs)) = rcons (Mf v) v).
    { cbn [map]. rewrite map_map. unfold v. cbn [rcons]. f_equal. f_equal.
      apply map_ext. intros V. apply den_shift. }
    rewrite Ept in IHe, IHs.
    set (G := fun x => cden (envof x) R1) in *.
    assert (EFG : forall x, is_node x -> cden (envof x) (fill_t K F M) = G (letmap Mf x)).
    { intros [|xs] Hx; [contradiction|]. unfold G, letmap, R1. cbn [rcons]. rewrite envof_cons.
      unfold Mf. symmetry. apply cden_fill_t_let. }
    assert (Hnode : forall x, fits (tyof v) x -> is_node x).
    { intros x Hx. rewrite (fits_tyof_eq _ _ Hv) in Hx. destruct (fits_prod_inv _ _ Hx) as [? [-> _]]. exact I. }
    destruct (tsmooth_let Mf (map (den ρ) Vs) HsM) as [Hlet Erd]. fold v in Hlet, Erd.
    assert (Hok := hden_ok H C HH HoH).
    split.
    2: { rewrite (EFG v I) at 1.
         apply (csmooth_comp C (G (letmap Mf v)) G (letmap Mf) v); [exact I|apply is_node_rcons|exact Hlet| |exact IHs].
         intros x Hx. apply EFG, Hnode, Hx. }
    assert (Eh : revh (hden H) (fun x => cden (envof x) (fill_t K F M)) v =
                 bind (revh (hden H) G (rcons (Mf v) v)) (fun q => CRet (rd_den q v (letmap Mf)))).
    { unfold revh. rewrite (EFG v I). change (rcons (Mf v) v) with (letmap Mf v).
      apply (revh_comp C (hden H) Hok (G (letmap Mf v)) G (letmap Mf) v); [exact I|apply is_node_rcons|exact Hlet| |exact IHs].
      intros x Hx. apply EFG, Hnode, Hx. }
    rewrite Eh. unfold rh_term_out. rewrite cden_clet, cden_ret. cbn [bind]. rewrite Ew, cden_clet, IHe.
    apply bind_ext_all with (fits (tyof (rcons (Mf v) v))); [unfold revh; apply revh_fits, is_node_rcons|].
    intros q Hq. rewrite (Erd q Hq). rewrite cden_clet, cden_ret. cbn [bind]. rewrite cden_ret. f_equal.
    destruct (fits_rcons_inv _ _ q Hq) as [q0 [qs [-> [Hq0 Hqs]]]]. cbn [rnth nth rtail].
    set (w := Mf v).
    set (y := rd_den q0 v Mf).
    assert (Ey : den (scons (RNode (q0 :: qs)) (scons w ρ))
                   (Rd (Proj 0 (Var 0)) (subst_tm (fun i => Proj i (Var 0)) M)
                       (Tuple (map (ren_tm (fun x => S (S x))) Vs))) = y).
    { rewrite den_Rd. unfold y. f_equal.
      - change (den (scons (RNode (q0 :: qs)) (scons w ρ)) (Tuple (map (ren_tm (fun x => S (S x))) Vs)))
          with (RNode (map (den (scons (RNode (q0 :: qs)) (scons w ρ))) (map (ren_tm (fun x => S (S x))) Vs))).
        rewrite map_map. unfold v. f_equal. apply map_ext. intros V. rewrite den_ren. reflexivity.
      - apply functional_extensionality. intros a. rewrite den_subst. reflexivity. }
    rewrite Ey.
    assert (Hy : fits (TProd Bs) y) by (rewrite <- (fits_tyof_eq _ _ Hv); apply rd_den_fits).
    destruct (fits_prod_inv _ _ Hy) as [ys [Ey' HFys]]. rewrite Ey'.
    assert (HFqs : Forall2 fits Bs qs).
    { fold v in Hqs. rewrite (fits_tyof_eq _ _ Hv) in Hqs. inversion Hqs; subst. assumption. }
    rewrite (radd_node Bs qs ys HFqs HFys).
    rewrite rh_term_result_nth.
    change (den ?r (Tuple ?Ms)) with (RNode (map (den r) Ms)).
    rewrite map_map. f_equal.
    apply map_ext_in. intros i Hi. apply in_seq in Hi.
    assert (Hi' : (i < length Bs)%nat) by (destruct Hi as [_ Hi]; exact Hi).
    assert (HBi : nth_error Bs i = Some (nth i Bs (TProd []))) by (apply nth_error_nth'; exact Hi').
    set (Bi := nth i Bs (TProd [])) in *.
    destruct (Forall2_nth_error _ _ _ _ _ HFqs HBi) as [qi [Hqi HqiB]].
    destruct (Forall2_nth_error _ _ _ _ _ HFys HBi) as [yi [Hyi HyiB]].
    set (ρ3 := scons (RNode ys) (scons (RNode (q0 :: qs)) (scons w ρ))).
    assert (E1 : den ρ3 (Proj (S i) (Var 1)) = qi) by (simpl; apply nth_error_nth; exact Hqi).
    assert (E2 : den ρ3 (Proj i (Var 0)) = yi) by (simpl; apply nth_error_nth; exact Hyi).
    assert (Hpl := den_plus Bi ρ3 (Proj (S i) (Var 1)) (Proj i (Var 0))).
    rewrite E1, E2 in Hpl. destruct (Hpl HqiB HyiB) as [P1 P2].
    rewrite (nth_error_nth _ _ _ Hqi), (nth_error_nth _ _ _ Hyi).
    destruct (radd_fits _ _ _ HqiB HyiB) as [P3 P4].
    apply fits_eq with Bi; [exact P1|exact P3|]. etransitivity; [exact P2|]. rewrite P4. reflexivity.
Qed.


(** [RH] computes the meaning of [rev handle] for bodies of the wider
    fragment ([chaing]): chains of operations whose arguments, results
    and [let]-bound pure computations are terms of the fragment of the
    term-level soundness ([okg 2]), and whose nested [rev handle]s have
    [chain1] bodies and [chaing] clauses.  The rewriting then uses RH-1a,
    RH-1b, RH-2, RH-3 and RH-4 in every evaluation position.  A handler whose clauses are in the fragment ([okh]) and
    arguments [V⃗] in the fragment: [⟦RH^{V⃗}_H(<y⃗>.R)⟧ρ] is the
    forward/backward pass of [H] over [R] at [⟦V⃗⟧ρ]. *)
Theorem rh_den H Bs Vs R R' : rh H Bs Vs R R' ->
  forall C Δ' ρ, typed_cmd Bs R C -> typed_handler H C -> okh H -> chaing R ->
  Forall2 (typed_tm Δ') Vs Bs -> Forall okp Vs -> env_fits Δ' ρ ->
  cden ρ R' = revh (hden H) (fun x => cden (envof x) R) (RNode (map (den ρ) Vs)).
(** Informal proof: [rh_den_smooth]. *)
Proof. intros Hrh C Δ' ρ HR HH HoH Hc HVs HoVs Hρ. apply (rh_den_smooth H Bs Vs R R' Hrh C Δ' ρ); auto. Qed.
(** ** Programs of the fragment *)
(** [okr P]: every term of [P] is [okp], and the body of every
    [rev handle] of [P] (in its clauses too) is a [chaing]: a chain of
    operations, [⌊M⌋] and [let]s on terms of the fragment ([okg 2]), its
    nested [rev handle]s with [chain1] bodies. *)
Fixpoint okr (P : cmd) : Prop :=
  match P with
  | Ret M | Op _ M => okp M
  | CLet P Q => okr P /\ okr Q
  | RevHandle M R H => okp M /\ chaing R /\ okrh H
  end
with okrh (H : handler) : Prop :=
  match H with Handler P cls => okr P /\ okrcls cls end
with okrcls (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => okr Qf /\ okr Qb /\ okrcls rest
  end.

Lemma okr_okc_all :
  (forall P, okr P -> okc P) /\ (forall H, okrh H -> okh H) /\ (forall cls, okrcls cls -> okcls cls).
Proof.
  apply cmd_mutind; simpl; intros; try tauto.
  destruct H2 as [? [? ?]]. split; [auto|]. split; [apply chaing_okc; auto|auto].
Qed.

Lemma okr_okc P : okr P -> okc P.
Proof. apply okr_okc_all. Qed.

Lemma okrh_okh H : okrh H -> okh H.
Proof. apply okr_okc_all. Qed.

Lemma okrh_clause H o D Qf Qb : okrh H -> clause_of H o = (D, Qf, Qb) -> okr Qf /\ okr Qb.
Proof. handler_clause_ok. Qed.

Lemma okr_fill_c K : forall P, okr (fill_c K P) <-> okr P /\ Forall okr K.
Proof. apply fill_c_all. intros; reflexivity. Qed.


(** ** Every step of a program of the fragment keeps its meaning *)
(** [prog_den hp P]: the value and heap [P] denotes from [hp]. *)
Theorem step_conf_den hp P hp' P' A :
  heap_fits hp -> typed_cmd [] P A -> okr P -> step_conf hp P hp' P' ->
  prog_den hp P = prog_den hp' P'.
(** Informal proof: by cases on the step.  A term step keeps the
    denotation of the term ([steps_den_all], the terms being [okp]); the
    [let] step is the substitution lemma; [Get] and [Put] are answered by
    [hrun] as the heap steps do (the heap's constants have the lengths of
    their locations, [Put]'s constant the type of its location); the
    [rev handle] step is [rh_den] at the empty context.  In each case
    the rest of the program, the frames [F^c], runs on the same value
    and heap ([hrun_fill_c]). *)
Proof.
  intros Hhp HP Ho Hstep. unfold prog_den.
  destruct Hstep as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - destruct Hs as [K F M M' P P' HMM' -> ->
                   |K V Q P P' HV -> ->
                   |K Vs Bs R H R' P P' HVs Hinf Hrh -> ->].
    + (* step_cmd_term *)
      f_equal. eapply step_cmd_term_den; [exact HP|apply okr_okc; exact Ho|exact HMM'].
    + (* step_cmd_let_val *)
      f_equal. rewrite !cden_fill_c. f_equal. apply let_val_den.
    + (* step_cmd_revhandle *)
      f_equal. rewrite !cden_fill_c. f_equal.
      apply fill_c_typed_inv in HP. destruct HP as [B [HB _]].
      inversion HB as [| | |? ? ? ? As C HM HR HH]; subst.
      rewrite (infer_tm_complete _ _ _ HM) in Hinf. injection Hinf as ->.
      inversion HM as [| | | |? ? ? HVs'| | |]; subst.
      apply okr_fill_c in Ho. destruct Ho as [[HoM [Hvb HoH]] _].
      cden_simpl. symmetry.
      apply (rh_den H Bs Vs R R' Hrh C [] rho0 HR HH (okrh_okh _ HoH) Hvb HVs'); [|apply env_fits_nil].
      apply okp_tuple. exact HoM.
  - (* step_conf_get *)
    apply step_get_den. exact Hhp.
  - (* step_conf_put *)
    eapply step_put_den. exact HP.
Qed.

End sound.

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
      for bodies that are chains of operations on variables whose final
      result may be any term of the fragment ([chainb]: the rewriting uses
      RH-1a, RH-1b, RH-2, and RH-4 for the result only), and
      [step_conf_den]: every step of a program of that fragment ([okr])
      keeps its meaning.  RH-4 before the last operation and RH-3 are not
      covered ([docs/decisions.md], "What a rev handle means over ℝ"). *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coq Require Import Relation_Operators.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem cmd_ctx cmd_sem rh instance.
From RevHandlers.Analysis Require Import vec templates sums prims denot rdden rdprim rdcalc rdsound rdsound_all rdsound_eval cmd_den.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

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

Lemma okc_fill_c K : forall P, okc (fill_c K P) <-> okc P /\ Forall okc K.
Proof.
  induction K as [|Q K IH]; intros P; simpl.
  - split; [intros; split; auto|tauto].
  - rewrite IH. simpl. split; [intros [[? ?] ?]; split; auto|intros [? HF]; inversion HF; subst; tauto].
Qed.

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
  - cbn. unfold vzero. apply repeat_length.
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

(** ** The fragment of bodies: chains of operations on variables *)
(** [varbody R]: every argument of a [⌊M⌋] or [Op(M)] of [R] is a
    variable, and [R] has no nested [rev handle] (see [rh_den]). *)
Fixpoint varbody (R : cmd) : Prop :=
  match R with
  | Ret M | Op _ M => match M with Var _ => True | _ => False end
  | CLet P Q => varbody P /\ varbody Q
  | RevHandle _ _ _ => False
  end.

Lemma varbody_fill_c K : forall P, varbody (fill_c K P) <-> varbody P /\ Forall varbody K.
Proof.
  induction K as [|Q K IH]; intros P; simpl.
  - split; [intros; split; auto|tauto].
  - rewrite IH. simpl. split; [intros [[? ?] ?]; split; auto|intros [? HF]; inversion HF; subst; tauto].
Qed.

Lemma varbody_ren P : forall ξ, varbody P -> varbody (ren_cmd ξ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ HP; simpl in *; auto.
  - destruct M; simpl; auto.
  - destruct M; simpl; auto.
  - destruct HP. split; auto.
Qed.

Lemma varbody_subst P : forall σ, (forall x, exists y, σ x = Var y) -> varbody P -> varbody (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ HP; simpl in *; auto.
  - destruct M; try contradiction. simpl. destruct (Hσ x) as [y ->]. exact I.
  - destruct M; try contradiction. simpl. destruct (Hσ x) as [y ->]. exact I.
  - destruct HP. split; auto. apply IHQ; auto.
    intros [|x]; simpl; [eauto|]. destruct (Hσ x) as [y ->]. eexists. reflexivity.
Qed.

(** [chainb R]: a chain of operations on variables whose last command
    may return any term of the fragment ([okg 2]): the bodies whose
    rewriting uses RH-1a, RH-1b, RH-2, and RH-4 for the final result. *)
Fixpoint chainb (R : cmd) : Prop :=
  match R with
  | Ret M => okg 2 M
  | Op _ M => match M with Var _ => True | _ => False end
  | CLet P Q => varbody P /\ chainb Q
  | RevHandle _ _ _ => False
  end.

Lemma varbody_chainb R : varbody R -> chainb R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; simpl; auto; try tauto.
  destruct M; simpl; tauto.
Qed.

Lemma chainb_fill_c_inv K : forall P, chainb (fill_c K P) -> (K = [] /\ chainb P) \/ varbody P.
Proof.
  induction K as [|Q K IH]; intros P H; simpl in *; [auto|].
  destruct (IH _ H) as [[-> [HP _]]|[HP _]]; right; exact HP.
Qed.

Lemma chainb_fill_c_map K : forall P P' ξ, (chainb P -> chainb P') -> (varbody P -> varbody P') ->
  (forall Q, chainb Q -> chainb (ren_cmd ξ Q)) ->
  chainb (fill_c K P) -> chainb (fill_c (map (ren_cmd ξ) K) P').
Proof.
  induction K as [|Q K IH]; intros P P' ξ Hc Hv Hr H; simpl in *; [auto|].
  apply (IH (CLet P Q)); auto.
  - simpl. intros [HP HQ]. split; auto.
  - simpl. intros [HP HQ]. split; auto. apply varbody_ren. exact HQ.
Qed.

Lemma chainb_fill_c_mono K : forall P P', (chainb P -> chainb P') -> (varbody P -> varbody P') ->
  chainb (fill_c K P) -> chainb (fill_c K P').
Proof.
  induction K as [|Q K IH]; intros P P' Hc Hv H; simpl in *; [auto|].
  apply (IH (CLet P Q)); auto; simpl; tauto.
Qed.

Lemma chainb_subst P : forall σ, (forall x, exists y, σ x = Var y) -> chainb P -> chainb (subst_cmd σ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ HP; simpl in *; auto.
  - apply okg_subst; auto. intros x. destruct (Hσ x) as [y ->]. exact I.
  - destruct M; try contradiction. simpl. destruct (Hσ x) as [y ->]. exact I.
  - destruct HP. split; [apply varbody_subst; auto|]. apply IHQ; auto.
    intros [|x]; simpl; [eauto|]. destruct (Hσ x) as [y ->]. eexists. reflexivity.
Qed.

Lemma chainb_ren P : forall ξ, chainb P -> chainb (ren_cmd ξ P).
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ HP; simpl in *; auto.
  - apply okg_ren. exact HP.
  - destruct M; simpl; auto.
  - destruct HP. split; [apply varbody_ren; auto|auto].
Qed.

Lemma okh_clause H o D Qf Qb : okh H -> clause_of H o = (D, Qf, Qb) -> okc Qf /\ okc Qb.
Proof.
  destruct H as [P cls]. simpl. intros [_ Hcls].
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hf.
  - intros [= <- <- <-]. clear P. induction cls as [|o' D0 Qf0 Qb0 rest IH]; simpl in *; [discriminate|].
    destruct Hcls as [H1 [H2 H3]]. destruct (opsym_eq_dec o o'); [injection Hf as <- <- <-; auto|auto].
  - unfold default_clause. intros [= <- <- <-]. simpl. split.
    + split; [exact I|]. split; [exact I|]. split; [reflexivity|exact I].
    + eapply okg_okp with 0%nat; [lia|]. apply okg_zero.
Qed.

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

(** ** [RH] computes the meaning of [rev handle] *)
(** For a body [R] that is a chain of operations on variables whose final
    result may be any [okg 2] term ([chainb]: the rewriting uses RH-1a,
    RH-1b, RH-2, and RH-4 for the result), a handler whose clauses are in
    the fragment ([okh]) and arguments [V⃗] in the fragment:
    [⟦RH^{V⃗}_H(<y⃗>.R)⟧ρ] is the forward/backward pass of [H] over [R] at
    [⟦V⃗⟧ρ]. *)
Theorem rh_den H Bs Vs R R' : rh H Bs Vs R R' ->
  forall C Δ' ρ, typed_cmd Bs R C -> typed_handler H C -> okh H -> chainb R ->
  Forall2 (typed_tm Δ') Vs Bs -> Forall okp Vs -> env_fits Δ' ρ ->
  cden ρ R' = revh (hden H) (fun x => cden (envof x) R) (RNode (map (den ρ) Vs)).
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
    - RH-4 at the final result [⌊M⌋]: both sides run the return clause
      at [⟦M⟧] and answer [rd_den c̄ ⟦V⃗⟧ ⟦M⟧]: on the side of [RH], the
      recursive call is RH-1a for [⌊w⌋], whose cotangent is [<c̄, 0, …, 0>]
      ([rd_den_proj]), the [rd] term is [rd_den c̄ ⟦V⃗⟧ ⟦M⟧] by the
      definition of [den], and the sum with the zeros is that.
    - RH-3 and RH-4 before the last operation do not occur for [chainb]
      bodies. *)
Proof.
  induction 1 as [H Bs Vs k Vk Hk
                 |H Bs Vs K z Q R' Hrec IH
                 |H Bs Vs K o k Vk D Qf Qb Rrec Hk Hcl Hrec IH
                 |H Bs Vs K z As1 R1 H1 R1' R' Hz Hrec1 IH1 Hrec2 IH2
                 |H Bs Vs K F M B' Rrec Hnv Hinf Hrec IH];
    intros C Δ' ρ HR HH HoH Hvb HVs HoVs Hρ.
  - (* rh_ret *)
    inversion HR as [? ? ? HM| | |]; subst. inversion HM as [? ? ? HkC| | | | | | |]; subst.
    set (v := RNode (map (den ρ) Vs)).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    unfold rh_ret_out, revh. cden_simpl. cbn [revh_aux harg].
    rewrite cden_subst1, (cden_typed_env _ _ _ (ret_clause_typed _ _ HH) _ (scons (den ρ Vk) rho0))
      by (intros [|x] Hx; simpl in *; [reflexivity|lia]).
    rewrite <- hden_ret, <- (map_den_nth ρ Vs k Vk Hk). fold v.
    assert (Hvk : fits C (rnth k v)) by (apply (env_fits_envof Bs v Hv k C HkC)).
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
    assert (Hσ : forall x, exists y, list_subst [Var z] x = Var y).
    { intros [|x]; unfold list_subst; simpl; [eauto|]. destruct x; simpl; eexists; reflexivity. }
    rewrite (IH C Δ' ρ); auto.
    + f_equal. apply functional_extensionality. intros x.
      rewrite fill_c_cons, !cden_fill_c, let_val_den. reflexivity.
    + eapply fill_c_typed; [exact HK'|].
      eapply typed_cmd_subst; [exact HQ|].
      apply (subst_ok_list [Var z] [A]). constructor; [exact Hz|constructor].
    + rewrite fill_c_cons in Hvb. eapply chainb_fill_c_mono; [| |exact Hvb]; simpl.
      * intros [_ HQ']. apply chainb_subst; auto.
      * intros [_ HQ']. apply varbody_subst; auto.
  - (* rh_op *)
    apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    inversion HA as [|? ? ? Hz| |]; subst.
    inversion Hz as [? ? ? Hk'| | | | | | |]; subst.
    destruct (Forall2_nth_error _ _ _ _ _ HVs Hk) as [Bk [HBk HVk]].
    rewrite HBk in Hk'. injection Hk' as ->.
    destruct (clause_of_typed _ _ _ _ _ _ HH Hcl) as [HQf HQb].
    destruct (okh_clause _ _ _ _ _ HoH Hcl) as [HoQf HoQb].
    destruct (hden_clause decls locs _ _ _ _ _ Hcl) as [Ef Eb].
    set (v := RNode (map (den ρ) Vs)).
    set (Fb := fun x => cden (envof x) (fill_c K (Op o (Var k)))).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    assert (EF : forall x, Fb x = CCall o (rnth k x) (fun y => kden (envof x) K (coerce decls locs (ar o) y))).
    { intros x. unfold Fb. rewrite cden_fill_c. reflexivity. }
    assert (Hvk : fits (coar o) (rnth k v)) by (apply (env_fits_envof Bs v Hv k (coar o) HBk)).
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
    rewrite (IH C (TPair (ar o) D :: Δ') (scons (RNode [b; d]) ρ)); auto.
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
    + eapply fill_c_typed; [apply typed_frames_shift; exact HK|].
      constructor. constructor. reflexivity.
    + unfold shift_frames. eapply chainb_fill_c_map; [| | |exact Hvb]; simpl; auto.
      intros Q HQ. apply chainb_ren. exact HQ.
    + constructor.
      * econstructor; [constructor; reflexivity|reflexivity].
      * apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
        intros V B HV. apply typed_tm_shift. exact HV.
    + constructor; [exact I|]. apply Forall_map. eapply Forall_impl; [|exact HoVs].
      intros V HV. apply okp_ren. exact HV.
    + apply env_fits_cons; [exact Hρ|]. constructor. constructor; [exact Hb|]. constructor; [exact Hd|constructor].
  - (* rh_rev: no nested rev handle in a chainb body *)
    destruct (chainb_fill_c_inv K _ Hvb) as [[_ []]|[]].
  - (* rh_term: in a chainb body, only the final result is a term that is not a variable *)
    unfold fill_t in Hvb. destruct (chainb_fill_c_inv K _ Hvb) as [[-> Hc]|Hv].
    2: { destruct F; simpl in Hv; try contradiction; destruct M; try contradiction; exact (Hnv I). }
    destruct F as [|o'|R0 H0]; simpl in Hc; [|destruct M; try contradiction; exact (Hnv I)|contradiction].
    unfold fill_t in HR. cbn [fill_c plug_t fold_left] in HR.
    inversion HR as [? ? ? HM| | |]; subst.
    rewrite (infer_tm_complete _ _ _ HM) in Hinf. injection Hinf as <-.
    set (v := RNode (map (den ρ) Vs)).
    assert (Hv : fits (TProd Bs) v) by (eapply fits_map_den; eauto).
    assert (Hlen : length Vs = length Bs) by (eapply Forall2_length'; eauto).
    set (Mf := fun x => den (envof x) M).
    assert (Ew : den ρ (subst_tm (list_subst Vs) M) = Mf v).
    { rewrite den_subst. unfold Mf. apply (den_typed_env _ _ _ HM). intros x Hx.
      unfold list_subst, envof, v, rnth.
      rewrite (nth_indep (map (den ρ) Vs) (RNode []) (den ρ (Var (x - length Vs))))
        by (rewrite map_length; lia).
      rewrite map_nth. reflexivity. }
    assert (Hw : fits C (Mf v)).
    { unfold Mf. eapply (den_fits_g decls locs 2 Bs M C HM Hc). apply env_fits_envof. exact Hv. }
    unfold rh_term_out. cden_simpl. cden_simpl. cbn [bind]. rewrite Ew. cden_simpl.
    rewrite (IH C (C :: Δ') (scons (Mf v) ρ)).
    2: { constructor. constructor. reflexivity. }
    2, 3: assumption.
    2: { exact I. }
    2: { constructor; [constructor; reflexivity|]. apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
         intros V B HV. apply typed_tm_shift. exact HV. }
    2: { constructor; [exact I|]. apply Forall_map. eapply Forall_impl; [|exact HoVs].
         intros V HV. apply okp_ren. exact HV. }
    2: { apply env_fits_cons; [exact Hρ|exact Hw]. }
    cbn [map]. rewrite map_map.
    assert (Em : map (fun x => den (scons (Mf v) ρ) (shift x)) Vs = map (den ρ) Vs)
      by (apply map_ext; intros V; apply den_shift).
    rewrite Em. fold v. unfold revh. cbn [revh_aux fill_t fill_c plug_t shift_frames map fold_left].
    cden_simpl. cbn [harg revh_aux]. rewrite bind_assoc. cbn [bind].
    apply bind_ext_all with (fits C).
    { rewrite hden_ret. eapply cden_fits; [apply ret_clause_typed; exact HH|apply okh_ret; exact HoH|].
      apply env_fits_cons; [apply env_fits_nil|exact Hw]. }
    intros cb Hcb. cbv beta. cbn [bind]. cden_simpl. cbn [bind]. cden_simpl. f_equal.
    set (w := Mf v).
    assert (Hv' : fits (TProd (C :: Bs)) (RNode (den (scons w ρ) (Var 0) :: map (den ρ) Vs))).
    { inversion Hv; subst. constructor. constructor; assumption. }
    set (q := rd_den cb (RNode (den (scons w ρ) (Var 0) :: map (den ρ) Vs))
                (fun x => harg (cden (envof x) (Ret (Var 0))))).
    assert (Hqf : rflat q = rflat cb ++ zeros (dsum (map dim Bs))).
    { pose proof (rd_den_proj (C :: Bs) 0 C _ cb Hv' eq_refl Hcb) as E.
      rewrite off_0 in E. cbn [map dsum fold_right] in E. unfold dsum in *.
      replace (dim C + fold_right Nat.add 0%nat (map dim Bs) - 0 - dim C)%nat
        with (fold_right Nat.add 0%nat (map dim Bs)) in E by lia. exact E. }
    assert (Hq : fits (TProd (C :: Bs)) q).
    { rewrite <- (fits_tyof_eq _ _ Hv'). apply rd_den_fits. }
    destruct (fits_cons_inv _ _ _ Hq) as [q0 [qs [Eq [Hq0 HFqs]]]].
    rewrite Eq in Hqf. rewrite rflat_node in Hqf. cbn [map concat] in Hqf.
    destruct (app_eq_len _ _ _ _ Hqf) as [E0 Ez].
    { rewrite (fits_len _ _ Hq0), (fits_len _ _ Hcb). reflexivity. }
    assert (Eq0 : q0 = cb) by (apply fits_eq with C; auto).
    subst q0. rewrite Eq.
    set (y := rd_den cb v Mf).
    assert (Ey : den (scons (RNode (cb :: qs)) (scons w ρ))
                   (Rd (Proj 0 (Var 0)) (subst_tm (fun i => Proj i (Var 0)) M)
                       (Tuple (map (ren_tm (fun x => S (S x))) Vs))) = y).
    { rewrite den_Rd. unfold y. f_equal.
      - change (den (scons (RNode (cb :: qs)) (scons w ρ)) (Tuple (map (ren_tm (fun x => S (S x))) Vs)))
          with (RNode (map (den (scons (RNode (cb :: qs)) (scons w ρ))) (map (ren_tm (fun x => S (S x))) Vs))).
        rewrite map_map. unfold v. f_equal. apply map_ext. intros V. rewrite den_ren. reflexivity.
      - apply functional_extensionality. intros a. rewrite den_subst. reflexivity. }
    rewrite Ey. cbn [bind]. cden_simpl. f_equal.
    assert (Hy : fits (TProd Bs) y) by (rewrite <- (fits_tyof_eq _ _ Hv); apply rd_den_fits).
    change (rd_den cb v (fun x => harg (cden (envof x) (Ret M)))) with y.
    destruct (fits_prod_inv _ _ Hy) as [ys [Ey' HFys]]. rewrite Ey'.
    assert (Hly : length ys = length Bs) by (symmetry; eapply Forall2_length'; eauto).
    rewrite rh_term_result_nth.
    change (den ?r (Tuple ?Ms)) with (RNode (map (den r) Ms)).
    rewrite map_map. rewrite <- Hly. rewrite <- (map_nth_seq0 ys) at 2. f_equal.
    apply map_ext_in. intros i Hi. apply in_seq in Hi.
    assert (Hi' : (i < length Bs)%nat) by lia.
    assert (HBi : nth_error Bs i = Some (nth i Bs (TProd []))) by (apply nth_error_nth'; exact Hi').
    set (Bi := nth i Bs (TProd [])) in *.
    destruct (Forall2_nth_error _ _ _ _ _ HFqs HBi) as [qi [Hqi HqiB]].
    destruct (Forall2_nth_error _ _ _ _ _ HFys HBi) as [yi [Hyi HyiB]].
    set (ρ3 := scons (RNode ys) (scons (RNode (cb :: qs)) (scons w ρ))).
    assert (E1 : den ρ3 (Proj (S i) (Var 1)) = qi) by (simpl; apply nth_error_nth; exact Hqi).
    assert (E2 : den ρ3 (Proj i (Var 0)) = yi) by (simpl; apply nth_error_nth; exact Hyi).
    assert (Hpl := den_plus Bi ρ3 (Proj (S i) (Var 1)) (Proj i (Var 0))).
    rewrite E1, E2 in Hpl. destruct (Hpl HqiB HyiB) as [P1 P2].
    rewrite (nth_error_nth _ _ _ Hyi).
    apply fits_eq with Bi; [exact P1|exact HyiB|].
    etransitivity; [exact P2|].
    assert (Hz : rflat qi = zeros (dim Bi)).
    { destruct (block_nth Bs qs i Bi HFqs HBi) as [B1 _].
      rewrite (nth_error_nth _ _ _ Hqi) in B1. rewrite B1, Ez.
      apply proj_zeros. apply off_le. exact HBi. }
    rewrite Hz. apply vp_zeros_l. apply fits_len. exact HyiB.
Qed.

(** ** Programs of the fragment *)
(** [okr P]: every term of [P] is [okp], and the body of every
    [rev handle] of [P] (in its clauses too) is a [varbody]. *)
Fixpoint okr (P : cmd) : Prop :=
  match P with
  | Ret M | Op _ M => okp M
  | CLet P Q => okr P /\ okr Q
  | RevHandle M R H => okp M /\ chainb R /\ okrh H
  end
with okrh (H : handler) : Prop :=
  match H with Handler P cls => okr P /\ okrcls cls end
with okrcls (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => okr Qf /\ okr Qb /\ okrcls rest
  end.

Lemma varbody_okc R : varbody R -> okc R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; simpl; auto.
  - destruct M; simpl; tauto.
  - destruct M; simpl; tauto.
  - tauto.
  - tauto.
Qed.

Lemma chainb_okc R : chainb R -> okc R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; simpl; auto.
  - intros Hc. eapply okg_okp with 2%nat; [lia|exact Hc].
  - destruct M; simpl; tauto.
  - intros [HP HQ]. split; [apply varbody_okc; exact HP|auto].
  - tauto.
Qed.

Lemma okr_okc_all :
  (forall P, okr P -> okc P) /\ (forall H, okrh H -> okh H) /\ (forall cls, okrcls cls -> okcls cls).
Proof.
  apply cmd_mutind; simpl; intros; try tauto.
  destruct H2 as [? [? ?]]. split; [auto|]. split; [apply chainb_okc; auto|auto].
Qed.

Lemma okr_okc P : okr P -> okc P.
Proof. apply okr_okc_all. Qed.

Lemma okrh_okh H : okrh H -> okh H.
Proof. apply okr_okc_all. Qed.

Lemma okr_fill_c K : forall P, okr (fill_c K P) <-> okr P /\ Forall okr K.
Proof.
  induction K as [|Q K IH]; intros P; simpl.
  - split; [intros; split; auto|tauto].
  - rewrite IH. simpl. split; [intros [[? ?] ?]; split; auto|intros [? HF]; inversion HF; subst; tauto].
Qed.

(** ** The wider fragment of bodies: chains of operations on terms *)
(** [chaing R]: every argument of a [⌊M⌋] or [Op(M)] of [R] is a term of
    the fragment of the term-level soundness ([okg 2]), a [let] may bind
    any such command, and [R] has no nested [rev handle]: the bodies whose
    rewriting uses RH-1a, RH-1b, RH-2 and RH-4 in every evaluation
    position.  [okrg P]: every term of [P] is [okp] and the body of every
    [rev handle] of [P] (in its clauses too) is a [chaing]. *)
Fixpoint chaing (R : cmd) : Prop :=
  match R with
  | Ret M | Op _ M => okg 2 M
  | CLet P Q => chaing P /\ chaing Q
  | RevHandle _ _ _ => False
  end.

Lemma varbody_chaing R : varbody R -> chaing R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; cbn [varbody chaing].
  - destruct M; cbn [okg]; tauto.
  - destruct M; cbn [okg]; tauto.
  - intros [HP HQ]. split; auto.
  - tauto.
Qed.

Lemma chainb_chaing R : chainb R -> chaing R.
Proof.
  induction R as [M|o M|P IHP Q IHQ|M R H]; cbn [chainb chaing]; auto.
  - destruct M; cbn [okg]; tauto.
  - intros [HP HQ]. split; [apply varbody_chaing|]; auto.
Qed.

Fixpoint okrg (P : cmd) : Prop :=
  match P with
  | Ret M | Op _ M => okp M
  | CLet P Q => okrg P /\ okrg Q
  | RevHandle M R H => okp M /\ chaing R /\ okrgh H
  end
with okrgh (H : handler) : Prop :=
  match H with Handler P cls => okrg P /\ okrgcls cls end
with okrgcls (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons _ _ Qf Qb rest => okrg Qf /\ okrg Qb /\ okrgcls rest
  end.

Lemma okr_okrg_all :
  (forall P, okr P -> okrg P) /\ (forall H, okrh H -> okrgh H) /\ (forall cls, okrcls cls -> okrgcls cls).
Proof.
  apply cmd_mutind; simpl; intros; try tauto.
  destruct H2 as [? [? ?]]. split; [auto|]. split; [apply chainb_chaing; auto|auto].
Qed.

Lemma okr_okrg P : okr P -> okrg P.
Proof. apply okr_okrg_all. Qed.

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

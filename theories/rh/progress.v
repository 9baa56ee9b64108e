(** * Progress, totality of [RH], and type safety

    - canonical forms of closed values;
    - progress for closed terms: a well-typed closed term is a value,
      steps, or is stuck on an undefined [Ev];
    - totality of [RH] on well-typed input, by well-founded induction on
      a lexicographic measure: the numbers of top-level [rev handle]
      nodes of each depth, from the deepest down, then the size of the
      spine (spec §8.6: the paper's measure [(max depth, size)] does not
      decrease in RH-3, this refinement of the multiset of depths does);
    - progress for configurations, and type safety;
    - the evaluator never reports a wrong shape on a well-typed program. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts.

Section progress.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M V : tm) (P Q R : cmd) (H : handler).

(** ** Canonical forms *)
Lemma canonical_base V b : value V -> typed_tm [] V (TBase b) -> exists c, V = Const c.
Proof.
  intros HV HT. destruct V as [x|c| | | | | |]; try discriminate; inversion HT; subst; eauto.
  match goal with H : nth_error [] _ = Some _ |- _ => destruct x; discriminate end.
Qed.

Lemma canonical_prod V As : value V -> typed_tm [] V (TProd As) ->
  exists Vs, V = Tuple Vs /\ Forall value Vs /\ Forall2 (typed_tm []) Vs As.
Proof.
  intros HV HT. destruct V as [x| | | |Ms| | |]; try discriminate; inversion HT; subst.
  - match goal with H : nth_error [] _ = Some _ |- _ => destruct x; discriminate end.
  - exists Ms. split; [reflexivity|]. split; [apply value_tuple_iff; exact HV|assumption].
Qed.

(** ** Closed terms *)
Lemma step_tm_fn_not_wrong M A : typed_tm [] M A -> step_tm_fn M <> TSWrong.
Proof.
  intros HT. remember [] as Γ eqn:HΓ. revert HΓ.
  elim HT using typed_tm_ind'; clear M A HT Γ.
  - (* var *) intros Γ x A Hx ->. destruct x; discriminate.
  - (* const *) intros. discriminate.
  - (* app *) intros Γ f M HM IH ->. simpl.
    destruct (step_tm_fn M); try discriminate; [destruct (ev f M); discriminate|].
    exact (IH eq_refl).
  - (* add *) intros Γ M1 M2 b HM1 IH1 HM2 IH2 ->. simpl.
    destruct (step_tm_fn M1) eqn:H1; try discriminate; [|exact (IH1 eq_refl)].
    destruct (step_tm_fn M2) eqn:H2; try discriminate; [|exact (IH2 eq_refl)].
    destruct (canonical_base M1 b) as [c1 ->]; [apply step_tm_fn_value_inv; exact H1|exact HM1|].
    destruct (canonical_base M2 b) as [c2 ->]; [apply step_tm_fn_value_inv; exact H2|exact HM2|].
    discriminate.
  - (* tuple *) intros Γ Ms As HMs IH ->. rewrite step_tm_fn_tuple.
    generalize (@nil tm). induction IH as [|M A Ms As HMA HF IHl]; intros pre; [discriminate|].
    rewrite tuple_go_cons. destruct (step_tm_fn M) eqn:HsM; try discriminate.
    + apply IHl. inversion HMs; assumption.
    + exact (HMA eq_refl).
  - (* proj *) intros Γ M As i A HM IH Hi ->. rewrite step_tm_fn_proj.
    destruct (step_tm_fn M) eqn:HsM; try discriminate; [|exact (IH eq_refl)].
    destruct (canonical_prod M As) as [Vs [-> [_ HVs]]]; [apply step_tm_fn_value_inv; exact HsM|exact HM|].
    destruct (Forall2_nth_error_r _ _ _ _ _ HVs Hi) as [V [HV _]]. rewrite HV. discriminate.
  - (* let *) intros Γ M N A B HM IHM HN IHN ->. simpl.
    destruct (step_tm_fn M); try discriminate. exact (IHM eq_refl).
  - (* rd *) intros Γ M N L A B HM IHM HN IHN HL IHL ->. simpl.
    destruct (step_tm_fn M); try discriminate; [|exact (IHM eq_refl)].
    destruct (step_tm_fn L); try discriminate; [|exact (IHL eq_refl)].
    rewrite (infer_tm_complete _ _ _ HL). discriminate.
Qed.

(** A closed well-typed term is a value, steps, or is stuck on [Ev]. *)
Lemma progress_tm M A :
  typed_tm [] M A ->
  value M \/ (exists M', step_tm M M') \/ (exists f V, stuck_ev_tm M f V).
Proof.
  intros HT. pose proof (step_tm_fn_not_wrong _ _ HT) as Hnw.
  destruct (step_tm_fn M) as [M'| |f V|] eqn:Hs.
  - right; left. exists M'. apply step_tm_fn_sound. exact Hs.
  - left. apply step_tm_fn_value_inv. exact Hs.
  - right; right. exists f, V. apply step_tm_fn_stuck. exact Hs.
  - contradiction.
Qed.

(** ** Typing of the recursive calls of [RH] *)

Lemma rh_let_var_input_typed Bs K Q z C :
  typed_cmd Bs (fill_c (Q :: K) (Ret (Var z))) C ->
  typed_cmd Bs (fill_c K (subst_cmd (list_subst [Var z]) Q)) C.
Proof.
  intros HR. apply fill_c_typed_inv in HR as [A [HA HK]].
  inversion HK as [|? ? ? ? B ? HQ HK']; subst.
  inversion HA as [? ? ? Hz| | |]; subst.
  eapply fill_c_typed; [exact HK'|]. eapply typed_cmd_subst; [exact HQ|].
  apply (subst_ok_list [Var z] [A]). constructor; [exact Hz|constructor].
Qed.

Lemma rh_op_input_typed Bs K o k C :
  typed_cmd Bs (fill_c K (Op o (Var k))) C ->
  nth_error Bs k = Some (coar o) /\
  typed_cmd (ar o :: Bs) (fill_c (shift_frames K) (Ret (Var 0))) C.
Proof.
  intros HR. apply fill_c_typed_inv in HR as [A [HA HK]].
  inversion HA as [|? ? ? Hz| |]; subst. inversion Hz; subst. split; [assumption|].
  eapply fill_c_typed; [apply typed_frames_shift; exact HK|]. constructor. constructor. reflexivity.
Qed.

Lemma rh_rev_input_typed Bs K z R1 H1 C :
  typed_cmd Bs (fill_c K (RevHandle (Var z) R1 H1)) C ->
  exists As C1, nth_error Bs z = Some (TProd As) /\ typed_cmd As R1 C1 /\ typed_handler H1 C1 /\
    forall R1', typed_cmd Bs R1' (TProd As) -> typed_cmd Bs (fill_c K R1') C.
Proof.
  intros HR. apply fill_c_typed_inv in HR as [A [HA HK]].
  inversion HA as [| | |? ? ? ? As C1 HM HR1 HH1]; subst. inversion HM; subst.
  exists As, C1. repeat split; try assumption.
  intros R1' HR1'. eapply fill_c_typed; eassumption.
Qed.

Lemma rh_term_input_typed Bs K F M C :
  typed_cmd Bs (fill_t K F M) C ->
  exists B', infer_tm Bs M = Some B' /\ typed_cmd (B' :: Bs) (fill_t (shift_frames K) F (Var 0)) C.
Proof.
  intros HR. unfold fill_t in *. apply fill_c_typed_inv in HR as [A [HA HK]].
  destruct (plug_t_typed_inv _ _ _ _ HA) as [B [HM Hplug]].
  exists B. split; [apply infer_tm_complete; exact HM|].
  eapply fill_c_typed; [apply typed_frames_shift; exact HK|]. apply Hplug. constructor. reflexivity.
Qed.

Lemma proj_list_typed Bs z As :
  nth_error Bs z = Some (TProd As) -> Forall2 (typed_tm Bs) (proj_list z (length As)) As.
Proof.
  intros Hz. unfold proj_list. apply Forall2_map_seq. intros i B HiB.
  econstructor; [constructor; exact Hz|exact HiB].
Qed.

(** ** The measure *)

(** Number of [rev handle] nodes of depth [d] on the let-spine of [P]
    (not inside another [rev handle]). *)
Fixpoint cnt (d : nat) (P : cmd) : nat :=
  match P with
  | Ret _ | Op _ _ => 0
  | CLet P Q => cnt d P + cnt d Q
  | RevHandle _ R H => if Nat.eqb (S (Nat.max (depth R) (depth_handler H))) d then 1 else 0
  end.

(** Size of the let-spine; a term counts 1 if it is a variable, 2 if not. *)
Definition tsz (M : tm) : nat := match M with Var _ => 1 | _ => 2 end.

Fixpoint csize (P : cmd) : nat :=
  match P with
  | Ret M => 1 + tsz M
  | Op _ M => 2 + tsz M
  | CLet P Q => 1 + csize P + csize Q
  | RevHandle M _ _ => 1 + tsz M
  end.

(** [[cnt N P; …; cnt 1 P; csize P]]. *)
Fixpoint meas (N : nat) (P : cmd) : list nat :=
  match N with 0 => [csize P] | S N' => cnt N P :: meas N' P end.

Inductive lex : list nat -> list nat -> Prop :=
| lex_head a b l l' : a < b -> length l = length l' -> lex (a :: l) (b :: l')
| lex_tail a l l' : lex l l' -> lex (a :: l) (a :: l').

Lemma lex_length l l' : lex l l' -> length l = length l'.
Proof. induction 1; simpl; auto. Qed.

Lemma lex_wf : well_founded lex.
Proof.
  intros l. remember (length l) as n eqn:Hn. revert l Hn.
  induction n as [|n IHn]; intros l Hn.
  - destruct l; [|discriminate]. constructor. intros y Hy. inversion Hy.
  - destruct l as [|b l]; [discriminate|]. injection Hn as Hn.
    revert l Hn. induction b as [b IHb] using lt_wf_ind. intros l Hn.
    assert (Hacc : Acc lex l) by (apply IHn; exact Hn).
    induction Hacc as [l _ IHacc].
    constructor. intros y Hy. inversion Hy as [a b' m m' Hab Hlen|a m m' Hm]; subst.
    + apply IHb; [exact Hab|]. congruence.
    + apply IHacc; [exact Hm|]. apply lex_length in Hm. congruence.
Qed.

Lemma meas_lt_size N A B :
  (forall d, cnt d A = cnt d B) -> csize A < csize B -> lex (meas N A) (meas N B).
Proof.
  intros Hc Hs. induction N as [|N IH]; simpl.
  - constructor; auto.
  - rewrite Hc. apply lex_tail. exact IH.
Qed.

Lemma meas_length N P : length (meas N P) = S N.
Proof. induction N; simpl; auto. Qed.

(** Two vectors built the same way from counts [a e] and [b e]
    ([a N :: …] down to some tail of a common length) are in [lex] order
    when [a] is below [b] at some index [d] and not above it beyond [d]:
    [meas] here and [normalization.v]'s [cvec] are two such vectors. *)
Lemma lex_at (a b : nat -> nat) (va vb : nat -> list nat) N d :
  (forall N, va (S N) = a (S N) :: va N) -> (forall N, vb (S N) = b (S N) :: vb N) ->
  (forall N, length (va N) = length (vb N)) ->
  1 <= d -> d <= N -> (forall e, d < e -> a e <= b e) -> a d < b d -> lex (va N) (vb N).
Proof.
  intros Ea Eb Hlen H1 HdN Habove Hd. induction N as [|N IH]; [lia|]. rewrite Ea, Eb.
  destruct (Nat.eq_dec d (S N)) as [->|Hne]; [apply lex_head; [exact Hd|apply Hlen]|].
  specialize (Habove (S N) ltac:(lia)).
  destruct (Nat.lt_ge_cases (a (S N)) (b (S N))) as [Hlt|Hge]; [apply lex_head; [exact Hlt|apply Hlen]|].
  replace (a (S N)) with (b (S N)) by lia. apply lex_tail. apply IH. lia.
Qed.

Lemma meas_lt_at N A B d :
  1 <= d -> d <= N ->
  (forall e, d < e -> cnt e A <= cnt e B) -> cnt d A < cnt d B ->
  lex (meas N A) (meas N B).
Proof.
  apply (lex_at (fun e => cnt e A) (fun e => cnt e B) (fun N => meas N A) (fun N => meas N B));
    intros; rewrite ?meas_length; reflexivity.
Qed.

(** Facts about the measure. *)
Definition cnt_frames (d : nat) (K : list cmd) : nat := fold_right Nat.add 0 (map (cnt d) K).
Definition csize_frames (K : list cmd) : nat := fold_right Nat.add 0 (map (fun Q => S (csize Q)) K).

Lemma cnt_fill_c d K P : cnt d (fill_c K P) = cnt_frames d K + cnt d P.
Proof.
  revert P. induction K as [|Q K IH]; intros P; simpl; [reflexivity|].
  rewrite IH. unfold cnt_frames. simpl. lia.
Qed.

Lemma csize_fill_c K P : csize (fill_c K P) = csize_frames K + csize P.
Proof.
  revert P. induction K as [|Q K IH]; intros P; simpl; [reflexivity|].
  rewrite IH. unfold csize_frames. simpl. lia.
Qed.

Lemma cnt_subst d σ P : cnt d (subst_cmd σ P) = cnt d P.
Proof. revert σ. induction P; intros σ; simpl; auto. Qed.

Lemma cnt_ren d ξ P : cnt d (ren_cmd ξ P) = cnt d P.
Proof. revert ξ. induction P; intros ξ; simpl; auto. Qed.

Lemma tsz_ren ξ M : tsz (ren_tm ξ M) = tsz M.
Proof. destruct M; reflexivity. Qed.

Lemma csize_ren ξ P : csize (ren_cmd ξ P) = csize P.
Proof. revert ξ. induction P; intros ξ; simpl; rewrite ?tsz_ren; auto. Qed.

Lemma csize_subst_var σ P :
  (forall x, exists y, σ x = Var y) -> csize (subst_cmd σ P) = csize P.
Proof.
  revert σ. induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ; simpl.
  - destruct M as [x| | | | | | |]; simpl; try reflexivity. destruct (Hσ x) as [y ->]. reflexivity.
  - destruct M as [x| | | | | | |]; simpl; try reflexivity. destruct (Hσ x) as [y ->]. reflexivity.
  - rewrite IHP by exact Hσ. rewrite IHQ; [reflexivity|].
    intros [|x]; simpl; [eauto|]. destruct (Hσ x) as [y ->]. exists (S y). reflexivity.
  - destruct M as [x| | | | | | |]; simpl; try reflexivity. destruct (Hσ x) as [y ->]. reflexivity.
Qed.

Lemma cnt_frames_shift d K : cnt_frames d (shift_frames K) = cnt_frames d K.
Proof.
  unfold cnt_frames, shift_frames. rewrite map_map. f_equal. apply map_ext. intros. apply cnt_ren.
Qed.

Lemma csize_frames_shift K : csize_frames (shift_frames K) = csize_frames K.
Proof.
  unfold csize_frames, shift_frames. rewrite map_map. f_equal. apply map_ext.
  intros. rewrite csize_ren. reflexivity.
Qed.

Lemma cnt_pos_depth d P : 0 < cnt d P -> d <= depth P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R IHR H]; cbn [cnt]; intros Hc; try lia.
  - simpl_depth. destruct (Nat.eq_0_gt_0_cases (cnt d P)) as [HP|HP];
      [assert (0 < cnt d Q) by lia; specialize (IHQ ltac:(lia))|specialize (IHP HP)]; lia.
  - simpl_depth. destruct (Nat.eqb_spec (S (Nat.max (depth R) (depth_handler H))) d); lia.
Qed.

(** A count that is positive only at indices [d <= b] is [0] at [d > b]
    (for [cnt] here and [normalization.v]'s [rdcnt]). *)
Lemma zero_of_pos_le n d b : (0 < n -> d <= b) -> b < d -> n = 0.
Proof. intros H Hb. destruct n as [|n]; [reflexivity|]. specialize (H ltac:(lia)). lia. Qed.

Lemma cnt_zero_above d P : depth P < d -> cnt d P = 0.
Proof. intros Hd. apply (zero_of_pos_le _ d (depth P)); [apply cnt_pos_depth|exact Hd]. Qed.

Lemma depth_frames_le K P : depth_frames K <= depth (fill_c K P).
Proof. rewrite depth_fill_c. lia. Qed.

(** ** Totality of [RH] on well-typed input *)
(** Informal proof: by well-founded induction on [meas N R] (the numbers
    of top-level rev-handle nodes of depth [N], [N−1], …, [1], then the
    size of the let-spine, lexicographically), by cases of Lemma 5.6.
    RH-1b, RH-2 and RH-4 keep the numbers and shrink the spine (a [let] and
    a variable return disappear; [Op(y)] becomes [⌊y⌋]; a non-variable term
    becomes a variable).  In RH-3 the node of depth [d] is replaced by the
    output of an inner [RH], whose rev-handle nodes are all shallower than
    [d] (the depth lemma): the count at [d] drops and no count above [d]
    grows; the inner call itself is on the body, with no node of depth
    [≥ d]. *)
Lemma rh_total N :
  forall R, depth R <= N ->
  forall H Bs Vs C, typed_cmd Bs R C -> length Vs = length Bs ->
  exists R', rh H Bs Vs R R'.
Proof.
  intros R. induction R as [R IH]
    using (well_founded_induction (wf_inverse_image _ _ lex (meas N) lex_wf)).
  intros Hd H Bs Vs C HR Hlen.
  destruct (decomposition _ _ _ HR)
    as [[K [z [-> Hz]]]|[[K [o [z [-> Hz]]]]|[[K [z [R1 [H1 [-> Hz]]]]]|[K [F [M [-> Hnv]]]]]]].
  - (* RH-1 *)
    destruct K as [|Q K].
    + destruct (nth_error Vs z) as [Vz|] eqn:HVz.
      * exists (rh_ret_out H Bs z Vz). apply rh_ret. exact HVz.
      * apply nth_error_None in HVz. lia.
    + destruct (IH (fill_c K (subst_cmd (list_subst [Var z]) Q))) with (H := H) (Bs := Bs) (Vs := Vs) (C := C)
        as [R' HR'].
      * apply meas_lt_size.
        -- intros d. rewrite !cnt_fill_c, cnt_subst. simpl. unfold cnt_frames. simpl. lia.
        -- rewrite !csize_fill_c, csize_subst_var.
           ++ unfold csize_frames. simpl. lia.
           ++ intros x. unfold list_subst. destruct x as [|[|x]]; simpl; eauto.
      * rewrite depth_fill_c, depth_subst_cmd. rewrite depth_fill_c in Hd.
        unfold depth_frames, list_max' in *. cbn [map fold_right] in *. simpl_depth. lia.
      * apply rh_let_var_input_typed. exact HR.
      * exact Hlen.
      * exists R'. apply rh_let_var. exact HR'.
  - (* RH-2 *)
    destruct (rh_op_input_typed _ _ _ _ _ HR) as [Hk HR2].
    destruct (nth_error Vs z) as [Vk|] eqn:HVk; [|apply nth_error_None in HVk; lia].
    destruct (clause_of H o) as [[D Qf] Qb] eqn:Hcl.
    destruct (IH (fill_c (shift_frames K) (Ret (Var 0)))) with
        (H := H) (Bs := ar o :: Bs) (Vs := Proj 0 (Var 0) :: map shift Vs) (C := C) as [Rrec Hrec].
    + apply meas_lt_size.
      * intros d. rewrite !cnt_fill_c, cnt_frames_shift. reflexivity.
      * rewrite !csize_fill_c, csize_frames_shift. simpl. lia.
    + rewrite depth_fill_c, depth_shift_frames. rewrite depth_fill_c in Hd. simpl_depth. lia.
    + exact HR2.
    + simpl. rewrite map_length. congruence.
    + exists (rh_op_out Bs o z Vk Qf Qb Rrec). eapply rh_op; eauto.
  - (* RH-3 *)
    destruct (rh_rev_input_typed _ _ _ _ _ _ HR) as [As [C1 [HAs [HR1 [HH1 Hplug]]]]].
    set (dn := S (Nat.max (depth R1) (depth_handler H1))).
    assert (Hdn : dn <= N).
    { rewrite depth_fill_c in Hd. simpl_depth. unfold dn. lia. }
    assert (HcntR : 1 <= cnt dn (fill_c K (RevHandle (Var z) R1 H1))).
    { rewrite cnt_fill_c. simpl. fold dn. rewrite Nat.eqb_refl. lia. }
    destruct (IH R1) with (H := H1) (Bs := As) (Vs := proj_list z (length As)) (C := C1)
      as [R1' HR1'].
    + apply (meas_lt_at _ _ _ dn); [unfold dn; lia|exact Hdn| |].
      * intros e He. rewrite cnt_zero_above by (unfold dn in He; lia). lia.
      * rewrite cnt_zero_above by (unfold dn; lia). lia.
    + unfold dn in Hdn. lia.
    + exact HR1.
    + unfold proj_list. rewrite map_length, seq_length. reflexivity.
    + assert (Hdepth1 : depth R1' < dn).
      { pose proof (rh_depth_lt _ _ _ _ _ (Var z) HR1') as Hlt. simpl_depth. unfold dn. lia. }
      assert (HR1'ty : typed_cmd Bs R1' (TProd As)).
      { eapply rh_typed; [exact HR1'|exact HR1|exact HH1|]. apply proj_list_typed. exact HAs. }
      destruct (IH (fill_c K R1')) with (H := H) (Bs := Bs) (Vs := Vs) (C := C) as [R' HR'].
      * apply (meas_lt_at _ _ _ dn); [unfold dn; lia|exact Hdn| |].
        -- intros e He. rewrite !cnt_fill_c. rewrite cnt_zero_above by lia. lia.
        -- rewrite !cnt_fill_c. rewrite cnt_zero_above by lia. simpl. fold dn.
           rewrite Nat.eqb_refl. lia.
      * rewrite depth_fill_c. rewrite depth_fill_c in Hd. simpl_depth. lia.
      * apply Hplug. exact HR1'ty.
      * exact Hlen.
      * exists R'. eapply rh_rev; eauto.
  - (* RH-4 *)
    destruct (rh_term_input_typed _ _ _ _ _ HR) as [B' [Hinf HR2]].
    destruct (IH (fill_t (shift_frames K) F (Var 0))) with
        (H := H) (Bs := B' :: Bs) (Vs := Var 0 :: map shift Vs) (C := C) as [Rrec Hrec].
    + apply meas_lt_size.
      * intros d. unfold fill_t. rewrite !cnt_fill_c, cnt_frames_shift.
        destruct F; reflexivity.
      * unfold fill_t. rewrite !csize_fill_c, csize_frames_shift.
        destruct F; destruct M; simpl in *; try contradiction; lia.
    + unfold fill_t in *. rewrite depth_fill_c, depth_shift_frames.
      rewrite depth_fill_c in Hd. rewrite (depth_plug_t F (Var 0) M). exact Hd.
    + exact HR2.
    + simpl. rewrite map_length. congruence.
    + exists (rh_term_out Bs Vs M Rrec). eapply rh_term; eauto.
Qed.

(** ** Progress for configurations *)

(** A closed well-typed configuration is a value, steps, or is stuck on an
    undefined [Ev] or on an operation that no handler covers ([Get] and
    [Put] always step). *)
(** Informal proof: split [P] as [F^c[P0]] with [P0] not a let.  The term
    in [P0] is closed and well typed, so by [progress_tm] it steps (then
    [P] steps in [F^t]), is stuck on [Ev] (a stuck form), or is a value.
    With a value: [⌊V⌋] is the result if [F^c] is empty, else the let-value
    rule applies; [Get[ℓ]] and [Put[ℓ]] step (canonical forms give [Put]'s
    constant); another operation is the unhandled stuck form; a
    [rev handle] has a tuple as argument (canonical forms) and [RH] is
    total on its well-typed body ([rh_total]). *)
Lemma progress hp P A :
  typed_cmd [] P A ->
  (exists V, P = Ret V /\ value V) \/
  (exists hp' P', step_conf hp P hp' P') \/
  (exists f V, stuck_ev P f V) \/
  (exists o V, stuck_op P o V).
Proof.
  intros HP. pose proof (split_c_spec P) as [HKP Hnl].
  destruct (split_c P) as [K P0]. simpl in HKP, Hnl. subst P.
  pose proof HP as HP'. apply fill_c_typed_inv in HP' as [A0 [HP0 HK]].
  destruct P0 as [M|o M|P1 Q|M R H]; [| |contradiction|].
  - inversion HP0 as [? ? ? HM| | |]; subst.
    destruct (progress_tm _ _ HM) as [HV|[[M' HM']|[f [V Hst]]]].
    + destruct K as [|Q K].
      * left. exists M. auto.
      * right; left. exists hp, (fill_c K (subst_cmd (list_subst [M]) Q)).
        apply step_conf_cmd. eapply step_cmd_let_val; [exact HV|reflexivity|reflexivity].
    + right; left. exists hp, (fill_t K TRet M'). apply step_conf_cmd.
      eapply (step_cmd_term K TRet); [exact HM'|reflexivity|reflexivity].
    + right; right; left. exists f, V, K, TRet, M. auto.
  - inversion HP0 as [|? ? ? HM| |]; subst.
    destruct (progress_tm _ _ HM) as [HV|[[M' HM']|[f [V Hst]]]].
    + destruct o as [o|l|l].
      * right; right; right. exists o, M, K. auto.
      * right; left. exists hp, (fill_c K (Ret (Const (heap_lookup hp l)))).
        eapply step_conf_get; [exact HV|reflexivity|reflexivity].
      * destruct (canonical_base M (loc_base l)) as [c ->]; [exact HV|exact HM|].
        right; left. exists (heap_update hp l c), (fill_c K (Ret (Const (czero unit_base)))).
        eapply step_conf_put; reflexivity.
    + right; left. exists hp, (fill_t K (TOp o) M'). apply step_conf_cmd.
      eapply (step_cmd_term K (TOp o)); [exact HM'|reflexivity|reflexivity].
    + right; right; left. exists f, V, K, (TOp o), M. auto.
  - inversion HP0 as [| | |? ? ? ? As C HM HR HH]; subst.
    destruct (progress_tm _ _ HM) as [HV|[[M' HM']|[f [V Hst]]]].
    + destruct (canonical_prod _ _ HV HM) as [Vs [-> [HVs HVsT]]].
      destruct (rh_total (depth R) R (le_n _) H As Vs C HR) as [R' HR'].
      { apply Forall2_length' in HVsT. exact HVsT. }
      right; left. exists hp, (fill_c K R'). apply step_conf_cmd.
      eapply step_cmd_revhandle; [exact HVs| |exact HR'|reflexivity|reflexivity].
      apply infer_tm_complete. exact HM.
    + right; left. exists hp, (fill_t K (TRev R H) M'). apply step_conf_cmd.
      eapply (step_cmd_term K (TRev R H)); [exact HM'|reflexivity|reflexivity].
    + right; right; left. exists f, V, K, (TRev R H), M. auto.
Qed.

Section safety.
Context {Eok : evaluator_ok}.

(** ** Type safety: a well-typed configuration, with a heap that respects
    the shapes, only reaches well-typed configurations, each of which is a
    value, steps, or is stuck on an undefined [Ev] or an unhandled
    operation. *)
Lemma type_safety hp P A hp' P' :
  heap_ok hp -> typed_cmd [] P A -> steps_conf hp P hp' P' ->
  heap_ok hp' /\ typed_cmd [] P' A /\
  ((exists V, P' = Ret V /\ value V) \/
   (exists hp'' P'', step_conf hp' P' hp'' P'') \/
   (exists f V, stuck_ev P' f V) \/
   (exists o V, stuck_op P' o V)).
Proof.
  intros Hhp HP Hsteps.
  destruct (steps_conf_preservation _ _ _ _ _ Hhp HP Hsteps) as [Hhp' HP'].
  split; [exact Hhp'|]. split; [exact HP'|]. eapply progress. exact HP'.
Qed.

(** ** The evaluator never meets a wrong shape in a well-typed program *)

Lemma rh_fn_not_wrong fuel :
  forall H Bs Vs R C, typed_cmd Bs R C -> length Vs = length Bs ->
  rh_fn fuel H Bs Vs R <> RHWrong.
Proof.
  induction fuel as [|fuel IH]; intros H Bs Vs R C HR Hlen; [discriminate|].
  simpl. destruct (decomposition _ _ _ HR)
    as [[K [z [-> Hz]]]|[[K [o [z [-> Hz]]]]|[[K [z [R1 [H1 [-> Hz]]]]]|[K [F [M [-> Hnv]]]]]]].
  - destruct K as [|Q K].
    + simpl. destruct (nth_error Vs z) eqn:HVz; [discriminate|].
      apply nth_error_None in HVz. lia.
    + rewrite (split_c_fill (Q :: K) (Ret (Var z)) I).
      eapply IH; [apply rh_let_var_input_typed; exact HR|exact Hlen].
  - rewrite split_c_fill by exact I.
    destruct (rh_op_input_typed _ _ _ _ _ HR) as [Hk HR2].
    destruct (nth_error Vs z) as [Vk|] eqn:HVk; [|apply nth_error_None in HVk; lia].
    destruct (clause_of H o) as [[D Qf] Qb].
    pose proof (IH H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs) _ _ HR2) as Hr.
    simpl in Hr. rewrite map_length in Hr. specialize (Hr ltac:(congruence)).
    destruct (rh_fn fuel _ _ _ _); congruence.
  - rewrite split_c_fill by exact I.
    destruct (rh_rev_input_typed _ _ _ _ _ _ HR) as [As [C1 [HAs [HR1 [HH1 Hplug]]]]].
    rewrite HAs.
    pose proof (IH H1 As (proj_list z (length As)) R1 C1 HR1) as Hr1.
    unfold proj_list in Hr1. rewrite map_length, seq_length in Hr1. specialize (Hr1 eq_refl).
    fold (proj_list z (length As)) in Hr1.
    destruct (rh_fn fuel H1 As (proj_list z (length As)) R1) as [R1'| |] eqn:Hf1; try congruence.
    eapply IH; [|exact Hlen]. apply Hplug.
    eapply rh_typed; [eapply rh_fn_sound; exact Hf1|exact HR1|exact HH1|].
    apply proj_list_typed. exact HAs.
  - destruct (rh_term_input_typed _ _ _ _ _ HR) as [B' [Hinf HR2]].
    pose proof (IH H (B' :: Bs) (Var 0 :: map shift Vs) _ _ HR2) as Hr.
    simpl in Hr. rewrite map_length in Hr. specialize (Hr ltac:(congruence)).
    rewrite split_c_fill_t.
    destruct F as [|o|R1 H1]; (destruct M as [x| | | | | | |]; [contradiction|..]);
      cbn -[infer_tm]; rewrite Hinf; destruct (rh_fn fuel _ _ _ _); congruence.
Qed.

Lemma step_conf_fn_not_wrong fuel hp P A :
  typed_cmd [] P A -> step_conf_fn fuel hp P <> CSWrong.
Proof.
  intros HP. unfold step_conf_fn. pose proof (split_c_spec P) as [HKP Hnl].
  destruct (split_c P) as [K P0]. simpl in HKP, Hnl. subst P.
  apply fill_c_typed_inv in HP as [A0 [HP0 _]].
  unfold term_conf_step.
  destruct P0 as [M|o M|P1 Q|M R H]; [| |contradiction|].
  - inversion HP0 as [? ? ? HM| | |]; subst. pose proof (step_tm_fn_not_wrong _ _ HM).
    destruct (step_tm_fn M); try discriminate; try contradiction. destruct K; discriminate.
  - inversion HP0 as [|? ? ? HM| |]; subst. pose proof (step_tm_fn_not_wrong _ _ HM).
    destruct (step_tm_fn M) eqn:Hs; try discriminate; try contradiction.
    destruct o as [o|l|l]; try discriminate.
    destruct (canonical_base M (loc_base l)) as [c ->];
      [apply step_tm_fn_value_inv; exact Hs|exact HM|discriminate].
  - inversion HP0 as [| | |? ? ? ? As C HM HR HH]; subst. pose proof (step_tm_fn_not_wrong _ _ HM).
    destruct (step_tm_fn M) eqn:Hs; try discriminate; try contradiction.
    destruct (canonical_prod M As) as [Vs [-> [_ HVsT]]];
      [apply step_tm_fn_value_inv; exact Hs|exact HM|].
    rewrite (infer_tm_complete _ _ _ HM).
    pose proof (rh_fn_not_wrong fuel H As Vs R C HR (Forall2_length' _ _ _ HVsT)).
    destruct (rh_fn fuel H As Vs R); congruence.
Qed.

(** Combined with [run_sound]: on a well-typed program with a heap that
    respects the shapes, [run] returns a value, a stuck form of
    [progress], or runs out of fuel, never [RWrong]. *)
Lemma run_not_wrong fuel n hp P A :
  heap_ok hp -> typed_cmd [] P A ->
  match run fuel n hp P with RWrong _ _ _ => False | _ => True end.
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P Hhp HP; simpl; [exact I|].
  pose proof (step_conf_fn_not_wrong (S fuel) hp P A HP) as Hnw.
  destruct (step_conf_fn (S fuel) hp P) as [hp' P'| | | | |] eqn:Hs; try exact I; [|contradiction].
  apply step_conf_fn_sound in Hs.
  destruct (step_conf_preservation _ _ _ _ _ Hhp HP Hs) as [Hhp' HP'].
  apply (IH (S n) hp' P' Hhp' HP').
Qed.
End safety.

End progress.

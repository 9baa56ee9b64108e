(** * Normalization, and a total evaluator

    Every well-typed closed configuration, with a heap that respects the
    shapes of the locations, reaches in finitely many steps a value, an
    undefined [Ev] or an operation no handler covers ([normalization]).
    With the completeness of [run] ([complete.v]) this makes [run], and the
    environment machine the drivers extract, total on well-typed programs:
    from fuel [n + m + 1] on, [n] being the number of steps and [m] a fuel
    enough for every [RH] rewriting on the way, they answer the final
    configuration with [n] steps, never "out of fuel" ([run_total],
    [run_machine_total]).  Neither [n] nor [m] is computed from the
    program: the [rd] rewriting and [RH] copy terms and clauses, so each
    decrease of a higher component of the measure may multiply the lower
    ones, and a bound read off it would be far too large to be a useful
    fuel.

    The measure, compared lexicographically:
    + for each depth [d] from the command's depth down to [1], the number
      of [rev handle] nodes of depth [d] on the let-spine ([cnt] of
      [progress.v]): the [RH] step removes one node of depth [d] and puts
      in its place a command of depth [< d] ([rh_depth_lt]); every other
      step keeps these numbers;
    + the largest [rd]-depth [D] of a term on the spine, then for each key
      [e] from [D] down to [1] the number of [rd] nodes [M.rd(x.N)(L)] of
      key [e = 1 + rd_depth N] in the terms on the spine: the step
      [W.rd(x.N)(V) → W.R_V(x.N)] removes a node of key [e], and the
      rewriting ([rdr_depth]) has [rd]-depth at most [rd_depth N < e], so
      every node it makes, however many copies of [N]'s subterms it holds,
      has a key [< e].  The key of a node depends on its body [N] only,
      which never steps, so the numbers add up over evaluation contexts;
    + the number of the other non-value nodes on the spine (term
      constructors but variables, constants and tuples; [let] and [Op]
      commands): [f(V) → Ev(f, V)], [c1 + c2], [proj_i], [let] of a value
      (whose substitution copies only a value), [let x ⇐ ⌊V⌋ in Q], [Get]
      and [Put] each remove one.
    The [RH] step may make the rest of the measure grow arbitrarily (it
    copies handler clauses); it is the first component that decreases. *)
From Coq Require Import Relation_Operators.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd rd_bound term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts progress machine instance
  complete tactics.

(** [answers_from run hp P]: from some fuel on, [run] answers the final
    configuration that [P] reaches from [hp], with the number [n] of steps
    to it: from fuel [n + m + 1] on, [m] being a fuel with which
    [step_conf_fn] computes every step on the way.  The conclusion of
    [run_total], [run_machine_total] and [total.v]'s
    [exec_run_machine_total], written once; parsing only, so that the
    statements are the same terms and print as before. *)
Notation answers_from run hp P :=
  (exists n m hp' P' r,
    nsteps_fuel m n hp P hp' P' /\ final_result hp' P' n r /\
    forall fuel, n + m < fuel -> run fuel 0 hp P = r)
  (only parsing).

Section normalize.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M L V W : tm) (P Q R : cmd) (H : handler).

(** ** List sums and maxima *)

Lemma list_sum_map_zero {X} (f : X -> nat) l :
  Forall (fun x => f x = 0) l -> list_sum (map f l) = 0.
Proof. induction 1; simpl; lia. Qed.

Lemma list_sum_map_ext {X} (f g : X -> nat) l :
  Forall (fun x => f x = g x) l -> list_sum (map f l) = list_sum (map g l).
Proof. induction 1; simpl; congruence. Qed.

Lemma list_sum_map_pos {X} (f : X -> nat) l :
  0 < list_sum (map f l) -> exists x, In x l /\ 0 < f x.
Proof.
  induction l as [|x l IH]; simpl; intros Hs; [lia|].
  destruct (Nat.eq_0_gt_0_cases (f x)) as [Hx|Hx]; [|eauto].
  destruct (IH ltac:(lia)) as [y [Hy Hy']]. eauto.
Qed.

Lemma list_max'_in {X} (f : X -> nat) l x : In x l -> f x <= list_max' (map f l).
Proof.
  unfold list_max'. induction l as [|y l IH]; simpl; [tauto|].
  intros [->|Hin]; [lia|]. specialize (IH Hin). lia.
Qed.

Lemma list_max'_app l1 l2 : list_max' (l1 ++ l2) = Nat.max (list_max' l1) (list_max' l2).
Proof. unfold list_max'. induction l1; simpl; lia. Qed.

(** ** Term measures *)

(** [rdcnt e M]: the number of [rd] nodes of key [e] in [M], the key of
    [M.rd(x.N)(L)] being [1 + rd_depth N]. *)
Fixpoint rdcnt (e : nat) (M : tm) : nat :=
  match M with
  | Var _ | Const _ => 0
  | App _ M | Proj _ M => rdcnt e M
  | Add M1 M2 | Let M1 M2 => rdcnt e M1 + rdcnt e M2
  | Tuple Ms => list_sum (map (rdcnt e) Ms)
  | Rd M N L =>
      (if Nat.eqb (S (rd_depth N)) e then 1 else 0) + rdcnt e M + rdcnt e N + rdcnt e L
  end.

(** [opc M]: the number of nodes that are not variables, constants or
    tuples. *)
Fixpoint opc (M : tm) : nat :=
  match M with
  | Var _ | Const _ => 0
  | App _ M | Proj _ M => S (opc M)
  | Add M1 M2 | Let M1 M2 => S (opc M1 + opc M2)
  | Tuple Ms => list_sum (map opc Ms)
  | Rd M N L => S (opc M + opc N + opc L)
  end.

Lemma rdcnt_pos e M : 0 < rdcnt e M -> 1 <= e /\ e <= rd_depth M.
Proof.
  tm_induction M; cbn [rdcnt rd_depth]; intros Hc; try lia.
  - destruct (list_sum_map_pos _ _ Hc) as [M [HM HMc]].
    rewrite Forall_forall in IH. destruct (IH M HM HMc) as [He1 He2].
    pose proof (list_max'_in rd_depth Ms M HM). lia.
  - destruct (Nat.eqb_spec (S (rd_depth N)) e) as [<-|Hne]; [lia|].
    destruct (Nat.eq_0_gt_0_cases (rdcnt e M)) as [HM|HM]; [|specialize (IHM HM); lia].
    destruct (Nat.eq_0_gt_0_cases (rdcnt e N)) as [HN|HN]; [|specialize (IHN HN); lia].
    specialize (IHL ltac:(lia)). lia.
Qed.

Lemma rdcnt_above e M : rd_depth M < e -> rdcnt e M = 0.
Proof. intros He. apply (zero_of_pos_le _ e (rd_depth M)); [intros Hp; apply (rdcnt_pos _ _ Hp)|exact He]. Qed.

Lemma rdcnt_depth0 e M : rd_depth M = 0 -> rdcnt e M = 0.
Proof.
  intros Hd. destruct (Nat.eq_0_gt_0_cases (rdcnt e M)) as [|Hp]; [assumption|].
  apply rdcnt_pos in Hp. lia.
Qed.

Lemma value_measures V : value V -> (forall e, rdcnt e V = 0) /\ opc V = 0 /\ rd_depth V = 0.
Proof.
  induction V as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros HV; try discriminate; [repeat split; reflexivity..|].
  apply value_tuple_iff in HV.
  assert (HF : forall M, In M Ms -> (forall e, rdcnt e M = 0) /\ opc M = 0 /\ rd_depth M = 0).
  { intros M HM. rewrite Forall_forall in IH, HV. apply IH; auto. }
  cbn [rdcnt opc rd_depth]. split; [|split].
  - intros e. apply list_sum_map_zero, Forall_forall. intros M HM. apply HF. exact HM.
  - apply list_sum_map_zero, Forall_forall. intros M HM. apply HF. exact HM.
  - apply Nat.le_0_r, list_max'_map_le, Forall_forall. intros M HM.
    destruct (HF M HM) as [_ [_ ->]]. lia.
Qed.

Lemma measures_ren M : forall ξ, (forall e, rdcnt e (ren_tm ξ M) = rdcnt e M) /\ opc (ren_tm ξ M) = opc M.
Proof.
  tm_induction M; intros ξ; cbn [ren_tm rdcnt opc].
  - split; reflexivity.
  - split; reflexivity.
  - destruct (IH ξ) as [H1 H2]. rewrite H2. split; auto.
  - destruct (IH1 ξ) as [H1 H2]. destruct (IH2 ξ) as [H3 H4]. rewrite H2, H4.
    split; [intros e; rewrite H1, H3|]; reflexivity.
  - split; [intros e|]; rewrite map_map; apply list_sum_map_ext;
      eapply Forall_impl; try exact IH; intros M HM; apply HM.
  - destruct (IH ξ) as [H1 H2]. rewrite H2. split; auto.
  - destruct (IHM ξ) as [H1 H2]. destruct (IHN (up_ren ξ)) as [H3 H4]. rewrite H2, H4.
    split; [intros e; rewrite H1, H3|]; reflexivity.
  - destruct (IHM ξ) as [H1 H2]. destruct (IHN (up_ren ξ)) as [H3 H4].
    destruct (IHL ξ) as [H5 H6]. rewrite H2, H4, H6, rd_depth_ren.
    split; [intros e; rewrite H1, H3, H5|]; reflexivity.
Qed.

(** A substitution by terms without [rd] and non-value nodes (values, for
    instance). *)
Definition inert (σ : nat -> tm) : Prop := forall x, opc (σ x) = 0 /\ rd_depth (σ x) = 0.

Lemma inert_rd_free σ : inert σ -> rd_free σ.
Proof. intros Hσ x. apply Hσ. Qed.

Lemma inert_up σ : inert σ -> inert (up σ).
Proof.
  intros Hσ [|x]; simpl; [split; reflexivity|]. unfold shift.
  rewrite (proj2 (measures_ren _ S)), rd_depth_ren. apply Hσ.
Qed.

Lemma inert_list_subst_value V : value V -> inert (list_subst [V]).
Proof.
  intros HV [|x]; unfold list_subst; simpl.
  - destruct (value_measures V HV) as [_ [-> ->]]. split; reflexivity.
  - destruct x; split; reflexivity.
Qed.

Lemma measures_subst M : forall σ, inert σ ->
  (forall e, rdcnt e (subst_tm σ M) = rdcnt e M) /\ opc (subst_tm σ M) = opc M.
Proof.
  tm_induction M; intros σ Hσ; cbn [subst_tm rdcnt opc].
  - split; [intros e; apply rdcnt_depth0, Hσ|apply Hσ].
  - split; reflexivity.
  - destruct (IH σ Hσ) as [H1 H2]. rewrite H2. split; auto.
  - destruct (IH1 σ Hσ) as [H1 H2]. destruct (IH2 σ Hσ) as [H3 H4]. rewrite H2, H4.
    split; [intros e; rewrite H1, H3|]; reflexivity.
  - split; [intros e|]; rewrite map_map; apply list_sum_map_ext;
      eapply Forall_impl; try exact IH; intros M HM; apply HM; exact Hσ.
  - destruct (IH σ Hσ) as [H1 H2]. rewrite H2. split; auto.
  - destruct (IHM σ Hσ) as [H1 H2]. destruct (IHN (up σ) (inert_up σ Hσ)) as [H3 H4].
    rewrite H2, H4. split; [intros e; rewrite H1, H3|]; reflexivity.
  - destruct (IHM σ Hσ) as [H1 H2]. destruct (IHN (up σ) (inert_up σ Hσ)) as [H3 H4].
    destruct (IHL σ Hσ) as [H5 H6]. rewrite H2, H4, H6.
    rewrite (rd_depth_subst N (up σ)) by (apply inert_rd_free, inert_up, Hσ).
    split; [intros e; rewrite H1, H3, H5|]; reflexivity.
Qed.

(** ** Terms: every step decreases the measure *)

Lemma fill_frame_measures F : exists (c : nat -> nat) k, forall M,
  (forall e, rdcnt e (fill_frame F M) = c e + rdcnt e M) /\ opc (fill_frame F M) = k + opc M.
Proof.
  destruct F as [f|M2|V1|Vs Ms|i|N|N L|W N]; cbn [fill_frame].
  - exists (fun _ => 0), 1. intros M. simpl. split; [intros e|]; lia.
  - exists (fun e => rdcnt e M2), (S (opc M2)). intros M. simpl. split; [intros e|]; lia.
  - exists (fun e => rdcnt e V1), (S (opc V1)). intros M. simpl. split; [intros e|]; lia.
  - exists (fun e => list_sum (map (rdcnt e) Vs) + list_sum (map (rdcnt e) Ms)),
      (list_sum (map opc Vs) + list_sum (map opc Ms)).
    intros M. cbn [rdcnt opc]. split; [intros e|]; rewrite !map_app, !list_sum_app; simpl; lia.
  - exists (fun _ => 0), 1. intros M. simpl. split; [intros e|]; lia.
  - exists (fun e => rdcnt e N), (S (opc N)). intros M. simpl. split; [intros e|]; lia.
  - exists (fun e => (if Nat.eqb (S (rd_depth N)) e then 1 else 0) + rdcnt e N + rdcnt e L),
      (S (opc N + opc L)).
    intros M. cbn [rdcnt opc]. split; [intros e|]; lia.
  - exists (fun e => (if Nat.eqb (S (rd_depth N)) e then 1 else 0) + rdcnt e W + rdcnt e N),
      (S (opc W + opc N)).
    intros M. cbn [rdcnt opc]. split; [intros e|]; lia.
Qed.

Lemma rd_depth_fill_frame_mono F M M' :
  rd_depth M' <= rd_depth M -> rd_depth (fill_frame F M') <= rd_depth (fill_frame F M).
Proof.
  intros Hle. destruct F as [f|M2|V1|Vs Ms|i|N|N L|W N]; cbn [fill_frame rd_depth]; try lia.
  rewrite !map_app, !list_max'_app. cbn [map]. unfold list_max'. simpl. lia.
Qed.

(** The lexicographic part of [tdec] and [cdec] below survives adding
    the same counts [c] and the same number [k] on both sides, as a frame
    or a context does. *)
Lemma lex_shift (cnt cnt' cntF cntF' : nat -> nat) (o o' oF oF' : nat) (c : nat -> nat) k :
  (forall e, cntF e = c e + cnt e) -> (forall e, cntF' e = c e + cnt' e) ->
  oF = k + o -> oF' = k + o' ->
  ((exists e, cnt' e < cnt e /\ forall e', e < e' -> cnt' e' <= cnt e') \/
   ((forall e, cnt' e = cnt e) /\ o' < o)) ->
  ((exists e, cntF' e < cntF e /\ forall e', e < e' -> cntF' e' <= cntF e') \/
   ((forall e, cntF' e = cntF e) /\ oF' < oF)).
Proof.
  intros Hr Hr' Ho Ho' [[e [He Habove]]|[Heq Hop]].
  - left. exists e. rewrite Hr, Hr'. split; [lia|].
    intros e' He'. rewrite Hr, Hr'. specialize (Habove e' He'). lia.
  - right. split; [intros e; rewrite Hr, Hr', Heq; reflexivity|lia].
Qed.

(** [measure_lt depth cnt ops x' x]: [x'] is smaller than [x] in the
    measure "[depth], then the counts [cnt e] from [e = depth] down, then
    [ops]", the order of [tdec] (terms) and [cdec] (the spine of a
    command), written once.  Parsing only: the two definitions are the
    same terms as when each wrote it out. *)
Notation measure_lt depth cnt ops x' x :=
  (depth x' <= depth x /\
   ((exists e, cnt e x' < cnt e x /\ forall e', e < e' -> cnt e' x' <= cnt e' x) \/
    ((forall e, cnt e x' = cnt e x) /\ ops x' < ops x)))
  (only parsing, cnt in scope function_scope).

(** [tdec M' M]: [M'] is smaller than [M] in the measure of terms. *)
Definition tdec (M' M : tm) : Prop := measure_lt rd_depth rdcnt opc M' M.

Lemma tdec_frame F M M' : tdec M' M -> tdec (fill_frame F M') (fill_frame F M).
Proof.
  intros [Hd Hc]. destruct (fill_frame_measures F) as [c [k Hck]].
  destruct (Hck M) as [Hr Ho]. destruct (Hck M') as [Hr' Ho'].
  split; [apply rd_depth_fill_frame_mono; exact Hd|].
  exact (lex_shift _ _ _ _ _ _ _ _ c k Hr Hr' Ho Ho' Hc).
Qed.

Lemma tdec_ectx K M M' : tdec M' M -> tdec (fill_ectx K M') (fill_ectx K M).
Proof.
  revert M M'. induction K as [|F K IH]; intros M M' Hd; [exact Hd|].
  change (fill_ectx (F :: K) M') with (fill_ectx K (fill_frame F M')).
  change (fill_ectx (F :: K) M) with (fill_ectx K (fill_frame F M)).
  apply IH, tdec_frame, Hd.
Qed.

Section steps.
Context {Eok : evaluator_ok}.

(** Informal proof: [f(V)], [c1 + c2] and [proj_i(<V⃗>)] have no [rd] node
    and become a value ([Ev] gives values on well-typed arguments);
    [let x ← V in N] loses a node and [N[V/x]] has the nodes of [N], with
    the same keys (a value has no [rd]); [W.rd(x.N)(V)] loses a node of
    key [e = 1 + rd_depth N], and [W.R_V(x.N)] has [rd]-depth at most
    [rd_depth N] ([rdr_depth]), so no node of key [≥ e]. *)
Lemma head_step_tdec M M' A : typed_tm [] M A -> head_step_tm M M' -> tdec M' M.
Proof.
  intros HT Hh. destruct Hh as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A' HW HV HA'].
  - (* head_step_tm_app *)
    assert (HVt : typed_tm [] V (fsym_dom f)) by (inversion HT; assumption).
    assert (HV' : value V') by (eapply ev_typed; eassumption).
    destruct (value_measures _ HV) as [Hr [Ho Hd]].
    destruct (value_measures _ HV') as [Hr' [Ho' Hd']].
    split; [cbn [rd_depth]; lia|]. right. split.
    + intros e. cbn [rdcnt]. rewrite Hr, Hr'. reflexivity.
    + cbn [opc]. lia.
  - (* head_step_tm_add *)
    split; [simpl; lia|]. right. split; [intros e; reflexivity|simpl; lia].
  - (* head_step_tm_proj *)
    assert (HVt : value (Tuple Vs)) by (apply value_tuple_iff; exact HVs).
    assert (HV : value V).
    { rewrite Forall_forall in HVs. apply HVs. eapply nth_error_In. exact Hi. }
    destruct (value_measures _ HVt) as [Hr [Ho Hd]].
    destruct (value_measures _ HV) as [Hr' [Ho' Hd']].
    split; [change (rd_depth V <= rd_depth (Tuple Vs)); lia|]. right. split.
    + intros e. change (rdcnt e V = rdcnt e (Tuple Vs)). rewrite Hr, Hr'. reflexivity.
    + change (opc V < S (opc (Tuple Vs))). lia.
  - (* head_step_tm_let *)
    destruct (value_measures _ HV) as [Hr [Ho Hd]].
    pose proof (inert_list_subst_value V HV) as Hσ.
    destruct (measures_subst N _ Hσ) as [Hr' Ho'].
    split.
    + rewrite rd_depth_subst by (apply inert_rd_free; exact Hσ). cbn [rd_depth]. lia.
    + right. split.
      * intros e. cbn [rdcnt]. rewrite Hr', Hr. reflexivity.
      * cbn [opc]. lia.
  - (* head_step_tm_rd *)
    destruct (value_measures _ HW) as [HrW [HoW HdW]].
    destruct (value_measures _ HV) as [HrV [HoV HdV]].
    pose proof (inert_list_subst_value V HV) as Hσ.
    pose proof (rdr_depth (rd_depth N) N [] [A'] (list_subst [V]) W (le_n _)
                  (inert_rd_free _ Hσ)) as Hout.
    unfold rd_rewrite.
    set (X := rdr (rd_depth N) [] [A'] (list_subst [V]) W N) in *.
    assert (HX : rd_depth (Proj 0 X) <= rd_depth N) by (cbn [rd_depth]; lia).
    split; [cbn [rd_depth] in *; lia|]. left. exists (S (rd_depth N)). split.
    + rewrite rdcnt_above by lia. cbn [rdcnt]. rewrite Nat.eqb_refl. lia.
    + intros e' He'. rewrite rdcnt_above by lia. lia.
Qed.

Lemma step_tm_tdec M M' A : typed_tm [] M A -> step_tm M M' -> tdec M' M.
Proof.
  intros HT Hs. destruct (step_tm_typed_redex _ _ _ HT Hs) as (K & M0 & M0' & B & -> & -> & Hh & HB & _).
  apply tdec_ectx. eapply head_step_tdec; eassumption.
Qed.
End steps.

(** ** Command measures, over the terms on the let-spine *)

Fixpoint srd (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M | RevHandle M _ _ => rd_depth M
  | CLet P Q => Nat.max (srd P) (srd Q)
  end.

Fixpoint srdcnt (e : nat) (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M | RevHandle M _ _ => rdcnt e M
  | CLet P Q => srdcnt e P + srdcnt e Q
  end.

Fixpoint sop (P : cmd) : nat :=
  match P with
  | Ret M | RevHandle M _ _ => opc M
  | Op _ M => S (opc M)
  | CLet P Q => S (sop P + sop Q)
  end.

Lemma srdcnt_pos e P : 0 < srdcnt e P -> 1 <= e /\ e <= srd P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; cbn [srdcnt srd]; intros Hc;
    try (apply rdcnt_pos; exact Hc).
  destruct (Nat.eq_0_gt_0_cases (srdcnt e P)); [specialize (IHQ ltac:(lia))|specialize (IHP ltac:(lia))];
    lia.
Qed.

Lemma fill_c_measures K : exists (c : nat -> nat) k d, forall P,
  (forall e, srdcnt e (fill_c K P) = c e + srdcnt e P) /\
  sop (fill_c K P) = k + sop P /\ srd (fill_c K P) = Nat.max d (srd P).
Proof.
  induction K as [|Q K [c [k [d IH]]]].
  - exists (fun _ => 0), 0, 0. intros P. simpl. split; [intros e; reflexivity|split; reflexivity].
  - exists (fun e => c e + srdcnt e Q), (k + S (sop Q)), (Nat.max d (srd Q)). intros P.
    rewrite fill_c_cons. destruct (IH (CLet P Q)) as [H1 [H2 H3]].
    cbn [srdcnt sop srd] in H1, H2, H3. split; [|split].
    + intros e. rewrite H1. lia.
    + rewrite H2. lia.
    + rewrite H3. lia.
Qed.

Lemma measures_subst_cmd P : forall σ, inert σ ->
  (forall e, srdcnt e (subst_cmd σ P) = srdcnt e P) /\ sop (subst_cmd σ P) = sop P /\
  srd (subst_cmd σ P) = srd P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ; cbn [subst_cmd srdcnt sop srd];
    try (destruct (measures_subst M σ Hσ) as [H1 H2];
         rewrite H2, rd_depth_subst by (apply inert_rd_free; exact Hσ);
         split; [exact H1|split; reflexivity]).
  destruct (IHP σ Hσ) as [H1 [H2 H3]]. destruct (IHQ (up σ) (inert_up σ Hσ)) as [H4 [H5 H6]].
  rewrite H2, H3, H5, H6. split; [intros e; rewrite H1, H4|split]; reflexivity.
Qed.

(** [cdec P' P]: [P'] is smaller than [P] in the measure of the spine
    terms. *)
Definition cdec (P' P : cmd) : Prop := measure_lt srd srdcnt sop P' P.

Lemma cdec_fill_c K P P' : cdec P' P -> cdec (fill_c K P') (fill_c K P).
Proof.
  intros [Hd Hc]. destruct (fill_c_measures K) as [c [k [d Hck]]].
  destruct (Hck P) as [Hr [Ho Hs]]. destruct (Hck P') as [Hr' [Ho' Hs']].
  split; [rewrite Hs, Hs'; lia|].
  exact (lex_shift _ _ _ _ _ _ _ _ c k Hr Hr' Ho Ho' Hc).
Qed.

Lemma cdec_plug_t F M M' : tdec M' M -> cdec (plug_t F M') (plug_t F M).
Proof.
  intros [Hd Hc]. destruct F; cbn [plug_t srd srdcnt sop]; (split; [exact Hd|]);
    (destruct Hc as [He|[Heq Hop]]; [left; exact He|right; split; [exact Heq|]]);
    cbn [sop]; lia.
Qed.

(** ** The lexicographic order *)

(** [[cnt N P; …; cnt 1 P]]. *)
Fixpoint cvec (N : nat) (P : cmd) : list nat :=
  match N with 0 => [] | S N' => cnt N P :: cvec N' P end.

(** [[srdcnt D P; …; srdcnt 1 P; sop P]]. *)
Fixpoint tvec (D : nat) (P : cmd) : list nat :=
  match D with 0 => [sop P] | S D' => srdcnt D P :: tvec D' P end.

Lemma cvec_length N P : length (cvec N P) = N.
Proof. induction N; simpl; auto. Qed.

Lemma tvec_length D P : length (tvec D P) = S D.
Proof. induction D; simpl; auto. Qed.

Lemma cvec_eq N P P' : (forall d, cnt d P' = cnt d P) -> cvec N P' = cvec N P.
Proof. intros Hc. induction N; simpl; congruence. Qed.

Lemma tvec_lt D P' P :
  ((exists e, 1 <= e /\ e <= D /\ srdcnt e P' < srdcnt e P /\
              forall e', e < e' -> srdcnt e' P' <= srdcnt e' P) \/
   ((forall e, srdcnt e P' = srdcnt e P) /\ sop P' < sop P)) ->
  lex (tvec D P') (tvec D P).
Proof.
  intros [[e [H1 [HeD [He Habove]]]]|[Heq Hop]].
  - apply (lex_at (fun e => srdcnt e P') (fun e => srdcnt e P) (fun D => tvec D P') (fun D => tvec D P) D e);
      intros; rewrite ?tvec_length; auto.
  - induction D as [|D IH]; simpl.
    + apply lex_head; [exact Hop|reflexivity].
    + rewrite Heq. apply lex_tail. exact IH.
Qed.

Definition tmeas (P : cmd) : nat * list nat := (srd P, tvec (srd P) P).

Definition tmeas_lt : nat * list nat -> nat * list nat -> Prop := slexprod nat (list nat) lt lex.

Lemma cdec_tmeas P' P : cdec P' P -> tmeas_lt (tmeas P') (tmeas P).
Proof.
  intros [Hd Hc]. unfold tmeas, tmeas_lt.
  destruct (Nat.lt_ge_cases (srd P') (srd P)) as [Hlt|Hge]; [apply left_slex; exact Hlt|].
  replace (srd P') with (srd P) by lia. apply right_slex. apply tvec_lt.
  destruct Hc as [[e [He Habove]]|Hc]; [left|right; exact Hc].
  destruct (srdcnt_pos e P ltac:(lia)) as [H1 H2]. exists e. auto.
Qed.

(** The measure of a configuration whose command has depth at most [N]. *)
Definition meas_conf (N : nat) (P : cmd) : list nat * (nat * list nat) := (cvec N P, tmeas P).

Definition meas_conf_lt : list nat * (nat * list nat) -> list nat * (nat * list nat) -> Prop :=
  slexprod (list nat) (nat * list nat) lex tmeas_lt.

Lemma meas_conf_lt_wf : well_founded meas_conf_lt.
Proof. apply wf_slexprod; [exact lex_wf|]. apply wf_slexprod; [exact lt_wf|exact lex_wf]. Qed.

(** ** Every step of a well-typed configuration decreases the measure *)

Section decrease.
Context {Eok : evaluator_ok}.

Lemma cnt_plug_t d F M M' : cnt d (plug_t F M') = cnt d (plug_t F M).
Proof. destruct F; reflexivity. Qed.

(** Informal proof, by cases on the step:
    - a term step in [F^t]: the [rev handle] counts do not look at the
      term, and the term's measure decreases ([step_tm_tdec]);
    - [let x ⇐ ⌊V⌋ in Q]: substituting a value keeps the counts and the
      keys, and the [let] node goes;
    - [rev handle(V)<x⃗>.R with H] of depth [d]: the command [RH] puts in
      its place has depth [< d] ([rh_depth_lt]), so its [rev handle] nodes
      are all shallower: the count at [d] drops, none above [d] grows;
    - [Get], [Put]: the [Op] node becomes [⌊c⌋]. *)
Lemma step_conf_decrease N hp P hp' P' A :
  typed_cmd [] P A -> depth P <= N -> step_conf hp P hp' P' ->
  depth P' <= N /\ meas_conf_lt (meas_conf N P') (meas_conf N P).
Proof.
  intros HP HdN Hs. unfold meas_conf, meas_conf_lt.
  destruct Hs as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - destruct Hs as [K F M M' P P' HM -> ->
                   |K V Q P P' HV -> ->
                   |K Vs Bs R H R' P P' HVs Hinf Hrh -> ->].
    + (* step_cmd_term *)
      unfold fill_t in *. split.
      { rewrite depth_fill_c in *. rewrite (depth_plug_t F M' M). exact HdN. }
      rewrite (cvec_eq N (fill_c K (plug_t F M)) (fill_c K (plug_t F M'))).
      2: { intros d. rewrite !cnt_fill_c, (cnt_plug_t d F M M'). reflexivity. }
      apply right_slex, cdec_tmeas, cdec_fill_c, cdec_plug_t.
      apply fill_c_typed_inv in HP as [B [HB _]].
      destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HMt _]].
      eapply step_tm_tdec; eassumption.
    + (* step_cmd_let_val *)
      split.
      { rewrite depth_fill_c, depth_subst_cmd. rewrite depth_fill_c in HdN.
        simpl_depth. lia. }
      rewrite (cvec_eq N (fill_c K (CLet (Ret V) Q))).
      2: { intros d. rewrite !cnt_fill_c, cnt_subst. reflexivity. }
      apply right_slex, cdec_tmeas, cdec_fill_c.
      destruct (value_measures _ HV) as [Hr [Ho Hd]].
      destruct (measures_subst_cmd Q _ (inert_list_subst_value V HV)) as [H1 [H2 H3]].
      split; [cbn [srd]; lia|]. right. split.
      * intros e. rewrite H1. cbn [srdcnt]. rewrite Hr. reflexivity.
      * rewrite H2. cbn [sop]. lia.
    + (* step_cmd_revhandle *)
      set (dn := S (Nat.max (depth R) (depth_handler H))).
      assert (Hdepth : depth R' < dn).
      { pose proof (rh_depth_lt _ _ _ _ _ (Tuple Vs) Hrh) as Hlt. simpl_depth. exact Hlt. }
      rewrite depth_fill_c in HdN. simpl_depth. fold dn in HdN.
      split; [rewrite depth_fill_c; lia|].
      apply left_slex.
      lazymatch goal with |- lex (cvec _ ?A) (cvec _ ?B) =>
        apply (lex_at (fun e => cnt e A) (fun e => cnt e B) (fun N => cvec N A) (fun N => cvec N B) N dn) end;
        [intros; reflexivity|intros; reflexivity|intros; rewrite !cvec_length; reflexivity|unfold dn; lia|lia| |].
      * intros e He. rewrite !cnt_fill_c, cnt_zero_above by lia. lia.
      * rewrite !cnt_fill_c, cnt_zero_above by lia. cbn [cnt]. fold dn.
        rewrite Nat.eqb_refl. lia.
  - (* step_conf_get *)
    split; [rewrite depth_fill_c in *; exact HdN|].
    rewrite (cvec_eq N (fill_c K (Op (OpGet l) V))).
    2: { intros d. rewrite !cnt_fill_c. reflexivity. }
    apply right_slex, cdec_tmeas, cdec_fill_c.
    destruct (value_measures _ HV) as [Hr [Ho Hd]].
    split; [cbn [srd rd_depth]; lia|]. right. split.
    + intros e. cbn [srdcnt rdcnt]. rewrite Hr. reflexivity.
    + cbn [sop opc]. lia.
  - (* step_conf_put *)
    split; [rewrite depth_fill_c in *; exact HdN|].
    rewrite (cvec_eq N (fill_c K (Op (OpPut l) (Const c)))).
    2: { intros d. rewrite !cnt_fill_c. reflexivity. }
    apply right_slex, cdec_tmeas, cdec_fill_c.
    split; [cbn [srd rd_depth]; lia|]. right. split.
    + intros e. reflexivity.
    + cbn [sop opc]. lia.
Qed.

(** ** Normalization *)

(** A final configuration: a value, or one of the stuck forms of
    [progress]. *)
Definition final_conf (P : cmd) : Prop :=
  (exists V, P = Ret V /\ value V) \/ (exists f V, stuck_ev P f V) \/ (exists o V, stuck_op P o V).

Lemma final_conf_result hp P n : final_conf P -> exists r, final_result hp P n r.
Proof.
  intros [[V [-> HV]]|[[f [V Hst]]|[o [V Hst]]]].
  - exists (RDone hp V n). left. eauto.
  - exists (RStuckEv hp P f V n). right; left. eauto.
  - exists (RStuckOp hp P (OpUser o) V n). right; right. eauto.
Qed.

Lemma normalization_depth N P : forall hp A,
  depth P <= N -> heap_ok hp -> typed_cmd [] P A ->
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_conf P'.
Proof.
  induction P as [P IH]
    using (well_founded_induction (wf_inverse_image _ _ meas_conf_lt (meas_conf N) meas_conf_lt_wf)).
  intros hp A HdN Hhp HP.
  destruct (progress hp P A HP) as [Hv|[[hp1 [P1 Hs]]|Hst]].
  - exists 0, hp, P. split; [constructor|left; exact Hv].
  - destruct (step_conf_decrease N hp P hp1 P1 A HP HdN Hs) as [HdN1 Hlt].
    destruct (step_conf_preservation _ _ _ _ _ Hhp HP Hs) as [Hhp1 HP1].
    destruct (IH P1 Hlt hp1 A HdN1 Hhp1 HP1) as [n [hp' [P' [Hn Hfin]]]].
    exists (S n), hp', P'. split; [econstructor; eassumption|exact Hfin].
  - exists 0, hp, P. split; [constructor|right; exact Hst].
Qed.

(** Normalization: a well-typed closed configuration, with a heap that
    respects the shapes, reaches in finitely many steps a value, an
    undefined [Ev] or an operation no handler covers.  (By determinism,
    [step_conf_deterministic], it is the only final configuration it
    reaches, and every run of it ends there.) *)
(** Informal proof: by well-founded induction on the measure described at
    the top of this file, for the depth bound [depth P]: by [progress] the
    configuration is final or steps; a step keeps the types and the heap's
    shapes ([step_conf_preservation]), does not deepen the command, and
    decreases the measure ([step_conf_decrease]). *)
Lemma normalization hp P A :
  heap_ok hp -> typed_cmd [] P A ->
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_conf P'.
Proof. intros Hhp HP. eapply normalization_depth; [apply le_n|exact Hhp|exact HP]. Qed.

(** ** A total evaluator *)

(** On a well-typed program, from some fuel on, [run] answers the final
    configuration that the program reaches, with the number [n] of steps it
    takes, never "out of fuel": from fuel [n + m + 1] on, [m] being a fuel
    with which [step_conf_fn] computes every step on the way (it bounds the
    [RH] rewritings only). *)
Lemma run_total hp P A : heap_ok hp -> typed_cmd [] P A -> answers_from run hp P.
Proof.
  intros Hhp HP. destruct (normalization hp P A Hhp HP) as [n [hp' [P' [Hn Hfin]]]].
  destruct (final_conf_result hp' P' n Hfin) as [r Hr].
  destruct (nsteps_nsteps_fuel n hp P hp' P' Hn) as [m Hm].
  exists n, m, hp', P', r. split; [exact Hm|split; [exact Hr|]].
  intros fuel Hfuel. eapply run_complete_fuel; eassumption.
Qed.

Lemma final_result_not_out_of_fuel hp P n r : final_result hp P n r -> ~ out_of_fuel r.
Proof. intros [[? [? [? ->]]]|[[? [? [? ->]]]|[? [? [? ->]]]]]; simpl; tauto. Qed.

(** The same for the environment machine that the drivers run: it gives
    [run]'s answer ([run_machine_correct]), so the same number of steps. *)
Lemma run_machine_total hp P A : heap_ok hp -> typed_cmd [] P A -> answers_from run_machine hp P.
Proof.
  intros Hhp HP. destruct (run_total hp P A Hhp HP) as [n [m [hp' [P' [r [Hn [Hr Hrun]]]]]]].
  exists n, m, hp', P', r. split; [exact Hn|split; [exact Hr|]].
  intros fuel Hle. rewrite run_machine_correct. apply Hrun. exact Hle.
Qed.

(** Whatever the fuel, on a well-typed program [run] answers "out of fuel"
    or the final configuration, with the number of steps to it; with
    [run_total], some fuel gives the latter. *)
Lemma run_answer_typed fuel hp P A :
  heap_ok hp -> typed_cmd [] P A ->
  out_of_fuel (run fuel 0 hp P) \/
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_result hp' P' n (run fuel 0 hp P).
Proof.
  intros Hhp HP. pose proof (run_nsteps fuel 0 hp P) as Hn.
  pose proof (run_not_wrong fuel 0 hp P A Hhp HP) as Hw.
  destruct (run fuel 0 hp P); try contradiction; [right; exact Hn..|left; exact I].
Qed.

Lemma run_machine_answer_typed fuel hp P A :
  heap_ok hp -> typed_cmd [] P A ->
  out_of_fuel (run_machine fuel 0 hp P) \/
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_result hp' P' n (run_machine fuel 0 hp P).
Proof. rewrite run_machine_correct. apply run_answer_typed. Qed.

End decrease.
End normalize.

(** * Soundness of the [rd] step at every [rd]-depth, function symbols included

    A body may apply a primitive [rd^k[p]] under [j] enclosing [rd]s for
    every [k] and [j]: its rewriting, which applies [rd] once per
    enclosing [rd] and once for the [rd] being stepped, applies
    [rd^{k+j+1}[p]], which the instance's [Ev] computes with the
    hand-written kernels up to [rd²] and with the core of rdcore.v
    beyond; over ℝ [Ev] of [rd^{k+1}[p]] is the reverse derivative of
    [Ev] of [rd^k[p]] at every point, for every [k], for the primitives
    differentiable everywhere (the fourteen smooth ones of [prims.v] and
    [sce]: [rd_correct_all], from [ev_rdk_correct] of rdcore_ev.v), and
    [Ev] of [rd^k[p]] has the shapes of its type ([prim_fits_all]).

    [okg b M]: every primitive [rd^k[p]] of [M] under [j] enclosing [rd]s
    of [M] is [goodg] (smooth or [sce], [prim_ok]; no bound on [k]) with
    [k + j < b]; the constants have the length of their type.  Every
    body whose primitives are smooth or [sce] with [prim_ok] and whose
    constants have their lengths is [okg b] for [b] large enough ([b]
    above every [k + j]).  [okg 0] is the linear bodies of
    [rdsound_lin.v]; [okg 2] contains the [okt] and [okn] bodies of
    [rdsound.v] ([okt_okg], [okn_okg]; [oklin_okg] in [rdsound_lin.v]).

    - [okg_rdr]: the rewriting of an [okg b] body applies primitives one
      level up, so it is [okg (b + 1)] ([lift_budget], every [b]).
    - [rdr_sound_all]: by induction on the level [d], the rewriting at the
      level [d] of an [okg b] body (every [b]) of [rd]-depth at most [d]
      denotes a reverse derivative of the body.  The R-Rd case at [d + 1]
      is the one of [rdr_sound_lin], with the inner body at the budget
      [b - 1] and the term [let l ← L in let u ← M in u.R_l(y.N)] back at
      the budget [b] ([okg_rdr]).
    - [rd_step_sound_all], [step_tm_den_all]: [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]
      for every [okg b] body [N], every [b], whatever its [rd]-depth, and
      every step of a closed well-typed term whose [rd] redexes have such
      bodies keeps its denotation.

    Not covered: bodies with [round], [maxpool], [relu] or [log] under an
    [rd] (rdsound_on.v treats [rd]-free bodies with them, in the sets
    where they are differentiable). *)
From RevHandlers.Analysis Require Import base_rd rdcore_ev.
Open Scope R_scope.

(** ** The primitives of every order

    [goodg f]: [f = rd^k[p]] with [p] smooth or [sce] ([smooth_all_prim])
    and [prim_ok p], for every [k].  Over ℝ, [Ev] of [rd^k[p]] has the
    shapes of its type ([prim_fits_all], from [eval_prim_shapes]) and
    [rd^{k+1}[p]] is the reverse derivative of [rd^k[p]] at every point
    ([rd_correct_all]: the core's [rd^{k+1}] is the reverse derivative of
    its [rd^k], [core_rdk_correct] of rdcore_k.v, and [Ev] is the core's,
    [ev_rdk_correct] of rdcore_ev.v), so [goodg f] gives [good_at f t]
    at every tree [t] ([goodg_good_at]) and [goodg] is kept by [rd]. *)
Definition goodg (f : nat * prim) : Prop :=
  smooth_all_prim (snd f) = true /\ prim_ok (snd f) = true.

Lemma good_goodg f : good f -> goodg f.
Proof. intros [Hs [Hok _]]. split; assumption. Qed.

Lemma prim_fits_all k p : prim_ok p = true -> prim_fits (k, p).
Proof. intros Hok. apply prim_fits_gen. intros xs HF. exact (eval_prim_shapes k p xs Hok HF). Qed.

Theorem rd_correct_all k p : smooth_all_prim p = true -> prim_ok p = true -> rd_correct_at k p.
Proof. intros Hs Hok. apply ev_rdk_correct; [apply smooth_core_of_cases, smooth_all_prim_cases, Hs|exact Hok]. Qed.

Lemma goodg_good_at f t : goodg f -> good_at f t.
Proof.
  destruct f as [k p]. intros [Hs Hok]. simpl in *.
  split; [apply prim_fits_all, Hok|]. split; [apply prim_fits_all, Hok|].
  intros Ht. apply (rd_correct_all k p Hs Hok). apply fits_len in Ht.
  rewrite Ht. unfold pdom, dim. reflexivity.
Qed.

(** ** Cases shared by the inductions on terms here and in [rdsound_eval.v]

    The predicates of terms [okg b] (here) and [okp] ([rdsound_eval.v])
    differ only on function symbols and [rd]; the other cases of their
    lemmas are the same, and are these tactics.  [Pt], [Qt] read a tuple
    ([okg_tuple], [okp_tuple]), [Pren] is the renaming lemma of [okg],
    [Pplus], [Psum], [Prdr] the closure under [plus], [sum_tms] and
    [rdr_tuple]. *)

(** [Var]-free congruence cases of [tm_induction M] for [P M -> Q M]:
    [Add], [Tuple], [Proj], [Let]. *)
Ltac tm_cong Pt Qt :=
  first
  [ solve [eauto]
  | solve [match goal with H : _ /\ _ |- _ => destruct H end; split; eauto]
  | solve [match goal with H : _ |- _ => apply Pt in H end; apply Qt;
           rewrite Forall_forall in *; intros ? ?; eauto] ].

(** The same for [P M -> P (subst_tm σ M)] (or [ren_tm]) with [σ] of
    [okg 0] terms: [App], [Add], [Tuple], [Proj], [Let]. *)
Ltac tm_subst_cong Pt Pren :=
  first
  [ solve [eauto]
  | solve [match goal with H : _ /\ _ |- _ => destruct H end; split; eauto]
  | solve [match goal with H : _ |- _ => apply Pt in H end; apply Pt; rewrite Forall_forall in *;
           let HM' := fresh in intros ? HM'; apply in_map_iff in HM'; destruct HM' as [? [<- ?]]; eauto]
  | solve [match goal with H : _ /\ _ |- _ => destruct H end; split; [eauto|];
           match goal with IH : _ |- _ =>
             solve [apply IH; auto; intros [|x]; simpl; auto; apply Pren; auto] end] ].

(** The cases [Add] and [Tuple] of an induction on the body [N] of the
    rewriting [rdr d Γ0 As θ W N] at the budget [c] ([okg_rdr], [okp_rdr]),
    with the hypotheses [Ho] on [N] and [Hd] on its depth; [Pt] reads a
    tuple of [okg b] ([okg_tuple]). *)
Ltac rdr_case_add Pplus IH1 IH2 Ho Hd c0 :=
  rewrite rdr_Add; destruct Ho; cbn [rd_depth] in Hd; apply Pplus;
  [apply IH1 with (c := c0)|apply IH2 with (c := c0)]; auto; lia.

Ltac rdr_case_tuple Psum Prdr Pt IH Ho Hd Ms c0 :=
  rewrite rdr_Tuple; apply Psum; apply Pt in Ho; apply Prdr; auto;
  rewrite Forall_forall in IH, Ho |- *;
  let M := fresh "M" in let HM := fresh "HM" in let W' := fresh "W'" in let HW' := fresh "HW'" in
  intros M HM W' HW'; apply IH with (c := c0); auto;
  eapply Nat.le_trans; [apply (list_max'_in rd_depth Ms M HM)|exact Hd].

(** The end of the case [Let]: the rewriting of the body [N] at the
    extended substitution, and the sum of the tuple of the bound
    variable's cotangent with the rewriting of [M]. *)
Ltac rdr_case_let_end Pplus Pt Pren IHM IHN c0 :=
  split;
  [apply IHN with (c := c0); auto; [lia|intros [|x]; simpl; auto; apply Pren; auto|apply Pren; auto]|];
  apply Pplus;
  [apply Pt; rewrite Forall_forall; let M' := fresh "M'" in let HM' := fresh "HM'" in
   intros M' HM'; apply in_map_iff in HM'; destruct HM' as [? [<- _]]; simpl; auto
  |apply IHM with (c := c0); auto; [lia|intros x; apply Pren, Pren; auto|exact I]].

(** ** Instances of the [rd]-step soundness at constants

    The examples here and in [rdsound_lin.v] state [⟦W.R_V(x.N)⟧ =
    ⟦W.rd(x.N)(V)⟧] (after [rd_depth N = d] where they give it) for a
    body [N] and constants [V], [W]; [rd_example lemma T] proves it by the
    soundness theorem [lemma] at the body's type [T]: the body is typed
    rule by rule ([typed_body]), its side condition computed, and the
    environment and the constants fit ([rd_const_side]). *)
Ltac typed_body :=
  repeat first
    [ eapply typed_tm_rd; [constructor; reflexivity| |constructor; reflexivity]
    | apply typed_tm_add
    | typed_app
    | constructor; reflexivity
    | simpl; constructor ].

Ltac rd_const_side :=
  first [ intros x D Hx; destruct x; discriminate | simpl; constructor; assumption ].

Ltac rd_example lemma T :=
  intros;
  lazymatch goal with |- _ /\ _ => split; [reflexivity|] | _ => idtac end;
  first [apply lemma with (B := T) | apply lemma with (B := T) (b := 2%nat)];
  [ match goal with N := _ |- _ => unfold N end; typed_body
  | simpl; repeat split; auto; lia
  | rd_const_side | rd_const_side | rd_const_side ].

Section all.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σg : signature := exec_signature Rvo decls locs.

(** ** The bodies *)
Fixpoint okg (b : nat) (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => (goodg f /\ (fst f < b)%nat) /\ okg b M
  | Add M1 M2 => okg b M1 /\ okg b M2
  | Tuple Ms => fold_right and True (map (okg b) Ms)
  | Proj _ M => okg b M
  | Let M N => okg b M /\ okg b N
  | Rd M N L => okg b M /\ okg (pred b) N /\ okg b L
  end.

Lemma okg_tuple b Ms : okg b (Tuple Ms) <-> Forall (okg b) Ms.
Proof. apply fold_and_Forall. Qed.

Lemma okg_mono M : forall b b', (b <= b')%nat -> okg b M -> okg b' M.
Proof.
  tm_induction M; intros b b' Hb H; cbn [okg] in *; auto.
  2-5: tm_cong okg_tuple okg_tuple.
  - destruct H as [[Hg Hf] HM]. split; [split; [exact Hg|lia]|]. eapply IH; eauto.
  - destruct H as [H1 [H2 H3]]. split; [eauto|split; [|eauto]]. eapply IHN; [|exact H2]. lia.
Qed.

Lemma okg_ren M : forall b ξ, okg b M -> okg b (ren_tm ξ M).
Proof.
  tm_induction M; intros b ξ H; cbn [okg ren_tm] in *; auto.
  - destruct H. split; auto.
  - destruct H. split; auto.
  - apply okg_tuple in H. apply okg_tuple. rewrite Forall_forall in H, IH |- *. intros M' HM'.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - destruct H. split; auto.
  - destruct H as [H1 [H2 H3]]. split; [|split]; auto.
Qed.

(** Substitution of linear terms (variables, in the rewriting). *)
Lemma okg_subst M : forall b σ, (forall x, okg 0 (σ x)) -> okg b M -> okg b (subst_tm σ M).
Proof.
  tm_induction M; intros b σ Hσ H; cbn [okg subst_tm] in *.
  3-7: tm_subst_cong okg_tuple okg_ren.
  - eapply okg_mono; [|apply Hσ]. lia.
  - exact H.
  - destruct H as [H1 [H2 H3]]. split; [|split]; auto.
    apply IHN; auto. intros [|x]; simpl; auto. apply okg_ren. auto.
Qed.

(** [okg b] is closed under the rewriting's building blocks
    ([tmclosed.v]). *)
Lemma okg_closed b : closed (okg b).
Proof.
  split; cbn [okg]; intros; try tauto.
  - apply okg_tuple. auto.
  - apply okg_ren. auto.
Qed.

Lemma okg_zero b A : okg b (zero A).
Proof. exact (closed_zero _ (okg_closed b) (fun b => repeat_length _ _) A). Qed.

Lemma okg_plus b A M N : okg b M -> okg b N -> okg b (plus A M N).
Proof. exact (closed_plus _ (okg_closed b) A M N). Qed.

Lemma okg_onehot b As i W : okg b W -> okg b (onehot As i W).
Proof. exact (closed_onehot _ (okg_closed b) (fun b => repeat_length _ _) As i W). Qed.

Lemma okg_sum_tms b A Ms : Forall (okg b) Ms -> okg b (sum_tms A Ms).
Proof. exact (closed_sum_tms _ (okg_closed b) (fun b => repeat_length _ _) A Ms). Qed.

Lemma okg_rdr_tuple b (r : tm -> tm -> tm) W i Ms :
  Forall (fun M => forall W, okg 0 W -> okg b (r W M)) Ms -> okg 0 W -> Forall (okg b) (rdr_tuple r W i Ms).
Proof. apply closed_rdr_tuple. intros j M H. exact H. Qed.

(** ** The rewriting moves the primitives one level up *)
(** What the rewriting asks of the budgets [c] of the body and [c'] of the
    result: a [goodg] primitive allowed at [c] stays [goodg] one level up,
    and both levels are allowed at [c']. *)
Definition lift (c c' : nat) : Prop :=
  forall f, goodg f -> (fst f < c)%nat -> goodg (rd f) /\ (S (fst f) < c')%nat /\ (fst f < c')%nat.

Lemma lift_pred c c' : lift c c' -> lift (pred c) c.
Proof.
  intros H f Hg Hf. destruct (H f Hg ltac:(lia)) as [H1 [H2 H3]]. split; [exact H1|]. lia.
Qed.

(** [goodg] has no bound on the order, so every budget lifts. *)
Lemma lift_budget b : lift (pred b) b.
Proof. intros [k p] [Hs Hok] Hl. simpl in *. split; [split; assumption|]. lia. Qed.

(** The rewriting at the level [d] of an [okg c] body of [rd]-depth at
    most [d], with linear point substitution and cotangent, is [okg c']. *)
Lemma okg_rdr d : forall N Γ0 As θ W c c', lift c c' -> (c <= c')%nat ->
  okg c N -> (rd_depth N <= d)%nat -> (forall x, okg 0 (θ x)) -> okg 0 W ->
  okg c' (rdr d Γ0 As θ W N).
Proof.
  induction d as [|d IHd]; intros N;
  induction N as [x|c0|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ0 As θ W c c' Hl Hc Ho Hd Hθ HW.
  all: try (rewrite rdr_Var; destruct (Nat.ltb x (length As));
            [apply okg_onehot; eapply okg_mono; [|exact HW]; lia|apply okg_zero]).
  all: try (rewrite rdr_Const; apply okg_zero).
  all: try (rewrite rdr_App; destruct Ho as [[Hg Hf] HoM]; destruct (Hl f Hg Hf) as [Hg' [Hf' Hf'']];
            cbn [okg]; split;
            [split; [split; [exact Hg'|exact Hf']|]; apply okg_tuple; constructor;
               [apply okg_subst; auto; eapply okg_mono; [|exact HoM]; lia
               |constructor; [eapply okg_mono; [|exact HW]; lia|constructor]]
            |apply IH with (c := c); auto; [intros x; apply okg_ren; auto|exact I]]).
  all: try rdr_case_add okg_plus IH1 IH2 Ho Hd c.
  all: try rdr_case_tuple okg_sum_tms okg_rdr_tuple okg_tuple IH Ho Hd Ms c.
  all: try (rewrite rdr_Proj; destruct (infer_tm (As ++ Γ0) M) as [[n|Bs]|]; try apply okg_zero;
            apply IH with (c := c); auto; apply okg_onehot; auto).
  all: try (rewrite rdr_Let; destruct Ho as [HoM HoN]; cbn [rd_depth] in Hd;
            destruct (infer_tm (As ++ Γ0) M) as [A'|]; [|apply okg_zero];
            cbn [okg]; split; [apply okg_subst; auto; eapply okg_mono; [|exact HoM]; lia|];
            rdr_case_let_end okg_plus okg_tuple okg_ren IHM IHN c).
  - (* Rd, level 0: excluded by the depth *)
    cbn [rd_depth] in Hd. lia.
  - (* Rd, level d + 1 *)
    rewrite rdr_Rd. destruct Ho as [HoM [HoN HoL]]. cbn [rd_depth] in Hd.
    destruct (infer_tm (As ++ Γ0) L) as [Ay|]; [|apply okg_zero].
    apply IHd with (c := c); auto; [|apply rd_depth_rd_body; lia].
    cbn [okg]. split; [exact HoL|]. split; [apply okg_ren; auto|].
    apply IHd with (c := pred c); auto; [apply lift_pred with c'; exact Hl|lia|lia|intros [|x]; exact I|exact I].
Qed.

(** ** The shape of the denotation *)
Lemma okg_sub_env b val M : okg b M -> ok_step_env (fun _ M => okg b M) val M.
Proof.
  destruct M; cbn [okg ok_step_env]; intros H; try tauto.
  - destruct H as [[Hg _] HM]. split; [apply goodg_good_at; exact Hg|exact HM].
  - apply okg_tuple. exact H.
Qed.

Lemma den_fits_g b Γ M A : typed_tm Γ M A -> okg b M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM Ho. refine (den_fits_env decls locs (fun _ M => okg b M) _ _ Γ M A HM (fun _ => RNode []) Ho).
  - intros val M'. apply okg_sub_env.
  - intros val M' N L [_ [_ HL]]. exact HL.
Qed.

(** The bodies of the level [d] at the budget [b]. *)
Definition okgd (b d : nat) (M : tm) : Prop := okg b M /\ (rd_depth M <= d)%nat.

Lemma okgd_sub b d val M : okgd b d M -> ok_step_env (fun _ => okgd b d) val M.
Proof.
  destruct M as [x|c|f M|M1 M2|Ms|i M|M N|M N L]; intros [Ho Hd]; cbn [ok_step_env okg rd_depth] in *; unfold okgd.
  - exact I.
  - exact Ho.
  - destruct Ho as [[Hg _] Ho]. split; [apply goodg_good_at, Hg|]. split; auto.
  - destruct Ho. split; split; auto; lia.
  - apply okg_tuple in Ho. rewrite Forall_forall in Ho |- *. intros M HM. split; auto.
    pose proof (list_max'_in rd_depth Ms M HM). lia.
  - split; auto.
  - destruct Ho. split; split; auto; lia.
  - exact I.
Qed.

Lemma okgd_fits b d Γ M A : typed_tm Γ M A -> (exists val : nat -> rv, okgd b d M) ->
  forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof. intros HM [_ [Ho _]]. eapply den_fits_g; eauto. Qed.

(** ** Soundness of the rewriting at every level *)
Theorem rdr_sound_all d : forall b Γf N B, typed_tm Γf N B -> okg b N -> (rd_depth N <= d)%nat ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr d Γ0 As θ W N)) (den ρ W).
(** Informal proof: by induction on [d], [rdr_sound_env] at the level [d]
    for [okgd b d] ([okgd_sub]: a [goodg] primitive is [good_at] every
    tree, [goodg_good_at]; [den_fits_g]).  At the level 0 there is
    no R-Rd case.  At the level [d + 1] ([rd_case_from]):
    [W.R_θ(x⃗. M.rd(y.N)(L))] is [W.R_θ(x⃗.T)] at the level [d] for
    [T := let l ← L in let u ← M in u.R_l(y.N)].  The inner body [N] is
    [okg (b - 1)], so its rewriting is [okg b] ([okg_rdr] with
    [lift_budget], every budget) and [T] is [okg b], of depth at most [d]
    ([rd_depth_rd_body]): the hypothesis at [d] gives a reverse
    derivative of [T]; and [T] denotes [M.rd(y.N)(L)] in every
    environment ([rd_core] with the hypothesis at [d] for [N] at the
    budget [b - 1]). *)
Proof.
  induction d as [|d IHd]; intros b Γf N B HN Ho Hd As Γ0 E θ W ρ Hv HW.
  - refine (rdr_sound_env decls locs 0 (fun _ => okgd b 0) (fun _ _ _ _ H => H) (okgd_sub b 0) (okgd_fits b 0) _
              Γf N B HN As Γ0 E θ W ρ Hv HW (conj Ho Hd)).
    intros Γf' M N' L A B' _ _ _ As' Γ0' _ θ' W' ρ' _ _ [_ HdR]. simpl in HdR. lia.
  - refine (rdr_sound_env decls locs (S d) (fun _ => okgd b (S d)) (fun _ _ _ _ H => H) (okgd_sub b (S d)) (okgd_fits b (S d)) _
              Γf N B HN As Γ0 E θ W ρ Hv HW (conj Ho Hd)).
    clear Γf N B HN Ho Hd As Γ0 E θ W ρ Hv HW.
    (* R-Rd *)
    intros Γf M N' L A B HM HN HL As Γ0 -> θ W ρ Hv HW [[HoM [HoN HoL]] HdR].
    unfold okgd in *. simpl rd_depth in HdR.
    assert (HdM : (rd_depth M <= d)%nat) by lia.
    assert (HdN : (rd_depth N' <= d)%nat) by lia.
    assert (HdL : (rd_depth L <= d)%nat) by lia.
    set (T := Let L (Let (shift M) (Proj 0 (rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N')))).
    assert (HT : typed_tm (As ++ Γ0) T A) by (apply rd_body_typed with B; auto).
    assert (HoT : okg b T).
    { unfold T. cbn [okg]. split; [exact HoL|]. split; [apply okg_ren; exact HoM|].
      apply okg_rdr with (c := pred b); auto; [apply lift_budget|lia|intros [|x]; exact I|exact I]. }
    assert (HdT : (rd_depth T <= d)%nat) by (apply rd_depth_rd_body; auto).
    apply (rd_case_from decls locs d _ M N' L A B As Γ0 θ W ρ HM HN HL eq_refl Hv).
    + intros e He. split; eapply den_fits_g; eauto.
    + intros ρ' Hv' Hu. apply (IHd (pred b) _ N' B HN HoN HdN [A] (As ++ Γ0) eq_refl); auto.
    + exact (IHd b _ T A HT HoT HdT As Γ0 eq_refl θ W ρ Hv HW).
Qed.

(** ** Soundness of the [rd] step, at every depth *)
Theorem rd_step_sound_all Γ ρ A B W V N b :
  typed_tm (A :: Γ) N B -> okg b N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: [rd_rewrite] is the rewriting at the level
    [rd_depth N]; [rdr_sound_all] there at the budget [b], [As = [A]],
    [θ = V/x], and [rd_step_from]. *)
Proof.
  intros HN Ho Hρ HV HW. unfold rd_rewrite. apply rd_step_from with B; auto.
  exact (rdr_sound_all (rd_depth N) b _ N B HN Ho (le_n _) [A] Γ eq_refl _ W ρ (env_fits_point Γ ρ A V Hρ HV) HW).
Qed.

(** ** The earlier bodies are [okg] bodies *)
Lemma okt_okg M : okt M -> okg 2 M.
Proof.
  tm_induction M; cbn [okt okg]; intros H; auto; try tauto.
  - destruct H as [Hg HM]. split; auto. split; [apply good_goodg, Hg|]. destruct Hg as [_ [_ [Hk _]]]. lia.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
Qed.

Lemma smooth0_okg M : smooth0 M -> okg 1 M.
Proof.
  tm_induction M; cbn [smooth0 okg]; intros H; auto; try tauto.
  - destruct f as [k p]. simpl in H |- *. destruct H as [-> [Hs [Hok HM]]].
    split; auto. split; [apply good_goodg, good_smooth; auto|lia].
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
Qed.

Lemma okn_okg M : okn M -> okg 2 M.
Proof.
  tm_induction M; cbn [okn okg]; intros H; auto; try tauto.
  - destruct H as [Hg HM]. split; auto. split; [apply good_goodg, Hg|]. destruct Hg as [_ [_ [Hk _]]]. lia.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
  - destruct H as [H1 [H2 H3]]. split; [apply okt_okg; auto|split; [apply smooth0_okg; auto|apply okt_okg; auto]].
Qed.


(** ** Bodies of smooth primitives, with no hypothesis left on them *)
(** [smooth_g b M]: every primitive [rd^k[p]] of [M] under [j] enclosing
    [rd]s has [p] smooth or [sce] ([smooth_all_prim]), [prim_ok p] and
    [k + j < b]; the constants have the length of their type.
    Decidable, syntactic. *)
Fixpoint smooth_g (b : nat) (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => ((fst f < b)%nat /\ smooth_all_prim (snd f) = true /\ prim_ok (snd f) = true) /\ smooth_g b M
  | Add M1 M2 => smooth_g b M1 /\ smooth_g b M2
  | Tuple Ms => fold_right and True (map (smooth_g b) Ms)
  | Proj _ M => smooth_g b M
  | Let M N => smooth_g b M /\ smooth_g b N
  | Rd M N L => smooth_g b M /\ smooth_g (pred b) N /\ smooth_g b L
  end.

Lemma smooth_g_okg M : forall b, smooth_g b M -> okg b M.
Proof.
  tm_induction M; intros b; cbn [smooth_g okg]; intros H; auto; try tauto.
  - destruct f as [k p]. simpl in H |- *. destruct H as [[Hb [Hs Hok]] HM].
    split; auto. split; [split; assumption|exact Hb].
  - destruct H. split; auto.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; auto. destruct H. split; auto.
  - destruct H. split; auto.
  - destruct H as [H1 [H2 H3]]. split; [|split]; auto.
Qed.

Corollary rd_step_sound_smooth_all Γ ρ A B W V N b :
  typed_tm (A :: Γ) N B -> smooth_g b N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
Proof. intros HN Hs. apply (rd_step_sound_all Γ ρ A B W V N b); auto. apply smooth_g_okg. exact Hs. Qed.

(** The hypotheses are met by a body of [rd]-depth two that applies a
    primitive under one [rd] and has a linear [rd] under two: for
    [N = x.rd(y. y.rd(z. z + y)(y) + swish_3(y))(x)], every point and
    cotangent of [Real(3)], [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧].  Its rewriting
    applies [rd²[swish]]. *)
Example rd_step_sound_depth2_swish ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Var 0) (Add (Rd (Var 0) (Add (Var 0) (Var 1)) (Var 0)) (App (0%nat, PSwish 3%nat) (Var 0))) (Var 0) in
  (rd_depth N = 2)%nat /\
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof. rd_example rd_step_sound_smooth_all (@TBase Rsorts4 3%nat). Qed.

(** The hypotheses are met by bodies applying [sce] (softmax cross-entropy
    of logits and target, [Real(n) × Real(n) → Real(1)]), which is not a
    smooth primitive of [prims.v] but is differentiable everywhere
    ([sce.v]).  For [N = x.sce_3(<x, t>)] (the loss at the logits [x] for
    a target [t]), every point of [Real(3)] and cotangent of [Real(1)]:
    [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]; its rewriting applies [rd[sce]]. *)
Example rd_step_sound_sce ρ (v t w : vec) :
  length v = 3%nat -> length t = 3%nat -> length w = 1%nat ->
  let N := App (0%nat, PSce 3%nat) (Tuple [Var 0; Const (3%nat, t)]) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (1%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (1%nat, w)) N (Const (3%nat, v))).
Proof. rd_example rd_step_sound_smooth_all (@TBase Rsorts4 1%nat). Qed.

(** And at [rd]-depth one: for [N = x.rd(y. sce_3(<y, x>))(x)], the
    gradient of the loss in the logits at the logits [x] for the target
    [x], every point and cotangent of [Real(3)]:
    [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧].  Its rewriting applies [rd²[sce]]. *)
Example rd_step_sound_sce_grad ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Const (1%nat, [1])) (App (0%nat, PSce 3%nat) (Tuple [Var 0; Var 1])) (Var 0) in
  (rd_depth N = 1)%nat /\
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof. rd_example rd_step_sound_smooth_all (@TBase Rsorts4 3%nat). Qed.

(** ** Every step of the term semantics *)
#[local] Instance Ega : evaluator := exec_evaluator Rvo.

(** Every step of a well-typed closed term keeps its denotation, the [rd]
    step included when the body of the [rd] redex is [okg b] for some
    [b], of any [rd]-depth, and its point and cotangent are [okg] terms. *)
Theorem step_tm_den_all ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> (exists b, okg b N) /\ (exists b, okg b V) /\ (exists b, okg b W)) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: [step_tm_den_via] with [rd_step_sound_all]. *)
Proof.
  apply step_tm_den_via; [intros Γ ρ' A B W V N HN [b Ho]; apply (rd_step_sound_all Γ ρ' A B W V N b HN Ho)|].
  intros M A HM [b Ho]. eapply den_fits_g; eauto. intros x D Hx. destruct x; discriminate.
Qed.
End all.

(** * Soundness of the [rd] step at every [rd]-depth, for linear bodies

    The bodies without function symbols ([oklin]: variables, constants,
    sums, tuples, projections, [let], and [rd] nodes whose cotangent, body
    and point are again of this kind) are closed under the rewriting
    ([oklin_rdr]), and the rewriting does not deepen the nesting of [rd]
    ([rd_depth_rd_body]).  So the R-Rd case at the level [d + 1] is the
    one of [rdr_sound_depth1] with the induction hypothesis at the level
    [d] in place of [rdr_sound_rdfree]: by induction on [d], the rewriting
    at the level [d] of an [oklin] body of [rd]-depth at most [d] denotes
    a reverse derivative of the body ([rdr_sound_lin]), and the [rd] step
    keeps the denotation for every [oklin] body, whatever its [rd]-depth
    ([rd_step_sound_lin], [step_tm_den_lin]). *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd rdr_rel rd_bound term_sem instance normalization.
From RevHandlers.Analysis Require Import vec templates sums prims ev denot rdden rdprim rdcalc level2 rdsound.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts4.

Section lin.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σl : signature := exec_signature Rvo decls locs.

(** ** Linear bodies *)
Fixpoint oklin (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App _ _ => False
  | Add M1 M2 => oklin M1 /\ oklin M2
  | Tuple Ms => fold_right and True (map oklin Ms)
  | Proj _ M => oklin M
  | Let M N => oklin M /\ oklin N
  | Rd M N L => oklin M /\ oklin N /\ oklin L
  end.

Lemma oklin_tuple Ms : oklin (Tuple Ms) <-> Forall oklin Ms.
Proof.
  simpl. induction Ms as [|M Ms IH]; simpl; split; intros H; auto.
  - destruct H as [H1 H2]. constructor; auto. apply IH; auto.
  - inversion H; subst. split; auto. apply IH; auto.
Qed.

Lemma oklin_ren M : forall ξ, oklin M -> oklin (ren_tm ξ M).
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros ξ H.
  - exact I.
  - exact H.
  - destruct H.
  - destruct H. split; auto.
  - apply oklin_tuple in H. simpl ren_tm. apply oklin_tuple. apply Forall_forall. intros M' HM'.
    rewrite Forall_forall in H, IH.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - apply IH. exact H.
  - destruct H. split; auto.
  - destruct H as [H1 [H2 H3]]. split; [|split]; auto.
Qed.

Lemma oklin_subst M : forall σ, (forall x, oklin (σ x)) -> oklin M -> oklin (subst_tm σ M).
Proof.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros σ Hσ H.
  - apply Hσ.
  - exact H.
  - destruct H.
  - destruct H. split; auto.
  - apply oklin_tuple in H. simpl subst_tm. apply oklin_tuple. apply Forall_forall. intros M' HM'.
    rewrite Forall_forall in H, IH.
    apply in_map_iff in HM'. destruct HM' as [M [<- HM]]. apply IH; auto.
  - apply IH; auto.
  - destruct H as [H1 H2]. split; auto. apply IHN; auto. intros [|x]; simpl; auto. apply oklin_ren. auto.
  - destruct H as [H1 [H2 H3]]. split; [|split]; auto.
    apply IHN; auto. intros [|x]; simpl; auto. apply oklin_ren. auto.
Qed.

Lemma oklin_zero A : oklin (zero A).
Proof.
  induction A as [n|As IH] using ty_ind'; simpl.
  - unfold vzero. apply repeat_length.
  - apply oklin_tuple. induction IH; simpl; constructor; auto.
Qed.

Lemma oklin_plus A : forall M N, oklin M -> oklin N -> oklin (plus A M N).
Proof.
  induction A as [n|As IH] using ty_ind'; intros M N HM HN; simpl; auto.
  split; auto. split; [apply oklin_ren; auto|].
  apply oklin_tuple.
  assert (Hg : forall As' i, Forall (fun A => forall M N, oklin M -> oklin N -> oklin (plus A M N)) As' ->
    Forall oklin ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                   match As with
                   | [] => []
                   | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                   end) i As')).
  { intros As' i HI. revert i. induction HI as [|A As' HA HAs IHl]; intros i; constructor.
    - apply HA; simpl; auto.
    - apply IHl. }
  apply Hg. exact IH.
Qed.

Lemma oklin_onehot As i W : oklin W -> oklin (onehot As i W).
Proof.
  intros HW. unfold onehot. apply oklin_tuple. rewrite Forall_forall. intros M HM.
  apply in_map_iff in HM. destruct HM as [[j A] [<- _]]. simpl. destruct (Nat.eqb j i); auto. apply oklin_zero.
Qed.

Lemma oklin_sum_tms A Ms : Forall oklin Ms -> oklin (sum_tms A Ms).
Proof.
  induction 1 as [|M Ms HM HMs IH]; simpl; [apply oklin_zero|]. destruct Ms; auto. apply oklin_plus; auto.
Qed.

Lemma oklin_rdr_tuple (r : tm -> tm -> tm) W i Ms :
  Forall (fun M => forall W, oklin W -> oklin (r W M)) Ms -> oklin W -> Forall oklin (rdr_tuple r W i Ms).
Proof.
  intros H HW. revert i. induction H as [|M Ms HM HMs IH]; intros i; cbn [rdr_tuple]; constructor; auto.
Qed.

(** The rewriting of a linear body, at any level, with linear point and
    cotangent, is linear. *)
Lemma oklin_rdr d : forall N Γ0 As θ W, oklin N -> (forall x, oklin (θ x)) -> oklin W ->
  oklin (rdr d Γ0 As θ W N).
Proof.
  induction d as [|d IHd]; intros N;
  induction N as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ0 As θ W Ho Hθ HW.
  all: try (rewrite rdr_Var; destruct (Nat.ltb x (length As)); [apply oklin_onehot; auto|apply oklin_zero]).
  all: try (rewrite rdr_Const; apply oklin_zero).
  all: try (destruct Ho; fail).
  all: try (rewrite rdr_Add; destruct Ho; apply oklin_plus; auto).
  all: try (rewrite rdr_Tuple; apply oklin_sum_tms; apply oklin_tuple in Ho; apply oklin_rdr_tuple; auto;
            rewrite Forall_forall in IH, Ho |- *; intros M HM W' HW'; apply IH; auto).
  all: try (rewrite rdr_Proj; destruct (infer_tm (As ++ Γ0) M) as [[n|Bs]|]; try apply oklin_zero;
            apply IH; auto; apply oklin_onehot; auto).
  all: try (rewrite rdr_Let; destruct Ho as [HoM HoN]; destruct (infer_tm (As ++ Γ0) M) as [A'|]; [|apply oklin_zero];
            cbn [oklin]; split; [apply oklin_subst; auto|]; split;
            [apply IHN; auto; [intros [|x]; simpl; auto; apply oklin_ren; auto|apply oklin_ren; auto]|];
            apply oklin_plus;
            [apply oklin_tuple; rewrite Forall_forall; intros M' HM'; apply in_map_iff in HM';
             destruct HM' as [j [<- _]]; simpl; auto
            |apply IHM; auto; [intros x; apply oklin_ren, oklin_ren; auto|exact I]]).
  - (* Rd, level 0: the unrewritten fallback *)
    rewrite rdr_Rd_spent. cbn [oklin]. split; [exact HW|]. split.
    + apply oklin_subst; auto. intros x. unfold proj_subst. destruct (Nat.ltb x (length As)); simpl; auto.
      apply oklin_ren. auto.
    + apply oklin_tuple. rewrite Forall_forall. intros M' HM'. apply in_map_iff in HM'.
      destruct HM' as [j [<- _]]. auto.
  - (* Rd, level d + 1 *)
    rewrite rdr_Rd. destruct Ho as [HoM [HoN HoL]]. destruct (infer_tm (As ++ Γ0) L) as [Ay|]; [|apply oklin_zero].
    apply IHd; auto. cbn [oklin]. split; [exact HoL|]. split; [apply oklin_ren; auto|].
    apply IHd; auto; [intros [|x]; exact I|exact I].
Qed.

(** ** The shape of the denotation *)
Lemma den_fits_lin Γ M A : typed_tm Γ M A -> oklin M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM; elim HM using typed_tm_ind'; clear Γ M A HM.
  - intros Γ x A Hx _ ρ Hρ. simpl. auto.
  - intros Γ c Hc ρ Hρ. simpl in *. constructor. auto.
  - intros Γ f M HM IH Ho. destruct Ho.
  - intros Γ M1 M2 b H1 IH1 H2 IH2 [Ho1 Ho2] ρ Hρ. simpl.
    specialize (IH1 Ho1 ρ Hρ). specialize (IH2 Ho2 ρ Hρ).
    inversion IH1 as [? u Hu E1|]. inversion IH2 as [? v Hv E2|]. simpl.
    destruct (fits_vadd b u v) as [F _]; [constructor; auto|constructor; auto|]. exact F.
  - intros Γ Ms As HF IH Ho ρ Hρ. apply oklin_tuple in Ho. simpl. constructor.
    clear HF. induction IH as [|M A Ms As HMA HF IHl]; simpl; constructor; inversion Ho; subst; auto.
  - intros Γ M As i A HM IH Hi Ho ρ Hρ. simpl. specialize (IH Ho ρ Hρ).
    inversion IH as [|? ts HF E]. simpl. eapply block_nth; eauto.
  - intros Γ M N A B HM IHM HN IHN [HoM HoN] ρ Hρ. simpl. apply IHN; auto.
    apply env_fits_cons; auto.
  - intros Γ M N L A B HM _ HN _ HL IHL [HoM [HoN HoL]] ρ Hρ. rewrite den_Rd. unfold rd_den.
    assert (Hl : fits A (den ρ L)) by (apply IHL; auto).
    apply reshape_keeps; auto. rewrite length_tab. apply fits_len. auto.
Qed.

(** The bodies of the level [d]: linear, of [rd]-depth at most [d]. *)
Definition okd (d : nat) (M : tm) : Prop := oklin M /\ (rd_depth M <= d)%nat.

Lemma okd_sub d M : okd d M -> ok_step (okd d) M.
Proof.
  destruct M as [x|c|f M|M1 M2|Ms|i M|M N|M N L]; intros [Ho Hd]; cbn [ok_step oklin rd_depth] in *; unfold okd.
  - exact I.
  - exact Ho.
  - destruct Ho.
  - destruct Ho. split; split; auto; lia.
  - apply oklin_tuple in Ho. rewrite Forall_forall in Ho |- *. intros M HM. split; auto.
    pose proof (list_max'_in rd_depth Ms M HM). lia.
  - split; auto.
  - destruct Ho. split; split; auto; lia.
  - exact I.
Qed.

Lemma okd_fits d Γ M A : typed_tm Γ M A -> okd d M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof. intros HM [Ho _]. apply den_fits_lin; auto. Qed.

(** ** Soundness of the rewriting at every level *)
Theorem rdr_sound_lin d : forall Γf N B, typed_tm Γf N B -> oklin N -> (rd_depth N <= d)%nat ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr d Γ0 As θ W N)) (den ρ W).
(** Informal proof: by induction on [d], [rdr_sound_gen] at the level [d]
    for [okd d] ([okd_sub], [den_fits_lin]).  At the level 0 there is no
    R-Rd case ([rd] has depth at least one).  At the level [d + 1], as in
    [rdr_sound_depth1]: [W.R_θ(x⃗. M.rd(y.N)(L))] is [W.R_θ(x⃗.T)] at the
    level [d] for [T := let l ← L in let u ← M in u.R_l(y.N)], which is
    linear ([oklin_rdr]) of depth at most [d] ([rd_depth_rd_body]), so the
    hypothesis at [d] gives a reverse derivative of [T]; and [T] denotes
    [M.rd(y.N)(L)] in every environment ([rd_core] with the hypothesis at
    [d] for the inner rewriting of [N]). *)
Proof.
  induction d as [|d IHd]; intros Γf N B HN Ho Hd.
  - refine (rdr_sound_gen decls locs 0 (okd 0) (okd_sub 0) (okd_fits 0) _ Γf N B HN (conj Ho Hd)).
    intros Γf' M N' L A B' _ _ _ [_ HdR]. simpl in HdR. lia.
  - refine (rdr_sound_gen decls locs (S d) (okd (S d)) (okd_sub (S d)) (okd_fits (S d)) _ Γf N B HN (conj Ho Hd)).
    clear Γf N B HN Ho Hd.
    (* R-Rd *)
    intros Γf M N' L A B HM HN HL [[HoM [HoN HoL]] HdR] As Γ0 -> θ W ρ Hv HW.
    unfold okd in *. simpl rd_depth in HdR.
    assert (HdM : (rd_depth M <= d)%nat) by lia.
    assert (HdN : (rd_depth N' <= d)%nat) by lia.
    assert (HdL : (rd_depth L <= d)%nat) by lia.
    rewrite rdr_Rd, (infer_tm_complete _ _ _ HL).
    set (val := fun x => den ρ (θ x)) in *.
    set (T := Let L (Let (shift M) (Proj 0 (rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N')))).
    assert (HT : typed_tm (As ++ Γ0) T A).
    { unfold T. econstructor; [exact HL|]. econstructor; [apply typed_tm_shift; exact HM|].
      apply typed_tm_proj with (As := [A]); [|reflexivity].
      apply (rdr_typed d (As ++ Γ0) [A] rd_inner_subst (Var 0) N' B); [exact HN|constructor; reflexivity|].
      intros [|x] C Hx; simpl in Hx |- *; constructor; [simpl; congruence|exact Hx]. }
    assert (HoT : oklin T).
    { unfold T. cbn [oklin]. split; [exact HoL|]. split; [apply oklin_ren; exact HoM|].
      apply oklin_rdr; auto; [intros [|x]; exact I|exact I]. }
    assert (HdT : (rd_depth T <= d)%nat) by (apply rd_depth_rd_body; auto).
    destruct (IHd _ T A HT HoT HdT As Γ0 eq_refl θ W ρ Hv HW) as [F [r [Hr E]]].
    split; [exact F|]. exists r. split; [|exact E].
    eapply is_rev_deriv_ext; [| |exact Hr]; [|reflexivity].
    intros y Hy. unfold G. f_equal.
    set (e := benv (length As) val y).
    assert (He : env_fits (As ++ Γ0) e) by (apply benv_fits; auto).
    set (l := den e L). set (u := den e M).
    assert (Hl : fits A l) by (eapply den_fits_lin; eauto).
    assert (Hu : fits B u) by (eapply den_fits_lin; eauto).
    set (ρ' := scons u (scons l e)).
    assert (Hv' : env_fits (A :: As ++ Γ0) (fun x => den ρ' (rd_inner_subst x))).
    { intros [|x] C Hx; simpl in *; [congruence|]. apply He; auto. }
    pose proof (IHd _ N' B HN HoN HdN [A] (As ++ Γ0) eq_refl rd_inner_subst (Var 0) ρ' Hv' Hu) as Hin.
    pose proof (rd_core decls locs d (As ++ Γ0) ρ' A B (Var 0) N' rd_inner_subst Hv' Hu Hin) as Hc.
    transitivity (den ρ' (Proj 0 (rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N'))).
    { unfold T. rewrite !den_Let. unfold ρ', u, l. f_equal. f_equal. apply den_shift. }
    etransitivity; [exact Hc|]. transitivity (rd_den u l (fun a => den (scons a e) N')); [|reflexivity].
    apply rd_den_ext. intros a. apply den_ext. intros [|x]; reflexivity.
Qed.

(** ** Soundness of the [rd] step for linear bodies, at every depth *)
Theorem rd_step_sound_lin Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> oklin N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: [rd_rewrite] is the rewriting at the level
    [rd_depth N]; [rdr_sound_lin] at that level with [As = [A]],
    [θ = V/x], and [rd_core]. *)
Proof.
  intros HN Ho Hρ HV HW.
  set (θ := list_subst [V]).
  assert (Hv : env_fits ([A] ++ Γ) (fun x => den ρ (θ x))).
  { intros [|x] C Hx; simpl in *; [injection Hx as <-; exact HV|]. unfold θ, list_subst. simpl. destruct x; simpl; apply Hρ; auto. }
  unfold rd_rewrite. fold θ.
  etransitivity; [apply (rd_core decls locs (rd_depth N) Γ ρ A B W N θ Hv HW
                          (rdr_sound_lin (rd_depth N) _ N B HN Ho (le_n _) [A] Γ eq_refl θ W ρ Hv HW))|].
  transitivity (rd_den (den ρ W) (den ρ V) (fun a => den (scons a ρ) N)); [|reflexivity].
  apply rd_den_ext. intros a. apply den_ext. intros [|x]; [reflexivity|].
  unfold θ, list_subst. simpl. destruct x; reflexivity.
Qed.

(** The hypotheses are met by a body of [rd]-depth two: for
    [N = x.rd(y. y.rd(z. z + y)(y))(x)], every point and cotangent of
    [Real(3)], [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]. *)
Example rd_step_sound_depth2 ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat ->
  let N := Rd (Var 0) (Rd (Var 0) (Add (Var 0) (Var 1)) (Var 0)) (Var 0) in
  (rd_depth N = 2)%nat /\
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hw N. split; [reflexivity|]. apply rd_step_sound_lin with (B := @TBase Rsorts4 3%nat).
  - unfold N. apply typed_tm_rd with (B := @TBase Rsorts4 3%nat); [constructor; reflexivity| |constructor; reflexivity].
    apply typed_tm_rd with (B := @TBase Rsorts4 3%nat); [constructor; reflexivity| |constructor; reflexivity].
    apply typed_tm_add; constructor; reflexivity.
  - simpl. repeat split.
  - intros x D Hx. destruct x; discriminate.
  - simpl. constructor. exact Hv.
  - simpl. constructor. exact Hw.
Qed.
End lin.

(** ** Every step of the term semantics *)
Section linsteps.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σla : signature := exec_signature Rvo decls locs.
#[local] Instance Ela : evaluator := exec_evaluator Rvo.

(** Every step of a well-typed closed term keeps its denotation, the [rd]
    step included when the body of the [rd] redex is linear, of any
    [rd]-depth, and its point and cotangent satisfy [okt]. *)
Theorem step_tm_den_lin ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> oklin N /\ okt V /\ okt W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: as [step_tm_den_rdfree], with [rd_step_sound_lin]. *)
Proof.
  intros HT Hs Hok. destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB _]].
  apply den_fill_ectx.
  assert (Hc : (exists W N V, M0 = Rd W N V) \/ (forall W N V, M0 <> Rd W N V)).
  { destruct M0; try (right; intros; discriminate). left; eauto. }
  destruct Hc as [[W [N [V ->]]]|Hn].
  - destruct (Hok W N V eq_refl) as [HoN [HoV HoW]].
    inversion Hs as [| | | |? ? ? A HW HV HA]; subst.
    inversion HB; subst.
    match goal with HTV : typed_tm [] V _ |- _ => rewrite (infer_tm_complete _ _ _ HTV) in HA; injection HA as <- end.
    match goal with HTN : typed_tm (?A2 :: []) N ?B1 |- _ =>
      symmetry; apply (rd_step_sound_lin decls locs [] ρ A2 B1 W V N HTN) end; auto.
    + intros x D Hx. destruct x; discriminate.
    + eapply den_fits; eauto. intros x D Hx. destruct x; discriminate.
    + eapply den_fits; eauto. intros x D Hx. destruct x; discriminate.
  - eapply head_step_den; eauto.
Qed.
End linsteps.

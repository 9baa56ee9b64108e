(** * Soundness of the [rd] step with primitives differentiable on a set

    [relu], [log], [round] and [maxpool] have a derivative only on a set
    ([prim_domain], [prims_all.v]: off 0, on positive coordinates, off the
    half-integers, at strict window maxima).  The [rd] step is sound for an
    [rd]-free body at every point where each primitive of the body is
    applied inside its set: [okt_on val N] reads the body in the values
    [val] of its free variables, and asks each application [rd^k[p](M)]
    ([k ≤ 1]) to have its argument's value in [prim_domain k p].  The
    derivative of the body at the point needs only the derivatives of the
    primitives at the values they are applied to (the chain rule at a
    point), so [rdr_sound_env] applies with [good_at] at those values
    ([good_on_at], from [prim_rd_correct_on]); the shapes come from
    [all_prim_fits].

    - [rdr_sound_on], [rd_step_sound_on]: [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧]
      for every [rd]-free body [N] whose primitives, read at [x = ⟦V⟧],
      are applied in their sets; the smooth ones (and [sce]) are allowed
      everywhere.
    - [rd_eval_den_on]: whatever [W.R_V(x.N)] evaluates to denotes
      [⟦W.rd(x.N)(V)⟧].
    - Instances: [relu] at a point with no zero coordinate
      ([rd_step_sound_relu]); a layer [sum(relu(x − b))] ([rd_step_sound_relu_layer]);
      [log] at a positive point ([rd_step_sound_log]).

    Not proved: such bodies under an [rd] inside the body (nested [rd]s):
    the inner derivative, read as a map of the outer variables, would need
    the conditions at every point near the point, not at the point only. *)
From Coq Require Import Relation_Operators.
From RevHandlers.Analysis Require Import base_rd prims_more prims_all prims_fits.
Open Scope R_scope.

Section on.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σo : signature := exec_signature Rvo decls locs.

(** A primitive [rd^k[p]] applied at a tree in its set. *)
Definition good_on (f : nat * prim) (t : rv) : Prop :=
  prim_ok (snd f) = true /\ (fst f <= 1)%nat /\ prim_domain (fst f) (snd f) (rflat t).

(** [rd]-free bodies read in the values [val] of their free variables,
    each primitive applied in its set. *)
Fixpoint okt_on (val : nat -> rv) (M : tm) : Prop :=
  match M with
  | Var _ => True
  | Const c => length (snd c) = fst c
  | App f M => good_on f (den val M) /\ okt_on val M
  | Add M1 M2 => okt_on val M1 /\ okt_on val M2
  | Tuple Ms => fold_right and True (map (okt_on val) Ms)
  | Proj _ M => okt_on val M
  | Let M N => okt_on val M /\ okt_on (scons (den val M) val) N
  | Rd _ _ _ => False
  end.

Lemma okt_on_tuple val Ms : okt_on val (Tuple Ms) <-> Forall (okt_on val) Ms.
Proof. apply fold_and_Forall. Qed.

Lemma okt_on_ext M : forall val val', (forall x, val x = val' x) -> okt_on val M -> okt_on val' M.
Proof.
  tm_induction M; intros val val' E H; cbn [okt_on] in *; auto.
  - destruct H as [Hg HM]. split; [|eauto]. rewrite <- (den_ext M val val' E). exact Hg.
  - destruct H. split; eauto.
  - apply okt_on_tuple in H. apply okt_on_tuple. rewrite Forall_forall in H, IH |- *. intros M HM. eauto.
  - eauto.
  - destruct H as [HM HN]. split; [eauto|]. apply IHN with (scons (den val M) val); auto.
    intros [|x]; simpl; auto. apply den_ext. exact E.
Qed.

Lemma okt_on_rd_depth val M : okt_on val M -> rd_depth M = 0%nat.
Proof.
  revert val. tm_induction M; intros val H; cbn [okt_on rd_depth] in *; auto; try tauto.
  - destruct H. eauto.
  - destruct H. erewrite IH1, IH2; eauto.
  - apply okt_on_tuple in H. unfold list_max'. induction IH as [|M Ms HM HMs IHl]; simpl; auto.
    inversion H; subst. erewrite HM by eauto. rewrite IHl; auto.
  - eauto.
  - destruct H. erewrite IHM, IHN; eauto.
Qed.

(** A primitive applied in its set asks what the rewriting needs at that
    point. *)
Lemma good_on_at f t : good_on f t -> good_at f t.
Proof.
  destruct f as [k p]. intros [Hok [Hk HD]]. simpl in *. unfold good_at. simpl.
  split; [apply all_prim_fits; simpl; auto; lia|]. split; [apply all_prim_fits; simpl; auto; lia|].
  intros Ht. apply (prim_rd_correct_on p k Hok Hk); auto.
  apply fits_len in Ht. rewrite Ht. unfold pdom, dim. reflexivity.
Qed.

Lemma okt_on_sub val M : okt_on val M -> ok_step_env okt_on val M.
Proof.
  destruct M as [x|c|f M|M1 M2|Ms|i M|M N|M N L]; cbn [okt_on ok_step_env]; intros H; auto.
  - destruct H. split; auto. apply good_on_at. auto.
  - apply okt_on_tuple. exact H.
Qed.

Lemma den_fits_on Γ M A : typed_tm Γ M A -> forall val, okt_on val M -> forall ρ, env_fits Γ ρ -> fits A (den ρ M).
Proof.
  intros HM. apply (den_fits_env decls locs okt_on okt_on_sub); auto.
  intros val M' N L [].
Qed.

(** ** Soundness of the rewriting and of the [rd] step *)
Theorem rdr_sound_on Γf N B : typed_tm Γf N B ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) -> okt_on (fun x => den ρ (θ x)) N ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr 0 Γ0 As θ W N)) (den ρ W).
(** Informal proof: [rdr_sound_env] at the level 0 for [okt_on]
    ([okt_on_ext], [okt_on_sub], [den_fits_on]); no R-Rd case. *)
Proof.
  apply (rdr_sound_env decls locs 0 okt_on (fun val val' M => okt_on_ext M val val') okt_on_sub).
  - intros Γ M A HT [val Ho]. eapply den_fits_on; eauto.
  - intros Γf' M N' L A B' _ _ _ As' Γ0' _ θ' W' ρ' _ _ Ho. destruct Ho.
Qed.

(** [⟦W.R_V(x.N)⟧ = ⟦W.rd(x.N)(V)⟧] for an [rd]-free body whose
    primitives, read at [x = ⟦V⟧], are applied in their sets. *)
Theorem rd_step_sound_on Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> okt_on (scons (den ρ V) ρ) N -> env_fits Γ ρ ->
  fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: [rd_rewrite] is the rewriting at the level 0
    ([okt_on_rd_depth]); [rdr_sound_on] with [As = [A]], [θ = V/x], and
    [rd_step_from]. *)
Proof.
  intros HN Ho Hρ HV HW. unfold rd_rewrite. rewrite (okt_on_rd_depth _ N Ho).
  apply rd_step_from with B; auto.
  apply (rdr_sound_on _ N B HN [A] Γ eq_refl _ W ρ (env_fits_point Γ ρ A V Hρ HV) HW).
  apply okt_on_ext with (scons (den ρ V) ρ); auto.
  intros [|x]; [reflexivity|]. unfold list_subst. simpl. destruct x; reflexivity.
Qed.
End on.

(** ** The evaluation *)
Section oneval.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σoe : signature := exec_signature Rvo decls locs.
#[local] Instance Eoe : evaluator := exec_evaluator Rvo.
#[local] Instance Eoeok : evaluator_ok := exec_evaluator_ok Rvo decls locs.

(** Whatever [W.R_V(x.N)] evaluates to denotes [⟦W.rd(x.N)(V)⟧], for a
    closed [W.rd(x.N)(V)] whose [rd]-free body applies its primitives in
    their sets at [x = ⟦V⟧]. *)
Theorem rd_eval_den_on ρ W N V A B M' :
  typed_tm [] W B -> typed_tm [A] N B -> typed_tm [] V A ->
  okt_on (scons (den ρ V) ρ) N -> okt V -> okt W ->
  clos_refl_trans_1n tm step_tm (rd_rewrite [] A W V N) M' ->
  den ρ M' = den ρ (Rd W N V).
(** Informal proof: as [rd_eval_den], with [rd_step_sound_on]: the
    rewriting of an [rd]-free body is [rd]-free ([rdr_depth]), so
    [steps_den_rdfree] applies. *)
Proof.
  intros HW HN HV HoN HoV HoW Hs.
  assert (Hρ : env_fits [] ρ) by (intros x D Hx; destruct x; discriminate).
  transitivity (den ρ (rd_rewrite [] A W V N)).
  2: { apply (rd_step_sound_on decls locs [] ρ A B W V N HN HoN Hρ); eapply den_fits; eauto. }
  symmetry. apply (steps_den_rdfree decls locs ρ _ _ A); auto.
  - apply rd_rewrite_typed with B; auto.
  - assert (Hd0 : rd_depth N = 0%nat) by exact (okt_on_rd_depth _ N HoN).
    unfold rd_rewrite. simpl. rewrite Hd0.
    assert (Hθ : rd_free (list_subst [V])).
    { intros [|x]; simpl; [apply okt_rd_depth; auto|destruct x; reflexivity]. }
    pose proof (rdr_depth 0 N [] [A] (list_subst [V]) W ltac:(rewrite Hd0; lia) Hθ) as Hd.
    assert (HdW : rd_depth W = 0%nat) by exact (okt_rd_depth W HoW).
    rewrite Hd0, HdW in Hd.
    apply Nat.le_0_r. eapply Nat.le_trans; [exact Hd|]. simpl. lia.
Qed.
End oneval.

(** ** Instances *)
Section instances.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σoi : signature := exec_signature Rvo decls locs.

(** A primitive [p] as the body, at a closed point [V] where it is
    differentiable. *)
Lemma rd_step_sound_prim_on ρ p V W :
  prim_ok p = true -> prim_domain 0 p (rflat (den ρ V)) ->
  fits (fdom 0 p) (den ρ V) -> fits (fcod 0 p) (den ρ W) ->
  den ρ (rd_rewrite [] (fdom 0 p) W V (App (0%nat, p) (Var 0))) =
  den ρ (Rd W (App (0%nat, p) (Var 0)) V).
Proof.
  intros Hok HD HV HW. apply rd_step_sound_on with (B := fcod 0 p); auto.
  - typed_app.
    constructor. reflexivity.
  - simpl. split; [|exact I]. unfold good_on. simpl. split; [exact Hok|]. split; [lia|exact HD].
  - intros x D Hx. destruct x; discriminate.
Qed.

(** The examples with one primitive [p] as the body, at a constant point
    whose coordinates satisfy [p]'s domain (the third hypothesis):
    [rd_step_sound_prim_on], its side conditions by computation. *)
Ltac prim_on_example p :=
  let HD := fresh "HD" in
  intros ? ? HD ?; apply (rd_step_sound_prim_on _ p); simpl; try constructor; auto;
  rewrite rflat_leaf; exact HD.

(** [relu] at a point of [Real(3)] with no zero coordinate:
    [⟦W.R_V(x.relu(x))⟧ = ⟦W.rd(x.relu(x))(V)⟧]. *)
Example rd_step_sound_relu ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat -> coords (fun a => a <> 0) 3 v ->
  let N := App (0%nat, PRelu 3%nat) (Var 0) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof. prim_on_example (PRelu 3). Qed.

(** A layer [x ↦ sum(relu(x − c))] at a point where no coordinate of
    [x − c] is zero: its gradient is the real one. *)
Example rd_step_sound_relu_layer ρ (v c w : vec) :
  length v = 3%nat -> length c = 3%nat -> length w = 1%nat ->
  coords (fun a => a <> 0) 3 (vsub Rsc v c) ->
  let N := App (0%nat, PSum 3%nat) (App (0%nat, PRelu 3%nat) (App (0%nat, PSub 3%nat) (Tuple [Var 0; Const (3%nat, c)]))) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (1%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (1%nat, w)) N (Const (3%nat, v))).
Proof.
  intros Hv Hc Hw HD N. apply rd_step_sound_on with (B := @TBase Rsorts4 1%nat).
  3-5: rd_sides Hv Hw.
  - unfold N.
    typed_app.
    typed_app.
    typed_app.
    repeat constructor.
  - cbn [okt_on]. unfold good_on. simpl. repeat split; auto; try reflexivity; try lia.
    simpl. rewrite rflat_leaf. exact HD.
Qed.

(** [log] at a point of [Real(3)] with positive coordinates. *)
Example rd_step_sound_log ρ (v w : vec) :
  length v = 3%nat -> length w = 3%nat -> coords (fun a => 0 < a) 3 v ->
  let N := App (0%nat, PLog 3%nat) (Var 0) in
  den ρ (rd_rewrite [] (TBase 3%nat) (Const (3%nat, w)) (Const (3%nat, v)) N) =
  den ρ (Rd (Const (3%nat, w)) N (Const (3%nat, v))).
Proof. prim_on_example (PLog 3). Qed.
End instances.

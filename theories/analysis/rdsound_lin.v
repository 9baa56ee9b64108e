(** * Soundness of the [rd] step at every [rd]-depth, for linear bodies

    The bodies without function symbols ([oklin]: variables, constants,
    sums, tuples, projections, [let], and [rd] nodes whose cotangent, body
    and point are again of this kind) are the bodies of budget 0 of
    [rdsound_all.v] ([oklin_okg]), so the rewriting at the level [d] of an
    [oklin] body of [rd]-depth at most [d] denotes a reverse derivative of
    the body ([rdr_sound_lin], from [rdr_sound_all]), and the [rd] step
    keeps the denotation for every [oklin] body, whatever its [rd]-depth
    ([rd_step_sound_lin], [step_tm_den_lin]).  The rewriting keeps a
    linear body linear at every level, the level spent included
    ([oklin_rdr]). *)
From RevHandlers.Analysis Require Import base_rd rdsound_all.
Open Scope R_scope.

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

(** The linear bodies are the bodies of budget 0. *)
Lemma oklin_okg M : oklin M <-> okg 0 M.
Proof.
  tm_induction M; cbn [oklin okg]; try tauto.
  - split; [tauto|]. intros [[_ Hf] _]. lia.
  - induction IH as [|M Ms HM HMs IHl]; simpl in *; tauto.
Qed.

Lemma oklin_ren M ξ : oklin M -> oklin (ren_tm ξ M).
Proof. rewrite !oklin_okg. apply okg_ren. Qed.

Lemma oklin_subst M σ : (forall x, oklin (σ x)) -> oklin M -> oklin (subst_tm σ M).
Proof. intros Hσ. rewrite !oklin_okg. apply okg_subst. intros x. apply oklin_okg. auto. Qed.

Lemma oklin_zero A : oklin (zero A).
Proof. apply oklin_okg, okg_zero. Qed.

Lemma oklin_plus A M N : oklin M -> oklin N -> oklin (plus A M N).
Proof. rewrite !oklin_okg. apply okg_plus. Qed.

Lemma oklin_onehot As i W : oklin W -> oklin (onehot As i W).
Proof. rewrite !oklin_okg. apply okg_onehot. Qed.

Lemma oklin_tuple Ms : oklin (Tuple Ms) <-> Forall oklin Ms.
Proof.
  rewrite oklin_okg, okg_tuple. split; intros H; rewrite Forall_forall in H |- *; intros M HM; apply oklin_okg; auto.
Qed.

Lemma oklin_sum_tms A Ms : Forall oklin Ms -> oklin (sum_tms A Ms).
Proof.
  intros H. apply oklin_okg, okg_sum_tms. rewrite Forall_forall in H |- *. intros M HM. apply oklin_okg. auto.
Qed.

Lemma oklin_rdr_tuple (r : tm -> tm -> tm) W i Ms :
  Forall (fun M => forall W, oklin W -> oklin (r W M)) Ms -> oklin W -> Forall oklin (rdr_tuple r W i Ms).
Proof. apply closed_rdr_tuple. intros j M H. exact H. Qed.

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

(** ** Soundness of the rewriting at every level *)
Theorem rdr_sound_lin d : forall Γf N B, typed_tm Γf N B -> oklin N -> (rd_depth N <= d)%nat ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W ρ,
  env_fits Γf (fun x => den ρ (θ x)) -> fits B (den ρ W) ->
  rd_ok As B (fun x => den ρ (θ x)) N (den ρ (rdr d Γ0 As θ W N)) (den ρ W).
(** Informal proof: [rdr_sound_all] at the budget 0 ([oklin_okg]). *)
Proof. intros Γf N B HN Ho Hd. apply oklin_okg in Ho. apply (rdr_sound_all decls locs d 0); auto. Qed.

(** ** Soundness of the [rd] step for linear bodies, at every depth *)
Theorem rd_step_sound_lin Γ ρ A B W V N :
  typed_tm (A :: Γ) N B -> oklin N -> env_fits Γ ρ -> fits A (den ρ V) -> fits B (den ρ W) ->
  den ρ (rd_rewrite Γ A W V N) = den ρ (Rd W N V).
(** Informal proof: [rd_step_sound_all] at the budget 0; a linear body
    is [okg 0] ([oklin_okg]). *)
Proof.
  intros HN Ho. apply (rd_step_sound_all decls locs _ _ _ _ _ _ _ 0); auto.
  apply oklin_okg. exact Ho.
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
Proof. rd_example rd_step_sound_lin (@TBase Rsorts4 3%nat). Qed.

(** ** Every step of the term semantics *)
#[local] Instance Ela : evaluator := exec_evaluator Rvo.

(** Every step of a well-typed closed term keeps its denotation, the [rd]
    step included when the body of the [rd] redex is linear, of any
    [rd]-depth, and its point and cotangent satisfy [okt]. *)
Theorem step_tm_den_lin ρ K M0 M0' C :
  typed_tm [] (fill_ectx K M0) C -> head_step_tm M0 M0' ->
  (forall W N V, M0 = Rd W N V -> oklin N /\ okt V /\ okt W) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
(** Informal proof: [step_tm_den_all]: [oklin] terms are [okg 0] and
    [okt] terms [okg 2] ([oklin_okg], [okt_okg]). *)
Proof.
  intros HT Hs Hok. apply (step_tm_den_all decls locs ρ K M0 M0' C HT Hs).
  intros W N V E. destruct (Hok W N V E) as [HN [HV HW]].
  split; [exists 0%nat; apply oklin_okg; exact HN|].
  split; exists 2%nat; apply okt_okg; auto.
Qed.
End lin.

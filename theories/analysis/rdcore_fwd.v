(** * The forward copy of [rd_prog] over ℝ

    [rd_prog P] starts with [P]'s body, its variables renumbered by [ren]
    (the cotangents come after [P]'s inputs).  Its values are [P]'s:
    [fwd_vals].  The derivative of each operation has its result's
    length ([cop_tan_len]).  With these, rdcore_prog.v discharges the
    hypotheses [instr_ok] of [sweep_sound] (rdcore_chain.v).  The
    tangents as the Fréchet derivative and [prune] are rdcore_deriv.v
    and rdcore_prune.v. *)
From RevHandlers.Analysis Require Import base vec prims sce rdcore_real rdcore_sound rdcore_chain.
From RevHandlers Require Import shapes rdcore core_dims.
Open Scope R_scope.

Lemma vals_nil X : vals X [] = X.
Proof. unfold vals. cbn [eval_body]. apply rev_involutive. Qed.

(** The body's instructions read earlier variables. *)
Definition reads_earlier (nin : nat) (body : list (cop * list nat)) : Prop :=
  forall j, (j < length body)%nat -> Forall (fun a => a < nin + j)%nat (snd (nth j body (OZero 0, []))).

Lemma reads_earlier_snoc nin body ins : reads_earlier nin (body ++ [ins]) ->
  reads_earlier nin body /\ Forall (fun a => a < nin + length body)%nat (snd ins).
Proof.
  intros H. split.
  - intros j Hj. specialize (H j ltac:(rewrite app_length; lia)). rewrite app_nth1 in H by exact Hj. exact H.
  - specialize (H (length body) ltac:(rewrite app_length; cbn; lia)).
    rewrite app_nth2, Nat.sub_diag in H by lia. exact H.
Qed.

(** The forward copy computes [P]'s values: variable [ren k] of the
    differentiated program on [xs ++ ws] is variable [k] of [P] on [xs]. *)
Theorem fwd_vals xs ws body :
  reads_earlier (length xs) body ->
  forall k, (k < length xs + length body)%nat ->
  nth (ren (length xs) (length ws) k)
      (vals (xs ++ ws) (map (fun ins => (fst ins, map (ren (length xs) (length ws)) (snd ins))) body)) [] =
  nth k (vals xs body) [].
Proof.
  set (nin := length xs). set (q := length ws).
  induction body as [|[o args] body IH] using rev_ind; intros Hre k Hk.
  - cbn [map]. rewrite !vals_nil. cbn [length] in Hk. unfold ren.
    destruct (Nat.ltb_spec k nin) as [Hkn|Hkn]; [|lia]. rewrite app_nth1 by exact Hkn. reflexivity.
  - apply reads_earlier_snoc in Hre as [Hre Hargs]. cbn [snd] in Hargs.
    rewrite map_app. cbn [map fst snd].
    assert (Hlt1 : Forall (fun a => a < length (xs ++ ws) + length (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body))%nat
                          (map (ren nin q) args)).
    { rewrite Forall_map. eapply Forall_impl; [|exact Hargs]. intros a Ha. cbv beta in *.
      rewrite app_length, map_length. unfold ren. fold nin q. destruct (Nat.ltb_spec a nin); lia. }
    rewrite vals_snoc by exact Hlt1. rewrite vals_snoc by exact Hargs.
    rewrite app_length in Hk. cbn [length] in Hk.
    assert (HL1 : length (vals (xs ++ ws) (map (fun ins => (fst ins, map (ren nin q) (snd ins))) body)) =
                  (nin + q + length body)%nat) by (rewrite vals_length, app_length, map_length; reflexivity).
    assert (HL2 : length (vals xs body) = (nin + length body)%nat) by (rewrite vals_length; reflexivity).
    destruct (Nat.lt_ge_cases k (nin + length body)) as [Hk'|Hk'].
    + rewrite (app_nth1 (vals xs body)) by (rewrite HL2; exact Hk').
      rewrite (app_nth1 (vals (xs ++ ws) _)) by (rewrite HL1; unfold ren; destruct (Nat.ltb_spec k nin); lia).
      apply IH; assumption.
    + assert (Ek : k = (nin + length body)%nat) by lia. subst k.
      rewrite (app_nth2 (vals xs body)) by lia. rewrite HL2, Nat.sub_diag.
      assert (Er : ren nin q (nin + length body) = (nin + q + length body)%nat).
      { unfold ren. destruct (Nat.ltb_spec (nin + length body) nin); lia. }
      rewrite Er, app_nth2 by lia. rewrite HL1, Nat.sub_diag. cbn [nth].
      f_equal. rewrite map_map. apply map_ext_in. intros a Ha.
      rewrite Forall_forall in Hargs. apply IH; [exact Hre|]. specialize (Hargs a Ha). lia.
Qed.

(** ** The tangents have the lengths of the values *)

(** [cop_tan] has the length of the operation's result, at arguments of
    the lengths [cop_ok] asks and tangents of the same lengths. *)
Lemma cop_tan_len o xs hs :
  cop_ok o (map (@length R) xs) -> map (@length R) hs = map (@length R) xs ->
  length (cop_tan o xs hs) = cop_dim o (map (@length R) xs).
Proof.
  intros Hok Hhs.
  assert (Hfit : forall o' l, cop_ok o' (map (@length R) l) ->
            length (cop_eval Rvo o' l) = cop_dim o' (map (@length R) l)).
  { intros o' l H. apply (cop_eval_fits Rvo (list_vec_shapes Rsc)); [exact H|].
    unfold fit_dims. clear. induction l as [|x l IH]; cbn; constructor; auto. }
  destruct o;
    (destruct xs as [|x0 [|x1 [|x2 xs]]]; cbn in Hok; try contradiction);
    (destruct hs as [|h0 [|h1 [|h2 hs]]]; cbn in Hhs; try discriminate);
    (first [injection Hhs as Hh0 Hh1 | injection Hhs as Hh0 | idtac]);
    cbn [cop_tan nth cop_dim map].
  - apply length_zeros.
  - rewrite length_vp. lia.
  - rewrite length_vm. lia.
  - rewrite length_vp, !length_vmul. lia.
  - rewrite length_vs. lia.
  - rewrite length_vp, !length_vs. lia.
  - reflexivity.
  - rewrite length_vmul, map_length. lia.
  - reflexivity.
  - apply repeat_length.
  - rewrite ce_softmax, length_vm, length_vmul, length_vs, length_SM. lia.
  - reflexivity.
  - destruct Hok as [HA HB]. rewrite length_vp, !Hfit by (cbn; lia). cbn. lia.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite length_vp, !Hfit by (cbn; lia). cbn. lia.
  - rewrite length_vp, !Hfit by (cbn; lia). cbn. lia.
  - rewrite length_vp, !Hfit by (cbn; lia). cbn. lia.
  - destruct Hok as [Hm H0]. rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite Hfit by (cbn; lia). reflexivity.
  - rewrite app_length. lia.
  - rewrite firstn_length. lia.
  - rewrite skipn_length. lia.
Qed.

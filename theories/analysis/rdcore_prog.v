(** * The core's reverse differentiation of a whole program over ℝ

    [rd_prog P] run on [xs ++ ws] returns, paired with the inputs'
    tangents [hs], the outputs' tangents paired with the cotangents [ws]:
    [Σᵢ ⟨hᵢ, rd_prog(P)(xs, ws)ᵢ⟩ = Σₚ ⟨T(outₚ), wₚ⟩]
    ([rd_prog_adjoint]), for every judged program ([wd_prog]) whose
    elementwise maps are differentiable at the point with the derivative
    [efun_d] writes ([op_diff]), where [T] are the tangents propagated
    from [hs] by the operations' derivatives [cop_tan] ([tvals]).  The
    assembly of [sweep_sound] (rdcore_chain.v) and [fwd_vals]
    (rdcore_fwd.v).  Not proved: that [T] is the Fréchet derivative of the
    program (the derivative of each operation and the chain rule of
    [vec.v]) and [prune] (docs/decisions.md, "rd of every order over ℝ,
    operation by operation"). *)
From RevHandlers.Analysis Require Import base vec sums prims sce rdcore_real rdcore_sound rdcore_chain rdcore_fwd.
From RevHandlers Require Import shapes rdcore core_dims.
Open Scope R_scope.

(** ** Prefixes of a body *)

Lemma eval_body_suffix {V} (ci : cop -> list V -> V) d n env b :
  exists new, eval_body ci d n env b = new ++ env.
Proof.
  revert n env; induction b as [|[o args] b IH]; intros n env; cbn [eval_body].
  - exists []. reflexivity.
  - destruct (IH (S n) (ci o (map (fun i => nth (n - 1 - i) env d) args) :: env)) as [new Hn].
    exists (new ++ [ci o (map (fun i => nth (n - 1 - i) env d) args)]). rewrite Hn, <- app_assoc. reflexivity.
Qed.

Lemma vals_prefix xs b1 b2 : exists E, vals xs (b1 ++ b2) = vals xs b1 ++ E.
Proof.
  unfold vals. rewrite eval_body_app.
  destruct (eval_body_suffix (cop_eval Rvo) (v_zero Rvo 0) (length xs + length b1)
              (eval_body (cop_eval Rvo) (v_zero Rvo 0) (length xs) (rev xs) b1) b2) as [new Hn].
  rewrite Hn, rev_app_distr. exists (rev new). reflexivity.
Qed.

Lemma vals_nth_prefix xs body t k : (t <= length body)%nat -> (k < length xs + t)%nat ->
  nth k (vals xs body) [] = nth k (vals xs (firstn t body)) [].
Proof.
  intros Ht Hk. rewrite <- (firstn_skipn t body) at 1. destruct (vals_prefix xs (firstn t body) (skipn t body)) as [E HE].
  rewrite HE, app_nth1; [reflexivity|]. rewrite vals_length, firstn_length. lia.
Qed.

(** ** The instructions of a judged body *)

Lemma skipn_nth_cons {A} (l : list A) j d : (j < length l)%nat -> skipn j l = nth j l d :: skipn (S j) l.
Proof.
  revert j; induction l as [|x l IH]; intros [|j] Hj; cbn in *; try lia; [reflexivity|].
  apply IH. lia.
Qed.

Lemma body_dims_nth_prefix D b1 b2 a : (a < length D + length b1)%nat ->
  nth a (body_dims D (b1 ++ b2)) 0%nat = nth a (body_dims D b1) 0%nat.
Proof.
  intros Ha. rewrite body_dims_app. destruct (body_dims_prefix (body_dims D b1) b2) as [E HE].
  rewrite HE, app_nth1; [reflexivity|]. rewrite body_dims_length. exact Ha.
Qed.

Lemma wd_nth D body j : wd_body D body -> (j < length body)%nat ->
  Forall (fun a => a < length D + j)%nat (snd (nth j body (OZero 0, []))) /\
  cop_ok (fst (nth j body (OZero 0, []))) (map (fun a => nth a (body_dims D body) 0%nat) (snd (nth j body (OZero 0, [])))).
Proof.
  intros Hwd Hj.
  assert (Eb : body = firstn j body ++ nth j body (OZero 0, []) :: skipn (S j) body).
  { rewrite <- (firstn_skipn j body) at 1. f_equal. apply skipn_nth_cons. exact Hj. }
  destruct (nth j body (OZero 0, [])) as [o args] eqn:Hn. cbn [fst snd].
  rewrite Eb in Hwd. apply wd_body_app in Hwd as [_ Hwd]. cbn [wd_body] in Hwd.
  destruct Hwd as (Hargs & Hok & _).
  rewrite body_dims_length, firstn_length, Nat.min_l in Hargs by lia.
  split; [exact Hargs|].
  replace (map (fun a => nth a (body_dims D body) 0%nat) args)
    with (map (fun a => nth a (body_dims D (firstn j body)) 0%nat) args); [exact Hok|].
  apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs. specialize (Hargs a Ha).
  rewrite Eb at 2. rewrite body_dims_nth_prefix; [reflexivity|]. rewrite firstn_length. lia.
Qed.

(** ** The values and the tangents of a judged program *)

(** The tangents of the variables, from the inputs' tangents [tv], each
    instruction's the derivative of its operation ([cop_tan]) at its
    arguments' values [xvl] in the direction of their tangents. *)
Fixpoint tgo (xvl : list vec) (tv : list vec) (body : list (cop * list nat)) : list vec :=
  match body with
  | [] => tv
  | (o, args) :: b =>
      tgo xvl (tv ++ [cop_tan o (map (fun a => nth a xvl []) args) (map (fun a => nth a tv []) args)]) b
  end.

Definition tvals (xs hs : list vec) (body : list (cop * list nat)) : list vec := tgo (vals xs body) hs body.

Lemma tgo_app xvl tv b1 b2 : tgo xvl tv (b1 ++ b2) = tgo xvl (tgo xvl tv b1) b2.
Proof. revert tv; induction b1 as [|[o args] b1 IH]; intros tv; [reflexivity|]. apply IH. Qed.

Lemma tgo_prefix xvl tv b : exists E, tgo xvl tv b = tv ++ E.
Proof.
  revert tv; induction b as [|[o args] b IH]; intros tv; cbn [tgo].
  - exists []. symmetry. apply app_nil_r.
  - destruct (IH (tv ++ [cop_tan o (map (fun a => nth a xvl []) args) (map (fun a => nth a tv []) args)])) as [E HE].
    rewrite HE, <- app_assoc. eexists. reflexivity.
Qed.

Lemma tgo_length xvl tv b : length (tgo xvl tv b) = (length tv + length b)%nat.
Proof. revert tv; induction b as [|[o args] b IH]; intros tv; cbn [tgo length]; [lia|]. rewrite IH, app_length. cbn. lia. Qed.

Section prog.
Variables (xs hs : list vec) (body : list (cop * list nat)).
Let nin := length xs.
Let xv (k : nat) : vec := nth k (vals xs body) [].
Let T (k : nat) : vec := nth k (tvals xs hs body) [].

Hypothesis Hre : reads_earlier nin body.
Hypothesis Hhs : length hs = nin.

(** Instruction [j] computes [o] of its arguments' values. *)
Lemma xv_instr j : (j < length body)%nat ->
  xv (nin + j) = cop_eval Rvo (fst (nth j body (OZero 0, []))) (map xv (snd (nth j body (OZero 0, [])))).
Proof.
  intros Hj. pose proof (Hre j Hj) as Hargs.
  destruct (nth j body (OZero 0, [])) as [o args] eqn:Hn. cbn [fst snd] in *.
  unfold xv. rewrite (vals_nth_prefix xs body (S j)) by (unfold nin in *; lia).
  rewrite (firstn_S_nth body j (OZero 0, [])) by exact Hj. rewrite Hn.
  rewrite vals_snoc by (rewrite firstn_length, Nat.min_l by lia; exact Hargs).
  rewrite app_nth2 by (rewrite vals_length, firstn_length; unfold nin; lia).
  rewrite vals_length, firstn_length, Nat.min_l by lia. unfold nin. rewrite Nat.sub_diag. cbn [nth].
  f_equal. apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs. specialize (Hargs a Ha).
  symmetry. apply vals_nth_prefix; unfold nin in *; lia.
Qed.

(** Instruction [j]'s tangent is the derivative of [o] in the direction of
    its arguments' tangents. *)
Lemma T_instr j : (j < length body)%nat ->
  T (nin + j) = cop_tan (fst (nth j body (OZero 0, []))) (map xv (snd (nth j body (OZero 0, []))))
                        (map T (snd (nth j body (OZero 0, [])))).
Proof.
  intros Hj. pose proof (Hre j Hj) as Hargs.
  destruct (nth j body (OZero 0, [])) as [o args] eqn:Hn. cbn [fst snd] in *.
  assert (Eb : body = firstn j body ++ [(o, args)] ++ skipn (S j) body).
  { rewrite <- (firstn_skipn j body) at 1. f_equal. cbn. rewrite <- Hn. apply skipn_nth_cons. exact Hj. }
  assert (Hlen : length (tgo (vals xs body) hs (firstn j body)) = (nin + j)%nat)
    by (rewrite tgo_length, firstn_length, Nat.min_l by lia; unfold nin in *; lia).
  assert (Hpre : forall k, (k < nin + j)%nat -> T k = nth k (tgo (vals xs body) hs (firstn j body)) []).
  { intros k Hk. unfold T, tvals. rewrite Eb at 2. rewrite tgo_app, tgo_app. cbn [tgo].
    destruct (tgo_prefix (vals xs body) (tgo (vals xs body) hs (firstn j body) ++
                 [cop_tan o (map (fun a => nth a (vals xs body) []) args)
                    (map (fun a => nth a (tgo (vals xs body) hs (firstn j body)) []) args)]) (skipn (S j) body)) as [E HE].
    rewrite HE, <- app_assoc, app_nth1 by lia. reflexivity. }
  unfold T at 1, tvals. rewrite Eb at 2. rewrite tgo_app, tgo_app. cbn [tgo].
  destruct (tgo_prefix (vals xs body) (tgo (vals xs body) hs (firstn j body) ++
               [cop_tan o (map (fun a => nth a (vals xs body) []) args)
                  (map (fun a => nth a (tgo (vals xs body) hs (firstn j body)) []) args)]) (skipn (S j) body)) as [E HE].
  rewrite HE, <- app_assoc, app_nth2 by lia. rewrite Hlen, Nat.sub_diag. cbn [nth app].
  f_equal. apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs. symmetry. apply Hpre. exact (Hargs a Ha).
Qed.
End prog.

(** ** The lengths *)

Lemma xv_len D xs body : wd_body D body -> fit_dims Rvo D xs ->
  forall k, (k < length D + length body)%nat -> length (nth k (vals xs body) []) = nth k (body_dims D body) 0%nat.
Proof.
  intros Hwd Hf k Hk. pose proof (Forall2_length' _ _ _ Hf) as Hl.
  pose proof (eval_body_fits Rvo (list_vec_shapes Rsc) body D (rev xs) (length xs) Hwd (eq_sym Hl)
                (eq_ind_r (fit_dims Rvo D) Hf (rev_involutive xs))) as Hb.
  exact (Forall2_nth' _ _ _ k 0%nat [] Hb ltac:(rewrite body_dims_length; exact Hk)).
Qed.

Lemma T_len D xs hs body : wd_body D body -> fit_dims Rvo D xs -> fit_dims Rvo D hs ->
  forall k, (k < length D + length body)%nat ->
  length (nth k (tvals xs hs body) []) = length (nth k (vals xs body) []).
Proof.
  intros Hwd Hf Hh. pose proof (Forall2_length' _ _ _ Hf) as Hl. pose proof (Forall2_length' _ _ _ Hh) as Hlh.
  assert (Hre : reads_earlier (length xs) body).
  { intros j Hj. rewrite <- Hl. exact (proj1 (wd_nth D body j Hwd Hj)). }
  intros k. induction k as [k IH] using (well_founded_induction lt_wf). intros Hk.
  destruct (Nat.lt_ge_cases k (length D)) as [Hkd|Hkd].
  - unfold tvals. destruct (tgo_prefix (vals xs body) hs body) as [E HE]. rewrite HE, app_nth1 by (unfold vec in *; lia).
    rewrite (vals_nth_prefix xs body 0) by (unfold vec in *; lia). cbn [firstn]. rewrite vals_nil.
    rewrite (Forall2_nth' _ _ _ k 0%nat [] Hh) by (unfold vec in *; lia). rewrite (Forall2_nth' _ _ _ k 0%nat [] Hf) by (unfold vec in *; lia). reflexivity.
  - set (j := (k - length D)%nat). assert (Ek : k = (length xs + j)%nat) by (unfold j, vec in *; lia).
    assert (Hj : (j < length body)%nat) by (unfold j, vec in *; lia).
    rewrite Ek. assert (HT := T_instr xs hs body Hre). assert (HX := xv_instr xs hs body Hre).
    cbv beta in HT, HX. rewrite HT, HX by first [exact Hj | unfold vec in *; lia].
    destruct (wd_nth D body j Hwd Hj) as [Hargs Hok].
    destruct (nth j body (OZero 0, [])) as [o args]. cbn [fst snd] in *.
    assert (Hml : map (@length R) (map (fun k => nth k (tvals xs hs body) []) args) =
                  map (@length R) (map (fun k => nth k (vals xs body) []) args)).
    { rewrite !map_map. apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs.
      apply IH; specialize (Hargs a Ha); unfold vec in *; lia. }
    assert (Hok' : cop_ok o (map (@length R) (map (fun k => nth k (vals xs body) []) args))).
    { rewrite map_map. replace (map (fun x => length (nth x (vals xs body) [])) args)
        with (map (fun a => nth a (body_dims D body) 0%nat) args); [exact Hok|].
      apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs. symmetry.
      apply (xv_len D xs body Hwd Hf). specialize (Hargs a Ha). unfold vec in *; lia. }
    rewrite cop_tan_len by assumption.
    symmetry. apply (cop_eval_fits Rvo (list_vec_shapes Rsc)); [exact Hok'|].
    unfold fit_dims. clear. induction (map (fun k => nth k (vals xs body) []) args); cbn; constructor; auto.
Qed.

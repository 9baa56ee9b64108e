(** * The core's reverse differentiation of a whole program over ℝ

    [rd_prog P] run on [xs ++ ws] returns, paired with the inputs'
    tangents [hs], the outputs' tangents paired with the cotangents [ws]:
    [Σᵢ ⟨hᵢ, rd_prog(P)(xs, ws)ᵢ⟩ = Σₚ ⟨T(outₚ), wₚ⟩]
    ([rd_prog_adjoint]), for every judged program ([wd_prog]) whose
    elementwise maps are differentiable at the point with the derivative
    [efun_d] writes ([op_diff]), where [T] are the tangents propagated
    from [hs] by the operations' derivatives [cop_tan] ([tvals]).  The
    assembly of [sweep_sound] (rdcore_chain.v) and [fwd_vals]
    (rdcore_fwd.v).  That [T] is the Fréchet derivative of the program
    (the chain rule of [vec.v]) and [prune] are rdcore_deriv.v and
    rdcore_prune.v. *)
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

(** ** The theorem *)

Lemma read_senv X s i : st_inv X s -> (i < bs_next s)%nat ->
  nth (length X + length (rev (bs_acc s)) - 1 - i)
      (eval_body (cop_eval Rvo) (v_zero Rvo 0) (length X) (rev X) (rev (bs_acc s))) (v_zero Rvo 0)
  = senv X s i.
Proof.
  intros Hs Hi. unfold st_inv in Hs. unfold senv, sval, vals.
  rewrite rev_nth by (rewrite eval_body_length, !rev_length; lia).
  rewrite eval_body_length, !rev_length. f_equal; first [lia | reflexivity].
Qed.

(** The state [sweep_sound] ends in: the outputs are variables. *)
Lemma sweep_state X nin q dims (xv T : nat -> vec) body outs ds s0 adj1 s1 adj2 s2 res s3 :
  st_inv X s0 ->
  (forall j, (j < length body)%nat -> instr_ok X nin q dims xv T s0 j (nth j body (OZero 0, []))) ->
  Forall (fun o => o < nin + length body)%nat outs ->
  (forall p, (p < length outs)%nat ->
     (nin + p < bs_next s0)%nat /\ length (senv X s0 (nin + p)) = length (xv (nth p outs 0%nat))) ->
  seed nin outs 0 (repeat None (nin + length body)) s0 = (adj1, s1) ->
  back nin q dims (rev (combine (seq 0 (length body)) body)) adj1 s1 = (adj2, s2) ->
  finals 0 ds adj2 s2 = (res, s3) ->
  st_inv X s3 /\ length res = length ds /\ Forall (fun v => v < bs_next s3)%nat res.
Proof.
  intros Hs0 Hins Houts Hw Hseed Hback Hfin.
  set (N := (nin + length body)%nat) in *.
  assert (Hnone : forall k, nth k (repeat (@None nat) N) None = None).
  { intros k. destruct (Nat.lt_ge_cases k N). - apply nth_repeat. - apply nth_overflow. rewrite repeat_length. lia. }
  assert (Hb0 : adj_below s0 (repeat None N)) by (intros k v Hk; rewrite Hnone in Hk; discriminate).
  assert (Hl0 : adj_len X s0 (repeat None N) (fun a => length (xv a))) by (intros k v Hk; rewrite Hnone in Hk; discriminate).
  destruct (seed_sound X (fun a => length (xv a)) T (fun p => senv X s0 (nin + p)) nin N outs 0 (repeat None N) s0 Hs0 Hb0 Hl0 Houts
              ltac:(rewrite repeat_length; lia)
              ltac:(intros p Hp; rewrite Nat.add_0_r; destruct (Hw p Hp) as [H1 H2]; split; [exact H1|split; [reflexivity|exact H2]]))
    as (Hs1 & Hb1 & Hl1 & Hlen1 & (E1 & HE1) & _).
  rewrite Hseed in Hs1, Hb1, Hl1, Hlen1, HE1. cbn [fst snd] in *. rewrite repeat_length in Hlen1.
  destruct (back_whole X nin q dims xv T body s0 adj1 s1 adj2 s2 E1 Hs0 Hs1 HE1 Hins Hb1 Hl1 ltac:(lia) Hback)
    as (Hs2 & Hb2 & _).
  destruct (finals_sound X ds 0 adj2 s2 Hs2 Hb2) as (Hs3 & _ & Hlen3 & Hall3 & _).
  rewrite Hfin in Hs3, Hlen3, Hall3. cbn [fst snd] in *.
  split; [exact Hs3|]. split; [exact Hlen3|exact Hall3].
Qed.

(** For every judged program [P] whose elementwise maps are
    differentiable at the point with the derivative [efun_d] writes, at
    inputs [xs] of the declared lengths, cotangents [ws] of the outputs'
    lengths and tangents [hs] of the inputs' lengths: [rd_prog P] on
    [xs ++ ws], paired with [hs], is the outputs' tangents paired with
    [ws] — the outputs of [rd_prog P] are [(D⟦P⟧(xs))ᵀ ws] for the
    derivative [D] that [cop_tan] propagates ([tvals]). *)
Theorem rd_prog_adjoint P xs ws hs :
  wd_prog P -> fit_dims Rvo (cp_dims P) xs -> fit_dims Rvo (cp_dims P) hs -> fit_dims Rvo (out_dims P) ws ->
  (forall j, (j < length (cp_body P))%nat ->
     op_diff (fst (nth j (cp_body P) (OZero 0, [])))
             (map (fun k => nth k (vals xs (cp_body P)) []) (snd (nth j (cp_body P) (OZero 0, []))))) ->
  sumn (length xs) (fun i => dot (nth i hs [])
                                 (nth i (eval_cprog (cop_eval Rvo) (v_zero Rvo 0) (rd_prog P) (xs ++ ws)) [])) =
  sumn (length (cp_out P)) (fun p => dot (nth (nth p (cp_out P) 0%nat) (tvals xs hs (cp_body P)) []) (nth p ws [])).
Proof.
  intros [Hwd Hout] Hf Hh Hw Hd.
  pose proof (Forall2_length' _ _ _ Hf) as Hlx. pose proof (Forall2_length' _ _ _ Hw) as Hlw.
  unfold out_dims in Hlw. rewrite map_length in Hlw.
  unfold rd_prog. cbv zeta.
  set (body := cp_body P) in *. set (D := cp_dims P) in *.
  assert (HnD : length D = length xs) by (unfold vec in *; lia).
  assert (Hq : length (cp_out P) = length ws) by (unfold vec in *; lia).
  rewrite HnD, Hq. rewrite HnD in Hout.
  assert (Hre : reads_earlier (length xs) body).
  { intros j Hj. rewrite <- HnD. exact (proj1 (wd_nth D body j Hwd Hj)). }
  set (xv := fun k => nth k (vals xs body) []).
  set (T := fun k => nth k (tvals xs hs body) []).
  set (fwd := map (fun ins => (fst ins, map (ren (length xs) (length ws)) (snd ins))) body).
  set (s0 := {| bs_next := (length xs) + (length ws) + length body; bs_acc := rev fwd |}).
  set (X := xs ++ ws).
  assert (Hs0 : st_inv X s0).
  { unfold st_inv, s0, X. cbn [bs_next bs_acc]. rewrite rev_length, app_length. unfold fwd. rewrite map_length. reflexivity. }
  assert (Hsv0 : sval X s0 = vals X fwd) by (unfold sval, s0; cbn [bs_acc]; rewrite rev_involutive; reflexivity).
  assert (Hfwd : forall k, (k < (length xs) + length body)%nat -> senv X s0 (ren (length xs) (length ws) k) = xv k).
  { intros k Hk. unfold senv. rewrite Hsv0. exact (fwd_vals xs ws body Hre k Hk). }
  assert (Hren : forall k, (k < (length xs) + length body)%nat -> (ren (length xs) (length ws) k < bs_next s0)%nat).
  { intros k Hk. unfold s0, ren. cbn [bs_next]. destruct (Nat.ltb_spec k (length xs)); lia. }
  assert (Hxl : forall k, (k < (length xs) + length body)%nat -> length (xv k) = nth k (body_dims D body) 0%nat).
  { intros k Hk. apply (xv_len D xs body Hwd Hf). lia. }
  assert (HTl : forall k, (k < (length xs) + length body)%nat -> length (T k) = length (xv k)).
  { intros k Hk. apply (T_len D xs hs body Hwd Hf Hh). lia. }
  assert (Hins : forall j, (j < length body)%nat ->
            instr_ok X (length xs) (length ws) (body_dims D body) xv T s0 j (nth j body (OZero 0, []))).
  { intros j Hj. destruct (wd_nth D body j Hwd Hj) as [Hargs Hok]. rewrite HnD in Hargs.
    assert (Hlh : length hs = length xs) by (pose proof (Forall2_length' _ _ _ Hh); unfold vec in *; lia).
    assert (HX := xv_instr xs hs body Hre). assert (HT := T_instr xs hs body Hre). cbv beta in HX, HT.
    repeat match type of HX with length hs = length xs -> _ => specialize (HX Hlh) end.
    repeat match type of HT with length hs = length xs -> _ => specialize (HT Hlh) end.
    specialize (HX j Hj). specialize (HT j Hj).
    pose proof (Hd j Hj) as Hdj.
    destruct (nth j body (OZero 0, [])) as [o args]. cbn [fst snd] in *.
    assert (Hargs' : forall a, In a args -> (a < (length xs) + length body)%nat)
      by (intros a Ha; rewrite Forall_forall in Hargs; specialize (Hargs a Ha); lia).
    unfold instr_ok. cbn [fst snd]. split; [exact Hargs|]. split.
    { replace (map (fun a => length (xv a)) args) with (map (fun a => nth a (body_dims D body) 0%nat) args);
        [exact Hok|]. apply map_ext_in. intros a Ha. symmetry. apply Hxl. apply Hargs'. exact Ha. }
    split.
    { intros a Ha. pose proof (Hargs' a Ha). split; [apply HTl; lia|]. split; [symmetry; apply Hxl; lia|].
      split; [apply Hren; lia|]. apply Hfwd. lia. }
    split; [apply Hren; lia|]. split; [apply Hfwd; lia|]. split; [exact HX|]. split; [exact Hdj|]. exact HT. }
  assert (Houts : Forall (fun o => o < (length xs) + length body)%nat (cp_out P)) by exact Hout.
  assert (Hws : forall p, (p < length (cp_out P))%nat ->
            ((length xs) + p < bs_next s0)%nat /\ senv X s0 ((length xs) + p) = nth p ws [] /\
            length (nth p ws []) = length (xv (nth p (cp_out P) 0%nat))).
  { intros p Hp. split; [unfold s0; cbn [bs_next]; lia|]. split.
    - unfold senv. rewrite Hsv0. destruct (vals_prefix X [] fwd) as [E HE]. cbn [app] in HE.
      rewrite HE, vals_nil. unfold X. rewrite app_nth1 by (rewrite app_length; lia).
      rewrite app_nth2 by lia. f_equal. lia.
    - pose proof (Forall2_nth' _ _ _ p 0%nat [] Hw ltac:(unfold out_dims; rewrite map_length; lia)) as Hwp.
      transitivity (nth p (out_dims P) 0%nat); [exact Hwp|]. unfold out_dims.
      rewrite (nth_map_lt _ _ _ 0%nat 0%nat) by lia. symmetry. apply Hxl.
      rewrite Forall_forall in Hout. apply Hout. apply nth_In. lia. }
  match goal with |- context [seed ?a ?b ?c ?d ?e] => destruct (seed a b c d e) as [adj1 s1] eqn:Hseed end.
  match goal with |- context [back ?a ?b ?c ?d ?e ?f] => destruct (back a b c d e f) as [adj2 s2] eqn:Hback end.
  match goal with |- context [finals ?a ?b ?c ?d] => destruct (finals a b c d) as [res s3] eqn:Hfin end.
  destruct (sweep_state X (length xs) (length ws) (body_dims D body) xv T body (cp_out P) D s0 adj1 s1 adj2 s2 res s3
              Hs0 Hins Houts (fun p Hp => conj (proj1 (Hws p Hp)) (eq_trans (f_equal (@length R) (proj1 (proj2 (Hws p Hp)))) (proj2 (proj2 (Hws p Hp)))))
              Hseed Hback Hfin) as (Hs3 & Hlen3 & Hall3).
  assert (HTh : forall i, (i < length xs)%nat -> T i = nth i hs []).
  { intros i Hi. unfold T, tvals. destruct (tgo_prefix (vals xs body) hs body) as [E HE].
    rewrite HE, app_nth1 by (pose proof (Forall2_length' _ _ _ Hh); unfold vec in *; lia). reflexivity. }
  pose proof (sweep_sound X (length xs) (length ws) (body_dims D body) xv T (fun p => nth p ws []) (fun i => nth i hs [])
                body (cp_out P) D s0 adj1 s1 adj2 s2 res s3 Hs0 Hins Houts Hws HTh HnD Hseed Hback Hfin) as HS.
  cbv beta in HS.
  transitivity (sumn (length xs) (fun i => dot (nth i hs []) (senv X s3 (nth i res 0%nat))));
    [|first [exact HS | rewrite Hq in HS; exact HS | rewrite <- Hq; exact HS]].
  apply sumn_ext. intros i Hi. f_equal. unfold eval_cprog. cbn [cp_body cp_out].
  assert (Hres : length res = length xs) by (rewrite Hlen3; exact HnD).
  rewrite (nth_map_lt _ _ _ 0%nat []) by lia.
  replace (length (xs ++ ws)) with (length X) by reflexivity.
  apply read_senv; [exact Hs3|]. rewrite Forall_forall in Hall3. apply Hall3. apply nth_In. lia.
Qed.

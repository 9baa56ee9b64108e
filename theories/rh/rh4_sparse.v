(** * RH-4 on the MLP chains: what [rd] yields, and sparse cotangents under the zero law

    The layers of an MLP chain ([bench/training_step.py]:
    [let x_{i+1} ⇐ FC[l_i](swish(x_i)) in …]) put a term in evaluation
    position, [swish(x_i)], so [RH] rewrites them by RH-4:
<<
    let w ⇐ ⌊M[V⃗/y⃗]⌋ in
    let <w', y'_1, …, y'_m> ⇐ RH^{(w, V⃗)}_H(<w, y⃗>.F^t[w]) in
    let <y''_1, …, y''_m> ⇐ ⌊w'.rd(q. M[proj_i q/y_i])(<V⃗>)⌋ in
    ⌊<y'_1 +_{B1} y''_1, …, y'_m +_{Bm} y''_m>⌋
>>
    with [M = f(y_k)].  This file gives the two facts an evaluator linear
    in the chain needs about that level; it does not build the evaluator
    (docs/decisions.md, "RH-4 levels of the MLP chains").

    - [rd_rewrite_app_proj]: for [M = f(y_k)], the rewriting the
      semantics performs at [w'.rd(q. f(proj_k q))(<V⃗>)] is
      [proj_1 (let u ⇐ rd(f)(<proj_k <V⃗>, w'>) in <onehot_k u>)]: one
      application of [rd(f)], and a one-hot tuple of the m cotangents,
      m − 1 of them the zero constants [0_{Bi}].  Its size is linear in m
      (the point [<V⃗>] and the one-hot tuple), its step count does not
      depend on m, and no law of the constants is used.
    - [add_onehot_sparse]: adding such a one-hot tuple of constants into
      the cotangents [<y'_1, …, y'_m>] component-wise, as
      [rh_term_result] does, gives [y'] with [y'_k + u] at [k] and every
      other component unchanged, *under the zero law*
      [forall c, c + 0 = c /\ 0 + c = c] of the signature's constants,
      which is a hypothesis here ([zero_law]), not an axiom; the
      left-hand identity gives [add_onehot_sparse_l] (the one-hot tuple
      on the left, as RH-1a's return tuple meets a first addition).  For
      the executable instance (binary64) the law holds with [0_A = −0.0]
      and fails with [+0.0] ([tests/test_structural_zero.py]); the
      instance's [czero] is [-0.0] (docs/decisions.md, "The structural
      zero cotangent is -0.0").
    - [tstar_point]: the point [<V⃗>] takes one step per component that is
      a projection out of a value ([point_cost]).
    - [rh_fn_layer]: what [rh_fn] yields for a layer, inside the chain or last.
    - [run_rh4_level]: the level's output closed by [σ] and run by [run],
      given the run of the rest of the chain: the cotangents updated at
      [k] only ([add_at]), the step count a formula; under the zero law.
      This is the RH-4 case of [tape_rh4.v]'s tape. *)
From RevHandlers Require Import prelude signature syntax subst typing rd term_sem cmd_ctx rh interp interp_facts
  machine run_ctx tape.

Section rh4_sparse.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm).

(** ** What [rd] yields at an RH-4 level of the chain *)

(** [W.R_{<V⃗>}(q. f(proj_k q))]: the rewriting of Fig. 4 at the term of
    an MLP layer.  [Vt] is the point (the tuple [<V⃗>] at run time), [Bs]
    the types of the variables in scope. *)
Lemma rd_rewrite_app_proj Bs k f W Vt :
  rd_rewrite [] (TProd Bs) W Vt (App f (Proj k (Var 0))) =
  Proj 0 (Let (App (rd f) (Tuple [Proj k Vt; W])) (Tuple [onehot Bs k (Var 0)])).
Proof. reflexivity. Qed.

(** What [RH] does with a layer [let x ⇐ Op(f(y_k)) in Q] (RH-4 on
    [f(y_k)], then RH-2 on [Op(w)] with the continuation renamed): the
    output is [rh_term_out] around the rewriting of
    [let x ⇐ Op(w) in Q↑], one variable more in scope; and the same for
    the last layer, [Op(f(y_k))] in tail position ([last = true]). *)
Lemma rh_fn_layer rf H Bs Vs (last : bool) o f k Q :
  rh_fn (S rf) H Bs Vs (if last then Op o (App f (Var k)) else CLet (Op o (App f (Var k))) Q) =
  match infer_tm Bs (App f (Var k)) with
  | Some B' =>
      match rh_fn rf H (B' :: Bs) (Var 0 :: map shift Vs)
              (if last then Op o (Var 0) else CLet (Op o (Var 0)) (ren_cmd (up_ren S) Q)) with
      | RHOk Rrec => RHOk (rh_term_out Bs Vs (App f (Var k)) Rrec)
      | r => r
      end
  | None => RHWrong
  end.
Proof. destruct last; reflexivity. Qed.

(** The one-hot tuple at base types is a tuple of constants: [g] at [k],
    the structural zero [0_b] elsewhere. *)
Definition onehot_consts (bs : list base) (k : nat) (g : const) : list const :=
  map (fun ib => if Nat.eqb (fst ib) k then g else czero (snd ib)) (combine (seq 0 (length bs)) bs).

Lemma onehot_consts_length bs k g : length (onehot_consts bs k g) = length bs.
Proof.
  unfold onehot_consts. rewrite map_length, combine_length, seq_length. apply Nat.min_id.
Qed.

Lemma onehot_base bs k g :
  onehot (map TBase bs) k (Const g) = Tuple (map Const (onehot_consts bs k g)).
Proof.
  unfold onehot, onehot_consts. f_equal. rewrite map_length, map_map.
  generalize 0 as s. induction bs as [|b bs IH]; intros s; [reflexivity|].
  cbn [map seq combine length fst snd]. f_equal; [|apply IH].
  destruct (Nat.eqb s k); reflexivity.
Qed.

(** The dense sum the semantics performs, component by component. *)
Definition add_consts (cs ds : list const) : list const :=
  map (fun p => cadd (fst p) (snd p)) (combine cs ds).

(** The sparse update an evaluator performs instead: only index [k]. *)
Definition add_at (k : nat) (g : const) (cs : list const) : list const :=
  map (fun ic => if Nat.eqb (fst ic) k then cadd (snd ic) g else snd ic) (combine (seq 0 (length cs)) cs).

(** ** The steps of an RH-4 level, counted

    At an RH-4 level of the chain the semantics, once the recursive call
    has returned [<w', y'_1, …, y'_m>] and the point [<V⃗>] is a value,
    evaluates [w'.rd(q. f(proj_k q))(<V⃗>)] and the result tuple
    [<y'_i + y''_i>_i].  Both are counted here: [6] steps for the first,
    whatever [m] ([tstar_rd_layer]); [3m] for the second at base types
    ([tstar_term_res_base]: two projections and an addition per
    component).  These are [run]'s own steps ([run_tstar], machine.v), so
    an evaluator that skips the work may add [6 + 3m] instead of taking
    them. *)

Lemma tstar_rd_layer Bs k f w' ys Vs Vk G :
  value w' -> Forall value ys -> Forall value Vs ->
  infer_tm [] (Tuple Vs) = Some (TProd Bs) ->
  nth_error Vs k = Some Vk -> ev (rd f) (Tuple [Vk; w']) = Some G -> value G ->
  tstar 6 (Rd (Proj 0 (Tuple (w' :: ys))) (App f (Proj k (Var 0))) (Tuple Vs)) (onehot Bs k G).
Proof.
  intros Hw Hys HVs HA Hk Hev HG.
  assert (HT : value (Tuple (w' :: ys))) by (apply value_tuple_iff; constructor; assumption).
  assert (HV : value (Tuple Vs)) by (apply value_tuple_iff; exact HVs).
  (* proj_1 <w', y⃗'> → w' *)
  change 6 with (1 + 5). eapply tstar_trans.
  { apply (tstar_frame (KRdL (App f (Proj k (Var 0))) (Tuple Vs))); [exact I|].
    apply tstar_one. rewrite step_tm_fn_proj, (step_tm_fn_value _ HT). reflexivity. }
  cbn [fill_frame].
  (* E-Rd *)
  change 5 with (1 + 4). eapply tstar_trans.
  { apply tstar_one, head_step_tm_fn. exact (head_step_tm_rd w' _ (Tuple Vs) (TProd Bs) Hw HV HA). }
  rewrite rd_rewrite_app_proj.
  (* proj_k <V⃗> → V_k *)
  change 4 with (1 + 3). eapply tstar_trans.
  { apply (tstar_frame (KProj 0)); [exact I|].
    apply (tstar_frame (KLet (Tuple [onehot Bs k (Var 0)]))); [exact I|].
    apply (tstar_frame (KApp (rd f))); [exact I|].
    apply (tstar_frame (KTuple [] [w'])); [constructor|].
    apply tstar_one. rewrite step_tm_fn_proj, (step_tm_fn_value _ HV), Hk. reflexivity. }
  cbn [fill_frame app].
  assert (HVk : value Vk) by (rewrite Forall_forall in HVs; apply HVs; eapply nth_error_In; exact Hk).
  (* rd(f)(<V_k, w'>) → G *)
  change 3 with (1 + 2). eapply tstar_trans.
  { apply (tstar_frame (KProj 0)); [exact I|].
    apply (tstar_frame (KLet (Tuple [onehot Bs k (Var 0)]))); [exact I|].
    apply tstar_one, head_step_tm_fn. constructor; [|exact Hev].
    apply value_tuple_iff; repeat constructor; assumption. }
  cbn [fill_frame].
  (* let u ← G in <onehot_k u> *)
  change 2 with (1 + 1). eapply tstar_trans.
  { apply (tstar_frame (KProj 0)); [exact I|].
    apply tstar_one, head_step_tm_fn. constructor. exact HG. }
  cbn [fill_frame subst_tm map]. rewrite subst_onehot. cbn [subst_tm list_subst nth].
  (* proj_1 <onehot_k G> *)
  apply tstar_one. rewrite step_tm_fn_proj.
  rewrite (step_tm_fn_value (Tuple [onehot Bs k G])) by (apply value_tuple_iff; repeat constructor;
    apply value_onehot; exact HG).
  reflexivity.
Qed.

Lemma list_sum_const3 m : list_sum (map (fun _ : nat => 3) (seq 0 m)) = 3 * m.
Proof.
  induction m as [|m IH]; [reflexivity|].
  rewrite seq_S, map_app, list_sum_app, IH. cbn [map list_sum fold_right]. lia.
Qed.

Lemma add_consts_nth (d : const) cs ds :
  length cs = length ds ->
  map Const (add_consts cs ds) =
  map (fun i => Const (cadd (nth i cs d) (nth i ds d))) (seq 0 (length cs)).
Proof.
  unfold add_consts. revert ds. induction cs as [|c cs IH]; intros [|e ds] Hl; cbn in Hl; try lia;
    [reflexivity|].
  cbn [combine map length seq nth fst snd]. f_equal. rewrite IH by lia.
  rewrite <- seq_shift, map_map. reflexivity.
Qed.

Lemma tstar_term_res_base_d (d : const) bs w' cs ds :
  length cs = length bs -> length ds = length bs -> value w' ->
  tstar (3 * length bs)
    (subst_tm (list_subst [Tuple (map Const ds); Tuple (w' :: map Const cs)]) (rh_term_result (map TBase bs)))
    (Tuple (map Const (add_consts cs ds))).
Proof.
  intros Hc Hd Hw. rewrite rh_term_result_nth, map_length. cbn [subst_tm]. rewrite map_map.
  rewrite (add_consts_nth d) by congruence. rewrite Hc, <- list_sum_const3.
  assert (HT1 : value (Tuple (w' :: map Const cs))).
  { apply value_tuple_iff. constructor; [exact Hw|]. apply Forall_forall. intros x Hx.
    apply in_map_iff in Hx as [c [<- _]]. reflexivity. }
  assert (HT0 : value (Tuple (map Const ds))).
  { apply value_tuple_iff. apply Forall_forall. intros x Hx.
    apply in_map_iff in Hx as [c [<- _]]. reflexivity. }
  rewrite <- (app_nil_l (map _ (seq 0 _))).
  rewrite <- (app_nil_l (map (fun i => Const _) (seq 0 _))).
  apply (tstar_tuple_map _ _ (fun _ => 3) _ [] (Forall_nil _)).
  intros i Hi. apply in_seq in Hi. split; [|reflexivity].
  destruct (nth_error bs i) as [b|] eqn:Hb; [|apply nth_error_None in Hb; lia].
  assert (HB : nth i (map TBase bs) (TProd []) = TBase b)
    by (apply nth_error_nth; rewrite nth_error_map, Hb; reflexivity).
  rewrite HB.
  cbn [plus subst_tm list_subst nth].
  assert (Hp1 : tstar 1 (Proj (S i) (Tuple (w' :: map Const cs))) (Const (nth i cs d))).
  { apply tstar_one. rewrite step_tm_fn_proj, (step_tm_fn_value _ HT1). cbn [nth_error].
    rewrite (nth_error_nth' (map Const cs) (Const d)) by (rewrite map_length; lia).
    rewrite map_nth. reflexivity. }
  assert (Hp0 : tstar 1 (Proj i (Tuple (map Const ds))) (Const (nth i ds d))).
  { apply tstar_one. rewrite step_tm_fn_proj, (step_tm_fn_value _ HT0).
    rewrite (nth_error_nth' (map Const ds) (Const d)) by (rewrite map_length; lia).
    rewrite map_nth. reflexivity. }
  change 3 with (1 + (1 + 1)). eapply tstar_trans.
  { apply (tstar_frame (KAddL _)); [exact I|exact Hp1]. }
  eapply tstar_trans.
  { apply (tstar_frame (KAddR _)); [reflexivity|exact Hp0]. }
  apply tstar_one. reflexivity.
Qed.

(** The result tuple of RH-4 at base types: [3m] steps, the dense sum. *)
Lemma tstar_term_res_base bs w' cs ds :
  length cs = length bs -> length ds = length bs -> value w' ->
  tstar (3 * length bs)
    (subst_tm (list_subst [Tuple (map Const ds); Tuple (w' :: map Const cs)]) (rh_term_result (map TBase bs)))
    (Tuple (map Const (add_consts cs ds))).
Proof.
  destruct cs as [|d cs']; [|apply (tstar_term_res_base_d d)].
  intros Hc Hd _. destruct bs; [|discriminate]. destruct ds; [|discriminate]. constructor.
Qed.

(** ** The steps of the point [<V⃗>]

    The point of [rd] at an RH-4 level is [<V⃗>] closed by the values the
    run has bound: a variable an RH-2 level bound is [proj_1 <y, z'>] in
    it, and a variable of the [rev handle] is [proj_i <V⃗0>]; each such
    component takes one step, at every RH-4 level after it (the third
    quadratic term of docs/decisions.md, "RH-4 levels of the MLP chains").
    [tstar_point]: the point takes exactly as many steps as it has
    components that are not values ([point_cost]), a count an evaluator
    can carry along the chain instead of taking the steps. *)

(** A component of the point: a value, or a projection out of a value. *)
Definition point_ok (M : tm) : Prop :=
  value M \/ exists i Ws V, M = Proj i (Tuple Ws) /\ Forall value Ws /\ nth_error Ws i = Some V.

Definition point_val (M : tm) : tm :=
  match M with
  | Proj i (Tuple Ws) => nth i Ws M
  | _ => M
  end.

Definition point_cost (Ms : list tm) : nat := length (filter (fun M => negb (is_value M)) Ms).

Lemma point_step M :
  point_ok M -> tstar (if is_value M then 0 else 1) M (point_val M) /\ value (point_val M).
Proof.
  intros [HV|[i [Ws [V [-> [HWs Hi]]]]]].
  - assert (Hp : point_val M = M).
    { destruct M as [| | | | |i [| | | |Ws| | |]| |]; try reflexivity; discriminate HV. }
    rewrite Hp, HV. split; [constructor|exact HV].
  - cbn [is_value point_val]. rewrite (nth_error_nth _ _ _ Hi). split.
    + apply tstar_one. rewrite step_tm_fn_proj.
      rewrite step_tm_fn_value by (apply value_tuple_iff; exact HWs). rewrite Hi. reflexivity.
    + rewrite Forall_forall in HWs. apply HWs. eapply nth_error_In. exact Hi.
Qed.

Lemma tstar_point_pre pre Ms :
  Forall value pre -> Forall point_ok Ms ->
  tstar (point_cost Ms) (Tuple (pre ++ Ms)) (Tuple (pre ++ map point_val Ms)).
Proof.
  revert pre. induction Ms as [|M Ms IH]; intros pre Hpre HMs; [constructor|].
  inversion HMs as [|? ? HM HMs']; subst.
  destruct (point_step M HM) as [HsM HvM].
  replace (point_cost (M :: Ms)) with ((if is_value M then 0 else 1) + point_cost Ms)
    by (unfold point_cost; cbn [filter]; destruct (is_value M); reflexivity).
  eapply tstar_trans.
  - apply (tstar_frame (KTuple pre Ms)); [exact Hpre|exact HsM].
  - cbn [fill_frame map]. specialize (IH (pre ++ [point_val M])).
    rewrite <- !app_assoc in IH. apply IH; [|exact HMs'].
    apply Forall_app. split; [exact Hpre|constructor; [exact HvM|constructor]].
Qed.

Lemma tstar_point Ms :
  Forall point_ok Ms -> tstar (point_cost Ms) (Tuple Ms) (Tuple (map point_val Ms)) /\
                        Forall value (map point_val Ms).
Proof.
  intros HMs. split.
  - exact (tstar_point_pre [] Ms (Forall_nil _) HMs).
  - rewrite Forall_map. eapply Forall_impl; [|exact HMs]. intros M HM. apply (point_step M HM).
Qed.

(** ** Sparse cotangents under the zero law *)

Section zero_law.
(** The zero law of the scalar model: [0_b] is a two-sided identity of
    [+_b].  True of the reals and of binary64 with [0_b = −0.0] (every
    non-NaN value); false of binary64 with [+0.0] ([−0.0 + +0.0 = +0.0]).
    The law is asked only of the constants that fit, for a predicate
    [cfits] given with the section: at the list model the law holds for a
    constant no longer than its type says and fails for a longer one
    ([zero_law.v]), so a statement for every constant would not be
    instantiable there.  [fun _ => True] gives the law for every constant. *)
Variable cfits : const -> Prop.
Hypothesis zero_law_fits : forall c, cfits c -> cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.

Lemma add_onehot_sparse cs k g :
  Forall cfits cs ->
  add_consts cs (onehot_consts (map const_ty cs) k g) = add_at k g cs.
Proof.
  unfold add_consts, onehot_consts, add_at. rewrite map_length.
  generalize 0 as s. induction cs as [|c cs IH]; intros s Hfit; [reflexivity|].
  inversion Hfit as [|? ? Hc Hcs]; subst.
  cbn [map seq combine length fst snd]. f_equal; [|apply IH, Hcs].
  destruct (Nat.eqb s k); [reflexivity|]. apply zero_law_fits, Hc.
Qed.

Lemma nth_map_combine_seq {X} (F : nat * const -> X) cs s i d d' :
  i < length cs -> nth i (map F (combine (seq s (length cs)) cs)) d' = F (s + i, nth i cs d).
Proof.
  revert s i. induction cs as [|c cs IH]; intros s i Hi; cbn [length] in Hi; [lia|].
  destruct i as [|i]; cbn [seq combine map nth length].
  - rewrite Nat.add_0_r. reflexivity.
  - rewrite IH by lia. f_equal. f_equal. lia.
Qed.

(** The sparse update adds [g] into the [k]-th cotangent and leaves the
    others as they are. *)
Lemma add_at_nth k g cs i d :
  i < length cs -> nth i (add_at k g cs) d = if Nat.eqb i k then cadd (nth i cs d) g else nth i cs d.
Proof. intros Hi. unfold add_at. rewrite (nth_map_combine_seq _ cs 0 i d d Hi). reflexivity. Qed.

Lemma add_at_length k g cs : length (add_at k g cs) = length cs.
Proof. unfold add_at. rewrite map_length, combine_length, seq_length. apply Nat.min_id. Qed.

(** The left identity: the one-hot tuple on the left of the sum. *)
Lemma add_onehot_sparse_l cs k g :
  Forall cfits cs ->
  add_consts (onehot_consts (map const_ty cs) k g) cs =
  map (fun ic => if Nat.eqb (fst ic) k then cadd g (snd ic) else snd ic) (combine (seq 0 (length cs)) cs).
Proof.
  unfold add_consts, onehot_consts. rewrite map_length.
  generalize 0 as s. induction cs as [|c cs IH]; intros s Hfit; [reflexivity|].
  inversion Hfit as [|? ? Hc Hcs]; subst.
  cbn [map seq combine length fst snd]. f_equal; [|apply IH, Hcs].
  destruct (Nat.eqb s k); [reflexivity|]. apply zero_law_fits, Hc.
Qed.

(** An RH-4 level of the chain at base types, from the recursive call's
    value [<w', c⃗>] and the point [<V⃗>]: the semantics takes [6] steps
    to the one-hot tuple [y''] of [rd], then [3m] steps to the level's
    cotangents, which are [c⃗] with [c_k + g] at [k] and nothing else
    changed: an evaluator may add [6 + 3m] to the count and update one
    component.  The zero law is used for the [m − 1] additions of [0_b]. *)
Lemma rh4_level_sparse cs k f w' Vs Vk g :
  Forall cfits cs -> value w' -> Forall value Vs ->
  infer_tm [] (Tuple Vs) = Some (TProd (map TBase (map const_ty cs))) ->
  nth_error Vs k = Some Vk -> ev (rd f) (Tuple [Vk; w']) = Some (Const g) ->
  tstar 6 (Rd (Proj 0 (Tuple (w' :: map Const cs))) (App f (Proj k (Var 0))) (Tuple Vs))
    (Tuple (map Const (onehot_consts (map const_ty cs) k g))) /\
  tstar (3 * length cs)
    (subst_tm (list_subst [Tuple (map Const (onehot_consts (map const_ty cs) k g));
                           Tuple (w' :: map Const cs)])
       (rh_term_result (map TBase (map const_ty cs))))
    (Tuple (map Const (add_at k g cs))).
Proof.
  intros Hfit Hw HVs HA Hk Hev. split.
  - rewrite <- onehot_base. eapply tstar_rd_layer; try eassumption; [|reflexivity].
    apply Forall_forall. intros x Hx. apply in_map_iff in Hx as [c [<- _]]. reflexivity.
  - rewrite <- (add_onehot_sparse _ _ _ Hfit). rewrite <- (map_length const_ty cs) at 1.
    apply tstar_term_res_base; [symmetry; apply map_length|apply onehot_consts_length|exact Hw].
Qed.

(** ** A whole RH-4 level of the chain, run by [run] *)

Lemma run_ret_tstar fuel n hp M V k :
  tstar k M V -> value V -> k < fuel -> run fuel n hp (Ret M) = RDone hp V (n + k).
Proof.
  intros Hs HV Hk. change (Ret M) with (fill_t [] TRet M).
  rewrite (run_tstar _ _ _ _ _ _ _ _ Hs) by lia. cbn [fill_t fill_c fold_left plug_t].
  apply run_ret_value; [lia|exact HV].
Qed.

Lemma subst_up_shift τ Y : subst_tm (up τ) (shift Y) = shift (subst_tm τ Y).
Proof. unfold shift. rewrite subst_ren, ren_subst. apply subst_tm_ext. intros x. reflexivity. Qed.

(** [rd] with its point still to evaluate: [1 + point_cost + 5] steps. *)
Lemma tstar_rd_point Bs k f w' ys Ms Vk G :
  value w' -> Forall value ys -> Forall point_ok Ms ->
  infer_tm [] (Tuple (map point_val Ms)) = Some (TProd Bs) ->
  nth_error (map point_val Ms) k = Some Vk -> ev (rd f) (Tuple [Vk; w']) = Some G -> value G ->
  tstar (1 + point_cost Ms + 5) (Rd (Proj 0 (Tuple (w' :: ys))) (App f (Proj k (Var 0))) (Tuple Ms))
    (onehot Bs k G).
Proof.
  intros Hw Hys HMs HA Hk Hev HG.
  destruct (tstar_point Ms HMs) as [Hp Hpv].
  pose proof (tstar_rd_layer Bs k f w' ys (map point_val Ms) Vk G Hw Hys Hpv HA Hk Hev HG) as H6.
  (* the projection [proj_1 <w', y⃗'>] first, then the point, then the other five *)
  inversion H6 as [|k6 M0 M1 M2 Hs1 H5]; subst.
  assert (HT : value (Tuple (w' :: ys))) by (apply value_tuple_iff; constructor; assumption).
  assert (Hpj : step_tm_fn (Proj 0 (Tuple (w' :: ys))) = TSStep w').
  { rewrite step_tm_fn_proj, (step_tm_fn_value _ HT). reflexivity. }
  pose proof (step_tm_fn_frame (KRdL (App f (Proj k (Var 0))) (Tuple Ms)) _ _ I Hpj) as Hs1'.
  pose proof (step_tm_fn_frame (KRdL (App f (Proj k (Var 0))) (Tuple (map point_val Ms))) _ _ I Hpj)
    as Hs1''.
  cbn [fill_frame] in Hs1', Hs1''.
  assert (HM1 : M1 = Rd w' (App f (Proj k (Var 0))) (Tuple (map point_val Ms))) by congruence.
  subst M1.
  econstructor; [exact Hs1'|].
  change (point_cost Ms + 5) with (point_cost Ms + 5).
  eapply tstar_trans; [|exact H5].
  apply (tstar_frame (KRdR w' (App f (Proj k (Var 0))))); [exact Hw|exact Hp].
Qed.

Lemma subst_rh_term_result_base τ bs :
  subst_tm τ (rh_term_result (map TBase bs)) =
  subst_tm (list_subst [τ 0; τ 1]) (rh_term_result (map TBase bs)).
Proof.
  rewrite !rh_term_result_nth. cbn [subst_tm]. f_equal. rewrite !map_map. apply map_ext_in.
  intros i Hi. apply in_seq in Hi. rewrite map_length in Hi.
  destruct (nth_error bs i) as [b|] eqn:Hb; [|apply nth_error_None in Hb; lia].
  assert (HB : nth i (map TBase bs) (TProd []) = TBase b)
    by (apply nth_error_nth; rewrite nth_error_map, Hb; reflexivity).
  rewrite HB. reflexivity.
Qed.

(** An RH-4 level of an MLP chain, [RH]'s output closed by [σ] and run
    by [run]: given the run of the recursive output (the rest of the
    chain), the level ends with the cotangents [c⃗] updated at [k] only,
    after [1 + point_cost + 5] steps of [rd] and [3m] of the result tuple,
    plus the forward term's and the [let]s' steps.  Under the zero law. *)
Lemma run_rh4_level fuel n hp σ cs Vs k Vk f g G1 Rrec hp2 w' n2 :
  Forall cfits cs ->
  nth_error Vs k = Some Vk ->
  Forall point_ok (map (subst_tm σ) Vs) ->
  ev f (point_val (subst_tm σ Vk)) = Some G1 -> value G1 ->
  run (fuel - S (if is_value (subst_tm σ Vk) then 1 else 2))
      (S (n + (if is_value (subst_tm σ Vk) then 1 else 2))) hp
      (subst_cmd (fun x => subst_tm (list_subst [G1]) (up σ x)) Rrec)
    = RDone hp2 (Tuple (w' :: map Const cs)) n2 ->
  value w' ->
  infer_tm [] (Tuple (map point_val (map (subst_tm σ) Vs))) = Some (TProd (map TBase (map const_ty cs))) ->
  ev (rd f) (Tuple [point_val (subst_tm σ Vk); w']) = Some (Const g) ->
  S (S n2 + (1 + point_cost (map (subst_tm σ) Vs) + 5)) + 3 * length cs < n + fuel ->
  run fuel n hp (subst_cmd σ (rh_term_out (map TBase (map const_ty cs)) Vs (App f (Var k)) Rrec)) =
  RDone hp2 (Tuple (map Const (add_at k g cs)))
    (S (S n2 + (1 + point_cost (map (subst_tm σ) Vs) + 5)) + 3 * length cs).
Proof.
  intros Hfit Hk HVs Hf HG1 Hrec Hw HA Hrd Hfuel.
  set (Vk' := subst_tm σ Vk) in *.
  set (c1 := if is_value Vk' then 1 else 2) in *.
  assert (HVk' : point_ok Vk').
  { rewrite Forall_forall in HVs. apply HVs. apply in_map. eapply nth_error_In. exact Hk. }
  destruct (run_done_inv _ _ _ _ _ _ _ Hrec) as [Hq [Hn2a Hn2b]].
  unfold rh_term_out. cbn [subst_cmd subst_tm].
  (* the forward term [f(V_k)] *)
  assert (Hx : subst_tm σ (list_subst Vs k) = Vk').
  { unfold list_subst. rewrite (nth_error_nth _ _ _ Hk). reflexivity. }
  rewrite Hx.
  assert (Hfw : run fuel n hp (Ret (App f Vk')) = RDone hp G1 (n + c1)).
  { apply run_ret_tstar; [|exact HG1|unfold c1; destruct (is_value Vk'); lia].
    destruct (point_step Vk' HVk') as [Hs Hv]. unfold c1.
    replace (if is_value Vk' then 1 else 2) with ((if is_value Vk' then 0 else 1) + 1)
      by (destruct (is_value Vk'); reflexivity).
    eapply tstar_trans; [apply (tstar_frame (KApp f)); [exact I|exact Hs]|].
    apply tstar_one. apply head_step_tm_fn. constructor; assumption. }
  rewrite (run_let_done _ _ _ _ _ _ _ _ Hfw). replace (n + c1 - n) with c1 by lia.
  cbn [subst_cmd]. rewrite subst_cmd_subst.
  (* the rest of the chain *)
  rewrite (run_let_done _ _ _ _ _ _ _ _ Hrec). cbn [subst_cmd].
  (* rd at the point *)
  cbn [subst_cmd subst_tm up list_subst nth].
  set (q := Tuple (w' :: map Const cs)) in *.
  assert (Hpt : forall V, subst_tm (list_subst [q]) (subst_tm (up (list_subst [G1]))
                  (subst_tm (up (up σ)) (ren_tm (fun x => S (S x)) V))) = subst_tm σ V).
  { intros V. rewrite subst_ren, !subst_subst. apply subst_tm_ext. intros x. cbn [up].
    unfold shift at 1. rewrite subst_ren.
    transitivity (subst_tm (list_subst [G1]) (shift (σ x))); [|apply subst_single_shift].
    apply subst_tm_ext. intros y. cbn [up]. apply subst_single_shift. }
  cbn [subst_tm up list_subst nth]. rewrite !map_map.
  rewrite (map_ext _ _ Hpt).
  set (Ms := map (subst_tm σ) Vs) in *.
  assert (Hk' : nth_error (map point_val Ms) k = Some (point_val Vk'))
    by (unfold Ms; rewrite !nth_error_map, Hk; reflexivity).
  assert (Hys : Forall value (map Const cs)).
  { apply Forall_forall. intros x Hx'. apply in_map_iff in Hx' as [c [<- _]]. reflexivity. }
  pose proof (tstar_rd_point _ k f w' (map Const cs) Ms _ (Const g) Hw Hys HVs HA Hk' Hrd eq_refl) as Hrd6.
  rewrite onehot_base in Hrd6.
  assert (Hoh : value (Tuple (map Const (onehot_consts (map const_ty cs) k g)))).
  { apply value_tuple_iff, Forall_forall. intros x Hx'. apply in_map_iff in Hx' as [c [<- _]]. reflexivity. }
  assert (Hr3 : run (fuel - S c1 - S (n2 - S (n + c1))) (S n2) hp2
                  (Ret (Rd (Proj 0 q) (App f (Proj k (Var 0))) (Tuple Ms)))
                = RDone hp2 (Tuple (map Const (onehot_consts (map const_ty cs) k g)))
                    (S n2 + (1 + point_cost Ms + 5))).
  { apply run_ret_tstar; [exact Hrd6|exact Hoh|lia]. }
  rewrite (run_let_done _ _ _ _ _ _ _ _ Hr3). cbn [subst_cmd].
  (* the result tuple *)
  replace (map (fun x => TBase (const_ty x)) cs) with (map TBase (map const_ty cs)) by apply map_map.
  rewrite !subst_subst, subst_rh_term_result_base. cbn [up list_subst nth subst_tm].
  cbn [shift ren_tm subst_tm up list_subst nth]. rewrite (subst_single_shift _ q).
  pose proof (tstar_term_res_base (map const_ty cs) w' cs (onehot_consts (map const_ty cs) k g)
                ltac:(rewrite map_length; reflexivity) ltac:(apply onehot_consts_length) Hw) as Hres.
  rewrite (add_onehot_sparse _ _ _ Hfit), map_length in Hres.
  replace (S n2 + (1 + point_cost Ms + 5) - S n2) with (1 + point_cost Ms + 5) by lia.
  rewrite (run_ret_tstar _ _ _ _ _ _ Hres); [reflexivity| |lia].
  apply value_tuple_iff, Forall_forall. intros x Hx'. apply in_map_iff in Hx' as [c [<- _]]. reflexivity.
Qed.

End zero_law.
End rh4_sparse.

(** * The theorem at the level of the instance's [Ev]

    [flat V] is the vector of the leaves of a closed value, concatenated.
    [Ev] ([exec_ev]) of [rd^k[p]] computes [prim_fun k p] on flat vectors
    ([ev_flat]); so when [Ev] answers [U] for [rd^{k+1}[p]] at [<V, W>],
    [U] is the transposed Jacobian of [rd^k[p]] at [V] applied to [W]
    ([ev_rd_correct]). *)
From Coq Require Import Reals Lra List Lia.
From RevHandlers Require Import prelude signature syntax instance.
From RevHandlers.Analysis Require Import vec templates sums prims.
Import ListNotations.
Open Scope R_scope.

#[local] Instance Rsorts : sorts := exec_sorts vec.

Definition flat (V : tm) : vec := concat (map snd (@leaves vec V)).

Lemma firstn_add_gen {A} a b (w : list A) : firstn (a + b) w = firstn a w ++ firstn b (skipn a w).
Proof.
  revert w; induction a; intros [|x w]; simpl; auto. rewrite firstn_nil. auto. f_equal; auto.
Qed.

Lemma skipn_skipn_gen {A} a b (w : list A) : skipn b (skipn a w) = skipn (a + b) w.
Proof. revert w; induction a; intros [|x w]; simpl; auto. rewrite skipn_nil. auto. Qed.

Lemma split_at_concat ds ls (u : vec) : Forall2 (fun d (v : vec) => length v = d) ds ls ->
  split_at (length u) ds (u ++ concat ls) = ls.
Proof.
  intros HF. revert u. induction HF as [|d l ds ls Hl HF IH]; intros u; simpl; auto.
  rewrite proj_app_r by auto. rewrite firstn_app_exact by auto. f_equal.
  rewrite app_assoc. replace (length u + d)%nat with (length (u ++ l)) by (rewrite app_length; lia).
  apply IH.
Qed.

Lemma leaves_fit_Forall2 dims (ls : list (nat * vec)) : leaves_fit Rvo dims ls = true ->
  Forall2 (fun d (v : vec) => length v = d) dims (map snd ls).
Proof.
  unfold leaves_fit. intros H. apply andb_true_iff in H. destruct H as [Hl H].
  apply Nat.eqb_eq in Hl. revert ls Hl H. induction dims as [|d dims IH]; intros [|[n v] ls] Hl H;
    simpl in *; try discriminate; constructor.
  - apply andb_true_iff in H. destruct H as [H _]. apply andb_true_iff in H. destruct H as [_ H].
    apply Nat.eqb_eq in H. auto.
  - apply IH; [lia|]. apply andb_true_iff in H. tauto.
Qed.

Lemma eval_prim_count k p xs outs : eval_prim Rvo k p xs = Some outs ->
  length outs = length (@ty_dims vec (@fcod vec k p)).
Proof.
  intros H. destruct (Nat.le_gt_cases k 2) as [Hk|Hk].
  2: { rewrite (eval_prim_core Rvo k p xs ltac:(lia)) in H. exact (eval_core_length Rvo _ _ _ _ H). }
  destruct p; destruct k as [|[|[|k]]]; try lia; simpl in H;
    repeat match type of H with
           | context [match ?l with [] => _ | _ :: _ => _ end] => destruct l
           end; try discriminate; injection H as <-; reflexivity.
Qed.

Lemma encode_leaves A (xs : list vec) : (length (@ty_dims vec A) <= length xs)%nat ->
  map snd (@leaves vec (fst (encode Rvo A xs))) = firstn (length (@ty_dims vec A)) xs /\
  snd (encode Rvo A xs) = skipn (length (@ty_dims vec A)) xs.
Proof.
  unfold vec in *. revert xs. induction A as [n|As IH] using ty_ind'; intros xs Hl.
  - destruct xs as [|x xs]; simpl in *; [lia|]. auto.
  - simpl.
    assert (Hgo : forall xs, (length (concat (map (@ty_dims (list R)) As)) <= length xs)%nat ->
      let r := (fix go (As : list ty) (xs : list (list R)) : list tm * list (list R) :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode Rvo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs in
      concat (map (fun V => map snd (@leaves (list R) V)) (fst r)) = firstn (length (concat (map (@ty_dims (list R)) As))) xs /\
      snd r = skipn (length (concat (map (@ty_dims (list R)) As))) xs).
    { clear Hl. induction IH as [|A As HA HAs IHl]; intros xs' Hl'; simpl.
      - auto.
      - simpl in Hl'. rewrite app_length in Hl'.
        destruct (encode Rvo A xs') as [V xs1] eqn:HV.
        specialize (HA xs' ltac:(lia)). rewrite HV in HA. simpl in HA. destruct HA as [HA1 HA2].
        assert (Hl1 : (length (concat (map (@ty_dims (list R)) As)) <= length xs1)%nat)
          by (rewrite HA2, skipn_length; lia).
        specialize (IHl xs1 Hl1). simpl in IHl.
        destruct ((fix go (As : list ty) (xs : list (list R)) : list tm * list (list R) :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode Rvo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs1) as [Vs xs2]. simpl in *. destruct IHl as [IH1 IH2].
        rewrite app_length. split.
        + rewrite HA1, IH1, HA2, firstn_add_gen. reflexivity.
        + rewrite IH2, HA2, skipn_skipn_gen. reflexivity. }
    specialize (Hgo xs Hl). simpl in Hgo.
    match goal with |- context [let '(_, _) := ?t in _] => destruct t as [Vs rest] eqn:Ht end.
    simpl in *. rewrite concat_map, map_map. try rewrite Ht in Hgo. simpl in Hgo. exact Hgo.
Qed.

(** [Ev] of [rd^k[p]] is [prim_fun k p] on the flat vectors. *)
Theorem ev_flat k p V U : exec_ev Rvo (k, p) V = Some U -> flat U = prim_fun k p (flat V).
Proof.
  unfold exec_ev. destruct (prim_ok p && leaves_fit Rvo _ _) eqn:E; [|discriminate].
  apply andb_true_iff in E. destruct E as [_ E].
  destruct (eval_prim Rvo k p (map snd (leaves V))) as [outs|] eqn:Ev; [|discriminate].
  intros H. injection H as <-. unfold flat, prim_fun.
  pose proof (split_at_concat _ _ [] (leaves_fit_Forall2 _ _ E)) as HS. simpl in HS.
  unfold vec in *.
  rewrite HS, Ev. apply eval_prim_count in Ev.
  destruct (encode_leaves (fcod k p) outs) as [H _]; [unfold vec in *; lia|].
  unfold vec in *. rewrite H, firstn_all2 by lia. reflexivity.
Qed.

Lemma flat_pair V W : flat (Tuple [V; W]) = flat V ++ flat W.
Proof. unfold flat. simpl. rewrite app_nil_r, map_app, concat_app. reflexivity. Qed.

(** When [Ev] answers [U] for [rd^{k+1}[p]] at [<V, W>] ([p] smooth,
    [k ≤ 1]), [U] is the reverse derivative of [rd^k[p]] at [V] applied to
    [W]: [flat U = (J rd^k[p](flat V))ᵀ (flat W)]. *)
Theorem ev_rd_correct k p V W U :
  smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat ->
  length (flat V) = pdom k p -> length (flat W) = pcod k p ->
  exec_ev Rvo (S k, p) (Tuple [V; W]) = Some U ->
  exists L, has_deriv (pdom k p) (pcod k p) (prim_fun k p) (flat V) L /\
    forall h, length h = pdom k p -> dot (L h) (flat W) = dot h (flat U).
Proof.
  intros Hs Hok Hk HV HW Hev. apply ev_flat in Hev. rewrite flat_pair in Hev.
  destruct (prim_rd_correct p k Hs Hok Hk (flat V) HV) as [L [HD [_ Hadj]]].
  exists L. split; auto. intros h Hh. rewrite Hev. auto.
Qed.

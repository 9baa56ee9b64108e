(** * The denotation of [rd] is the reverse derivative

    [rd_den w l F] (the meaning of [M.rd(x.N)(L)] in [denot.v], with [w],
    [l] the meanings of [M], [L] and [F] that of the body) is [(J G(l))ᵀ w]
    whenever the body, read as a map [G] of flat vectors, is differentiable
    at [l] ([rd_den_correct]).  With [prim_rd_correct] and the rules of
    [rdcalc.v] this is how [⟦W.rd(x.N)(V)⟧] meets the reverse derivatives of the
    primitives. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers.Analysis Require Import vec templates sums prims denot.
Import ListNotations.
Open Scope R_scope.

Lemma dot_abs_le a b : Rabs (dot a b) <= norm1 a * norm1 b.
Proof.
  revert b; induction a as [|x a IH]; intros [|y b]; simpl.
  - rewrite Rabs_R0. lra.
  - rewrite Rabs_R0. pose proof (norm1_nonneg b). pose proof (Rabs_pos y). nra.
  - rewrite Rabs_R0. pose proof (norm1_nonneg a). pose proof (Rabs_pos x). nra.
  - specialize (IH b). eapply Rle_trans; [apply Rabs_triang|]. rewrite Rabs_mult.
    pose proof (norm1_nonneg a). pose proof (norm1_nonneg b). pose proof (Rabs_pos x).
    pose proof (Rabs_pos y). nra.
Qed.

(** A directional derivative, paired with a fixed vector. *)
Lemma is_derive_dir n m G x L e w :
  has_deriv n m G x L -> length e = n -> length w = m ->
  is_derive (fun t => dot w (G (vp x (vs t e)))) 0 (dot w (L e)).
Proof.
  intros [Hx [HG [HL D]]] He Hw. apply is_derive_Reals. intros eps Heps.
  set (C := (1 + norm1 w) * (1 + norm1 e)).
  assert (HC : 0 < C) by (unfold C; pose proof (norm1_nonneg w); pose proof (norm1_nonneg e); nra).
  destruct (D (eps / (2 * C)) ltac:(apply Rdiv_lt_0_compat; lra)) as [d [Hd H]].
  exists (mkposreal (d / (1 + norm1 e)) ltac:(apply Rdiv_lt_0_compat; [lra|pose proof (norm1_nonneg e); lra])).
  intros h Hh0 Hh. simpl in Hh.
  assert (E0 : vp x (vs 0 e) = x).
  { apply vec_ext; [rewrite length_vp, length_vs; lia|]. intros i. rewrite nth_vp, nth_vs. ring. }
  rewrite Rplus_0_l, E0.
  assert (Hlh : length (vs h e) = n) by (rewrite length_vs; auto).
  assert (Hnh : norm1 (vs h e) < d).
  { rewrite norm1_vs. pose proof (norm1_nonneg e). pose proof (Rabs_pos h).
    apply Rle_lt_trans with (Rabs h * (1 + norm1 e)); [nra|].
    apply Rmult_lt_reg_r with (/ (1 + norm1 e)); [apply Rinv_0_lt_compat; lra|].
    rewrite Rmult_assoc, Rinv_r, Rmult_1_r by lra. exact Hh. }
  specialize (H (vs h e) Hlh Hnh).
  rewrite (lin_scal _ _ _ HL) in H by auto.
  set (E := vm (vm (G (vp x (vs h e))) (G x)) (vs h (L e))) in H.
  assert (HE : dot w (G (vp x (vs h e))) - dot w (G x) - h * dot w (L e) = dot w E).
  { unfold E, vm. rewrite !dot_vp_r, !dot_vs_r. ring. }
  replace ((dot w (G (vp x (vs h e))) - dot w (G x)) / h - dot w (L e))
    with ((dot w (G (vp x (vs h e))) - dot w (G x) - h * dot w (L e)) / h) by (field; auto).
  rewrite HE. unfold Rdiv. rewrite Rabs_mult, Rabs_inv.
  assert (Hh' : 0 < Rabs h) by (apply Rabs_pos_lt; auto).
  apply Rle_lt_trans with (norm1 w * (eps / (2 * C) * (Rabs h * norm1 e)) * / Rabs h).
  - apply Rmult_le_compat_r; [left; apply Rinv_0_lt_compat; auto|].
    eapply Rle_trans; [apply dot_abs_le|]. rewrite norm1_vs in H.
    apply Rmult_le_compat_l; [apply norm1_nonneg|]. exact H.
  - replace (norm1 w * (eps / (2 * C) * (Rabs h * norm1 e)) * / Rabs h)
      with (eps * (norm1 w * norm1 e) / (2 * C)) by (field; lra).
    assert (Hwe : norm1 w * norm1 e < C)
      by (unfold C; pose proof (norm1_nonneg w); pose proof (norm1_nonneg e); nra).
    unfold Rdiv. apply Rlt_trans with (eps * C * / (2 * C)).
    + apply Rmult_lt_compat_r; [apply Rinv_0_lt_compat; lra|]. apply Rmult_lt_compat_l; lra.
    + replace (eps * C * / (2 * C)) with (eps / 2) by (field; lra). lra.
Qed.

(** [reshape l y] refills [l] with [y]: flattened, it is [y]. *)
Lemma concat_concat' {A} (L : list (list (list A))) : concat (concat L) = concat (map (@concat A) L).
Proof. induction L; simpl; auto. rewrite concat_app, IHL. reflexivity. Qed.

Lemma rflat_node ts : rflat (RNode ts) = concat (map rflat ts).
Proof.
  unfold rflat. induction ts as [|t ts IH]; [reflexivity|].
  change (rleaves (RNode (t :: ts))) with (rleaves t ++ rleaves (RNode ts)).
  rewrite concat_app, IH. reflexivity.
Qed.

Fixpoint rv_ind' (P : rv -> Prop) (Hl : forall v, P (RLeaf v))
    (Hn : forall ts, List.Forall P ts -> P (RNode ts)) (t : rv) {struct t} : P t :=
  match t with
  | RLeaf v => Hl v
  | RNode ts => Hn ts ((fix go (l : list rv) : List.Forall P l :=
                          match l with
                          | [] => List.Forall_nil P
                          | t' :: l' => List.Forall_cons t' (rv_ind' P Hl Hn t') (go l')
                          end) ts)
  end.

Lemma skipn_skipn_v (a b : nat) (w : vec) : skipn b (skipn a w) = skipn (a + b) w.
Proof. revert w; induction a; intros [|x w]; simpl; auto. rewrite skipn_nil. auto. Qed.

(** The loop of [reshape_aux] over the children of a node, named so
    that the lemmas on [reshape_aux] state it once ([reshape_aux_node]). *)
Fixpoint reshape_go (ts : list rv) (y : vec) : list rv * vec :=
  match ts with
  | [] => ([], y)
  | t :: ts => let '(t', y1) := reshape_aux t y in
               let '(ts', y2) := reshape_go ts y1 in (t' :: ts', y2)
  end.

Lemma reshape_aux_node ts y :
  reshape_aux (RNode ts) y = (RNode (fst (reshape_go ts y)), snd (reshape_go ts y)).
Proof.
  transitivity (let '(ts', y') := reshape_go ts y in (RNode ts', y')); [reflexivity|].
  destruct (reshape_go ts y). reflexivity.
Qed.

Lemma reshape_aux_flat t : forall y, (length (rflat t) <= length y)%nat ->
  rflat (fst (reshape_aux t y)) = firstn (length (rflat t)) y /\
  snd (reshape_aux t y) = skipn (length (rflat t)) y.
Proof.
  induction t as [v|ts IH] using rv_ind'; intros y Hy.
  - unfold rflat in *. simpl in *. rewrite (app_nil_r v), (app_nil_r (firstn (length v) y)). split; reflexivity.
  - rewrite reshape_aux_node. cbn [fst snd].
    assert (Hgo : forall y, (length (concat (map rflat ts)) <= length y)%nat ->
      concat (map rflat (fst (reshape_go ts y))) = firstn (length (concat (map rflat ts))) y /\
      snd (reshape_go ts y) = skipn (length (concat (map rflat ts))) y).
    { clear Hy. induction IH as [|t ts Ht Hts IHl]; intros y' Hy'; simpl.
      - auto.
      - simpl in Hy'. rewrite app_length in Hy'.
        destruct (reshape_aux t y') as [t' y1] eqn:Hr.
        specialize (Ht y' ltac:(lia)). rewrite Hr in Ht. simpl in Ht. destruct Ht as [H1 H2].
        specialize (IHl y1 ltac:(rewrite H2, skipn_length; lia)). simpl in IHl.
        match goal with |- context [let '(_, _) := ?e in _] => destruct e as [ts' y2] eqn:Hg end.
        simpl in *. destruct IHl as [IH1 IH2]. rewrite app_length. split.
        + rewrite H1, IH1, H2. symmetry. apply firstn_add'.
        + rewrite IH2, H2, skipn_skipn_v. reflexivity. }
    rewrite !rflat_node in *. exact (Hgo y Hy).
Qed.

Lemma reshape_flat t y : length y = length (rflat t) -> rflat (reshape t y) = y.
Proof.
  intros H. unfold reshape. destruct (reshape_aux_flat t y ltac:(lia)) as [H1 _].
  rewrite H1, firstn_all2 by lia. reflexivity.
Qed.

Lemma dot_unitv n j v : (j < n)%nat -> dot (unitv n j) v = v@@j.
Proof.
  intros Hj. unfold unitv. rewrite dot_tab.
  rewrite (sumn_ext n _ (fun i => if Nat.eqb j i then v@@i else 0)).
  - rewrite sumn_single. apply Nat.ltb_lt in Hj. rewrite Hj. reflexivity.
  - intros i _. rewrite Nat.eqb_sym. destruct (Nat.eqb j i); ring.
Qed.

Lemma length_unitv n j : length (unitv n j) = n.
Proof. apply length_tab. Qed.

(** The meaning of [rd] is the transposed Jacobian of the body at the point,
    applied to the cotangent, wherever the body is differentiable. *)
Theorem rd_den_correct w l F m r :
  let n := length (rflat l) in
  is_rev_deriv n m (fun y => rflat (F (reshape l y))) (rflat l) r -> length (rflat w) = m ->
  rflat (rd_den w l F) = r (rflat w).
Proof.
  intros n [L [HD [Hr Ha]]] Hw. unfold rd_den. fold n.
  rewrite reshape_flat by (rewrite length_tab; reflexivity).
  rewrite <- (tab_nth (r (rflat w))), (Hr _ Hw). apply tab_ext. intros j Hj.
  apply is_derive_unique.
  assert (Hu : length (unitv n j) = n) by apply length_unitv.
  rewrite <- (dot_unitv n j (r (rflat w))) by auto. rewrite <- Ha by auto. rewrite dot_comm.
  apply (is_derive_dir n m _ (rflat l) L (unitv n j) (rflat w) HD Hu Hw).
Qed.

(** * [maxpool] where every window has a strict maximum

    The windows of [maxpool c n m x] are the [⌈n/m⌉] consecutive blocks of
    [m] coordinates (the last one possibly shorter) of each of the [c]
    channels of [x] ([win x i t]).  The instance's [argmax] takes the
    first maximal position; where the maximum of a window is attained at
    one position only ([strict_max]), that position is the argmax
    ([argmax_strict]) and it stays the argmax of every nearby window
    ([strict_max_stable]).  So on the open set [windows_strict] (every
    window of every channel has a strict maximum) [maxpool] is locally the
    linear map [maxpool_gather x] that reads the argmax positions of [x]
    ([mp_near]); its adjoint is [maxpool_adj x] ([mp_adj]).  Hence
    [rd[maxpool]] is the reverse derivative of [maxpool] there
    ([maxpool_rd0]), and [rd²[maxpool]] that of [rd[maxpool]] at every
    [(x, g)] with [x] in that set ([maxpool_rd1]).  Off it (ties in a
    window) [maxpool] is not differentiable in general: the window [[a; b]]
    at [a = b = 0] is [max(a, b)], not differentiable there
    ([mp_tie_not_diff]). *)
From RevHandlers.Analysis Require Import base vec templates sums prims prims_more.
Open Scope R_scope.

(** ** The argmax of a window with a strict maximum *)
Definition strict_max (w : vec) (j : nat) : Prop :=
  (j < length w)%nat /\ forall i, (i < length w)%nat -> i <> j -> w@@i < w@@j.

Lemma argmax_aux_strict M j : forall w i best bv,
  (forall k, (k < length w)%nat -> (i + k)%nat <> j -> w@@k < M) ->
  (forall k, (k < length w)%nat -> (i + k)%nat = j -> w@@k = M) ->
  ((j < i)%nat /\ best = j /\ bv = M) \/ ((i <= j < i + length w)%nat /\ bv < M) ->
  argmax_aux Rsc w i best bv = j.
Proof.
  induction w as [|a w IH]; intros i best bv HA HC HB; simpl in *.
  - destruct HB as [[_ [-> _]]|[H _]]; [auto|lia].
  - assert (HA0 : i <> j -> a < M) by (intros; apply (HA 0%nat); lia).
    assert (HC0 : i = j -> a = M) by (intros; apply (HC 0%nat); lia).
    assert (HA' : forall k, (k < length w)%nat -> (S i + k)%nat <> j -> w@@k < M)
      by (intros k Hk Hne; apply (HA (S k)); simpl; lia).
    assert (HC' : forall k, (k < length w)%nat -> (S i + k)%nat = j -> w@@k = M)
      by (intros k Hk Hne; apply (HC (S k)); simpl; lia).
    destruct (Rlt_dec bv a) as [Hlt|Hge]; simpl; apply IH; auto.
    + destruct (Nat.eq_dec i j) as [<-|Hne].
      * left. split; [lia|]. split; auto.
      * right. destruct HB as [[_ [_ ->]]|[H _]]; [specialize (HA0 Hne); lra|]. split; [lia|auto].
    + destruct HB as [[H1 [H2 H3]]|[H1 H2]]; [left; repeat split; auto; lia|].
      destruct (Nat.eq_dec i j) as [<-|Hne]; [specialize (HC0 eq_refl); lra|].
      right. split; [lia|auto].
Qed.

(** The argmax of a window with a strict maximum at [j] is [j]. *)
Lemma argmax_strict w j : strict_max w j -> argmax Rsc w = j.
Proof.
  intros [Hj Hs]. destruct w as [|a w]; [simpl in Hj; lia|]. unfold argmax.
  apply argmax_aux_strict with (M := (a :: w)@@j).
  - intros k Hk Hne. apply (Hs (S k)); simpl; lia.
  - intros k Hk <-. reflexivity.
  - destruct j as [|j].
    + left. split; [lia|]. auto.
    + right. split; [simpl in Hj; lia|]. apply (Hs 0%nat); simpl; lia.
Qed.

(** A finite conjunction of conditions each true on a ball is true on a ball. *)
Lemma finite_delta K (P : vec -> Prop) (Q : nat -> vec -> Prop) :
  (forall k, (k < K)%nat -> exists d, 0 < d /\ forall u, P u -> norm1 u < d -> Q k u) ->
  exists d, 0 < d /\ forall u, P u -> norm1 u < d -> forall k, (k < K)%nat -> Q k u.
Proof.
  induction K as [|K IH]; intros H.
  - exists 1. split; [lra|]. intros. lia.
  - destruct IH as [d1 [Hd1 H1]]; [intros k Hk; apply H; lia|].
    destruct (H K ltac:(lia)) as [d2 [Hd2 H2]].
    exists (Rmin d1 d2). split; [apply Rmin_pos; auto|]. intros u Pu Hu k Hk.
    pose proof (Rmin_l d1 d2). pose proof (Rmin_r d1 d2).
    destruct (Nat.eq_dec k K) as [->|Hne]; [apply H2; auto; lra|apply H1; auto; try lra; lia].
Qed.

(** A strict maximum stays strict, at the same position, nearby. *)
Lemma strict_max_stable w j : strict_max w j ->
  exists d, 0 < d /\ forall u, length u = length w -> norm1 u < d -> strict_max (vp w u) j.
Proof.
  intros [Hj Hs].
  destruct (finite_delta (length w) (fun u => length u = length w)
              (fun k u => k <> j -> (vp w u)@@k < (vp w u)@@j)) as [d [Hd H]].
  - intros k Hk. destruct (Nat.eq_dec k j) as [->|Hne].
    + exists 1. split; [lra|]. intros. congruence.
    + specialize (Hs k Hk Hne). exists ((w@@j - w@@k) / 2). split; [lra|].
      intros u _ Hu _. rewrite !nth_vp.
      pose proof (norm1_nth_le u k). pose proof (norm1_nth_le u j).
      pose proof (Rle_abs (u@@k)). pose proof (Rle_abs (- u@@j)) as Hj'.
      rewrite Rabs_Ropp in Hj'. lra.
  - exists d. split; auto. intros u Hu Hn. unfold strict_max. rewrite length_vp, Hu, Nat.max_id. split; auto.
Qed.

(** ** Windows *)
Lemma ceil_div_S L m : (0 < m)%nat -> (1 <= L)%nat -> ceil_div L m = S (ceil_div (L - m) m).
Proof.
  intros Hm HL. unfold ceil_div.
  replace (L + m - 1)%nat with ((L - 1) + 1 * m)%nat by lia.
  rewrite Nat.div_add by lia. rewrite Nat.add_1_r. f_equal.
  destruct (Nat.le_gt_cases m L).
  - f_equal. lia.
  - replace (L - m)%nat with 0%nat by lia. simpl. rewrite !Nat.div_small by lia. reflexivity.
Qed.

Lemma ceil_div_0 m : (0 < m)%nat -> ceil_div 0 m = 0%nat.
Proof. intros Hm. unfold ceil_div. apply Nat.div_small. lia. Qed.

Section windows.
Variable m : nat.
Hypothesis Hm : (0 < m)%nat.

Lemma chunks_fuel (l : vec) : chunks m l = chunks_aux (length l) m l.
Proof. unfold chunks. clear -Hm. destruct m; [lia|reflexivity]. Qed.

Lemma chunks_aux_seq f : forall l : vec, (length l <= f)%nat ->
  chunks_aux f m l = map (fun t => proj (t * m) m l) (seq 0 (ceil_div (length l) m)).
Proof.
  induction f as [|f IH]; intros l Hl.
  - destruct l; [|simpl in Hl; lia]. simpl. rewrite ceil_div_0; auto.
  - destruct l as [|a l]; [simpl; rewrite ceil_div_0; auto|].
    rewrite ceil_div_S by (simpl; lia). simpl chunks_aux. cbv beta iota.
    rewrite IH by (rewrite skipn_length; change (length (a :: l)) with (S (length l)) in *; lia).
    rewrite skipn_length. simpl seq. simpl map. f_equal.
    rewrite <- seq_shift, map_map. apply map_ext. intros t. unfold proj.
    rewrite skipn_skipn'. f_equal. f_equal. lia.
Qed.

Lemma chunks_seq (l : vec) : chunks m l = map (fun t => proj (t * m) m l) (seq 0 (ceil_div (length l) m)).
Proof. rewrite chunks_fuel. apply chunks_aux_seq. auto. Qed.

Lemma concat_chunks_aux f : forall l : vec, (length l <= f)%nat -> concat (chunks_aux f m l) = l.
Proof.
  induction f as [|f IH]; intros l Hl.
  - destruct l; [reflexivity|simpl in Hl; lia].
  - destruct l as [|a l]; [reflexivity|]. simpl chunks_aux. cbv beta iota. simpl concat.
    rewrite IH by (rewrite skipn_length; change (length (a :: l)) with (S (length l)) in *; lia).
    apply firstn_skipn.
Qed.

Lemma concat_chunks (l : vec) : concat (chunks m l) = l.
Proof. rewrite chunks_fuel. apply concat_chunks_aux. auto. Qed.
End windows.

Lemma rows_seq r k (l : vec) : rows r k l = map (fun i => proj (i * k) k l) (seq 0 r).
Proof. reflexivity. Qed.

Lemma concat_rows r k (l : vec) : length l = (r * k)%nat -> concat (rows r k l) = l.
Proof.
  intros Hl. rewrite rows_seq.
  assert (H : forall r', concat (map (fun i => proj (i * k) k l) (seq 0 r')) = proj 0 (r' * k) l).
  { induction r' as [|r' IH]; [reflexivity|].
    rewrite seq_S, map_app, concat_app, IH. simpl. rewrite app_nil_r.
    pose proof (proj_concat 0 (r' * k) k l) as E. simpl in E. rewrite E. f_equal. lia. }
  rewrite H. unfold proj. simpl. apply firstn_all2. lia.
Qed.

Lemma combine_seq_l {A} (f : nat -> A) (l : vec) : forall k s, length l = k ->
  combine (map f (seq s k)) l = map (fun t => (f t, l@@(t - s))) (seq s k).
Proof.
  induction l as [|b l IH]; intros k s Hl; [subst; reflexivity|].
  destruct k as [|k]; [discriminate|]. simpl in Hl. injection Hl as Hl. simpl.
  rewrite Nat.sub_diag. f_equal. rewrite (IH k (S s) Hl). apply map_ext_in.
  intros t Ht. apply in_seq in Ht. replace (t - s)%nat with (S (t - S s)) by lia. reflexivity.
Qed.

Lemma length_concat_seq k (f g : nat -> vec) : (forall i, (i < k)%nat -> length (f i) = length (g i)) ->
  length (concat (map f (seq 0 k))) = length (concat (map g (seq 0 k))).
Proof.
  induction k; intros H; [reflexivity|].
  rewrite !seq_S, !map_app, !concat_app, !app_length, IHk by (intros; apply H; lia).
  simpl. rewrite !app_nil_r, H by lia. reflexivity.
Qed.

Lemma dot_concat_seq k (f g : nat -> vec) : (forall i, (i < k)%nat -> length (f i) = length (g i)) ->
  dot (concat (map f (seq 0 k))) (concat (map g (seq 0 k))) = sumn k (fun i => dot (f i) (g i)).
Proof.
  induction k; intros H; [reflexivity|].
  rewrite !seq_S, !map_app, !concat_app. simpl. rewrite !app_nil_r.
  rewrite dot_app by (apply length_concat_seq; intros; apply H; lia).
  rewrite IHk by (intros; apply H; lia). reflexivity.
Qed.

Lemma dot_onehot (w : vec) k a s : length w = k ->
  dot w (tab k (fun j => if Nat.eqb j a then s else 0)) = w@@a * s.
Proof.
  intros Hw. rewrite dot_comm, dot_tab.
  rewrite (sumn_ext _ _ (fun i => if Nat.eqb a i then w@@i * s else 0)).
  - rewrite sumn_single. destruct (Nat.ltb_spec a k); [reflexivity|].
    rewrite nth_overflow by lia. ring.
  - intros i _. rewrite Nat.eqb_sym. destruct (Nat.eqb a i); ring.
Qed.

(** Two vectors with the same inner products with every vector are equal. *)
Lemma vec_eq_dual N (u v : vec) : length u = N -> length v = N ->
  (forall h, length h = N -> dot h u = dot h v) -> u = v.
Proof.
  intros Hu Hv H. apply vec_ext; [congruence|]. intros i.
  destruct (Nat.lt_ge_cases i N) as [Hi|Hi]; [|rewrite !nth_overflow by lia; reflexivity].
  specialize (H (tab N (fun j => if Nat.eqb i j then 1 else 0)) (length_tab _ _)).
  rewrite !dot_tab in H.
  rewrite !(sumn_ext N (fun j => (if Nat.eqb i j then 1 else 0) * _@@j)
              (fun j => if Nat.eqb i j then _@@j else 0)) in H
    by (intros j _; destruct (Nat.eqb i j); ring).
  rewrite !sumn_single in H. destruct (Nat.ltb_spec i N); [auto|lia].
Qed.

(** A map equal to a linear map [L] near [x] has [L] as derivative. *)
Lemma has_deriv_loc_lin N M f L x : length x = N -> maps N M f -> lin N M L ->
  (exists d, 0 < d /\ forall h, length h = N -> norm1 h < d -> f (vp x h) = L (vp x h)) ->
  has_deriv N M f x L.
Proof.
  intros Hx Hf HL [d [Hd H]]. split; [auto|]. split; [auto|]. split; [auto|].
  assert (Hfx : f x = L x).
  { replace x with (vp x (zeros N)) by (apply vec_ext; [rewrite length_vp, length_zeros; lia|];
                                         intros i; rewrite nth_vp, nth_zeros; ring).
    apply H; [apply length_zeros|]. rewrite norm1_0; auto. intros i. apply nth_zeros. }
  intros eps Heps. exists d. split; auto. intros h Hh Hn.
  rewrite H, Hfx, (lin_add _ _ _ HL) by auto. rewrite norm1_0.
  - pose proof (norm1_nonneg h). nra.
  - intros i. rewrite !nth_vm, nth_vp. ring.
Qed.

(** ** maxpool *)
Section maxpool.
Variables c n m : nat.
Hypothesis Hm : (0 < m)%nat.
Let cd := ceil_div n m.

(** Window [t] of channel [i]. *)
Definition win (v : vec) (i t : nat) : vec := proj (t * m) m (proj (i * n) n v).

(** Every window of every channel has its maximum at one position only. *)
Definition windows_strict (x : vec) : Prop :=
  forall w, In w (concat (map (chunks m) (rows c n x))) -> exists j, strict_max w j.

Lemma length_row (v : vec) i : length v = (c * n)%nat -> (i < c)%nat -> length (proj (i * n) n v) = n.
Proof.
  intros Hv Hi. apply length_proj. assert (i * n + n = S i * n)%nat by (simpl; lia).
  assert (S i * n <= c * n)%nat by (apply Nat.mul_le_mono_r; lia). lia.
Qed.

Lemma windows_seq x : length x = (c * n)%nat ->
  map (chunks m) (rows c n x) = map (fun i => map (fun t => win x i t) (seq 0 cd)) (seq 0 c).
Proof.
  intros Hx. rewrite rows_seq, map_map. apply map_ext_in. intros i Hi. apply in_seq in Hi.
  rewrite chunks_seq by auto. rewrite length_row by (auto; lia). reflexivity.
Qed.

Lemma windows_strict_at x : length x = (c * n)%nat -> windows_strict x ->
  forall i t, (i < c)%nat -> (t < cd)%nat -> exists j, strict_max (win x i t) j.
Proof.
  intros Hx H i t Hi Ht. apply H. rewrite windows_seq by auto. apply in_concat.
  exists (map (fun t => win x i t) (seq 0 cd)). split.
  - apply in_map_iff. exists i. split; auto. apply in_seq. lia.
  - apply in_map_iff. exists t. split; auto. apply in_seq. lia.
Qed.

Lemma length_win (x y : vec) i t : length x = length y -> length (win x i t) = length (win y i t).
Proof. intros H. unfold win, proj. rewrite !firstn_length, !skipn_length, !firstn_length, !skipn_length, H. auto. Qed.

Lemma win_vp (x h : vec) i t : win (vp x h) i t = vp (win x i t) (win h i t).
Proof. unfold win, proj. repeat rewrite ?skipn_vp, ?firstn_vp. reflexivity. Qed.
Lemma win_vs a (x : vec) i t : win (vs a x) i t = vs a (win x i t).
Proof. unfold win, proj. repeat rewrite ?skipn_vs, ?firstn_vs. reflexivity. Qed.

Lemma norm1_win (h : vec) i t : norm1 (win h i t) <= norm1 h.
Proof.
  unfold win, proj. eapply Rle_trans; [apply norm1_firstn|]. eapply Rle_trans; [apply norm1_skipn|].
  eapply Rle_trans; [apply norm1_firstn|]. apply norm1_skipn.
Qed.

Lemma concat_windows x : length x = (c * n)%nat ->
  concat (map (fun i => concat (map (fun t => win x i t) (seq 0 cd))) (seq 0 c)) = x.
Proof.
  intros Hx. rewrite <- (map_map (fun i => map (fun t => win x i t) (seq 0 cd)) (@concat R)).
  rewrite <- windows_seq by auto. rewrite map_map.
  rewrite (map_ext (fun r => concat (chunks m r)) (fun r => r)) by (intros; apply concat_chunks; auto).
  rewrite map_id. apply concat_rows. auto.
Qed.

(** The instance's list functions by windows. *)
Lemma maxpool_tab y : length y = (c * n)%nat ->
  maxpool Rsc c n m y = tab2 c cd (fun i t => (win y i t)@@(argmax Rsc (win y i t))).
Proof.
  intros Hy. unfold maxpool, tab2. rewrite rows_seq, map_map. f_equal. apply map_ext_in.
  intros i Hi. apply in_seq in Hi. rewrite chunks_seq by auto. rewrite length_row by (auto; lia).
  unfold tab. rewrite map_map. reflexivity.
Qed.

Lemma gather_tab x y : length x = (c * n)%nat -> length y = (c * n)%nat ->
  maxpool_gather Rsc c n m x y = tab2 c cd (fun i t => (win y i t)@@(argmax Rsc (win x i t))).
Proof.
  intros Hx Hy. unfold maxpool_gather, tab2. rewrite !rows_seq, combine_map_seq, map_map. f_equal.
  apply map_ext_in. intros i Hi. apply in_seq in Hi. simpl.
  rewrite !chunks_seq by auto. rewrite !length_row by (auto; lia).
  rewrite combine_map_seq, map_map. reflexivity.
Qed.

Definition adj_w (x g : vec) (i t : nat) : vec :=
  tab (length (win x i t)) (fun j => if Nat.eqb j (argmax Rsc (win x i t)) then g@@(i * cd + t) else 0).

Lemma adj_form x g : length x = (c * n)%nat -> length g = (c * cd)%nat ->
  maxpool_adj Rsc c n m x g = concat (map (fun i => concat (map (fun t => adj_w x g i t) (seq 0 cd))) (seq 0 c)).
Proof.
  intros Hx Hg. unfold maxpool_adj. fold cd. rewrite !rows_seq, combine_map_seq, map_map. f_equal.
  apply map_ext_in. intros i Hi. apply in_seq in Hi. simpl.
  rewrite chunks_seq by auto. rewrite length_row by (auto; lia).
  assert (Hgi : length (proj (i * cd) cd g) = cd).
  { apply length_proj. assert (i * cd + cd = S i * cd)%nat by (simpl; lia).
    assert (S i * cd <= c * cd)%nat by (apply Nat.mul_le_mono_r; lia). lia. }
  rewrite (combine_seq_l _ _ cd 0 Hgi), map_map. f_equal. apply map_ext_in.
  intros t Ht. apply in_seq in Ht. simpl. unfold adj_w, tab. apply map_ext. intros j.
  unfold proj. rewrite Nat.sub_0_r, nth_firstn_lt, nth_skipn' by lia. reflexivity.
Qed.

(** [maxpool_adj x] is the adjoint of [maxpool_gather x]. *)
Theorem mp_adj x h g : length x = (c * n)%nat -> length h = (c * n)%nat -> length g = (c * cd)%nat ->
  dot (maxpool_gather Rsc c n m x h) g = dot h (maxpool_adj Rsc c n m x g).
Proof.
  intros Hx Hh Hg. rewrite gather_tab, adj_form, dot_tab2 by auto.
  match goal with |- _ = dot h ?A =>
    transitivity (dot (concat (map (fun i => concat (map (fun t => win h i t) (seq 0 cd))) (seq 0 c))) A);
    [|rewrite concat_windows by auto; reflexivity] end.
  rewrite dot_concat_seq.
  - apply sumn_ext. intros i Hi. rewrite dot_concat_seq.
    + apply sumn_ext. intros t Ht. unfold adj_w. rewrite dot_onehot; [reflexivity|].
      apply length_win. congruence.
    + intros t Ht. unfold adj_w. rewrite length_tab. apply length_win. congruence.
  - intros i Hi. apply length_concat_seq. intros t Ht. unfold adj_w. rewrite length_tab.
    apply length_win. congruence.
Qed.

Lemma lin_gather x : length x = (c * n)%nat -> lin (c * n) (c * cd) (maxpool_gather Rsc c n m x).
Proof.
  intros Hx. apply lin_ext with (fun h => tab2 c cd (fun i t => (win h i t)@@(argmax Rsc (win x i t)))).
  { intros h Hh. symmetry. apply gather_tab; auto. }
  constructor.
  - intros v _. apply length_tab2.
  - intros h k _ _. rewrite tab2_vp. apply tab2_ext. intros i t _ _. rewrite win_vp, nth_vp. reflexivity.
  - intros a h _. rewrite tab2_vs. apply tab2_ext. intros i t _ _. rewrite win_vs, nth_vs. reflexivity.
Qed.

Lemma length_adj x g : length x = (c * n)%nat -> length g = (c * cd)%nat ->
  length (maxpool_adj Rsc c n m x g) = (c * n)%nat.
Proof.
  intros Hx Hg. rewrite adj_form by auto.
  transitivity (length (concat (map (fun i => concat (map (fun t => win x i t) (seq 0 cd))) (seq 0 c))));
    [|rewrite concat_windows; auto].
  apply length_concat_seq. intros i Hi. apply length_concat_seq. intros t Ht. unfold adj_w.
  apply length_tab.
Qed.

Lemma lin_adj x : length x = (c * n)%nat -> lin (c * cd) (c * n) (maxpool_adj Rsc c n m x).
Proof.
  intros Hx. constructor.
  - intros g Hg. apply length_adj; auto.
  - intros g k Hg Hk. apply (vec_eq_dual (c * n)).
    + apply length_adj; auto. rewrite length_vp. lia.
    + rewrite length_vp, !length_adj; auto. lia.
    + intros h Hh. rewrite <- mp_adj by (auto; rewrite length_vp; lia).
      rewrite dot_vp_r, !mp_adj by auto. rewrite dot_vp_r. reflexivity.
  - intros a g Hg. apply (vec_eq_dual (c * n)).
    + apply length_adj; auto. rewrite length_vs. lia.
    + rewrite length_vs, !length_adj; auto.
    + intros h Hh. rewrite <- mp_adj by (auto; rewrite length_vs; lia).
      rewrite dot_vs_r, mp_adj by auto. rewrite dot_vs_r. reflexivity.
Qed.

(** Near a point of [windows_strict], the argmax of every window is constant. *)
Theorem mp_near x : length x = (c * n)%nat -> windows_strict x ->
  exists d, 0 < d /\ forall h, length h = (c * n)%nat -> norm1 h < d ->
    forall i, (i < c)%nat -> forall t, (t < cd)%nat -> argmax Rsc (win (vp x h) i t) = argmax Rsc (win x i t).
Proof.
  intros Hx Hs. apply (finite_delta c (fun h => length h = (c * n)%nat)). intros i Hi.
  apply (finite_delta cd (fun h => length h = (c * n)%nat)). intros t Ht.
  destruct (windows_strict_at x Hx Hs i t Hi Ht) as [j Hj].
  destruct (strict_max_stable _ _ Hj) as [d [Hd H]]. exists d. split; auto.
  intros h Hh Hn. rewrite win_vp, !argmax_strict with (j := j); auto.
  apply H; [apply length_win; congruence|]. eapply Rle_lt_trans; [apply norm1_win|auto].
Qed.

Lemma maxpool_forms0 v : length v = (c * n)%nat -> prim_fun 0 (PMaxpool c n m) v = maxpool Rsc c n m v.
Proof.
  intros Hv. unfold prim_fun. simpl. rewrite app_nil_r. unfold proj. simpl.
  rewrite firstn_all2 by lia. reflexivity.
Qed.

Lemma maxpool_forms1 v : prim_fun 1 (PMaxpool c n m) v =
  maxpool_adj Rsc c n m (proj 0 (c * n) v) (proj (c * n) (c * cd) v).
Proof. unfold prim_fun. simpl. rewrite app_nil_r. reflexivity. Qed.

Lemma maxpool_forms2 v : prim_fun 2 (PMaxpool c n m) v =
  zeros (c * n) ++ maxpool_gather Rsc c n m (proj 0 (c * n) v) (proj (c * n + c * cd) (c * n) v).
Proof. unfold prim_fun. simpl. rewrite app_nil_r. reflexivity. Qed.

(** [rd[maxpool]] is the reverse derivative of [maxpool] at every point
    whose windows all have a strict maximum. *)
Theorem maxpool_rd0 : rd_correct_on 0 (PMaxpool c n m) windows_strict.
Proof.
  apply (rd_from_template_on 0 _ (c * n) (c * cd) (maxpool Rsc c n m)
           (fun v => maxpool_adj Rsc c n m (proj 0 (c * n) v) (proj (c * n) (c * cd) v))).
  - unfold pdom, dsum. simpl. lia.
  - unfold pcod, dsum. simpl. lia.
  - exact maxpool_forms0.
  - intros v _. apply maxpool_forms1.
  - intros x Hx Hs. exists (maxpool_gather Rsc c n m x).
    assert (E : forall y, length y = (c * cd)%nat ->
      maxpool_adj Rsc c n m (proj 0 (c * n) (x ++ y)) (proj (c * n) (c * cd) (x ++ y)) = maxpool_adj Rsc c n m x y).
    { intros y Hy. rewrite proj_app_l, proj_app_r by lia. unfold proj. simpl.
      rewrite !firstn_all2 by lia. reflexivity. }
    split; [|split].
    + apply has_deriv_loc_lin; auto.
      * intros v Hv. rewrite maxpool_tab by auto. apply length_tab2.
      * apply lin_gather; auto.
      * destruct (mp_near x Hx Hs) as [d [Hd H]]. exists d. split; auto. intros h Hh Hn.
        assert (Hl : length (vp x h) = (c * n)%nat) by (rewrite length_vp; lia).
        rewrite maxpool_tab, gather_tab by auto. apply tab2_ext. intros i t Hi Ht. rewrite H; auto.
    + intros y Hy. rewrite E by auto. apply length_adj; auto.
    + intros h y Hh Hy. rewrite E by auto. apply mp_adj; auto.
Qed.

(** [rd²[maxpool]] is the reverse derivative of [rd[maxpool]] at every
    [(x, g)] with [x] in the same set. *)
Theorem maxpool_rd1 : rd_correct_on 1 (PMaxpool c n m) (fun v => windows_strict (proj 0 (c * n) v)).
Proof.
  set (N := (c * n + c * cd)%nat).
  apply (rd_from_template_on 1 _ N (c * n)
           (fun v => maxpool_adj Rsc c n m (proj 0 (c * n) v) (proj (c * n) (c * cd) v))
           (fun v => zeros (c * n) ++ maxpool_gather Rsc c n m (proj 0 (c * n) v) (proj N (c * n) v))).
  - unfold pdom, dsum, N. simpl. lia.
  - unfold pcod, dsum. simpl. lia.
  - intros v _. apply maxpool_forms1.
  - intros v _. apply maxpool_forms2.
  - intros x Hx Hs. set (x0 := proj 0 (c * n) x).
    assert (Hx0 : length x0 = (c * n)%nat) by (apply length_proj; unfold N in Hx; lia).
    exists (fun h => maxpool_adj Rsc c n m x0 (proj (c * n) (c * cd) h)).
    assert (E : forall y, length y = (c * n)%nat ->
      zeros (c * n) ++ maxpool_gather Rsc c n m (proj 0 (c * n) (x ++ y)) (proj N (c * n) (x ++ y))
      = zeros (c * n) ++ maxpool_gather Rsc c n m x0 y).
    { intros y Hy. rewrite proj_app_l, proj_app_r by (unfold N in *; lia).
      rewrite firstn_all2 by lia. reflexivity. }
    split; [|split].
    + apply has_deriv_loc_lin; auto.
      * intros v Hv. apply length_adj; apply length_proj; unfold N in Hv; lia.
      * apply (lin_comp _ (c * cd) _ (maxpool_adj Rsc c n m x0) (proj (c * n) (c * cd)));
          [apply lin_proj; unfold N; lia|apply lin_adj; auto].
      * destruct (mp_near x0 Hx0 Hs) as [d [Hd H]]. exists d. split; auto. intros h Hh Hn.
        assert (Hh0 : length (proj 0 (c * n) h) = (c * n)%nat) by (apply length_proj; unfold N in Hh; lia).
        assert (Hg : length (proj (c * n) (c * cd) (vp x h)) = (c * cd)%nat)
          by (apply length_proj; rewrite length_vp; unfold N in *; lia).
        assert (Hp : proj 0 (c * n) (vp x h) = vp x0 (proj 0 (c * n) h))
          by (unfold x0, proj; rewrite skipn_vp, firstn_vp; reflexivity).
        assert (Hl : length (vp x0 (proj 0 (c * n) h)) = (c * n)%nat) by (rewrite length_vp; lia).
        rewrite Hp, !adj_form by auto. f_equal. apply map_ext_in. intros i Hi. apply in_seq in Hi.
        f_equal. apply map_ext_in. intros t Ht. apply in_seq in Ht. unfold adj_w.
        assert (Hn0 : norm1 (proj 0 (c * n) h) < d) by (unfold proj; eapply Rle_lt_trans;
          [apply norm1_firstn|]; eapply Rle_lt_trans; [apply norm1_skipn|exact Hn]).
        rewrite H by (auto; lia).
        rewrite (length_win (vp x0 (proj 0 (c * n) h)) x0 i t) by lia. reflexivity.
    + intros y Hy. rewrite E by auto. rewrite app_length, length_zeros, gather_tab, length_tab2 by auto.
      unfold N. lia.
    + intros h y Hh Hy. rewrite E by auto. rewrite (dot_split2 (c * n) (c * cd)) by (auto; apply length_zeros).
      assert (length (proj (c * n) (c * cd) h) = (c * cd)%nat) by (apply length_proj; unfold N in Hh; lia).
      rewrite dot_zeros_r, Rplus_0_l, (dot_comm (proj _ _ h)), mp_adj by auto. apply dot_comm.
Qed.
End maxpool.

(** ** At a tie *)
Lemma maxpool_two a b : prim_fun 0 (PMaxpool 1 2 2) [a; b] = [if Rlt_dec a b then b else a].
Proof. unfold prim_fun. simpl. destruct (Rlt_dec a b); reflexivity. Qed.

(** At a tie, [maxpool] is not differentiable: one window [[a; b]] at [a = b = 0]
    is [max(a, b)], whose partial difference quotients in [a] are 1 on the right
    and 0 on the left. *)
Lemma mp_tie_not_diff : ~ exists L, has_deriv 2 1 (prim_fun 0 (PMaxpool 1 2 2)) [0; 0] L.
Proof.
  intros [L [_ [_ [HL D]]]].
  set (l := (L [1; 0])@@0).
  assert (HLt : forall t, L [t; 0] = [t * l]).
  { intros t. replace [t; 0] with (vs t [1; 0]) by (unfold vs; simpl; rewrite Rmult_1_r, Rmult_0_r; reflexivity).
    rewrite (lin_scal _ _ _ HL) by reflexivity. pose proof (lin_len _ _ _ HL [1; 0] eq_refl) as Hl.
    unfold l. destruct (L [1; 0]) as [|y [|]]; simpl in *; try lia. unfold vs. simpl. rewrite Rmult_comm. reflexivity. }
  destruct (D (/ 4) ltac:(lra)) as [d [Hd H]].
  assert (Hp := H [d / 2; 0] eq_refl). assert (Hn := H [- (d / 2); 0] eq_refl).
  simpl in Hp, Hn. rewrite Rabs_R0, !Rplus_0_r, !Rplus_0_l in Hp, Hn.
  rewrite Rabs_pos_eq in Hp by lra. rewrite Rabs_Ropp, Rabs_pos_eq in Hn by lra.
  specialize (Hp ltac:(lra)). specialize (Hn ltac:(lra)).
  rewrite !maxpool_two, !HLt in *. unfold vm, vs in Hp, Hn. simpl in Hp, Hn.
  destruct (Rlt_dec 0 0); [lra|]. destruct (Rlt_dec (d / 2) 0); [lra|].
  destruct (Rlt_dec (- (d / 2)) 0); [|lra].
  match type of Hp with Rabs ?a + _ <= _ => pose proof (Rle_abs a) as Hp' end.
  match type of Hn with Rabs ?a + _ <= _ => pose proof (Rle_abs a) as Hn' end.
  nra.
Qed.

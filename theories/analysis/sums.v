(** * Finite sums and vectors given by a formula for their coordinates

    [tab n f] is the vector [(f 0, …, f (n−1))]; [tab2 a b h] is the
    vector of [a] blocks of [b] coordinates, [h j i] at [j·b + i] (a
    row-major [a×b] matrix, or [a] channels of length [b]).  The instance's
    list functions (rows, columns, concat) are brought to these forms in
    [prims.v]. *)
From Coq Require Import Reals Lra List Lia Bool.
From RevHandlers.Analysis Require Import vec templates.
Import ListNotations.
Open Scope R_scope.

Fixpoint sumn (n : nat) (f : nat -> R) : R :=
  match n with 0 => 0 | S n' => sumn n' f + f n' end.

Lemma sumn_ext n f g : (forall i, (i < n)%nat -> f i = g i) -> sumn n f = sumn n g.
Proof. induction n; intros H; simpl; auto. rewrite IHn, H; auto. Qed.

Lemma sumn_add n f g : sumn n (fun i => f i + g i) = sumn n f + sumn n g.
Proof. induction n; simpl; [ring|]. rewrite IHn. ring. Qed.

Lemma sumn_scal n c f : sumn n (fun i => c * f i) = c * sumn n f.
Proof. induction n; simpl; [ring|]. rewrite IHn. ring. Qed.

Lemma sumn_0 n f : (forall i, (i < n)%nat -> f i = 0) -> sumn n f = 0.
Proof. induction n; intros H; simpl; auto. rewrite IHn, H; auto. ring. Qed.

Lemma sumn_shift n f : sumn (S n) f = f 0%nat + sumn n (fun i => f (S i)).
Proof. induction n; simpl in *; [ring|]. rewrite IHn. ring. Qed.

Lemma sumn_swap n m f : sumn n (fun i => sumn m (fun j => f i j)) = sumn m (fun j => sumn n (fun i => f i j)).
Proof.
  induction n; simpl.
  - rewrite sumn_0; auto.
  - rewrite IHn, <- sumn_add. reflexivity.
Qed.

Lemma sumn_plus a b f : sumn (a + b) f = sumn a f + sumn b (fun i => f (a + i)%nat).
Proof.
  induction b; simpl.
  - rewrite Nat.add_0_r. ring.
  - rewrite Nat.add_succ_r. simpl. rewrite IHb. ring.
Qed.

Lemma sumn_mul a b f : sumn (a * b) f = sumn a (fun j => sumn b (fun i => f (j * b + i)%nat)).
Proof.
  induction a; simpl; auto.
  rewrite Nat.add_comm, sumn_plus, IHa. reflexivity.
Qed.

Lemma sumn_cut m n f : sumn m (fun t => if Nat.ltb t n then f t else 0) = sumn (Nat.min m n) f.
Proof.
  induction m; [simpl; auto|].
  replace (sumn (S m) (fun t => if Nat.ltb t n then f t else 0))
    with (sumn m (fun t => if Nat.ltb t n then f t else 0) + (if Nat.ltb m n then f m else 0))
    by reflexivity.
  rewrite IHm. destruct (Nat.ltb_spec m n).
  - replace (Nat.min (S m) n) with (S (Nat.min m n)) by lia. simpl.
    replace (Nat.min m n) with m by lia. reflexivity.
  - replace (Nat.min (S m) n) with (Nat.min m n) by lia. ring.
Qed.

Lemma dot_sumn u v : dot u v = sumn (length u) (fun i => u@@i * v@@i).
Proof.
  revert v; induction u as [|a u IH]; intros v; [reflexivity|].
  change (length (a :: u)) with (S (length u)). rewrite sumn_shift. destruct v as [|b v].
  - simpl. rewrite sumn_0; [ring|]. intros i _. destruct i; simpl; [|destruct i]; ring.
  - simpl. rewrite IH. reflexivity.
Qed.

(** ** [tab] *)
Definition tab (n : nat) (f : nat -> R) : vec := map f (seq 0 n).

Lemma length_tab n f : length (tab n f) = n.
Proof. unfold tab. rewrite map_length, seq_length. auto. Qed.

Lemma nth_tab n f k : (tab n f)@@k = if Nat.ltb k n then f k else 0.
Proof.
  unfold tab. destruct (Nat.ltb k n) eqn:E.
  - apply Nat.ltb_lt in E. rewrite nth_indep with (d' := f 0%nat) by (rewrite map_length, seq_length; auto).
    rewrite map_nth, seq_nth; auto.
  - apply Nat.ltb_ge in E. apply nth_overflow. rewrite map_length, seq_length. auto.
Qed.

Lemma nth_tab_lt n f k : (k < n)%nat -> (tab n f)@@k = f k.
Proof. intros H. rewrite nth_tab. apply Nat.ltb_lt in H. rewrite H. auto. Qed.

Lemma tab_ext n f g : (forall i, (i < n)%nat -> f i = g i) -> tab n f = tab n g.
Proof.
  intros H. unfold tab. apply map_ext_in. intros i Hi. apply in_seq in Hi. apply H. lia.
Qed.

Lemma tab_nth v : tab (length v) (fun i => v@@i) = v.
Proof. apply vec_ext; [apply length_tab|]. intros i. rewrite nth_tab. destruct (Nat.ltb_spec i (length v)); auto.
  symmetry. apply nth_overflow. auto. Qed.

Lemma nth_firstn_lt d (w : vec) i : (i < d)%nat -> (firstn d w)@@i = w@@i.
Proof.
  revert w i; induction d; intros w i H; [lia|]. destruct w; simpl; [destruct i; auto|].
  destruct i; auto. apply IHd. lia.
Qed.

Lemma nth_skipn' k (v : vec) i : (skipn k v)@@i = v@@(k + i).
Proof.
  revert v; induction k; intros v; simpl; auto. destruct v; simpl; auto. destruct i; auto.
Qed.

Lemma proj_tab k d v : (k + d <= length v)%nat -> proj k d v = tab d (fun j => v@@(k + j)).
Proof.
  intros H. apply vec_ext; [rewrite length_proj, length_tab; lia|]. intros i.
  rewrite nth_tab. unfold proj. destruct (Nat.ltb_spec i d).
  - rewrite nth_firstn_lt, nth_skipn' by auto. reflexivity.
  - apply nth_overflow. rewrite firstn_length. lia.
Qed.

Lemma dot_tab n f v : dot (tab n f) v = sumn n (fun i => f i * v@@i).
Proof. rewrite dot_sumn, length_tab. apply sumn_ext. intros i Hi. rewrite nth_tab_lt; auto. Qed.

(** ** [tab2]: blocks *)
Definition tab2 (a b : nat) (h : nat -> nat -> R) : vec := concat (map (fun j => tab b (h j)) (seq 0 a)).

Lemma tab2_S a b h : tab2 (S a) b h = tab b (h 0%nat) ++ tab2 a b (fun j => h (S j)).
Proof. unfold tab2. simpl. f_equal. rewrite <- seq_shift, map_map. reflexivity. Qed.

Lemma length_tab2 a b h : length (tab2 a b h) = (a * b)%nat.
Proof.
  revert h; induction a; intros h; [reflexivity|]. rewrite tab2_S, app_length, length_tab, IHa. simpl. lia.
Qed.

Lemma nth_tab2 a b h j i : (j < a)%nat -> (i < b)%nat -> (tab2 a b h)@@(j * b + i) = h j i.
Proof.
  revert h j; induction a; intros h j Hj Hi; [lia|]. rewrite tab2_S. destruct j as [|j].
  - simpl. rewrite nth_app_lt by (rewrite length_tab; lia). apply nth_tab_lt. auto.
  - rewrite nth_app_ge by (rewrite length_tab; simpl; lia). rewrite length_tab.
    replace (S j * b + i - b)%nat with (j * b + i)%nat by (simpl; lia). apply (IHa (fun j => h (S j))); lia.
Qed.

Lemma tab2_ext a b h h' : (forall j i, (j < a)%nat -> (i < b)%nat -> h j i = h' j i) -> tab2 a b h = tab2 a b h'.
Proof.
  unfold tab2. intros H. f_equal. apply map_ext_in. intros j Hj. apply in_seq in Hj.
  apply tab_ext. intros i Hi. apply H; lia.
Qed.

(** The coordinates of a vector of length [a·b], block by block. *)
Lemma dot_blocks a b u v : length u = (a * b)%nat ->
  dot u v = sumn a (fun j => sumn b (fun i => u@@(j * b + i) * v@@(j * b + i))).
Proof. intros H. rewrite dot_sumn, H, sumn_mul. reflexivity. Qed.

Lemma dot_tab2 a b h v :
  dot (tab2 a b h) v = sumn a (fun j => sumn b (fun i => h j i * v@@(j * b + i))).
Proof.
  rewrite (dot_blocks a b) by apply length_tab2. apply sumn_ext. intros j Hj. apply sumn_ext.
  intros i Hi. rewrite nth_tab2; auto.
Qed.

Lemma tab_vp n f g : vp (tab n f) (tab n g) = tab n (fun i => f i + g i).
Proof. unfold tab. generalize 0%nat. induction n; intros s; simpl; auto. f_equal. apply IHn. Qed.

Lemma tab_vs c n f : vs c (tab n f) = tab n (fun i => c * f i).
Proof. unfold tab, vs. rewrite map_map. reflexivity. Qed.

Lemma tab2_vp a b h h' : vp (tab2 a b h) (tab2 a b h') = tab2 a b (fun j i => h j i + h' j i).
Proof.
  revert h h'; induction a; intros h h'; [reflexivity|]. rewrite !tab2_S.
  rewrite vp_app by (rewrite !length_tab; auto). rewrite IHa, tab_vp. reflexivity.
Qed.

Lemma tab2_vs c a b h : vs c (tab2 a b h) = tab2 a b (fun j i => c * h j i).
Proof. unfold tab2, vs, tab. rewrite concat_map, map_map. f_equal. apply map_ext. intros j. rewrite map_map. reflexivity. Qed.


Lemma sumn_mul_r n f c : sumn n f * c = sumn n (fun i => f i * c).
Proof. induction n; simpl; [ring|]. rewrite <- IHn. ring. Qed.

(** Maps whose coordinates are linear combinations of the argument's are linear. *)
Lemma lin_tab2_sum N a b s (c : nat -> nat -> nat -> R) (φ : nat -> nat -> nat -> nat) :
  lin N (a * b) (fun A => tab2 a b (fun j i => sumn s (fun l => c j i l * A@@(φ j i l)))).
Proof.
  constructor.
  - intros v _. apply length_tab2.
  - intros h k _ _. rewrite tab2_vp. apply tab2_ext. intros j i _ _. rewrite <- sumn_add.
    apply sumn_ext. intros l _. rewrite nth_vp. ring.
  - intros e h _. rewrite tab2_vs. apply tab2_ext. intros j i _ _. rewrite <- sumn_scal.
    apply sumn_ext. intros l _. rewrite nth_vs. ring.
Qed.

Lemma fold_right_Rplus_acc l c : fold_right Rplus c l = fold_right Rplus 0 l + c.
Proof. induction l; simpl; [ring|]. rewrite IHl. ring. Qed.

Lemma sumn_seq n f : fold_right Rplus 0 (map f (seq 0 n)) = sumn n f.
Proof.
  induction n; [reflexivity|]. rewrite seq_S, map_app, fold_right_app. simpl.
  rewrite fold_right_Rplus_acc, IHn. ring.
Qed.

Lemma sumn_single n j f : sumn n (fun i => if Nat.eqb j i then f i else 0) = if Nat.ltb j n then f j else 0.
Proof.
  induction n; simpl; [reflexivity|]. rewrite IHn.
  destruct (Nat.eqb_spec j n), (Nat.ltb_spec j n), (Nat.ltb_spec j (S n)); subst; try lia; ring.
Qed.

Lemma lin_tab2_sum2 N a b s1 s2 (c : nat -> nat -> nat -> nat -> R) (φ : nat -> nat -> nat -> nat -> nat) :
  lin N (a * b) (fun A => tab2 a b (fun j i => sumn s1 (fun l1 => sumn s2 (fun l2 =>
                                      c j i l1 l2 * A@@(φ j i l1 l2))))).
Proof.
  constructor.
  - intros v _. apply length_tab2.
  - intros h k _ _. rewrite tab2_vp. apply tab2_ext. intros j i _ _. rewrite <- sumn_add.
    apply sumn_ext. intros l1 _. rewrite <- sumn_add. apply sumn_ext. intros l2 _. rewrite nth_vp. ring.
  - intros e h _. rewrite tab2_vs. apply tab2_ext. intros j i _ _. rewrite <- sumn_scal.
    apply sumn_ext. intros l1 _. rewrite <- sumn_scal. apply sumn_ext. intros l2 _. rewrite nth_vs. ring.
Qed.

Lemma tab2_flat a b h : (0 < b)%nat -> tab2 a b h = tab (a * b) (fun r => h (r / b) (r mod b))%nat.
Proof.
  intros Hb. apply vec_ext; [rewrite length_tab2, length_tab; auto|]. intros r.
  rewrite nth_tab. destruct (Nat.ltb_spec r (a * b)).
  - rewrite (Nat.div_mod_eq r b) at 1. rewrite Nat.mul_comm. apply nth_tab2.
    + apply Nat.div_lt_upper_bound; lia.
    + apply Nat.mod_upper_bound. lia.
  - apply nth_overflow. rewrite length_tab2. lia.
Qed.

Lemma sumn_divmod a b f : (0 < b)%nat ->
  sumn (a * b) (fun r => f (r / b) (r mod b))%nat = sumn a (fun j => sumn b (fun i => f j i)).
Proof.
  intros Hb. rewrite sumn_mul. apply sumn_ext. intros j Hj. apply sumn_ext. intros i Hi.
  f_equal.
  - rewrite Nat.div_add_l by lia. rewrite Nat.div_small by lia. lia.
  - rewrite Nat.add_comm, Nat.mod_add by lia. apply Nat.mod_small. lia.
Qed.

Lemma sumn_reindex n L j f : (j + L <= n)%nat ->
  sumn n (fun s => if Nat.leb j s && Nat.ltb (s - j) L then f (s - j)%nat else 0) = sumn L f.
Proof.
  intros H. replace n with (j + (n - j))%nat at 1 by lia. rewrite sumn_plus.
  rewrite sumn_0.
  2: { intros s Hs. destruct (Nat.leb_spec j s); [lia|]. reflexivity. }
  rewrite Rplus_0_l.
  transitivity (sumn (n - j) (fun t => if Nat.ltb t L then f t else 0)).
  - apply sumn_ext. intros t Ht. destruct (Nat.leb_spec j (j + t)); [|lia]. simpl.
    replace (j + t - j)%nat with t by lia. reflexivity.
  - rewrite sumn_cut. f_equal. lia.
Qed.

Lemma sumn_swap3 a b d f : sumn a (fun o => sumn b (fun j => sumn d (fun s => f o j s))) =
  sumn d (fun s => sumn a (fun o => sumn b (fun j => f o j s))).
Proof.
  transitivity (sumn a (fun o => sumn d (fun s => sumn b (fun j => f o j s)))).
  - apply sumn_ext. intros. apply sumn_swap.
  - apply sumn_swap.
Qed.

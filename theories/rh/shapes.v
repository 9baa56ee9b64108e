(** * Shapes: the vector operations return the lengths their types give

    A constant [(n, v)] of the executable instance is typed [Real(n)] by its
    declared dimension [n]; nothing in typing says that [v] has [n] entries.
    [Ev] ([exec_ev], instance.v) checks the lengths of its argument's leaves
    and answers only on a well-shaped argument ([exec_ev_total],
    ev_total.v), so a run must keep every constant at its declared length.
    Constants enter a run four ways: written in the program, read from the
    heap, made by the monoid of the signature ([czero], [cadd]) and returned
    by [Ev].  The first two are hypotheses on the start (the reader keeps
    the lengths, [read_program_consts]); the last two are a property of the
    vector model: every vector operation returns a vector of the length the
    primitive's type gives, when its arguments have the lengths the type
    gives.  That is [vec_shapes], a hypothesis on a [vec_ops], proved here
    for the list model the extraction is tested against
    ([list_vec_shapes]).

    From it: [Ev] returns a value whose constants have their declared
    lengths ([exec_ev_fits]), and [czero] and [cadd] make such constants
    ([czero_fits], [cadd_fits]).  That every step keeps them is proved in
    [never_stuck.v] ([step_conf_inv], [exec_step_conf_consts_fit]). *)
From RevHandlers Require Import prelude signature syntax typing rdcore instance.

Section shapes.
Context {Vec : Type} (vo : vec_ops Vec).

Local Notation len := (v_len vo).

(** ** The hypothesis on the vector model *)

(** Every vector operation, on arguments of the lengths the primitive's
    type gives, returns a vector of the length the type gives. *)
Record vec_shapes : Prop := {
  vs_zero n : len (v_zero vo n) = n;
  vs_czero n : len (v_czero vo n) = n;
  vs_add u v : len u = len v -> len (v_add vo u v) = len u;
  vs_sub u v : len u = len v -> len (v_sub vo u v) = len u;
  vs_mul u v : len u = len v -> len (v_mul vo u v) = len u;
  vs_neg u : len (v_neg vo u) = len u;
  vs_scale a v : len a = 1 -> len (v_scale vo a v) = len v;
  vs_dot u v : len u = len v -> len (v_dot vo u v) = 1;
  vs_swish v : len (v_swish vo v) = len v;
  vs_swish1 v : len (v_swish1 vo v) = len v;
  vs_swish2 v : len (v_swish2 vo v) = len v;
  vs_round v : len (v_round vo v) = len v;
  vs_relu v : len (v_relu vo v) = len v;
  vs_relu1 v : len (v_relu1 vo v) = len v;
  vs_sigmoid v : len (v_sigmoid vo v) = len v;
  vs_sigmoid1 v : len (v_sigmoid1 vo v) = len v;
  vs_sigmoid2 v : len (v_sigmoid2 vo v) = len v;
  vs_tanh v : len (v_tanh vo v) = len v;
  vs_tanh1 v : len (v_tanh1 vo v) = len v;
  vs_tanh2 v : len (v_tanh2 vo v) = len v;
  vs_exp v : len (v_exp vo v) = len v;
  vs_log v : len (v_log vo v) = len v;
  vs_log1 v : len (v_log1 vo v) = len v;
  vs_log2 v : len (v_log2 vo v) = len v;
  vs_sum v : len (v_sum vo v) = 1;
  vs_bcast n a : len a = 1 -> len (v_bcast vo n a) = n;
  vs_softmax v : len (v_softmax vo v) = len v;
  vs_lse v : len (v_lse vo v) = 1;
  vs_matmul m n k A B : len A = m * n -> len B = n * k -> len (v_matmul vo m n k A B) = m * k;
  vs_transpose m n A : len A = m * n -> len (v_transpose vo m n A) = n * m;
  vs_pad c n m x : len x = c * n -> len (v_pad vo c n m x) = c * m;
  vs_upscale c n m x : 0 < m -> len x = c * n -> len (v_upscale vo c n m x) = c * m;
  vs_upscale_adj c n m g : 0 < m -> len g = c * m -> len (v_upscale_adj vo c n m g) = c * n;
  vs_conv1d c c' n m K x : 0 < m -> m <= n -> len K = c' * c * m -> len x = c * n ->
    len (v_conv1d vo c c' n m K x) = c' * (n - m + 1);
  vs_conv1d_dK c c' n m g x : 0 < m -> m <= n -> len g = c' * (n - m + 1) -> len x = c * n ->
    len (v_conv1d_dK vo c c' n m g x) = c' * c * m;
  vs_conv1d_dx c c' n m K g : 0 < m -> m <= n -> len K = c' * c * m -> len g = c' * (n - m + 1) ->
    len (v_conv1d_dx vo c c' n m K g) = c * n;
  vs_maxpool c n m x : 0 < m -> len x = c * n -> len (v_maxpool vo c n m x) = c * ceil_div n m;
  vs_maxpool_adj c n m x g : 0 < m -> len x = c * n -> len g = c * ceil_div n m ->
    len (v_maxpool_adj vo c n m x g) = c * n;
  vs_maxpool_gather c n m x y : 0 < m -> len x = c * n -> len y = c * n ->
    len (v_maxpool_gather vo c n m x y) = c * ceil_div n m;
  vs_append u v : len (v_append vo u v) = len u + len v;
  vs_firstn k v : k <= len v -> len (v_firstn vo k v) = k;
  vs_skipn k v : len (v_skipn vo k v) = len v - k;
}.

(** A vector of [n] entries for every dimension [n]. *)
Definition fit_dims (ns : list nat) (xs : list Vec) : Prop := Forall2 (fun n x => len x = n) ns xs.

(** A constant has the length it declares. *)
Definition const_fits (c : nat * Vec) : Prop := len (snd c) = fst c.

Ltac shp HS :=
  repeat match goal with
  | |- context [len (v_zero vo ?n)] => rewrite (vs_zero HS n)
  | |- context [len (v_czero vo ?n)] => rewrite (vs_czero HS n)
  | |- context [len (v_add vo ?u ?v)] => rewrite (vs_add HS u v) by shp HS
  | |- context [len (v_sub vo ?u ?v)] => rewrite (vs_sub HS u v) by shp HS
  | |- context [len (v_mul vo ?u ?v)] => rewrite (vs_mul HS u v) by shp HS
  | |- context [len (v_neg vo ?u)] => rewrite (vs_neg HS u)
  | |- context [len (v_scale vo ?a ?v)] => rewrite (vs_scale HS a v) by shp HS
  | |- context [len (v_dot vo ?u ?v)] => rewrite (vs_dot HS u v) by shp HS
  | |- context [len (v_swish vo ?v)] => rewrite (vs_swish HS v)
  | |- context [len (v_swish1 vo ?v)] => rewrite (vs_swish1 HS v)
  | |- context [len (v_swish2 vo ?v)] => rewrite (vs_swish2 HS v)
  | |- context [len (v_round vo ?v)] => rewrite (vs_round HS v)
  | |- context [len (v_relu vo ?v)] => rewrite (vs_relu HS v)
  | |- context [len (v_relu1 vo ?v)] => rewrite (vs_relu1 HS v)
  | |- context [len (v_sigmoid vo ?v)] => rewrite (vs_sigmoid HS v)
  | |- context [len (v_sigmoid1 vo ?v)] => rewrite (vs_sigmoid1 HS v)
  | |- context [len (v_sigmoid2 vo ?v)] => rewrite (vs_sigmoid2 HS v)
  | |- context [len (v_tanh vo ?v)] => rewrite (vs_tanh HS v)
  | |- context [len (v_tanh1 vo ?v)] => rewrite (vs_tanh1 HS v)
  | |- context [len (v_tanh2 vo ?v)] => rewrite (vs_tanh2 HS v)
  | |- context [len (v_exp vo ?v)] => rewrite (vs_exp HS v)
  | |- context [len (v_log vo ?v)] => rewrite (vs_log HS v)
  | |- context [len (v_log1 vo ?v)] => rewrite (vs_log1 HS v)
  | |- context [len (v_log2 vo ?v)] => rewrite (vs_log2 HS v)
  | |- context [len (v_sum vo ?v)] => rewrite (vs_sum HS v)
  | |- context [len (v_bcast vo ?n ?a)] => rewrite (vs_bcast HS n a) by shp HS
  | |- context [len (v_softmax vo ?v)] => rewrite (vs_softmax HS v)
  | |- context [len (v_lse vo ?v)] => rewrite (vs_lse HS v)
  | |- context [len (v_matmul vo ?m ?n ?k ?A ?B)] => rewrite (vs_matmul HS m n k A B) by shp HS
  | |- context [len (v_transpose vo ?m ?n ?A)] => rewrite (vs_transpose HS m n A) by shp HS
  | |- context [len (v_pad vo ?c ?n ?m ?x)] => rewrite (vs_pad HS c n m x) by shp HS
  | |- context [len (v_upscale vo ?c ?n ?m ?x)] => rewrite (vs_upscale HS c n m x) by shp HS
  | |- context [len (v_upscale_adj vo ?c ?n ?m ?x)] => rewrite (vs_upscale_adj HS c n m x) by shp HS
  | |- context [len (v_conv1d vo ?c ?c' ?n ?m ?K ?x)] => rewrite (vs_conv1d HS c c' n m K x) by shp HS
  | |- context [len (v_conv1d_dK vo ?c ?c' ?n ?m ?K ?x)] => rewrite (vs_conv1d_dK HS c c' n m K x) by shp HS
  | |- context [len (v_conv1d_dx vo ?c ?c' ?n ?m ?K ?x)] => rewrite (vs_conv1d_dx HS c c' n m K x) by shp HS
  | |- context [len (v_maxpool vo ?c ?n ?m ?x)] => rewrite (vs_maxpool HS c n m x) by shp HS
  | |- context [len (v_maxpool_adj vo ?c ?n ?m ?x ?y)] => rewrite (vs_maxpool_adj HS c n m x y) by shp HS
  | |- context [len (v_maxpool_gather vo ?c ?n ?m ?x ?y)] => rewrite (vs_maxpool_gather HS c n m x y) by shp HS
  | |- context [len (v_append vo ?u ?v)] => rewrite (vs_append HS u v)
  | |- context [len (v_firstn vo ?k ?v)] => rewrite (vs_firstn HS k v) by shp HS
  | |- context [len (v_skipn vo ?k ?v)] => rewrite (vs_skipn HS k v)
  end; try nia.

(** The outputs of [rd^k[p]], [k ≤ 2], have the dimensions of its
    codomain when its inputs have those of its domain. *)
Lemma eval_prim_fits (HS : vec_shapes) k p xs outs :
  k <= 2 -> prim_ok p = true -> fit_dims (@ty_dims Vec (@fdom Vec k p)) xs ->
  eval_prim vo k p xs = Some outs -> fit_dims (@ty_dims Vec (@fcod Vec k p)) outs.
Proof.
  intros Hk Hok Hxs He. unfold fit_dims in *.
  destruct k as [|[|[|k]]]; [| | |lia];
    destruct p; unfold prim_ok in Hok;
    rewrite ?andb_true_iff, ?Nat.ltb_lt, ?Nat.leb_le in Hok; cbn in Hxs;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat match goal with H : Forall2 _ (_ :: _) _ |- _ => inversion H; subst; clear H end;
    repeat match goal with H : Forall2 _ [] _ |- _ => inversion H; subst; clear H end;
    cbn in He; unfold bilinear, linear, pointwise, eval_sce, sce_r in He;
    injection He as <-; cbn;
    repeat constructor; shp HS.
Qed.

(** [encode A xs] uses the leading vectors of [xs], one per dimension of
    [A], and leaves the rest. *)
Lemma encode_fits (HS : vec_shapes) A : forall xs ds,
  fit_dims (@ty_dims Vec A ++ ds) xs ->
  Forall const_fits (@leaves Vec (fst (encode vo A xs))) /\ fit_dims ds (snd (encode vo A xs)).
Proof.
  induction A as [n|As IH] using ty_ind'; intros xs ds Hxs.
  - cbn in Hxs. destruct xs as [|x xs']; [inversion Hxs|].
    inversion Hxs as [|? ? ? ? Hx Hxs']; subst xs'. cbn.
    split; [constructor; [exact Hx|constructor]|exact Hxs'].
  - cbn [encode].
    assert (Hgo : forall xs ds,
      fit_dims (concat (map (@ty_dims Vec) As) ++ ds) xs ->
      let r := (fix go (As : list ty) (xs : list Vec) : list tm * list Vec :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode vo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs in
      Forall const_fits (concat (map (@leaves Vec) (fst r))) /\ fit_dims ds (snd r)).
    { clear xs ds Hxs. induction IH as [|A As HA HAs IHl]; intros xs ds Hxs; cbn.
      - split; [constructor|exact Hxs].
      - cbn in Hxs. rewrite <- app_assoc in Hxs.
        destruct (HA xs _ Hxs) as [HV Hxs1].
        destruct (encode vo A xs) as [V xs1] eqn:HVe. cbn in HV, Hxs1.
        destruct (IHl xs1 ds Hxs1) as [HVs Hxs2].
        destruct ((fix go (As : list ty) (xs : list Vec) : list tm * list Vec :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode vo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs1) as [Vs xs2]. cbn in *.
        split; [apply Forall_app; split; assumption|exact Hxs2]. }
    cbn in Hxs. specialize (Hgo xs ds Hxs). cbn in Hgo.
    destruct ((fix go (As : list ty) (xs : list Vec) : list tm * list Vec :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode vo A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs) as [Vs rest]. exact Hgo.
Qed.

Lemma leaves_fit_dims ds ls :
  leaves_fit vo ds ls = true -> fit_dims ds (map snd ls) /\ Forall const_fits ls.
Proof.
  unfold leaves_fit. rewrite andb_true_iff, Nat.eqb_eq, forallb_forall.
  intros [Hlen Hall]. revert ls Hlen Hall.
  induction ds as [|d ds IH]; intros [|[n v] ls] Hlen Hall; cbn in Hlen; try discriminate.
  - split; constructor.
  - injection Hlen as Hlen.
    destruct (IH ls Hlen (fun x Hx => Hall x (or_intror Hx))) as [H1 H2].
    specialize (Hall (d, (n, v)) (or_introl eq_refl)). cbn in Hall.
    rewrite andb_true_iff, !Nat.eqb_eq in Hall. destruct Hall as [-> Hv].
    split; constructor; try assumption; unfold const_fits; cbn; congruence.
Qed.

Lemma dims_fitb_fit ds xs : dims_fitb vo ds xs = true -> fit_dims ds xs.
Proof.
  unfold dims_fitb. rewrite andb_true_iff, Nat.eqb_eq, forallb_forall. intros [Hl Hall].
  revert xs Hl Hall. induction ds as [|d ds IH]; intros [|x xs] Hl Hall; cbn in Hl;
    try discriminate; constructor.
  - specialize (Hall (d, x) (or_introl eq_refl)). cbn in Hall. apply Nat.eqb_eq in Hall. auto.
  - apply IH; [lia|]. intros y Hy. apply Hall. right. exact Hy.
Qed.

Lemma fit_dims_dims_fitb ds xs : fit_dims ds xs -> dims_fitb vo ds xs = true.
Proof.
  unfold dims_fitb. intros H. rewrite (Forall2_length' _ _ _ H), Nat.eqb_refl. cbn.
  apply forallb_forall. induction H as [|d x ds xs Hx H IH]; [intros ? []|].
  intros y [<-|Hy]; [cbn; rewrite Hx, Nat.eqb_refl; reflexivity|auto].
Qed.

(** The core's answers have the lengths it checks. *)
Lemma eval_core_fits P ds xs outs : eval_core vo P ds xs = Some outs -> fit_dims ds outs.
Proof.
  unfold eval_core. destruct (Nat.eqb (length (cp_dims P)) (length xs)); [|discriminate].
  destruct (dims_fitb vo ds (eval_cprog (cop_eval vo) (v_zero vo 0) P xs)) eqn:E; [|discriminate].
  intros [=<-]. apply dims_fitb_fit, E.
Qed.

(** Beyond [rd²], [Ev]'s outputs have the lengths it checks. *)
Lemma eval_prim_fits_core k p xs outs :
  3 <= k -> eval_prim vo k p xs = Some outs -> fit_dims (@ty_dims Vec (@fcod Vec k p)) outs.
Proof. intros Hk He. rewrite (eval_prim_core vo k p xs Hk) in He. exact (eval_core_fits _ _ _ _ He). Qed.

(** [Ev] answers a value whose constants have their declared lengths. *)
Lemma exec_ev_fits (HS : vec_shapes) f V V' :
  exec_ev vo f V = Some V' -> Forall const_fits (@leaves Vec V').
Proof.
  destruct f as [k p]. unfold exec_ev.
  destruct (prim_ok p) eqn:Hok; [|discriminate].
  destruct (leaves_fit vo _ _) eqn:Hfit; [|discriminate]. cbn [andb].
  destruct (eval_prim vo k p _) as [outs|] eqn:He; [|discriminate].
  intros [=<-]. apply leaves_fit_dims in Hfit as [Hxs _].
  destruct (Nat.le_gt_cases k 2) as [Hk|Hk].
  - pose proof (eval_prim_fits HS k p _ _ Hk Hok Hxs He) as Houts.
    refine (proj1 (encode_fits HS _ outs [] _)). rewrite app_nil_r. exact Houts.
  - pose proof (eval_prim_fits_core k p _ _ ltac:(lia) He) as Houts.
    refine (proj1 (encode_fits HS _ outs [] _)). rewrite app_nil_r. exact Houts.
Qed.

(** The monoid of the constants keeps the lengths. *)
Lemma czero_fits (HS : vec_shapes) n : const_fits (n, v_czero vo n).
Proof. apply (vs_czero HS). Qed.

Lemma cadd_fits (HS : vec_shapes) c1 c2 :
  const_fits c1 -> const_fits c2 -> fst c1 = fst c2 -> const_fits (fst c1, v_add vo (snd c1) (snd c2)).
Proof. unfold const_fits. cbn. intros H1 H2 H. rewrite (vs_add HS); congruence. Qed.

End shapes.

(** ** The list model keeps the shapes *)
Section list_shapes.
Context {R : Type} (sc : scalar_ops R).

Lemma length_concat_map_const {X Y} (f : X -> list Y) (l : list X) k :
  (forall x, In x l -> length (f x) = k) -> length (concat (map f l)) = length l * k.
Proof.
  induction l as [|x l IH]; intros Hf; [reflexivity|]. cbn.
  rewrite app_length, (Hf x (or_introl eq_refl)), IH by (intros; apply Hf; right; assumption). lia.
Qed.

Lemma rows_length r n (l : list R) : length (rows r n l) = r.
Proof. unfold rows. rewrite map_length, seq_length. reflexivity. Qed.

Lemma rows_in r n (l x : list R) : length l = r * n -> In x (rows r n l) -> length x = n.
Proof.
  unfold rows. intros Hl Hx. apply in_map_iff in Hx as [i [<- Hi]]. apply in_seq in Hi.
  rewrite firstn_length, skipn_length. nia.
Qed.

Lemma vmap2_length f (u v : list R) : length u = length v -> length (vmap2 f u v) = length u.
Proof. intros H. unfold vmap2. rewrite map_length, combine_length. lia. Qed.

Lemma tabulate_length' n (f : nat -> R) : length (tabulate n f) = n.
Proof. unfold tabulate. rewrite map_length, seq_length. reflexivity. Qed.

Lemma chunks_aux_spec m fuel (l : list R) :
  0 < m -> length l <= fuel ->
  length (chunks_aux fuel m l) = ceil_div (length l) m /\ concat (chunks_aux fuel m l) = l.
Proof.
  intros Hm. unfold ceil_div. revert l. induction fuel as [|fuel IH]; intros l Hl.
  - destruct l; cbn in Hl; [|lia]. cbn. rewrite Nat.div_small by lia. auto.
  - destruct l as [|a l']; [cbn; rewrite Nat.div_small by lia; auto|].
    cbn [chunks_aux]. set (l := a :: l') in *.
    assert (Hl' : length l = S (length l')) by reflexivity.
    assert (Hs : length (skipn m l) <= fuel) by (rewrite skipn_length; lia).
    destruct (IH _ Hs) as [H1 H2]. cbn [length concat]. rewrite H1, H2, firstn_skipn.
    split; [|reflexivity]. rewrite skipn_length.
    assert (Hpos : 0 < length l) by lia.
    destruct (Nat.le_gt_cases (length l) m) as [Hle'|Hgt].
    + replace (length l - m) with 0 by lia. rewrite Nat.div_small by lia.
      apply (Nat.div_unique _ _ 1 (length l - 1)); lia.
    + replace (length l + m - 1) with ((length l - m + m - 1) + 1 * m) by lia.
      rewrite Nat.div_add by lia. lia.
Qed.

Lemma chunks_spec m (l : list R) :
  0 < m -> length (chunks m l) = ceil_div (length l) m /\ concat (chunks m l) = l.
Proof. intros Hm. unfold chunks. destruct m; [lia|]. apply chunks_aux_spec; lia. Qed.

Lemma map_fst_combine {X Y} (a : list X) (b : list Y) :
  length a <= length b -> map fst (combine a b) = a.
Proof.
  revert b. induction a as [|x a IH]; intros [|y b] H; cbn in *; try reflexivity; try lia.
  f_equal. apply IH. lia.
Qed.

Lemma length_concat_map_seq_fst {Y} (h : list R * Y -> nat -> R) (L : list (list R * Y)) :
  length (concat (map (fun wg => map (h wg) (seq 0 (length (fst wg)))) L)) = length (concat (map fst L)).
Proof.
  induction L as [|wg L IH]; [reflexivity|]. cbn. rewrite !app_length, map_length, seq_length, IH. reflexivity.
Qed.

(** The list model satisfies [vec_shapes]. *)
Lemma list_vec_shapes : vec_shapes (list_vec_ops sc).
Proof.
  constructor; cbn; intros;
    unfold vzero, vczero, vadd, vsub, vmul, vneg, vscale, softmax, shifted_exp, matmul, transpose, columns,
      pad, upscale, upscale_adj, conv1d, conv1d_dK, conv1d_dx, maxpool, maxpool_gather in *;
    rewrite ?repeat_length, ?vmap2_length, ?map_length, ?app_length, ?firstn_length, ?skipn_length;
    try solve [reflexivity | assumption | lia].
  (* upscale, upscale_adj, conv1d: a row of a fixed length for each row *)
  all: try solve [erewrite length_concat_map_const; [rewrite rows_length; reflexivity|];
                  intros row0 _; apply tabulate_length'].
  - (* matmul *)
    erewrite length_concat_map_const; [rewrite rows_length; reflexivity|].
    intros row0 _. rewrite map_length, map_length, seq_length. reflexivity.
  - (* transpose *)
    erewrite length_concat_map_const; [rewrite seq_length; reflexivity|].
    intros row0 _. rewrite map_length, rows_length. reflexivity.
  - (* pad *)
    erewrite length_concat_map_const; [rewrite rows_length; reflexivity|].
    intros row0 Hx. unfold resize, vzero. rewrite app_length, firstn_length, repeat_length.
    rewrite (rows_in _ _ _ _ H Hx). lia.
  - (* conv1d_dK *)
    erewrite length_concat_map_const; [rewrite rows_length; rewrite Nat.mul_assoc; reflexivity|].
    intros row0 _. erewrite length_concat_map_const; [rewrite rows_length; reflexivity|].
    intros row1 _. apply tabulate_length'.
  - (* conv1d_dx *)
    erewrite length_concat_map_const; [rewrite seq_length; reflexivity|].
    intros row0 _. apply tabulate_length'.
  - (* maxpool *)
    erewrite length_concat_map_const; [rewrite rows_length; reflexivity|].
    intros row0 Hx. rewrite map_length. rewrite (proj1 (chunks_spec m row0 H)).
    rewrite (rows_in _ _ _ _ H0 Hx). reflexivity.
  - (* maxpool_adj *)
    unfold maxpool_adj.
    erewrite length_concat_map_const;
      [rewrite combine_length, !rows_length, Nat.min_id; reflexivity|].
    intros [xr gr] Hp. rewrite length_concat_map_seq_fst.
    pose proof (in_combine_l _ _ _ _ Hp) as Hx. pose proof (in_combine_r _ _ _ _ Hp) as Hg.
    cbn [fst snd] in *.
    apply (rows_in _ _ _ _ H0) in Hx. apply (rows_in _ _ _ _ H1) in Hg.
    destruct (chunks_spec m xr H) as [Hc Hcat].
    rewrite map_fst_combine by (rewrite Hc, Hg, Hx; reflexivity). rewrite Hcat. exact Hx.
  - (* maxpool_gather *)
    erewrite length_concat_map_const;
      [rewrite combine_length, !rows_length, Nat.min_id; reflexivity|].
    intros [xr yr] Hp. rewrite map_length, combine_length.
    pose proof (in_combine_l _ _ _ _ Hp) as Hx. pose proof (in_combine_r _ _ _ _ Hp) as Hy.
    cbn [fst snd] in *.
    apply (rows_in _ _ _ _ H0) in Hx. apply (rows_in _ _ _ _ H1) in Hy.
    rewrite (proj1 (chunks_spec m xr H)), (proj1 (chunks_spec m yr H)), Hx, Hy. apply Nat.min_id.
Qed.

End list_shapes.

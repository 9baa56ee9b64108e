(** * [prune] keeps the dimension judgment

    [prune] (rdcore.v) keeps the instructions the outputs depend on and
    renumbers the variables.  On a judged program ([wd_prog], core_dims.v)
    it returns a judged program with the same inputs and the same output
    lengths ([prune_wd]).  With [rd_prog_wd] this is [rd_core_wd_step]
    ([rd_core_wd]), so [core_prog k p] is judged at every [k] and [Ev] of
    [rd^k[p]] answers on every well-shaped argument at every order, with
    no hypothesis ([exec_ev_total_all]).

    The proof, in three parts:
    - the live marks are closed under reading: a live instruction's
      arguments are live ([mark_closed]).  This needs the judgment: an
      instruction reads only earlier variables, so the marks an
      instruction sets are never set after it has been visited;
    - the new index of a variable counts the live instructions before it
      ([idxs], [prune_newidx_S]);
    - walking the body in order, every live variable's new index holds a
      variable of the same length in the pruned body
      ([prune_body_ok]). *)
From RevHandlers Require Import prelude signature syntax typing rdcore instance shapes ev_total core_dims.

(** ** Setting marks *)

Definition set_all (args : list nat) (live : list bool) : list bool :=
  fold_left (fun l a => upd l a true) args live.

Lemma set_all_length args : forall live, length (set_all args live) = length live.
Proof.
  unfold set_all. induction args as [|a args IH]; intros live; [reflexivity|].
  cbn [fold_left]. rewrite IH. apply upd_length.
Qed.

Lemma set_all_mono args : forall live i, nth i live false = true -> nth i (set_all args live) false = true.
Proof.
  unfold set_all. induction args as [|a args IH]; intros live i Hi; [exact Hi|].
  cbn [fold_left]. apply IH. destruct (Nat.eq_dec i a) as [->|Hne].
  - destruct (Nat.lt_ge_cases a (length live)) as [Ha|Ha]; [apply nth_upd_eq, Ha|].
    rewrite nth_overflow in Hi by exact Ha. discriminate.
  - rewrite nth_upd_ne by exact Hne. exact Hi.
Qed.

Lemma set_all_set args : forall live,
  Forall (fun a => a < length live) args -> Forall (fun a => nth a (set_all args live) false = true) args.
Proof.
  unfold set_all. induction args as [|a args IH]; intros live Ha; [constructor|].
  inversion Ha as [|a' args' Ha0 Has]; subst. cbn [fold_left]. constructor.
  - apply set_all_mono. apply nth_upd_eq, Ha0.
  - apply IH. rewrite upd_length. exact Has.
Qed.

(** [set_all] sets the arguments' marks and no other. *)
Lemma set_all_other args : forall live i,
  Forall (fun a => a <> i) args -> nth i (set_all args live) false = nth i live false.
Proof.
  unfold set_all. induction args as [|a args IH]; intros live i Ha; [reflexivity|].
  inversion Ha as [|a' args' Ha0 Has]; subst. cbn [fold_left]. rewrite IH by exact Has.
  apply nth_upd_ne. congruence.
Qed.

Lemma mark_eq_set body_rev live :
  mark body_rev live =
  match body_rev with
  | [] => live
  | (v, (_, args)) :: rest =>
      if nth v live false then mark rest (set_all args live) else mark rest live
  end.
Proof. destruct body_rev as [|[v [o args]] rest]; reflexivity. Qed.

Lemma mark_length body_rev : forall live, length (mark body_rev live) = length live.
Proof.
  induction body_rev as [|[v [o args]] rest IH]; intros live; [reflexivity|].
  rewrite mark_eq_set. destruct (nth v live false); rewrite IH; [apply set_all_length|reflexivity].
Qed.

Lemma mark_mono body_rev : forall live i, nth i live false = true -> nth i (mark body_rev live) false = true.
Proof.
  induction body_rev as [|[v [o args]] rest IH]; intros live i Hi; [exact Hi|].
  rewrite mark_eq_set. destruct (nth v live false); apply IH; [apply set_all_mono|]; exact Hi.
Qed.

(** The arguments of an instruction (with its variable). *)
Definition ins_args (x : nat * (cop * list nat)) : list nat := snd (snd x).

(** A mark no instruction of [body_rev] reads is left as it is. *)
Lemma mark_other body_rev : forall live i,
  Forall (fun x => Forall (fun a => a < i) (ins_args x)) body_rev ->
  nth i (mark body_rev live) false = nth i live false.
Proof.
  induction body_rev as [|[v [o args]] rest IH]; intros live i Hb; [reflexivity|].
  inversion Hb as [|x' rest' Hx Hrest]; subst. rewrite mark_eq_set.
  destruct (nth v live false); rewrite IH by exact Hrest; [|reflexivity].
  apply set_all_other. eapply Forall_impl; [|exact Hx]. intros a Ha. cbn beta in Ha. lia.
Qed.

(** The order [mark] visits the instructions in: each one's variable is
    above every argument of the instructions after it. *)
Fixpoint desc (l : list (nat * (cop * list nat))) : Prop :=
  match l with
  | [] => True
  | x :: l' => Forall (fun y => Forall (fun a => a < fst x) (ins_args y)) l' /\ desc l'
  end.

Lemma desc_snoc l x :
  desc l -> Forall (fun y => Forall (fun a => a < fst y) (ins_args x)) l -> desc (l ++ [x]).
Proof.
  induction l as [|y l IH]; intros Hd Hx; [split; constructor|].
  destruct Hd as [Hy Hd]. inversion Hx as [|y' l' Hxy Hxl]; subst.
  split; [|exact (IH Hd Hxl)]. apply Forall_app. split; [exact Hy|]. constructor; [exact Hxy|constructor].
Qed.

(** Numbered instructions, each reading earlier variables only. *)
Definition reads_before (x : nat * (cop * list nat)) : Prop := Forall (fun a => a < fst x) (ins_args x).

Lemma combine_seq_ge {A} (body : list A) : forall n t,
  n < t -> Forall (fun y => n < fst y) (combine (seq t (length body)) body).
Proof.
  induction body as [|i b IHb]; intros n t Ht; [constructor|].
  constructor; [cbn; exact Ht|]. apply IHb. lia.
Qed.

Lemma desc_rev_seq body : forall n,
  Forall reads_before (combine (seq n (length body)) body) -> desc (rev (combine (seq n (length body)) body)).
Proof.
  induction body as [|ins body IH]; intros n Hb; [exact I|].
  cbn [length seq combine rev] in *. inversion Hb as [|x' l' Hx Hl]; subst.
  apply desc_snoc; [exact (IH (S n) Hl)|].
  apply Forall_rev. clear IH Hl.
  assert (Hge : Forall (fun y => n < fst y) (combine (seq (S n) (length body)) body)).
  { apply combine_seq_ge. lia. }
  eapply Forall_impl; [|exact Hge]. intros y Hy. eapply Forall_impl; [|exact Hx].
  intros a Ha. cbn beta in Hy. cbn in Ha. lia.
Qed.

(** A live instruction's arguments are live. *)
Lemma mark_closed body_rev : forall live,
  desc body_rev -> Forall (fun x => Forall (fun a => a < length live) (ins_args x)) body_rev ->
  Forall (fun x => nth (fst x) (mark body_rev live) false = true ->
                   Forall (fun a => nth a (mark body_rev live) false = true) (ins_args x)) body_rev.
Proof.
  induction body_rev as [|[v [o args]] rest IH]; intros live Hd Hlen; [constructor|].
  destruct Hd as [Hv Hd]. inversion Hlen as [|x' rest' Hx Hrest]; subst.
  rewrite mark_eq_set. constructor.
  - cbn [fst ins_args snd] in *. destruct (nth v live false) eqn:Ev.
    + intros _. eapply Forall_impl; [|exact (set_all_set args live Hx)].
      intros a Ha. apply mark_mono, Ha.
    + rewrite mark_other by exact Hv. rewrite Ev. discriminate.
  - destruct (nth v live false).
    + apply IH; [exact Hd|]. rewrite set_all_length. exact Hrest.
    + apply IH; assumption.
Qed.

(** ** The new indices *)

(** The new index of each variable from the [c]-th on, given their marks:
    the number of marked variables before it, from [c]. *)
Fixpoint idxs (c : nat) (bs : list bool) : list nat :=
  match bs with
  | [] => []
  | b :: bs' => c :: idxs (if b then S c else c) bs'
  end.

Lemma fold_idxs bs : forall c acc,
  fold_left (fun (st : nat * list nat) (b : bool) => (if b then S (fst st) else fst st, snd st ++ [fst st]))
            bs (c, acc) = (fold_left (fun (c : nat) (b : bool) => if b then S c else c) bs c, acc ++ idxs c bs).
Proof.
  induction bs as [|b bs IH]; intros c acc; cbn; [rewrite app_nil_r; reflexivity|].
  rewrite IH, <- app_assoc. reflexivity.
Qed.

Lemma idxs_length bs : forall c, length (idxs c bs) = length bs.
Proof. induction bs as [|b bs IH]; intros c; cbn; [reflexivity|]. rewrite IH. reflexivity. Qed.

Lemma idxs_nth0 bs c : bs <> [] -> nth 0 (idxs c bs) 0 = c.
Proof. destruct bs; [contradiction|reflexivity]. Qed.

Lemma idxs_nthS bs : forall c k, S k < length bs ->
  nth (S k) (idxs c bs) 0 = if nth k bs false then S (nth k (idxs c bs) 0) else nth k (idxs c bs) 0.
Proof.
  induction bs as [|b bs IH]; intros c k Hk; cbn in Hk; [lia|].
  destruct k as [|k].
  - destruct bs as [|b' bs]; cbn in Hk; [lia|]. cbn. destruct b; reflexivity.
  - change (nth (S (S k)) (idxs c (b :: bs)) 0) with (nth (S k) (idxs (if b then S c else c) bs) 0).
    rewrite IH by lia. reflexivity.
Qed.

Lemma nth_skipn' {A} n : forall (l : list A) i d, nth i (skipn n l) d = nth (n + i) l d.
Proof. induction n as [|n IH]; intros [|x l] i d; cbn; auto. destruct i; reflexivity. Qed.

(** ** The pruned body *)

Section prune_body.
Variables (nin m : nat) (L : list bool) (N : list nat).

(** An input, or a marked variable. *)
Definition kept (v : nat) : Prop := v < nin \/ nth v L false = true.

Hypothesis HNS : forall v, nin <= v -> S v < nin + m ->
  nth (S v) N 0 = if nth v L false then S (nth v N 0) else nth v N 0.

Definition prune_ins (p : nat * (cop * list nat)) : cop * list nat :=
  (fst (snd p), map (fun a => nth a N 0) (snd (snd p))).

(** Walking the body: [D] are the lengths of the variables before the
    [t]-th instruction, [D'] those of the pruned body so far; every kept
    variable [v] has the length of its old self at [N v]. *)
Lemma prune_body_ok b : forall t D D',
  t + length b = m -> length D = nin + t ->
  (b <> [] -> nth (nin + t) N 0 = length D') ->
  (forall v, v < nin + t -> kept v -> nth v N 0 < length D' /\ nth (nth v N 0) D' 0 = nth v D 0) ->
  wd_body D b ->
  Forall (fun x => nth (fst x) L false = true -> Forall kept (ins_args x)) (combine (seq (nin + t) (length b)) b) ->
  let b' := map prune_ins (filter (fun p => nth (fst p) L false) (combine (seq (nin + t) (length b)) b)) in
  wd_body D' b' /\
  (forall v, v < nin + t + length b -> kept v ->
     nth v N 0 < length (body_dims D' b') /\ nth (nth v N 0) (body_dims D' b') 0 = nth v (body_dims D b) 0).
Proof.
  induction b as [|[o args] b IH]; intros t D D' Hm HD HN Hinv Hwd Hcl; cbv zeta.
  - cbn [length seq combine filter map]. split; [exact I|]. intros v Hv Hk. rewrite Nat.add_0_r in Hv. exact (Hinv v Hv Hk).
  - destruct Hwd as (Hargs & Hok & Hwd).
    cbn [length seq combine] in Hcl |- *. inversion Hcl as [|x' l' Hx Hl]; subst x' l'. cbn [fst ins_args snd] in Hx.
    replace (S (nin + t)) with (nin + S t) in Hl |- * by lia.
    set (d := cop_dim o (map (fun a => nth a D 0) args)).
    assert (HD1 : length (D ++ [d]) = nin + S t) by (rewrite app_length; cbn; lia).
    rewrite body_dims_cons. fold d.
    specialize (HN ltac:(discriminate)).
    assert (HNS' : b <> [] -> nth (nin + S t) N 0 = if nth (nin + t) L false then S (nth (nin + t) N 0) else nth (nin + t) N 0).
    { intros Hb. replace (nin + S t) with (S (nin + t)) by lia. apply HNS; [lia|].
      destruct b; [contradiction|cbn in Hm; lia]. }
    cbn [filter fst]. destruct (nth (nin + t) L false) eqn:Elive.
    + (* a kept instruction *)
      specialize (Hx eq_refl).
      assert (Hm' : map (fun a => nth a D' 0) (map (fun a => nth a N 0) args) = map (fun a => nth a D 0) args).
      { rewrite map_map. apply map_ext_in. intros a Ha. rewrite Forall_forall in Hargs, Hx.
        apply (Hinv a); [rewrite <- HD; exact (Hargs a Ha)|exact (Hx a Ha)]. }
      cbn [map prune_ins fst snd wd_body]. change (prune_ins (nin + t, (o, args))) with (o, map (fun a => nth a N 0) args). rewrite !body_dims_cons, Hm'. fold d.
      destruct (IH (S t) (D ++ [d]) (D' ++ [d])) as [IHwd IHinv].
      * cbn in Hm. lia.
      * exact HD1.
      * intros Hb. rewrite (HNS' Hb), HN, app_length. cbn. lia.
      * intros v Hv Hk. rewrite app_length. cbn [length].
        destruct (Nat.eq_dec v (nin + t)) as [->|Hne].
        -- rewrite HN, app_nth2, Nat.sub_diag by lia. rewrite app_nth2, HD, Nat.sub_diag by lia.
           split; [lia|reflexivity].
        -- destruct (Hinv v ltac:(lia) Hk) as [H1 H2]. rewrite !app_nth1 by lia. split; [lia|exact H2].
      * exact Hwd.
      * exact Hl.
      * split; [split; [|split]|].
        -- rewrite Forall_map. rewrite Forall_forall in Hargs, Hx |- *. intros a Ha.
           apply (Hinv a); [rewrite <- HD; exact (Hargs a Ha)|exact (Hx a Ha)].
        -- exact Hok.
        -- exact IHwd.
        -- intros v Hv Hk. apply IHinv; [lia|exact Hk].
    + (* a dropped instruction *)
      destruct (IH (S t) (D ++ [d]) D') as [IHwd IHinv].
      * cbn in Hm. lia.
      * exact HD1.
      * intros Hb. rewrite (HNS' Hb), HN. reflexivity.
      * intros v Hv Hk. destruct (Nat.eq_dec v (nin + t)) as [->|Hne].
        -- destruct Hk as [Hk|Hk]; [lia|congruence].
        -- destruct (Hinv v ltac:(lia) Hk) as [H1 H2]. rewrite app_nth1 by lia. split; [exact H1|exact H2].
      * exact Hwd.
      * exact Hl.
      * split; [exact IHwd|]. intros v Hv Hk. apply IHinv; [lia|exact Hk].
Qed.
End prune_body.

(** ** [prune] keeps the judgment *)

Lemma wd_body_reads_before body : forall D,
  wd_body D body -> Forall reads_before (combine (seq (length D) (length body)) body).
Proof.
  induction body as [|[o args] body IH]; intros D Hwd; [constructor|].
  destruct Hwd as (Hargs & _ & Hwd). cbn [length seq combine]. constructor; [exact Hargs|].
  specialize (IH _ Hwd). rewrite app_length in IH. cbn [length] in IH.
  rewrite Nat.add_1_r in IH. exact IH.
Qed.

Lemma reads_before_lt body n k :
  Forall reads_before (combine (seq n (length body)) body) -> n + length body <= k ->
  Forall (fun x => Forall (fun a => a < k) (ins_args x)) (combine (seq n (length body)) body).
Proof.
  intros Hb Hk. assert (Hlt : Forall (fun x => fst x < k) (combine (seq n (length body)) body)).
  { clear Hb. revert n Hk. induction body as [|i b IHb]; intros n Hk; constructor; [cbn in *; lia|].
    apply IHb. cbn in Hk. lia. }
  rewrite Forall_forall in Hb, Hlt |- *. intros x Hx. eapply Forall_impl; [|exact (Hb x Hx)].
  intros a Ha. specialize (Hlt x Hx). cbn beta in Ha. lia.
Qed.

(** [prune] of a judged program is judged, with the same inputs and the
    same output lengths. *)
(** Informal proof: the judgment says that every instruction reads
    earlier variables, so the marks are closed under reading
    ([mark_closed], through [desc_rev_seq]); the outputs are marked
    ([set_all_set], [mark_mono]); the new indices are [seq 0 nin] then
    [idxs] ([fold_idxs]), which step by one after each marked variable;
    so [prune_body_ok] applies from the inputs, where every index is
    kept, and gives the judgment of the pruned body and, at every
    output's new index, the output's length. *)
Lemma prune_wd P :
  wd_prog P -> wd_prog (prune P) /\ cp_dims (prune P) = cp_dims P /\ out_dims (prune P) = out_dims P.
Proof.
  intros [Hwd Hout].
  set (nin := length (cp_dims P)). set (m := length (cp_body P)).
  set (live0 := fold_left (fun l o => upd l o true) (cp_out P) (repeat false (nin + m))).
  set (L := mark (rev (combine (seq nin m) (cp_body P))) live0).
  set (N := snd (fold_left (fun (st : nat * list nat) (b : bool) =>
                              (if b then S (fst st) else fst st, snd st ++ [fst st]))
                           (skipn nin L) (nin, seq 0 nin))).
  assert (Hlive0 : length live0 = nin + m)
    by (unfold live0; rewrite (set_all_length (cp_out P)); apply repeat_length).
  assert (HL : length L = nin + m) by (unfold L; rewrite mark_length; exact Hlive0).
  assert (HNdef : N = seq 0 nin ++ idxs nin (skipn nin L)) by (unfold N; rewrite fold_idxs; reflexivity).
  assert (Hsk : length (skipn nin L) = m) by (rewrite skipn_length; lia).
  assert (HNin : forall v, v < nin -> nth v N 0 = v).
  { intros v Hv. rewrite HNdef, app_nth1 by (rewrite seq_length; exact Hv). apply seq_nth, Hv. }
  assert (HNS : forall v, nin <= v -> S v < nin + m ->
            nth (S v) N 0 = if nth v L false then S (nth v N 0) else nth v N 0).
  { intros v Hv HSv. rewrite HNdef, !app_nth2 by (rewrite seq_length; lia). rewrite seq_length.
    replace (S v - nin) with (S (v - nin)) by lia. rewrite idxs_nthS by lia.
    rewrite nth_skipn'. replace (nin + (v - nin)) with v by lia. reflexivity. }
  assert (HN0 : cp_body P <> [] -> nth (nin + 0) N 0 = nin).
  { intros Hb. rewrite Nat.add_0_r, HNdef, app_nth2 by (rewrite seq_length; lia).
    rewrite seq_length, Nat.sub_diag. apply idxs_nth0. intros He. rewrite He in Hsk.
    destruct (cp_body P); [contradiction|cbn in Hsk; unfold m in Hsk; cbn in Hsk; lia]. }
  (* the marks are closed under reading *)
  pose proof (wd_body_reads_before _ _ Hwd) as Hrb. fold nin m in Hrb.
  assert (Hcl : Forall (fun x => nth (fst x) L false = true -> Forall (kept nin L) (ins_args x))
                       (combine (seq (nin + 0) (length (cp_body P))) (cp_body P))).
  { rewrite Nat.add_0_r. fold m.
    pose proof (mark_closed (rev (combine (seq nin m) (cp_body P))) live0
                  (desc_rev_seq _ _ Hrb)
                  (Forall_rev (reads_before_lt _ _ (length live0) Hrb ltac:(rewrite Hlive0; unfold m; lia)))) as H.
    fold L in H. apply Forall_rev in H. rewrite rev_involutive in H.
    eapply Forall_impl; [|exact H]. intros x Hx Hv. eapply Forall_impl; [|exact (Hx Hv)].
    intros a Ha. right. exact Ha. }
  destruct (prune_body_ok nin m L N HNS (cp_body P) 0 (cp_dims P) (cp_dims P) ltac:(reflexivity)
              ltac:(unfold nin; lia) HN0) as [Hwd' Hinv].
  { intros v Hv Hk. rewrite (HNin v ltac:(lia)). split; [unfold nin in *; lia|reflexivity]. }
  { exact Hwd. }
  { exact Hcl. }
  rewrite Nat.add_0_r in Hwd', Hinv.
  (* the outputs are marked *)
  assert (Hmarked : Forall (fun o => nth o L false = true) (cp_out P)).
  { assert (Hs := set_all_set (cp_out P) (repeat false (nin + m))).
    rewrite repeat_length in Hs. specialize (Hs ltac:(eapply Forall_impl; [|exact Hout]; cbn; lia)).
    eapply Forall_impl; [|exact Hs]. intros o Ho. apply mark_mono, Ho. }
  assert (Hprune : prune P = {| cp_dims := cp_dims P;
                                cp_body := map (prune_ins N) (filter (fun p => nth (fst p) L false)
                                                                (combine (seq nin m) (cp_body P)));
                                cp_out := map (fun o => nth o N 0) (cp_out P) |}) by reflexivity.
  rewrite Hprune. unfold wd_prog, out_dims. cbn [cp_dims cp_body cp_out]. fold m in Hwd', Hinv.
  split; [split; [exact Hwd'|]|split; [reflexivity|]].
  - rewrite Forall_map. rewrite Forall_forall in Hout, Hmarked |- *. intros o Ho.
    rewrite <- body_dims_length. apply (Hinv o); [exact (Hout o Ho)|right; exact (Hmarked o Ho)].
  - rewrite map_map. apply map_ext_in. intros o Ho. rewrite Forall_forall in Hout, Hmarked.
    apply (Hinv o); [exact (Hout o Ho)|right; exact (Hmarked o Ho)].
Qed.

(** ** [rd_core] keeps the judgment, and [Ev] answers at every order *)

(** [rd_core_wd_step] (core_dims.v), stated out. *)
Lemma rd_core_wd P : wd_prog P -> wd_prog (rd_core P) /\ out_dims (rd_core P) = cp_dims P.
Proof.
  intros HP. destruct (rd_prog_wd P HP) as [Hwd Hout].
  destruct (prune_wd _ Hwd) as (Hwd' & _ & Hout'). unfold rd_core.
  split; [exact Hwd'|]. rewrite Hout'. exact Hout.
Qed.

Section ev_total_all.
Context {Vec : Type} (vo : vec_ops Vec) (HS : vec_shapes vo).
#[local] Instance prune_dims_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance prune_dims_signature : signature := exec_signature vo decls locs.

(** [Ev] of [rd^k[p]], for every primitive [p] and every [k], answers on
    every closed value typed at [rd^k[p]]'s domain whose constants have
    their declared lengths. *)
Lemma exec_ev_total_all k p V :
  prim_ok p = true -> value V -> typed_tm [] V (@fdom Vec k p) -> consts_fit vo V ->
  exists V', exec_ev vo (k, p) V = Some V'.
Proof. exact (exec_ev_total_of_step vo HS decls locs rd_core_wd k p V). Qed.
End ev_total_all.

(** The same for the list model, the vectors the extraction is tested
    against ([list_vec_shapes]): no hypothesis but the scalars'
    operations. *)
Lemma exec_ev_total_all_list {R : Type} (sc : scalar_ops R) decls locs k p V :
  prim_ok p = true -> value V ->
  typed_tm (Srt := exec_sorts (list R)) (Σ := exec_signature (list_vec_ops sc) decls locs) [] V (@fdom (list R) k p) ->
  consts_fit (list_vec_ops sc) V ->
  exists V', exec_ev (list_vec_ops sc) (k, p) V = Some V'.
Proof. exact (exec_ev_total_all (list_vec_ops sc) (list_vec_shapes sc) decls locs k p V). Qed.

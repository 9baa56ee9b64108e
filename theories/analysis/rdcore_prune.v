(** * [prune] keeps the evaluation

    [prune] (theories/rh/rdcore.v) keeps the instructions the outputs
    depend on and renumbers the variables.  On a judged program
    ([wd_prog]) it computes the same outputs, for every interpretation
    of the operations ([prune_eval]): the statement is about
    [eval_cprog] at any [ci], so it holds at the real vectors
    ([ceval_prune], [core_fun_prune]) and [rd_core P] has the meaning
    of [rd_prog P] ([core_fun_rd_core]).

    The proof reads the values of a body front to back ([gv]): one more
    instruction appends its value ([gv_cons]).  The marks are closed
    under reading and the outputs are marked (prune_dims.v:
    [mark_closed], [set_all_set]); the new index of a variable counts
    the marked ones before it ([idxs]).  Walking the body, every kept
    variable's new index holds its old value in the pruned body
    ([prune_body_vals]). *)
From RevHandlers Require Import prelude rdcore core_dims prune_dims.
From RevHandlers.Analysis Require Import vec prims rdcore_real.

(** ** Values front to back *)

Section gv.
Context {V : Type} (ci : cop -> list V -> V) (d : V).

(** The variables after running [b] from the variables [G] (first
    first). *)
Definition gv (G : list V) (b : list (cop * list nat)) : list V :=
  rev (eval_body ci d (length G) (rev G) b).

Lemma gv_nil G : gv G [] = G.
Proof. unfold gv. cbn [eval_body]. apply rev_involutive. Qed.

Lemma gv_cons G o args b : Forall (fun a => a < length G) args ->
  gv G ((o, args) :: b) = gv (G ++ [ci o (map (fun a => nth a G d) args)]) b.
Proof.
  intros Ha. unfold gv. cbn [eval_body]. rewrite app_length, rev_app_distr, Nat.add_1_r. cbn [length rev app].
  do 4 f_equal. apply map_ext_in. intros a Hin. rewrite Forall_forall in Ha. specialize (Ha a Hin).
  symmetry. rewrite <- (rev_involutive G) at 1. rewrite rev_nth by (rewrite rev_length; exact Ha).
  rewrite rev_length. f_equal. lia.
Qed.

Lemma gv_length G b : length (gv G b) = length G + length b.
Proof.
  unfold gv. rewrite rev_length. revert G. induction b as [|[o args] b IH]; intros G; [cbn; rewrite rev_length; lia|].
  cbn [eval_body length].
  specialize (IH (G ++ [ci o (map (fun i => nth (length G - 1 - i) (rev G) d) args)])).
  rewrite app_length, rev_app_distr, Nat.add_1_r in IH. cbn [length rev app] in IH. rewrite IH. lia.
Qed.

(** A program's outputs, read in [gv]. *)
Lemma eval_cprog_gv P xs :
  Forall (fun o => o < length xs + length (cp_body P)) (cp_out P) ->
  eval_cprog ci d P xs = map (fun o => nth o (gv xs (cp_body P)) d) (cp_out P).
Proof.
  intros Ho. unfold eval_cprog. apply map_ext_in. intros o Hin. rewrite Forall_forall in Ho. specialize (Ho o Hin).
  assert (HL : length (gv xs (cp_body P)) = length xs + length (cp_body P)) by apply gv_length.
  unfold gv in *. rewrite rev_length in HL. rewrite rev_nth by lia. f_equal. lia.
Qed.

(** ** Walking the body *)

Section walk.
Variables (nin m : nat) (L : list bool) (N : list nat).

Hypothesis HNS : forall v, nin <= v -> S v < nin + m ->
  nth (S v) N 0 = if nth v L false then S (nth v N 0) else nth v N 0.

(** [G] are the values before the [t]-th instruction, [G'] those of the
    pruned body so far; every kept variable [v] has its value at [N v]. *)
Lemma prune_body_vals b : forall t G G',
  t + length b = m -> length G = nin + t ->
  (b <> [] -> nth (nin + t) N 0 = length G') ->
  (forall v, v < nin + t -> kept nin L v -> nth v N 0 < length G' /\ nth (nth v N 0) G' d = nth v G d) ->
  Forall reads_before (combine (seq (nin + t) (length b)) b) ->
  Forall (fun x => nth (fst x) L false = true -> Forall (kept nin L) (ins_args x)) (combine (seq (nin + t) (length b)) b) ->
  forall v, v < nin + t + length b -> kept nin L v ->
    let G2 := gv G' (map (prune_ins N) (filter (fun p => nth (fst p) L false) (combine (seq (nin + t) (length b)) b))) in
    nth v N 0 < length G2 /\ nth (nth v N 0) G2 d = nth v (gv G b) d.
Proof.
  induction b as [|[o args] b IH]; intros t G G' Hm HG HN Hinv Hrb Hcl v Hv Hk; cbv zeta.
  - cbn [length seq combine filter map] in Hv |- *. rewrite !gv_nil. apply Hinv; [lia|exact Hk].
  - cbn [length seq combine] in Hrb, Hcl, Hv |- *.
    inversion Hrb as [|x1 l1 Hr Hrs]; subst x1 l1. inversion Hcl as [|x2 l2 Hx Hxs]; subst x2 l2.
    unfold reads_before, ins_args in Hr. cbn [fst snd ins_args] in Hr, Hx.
    replace (S (nin + t)) with (nin + S t) in Hrs, Hxs |- * by lia.
    specialize (HN ltac:(discriminate)).
    assert (HN1 : b <> [] -> nth (nin + S t) N 0 =
                  if nth (nin + t) L false then S (nth (nin + t) N 0) else nth (nin + t) N 0).
    { intros Hb. replace (nin + S t) with (S (nin + t)) by lia. apply HNS; [lia|].
      destruct b; [contradiction|cbn in Hm; lia]. }
    rewrite (gv_cons G) by (rewrite HG; exact Hr).
    set (y := ci o (map (fun a => nth a G d) args)).
    cbn [filter fst]. destruct (nth (nin + t) L false) eqn:Elive.
    + (* the instruction is kept: the pruned body computes [y] at [N (nin + t)] *)
      specialize (Hx eq_refl). rewrite Forall_forall in Hr, Hx.
      assert (Hargs : map (fun a => nth a G' d) (map (fun a => nth a N 0) args) = map (fun a => nth a G d) args).
      { rewrite map_map. apply map_ext_in. intros a Ha. apply (Hinv a); [exact (Hr a Ha)|exact (Hx a Ha)]. }
      cbn [map]. change (prune_ins N (nin + t, (o, args))) with (o, map (fun a => nth a N 0) args).
      rewrite gv_cons by (rewrite Forall_map, Forall_forall; intros a Ha; apply (Hinv a); [exact (Hr a Ha)|exact (Hx a Ha)]).
      rewrite Hargs. fold y.
      apply (IH (S t) (G ++ [y]) (G' ++ [y])); [cbn in Hm; lia|rewrite app_length; cbn; lia| | |exact Hrs|exact Hxs|lia|exact Hk].
      * intros Hb. rewrite (HN1 Hb), HN, app_length. cbn. lia.
      * intros u Hu Hku. rewrite app_length. cbn [length].
        destruct (Nat.eq_dec u (nin + t)) as [->|Hne].
        -- rewrite HN, app_nth2, Nat.sub_diag by lia. rewrite app_nth2, HG, Nat.sub_diag by lia.
           split; [lia|reflexivity].
        -- destruct (Hinv u ltac:(lia) Hku) as [H1 H2]. rewrite !app_nth1 by lia. split; [lia|exact H2].
    + (* the instruction is dropped: no kept variable is [nin + t] *)
      apply (IH (S t) (G ++ [y]) G'); [cbn in Hm; lia|rewrite app_length; cbn; lia| | |exact Hrs|exact Hxs|lia|exact Hk].
      * intros Hb. rewrite (HN1 Hb), HN. reflexivity.
      * intros u Hu Hku. destruct (Nat.eq_dec u (nin + t)) as [->|Hne].
        -- destruct Hku as [Hku|Hku]; [lia|congruence].
        -- destruct (Hinv u ltac:(lia) Hku) as [H1 H2]. rewrite app_nth1 by lia. split; [exact H1|exact H2].
Qed.
End walk.
End gv.

(** ** The marks and the new indices of a program *)

Definition live_of (P : cprog) : list bool :=
  let nin := length (cp_dims P) in let m := length (cp_body P) in
  mark (rev (combine (seq nin m) (cp_body P)))
       (fold_left (fun l o => upd l o true) (cp_out P) (repeat false (nin + m))).

Definition newidx_of (P : cprog) : list nat :=
  seq 0 (length (cp_dims P)) ++ idxs (length (cp_dims P)) (skipn (length (cp_dims P)) (live_of P)).

Lemma prune_unfold P :
  prune P = {| cp_dims := cp_dims P;
               cp_body := map (prune_ins (newidx_of P))
                              (filter (fun p => nth (fst p) (live_of P) false)
                                      (combine (seq (length (cp_dims P)) (length (cp_body P))) (cp_body P)));
               cp_out := map (fun o => nth o (newidx_of P) 0) (cp_out P) |}.
Proof. unfold prune. cbv zeta. rewrite fold_idxs. reflexivity. Qed.

Lemma live_of_length P : length (live_of P) = length (cp_dims P) + length (cp_body P).
Proof. unfold live_of. rewrite mark_length. exact (eq_trans (set_all_length (cp_out P) _) (repeat_length _ _)). Qed.

Lemma newidx_input P v : v < length (cp_dims P) -> nth v (newidx_of P) 0 = v.
Proof. intros Hv. unfold newidx_of. rewrite app_nth1 by (rewrite seq_length; exact Hv). apply seq_nth, Hv. Qed.

Lemma newidx_first P : cp_body P <> [] ->
  nth (length (cp_dims P) + 0) (newidx_of P) 0 = length (cp_dims P).
Proof.
  intros Hb. unfold newidx_of. rewrite Nat.add_0_r, app_nth2 by (rewrite seq_length; lia).
  rewrite seq_length, Nat.sub_diag. apply idxs_nth0. intros He.
  apply (f_equal (@length bool)) in He. rewrite skipn_length, live_of_length in He.
  destruct (cp_body P); [contradiction|cbn in He; lia].
Qed.

Lemma newidx_step P v : length (cp_dims P) <= v -> S v < length (cp_dims P) + length (cp_body P) ->
  nth (S v) (newidx_of P) 0 =
  if nth v (live_of P) false then S (nth v (newidx_of P) 0) else nth v (newidx_of P) 0.
Proof.
  intros Hv HSv. unfold newidx_of. rewrite !app_nth2 by (rewrite seq_length; lia). rewrite seq_length.
  replace (S v - length (cp_dims P)) with (S (v - length (cp_dims P))) by lia.
  rewrite idxs_nthS by (rewrite skipn_length, live_of_length; lia).
  rewrite nth_skipn'. replace (length (cp_dims P) + (v - length (cp_dims P))) with v by lia. reflexivity.
Qed.

(** On a judged program, a marked instruction reads kept variables. *)
Lemma live_of_closed P : wd_prog P ->
  Forall (fun x => nth (fst x) (live_of P) false = true -> Forall (kept (length (cp_dims P)) (live_of P)) (ins_args x))
         (combine (seq (length (cp_dims P)) (length (cp_body P))) (cp_body P)).
Proof.
  intros [Hwd _]. pose proof (wd_body_reads_before _ _ Hwd) as Hrb.
  assert (Hlen := set_all_length (cp_out P) (repeat false (length (cp_dims P) + length (cp_body P)))).
  rewrite repeat_length in Hlen.
  pose proof (mark_closed _ _ (desc_rev_seq _ _ Hrb)
                (Forall_rev (reads_before_lt _ _ _ Hrb (Nat.eq_le_incl _ _ (eq_sym Hlen))))) as Hc.
  apply Forall_rev in Hc. rewrite rev_involutive in Hc. unfold live_of.
  eapply Forall_impl; [|exact Hc]. intros x Hx Hm. eapply Forall_impl; [|exact (Hx Hm)].
  intros a Ha. right. exact Ha.
Qed.

Lemma live_of_outs P : wd_prog P -> Forall (fun o => nth o (live_of P) false = true) (cp_out P).
Proof.
  intros [_ Hout]. unfold live_of.
  assert (Hs := set_all_set (cp_out P) (repeat false (length (cp_dims P) + length (cp_body P)))).
  rewrite repeat_length in Hs. specialize (Hs Hout).
  eapply Forall_impl; [|exact Hs]. intros o Ho. apply mark_mono, Ho.
Qed.

(** ** [prune] keeps the evaluation *)

(** Informal proof: walk the body from the inputs, where every index is
    kept and unchanged ([prune_body_vals] at [t = 0]); every output is
    marked, so its new index holds its value in the pruned body. *)
Theorem prune_eval {V} (ci : cop -> list V -> V) (d : V) P xs :
  wd_prog P -> length xs = length (cp_dims P) ->
  eval_cprog ci d (prune P) xs = eval_cprog ci d P xs.
Proof.
  intros HP Hxs. pose proof HP as [Hwd Hout].
  set (nin := length (cp_dims P)) in *. set (m := length (cp_body P)) in *.
  assert (Hwalk := prune_body_vals ci d nin m (live_of P) (newidx_of P) (newidx_step P) (cp_body P) 0 xs xs
                     ltac:(reflexivity) ltac:(lia)
                     ltac:(intros Hb; rewrite Hxs; exact (newidx_first P Hb))
                     ltac:(intros v Hv _; rewrite (newidx_input P v) by lia; split; [lia|reflexivity])
                     ltac:(rewrite Nat.add_0_r; apply (wd_body_reads_before _ _ Hwd))
                     ltac:(rewrite Nat.add_0_r; apply (live_of_closed P HP))).
  rewrite Nat.add_0_r in Hwalk. cbv zeta in Hwalk. fold m in Hwalk.
  pose proof (live_of_outs P HP) as Hmk. rewrite Forall_forall in Hout, Hmk.
  rewrite prune_unfold. rewrite !eval_cprog_gv; cbn [cp_body cp_out].
  - rewrite map_map. apply map_ext_in. intros o Ho.
    apply (Hwalk o); [specialize (Hout o Ho); lia|right; apply Hmk, Ho].
  - rewrite Forall_forall. intros o Ho. rewrite Hxs. apply Hout, Ho.
  - rewrite Forall_map, Forall_forall. intros o Ho. rewrite <- gv_length with (ci := ci) (d := d).
    apply (Hwalk o); [specialize (Hout o Ho); lia|right; apply Hmk, Ho].
Qed.

(** ** At the real vectors *)

Lemma ceval_prune P xs : wd_prog P -> length xs = length (cp_dims P) -> ceval (prune P) xs = ceval P xs.
Proof. apply prune_eval. Qed.

Lemma split_at_length n ds v : length (split_at n ds v) = length ds.
Proof. revert n. induction ds as [|a ds IH]; intros n; cbn; [reflexivity|]. rewrite IH. reflexivity. Qed.

Lemma core_fun_prune P v : wd_prog P -> core_fun (prune P) v = core_fun P v.
Proof.
  intros HP. unfold core_fun. rewrite prune_unfold at 1. cbn [cp_dims]. rewrite <- prune_unfold.
  rewrite ceval_prune; [reflexivity|exact HP|apply split_at_length].
Qed.

(** [rd_core P] has the meaning of [rd_prog P]. *)
Theorem core_fun_rd_core P v : wd_prog P -> core_fun (rd_core P) v = core_fun (rd_prog P) v.
Proof. intros HP. apply core_fun_prune, (rd_prog_wd P HP). Qed.

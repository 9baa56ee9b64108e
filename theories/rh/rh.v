(** * The rewriting [RH^V_H(<y⃗>.R)] (paper Fig. 5, spec §8)

    [rh H Bs Vs R R'] says that [RH^{V⃗}_H(<y⃗>.R) = R'] where
    - [R] is a command typed in [Δ = y1:B1, …, ym:Bm] (the list [Bs],
      [y1] being index 0), closed otherwise;
    - [Vs = (V1, …, Vm)] is a list of terms of the output context [Δ'],
      [Vi : Bi] (decisions.md item 9: terms, not a single value);
    - [R'] is typed in [Δ'] with type [∏ Bs].

    It is an inductive relation with one constructor per case of Fig. 5,
    used as the premise of the [rev handle] step (spec §8.6): type
    preservation needs only induction on it.  [R] is split by Lemma 5.6
    ([decomposition]); the new variable goes first in every recursive
    call, as in the paper's example.  Pattern lets are written with
    projections of the bound tuple (the meta-level reading of spec §4.4). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd cmd_ctx tactics.

Section rh.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Δ : ctx) (M V : tm) (A B C D : ty) (P Q R : cmd) (K : list cmd) (H : handler).

(** The result tuple of RH-2: [<y'_1, …, y'_k +_{Bk} y'', …, y'_m>], with
    [q = <y', y'_1..y'_m>] at index 1 and [y''] at index 0. *)
Definition rh_op_result (m k : nat) (Bk : ty) : tm :=
  Tuple (map (fun i => if Nat.eqb i k then plus Bk (Proj (S i) (Var 1)) (Var 0)
                       else Proj (S i) (Var 1)) (seq 0 m)).

(** The result tuple of RH-4: [<y'_i +_{Bi} y''_i>_i], with
    [q = <w', y'_1..y'_m>] at index 1 and [<y''_1..y''_m>] at index 0.
    Each [Bi] is taken from [Bs] as the index runs along it (as [onehot]
    does), not looked up by its index: the tuple is built in time linear
    in [m] ([rh_term_result_nth] is the form by index). *)
Definition rh_term_result (Bs : list ty) : tm :=
  Tuple (map (fun iB => plus (snd iB) (Proj (S (fst iB)) (Var 1)) (Proj (fst iB) (Var 0)))
             (combine (seq 0 (length Bs)) Bs)).

Lemma map_combine_seq {X Y} (h : nat -> X -> Y) (d : X) (l : list X) s :
  map (fun p => h (fst p) (snd p)) (combine (seq s (length l)) l) =
  map (fun i => h i (nth (i - s) l d)) (seq s (length l)).
Proof.
  revert s. induction l as [|x l IH]; intros s; [reflexivity|].
  cbn [length seq combine map fst snd]. rewrite Nat.sub_diag. f_equal.
  rewrite IH. apply map_ext_in. intros i Hi. apply in_seq in Hi.
  replace (i - s) with (S (i - S s)) by lia. reflexivity.
Qed.

Lemma rh_term_result_nth Bs :
  rh_term_result Bs =
  Tuple (map (fun i => plus (nth i Bs (TProd [])) (Proj (S i) (Var 1)) (Proj i (Var 0)))
             (seq 0 (length Bs))).
Proof.
  unfold rh_term_result. f_equal.
  rewrite (map_combine_seq (fun i B => plus B (Proj (S i) (Var 1)) (Proj i (Var 0))) (TProd [])).
  apply map_ext. intros i. rewrite Nat.sub_0_r. reflexivity.
Qed.

(** [(proj_1 y_j, …, proj_l y_j)]. *)
Definition proj_list (z l : nat) : list tm := map (fun i => Proj i (Var z)) (seq 0 l).

(** The outputs of RH-1a, RH-2 and RH-4, shared by the relation [rh] and
    the function [rh_fn] ([interp.v]). *)
Definition rh_ret_out (H : handler) (Bs : list ty) (k : nat) (Vk : tm) : cmd :=
  CLet (subst_cmd (list_subst [Vk]) (ret_clause H)) (Ret (onehot Bs k (Var 0))).

Definition rh_op_out (Bs : list ty) (o : opsym) (k : nat) (Vk : tm) (Qf Qb Rrec : cmd) : cmd :=
  CLet (subst_cmd (list_subst [Vk]) Qf)
    (CLet Rrec
      (CLet (subst_cmd (list_subst [Proj 0 (Var 0); Proj 1 (Var 1)]) Qb)
        (Ret (rh_op_result (length Bs) k (coar o))))).

Definition rh_term_out (Bs : list ty) (Vs : list tm) (M : tm) (Rrec : cmd) : cmd :=
  CLet (Ret (subst_tm (list_subst Vs) M))
    (CLet Rrec
      (CLet (Ret (Rd (Proj 0 (Var 0))
                     (subst_tm (fun i => Proj i (Var 0)) M)
                     (Tuple (map (ren_tm (fun x => S (S x))) Vs))))
        (Ret (rh_term_result Bs)))).

Inductive rh : handler -> list ty -> list tm -> cmd -> cmd -> Prop :=
(** RH-1a (return):
<<
    RH^{V⃗}_H(<y⃗>.⌊y_k⌋) = let u ⇐ P[V_k/x] in ⌊<0, …, u@k, …, 0>⌋
>> *)
| rh_ret H Bs Vs k Vk :
    nth_error Vs k = Some Vk ->
    rh H Bs Vs (Ret (Var k)) (rh_ret_out H Bs k Vk)
(** RH-1b (let of a variable):
<<
    RH^{V⃗}_H(<y⃗>.F^c[let x ⇐ ⌊z⌋ in Q]) = RH^{V⃗}_H(<y⃗>.F^c[Q[z/x]])
>> *)
| rh_let_var H Bs Vs K z Q R' :
    rh H Bs Vs (fill_c K (subst_cmd (list_subst [Var z]) Q)) R' ->
    rh H Bs Vs (fill_c (Q :: K) (Ret (Var z))) R'
(** RH-2 (operation):
<<
    RH^{V⃗}_H(<y⃗>.F^c[Op(y_k)]) =
      let <y, z'> ⇐ Q^f_Op[V_k/x] in
      let <y', y'_1, …, y'_m> ⇐ RH^{(y, V⃗)}_H(<y, y⃗>.F^c[⌊y⌋]) in
      let y'' ⇐ Q^b_Op[y'/y, z'/z] in
      ⌊<y'_1, …, y'_k +_{Bk} y'', …, y'_m>⌋
>> *)
| rh_op H Bs Vs K o k Vk D Qf Qb Rrec :
    nth_error Vs k = Some Vk ->
    clause_of H o = (D, Qf, Qb) ->
    rh H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs)
       (fill_c (shift_frames K) (Ret (Var 0))) Rrec ->
    rh H Bs Vs (fill_c K (Op o (Var k))) (rh_op_out Bs o k Vk Qf Qb Rrec)
(** RH-3 (nested reverse handler):
<<
    RH^{V⃗}_H(<y⃗>.F^c[rev handle(y_j)<u⃗>.P' with H']) =
      RH^{V⃗}_H(<y⃗>.F^c[RH^{(proj_1 y_j, …, proj_l y_j)}_{H'}(<u⃗>.P')])
>> *)
| rh_rev H Bs Vs K z As1 R1 H1 R1' R' :
    nth_error Bs z = Some (TProd As1) ->
    rh H1 As1 (proj_list z (length As1)) R1 R1' ->
    rh H Bs Vs (fill_c K R1') R' ->
    rh H Bs Vs (fill_c K (RevHandle (Var z) R1 H1)) R'
(** RH-4 (a term that is not a variable, in evaluation position):
<<
    RH^{V⃗}_H(<y⃗>.F^t[M]) =
      let w ⇐ ⌊M[V⃗/y⃗]⌋ in
      let <w', y'_1, …, y'_m> ⇐ RH^{(w, V⃗)}_H(<w, y⃗>.F^t[w]) in
      let <y''_1, …, y''_m> ⇐ ⌊w'.rd(q. M[proj_i q/y_i])(<V⃗>)⌋ in
      ⌊<y'_1 +_{B1} y''_1, …, y'_m +_{Bm} y''_m>⌋
>> *)
| rh_term H Bs Vs K F M B' Rrec :
    not_var M ->
    infer_tm Bs M = Some B' ->
    rh H (B' :: Bs) (Var 0 :: map shift Vs) (fill_t (shift_frames K) F (Var 0)) Rrec ->
    rh H Bs Vs (fill_t K F M) (rh_term_out Bs Vs M Rrec).

(** ** Depth decreases (the paper's lemma in §5.2)

    Informal proof: by induction on [rh], [depth(RH) ≤ max(depth R,
    depth H)].  The output is built from lets, returns, instances of the
    clauses of [H] (depth at most [depth H]), fragments of [R] and, in
    RH-3, the output of an inner [RH], whose depth is below that of the
    [rev handle] node it replaces (induction hypothesis). *)

Lemma depth_clause_of H o D Qf Qb :
  clause_of H o = (D, Qf, Qb) ->
  depth Qf <= depth_handler H /\ depth Qb <= depth_handler H.
Proof.
  destruct H as [P cls]. cbn [clause_of]. rewrite depth_handler_eq.
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hfind.
  - intros [= <- <- <-].
    assert (Hgen : forall cls : clauses, find_clause o cls = Some (D', Qf', Qb') ->
                   depth Qf' <= depth_clauses cls /\ depth Qb' <= depth_clauses cls).
    { clear. intros cls. induction cls as [|o' D Qf Qb rest IH]; cbn [find_clause];
        simpl_depth; [discriminate|].
      destruct (opsym_eq_dec o o'); [intros [= -> -> ->]; lia|].
      intros Hf. specialize (IH Hf). lia. }
    specialize (Hgen _ Hfind). lia.
  - intros Hdef. unfold default_clause in Hdef. injection Hdef as <- <- <-.
    simpl_depth. lia.
Qed.

Lemma depth_ret_clause H : depth (ret_clause H) <= depth_handler H.
Proof. destruct H. cbn [ret_clause]. simpl_depth. lia. Qed.

Lemma rh_depth_le H Bs Vs R R' :
  rh H Bs Vs R R' -> depth R' <= Nat.max (depth R) (depth_handler H).
Proof.
  rh_induction.
  - (* rh_ret *)
    unfold rh_ret_out. simpl_depth. rewrite depth_subst_cmd. pose proof (depth_ret_clause H). lia.
  - (* rh_let_var *)
    rewrite depth_fill_c in IH |- *. rewrite depth_subst_cmd in IH.
    unfold depth_frames, list_max' in *. cbn [map fold_right] in *. simpl_depth. lia.
  - (* rh_op *)
    unfold rh_op_out. simpl_depth. rewrite !depth_subst_cmd.
    rewrite depth_fill_c, depth_shift_frames in IH. rewrite depth_fill_c.
    destruct (depth_clause_of _ _ _ _ _ Hcl). simpl_depth. lia.
  - (* rh_rev *)
    rewrite depth_fill_c in IH2 |- *. simpl_depth. lia.
  - (* rh_term *)
    unfold rh_term_out. simpl_depth. unfold fill_t in *. rewrite depth_fill_c, depth_shift_frames in IH.
    rewrite depth_fill_c. rewrite (depth_plug_t F (Var 0) M) in IH. lia.
Qed.

(** [depth(rev handle(V)<y⃗>.R with H) > depth(RH^V_H(<y⃗>.R))]. *)
Lemma rh_depth_lt H Bs Vs R R' V :
  rh H Bs Vs R R' -> depth R' < depth (RevHandle V R H).
Proof. intros Hrh. apply rh_depth_le in Hrh. simpl_depth. lia. Qed.

(** ** [RH] preserves typing (the paper's lemma in §5.2)

    If [⋄;Δ ⊢ R : C], [Δ' ⊢ Vi : Bi] and [⊢r H : C], then
    [⋄;Δ' ⊢ RH^{V⃗}_H(<y⃗>.R) : ∏ Bi].

    Informal proof (spec §8.5), by induction on [rh]:
    - RH-1a: [P[V_k/x] : C = B_k], and [<0,…,u@k,…,0> : ∏ Bi];
    - RH-1b: [Q[z/x]] has the type of [Q] since [z : A]; re-plug;
    - RH-2: the clauses are typed at the operation's coarity and arity;
      the continuation [F^c[⌊y⌋]] is typed in [y:B, Δ] by weakening [F^c];
      the induction hypothesis types the recursive call at [B × ∏ Bi];
    - RH-3: the inner [RH] has the type [∏ A'_i] of the node it replaces;
    - RH-4: [M[V⃗/y⃗] : B'], the recursive call has type [B' × ∏ Bi], and the
      [rd] term has type [∏ Bi] by T-Rd. *)
(** The typing of an operation [o] on the variable [k] at the hole of
    [F^c] and of its clause, from the hypotheses of [rh_op]: what RH-2
    needs in [rh_typed] and in the analysis's soundness proof. *)
Lemma rh_op_typed_inv H Bs Vs K o k Vk C Δ' D Qf Qb :
  typed_cmd Bs (fill_c K (Op o (Var k))) C -> typed_handler H C -> Forall2 (typed_tm Δ') Vs Bs ->
  nth_error Vs k = Some Vk -> clause_of H o = (D, Qf, Qb) ->
  typed_frames Bs K (ar o) C /\ typed_tm Bs (Var k) (coar o) /\ nth_error Bs k = Some (coar o) /\
  typed_tm Δ' Vk (coar o) /\
  typed_cmd [coar o] Qf (TPair (ar o) D) /\ typed_cmd [ar o; D] Qb (coar o).
Proof.
  intros HR HH HVs Hk Hcl.
  apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
  inversion HA as [|? ? ? Hz| |]; subst.
  inversion Hz as [? ? ? Hk'| | | | | | |]; subst.
  destruct (Forall2_nth_error _ _ _ _ _ HVs Hk) as [Bk [HBk HVk]].
  rewrite HBk in Hk'. injection Hk' as ->.
  destruct (clause_of_typed _ _ _ _ _ _ HH Hcl) as [HQf HQb]. repeat split; assumption.
Qed.

Lemma rh_typed H Bs Vs R R' :
  rh H Bs Vs R R' ->
  forall C Δ', typed_cmd Bs R C -> typed_handler H C ->
  Forall2 (typed_tm Δ') Vs Bs -> typed_cmd Δ' R' (TProd Bs).
Proof.
  rh_induction;
    intros C Δ' HR HH HVs.
  - (* rh_ret *)
    inversion HR as [? ? ? HM| | |]; subst. inversion HM as [? ? ? HkC| | | | | | |]; subst.
    destruct (Forall2_nth_error _ _ _ _ _ HVs Hk) as [Bk [HBk HVk]].
    rewrite HBk in HkC. injection HkC as ->.
    unfold rh_ret_out. econstructor.
    + eapply typed_cmd_subst; [apply ret_clause_typed; exact HH|].
      apply subst_ok_list_closed. constructor; [exact HVk|constructor].
    + constructor. eapply onehot_typed; [exact HBk|]. constructor. reflexivity.
  - (* rh_let_var *)
    apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    inversion HK as [|? ? ? ? B ? HQ HK']; subst.
    inversion HA as [? ? ? Hz| | |]; subst.
    eapply IH; [|exact HH|exact HVs].
    eapply fill_c_typed; [exact HK'|].
    eapply typed_cmd_subst; [exact HQ|].
    apply (subst_ok_list [Var z] [A]). constructor; [exact Hz|constructor].
  - (* rh_op *)
    destruct (rh_op_typed_inv _ _ _ _ _ _ _ _ _ _ _ _ HR HH HVs Hk Hcl) as (HK & _ & HBk & HVk & HQf & HQb).
    unfold rh_op_out. econstructor.
    + (* Q^f[V_k/x] : B × D *)
      eapply typed_cmd_subst; [exact HQf|].
      apply subst_ok_list_closed. constructor; [exact HVk|constructor].
    + econstructor.
      * (* the recursive call, at B × ∏ Bi *)
        eapply IH; [| exact HH |].
        -- eapply fill_c_typed; [apply typed_frames_shift; exact HK|].
           constructor. constructor. reflexivity.
        -- constructor.
           ++ econstructor; [constructor; reflexivity|reflexivity].
           ++ apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
              intros V B HV. apply typed_tm_shift. exact HV.
      * econstructor.
        -- (* Q^b[y'/y, z'/z] : A *)
           eapply typed_cmd_subst; [exact HQb|].
           apply subst_ok_list_closed.
           constructor; [econstructor; [constructor; reflexivity|reflexivity]|].
           constructor; [econstructor; [constructor; reflexivity|reflexivity]|].
           constructor.
        -- constructor. constructor. unfold rh_op_result.
           apply Forall2_map_seq. intros i B HiB.
           destruct (Nat.eqb_spec i k) as [->|Hne].
           ++ rewrite HBk in HiB. injection HiB as <-.
              apply plus_typed; [|constructor; reflexivity].
              econstructor; [constructor; reflexivity|exact HBk].
           ++ econstructor; [constructor; reflexivity|exact HiB].
  - (* rh_rev *)
    apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    inversion HA as [| | |? ? ? ? As C1 HM HR1 HH1]; subst.
    inversion HM as [? ? ? Hz'| | | | | | |]; subst.
    rewrite Hz in Hz'. injection Hz' as ->.
    eapply IH2; [|exact HH|exact HVs].
    eapply fill_c_typed; [exact HK|].
    eapply IH1; [exact HR1|exact HH1|].
    unfold proj_list. apply Forall2_map_seq. intros i B HiB.
    econstructor; [constructor; exact Hz|exact HiB].
  - (* rh_term *)
    unfold fill_t in HR. apply fill_c_typed_inv in HR. destruct HR as [A [HA HK]].
    destruct (plug_t_typed_inv _ _ _ _ HA) as [B'' [HM Hplug]].
    rewrite (infer_tm_complete _ _ _ HM) in Hinf. injection Hinf as ->.
    unfold rh_term_out. econstructor.
    + (* M[V⃗/y⃗] : B' *)
      constructor. eapply typed_tm_subst; [exact HM|].
      apply subst_ok_list_closed. exact HVs.
    + econstructor.
      * (* the recursive call, at B' × ∏ Bi *)
        eapply IH; [| exact HH |].
        -- unfold fill_t. eapply fill_c_typed; [apply typed_frames_shift; exact HK|].
           apply Hplug. constructor. reflexivity.
        -- constructor; [constructor; reflexivity|].
           apply Forall2_map_l. eapply Forall2_impl'; [|exact HVs].
           intros V B HV. apply typed_tm_shift. exact HV.
      * econstructor.
        -- (* w'.rd(q. M[proj_i q/y_i])(<V⃗>) : ∏ Bi *)
           constructor. econstructor.
           ++ econstructor; [constructor; reflexivity|reflexivity].
           ++ eapply typed_tm_subst; [exact HM|].
              intros i B HiB. econstructor; [constructor; reflexivity|exact HiB].
           ++ constructor. apply Forall2_map_l.
              eapply Forall2_impl'; [|exact HVs]. intros V B HV.
              eapply typed_tm_ren; [exact HV|]. intros x C' Hx. exact Hx.
        -- constructor. rewrite rh_term_result_nth. constructor.
           apply Forall2_map_seq. intros i B HiB.
           rewrite (nth_error_nth _ _ _ HiB).
           apply plus_typed.
           ++ econstructor; [constructor; reflexivity|exact HiB].
           ++ econstructor; [constructor; reflexivity|exact HiB].
Qed.

End rh.

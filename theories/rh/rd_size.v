(** * How deeply a program differentiates: the bound [rh-eval] checks

    The reverse-derivative rewriting [W.R_V(x.N)] ([rd.v]) of an [rd] term
    nested [d] levels deep rewrites, at each level, the output of the level
    below it (R-Rd); that output is larger than its input by a factor that
    itself grows with the input (R-Let copies the bound term and the block
    of variables grows with the nesting of lets), so the size of the
    rewritten term grows doubly exponentially in [d] (docs/decisions.md,
    "Nested rd: the rewriting's growth": 18, 171, 7,123 and more than
    3,000,000 nodes for [d = 1..4] on [swish(swish(y))]).  A [rev handle]
    differentiates its body the same way: its [RH] rewriting (RH-4) puts
    every term of the body under one more [rd], and an inner [rev handle]'s
    rewritten body under the outer one's.

    [cmd_rd_depth P] counts those levels: the [rd]-nesting of the terms of
    [P], one more inside the body of each [rev handle].  [rh-eval] refuses
    before running it (error [too-large]) a program whose main command has
    [cmd_rd_weight] (below: a size estimate of the rewritings' outputs)
    above [max_rd_weight], or [cmd_rd_depth] above [max_rd_depth].  Proved
    here:
    - [cmd_rd_depth] bounds the [rd]-depth of every term of the command
      ([rd_depth_le_cmd]) and is unchanged by renaming and by substituting
      terms without [rd] ([cmd_rd_depth_ren_cmd], [cmd_rd_depth_subst_cmd]);
    - the [RH] rewriting of a body [R] at a point without [rd] has
      [cmd_rd_depth] at most [1 + cmd_rd_depth R] or that of the handler
      ([rh_cmd_rd_depth_le]): a [rev handle] is one level.
    - the estimate saturates below [2^60] ([cmd_rd_weight_le]).
    Not proved: that the estimate bounds the size of the rewriting's
    output (it is above every output measured), nor that every
    configuration of a run keeps [cmd_rd_depth] of its start. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd rd_bound cmd_ctx rh tactics.

Section rd_size.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (M N V : tm) (P Q R : cmd) (H : handler) (K : list cmd).

(** The largest [cmd_rd_depth] [rh-eval] runs by default ([--max-rd-depth]).
    What grows is bounded by [max_rd_weight] below: [rd] nested four deep
    around [swish(swish(y))] runs (5.4 s to 9 s), five are refused at
    once, as are four nested [rev handle]s (docs/decisions.md, "Nested rd:
    a bound on what grows").  The depth bound stays as an option, its
    default far above what the size bound lets through. *)
Definition max_rd_depth : nat := 64.

Fixpoint cmd_rd_depth (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M => rd_depth M
  | CLet P Q => Nat.max (cmd_rd_depth P) (cmd_rd_depth Q)
  | RevHandle M R H => Nat.max (rd_depth M) (Nat.max (S (cmd_rd_depth R)) (handler_rd_depth H))
  end
with handler_rd_depth (H : handler) : nat :=
  match H with Handler P cls => Nat.max (cmd_rd_depth P) (clauses_rd_depth cls) end
with clauses_rd_depth (cls : clauses) : nat :=
  match cls with
  | CNil => 0
  | CCons _ _ Qf Qb rest => Nat.max (Nat.max (cmd_rd_depth Qf) (cmd_rd_depth Qb)) (clauses_rd_depth rest)
  end.

(** ** What grows: a size estimate of the rewritings' outputs

    [cmd_rd_weight P] is a size estimate computed before a run: terms and
    commands count their nodes, except that an [rd] term counts the square
    of its own size, and a [rev handle] the square of twice one more than
    its body's (the body is differentiated by its [RH] rewriting, RH-4;
    the factor 2 is calibrated on measured runs).  Squaring at each level
    is the doubly exponential growth of the measured outputs
    (docs/decisions.md, "Nested rd: a bound on what grows"; it is above
    every output measured there).  It is not proved to bound the size of a
    rewriting's output: [rh-eval] uses it only to refuse ([too-large]
    above [max_rd_weight] or [--max-rd-size]), never to change an answer.
    The arithmetic saturates at [rd_weight_cap] ([2^60]), so it stays
    within OCaml's [int] once extracted ([ExtrOcamlNatInt]). *)
(** [2^n], with the multiplication ExtrOcamlNatInt maps to OCaml's (not
    [Nat.pow], extracted as unary recursion); [Nat.leb] and [+] are OCaml's
    too ([Nat.min] is not). *)
Fixpoint pow2 (n : nat) : nat := match n with 0 => 1 | S n => 2 * pow2 n end.
Definition rd_weight_cap : nat := pow2 60.
Definition weight_add (a b : nat) : nat := if Nat.leb (a + b) rd_weight_cap then a + b else rd_weight_cap.
Definition weight_sq (a : nat) : nat :=
  if Nat.leb a (pow2 30) then a * a else rd_weight_cap.

Fixpoint tm_rd_weight (M : tm) : nat :=
  match M with
  | Var _ | Const _ => 1
  | App _ M | Proj _ M => weight_add 1 (tm_rd_weight M)
  | Add M1 M2 | Let M1 M2 => weight_add 1 (weight_add (tm_rd_weight M1) (tm_rd_weight M2))
  | Tuple Ms => fold_right (fun N acc => weight_add (tm_rd_weight N) acc) 1 Ms
  | Rd M N L =>
      weight_sq (weight_add 1 (weight_add (tm_rd_weight M) (weight_add (tm_rd_weight N) (tm_rd_weight L))))
  end.

Fixpoint cmd_rd_weight (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M => weight_add 1 (tm_rd_weight M)
  | CLet P Q => weight_add 1 (weight_add (cmd_rd_weight P) (cmd_rd_weight Q))
  | RevHandle M R H =>
      let w := weight_add 1 (cmd_rd_weight R) in
      weight_add (tm_rd_weight M) (weight_add (weight_sq (weight_add w w)) (handler_rd_weight H))
  end
with handler_rd_weight (H : handler) : nat :=
  match H with Handler P cls => weight_add (cmd_rd_weight P) (clauses_rd_weight cls) end
with clauses_rd_weight (cls : clauses) : nat :=
  match cls with
  | CNil => 1
  | CCons _ _ Qf Qb rest => weight_add (weight_add (cmd_rd_weight Qf) (cmd_rd_weight Qb)) (clauses_rd_weight rest)
  end.

(** The largest [cmd_rd_weight] [rh-eval] runs by default ([--max-rd-size]):
    [2^45], between the estimates of the slowest measured programs that
    answer within 10 s and of the fastest that do not (docs/decisions.md,
    "Nested rd: a bound on what grows"). *)
Definition max_rd_weight : nat := pow2 45.

(** The estimate never exceeds the cap, so it fits OCaml's [int]. *)
Lemma pow2_add m n : pow2 (m + n) = pow2 m * pow2 n.
Proof. induction m as [|m IH]; cbn [pow2 Nat.add]; [lia|]. rewrite IH. lia. Qed.

Lemma weight_add_le a b : weight_add a b <= rd_weight_cap.
Proof. unfold weight_add. destruct (Nat.leb_spec (a + b) rd_weight_cap); lia. Qed.

Lemma weight_sq_le a : weight_sq a <= rd_weight_cap.
Proof.
  unfold weight_sq, rd_weight_cap. destruct (Nat.leb_spec a (pow2 30)) as [Ha|Ha]; [|lia].
  change 60 with (30 + 30). rewrite pow2_add. apply Nat.mul_le_mono; exact Ha.
Qed.

Lemma one_le_rd_weight_cap : 1 <= rd_weight_cap.
Proof. unfold rd_weight_cap. generalize 60 as n. intros n. induction n as [|n IH]; cbn [pow2]; lia. Qed.

Lemma tm_rd_weight_le M : tm_rd_weight M <= rd_weight_cap.
Proof.
  destruct M as [| | | | [|N Ms] | | |]; cbn [tm_rd_weight fold_right];
    auto using weight_add_le, weight_sq_le, one_le_rd_weight_cap.
Qed.

Lemma cmd_rd_weight_le P : cmd_rd_weight P <= rd_weight_cap.
Proof. destruct P; cbn [cmd_rd_weight]; apply weight_add_le. Qed.

(** Unfolding equations ([simpl] does not refold this mutual fixpoint). *)
Lemma cmd_rd_depth_ret M : cmd_rd_depth (Ret M) = rd_depth M.
Proof. reflexivity. Qed.
Lemma cmd_rd_depth_op o M : cmd_rd_depth (Op o M) = rd_depth M.
Proof. reflexivity. Qed.
Lemma cmd_rd_depth_clet P Q : cmd_rd_depth (CLet P Q) = Nat.max (cmd_rd_depth P) (cmd_rd_depth Q).
Proof. reflexivity. Qed.
Lemma cmd_rd_depth_revhandle M R H :
  cmd_rd_depth (RevHandle M R H) = Nat.max (rd_depth M) (Nat.max (S (cmd_rd_depth R)) (handler_rd_depth H)).
Proof. reflexivity. Qed.
Lemma handler_rd_depth_eq P cls :
  handler_rd_depth (Handler P cls) = Nat.max (cmd_rd_depth P) (clauses_rd_depth cls).
Proof. reflexivity. Qed.

Ltac simpl_rd := repeat progress (rewrite ?cmd_rd_depth_ret, ?cmd_rd_depth_op, ?cmd_rd_depth_clet,
                   ?cmd_rd_depth_revhandle, ?handler_rd_depth_eq in *).

(** ** Every term of a command is within its depth *)

(** The terms of a command, its handlers' included. *)
Fixpoint cmd_tms (P : cmd) : list tm :=
  match P with
  | Ret M | Op _ M => [M]
  | CLet P Q => cmd_tms P ++ cmd_tms Q
  | RevHandle M R H => M :: cmd_tms R ++ handler_tms H
  end
with handler_tms (H : handler) : list tm :=
  match H with Handler P cls => cmd_tms P ++ clauses_tms cls end
with clauses_tms (cls : clauses) : list tm :=
  match cls with
  | CNil => []
  | CCons _ _ Qf Qb rest => cmd_tms Qf ++ cmd_tms Qb ++ clauses_tms rest
  end.

Lemma rd_depth_le_cmd_all :
  (forall P, Forall (fun M => rd_depth M <= cmd_rd_depth P) (cmd_tms P)) /\
  (forall H, Forall (fun M => rd_depth M <= handler_rd_depth H) (handler_tms H)) /\
  (forall cls, Forall (fun M => rd_depth M <= clauses_rd_depth cls) (clauses_tms cls)).
Proof.
  apply cmd_mutind; intros;
    cbn [cmd_tms handler_tms clauses_tms cmd_rd_depth handler_rd_depth clauses_rd_depth];
    repeat (rewrite Forall_app || rewrite Forall_cons_iff).
  all: repeat match goal with |- _ /\ _ => split end.
  all: try (constructor; fail).
  all: try lia.
  all: eapply Forall_impl; [|eassumption]; intros; cbv beta in *; lia.
Qed.

Lemma rd_depth_le_cmd P M : In M (cmd_tms P) -> rd_depth M <= cmd_rd_depth P.
Proof.
  intros Hin. destruct rd_depth_le_cmd_all as [HP _].
  specialize (HP P). rewrite Forall_forall in HP. auto.
Qed.

(** ** Renaming and substitution *)

Lemma cmd_rd_depth_ren_cmd P : forall ξ, cmd_rd_depth (ren_cmd ξ P) = cmd_rd_depth P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros ξ; cbn [ren_cmd]; simpl_rd;
    rewrite ?rd_depth_ren; try reflexivity.
  rewrite IHP, IHQ. reflexivity.
Qed.

Lemma cmd_rd_depth_subst_cmd P : forall σ, rd_free σ -> cmd_rd_depth (subst_cmd σ P) = cmd_rd_depth P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros σ Hσ; cbn [subst_cmd]; simpl_rd;
    rewrite ?(rd_depth_subst _ _ Hσ); try reflexivity.
  rewrite IHP, (IHQ (up σ)) by (auto using rd_free_up). reflexivity.
Qed.

Lemma rd_free_list_subst Vs : Forall (fun V => rd_depth V = 0) Vs -> rd_free (list_subst Vs).
Proof.
  intros HVs x. unfold list_subst.
  destruct (nth_error Vs x) as [V|] eqn:Hx.
  - rewrite (nth_error_nth _ _ _ Hx). rewrite Forall_forall in HVs. apply HVs.
    eapply nth_error_In. exact Hx.
  - rewrite nth_overflow by (apply nth_error_None; exact Hx). reflexivity.
Qed.

(** ** Contexts *)

Definition frames_rd_depth (K : list cmd) : nat := list_max' (map cmd_rd_depth K).

Lemma cmd_rd_depth_fill_c K P : cmd_rd_depth (fill_c K P) = Nat.max (frames_rd_depth K) (cmd_rd_depth P).
Proof.
  revert P. induction K as [|Q K IH]; intros P; simpl.
  - reflexivity.
  - rewrite IH. unfold frames_rd_depth. simpl. simpl_rd. lia.
Qed.

Lemma frames_rd_depth_shift K : frames_rd_depth (shift_frames K) = frames_rd_depth K.
Proof.
  unfold frames_rd_depth, shift_frames. rewrite map_map.
  induction K as [|Q K IH]; simpl; [reflexivity|]. rewrite cmd_rd_depth_ren_cmd, IH. reflexivity.
Qed.

Definition tcframe_rd_depth (F : tcframe) : nat :=
  match F with
  | TRet | TOp _ => 0
  | TRev R H => Nat.max (S (cmd_rd_depth R)) (handler_rd_depth H)
  end.

Lemma cmd_rd_depth_plug_t F M : cmd_rd_depth (plug_t F M) = Nat.max (rd_depth M) (tcframe_rd_depth F).
Proof. destruct F; simpl; simpl_rd; lia. Qed.

(** ** The [RH] rewriting adds one level *)

Lemma clause_of_rd_depth H o D Qf Qb :
  clause_of H o = (D, Qf, Qb) ->
  cmd_rd_depth Qf <= handler_rd_depth H /\ cmd_rd_depth Qb <= handler_rd_depth H.
Proof.
  destruct H as [P cls]. cbn [clause_of]. simpl_rd.
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hfind.
  - intros [= <- <- <-].
    assert (Hgen : forall cls : clauses, find_clause o cls = Some (D', Qf', Qb') ->
                   cmd_rd_depth Qf' <= clauses_rd_depth cls /\ cmd_rd_depth Qb' <= clauses_rd_depth cls).
    { clear. intros cls. induction cls as [|o' D Qf Qb rest IH]; cbn [find_clause clauses_rd_depth];
        [discriminate|].
      destruct (opsym_eq_dec o o'); [intros [= -> -> ->]; lia|].
      intros Hf. specialize (IH Hf). lia. }
    specialize (Hgen _ Hfind). lia.
  - intros Hdef. unfold default_clause in Hdef. injection Hdef as <- <- <-.
    simpl_rd. cbn [rd_depth]. rewrite !rd_depth_zero. simpl. lia.
Qed.

Lemma ret_clause_rd_depth H : cmd_rd_depth (ret_clause H) <= handler_rd_depth H.
Proof. destruct H. cbn [ret_clause]. simpl_rd. lia. Qed.

Lemma rd_depth_sum_free A M N : rd_depth M = 0 -> rd_depth N = 0 -> rd_depth (plus A M N) = 0.
Proof. intros HM HN. pose proof (rd_depth_plus A M N). lia. Qed.

Lemma rd_depth_tuple_free Ms : Forall (fun M => rd_depth M = 0) Ms -> rd_depth (Tuple Ms) = 0.
Proof.
  intros HMs. cbn [rd_depth]. induction HMs as [|M Ms HM HMs IH]; [reflexivity|].
  change (Nat.max (rd_depth M) (list_max' (map rd_depth Ms)) = 0). rewrite HM, IH. reflexivity.
Qed.

Lemma rd_depth_map_free {X} (f : X -> tm) l :
  (forall x, rd_depth (f x) = 0) -> Forall (fun M => rd_depth M = 0) (map f l).
Proof. intros Hf. induction l; simpl; constructor; auto. Qed.

(** Informal proof: by induction on [rh], as for [rh_depth_le] (rh.v).  The
    output is built from lets, returns of terms without [rd] (one-hot
    tuples, sums of projections), instances of the handler's clauses by
    terms without [rd], the terms of [R] substituted by the point (RH-4:
    [M[V⃗/y⃗]], of the depth of [M]), the [rd] term of RH-4
    ([w'.rd(q. M[proj_i q/y_i])(<V⃗>)], one level more than [M]), the
    rewriting of the rest of [R] and, in RH-3, the rewriting of an inner
    [rev handle]'s body, counted at one level more in [cmd_rd_depth]. *)
Lemma rh_cmd_rd_depth_le H Bs Vs R R' :
  rh H Bs Vs R R' -> Forall (fun V => rd_depth V = 0) Vs ->
  cmd_rd_depth R' <= Nat.max (S (cmd_rd_depth R)) (handler_rd_depth H).
Proof.
  rh_induction;
    intros HVs.
  - (* rh_ret *)
    assert (HVk : rd_depth Vk = 0).
    { rewrite Forall_forall in HVs. apply HVs. eapply nth_error_In. exact Hk. }
    unfold rh_ret_out. simpl_rd.
    rewrite cmd_rd_depth_subst_cmd by (apply rd_free_list_subst; constructor; [exact HVk|constructor]).
    pose proof (ret_clause_rd_depth H). pose proof (rd_depth_onehot Bs k (Var 0)). cbn [rd_depth] in *. lia.
  - (* rh_let_var *)
    specialize (IH HVs).
    rewrite cmd_rd_depth_fill_c in IH |- *.
    rewrite cmd_rd_depth_subst_cmd in IH by (apply rd_free_list_subst; constructor; [reflexivity|constructor]).
    unfold frames_rd_depth, list_max' in *. cbn [map fold_right] in *. simpl_rd. cbn [rd_depth] in *. lia.
  - (* rh_op *)
    assert (HVk : rd_depth Vk = 0).
    { rewrite Forall_forall in HVs. apply HVs. eapply nth_error_In. exact Hk. }
    assert (HVs' : Forall (fun V => rd_depth V = 0) (Proj 0 (Var 0) :: map shift Vs)).
    { constructor; [reflexivity|]. rewrite Forall_map. eapply Forall_impl; [|exact HVs].
      intros V HV. rewrite rd_depth_shift. exact HV. }
    specialize (IH HVs').
    unfold rh_op_out. simpl_rd.
    rewrite cmd_rd_depth_subst_cmd by (apply rd_free_list_subst; constructor; [exact HVk|constructor]).
    rewrite cmd_rd_depth_subst_cmd
      by (apply rd_free_list_subst; repeat constructor).
    rewrite cmd_rd_depth_fill_c, frames_rd_depth_shift in IH. rewrite cmd_rd_depth_fill_c.
    destruct (clause_of_rd_depth _ _ _ _ _ Hcl).
    assert (Hres : rd_depth (rh_op_result (length Bs) k (coar o)) = 0).
    { unfold rh_op_result. apply rd_depth_tuple_free. apply rd_depth_map_free.
      intros i. destruct (Nat.eqb i k); [apply rd_depth_sum_free|]; reflexivity. }
    simpl_rd. cbn [rd_depth] in *. lia.
  - (* rh_rev *)
    assert (Hpl : Forall (fun V => rd_depth V = 0) (proj_list z (length As1))).
    { unfold proj_list. apply rd_depth_map_free. reflexivity. }
    specialize (IH1 Hpl). specialize (IH2 HVs).
    rewrite cmd_rd_depth_fill_c in IH2 |- *. simpl_rd. cbn [rd_depth] in *. lia.
  - (* rh_term *)
    assert (HVs' : Forall (fun V => rd_depth V = 0) (Var 0 :: map shift Vs)).
    { constructor; [reflexivity|]. rewrite Forall_map. eapply Forall_impl; [|exact HVs].
      intros V HV. rewrite rd_depth_shift. exact HV. }
    specialize (IH HVs').
    unfold rh_term_out. simpl_rd. unfold fill_t in *.
    rewrite cmd_rd_depth_fill_c, frames_rd_depth_shift, cmd_rd_depth_plug_t in IH.
    rewrite cmd_rd_depth_fill_c, cmd_rd_depth_plug_t.
    rewrite (rd_depth_subst _ _ (rd_free_list_subst _ HVs)).
    assert (Hpr : rd_free (fun i => Proj i (Var 0))) by (intros i; reflexivity).
    assert (Htup : rd_depth (Tuple (map (ren_tm (fun x => S (S x))) Vs)) = 0).
    { apply rd_depth_tuple_free. rewrite Forall_map. eapply Forall_impl; [|exact HVs].
      intros V HV. rewrite rd_depth_ren. exact HV. }
    assert (Hres : rd_depth (rh_term_result Bs) = 0).
    { rewrite rh_term_result_nth. apply rd_depth_tuple_free. apply rd_depth_map_free.
      intros i. apply rd_depth_sum_free; reflexivity. }
    cbn [rd_depth]. rewrite (rd_depth_subst _ _ Hpr). cbn [rd_depth] in IH, Htup. lia.
Qed.

End rd_size.

(** * A tape evaluator of [rev handle] over chains of operations, proved equal to [run]

    [rev handle(V)<y⃗>.R with H] steps to [RH^{V⃗}_H(<y⃗>.R)], and the
    machine ([machine.v]) builds that command ([rh_fn]) and runs it.  For
    a body that is a chain of operations,
<<
    R ::= ⌊y_k⌋ | Op(y_k) | let x ⇐ Op(y_k) in R | let x ⇐ ⌊y_z⌋ in R
>>
    (each [Op] of a base coarity), the output of [RH] is a let-chain of
    depth proportional to the chain, but its RH-2 levels return tuples of
    all m cotangents in scope ([<y'_1, …, y'_k +_{Bk} y'', …, y'_m>]), and
    every level renames the rest of the body ([shift_frames]) and every
    variable of [V⃗] ([map shift]): building it and running it costs
    Θ(m²).  [tape] runs it without building it:
    - forwards, along the body: the forward clause [Q^f_Op[V_k/x]] is run
      on its own (by the machine), its value [<y, z'>] bound as the new
      variable's [proj_1];
    - at [⌊y_k⌋]: the return clause [P[V_k/x]], and the one-hot tuple
      [<0, …, u@k, …, 0>];
    - backwards, in reverse: the backward clause [Q^b_Op[y'/y, z'/z]] run
      on its own (in the environment [q, z'], as the machine runs [RH]'s
      output: a closed [proj_1 <q⃗>] would be walked, m components, by the
      evaluation of terms), and the cotangent tuple of the level above obtained from
      the one below by dropping its head and adding [y''] at [k] ([set_nth]:
      time [k], not m), with the step count the tuple takes in [run]
      (m + 1) computed, not counted.
    The additions performed are exactly those of the semantics (one
    [+_{Bk}] per level, no zero skipped), so no law of the constants is
    needed.  Whatever falls outside the fragment (or fails: a clause
    stuck, out of fuel, a value of the wrong shape) answers [None], and
    the machine then does what it did before.

    An [Op(y_k)] that is the whole rest of the body is the last RH-2
    level, whose recursive call is [⌊y⌋] (RH-1a at once); both RH-2
    levels are one function, [tape_op], and one proof, [tape_op_correct].

    [tape] is [tape_with no_layer]: [tape_with layer] is the tape with
    [layer] at the RH-4 levels [let x ⇐ Op(f(y_k)) in R] and [Op(f(y_k))]
    ([no_layer] answers [None]; [tape_rh4.v]'s [tape4_checked] is [tape_with
    (tape_layer cfitsb)]), proved once for every [layer] with [layer_ok]
    ([tape_with_correct]), as is the hook running it ([tape_hook_ok]).

    Theorem: [tape_correct]: an answer of [tape] is [rh_fn]'s output run
    by [run] ([Some] only if [rh_fn] succeeds, and [run] on its output
    ends with the same heap, value and step count).  In [machine_fast.v]:
    - [mloop_fast_with]: the machine with the tape at every [rev handle];
      [mloop_fast_agrees]: it answers what [run] answers (up to an
      "out of fuel" answered early, for the instance that does so);
    - [run_fast_correct]: [run_fast fuel n hp P = run fuel n hp P] for
      every command, heap and fuel, no hypothesis;
    - [run_total_fast_eq] (executable instance): the total evaluator with
      the fast machine ([run_total_fast]) answers exactly what
      [run_total_fn] answers, so every theorem of [total.v] holds of it. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts complete machine run_ctx tactics.

Section tape.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm) (P Q R : cmd) (H : handler) (σ τ : nat -> tm).

(** ** Closed terms and commands: every free variable below [k] *)
Definition tm_closed (k : nat) (M : tm) : bool := scoped_tm k M.

(** Substitution never enters a [rev handle] body or its handler. *)
Fixpoint cmd_closed (k : nat) (P : cmd) : bool :=
  match P with
  | Ret M | Op _ M => tm_closed k M
  | CLet P1 Q => cmd_closed k P1 && cmd_closed (S k) Q
  | RevHandle M _ _ => tm_closed k M
  end.

Lemma up_agree k σ τ : (forall x, x < k -> σ x = τ x) -> forall x, x < S k -> up σ x = up τ x.
Proof. intros Hx [|x] Hlt; simpl; [reflexivity|]. rewrite Hx by lia. reflexivity. Qed.

Lemma subst_tm_closed k M σ τ :
  tm_closed k M = true -> (forall x, x < k -> σ x = τ x) -> subst_tm σ M = subst_tm τ M.
Proof.
  unfold tm_closed. revert k σ τ. tm_induction M; intros k σ τ Hc Hx; cbn [scoped_tm subst_tm] in *;
    rewrite ?Bool.andb_true_iff in Hc.
  - apply Hx. apply Nat.ltb_lt. exact Hc.
  - reflexivity.
  - f_equal. eapply IH; eassumption.
  - destruct Hc as [H1 H2]. f_equal; [eapply IH1|eapply IH2]; eassumption.
  - f_equal. induction Ms as [|M' Ms' IHl]; [reflexivity|].
    cbn [forallb] in Hc. rewrite Bool.andb_true_iff in Hc. destruct Hc as [H1 H2].
    inversion IH as [|? ? IHM IHMs]; subst.
    cbn [map]. f_equal; [eapply IHM; eassumption|]. apply IHl; assumption.
  - f_equal. eapply IH; eassumption.
  - destruct Hc as [H1 H2]. f_equal; [eapply IHM; eassumption|].
    eapply IHN; [exact H2|]. apply up_agree. exact Hx.
  - destruct Hc as [[H1 H2] H3]. f_equal; [eapply IHM; eassumption| |eapply IHL; eassumption].
    eapply IHN; [exact H2|]. apply up_agree. exact Hx.
Qed.

Lemma subst_cmd_closed k P σ τ :
  cmd_closed k P = true -> (forall x, x < k -> σ x = τ x) -> subst_cmd σ P = subst_cmd τ P.
Proof.
  revert k σ τ. induction P as [M|o M|P1 IH1 Q IH2|M R _ H]; intros k σ τ Hc Hx;
    cbn [cmd_closed subst_cmd] in *.
  - f_equal. eapply subst_tm_closed; eassumption.
  - f_equal. eapply subst_tm_closed; eassumption.
  - apply Bool.andb_true_iff in Hc as [H1 H2]. f_equal; [eapply IH1; eassumption|].
    eapply IH2; [exact H2|]. apply up_agree. exact Hx.
  - f_equal. eapply subst_tm_closed; eassumption.
Qed.

(** ** Substitution lemmas *)

Lemma subst_tm_var_id M : subst_tm Var M = M.
Proof. apply subst_tm_id. Qed.

Lemma subst_cmd_id P : subst_cmd Var P = P.
Proof.
  rewrite <- (subst_cmd_nil P) at 2. apply subst_cmd_ext. intros x. rewrite list_subst_nil. reflexivity.
Qed.

Lemma ren_tm_as_subst ξ M : ren_tm ξ M = subst_tm (fun x => Var (ξ x)) M.
Proof.
  revert ξ. tm_induction M; intros ξ; cbn [ren_tm subst_tm]; f_equal; auto.
  - rewrite Forall_forall in IH. apply map_ext_in. intros a Ha. apply IH. exact Ha.
  - rewrite IHN. apply subst_tm_ext. intros [|x]; reflexivity.
  - rewrite IHN. apply subst_tm_ext. intros [|x]; reflexivity.
Qed.

Lemma ren_cmd_as_subst ξ P : ren_cmd ξ P = subst_cmd (fun x => Var (ξ x)) P.
Proof.
  revert ξ. induction P as [M|o M|P1 IH1 Q IH2|M R _ H]; intros ξ; cbn [ren_cmd subst_cmd];
    rewrite ?ren_tm_as_subst; try reflexivity.
  rewrite IH1, IH2. f_equal. apply subst_cmd_ext. intros [|x]; reflexivity.
Qed.

(** [Q] under a new variable at the front, then that variable renamed to
    the one bound by [Q]'s let: [Q] again (RH-2's recursive call, then
    RH-1b). *)
Lemma subst_ren_up_id Q : subst_cmd (list_subst [Var 0]) (ren_cmd (up_ren S) Q) = Q.
Proof.
  rewrite ren_cmd_as_subst, subst_cmd_subst. rewrite <- (subst_cmd_id Q) at 2.
  apply subst_cmd_ext. intros [|x]; reflexivity.
Qed.

Lemma subst_single_shift V W : subst_tm (list_subst [V]) (shift W) = W.
Proof.
  unfold shift. rewrite subst_ren. rewrite <- (subst_tm_id W) at 2. apply subst_tm_ext.
  intros x. unfold list_subst. cbn. destruct x; cbn; f_equal; lia.
Qed.

Lemma subst_zero τ A : subst_tm τ (zero A) = zero A.
Proof.
  induction A as [b|As IH] using ty_ind'; [reflexivity|].
  cbn [zero subst_tm]. f_equal. rewrite map_map. apply map_ext_in.
  intros A HA. rewrite Forall_forall in IH. apply IH. exact HA.
Qed.

Lemma value_zero A : value (zero A).
Proof.
  induction A as [b|As IH] using ty_ind'; [reflexivity|].
  cbn [zero]. apply value_tuple_iff. rewrite Forall_map. exact IH.
Qed.

(** The components of the one-hot tuple [onehot As i W]. *)
Definition onehot_list (As : list ty) (i : nat) (W : tm) : list tm :=
  map (fun jA => if Nat.eqb (fst jA) i then W else zero (snd jA)) (combine (seq 0 (length As)) As).

Lemma onehot_eq As i W : onehot As i W = Tuple (onehot_list As i W).
Proof. reflexivity. Qed.

Lemma onehot_list_length As i W : length (onehot_list As i W) = length As.
Proof. unfold onehot_list. rewrite map_length, combine_length, seq_length. lia. Qed.

Lemma subst_onehot τ As i W : subst_tm τ (onehot As i W) = onehot As i (subst_tm τ W).
Proof.
  unfold onehot. cbn [subst_tm]. f_equal. rewrite map_map. apply map_ext. intros [j A].
  cbn [fst snd]. destruct (Nat.eqb j i); [reflexivity|apply subst_zero].
Qed.

Lemma value_onehot As i W : value W -> value (onehot As i W).
Proof.
  intros HW. unfold onehot. apply value_tuple_iff. apply Forall_forall. intros M HM.
  apply in_map_iff in HM as [[j A] [<- _]]. cbn [fst snd].
  destruct (Nat.eqb j i); [exact HW|apply value_zero].
Qed.

(** ** The result tuple of RH-2 at a base coarity *)

(** [<proj_2 A, …, proj_{k+1} A + B, …, proj_{m+1} A>]. *)
Definition op_res (m k : nat) (A B : tm) : tm :=
  Tuple (map (fun i => if Nat.eqb i k then Add (Proj (S i) A) B else Proj (S i) A) (seq 0 m)).

Lemma rh_op_result_base m k b : rh_op_result m k (TBase b) = op_res m k (Var 1) (Var 0).
Proof. reflexivity. Qed.

Lemma subst_op_res τ m k A B : subst_tm τ (op_res m k A B) = op_res m k (subst_tm τ A) (subst_tm τ B).
Proof.
  unfold op_res. cbn [subst_tm]. f_equal. rewrite map_map. apply map_ext. intros i.
  destruct (Nat.eqb i k); reflexivity.
Qed.

(** The tuple [<…, y'_k + y'', …>] from [<y'_1, …, y'_m>]: time [k]. *)
Fixpoint set_nth (k : nat) (x : tm) (l : list tm) : list tm :=
  match k, l with
  | 0, _ :: l' => x :: l'
  | S k', y :: l' => y :: set_nth k' x l'
  | _, [] => []
  end.

Lemma set_nth_length k x l : length (set_nth k x l) = length l.
Proof. revert k. induction l as [|y l IH]; intros [|k]; cbn; auto. Qed.

Lemma map_nth_seq_id (l : list tm) d : map (fun i => nth i l d) (seq 0 (length l)) = l.
Proof.
  induction l as [|y l IH]; [reflexivity|]. cbn [length seq map nth]. f_equal.
  rewrite <- seq_shift, map_map. exact IH.
Qed.

Lemma set_nth_map_seq k x l :
  set_nth k x l = map (fun i => if Nat.eqb i k then x else nth i l (Var 0)) (seq 0 (length l)).
Proof.
  revert k. induction l as [|y l IH]; intros k; [destruct k; reflexivity|].
  cbn [length seq map]. rewrite <- seq_shift, map_map.
  destruct k as [|k]; cbn [set_nth Nat.eqb nth].
  - f_equal. symmetry. apply map_nth_seq_id.
  - f_equal. rewrite IH. apply map_ext. intros i. reflexivity.
Qed.

(** Evaluating the components of a tuple one after the other. *)
Lemma tstar_tuple_map (f g : nat -> tm) (c : nat -> nat) (l : list nat) pre :
  Forall value pre ->
  (forall i, In i l -> tstar (c i) (f i) (g i) /\ value (g i)) ->
  tstar (list_sum (map c l)) (Tuple (pre ++ map f l)) (Tuple (pre ++ map g l)).
Proof.
  revert pre. induction l as [|i l IH]; intros pre Hpre Hl; [constructor|].
  cbn [map list_sum fold_right]. destruct (Hl i (or_introl eq_refl)) as [Hi Hv].
  eapply tstar_trans.
  - apply (tstar_frame (KTuple pre (map f l))); [exact Hpre|exact Hi].
  - cbn [fill_frame]. specialize (IH (pre ++ [g i])). rewrite <- !app_assoc in IH. apply IH.
    + apply Forall_app. split; [exact Hpre|constructor; [exact Hv|constructor]].
    + intros j Hj. apply Hl. right. exact Hj.
Qed.

Lemma list_sum_onecount_below k j :
  j <= k -> list_sum (map (fun i => if Nat.eqb i k then 2 else 1) (seq 0 j)) = j.
Proof.
  induction j as [|j IHj]; intros Hj; [reflexivity|].
  rewrite seq_S, map_app, list_sum_app, IHj by lia. cbn [map list_sum fold_right Nat.add].
  destruct (Nat.eqb_spec j k); lia.
Qed.

Lemma list_sum_onecount m k :
  k < m -> list_sum (map (fun i => if Nat.eqb i k then 2 else 1) (seq 0 m)) = S m.
Proof.
  induction m as [|m IH]; intros Hk; [lia|].
  rewrite seq_S, map_app, list_sum_app. cbn [map list_sum fold_right Nat.add].
  destruct (Nat.eqb_spec m k) as [Hmk|Hne].
  - rewrite list_sum_onecount_below by lia. lia.
  - rewrite IH by lia. lia.
Qed.

(** The result tuple takes [m + 1] steps: one projection per component,
    and the addition at [k]. *)
Lemma tstar_op_res m k y' cs y c :
  length cs = m -> Forall value (y' :: cs) -> nth_error cs k = Some (Const c) ->
  tstar (S m) (op_res m k (Tuple (y' :: cs)) (Const y)) (Tuple (set_nth k (Const (cadd c y)) cs)).
Proof.
  intros Hm Hv Hk. assert (Hkm : k < m) by (subst m; apply nth_error_Some; congruence).
  rewrite set_nth_map_seq, Hm. unfold op_res.
  rewrite <- (list_sum_onecount m k Hkm).
  apply (tstar_tuple_map _ _ (fun i => if Nat.eqb i k then 2 else 1) _ [] (Forall_nil _)).
  intros i Hi. apply in_seq in Hi.
  assert (HT : value (Tuple (y' :: cs))) by (apply value_tuple_iff; exact Hv).
  assert (Hproj : tstar 1 (Proj (S i) (Tuple (y' :: cs))) (nth i cs (Var 0))).
  { apply tstar_one. rewrite step_tm_fn_proj, (step_tm_fn_value _ HT). cbn [nth_error].
    rewrite (nth_error_nth' cs (Var 0)) by lia. reflexivity. }
  destruct (Nat.eqb_spec i k) as [->|Hne].
  - split; [|reflexivity].
    rewrite (nth_error_nth _ _ (Var 0) Hk) in Hproj.
    change 2 with (1 + 1). eapply tstar_trans.
    + apply (tstar_frame (KAddL (Const y))); [exact I|exact Hproj].
    + apply tstar_one. reflexivity.
  - split; [exact Hproj|]. inversion Hv as [|? ? _ Hcs]; subst.
    rewrite Forall_forall in Hcs. apply Hcs. apply nth_In. lia.
Qed.

(** ** The tape

    [tape_op rec fuel n hp H Vs m o k]: an RH-2 level [Op(y_k)] with [Vs]
    closed and [m] variables in scope; [rec] runs the rest of the chain
    (the continuation of the [let], or [⌊y⌋] when the [Op] is the whole
    rest of the body) with one variable more in scope. *)
Definition tape_op (rec : nat -> nat -> heap -> list tm -> option (heap * list tm * nat))
    (fuel n : nat) (hp : heap) (H : handler) (Vs : list tm) (m : nat) (o : opsym) (k : nat)
    : option (heap * list tm * nat) :=
  match nth_error Vs k, clause_of H o, coar o with
  | Some Vk, (_, Qf, Qb), TBase _ =>
      if cmd_closed 1 Qf && cmd_closed 2 Qb then
        match run_machine fuel n hp (subst_cmd (list_subst [Vk]) Qf) with
        | RDone hp1 V1 n1 =>
            if Nat.ltb (S (n1 - n)) fuel then
              let f1 := fuel - S (n1 - n) in
              match rec f1 (S n1) hp1 (Proj 0 V1 :: Vs) with
              | Some (hp2, qs, n2) =>
                  if Nat.ltb (S (n2 - S n1)) f1 then
                    let f2 := f1 - S (n2 - S n1) in
                    (* in the environment [q = <qs>, z' = V1], as the
                       machine runs RH's output: [q] is not walked *)
                    match mloop (S f2) f2 (S n2)
                            (MConf hp2 [] [Tuple qs; V1]
                               (subst_cmd (list_subst [Proj 0 (Var 0); Proj 1 (Var 1)]) Qb)) with
                    | RDone hp3 Y n3 =>
                        if Nat.ltb (S (n3 - S n2)) f2 then
                          let f3 := f2 - S (n3 - S n2) in
                          match qs, Y with
                          | _ :: cs, Const y =>
                              match nth_error cs k with
                              | Some (Const c) =>
                                  if Nat.ltb (S m) f3 then
                                    Some (hp3, set_nth k (Const (cadd c y)) cs, S n3 + S m)
                                  else None
                              | _ => None
                              end
                          | _, _ => None
                          end
                        else None
                    | _ => None
                    end
                  else None
              | None => None
              end
            else None
        | _ => None
        end
      else None
  | _, _, _ => None
  end.

(** What the tape does at an RH-4 level [let x ⇐ Op(f(y_k)) in R] or
    [Op(f(y_k))]: [layer rec fuel n hp Bs Vs f k], [Vs] closed, where
    [rec B' …] runs the rest of the chain with [w : B'] in scope
    ([tape_rh4.v]'s [tape_layer]); [no_layer] answers [None]. *)
Definition layer_fn : Type :=
  (ty -> nat -> nat -> heap -> list tm -> option (heap * list tm * nat)) ->
  nat -> nat -> heap -> list ty -> list tm -> fsym -> nat -> option (heap * list tm * nat).

Definition no_layer : layer_fn := fun _ _ _ _ _ _ _ _ => None.

(** [tape_with layer rf fuel n hp H Bs Vs m R]: [RH^{V⃗}_H(<y⃗>.R)] run
    from [hp] with [fuel], [n] steps counted before, [rf] the fuel of
    [rh_fn], [Vs] closed and [m] the length of [Bs], with [layer] at the
    RH-4 levels; the heap, the components of the value and the step
    count at the end, or [None]. *)
Fixpoint tape_with (layer : layer_fn) (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty)
    (Vs : list tm) (m : nat) (R : cmd) {struct rf} : option (heap * list tm * nat) :=
  match rf with
  | 0 => None
  | S rf' =>
      match R with
      | Ret (Var k) =>
          (* RH-1a: let u ⇐ P[V_k/x] in ⌊<0, …, u@k, …, 0>⌋ *)
          match nth_error Vs k with
          | Some Vk =>
              if cmd_closed 1 (ret_clause H) then
                match run_machine fuel n hp (subst_cmd (list_subst [Vk]) (ret_clause H)) with
                | RDone hp1 u n1 =>
                    if Nat.ltb (S (n1 - n)) fuel then Some (hp1, onehot_list Bs k u, S n1) else None
                | _ => None
                end
              else None
          | None => None
          end
      | CLet (Ret (Var z)) Q =>
          (* RH-1b *)
          tape_with layer rf' fuel n hp H Bs Vs m (subst_cmd (list_subst [Var z]) Q)
      | Op o (Var k) =>
          (* RH-2 with [Op(y_k)] the whole rest of the body: the rest of
             the chain is [⌊y⌋], RH-1a at once *)
          tape_op (fun f1 n1 hp1 Vs1 => tape_with layer rf' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) (Ret (Var 0)))
            fuel n hp H Vs m o k
      | CLet (Op o (Var k)) Q =>
          (* RH-2, then RH-1b on the continuation [let x ⇐ ⌊y⌋ in Q] *)
          match rf' with
          | 0 => None
          | S rf'' =>
              tape_op (fun f1 n1 hp1 Vs1 => tape_with layer rf'' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) Q)
                fuel n hp H Vs m o k
          end
      | CLet (Op o (App f (Var k))) Q =>
          (* RH-4 on [f(y_k)], then RH-2 on [Op(w)] and the continuation *)
          layer (fun B' f1 n1 hp1 Vs1 =>
                   tape_with layer rf' f1 n1 hp1 H (B' :: Bs) Vs1 (S m) (CLet (Op o (Var 0)) (ren_cmd (up_ren S) Q)))
            fuel n hp Bs Vs f k
      | Op o (App f (Var k)) =>
          (* the last layer: RH-4 on [f(y_k)], then RH-2 on [Op(w)] *)
          layer (fun B' f1 n1 hp1 Vs1 => tape_with layer rf' f1 n1 hp1 H (B' :: Bs) Vs1 (S m) (Op o (Var 0)))
            fuel n hp Bs Vs f k
      | _ => None
      end
  end.

(** [tape rf fuel n hp H Bs Vs m R]: [tape_with] with no RH-4 level
    ([no_layer]). *)
Definition tape (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm)
    (m : nat) (R : cmd) : option (heap * list tm * nat) :=
  tape_with no_layer rf fuel n hp H Bs Vs m R.

(** [run] on [let x ⇐ P in Q] through a run of [P] by the machine. *)
Lemma run_let_machine fuel n hp P Q hp' V n' :
  run_machine fuel n hp P = RDone hp' V n' ->
  run fuel n hp (CLet P Q) = run (fuel - S (n' - n)) (S n') hp' (subst_cmd (list_subst [V]) Q).
Proof. rewrite run_machine_correct. apply run_let_done. Qed.

Lemma run_ret_value fuel n hp V : 0 < fuel -> value V -> run fuel n hp (Ret V) = RDone hp V n.
Proof.
  intros Hf HV. destruct fuel as [|fuel]; [lia|]. cbn [run].
  rewrite (step_conf_fn_ret_done _ _ _ HV). reflexivity.
Qed.

(** The closed point of the level below: [V1 · σ] on the point of [RH]'s
    recursive call, whose first component is [W]. *)
Lemma map_subst_up_cons σ V1 W Vs :
  map (subst_tm (fun x => subst_tm (list_subst [V1]) (up σ x))) (W :: map shift Vs) =
  subst_tm (fun x => subst_tm (list_subst [V1]) (up σ x)) W :: map (subst_tm σ) Vs.
Proof.
  cbn [map]. f_equal.
  rewrite map_map. apply map_ext. intros V.
  unfold shift. rewrite subst_ren. apply subst_tm_ext. intros x.
  cbn [up]. apply subst_single_shift.
Qed.

Lemma map_subst_shift_cons σ V1 Vs :
  Proj 0 V1 :: map (subst_tm σ) Vs =
  map (subst_tm (fun x => subst_tm (list_subst [V1]) (up σ x))) (Proj 0 (Var 0) :: map shift Vs).
Proof. rewrite map_subst_up_cons. reflexivity. Qed.

(** An RH-2 level of the tape is [run] on [rh_op_out] around the output
    the recursive call stands for ([rh_rec]), closed by [σ]: the same
    proof for a level inside the chain and for the last one. *)
Lemma tape_op_correct rec rh_rec fuel n hp H Bs Vs σ m o k hp' vs n' :
  m = length Bs ->
  (forall f1 n1 hp1 V1 hp2 qs n2,
     rec f1 n1 hp1 (Proj 0 V1 :: map (subst_tm σ) Vs) = Some (hp2, qs, n2) ->
     exists Rrec, rh_rec = RHOk Rrec /\
       run f1 n1 hp1 (subst_cmd (fun x => subst_tm (list_subst [V1]) (up σ x)) Rrec)
         = RDone hp2 (Tuple qs) n2 /\ length qs = S m) ->
  tape_op rec fuel n hp H (map (subst_tm σ) Vs) m o k = Some (hp', vs, n') ->
  exists Vk D Qf Qb Rrec, nth_error Vs k = Some Vk /\ clause_of H o = (D, Qf, Qb) /\
    rh_rec = RHOk Rrec /\
    run fuel n hp (subst_cmd σ (rh_op_out Bs o k Vk Qf Qb Rrec)) = RDone hp' (Tuple vs) n' /\
    length vs = m.
Proof.
  intros Hm Hrec Ht. unfold tape_op in Ht.
    rewrite nth_error_map in Ht. destruct (nth_error Vs k) as [Vk|] eqn:Hk; [|discriminate].
    cbn [option_map] in Ht.
    destruct (clause_of H o) as [[D Qf] Qb] eqn:Hcl.
    destruct (coar o) as [b|As] eqn:Hco; [|discriminate].
    destruct (cmd_closed 1 Qf) eqn:HQf; [|discriminate].
    destruct (cmd_closed 2 Qb) eqn:HQb; [|discriminate]. cbn [andb] in Ht.
    destruct (run_machine fuel n hp _) as [hp1 V1 n1| | | |] eqn:Hr1; try discriminate.
    destruct (Nat.ltb_spec (S (n1 - n)) fuel) as [Hf1|]; [|discriminate].
    set (f1 := fuel - S (n1 - n)) in Ht.
    set (σ1 := fun x => subst_tm (list_subst [V1]) (up σ x)).
    destruct (rec f1 (S n1) hp1 _) as [[[hp2 qs] n2]|] eqn:Ht2; [|discriminate].
    destruct (Hrec _ _ _ _ _ _ _ Ht2) as [Rrec [Hrh [Hrun2 Hlen2]]].
    fold σ1 in Hrun2.
    destruct (Nat.ltb_spec (S (n2 - S n1)) f1) as [Hf2|]; [|discriminate].
    set (f2 := f1 - S (n2 - S n1)) in Ht.
    destruct (mloop_with mfallback (S f2) f2 (S n2) _) as [hp3 Y n3| | | |] eqn:Hr3; try discriminate.
    destruct (Nat.ltb_spec (S (n3 - S n2)) f2) as [Hf3|]; [|discriminate].
    set (f3 := f2 - S (n3 - S n2)) in Ht.
    destruct qs as [|y' cs]; [discriminate|]. destruct Y as [| y | | | | | |]; try discriminate.
    destruct (nth_error cs k) as [[| c | | | | | |]|] eqn:Hck; try discriminate.
    destruct (Nat.ltb_spec (S m) f3) as [Hf4|]; [|discriminate].
    injection Ht as <- <- <-.
    assert (Hr3' : run f2 (S n2) hp2 (subst_cmd (list_subst [Proj 0 (Tuple (y' :: cs)); Proj 1 V1]) Qb)
                   = RDone hp3 (Const y) n3).
    { rewrite mloop_correct in Hr3.
      - unfold assemble in Hr3. cbn [map fill_c fold_left] in Hr3. rewrite subst_cmd_subst in Hr3.
        rewrite <- Hr3. f_equal. apply (subst_cmd_closed 2 _ _ _ HQb).
        intros [|[|x]] Hx; [reflexivity|reflexivity|lia].
      - constructor; [exact (proj1 (run_done_inv _ _ _ _ _ _ _ Hrun2))|].
        constructor; [|constructor]. rewrite run_machine_correct in Hr1.
        exact (proj1 (run_done_inv _ _ _ _ _ _ _ Hr1)).
      - constructor. }
    exists Vk, D, Qf, Qb, Rrec. split; [reflexivity|]. split; [reflexivity|]. split; [exact Hrh|].
    split; [|rewrite set_nth_length; cbn in Hlen2; lia].
    unfold rh_op_out. cbn [subst_cmd].
    (* the forward clause *)
    rewrite subst_cmd_subst.
    rewrite (subst_cmd_closed 1 _ _ (list_subst [subst_tm σ Vk]) HQf)
      by (intros [|x] Hx; [reflexivity|lia]).
    rewrite (run_let_machine _ _ _ _ _ _ _ _ Hr1). fold f1. cbn [subst_cmd].
    (* the recursive output *)
    rewrite subst_cmd_subst. fold σ1.
    rewrite run_machine_correct in Hr1.
    rewrite (run_let_done _ _ _ _ _ _ _ _ Hrun2). fold f2. cbn [subst_cmd].
    (* the backward clause *)
    rewrite !subst_cmd_subst.
    rewrite (subst_cmd_closed 2 _ _ (list_subst [Proj 0 (Tuple (y' :: cs)); Proj 1 V1]) HQb).
    2:{ intros [|[|x]] Hx; [reflexivity| |lia]. cbn. f_equal. apply subst_single_shift. }
    rewrite (run_let_done _ _ _ _ _ _ _ _ Hr3'). fold f3. cbn [subst_cmd].
    (* the result tuple *)
    rewrite Hco, rh_op_result_base, !subst_op_res. cbn [subst_tm up list_subst nth length].
    change (subst_tm (up (list_subst [Tuple (y' :: cs)])) (subst_tm (up (up (list_subst [V1]))) (shift (Var 0))))
      with (shift (Tuple (y' :: cs))).
    rewrite subst_single_shift.
    destruct (run_done_inv _ _ _ _ _ _ _ Hrun2) as [Hq _].
    apply value_tuple_iff in Hq.
    assert (Hcs : length cs = m) by (cbn in Hlen2; lia).
    rewrite <- Hm, <- Hcs.
    change (Ret (op_res (length cs) k (Tuple (y' :: cs)) (Const y)))
      with (fill_t [] TRet (op_res (length cs) k (Tuple (y' :: cs)) (Const y))).
    rewrite (run_tstar _ _ _ _ _ _ _ _ (tstar_op_res (length cs) k y' cs y c eq_refl Hq Hck)) by lia.
    cbn [fill_t fill_c fold_left plug_t].
    replace (S n3 + S (length cs)) with (S (n3 + S (length cs))) by lia.
    apply run_ret_value; [lia|]. apply value_tuple_iff.
    inversion Hq as [|? ? _ Hcs']; subst. clear - Hcs'.
    revert k. induction cs as [|v cs IHc]; intros [|k]; cbn; [constructor|constructor| |].
    + constructor; [reflexivity|]. inversion Hcs'; assumption.
    + inversion Hcs' as [|? ? Hv Hr]; subst. constructor; [exact Hv|]. apply IHc. exact Hr.
Qed.

(** The two RH-4 levels of a chain: the level and the command of
    [RH]'s recursive call below it, inside the chain ([last = false]) and
    at its end ([last = true], [Q] unused). *)
Definition layer_cmds (last : bool) o f k Q : cmd * cmd :=
  if last then (Op o (App f (Var k)), Op o (Var 0))
  else (CLet (Op o (App f (Var k))) Q, CLet (Op o (Var 0)) (ren_cmd (up_ren S) Q)).

(** [layer] at an RH-4 level is [run] on [rh_fn]'s output for the level,
    closed by [σ], given that [rec] is so for the rest of the chain. *)
Definition layer_ok (layer : layer_fn) : Prop :=
  forall rec rf H Bs Vs σ m last o f k Q fuel n hp hp' vs n',
    m = length Bs ->
    (forall B' f1 n1 hp1 G1 hp2 qs n2,
       rec B' f1 n1 hp1 (G1 :: map (subst_tm σ) Vs) = Some (hp2, qs, n2) ->
       exists Rrec, rh_fn rf H (B' :: Bs) (Var 0 :: map shift Vs) (snd (layer_cmds last o f k Q)) = RHOk Rrec /\
         run f1 n1 hp1 (subst_cmd (fun x => subst_tm (list_subst [G1]) (up σ x)) Rrec)
           = RDone hp2 (Tuple qs) n2 /\ length qs = S m) ->
    layer rec fuel n hp Bs (map (subst_tm σ) Vs) f k = Some (hp', vs, n') ->
    exists R', rh_fn (S rf) H Bs Vs (fst (layer_cmds last o f k Q)) = RHOk R' /\
      run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m.

Lemma no_layer_ok : layer_ok no_layer.
Proof. intros rec rf H Bs Vs σ m last o f k Q fuel n hp hp' vs n' _ _ Ht. discriminate. Qed.

(** [tape_with layer] is [run] on the output of [rh_fn], closed by [σ],
    for a [layer] with [layer_ok].

    Informal proof: by induction on [rf], one case per rule, as [rh_fn]
    does.  RH-1b: the same recursive call.  RH-1a: [σ] commutes with the
    return clause (closed apart from [x]) and with the one-hot tuple;
    [run_let_done] for the let, then the tuple is a value.  RH-2: the
    recursive call of [rh_fn] is, after RH-1b, on [R]'s continuation
    itself ([subst_ren_up_id]); [run_let_done] three times (forward
    clause, recursive output closed by [σ1 = V1 · σ], backward clause),
    the substitutions composed ([subst_cmd_subst]) and reduced by the
    closedness of the clauses; then the result tuple in [m + 1] steps
    ([tstar_op_res]) and its value ([tape_op_correct]).  RH-4: [layer_ok]
    with the induction hypothesis for the rest of the chain closed by
    [G1 · σ]. *)
Lemma tape_with_correct layer (Hl : layer_ok layer) rf : forall fuel n hp H Bs Vs σ m R hp' vs n',
  m = length Bs ->
  tape_with layer rf fuel n hp H Bs (map (subst_tm σ) Vs) m R = Some (hp', vs, n') ->
  exists R', rh_fn rf H Bs Vs R = RHOk R' /\
             run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m.
Proof.
  induction rf as [rf IH] using (well_founded_induction lt_wf).
  intros fuel n hp H Bs Vs σ m R hp' vs n' Hm Ht.
  destruct rf as [|rf']; [discriminate|].
  (* the RH-4 levels *)
  assert (Hlayer : forall last o f k Q,
    layer (fun B' f1 n1 hp1 Vs1 =>
             tape_with layer rf' f1 n1 hp1 H (B' :: Bs) Vs1 (S m) (snd (layer_cmds last o f k Q)))
      fuel n hp Bs (map (subst_tm σ) Vs) f k = Some (hp', vs, n') ->
    exists R', rh_fn (S rf') H Bs Vs (fst (layer_cmds last o f k Q)) = RHOk R' /\
      run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m).
  { intros last o f k Q. apply Hl; [exact Hm|].
    intros B' f1 n1 hp1 G1 hp2 qs n2 Ht2. cbv beta in Ht2.
    replace (G1 :: map (subst_tm σ) Vs)
      with (map (subst_tm (fun x => subst_tm (list_subst [G1]) (up σ x))) (Var 0 :: map shift Vs)) in Ht2
      by (rewrite map_subst_up_cons; reflexivity).
    assert (Hm' : S m = length (B' :: Bs)) by (cbn; lia).
    exact (IH rf' (Nat.lt_succ_diag_r _) _ _ _ _ _ _ _ _ _ _ _ _ Hm' Ht2). }
  destruct R as [M|o M|P Q|M R H1]; [| |destruct P as [M|o M|P Q'|M R H1]| ];
    try (destruct M as [k| |f [k| | | | | | |]| | | | |]); cbn [tape_with] in Ht; try discriminate.
  - (* RH-1a *)
    rewrite nth_error_map in Ht. destruct (nth_error Vs k) as [Vk|] eqn:Hk; [|discriminate].
    cbn [option_map] in Ht.
    destruct (cmd_closed 1 (ret_clause H)) eqn:HP; [|discriminate].
    destruct (run_machine fuel n hp _) as [hp1 u n1| | | |] eqn:Hr; try discriminate.
    destruct (Nat.ltb_spec (S (n1 - n)) fuel) as [Hf|]; [|discriminate].
    injection Ht as <- <- <-.
    exists (rh_ret_out H Bs k Vk). split; [cbn; rewrite Hk; reflexivity|].
    split; [|rewrite onehot_list_length; symmetry; exact Hm].
    unfold rh_ret_out. cbn [subst_cmd].
    rewrite subst_cmd_subst.
    rewrite (subst_cmd_closed 1 _ _ (list_subst [subst_tm σ Vk]) HP)
      by (intros [|x] Hx; [reflexivity|lia]).
    rewrite (run_let_machine _ _ _ _ _ _ _ _ Hr). cbn [subst_cmd].
    rewrite !subst_onehot. cbn [subst_tm up list_subst nth].
    rewrite run_machine_correct in Hr. destruct (run_done_inv _ _ _ _ _ _ _ Hr) as [Hu _].
    rewrite onehot_eq. apply run_ret_value; [lia|]. rewrite <- onehot_eq. apply value_onehot. exact Hu.
  - (* RH-2, the last operation of the body *)
    assert (Hm' : S m = length (ar o :: Bs)) by (cbn; lia).
    destruct (tape_op_correct
                (fun f1 n1 hp1 Vs1 => tape_with layer rf' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) (Ret (Var 0)))
                (rh_fn rf' H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs) (Ret (Var 0)))
                fuel n hp H Bs Vs σ m o k hp' vs n' Hm) as [Vk [D [Qf [Qb [Rrec [Hk [Hcl [Hrh [Hrun Hlen]]]]]]]]];
      [|exact Ht|].
    { intros f1 n1 hp1 V1 hp2 qs n2 Ht2. cbv beta in Ht2. rewrite (map_subst_shift_cons σ V1 Vs) in Ht2.
      exact (IH rf' (Nat.lt_succ_diag_r _) _ _ _ _ _ _ _ _ _ _ _ _ Hm' Ht2). }
    exists (rh_op_out Bs o k Vk Qf Qb Rrec). split; [|split; assumption].
    cbn [rh_fn split_c]. rewrite Hk, Hcl. cbn [shift_frames fill_c fold_left map]. rewrite Hrh. reflexivity.
  - (* RH-4, the last layer of the body *)
    exact (Hlayer true o f k (Ret (Var 0)) Ht).
  - (* RH-1b *)
    rename k into z.
    destruct (IH rf' (Nat.lt_succ_diag_r _) _ _ _ _ _ _ _ _ _ _ _ _ Hm Ht) as [R' [Hrh Hrun]].
    exists R'. split; [|exact Hrun]. cbn [rh_fn split_c app]. exact Hrh.
  - (* RH-2 *)
    destruct rf' as [|rf'']; [discriminate|].
    assert (Hm' : S m = length (ar o :: Bs)) by (cbn; lia).
    destruct (tape_op_correct
                (fun f1 n1 hp1 Vs1 => tape_with layer rf'' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) Q)
                (rh_fn rf'' H (ar o :: Bs) (Proj 0 (Var 0) :: map shift Vs) Q)
                fuel n hp H Bs Vs σ m o k hp' vs n' Hm) as [Vk [D [Qf [Qb [Rrec [Hk [Hcl [Hrh [Hrun Hlen]]]]]]]]];
      [|exact Ht|].
    { intros f1 n1 hp1 V1 hp2 qs n2 Ht2. cbv beta in Ht2. rewrite (map_subst_shift_cons σ V1 Vs) in Ht2.
      exact (IH rf'' ltac:(lia) _ _ _ _ _ _ _ _ _ _ _ _ Hm' Ht2). }
    exists (rh_op_out Bs o k Vk Qf Qb Rrec). split; [|split; assumption].
    cbn [rh_fn split_c app]. rewrite Hk, Hcl.
    change (fill_c (shift_frames [Q]) (Ret (Var 0))) with (CLet (Ret (Var 0)) (ren_cmd (up_ren S) Q)).
    cbn [rh_fn split_c app fill_c fold_left]. rewrite subst_ren_up_id, Hrh. reflexivity.
  - (* RH-4 *)
    exact (Hlayer false o f k Q Ht).
Qed.

(** The tape is [run] on the output of [rh_fn], closed by [σ]
    ([tape_with_correct] with [no_layer]). *)
Lemma tape_correct rf : forall fuel n hp H Bs Vs σ m R hp' vs n',
  m = length Bs ->
  tape rf fuel n hp H Bs (map (subst_tm σ) Vs) m R = Some (hp', vs, n') ->
  exists R', rh_fn rf H Bs Vs R = RHOk R' /\
             run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m.
Proof. exact (tape_with_correct no_layer no_layer_ok rf). Qed.

(** The hook that runs [tape_with layer] at a [rev handle] whose body
    has the [shape] ([machine_fast.v]'s [fast_hook]; [tape_rh4.v]'s
    [fast_hook4] answers only what [tape_hook (tape_layer cfitsb)] answers). *)
Definition tape_hook (layer : layer_fn) (shape : cmd -> bool) : mhook := fun fuel k n hp H Bs Vs R =>
  if shape R then tape_with layer (fuel - k) (fuel - S k) (S (n + k)) hp H Bs Vs (length Bs) R
  else None.

(** The hook answers only what [run] computes.

    Informal proof: by [tape_with_correct] (with the identity
    substitution) [rh_fn] succeeds with some [R'] and [run] on [R'] ends
    with [⌊<vs>⌋], [hp'] and [n'] steps; in a context, [run] goes
    through [R']'s run ([run_fill_c_done]) to the context around
    [⌊<vs>⌋] with the fuel left. *)
Lemma tape_hook_ok layer (Hl : layer_ok layer) shape : hook_ok (tape_hook layer shape).
Proof.
  intros fuel k n hp H Bs Vs R hp' vs n' Hlt Ht. unfold tape_hook in Ht.
  destruct (shape R); [|discriminate].
  rewrite <- (map_id Vs) in Ht.
  rewrite (map_ext (fun x => x) (subst_tm Var)) in Ht by (intros; symmetry; apply subst_tm_id).
  destruct (tape_with_correct layer Hl _ _ _ _ _ _ _ _ _ _ _ _ _ eq_refl Ht) as [R' [Hrh [Hrun _]]].
  rewrite subst_cmd_id in Hrun.
  exists R'. split; [exact Hrh|]. intros K. exact (run_fill_c_done _ _ _ _ _ _ _ _ Hrun).
Qed.

End tape.

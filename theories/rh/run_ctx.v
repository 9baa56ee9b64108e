(** * [run] in a let context: the run of [F^c[P]] is the run of [P], then the rest

    An evaluator that does not materialise the output of [RH] (a tape of
    the handled body's forward clauses, its return clause and its backward
    clauses run one by one, docs/decisions.md, "An evaluator linear in the
    run") runs each clause instance on its own and must still answer what
    [run] answers on the whole let-chain [RH] builds around it.  This file
    gives the compositional law it rests on, for every command, heap and
    fuel, with no hypothesis:
    - [step_conf_fn_fill_c]: a step of [F^c[P]] is a step of [P] in the
      context, or, once [P] is [⌊V⌋], the pop of the innermost let-frame;
    - [run_fill_c]: [run] on [F^c[P]] is [run] on [P] followed by [run] on
      [F^c[⌊V⌋]] with the fuel left, when [P] ends with a value; otherwise
      [P]'s answer with its command put back in the context (the same
      heap, step count, stuck function symbol, operation and value);
    - [run_let_done]: the form for one let, [let x ⇐ P in Q]: [P]'s steps,
      one step for the let, then [Q[V/x]] (the step count computed from
      [P]'s). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts complete.

Section run_ctx.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (V : tm) (P Q : cmd) (K : list cmd).

Lemma split_c_fill_c K P :
  split_c (fill_c K P) = (fst (split_c P) ++ K, snd (split_c P)).
Proof.
  pose proof (split_c_spec P) as [HP Hn].
  destruct (split_c P) as [K0 P0]. cbn [fst snd] in *. subst P.
  rewrite <- fill_c_app. apply split_c_fill. exact Hn.
Qed.

(** What a step of [P] is in the context [F^c = K]. *)
Definition frame_step (K : list cmd) (hp : heap) (s : conf_step) : conf_step :=
  match s with
  | CSStep hp' P' => CSStep hp' (fill_c K P')
  | CSDone V =>
      match K with
      | [] => CSDone V
      | Q :: K' => CSStep hp (fill_c K' (subst_cmd (list_subst [V]) Q))
      end
  | s => s
  end.

Lemma step_conf_fn_fill_c fuel hp K P :
  step_conf_fn fuel hp (fill_c K P) = frame_step K hp (step_conf_fn fuel hp P).
Proof.
  unfold step_conf_fn. rewrite split_c_fill_c.
  destruct (split_c P) as [K0 P0]. cbn [fst snd]. unfold term_conf_step, fill_t.
  destruct P0 as [M|o M|P1 Q|M R H]; [| |reflexivity|];
    (destruct (step_tm_fn M) as [M'| | |]; cbn [frame_step];
     [rewrite fill_c_app; reflexivity| |reflexivity|reflexivity]).
  - (* ⌊V⌋: done, or the pop of a frame *)
    destruct K0 as [|Q0 K0]; cbn [app frame_step]; [reflexivity|].
    rewrite fill_c_app. reflexivity.
  - (* Op(V) *)
    destruct o as [o|l|l]; cbn [frame_step]; [reflexivity|rewrite fill_c_app; reflexivity|].
    destruct M; cbn [frame_step]; try reflexivity. rewrite fill_c_app. reflexivity.
  - (* rev handle(V) *)
    destruct M; cbn [frame_step]; try reflexivity.
    destruct (infer_tm [] _) as [[b|Bs]|]; cbn [frame_step]; try reflexivity.
    destruct (rh_fn fuel H Bs Ms R); cbn [frame_step]; try reflexivity.
    rewrite fill_c_app. reflexivity.
Qed.

(** The step count of an answer. *)
Definition result_steps (r : run_result) : nat :=
  match r with
  | RDone _ _ m | RStuckEv _ _ _ _ m | RStuckOp _ _ _ _ m | ROutOfFuel _ _ m | RWrong _ _ m => m
  end.

Lemma run_steps_ge fuel n hp P : n <= result_steps (run fuel n hp P).
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P; cbn [run]; [cbn; lia|].
  destruct (step_conf_fn (S fuel) hp P) as [hp1 P1| | | | |]; cbn [result_steps]; try lia.
  specialize (IH (S n) hp1 P1). lia.
Qed.

(** An answer [⌊V⌋] is a value, reached with fuel to spare. *)
Lemma run_done_inv fuel n hp P hp' V n' :
  run fuel n hp P = RDone hp' V n' -> value V /\ n <= n' < n + fuel.
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P; cbn [run]; [discriminate|].
  destruct (step_conf_fn (S fuel) hp P) as [hp1 P1|V1| | | |] eqn:Hs; try discriminate.
  - intros Hr. destruct (IH _ _ _ Hr) as [HV Hlt]. split; [exact HV|lia].
  - intros [= <- <- <-]. destruct (step_conf_fn_done _ _ _ _ Hs) as [_ HV]. split; [exact HV|lia].
Qed.

(** What follows the answer of [P] in the context [K]: with fuel [fuel]
    and [n] steps counted at the start of [P]. *)
Definition run_rest (fuel n : nat) (K : list cmd) (r : run_result) : run_result :=
  match r with
  | RDone hp V n' => run (fuel - (n' - n)) n' hp (fill_c K (Ret V))
  | RStuckEv hp P f V n' => RStuckEv hp (fill_c K P) f V n'
  | RStuckOp hp P o V n' => RStuckOp hp (fill_c K P) o V n'
  | ROutOfFuel hp P n' => ROutOfFuel hp (fill_c K P) n'
  | RWrong hp P n' => RWrong hp (fill_c K P) n'
  end.

(** [run] on [F^c[P]] goes through [run] on [P].

    Informal proof: by induction on the fuel.  A step of [P] is a step of
    [F^c[P]] ([step_conf_fn_fill_c]); when [P] is [⌊V⌋], both sides are
    [run] on [F^c[⌊V⌋]] with the same fuel; a stuck, wrong or out-of-fuel
    [P] makes [F^c[P]] stop there with the same data. *)
Lemma run_fill_c fuel n hp K P :
  run fuel n hp (fill_c K P) = run_rest fuel n K (run fuel n hp P).
Proof.
  revert n hp P. induction fuel as [|fuel IH]; intros n hp P; [reflexivity|].
  cbn [run]. rewrite step_conf_fn_fill_c.
  destruct (step_conf_fn (S fuel) hp P) as [hp1 P1|V|f V|o V| |] eqn:Hs;
    cbn [frame_step run_rest]; try reflexivity.
  - (* a step of P *)
    rewrite IH. pose proof (run_steps_ge fuel (S n) hp1 P1) as Hge.
    destruct (run fuel (S n) hp1 P1); cbn [run_rest result_steps] in *; try reflexivity.
    f_equal. lia.
  - (* P is ⌊V⌋ *)
    destruct (step_conf_fn_done _ _ _ _ Hs) as [-> HV].
    rewrite Nat.sub_diag, Nat.sub_0_r. cbn [run]. rewrite step_conf_fn_fill_c, Hs. reflexivity.
Qed.

(** [let x ⇐ P in Q]: [P]'s run, one step for the let, then [Q[V/x]]. *)
Lemma run_let_done fuel n hp P Q hp' V n' :
  run fuel n hp P = RDone hp' V n' ->
  run fuel n hp (CLet P Q) = run (fuel - S (n' - n)) (S n') hp' (subst_cmd (list_subst [V]) Q).
Proof.
  intros Hr. destruct (run_done_inv _ _ _ _ _ _ _ Hr) as [HV Hlt].
  change (CLet P Q) with (fill_c [Q] P). rewrite run_fill_c, Hr. cbn [run_rest].
  replace (fuel - (n' - n)) with (S (fuel - S (n' - n))) by lia.
  cbn [run]. rewrite step_conf_fn_fill_c.
  assert (Hd : step_conf_fn (S (fuel - S (n' - n))) hp' (Ret V) = CSDone V).
  { unfold step_conf_fn. cbn. unfold term_conf_step. rewrite (step_tm_fn_value _ HV). reflexivity. }
  rewrite Hd. reflexivity.
Qed.

(** The same for a stack of frames: the answer of [P] is a value, so the
    rest is [F^c[⌊V⌋]] with the fuel left. *)
Lemma run_fill_c_done fuel n hp K P hp' V n' :
  run fuel n hp P = RDone hp' V n' ->
  run fuel n hp (fill_c K P) = run (fuel - (n' - n)) n' hp' (fill_c K (Ret V)).
Proof. intros Hr. rewrite run_fill_c, Hr. reflexivity. Qed.

End run_ctx.

(** * A total evaluator: no fuel needed

    [normalization.v] proves that on a program the checker accepts, with a
    heap that respects the shapes of the locations, the evaluator [run]
    and the environment machine [run_machine] answer the final
    configuration from some fuel on ([run_machine_total]), but that fuel
    is not computed from the program.  This file turns the existence into
    a function: [run_total_fn] searches the fuel by doubling ([first_fuel]
    = 2^40, 2^41, ...) until the answer is not "out of fuel", keeping
    the answer of the last run.  The search is a structural recursion on a
    proof ([enough], the pattern of [ConstructiveEpsilon]'s
    [before_witness]); the proof is erased by extraction, which leaves a
    plain loop.  The runs are the environment machine's, but without its
    fallback to small steps when a term needs more steps than the fuel
    left ([mloop_nf]): a try that falls short stops there, at once, rather
    than taking the remaining fuel in small steps, each of a cost that
    grows with the command ([mloop_nf_spec]: it is the machine whenever
    it answers, and "out of fuel" only when the machine is).  With
    [small], the tries are the small-step evaluator's.

    Theorems, for the executable instance (the one [rh-eval] runs):
    - [run_total_fn_some]: on a checked program and a heap that respects
      the shapes it answers ([Some]); [run_total_fn_none]: it answers
      [None] exactly when the check fails or the heap does not respect
      the shapes;
    - [run_total_fn_correct]: its answer is the answer of [run] and of
      [run_machine] for every fuel from the one it found on;
      [run_total_fn_agrees]: and for every fuel with which [run_machine]
      is not out of fuel;
    - [run_total_fn_not_out_of_fuel]: it is never "out of fuel";
    - [run_total_fn_final]: it is the final configuration the program
      reaches, with the number of steps to it ([final_result] of
      [nsteps_conf]);
    - [run_total_fn_fuel_le]: the fuel it found is at most twice any fuel
      with which [run] answers, or [first_fuel]; each try stops within
      its fuel (but for a term the machine evaluates at once, evaluated
      whole before its steps are compared with the fuel), so the tries
      together take at most about twice the steps of the fuel found, four
      times any fuel with an answer;
    - [run_total_fn_heap_ok]: the heap of a result respects the shapes
      (so a resident session's heap, which starts from [init_heap] and is
      changed by [heap_set] and results only, always does);
    - [run_total_fn_init_heap]: from a program's initial heap it answers
      whenever the checker accepts the program. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts progress machine instance
  complete normalization frontend effects.

(** ** The search, for any function from fuels to answers *)
Section search.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Definition out_of_fuel_dec (r : run_result) : {out_of_fuel r} + {~ out_of_fuel r} :=
  match r return {out_of_fuel r} + {~ out_of_fuel r} with
  | ROutOfFuel _ _ _ => left I
  | _ => right (fun H => H)
  end.

Variable ev : nat -> run_result.

(** [enough f]: some fuel [f], [f + f], [f + f + f + f], ... gives an
    answer other than "out of fuel". *)
Inductive enough (f : nat) : Prop :=
| enough_now : ~ out_of_fuel (ev f) -> enough f
| enough_later : enough (f + f) -> enough f.

Scheme enough_ind_dep := Induction for enough Sort Prop.

Definition enough_next (f : nat) (w : enough f) (H : out_of_fuel (ev f)) : enough (f + f) :=
  match w with
  | enough_now _ Hn => match Hn H with end
  | enough_later _ w' => w'
  end.

(** The fuel found and the answer with it. *)
Fixpoint search (f : nat) (w : enough f) {struct w} : nat * run_result :=
  let r := ev f in
  match out_of_fuel_dec r with
  | left H => search (f + f) (enough_next f w H)
  | right _ => (f, r)
  end.

Lemma search_spec f w :
  ev (fst (search f w)) = snd (search f w) /\ ~ out_of_fuel (snd (search f w)) /\
  f <= fst (search f w).
Proof.
  induction w as [f Hn|f w IH] using enough_ind_dep; simpl;
    destruct (out_of_fuel_dec (ev f)) as [H|H]; simpl.
  - contradiction.
  - auto.
  - destruct IH as [H1 [H2 H3]]. repeat split; auto. lia.
  - auto.
Qed.

Lemma enough_from N f : (forall g, N < g -> ~ out_of_fuel (ev g)) -> 0 < f -> enough f.
Proof.
  intros HN. assert (Hk : forall k f, S N - f <= k -> 0 < f -> enough f).
  { induction k as [|k IH]; intros f' Hk Hf.
    - apply enough_now, HN. lia.
    - destruct (Nat.lt_ge_cases N f') as [Hlt|Hge]; [apply enough_now, HN; exact Hlt|].
      apply enough_later, IH; lia. }
  apply (Hk (S N)); lia.
Qed.

(** If a larger fuel never takes an answer away, the fuel found from [f0]
    is at most twice any fuel with an answer, or [f0]. *)
Lemma search_fuel_le f0 f w g :
  (forall f1 f2, f1 <= f2 -> ~ out_of_fuel (ev f1) -> ~ out_of_fuel (ev f2)) ->
  ~ out_of_fuel (ev g) -> f <= Nat.max f0 (2 * g) -> fst (search f w) <= Nat.max f0 (2 * g).
Proof.
  intros Hmono Hg. induction w as [f Hn|f w IH] using enough_ind_dep; intros Hf; simpl;
    destruct (out_of_fuel_dec (ev f)) as [H|H]; simpl; [contradiction|exact Hf| |exact Hf].
  apply IH. destruct (Nat.le_gt_cases g f) as [Hle|Hlt].
  - exfalso. exact (Hmono g f Hle Hg H).
  - lia.
Qed.
End search.

(** ** The machine without its fallback on fuel

    When a term needs more steps than the fuel left, [mloop] finishes with
    [run] (small steps, each of a cost that grows with the command), so a
    run that ends "out of fuel" can cost far more than one that has enough
    fuel.  [mloop_nf] is [mloop] answering "out of fuel" at once there;
    the configuration it then carries is not specified.  It agrees with
    [mloop] whenever it does not answer "out of fuel", and answers "out of
    fuel" only when [mloop] does ([mloop_nf_spec]). *)
Section nofallback.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

(** What [mloop_nf] answers when a term needs at least the fuel left. *)
Definition out_of_fuel_now (fuel n : nat) (hp : heap) (K : list mframe) (ρ : list tm) (P : cmd)
    : run_result :=
  ROutOfFuel hp P n.

Local Notation mloop_nf := (mloop_with out_of_fuel_now).

Definition run_machine_nf (fuel : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_nf (S fuel) fuel 0 (MConf hp [] [] P).

(** A term that needs at least [fuel] steps leaves [run] out of fuel. *)
Lemma tstar_out_of_fuel k M V fuel n hp K F :
  tstar k M V -> fuel <= k -> out_of_fuel (run fuel n hp (fill_t K F M)).
Proof.
  intros Hs. revert fuel n. induction Hs as [M|k M M' M'' Hs _ IH]; intros fuel n Hle.
  - replace fuel with 0 by lia. exact I.
  - destruct fuel as [|fuel]; [exact I|]. cbn [run]. rewrite (step_conf_fn_term _ _ _ _ _ _ Hs).
    apply IH. lia.
Qed.

Lemma fallback_out_of_fuel fuel n hp K ρ F M V k :
  env_ok ρ -> meval fuel ρ M = Some (V, k) -> fuel <= k ->
  out_of_fuel (mfallback fuel n hp K ρ (plug_t F M)).
Proof.
  intros Hρ Hev Hle. destruct (meval_sound _ _ _ _ _ Hρ Hev) as [Hs _].
  unfold mfallback. rewrite <- assemble_term. exact (tstar_out_of_fuel _ _ _ _ _ _ _ _ Hs Hle).
Qed.

(** [out_of_fuel_now] answers [run]'s answer or, as [run], "out of fuel". *)
Lemma short_ok_out_of_fuel_now :
  short_ok (fun r1 r2 => r1 = r2 \/ (out_of_fuel r1 /\ out_of_fuel r2)) out_of_fuel_now.
Proof.
  intros fuel n hp K ρ F M V k Hρ Hev Hle. right. split; [exact I|].
  exact (fallback_out_of_fuel _ _ _ _ _ F _ _ _ Hρ Hev Hle).
Qed.

Lemma mloop_nf_spec gas fuel n hp K ρ P :
  env_ok ρ -> stack_ok K ->
  mloop_nf gas fuel n (MConf hp K ρ P) = mloop gas fuel n (MConf hp K ρ P) \/
  (out_of_fuel (mloop_nf gas fuel n (MConf hp K ρ P)) /\ out_of_fuel (mloop gas fuel n (MConf hp K ρ P))).
Proof.
  intros Hρ HK. rewrite mloop_correct by assumption.
  exact (mloop_hook_agrees _ no_hook out_of_fuel_now gas fuel n hp K ρ P
           (fun r => or_introl eq_refl) hook_ok_no_hook short_ok_out_of_fuel_now Hρ HK).
Qed.

Lemma run_machine_nf_spec fuel hp P :
  run_machine_nf fuel hp P = run fuel 0 hp P \/
  (out_of_fuel (run_machine_nf fuel hp P) /\ out_of_fuel (run fuel 0 hp P)).
Proof.
  rewrite <- run_machine_correct. apply mloop_nf_spec; apply Forall_nil.
Qed.
End nofallback.

Notation mloop_nf := (mloop_with out_of_fuel_now).

(** ** Deciding the premises *)
Section decide.
Context {Srt : sorts} {Σ : signature}.

Definition heap_ok_dec (hp : heap) : {heap_ok hp} + {~ heap_ok hp} :=
  Forall_dec _ (fun lc => base_eq_dec (const_ty (snd lc)) (loc_base (fst lc))) hp.

Definition check_dec (P : cmd) : {A : ty | check_cmd [] P = Ok A} + {forall A, check_cmd [] P <> Ok A} :=
  match check_cmd [] P as c return {A : ty | c = Ok A} + {forall A, c <> Ok A} with
  | Ok A => inleft (exist _ A eq_refl)
  | Err e => inright (fun A (H : Err e = Ok A) =>
                        match H in _ = c return match c with Ok _ => False | Err _ => True end
                        with eq_refl => I end)
  end.
End decide.

(** ** The total evaluator of the executable instance

    The theorems of the executable instance that [normalization.v] and
    [effects.v] lead to are here too, in this one section
    ([exec_run_machine_total], [run_total_fn_not_stuck_op]). *)
Section exec.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance total_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance total_signature : signature := exec_signature vo decls locs.
#[local] Instance total_evaluator : evaluator := exec_evaluator vo.

(** What the driver runs: [rh-eval] checks a program with [check_cmd]
    and runs it on the environment machine in the executable instance
    ([exec_check] and [exec_run_machine] of [extraction.v] are these
    functions at [exec_signature] and [exec_evaluator]).  For every
    program the checker accepts, with a heap that respects the shapes, the
    machine answers the final configuration from fuel [n + m + 1] on
    ([normalization.v]'s [run_machine_total]). *)
Lemma exec_run_machine_total hp P A :
  check_cmd [] P = Ok A -> heap_ok hp -> answers_from run_machine hp P.
Proof.
  intros Hc Hhp. apply check_cmd_correct in Hc.
  exact (@run_machine_total _ _ _ (exec_evaluator_ok vo decls locs) hp P A Hhp Hc).
Qed.

(** The run with fuel [f]: the small-step evaluator with [small], the
    environment machine without its fallback on fuel otherwise. *)
Definition total_ev (small : bool) (hp : heap) (P : cmd) (f : nat) : run_result :=
  if small then run f 0 hp P else run_machine_nf f hp P.

Lemma total_ev_spec small hp P f :
  total_ev small hp P f = run f 0 hp P \/
  (out_of_fuel (total_ev small hp P f) /\ out_of_fuel (run f 0 hp P)).
Proof. unfold total_ev. destruct small; [left; reflexivity|apply run_machine_nf_spec]. Qed.

Lemma total_ev_run small hp P f :
  ~ out_of_fuel (total_ev small hp P f) -> total_ev small hp P f = run f 0 hp P.
Proof. intros H. destruct (total_ev_spec small hp P f) as [E|[Ho _]]; [exact E|contradiction]. Qed.

Lemma total_ev_answers small hp P f :
  ~ out_of_fuel (run f 0 hp P) -> ~ out_of_fuel (total_ev small hp P f).
Proof. intros H. destruct (total_ev_spec small hp P f) as [->|[_ Ho]]; [exact H|contradiction]. Qed.

(** The first fuel tried; with more, the search doubles it.  A try with
    enough fuel costs the same whatever the fuel (the machine stops at the
    answer), and a try that falls short still performs every [RH]
    rewriting it meets, so the first fuel is large: 2^40, computed by
    multiplication (nat is OCaml's int in the extracted code). *)
Definition first_fuel : nat := 1024 * 1024 * 1024 * 1024.

Lemma total_enough small hp P A :
  check_cmd [] P = Ok A -> heap_ok hp -> enough (total_ev small hp P) first_fuel.
Proof.
  intros Hc Hhp.
  destruct (exec_run_machine_total hp P A Hc Hhp) as [n [m [hp' [P' [r [_ [Hr Hrun]]]]]]].
  apply (enough_from _ (n + m)); [|unfold first_fuel; lia]. intros f Hf.
  assert (Hf' : run_machine f 0 hp P = r) by exact (Hrun f Hf).
  apply total_ev_answers. rewrite <- run_machine_correct, Hf'.
  exact (final_result_not_out_of_fuel _ _ _ _ Hr).
Qed.

(** [run_total_fn small hp P]: for a program [P] the checker accepts and
    a heap [hp] that respects the shapes, the fuel found and the answer;
    [None] if the check fails or the heap does not respect the shapes. *)
Definition run_total_fn (small : bool) (hp : heap) (P : cmd) : option (nat * run_result) :=
  match check_dec P, heap_ok_dec hp with
  | inleft (exist _ A Hc), left Hhp =>
      Some (search (total_ev small hp P) first_fuel (total_enough small hp P A Hc Hhp))
  | _, _ => None
  end.

Lemma run_total_fn_spec small hp P F r :
  run_total_fn small hp P = Some (F, r) ->
  (exists A, check_cmd [] P = Ok A) /\ heap_ok hp /\
  run F 0 hp P = r /\ ~ out_of_fuel r /\ first_fuel <= F /\
  forall g, ~ out_of_fuel (run g 0 hp P) -> F <= Nat.max first_fuel (2 * g).
Proof.
  unfold run_total_fn. destruct (check_dec P) as [[A Hc]|Hn]; [|discriminate].
  destruct (heap_ok_dec hp) as [Hhp|Hn]; [|discriminate]. intros Heq. injection Heq as Heq.
  pose proof (search_fuel_le (total_ev small hp P) first_fuel first_fuel
    (total_enough small hp P A Hc Hhp)) as Hle.
  destruct (search_spec _ first_fuel (total_enough small hp P A Hc Hhp)) as [H1 [H2 H3]].
  rewrite Heq in H1, H2, H3, Hle. cbn [fst snd] in H1, H2, H3, Hle.
  assert (Hrun : run F 0 hp P = r).
  { rewrite <- H1. symmetry. apply total_ev_run. rewrite H1. exact H2. }
  split; [eauto|]. split; [exact Hhp|]. split; [exact Hrun|]. split; [exact H2|]. split; [exact H3|].
  intros g Hg. apply Hle; [| |apply Nat.le_max_l].
  - intros f1 f2 Hf12 Hf1. apply total_ev_answers. rewrite (total_ev_run _ _ _ _ Hf1) in Hf1.
    rewrite (run_stable f1 f2) by assumption. exact Hf1.
  - apply total_ev_answers. exact Hg.
Qed.

(** It answers on every checked program and heap that respects the shapes. *)
Theorem run_total_fn_some small hp P A :
  check_cmd [] P = Ok A -> heap_ok hp -> exists F r, run_total_fn small hp P = Some (F, r).
Proof.
  intros Hc Hhp. unfold run_total_fn. destruct (check_dec P) as [[A' Hc']|Hn].
  - destruct (heap_ok_dec hp) as [Hhp'|Hn]; [|contradiction].
    eexists _, _. rewrite <- surjective_pairing. reflexivity.
  - exfalso. exact (Hn A Hc).
Qed.

Theorem run_total_fn_none small hp P :
  run_total_fn small hp P = None <-> (forall A, check_cmd [] P <> Ok A) \/ ~ heap_ok hp.
Proof.
  split.
  - unfold run_total_fn. destruct (check_dec P) as [[A Hc]|Hn]; [|auto].
    destruct (heap_ok_dec hp) as [Hhp|Hn]; [discriminate|auto].
  - intros H. destruct (run_total_fn small hp P) as [[F r]|] eqn:Ht; [|reflexivity].
    destruct (run_total_fn_spec _ _ _ _ _ Ht) as [[A Hc] [Hhp _]].
    destruct H as [H|H]; [destruct (H A Hc)|contradiction].
Qed.

(** Its answer is the answer of [run] and of the machine for every fuel
    from the one it found on. *)
Theorem run_total_fn_correct small hp P F r :
  run_total_fn small hp P = Some (F, r) ->
  forall fuel, F <= fuel -> run_machine fuel 0 hp P = r /\ run fuel 0 hp P = r.
Proof.
  intros Ht fuel Hle. destruct (run_total_fn_spec _ _ _ _ _ Ht) as [_ [_ [Hr [Hno _]]]].
  rewrite run_machine_correct. rewrite (run_stable F fuel) by (try rewrite Hr; assumption).
  auto.
Qed.

(** And for every fuel with which the machine (so [run]) is not out of fuel. *)
Theorem run_total_fn_agrees small hp P F r fuel :
  run_total_fn small hp P = Some (F, r) ->
  ~ out_of_fuel (run_machine fuel 0 hp P) -> run_machine fuel 0 hp P = r.
Proof.
  intros Ht Hno. rewrite run_machine_correct in *.
  destruct (run_total_fn_correct _ _ _ _ _ Ht (Nat.max F fuel) ltac:(lia)) as [_ Hmax].
  rewrite <- Hmax. symmetry. apply run_stable; [lia|exact Hno].
Qed.

Theorem run_total_fn_not_out_of_fuel small hp P F r :
  run_total_fn small hp P = Some (F, r) -> ~ out_of_fuel r.
Proof. intros Ht. apply (run_total_fn_spec _ _ _ _ _ Ht). Qed.

(** It is the final configuration the program reaches, with the number
    of steps to it. *)
Theorem run_total_fn_final small hp P F r :
  run_total_fn small hp P = Some (F, r) ->
  exists n hp' P', nsteps_conf n hp P hp' P' /\ final_result hp' P' n r.
Proof.
  intros Ht. destruct (run_total_fn_spec _ _ _ _ _ Ht) as [[A Hc] [Hhp [Hr [Hno _]]]].
  apply check_cmd_correct in Hc.
  destruct (@run_answer_typed _ _ _ (exec_evaluator_ok vo decls locs) F hp P A Hhp Hc)
    as [Hoof|Hfin]; rewrite <- Hr; [exfalso; apply Hno; rewrite <- Hr; exact Hoof|exact Hfin].
Qed.

(** The fuel it found is at most twice any fuel with which [run] answers. *)
Theorem run_total_fn_fuel_le small hp P F r fuel :
  run_total_fn small hp P = Some (F, r) ->
  ~ out_of_fuel (run fuel 0 hp P) -> F <= Nat.max first_fuel (2 * fuel).
Proof. intros Ht. apply (run_total_fn_spec _ _ _ _ _ Ht). Qed.

(** The heap of a result respects the shapes. *)
Theorem run_total_fn_heap_ok small hp P F hp' V n :
  run_total_fn small hp P = Some (F, RDone hp' V n) -> heap_ok hp'.
Proof.
  intros Ht. destruct (run_total_fn_spec _ _ _ _ _ Ht) as [[A Hc] [Hhp _]].
  destruct (run_total_fn_final _ _ _ _ _ Ht) as [k [hp1 [P1 [Hk Hfin]]]].
  apply check_cmd_correct in Hc.
  destruct (@steps_conf_preservation _ _ _ (exec_evaluator_ok vo decls locs) _ _ _ _ _ Hhp Hc (nsteps_steps _ _ _ _ _ Hk)) as [Hhp1 _].
  destruct Hfin as [[V' [_ [_ Heq]]]|[[f [V' [_ Heq]]]|[o [V' [_ Heq]]]]]; [|discriminate..].
  injection Heq as -> _ _. exact Hhp1.
Qed.

(** Its answer, for a program without unhandled operations ([effects.v]),
    is never "stuck on an operation". *)
Theorem run_total_fn_not_stuck_op small hp P F r :
  unhandled P = [] -> run_total_fn small hp P = Some (F, r) ->
  match r with RStuckOp _ _ _ _ _ => False | _ => True end.
Proof.
  intros Hno Ht. destruct (run_total_fn_correct small hp P F r Ht F (le_n F)) as [_ Hr].
  rewrite <- Hr. apply run_not_stuck_op. exact Hno.
Qed.
End exec.

(** The names the instances of this section had in [normalization.v] and
    [effects.v], where the first two theorems above were proved. *)
Notation exec_total_sorts := total_sorts (only parsing).
Notation exec_total_signature := total_signature (only parsing).
Notation exec_total_evaluator := total_evaluator (only parsing).
Notation effects_sorts := total_sorts (only parsing).
Notation effects_signature := total_signature (only parsing).
Notation effects_evaluator := total_evaluator (only parsing).

(** From a program's initial heap it answers whenever the checker accepts
    the program. *)
Theorem run_total_fn_init_heap {Vec : Type} (vo : vec_ops Vec) (p : @program Vec) small A :
  @check_cmd _ (exec_signature vo (p_decls p) (p_dims p)) [] (p_main p) = Ok A ->
  exists F r, run_total_fn vo (p_decls p) (p_dims p) small (init_heap vo p) (p_main p) = Some (F, r).
Proof. intros Hc. eapply run_total_fn_some; [exact Hc|apply init_heap_ok]. Qed.

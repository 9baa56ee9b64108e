(** * The environment machine with the tape at every [rev handle], proved equal to [run]

    [mloop_fast_with] is [machine.v]'s loop [mloop_hook] with the hook
    [fast_hook]: at [rev handle(V)<y⃗>.R with H] it first tries [tape]
    ([tape.v]), which runs [RH^V_H(<y⃗>.R)] without building it when [R]
    is a chain of operations, and continues with the value and heap it
    answers, the step count it computed; when the tape answers [None]
    (another body, or a clause that does not end with a value), the
    machine builds [RH]'s output with [rh_fn] and runs it, as [mloop_with]
    does.

    Theorems:
    - [fast_hook_ok]: the tape answers only what [run] computes
      ([machine.v]'s [hook_ok]), so [mloop_hook_agrees] applies;
    - [mloop_fast_agrees]: for a [short] answer (what to do when a term
      needs at least the fuel left) that agrees with [run] up to a
      relation [rel] (equality for [mfallback]; "equal, or both out of
      fuel" for [out_of_fuel_now]), the machine agrees with [run] up to
      [rel];
    - [run_fast_correct]: [run_fast fuel n hp P = run fuel n hp P] for
      every command, heap and fuel, with no hypothesis: the same answer,
      heap, value, step count or stuck command;
    - [run_total_fast_eq] (the executable instance): the total evaluator
      with this machine ([run_total_fast]) answers exactly what
      [total.v]'s [run_total_fn] answers, so [run_total_fn_correct] and
      every other theorem of [total.v] hold of it;
    - [run_fast_never_stuck], [run_total_fast_never_stuck]: both are
      never stuck on a program [never_stuck.v]'s theorems cover. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts complete machine run_ctx tape
  instance shapes total effects never_stuck.

Section fast.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm) (P Q R : cmd) (H : handler) (ρ : list tm).

(** The shape of the tape's fragment, checked before the tape runs
    anything: a body of another shape goes to [rh_fn] at once, without a
    forward pass that the machine would then take again. *)
Fixpoint chain_shape (R : cmd) : bool :=
  match R with
  | Ret (Var _) | Op _ (Var _) => true
  | CLet (Ret (Var _)) Q | CLet (Op _ (Var _)) Q => chain_shape Q
  | _ => false
  end.

(** The hook of the fast machine: the tape, on a body of its shape. *)
Definition fast_hook : mhook := fun fuel k n hp H Bs Vs R =>
  if chain_shape R then tape (fuel - k) (fuel - S k) (S (n + k)) hp H Bs Vs (length Bs) R
  else None.

Definition mloop_fast_with (short : nat -> nat -> heap -> list mframe -> list tm -> cmd -> run_result)
    : nat -> nat -> nat -> mconf -> run_result :=
  mloop_hook fast_hook short.

(** The machine of [rh-eval] with a user's fuel: finishes with [run]
    when a term needs the fuel left. *)
Definition run_fast (fuel n : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_fast_with mfallback (S fuel) fuel n (MConf hp [] [] P).

(** The tape answers only what [run] computes ([tape_hook_ok] with
    [no_layer]). *)
Lemma fast_hook_ok : hook_ok fast_hook.
Proof. exact (tape_hook_ok no_layer no_layer_ok chain_shape). Qed.

(** The fast machine agrees with [run] as the machine does
    ([mloop_hook_agrees] with [fast_hook_ok]). *)
Lemma mloop_fast_agrees (rel : run_result -> run_result -> Prop) short gas fuel n hp K ρ P :
  (forall r, rel r r) -> short_ok rel short ->
  env_ok ρ -> stack_ok K ->
  rel (mloop_fast_with short gas fuel n (MConf hp K ρ P)) (run fuel n hp (assemble K ρ P)).
Proof. intros Hrefl Hshort. apply mloop_hook_agrees; [exact Hrefl|exact fast_hook_ok|exact Hshort]. Qed.

(** The fast machine computes exactly what [run] computes. *)
Theorem run_fast_correct fuel n hp P : run_fast fuel n hp P = run fuel n hp P.
Proof.
  unfold run_fast.
  pose proof (mloop_fast_agrees eq mfallback (S fuel) fuel n hp [] [] P
                (fun r => eq_refl) short_ok_mfallback (Forall_nil _) (Forall_nil _)) as Hr.
  rewrite Hr. unfold assemble. cbn [map fill_c fold_left]. rewrite subst_cmd_nil. reflexivity.
Qed.

(** ** Without the fallback on fuel, for the total evaluator *)

(** Equal answers, or both "out of fuel". *)
Definition agree (r1 r2 : run_result) : Prop := r1 = r2 \/ (out_of_fuel r1 /\ out_of_fuel r2).

Lemma short_ok_nf : short_ok agree out_of_fuel_now.
Proof. exact short_ok_out_of_fuel_now. Qed.

Definition run_fast_nf (fuel : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_fast_with out_of_fuel_now (S fuel) fuel 0 (MConf hp [] [] P).

Lemma run_fast_nf_agree fuel hp P : agree (run_fast_nf fuel hp P) (run fuel 0 hp P).
Proof.
  unfold run_fast_nf.
  pose proof (mloop_fast_agrees agree out_of_fuel_now (S fuel) fuel 0 hp [] [] P
                (fun r => or_introl eq_refl) short_ok_nf (Forall_nil _) (Forall_nil _)) as Hr.
  unfold assemble in Hr. cbn [map fill_c fold_left] in Hr. rewrite subst_cmd_nil in Hr. exact Hr.
Qed.

End fast.

(** ** The search of [total.v] depends only on which fuels answer and what *)
Section search_ext.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Lemma agree_sym r1 r2 : agree r1 r2 -> agree r2 r1.
Proof. intros [->|[H1 H2]]; [left; reflexivity|right; split; assumption]. Qed.

Lemma agree_trans r1 r2 r3 : agree r1 r2 -> agree r2 r3 -> agree r1 r3.
Proof.
  intros [->|[H1 H2]] [<-|[H2' H3]]; [left; reflexivity|right; split; assumption|..].
  - right. split; assumption.
  - right. split; assumption.
Qed.

Lemma enough_agree (ev1 ev2 : nat -> run_result) f :
  (forall g, agree (ev1 g) (ev2 g)) -> enough ev1 f -> enough ev2 f.
Proof.
  intros Hag w. induction w as [f Hn|f w IH].
  - apply enough_now. intros Ho. apply Hn.
    destruct (Hag f) as [->|[H1 _]]; assumption.
  - apply enough_later. exact IH.
Qed.

Lemma search_unfold (ev : nat -> run_result) f (w : enough ev f) :
  search ev f w =
  match out_of_fuel_dec (ev f) with
  | left H => search ev (f + f) (enough_next ev f w H)
  | right _ => (f, ev f)
  end.
Proof. destruct w; reflexivity. Qed.

Lemma search_agree (ev1 ev2 : nat -> run_result) f (w1 : enough ev1 f) (w2 : enough ev2 f) :
  (forall g, agree (ev1 g) (ev2 g)) -> search ev1 f w1 = search ev2 f w2.
Proof.
  intros Hag. revert w2.
  refine (enough_ind_dep ev1 (fun f w1 => forall w2, search ev1 f w1 = search ev2 f w2) _ _ f w1);
    clear w1; [intros g Hn w2|intros g w1 IH w2];
    rewrite !search_unfold;
    destruct (out_of_fuel_dec (ev1 g)) as [Ho1|Ho1];
    destruct (out_of_fuel_dec (ev2 g)) as [Ho2|Ho2];
    destruct (Hag g) as [Heq|[Hx Hy]];
    try contradiction; try (rewrite Heq in Ho1; contradiction);
    try (rewrite <- Heq in Ho2; contradiction); try (rewrite Heq; reflexivity).
  all: apply IH.
Qed.
End search_ext.

(** ** The total evaluator of the executable instance with the fast machine *)
Section exec.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance fast_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance fast_signature : signature := exec_signature vo decls locs.
#[local] Instance fast_evaluator : evaluator := exec_evaluator vo.

Definition fast_ev (hp : heap) (P : cmd) (f : nat) : run_result := run_fast_nf f hp P.

Lemma fast_ev_agree hp P f : agree (fast_ev hp P f) (total_ev vo decls locs false hp P f).
Proof.
  eapply agree_trans; [apply run_fast_nf_agree|]. apply agree_sym.
  destruct (total_ev_spec vo decls locs false hp P f) as [->|[H1 H2]];
    [left; reflexivity|right; split; assumption].
Qed.

(** [run_total_fn] with the fast machine: the same search of the fuel. *)
Definition run_total_fast (hp : heap) (P : cmd) : option (nat * run_result) :=
  match check_dec P, heap_ok_dec hp with
  | inleft (exist _ A Hc), left Hhp =>
      Some (search (fast_ev hp P) first_fuel
              (enough_agree _ _ first_fuel (fun g => agree_sym _ _ (fast_ev_agree hp P g))
                 (total_enough vo decls locs false hp P A Hc Hhp)))
  | _, _ => None
  end.

(** It answers what the total evaluator of [total.v] answers: the same
    fuel, the same answer (so [run]'s, by [run_total_fn_correct]). *)
Theorem run_total_fast_eq hp P : run_total_fast hp P = run_total_fn vo decls locs false hp P.
Proof.
  unfold run_total_fast, run_total_fn.
  unfold fast_sorts, fast_signature, fast_evaluator, total_sorts, total_signature, total_evaluator in *.
  destruct (check_dec P) as [[A Hc]|Hn]; [|reflexivity].
  destruct (heap_ok_dec hp) as [Hhp|Hn]; [|reflexivity].
  f_equal. apply search_agree. apply fast_ev_agree.
Qed.

(** ** Never stuck either

    [never_stuck.v] proves of [run] and the total evaluator [run_total_fn]
    that a program the checker accepts, within the [rd] orders of the
    instance, with every operation handled, never gets stuck
    ([run_never_stuck], [run_total_fn_never_stuck]); by [run_fast_correct]
    and [run_total_fast_eq] the same holds of [run_fast] and
    [run_total_fast], the evaluators [rh-eval] runs by default. *)
Hypothesis HS : vec_shapes vo.

Theorem run_fast_never_stuck hp P A :
  typed_cmd [] P A -> order_ok vo P -> unhandled P = [] -> heap_ok hp -> heap_fits vo hp ->
  runs_to_value run_fast hp P.
Proof.
  intros HP Hok Hno Hhp Hfit.
  apply (runs_to_value_ext run); [intros fuel; apply run_fast_correct|].
  exact (run_never_stuck vo decls locs HS hp P A HP Hok Hno Hhp Hfit).
Qed.

Theorem run_total_fast_never_stuck hp P A :
  check_cmd [] P = Ok A -> order_ok vo P -> unhandled P = [] -> heap_ok hp -> heap_fits vo hp ->
  exists F hp' V n, run_total_fast hp P = Some (F, RDone hp' V n) /\ value V.
Proof.
  intros Hc Hok Hno Hhp Hfit. rewrite run_total_fast_eq.
  exact (run_total_fn_never_stuck vo decls locs HS false hp P A Hc Hok Hno Hhp Hfit).
Qed.
End exec.

(** The names the instances of this section had in [fast_never_stuck.v],
    where the last two theorems above were proved. *)
Notation fast_ns_sorts := fast_sorts (only parsing).
Notation fast_ns_signature := fast_signature (only parsing).
Notation fast_ns_evaluator := fast_evaluator (only parsing).

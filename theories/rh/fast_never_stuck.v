(** * The fast machine is never stuck either

    [never_stuck.v] proves of [run], [run_machine] and the total evaluator
    [run_total_fn] that a program the checker accepts, within the [rd]
    orders of the instance, with every operation handled, never gets
    stuck ([run_never_stuck], [run_machine_never_stuck],
    [run_total_fn_never_stuck]).  The evaluators [rh-eval] runs by default
    are [machine_fast.v]'s [run_fast] (equal to [run]: [run_fast_correct])
    and [run_total_fast] (equal to [run_total_fn]: [run_total_fast_eq]),
    so the same holds of them. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts complete machine instance shapes
  total effects never_stuck machine_fast.

Section exec.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance fast_ns_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance fast_ns_signature : signature := exec_signature vo decls locs.
#[local] Instance fast_ns_evaluator : evaluator := exec_evaluator vo.
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
  exists F hp' V n, run_total_fast vo decls locs hp P = Some (F, RDone hp' V n) /\ value V.
Proof.
  intros Hc Hok Hno Hhp Hfit. rewrite run_total_fast_eq.
  exact (run_total_fn_never_stuck vo decls locs HS false hp P A Hc Hok Hno Hhp Hfit).
Qed.
End exec.

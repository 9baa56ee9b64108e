(** * The default evaluator at the executable instance: equal to [run]

    [rh-eval]'s evaluator is [tape_rh4.v]'s [run_fast4]: the machine with
    the tape [tape4] at every [rev handle], which keeps the cotangents of
    an MLP chain sparse and so skips the additions of the structural zero
    [0_A] that [RH] performs.  That is the semantics only where the zero
    law [c + 0 = c /\ 0 + c = c] holds; at the list model it holds for
    the constants that fit ([zero_law.v]'s [exec_zero_law_fits], under
    [scalar_zero_law], a hypothesis on the scalars true of binary64 with
    [-0.0] for every non-NaN number) and fails for some others
    ([exec_zero_law_not_all]).  The tape tests [exec_cfitsb] (a vector no
    longer than its type says) of every cotangent it keeps, at RH-1a and
    then at the component a level updates, and answers [None] if one does
    not fit, so that the machine takes its ordinary path
    ([run_fast4_correct_fits]).  So, at the instance, for every command,
    heap and fuel, checked or not:

    - [exec_run_fast4_correct]: [run_fast4 fuel n hp P = run fuel n hp P];
    - [exec_run_fast4_nf_agree]: without the fallback on fuel, the same
      answer or both "out of fuel";
    - [exec_run_fast4_search_agree]: [rh-eval --tape4]'s search of the
      fuel answers [run]'s answer at the fuel it reports, or "out of fuel".

    [extraction.v]'s [exec_run_fast4] is [run_fast4] with the same test
    ([exec_cfitsb vo] for the driver's vectors). *)
From RevHandlers Require Import prelude signature syntax interp machine_fast instance tape_rh4 zero_law.

Section fast4_correct.
(** The scalars, with their zero law (a hypothesis), then the program's
    declarations; the list model of vectors. *)
Context {R : Type} (sc : scalar_ops R) (Hz : scalar_zero_law sc).
#[local] Instance fc_sorts : sorts := exec_sorts (list R).
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance fc_signature : signature := exec_signature (list_vec_ops sc) decls locs.
#[local] Instance fc_evaluator : evaluator := exec_evaluator (list_vec_ops sc).

(** [rh-eval]'s machine computes exactly what [run] computes, for every
    command, heap and fuel, under [scalar_zero_law] only. *)
Theorem exec_run_fast4_correct fuel n hp P :
  run_fast4 (exec_cfitsb (list_vec_ops sc)) fuel n hp P = run fuel n hp P.
Proof. exact (run_fast4_correct_fits _ (exec_zero_law_cfitsb sc Hz decls locs) fuel n hp P). Qed.

(** Without the fallback on fuel: the same answer, or both "out of fuel". *)
Theorem exec_run_fast4_nf_agree fuel hp P :
  agree (run_fast4_nf (exec_cfitsb (list_vec_ops sc)) fuel hp P) (run fuel 0 hp P).
Proof. exact (run_fast4_nf_agree _ (exec_zero_law_cfitsb sc Hz decls locs) fuel hp P). Qed.

(** [rh-eval --tape4] without a fuel: [run]'s answer at the fuel found,
    or "out of fuel". *)
Theorem exec_run_fast4_search_agree tries f hp P :
  agree (snd (run_fast4_search (exec_cfitsb (list_vec_ops sc)) tries f hp P))
        (run (fst (run_fast4_search (exec_cfitsb (list_vec_ops sc)) tries f hp P)) 0 hp P).
Proof. exact (run_fast4_search_agree _ (exec_zero_law_cfitsb sc Hz decls locs) tries f hp P). Qed.

End fast4_correct.

(** * The fast machine is never stuck either

    Its theorems, [run_fast_never_stuck] and [run_total_fast_never_stuck],
    are proved in [machine_fast.v], in the one section of the executable
    instance there; this file re-exports it, so that the imports of
    [fast_never_stuck] keep working. *)
From RevHandlers Require Export machine_fast.

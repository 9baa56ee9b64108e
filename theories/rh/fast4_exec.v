(** * The RH-4 level of the tape at the executable instance

    [rh4_sparse.v]'s [run_rh4_level] asks the zero law only of the
    cotangents a level updates ([Forall cfits cs], for a predicate [cfits]
    with the law).  At the list model the law holds for every constant no
    longer than its type says ([zero_law.v]'s [exec_zero_law_fits]) under
    [scalar_zero_law], a hypothesis on the scalars (true of binary64 with
    [-0.0] for every non-NaN number).  So the level is closed there:

    - [exec_run_rh4_level]: [run_rh4_level] at [exec_signature] over
      [list_vec_ops sc], for cotangents that fit ([exec_cfits]).

    The whole machine at the instance is [fast4_correct.v]'s
    [exec_run_fast4_correct]: rather than carry the invariant that every
    cotangent the tape passes to a level fits from the configuration the
    hook is called at, the tape tests it ([zero_law.v]'s [exec_cfitsb],
    the decided [exec_cfits]) on every cotangent it keeps and leaves a
    [rev handle] whose cotangents do not fit to the machine's ordinary
    path (docs/decisions.md, "The structural zero cotangent is -0.0"). *)
From RevHandlers Require Import prelude signature syntax subst typing rd term_sem cmd_ctx rh
  interp interp_facts machine instance rh4_sparse zero_law.

Section fast4_exec.
Context {R : Type} (sc : scalar_ops R).
Hypothesis Hz : scalar_zero_law sc.
#[local] Instance fe_sorts : sorts := exec_sorts (list R).
Variable decls : list (ty * ty).
Variable locs : list nat.
#[local] Instance fe_signature : signature := exec_signature (list_vec_ops sc) decls locs.
#[local] Instance fe_evaluator : evaluator := exec_evaluator (list_vec_ops sc).

(** A constant fits when its vector is no longer than its type says
    (every constant of a checked run has exactly that length:
    [shapes.v]'s [const_fits]). *)
Definition exec_cfits (c : const) : Prop := length (snd c) <= const_ty c.

(** [run_rh4_level] at the instance, for the cotangents that fit; its
    statement is [run_rh4_level]'s with [cfits := exec_cfits] (printed by
    [tests/coq/headline.v]). *)
Definition exec_run_rh4_level :=
  run_rh4_level exec_cfits (exec_zero_law_fits sc Hz decls locs).

End fast4_exec.

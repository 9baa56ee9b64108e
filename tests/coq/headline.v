(* The headline theorems of the mechanization, with their statements and
   their assumptions.  [make demo] prints this file's output;
   tests/test_coq.py compares it with headline.expected, so a change of a
   statement or a new assumption fails the tests.  Every theorem is
   quantified over the signature (section variables), so the only
   acceptable answer of Print Assumptions is "Closed under the global
   context".  The §5.3 run is the exception: it is computed in one
   signature, the executable instance over symbolic scalars, and is
   closed too. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd rd_bound rdr_rel term_sem cmd_ctx rh cmd_sem examples typecheck interp interp_facts progress
  machine instance mlp_run complete normalization frontend run_ctx tape machine_fast rh4_sparse tape_rh4
  total zero_law fast4_exec fast4_correct.

(* Renaming (weakening) and substitution, for terms and commands. *)
Check @typed_tm_ren.
Print Assumptions typed_tm_ren.
Check @typed_tm_subst.
Print Assumptions typed_tm_subst.
Check @typed_cmd_ren.
Print Assumptions typed_cmd_ren.
Check @typed_cmd_subst.
Print Assumptions typed_cmd_subst.

(* The typing lemma of W.R_V(x.N) (paper §5.1). *)
Check @rd_rewrite_typed.
Print Assumptions rd_rewrite_typed.

(* The rd-depth bound of W.R_V(x.N) is enough: a larger bound gives the
   same term, so the unrewritten fallback is never what it computes. *)
Check @rd_rewrite_enough.
Print Assumptions rd_rewrite_enough.

(* Fig. 4 as a relation, with no bound (rdr_rel): the bounded rewriting
   meets it from the bound rd_depth N on, every result of it is the bounded
   rewriting, so it is functional; and the same for rd_rewrite. *)
Check @rdr_rel_rdr.
Print Assumptions rdr_rel_rdr.
Check @rdr_rel_eq.
Print Assumptions rdr_rel_eq.
Check @rdr_rel_det.
Print Assumptions rdr_rel_det.
Check @rdr_rel_iff.
Print Assumptions rdr_rel_iff.
Check @rd_rewrite_rel.
Print Assumptions rd_rewrite_rel.
Check @rd_rewrite_unique.
Print Assumptions rd_rewrite_unique.

(* Subject reduction for terms. *)
Check @step_tm_preservation.
Print Assumptions step_tm_preservation.

(* Decomposition, Lemma 5.6. *)
Check @decomposition.
Print Assumptions decomposition.
Check @decomposition_unique.
Print Assumptions decomposition_unique.

(* RH decreases the depth (paper §5.2). *)
Check @rh_depth_lt.
Print Assumptions rh_depth_lt.

(* RH preserves typing (paper §5.2). *)
Check @rh_typed.
Print Assumptions rh_typed.

(* Type preservation for commands (paper §5.2), and with heaps (§5.3). *)
Check @step_cmd_preservation.
Print Assumptions step_cmd_preservation.
Check @step_conf_preservation.
Print Assumptions step_conf_preservation.
Check @steps_conf_preservation.
Print Assumptions steps_conf_preservation.

(* The paper's examples: the MLP with H_train is well typed, and the
   one-layer rev handle steps to the let-chain the paper prints. *)
Check @P_MLP_typed.
Print Assumptions P_MLP_typed.
Check @one_layer_step.
Print Assumptions one_layer_step.

(* The type checker is sound and complete, and names the failed rule. *)
Check @check_cmd_correct.
Print Assumptions check_cmd_correct.
Check @check_tm_correct.
Print Assumptions check_tm_correct.
Check @check_handler_correct.
Print Assumptions check_handler_correct.

(* The step functions agree with the step relations, in both directions. *)
Check @step_tm_fn_correct.
Print Assumptions step_tm_fn_correct.
Check @rh_fn_sound.
Print Assumptions rh_fn_sound.
Check @rh_fn_complete.
Print Assumptions rh_fn_complete.
Check @step_conf_fn_sound.
Print Assumptions step_conf_fn_sound.
Check @step_conf_fn_complete.
Print Assumptions step_conf_fn_complete.

(* RH is total on well-typed input. *)
Check @rh_total.
Print Assumptions rh_total.

(* Progress and type safety. *)
Check @progress.
Print Assumptions progress.
Check @type_safety.
Print Assumptions type_safety.

(* The evaluator is sound, and never meets a wrong shape. *)
Check @run_sound.
Print Assumptions run_sound.
Check @run_not_wrong.
Print Assumptions run_not_wrong.

(* The environment machine computes exactly what the evaluator computes
   (result, heap, value, stuck command and step count). *)
Check @run_machine_correct.
Print Assumptions run_machine_correct.

(* The machine with the tape at every rev handle (a body that is a chain of
   operations is run without building RH's output, the step count
   computed) computes exactly what the evaluator computes; the tape's
   answer is RH's output run by run; run on F^c[P] goes through run on P. *)
Check @run_fast_correct.
Print Assumptions run_fast_correct.
Check @tape_correct.
Print Assumptions tape_correct.
Check @run_fill_c.
Print Assumptions run_fill_c.

(* An RH-4 level of an MLP chain (the term f(y_k) in evaluation position):
   rd's rewriting at it; the level's terms in 6 + 3m steps of the semantics
   with one cotangent changed; and the level's output closed and run by run,
   given the run of the rest of the chain: its value is the cotangents
   updated at one index, its step count a formula.  Under the zero law of
   the constants that fit (a predicate given with the hypothesis), asked
   of the cotangents the level updates. *)
Check @rd_rewrite_app_proj.
Print Assumptions rd_rewrite_app_proj.
Check @rh4_level_sparse.
Print Assumptions rh4_level_sparse.
Check @run_rh4_level.
Print Assumptions run_rh4_level.
(* The same level at the executable instance over the list model, for
   cotangents no longer than their types say, under the zero law of the
   scalars (a hypothesis: -0.0 with IEEE addition). *)
Check @exec_run_rh4_level.
Print Assumptions exec_run_rh4_level.

(* The tape with the RH-4 levels of MLP chains (the one-hot additions of
   zeros skipped, the step count a formula): its answer is RH's output run
   by run, and the machine with it at every rev handle computes exactly what
   the evaluator computes; under the zero law of the constants that pass the
   tape's test cfitsb, a hypothesis (run_fast4_correct: the law for every
   constant). *)
Check @tape4_correct.
Print Assumptions tape4_correct.
Check @run_fast4_correct_fits.
Print Assumptions run_fast4_correct_fits.
Check @run_fast4_correct.
Print Assumptions run_fast4_correct.

(* The extracted evaluator's default (rh-eval) at the executable instance,
   the list model of vectors: its machine computes exactly what the
   evaluator computes for every command, heap and fuel, and without the
   fallback on fuel (rh-eval --tape4's search) the same answer or both out
   of fuel; under scalar_zero_law only (the structural zero an identity of
   the scalars' addition: -0.0 with IEEE addition). *)
Check @exec_run_fast4_correct.
Print Assumptions exec_run_fast4_correct.
Check @exec_run_fast4_nf_agree.
Print Assumptions exec_run_fast4_nf_agree.
Check @exec_run_fast4_search_agree.
Print Assumptions exec_run_fast4_search_agree.

(* The evaluator is complete: more fuel never changes an answer other than
   "out of fuel", and a value or stuck form reached in n steps is what run
   answers, with n steps counted, from some fuel on. *)
Check @run_stable.
Print Assumptions run_stable.
Check @run_complete.
Print Assumptions run_complete.
Check @run_complete_fuel.
Print Assumptions run_complete_fuel.

(* Normalization: a well-typed closed configuration, with a heap that
   respects the shapes, reaches in finitely many steps a value, an
   undefined Ev or an unhandled operation.  So the evaluator and the
   environment machine are total on well-typed programs: from fuel
   n + m + 1 on (n steps, m enough for every RH rewriting on the way) they
   answer that final configuration, with its step count, never out of
   fuel. *)
Check @normalization.
Print Assumptions normalization.
Check @run_total.
Print Assumptions run_total.
Check @run_machine_total.
Print Assumptions run_machine_total.

(* Whatever the fuel, on a well-typed program the evaluator and the
   environment machine answer "out of fuel" or the final configuration,
   with the number of steps to it. *)
Check @run_answer_typed.
Print Assumptions run_answer_typed.
Check @run_machine_answer_typed.
Print Assumptions run_machine_answer_typed.

(* What the driver runs: in the executable instance, for every program the
   checker accepts and a heap that respects the shapes, the environment
   machine answers the final configuration from fuel n + m + 1 on
   (total.v). *)
Check @exec_run_machine_total.
Print Assumptions exec_run_machine_total.

(* The executable instance satisfies the signature's hypotheses. *)
Check @exec_evaluator_ok.
Print Assumptions exec_evaluator_ok.

(* The front end of rh-eval: a program read from its S-expression has a
   well-scoped main command whose constants have the dimensions of their
   vectors; its initial heap, and every heap a session's
   set entries make, respect the locations' shapes, so a program the type
   checker accepts never goes wrong from its initial heap (on either
   evaluator); the run with an observer (--trace, --coverage) is run. *)
Check @read_program_scoped.
Print Assumptions read_program_scoped.
Check @read_program_consts.
Print Assumptions read_program_consts.
Check @init_heap_ok.
Print Assumptions init_heap_ok.
Check @heap_set_ok.
Print Assumptions heap_set_ok.
Check @init_heap_not_wrong.
Print Assumptions init_heap_not_wrong.
Check @init_heap_not_wrong_machine.
Print Assumptions init_heap_not_wrong_machine.
Check @run_obs_run.
Print Assumptions run_obs_run.

(* The paper's §5.3 run: the MLP with H_train, its weights, input, target
   and learning rate symbolic (scalars are terms), reduces to a value and
   the heap the paper prints,
     [ℓ0 ↦ m0 − u'_1 (vᵀ), ℓ1 ↦ m1 − α(m1 v1 − t)(v1ᵀ)],
   v1 = swish(m0 v), u'_1 = rd[swish](<m0 v, m1ᵀ α(m1 v1 − t)>),
   as terms up to the unit laws 0 + x = x = x + 0 (heap_nf). *)
Check @mlp_run_heap.
Print Assumptions mlp_run_heap.
Check @mlp_run_steps.
Print Assumptions mlp_run_steps.

(* The total evaluator rh-eval runs without a fuel (total.v): the fuel is
   searched by doubling, on the environment machine without its fallback
   on fuel.  On a checked program and a heap that respects the shapes it
   answers; its answer is run's and the machine's for every fuel from the
   one it found on and for every fuel with an answer, never "out of fuel",
   the final configuration with its number of steps; the fuel it found is
   at most twice any enough fuel (or the first fuel tried). *)
From RevHandlers Require Import total.
Check @mloop_nf_spec.
Print Assumptions mloop_nf_spec.
Check @run_total_fn_some.
Print Assumptions run_total_fn_some.
Check @run_total_fn_none.
Print Assumptions run_total_fn_none.
Check @run_total_fn_correct.
Print Assumptions run_total_fn_correct.
(* The total evaluator with the fast machine answers what run_total_fn answers. *)
Check @run_total_fast_eq.
Print Assumptions run_total_fast_eq.
Check @run_total_fn_agrees.
Print Assumptions run_total_fn_agrees.
Check @run_total_fn_not_out_of_fuel.
Print Assumptions run_total_fn_not_out_of_fuel.
Check @run_total_fn_final.
Print Assumptions run_total_fn_final.
Check @run_total_fn_fuel_le.
Print Assumptions run_total_fn_fuel_le.
Check @run_total_fn_heap_ok.
Print Assumptions run_total_fn_heap_ok.
Check @run_total_fn_init_heap.
Print Assumptions run_total_fn_init_heap.

(* Effects (effects.v): [eff P] lists the operations a command may perform
   outwards, the handlers read as RH uses them; every step performs nothing
   outside it, so a closed well-typed program with no unhandled user
   operation is never stuck on an operation: for the relation, for run at
   every fuel, for the machine and for the total evaluator. *)
From RevHandlers Require Import effects.
Check @rh_eff.
Print Assumptions rh_eff.
Check @steps_conf_eff.
Print Assumptions steps_conf_eff.
Check @effect_safety.
Print Assumptions effect_safety.
Check @run_not_stuck_op.
Print Assumptions run_not_stuck_op.
Check @run_machine_not_stuck_op.
Print Assumptions run_machine_not_stuck_op.
Check @run_total_fn_not_stuck_op.
Print Assumptions run_total_fn_not_stuck_op.

(* Ev of the executable instance (ev_total.v): for k <= 2 it answers on
   every closed value of the domain of rd^k[p] whose constants have their
   declared lengths; for k >= 3 it is the core's (rdcore.v): p's forward
   map differentiated k times by rd_core. *)
From RevHandlers Require Import ev_total.
Check @eval_prim_total.
Print Assumptions eval_prim_total.
Check @exec_ev_total.
Print Assumptions exec_ev_total.
Check @eval_prim_rd3_core.
Print Assumptions eval_prim_rd3_core.

(* Ev total on shapes at every order (prune_dims.v): prune keeps the
   dimension judgment of core_dims.v and the output lengths, so rd_core
   does (rd_prog_wd) and Ev of rd^k[p] answers, for every primitive p and
   every k, on every closed value of its domain whose constants have their
   declared lengths, for any vector model with vec_shapes and for the list
   model. *)
From RevHandlers Require Import core_dims prune_dims.
Check @prune_wd.
Print Assumptions prune_wd.
Check @rd_core_wd.
Print Assumptions rd_core_wd.
Check @exec_ev_total_all.
Print Assumptions exec_ev_total_all.
Check @exec_ev_total_all_list.
Print Assumptions exec_ev_total_all_list.

(* Shapes (shapes.v): vec_shapes says that every vector operation returns
   the length the primitive's type gives; the list model the extraction is
   tested against has it.  With it, Ev returns constants at their declared
   lengths. *)
From RevHandlers Require Import shapes.
Check @list_vec_shapes.
Print Assumptions list_vec_shapes.
Check @exec_ev_fits.
Print Assumptions exec_ev_fits.

(* Never stuck (never_stuck.v): every step keeps the constants at their
   declared lengths (program and heap) and every function symbol with
   parameters that make sense (prim_ok; rd nested at any depth, Ev being
   total at every order); check_program decides typing, lengths, the
   symbols' parameters and unhandled operations; so a closed program the checker accepts
   never gets stuck: every reachable configuration is a value or steps,
   run answers a value from some fuel on (never a stuck form at any fuel),
   and so do the machine and the total evaluator; also for a program read
   from text, from its initial heap. *)
From RevHandlers Require Import never_stuck.
Check @exec_step_conf_consts_fit.
Print Assumptions exec_step_conf_consts_fit.
Check @exec_steps_conf_order_ok.
Print Assumptions exec_steps_conf_order_ok.
Check @check_program_correct.
Print Assumptions check_program_correct.
Check @never_stuck.
Print Assumptions never_stuck.
Check @check_program_never_stuck.
Print Assumptions check_program_never_stuck.
Check @run_never_stuck.
Print Assumptions run_never_stuck.
Check @run_machine_never_stuck.
Print Assumptions run_machine_never_stuck.
Check @run_total_fn_never_stuck.
Print Assumptions run_total_fn_never_stuck.
(* The same of the fast machine and of the total evaluator with it
   (machine_fast.v), the evaluators rh-eval runs by default. *)
Check @run_fast_never_stuck.
Print Assumptions run_fast_never_stuck.
Check @run_total_fast_never_stuck.
Print Assumptions run_total_fast_never_stuck.
Check @read_program_never_stuck.
Print Assumptions read_program_never_stuck.

(* A specified reader, in part (reader_spec.v): under stated laws of the
   lexical level, every readable command printed is read back to itself,
   and what the reader reads is readable, so read, print, read gives what
   was read (the reader fixes a command up to the names of its binders). *)
From RevHandlers Require Import reader_spec.
Check @tm_of_tm_sexp.
Print Assumptions tm_of_tm_sexp.
Check @cmd_of_print.
Print Assumptions cmd_of_print.
Check @cmd_of_readable.
Print Assumptions cmd_of_readable.
Check @cmd_of_reprint.
Print Assumptions cmd_of_reprint.

(* The reader specified for whole programs (printer_spec.v): a printer of
   programs (binder names chosen by the printer); under the same laws of the
   lexical level (and io_data reading a vector's atoms back), the reader
   reads back every program it can produce (program_ok), every program it
   reads is one, so read, print, read gives what was read: the same
   declarations and de Bruijn command, the names of the text's binders
   forgotten. *)
From RevHandlers Require Import printer_spec.
Check @read_print_program.
Print Assumptions read_print_program.
Check @read_program_ok.
Print Assumptions read_program_ok.
Check @read_reprint_program.
Print Assumptions read_reprint_program.

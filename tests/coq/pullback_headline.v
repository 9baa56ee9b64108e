(* The headline theorems of the pullback language (theories/pullback,
   logical name Pullback), with their statements and their assumptions.
   tests/test_sibling_coq.py compiles this file against the built theory
   and compares its output with pullback_headline.expected, so a change of
   a statement or a new assumption fails the tests.  The signature (function
   symbols, their Jacobians, the scalars and their laws) enters as section
   variables: nothing is assumed. *)
From Pullback Require Import syntax typing anf anf_termination backprop reduction
  preservation progress wf progress_typed transpose reverse_phase examples decide step_fn normalize infer
  exec_sig cps cps_complete cps_run_complete.

(* Subject reduction for A-reduction (§4). *)
Check @astep_typed.
Print Assumptions astep_typed.

(* Lemma B.1: a term is an A-context around an A-redex, or a let series, uniquely. *)
Check @adecompose.
Print Assumptions adecompose.
Check @adecompose_unique.
Print Assumptions adecompose_unique.

(* A-normalisation terminates and has one result. *)
Check @astep_wf.
Print Assumptions astep_wf.
Check @anf_exists.
Print Assumptions anf_exists.
(* Lemma B.1 and A-normal forms for every term, A-contexts entering lets. *)
Check @adecompose_all.
Print Assumptions adecompose_all.
Check @anf_exists_all.
Print Assumptions anf_exists_all.
Check @anf_unique.
Print Assumptions anf_unique.

(* Subject reduction for the pullback reductions 1-20 and the strategy,
   proved syntactically (the paper obtains it through the semantics). *)
Check @step_steps_preserve.
Print Assumptions step_steps_preserve.
Check @step_typed.
Print Assumptions step_typed.

(* Lemma 3.8 (unique decomposition), and progress of the decomposition
   (values as normal forms; a redex whose premise is not evaluated). *)
Check @decompose.
Print Assumptions decompose.
Check @decompose_unique.
Print Assumptions decompose_unique.
Check @progress_premise.
Print Assumptions progress_premise.
Check @value_not_step.
Print Assumptions value_not_step.

(* Well-formed terms: the checker's decider is the judgment; an A-step in a
   pullback's body keeps it. *)
Check @wf_tmb_spec.
Print Assumptions wf_tmb_spec.
Check @step_pb_anf_wf.
Print Assumptions step_pb_anf_wf.
(* The checkers' judgment: well formed, and no parameter applied to data
   bound in a pullback's body (Remark 3.6, value 1), decided. *)
Check @pb_param_okb_spec.
Print Assumptions pb_param_okb_spec.
Check @wf_queryb_spec.
Print Assumptions wf_queryb_spec.
Check @pb_point_okb_spec.
Print Assumptions pb_point_okb_spec.

(* Values by their syntax; progress with typing and type safety for the
   numeric fragment without pullbacks;
   two closed, well-typed, well-formed stuck terms where it fails (a sum of
   numerals given to f; Remark 3.6's value 2). *)
Check @svalue_value.
Print Assumptions svalue_value.
Check @progress_num.
Print Assumptions progress_num.
Check @nfrag_safety.
Print Assumptions nfrag_safety.
Check @exec_nfrag_safety.
Print Assumptions exec_nfrag_safety.
Check @stuck_fun_sum.
Print Assumptions stuck_fun_sum.
Check @stuck_remark36.
Print Assumptions stuck_remark36.

(* Reverse is the transpose of forward (Corollary 4.8, part 1, in a semiring). *)
Check @bp_transpose.
Print Assumptions bp_transpose.
Check @step_bp_transpose.
Print Assumptions step_bp_transpose.
Check @chain_reverse.
Print Assumptions chain_reverse.

(* The running example: the query reduces to the Jacobian row [660 528]*. *)
Check @query_660_528.
Print Assumptions query_660_528.
Check @reverse_query_transpose.
Print Assumptions reverse_query_transpose.
Check @ho_query_result.
Print Assumptions ho_query_result.

(* The executable language: the step function is sound and complete for the
   relation (the premises need fuel), more fuel changes no answer, and so
   the relation is deterministic. *)
Check @step_fn_sound.
Print Assumptions step_fn_sound.
Check @step_fn_value.
Print Assumptions step_fn_value.
Check @step_fn_stuck.
Print Assumptions step_fn_stuck.
Check @step_fn_complete.
Print Assumptions step_fn_complete.
Check @step_fn_mono.
Print Assumptions step_fn_mono.
Check @step_det.
Print Assumptions step_det.
Check @steps_value_det.
Print Assumptions steps_value_det.

(* The normaliser and the trace. *)
Check @normalize_sound.
Print Assumptions normalize_sound.
Check @normalize_complete.
Print Assumptions normalize_complete.
Check @trace_sound.
Print Assumptions trace_sound.

(* The continuation machine (§3.5): what it returns is reached by the
   relation in as many steps as it counts, a value when it says so; it
   agrees with the normaliser. *)
Check @cps_run_sound.
Print Assumptions cps_run_sound.
Check @cps_eval_sound.
Print Assumptions cps_eval_sound.
Check @cps_normalize_agree.
Print Assumptions cps_normalize_agree.
Check @cps_normalize_value_det.
Print Assumptions cps_normalize_value_det.

(* The machine follows the step function: from any state it makes the step
   step_at makes of the term the state stands for, with one contraction,
   or halts with it when it is a value. *)
Check @descend.
Print Assumptions descend.
Check @ascend.
Print Assumptions ascend.

(* The type checker for annotated terms. *)
Check @infer_sound.
Print Assumptions infer_sound.
Check @check_sound.
Print Assumptions check_sound.
Check @ty_eq_dec.
Print Assumptions ty_eq_dec.

(* The type checker is complete (infer_complete.v): on annotated terms typed
   with their annotations (atyped, the typing relation with each binder's
   annotation as its variable's type; every typed term has such annotations,
   typed_annotated), infer finds the type of every term of the fragment syn
   and check accepts every term of the fragment chk at its type. *)
From Pullback Require Import infer_complete.
Check @atyped_typed.
Print Assumptions atyped_typed.
Check @typed_annotated.
Print Assumptions typed_annotated.
Check @infer_complete.
Print Assumptions infer_complete.
Check @check_complete.
Print Assumptions check_complete.
Check @typed_check.
Print Assumptions typed_check.

(* The signature of pullback-eval: its typing obligations are proved. *)
Check @exec_sig.
Print Assumptions exec_sig.

(* The machine is complete for whole runs, with its own premise evaluation:
   every step of the relation is its step, every run to a value its run
   (with the same count), every answer of the step function, stuck
   included, its answer, once its fuel suffices; it halts stuck where the
   normaliser does. *)
Check @cps_step_complete.
Print Assumptions cps_step_complete.
Check @cps_run_complete.
Print Assumptions cps_run_complete.
Check @cps_eval_complete.
Print Assumptions cps_eval_complete.
Check @cps_normalize_complete.
Print Assumptions cps_normalize_complete.
Check @cps_normalize_iff.
Print Assumptions cps_normalize_iff.
Check @cps_step_fn_agree.
Print Assumptions cps_step_fn_agree.
Check @cps_eval_fn_agree.
Print Assumptions cps_eval_fn_agree.
Check @cps_normalize_stuck_complete.
Print Assumptions cps_normalize_stuck_complete.
Check @cps_normalize_stuck_sound.
Print Assumptions cps_normalize_stuck_sound.
Check @cps_normalize_stuck_iff.
Print Assumptions cps_normalize_stuck_iff.
Check @cps_normalize_same.
Print Assumptions cps_normalize_same.

(* Corollary 4.8, part 1, for whole first-order queries: if the query
   ((Ω λy.P)·(λx.e* )) r0 reduces to r*, then ⟨r, v⟩ = ⟨e, J P(r0)·v⟩ for
   every tangent v, J P(r0)·v the forward tangent of the body (fwd_at); the
   invariant is du_step; on the running example, query_transpose_1_3. *)
From Pullback Require Import query_transpose query_transpose_example.
From Coq Require Import ZArith.
Open Scope Z_scope.
Check @query_transpose.
Print Assumptions query_transpose.
Check @query_transpose_fo.
Print Assumptions query_transpose_fo.
Check @du_step.
Print Assumptions du_step.
Check @query_transpose_1_3.
Print Assumptions query_transpose_1_3.

(* Corollary 5.2 (every reduction ends in a value) for the first-order
   fragment fq (fo.v): flat points, first-order pullback bodies whose lets
   are let series, 1-forms λx.D, pullbacks of such bodies along them, a
   1-form applied to a point, dual maps with first-order bodies.  The
   fragment is closed under the reductions; every term of it reduces to a
   value, typed or not, so every reduction sequence from it is finite;
   fo_normalize computes that value without fuel, and fo_eval, on any
   term, after deciding the fragment (norm_fo.v). *)
From Pullback Require Import fo norm_fo.
Check @fq_step.
Print Assumptions fq_step.
Check @fq_norm.
Print Assumptions fq_norm.
Check @fo_query_norm.
Print Assumptions fo_query_norm.
Check @fo_query_typed_norm.
Print Assumptions fo_query_typed_norm.
Check @fq_sn.
Print Assumptions fq_sn.
Check @fo_normalize_sound.
Print Assumptions fo_normalize_sound.
Check @fo_normalize_steps.
Print Assumptions fo_normalize_steps.
Check @fo_normalize_eval_fn.
Print Assumptions fo_normalize_eval_fn.
Check @fo_eval_sound.
Print Assumptions fo_eval_sound.
Check @fo_eval_complete.
Print Assumptions fo_eval_complete.

(* The same, executed by pullback-eval without fuel (fo_run.v): the driver's
   normaliser with fuel 2^j for the first j that reaches a value; on any
   term, None outside the fragment, else the value and its number of steps,
   the fuelled normaliser's answer wherever that ends in a value. *)
From Pullback Require Import fo_run.
Check @fo_run_opt_sound.
Print Assumptions fo_run_opt_sound.
Check @fo_run_opt_complete.
Print Assumptions fo_run_opt_complete.
Check @fo_run_opt_normalize.
Print Assumptions fo_run_opt_normalize.

(* Progress with typing and the syntactic values on the first-order
   fragment without 0 or sums outside the bodies of dual maps
   (fo_progress.v): closed well-typed normal forms are syntactic values,
   progress, type safety, normalization to a syntactic value of the type,
   computed by fo_eval; canonical forms of a dual type. *)
From Pullback Require Import fo_progress.
Check @nzs_step.
Print Assumptions nzs_step.
Check @fo_value_svalue.
Print Assumptions fo_value_svalue.
Check @fo_progress.
Print Assumptions fo_progress.
Check @fo_safety.
Print Assumptions fo_safety.
Check @fo_svalue_norm.
Print Assumptions fo_svalue_norm.
Check @canon_dual_fo.
Print Assumptions canon_dual_fo.

(* A first-order gradient query ((Ω λy.P)·(λx.e* )) r0 with no 0 or sum in P
   ends in r*, or in a 0 on the spine of dual maps when P ends in a scalar;
   fo_eval and pullback-eval's fuel-free run return it (fo_grad.v). *)
From Pullback Require Import fo_grad.
Check @chain_grad.
Print Assumptions chain_grad.
Check @fo_query_result.
Print Assumptions fo_query_result.
Check @fo_query_run.
Print Assumptions fo_query_run.
Check @exec_fo_safety.
Print Assumptions exec_fo_safety.
Check @exec_fo_query_run.
Print Assumptions exec_fo_query_run.
Check @fo_query_ndual.
Print Assumptions fo_query_ndual.
Check @exec_fo_query_ndual.
Print Assumptions exec_fo_query_ndual.

(* The premises of fo_progress and fo_query_ndual decided (reflect); the
   stuck terms fail nzq; a premise of nzq's kind is not kept by the steps of
   the whole language (reduction 9 puts the dual 0 in a pair); a gradient
   query the decider accepts reduces to r* (nz_decide.v). *)
From Pullback Require Import nz_decide.
Check @nzqb_spec.
Print Assumptions nzqb_spec.
Check @lastvb_spec.
Print Assumptions lastvb_spec.
Check @fo_progressb_spec.
Print Assumptions fo_progressb_spec.
Check @fun_sum_not_nzq.
Print Assumptions fun_sum_not_nzq.
Check @remark36_not_nzq.
Print Assumptions remark36_not_nzq.
Check @nzq_not_kept.
Print Assumptions nzq_not_kept.
Check @fo_gradb_ndual.
Print Assumptions fo_gradb_ndual.
Check @exec_fo_gradb_ndual.
Print Assumptions exec_fo_gradb_ndual.

(* The typed premise: 0 and sums only at dual types outside the bodies of
   dual maps; a refinement of typed that rejects both stuck terms and
   accepts the value <0, r> : R* x R that nzq rejects (ztyped.v). *)
From Pullback Require Import ztyped.
Check @ztyped_typed.
Print Assumptions ztyped_typed.
Check @fun_sum_not_ztyped.
Print Assumptions fun_sum_not_ztyped.
Check @remark36_not_ztyped.
Print Assumptions remark36_not_ztyped.
Check @pair_const_ztyped.
Print Assumptions pair_const_ztyped.

(* The typed premise is kept by the steps (subject reduction for ztyped,
   given that the signature's functions map dense tuples to dense tuples),
   and a sound checker of it on annotated terms (ztyped_pres.v,
   ztyped_infer.v). *)
From Pullback Require Import ztyped_pres ztyped_infer.
Check @step_steps_zpreserve.
Print Assumptions step_steps_zpreserve.
Check @ztyped_preservation.
Print Assumptions ztyped_preservation.
Check @ztyped_steps.
Print Assumptions ztyped_steps.
Check @zinfer_sound.
Print Assumptions zinfer_sound.
Check @zcheck_sound.
Print Assumptions zcheck_sound.

(* The checker of the typed premise is complete on the fragment the
   annotations determine (syn/chk of infer_complete.v), so ztyped is decided
   there (ztyped_complete.v). *)
From Pullback Require Import ztyped_complete.
Check @ztyped_annotated.
Print Assumptions ztyped_annotated.
Check @zinfer_complete.
Print Assumptions zinfer_complete.
Check @zcheck_complete.
Print Assumptions zcheck_complete.
Check @ztyped_zcheck.
Print Assumptions ztyped_zcheck.
Check @zcheck_decides.
Print Assumptions zcheck_decides.

(* Progress with syntactic values and type safety under the typed premise
   for terms without pullbacks and for the first-order fragment fq, 0 and
   sums at dual types included (ztyped_progress.v); for pullbacks outside
   fq it is open. *)
From Pullback Require Import ztyped_progress.
Check @zprogress_no_pb.
Print Assumptions zprogress_no_pb.
Check @zno_pb_safety.
Print Assumptions zno_pb_safety.
Check @exec_zno_pb_safety.
Print Assumptions exec_zno_pb_safety.
Check @zfo_progress.
Print Assumptions zfo_progress.
Check @zfo_safety.
Print Assumptions zfo_safety.
Check @zfo_svalue_norm.
Print Assumptions zfo_svalue_norm.
Check @exec_zfo_safety.
Print Assumptions exec_zfo_safety.

(* Beyond fq (fo2.v): the fragment fq2, whose pullback bodies may hold any
   let (A-normalised in the body) and Jacobians and numeric duals, is closed
   under the steps; every term of it reduces to a normal form and every
   reduction sequence from it is finite (Corollary 5.2 on fq2), with a
   normaliser without fuel.  For the whole language, a closed ztyped normal
   form none of whose pullbacks has an application as its body is a
   syntactic value; so on fq2 under ztyped: progress, type safety and
   normalization to a syntactic value.  A closed ztyped, well-formed query
   whose body applies a Jacobian of its point is a normal form that is not
   a syntactic value; a closed ztyped, well-formed query whose body is an
   abstraction is no normal form and has no step (rule 18's premise ends in
   a dual map along 0). *)
From Pullback Require Import fo2.
Check @fq2_step.
Print Assumptions fq2_step.
Check @fq2_norm.
Print Assumptions fq2_norm.
Check @fq2_sn.
Print Assumptions fq2_sn.
Check @fo2_normalize_sound.
Print Assumptions fo2_normalize_sound.
Check @zvalue_svalue.
Print Assumptions zvalue_svalue.
Check @zfo2_progress.
Print Assumptions zfo2_progress.
Check @zfo2_safety.
Print Assumptions zfo2_safety.
Check @zfo2_svalue_norm.
Print Assumptions zfo2_svalue_norm.
Check @exec_zfo2_safety.
Print Assumptions exec_zfo2_safety.
Check @zstuck_jac_point.
Print Assumptions zstuck_jac_point.
Check @zpb_lam_value.
Print Assumptions zpb_lam_value.

(* The checkers reflect the annotated typings (ztyped_reflect.v): sound for
   aztyped (atyped) on every annotated term; on the fragment the
   annotations determine, zcheck reflects aztyped (chk), zinfer finds
   exactly the unique type (syn); check and infer alike for atyped. *)
From Pullback Require Import ztyped_reflect.
Check @zcheck_aztyped.
Print Assumptions zcheck_aztyped.
Check @zinfer_aztyped.
Print Assumptions zinfer_aztyped.
Check @zcheck_reflect.
Print Assumptions zcheck_reflect.
Check @zinfer_iff.
Print Assumptions zinfer_iff.
Check @aztyped_syn_unique.
Print Assumptions aztyped_syn_unique.
Check @zinfer_none.
Print Assumptions zinfer_none.
Check @check_reflect.
Print Assumptions check_reflect.
Check @infer_iff.
Print Assumptions infer_iff.
Check @zcheck_reflect_needs_chk.
Print Assumptions zcheck_reflect_needs_chk.

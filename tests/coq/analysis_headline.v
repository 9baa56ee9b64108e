(* The headline theorems of the real analysis of the instance
   (theories/analysis, logical name RevHandlers.Analysis): the reverse
   derivatives of the primitives are real derivatives.  Compile with
     coqc -Q _build/default/theories/rh RevHandlers \
          -Q _build/default/theories/pullback Pullback \
          -Q _build/default/theories/analysis RevHandlers.Analysis \
          tests/coq/analysis_headline.v
   and compare with analysis_headline.expected.  The theorems are about the
   real numbers, so they rest on the axioms of Coq's standard real numbers
   (ClassicalDedekindReals.sig_forall_dec, sig_not_dec,
   FunctionalExtensionality.functional_extensionality_dep) and, where
   Coquelicot's lemmas are used (derivatives of swish and round, Derive) or
   the real scalars Rsc (whose s_log is the standard library's ln, defined
   with it), the excluded middle (Classical_Prop.classic): the assumptions
   printed below are those, and nothing else (tests/test_analysis_coq.py). *)
From Coq Require Import Reals List.
From RevHandlers.Analysis Require Import vec templates sums prims round ev rdcalc level2 denot rdden rdprim rdsound.
Open Scope R_scope.

(* The derivative on R^n is Coquelicot's on R (n = 1). *)
Check @has_deriv_is_derive.
Print Assumptions has_deriv_is_derive.

(* The chain rule, the product rule for any bilinear product. *)
Check @has_deriv_comp.
Print Assumptions has_deriv_comp.
Check @has_deriv_prod.
Print Assumptions has_deriv_prod.

(* Linear and bilinear maps in the instance's shapes: rd and rd² are the
   reverse derivatives. *)
Check @linear_rd0.
Print Assumptions linear_rd0.
Check @linear_rd1.
Print Assumptions linear_rd1.
Check @bilinear_rd0.
Print Assumptions bilinear_rd0.
Check @bilinear_rd1.
Print Assumptions bilinear_rd1.
(* Pointwise maps in the instance's shape (sigmoid, tanh, exp). *)
Check @pw_rd0.
Print Assumptions pw_rd0.
Check @pw_rd1.
Print Assumptions pw_rd1.

(* Every smooth primitive, at every point (see smooth_prim; decisions.md);
   the others on their domains below (prim_rd_correct_on). *)
Print rd_correct_at.
Print smooth_prim.
Check @prim_rd_correct.
Print Assumptions prim_rd_correct.

(* round: derivative 0 off the half-integers. *)
Check @round_rd0.
Print Assumptions round_rd0.
Check @round_rd1.
Print Assumptions round_rd1.

(* At the level of the instance's Ev (exec_ev): Ev of rd^k[p] is prim_fun k p
   on the flat vectors of leaves, so when Ev answers U for rd^{k+1}[p] at
   <V, W>, U is the transposed Jacobian of rd^k[p] at V applied to W. *)
Check @ev_flat.
Print Assumptions ev_flat.
Check @ev_rd_correct.
Print Assumptions ev_rd_correct.

(* The rules of the reverse derivative (Fig. 4) as theorems of R^n. *)
Check @rd_proj.
Print Assumptions rd_proj.
Check @rd_const.
Print Assumptions rd_const.
Check @rd_comp.
Print Assumptions rd_comp.
Check @rd_add.
Print Assumptions rd_add.
Check @rd_pair.
Print Assumptions rd_pair.
Check @rd_let.
Print Assumptions rd_let.

(* rd²[p] is differentiable everywhere, for every smooth primitive and round. *)
Check @prim_level2_differentiable.
Print Assumptions prim_level2_differentiable.

(* A denotation of terms in the real model (rd by the real reverse
   derivative of its body, through Coquelicot's Derive): the substitution
   lemma, and soundness of every step but the rd step. *)
Check @den_subst.
Print Assumptions den_subst.
Check @step_tm_den.
Print Assumptions step_tm_den.

(* The denotation of rd is the transposed Jacobian of the body applied to the
   cotangent, wherever the body is differentiable. *)
Check @rd_den_correct.
Print Assumptions rd_den_correct.

(* [[W.rd(x.f(x))(V)]] = rd[f](V, W) for every smooth primitive f (k <= 1). *)
Check @den_rd_prim.
Print Assumptions den_rd_prim.
Check @den_rd_prim_ev.
Print Assumptions den_rd_prim_ev.

(* The primitives that are not differentiable everywhere, on the set where
   they are: rd_correct_on k p D is rd_correct_at k p at the points of D. *)
From RevHandlers.Analysis Require Import prims_more sce maxpool prims_all.
Print rd_correct_on.
Print coords.

(* relu off 0; at 0 relu has no derivative (relu'(0) = 0 is a convention). *)
Check @relu_rd0.
Print Assumptions relu_rd0.
Check @relu_rd1.
Print Assumptions relu_rd1.
Check @relu_not_derivable_0.
Print Assumptions relu_not_derivable_0.

(* log: k = 0 on the positive coordinates, k = 1 on the nonzero ones. *)
Check @log_rd0.
Print Assumptions log_rd0.
Check @log_rd1.
Print Assumptions log_rd1.

(* sce everywhere: the instance's max-shifted logsumexp and softmax are the
   unshifted ones. *)
Check @logsumexp_unshifted.
Print Assumptions logsumexp_unshifted.
Check @softmax_unshifted.
Print Assumptions softmax_unshifted.
Check @sce_rd0.
Print Assumptions sce_rd0.
Check @sce_rd1.
Print Assumptions sce_rd1.

(* maxpool where the maximum of every window is attained at one position. *)
Print windows_strict.
Print strict_max.
Check @maxpool_rd0.
Print Assumptions maxpool_rd0.
Check @maxpool_rd1.
Print Assumptions maxpool_rd1.
(* At a tie maxpool has no derivative (one window [a; b] at a = b = 0). *)
Check @mp_tie_not_diff.
Print Assumptions mp_tie_not_diff.

(* Every primitive, k = 0, 1, on its set; the same for Ev's answers; rd²[p]
   differentiable on that set. *)
Print prim_domain.
Check @prim_rd_correct_on.
Print Assumptions prim_rd_correct_on.
Check @ev_rd_correct_on.
Print Assumptions ev_rd_correct_on.
Check @prim_level2_diff_on.
Print Assumptions prim_level2_diff_on.

(* Soundness of the rd step over R (rdsound.v).  The bodies treated (okt):
   no rd inside, constants of the length of their type, and primitives
   rd^k[p] with p smooth, k <= 1, and rd^k[p], rd^{k+1}[p] sending trees of
   the shape of their domain to trees of the shape of their codomain
   (prim_fits).  The rewriting W.R_theta(x.N) of such a body denotes a
   reverse derivative of the body at the point (rdr_sound_rdfree), so
   [[W.R_V(x.N)]] = [[W.rd(x.N)(V)]] (rd_step_sound_rdfree), and every step
   of a closed well-typed term keeps its denotation when its rd redex has
   such a body (step_tm_den_rdfree). *)
Print okt.
Print good.
Print prim_fits.
Print rd_ok.
Check @rdr_sound_rdfree.
Print Assumptions rdr_sound_rdfree.
Check @rd_step_sound_rdfree.
Print Assumptions rd_step_sound_rdfree.
Check @step_tm_den_rdfree.
Print Assumptions step_tm_den_rdfree.

(* The smooth primitives have the shapes of their types (rd^k[p], k <= 2),
   so for bodies with smooth primitives (smooth_body: rd^k[p] with p
   smooth, prim_ok p and k <= 1, constants of the length of their type, no
   rd inside) no hypothesis on the primitives is left. *)
Check @smooth_prim_fits.
Print Assumptions smooth_prim_fits.
Check @smooth_prim_fits2.
Print Assumptions smooth_prim_fits2.
Print smooth_body.
Check @rd_step_sound_smooth.
Print Assumptions rd_step_sound_smooth.
Check @step_tm_den_smooth.
Print Assumptions step_tm_den_smooth.

(* The hypotheses are met by a body with let, a tuple and a primitive of two
   arguments: N = let p <- <x, x> in mul_3(p), at every point and cotangent
   of Real(3). *)
Check @rd_step_sound_square.
Print Assumptions rd_step_sound_square.

(* The evaluation of a closed W.rd(x.N)(V) with such a body: whatever its
   first step W.R_V(x.N) evaluates to (a value in particular) denotes
   [[W.rd(x.N)(V)]]; every evaluation of a closed rd-free term keeps its
   denotation. *)
Check @steps_den_rdfree.
Print Assumptions steps_den_rdfree.
Check @rd_eval_den.
Print Assumptions rd_eval_den.

(* Bodies with rd inside, of rd-depth one (okn: an inner rd has okt cotangent
   and point, and a body with plain smooth primitives): the rewriting
   denotes a reverse derivative of the body (rdr_sound_depth1), and
   [[W.R_V(x.N)]] = [[W.rd(x.N)(V)]] (rd_step_sound_depth1); an instance,
   a second derivative of swish. *)
Print okn.
Check @rdr_sound_depth1.
Print Assumptions rdr_sound_depth1.
Check @rd_step_sound_depth1.
Print Assumptions rd_step_sound_depth1.
Check @rd_step_sound_nested.
Print Assumptions rd_step_sound_nested.
Check @step_tm_den_depth1.
Print Assumptions step_tm_den_depth1.

(* Linear bodies (rdsound_lin.v; oklin: no function symbol, an inner rd has
   a linear cotangent, body and point) of any rd-depth: by induction on the
   level d, the rewriting at the level d of a linear body of rd-depth at most
   d denotes a reverse derivative of the body (rdr_sound_lin), so
   [[W.R_V(x.N)]] = [[W.rd(x.N)(V)]] for every linear body (rd_step_sound_lin)
   and every step keeps the denotation when its rd redex has a linear body
   (step_tm_den_lin); an instance of rd-depth two. *)
From RevHandlers.Analysis Require Import rdsound_lin.
Print oklin.
Check @oklin_rdr.
Print Assumptions oklin_rdr.
Check @rdr_sound_lin.
Print Assumptions rdr_sound_lin.
Check @rd_step_sound_lin.
Print Assumptions rd_step_sound_lin.
Check @rd_step_sound_depth2.
Print Assumptions rd_step_sound_depth2.
Check @step_tm_den_lin.
Print Assumptions step_tm_den_lin.

(* Every rd-depth, function symbols included (rdsound_all.v; okg b: every
   primitive rd^k[p] under j enclosing rds has k + j < b and is goodg:
   smooth or sce and prim_ok, every k; the rewriting applies
   rd^{k+j+1}[p], which Ev computes with the core beyond rd², and Ev of
   rd^{k+1}[p] is the reverse derivative of Ev of rd^k[p] for every k
   (rd_correct_all, from rdcore_ev.v) with the shapes of its type
   (prim_fits_all)): the rewriting of an okg b body is okg (b + 1)
   (okg_rdr, lift_budget at every b); by induction on the level d the
   rewriting denotes a reverse derivative of the body (rdr_sound_all), so
   [[W.R_V(x.N)]] = [[W.rd(x.N)(V)]] for every okg b body, every b
   (rd_step_sound_all), also with syntactic hypotheses only (smooth_g,
   rd_step_sound_smooth_all), and every step keeps the denotation when its
   rd redex has an okg body (step_tm_den_all).  The earlier bodies are okg
   bodies: okt_okg, okn_okg, oklin_okg.  The smooth primitives of good and
   smooth_g include sce (smooth_all_prim, prim_rd_correct_all,
   sce_prim_fits), with two instances. *)
From RevHandlers.Analysis Require Import rdsound_all.
Print goodg.
Check @prim_fits_all.
Print Assumptions prim_fits_all.
Check @rd_correct_all.
Print Assumptions rd_correct_all.
Check @goodg_good_at.
Print Assumptions goodg_good_at.
Check @lift_budget.
Print Assumptions lift_budget.
Print okg.
Print smooth_g.
Check @okg_rdr.
Print Assumptions okg_rdr.
Check @rdr_sound_all.
Print Assumptions rdr_sound_all.
Check @rd_step_sound_all.
Print Assumptions rd_step_sound_all.
Check @rd_step_sound_smooth_all.
Print Assumptions rd_step_sound_smooth_all.
Check @rd_step_sound_depth2_swish.
Print Assumptions rd_step_sound_depth2_swish.
Check @step_tm_den_all.
Print Assumptions step_tm_den_all.
Check @prim_rd_correct_all.
Print Assumptions prim_rd_correct_all.
Check @sce_prim_fits.
Print Assumptions sce_prim_fits.
Check @good_smooth_all.
Print Assumptions good_smooth_all.
Check @rd_step_sound_sce.
Print Assumptions rd_step_sound_sce.
Check @rd_step_sound_sce_grad.
Print Assumptions rd_step_sound_sce_grad.
Check @okt_okg.
Check @okn_okg.
Check @oklin_okg.

(* Evaluation at every rd-depth (rdsound_eval.v): the rewriting is not
   rd-free (R-Fun and R-Let copy forward subterms, which may contain rds), so
   the invariant okp (every rd of the term has an okg b body for some b, the
   primitives keep the shapes, constants have their lengths) is kept by every step
   (step_tm_okp, with okp_rdr for the rd step); every evaluation of a closed
   okp term keeps its denotation (steps_den_all); whatever W.R_V(x.N)
   evaluates to denotes [[W.rd(x.N)(V)]] (rd_eval_den_all, and from
   W.rd(x.N)(V) itself: rd_eval_den_all'), and is r [[W]] for every reverse
   derivative r of the body at [[V]] (rd_eval_rev_deriv), for okg b bodies
   at every b; an instance of rd-depth two with a primitive, and one whose
   rewriting applies rd³[swish] (rd^k for k >= 3 is the core's, ev_total.v:
   eval_prim_rd3_core, and over R the reverse derivative: rdcore_ev.v). *)
From RevHandlers.Analysis Require Import rdsound_eval.
Print okp.
Check @okp_rdr.
Print Assumptions okp_rdr.
Check @step_tm_okp.
Print Assumptions step_tm_okp.
Check @steps_den_all.
Print Assumptions steps_den_all.
Check @rd_eval_den_all.
Print Assumptions rd_eval_den_all.
Check @rd_eval_den_all'.
Print Assumptions rd_eval_den_all'.
Check @rd_eval_rev_deriv.
Print Assumptions rd_eval_rev_deriv.
Check @rd_eval_den_depth2.
Print Assumptions rd_eval_den_depth2.
Check @rd_eval_den_depth3.
Print Assumptions rd_eval_den_depth3.

(* The core's programs over R (rdcore_real.v): core_fun P is the instance's
   evaluation of the core program P (theories/rh/rdcore.v) at the real
   vectors, as a map of flat vectors.  core_prog 0 p is the forward map of
   the real model for every primitive; core_prog 1 p is its rd[p] kernel for
   every primitive, so the core's rd^1 is the reverse derivative of its rd^0
   on the primitive's domain; core_prog 2 p is the rd^2 kernel for fifteen
   of the nineteen primitives (core2_prim), so the core's rd^2 is the reverse derivative of
   its rd^1 there.  That rd_core is the transposed Jacobian of every
   program (so rd^k for every k) is not proved. *)
From RevHandlers.Analysis Require Import rdcore_real.
Print ceval.
Print core_fun.
Check @core_fun_prim0.
Print Assumptions core_fun_prim0.
Check @core_fun_prim1.
Print Assumptions core_fun_prim1.
Check @core_rd1_correct_on.
Print Assumptions core_rd1_correct_on.
Check @core_rd1_correct.
Print Assumptions core_rd1_correct.
Check @core_fun_prim2.
Print Assumptions core_fun_prim2.
Check @core_rd2_correct_on.
Print Assumptions core_rd2_correct_on.

(* The core's reverse differentiation over R, operation by operation
   (rdcore_sound.v): reval gives the sweep's expressions their real meaning;
   cop_tan o xs hs is the derivative of the core operation o at xs in the
   direction hs, written without vjp; for every operation o of the core, at
   arguments of the lengths cop_ok asks, sum_i <h_i, [[vjp_i o .. g]]> =
   <cop_tan o xs hs, g> (vjp_adjoint), elementwise maps where op_diff holds
   (efun_d is the real derivative at every coordinate).  The chain rule over
   a body and prune are not proved here. *)
From RevHandlers.Analysis Require Import rdcore_sound.
Print cop_tan.
Print op_diff.
Check @vjp_adjoint.
Print Assumptions vjp_adjoint.

(* The backward pass over a body in the real model (rdcore_chain.v): one
   instruction of the sweep turns the pairing of the tangents with the
   adjoints over the variables before it plus its own term into the pairing
   over the variables before it (sweep_step, with vjp_adjoint); the sweep of
   a whole body by induction on it (back_sound); with the seed and the
   outputs, from a state holding the forward values (instr_ok),
   sum_i <h_i, out_i> = sum_p <T(outs_p), w_p> for the tangents T that
   cop_tan propagates from h (sweep_sound). *)
From RevHandlers.Analysis Require Import rdcore_chain.
Print instr_ok.
Check @sweep_step.
Print Assumptions sweep_step.
Check @back_sound.
Print Assumptions back_sound.
Check @sweep_sound.
Print Assumptions sweep_sound.

(* rd_prog of every judged program (wd_prog) whose elementwise maps are
   differentiable at the point with the derivative efun_d writes (op_diff),
   on inputs xs, tangents hs of the declared lengths and cotangents ws of
   the outputs' lengths: sum_i <hs_i, rd_prog(P)(xs ++ ws)_i> =
   sum_p <T(out_p), ws_p>, T the tangents cop_tan propagates from hs (tvals)
   (rdcore_prog.v).  That T is the Frechet derivative of the program and
   prune are not proved; nor, so, rd^k for every k. *)
From RevHandlers.Analysis Require Import rdcore_prog.
Print tvals.
Check @rd_prog_adjoint.
Print Assumptions rd_prog_adjoint.

(* Primitives differentiable on a set (rdsound_on.v): relu, log, round and
   maxpool have the shapes of their types (prims_fits.v: all_prim_fits, every
   primitive); the soundness induction reads the body in the values of its
   free variables (rdr_sound_env in rdsound.v, good_at: a primitive asks its
   derivative at its argument only); so the rd step is sound for an rd-free
   body whose primitives, read at x = [[V]], are applied in their sets
   (okt_on, rd_step_sound_on), and so is its evaluation (rd_eval_den_on);
   instances: relu, a relu layer, log. *)
From RevHandlers.Analysis Require Import prims_fits rdsound_on.
Check @rdr_sound_env.
Print Assumptions rdr_sound_env.
Check @all_prim_fits.
Print Assumptions all_prim_fits.
Print okt_on.
Print good_on.
Check @rdr_sound_on.
Print Assumptions rdr_sound_on.
Check @rd_step_sound_on.
Print Assumptions rd_step_sound_on.
Check @rd_eval_den_on.
Print Assumptions rd_eval_den_on.
Check @rd_step_sound_relu.
Print Assumptions rd_step_sound_relu.
Check @rd_step_sound_relu_layer.
Print Assumptions rd_step_sound_relu_layer.
Check @rd_step_sound_log.
Print Assumptions rd_step_sound_log.

(* What a rev handle means over R (cmd_den.v, cmd_sound.v, cmd_adequacy.v).
   A command denotes a computation of the free model of the operations
   (comp: operation calls with a continuation for every answer, results at
   the leaves); a program and a heap denote the final value and heap, Get
   and Put answered from the heap (hrun, prog_den).  rev handle is the
   forward/backward pass of the handler over the body's chain (revh): the
   forward clauses in order, the return clause, then the backward clauses
   in reverse order, every cotangent pulled back through the pure part of
   the body between two operations by its real reverse derivative with
   respect to everything in scope (rd_den); default clauses, nested
   handlers and operations passed outwards included; no RH in it.
   Soundness: RH computes this meaning for bodies that are chains of
   operations, returns and lets on terms of the fragment of the term-level
   soundness (okg 2), with rev handles nested once whose bodies are such
   chains one level down (okg 1, chain1) and whose clauses are in the
   fragment (chaing; rh_den): RH-3, and RH-4 in every evaluation
   position, through the chain rule for the pass
   (revh_comp: the pass over G o phi is the pass over G pulled back
   through phi, for smooth phi; rd_den_comp, the chain rule for rd_den);
   every step of a program of that fragment keeps its meaning (okr: terms
   okp, rev handle bodies chaing; step_conf_den).  Adequacy: such a
   program, from a heap of the right shapes, reaches a final
   configuration with its meaning, and run and run_machine answer it
   from some fuel on (adequacy, adequacy_run). *)
From RevHandlers.Analysis Require Import cmd_den cmd_sound cmd_adequacy.
Print comp.
Print revh_aux.
Print hrun.
Print chain1.
Print chaing.
Print okr.
Check @rd_den_comp.
Print Assumptions rd_den_comp.
Check @revh_comp.
Print Assumptions revh_comp.
Check @rh_den.
Print Assumptions rh_den.
Check @step_conf_den.
Print Assumptions step_conf_den.
Check @adequacy.
Print Assumptions adequacy.
Check @adequacy_run.
Print Assumptions adequacy_run.
(* The paper's MLP at every depth and width is in that fragment
   (mlp_frag.v): P_MLP_gen of theories/rh/mlp_gen.v over the real instance,
   with one signature for every list of widths, is well typed and okr, so
   one run of the evaluator on it answers its meaning. *)
From RevHandlers.Analysis Require Import mlp_frag.
Check @mlp_gen_okr.
Print Assumptions mlp_gen_okr.
Check @mlp_prog_typed.
Print Assumptions mlp_prog_typed.
Check @mlp_adequacy_run.
Print Assumptions mlp_adequacy_run.
(* An instance computed through the meaning: with the return clause
   x |-> [x] and no operation, rev handle(V)<x>.[M] is the real reverse
   derivative of M at [[V]] applied to M([[V]]), the gradient of 1/2 |M|^2
   (cmd_examples.v). *)
From RevHandlers.Analysis Require Import cmd_examples.
Check @revh_pure_grad.
Print Assumptions revh_pure_grad.
(* The pullback language in the real model (pullback_real.v): over the
   executable signature (add, mul, neg, sin, cos, exp, sq) at the reals, the
   formal forward tangent of a first-order body is the Frechet derivative of
   its denotation, and a first-order query ((Ω λy.P)·(λx.e* )) r0 that
   reduces to r* has r = (J [[λy.P]](r0))ᵀ e, the real gradient
   (Corollary 4.8(1)). *)
From RevHandlers.Analysis Require Import pullback_real.
Check @Rjac_adjoint.
Print Assumptions Rjac_adjoint.
Print pb_den.
Check @fo_has_deriv.
Print Assumptions fo_has_deriv.
Check @fwd_at_deriv.
Print Assumptions fwd_at_deriv.
Check @query_gradient.
Print Assumptions query_gradient.
(* Backpropagation at every size (mlp_grad.v): the paper's MLP with swish
   between layers, for every list of widths [n_0; ...; n_L] (L >= 1) and
   weights of those shapes; mlp_train is what H_train computes in one run
   (forward pass, return clause's cotangent alpha (f_m(v) - t), each FC
   layer's backward clause, rd[swish] between layers).  One step maps
   every entry of every weight matrix m_i to
   m_i[k] - alpha * d/dm_i[k] 1/2 |f_m(v) - t|^2 and returns
   alpha * d/dv_j 1/2 |f_m(v) - t|^2 (Coquelicot's Derive; the partial
   derivatives exist).  The proof: the network's reverse derivative on the
   flat vector of input and weights, by induction on the layers (Nnet_rd),
   and partial derivatives read off a reverse derivative
   (rev_deriv_partial). *)
From RevHandlers.Analysis Require Import mlp_grad.
Print mlp_shapes.
Print mlp_forward.
Print fwd_rest.
Print mlp_loss.
Print bp_rest.
Print mlp_backprop.
Print mlp_train.
Print set_w.
Print set_at.
Check @Nnet_rd.
Print Assumptions Nnet_rd.
Check @rev_deriv_partial.
Print Assumptions rev_deriv_partial.
Check @mlp_train_gradient.
Print Assumptions mlp_train_gradient.

(* The MLP program P_MLP_gen at every depth and width, over the real instance
   (mlp_den.v; the program is mlp_frag.v's mlp_prog, for any declarations
   where the layers have their shapes and distinct operations): its meaning
   (cmd_den.v's prog_den, no RH) from a heap of the right shapes is
   mlp_train's value and heap; with mlp_train_gradient, one run maps each
   weight location l_i |-> m_i to m_i - alpha * d/dm_i 1/2 ||f_m(v) - t||^2
   and returns alpha * grad_v; the same at mlp_frag.v's signature of every
   list of widths (location i for layer i). *)
From RevHandlers.Analysis Require Import mlp_den.
Print P_MLP_real.
Print layer_ok.
Print fc_inj.
Print heap_set_all.
Check @mlp_den_train.
Print Assumptions mlp_den_train.
Check @mlp_den_gradient.
Print Assumptions mlp_den_gradient.
Check @mlp_den_gradient_widths.
Print Assumptions mlp_den_gradient_widths.
(* One run of the evaluator on it (mlp_run_grad.v): the program is within the
   rd order of the instance, no operation escapes H_train, so with
   never_stuck.v the run is never stuck; for every list of widths, from some
   fuel on run, run_machine and the total evaluator end with the value <g>
   and the heap of mlp_den_gradient_widths, no unit-law premise. *)
From RevHandlers.Analysis Require Import mlp_run_grad.
Check @mlp_order_ok.
Print Assumptions mlp_order_ok.
Check @mlp_unhandled.
Print Assumptions mlp_unhandled.
Check @mlp_run_gradient.
Print Assumptions mlp_run_gradient.
(* Adequacy without a stuck outcome (mlp_run_grad.v), for every program of
   the fragment within the rd order whose operations all have a handler:
   run, run_machine and the total evaluator end with a value and a heap,
   and these are the program's meaning. *)
Check @adequacy_done.
Print Assumptions adequacy_done.

(* The residual block's program at every depth and width (resnet_den.v):
   rev handle(<v>)<x_in>. let z <= R_MLP(ls) in [x_in + z] with H_train(ls)
   over the same real instance and hypotheses as mlp_den.v, n_0 = n_L; its
   meaning (prog_den, no RH) is res_train's value and heap; with
   res_train_gradient, one run is one step of gradient descent on
   1/2 ||v + f_m(v) - t||^2. *)
From RevHandlers.Analysis Require Import resnet_grad resnet_den.
Print real_R_Res.
Print P_Res_real.
Check @res_den_train.
Print Assumptions res_den_train.
Check @res_den_gradient.
Print Assumptions res_den_gradient.

(* The residual block of Table 1 (resnet_grad.v): v + f_m(v) with the same
   H_train, every depth and width (n_0 = n_L); the skip connection adds the
   output cotangent to the input's.  Same reading as mlp_train_gradient;
   grad_readout is the part of the proof shared by any network. *)
From RevHandlers.Analysis Require Import resnet_grad.
Print res_forward.
Print res_loss.
Print res_train.
Check @res_train_gradient.
Print Assumptions res_train_gradient.

(* Derivatives and reverse derivatives are unique (rev_unique.v); the MLP
   as a program at every depth and width, well typed (theories/rh/mlp_gen.v;
   what one run of it means over R: mlp_den_train above). *)
From RevHandlers.Analysis Require Import rev_unique.
From RevHandlers Require Import mlp_gen.
Check @has_deriv_unique.
Print Assumptions has_deriv_unique.
Check @is_rev_deriv_unique.
Print Assumptions is_rev_deriv_unique.
Print R_MLP_gen.
Print rest_gen.
Check @mlp_gen_typed.
Print Assumptions mlp_gen_typed.
Check @R_MLP_gen_two.
Print Assumptions R_MLP_gen_two.

(* The pullback language in the real model without a premise on the
   reduction (pullback_grad.v): a first-order gradient query whose body has
   no 0 or sum ends in a value that fo_eval and pullback-eval's fuel-free run
   compute, r* with r the real gradient or a 0 on its spine (only for a body
   ending in a scalar); for a body that does not end in a scalar it reduces
   to r* and r is the gradient. *)
From RevHandlers.Analysis Require Import pullback_grad.
Check @query_gradient_value.
Print Assumptions query_gradient_value.
Check @query_gradient_total.
Print Assumptions query_gradient_total.

(* rd^2 of the core over R for the four primitives rdcore_real.v leaves out
   (rdcore_prim2.v): for every parameter and every argument of the type's
   length, core_prog 2 p computes the kernel rd^2[p] for maxpool
   (everywhere, ties included: both sides are (0, maxpool_gather x cx)),
   conv1d, matmul and sce; hence for every primitive, and the core's rd^2
   is the reverse derivative of its rd^1 on prim_domain 1 p for every
   primitive, without core2_prim. *)
From RevHandlers.Analysis Require Import rdcore_prim2.
Check @core_fun_maxpool2.
Print Assumptions core_fun_maxpool2.
Check @core_fun_conv1d2.
Print Assumptions core_fun_conv1d2.
Check @core_fun_matmul2.
Print Assumptions core_fun_matmul2.
Check @core_fun_sce2.
Print Assumptions core_fun_sce2.
Check @core_fun_prim2_all.
Print Assumptions core_fun_prim2_all.
Check @core_rd2_correct_all_on.
Print Assumptions core_rd2_correct_all_on.

(* prune keeps the evaluation (rdcore_prune.v): on a judged program, for
   every interpretation of the operations, prune P computes the outputs P
   computes (prune_eval), so core_fun (rd_core P) = core_fun (rd_prog P)
   (core_fun_rd_core). *)
From RevHandlers.Analysis Require Import rdcore_prune.
Check @prune_eval.
Print Assumptions prune_eval.
Check @core_fun_rd_core.
Print Assumptions core_fun_rd_core.

(* The forward tangents are the derivative, and rd_core is the reverse
   derivative of every program (rdcore_deriv.v): where each instruction's
   operation has cop_tan as its Frechet derivative at its arguments
   (cop_deriv, a hypothesis per instruction), every variable's tangent is
   the derivative of its value as a map of the flat input (var_deriv); with
   rd_prog_adjoint and prune, rd_core P is the reverse derivative of
   core_fun P at that point (rd_core_rev_deriv).  cop_deriv for each
   operation: rdcore_opderiv.v below; the smoothness predicate closed
   under rd_core, and so rd^k for every k: rdcore_k.v below. *)
From RevHandlers.Analysis Require Import rdcore_deriv.
Print cop_deriv.
Check @var_deriv.
Print Assumptions var_deriv.
Check @rd_core_rev_deriv.
Print Assumptions rd_core_rev_deriv.

(* cop_tan is the Frechet derivative, operation by operation
   (rdcore_opderiv.v): cop_deriv, at arguments of the lengths cop_ok asks,
   for every operation but the maxpool family (the elementwise maps where
   op_diff holds; the linear, bilinear, softmax and logsumexp operations)
   (cop_deriv_covered); so rd_core P is the reverse derivative of every
   judged program without maxpool-family operations where its elementwise
   maps satisfy op_diff (rd_core_rev_deriv_covered).  op_diff at every
   point for the smooth elementwise maps, and so rd^k[p] for every k:
   rdcore_smooth.v, rdcore_k.v below. *)
From RevHandlers.Analysis Require Import rdcore_opderiv.
Check @cop_deriv_covered.
Print Assumptions cop_deriv_covered.
Check @rd_core_rev_deriv_covered.
Print Assumptions rd_core_rev_deriv_covered.

(* rd of every order over R (rdcore_smooth.v, rdcore_k.v): the smooth
   elementwise maps (swish, sigmoid, tanh, exp and the derivatives the core
   writes for them) satisfy op_diff at every argument (op_diff_smooth); a
   program all of whose operations are covered by cop_deriv_covered and
   whose elementwise maps are smooth stays so under rd_core
   (smooth_rd_core); hence, for every primitive whose forward map in the
   core is smooth (smooth_core: the fourteen of smooth_prim and sce) and
   every k, core_prog (S k) p is the reverse derivative of core_prog k p at
   every point (core_rdk_correct).  Not covered: round, relu, log, maxpool
   (not differentiable everywhere). *)
From RevHandlers.Analysis Require Import rdcore_smooth rdcore_k.
Print smooth_efun.
Check @op_diff_smooth.
Print Assumptions op_diff_smooth.
Print smooth_op.
Check @smooth_rd_core.
Print Assumptions smooth_rd_core.
Print smooth_core.
Check @core_rdk_correct.
Print Assumptions core_rdk_correct.
Check @smooth_prim_core.
Print Assumptions smooth_prim_core.
Check @core_rdk_correct_smooth.
Print Assumptions core_rdk_correct_smooth.

(* Ev of rd^k[p] over R for every k (rdcore_ev.v): Ev computes the
   hand-written kernels for k <= 2 and the core's core_prog k p beyond;
   over R both are core_fun (core_prog k p) on every argument of the type's
   lengths (core_fun_prim_k), so Ev answers the core's value on every
   well-shaped argument (ev_core, ev_core_all) and every rd^k[p] has the
   shapes of its type (eval_prim_shapes).  With core_rdk_correct: for every
   primitive whose forward map is smooth (smooth_core: the fourteen of
   smooth_prim and sce) and every k, Ev of rd^{k+1}[p] is the reverse
   derivative of Ev of rd^k[p] at every point (ev_rdk_correct, stated as
   rd_correct_at k p), and what Ev answers at <V, W> is that reverse
   derivative at V applied to W (ev_rdk_value). *)
From RevHandlers.Analysis Require Import rdcore_ev.
Check @core_fun_prim_k.
Print Assumptions core_fun_prim_k.
Check @ev_core.
Print Assumptions ev_core.
Check @ev_core_all.
Print Assumptions ev_core_all.
Check @eval_prim_shapes.
Print Assumptions eval_prim_shapes.
Check @ev_rdk_correct.
Print Assumptions ev_rdk_correct.
Check @ev_rdk_value.
Print Assumptions ev_rdk_value.


(* rd of every order off the kinks (rdcore_kinks.v): cop_smooth_at o xs,
   the points where an operation is differentiable with the derivative the
   core writes (relu and its step: every coordinate nonzero; round: no
   half-integer; log: every coordinate positive, 1/x and -1/x^2 nonzero; the
   maxpool family: every window of its first argument has a strict maximum;
   the other operations: everywhere); cop_tan is the Frechet derivative there,
   for every operation of the core (cop_deriv_at).  prog_smooth_at P x: every
   instruction of P evaluated at x is at a smooth point of its operation
   (decidable, prog_smooth_at_dec).  For every primitive and every k,
   core_prog (S k) p is the reverse derivative of core_prog k p at every point
   where core_prog k p is smooth (core_rdk_correct_at); the premise holds at
   every k where the primitive's own input avoids the kinks, for relu, round,
   log and maxpool (relu_smooth_at, round_smooth_at, log_smooth_at,
   maxpool_smooth_at); at k = 2 for relu of length 1 it holds at (1, 1, 1)
   and fails at (0, 1, 1). *)
From RevHandlers.Analysis Require Import rdcore_kinks.
Print efun_smooth_at.
Print cop_smooth_at.
Check @cop_deriv_at.
Print Assumptions cop_deriv_at.
Print instr_args.
Print prog_smooth_at.
Check @prog_smooth_at_dec.
Print Assumptions prog_smooth_at_dec.
Check @rd_core_rev_deriv_at.
Print Assumptions rd_core_rev_deriv_at.
Check @core_rdk_correct_at.
Print Assumptions core_rdk_correct_at.
Check @smooth_prog_smooth_at.
Print Assumptions smooth_prog_smooth_at.
Check @relu_smooth_at.
Print Assumptions relu_smooth_at.
Check @round_smooth_at.
Print Assumptions round_smooth_at.
Check @log_smooth_at.
Print Assumptions log_smooth_at.
Check @maxpool_smooth_at.
Print Assumptions maxpool_smooth_at.
Check @core_rdk_correct_relu.
Print Assumptions core_rdk_correct_relu.
Check @core_rdk_correct_round.
Print Assumptions core_rdk_correct_round.
Check @core_rdk_correct_log.
Print Assumptions core_rdk_correct_log.
Check @core_rdk_correct_maxpool.
Print Assumptions core_rdk_correct_maxpool.
Check relu_k2_smooth.
Print Assumptions relu_k2_smooth.
Check relu_k2_kink.
Print Assumptions relu_k2_kink.

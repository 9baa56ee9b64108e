(* The headline theorems of the define-by-run AD library (theories/dbr,
   logical name DefineByRun), with their statements and their assumptions.
   tests/test_sibling_coq.py compiles this file against the built theory and
   compares its output with dbr_headline.expected, so a change of a
   statement or a new assumption fails the tests.  Nothing is assumed: the
   only acceptable answer of Print Assumptions is "Closed under the global
   context". *)
From DefineByRun Require Import semiring expr effects api table forward reverse tape
  agreement nesting grad clients program.

(* The specification: isExp (Def. 5.2) and its extensionality. *)
Check @denotes.
Check @denotes_ext.
Print Assumptions denotes_ext.

(* Statement 5.1 (the artifact's diff_spec / diff_correct) for the
   handler-based reverse mode, and "diff performs no effect". *)
Check @diff_correct.
Print Assumptions diff_correct.
Check @diff_pure.
Print Assumptions diff_pure.

(* The same theorem for forward mode (dual numbers) and the tape. *)
Check @diff_fwd_correct.
Print Assumptions diff_fwd_correct.
Check @diff_tape_correct.
Print Assumptions diff_tape_correct.

(* The three implementations agree. *)
Check @modes_denote_same.
Print Assumptions modes_denote_same.
Check @modes_agree.
Print Assumptions modes_agree.

(* Nesting: the handler of diff forwards its dictionary's requests, and
   diff iterated n times denotes the n-th derivative. *)
Check @diff_forwards.
Print Assumptions diff_forwards.
Check @diff_n_correct.
Print Assumptions diff_n_correct.

(* Several variables. *)
Check @grad_correct.
Print Assumptions grad_correct.

(* The clients: (x+1)^3 (Figure 2), x*(x*x), monomial k (Figure 3). *)
Check @cube_plus_one_denotes.
Print Assumptions cube_plus_one_denotes.
Check @diff_cube_plus_one.
Print Assumptions diff_cube_plus_one.
Check @diff_diff_cube_plus_one.
Print Assumptions diff_diff_cube_plus_one.
Check @x_cube_denotes.
Print Assumptions x_cube_denotes.
Check @diff_x_cube_nat.
Print Assumptions diff_x_cube_nat.
Check @diff_diff_x_cube_nat.
Print Assumptions diff_diff_x_cube_nat.
Check @monomial_denotes.
Print Assumptions monomial_denotes.
Check @diff_monomial.
Print Assumptions diff_monomial.

(* The paper's numbers, computed in the natural numbers. *)
Check @diff3_cube_plus_one_at_4.
Print Assumptions diff3_cube_plus_one_at_4.
Check @mixed_cube_plus_one_at_4.
Print Assumptions mixed_cube_plus_one_at_4.
Check @monomial_8_at_2.
Print Assumptions monomial_8_at_2.
Check @diff_monomial_4_at_2.
Print Assumptions diff_monomial_4_at_2.
Check @grad_xy_plus_x.
Print Assumptions grad_xy_plus_x.

(* The adjoint table: reading after writing (a binary trie over the nodes'
   indices). *)
Check @tget_tset.
Print Assumptions tget_tset.

(* Programs as data (what dbr-eval reads): they denote their expression,
   and what the driver computes is the n-th derivative with any of the
   three implementations, the gradient, and the value. *)
Check @prog_denotes.
Print Assumptions prog_denotes.
Check @prog_mdenotes.
Print Assumptions prog_mdenotes.
Check @driver_diff_correct.
Print Assumptions driver_diff_correct.
Check @driver_grad_correct.
Print Assumptions driver_grad_correct.
Check @dbr_diff_correct.
Print Assumptions dbr_diff_correct.
Check @dbr_grad_correct.
Print Assumptions dbr_grad_correct.
Check @dbr_eval_correct.
Print Assumptions dbr_eval_correct.

(** * Extraction of the verified evaluator (the only file with [Extract]
    directives; see extracted/TRUSTED.md)

    The extracted module [Revhandlers_core] exposes, for the executable
    instance of the signature (instance.v) and vectors given by a
    [vec_ops] record (the driver passes OCaml float arrays, or the list
    model [list_vec_ops] over the scalars of a [scalar_ops] record):
    - [exec_check]: the type checker of typecheck.v;
    - [exec_step]: one step of a configuration (interp.v);
    - [exec_run]: the small-step evaluator (interp.v);
    - [exec_run_machine]: the environment machine (machine.v), equal to
      [exec_run] on every input ([run_machine_correct]);
    - [exec_run_fast]: the machine with the tape at every [rev handle]
      (machine_fast.v, tape.v), equal to [exec_run] on every input
      ([run_fast_correct]); the total evaluator's machine;
    - [exec_run_fast4]: the machine with the tape that also runs the
      RH-4 levels of MLP chains with sparse cotangents ([tape_rh4.v]),
      the cotangents it keeps tested by [exec_cfitsb] ([zero_law.v]),
      equal to [exec_run] under the zero law of the constants that pass
      the test ([run_fast4_correct_fits]; at the list model under
      [scalar_zero_law] only, [fast4_correct.v]'s
      [exec_run_fast4_correct], and for binary64 with [0_b = -0.0]:
      extracted/TRUSTED.md); [rh-eval]'s evaluator with a fuel unless
      [--machine] or [--small-step] is given;
    - [exec_run_total]: the total evaluator (total.v): no fuel; on a
      checked program and a heap that respects the shapes, the fuel found
      by doubling and the answer of [exec_run_machine] with every fuel
      from it on, never "out of fuel" ([run_total_fn_correct],
      [run_total_fn_not_out_of_fuel]);
    - [prog_read] and the other [prog_] functions: the front end
      (frontend.v) on a program read from its S-expression: the reader,
      the initial heap, a session's [set], the runs, the observed run of
      [--trace] and [--coverage], the printers;
    and constructors/views for the representation of constants and
    function symbols, which are abstract in the generic development. *)
From Coq Require Import String Extraction ExtrOcamlBasic ExtrOcamlNatInt ExtrOcamlNativeString.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp machine instance coverage frontend total
  machine_fast tape_rh4 zero_law.

From RevHandlers Require Import rd_size effects.
From RevHandlers Require never_stuck printer_spec.

Section entry.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance entry_sorts : sorts := exec_sorts Vec.

Definition exec_check (decls : list (ty * ty)) (locs : list nat) (P : cmd) : result ty type_error :=
  @check_cmd _ (exec_signature vo decls locs) [] P.

Definition exec_step (decls : list (ty * ty)) (locs : list nat) (fuel : nat)
    (hp : heap) (P : cmd) : conf_step :=
  @step_conf_fn _ (exec_signature vo decls locs) (exec_evaluator vo) fuel hp P.

Definition exec_run (decls : list (ty * ty)) (locs : list nat) (fuel : nat)
    (hp : heap) (P : cmd) : run_result :=
  @run _ (exec_signature vo decls locs) (exec_evaluator vo) fuel 0 hp P.

Definition exec_run_machine (decls : list (ty * ty)) (locs : list nat) (fuel : nat)
    (hp : heap) (P : cmd) : run_result :=
  @run_machine _ (exec_signature vo decls locs) (exec_evaluator vo) fuel 0 hp P.

Definition exec_run_fast (decls : list (ty * ty)) (locs : list nat) (fuel : nat)
    (hp : heap) (P : cmd) : run_result :=
  @run_fast _ (exec_signature vo decls locs) (exec_evaluator vo) fuel 0 hp P.

(** The machine with [tape4] at every [rev handle] (tape_rh4.v), the
    cotangents tested by [exec_cfitsb vo], equal to [exec_run] under the
    zero law of the constants that pass the test
    ([run_fast4_correct_fits]; fast4_correct.v's [exec_run_fast4_correct]
    at the list model); [rh-eval]'s default. *)
Definition exec_run_fast4 (decls : list (ty * ty)) (locs : list nat) (fuel : nat)
    (hp : heap) (P : cmd) : run_result :=
  @run_fast4 _ (exec_signature vo decls locs) (exec_evaluator vo) (exec_cfitsb vo) fuel 0 hp P.

(** The total evaluator (total.v): [None] only if the check fails or the
    heap does not respect the shapes ([run_total_fn_none]). *)
Definition exec_run_total (decls : list (ty * ty)) (locs : list nat) (small : bool)
    (hp : heap) (P : cmd) : option (nat * run_result) :=
  run_total_fn vo decls locs small hp P.

(** Constants are [(n, v)] and function symbols [(k, p)] in the instance;
    these convert between that representation and the abstract one. *)
(** Rule coverage of one step (coverage.v); testing instrumentation only. *)
Definition exec_step_tags (decls : list (ty * ty)) (locs : list nat) (fuel : nat) (P : cmd)
    : list rule_tag :=
  @step_tags _ (exec_signature vo decls locs) fuel P.

(** The front end (frontend.v) on a program read by [read_program]: its
    type, its run from a heap (the environment machine, or with [small]
    the small-step evaluator), its run with an observer from the initial
    heap ([run_obs], equal to [run]), its run without fuel
    ([prog_run_total]: the fuel found and the answer), and the printers. *)
Section program.
Variable io : reader_io Vec.

Definition prog_read (s : sexp) : result (@program Vec) error := read_program vo io s.
(** How deeply the main command differentiates (rd_size.v). *)
Definition prog_rd_depth (p : @program Vec) : nat := cmd_rd_depth (p_main p).
(** The size estimate of its rewritings' outputs (rd_size.v). *)
Definition prog_rd_weight (p : @program Vec) : nat := cmd_rd_weight (p_main p).
Definition prog_check (p : @program Vec) : result ty type_error :=
  exec_check (p_decls p) (p_dims p) (p_main p).
(** The names of the user operations the main command may perform
    outwards, handled by no enclosing handler (effects.v: a program
    without any is never stuck on an operation), in order, repeated. *)
Definition prog_unhandled (p : @program Vec) : list string :=
  map (fun o : op => nth o (p_ops p) ""%string) (unhandled (p_main p)).
(** The checker of a closed program (never_stuck.v): typed, constants at
    their lengths, within the [rd] order, no unhandled operation; it
    accepts exactly what [check_program_never_stuck] speaks of
    ([check_program_correct]).  What [rh-eval --check] runs. *)
Definition prog_check_program (p : @program Vec) : result ty never_stuck.program_error :=
  never_stuck.check_program vo (p_decls p) (p_dims p) (p_main p).
(** The name of a user operation, as the program declares it. *)
Definition prog_op_name (p : @program Vec) (o : op) : string := nth o (p_ops p) ""%string.
(** The program printed back by the specified printer (printer_spec.v:
    [read_print_program], [read_reprint_program]). *)
Definition prog_print (p : @program Vec) : sexp := printer_spec.print_program io p.
Definition prog_init_heap (p : @program Vec) : heap := init_heap vo p.
Definition prog_heap_set (p : @program Vec) (hp : heap) (es : list sexp) : result heap error :=
  heap_set vo io p hp es.
(** [prog_run] and [prog_run_total]: the small-step evaluator with
    [small]; otherwise the fast machine with [tape4] ([tape_rh4.v]) for
    [prog_run] and with [tape] (machine_fast.v) for [prog_run_total];
    the [_machine] forms run [machine.v]'s machine ([rh-eval --machine]). *)
Definition prog_run (small : bool) (p : @program Vec) (fuel : nat) (hp : heap) : run_result :=
  if small then exec_run (p_decls p) (p_dims p) fuel hp (p_main p)
  else exec_run_fast4 (p_decls p) (p_dims p) fuel hp (p_main p).
(** [rh-eval --tape4]: [exec_run_fast4] with a fuel; without one,
    from [first_fuel], doubled while "out of fuel" (at most 20 times: 2^60, within OCaml's [int]). *)
Definition prog_run_fast4 (p : @program Vec) (fuel : nat) (hp : heap) : run_result :=
  exec_run_fast4 (p_decls p) (p_dims p) fuel hp (p_main p).
Definition prog_run_total_fast4 (p : @program Vec) (hp : heap) : nat * run_result :=
  @run_fast4_search _ (exec_signature vo (p_decls p) (p_dims p)) (exec_evaluator vo) (exec_cfitsb vo)
    20 first_fuel hp (p_main p).
Definition prog_run_machine (p : @program Vec) (fuel : nat) (hp : heap) : run_result :=
  exec_run_machine (p_decls p) (p_dims p) fuel hp (p_main p).
Definition prog_run_total (small : bool) (p : @program Vec) (hp : heap) : option (nat * run_result) :=
  if small then exec_run_total (p_decls p) (p_dims p) true hp (p_main p)
  else run_total_fast vo (p_decls p) (p_dims p) hp (p_main p).
Definition prog_run_total_machine (p : @program Vec) (hp : heap) : option (nat * run_result) :=
  exec_run_total (p_decls p) (p_dims p) false hp (p_main p).
Definition prog_observe {A : Type} (obs : A -> nat -> heap -> cmd -> nat -> A) (acc : A)
    (p : @program Vec) (fuel : nat) : A * run_result :=
  @run_obs _ (exec_signature vo (p_decls p) (p_dims p)) (exec_evaluator vo) A obs acc fuel 0
    (init_heap vo p) (p_main p).
Definition prog_tags (p : @program Vec) (fuel : nat) (P : cmd) : list rule_tag :=
  exec_step_tags (p_decls p) (p_dims p) fuel P.
Definition prog_type_error (p : @program Vec) (e : type_error) : string * string :=
  type_error_message io (p_ops p) (p_locs p) e.
Definition prog_outcome (p : @program Vec) (r : run_result) : result sexp error :=
  outcome vo io (p_ops p) (p_locs p) (p_dims p) r.
Definition prog_heap_sexp (p : @program Vec) (hp : heap) : sexp := heap_sexp vo io (p_locs p) (p_dims p) hp.
Definition prog_cmd_sexp (p : @program Vec) (P : cmd) : sexp := cmd_sexp io (p_ops p) (p_locs p) [] P.
Definition prog_loc_value (p : @program Vec) (hp : heap) (l : nat) : Vec := loc_value vo (p_dims p) hp l.
Definition prog_ty_sexp (A : ty) : sexp := ty_sexp io A.
Definition prog_tm_sexp (M : tm) : sexp := tm_sexp io [] M.
End program.

Definition mk_const (n : nat) (v : Vec) : const := (n, v).
Definition const_view (c : const) : nat * Vec := c.
Definition mk_fsym (k : nat) (p : prim) : fsym := (k, p).
Definition fsym_view (f : fsym) : nat * prim := f.
Definition mk_op (o : nat) : op := o.
Definition op_view (o : op) : nat := o.
Definition mk_loc (l : nat) : loc := l.
Definition loc_view (l : loc) : nat := l.
Definition mk_base (n : nat) : base := n.
Definition base_view (b : base) : nat := b.
End entry.

(** [ExtrOcamlNatInt] maps [nat] to OCaml's [int]; these two more keep
    [Nat.max] and [Nat.div] from running in unary. *)
Extract Inlined Constant Nat.max => "Stdlib.max".
Extract Inlined Constant Nat.div => "(fun n m -> if m = 0 then 0 else n / m)".
(** [ExtrOcamlNatInt] realizes [Nat.eq_dec] by OCaml's polymorphic [(=)];
    typed at [int] it is the machine comparison of two integers instead
    of a call into the runtime's structural comparison (the sorts'
    [op_eq_dec], [loc_eq_dec] and [base_eq_dec] of the instance). *)
Extract Inlined Constant Nat.eq_dec => "(fun (n : int) (m : int) -> n = m)".

(** The error monad of the front end is inlined (a match, not a closure). *)
Extraction Inline rbind.

(** S-expressions are sexplib's. *)
Extract Inductive sexp => "Sexplib.Sexp.t" [ "Sexplib.Sexp.Atom" "Sexplib.Sexp.List" ].

Extraction Language OCaml.
Extraction "revhandlers_core.ml"
  exec_check exec_step exec_run exec_run_machine exec_run_fast exec_run_fast4 exec_run_total exec_step_tags
  mk_const const_view mk_fsym fsym_view mk_op op_view mk_loc loc_view mk_base base_view
  prim_dom prim_cod prim_ok list_vec_ops
  prog_rd_depth max_rd_depth prog_rd_weight max_rd_weight
  prog_check_program prog_op_name prog_print
  prog_read prog_check prog_unhandled prog_init_heap prog_heap_set prog_run prog_run_total prog_observe prog_tags
  prog_run_machine prog_run_total_machine prog_run_fast4 prog_run_total_fast4
  prog_type_error prog_outcome prog_heap_sexp prog_cmd_sexp prog_loc_value prog_ty_sexp prog_tm_sexp
  tag_name index_of.

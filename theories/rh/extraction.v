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
    and constructors/views for the representation of constants and
    function symbols, which are abstract in the generic development. *)
From Coq Require Import Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp machine instance coverage.

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

(** Constants are [(n, v)] and function symbols [(k, p)] in the instance;
    these convert between that representation and the abstract one. *)
(** Rule coverage of one step (coverage.v); testing instrumentation only. *)
Definition exec_step_tags (decls : list (ty * ty)) (locs : list nat) (fuel : nat) (P : cmd)
    : list rule_tag :=
  @step_tags _ (exec_signature vo decls locs) fuel P.

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

Extraction Language OCaml.
Extraction "revhandlers_core.ml"
  exec_check exec_step exec_run exec_run_machine exec_step_tags
  mk_const const_view mk_fsym fsym_view mk_op op_view mk_loc loc_view mk_base base_view
  prim_dom prim_cod prim_ok list_vec_ops.

(** * Extraction of the define-by-run AD library (the only file of the
    DefineByRun theory with [Extract] directives; see extracted/TRUSTED.md)

    The extracted module [Dbr_core] exposes the driver's entry points of
    [program.v], polymorphic in the numbers:
    - [dbr_diff m n p d x]: the [n]-th derivative of the program [p] at [x],
      by the implementation [m] ([Handlers]: effect handlers, [reverse.v];
      [Tape]: a tape, [tape.v]; [Forward]: dual numbers, [forward.v])
      nested [n] times ([dbr_diff_correct]);
    - [dbr_grad n p d xs]: the gradient of [p] in its [n] variables at [xs]
      ([dbr_grad_correct]);
    - [dbr_eval n p d xs]: the value of [p] at [xs] ([dbr_eval_correct]);
    - [pure_dict]: the dictionary of given operations the driver passes;
    - [scoped]: the check that every variable is bound. *)
From Coq Require Import Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From DefineByRun Require Import api table reverse forward tape grad program.

Extraction "dbr_core" dbr_diff dbr_grad dbr_eval pure_dict scoped.

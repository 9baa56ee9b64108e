(** * Extraction of the executable pullback language (the only file of the
    Pullback theory with [Extract] directives; see extracted/TRUSTED.md)

    The extracted module [Pullback_core] exposes, for the signature
    [exec_sig] (exec_sig.v) over OCaml's floats:
    - [pb_infer]: the type checker of infer.v on closed terms
      ([infer_sound]), and [pb_erase], the erasure of binder types;
    - [pb_zcheck]: the checker of the typed premise [ztyped] (ztyped.v:
      [0] and sums only at dual types outside dual maps' bodies) on closed
      terms, [zcheck] (ztyped_infer.v: [zcheck_sound]; complete on the
      fragment the annotations determine, ztyped_complete.v:
      [zcheck_complete], [zcheck_decides]);
    - [pb_lets_ok], [pb_jac_ok]: the two conditions of well-formed terms
      (wf.v: [pb_lets_okb_spec], [pb_jac_okb_spec], [wf_tmb_spec]), and
      [pb_param_ok], the third condition of the checkers' judgment
      [wf_query] ([pb_param_okb_spec], [wf_queryb_spec]);
    - [pb_step]: one step ([step_fn], step_fn.v: [step_fn_sound],
      [step_fn_complete], [step_fn_normal]);
    - [pb_normalize]: the normaliser ([normalize], normalize.v:
      [normalize_sound]) and [pb_trace], the same loop recording every term
      ([trace_sound]);
    - [pb_fo_run]: the fuel-free run of the first-order fragment
      ([fo_run_opt], fo_run.v: [None] outside [fq], else the value and the
      number of steps, [fo_run_opt_sound], [fo_run_opt_complete], the same
      answer as [pb_normalize] whenever that ends in a value,
      [fo_run_opt_normalize]);
    - [pb_cps]: the continuation machine of §3.5 ([cps_run], cps.v:
      [cps_run_sound], [cps_normalize_agree]), with the rules it fired,
      and [pb_log_rules], those rules with the rules of their premises
      ([log_rules]);
      [pb_step_rule]: the rule of a step of the trace ([step_rule]);
    - [mk_real], [real_view], [mk_fsym], [fsym_view]: the scalars and the
      function symbols, which the generic development keeps abstract.

    The scalars are the type [flt] with the operations of [float_ops].  In
    Coq they are placeholders (the one-element type); the extraction
    replaces them by OCaml's [float] and its operations.  No proof depends
    on what the scalar operations compute: the theorems hold for every
    [scalar_ops] (exec_sig.v). *)
From Coq Require Import Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From Pullback Require Import syntax typing decide step_fn normalize infer exec_sig cps wf fo_run
  ztyped_infer.

Definition flt : Type := unit.
Definition flt_zero : flt := tt.
Definition flt_add (x y : flt) : flt := tt.
Definition flt_mul (x y : flt) : flt := tt.
Definition flt_neg (x : flt) : flt := tt.
Definition flt_sin (x : flt) : flt := tt.
Definition flt_cos (x : flt) : flt := tt.
Definition flt_exp (x : flt) : flt := tt.

Extract Constant flt => "float".
Extract Constant flt_zero => "0.0".
Extract Constant flt_add => "( +. )".
Extract Constant flt_mul => "( *. )".
Extract Constant flt_neg => "Float.neg".
Extract Constant flt_sin => "Float.sin".
Extract Constant flt_cos => "Float.cos".
Extract Constant flt_exp => "Float.exp".

Definition float_ops : scalar_ops flt := {|
  k_zero := flt_zero; k_add := flt_add; k_mul := flt_mul; k_neg := flt_neg;
  k_sin := flt_sin; k_cos := flt_cos; k_exp := flt_exp;
|}.

#[local] Instance pb_sig : signature := exec_sig float_ops.

Definition pb_infer (a : atm) : option ty := infer [] a.
Definition pb_erase (a : atm) : tm := erase a.
Definition pb_zcheck (a : atm) (A : ty) : bool := zcheck [] a A.
Definition pb_lets_ok (t : tm) : bool := pb_lets_okb t.
Definition pb_jac_ok (t : tm) : bool := pb_jac_okb t.
Definition pb_param_ok (t : tm) : bool := pb_param_okb t.
Definition pb_step (fuel : nat) (t : tm) : sres := step_fn fuel t.
Definition pb_normalize (fuel : nat) (t : tm) : tm * nat * outcome := normalize fuel t.
Definition pb_trace (fuel : nat) (t : tm) : list tm * outcome := trace fuel t.
Definition pb_fo_run (t : tm) : option (tm * nat * outcome) := fo_run_opt t.

Definition pb_cps (depth transitions : nat) (t : tm) : tm * nat * list (rule * tm) * outcome :=
  cps_run depth transitions t.
Definition pb_log_rules (depth transitions : nat) (log : list (rule * tm)) : list rule :=
  log_rules depth transitions log.
Definition pb_step_rule (t t' : tm) : rule := step_rule t t'.

Definition mk_real (x : flt) : @scalar pb_sig := x.
Definition real_view (x : @scalar pb_sig) : flt := x.
Definition mk_fsym (p : fprim) : @fsym pb_sig := p.
Definition fsym_view (f : @fsym pb_sig) : fprim := f.

Extraction Language OCaml.
Extraction "pullback_core.ml"
  pb_infer pb_erase pb_zcheck pb_lets_ok pb_jac_ok pb_param_ok pb_step pb_normalize pb_trace pb_fo_run pb_cps pb_log_rules pb_step_rule mk_real real_view mk_fsym fsym_view.

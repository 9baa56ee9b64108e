(** * Examples of [check_program] (never_stuck.v)

    Over the list model with natural-number scalars (any scalars do: the
    check and the shapes do not look at them), two programs that nest two
    [rd] terms:
<<
    ⌊1.rd(x. 1.rd(y. f(…y…))(x))(2)⌋
>>
    with [f = swish] ([rd⁰]: two bodies around it give order 2) or
    [f = rd[swish]] (order 3).  Both are accepted ([rd] may be nested at
    any depth: [Ev] is total at every order, [exec_ev_total_all],
    prune_dims.v) and both run to a value; [Ev] of [rd³[swish]] is the
    core's (rdcore.v).  A symbol whose parameters make no sense is
    refused with [PPrimParams], a constant whose vector has not its
    declared length with [PConstLength]. *)
From RevHandlers Require Import prelude signature syntax typing typecheck interp instance never_stuck.

Definition nat_scalars : scalar_ops nat := {|
  s_zero := 0; s_czero := 0; s_one := 1; s_add := Nat.add; s_sub := Nat.sub; s_mul := Nat.mul; s_div := Nat.div;
  s_exp := fun x => x; s_log := fun x => x; s_tanh := fun x => x; s_round := fun x => x;
  s_lt := Nat.ltb |}.

Section examples.
#[local] Instance examples_sorts : sorts := exec_sorts (list nat).
Let vo := list_vec_ops nat_scalars.

(** [rd^k[swish_1]] applied to the innermost variable. *)
Definition inner (k : nat) : tm :=
  App (k, PSwish 1) (match k with 0 => Var 0 | _ => Tuple [Var 0; Var 0] end).

Definition nested (k : nat) : cmd :=
  Ret (Rd (Const (1, [1])) (Rd (Const (1, [1])) (inner k) (Var 0)) (Const (1, [2]))).

Example nested_0_accepted : check_program vo [] [] (nested 0) = Ok (TBase 1).
Proof. vm_compute. reflexivity. Qed.

Example nested_1_accepted : check_program vo [] [] (nested 1) = Ok (TBase 1).
Proof. vm_compute. reflexivity. Qed.

Example bad_params_refused :
  check_program vo [] [] (Ret (App (0, PUpscale 1 1 0) (Const (1, [1])))) = Err PPrimParams.
Proof. vm_compute. reflexivity. Qed.

Example short_constant_refused : check_program vo [] [] (Ret (Const (2, [1]))) = Err PConstLength.
Proof. vm_compute. reflexivity. Qed.

Definition run_ex (P : cmd) : run_result :=
  @run _ (exec_signature vo [] []) (exec_evaluator vo) 1000 0 [] P.

Example nested_0_runs : exists hp V n, run_ex (nested 0) = RDone hp V n.
Proof. vm_compute. eauto. Qed.

Example nested_1_runs : exists hp V n, run_ex (nested 1) = RDone hp V n.
Proof. vm_compute. eauto. Qed.
End examples.

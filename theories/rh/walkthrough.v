(** * Concrete examples for the notebooks (notebooks/)

    The notebooks only import, inspect and state; the terms they compute
    with are defined here.  Computing inside Coq needs concrete scalars:
    [nat_scalars] gives natural numbers (enough for polynomials such as
    [x·x]; [exp], [log] and [tanh] are not meaningful there, so these
    examples avoid swish and the other transcendental primitives).
    The extracted evaluator uses IEEE floats instead. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts progress instance.

Definition nat_scalars : scalar_ops nat := {|
  s_zero := 0; s_czero := 0; s_one := 1; s_add := Nat.add; s_sub := Nat.sub; s_mul := Nat.mul;
  s_div := Nat.div; s_exp := fun _ => 1; s_log := fun _ => 0; s_tanh := fun _ => 0;
  s_round := fun x => x; s_lt := Nat.ltb;
|}.

(** Vectors are lists: the list model of the vector interface. *)
Definition nat_vecs : vec_ops (list nat) := list_vec_ops nat_scalars.

#[export] Instance nat_sorts : sorts := exec_sorts (list nat).

(** One operation [FC : Real(2) ▷ Real(3)] and one location [l :: (2, 3)]. *)
Definition decls1 : list (ty * ty) := [(TBase 2, TBase 3)].
Definition locs1 : list nat := [6].
#[export] Instance nat_sig : signature := exec_signature nat_vecs decls1 locs1.
#[export] Instance nat_ev : evaluator := exec_evaluator nat_vecs.

(** ** [3.rd(x. x·x)(2)] is [3 · (d/dx x²)(2) = 12] *)
Definition square : fsym := (0, PSmul 1).
Definition rd_square : tm :=
  Rd (Const (1, [3])) (App square (Tuple [Var 0; Var 0])) (Const (1, [2])).

Lemma rd_square_typed : typed_tm [] rd_square (TBase 1).
Proof. apply check_tm_correct. reflexivity. Qed.

(** The rewriting [W.R_V(x.N)] of the first step. *)
Definition rd_square_rewritten : tm := rd_rewrite [] (TBase 1) (Const (1, [3])) (Const (1, [2]))
  (App square (Tuple [Var 0; Var 0])).

Lemma rd_square_steps : step_tm rd_square rd_square_rewritten.
Proof. apply step_tm_fn_correct. reflexivity. Qed.

Lemma rd_square_is_12 : exists hp n, run 100 0 [] (Ret rd_square) = RDone hp (Const (1, [12])) n.
Proof. vm_compute. eauto. Qed.

(** ** The one-layer program of the paper's §5.2 on natural numbers:
    [rev handle(<v>)<x>.FC(x) with H] for the weight-updating handler. *)
Definition FC : opsym := OpUser 0.
Definition lfc : loc := 0.
Definition unit_arg : tm := Const (0, []).

Definition fc_forward : cmd :=
  CLet (Op (OpGet lfc) unit_arg)
       (Ret (Tuple [App (0, PMatmul 3 2 1) (Tuple [Var 0; Var 1]); Tuple [Var 0; Var 1]])).

Definition fc_backward : cmd :=
  CLet (Op (OpPut lfc) (App (0, PSub 6) (Tuple [Proj 0 (Var 1);
          App (0, PMatmul 3 1 2) (Tuple [Var 0; App (0, PTranspose 2 1) (Proj 1 (Var 1))])])))
       (Ret (App (0, PMatmul 2 3 1) (Tuple [App (0, PTranspose 3 2) (Proj 0 (Var 2)); Var 1]))).

(** The return clause passes the output on as its own cotangent. *)
Definition H1 : handler :=
  Handler (Ret (Var 0)) (CCons FC (TPair (TBase 6) (TBase 2)) fc_forward fc_backward CNil).

Definition one_layer : cmd := RevHandle (Tuple [Const (2, [1; 1])]) (Op FC (Var 0)) H1.

Lemma one_layer_typed : typed_cmd [] one_layer (TProd [TBase 2]).
Proof. apply check_cmd_correct. reflexivity. Qed.

(** The rewriting [RH] of the one step: the let-chain of the paper. *)
Definition one_layer_rewritten : rh_result :=
  rh_fn 10 H1 [TBase 2] [Const (2, [1; 1])] (Op FC (Var 0)).

(** With weights [1..6], the run ends with the updated weights in the heap. *)
Definition one_layer_heap : heap := [(lfc, (6, [1; 2; 3; 4; 5; 6]))].
Definition one_layer_run : run_result := run 200 0 one_layer_heap one_layer.

(** ** The chain rule: [1.rd(x. let y ← x·x in y·y)(2) = (d/dx x⁴)(2) = 32] *)
Definition chain : tm :=
  Rd (Const (1, [1]))
     (Let (App square (Tuple [Var 0; Var 0])) (App square (Tuple [Var 0; Var 0])))
     (Const (1, [2])).

Definition chain_rewritten : tm :=
  rd_rewrite [] (TBase 1) (Const (1, [1])) (Const (1, [2]))
    (Let (App square (Tuple [Var 0; Var 0])) (App square (Tuple [Var 0; Var 0]))).

Lemma chain_is_32 : exists hp n, run 100 0 [] (Ret chain) = RDone hp (Const (1, [32])) n.
Proof. vm_compute. eauto. Qed.

(** * The paper's examples (spec §9.1 and §9.5)

    The example signature of the paper's §4 enters as section variables
    and hypotheses on an arbitrary signature: base types [Real(n)], the
    function symbols the examples use, and an operation [FC[ℓ]] for every
    location [ℓ :: (n, m)] (an [m×n] matrix, row-major, as [Real(m·n)];
    decisions.md item 4).  The examples are proved well typed for every
    such signature, and the one-layer [rev handle] of §9.5 is shown to
    rewrite to the let-chain the paper prints. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem.

Section examples.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

(** [Real(n)], with [Real(0)] the unit base type. *)
Variable Real : nat -> base.
Hypothesis unit_Real : unit_base = Real 0.
Definition R (n : nat) : ty := TBase (Real n).

(** [swish_n : Real(n) → Real(n)]. *)
Variable swish : nat -> fsym.
Hypothesis swish_dom : forall n, fsym_dom (swish n) = R n.
Hypothesis swish_cod : forall n, fsym_cod (swish n) = R n.
(** [(·_n) : Real(1) × Real(n) → Real(n)]. *)
Variable smul : nat -> fsym.
Hypothesis smul_dom : forall n, fsym_dom (smul n) = TPair (R 1) (R n).
Hypothesis smul_cod : forall n, fsym_cod (smul n) = R n.
(** [(−_n) : Real(n) × Real(n) → Real(n)]. *)
Variable vsub : nat -> fsym.
Hypothesis vsub_dom : forall n, fsym_dom (vsub n) = TPair (R n) (R n).
Hypothesis vsub_cod : forall n, fsym_cod (vsub n) = R n.
(** [matmul_{m,n,k} : Real(m·n) × Real(n·k) → Real(m·k)]. *)
Variable matmul : nat -> nat -> nat -> fsym.
Hypothesis matmul_dom : forall m n k, fsym_dom (matmul m n k) = TPair (R (m * n)) (R (n * k)).
Hypothesis matmul_cod : forall m n k, fsym_cod (matmul m n k) = R (m * k).
(** [transpose_{m,n} : Real(m·n) → Real(n·m)]. *)
Variable transpose : nat -> nat -> fsym.
Hypothesis transpose_dom : forall m n, fsym_dom (transpose m n) = R (m * n).
Hypothesis transpose_cod : forall m n, fsym_cod (transpose m n) = R (n * m).

(** [FC[ℓ] : Real(n) ▷ Real(m)] for [ℓ :: (n, m)]. *)
Variable shape : loc -> nat * nat.
Hypothesis loc_base_shape : forall l, loc_base l = Real (snd (shape l) * fst (shape l)).
Variable FC : loc -> op.
Hypothesis FC_coar : forall l, op_coar (FC l) = R (fst (shape l)).
Hypothesis FC_ar : forall l, op_ar (FC l) = R (snd (shape l)).

Lemma typed_app_eq Γ f M A B :
  fsym_dom f = A -> fsym_cod f = B -> typed_tm Γ M A -> typed_tm Γ (App f M) B.
Proof. intros <- <- HM. constructor. exact HM. Qed.

Lemma typed_var Γ x A : nth_error Γ x = Some A -> typed_tm Γ (Var x) A.
Proof. apply typed_tm_var. Qed.

(** The unit argument [()] of [Get[ℓ]()]: the constant [0 : Real(0)]. *)
Definition unit_tm : tm := Const (czero unit_base).

(** ** The clauses for [FC[ℓ]] (spec §9.1), for [ℓ :: (n, m)]:
<<
   Q^f = let w ⇐ Get[ℓ]() in ⌊<w ∗ x, <w, x>>⌋                          (x : Real(n))
   Q^b = let <w,x> ⇐ z in let _ ⇐ Put[ℓ](w − y ∗ x^T) in ⌊w^T ∗ y⌋     (y : Real(m), z : D)
   D   = Real(m·n) × Real(n)
>>  *)
Section fc.
Variable l : loc.
Let n := fst (shape l).
Let m := snd (shape l).

Definition fc_D : ty := TPair (R (m * n)) (R n).

Definition fc_fwd : cmd :=
  CLet (Op (OpGet l) unit_tm)
    (Ret (Tuple [App (matmul m n 1) (Tuple [Var 0; Var 1]); Tuple [Var 0; Var 1]])).

(** [z] is index 1 and [y] index 0; [w = proj_1 z], [x = proj_2 z]; under
    the binder of [let _ ⇐ Put …], they move up by one. *)
Definition fc_bwd : cmd :=
  CLet (Op (OpPut l)
          (App (vsub (m * n))
             (Tuple [Proj 0 (Var 1);
                     App (matmul m 1 n)
                       (Tuple [Var 0; App (transpose n 1) (Proj 1 (Var 1))])])))
    (Ret (App (matmul n m 1) (Tuple [App (transpose m n) (Proj 0 (Var 2)); Var 1]))).

Lemma fc_fwd_typed :
  typed_cmd [coar (OpUser (FC l))] fc_fwd (TPair (ar (OpUser (FC l))) fc_D).
Proof.
  simpl. rewrite FC_coar, FC_ar. fold n m. unfold fc_fwd.
  econstructor.
  - constructor. simpl. unfold unit_tm. rewrite <- (czero_ty unit_base) at 2. constructor.
  - constructor. constructor. constructor.
    + eapply typed_app_eq; [apply matmul_dom| rewrite matmul_cod, Nat.mul_1_r; reflexivity|].
      constructor. constructor.
      * apply typed_var. simpl. rewrite loc_base_shape. reflexivity.
      * constructor; [|constructor]. apply typed_var. simpl. rewrite Nat.mul_1_r. reflexivity.
    + constructor; [|constructor]. constructor. constructor.
      * apply typed_var. simpl. rewrite loc_base_shape. reflexivity.
      * constructor; [|constructor]. apply typed_var. reflexivity.
Qed.

Lemma fc_bwd_typed :
  typed_cmd [ar (OpUser (FC l)); fc_D] fc_bwd (coar (OpUser (FC l))).
Proof.
  simpl. rewrite FC_coar, FC_ar. fold n m. unfold fc_bwd.
  econstructor.
  - replace (ar (OpPut l)) with (TBase unit_base) by reflexivity.
    constructor. simpl. rewrite loc_base_shape. fold n m.
    eapply typed_app_eq; [apply vsub_dom|apply vsub_cod|].
    constructor. constructor.
    + econstructor; [apply typed_var; reflexivity|reflexivity].
    + constructor; [|constructor].
      eapply typed_app_eq; [apply matmul_dom|apply matmul_cod|].
      constructor. constructor.
      * apply typed_var. simpl. rewrite Nat.mul_1_r. reflexivity.
      * constructor; [|constructor].
        eapply typed_app_eq;
          [apply transpose_dom|rewrite transpose_cod; reflexivity|].
        econstructor; [apply typed_var; reflexivity|]. simpl. rewrite Nat.mul_1_r. reflexivity.
  - constructor.
    eapply typed_app_eq; [apply matmul_dom|rewrite matmul_cod, Nat.mul_1_r; reflexivity|].
    constructor. constructor.
    + eapply typed_app_eq; [apply transpose_dom|apply transpose_cod|].
      econstructor; [apply typed_var; reflexivity|reflexivity].
    + constructor; [|constructor]. apply typed_var. simpl. rewrite Nat.mul_1_r. reflexivity.
Qed.
End fc.

(** ** [H_train] (spec §9.1) for a learning rate [α : Real(1)] and a target
    [t : Real(n_out)]:
<<
   H_train = {x ↦ ⌊α · (x − t)⌋} ∪ {(x ↦ Q^f_{FC[ℓ]} | y,z ↦ Q^b_{FC[ℓ]})}_{ℓ ∈ ls}
>> *)
Variables (n_out : nat) (alpha t : const).
Hypothesis alpha_ty : const_ty alpha = Real 1.
Hypothesis t_ty : const_ty t = Real n_out.

Definition ret_train : cmd :=
  Ret (App (smul n_out) (Tuple [Const alpha; App (vsub n_out) (Tuple [Var 0; Const t])])).

Fixpoint fc_clauses (ls : list loc) : clauses :=
  match ls with
  | [] => CNil
  | l :: ls' => CCons (OpUser (FC l)) (fc_D l) (fc_fwd l) (fc_bwd l) (fc_clauses ls')
  end.

Definition H_train (ls : list loc) : handler := Handler ret_train (fc_clauses ls).

Lemma H_train_typed ls : typed_handler (H_train ls) (R n_out).
Proof.
  constructor.
  - constructor. eapply typed_app_eq; [apply smul_dom|apply smul_cod|].
    constructor. constructor.
    + unfold R. rewrite <- alpha_ty. constructor.
    + constructor; [|constructor].
      eapply typed_app_eq; [apply vsub_dom|apply vsub_cod|].
      constructor. constructor; [apply typed_var; reflexivity|].
      constructor; [|constructor]. unfold R. rewrite <- t_ty. constructor.
  - induction ls as [|l ls IH]; simpl; constructor; auto.
    + apply fc_fwd_typed.
    + apply fc_bwd_typed.
Qed.

(** ** The MLP with swish (spec §9.1)
<<
   R_MLP = let x1 ⇐ FC[ℓ0](x_in) in FC[ℓ1](swish(x1))
   P_MLP = rev handle(<v>)<x_in>.R_MLP with H_train       ℓ0 :: (n_in, n_hid), ℓ1 :: (n_hid, n_out)
>> *)
Variables (l0 l1 : loc) (v : const).
Let n_in := fst (shape l0).
Let n_hid := snd (shape l0).
Hypothesis shape_l1 : shape l1 = (n_hid, n_out).
Hypothesis v_ty : const_ty v = Real n_in.

Definition R_MLP : cmd :=
  CLet (Op (OpUser (FC l0)) (Var 0))
       (Op (OpUser (FC l1)) (App (swish n_hid) (Var 0))).

Definition P_MLP : cmd := RevHandle (Tuple [Const v]) R_MLP (H_train [l0; l1]).

Lemma R_MLP_typed : typed_cmd [R n_in] R_MLP (R n_out).
Proof.
  unfold R_MLP. apply typed_cmd_let with (A := R n_hid).
  - replace (R n_hid) with (ar (OpUser (FC l0))) by (simpl; rewrite FC_ar; reflexivity).
    constructor. simpl. rewrite FC_coar. apply typed_var. reflexivity.
  - replace (R n_out) with (ar (OpUser (FC l1))) by (simpl; rewrite FC_ar, shape_l1; reflexivity).
    constructor. simpl. rewrite FC_coar, shape_l1. simpl.
    eapply typed_app_eq; [apply swish_dom|apply swish_cod|].
    apply typed_var. reflexivity.
Qed.

Lemma P_MLP_typed : typed_cmd [] P_MLP (TProd [R n_in]).
Proof.
  econstructor.
  - constructor. constructor; [|constructor]. unfold R. rewrite <- v_ty. constructor.
  - apply R_MLP_typed.
  - apply H_train_typed.
Qed.

(** ** The one-layer example of the paper's §5.2 (spec §9.5)
<<
   rev handle(<v>)<x>.FC[ℓ](x) with H_MLP
    → let <y, z'> ⇐ Q^f_{FC[ℓ]}[v/x] in
      let <y', y'_1> ⇐ (let y ⇐ P[y/x] in ⌊<y, 0>⌋) in
      let y''_1 ⇐ Q^b_{FC[ℓ]}[y'/y, z'/z] in ⌊<y'_1 + y''_1>⌋
>>
    A pattern [let <a, b> ⇐ P in Q] binds the tuple once; [a] and [b] are
    its projections.  So, after [let <y, z'> ⇐ …], [y = proj_1 #0] and
    [z' = proj_2 #0]; after [let <y', y'_1> ⇐ …], [y' = proj_1 #0],
    [y'_1 = proj_2 #0] and [z' = proj_2 #1]; after [let y''_1 ⇐ …],
    [y''_1 = #0] and [y'_1 = proj_2 #1]. *)
Variable l : loc.
Definition H_one : handler := H_train [l].

Definition paper_chain : cmd :=
  (* let <y, z'> ⇐ Q^f[v/x] in *)
  CLet (subst_cmd (list_subst [Const v]) (fc_fwd l))
  (* let <y', y'_1> ⇐ (let y ⇐ P[y/x] in ⌊<y, 0>⌋) in *)
  (CLet (CLet (subst_cmd (list_subst [Proj 0 (Var 0)]) ret_train)
              (Ret (Tuple [Var 0; zero (TBase (const_ty v))])))
  (* let y''_1 ⇐ Q^b[y'/y, z'/z] in *)
  (CLet (subst_cmd (list_subst [Proj 0 (Var 0); Proj 1 (Var 1)]) (fc_bwd l))
  (* ⌊<y'_1 + y''_1>⌋ *)
  (Ret (Tuple [Add (Proj 1 (Var 1)) (Var 0)])))).

Hypothesis v_shape : const_ty v = Real (fst (shape l)).

Lemma one_layer_rh :
  rh H_one [TBase (const_ty v)] [Const v] (Op (OpUser (FC l)) (Var 0)) paper_chain.
Proof.
  assert (Hcl : clause_of H_one (OpUser (FC l)) = (fc_D l, fc_fwd l, fc_bwd l)).
  { unfold clause_of, H_one, H_train. cbn [fc_clauses find_clause].
    destruct (opsym_eq_dec (OpUser (FC l)) (OpUser (FC l))); [reflexivity|congruence]. }
  assert (Hcoar : coar (OpUser (FC l)) = TBase (const_ty v)).
  { simpl. rewrite FC_coar, v_shape. reflexivity. }
  unfold paper_chain.
  replace (Ret (Tuple [Add (Proj 1 (Var 1)) (Var 0)]))
    with (Ret (rh_op_result (length [TBase (const_ty v)]) 0 (coar (OpUser (FC l)))))
    by (rewrite Hcoar; reflexivity).
  apply (rh_op H_one [TBase (const_ty v)] [Const v] [] (OpUser (FC l)) 0 (Const v)
           (fc_D l) (fc_fwd l) (fc_bwd l)); [reflexivity|exact Hcl|].
  apply (rh_ret H_one (ar (OpUser (FC l)) :: [TBase (const_ty v)])
           [Proj 0 (Var 0); shift (Const v)] 0 (Proj 0 (Var 0)) eq_refl).
Qed.

(** The [rev handle] step of the paper's §5.2 takes the one-layer command
    to the printed let-chain in one step. *)
Lemma one_layer_step :
  step_cmd (RevHandle (Tuple [Const v]) (Op (OpUser (FC l)) (Var 0)) H_one) paper_chain.
Proof.
  eapply (step_cmd_revhandle [] [Const v] [TBase (const_ty v)]).
  - constructor; [reflexivity|constructor].
  - reflexivity.
  - apply one_layer_rh.
  - reflexivity.
  - reflexivity.
Qed.

End examples.

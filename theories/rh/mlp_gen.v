(** * The paper's MLP at every depth and width, as a program

    [R_MLP] of [examples.v] has two layers.  Here the program is a Coq
    function of the list of weight locations [ls = [ℓ_0; …; ℓ_{L-1}]]
    ([ℓ_i :: (n_i, n_{i+1})] holds the [n_{i+1} × n_i] matrix [m_i]):
<<
    R_MLP(ℓ_0)             = FC[ℓ_0](x_in)
    R_MLP(ℓ_0, …, ℓ_{L-1}) = let x_1 ⇐ FC[ℓ_0](x_in) in
                             let x_2 ⇐ FC[ℓ_1](swish(x_1)) in … FC[ℓ_{L-1}](swish(x_{L-1}))
    P_MLP(ls)              = rev handle(<v>)<x_in>.R_MLP(ls) with H_train(ls)
>>
    It is well typed for every chain of shapes ([mlp_gen_typed]), and for
    two layers it is [examples.v]'s [R_MLP] ([R_MLP_gen_two]).  What one
    run of it computes over ℝ is [mlp_train] of
    [theories/analysis/mlp_grad.v], whose gradient theorem is
    [mlp_train_gradient]; the step from this program to [mlp_train] (the
    run of the evaluator at every depth) is not proved yet
    (docs/decisions.md, "Backpropagation at every size"). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem examples.

Section mlp_gen.
Context {Srt : sorts} {Σ : signature}.

(** The example signature of [examples.v]. *)
Variable Real : nat -> base.
Variable swish : nat -> fsym.
Hypothesis swish_dom : forall n, fsym_dom (swish n) = R Real n.
Hypothesis swish_cod : forall n, fsym_cod (swish n) = R Real n.
Variable smul : nat -> fsym.
Hypothesis smul_dom : forall n, fsym_dom (smul n) = TPair (R Real 1) (R Real n).
Hypothesis smul_cod : forall n, fsym_cod (smul n) = R Real n.
Variable vsub : nat -> fsym.
Hypothesis vsub_dom : forall n, fsym_dom (vsub n) = TPair (R Real n) (R Real n).
Hypothesis vsub_cod : forall n, fsym_cod (vsub n) = R Real n.
Variable matmul : nat -> nat -> nat -> fsym.
Hypothesis matmul_dom : forall m n k, fsym_dom (matmul m n k) = TPair (R Real (m * n)) (R Real (n * k)).
Hypothesis matmul_cod : forall m n k, fsym_cod (matmul m n k) = R Real (m * k).
Variable transpose : nat -> nat -> fsym.
Hypothesis transpose_dom : forall m n, fsym_dom (transpose m n) = R Real (m * n).
Hypothesis transpose_cod : forall m n, fsym_cod (transpose m n) = R Real (n * m).
Variable shape : loc -> nat * nat.
Hypothesis loc_base_shape : forall l, loc_base l = Real (snd (shape l) * fst (shape l)).
Variable FC : loc -> op.
Hypothesis FC_coar : forall l, op_coar (FC l) = R Real (fst (shape l)).
Hypothesis FC_ar : forall l, op_ar (FC l) = R Real (snd (shape l)).

(** The layers after the first: [swish], then [FC[ℓ]]. *)
Fixpoint rest_gen (ls : list loc) : cmd :=
  match ls with
  | [] => Ret (Var 0)
  | [l] => Op (OpUser (FC l)) (App (swish (fst (shape l))) (Var 0))
  | l :: ls' => CLet (Op (OpUser (FC l)) (App (swish (fst (shape l))) (Var 0))) (rest_gen ls')
  end.

Definition R_MLP_gen (ls : list loc) : cmd :=
  match ls with
  | [] => Ret (Var 0)
  | [l] => Op (OpUser (FC l)) (Var 0)
  | l :: ls' => CLet (Op (OpUser (FC l)) (Var 0)) (rest_gen ls')
  end.

(** [ls] is a chain of shapes from [n] to [m]: [ℓ_0 :: (n, n_1)],
    [ℓ_1 :: (n_1, n_2)], …, [ℓ_{L-1} :: (n_{L-1}, m)]. *)
Fixpoint chained (n : nat) (ls : list loc) (m : nat) : Prop :=
  match ls with
  | [] => n = m
  | l :: ls' => fst (shape l) = n /\ chained (snd (shape l)) ls' m
  end.

Lemma typed_fc_app Δ l M n :
  fst (shape l) = n -> typed_tm Δ M (R Real n) ->
  typed_cmd Δ (Op (OpUser (FC l)) M) (R Real (snd (shape l))).
Proof.
  intros Hn HM. replace (R Real (snd (shape l))) with (ar (OpUser (FC l))) by (simpl; rewrite FC_ar; reflexivity).
  constructor. simpl. rewrite FC_coar, Hn. exact HM.
Qed.

Lemma rest_gen_typed ls : forall Δ n m, chained n ls m -> typed_cmd (R Real n :: Δ) (rest_gen ls) (R Real m).
Proof.
  induction ls as [|l ls IH]; intros Δ n m Hc.
  - simpl in Hc. subst. constructor. constructor. reflexivity.
  - destruct Hc as [Hl Hc]. destruct ls as [|l' ls'].
    + simpl in Hc. subst m. apply (typed_fc_app _ _ _ (fst (shape l))); [reflexivity|].
      apply (typed_app_eq _ (swish (fst (shape l))) _ (R Real (fst (shape l))));
        [apply swish_dom|apply swish_cod|]. rewrite Hl. constructor. reflexivity.
    + change (rest_gen (l :: l' :: ls')) with
        (CLet (Op (OpUser (FC l)) (App (swish (fst (shape l))) (Var 0))) (rest_gen (l' :: ls'))).
      apply typed_cmd_let with (A := R Real (snd (shape l))).
      * apply (typed_fc_app _ _ _ (fst (shape l))); [reflexivity|].
        apply (typed_app_eq _ (swish (fst (shape l))) _ (R Real (fst (shape l))));
        [apply swish_dom|apply swish_cod|]. rewrite Hl. constructor. reflexivity.
      * apply IH. exact Hc.
Qed.

(** The network is well typed for every chain of at least one layer. *)
Lemma R_MLP_gen_typed ls Δ n m : ls <> [] -> chained n ls m -> typed_cmd (R Real n :: Δ) (R_MLP_gen ls) (R Real m).
Proof.
  intros Hne Hc. destruct ls as [|l ls']; [contradiction|]. destruct Hc as [Hl Hc].
  destruct ls' as [|l' ls''].
  - simpl in Hc. subst m. eapply typed_fc_app; [exact Hl|]. constructor. reflexivity.
  - change (R_MLP_gen (l :: l' :: ls'')) with (CLet (Op (OpUser (FC l)) (Var 0)) (rest_gen (l' :: ls''))).
    apply typed_cmd_let with (A := R Real (snd (shape l))).
    + eapply typed_fc_app; [exact Hl|]. constructor. reflexivity.
    + apply rest_gen_typed. exact Hc.
Qed.

(** [P_MLP(ls) = rev handle(<v>)<x_in>.R_MLP(ls) with H_train(ls)]. *)
Variables (n_out : nat) (alpha t : const).
Hypothesis alpha_ty : const_ty alpha = Real 1.
Hypothesis t_ty : const_ty t = Real n_out.

Definition P_MLP_gen (ls : list loc) (v : const) : cmd :=
  RevHandle (Tuple [Const v]) (R_MLP_gen ls) (H_train Real smul vsub matmul transpose shape FC n_out alpha t ls).

Lemma mlp_gen_typed ls v n_in :
  ls <> [] -> chained n_in ls n_out -> const_ty v = Real n_in ->
  typed_cmd [] (P_MLP_gen ls v) (TProd [R Real n_in]).
Proof.
  intros Hne Hc Hv. econstructor.
  - constructor. constructor; [|constructor]. unfold R. rewrite <- Hv. constructor.
  - apply (R_MLP_gen_typed ls [] n_in n_out); auto.
  - apply H_train_typed; auto.
Qed.

(** Two layers: [examples.v]'s [R_MLP]. *)
Lemma R_MLP_gen_two l0 l1 :
  shape l1 = (snd (shape l0), n_out) ->
  R_MLP_gen [l0; l1] = R_MLP swish shape FC l0 l1.
Proof. intros Hs. unfold R_MLP_gen, rest_gen, R_MLP. rewrite Hs. reflexivity. Qed.

End mlp_gen.

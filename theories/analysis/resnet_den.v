(** * The meaning of the residual block's program is one step of gradient descent

    The residual block of Table 1 (row 2), [examples/resnet.rh], as a
    program at every depth and width over the real instance of
    [cmd_den.v], with the primitives and the handler of [mlp_den.v]:
<<
    R_Res(ls)  = let z ⇐ R_MLP(ls) in ⌊x_in + z⌋             (n_0 = n_L)
    P_Res(ls)  = rev handle(<v>)<x_in>.R_Res(ls) with H_train(ls)
>>
    [R_MLP(ls)] is [mlp_gen.v]'s [R_MLP_gen] (as [real_R_MLP]); inside the
    [let], [x_in] is the variable [1] and [z] the variable [0]; [+] is the
    term [Add] of the calculus (T-Add).
    - [P_Res_real_typed]: the program is well typed, of type
      [(Real(n_0))], for every chain of shapes from [n_0] back to [n_0];
    - [P_Res_real_okr]: it is in the fragment [okr] of [cmd_sound.v]
      (from [mlp_frag.v]'s lemmas), whenever the three constants have
      the lengths of their types. *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem
  cmd_ctx cmd_sem instance interp machine.
From RevHandlers Require examples mlp_gen.
From RevHandlers.Analysis Require Import vec templates sums prims denot rdcalc rdden rdsound cmd_den cmd_sound mlp_grad
  rdsound_all rdsound_eval mlp_frag mlp_den resnet_grad.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

Section resnet_den.
Variables (decls : list (ty * ty)) (locs : list nat) (shape : nat -> nat * nat) (FC : nat -> nat).

#[local] Instance Σres : signature := exec_signature Rvo decls locs.

Notation prog_den := (prog_den decls locs).
Notation heap_fits := (heap_fits decls locs).

Variables (n_out : nat) (α : R) (t : vec).

(** ** The program *)
Definition real_R_Res (ls : list nat) : cmd :=
  CLet (real_R_MLP shape FC ls) (Ret (Add (Var 1) (Var 0))).

Definition P_Res_real (ls : list nat) (v : vec) : cmd :=
  RevHandle (Tuple [Const (length v, v)]) (real_R_Res ls) (H_train_real decls locs shape FC n_out α t ls).

(** It is [P_MLP_real] with [R_Res] in place of [R_MLP]. *)
Lemma P_Res_real_eq ls v :
  P_Res_real ls v =
  match P_MLP_real decls locs shape FC n_out α t ls v with
  | RevHandle M R H => RevHandle M (CLet R (Ret (Add (Var 1) (Var 0)))) H
  | P => P
  end.
Proof. reflexivity. Qed.

(** ** Well typed *)
Theorem P_Res_real_typed ls v :
  (forall l, loc_base l = (snd (shape l) * fst (shape l))%nat) ->
  (forall l, op_coar (FC l) = TBase (fst (shape l))) ->
  (forall l, op_ar (FC l) = TBase (snd (shape l))) ->
  ls <> [] -> mlp_gen.chained shape (length v) ls n_out -> n_out = length v -> length t = n_out ->
  typed_cmd [] (P_Res_real ls v) (TProd [TBase (length v)]).
Proof.
  intros Hloc Hcoar Har Hne Hc Hn Ht.
  pose proof (@mlp_gen.mlp_gen_typed Rsorts' Σres (fun n => n) swish_f (fun _ => eq_refl) (fun _ => eq_refl)
           smul_f (fun _ => eq_refl) (fun _ => eq_refl) vsub_f (fun _ => eq_refl) (fun _ => eq_refl)
           matmul_f (fun _ _ _ => eq_refl) (fun _ _ _ => eq_refl)
           transpose_f (fun _ _ => eq_refl) (fun _ _ => eq_refl)
           shape Hloc FC Hcoar Har n_out (1%nat, [α]) (n_out, t) eq_refl eq_refl ls (length v, v) (length v)
           Hne Hc eq_refl) as HP.
  inversion HP as [| | |? ? ? ? As C HM HR HH]; subst. clear HR HH.
  econstructor; [exact HM| |eapply examples.H_train_typed].
  - apply typed_cmd_let with (A := @TBase Rsorts' n_out).
    + exact (mlp_gen.R_MLP_gen_typed (fun n => n) swish_f (fun _ => eq_refl) (fun _ => eq_refl)
               shape FC Hcoar Har ls [] (length v) n_out Hne Hc).
    + constructor. apply typed_tm_add; constructor; cbn; rewrite ?Hn; reflexivity.
  - all: first [exact Hloc | exact Hcoar | exact Har | reflexivity | intros; reflexivity].
Qed.

(** ** In the fragment of [cmd_sound.v] *)
Theorem P_Res_real_okr ls v : length t = n_out -> okr (P_Res_real ls v).
Proof.
  intros Ht.
  pose proof (mlp_gen_okr decls locs shape FC n_out (1%nat, [α]) (n_out, t) ls (length v, v)
                eq_refl Ht eq_refl) as H.
  unfold mlp_prog, mlp_gen.P_MLP_gen in H. cbn [okr okrh] in H |- *.
  destruct H as (HM & HR & HH). split; [exact HM|]. split; [|exact HH].
  split; [exact HR|]. cbn [chaing okg]. split; exact I.
Qed.

End resnet_den.

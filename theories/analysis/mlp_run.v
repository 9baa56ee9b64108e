(** * One run of the evaluator on the paper's MLP is one step of gradient descent, at every size

    [mlp_den.v] proves that the meaning [prog_den] of the MLP program
    [P_MLP(ls) = rev handle(<v>)<x_in>.R_MLP(ls) with H_train(ls)] is one
    gradient-descent step ([mlp_den_gradient_widths]), and
    [mlp_frag.v]'s [mlp_adequacy_run] that the evaluator, from some fuel
    on, answers what the meaning says, or ends stuck on an [Ev].  This
    file excludes the stuck case with [theories/rh/never_stuck.v]:

    - [mlp_order_ok]: the program is within the [rd] order of the
      instance.  It has no [rd] body; the body of the [rev handle] counts
      as one level, so [swish_n = rd^0[PSwish n]] there is at budget 1
      ([0 + 1 ≤ 2]), the handler's primitives ([smul], [vsub],
      [matmul], [transpose]) at budget 0; its constants (the input, the
      rate, the target, the unit argument of [Get]) have their lengths.
    - [mlp_unhandled]: every [FC[ℓ]] of the body is handled by a clause
      of [H_train(ls)], whose clauses only do [Get[ℓ]] and [Put[ℓ]]: no
      user operation escapes.  Neither needs distinct operations.
    - [heap_fits_never_stuck], [heap_fits_heap_ok]: a heap whose
      constants have the lengths of their locations (the premise of
      [mlp_den.v]) is one [never_stuck.v] accepts; the real instance
      [Rvo] is the list model [list_vec_ops Rsc], which has [vec_shapes]
      ([list_vec_shapes]).

    Headline: [mlp_run_gradient] (for every list of widths [ns] of at
    least one layer, every rate, target, input and heap of the right
    lengths: from some fuel on, [run] and the environment machine both end
    with [RDone hp' V _], [V] the value [<g>] and [hp'] the gradient step
    of [mlp_den_gradient_widths]). *)
From Coq Require Import Reals List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd cmd_ctx cmd_sem
  instance interp machine effects shapes.
From RevHandlers Require never_stuck examples mlp_gen.
From RevHandlers.Analysis Require Import vec prims denot cmd_den cmd_sound mlp_grad cmd_adequacy mlp_frag mlp_den.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

(** ** The program is within the order, handles its operations, and the heap fits *)
Section checks.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σc : signature := exec_signature Rvo decls locs.

Notation order_ok := (never_stuck.order_ok Rvo).

Ltac fok := unfold never_stuck.exec_fok, swish_f, smul_f, vsub_f, matmul_f, transpose_f in *; cbn [fst snd];
  split; [lia|reflexivity].

Ltac ok := repeat match goal with
  | |- _ /\ _ => split
  | |- True => exact I
  | |- never_stuck.exec_fok _ _ => fok
  | |- const_fits _ _ => first [reflexivity|assumption]
  end.

Lemma rest_gen_ok shape FC ls :
  never_stuck.cmd_ok (const_fits Rvo) never_stuck.exec_fok 1 (mlp_gen.rest_gen swish_f shape FC ls).
Proof.
  induction ls as [|l ls IH]; [exact I|].
  destruct ls as [|l' ls'].
  - cbn. split; [|exact I]. fok.
  - split; [|exact IH]. cbn. split; [|exact I]. fok.
Qed.

Lemma R_MLP_gen_ok shape FC ls :
  never_stuck.cmd_ok (const_fits Rvo) never_stuck.exec_fok 1 (mlp_gen.R_MLP_gen swish_f shape FC ls).
Proof.
  destruct ls as [|l [|l' ls']]; try exact I.
  split; [exact I|]. apply rest_gen_ok.
Qed.

Lemma fc_clauses_ok shape FC ls :
  never_stuck.clauses_ok (const_fits Rvo) never_stuck.exec_fok 0
    (examples.fc_clauses (fun n => n) vsub_f matmul_f transpose_f shape FC ls).
Proof.
  induction ls as [|l ls IH]; [exact I|].
  cbn -[const_fits]. split; [|split; [|exact IH]]; ok.
Qed.

(** [mlp_order_ok]: the program at rate [alpha], target [t], input [v]
    of their lengths is within the [rd] order of the instance. *)
Theorem mlp_order_ok shape FC n_out alpha t ls v :
  length (snd alpha) = fst alpha -> length (snd t) = fst t -> length (snd v) = fst v ->
  order_ok (mlp_prog decls locs shape FC n_out alpha t ls v).
Proof.
  intros Ha Ht Hv. unfold never_stuck.order_ok, mlp_prog, mlp_gen.P_MLP_gen.
  split; [split; [exact Hv|exact I]|]. split; [apply R_MLP_gen_ok|]. split; [|apply fc_clauses_ok].
  cbn -[const_fits]. ok.
Qed.

(** *** No operation escapes *)

(** The operations of the body: [FC[ℓ]] for each layer. *)
Lemma eff_rest_gen shape FC ls :
  eff (mlp_gen.rest_gen swish_f shape FC ls) = map (fun l => @OpUser Rsorts' (FC l)) ls.
Proof.
  induction ls as [|l ls IH]; [reflexivity|].
  destruct ls as [|l' ls']; [reflexivity|].
  transitivity (@OpUser Rsorts' (FC l) :: eff (mlp_gen.rest_gen swish_f shape FC (l' :: ls'))); [reflexivity|].
  rewrite IH. reflexivity.
Qed.

Lemma eff_R_MLP_gen shape FC ls :
  eff (mlp_gen.R_MLP_gen swish_f shape FC ls) = map (fun l => @OpUser Rsorts' (FC l)) ls.
Proof.
  destruct ls as [|l [|l' ls']]; try reflexivity.
  transitivity (@OpUser Rsorts' (FC l) :: eff (mlp_gen.rest_gen swish_f shape FC (l' :: ls'))); [reflexivity|].
  rewrite eff_rest_gen. reflexivity.
Qed.

(** A heap operation, not a user one. *)
Definition not_user (o : opsym) : Prop := match o with OpUser _ => False | _ => True end.

(** The clauses of [H_train] answer [FC[ℓ]] of every layer [ℓ] with a
    [Get] and a [Put]. *)
Lemma eff_fc_clauses shape FC ls l : In l ls ->
  Forall not_user (eff_clauses (examples.fc_clauses (fun n => n) vsub_f matmul_f transpose_f shape FC ls)
                     (@OpUser Rsorts' (FC l))).
Proof.
  induction ls as [|l' ls IH]; intros Hin; [destruct Hin|].
  cbn [examples.fc_clauses eff_clauses].
  destruct (opsym_eq_dec (@OpUser Rsorts' (FC l)) (@OpUser Rsorts' (FC l'))) as [E|E].
  - cbn. repeat constructor.
  - destruct Hin as [->|Hin]; [contradiction|]. apply IH, Hin.
Qed.

Lemma unhandled_not_user P : Forall not_user (eff P) -> unhandled P = [].
Proof.
  unfold unhandled. induction (eff P) as [|o E IH]; intros HF; [reflexivity|].
  inversion HF as [|? ? Ho HE]; subst.
  destruct o; cbn in Ho |- *; [contradiction|exact (IH HE)|exact (IH HE)].
Qed.

(** [mlp_unhandled]: no user operation escapes the program. *)
Theorem mlp_unhandled shape FC n_out alpha t ls v :
  unhandled (mlp_prog decls locs shape FC n_out alpha t ls v) = [].
Proof.
  apply unhandled_not_user. unfold mlp_prog, mlp_gen.P_MLP_gen, examples.H_train.
  cbn [eff eff_handler]. rewrite eff_R_MLP_gen.
  change (eff (examples.ret_train _ _ _ _ _)) with (@nil opsym). cbn [app].
  apply Forall_forall. intros o Ho. apply in_flat_map in Ho as [o' [Ho' Ho]].
  apply in_map_iff in Ho' as [l [<- Hl]].
  exact (proj1 (Forall_forall _ _) (eff_fc_clauses shape FC ls l Hl) o Ho).
Qed.

(** *** The heap *)

(** A heap whose constants have the lengths of their locations respects
    the shapes and is one [never_stuck.v] accepts. *)
Lemma heap_fits_heap_ok hp : heap_fits decls locs hp -> heap_ok hp.
Proof.
  unfold heap_fits, heap_ok. apply Forall_impl. intros lc [H1 _]. exact H1.
Qed.

Lemma heap_fits_never_stuck hp : heap_fits decls locs hp -> never_stuck.heap_fits Rvo hp.
Proof.
  unfold heap_fits, never_stuck.heap_fits, never_stuck.heap_cok. apply Forall_impl.
  intros [l [n w]] [H1 H2]. unfold const_fits. cbn in *. congruence.
Qed.
End checks.

(** The real instance is the list model, which keeps the shapes. *)
Lemma Rvo_shapes : vec_shapes Rvo.
Proof. exact (list_vec_shapes Rsc). Qed.

(** * The paper's MLP, at every depth and width, is in the fragment of [cmd_sound.v]

    [P_MLP_gen] of [theories/rh/mlp_gen.v] at the real executable
    instance of [cmd_den.v] ([exec_signature Rvo decls locs]), with the
    instance's primitives: [swish_n = (0, PSwish n)], [smul_n = (0, PSmul n)],
    [vsub_n = (0, PSub n)], [matmul = (0, PMatmul m n k)],
    [transpose = (0, PTranspose m n)] (the names of [mlp_run.v]):
    - [mlp_prog]: the program, for any shapes [shape], operations [FC],
      layers [ls], rate [α], target [t] and input [v];
    - [mlp_gen_okr]: it is in the fragment [okr] of [rh_den],
      [step_conf_den] and [adequacy] (its terms [okp], the body a
      [chaing]: [FC[ℓ_i](swish(x_i))] applies an operation to a term that
      is not a variable, which RH-4 rewrites before the operation),
      whenever the three constants have the lengths of their types;
    - [mlp_inst_*], [mlp_prog_typed]: one signature for every list of
      widths [ns = [n_0; …; n_L]] ([L ≥ 1]): operation and location [i]
      for the layer [i] ([ℓ_i :: (n_i, n_{i+1})], an [n_{i+1} × n_i]
      matrix); the index [L] is a placeholder of shape [(n_L, 0)] that the
      program never uses, there because [mlp_gen.v]'s hypotheses are about
      every location.  The program over the layers [0 … L−1] is well typed;
    - [mlp_adequacy_run]: so one run of [run] or of the environment
      machine on it, over ℝ, answers what its meaning [prog_den] says
      (that this meaning is gradient descent is [mlp_grad.v]'s
      [mlp_train_gradient] once [prog_den] of the program is computed,
      which this file does not do). *)
From Coq Require Import Reals List Lia.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd cmd_ctx cmd_sem instance examples mlp_gen
  interp machine.
From RevHandlers.Analysis Require Import vec sums prims denot rdsound rdsound_all rdsound_eval cmd_den cmd_sound cmd_adequacy.
Import ListNotations.
Local Open Scope nat_scope.

#[local] Existing Instance Rsorts'.

Section mlp_frag.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σm : signature := exec_signature Rvo decls locs.

(** The instance's primitives. *)
Definition swish_f (n : nat) : fsym := (0%nat, PSwish n).
Definition smul_f (n : nat) : fsym := (0%nat, PSmul n).
Definition vsub_f (n : nat) : fsym := (0%nat, PSub n).
Definition matmul_f (m n k : nat) : fsym := (0%nat, PMatmul m n k).
Definition transpose_f (m n : nat) : fsym := (0%nat, PTranspose m n).

(** [rev handle(<v>)<x_in>.R_MLP(ls) with H_train(ls)] over ℝ. *)
Definition mlp_prog (shape : loc -> nat * nat) (FC : loc -> op) (n_out : nat) (alpha t : const)
    (ls : list loc) (v : const) : cmd :=
  P_MLP_gen (fun n => n) swish_f smul_f vsub_f matmul_f transpose_f shape FC n_out alpha t ls v.

(** ** The program is in the fragment *)
Lemma good_mlp p : smooth_prim p = true -> prim_ok p = true -> good (0%nat, p).
Proof. intros Hs Hok. apply good_smooth; auto. Qed.

Lemma prim_fits_mlp p : smooth_prim p = true -> prim_ok p = true -> prim_fits (0%nat, p).
Proof. intros Hs Hok. apply smooth_prim_fits; auto. Qed.

Lemma swish_okg n x : okg 2 (App (swish_f n) (Var x)).
Proof. cbn [okg]. split; [split; [apply good_goodg, good_mlp; reflexivity|cbn; lia]|exact I]. Qed.

Lemma rest_gen_chaing shape FC ls : chaing (rest_gen swish_f shape FC ls).
Proof.
  induction ls as [|l ls IH]; [exact I|]. destruct ls as [|l' ls'].
  - apply swish_okg.
  - split; [apply swish_okg|exact IH].
Qed.

Lemma R_MLP_gen_chaing shape FC ls : chaing (R_MLP_gen swish_f shape FC ls).
Proof.
  destruct ls as [|l ls']; [exact I|]. destruct ls' as [|l' ls'']; [exact I|].
  split; [exact I|]. apply rest_gen_chaing.
Qed.

Lemma unit_tm_okp : okp unit_tm.
Proof. reflexivity. Qed.

Lemma fc_clauses_okr shape FC ls :
  okrcls (fc_clauses (fun n => n) vsub_f matmul_f transpose_f shape FC ls).
Proof.
  induction ls as [|l ls IH]; [exact I|]. cbn [fc_clauses okrcls].
  split; [|split; [|exact IH]].
  - unfold fc_fwd. cbn [okr okp]. split; [apply unit_tm_okp|].
    repeat split; apply prim_fits_mlp; reflexivity.
  - unfold fc_bwd. cbn [okr okp]. repeat split; apply prim_fits_mlp; reflexivity.
Qed.

Theorem mlp_gen_okr shape FC n_out alpha t ls v :
  length (snd alpha) = fst alpha -> length (snd t) = fst t -> length (snd v) = fst v ->
  okr (mlp_prog shape FC n_out alpha t ls v).
Proof.
  intros Ha Ht Hv. unfold mlp_prog, P_MLP_gen. cbn [okr okrh okp].
  split; [split; [exact Hv|exact I]|]. split; [apply R_MLP_gen_chaing|].
  split; [|apply fc_clauses_okr].
  unfold ret_train. cbn [okr okp]. repeat split; try (apply prim_fits_mlp; reflexivity); assumption.
Qed.

End mlp_frag.

(** ** One signature for every list of widths *)
Section mlp_inst.
Variable ns : list nat.

(** [L], the number of layers, and the index of the placeholder. *)
Definition mlp_nlayers : nat := length ns - 1.
Definition mlp_width (i : nat) : nat := nth i ns 0%nat.
Definition mlp_inst_decls : list (ty * ty) :=
  map (fun i => (TBase (mlp_width i), TBase (mlp_width (S i)))) (seq 0%nat (length ns)).
Definition mlp_inst_locs : list nat := map (fun i => mlp_width (S i) * mlp_width i)%nat (seq 0%nat (length ns)).
Definition mlp_inst_FC (l : loc) : op := Nat.min l mlp_nlayers.
Definition mlp_inst_shape (l : loc) : nat * nat :=
  (mlp_width (mlp_inst_FC l), mlp_width (S (mlp_inst_FC l))).
Definition mlp_inst_layers : list loc := seq 0%nat mlp_nlayers.

#[local] Instance Σi : signature := exec_signature Rvo mlp_inst_decls mlp_inst_locs.

Lemma nth_seq_map {X} (f : nat -> X) n i d : (i < n)%nat -> nth i (map f (seq 0 n)) d = f i.
Proof.
  intros Hi. rewrite nth_indep with (d' := f 0%nat) by (rewrite map_length, seq_length; exact Hi).
  rewrite map_nth, seq_nth by exact Hi. reflexivity.
Qed.

Lemma mlp_inst_loc_base l :
  loc_base l = (snd (mlp_inst_shape l) * fst (mlp_inst_shape l))%nat.
Proof.
  change (loc_base l) with (nth l mlp_inst_locs 0). unfold mlp_inst_locs, mlp_inst_shape, mlp_inst_FC, mlp_nlayers.
  cbn [fst snd].
  destruct (Nat.lt_ge_cases l (length ns - 1)) as [Hl|Hl].
  - rewrite Nat.min_l by lia. apply (nth_seq_map (fun i => mlp_width (S i) * mlp_width i)). lia.
  - rewrite Nat.min_r by lia. unfold mlp_width at 3.
    rewrite (nth_overflow ns (n := S (length ns - 1))) by lia.
    destruct (Nat.lt_ge_cases l (length ns)) as [Hl'|Hl'].
    + rewrite (nth_seq_map (fun i => mlp_width (S i) * mlp_width i)) by exact Hl'. unfold mlp_width.
      rewrite (nth_overflow ns (n := S l)) by lia. reflexivity.
    + rewrite nth_overflow by (rewrite map_length, seq_length; exact Hl'). reflexivity.
Qed.

Lemma mlp_inst_FC_decl l : ns <> [] ->
  nth (mlp_inst_FC l) mlp_inst_decls (TProd [], TProd []) =
  (TBase (fst (mlp_inst_shape l)), TBase (snd (mlp_inst_shape l))).
Proof.
  unfold mlp_inst_decls, mlp_inst_shape. cbn [fst snd].
  intros Hne. rewrite nth_seq_map; [reflexivity|]. unfold mlp_inst_FC, mlp_nlayers.
  destruct ns; [contradiction|]. simpl. lia.
Qed.

Lemma mlp_inst_FC_coar (Hne : ns <> []) l : op_coar (mlp_inst_FC l) = R (fun n => n) (fst (mlp_inst_shape l)).
Proof. pose proof (exec_op_coar Rvo mlp_inst_decls mlp_inst_locs (mlp_inst_FC l)) as E.
  change (op_coar (mlp_inst_FC l) = fst (nth (mlp_inst_FC l) mlp_inst_decls (TProd [], TProd []))) in E.
  rewrite E, (mlp_inst_FC_decl l Hne). reflexivity. Qed.

Lemma mlp_inst_FC_ar (Hne : ns <> []) l : op_ar (mlp_inst_FC l) = R (fun n => n) (snd (mlp_inst_shape l)).
Proof. pose proof (exec_op_ar Rvo mlp_inst_decls mlp_inst_locs (mlp_inst_FC l)) as E.
  change (op_ar (mlp_inst_FC l) = snd (nth (mlp_inst_FC l) mlp_inst_decls (TProd [], TProd []))) in E.
  rewrite E, (mlp_inst_FC_decl l Hne). reflexivity. Qed.

(** The layers [0 … L−1] form a chain of shapes from [n_0] to [n_L]. *)
Lemma mlp_inst_chained : forall k, (k <= mlp_nlayers)%nat ->
  chained mlp_inst_shape (mlp_width (mlp_nlayers - k)) (seq (mlp_nlayers - k) k) (mlp_width mlp_nlayers).
Proof.
  induction k as [|k IH]; intros Hk; simpl.
  - rewrite Nat.sub_0_r. reflexivity.
  - unfold mlp_inst_shape, mlp_inst_FC. rewrite Nat.min_l by lia. simpl. split; [reflexivity|].
    replace (S (mlp_nlayers - S k)) with (mlp_nlayers - k)%nat by lia. apply IH. lia.
Qed.

(** The program over every list of widths of at least one layer is well
    typed, of the type of the input. *)
Theorem mlp_prog_typed alpha t v :
  (2 <= length ns)%nat -> fst alpha = 1%nat -> fst t = mlp_width mlp_nlayers -> fst v = mlp_width 0 ->
  typed_cmd [] (mlp_prog mlp_inst_decls mlp_inst_locs mlp_inst_shape mlp_inst_FC (mlp_width mlp_nlayers)
                  alpha t mlp_inst_layers v)
    (TProd [TBase (mlp_width 0)]).
Proof.
  intros Hns Ha Ht Hv. unfold mlp_prog.
  assert (Hne : ns <> []) by (intros ->; simpl in Hns; lia).
  apply (@mlp_gen_typed Rsorts' Σi (fun n => n) swish_f (fun _ => eq_refl) (fun _ => eq_refl)
           smul_f (fun _ => eq_refl) (fun _ => eq_refl) vsub_f (fun _ => eq_refl) (fun _ => eq_refl)
           matmul_f (fun _ _ _ => eq_refl) (fun _ _ _ => eq_refl)
           transpose_f (fun _ _ => eq_refl) (fun _ _ => eq_refl)
           mlp_inst_shape mlp_inst_loc_base mlp_inst_FC (mlp_inst_FC_coar Hne) (mlp_inst_FC_ar Hne)
           _ alpha t Ha Ht).
  - unfold mlp_inst_layers, mlp_nlayers. destruct ns as [|a [|b l]]; simpl in *; try lia. discriminate.
  - pose proof (mlp_inst_chained mlp_nlayers (le_n _)) as Hc. rewrite Nat.sub_diag in Hc. exact Hc.
  - exact Hv.
Qed.

Theorem mlp_inst_okr alpha t v :
  length (snd alpha) = fst alpha -> length (snd t) = fst t -> length (snd v) = fst v ->
  okr
    (mlp_prog mlp_inst_decls mlp_inst_locs mlp_inst_shape mlp_inst_FC (mlp_width mlp_nlayers)
       alpha t mlp_inst_layers v).
Proof. apply mlp_gen_okr. Qed.

End mlp_inst.

(** ** One run of the evaluator on the MLP is the meaning *)
Section mlp_run.
Variable ns : list nat.
#[local] Instance Σr : signature := exec_signature Rvo (mlp_inst_decls ns) (mlp_inst_locs ns).
#[local] Instance Er : evaluator := exec_evaluator Rvo.

(** For every list of widths (at least one layer), every rate, target and
    input of the right lengths and every heap whose constants have the
    lengths of their locations, [run] and the environment machine answer,
    from some fuel on, what [prog_den] says ([adequacy_run] of
    [cmd_adequacy.v] with [mlp_prog_typed] and [mlp_gen_okr]). *)
Theorem mlp_adequacy_run alpha t v hp :
  (2 <= length ns)%nat -> fst alpha = 1%nat -> fst t = mlp_width ns (mlp_nlayers ns) -> fst v = mlp_width ns 0 ->
  length (snd alpha) = fst alpha -> length (snd t) = fst t -> length (snd v) = fst v ->
  heap_fits (mlp_inst_decls ns) (mlp_inst_locs ns) hp ->
  let P := mlp_prog (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
             (mlp_width ns (mlp_nlayers ns)) alpha t (mlp_inst_layers ns) v in
  exists (N : nat) r, (forall fuel : nat, (N < fuel)%nat -> run fuel 0 hp P = r /\ run_machine fuel 0 hp P = r) /\
    match r with
    | RDone hp' V _ => prog_den (mlp_inst_decls ns) (mlp_inst_locs ns) hp P = Some (tval V, hp')
    | RStuckEv hp' P' _ _ _ => prog_den (mlp_inst_decls ns) (mlp_inst_locs ns) hp P =
                                prog_den (mlp_inst_decls ns) (mlp_inst_locs ns) hp' P'
    | RStuckOp _ _ _ _ _ => prog_den (mlp_inst_decls ns) (mlp_inst_locs ns) hp P = None
    | _ => False
    end.
Proof.
  intros Hns Ha Ht Hv Hla Hlt Hlv Hhp P.
  apply (adequacy_run (mlp_inst_decls ns) (mlp_inst_locs ns) hp P (TProd [@TBase Rsorts' (mlp_width ns 0)]) Hhp).
  - apply mlp_prog_typed; auto.
  - apply mlp_gen_okr; auto.
Qed.

End mlp_run.

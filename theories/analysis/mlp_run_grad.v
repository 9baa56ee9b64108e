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
    with [RDone hp' <(n_0, g)> _], [hp'] and [g] the gradient step of
    [mlp_den_gradient_widths]; the total evaluator [run_total_fn] answers
    the same).  The value's dimension [n_0] is type preservation
    ([done_value]).  The theorem is at [mlp_frag.v]'s signature of a list
    of widths, where the program is typed ([mlp_prog_typed]); at the
    general declarations of [mlp_den_gradient] the typing the run needs
    is not among the hypotheses, so it is not stated there. *)
From Coq Require Import Reals List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd cmd_ctx cmd_sem
  instance interp interp_facts machine effects shapes total typecheck.
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
  reflexivity.

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

(** A tree [⌊<g>⌋] is the meaning of the tuple of one constant [g] only. *)
Lemma tval_one V g : tval V = RNode [RLeaf g] -> exists k, V = Tuple [Const (k, g)].
Proof.
  destruct V as [x|c|f M|M1 M2|Ms|i M|M N|M N L]; cbn; intros E; try discriminate E.
  destruct Ms as [|W [|W' Ms]]; cbn in E; try discriminate E.
  injection E as E. destruct W as [x|[k w]|f M|M1 M2|Ms|i M|M N|M N L]; cbn in E; try discriminate E.
  injection E as ->. exists k. reflexivity.
Qed.

(** ** One run, at every depth and width *)
Section widths.
Variable ns : list nat.
#[local] Instance Σw : signature := exec_signature Rvo (mlp_inst_decls ns) (mlp_inst_locs ns).
#[local] Instance Ew : evaluator := exec_evaluator Rvo.

(** A final value of the type [(Real(n))] with meaning [⌊<g>⌋] is the
    constant [<(n, g)>]. *)
Lemma done_value fuel hp P hp' V n m g :
  heap_ok hp -> typed_cmd [] P (TProd [@TBase Rsorts' m]) -> run fuel 0 hp P = RDone hp' V n ->
  tval V = RNode [RLeaf g] -> V = Tuple [Const (m, g)].
Proof.
  intros Hhp HP E Hv. pose proof (run_sound fuel 0 hp P) as Hs. rewrite E in Hs.
  destruct (@steps_conf_preservation _ _ _ (exec_evaluator_ok Rvo (mlp_inst_decls ns) (mlp_inst_locs ns))
              _ _ _ _ _ Hhp HP (proj1 Hs)) as [_ HT].
  destruct (tval_one V g Hv) as [k ->].
  inversion HT as [? ? ? HV| | | ]; subst.
  inversion HV; subst.
  match goal with H : Forall2 _ _ _ |- _ => inversion H; subst end.
  match goal with H : typed_tm _ (Const _) _ |- _ => inversion H; subst end.
  reflexivity.
Qed.

(** [mlp_run_gradient]: for every list of widths [ns = [n_0; …; n_L]]
    ([L ≥ 1]), every input [v ∈ ℝ^{n_0}], target [t ∈ ℝ^{n_L}], rate [α]
    and heap whose constants have the lengths of their locations, whose
    locations [0 … L−1] hold [ws = [m_0; …]]: there is [N] such that for
    every fuel above [N], [run] and the environment machine both end with
    the value [<g>] and the heap [hp'] in which each weight is
    [m_i − α·∂/∂m_i ½‖f_m(v) − t‖²] entry by entry, every other location
    is unchanged, and [g_j = α·∂/∂v_j ½‖f_m(v) − t‖²]; the total
    evaluator [run_total_fn] answers the same. *)
Theorem mlp_run_gradient α t v hp :
  (2 <= length ns)%nat -> length v = hd 0%nat ns -> length t = last ns 0%nat ->
  heap_fits (mlp_inst_decls ns) (mlp_inst_locs ns) hp ->
  let P := P_MLP_real (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
             (mlp_width ns (mlp_nlayers ns)) α t (mlp_inst_layers ns) v in
  let ws := real_weights (mlp_inst_decls ns) (mlp_inst_locs ns) hp (mlp_inst_layers ns) in
  exists N g hp' n,
    (forall fuel, (N < fuel)%nat ->
       run fuel 0 hp P = RDone hp' (Tuple [Const (length g, g)]) n /\
       run_machine fuel 0 hp P = RDone hp' (Tuple [Const (length g, g)]) n) /\
    (forall small, exists F, total.run_total_fn Rvo (mlp_inst_decls ns) (mlp_inst_locs ns) small hp P =
                             Some (F, RDone hp' (Tuple [Const (length g, g)]) n)) /\
    (forall i, (i < mlp_nlayers ns)%nat ->
       fst (heap_lookup hp' i) = loc_base i /\ length (snd (heap_lookup hp' i)) = length (nth i ws [])) /\
    (forall i k, (i < mlp_nlayers ns)%nat -> (k < length (nth i ws []))%nat ->
       ex_derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k) /\
       (snd (heap_lookup hp' i))@@k =
         (nth i ws [])@@k - α * Derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k)) /\
    (forall l, (mlp_nlayers ns <= l)%nat -> heap_lookup hp' l = heap_lookup hp l) /\
    length g = length v /\
    (forall j, (j < length v)%nat ->
       ex_derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j) /\
       g@@j = α * Derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j)).
Proof.
  intros Hns Hv Ht Hhp P ws.
  assert (Hne : ns <> []) by (intros ->; simpl in Hns; lia).
  assert (Hv0 : length v = mlp_width ns 0) by (rewrite Hv; unfold mlp_width; destruct ns; reflexivity).
  assert (Ht' : length t = mlp_width ns (mlp_nlayers ns)) by (rewrite mlp_width_last by exact Hne; exact Ht).
  (* The meaning is the gradient step. *)
  destruct (mlp_den_gradient_widths ns α t v hp Hns Hv Ht Hhp) as (g & hp' & Hden & H2 & H3 & H4 & H5 & H6).
  fold P ws in Hden, H2, H3, H6.
  (* The run answers the meaning, or is stuck on an [Ev]. *)
  destruct (mlp_adequacy_run ns (1%nat, [α]) (mlp_width ns (mlp_nlayers ns), t) (length v, v) hp Hns
              eq_refl eq_refl Hv0 eq_refl Ht' eq_refl Hhp) as (N & r & Hrun & Hr).
  change (mlp_prog (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
            (mlp_width ns (mlp_nlayers ns)) (1%nat, [α]) (mlp_width ns (mlp_nlayers ns), t)
            (mlp_inst_layers ns) (length v, v)) with P in Hrun, Hr.
  (* It is not stuck: it ends with a value. *)
  assert (HP : typed_cmd [] P (TProd [@TBase Rsorts' (mlp_width ns 0)]))
    by (apply mlp_prog_typed; auto).
  assert (Hok : never_stuck.order_ok Rvo P) by (apply mlp_order_ok; cbn; auto).
  assert (Hno : unhandled P = []) by apply mlp_unhandled.
  pose proof (heap_fits_heap_ok _ _ hp Hhp) as Hhp1.
  pose proof (heap_fits_never_stuck _ _ hp Hhp) as Hhp2.
  destruct (never_stuck.run_never_stuck Rvo (mlp_inst_decls ns) (mlp_inst_locs ns) Rvo_shapes hp P _
              HP Hok Hno Hhp1 Hhp2) as [_ [N' HN']].
  destruct (HN' (S (N + N')) ltac:(lia)) as (hp'' & V & n & Hdone & _).
  destruct (Hrun (S (N + N')) ltac:(lia)) as [Er _].
  assert (Er' : r = RDone hp'' V n) by (rewrite <- Er; exact Hdone).
  rewrite Er' in Hr, Hrun.
  cbv beta iota in Hr. rewrite Hden in Hr. injection Hr as EV Ehp. subst hp''.
  assert (EV' : V = Tuple [Const (length g, g)]).
  { rewrite H5, Hv0. apply (done_value (S (N + N')) hp P hp' V n); auto. }
  subst V.
  exists N, g, hp', n. split; [exact Hrun|]. split; [|auto].
  (* The total evaluator. *)
  intros small.
  assert (Hc : typecheck.check_cmd [] P = typecheck.Ok (TProd [@TBase Rsorts' (mlp_width ns 0)]))
    by (apply typecheck.check_cmd_correct; exact HP).
  destruct (never_stuck.run_total_fn_never_stuck Rvo (mlp_inst_decls ns) (mlp_inst_locs ns) Rvo_shapes
              small hp P _ Hc Hok Hno Hhp1 Hhp2) as (F & hp2 & V2 & n2 & Ht2 & _).
  exists F.
  destruct (total.run_total_fn_correct Rvo (mlp_inst_decls ns) (mlp_inst_locs ns) small hp P F _ Ht2
              (S (N + F)) ltac:(lia)) as [_ E2].
  destruct (Hrun (S (N + F)) ltac:(lia)) as [E1 _].
  assert (E3 : RDone hp2 V2 n2 = RDone hp' (Tuple [Const (length g, g)]) n) by (transitivity (run (S (N + F)) 0 hp P); [symmetry; exact E2|exact E1]).
  rewrite Ht2. exact (f_equal (fun x => Some (F, x)) E3).
Qed.
End widths.

(** ** Adequacy without a stuck outcome, for every program of the fragment *)
Section done.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σd : signature := exec_signature Rvo decls locs.
#[local] Instance Ed : evaluator := exec_evaluator Rvo.

(** [adequacy_done]: a closed well-typed program of the fragment ([okr])
    that is within the instance's [rd] order and whose operations all have
    a handler, run from a heap whose constants have the lengths of their
    locations, ends: from some fuel on, [run] and the environment machine
    answer a final value [V] and heap [hp'], the total evaluator answers
    the same, and [(⟦V⟧, hp')] is the program's meaning.  [adequacy_run]
    with [run_never_stuck] ([never_stuck.v]) excluding its stuck
    outcomes. *)
Theorem adequacy_done hp P A :
  heap_fits decls locs hp -> typed_cmd [] P A -> okr P ->
  never_stuck.order_ok Rvo P -> unhandled P = [] ->
  exists N hp' V n,
    (forall fuel, (N < fuel)%nat -> run fuel 0 hp P = RDone hp' V n /\ run_machine fuel 0 hp P = RDone hp' V n) /\
    (forall small, exists F, total.run_total_fn Rvo decls locs small hp P = Some (F, RDone hp' V n)) /\
    prog_den decls locs hp P = Some (tval V, hp').
Proof.
  intros Hhp HP Ho Hok Hno.
  destruct (adequacy_run decls locs hp P A Hhp HP Ho) as (N & r & Hrun & Hr).
  pose proof (heap_fits_heap_ok decls locs hp Hhp) as Hhp1.
  pose proof (heap_fits_never_stuck decls locs hp Hhp) as Hhp2.
  destruct (never_stuck.run_never_stuck Rvo decls locs Rvo_shapes hp P _ HP Hok Hno Hhp1 Hhp2)
    as [_ [N' HN']].
  destruct (HN' (S (N + N')) ltac:(lia)) as (hp' & V & n & Hdone & _).
  destruct (Hrun (S (N + N')) ltac:(lia)) as [Er _].
  assert (Er' : r = RDone hp' V n) by (rewrite <- Er; exact Hdone).
  rewrite Er' in Hr, Hrun.
  exists N, hp', V, n. split; [exact Hrun|]. split; [|exact Hr].
  intros small.
  assert (Hc : typecheck.check_cmd [] P = typecheck.Ok A) by (apply typecheck.check_cmd_correct; exact HP).
  destruct (never_stuck.run_total_fn_never_stuck Rvo decls locs Rvo_shapes small hp P _ Hc Hok Hno Hhp1 Hhp2)
    as (F & hp2 & V2 & n2 & Ht2 & _).
  exists F.
  destruct (total.run_total_fn_correct Rvo decls locs small hp P F _ Ht2 (S (N + F)) ltac:(lia)) as [_ E2].
  destruct (Hrun (S (N + F)) ltac:(lia)) as [E1 _].
  rewrite Ht2. f_equal. f_equal.
  transitivity (run (S (N + F)) 0 hp P); [symmetry; exact E2|exact E1].
Qed.
End done.

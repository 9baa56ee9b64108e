(** * The meaning of the residual block's program is one step of gradient descent, at every size

    The residual block of Table 1 (row 2), [examples/resnet.rh], as a
    program at every depth and width over the real instance of
    [cmd_den.v], with the primitives, the handler and the hypotheses of
    [mlp_den.v]:
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
      (from [mlp_frag.v]'s lemmas), whenever the target has its length;
    - [res_den_train]: under [mlp_den_train]'s hypotheses and
      [n_out = length v], the meaning [prog_den hp (P_Res_real … ls v)]
      (no [RH]) is [⌊<g>⌋] and the heap with each [ℓ_i] set to its new
      weight, [(new weights, g)] being [resnet_grad.v]'s [res_train];
    - [res_den_gradient]: with [res_train_gradient], the meaning is one
      step of gradient descent on [½‖v + f_m(v) − t‖²]: each entry
      [m_i[k] − α·∂/∂m_i[k]], other locations unchanged, the value
      [⌊<α·∇_v>⌋].

    The proof is [mlp_den_train]'s, through the same pass over one layer
    ([layer_den]): the layers after the first by induction
    ([rest_den_res]), where the cotangent of a point [<u, …, x_in>] is
    the layer's on [u] and, besides, the output
    cotangent [y = α(v + f_m(v) − t)] on [x_in], which the pull-back
    through [x_in + z] put there ([rd_den_first_last]); the first layer's
    backward clause adds [m_0ᵀ y_0] to it.  That one run of the evaluator
    computes this meaning is not proved here. *)
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

(** The signature of [mlp_den.v]'s section, the same constant, so that its lemmas rewrite here. *)
#[local] Hint Extern 0 signature => exact (Σreal decls locs) : typeclass_instances.

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
  pose proof (@mlp_gen.mlp_gen_typed Rsorts' (Σreal decls locs) (fun n => n) swish_f (fun _ => eq_refl) (fun _ => eq_refl)
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


(** ** The pull-back through the sum of the first and the last component *)

(** The last component of a tuple: [x_in], at every depth of the body. *)
Definition rlast (p : rv) : rv := match p with RNode ps => last ps (RNode []) | RLeaf _ => RNode [] end.

Lemma last_nth_pred {X} (l : list X) d : last l d = nth (pred (length l)) l d.
Proof.
  induction l as [|a l IH]; [reflexivity|]. destruct l as [|b l]; [reflexivity|].
  change (last (a :: b :: l) d) with (last (b :: l) d). rewrite IH. reflexivity.
Qed.

Lemma Forall2_len {X Y} (P : X -> Y -> Prop) xs ys : Forall2 P xs ys -> length xs = length ys.
Proof. induction 1; simpl; congruence. Qed.

Lemma dsum_tyof ts : dsum (map dim (map tyof ts)) = length (rflat (RNode ts)).
Proof.
  pose proof (fits_tyof (RNode ts)) as H. inversion H as [|? ? HF]; subst.
  rewrite rflat_node. symmetry. apply concat_rflat_len. exact HF.
Qed.

(** At a point [<u, ts…, x>], the real reverse derivative of a map that is
    the sum of the first and the last component sends the cotangent [w]
    to both, [0] to the others. *)
Lemma rd_den_first_last u ts x n w G :
  length u = n -> length x = n -> length w = n ->
  (forall p, fits (tyof (RNode (RLeaf u :: ts ++ [RLeaf x]))) p ->
     G p = RLeaf (vp (rleaf (rnth 0 p)) (rleaf (rlast p)))) ->
  fits (tyof (RNode (RLeaf u :: ts ++ [RLeaf x]))) (rd_den (RLeaf w) (RNode (RLeaf u :: ts ++ [RLeaf x])) G) /\
  rflat (rd_den (RLeaf w) (RNode (RLeaf u :: ts ++ [RLeaf x])) G) = w ++ zeros (length (rflat (RNode ts))) ++ w.
Proof.
  intros Hu Hx Hw HG. set (v := RNode (RLeaf u :: ts ++ [RLeaf x])).
  set (K := length (rflat (RNode ts))).
  split; [apply rd_den_fits|].
  rewrite (rd_den_ext_fits _ _ G (fun p => RLeaf (vp (rleaf (rnth 0 p)) (rleaf (rlast p))))) by exact HG.
  assert (Hv : rflat v = u ++ rflat (RNode ts) ++ x).
  { unfold v. rewrite !rflat_node. cbn [map concat]. rewrite map_app, concat_app. cbn [map concat].
    rewrite !rflat_leaf, app_nil_r. reflexivity. }
  set (N := (n + K + n)%nat).
  assert (Hlv : length (rflat v) = N) by (rewrite Hv, !app_length; unfold N, K; lia).
  set (As := map tyof (RLeaf u :: ts ++ [RLeaf x])).
  assert (Hfv : fits (TProd As) v) by exact (fits_tyof v).
  assert (Hdim : dim (TProd As) = N) by (rewrite <- (fits_len _ _ Hfv); exact Hlv).
  set (r := fun c => vp (zeros 0 ++ c ++ zeros (N - 0 - n)) (zeros (n + K) ++ c ++ zeros (N - (n + K) - n))).
  assert (Er : r w = w ++ zeros K ++ w).
  { unfold r. replace (N - 0 - n)%nat with (K + n)%nat by (unfold N; lia).
    replace (N - (n + K) - n)%nat with 0%nat by (unfold N; lia).
    cbn [zeros repeat app]. rewrite app_nil_r, !zeros_app.
    rewrite <- (app_assoc (zeros n)), vp_app by (rewrite length_zeros; lia).
    rewrite vp_app by (rewrite !length_zeros; lia).
    rewrite (vp_zeros_r w) by lia. rewrite (vp_zeros_l (zeros K)) by (rewrite length_zeros; lia).
    rewrite (vp_zeros_l w) by lia. reflexivity. }
  rewrite <- Er. transitivity (r (rflat (RLeaf w))); [|rewrite rflat_leaf; reflexivity].
  apply (rd_den_correct (RLeaf w) v _ n r); [|rewrite rflat_leaf; exact Hw].
  cbv zeta. rewrite Hlv.
  assert (H1 : is_rev_deriv N n (fun y => vp (proj 0 n y) (proj (n + K) n y)) (rflat v)
                 (fun c => vp (zeros 0 ++ c ++ zeros (N - 0 - n)) (zeros (n + K) ++ c ++ zeros (N - (n + K) - n)))).
  { apply rd_add; apply rd_proj; auto; unfold N; lia. }
  eapply is_rev_deriv_ext; [| |exact H1].
  - intros y Hy. rewrite rflat_leaf.
    destruct (reshape_node As v y Hfv (eq_trans Hy (eq_sym Hdim))) as [ps [E [HF Hc]]]. rewrite E.
    assert (H0 : nth_error As 0 = Some (TBase (length u))) by reflexivity.
    destruct (block_nth As ps 0 _ HF H0) as [Hb Hf0].
    assert (HL : nth_error As (S (length ts)) = Some (TBase (length x))).
    { unfold As. cbn [map nth_error]. rewrite map_app, nth_error_app2 by (rewrite map_length; lia).
      rewrite map_length, Nat.sub_diag. reflexivity. }
    destruct (block_nth As ps (S (length ts)) _ HF HL) as [Hb' Hf1].
    assert (Hps : length ps = S (S (length ts))).
    { rewrite <- (Forall2_len _ _ _ HF). unfold As. rewrite map_length. cbn [length]. rewrite app_length. simpl. lia. }
    cbn [rnth rlast]. rewrite last_nth_pred, Hps. cbn [pred].
    destruct (nth 0 ps (RNode [])) as [z|zs] eqn:E0; [|inversion Hf0].
    destruct (nth (S (length ts)) ps (RNode [])) as [z'|zs'] eqn:E1; [|inversion Hf1].
    cbn [rleaf]. rewrite rflat_leaf in Hb, Hb'. rewrite Hb, Hb', Hc.
    assert (Hoff : off As (S (length ts)) = (n + K)%nat).
    { unfold off, As. cbn [map firstn]. rewrite map_app, firstn_app, map_length, Nat.sub_diag.
      rewrite firstn_all2 by (rewrite map_length; lia). cbn [firstn]. rewrite app_nil_r.
      change (dim (tyof (RLeaf u)) + dsum (map dim (map tyof ts)) = n + K)%nat.
      rewrite dsum_tyof. cbn [tyof]. rewrite dim_base. unfold K. lia. }
    rewrite Hoff. change (off As 0) with 0%nat. rewrite !dim_base, Hu, Hx. reflexivity.
  - intros c _. reflexivity.
Qed.

(** ** The layers after the first, by induction *)
Notation cden := (cden decls locs).
Notation hden := (hden decls locs).
Notation hrun := (hrun decls locs).
Notation coerce := (coerce decls locs).
Notation Htr := (H_train_real decls locs shape FC n_out α t).

(** [x + z], the term [x_in + z] with [x_in] and [z] bound. *)
Definition addl (x z : rv) : rv := den (scons z (scons x rho0)) (Add (Var 1) (Var 0)).

(** The rest of the body from a point [<u, ts…, x_in>]: the layers [ls],
    then [⌊x_in + z⌋]. *)
Definition res_rest (ls : list nat) (p : rv) : comp :=
  bind (cden (envof p) (real_rest shape FC ls)) (fun z => CRet (addl (rlast p) z)).

Lemma fits_last_inv a ts x p : fits (tyof (RNode (a :: ts ++ [RLeaf x]))) p ->
  exists x', rlast p = RLeaf x' /\ length x' = length x.
Proof.
  intros Hp. inversion Hp as [|? ps HF]; subst. cbn [map] in HF. rewrite map_app in HF.
  change (tyof a :: map tyof ts ++ map tyof [RLeaf x]) with ((tyof a :: map tyof ts) ++ [tyof (RLeaf x)]) in HF.
  apply Forall2_app_inv_l in HF as (l1 & l2 & H1 & H2 & ->).
  inversion H2 as [|? z ? ? Hz Hnil]; subst. inversion Hnil; subst. inversion Hz as [? z' Hz'|]; subst.
  exists z'. split; [cbn [rlast]; apply last_last|]. exact Hz'.
Qed.

Lemma rest_den_res ls0 ls : length t = n_out -> fc_inj FC ls0 -> forall n u ts x hp,
  incl ls ls0 -> Forall (layer_ok decls locs shape FC) ls -> heap_fits hp ->
  mlp_gen.chained shape n ls n_out -> length u = n -> length x = n_out ->
  let ns := real_widths shape n ls in
  let ws := real_weights decls locs hp ls in
  let y := vscale Rsc α (vsub Rsc (vadd Rsc x (fwd_rest ns ws u)) t) in
  let r := bp_rest ns ws u y in
  exists q,
    hrun hp (revh_aux (hden (Htr ls0)) (res_rest ls (RNode (RLeaf u :: ts ++ [RLeaf x])))
               (res_rest ls) (RNode (RLeaf u :: ts ++ [RLeaf x]))) =
    Some (q, heap_set_all decls locs hp ls (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst r)))) /\
    fits (tyof (RNode (RLeaf u :: ts ++ [RLeaf x]))) q /\
    rflat q = snd r ++ zeros (length (rflat (RNode ts))) ++ y /\ length y = n_out.
Proof.
  intros Ht Hinj. induction ls as [|l ls IH]; intros n u ts x hp Hincl Hdecl Hhp Hc Hu Hx ns ws y r.
  - (* after the last layer: the return clause, pulled back through [x_in + z] *)
    simpl in Hc. subst n.
    assert (Hy : length y = n_out).
    { assert (Ef : fwd_rest ns ws u = u) by reflexivity.
      unfold y. rewrite Ef. unfold vscale. rewrite map_length. rewrite vadd_vp by lia.
      rewrite vsub_vm by (rewrite length_vp; lia). rewrite length_vm, length_vp. lia. }
    unfold res_rest at 1. cbn [real_rest mlp_gen.rest_gen cden bind revh_aux].
    change (den (envof (RNode (RLeaf u :: ts ++ [RLeaf x]))) (Var 0)) with (RLeaf u).
    replace (rlast (RNode (RLeaf u :: ts ++ [RLeaf x]))) with (RLeaf x)
      by (cbn [rlast]; change (RLeaf u :: ts ++ [RLeaf x]) with ((RLeaf u :: ts) ++ [RLeaf x]);
          symmetry; apply last_last).
    change (addl (RLeaf x) (RLeaf u)) with (RLeaf (vadd Rsc x u)).
    rewrite (ret_den decls locs shape FC n_out α t ls0). cbn [bind hrun].
    destruct (rd_den_first_last u ts x n_out y (fun p => harg (res_rest [] p)) Hu Hx Hy) as [Hf Hr].
    { intros p Hp. destruct (fits_leaf_cons_inv _ _ _ Hp) as (z & ps & -> & Hz).
      destruct (fits_last_inv _ _ _ _ Hp) as (x' & Ex & Hx').
      unfold res_rest. cbn [real_rest mlp_gen.rest_gen cden bind harg]. rewrite Ex.
      change (den (envof (RNode (RLeaf z :: ps))) (Var 0)) with (RLeaf z).
      cbn [addl den scons rnth nth rleaf]. rewrite vadd_vp by lia. rewrite vp_comm. reflexivity. }
    eexists. split; [reflexivity|]. split; [exact Hf|]. split; [exact Hr|exact Hy].
  - (* the layer [ℓ]: [layer_den] with [swish], the rest of the pass by induction *)
    destruct Hc as [Hn Hc]. apply Forall_cons_iff in Hdecl as [Hl Hdecl']. subst n.
    set (n := fst (shape l)) in *. set (m := snd (shape l)) in *.
    assert (Hinl : In l ls0) by (apply Hincl; left; reflexivity).
    assert (Hincl' : incl ls ls0) by (intros z Hz; apply Hincl; right; exact Hz).
    set (w := snd (heap_lookup hp l)).
    assert (Hw : length w = (m * n)%nat).
    { unfold w. rewrite (heap_lookup_fits decls locs) by exact Hhp. exact (proj2 Hl). }
    set (a := map (swish Rsc) u).
    assert (Ha : length a = n) by (unfold a; rewrite map_length; exact Hu).
    set (u' := matmul Rsc m n 1 w a).
    assert (Hu' : length u' = m) by (unfold u'; rewrite length_matmul; lia).
    assert (HF : forall z ps, fits (tyof (RNode (RLeaf u :: ts ++ [RLeaf x]))) (RNode (RLeaf z :: ps)) ->
              res_rest (l :: ls) (RNode (RLeaf z :: ps)) =
              CCall (@OpUser Rsorts' (FC l)) (RLeaf (map (swish Rsc) z))
                (fun y => res_rest ls (RNode (coerce (ar (@OpUser Rsorts' (FC l))) y :: RLeaf z :: ps)))).
    { intros z ps _. unfold res_rest. rewrite (cden_rest_cons decls locs shape FC). cbn [bind].
      f_equal; try reflexivity;
      apply functional_extensionality; intros y; rewrite <- envof_cons; reflexivity. }
    destruct (IH m u' (RLeaf u :: ts) x hp Hincl' Hdecl' Hhp Hc Hu' Hx) as (q & Hq & Hqf & Hqr & Hyl).
    set (y' := vscale Rsc α (vsub Rsc (vadd Rsc x (fwd_rest (real_widths shape m ls) (real_weights decls locs hp ls) u')) t)) in *.
    assert (E1 : length (rflat (RNode (RLeaf u :: ts))) = (n + length (rflat (RNode ts)))%nat)
      by (rewrite rflat_cons_len; lia).
    assert (E2 : length (rflat (RNode (ts ++ [RLeaf x]))) = (length (rflat (RNode ts)) + n_out)%nat).
    { rewrite !rflat_node, map_app, concat_app. cbn [map concat]. rewrite rflat_leaf, !app_length, <- rflat_node.
      cbn [length]. lia. }
    destruct (layer_den decls locs shape FC n_out α t ls0 l hp u (ts ++ [RLeaf x]) (map (swish Rsc))
                (vmul (map (swish' Rsc) u)) (res_rest (l :: ls)) (res_rest ls) q _ _ _
                Hinj Hinl Hl Hhp Hu Ha (rd_swish n u Hu) HF Hq Hqf Hqr)
      as (q' & E & Hf & Hr & Hrb).
    { rewrite app_length, length_zeros, E1, rflat_cons_len, E2, Hyl. lia. }
    eexists. split; [exact E|]. split; [exact Hf|]. split; [|exact Hyl].
    rewrite Hr, E1, E2. set (K := length (rflat (RNode ts))).
    set (c := vmul (map (swish' Rsc) u) _) in *.
    rewrite !zeros_app, <- (app_assoc (zeros n)), vp_app by (rewrite length_zeros; lia).
    rewrite vp_app by (rewrite !length_zeros; lia).
    rewrite (vp_zeros_l c) by lia. rewrite (vp_zeros_l (zeros K)) by (rewrite length_zeros; lia).
    rewrite (vp_zeros_r y') by lia.
    f_equal. unfold r, ns, ws. cbn [real_widths real_weights map bp_rest snd].
    fold n m w a u'. fold y'. unfold c. rewrite vmul_inst, vmul_comm. reflexivity.
Qed.

(** ** The whole program *)

(** [res_den_train]: the meaning of [P_Res(ls)] at the input [v], from a
    heap of the right shapes, is the value [⌊<g>⌋] and the heap with each
    [ℓ_i] set to its new weight, where [(new weights, g)] is [res_train]
    ([resnet_grad.v]) of the widths and of the weights the heap holds.

    Informal proof: as [mlp_den_train], on the chain
    [FC[ℓ_0](x_in); FC[ℓ_1](swish(x_1)); …; ⌊x_in + x_L⌋]: the forward
    clause of [FC[ℓ_0]] ([fwd_den]); the rest of the pass
    ([rest_den_res]: the return clause at [x_in + x_L] gives
    [y = α(v + f_m(v) − t)], which the pull-back through [x_in + z]
    ([rd_den_first_last]) sends both to [x_L] and to [x_in]); the
    backward clause of [FC[ℓ_0]] ([bwd_den]) and the pull-back through
    [x ↦ x_in] ([rd_den_first]) add [m_0ᵀ y_0] to the [y] already held
    for [x_in]. *)
Theorem res_den_train ls v hp :
  ls <> [] -> fc_inj FC ls -> Forall (layer_ok decls locs shape FC) ls ->
  mlp_gen.chained shape (length v) ls n_out -> n_out = length v -> length t = n_out -> heap_fits hp ->
  prog_den hp (P_Res_real ls v) =
  Some (RNode [RLeaf (snd (res_train (real_widths shape (length v) ls) (real_weights decls locs hp ls) v t α))],
        heap_set_all decls locs hp ls
          (fst (res_train (real_widths shape (length v) ls) (real_weights decls locs hp ls) v t α))).
Proof.
  intros Hne Hinj Hdecl Hc Hnv Ht Hhp.
  assert (Hns : (2 <= length (real_widths shape (length v) ls))%nat) by (destruct ls; [congruence|]; simpl; lia).
  assert (Hsh : mlp_shapes (real_widths shape (length v) ls) (real_weights decls locs hp ls))
    by (apply (real_mlp_shapes decls locs shape FC n_out); auto).
  assert (Hlast : last (real_widths shape (length v) ls) 0%nat = n_out)
    by (apply (real_widths_last shape n_out); exact Hc).
  destruct (net_flat _ _ v (zeros (last (real_widths shape (length v) ls) 0%nat)) Hns Hsh eq_refl (length_zeros _))
    as (_ & Hfo & _).
  rewrite Hlast in Hfo.
  destruct ls as [|l ls]; [congruence|].
  destruct Hc as [Hn Hc]. apply Forall_cons_iff in Hdecl as [Hl Hdecl']. rewrite <- Hn in Hfo |- *.
  set (m := snd (shape l)) in *.
  assert (Hinl : In l (l :: ls)) by (left; reflexivity).
  assert (Hincl' : incl ls (l :: ls)) by (intros z Hz; right; exact Hz).
  set (w := snd (heap_lookup hp l)).
  assert (Hw : length w = (m * fst (shape l))%nat).
  { unfold w. rewrite (heap_lookup_fits decls locs) by exact Hhp. exact (proj2 Hl). }
  set (u' := matmul Rsc m (fst (shape l)) 1 w v).
  assert (Hu' : length u' = m) by (unfold u'; rewrite length_matmul; lia).
  set (F := fun p => cden (envof p) (real_R_Res (l :: ls))).
  change (hrun hp (revh_aux (hden (Htr (l :: ls))) (F (RNode [RLeaf v])) F (RNode [RLeaf v])) =
    Some (RNode [RLeaf (snd (res_train (real_widths shape (fst (shape l)) (l :: ls)) (real_weights decls locs hp (l :: ls)) v t α))],
          heap_set_all decls locs hp (l :: ls)
            (fst (res_train (real_widths shape (fst (shape l)) (l :: ls)) (real_weights decls locs hp (l :: ls)) v t α)))).
  (* the first layer: [layer_den] with the identity, the rest of the pass by [rest_den_res] *)
  assert (HF : forall z ps, fits (tyof (RNode [RLeaf v])) (RNode (RLeaf z :: ps)) ->
            F (RNode (RLeaf z :: ps)) =
            CCall (@OpUser Rsorts' (FC l)) (RLeaf ((fun x => x) z))
              (fun y => res_rest ls (RNode (coerce (ar (@OpUser Rsorts' (FC l))) y :: RLeaf z :: ps)))).
  { intros z ps Hp. inversion Hp as [|? ? HP1]; subst. inversion HP1 as [|? ? ? ? _ HP2]; subst.
    inversion HP2; subst.
    unfold F, real_R_Res, res_rest. rewrite (cden_clet decls locs), (cden_R_MLP_cons decls locs shape FC). cbn [bind].
    f_equal; try reflexivity;
      apply functional_extensionality; intros y; rewrite <- envof_cons; reflexivity. }
  assert (Hx : length v = n_out) by (symmetry; exact Hnv).
  destruct (rest_den_res (l :: ls) ls Ht Hinj m u' [] v hp Hincl' Hdecl' Hhp Hc Hu' Hx) as (q & Hq & Hqf & Hqr & Hyl).
  set (y' := vscale Rsc α (vsub Rsc (vadd Rsc v (fwd_rest (real_widths shape m ls) (real_weights decls locs hp ls) u')) t)) in *.
  destruct (layer_den decls locs shape FC n_out α t (l :: ls) l hp v [] (fun x => x) (fun y => y) F (res_rest ls) q _ _ _
              Hinj Hinl Hl Hhp (eq_sym Hn) (eq_sym Hn) (rd_id _ v (eq_sym Hn)) HF Hq Hqf Hqr)
    as (q' & E & Hf & Hr & Hrb).
  { rewrite app_length, length_zeros, rflat_cons_len, Hyl. lia. }
  rewrite E. cbv beta in Hr, Hrb |- *.
  assert (E0 : length (rflat (RNode [])) = 0%nat) by (rewrite rflat_node; reflexivity).
  rewrite E0 in Hr. cbn [zeros repeat app] in Hr. rewrite app_nil_r in Hr.
  destruct (cot_first_gen v [] q' _ [] Hf (eq_trans Hr (eq_sym (app_nil_r _))) ltac:(rewrite E0; reflexivity))
    as (ss & -> & _ & Hss & _).
  assert (Ey : res_forward (real_widths shape (fst (shape l)) (l :: ls)) (real_weights decls locs hp (l :: ls)) v =
               vadd Rsc v (fwd_rest (real_widths shape m ls) (real_weights decls locs hp ls) u')).
  { unfold res_forward. rewrite vadd_vp; [reflexivity|]. transitivity n_out; [lia|]. symmetry. exact Hfo. }
  assert (Hyn : length y' = fst (shape l)) by lia.
  inversion Hss as [|? ? HP]; subst. inversion HP; subst.
  unfold res_train. rewrite Ey. fold y'. cbv zeta.
  assert (Hbp : length (snd (mlp_backprop (real_widths shape (fst (shape l)) (l :: ls)) (real_weights decls locs hp (l :: ls)) v y')) = fst (shape l))
    by exact Hrb.
  rewrite vadd_vp by (rewrite Hbp; exact (eq_sym Hyn)). rewrite vp_comm. reflexivity.
Qed.

(** ** Gradient descent *)

(** [res_den_gradient]: the meaning of one run of the residual block's
    program is one step of gradient descent on [½‖v + f_m(v) − t‖²]: for
    distinct locations [ls = [ℓ_0; …; ℓ_{L-1}]] holding
    [m_0, …, m_{L-1}] (of the shapes of a chain from [n_0] back to
    [n_0]), entry [k] of [ℓ_i] becomes
    [m_i[k] − α · ∂/∂m_i[k] ½‖v + f_m(v) − t‖²] (the partial derivative
    exists), every other location keeps its constant, and the program
    returns [⌊<g>⌋] with [g_j = α · ∂/∂v_j ½‖v + f_m(v) − t‖²].

    Informal proof: [res_den_train] says what the meaning is in terms of
    [res_train]; [res_train_gradient] says what [res_train] computes;
    [heap_set_nth] and [heap_set_other] read the heap. *)
Theorem res_den_gradient ls v hp :
  ls <> [] -> NoDup ls -> fc_inj FC ls -> Forall (layer_ok decls locs shape FC) ls ->
  mlp_gen.chained shape (length v) ls n_out -> n_out = length v -> length t = n_out -> heap_fits hp ->
  let ns := real_widths shape (length v) ls in
  let ws := real_weights decls locs hp ls in
  exists g hp',
    prog_den hp (P_Res_real ls v) = Some (RNode [RLeaf g], hp') /\
    (forall i, (i < length ls)%nat ->
       fst (heap_lookup hp' (nth i ls 0%nat)) = loc_base (nth i ls 0%nat) /\
       length (snd (heap_lookup hp' (nth i ls 0%nat))) = length (nth i ws [])) /\
    (forall i k, (i < length ls)%nat -> (k < length (nth i ws []))%nat ->
       ex_derive (fun z => res_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k) /\
       (snd (heap_lookup hp' (nth i ls 0%nat)))@@k =
         (nth i ws [])@@k - α * Derive (fun z => res_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k)) /\
    (forall l, ~ In l ls -> heap_lookup hp' l = heap_lookup hp l) /\
    length g = length v /\
    (forall j, (j < length v)%nat ->
       ex_derive (fun z => res_loss ns ws (set_at v j z) t) (v@@j) /\
       g@@j = α * Derive (fun z => res_loss ns ws (set_at v j z) t) (v@@j)).
Proof.
  intros Hne Hnd Hinj Hdecl Hc Hnv Ht Hhp ns ws.
  set (T := res_train ns ws v t α).
  exists (snd T), (heap_set_all decls locs hp ls (fst T)).
  assert (Hns : (2 <= length ns)%nat) by (destruct ls; [congruence|]; simpl; lia).
  assert (Hsh : mlp_shapes ns ws) by (apply (real_mlp_shapes decls locs shape FC n_out); auto).
  assert (Hlast : last ns 0%nat = hd 0%nat ns)
    by (unfold ns; rewrite (real_widths_last shape n_out) by exact Hc; simpl; lia).
  assert (Hv : length v = hd 0%nat ns) by reflexivity.
  assert (Ht' : length t = hd 0%nat ns) by (simpl; lia).
  destruct (res_train_gradient ns ws v t α Hns Hsh Hlast Hv Ht') as (Hlen & Hw & Hglen & Hg).
  fold T in Hlen, Hw, Hglen, Hg.
  assert (Hws : length ws = length ls) by (unfold ws, real_weights; apply map_length).
  split; [apply res_den_train; auto|].
  destruct (net_flat ns ws v (zeros (last ns 0%nat)) Hns Hsh eq_refl (length_zeros _)) as (_ & Ho & _).
  set (y := vscale Rsc α (vsub Rsc (res_forward ns ws v) t)).
  assert (Hy : length y = last ns 0%nat)
    by (unfold y, vscale; rewrite map_length, vsub_vm, length_vm; unfold res_forward; rewrite ?length_vp; lia).
  pose proof (train_heap_shape decls locs ls hp ns ws v y T Hnd Hws Hns Hsh Hv Hy eq_refl Hlen) as Hnth.
  split; [|split; [|split; [|split]]]; try assumption.
  - intros i Hi. destruct (Hnth i Hi) as [-> Hl]. split; [reflexivity|exact Hl].
  - intros i k Hi Hk. destruct (Hnth i Hi) as [-> _]. apply Hw; lia.
  - intros l Hl. apply heap_set_other. exact Hl.
Qed.

End resnet_den.

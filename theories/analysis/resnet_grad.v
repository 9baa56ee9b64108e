(** * The residual block of Table 1 (row 2): backpropagation at every size

    [examples/resnet.rh]: the MLP with a skip connection, trained by the
    same [H_train],
<<
    R_ResNet = let z ⇐ R_MLP in ⌊x_in + z⌋          (n_0 = n_L)
>>
    Nothing in the handler knows about the skip connection: [RH-4]'s [rd]
    of the term [x_in + z] sends the output cotangent both to [x_in] and
    to the MLP, whose backward clauses run as in [mlp_grad.v]; the
    input's cotangent is the sum of the two.  [res_train] is that
    computation; [res_train_gradient] says it is one step of gradient
    descent on [½‖v + f_m(v) − t‖²], at every depth and width, with the
    same reading as [mlp_train_gradient].  That the meaning ([prog_den])
    of the program [rev handle(<v>)<x_in>.R_ResNet with H_train] at every
    size is [res_train] is [resnet_den.v]'s [res_den_train]; that one run
    of the evaluator computes it is not proved (for the MLP, see
    [mlp_den.v]'s [mlp_run_done] and [mlp_run_grad.v]; docs/decisions.md,
    "Backpropagation at every size"). *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature instance.
From RevHandlers.Analysis Require Import vec templates sums prims rdcalc mlp_grad.
Import ListNotations.
Open Scope R_scope.

(** [v + f_m(v)] and its loss. *)
Definition res_forward (ns : list nat) (ws : list vec) (x : vec) : vec := vp x (mlp_forward ns ws x).

Definition res_loss (ns : list nat) (ws : list vec) (x t : vec) : R :=
  /2 * dot (vm (res_forward ns ws x) t) (vm (res_forward ns ws x) t).

(** One sample: the cotangent [y = α·(v + f_m(v) − t)] goes to the MLP's
    backward pass and, through the skip connection, to the input. *)
Definition res_train (ns : list nat) (ws : list vec) (v t : vec) (α : R) : list vec * vec :=
  let y := vscale Rsc α (vsub Rsc (res_forward ns ws v) t) in
  let r := mlp_backprop ns ws v y in
  (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst r)), vadd Rsc (snd r) y).

Lemma vp_comm u v : vp u v = vp v u.
Proof. apply vec_ext; [rewrite !length_vp; lia|]. intros i. rewrite !nth_vp. ring. Qed.

(** ** The theorem *)
Theorem res_train_gradient ns ws v t α :
  (2 <= length ns)%nat -> mlp_shapes ns ws -> last ns 0%nat = hd 0%nat ns ->
  length v = hd 0%nat ns -> length t = hd 0%nat ns ->
  length (fst (res_train ns ws v t α)) = length ws /\
  (forall i k, (i < length ws)%nat -> (k < length (nth i ws []))%nat ->
     ex_derive (fun z => res_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k) /\
     (nth i (fst (res_train ns ws v t α)) [])@@k =
       (nth i ws [])@@k - α * Derive (fun z => res_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k)) /\
  length (snd (res_train ns ws v t α)) = length v /\
  (forall j, (j < length v)%nat ->
     ex_derive (fun z => res_loss ns ws (set_at v j z) t) (v@@j) /\
     (snd (res_train ns ws v t α))@@j = α * Derive (fun z => res_loss ns ws (set_at v j z) t) (v@@j)).
Proof.
  intros Hns Hf Hsq Hv Ht.
  set (n0 := hd 0%nat ns) in *.
  set (N := (n0 + psize ns)%nat).
  set (s := v ++ concat ws).
  assert (Hs : length s = N) by (unfold s, N; rewrite app_length, (mlp_shapes_length ns ws Hf); lia).
  set (out := res_forward ns ws v).
  destruct (net_flat ns ws v (zeros (last ns 0%nat)) Hns Hf Hv (length_zeros _)) as (Eo & Ho & _).
  assert (Hout : length out = n0) by (unfold out, res_forward; rewrite length_vp; lia).
  set (y := vscale Rsc α (vsub Rsc out t)).
  assert (Hy : y = vs α (vm out t)) by (unfold y; rewrite vsub_vm by lia; reflexivity).
  assert (Hyl : length y = last ns 0%nat) by (rewrite Hy, length_vs, length_vm; lia).
  destruct (net_flat ns ws v y Hns Hf Hv Hyl) as (_ & _ & Er & Hg & Hgf).
  set (bp := mlp_backprop ns ws v y) in *.
  (* the map of the flat vector: [v + f_m(v)], then the loss *)
  set (G := fun s' => vp (proj 0 n0 s') (Nnet ns s')).
  assert (HG : is_rev_deriv N n0 G s (fun c => vp (zeros 0 ++ c ++ zeros (N - 0 - n0)) (Rnet ns s c))).
  { apply rd_add.
    - apply rd_proj; [unfold N; lia|exact Hs].
    - rewrite <- Hsq. apply Nnet_rd. exact Hs. }
  assert (EG : G s = out).
  { unfold G, s, out, res_forward. rewrite proj_app_exact_l by lia. rewrite Eo. reflexivity. }
  pose proof (rd_comp _ n0 _ (sqerr t) G s _ _ HG (rd_sqerr n0 t (G s) Ht ltac:(rewrite EG; exact Hout))) as HF.
  cbv beta in HF.
  assert (HrF : (fun c => vp (zeros 0 ++ vs (c@@0) (vm (G s) t) ++ zeros (N - 0 - n0))
                              (Rnet ns s (vs (c@@0) (vm (G s) t)))) [α] = snd (res_train ns ws v t α) ++ concat (fst bp)).
  { cbv beta. cbn [nth]. rewrite EG, <- Hy. unfold s. rewrite Er. fold bp.
    change (snd (res_train ns ws v t α)) with (vadd Rsc (snd bp) y).
    cbn [zeros repeat app]. rewrite vp_app by (rewrite Hg; lia).
    rewrite vp_zeros_l by (unfold N; rewrite (mlp_shapes_length ns _ Hgf); lia).
    rewrite vadd_vp by lia. rewrite vp_comm. reflexivity. }
  assert (Hsnd : length (snd (res_train ns ws v t α)) = length v).
  { change (snd (res_train ns ws v t α)) with (vadd Rsc (snd bp) y). rewrite vadd_vp by lia.
    rewrite length_vp. lia. }
  destruct (grad_readout ns ws v (fun s' => sqerr t (G s')) _
              (fun i k z => res_loss ns (set_w ws i k z) v t) (fun j z => res_loss ns ws (set_at v j z) t)
              (snd (res_train ns ws v t α)) (fst bp) α Hf Hv HF HrF Hsnd Hgf) as [Hw Hx].
  - intros i k z Hi Hk. unfold G.
    destruct (net_flat ns (set_w ws i k z) v (zeros (last ns 0%nat)) Hns (mlp_shapes_set_w ns ws i k z Hf Hk) Hv
                (length_zeros _)) as (E' & _).
    rewrite proj_app_exact_l by lia. rewrite E'. reflexivity.
  - intros j z Hj. unfold G.
    destruct (net_flat ns ws (set_at v j z) (zeros (last ns 0%nat)) Hns Hf
                ltac:(rewrite length_set_at; lia) (length_zeros _)) as (E' & _).
    rewrite proj_app_exact_l by (rewrite length_set_at; lia). rewrite E'. reflexivity.
  - assert (Hlen : map (@length R) ws = map (@length R) (fst bp)) by (apply (mlp_shapes_lengths ns); auto).
    assert (Hlenws : length ws = length (fst bp)).
    { pose proof (f_equal (@length nat) Hlen) as E. rewrite !map_length in E. exact E. }
    split; [|split; [|split]].
    + change (fst (res_train ns ws v t α)) with
        (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst bp))).
      rewrite map_length, combine_length. lia.
    + intros i k Hi Hk. destruct (Hw i k Hi Hk) as [Hd He]. split; [exact Hd|].
      rewrite <- He. change (fst (res_train ns ws v t α)) with
        (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst bp))).
      rewrite nth_map_vsub by lia.
      assert (Hwi : length (nth i ws []) = length (nth i (fst bp) [])).
      { rewrite <- !(map_nth (@length R) _ [] i). simpl. rewrite Hlen. reflexivity. }
      rewrite vsub_vm by exact Hwi. apply nth_vm.
    + exact Hsnd.
    + exact Hx.
Qed.

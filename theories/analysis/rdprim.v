(** * [⟦W.rd(x.f(x))(V)⟧ = rd[f](V, W)] in the real model

    For a smooth primitive [f = rd^k[p]] ([k ≤ 1]) and closed values [V],
    [W] of its domain and codomain, the denotation of [W.rd(x.f(x))(V)]
    (the real reverse derivative of its body, [denot.v]) is, flattened,
    [rd^{k+1}[p]] at [(V, W)] ([den_rd_prim]): what [Ev] computes for
    [rd[f](<V, W>)] ([ev_flat]), the step the rewriting of
    [W.rd(x.f(x))(V)] starts with. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem instance.
From RevHandlers.Analysis Require Import vec templates sums prims ev denot rdden.
Import ListNotations.
Open Scope R_scope.

Fixpoint blocks (ds : list nat) (y : vec) : list vec :=
  match ds with [] => [] | d :: ds' => firstn d y :: blocks ds' (skipn d y) end.

Lemma blocks_split_at ds : forall k y, split_at k ds y = blocks ds (skipn k y).
Proof.
  induction ds as [|d ds IH]; intros k y; simpl; auto. rewrite IH, skipn_skipn_v. reflexivity.
Qed.

Lemma blocks_app ds1 ds2 y :
  blocks (ds1 ++ ds2) y = blocks ds1 y ++ blocks ds2 (skipn (fold_right Nat.add 0%nat ds1) y).
Proof.
  revert y; induction ds1 as [|d ds1 IH]; intros y; simpl; auto. rewrite IH, skipn_skipn_v. reflexivity.
Qed.

Lemma fold_right_Nat_acc (l : list nat) (c : nat) : fold_right Nat.add c l = (fold_right Nat.add 0 l + c)%nat.
Proof. induction l; simpl; lia. Qed.

Lemma reshape_aux_leaves t : forall y,
  rleaves (fst (reshape_aux t y)) = blocks (map (@length R) (rleaves t)) y /\
  snd (reshape_aux t y) = skipn (fold_right Nat.add 0%nat (map (@length R) (rleaves t))) y.
Proof.
  induction t as [v|ts IH] using rv_ind'; intros y.
  - simpl. rewrite Nat.add_0_r. auto.
  - rewrite reshape_aux_node. cbn [fst snd rleaves].
    assert (Hgo : forall y,
      concat (map rleaves (fst (reshape_go ts y))) = blocks (map (@length R) (concat (map rleaves ts))) y /\
      snd (reshape_go ts y) = skipn (fold_right Nat.add 0%nat (map (@length R) (concat (map rleaves ts)))) y).
    { induction IH as [|t ts Ht Hts IHl]; intros y'; simpl.
      - auto.
      - destruct (reshape_aux t y') as [t' y1] eqn:Hr.
        specialize (Ht y'). rewrite Hr in Ht. simpl in Ht. destruct Ht as [H1 H2].
        specialize (IHl y1). simpl in IHl.
        match goal with |- context [let '(_, _) := ?e in _] => destruct e as [ts' y2] eqn:Hg end.
        simpl in *. destruct IHl as [IH1 IH2]. rewrite map_app, blocks_app, fold_right_app.
        split.
        + rewrite H1, IH1, H2. reflexivity.
        + rewrite IH2, H2, skipn_skipn_v. f_equal.
          pose proof (fold_right_Nat_acc (map (@length R) (rleaves t)) (fold_right Nat.add 0%nat (map (@length R) (concat (map rleaves ts))))) as Hacc. unfold vec in *. lia. }
    exact (Hgo y).
Qed.

Lemma Forall2_lengths ds (ls : list vec) : Forall2 (fun d (v : vec) => length v = d) ds ls ->
  map (@length R) ls = ds /\ length (concat ls) = dsum ds.
Proof.
  induction 1 as [|d l ds ls Hl HF [IH1 IH2]]; simpl; auto.
  rewrite app_length, IH1, IH2, Hl. auto.
Qed.

Lemma den_Rd ρ M N L : den ρ (Rd M N L) = rd_den (den ρ M) (den ρ L) (fun a => den (scons a ρ) N).
Proof. reflexivity. Qed.

Lemma rflat_tval V : rflat (tval V) = flat V.
Proof. unfold rflat, flat. rewrite rleaves_tval. reflexivity. Qed.

#[local] Instance Rsorts3 : sorts := exec_sorts vec.

Section rdprim.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σp : signature := exec_signature Rvo decls locs.

(** The body [x.f(x)], read as a map of flat vectors shaped like [V], is
    [prim_fun k p]. *)
Lemma den_app_var ρ k p V y :
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (@fdom vec k p)) (map snd (@leaves vec V)) ->
  rflat (den (scons (reshape (tval V) y) ρ) (App (k, p) (Var 0))) = prim_fun k p y.
Proof.
  intros HF. destruct (Forall2_lengths _ _ HF) as [Hm _]. simpl.
  destruct (reshape_aux_leaves (tval V) y) as [HL _]. unfold reshape. rewrite HL.
  rewrite rleaves_tval, map_map. unfold prim_fun. rewrite blocks_split_at. simpl.
  replace (map (fun x : nat * vec => length (snd x)) (leaves V)) with (@ty_dims vec (@fdom vec k p))
    by (rewrite <- Hm, map_map; reflexivity).
  destruct (eval_prim Rvo k p _) as [outs|] eqn:Ev; [|reflexivity].
  rewrite rflat_tval. unfold flat. apply eval_prim_count in Ev.
  destruct (encode_leaves (fcod k p) outs) as [H _]; [unfold vec in *; lia|].
  unfold vec in *. rewrite H, firstn_all2 by lia. reflexivity.
Qed.

(** [⟦W.rd(x.f(x))(V)⟧ = rd[f](V, W)], flattened, for [f = rd^k[p]] with
    [p] smooth and [k ≤ 1], [V], [W] closed values whose leaves have the
    dimensions of their types. *)
Theorem den_rd_prim ρ k p V W :
  smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat ->
  typed_tm [] V (@fdom vec k p) -> value V -> typed_tm [] W (@fcod vec k p) -> value W ->
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (@fdom vec k p)) (map snd (@leaves vec V)) ->
  length (flat W) = pcod k p ->
  rflat (den ρ (Rd W (App (k, p) (Var 0)) V)) = prim_fun (S k) p (flat V ++ flat W).
Proof.
  intros Hs Hok Hk HTV HV HTW HW HF HlW.
  rewrite den_Rd.
  rewrite (den_value decls locs ρ W _ HTW HW), (den_value decls locs ρ V _ HTV HV).
  destruct (Forall2_lengths _ _ HF) as [_ HlV]. fold (flat V) in HlV.
  assert (HlV' : length (flat V) = pdom k p) by exact HlV.
  pose proof (prim_rd_correct p k Hs Hok Hk (flat V) HlV') as HR.
  rewrite <- (rflat_tval W).
  apply (rd_den_correct (tval W) (tval V) _ (pcod k p) (fun y => prim_fun (S k) p (flat V ++ y))).
  - cbv zeta. rewrite rflat_tval, HlV'.
    eapply is_rev_deriv_ext; [| |exact HR].
    + intros y Hy. symmetry. apply den_app_var. auto.
    + intros y Hy. reflexivity.
  - rewrite rflat_tval. auto.
Qed.

(** The value [Ev] gives to [rd[f](<V, W>)] (the first step of the
    rewriting of [W.rd(x.f(x))(V)]) is the denotation of [W.rd(x.f(x))(V)]. *)
Corollary den_rd_prim_ev ρ k p V W U :
  smooth_prim p = true -> prim_ok p = true -> (k <= 1)%nat ->
  typed_tm [] V (@fdom vec k p) -> value V -> typed_tm [] W (@fcod vec k p) -> value W ->
  Forall2 (fun d (v : vec) => length v = d) (@ty_dims vec (@fdom vec k p)) (map snd (@leaves vec V)) ->
  length (flat W) = pcod k p ->
  exec_ev Rvo (S k, p) (Tuple [V; W]) = Some U ->
  rflat (den ρ (Rd W (App (k, p) (Var 0)) V)) = flat U.
Proof.
  intros Hs Hok Hk HTV HV HTW HW HF HlW Hev.
  rewrite (den_rd_prim ρ k p V W); auto. apply ev_flat in Hev. rewrite flat_pair in Hev. auto.
Qed.
End rdprim.

(** * The meaning of the paper's MLP program is one step of gradient descent, at every size

    [theories/rh/mlp_gen.v] builds the program
<<
    P_MLP(ls) = rev handle(<v>)<x_in>.R_MLP(ls) with H_train(ls)
>>
    for every list of weight locations [ls = [ℓ_0; …; ℓ_{L-1}]];
    [mlp_frag.v] takes it over the real instance [cmd_den.v] gives a
    meaning to ([mlp_prog]: [exec_signature Rvo decls locs], the base type
    [Real(n)] is [n], the function symbols are the primitives [swish_n],
    [(·_n)], [(−_n)], [matmul], [transpose] at level 0).  Here the rate
    is the constant [<α>], the target [t], the input [v] ([P_MLP_real]),
    for any declarations [decls], [locs], shapes [shape] and operations
    [FC] in which every layer is declared with its shape ([layer_ok]:
    [FC[ℓ] : … ▷ Real(m)], [ℓ :: Real(m·n)] for [shape ℓ = (n, m)]) and
    distinct layers have distinct operations ([fc_inj]).

    [mlp_den_train]: for every list of at least one layer whose shapes
    chain from [n_in] to [n_out], every input [v ∈ ℝ^{n_in}] and every
    heap whose constants have the lengths of their locations
    ([heap_fits]), the meaning [prog_den hp (P_MLP(ls) v)] ([cmd_den.v]:
    the forward and backward pass of [revh] with Coquelicot's reverse
    derivatives of the pure parts, the [Get]s and [Put]s answered from
    the heap) is the value [⌊<g>⌋] and the heap [hp] with each [ℓ_i]
    set to the new weight of [mlp_train] ([mlp_grad.v]), the writes in
    the order the [Put]s happen (last layer first), [g] being the
    cotangent [mlp_train] returns.  Nothing of [RH] is used.

    [mlp_den_gradient]: with [mlp_train_gradient], the meaning of one run
    maps each [ℓ_i ↦ m_i] to [m_i − α·∂/∂m_i ½‖f_m(v) − t‖²] entry by entry
    (distinct locations), leaves every other location alone, and returns
    [α·∇_v ½‖f_m(v) − t‖²] in its one-element tuple.
    [mlp_den_gradient_widths] is the same for [mlp_frag.v]'s signature of
    a list of widths [ns] (location [i] for layer [i]), where the
    program is well typed ([mlp_prog_typed]).  [mlp_run_done] adds
    [mlp_adequacy_run]: if the evaluator's run ends with a value and a
    heap, they are these; that it never ends stuck on an [Ev] is not
    proved here.

    The proof follows [revh]'s recursion along the chain, by induction on
    the layers after the first ([rest_den]): the forward clause of
    [FC[ℓ]] reads [ℓ] and multiplies ([fwd_den]); after the last layer
    the return clause gives [α(f_m(v) − t)] ([ret_den]); coming back, the
    backward clause writes [m − y aᵀ] and answers [mᵀ y] ([bwd_den]), and
    the pull-back through [swish] of the layer's input is the real
    reverse derivative [swish'(u) ⊙ ·] ([rd_den_first], from
    [rd_den_correct]).  The first layer ([mlp_den_train] itself) is the
    same with the identity in place of [swish]: [layer_den] is the pass
    over one layer, for both (and for [resnet_den.v]). *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem
  cmd_ctx cmd_sem instance interp machine.
From RevHandlers Require examples mlp_gen.
From RevHandlers.Analysis Require Import vec templates sums prims denot rdcalc rdden rdsound cmd_den cmd_sound mlp_grad
  cmd_adequacy mlp_frag.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

(** ** The program over the real instance *)
Section mlp_den.
(** Declarations of operations and locations, the shape [(n, m)] of each
    location and the operation [FC[ℓ]] of each location. *)
Variables (decls : list (ty * ty)) (locs : list nat) (shape : nat -> nat * nat) (FC : nat -> nat).

#[local] Instance Σreal : signature := exec_signature Rvo decls locs.

Notation cden := (cden decls locs).
Notation hden := (hden decls locs).
Notation clsden := (clsden decls locs).
Notation hrun := (hrun decls locs).
Notation prog_den := (prog_den decls locs).
Notation coerce := (coerce decls locs).
Notation heap_fits := (heap_fits decls locs).

(** The rate [α] and the target [t ∈ ℝ^{n_out}]. *)
Variables (n_out : nat) (α : R) (t : vec).

(** The parts of the program, with the primitives of [mlp_frag.v]
    ([swish_f], [smul_f], [vsub_f], [matmul_f], [transpose_f]). *)
Definition real_fc_fwd (l : nat) : cmd := examples.fc_fwd matmul_f shape l.
Definition real_fc_bwd (l : nat) : cmd := examples.fc_bwd vsub_f matmul_f transpose_f shape l.
Definition real_clauses (ls : list nat) : clauses :=
  examples.fc_clauses (fun n => n) vsub_f matmul_f transpose_f shape FC ls.
Definition real_rest (ls : list nat) : cmd := mlp_gen.rest_gen swish_f shape FC ls.
Definition real_R_MLP (ls : list nat) : cmd := mlp_gen.R_MLP_gen swish_f shape FC ls.
Definition H_train_real (ls : list nat) : handler :=
  examples.H_train (fun n => n) smul_f vsub_f matmul_f transpose_f shape FC n_out (1%nat, [α]) (n_out, t) ls.

(** [P_MLP(ls)] at the input [v]: [mlp_frag.v]'s [mlp_prog] with the
    rate [<α>] and the target [t]. *)
Definition P_MLP_real (ls : list nat) (v : vec) : cmd :=
  mlp_prog decls locs shape FC n_out (1%nat, [α]) (n_out, t) ls (length v, v).

Lemma P_MLP_real_eq ls v : P_MLP_real ls v = RevHandle (Tuple [Const (length v, v)]) (real_R_MLP ls) (H_train_real ls).
Proof. reflexivity. Qed.

(** A layer's location and operation are declared with its shape: the
    arity of [FC[ℓ]] is [Real(m)] and [ℓ :: Real(m·n)] for
    [shape ℓ = (n, m)] (the coarity is not needed: the meaning reads the
    argument as it comes). *)
Definition layer_ok (l : nat) : Prop :=
  ar (@OpUser Rsorts' (FC l)) = TBase (snd (shape l)) /\ loc_base l = (snd (shape l) * fst (shape l))%nat.

(** Distinct layers have distinct operations. *)
Definition fc_inj (ls : list nat) : Prop := forall l l', In l ls -> In l' ls -> FC l = FC l' -> l = l'.

(** ** The handler's clauses *)
Lemma clsden_real ls l : fc_inj ls -> In l ls ->
  clsden (real_clauses ls) (@OpUser Rsorts' (FC l)) =
  Some (fun a => cden (scons a rho0) (real_fc_fwd l), fun y z => cden (scons y (scons z rho0)) (real_fc_bwd l)).
Proof.
  induction ls as [|l' ls IH]; intros Hinj Hin; [destruct Hin|].
  cbn [real_clauses examples.fc_clauses clsden].
  destruct (opsym_eq_dec (@OpUser Rsorts' (FC l)) (@OpUser Rsorts' (FC l'))) as [E|E].
  - injection E as E. apply Hinj in E; [subst l'; reflexivity|exact Hin|left; reflexivity].
  - destruct Hin as [->|Hin]; [contradiction|]. apply IH; [|exact Hin].
    intros a b Ha Hb. apply Hinj; right; assumption.
Qed.

(** The return clause [x ↦ ⌊α · (x − t)⌋]. *)
Lemma ret_den ls c : hret (hden (H_train_real ls)) (RLeaf c) = CRet (RLeaf (vscale Rsc α (vsub Rsc c t))).
Proof. reflexivity. Qed.

(** The forward clause of [FC[ℓ]]: [Get[ℓ]] answered by the heap's [w],
    the result [w a] and the residual [<w, a>]. *)
Lemma fwd_den ls l hp a f : fc_inj ls -> In l ls -> heap_fits hp ->
  hrun hp (bind (hfwd (hden (H_train_real ls)) (@OpUser Rsorts' (FC l)) (RLeaf a)) f) =
  hrun hp (f (RNode [RLeaf (matmul Rsc (snd (shape l)) (fst (shape l)) 1 (snd (heap_lookup hp l)) a);
                     RNode [RLeaf (snd (heap_lookup hp l)); RLeaf a]])).
Proof.
  intros Hinj Hin Hhp.
  change (hfwd (hden (H_train_real ls)) (@OpUser Rsorts' (FC l)))
    with (match clsden (real_clauses ls) (@OpUser Rsorts' (FC l)) with
          | Some (f, _) => f | None => dflt_fwd decls locs (@OpUser Rsorts' (FC l)) end).
  rewrite (clsden_real ls l Hinj Hin). unfold real_fc_fwd, examples.fc_fwd.
  cbn [cden bind hrun].
  rewrite coerce_fits by (constructor; apply (heap_lookup_fits decls locs); exact Hhp).
  reflexivity.
Qed.

(** The backward clause of [FC[ℓ]] at the cotangent [g] and the residual
    [<w, a>]: [Put[ℓ](w − g aᵀ)], then [wᵀ g]. *)
Lemma bwd_den ls l hp g w a f : fc_inj ls -> In l ls ->
  hrun hp (bind (hbwd (hden (H_train_real ls)) (@OpUser Rsorts' (FC l)) (RLeaf g) (RNode [RLeaf w; RLeaf a])) f) =
  hrun (heap_update hp l (loc_base l,
          vsub Rsc w (matmul Rsc (snd (shape l)) 1 (fst (shape l)) g
                        (transpose Rsc (fst (shape l)) 1 a))))
    (f (RLeaf (matmul Rsc (fst (shape l)) (snd (shape l)) 1
                 (transpose Rsc (snd (shape l)) (fst (shape l)) w) g))).
Proof.
  intros Hinj Hin.
  change (hbwd (hden (H_train_real ls)) (@OpUser Rsorts' (FC l)))
    with (match clsden (real_clauses ls) (@OpUser Rsorts' (FC l)) with
          | Some (_, g) => g | None => dflt_bwd decls locs (@OpUser Rsorts' (FC l)) end).
  rewrite (clsden_real ls l Hinj Hin). unfold real_fc_bwd, examples.fc_bwd.
  cbn [cden bind hrun]. reflexivity.
Qed.

(** ** The pull-back through a map of the first component *)

(** At a point [<u, ts…>], the real reverse derivative ([rd_den]) of a map
    that reads the first component only, through [φ], is [φ]'s reverse
    derivative on that component and [0] on the others. *)
Lemma rd_den_first u ts n m φ rφ w G :
  length u = n -> is_rev_deriv n m φ u rφ -> length w = m ->
  (forall p, fits (tyof (RNode (RLeaf u :: ts))) p -> G p = RLeaf (φ (rleaf (rnth 0 p)))) ->
  fits (tyof (RNode (RLeaf u :: ts))) (rd_den (RLeaf w) (RNode (RLeaf u :: ts)) G) /\
  rflat (rd_den (RLeaf w) (RNode (RLeaf u :: ts)) G) = rφ w ++ zeros (length (rflat (RNode ts))).
Proof.
  intros Hu Hφ Hw HG. set (v := RNode (RLeaf u :: ts)).
  set (K := length (rflat (RNode ts))).
  split; [apply rd_den_fits|].
  rewrite (rd_den_ext_fits _ _ G (fun p => RLeaf (φ (rleaf (rnth 0 p))))) by exact HG.
  assert (Hv : rflat v = u ++ rflat (RNode ts)).
  { unfold v. rewrite !rflat_node. cbn [map concat]. rewrite rflat_leaf. reflexivity. }
  assert (Hlv : length (rflat v) = (n + K)%nat) by (rewrite Hv, app_length; unfold K; lia).
  set (As := map tyof (RLeaf u :: ts)).
  assert (Hfv : fits (TProd As) v) by exact (fits_tyof v).
  assert (Hdim : dim (TProd As) = (n + K)%nat) by (rewrite <- (fits_len _ _ Hfv); exact Hlv).
  rewrite <- (rflat_leaf w) at 2.
  apply (rd_den_correct (RLeaf w) v _ m (fun y => rφ y ++ zeros K)); [|rewrite rflat_leaf; exact Hw].
  cbv zeta. rewrite Hlv.
  assert (H1 : is_rev_deriv (n + K) m (fun y => φ (proj 0 n y)) (rflat v)
                 (fun y => zeros 0 ++ rφ y ++ zeros (n + K - 0 - n))).
  { apply (rd_comp _ n _ φ (proj 0 n) (rflat v) rφ (fun z => zeros 0 ++ z ++ zeros (n + K - 0 - n)));
      [apply rd_proj; auto; lia|].
    rewrite Hv. unfold proj. simpl. rewrite firstn_app, firstn_all2 by lia.
    replace (n - length u)%nat with 0%nat by lia. rewrite app_nil_r. exact Hφ. }
  eapply is_rev_deriv_ext; [| |exact H1].
  - intros y Hy. rewrite rflat_leaf. f_equal.
    destruct (reshape_node As v y Hfv (eq_trans Hy (eq_sym Hdim))) as [ps [E [HF Hc]]]. rewrite E.
    assert (H0 : nth_error As 0 = Some (TBase (length u))) by reflexivity.
    destruct (block_nth As ps 0 _ HF H0) as [Hb Hf0].
    unfold rnth. destruct (nth 0 ps (RNode [])) as [z|zs] eqn:E0; [|inversion Hf0].
    simpl. rewrite rflat_leaf in Hb. rewrite Hb, Hc. unfold off. simpl. rewrite dim_base, Hu. reflexivity.
  - intros y _. simpl. replace (n + K - 0 - n)%nat with K by lia. reflexivity.
Qed.

(** ** The heap after the backward pass *)
Fixpoint heap_set_all (hp : heap) (ls : list nat) (ws : list vec) : heap :=
  match ls, ws with
  | l :: ls', w :: ws' => heap_update (heap_set_all hp ls' ws') l (loc_base l, w)
  | _, _ => hp
  end.

(** The widths [n_in, n_1, …, n_L] of the layers and the weights the heap holds. *)
Definition real_widths (n_in : nat) (ls : list nat) : list nat := n_in :: map (fun l => snd (shape l)) ls.
Definition real_weights (hp : heap) (ls : list nat) : list vec := map (fun l => snd (heap_lookup hp l)) ls.

Lemma cden_rest_cons ρ l ls :
  cden ρ (real_rest (l :: ls)) =
  CCall (@OpUser Rsorts' (FC l)) (den ρ (App (0%nat, PSwish (fst (shape l))) (Var 0)))
    (fun y => cden (scons (coerce (ar (@OpUser Rsorts' (FC l))) y) ρ) (real_rest ls)).
Proof. destruct ls; reflexivity. Qed.

Lemma cden_R_MLP_cons ρ l ls :
  cden ρ (real_R_MLP (l :: ls)) =
  CCall (@OpUser Rsorts' (FC l)) (ρ 0%nat) (fun y => cden (scons (coerce (ar (@OpUser Rsorts' (FC l))) y) ρ) (real_rest ls)).
Proof. destruct ls; reflexivity. Qed.

Lemma fits_leaf_cons_inv u ts p : fits (tyof (RNode (RLeaf u :: ts))) p ->
  exists z ps, p = RNode (RLeaf z :: ps) /\ length z = length u.
Proof.
  intros Hp. inversion Hp as [|? ps HF]; subst. inversion HF as [|? ? ? ? Hz]; subst.
  inversion Hz; subst. eauto.
Qed.

(** A cotangent of a point [<u, ts…>] that is [g] on [u] and [c] on the others. *)
Lemma cot_first_gen u ts q g c : fits (tyof (RNode (RLeaf u :: ts))) q -> rflat q = g ++ c ->
  length c = length (rflat (RNode ts)) ->
  exists qs, q = RNode (RLeaf g :: qs) /\ length g = length u /\ fits (tyof (RNode ts)) (RNode qs) /\
             rflat (RNode qs) = c.
Proof.
  intros Hq Hf Hc. inversion Hq as [|? ps HF]; subst. inversion HF as [|? z ? qs Hz Hqs]; subst.
  inversion Hz as [? z' Hz' E|]; subst.
  assert (Hqs' : fits (tyof (RNode ts)) (RNode qs)) by (constructor; exact Hqs).
  pose proof (fits_len _ _ Hqs') as Hl1. pose proof (fits_len _ _ (fits_tyof (RNode ts))) as Hl2.
  rewrite rflat_node in Hf. cbn [map concat] in Hf. rewrite rflat_leaf, <- rflat_node in Hf.
  assert (Hlen : length z' = length g).
  { apply (f_equal (@length R)) in Hf. rewrite !app_length, Hc, Hl1, <- Hl2 in Hf. lia. }
  destruct (app_eq_len _ _ _ _ Hf Hlen) as [-> E2]. exists qs. split; [reflexivity|]. split; [lia|]. split; auto.
Qed.

(** The cotangent of a point [<u, ts…>] that is [g] on [u] and [0] elsewhere. *)
Lemma cot_first u ts q g : fits (tyof (RNode (RLeaf u :: ts))) q ->
  rflat q = g ++ zeros (length (rflat (RNode ts))) ->
  exists qs, q = RNode (RLeaf g :: qs) /\ length g = length u /\ fits (tyof (RNode ts)) (RNode qs) /\
             rflat (RNode qs) = zeros (length (rflat (RNode ts))).
Proof. intros Hq Hf. apply (cot_first_gen u ts q g _ Hq Hf). apply length_zeros. Qed.

Lemma fits_rtail a ts p : fits (tyof (RNode (a :: ts))) p -> fits (tyof (RNode ts)) (rtail p).
Proof.
  intros Hp. inversion Hp as [|? ps HF]; subst. inversion HF as [|? ? ? ps' _ HF']; subst.
  constructor. exact HF'.
Qed.

(** ** One layer of the pass

    The layer [ℓ] at a point [v = <u, ts…>] whose first component [u]
    enters the layer through [φ]: [F] is the body from [v], the call
    [FC[ℓ](φ(u))] and then [G], the rest of the body from the point
    [<y, u, ts…>] extended with the call's answer [y].  The forward clause
    reads [w] and gives [u' = w φ(u)]; the rest of the pass from
    [<u', u, ts…>] ([Hq]) answers the heap [hp'] and the cotangent [g] on
    [u'], [c] on the others; the backward clause writes [w − g φ(u)ᵀ] and
    answers [b = wᵀ g], which the pull-back through [φ] puts on [u] as
    [rφ b], added to [c].  [rest_den] ([φ = swish]), [mlp_den_train] (the
    first layer, [φ] the identity) and [resnet_den.v]'s [rest_den_res] and
    [res_den_train] (where [c] holds, besides, the output cotangent for
    [x_in]) use it. *)
Lemma layer_den ls0 l hp u ts (φ : vec -> vec) rφ (F G : rv -> comp) q hp' g c :
  fc_inj ls0 -> In l ls0 -> layer_ok l -> heap_fits hp ->
  length u = fst (shape l) -> length (φ u) = fst (shape l) ->
  is_rev_deriv (fst (shape l)) (fst (shape l)) φ u rφ ->
  (forall z ps, fits (tyof (RNode (RLeaf u :: ts))) (RNode (RLeaf z :: ps)) ->
     F (RNode (RLeaf z :: ps)) =
     CCall (@OpUser Rsorts' (FC l)) (RLeaf (φ z))
       (fun y => G (RNode (coerce (ar (@OpUser Rsorts' (FC l))) y :: RLeaf z :: ps)))) ->
  let w := snd (heap_lookup hp l) in
  let u' := matmul Rsc (snd (shape l)) (fst (shape l)) 1 w (φ u) in
  let v' := RNode (RLeaf u' :: RLeaf u :: ts) in
  hrun hp (revh_aux (hden (H_train_real ls0)) (G v') G v') = Some (q, hp') ->
  fits (tyof v') q -> rflat q = g ++ c -> length c = length (rflat (RNode (RLeaf u :: ts))) ->
  let b := matmul Rsc (fst (shape l)) (snd (shape l)) 1 (transpose Rsc (snd (shape l)) (fst (shape l)) w) g in
  exists q',
    hrun hp (revh_aux (hden (H_train_real ls0)) (F (RNode (RLeaf u :: ts))) F (RNode (RLeaf u :: ts))) =
    Some (q', heap_update hp' l (loc_base l,
                vsub Rsc w (matmul Rsc (snd (shape l)) 1 (fst (shape l)) g (transpose Rsc (fst (shape l)) 1 (φ u))))) /\
    fits (tyof (RNode (RLeaf u :: ts))) q' /\
    rflat q' = vp c (rφ b ++ zeros (length (rflat (RNode ts)))) /\ length (rφ b) = fst (shape l).
Proof.
  intros Hinj Hinl Hl Hhp Hu Ha Hφ HF w u' v' Hq Hqf Hqr Hc b.
  set (n := fst (shape l)) in *. set (m := snd (shape l)) in *.
  assert (Hw : length w = (m * n)%nat).
  { unfold w. rewrite (heap_lookup_fits decls locs) by exact Hhp. exact (proj2 Hl). }
  assert (Hu' : length u' = m) by (unfold u'; rewrite length_matmul; lia).
  rewrite (HF u ts (fits_tyof _)). cbn [revh_aux].
  rewrite (fwd_den ls0 l hp (φ u) _ Hinj Hinl Hhp). fold n m w u'.
  cbn [rnth nth rcons]. rewrite (proj1 Hl), coerce_fits by (constructor; exact Hu'). fold v'.
  rewrite (revh_ext _ _ (ext F) G v' I).
  2:{ intros p Hp. destruct (fits_leaf_cons_inv _ _ _ Hp) as (z' & ps & -> & Hz').
      pose proof (fits_rtail _ _ _ Hp) as Hp'. cbn [rtail] in Hp'.
      destruct (fits_leaf_cons_inv _ _ _ Hp') as (z & ps' & Eps & _). injection Eps as ->.
      unfold ext. cbn [rtail rnth nth]. rewrite (HF z ps' Hp'). cbn [cont].
      rewrite (proj1 Hl), coerce_fits by (constructor; unfold m; lia). reflexivity. }
  rewrite hrun_bind, Hq.
  destruct (cot_first_gen _ _ _ _ _ Hqf Hqr Hc) as (qs & -> & Hg & Hqsf & Hqsr).
  cbn [rnth nth rtail].
  rewrite (bwd_den ls0 l _ _ w (φ u) _ Hinj Hinl). fold n m. cbn [hrun]. fold b.
  assert (Hb : length b = n) by (unfold b; rewrite length_matmul; [lia| |lia]; rewrite length_transpose; lia).
  destruct (rd_den_first u ts n n φ rφ b (fun x => harg (F x)) Hu Hφ Hb) as [Hf Hr].
  { intros p Hp. destruct (fits_leaf_cons_inv _ _ _ Hp) as (z & ps & -> & _). rewrite (HF z ps Hp). reflexivity. }
  destruct (radd_fits _ _ _ Hqsf Hf) as [Hsf Hsr].
  assert (Hrb : length (rφ b) = n) by (destruct Hφ as (L & _ & Hm & _); exact (Hm b Hb)).
  eexists. split; [reflexivity|]. split; [exact Hsf|]. split; [rewrite Hsr, Hqsr, Hr; reflexivity|exact Hrb].
Qed.

Lemma rflat_cons_len u ts : length (rflat (RNode (RLeaf u :: ts))) = (length u + length (rflat (RNode ts)))%nat.
Proof. rewrite !rflat_node. cbn [map concat]. rewrite rflat_leaf, app_length. reflexivity. Qed.

(** ** The layers after the first, by induction *)

(** From the point [<u, ts…>] ([u] the pre-activation of the layer
    [ℓ :: ls]), the rest of the pass: it answers the heap with the new
    weights of [ls] ([bp_rest]'s steps subtracted) and the cotangent
    [bp_rest] gives for [u], [0] for the rest of the point. *)
Lemma rest_den ls0 ls : length t = n_out -> fc_inj ls0 -> forall n u ts hp,
  incl ls ls0 -> Forall layer_ok ls -> heap_fits hp ->
  mlp_gen.chained shape n ls n_out -> length u = n ->
  let ns := real_widths n ls in
  let ws := real_weights hp ls in
  let r := bp_rest ns ws u (vscale Rsc α (vsub Rsc (fwd_rest ns ws u) t)) in
  exists q,
    hrun hp (revh_aux (hden (H_train_real ls0)) (cden (envof (RNode (RLeaf u :: ts))) (real_rest ls))
               (fun p => cden (envof p) (real_rest ls)) (RNode (RLeaf u :: ts))) =
    Some (q, heap_set_all hp ls (map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst r)))) /\
    fits (tyof (RNode (RLeaf u :: ts))) q /\ rflat q = snd r ++ zeros (length (rflat (RNode ts))).
Proof.
  intros Ht Hinj. induction ls as [|l ls IH]; intros n u ts hp Hincl Hdecl Hhp Hc Hu ns ws r.
  - (* after the last layer: the return clause, pulled back through the projection *)
    cbn [real_rest mlp_gen.rest_gen cden revh_aux]. unfold harg.
    change (den (envof (RNode (RLeaf u :: ts))) (Var 0)) with (RLeaf u). rewrite ret_den. cbn [bind hrun].
    destruct (rd_den_first u ts n n (fun x => x) (fun y => y) (vscale Rsc α (vsub Rsc u t))
                (fun x => den (envof x) (Var 0)) Hu (rd_id n u Hu)) as [Hf Hr].
    { simpl in Hc. unfold vscale. rewrite map_length, vsub_vm, length_vm; lia. }
    { intros p Hp. destruct (fits_leaf_cons_inv _ _ _ Hp) as (z & ps & -> & _). reflexivity. }
    eexists. split; [reflexivity|]. split; [exact Hf|]. exact Hr.
  - (* the layer [ℓ]: [layer_den] with [swish], the rest of the pass by induction *)
    destruct Hc as [Hn Hc]. apply Forall_cons_iff in Hdecl as [Hl Hdecl']. subst n.
    set (n := fst (shape l)) in *. set (m := snd (shape l)) in *.
    assert (Hinl : In l ls0) by (apply Hincl; left; reflexivity).
    assert (Hincl' : incl ls ls0) by (intros x Hx; apply Hincl; right; exact Hx).
    set (w := snd (heap_lookup hp l)).
    assert (Hw : length w = (m * n)%nat).
    { unfold w. rewrite (heap_lookup_fits decls locs) by exact Hhp. exact (proj2 Hl). }
    set (a := map (swish Rsc) u).
    assert (Ha : length a = n) by (unfold a; rewrite map_length; exact Hu).
    set (u' := matmul Rsc m n 1 w a).
    assert (Hu' : length u' = m) by (unfold u'; rewrite length_matmul; lia).
    assert (HF : forall z ps, fits (tyof (RNode (RLeaf u :: ts))) (RNode (RLeaf z :: ps)) ->
              cden (envof (RNode (RLeaf z :: ps))) (real_rest (l :: ls)) =
              CCall (@OpUser Rsorts' (FC l)) (RLeaf (map (swish Rsc) z))
                (fun y => cden (envof (RNode (coerce (ar (@OpUser Rsorts' (FC l))) y :: RLeaf z :: ps))) (real_rest ls))).
    { intros z ps _. rewrite cden_rest_cons. f_equal; try reflexivity;
      apply functional_extensionality; intros y; rewrite <- envof_cons; reflexivity. }
    destruct (IH m u' (RLeaf u :: ts) hp Hincl' Hdecl' Hhp Hc Hu') as (q & Hq & Hqf & Hqr).
    destruct (layer_den ls0 l hp u ts (map (swish Rsc)) (vmul (map (swish' Rsc) u))
                (fun p => cden (envof p) (real_rest (l :: ls))) (fun p => cden (envof p) (real_rest ls)) q _ _ _
                Hinj Hinl Hl Hhp Hu Ha (rd_swish n u Hu) HF Hq Hqf Hqr (length_zeros _))
      as (q' & E & Hf & Hr & Hrb).
    cbv beta in E. eexists. split; [exact E|]. split; [exact Hf|].
    rewrite Hr, vp_zeros_l by (rewrite rflat_cons_len, app_length, length_zeros, Hrb; lia).
    f_equal. unfold r, ns, ws. cbn [real_widths real_weights map bp_rest snd].
    fold n m w a u'. rewrite vmul_inst, vmul_comm. reflexivity.
Qed.

(** ** The whole program *)

(** [mlp_den_train]: the meaning of [P_MLP(ls)] at the input [v], from a
    heap of the right shapes, is the value [⌊<g>⌋] and the heap with each
    [ℓ_i] set to its new weight, where [(new weights, g)] is [mlp_train]
    of the widths and of the weights the heap holds.

    Informal proof: [revh] on the chain [FC[ℓ_0](x_in); FC[ℓ_1](swish(x_1)); …]:
    the forward clause of [FC[ℓ_0]] reads [m_0] and gives [m_0 v]
    ([fwd_den]); the rest of the pass ([rest_den], by induction on the
    layers) writes the new weights of [ℓ_1 …] and answers the cotangent
    of [x_1] (on the point [<x_1, v>], [0] on [v]); the backward clause
    writes [m_0 − y_0 vᵀ] and answers [m_0ᵀ y_0] ([bwd_den]), which the
    pull-back through the projection [x ↦ x_in] ([rd_den_first]) puts on
    [v]; the cotangent held for [v] so far is [0]. *)
Theorem mlp_den_train ls v hp :
  ls <> [] -> fc_inj ls -> Forall layer_ok ls -> mlp_gen.chained shape (length v) ls n_out ->
  length t = n_out -> heap_fits hp ->
  prog_den hp (P_MLP_real ls v) =
  Some (RNode [RLeaf (snd (mlp_train (real_widths (length v) ls) (real_weights hp ls) v t α))],
        heap_set_all hp ls (fst (mlp_train (real_widths (length v) ls) (real_weights hp ls) v t α))).
Proof.
  intros Hne Hinj Hdecl Hc Ht Hhp. destruct ls as [|l ls]; [congruence|].
  destruct Hc as [Hn Hc]. apply Forall_cons_iff in Hdecl as [Hl Hdecl']. rewrite <- Hn.
  set (m := snd (shape l)) in *.
  assert (Hinl : In l (l :: ls)) by (left; reflexivity).
  assert (Hincl' : incl ls (l :: ls)) by (intros x Hx; right; exact Hx).
  set (w := snd (heap_lookup hp l)).
  assert (Hw : length w = (m * fst (shape l))%nat).
  { unfold w. rewrite (heap_lookup_fits decls locs) by exact Hhp. exact (proj2 Hl). }
  set (u' := matmul Rsc m (fst (shape l)) 1 w v).
  assert (Hu' : length u' = m) by (unfold u'; rewrite length_matmul; lia).
  set (F := fun p => cden (envof p) (real_R_MLP (l :: ls))).
  change (hrun hp (revh_aux (hden (H_train_real (l :: ls))) (F (RNode [RLeaf v])) F (RNode [RLeaf v])) =
    Some (RNode [RLeaf (snd (mlp_train (real_widths (fst (shape l)) (l :: ls)) (real_weights hp (l :: ls)) v t α))],
          heap_set_all hp (l :: ls) (fst (mlp_train (real_widths (fst (shape l)) (l :: ls)) (real_weights hp (l :: ls)) v t α)))).
  (* the first layer: [layer_den] with the identity, the rest of the pass by [rest_den] *)
  assert (HF : forall z ps, fits (tyof (RNode [RLeaf v])) (RNode (RLeaf z :: ps)) ->
            F (RNode (RLeaf z :: ps)) =
            CCall (@OpUser Rsorts' (FC l)) (RLeaf ((fun x => x) z))
              (fun y => cden (envof (RNode (coerce (ar (@OpUser Rsorts' (FC l))) y :: RLeaf z :: ps))) (real_rest ls))).
  { intros z ps _. unfold F. rewrite cden_R_MLP_cons. f_equal; try reflexivity;
    apply functional_extensionality; intros y; rewrite <- envof_cons; reflexivity. }
  destruct (rest_den (l :: ls) ls Ht Hinj m u' [RLeaf v] hp Hincl' Hdecl' Hhp Hc Hu') as (q & Hq & Hqf & Hqr).
  destruct (layer_den (l :: ls) l hp v [] (fun x => x) (fun y => y) F (fun p => cden (envof p) (real_rest ls)) q _ _ _
              Hinj Hinl Hl Hhp (eq_sym Hn) (eq_sym Hn) (rd_id _ v (eq_sym Hn)) HF Hq Hqf Hqr (length_zeros _))
    as (q' & E & Hf & Hr & Hrb).
  rewrite E. cbv beta in Hr, Hrb |- *.
  rewrite vp_zeros_l in Hr by (rewrite rflat_cons_len, app_length, length_zeros, Hrb, <- Hn; lia).
  destruct (cot_first_gen v [] q' _ _ Hf Hr (length_zeros _)) as (xs & -> & _ & Hxs & _).
  inversion Hxs as [|? ? HF']; subst. inversion HF'; subst. reflexivity.
Qed.

(** ** Gradient descent *)

Lemma real_mlp_shapes ls : forall n hp,
  Forall layer_ok ls -> mlp_gen.chained shape n ls n_out -> heap_fits hp ->
  mlp_shapes (real_widths n ls) (real_weights hp ls).
Proof.
  induction ls as [|l ls IH]; intros n hp Hdecl Hc Hhp; [exact I|].
  destruct Hc as [Hn Hc]. apply Forall_cons_iff in Hdecl as [Hl Hdecl'].
  split; [|apply IH; auto].
  rewrite (heap_lookup_fits decls locs) by exact Hhp. rewrite <- Hn. exact (proj2 Hl).
Qed.

Lemma real_widths_last ls : forall n, mlp_gen.chained shape n ls n_out -> last (real_widths n ls) 0%nat = n_out.
Proof.
  induction ls as [|l ls IH]; intros n Hc; [exact Hc|].
  destruct Hc as [_ Hc]. rewrite <- (IH _ Hc). destruct ls; reflexivity.
Qed.

Lemma heap_lookup_update_eq hp l c : heap_lookup (heap_update hp l c) l = c.
Proof. unfold heap_update. simpl. destruct (Nat.eq_dec l l); [reflexivity|contradiction]. Qed.

Lemma heap_lookup_update_neq hp l l' c : l' <> l -> heap_lookup (heap_update hp l c) l' = heap_lookup hp l'.
Proof.
  intros Hne. unfold heap_update. simpl. destruct (Nat.eq_dec l' l) as [E|_]; [contradiction|].
  induction hp as [|[l0 c0] hp IH]; [reflexivity|]. simpl.
  destruct (Nat.eq_dec l l0) as [->|Hl0]; simpl.
  - destruct (Nat.eq_dec l' l0); [contradiction|]. exact IH.
  - destruct (Nat.eq_dec l' l0); [reflexivity|exact IH].
Qed.

(** A location not among the layers keeps its constant. *)
Lemma heap_set_other hp ls ws l : ~ In l ls -> heap_lookup (heap_set_all hp ls ws) l = heap_lookup hp l.
Proof.
  revert ws. induction ls as [|l' ls IH]; intros [|w ws] Hl; try reflexivity.
  cbn [heap_set_all]. rewrite heap_lookup_update_neq by (intros ->; apply Hl; left; reflexivity).
  apply IH. intros Hin. apply Hl. right. exact Hin.
Qed.

(** The [i]-th location holds the [i]-th new weight. *)
Lemma heap_set_nth hp ls ws i : NoDup ls -> length ws = length ls -> (i < length ls)%nat ->
  heap_lookup (heap_set_all hp ls ws) (nth i ls 0%nat) = (loc_base (nth i ls 0%nat), nth i ws []).
Proof.
  revert ws i. induction ls as [|l ls IH]; intros [|w ws] i Hnd Hlen Hi; cbn [length] in *; try lia.
  inversion Hnd as [|? ? Hl Hnd']; subst. destruct i as [|i].
  - apply heap_lookup_update_eq.
  - cbn [heap_set_all nth]. rewrite heap_lookup_update_neq.
    + apply IH; auto; lia.
    + intros E. apply Hl. rewrite <- E. apply nth_In. lia.
Qed.

(** After one training step, location [ℓ_i] holds a weight of the shape
    of [m_i]: [m_i − g_i], with [g_i] from the backward pass on the
    cotangent [y] ([ET]).  Used by [mlp_den_gradient] and by
    [resnet_den.v]'s [res_den_gradient]. *)
Lemma train_heap_shape ls hp ns ws v y (T : list vec * vec) :
  NoDup ls -> length ws = length ls -> (2 <= length ns)%nat -> mlp_shapes ns ws ->
  length v = hd 0%nat ns -> length y = last ns 0%nat ->
  fst T = map (fun p => vsub Rsc (fst p) (snd p)) (combine ws (fst (mlp_backprop ns ws v y))) ->
  length (fst T) = length ws -> forall i, (i < length ls)%nat ->
  heap_lookup (heap_set_all hp ls (fst T)) (nth i ls 0%nat) = (loc_base (nth i ls 0%nat), nth i (fst T) []) /\
  length (nth i (fst T) []) = length (nth i ws []).
Proof.
  intros Hnd Hws Hns Hsh Hv Hy ET Hlen i Hi. split; [apply heap_set_nth; auto; lia|].
  destruct (net_flat ns ws v y Hns Hsh Hv Hy) as (_ & _ & _ & _ & Hgf).
  set (gs := fst (mlp_backprop ns ws v y)) in *.
  pose proof (mlp_shapes_lengths ns ws gs Hsh Hgf) as Hl.
  assert (Hgs : length ws = length gs).
  { pose proof (f_equal (@length nat) Hl) as E. rewrite !map_length in E. exact E. }
  assert (Hwi : length (nth i ws []) = length (nth i gs [])).
  { rewrite <- !(map_nth (@length R) _ [] i). simpl. rewrite Hl. reflexivity. }
  rewrite ET, nth_map_vsub by lia. rewrite vsub_vm, length_vm by exact Hwi. lia.
Qed.

(** [mlp_den_gradient]: one run of the program, as its meaning, is one
    step of gradient descent on [½‖f_m(v) − t‖²]: for distinct locations
    [ls = [ℓ_0; …; ℓ_{L-1}]] holding [m_0, …, m_{L-1}] (of the shapes of
    the chain), entry [k] of [ℓ_i] becomes
    [m_i[k] − α · ∂/∂m_i[k] ½‖f_m(v) − t‖²] (the partial derivative
    exists), every other location keeps its constant, and the program
    returns [⌊<g>⌋] with [g_j = α · ∂/∂v_j ½‖f_m(v) − t‖²].

    Informal proof: [mlp_den_train] says what the meaning is in terms of
    [mlp_train]; [mlp_train_gradient] says what [mlp_train] computes;
    [heap_set_nth] and [heap_set_other] read the heap. *)
Theorem mlp_den_gradient ls v hp :
  ls <> [] -> NoDup ls -> fc_inj ls -> Forall layer_ok ls ->
  mlp_gen.chained shape (length v) ls n_out -> length t = n_out -> heap_fits hp ->
  let ns := real_widths (length v) ls in
  let ws := real_weights hp ls in
  exists g hp',
    prog_den hp (P_MLP_real ls v) = Some (RNode [RLeaf g], hp') /\
    (forall i, (i < length ls)%nat ->
       fst (heap_lookup hp' (nth i ls 0%nat)) = loc_base (nth i ls 0%nat) /\
       length (snd (heap_lookup hp' (nth i ls 0%nat))) = length (nth i ws [])) /\
    (forall i k, (i < length ls)%nat -> (k < length (nth i ws []))%nat ->
       ex_derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k) /\
       (snd (heap_lookup hp' (nth i ls 0%nat)))@@k =
         (nth i ws [])@@k - α * Derive (fun z => mlp_loss ns (set_w ws i k z) v t) ((nth i ws [])@@k)) /\
    (forall l, ~ In l ls -> heap_lookup hp' l = heap_lookup hp l) /\
    length g = length v /\
    (forall j, (j < length v)%nat ->
       ex_derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j) /\
       g@@j = α * Derive (fun z => mlp_loss ns ws (set_at v j z) t) (v@@j)).
Proof.
  intros Hne Hnd Hinj Hdecl Hc Ht Hhp ns ws.
  set (T := mlp_train ns ws v t α).
  exists (snd T), (heap_set_all hp ls (fst T)).
  assert (Hns : (2 <= length ns)%nat) by (destruct ls; [congruence|]; simpl; lia).
  assert (Hsh : mlp_shapes ns ws) by (apply real_mlp_shapes; auto).
  assert (Hlast : length t = last ns 0%nat) by (unfold ns; rewrite real_widths_last; auto).
  destruct (mlp_train_gradient ns ws v t α Hns Hsh eq_refl Hlast) as (Hlen & Hw & Hglen & Hg).
  fold T in Hlen, Hw, Hglen, Hg.
  assert (Hws : length ws = length ls) by (unfold ws, real_weights; apply map_length).
  split; [apply mlp_den_train; auto|].
  destruct (net_flat ns ws v (zeros (last ns 0%nat)) Hns Hsh eq_refl (length_zeros _)) as (_ & Ho & _).
  set (y := vscale Rsc α (vsub Rsc (mlp_forward ns ws v) t)).
  assert (Hy : length y = last ns 0%nat) by (unfold y, vscale; rewrite map_length, vsub_vm, length_vm; lia).
  pose proof (train_heap_shape ls hp ns ws v y T Hnd Hws Hns Hsh eq_refl Hy eq_refl Hlen) as Hnth.
  split; [|split; [|split; [|split]]]; try assumption.
  - intros i Hi. destruct (Hnth i Hi) as [-> Hl]. split; [reflexivity|exact Hl].
  - intros i k Hi Hk. destruct (Hnth i Hi) as [-> _]. apply Hw; lia.
  - intros l Hl. apply heap_set_other. exact Hl.
Qed.

End mlp_den.

(** ** Every list of widths: the signature of [mlp_frag.v]

    For the widths [ns = [n_0; …; n_L]] ([L ≥ 1]), [mlp_frag.v] declares
    location and operation [i] for the layer [i] ([mlp_inst_decls],
    [mlp_inst_locs], [mlp_inst_shape], [mlp_inst_FC]); the program over
    the layers [0 … L−1] is well typed ([mlp_prog_typed]).  Its meaning
    from any heap of the right shapes is one step of gradient descent:
    location [i < L] holding [m_i] ends with
    [m_i − α·∂/∂m_i ½‖f_m(v) − t‖²], the others are unchanged, and the
    value is [⌊<α·∇_v ½‖f_m(v) − t‖²>⌋]. *)
Section widths.
Variable ns : list nat.
#[local] Instance Σw : signature := exec_signature Rvo (mlp_inst_decls ns) (mlp_inst_locs ns).
#[local] Instance Ew : evaluator := exec_evaluator Rvo.

Lemma map_nth_seq_nat (l : list nat) : map (fun i => nth i l 0%nat) (seq 0 (length l)) = l.
Proof.
  induction l as [|a l IH]; [reflexivity|]. cbn [length seq map nth]. f_equal.
  rewrite <- seq_shift, map_map. exact IH.
Qed.

Lemma mlp_inst_widths n : (2 <= length ns)%nat -> n = hd 0%nat ns ->
  real_widths (mlp_inst_shape ns) n (mlp_inst_layers ns) = ns.
Proof.
  intros Hns ->. destruct ns as [|a l]; [simpl in Hns; lia|].
  unfold real_widths, mlp_inst_layers, mlp_nlayers. cbn [hd length]. f_equal.
  replace (S (length l) - 1)%nat with (length l) by lia. rewrite <- (map_nth_seq_nat l) at 2.
  apply map_ext_in. intros i Hi. apply in_seq in Hi.
  unfold mlp_inst_shape, mlp_inst_FC, mlp_nlayers, mlp_width. cbn [snd length].
  rewrite Nat.min_l by lia. reflexivity.
Qed.

Lemma mlp_width_last : ns <> [] -> mlp_width ns (mlp_nlayers ns) = last ns 0%nat.
Proof.
  unfold mlp_width, mlp_nlayers. intros Hne. clear -Hne.
  induction ns as [|a l IH]; [contradiction|]. destruct l as [|b l]; [reflexivity|].
  specialize (IH ltac:(discriminate)).
  replace (length (a :: b :: l) - 1)%nat with (S (length (b :: l) - 1)) by (simpl; lia).
  change (nth (S (length (b :: l) - 1)) (a :: b :: l) 0%nat) with (nth (length (b :: l) - 1) (b :: l) 0%nat).
  rewrite IH. reflexivity.
Qed.

Lemma mlp_inst_layers_ok : ns <> [] -> Forall (layer_ok (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)) (mlp_inst_layers ns).
Proof.
  intros Hne. apply Forall_forall. intros l _. split.
  - exact (mlp_inst_FC_ar ns Hne l).
  - exact (mlp_inst_loc_base ns l).
Qed.

Lemma mlp_inst_fc_inj : fc_inj (mlp_inst_FC ns) (mlp_inst_layers ns).
Proof.
  intros l l' Hl Hl' E. unfold mlp_inst_layers in Hl, Hl'. apply in_seq in Hl, Hl'.
  unfold mlp_inst_FC in E. rewrite !Nat.min_l in E by lia. exact E.
Qed.

(** [mlp_den_gradient_widths]: for every widths [ns] of at least one
    layer, input [v ∈ ℝ^{n_0}], target [t ∈ ℝ^{n_L}], rate [α] and heap
    of the right shapes whose locations [0 … L−1] hold [ws = [m_0; …]]. *)
Theorem mlp_den_gradient_widths α t v hp :
  (2 <= length ns)%nat -> length v = hd 0%nat ns -> length t = last ns 0%nat ->
  heap_fits (mlp_inst_decls ns) (mlp_inst_locs ns) hp ->
  let ws := real_weights (mlp_inst_decls ns) (mlp_inst_locs ns) hp (mlp_inst_layers ns) in
  exists g hp',
    prog_den (mlp_inst_decls ns) (mlp_inst_locs ns) hp
      (P_MLP_real (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
         (mlp_width ns (mlp_nlayers ns)) α t (mlp_inst_layers ns) v) = Some (RNode [RLeaf g], hp') /\
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
  intros Hns Hv Ht Hhp ws.
  assert (Hne : ns <> []) by (intros ->; simpl in Hns; lia).
  assert (HL : (1 <= mlp_nlayers ns)%nat) by (unfold mlp_nlayers; lia).
  assert (Hls : mlp_inst_layers ns <> []) by (unfold mlp_inst_layers; destruct (mlp_nlayers ns); [lia|discriminate]).
  assert (Hc : mlp_gen.chained (mlp_inst_shape ns) (length v) (mlp_inst_layers ns) (mlp_width ns (mlp_nlayers ns))).
  { pose proof (mlp_inst_chained ns (mlp_nlayers ns) (le_n _)) as Hc. rewrite Nat.sub_diag in Hc.
    replace (length v) with (mlp_width ns 0) by (rewrite Hv; unfold mlp_width; destruct ns; reflexivity).
    exact Hc. }
  assert (Ht' : length t = mlp_width ns (mlp_nlayers ns)) by (rewrite mlp_width_last by exact Hne; exact Ht).
  destruct (mlp_den_gradient (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
              (mlp_width ns (mlp_nlayers ns)) α t (mlp_inst_layers ns) v hp Hls (seq_NoDup _ _)
              mlp_inst_fc_inj (mlp_inst_layers_ok Hne) Hc Ht' Hhp)
    as (g & hp' & H1 & H2 & H3 & H4 & H5 & H6).
  rewrite (mlp_inst_widths (length v) Hns Hv) in H3, H6. fold ws in H2, H3, H6.
  assert (Hlen : length (mlp_inst_layers ns) = mlp_nlayers ns) by apply seq_length.
  assert (Hnth : forall i, (i < mlp_nlayers ns)%nat -> @nth nat i (mlp_inst_layers ns) 0%nat = i).
  { intros i Hi. unfold mlp_inst_layers. rewrite seq_nth by exact Hi. reflexivity. }
  exists g, hp'. split; [exact H1|]. split; [|split; [|split; [|split]]].
  - intros i Hi. assert (Hi' : (i < length (mlp_inst_layers ns))%nat) by (rewrite Hlen; exact Hi).
    destruct (H2 i Hi') as [A B]. rewrite (Hnth i Hi) in A, B. split; assumption.
  - intros i k Hi Hk. assert (Hi' : (i < length (mlp_inst_layers ns))%nat) by (rewrite Hlen; exact Hi).
    destruct (H3 i k Hi' Hk) as [A B]. rewrite (Hnth i Hi) in B. split; assumption.
  - intros l Hl. apply H4. unfold mlp_inst_layers. rewrite in_seq. lia.
  - exact H5.
  - exact H6.
Qed.

(** [mlp_run_done]: what the evaluator answers.  From some fuel on, [run]
    and the environment machine answer the same; if they end with a value
    [V] and a heap, these are [mlp_train]'s: [V] denotes [⌊<g>⌋] and the
    heap is the gradient step of [mlp_den_gradient_widths].  They never
    end stuck on an operation.  A run stuck on an [Ev] is not excluded
    here (the [True] case): that needs an invariant of the run (constants
    at their lengths, primitives at [rd] order at most 2) not proved for
    this program. *)
Theorem mlp_run_done α t v hp :
  (2 <= length ns)%nat -> length v = hd 0%nat ns -> length t = last ns 0%nat ->
  heap_fits (mlp_inst_decls ns) (mlp_inst_locs ns) hp ->
  let P := P_MLP_real (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
             (mlp_width ns (mlp_nlayers ns)) α t (mlp_inst_layers ns) v in
  let T := mlp_train ns (real_weights (mlp_inst_decls ns) (mlp_inst_locs ns) hp (mlp_inst_layers ns)) v t α in
  exists (N : nat) r, (forall fuel : nat, (N < fuel)%nat -> run fuel 0 hp P = r /\ run_machine fuel 0 hp P = r) /\
    match r with
    | RDone hp' V _ =>
        tval V = RNode [RLeaf (snd T)] /\
        hp' = heap_set_all (mlp_inst_decls ns) (mlp_inst_locs ns) hp (mlp_inst_layers ns) (fst T)
    | RStuckEv _ _ _ _ _ => True
    | _ => False
    end.
Proof.
  intros Hns Hv Ht Hhp P T.
  assert (Hne : ns <> []) by (intros ->; simpl in Hns; lia).
  assert (HL : (1 <= mlp_nlayers ns)%nat) by (unfold mlp_nlayers; lia).
  assert (Hls : mlp_inst_layers ns <> []) by (unfold mlp_inst_layers; destruct (mlp_nlayers ns); [lia|discriminate]).
  assert (Hv0 : length v = mlp_width ns 0) by (rewrite Hv; unfold mlp_width; destruct ns; reflexivity).
  assert (Hc : mlp_gen.chained (mlp_inst_shape ns) (length v) (mlp_inst_layers ns) (mlp_width ns (mlp_nlayers ns))).
  { pose proof (mlp_inst_chained ns (mlp_nlayers ns) (le_n _)) as Hc. rewrite Nat.sub_diag in Hc.
    rewrite Hv0. exact Hc. }
  assert (Ht' : length t = mlp_width ns (mlp_nlayers ns)) by (rewrite mlp_width_last by exact Hne; exact Ht).
  pose proof (mlp_den_train (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
                (mlp_width ns (mlp_nlayers ns)) α t (mlp_inst_layers ns) v hp Hls
                mlp_inst_fc_inj (mlp_inst_layers_ok Hne) Hc Ht' Hhp) as Hden.
  rewrite (mlp_inst_widths (length v) Hns Hv) in Hden. fold P T in Hden.
  destruct (mlp_adequacy_run ns (1%nat, [α]) (mlp_width ns (mlp_nlayers ns), t) (length v, v) hp Hns
              eq_refl eq_refl Hv0 eq_refl Ht' eq_refl Hhp) as (N & r & Hrun & Hr).
  exists N, r. split; [exact Hrun|].
  change (mlp_prog (mlp_inst_decls ns) (mlp_inst_locs ns) (mlp_inst_shape ns) (mlp_inst_FC ns)
            (mlp_width ns (mlp_nlayers ns)) (1%nat, [α]) (mlp_width ns (mlp_nlayers ns), t)
            (mlp_inst_layers ns) (length v, v)) with P in Hr.
  destruct r as [hp' V n|hp' P' f V n|hp' P' o V n|hp' P' n|hp' P' n]; try exact I; try contradiction.
  - rewrite Hden in Hr. injection Hr as E1 E2. split; [symmetry; exact E1|symmetry; exact E2].
  - rewrite Hden in Hr. discriminate.
Qed.

End widths.

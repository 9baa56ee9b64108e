(** * A first-order gradient query ends in a numeric dual

    [fo_progress.v] gives the syntactic value a closed well-typed
    first-order query reduces to; its canonical forms of a dual type
    leave three cases: a numeric dual [r*], a [0] on the spine of dual
    maps, or a dual map [(λv.S)* · Q] that is not a redex.  This file
    settles them for the gradient queries
<<
    ((Ω λy.P) · (λx.e* )) r0       P first-order, no 0 and no sum in P,
                                   r0 a tuple of scalars
>>
    ([fo_query_result]): the query reduces to [r*] with [r] of the type
    of [y], or, only when [P] ends in a scalar ([lastv P] fails: the last
    term of its let series, or [P] itself, is a constant [c]), to a term
    with a [0] on its spine; [fo_eval] and [pullback-eval]'s fuel-free run
    return it ([fo_query_run]).  When [P] does not end in a scalar the
    query reduces to [r*] ([fo_query_ndual]).

    The proof follows the chain the 1-form reduces to ([form_norm],
    norm_fo.v) along the call-by-value strategy ([chain_grad]): at each
    pullback [(Ω λy.E) · ω'] of the chain applied to a tuple of scalars,
    the body [E] is elementary, first-order, without [0] or sum; it does
    not depend on [y] and (9) gives [0] (only if [E] is a scalar:
    [elem_live]), or it is a path [y^p], a pair of paths or of a path and
    a constant, [f(y^p)], or [⟨y, E'⟩], and the rule (11, 13a-c, 15, 20a,
    20b) gives a dual map [(λv.S)* · (ω' W)] whose body [S] is made of
    paths of [v], [0], pairs and [(J f · v^p) W^p] ([rawb]); the point [W]
    reduces to a tuple of scalars ([num_norm]: a closed well-typed
    first-order term without [0] or sum, [fo_value_svalue] and
    [canon_num]); the rest of the chain reduces to [r'*] or to a [0] on
    the spine (by induction); the points [W^p] of the body reduce to
    tuples of scalars, after which [bp] is defined on the body
    ([bpg_bp]), which mentions [v], and (5⁺) gives [r*].  [lastv] is kept
    by the A-steps and by (7) and (8) ([astep_lastv], [flive_step]), so no
    body of the chain is a scalar ([flive_cnr]).

    Where the body ends in a scalar, the result has a [0] on its spine:
    [0] for [(Ω λy.3) · ω], [(λv.⟨v, (J sin · v) 2⟩)* · 0] for
    [((Ω λy. let x = sin y in let z = 3 in z) · ω) 2]; the paper has no
    reduction of a dual map applied to [0] (docs/decisions-pullback.md,
    "Progress on the first-order fragment"). *)
From Pullback Require Import syntax typing anf anf_termination backprop reduction preservation
  progress decide step_fn normalize reverse_phase fo norm_fo fo_run progress_typed fo_progress exec_sig.

Section fo_grad.
Context {Σ : signature}.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

Ltac inv H := inversion H; subst; clear H.

(** ** Bodies whose last term is not a scalar *)

Definition isv0 (t : tm) : bool := match t with Var 0 => true | _ => false end.

(** [lastv P]: the term a let series (or [P] itself) ends with is not a
    scalar; a first-order body whose last term is a scalar does not depend
    on [y] there, and rule (9) gives [0]. *)
Fixpoint lastv (t : tm) : Prop :=
  match t with
  | Let e l => if isv0 l then lastv e else lastv l
  | Real _ => False
  | _ => True
  end.

Definition notreal (t : tm) : Prop := match t with Real _ => False | _ => True end.

Lemma isv0_ren_up ρ l : isv0 (ren (up_ren ρ) l) = isv0 l.
Proof. destruct l as [[|n]| | | | | | | | | | | | |]; reflexivity. Qed.

Lemma isv0_shift t : isv0 (shift t) = false.
Proof. destruct t as [[|n]| | | | | | | | | | | | |]; reflexivity. Qed.

Lemma isv0_subst_up σ l : isv0 (subst (up σ) l) = isv0 l.
Proof. destruct l as [[|n]| | | | | | | | | | | | |]; try reflexivity. simpl. apply isv0_shift. Qed.

Lemma lastv_ren ρ t : lastv t -> lastv (ren ρ t).
Proof.
  revert ρ. induction t; intros ρ H; simpl in *; auto.
  rewrite isv0_ren_up. destruct (isv0 t2); auto.
Qed.

Lemma lastv_subst σ t : (forall n, lastv (σ n)) -> lastv t -> lastv (subst σ t).
Proof.
  revert σ. induction t; intros σ Hσ H; simpl in *; auto.
  rewrite isv0_subst_up. destruct (isv0 t2); [auto|].
  apply IHt2; [|exact H]. intros [|n]; simpl; [exact I|apply lastv_ren, Hσ].
Qed.

Lemma bind_isv0 L K : isv0 (bind L K) = false.
Proof.
  destruct L; try reflexivity. destruct (var0_dec L2) as [->|Hne]; [reflexivity|].
  rewrite bind_let by exact Hne. reflexivity.
Qed.

Lemma lastv_bind L K : (isv0 K = true -> lastv L) -> (isv0 K = false -> lastv K) -> lastv (bind L K).
Proof.
  revert K. induction L; intros K H1 H2;
    try (simpl; destruct (isv0 K) eqn:E; [apply H1; reflexivity|apply H2; reflexivity]).
  destruct (var0_dec L2) as [->|Hne].
  - simpl. destruct (isv0 K) eqn:E; [apply H1; reflexivity|apply H2; reflexivity].
  - rewrite bind_let by exact Hne. simpl. rewrite bind_isv0.
    assert (E2 : isv0 L2 = false) by (destruct L2 as [[|n]| | | | | | | | | | | | |]; try reflexivity; congruence).
    apply IHL2.
    + rewrite isv0_ren_up. intros E. specialize (H1 E). simpl in H1. rewrite E2 in H1. exact H1.
    + rewrite isv0_ren_up. intros E. apply lastv_ren, H2, E.
Qed.

Lemma lastv_bind_ret L X : lastv X -> lastv (bind L (ret X)).
Proof. intros H. apply lastv_bind; [intros E; simpl in E; discriminate|intros _; exact H]. Qed.

Lemma lastv_bind2 l1 l2 X : lastv X -> lastv (bind2 l1 l2 X).
Proof.
  intros H. unfold bind2. apply lastv_bind; [rewrite bind_isv0; discriminate|].
  intros _. apply lastv_bind_ret, H.
Qed.

Lemma lastv_ared r : lastv r -> lastv (ared r).
Proof.
  destruct r; intros H; unfold ared;
    first [apply lastv_bind2; exact I | apply lastv_bind_ret; exact I | idtac].
  all: try (unfold ret; simpl; exact H).
  apply lastv_bind; intros E; simpl in H; rewrite E in H; exact H.
Qed.

Lemma ared_isv0 r : isv0 (ared r) = false.
Proof. destruct r; unfold ared, bind2, ret; try apply bind_isv0; reflexivity. Qed.

Lemma afill_isv0 C r : isv0 r = false -> isv0 (afill C r) = false.
Proof. destruct C as [|F C]; simpl; [auto|]. destruct F; reflexivity. Qed.

Lemma afill_lastv C r r' : (lastv r -> lastv r') -> isv0 r' = false -> alet_ok C r ->
  lastv (afill C r) -> lastv (afill C r').
Proof.
  induction C as [|F C IH]; simpl; [auto|]. intros H Hv [Hh Hok].
  destruct F; simpl; auto.
  - (* let x = C in l *) destruct (isv0 l); auto.
  - (* let x = e in C *)
    simpl in Hh. assert (E : isv0 (afill C r) = false).
    { destruct (afill C r) as [[|n]| | | | | | | | | | | | |]; try reflexivity. congruence. }
    rewrite E, (afill_isv0 C r' Hv). auto.
Qed.

Lemma astep_lastv t t' : astep t t' -> lastv t -> lastv t'.
Proof.
  intros Hs. destruct Hs as [C r HC Hr Hok].
  apply afill_lastv; [apply lastv_ared|apply ared_isv0|exact Hok].
Qed.

(** Every body of a 1-form ends in a term that is not a scalar. *)
Fixpoint flive (w : tm) : Prop :=
  match w with
  | Lam _ => True
  | Pb p w' => lastv p /\ flive w'
  | _ => False
  end.

(** The same for a chain: no body is a scalar. *)
Fixpoint cnr (c : tm) : Prop :=
  match c with
  | Lam _ => True
  | Pb e c' => notreal e /\ cnr c'
  | _ => False
  end.

Lemma sub8_lastv n : lastv (sub8 n).
Proof. destruct n as [|[|k]]; exact I. Qed.

Lemma flive_step w w' : step w w' -> form w -> flive w -> flive w'.
Proof.
  induction 1; simpl; intros Hf Hl; try tauto.
  - (* (8) *)
    destruct Hl as [Hl Hw]. split; [exact I|split; [|exact Hw]].
    apply lastv_subst; [apply sub8_lastv|].
    match goal with H : lets l |- _ => destruct H; exact Hl end.
  - (* an A-step in the body *) split; [eapply astep_lastv; [eassumption|tauto]|tauto].
  - destruct F; simpl in *; tauto.
Qed.

Lemma flive_steps w w' : steps w w' -> form w -> flive w -> flive w'.
Proof.
  induction 1 as [w|w w1 w' H _ IH]; auto. intros Hf Hl. apply IH.
  - eapply form_step; eassumption.
  - eapply flive_step; eassumption.
Qed.

Lemma lastv_notreal t : lastv t -> notreal t.
Proof. destruct t; simpl; tauto. Qed.

Lemma flive_cnr c : fchain c -> flive c -> cnr c.
Proof.
  induction c; simpl; intros Hc Hl; try tauto.
  split; [apply lastv_notreal; tauto|tauto].
Qed.

(** A first-order elementary body that is not a scalar, in the context of
    one variable, mentions it. *)
Lemma atom_typed_occ a σ τ : atom a -> typed [σ] a τ -> ~ nocc is0 a.
Proof.
  intros Ha. revert τ. induction Ha as [z|i a Ha IH]; intros τ Ht; simpl.
  - inv Ht. destruct z as [|z]; [unfold is0; tauto|destruct z; discriminate].
  - inv Ht; eapply IH; eassumption.
Qed.

Lemma elem_live e σ τ : elem e -> fob e -> nzp e -> notreal e -> typed [σ] e τ -> ~ nocc is0 e.
Proof.
  intros He Hf Hz Hr Ht.
  destruct He as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl in Hf, Hz, Hr; try contradiction.
  - eapply atom_typed_occ; eassumption.
  - inv Ht. intros [N _].
    match goal with Ht1 : typed _ a1 _ |- _ => exact (atom_typed_occ a1 σ _ H1 Ht1 N) end.
  - inv Ht. match goal with Ht1 : typed _ a _ |- _ => exact (atom_typed_occ a σ _ Ha Ht1) end.
Qed.

(** ** Closed first-order points reduce to tuples of scalars *)

Lemma nzs_steps_flat t u : steps t u -> flat t -> nzs t -> nzs u /\ flat u.
Proof.
  induction 1 as [t|t t1 u H _ IH]; auto. intros Hf Hn. apply IH.
  - eapply flat_step; eassumption.
  - eapply (nzs_step_flat fsem_dense fjac_dense); eassumption.
Qed.

Lemma num_norm t A : typed [] t A -> gty A -> flat t -> nzs t ->
  exists r, dense r /\ num_ty r A /\ steps t (num_tm r).
Proof.
  intros Ht Hg Hf Hn. destruct (flat_norm t Hf) as (v & Hs & Hv & Hfv).
  destruct (nzs_steps_flat t v Hs Hf Hn) as [Hnv _].
  assert (Htv : typed [] v A) by (eapply steps_typed; eassumption).
  pose proof (fo_value_svalue v A Htv (flat_fq v Hfv) (or_introl Hnv) Hv) as Hsv.
  destruct (canon_num v A Hsv Htv Hg Hnv) as (r & Hr & ->).
  exists r. split; [exact Hr|split; [exact (typed_num_inv [] r A Htv)|exact Hs]].
Qed.

Lemma dense_gty (r : num scalar) A : num_ty r A -> dense r -> gty A.
Proof. induction 1; simpl; tauto. Qed.

(** ** Bodies on which (5⁺) is defined *)

Lemma yp_shape p : yp p = Var 0 \/ exists i s, yp p = Proj i s.
Proof.
  induction p as [|i p _] using rev_ind; [left; reflexivity|right].
  unfold yp. rewrite ppath_app. simpl. eauto.
Qed.

Lemma yp_occ p : ~ nocc is0 (yp p).
Proof. unfold yp. rewrite nocc_ppath. simpl. unfold is0. tauto. Qed.

Lemma yp_not_num p (r : num scalar) : yp p <> num_tm r.
Proof. destruct (yp_shape p) as [E|(i & s & E)]; rewrite E; destruct r; discriminate. Qed.

Lemma value_yp p : value (yp p).
Proof.
  unfold yp. assert (H : forall t, value t -> (forall a b, t <> Pair a b) -> value (ppath p t)).
  { induction p as [|i p IH]; intros t Ht Hn; simpl; [exact Ht|].
    apply IH; [|intros a b; discriminate]. simpl. split; [|exact Ht].
    destruct t; try (intros []); exfalso; eapply Hn; reflexivity. }
  apply H; [split; [intros []|exact I]|intros a b; discriminate].
Qed.

(** Linear bodies whose points are tuples of scalars. *)
Inductive bpg : tm -> Prop :=
| bpg_path p : bpg (yp p)
| bpg_zero : bpg Zero
| bpg_pair a b : bpg a -> bpg b -> bpg (Pair a b)
| bpg_jac f p r : dense r -> bpg (App (Jac f (yp p)) (num_tm r)).

Lemma bpg_bp s : bpg s -> forall c acc, exists r, bp s c acc = Some r.
Proof.
  induction 1 as [p| |a b _ IHa _ IHb|f p r _]; intros c acc.
  - rewrite bp_yp. eauto.
  - cbn [bp]. eauto.
  - cbn [bp]. destruct (nsplit c) as [c1 c2].
    destruct (IHa c1 acc) as [a' ->]. apply IHb.
  - cbn [bp]. rewrite as_num_num, bp_yp. eauto.
Qed.

Lemma value_jac_yp f p : value (Jac f (yp p)).
Proof. split; [intros []|apply value_yp]. Qed.

Lemma bpg_value s : bpg s -> value s.
Proof.
  induction 1 as [p| |a b _ IHa _ IHb|f p r _].
  - apply value_yp.
  - apply value_zero.
  - split; [intros []|split; assumption].
  - split; [|split; [apply value_jac_yp|apply value_num]].
    intros (r1 & r2 & _ & _ & E & _). exact (yp_not_num p r1 E).
Qed.

(** The bodies rules 11, 13a-c, 15, 20a and 20b produce, before their
    points are evaluated. *)
Inductive rawb : tm -> Prop :=
| rawb_path p : rawb (yp p)
| rawb_zero : rawb Zero
| rawb_pair a b : rawb a -> rawb b -> rawb (Pair a b)
| rawb_jac f p X r : dense r -> steps X (num_tm r) -> rawb (App (Jac f (yp p)) X).

Lemma rawb_norm s : rawb s -> exists s', steps s s' /\ bpg s' /\ (~ nocc is0 s -> ~ nocc is0 s').
Proof.
  induction 1 as [p| |a b _ IHa _ IHb|f p X r Hr HX].
  - exists (yp p). split; [constructor|split; [constructor|auto]].
  - exists Zero. split; [constructor|split; [constructor|auto]].
  - destruct IHa as (a' & Ha & Ba & Na), IHb as (b' & Hb & Bb & Nb).
    exists (Pair a' b'). split; [|split; [constructor; assumption|]].
    + eapply steps_trans; [apply (steps_ctx (EPairL b)); [exact I|exact Ha]|].
      apply (steps_ctx (EPairR a')); [apply bpg_value, Ba|exact Hb].
    + intros Hn [N1 N2]. destruct (nocc_is0_dec a) as [Ea|Ea]; [|exact (Na Ea N1)].
      destruct (nocc_is0_dec b) as [Eb|Eb]; [apply Hn; split; assumption|exact (Nb Eb N2)].
  - exists (App (Jac f (yp p)) (num_tm r)). split; [|split; [constructor; exact Hr|]].
    + apply (steps_ctx (EAppR (Jac f (yp p)))); [apply value_jac_yp|exact HX].
    + intros _ [N _]. exact (yp_occ p N).
Qed.

(** ** What a query reduces to *)

(** [r*], or, when [live] fails, a term with a [0] on its spine. *)
Definition gresb (live : Prop) (t : tm) : Prop :=
  (exists r, steps t (NDual r)) \/ (~ live /\ exists u, steps t u /\ zsp0 u).

Lemma gres_pre (Lv : Prop) t t' : steps t t' -> gresb Lv t' -> gresb Lv t.
Proof.
  intros H [(r & Hr)|(HL & u & Hu & Hz)]; [left; exists r|right; split; [exact HL|exists u; split; [|exact Hz]]];
    eapply steps_trans; eassumption.
Qed.

Lemma gresb_mono (Lv Lv' : Prop) t : (Lv' -> Lv) -> gresb Lv t -> gresb Lv' t.
Proof. intros H [Hr|(HL & Hu)]; [left; exact Hr|right; split; [tauto|exact Hu]]. Qed.

Lemma gres_dual (Lv : Prop) s t : rawb s -> ~ nocc is0 s -> gresb Lv t -> gresb Lv (Dual s t).
Proof.
  intros Hs Hn [(r' & Ht)|(HL & u & Ht & Hz)].
  - left. destruct (rawb_norm s Hs) as (s' & Hss & Hb & Hn').
    destruct (bpg_bp s' Hb r' NZ) as [r Hr].
    exists r. eapply steps_trans; [apply (steps_ctx (EDualR s)); [exact I|exact Ht]|].
    eapply steps_trans; [apply (steps_ctx (EDualL (NDual r'))); [apply value_ndual|exact Hss]|].
    apply steps_one, step_bp; [exact (Hn' Hn)|exact Hr].
  - right. split; [exact HL|]. exists (Dual s u).
    split; [apply (steps_ctx (EDualR s)); [exact I|exact Ht]|exact Hz].
Qed.

(** The innermost 1-form of a chain is [λx.e*]. *)
Fixpoint lend (e : num scalar) (w : tm) : Prop :=
  match w with
  | Lam b => b = NDual e
  | Pb _ w' => lend e w'
  | _ => False
  end.

Lemma lend_step e w w' : step w w' -> form w -> lend e w -> lend e w'.
Proof.
  induction 1; simpl; intros Hf Hl; try tauto.
  destruct F; simpl in *; tauto.
Qed.

Lemma form_lend_steps e w w' : steps w w' -> form w -> nzs w -> lend e w ->
  form w' /\ nzs w' /\ lend e w'.
Proof.
  induction 1 as [w|w w1 w' H _ IH]; [tauto|]. intros Hf Hn Hl. apply IH.
  - eapply form_step; eassumption.
  - eapply nzs_step_form; eassumption.
  - eapply lend_step; eassumption.
Qed.

Lemma typed_pb_inv' Γ p w A :
  typed Γ (Pb p w) A -> exists σ τ, A = TOmega σ /\ typed (σ :: Γ) p τ /\ typed Γ w (TOmega τ).
Proof. intros H. inversion H; subst. eauto 6. Qed.

(** A first-order body without [0] or sums has a type of tuples of
    scalars when its variables do. *)
Lemma fob_gty e : fob e -> nzp e -> forall Γ A, typed Γ e A ->
  (forall n B, nth_error Γ n = Some B -> gty B) -> gty A.
Proof.
  induction e; simpl; intros Hf Hz Γ A Ht HΓ; try contradiction; inv Ht.
  - eapply HΓ. eassumption.
  - match goal with H : typed _ _ (TProd _ _) |- _ => pose proof (IHe Hf Hz _ _ H HΓ) as G end.
    simpl in G. tauto.
  - match goal with H : typed _ _ (TProd _ _) |- _ => pose proof (IHe Hf Hz _ _ H HΓ) as G end.
    simpl in G. tauto.
  - simpl. split; [eapply IHe1|eapply IHe2]; try eassumption; tauto.
  - exact I.
  - apply gty_Rn.
  - match goal with H1 : typed _ e1 ?B, H2 : typed _ e2 _ |- _ =>
      assert (G : gty B) by (eapply IHe1; [tauto|tauto|exact H1|exact HΓ]);
      eapply IHe2; [tauto|tauto|exact H2|] end.
    intros [|k] C Hk; simpl in Hk; [injection Hk as <-; exact G|eapply HΓ; eassumption].
Qed.

(** The point [V^p] given to [J f] in (15) and (20a). *)
Lemma rawb_jac_point f p σ (r0 : num scalar) :
  typed [σ] (yp p) (Rn (fdom f)) -> num_ty r0 σ -> dense r0 ->
  rawb (App (Jac f (yp p)) (shift (ppath p (num_tm r0)))).
Proof.
  intros Hp Hr Hd.
  assert (E : shift (ppath p (num_tm r0)) = ppath p (num_tm r0))
    by (unfold shift; rewrite ren_ppath, ren_num; reflexivity).
  rewrite E.
  assert (Ht : typed [] (ppath p (num_tm r0)) (Rn (fdom f))).
  { replace (ppath p (num_tm r0)) with (subst1 (num_tm r0) (yp p))
      by (unfold subst1, yp; rewrite subst_ppath; reflexivity).
    eapply typed_subst1; [exact Hp|apply typed_num, Hr]. }
  destruct (num_norm _ _ Ht (gty_Rn _) (flat_ppath _ _ (flat_num r0))
              (nzp_nzs _ (nzp_ppath _ _ (nzp_num r0 Hd)))) as (r & Hr' & _ & Hs).
  econstructor; eassumption.
Qed.

(** The premise of (20a) with the shape of its body. *)
Lemma pb_pair_premise_g e σ τ (r0 : num scalar) : elem e -> fob e -> nzp e -> ~ nocc is0 e ->
  typed [σ] e τ -> num_ty r0 σ -> dense r0 ->
  exists s0 u, rawb s0 /\
    step (App (Pb (ren (up_ren S) e) (Var 0)) (shift (num_tm r0)))
         (Dual (ren (up_ren S) s0) (App (Var 0) u)).
Proof.
  intros He Hf Hz Hn Ht Hr Hd.
  assert (Hw : value (Var 0)) by (split; [intros []|exact I]).
  assert (Hv' : value (shift (num_tm r0))) by (unfold shift; rewrite ren_num; apply value_num).
  destruct He as [|a1 a2 H1 H2|a Ha|l Hl|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl Ha|l a Hl Ha|r];
    simpl in Hf, Hz; try contradiction; try (exfalso; apply Hn; exact I).
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    exists (yp p). eexists. split; [constructor|]. rewrite !ren_upS_yp.
    apply step_pb_lin; [assumption|assumption|apply elem_atom, atom_yp|apply lin_shape_path].
  - destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
    + exfalso. apply Hn. simpl. tauto.
    + exists (Pair Zero (yp q)). eexists. split; [repeat constructor|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_pair_r; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (Pair (yp p) Zero). eexists. split; [repeat constructor|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_pair_l; [assumption|assumption|apply atom_ren; assumption|apply nocc_upS; assumption].
    + exists (Pair (yp p) (yp q)). eexists. split; [repeat constructor|].
      cbn [ren]. rewrite !ren_upS_yp.
      apply step_pb_lin; [assumption|assumption|apply elem_pair; apply atom_yp|apply lin_shape_pair].
  - destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
    exists (App (Jac f (yp p)) (shift (ppath p (num_tm r0)))). eexists.
    split; [inv Ht; eapply rawb_jac_point; eassumption|].
    cbn [ren]. rewrite !ren_upS_yp.
    replace (ren (up_ren S) (shift (ppath p (num_tm r0)))) with (shift (ppath p (shift (num_tm r0))))
      by (unfold shift; rewrite !ren_ppath, !ren_ren; reflexivity).
    apply step_pb_fun; assumption.
Qed.

(** Informal proof: by induction on the chain.  [λx.e*] applied to a
    point gives [e*] (1).  For [(Ω λy.E) · c'] applied to [r0]: if [E]
    does not depend on [y], (9) gives [0]; otherwise a rule gives
    [(λv.S)* · (c' W)] with [S] a [rawb] that mentions [v] (the cases of
    [E] as in [pb_elem_step], the premise of (20a) by
    [pb_pair_premise_g]); [W] reduces to a tuple of scalars
    ([num_norm]), [c'] applied to it to [r'*] or to a [0] on the spine
    (induction), and [gres_dual] ends it. *)
Lemma chain_grad e c : fchain c -> value c -> nzs c -> lend e c ->
  forall σ (r0 : num scalar), typed [] c (TOmega σ) -> num_ty r0 σ -> dense r0 ->
  gresb (cnr c) (App c (num_tm r0)).
Proof.
  induction c as [n|b IHb|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s1 IH1 s2 IH2|e0 IHe c' IHc|r| |a IHa b IHb|e1 IHe l IHl];
    simpl; intros Hc Hvc Hn Hl σ r0 Ht Hr Hd; try contradiction.
  - (* (1) *)
    subst b. left. exists e. apply steps_one.
    exact (step_beta (NDual e) (num_tm r0) (value_num r0)).
  - destruct Hc as [Hcb [Hfe Hc']]. destruct Hn as [Hne Hnc].
    apply value_pb_inv in Hvc. destruct Hvc as [_ Hvc'].
    destruct (typed_pb_inv' _ _ _ _ Ht) as (σ0 & τ & Eq & He0 & Hc'τ).
    unfold TOmega in Eq. injection Eq as <-.
    assert (HV : typed [] (num_tm r0) σ) by (apply typed_num, Hr).
    assert (Hτ : gty τ).
    { eapply fob_gty; [exact Hfe|exact Hne|exact He0|].
      intros [|k] B Hk; simpl in Hk; [injection Hk as <-; eapply dense_gty; eassumption|destruct k; discriminate]. }
    (* the rest of the chain, at the next point *)
    assert (Hk : forall X, flat X -> nzs X -> typed [] X τ -> gresb (cnr c') (App c' X)).
    { intros X HX HnX HtX. destruct (num_norm X τ HtX Hτ HX HnX) as (r1 & Hr1 & Ht1 & Hs1).
      eapply gres_pre; [apply (steps_ctx (EAppR c')); [exact Hvc'|exact Hs1]|].
      exact (IHc Hc' Hvc' Hnc Hl τ r1 Hc'τ Ht1 Hr1). }
    assert (Hout : forall s, rawb s -> ~ nocc is0 s ->
                    step (App (Pb e0 c') (num_tm r0)) (Dual s (out c' (num_tm r0) e0)) ->
                    gresb (cnr (Pb e0 c')) (App (Pb e0 c') (num_tm r0))).
    { intros s Hs Hns Hst. eapply gres_pre; [apply steps_one, Hst|].
      apply (gresb_mono (cnr c')); [simpl; tauto|].
      apply gres_dual; [exact Hs|exact Hns|]. unfold out. apply Hk.
      - apply flat_subst; [intros [|m]; simpl; auto using flat_num|apply fob_flat, Hfe].
      - apply nzs_subst; [intros [|m]; simpl; auto using nzp_num|apply nzp_nzs, Hne].
      - eapply typed_subst1; eassumption. }
    assert (Hv : value (num_tm r0)) by apply value_num.
    destruct Hcb as [He|(e1 & -> & He1)].
    + destruct (nocc_is0_dec e0) as [Hn0|Hn0].
      * (* (9) *)
        right. split; [intros [Hnr _]; exact (elem_live e0 σ τ He Hfe Hne Hnr He0 Hn0)|].
        exists Zero. split; [apply steps_one, step_pb_const; assumption|exact I].
      * destruct He as [|a1 a2 H1 H2|a Ha|l Hl'|a1 a2 H1 H2|a1 a2 H1 H2|r|f a Ha|f a Ha|l a Hl' Ha|l a Hl' Ha|r];
          simpl in Hfe, Hne; try contradiction; try (exfalso; apply Hn0; exact I).
        -- (* (11) *)
           destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
           apply (Hout (yp p)); [apply rawb_path|apply yp_occ|].
           apply step_pb_lin; [assumption|assumption|apply elem_atom, atom_yp|apply lin_shape_path].
        -- destruct (atom_split _ H1) as [N1|[p ->]]; destruct (atom_split _ H2) as [N2|[q ->]].
           ++ exfalso. apply Hn0. simpl. tauto.
           ++ (* (13b) *)
              apply (Hout (Pair Zero (yp q))); [apply rawb_pair; [apply rawb_zero|apply rawb_path]|intros [_ Hy0]; exact (yp_occ q Hy0)|].
              apply step_pb_pair_r; assumption.
           ++ (* (13a) *)
              apply (Hout (Pair (yp p) Zero)); [apply rawb_pair; [apply rawb_path|apply rawb_zero]|intros [Hy0 _]; exact (yp_occ p Hy0)|].
              apply step_pb_pair_l; assumption.
           ++ (* (13c) *)
              apply (Hout (Pair (yp p) (yp q))); [apply rawb_pair; apply rawb_path|intros [Hy0 _]; exact (yp_occ p Hy0)|].
              apply step_pb_lin; [assumption|assumption|apply elem_pair; apply atom_yp|apply lin_shape_pair].
        -- (* (15) *)
           destruct (atom_split _ Ha) as [N|[p ->]]; [contradiction|].
           apply (Hout (App (Jac f (yp p)) (shift (ppath p (num_tm r0))))).
           ++ inversion He0; subst. eapply rawb_jac_point; eassumption.
           ++ intros [Hy0 _]. exact (yp_occ p Hy0).
           ++ apply step_pb_fun; assumption.
    + simpl in Hfe, Hne. destruct (nocc_is0_dec e1) as [Hn1|Hn1].
      * (* (20b) *)
        apply (Hout (Pair (Var 0) Zero)); [apply rawb_pair; [exact (rawb_path [])|constructor]|
                                            intros [Hy0 _]; exact (yp_occ [] Hy0)|].
        apply step_pb_pair_const; assumption.
      * (* (20a) *)
        inversion He0; subst.
        match goal with Ht1 : typed [σ] e1 ?τ1 |- _ =>
          destruct (pb_pair_premise_g e1 σ τ1 r0 He1 (proj2 Hfe) (proj2 Hne) Hn1 Ht1 Hr Hd)
            as (s0 & u & Hs0 & Hp) end.
        apply (Hout (Pair (Var 0) s0)); [apply rawb_pair; [exact (rawb_path [])|exact Hs0]|
                                          intros [Hy0 _]; exact (yp_occ [] Hy0)|].
        eapply step_pb_pair_step; eassumption.
Qed.

(** The value a term reduces to is reduced to from every term on the
    way ([step_det]). *)
Lemma steps_to_value t u u' : steps t u -> value u -> steps t u' -> steps u' u.
Proof.
  intros H Hv H'. revert u H Hv. induction H' as [t|t t1 u' Hs _ IH]; intros u H Hv; [exact H|].
  destruct H as [t|t t2 u Hs2 Hr].
  - exfalso. exact (value_not_step _ _ Hs Hv).
  - rewrite (step_det _ _ _ Hs Hs2) in IH. exact (IH u Hr Hv).
Qed.

Lemma zsp0_steps t u : steps t u -> zsp0 t -> zsp0 u.
Proof. induction 1; auto. intros H'. apply IHsteps. eapply zsp0_step; eassumption. Qed.

Lemma app_pb_typed' p w a σ :
  typed [] (App (Pb p w) a) (TDual σ) -> typed [] (Pb p w) (TOmega σ) /\ typed [] a σ.
Proof.
  intros H. inversion H; subst.
  match goal with H1 : typed _ (Pb _ _) _ |- _ =>
    destruct (typed_pb_inv' _ _ _ _ H1) as (σ1 & τ1 & Eq & _ & _) end.
  unfold TOmega in Eq. injection Eq as -> ->. split; assumption.
Qed.

(** Informal proof: the 1-form [(Ω λy.P) · λx.e*] reduces to a chain
    ([form_norm]) that keeps the premise ([nzs_step_form]) and ends in
    [λx.e*] ([lend_step]); the query reduces to the chain applied to
    [r0] in the context [[] r0], and [chain_grad] ends it. *)
Lemma fo_query_gres P e (r0 : num scalar) σ :
  fo_body P -> nzp P -> dense r0 -> typed [] (fo_grad_query P e r0) (TDual σ) ->
  gresb (lastv P) (fo_grad_query P e r0).
Proof.
  intros HP Hz Hd Ht. unfold fo_grad_query in *.
  destruct (app_pb_typed' _ _ _ _ Ht) as [Hw Hr].
  assert (Hf : form (Pb P (Lam (NDual e)))) by (simpl; split; [exact HP|exact I]).
  destruct (form_norm _ Hf) as (c & Hs & Hv & Hc).
  destruct (form_lend_steps e _ _ Hs Hf) as (_ & Hnc & Hl).
  { simpl. split; [exact Hz|left; exact I]. }
  { reflexivity. }
  eapply gres_pre; [apply (steps_ctx (EAppL (num_tm r0))); [exact I|exact Hs]|].
  apply (gresb_mono (cnr c)).
  { intros HL. apply flive_cnr; [exact Hc|]. eapply flive_steps; [exact Hs|exact Hf|simpl; tauto]. }
  eapply chain_grad; try eassumption.
  - eapply steps_typed; eassumption.
  - exact (typed_num_inv [] r0 σ Hr).
Qed.

(** Corollary 5.2 for first-order gradient queries: the query reduces to
    [r*] with [r] of the type of [y], or to a term with a [0] on its
    spine, a syntactic value of type [σ*]; [fo_eval] returns it without
    fuel.  No reduction sequence from the query ends elsewhere
    ([step_det]). *)
Lemma fo_query_result P e (r0 : num scalar) σ :
  fo_body P -> nzp P -> dense r0 -> typed [] (fo_grad_query P e r0) (TDual σ) ->
  exists u, fo_eval (fo_grad_query P e r0) = Some u /\ steps (fo_grad_query P e r0) u /\
    svalue u /\ typed [] u (TDual σ) /\
    ((exists r, u = NDual r /\ num_ty r σ) \/ (~ lastv P /\ zsp0 u)).
Proof.
  intros HP Hz Hd Ht.
  destruct (fo_svalue_norm fsem_dense fjac_dense _ _ Ht (fo_grad_query_fq P e r0 HP)
              (fo_grad_query_nzq P e r0 Hz Hd)) as (u & Hs & Hsv & Htu & He).
  exists u. split; [exact He|split; [exact Hs|split; [exact Hsv|split; [exact Htu|]]]].
  destruct (fo_query_gres P e r0 σ HP Hz Hd Ht) as [(r & Hr)|(HL & u' & Hu' & Hz')].
  - left. exists r.
    assert (E : u = NDual r).
    { eapply steps_value_det; [exact Hs|apply svalue_value, Hsv|exact Hr|apply value_ndual]. }
    subst u. split; [reflexivity|]. inversion Htu; subst. assumption.
  - right. split; [exact HL|]. apply (zsp0_steps u' u); [|exact Hz'].
    exact (steps_to_value _ _ _ Hs (svalue_value _ Hsv) Hu').
Qed.

(** The same answer from [pullback-eval]'s fuel-free run ([fo_run_opt],
    which the driver's [(run TERM)] executes), with its number of steps. *)
Lemma fo_query_run P e (r0 : num scalar) σ :
  fo_body P -> nzp P -> dense r0 -> typed [] (fo_grad_query P e r0) (TDual σ) ->
  exists u k, fo_run_opt (fo_grad_query P e r0) = Some (u, k, OValue) /\
    fo_eval (fo_grad_query P e r0) = Some u /\
    ((exists r, u = NDual r /\ num_ty r σ) \/ (~ lastv P /\ zsp0 u)).
Proof.
  intros HP Hz Hd Ht.
  destruct (fo_query_result P e r0 σ HP Hz Hd Ht) as (u & He & Hs & Hsv & _ & Hu).
  destruct (fo_run_opt_complete _ (fo_grad_query_fq P e r0 HP)) as [x Hx].
  destruct (fo_run_opt_sound _ _ Hx) as (v & k & -> & Hk & Hv).
  assert (E : v = u) by (eapply steps_value_det; [apply (nsteps_steps k); exact Hk|exact Hv|exact Hs|
                                                  apply svalue_value, Hsv]).
  subst v. exists u, k. tauto.
Qed.

(** Corollary 5.2 with Corollary 4.8's answer: a first-order gradient
    query whose body has no [0] or sum and does not end in a scalar
    reduces to [r*], with [r] of the type of [y]; [fo_eval] and
    [pullback-eval]'s fuel-free run return it. *)
Lemma fo_query_ndual P e (r0 : num scalar) σ :
  fo_body P -> nzp P -> lastv P -> dense r0 -> typed [] (fo_grad_query P e r0) (TDual σ) ->
  exists r k, steps (fo_grad_query P e r0) (NDual r) /\ num_ty r σ /\
    fo_eval (fo_grad_query P e r0) = Some (NDual r) /\
    fo_run_opt (fo_grad_query P e r0) = Some (NDual r, k, OValue).
Proof.
  intros HP Hz HL Hd Ht.
  destruct (fo_query_result P e r0 σ HP Hz Hd Ht) as (u & He & Hs & _ & _ & [(r & -> & Hr)|[HnL _]]);
    [|contradiction].
  destruct (fo_query_run P e r0 σ HP Hz Hd Ht) as (u & k & Hk & He' & _).
  rewrite He in He'. injection He' as <-.
  exists r, k. tauto.
Qed.

End fo_grad.

(** [pullback-eval]'s signature ([exec_sig.v]) gives tuples of scalars on
    tuples of scalars, so the theorems hold there without hypotheses. *)
Section exec.
Context {K : Type} (o : scalar_ops K).

Lemma exec_fsem_dense f (x : num K) : dense x -> dense (@fsem (exec_sig o) f x).
Proof. intros _. destruct f; simpl; unfold esem; try (destruct (epr o x)); exact I. Qed.

Lemma exec_fjac_dense f (x v : num K) : dense x -> dense v -> dense (@fjac (exec_sig o) f x v).
Proof.
  intros _ _. destruct f; simpl; unfold ejac; try (destruct (epr o x)); try (destruct (epr o v)); exact I.
Qed.

Lemma exec_fo_safety t u A :
  @typed (exec_sig o) [] t A -> @fq (exec_sig o) t -> @nzq (exec_sig o) t -> @steps (exec_sig o) t u ->
  @svalue (exec_sig o) u \/ exists u', @step (exec_sig o) u u'.
Proof. exact (fo_safety (Σ := exec_sig o) exec_fsem_dense exec_fjac_dense t u A). Qed.

Lemma exec_fo_query_run P e (r0 : num K) σ :
  @fo_body (exec_sig o) P -> @nzp (exec_sig o) P -> dense r0 ->
  @typed (exec_sig o) [] (@fo_grad_query (exec_sig o) P e r0) (TDual σ) ->
  exists u k, @fo_run_opt (exec_sig o) (@fo_grad_query (exec_sig o) P e r0) = Some (u, k, OValue) /\
    @fo_eval (exec_sig o) (@fo_grad_query (exec_sig o) P e r0) = Some u /\
    ((exists r, u = NDual r /\ num_ty r σ) \/ (~ @lastv (exec_sig o) P /\ @zsp0 (exec_sig o) u)).
Proof.
  intros HP Hz Hd Ht.
  exact (fo_query_run (Σ := exec_sig o) exec_fsem_dense exec_fjac_dense P e r0 σ HP Hz Hd Ht).
Qed.
Lemma exec_fo_query_ndual P e (r0 : num K) σ :
  @fo_body (exec_sig o) P -> @nzp (exec_sig o) P -> @lastv (exec_sig o) P -> dense r0 ->
  @typed (exec_sig o) [] (@fo_grad_query (exec_sig o) P e r0) (TDual σ) ->
  exists r k, @steps (exec_sig o) (@fo_grad_query (exec_sig o) P e r0) (NDual r) /\ num_ty r σ /\
    @fo_eval (exec_sig o) (@fo_grad_query (exec_sig o) P e r0) = Some (NDual r) /\
    @fo_run_opt (exec_sig o) (@fo_grad_query (exec_sig o) P e r0) = Some (NDual r, k, OValue).
Proof.
  intros HP Hz HL Hd Ht.
  exact (fo_query_ndual (Σ := exec_sig o) exec_fsem_dense exec_fjac_dense P e r0 σ HP Hz HL Hd Ht).
Qed.
End exec.

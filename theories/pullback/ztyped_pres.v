(** * The typed premise is kept by the steps: subject reduction for [ztyped]

    docs/decisions-pullback.md, "Progress beyond the first-order fragment:
    the premise is typed".  [ztyped] ([ztyped.v]) is [typed] with (zero)
    and (sum) only at dual types outside the bodies of dual maps.  This
    file proves that a step keeps it ([ztyped_preservation],
    [ztyped_steps]), mirroring [preservation.v] case by case.

    Types are not unique ([0] has every dual type), so the typing of a
    reduct cannot be read back from [step_typed]: each rule is redone with
    the types found by inverting the redex.  Bodies of dual maps stay typed
    by [typed]; their typing and linearity come from [step_steps_preserve]
    (the premises of 16b, 16c, 18, 19b and 20a, the context [(λx.C)* · V]).
    The premise of 17 ends in a term put back into a pullback body, outside
    any dual map, so there the induction hypothesis on [ztyped] is used.

    One extra premise: rules (3) and (4) put the numeral [fsem f r] or
    [fjac f r' r] in the term; if it held an [NZ], the term would hold a
    [0] at a non-dual type.  The signature's typing laws allow that, so
    the theorem assumes, as [progress_typed.v] does, that the signature's
    functions map dense tuples to dense tuples ([fsem_dense],
    [fjac_dense]). *)
From Pullback Require Import syntax typing anf backprop reduction preservation ztyped.

Section ztyped_pres.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B σ τ : ty).

#[local] Hint Constructors ztyped : core.

Ltac inv H := inversion H; subst; clear H.
Ltac setx := intros [|[|[|?]]]; simpl; unfold is0; try split; intros; try congruence; firstorder.

(** ** Numerals, let series and A-steps *)
Lemma ztyped_num Γ r σ : dense r -> num_ty r σ -> ztyped Γ (num_tm r) σ.
Proof. intros Hd H. induction H; simpl in *; intuition auto. Qed.

Lemma ztyped_num_inv Γ r σ : ztyped Γ (num_tm r) σ -> num_ty r σ.
Proof. intros H. apply typed_num_inv with (Γ := Γ). apply ztyped_typed. exact H. Qed.

Lemma ztyped_bind Γ L K A B :
  ztyped Γ L A -> ztyped (A :: Γ) K B -> ztyped Γ (bind L K) B.
Proof. typed_bind_by ztyped_ren Γ L K A. Qed.

Lemma ztyped_ret Γ e A : ztyped Γ e A -> ztyped Γ (ret e) A.
Proof. exact (ret_of ztyped zt_var zt_let Γ e A). Qed.

Lemma ztyped_bind2 Γ l1 l2 e A1 A2 B :
  ztyped Γ l1 A1 -> ztyped Γ l2 A2 -> ztyped (A2 :: A1 :: Γ) e B ->
  ztyped Γ (bind2 l1 l2 e) B.
Proof. exact (bind2_of ztyped zt_var zt_let ztyped_bind ztyped_shift Γ l1 l2 e A1 A2 B). Qed.

(** The dual map's body [L] in [(λx.L)* · L'] is typed by [typed]. *)
Lemma ared_ztyped Γ r A : aredex r -> ztyped Γ r A -> ztyped Γ (ared r) A.
Proof. ared_typed_by ztyped_bind ztyped_bind2 ztyped_ret ztyped_ren. Qed.

(** A context around an A-step: the frame [(λx.C_A)* · S] puts the hole in
    a dual map's body, where [typed] and linearity are kept by [anf.v]. *)
Lemma afill_ztyped C t t' :
  (forall X, nocc X t -> nocc X t') -> (forall X, lin X t -> lin X t') ->
  (forall Γ A, typed Γ t A -> typed Γ t' A) ->
  (forall Γ A, ztyped Γ t A -> ztyped Γ t' A) ->
  forall Γ A, ztyped Γ (afill C t) A -> ztyped Γ (afill C t') A.
Proof.
  induction C as [|F C IH]; simpl; auto. intros H1 H2 H3 H4 Γ A Ht.
  destruct F; simpl in *; inv Ht; eauto.
  econstructor; [eapply afill_typed; eauto|eassumption|eapply afill_lin; eauto].
Qed.

Lemma astep_ztyped Γ t t' A : astep t t' -> ztyped Γ t A -> ztyped Γ t' A.
Proof.
  intros [C r HC Hr]. apply afill_ztyped.
  - intros X. apply ared_nocc. exact Hr.
  - intros X. apply ared_lin. exact Hr.
  - intros Γ' A'. apply ared_typed. exact Hr.
  - intros Γ' A'. apply ared_ztyped. exact Hr.
Qed.

(** ** Pullbacks applied to a point and their reducts *)
Lemma ztyped_pbapp_inv Γ e w v A :
  ztyped Γ (App (Pb e w) v) A ->
  exists σ τ, A = TDual σ /\ ztyped (σ :: Γ) e τ /\ ztyped Γ w (TOmega τ) /\ ztyped Γ v σ.
Proof. pbapp_inv_by. Qed.

(** [(λv.S)* · (ω E[V/y])]: [ω E[V/y]] stands outside the dual map and is
    [ztyped]; [S] is typed by [typed]. *)
Lemma ztyped_out Γ σ τ e w v s :
  ztyped (σ :: Γ) e τ -> ztyped Γ w (TOmega τ) -> ztyped Γ v σ ->
  typed (σ :: Γ) s τ -> lin is0 s -> ztyped Γ (Dual s (out w v e)) (TDual σ).
Proof. out_typed_by ztyped_subst1. Qed.

(** Inverts the redex, keeps the [typed] copies of its parts under the names
    [preservation.v] uses, and leaves the two goals on the Jacobian body. *)
Ltac zpb H :=
  apply ztyped_pbapp_inv in H as (σ & τ & -> & zHe & zHw & zHv);
  pose proof (ztyped_typed _ _ _ zHe) as He;
  pose proof (ztyped_typed _ _ _ zHw) as Hw;
  pose proof (ztyped_typed _ _ _ zHv) as Hv;
  eapply ztyped_out; [exact zHe|exact zHw|exact zHv| |].

Definition zpreserves (t t' : tm) : Prop :=
  forall Γ A, ztyped Γ t A -> ztyped Γ t' A.

Section dense.
(** The signature's functions keep numerals dense (see the header). *)
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

(** Informal proof: by mutual induction on [step] and [steps], as
    [step_steps_preserve]; in each case the redex is inverted for [ztyped]
    and the reduct rebuilt with the same types.
    - (1), [let]: [ztyped_subst1]; (2): inversion; (3), (4): the numeral
      is dense ([fsem_dense], [fjac_dense]) so it has no [0]
      ([ztyped_num]); (5⁺): [bp_ty]; (6): the body of the composed dual
      map is typed by [typed] ([typed_subst]), its argument is the inner
      one, [ztyped].
    - (7), (8): inversion and [ztyped_subst] (with the projections of
      [sub8]); the A-step in a pullback body: [astep_ztyped].
    - (9): [0] at the dual type [σ*].  The rules that end in
      [(λv.S)* · (ω E[V/y])]: [ztyped_out], with [S] typed and linear as in
      [step_steps_preserve] ([premise_swap], [premise_up] take the
      [preserves] of the premise from [step_steps_preserve]).
    - (17): its reduct's body [λa. (λv.S)* · (z W)] is [ztyped] by the
      induction hypothesis on the premise, which is [ztyped] in
      [a :: y :: Γ]; (17, 0): [λa. 0] at [σ' ⇒ σ'*].
    - Evaluation contexts: inversion and the induction hypothesis; the
      context [(λx.C)* · V] keeps [typed] and linearity by
      [step_steps_preserve]. *)
Lemma step_steps_zpreserve :
  (forall t t', step t t' -> zpreserves t t') /\
  (forall t t', steps t t' -> zpreserves t t').
Proof.
  apply step_steps_mut; unfold zpreserves.
  - (* (1) β *)
    intros s v Hv Γ A H. inv H. match goal with H : ztyped _ (Lam _) _ |- _ => inv H end.
    eapply ztyped_subst1; eauto.
  - (* (2) π1 *)
    intros v1 v2 _ _ Γ A H. inv H. match goal with H : ztyped _ (Pair _ _) _ |- _ => inv H end. auto.
  - (* (2) π2 *)
    intros v1 v2 _ _ Γ A H. inv H. match goal with H : ztyped _ (Pair _ _) _ |- _ => inv H end. auto.
  - (* (3) f(r) *)
    intros f r Hr Γ A H. inv H. apply ztyped_num; [apply fsem_dense; exact Hr|].
    apply fsem_ty. eapply ztyped_num_inv; eassumption.
  - (* (4) (J f · r) r′ *)
    intros f r r' Hr Hr' Γ A H. inv H. match goal with H : ztyped _ (Jac _ _) _ |- _ => inv H end.
    apply ztyped_num; [apply fjac_dense; assumption|].
    apply fjac_ty; eapply ztyped_num_inv; eassumption.
  - (* (5⁺) *)
    intros s c r Hs Hbp Γ A H. inv H. match goal with H : ztyped _ (NDual _) _ |- _ => inv H end.
    constructor. eapply bp_ty; [eassumption|eassumption|constructor|exact Hbp].
  - (* (6) *)
    intros v1 v2 v3 _ _ Γ A H. inv H.
    match goal with H : ztyped _ (Dual v2 v3) _ |- _ => inv H end.
    econstructor; [| eassumption |].
    + eapply typed_subst; [eassumption|]. intros [|n] B; simpl; intros Hn.
      * injection Hn as <-. assumption.
      * constructor. exact Hn.
    + eapply lin_subst; [| |eassumption]; intros [|n] Hn; unfold is0 in *; simpl;
        try discriminate; try congruence; auto.
  - (* let *)
    intros v l Hv Γ A H. inv H. eapply ztyped_subst1; eauto.
  - (* (7) *)
    intros e w _ Γ A H. inv H. match goal with H : ztyped _ (Let _ _) _ |- _ => inv H end.
    match goal with H : ztyped _ (Var 0) _ |- _ => inv H end. simpl in *.
    match goal with H : Some _ = Some _ |- _ => injection H as -> end. eauto.
  - (* (8) *)
    intros e l w _ _ Γ A H. inv H. match goal with H : ztyped _ (Let _ _) _ |- _ => inv H end.
    econstructor; [constructor; [constructor; reflexivity|eassumption]|].
    econstructor; [|eassumption].
    eapply ztyped_subst; [eassumption|]. intros [|[|n]] B; simpl; intros Hn.
    * injection Hn as <-. econstructor. constructor. reflexivity.
    * injection Hn as <-. econstructor. constructor. reflexivity.
    * constructor. exact Hn.
  - (* A-step in the body *)
    intros p p' w Ha _ Γ A H. inv H. econstructor; [|eassumption]. eapply astep_ztyped; eassumption.
  - (* (9) *)
    intros e w v _ _ _ _ Γ A H. apply ztyped_pbapp_inv in H as (σ & τ & -> & _). constructor.
  - (* 10b, 11, 12, 13c, 14, 16a, 19a *)
    intros e w v _ _ _ Hs Γ A H. zpb H; [exact He|]. apply lin_shape_lin. exact Hs.
  - (* (10a) *)
    intros a q w v _ _ _ Ha Γ A H. zpb H; [inv He; eassumption|apply lin_yp].
  - (* (10a) mirrored *)
    intros p a w v _ _ _ Ha Γ A H. zpb H; [inv He; eassumption|apply lin_yp].
  - (* (13a) *)
    intros p a w v _ _ _ Ha Γ A H. zpb H; [inv He; eauto|simpl; auto using lin_yp].
  - (* (13b) *)
    intros a q w v _ _ _ Ha Γ A H. zpb H; [inv He; eauto|simpl; auto using lin_yp].
  - (* (15) *)
    intros f p w v _ _ Γ A H. zpb H.
    + inv He. econstructor; [constructor; eassumption|].
      apply typed_shift. eapply typed_ppath; [eassumption|]. eapply yp_typed. eassumption.
    + simpl. split; [apply lin_yp|apply nocc_shift_is0].
  - (* (16b) *)
    intros l a s' u w v _ _ _ _ _ Ha Hs' _ Hst _ Γ A H.
    pose proof (proj2 step_steps_preserve _ _ Hst) as IH. zpb H;
      inv He; destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
    + econstructor; [exact Ht|eassumption|exact Hs'].
    + simpl. left. auto.
  - (* (16c) *)
    intros l p s' u w v _ _ _ _ Hs' _ Hst _ Γ A H.
    pose proof (proj2 step_steps_preserve _ _ Hst) as IH. zpb H;
      inv He; destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
    + constructor.
      * econstructor; [| |].
        -- unfold lsub. apply (typed_ren (σ0 :: Γ)); [apply (typed_subst (σ0 :: σ :: Γ)); [eassumption|]|].
           ++ intros [|[|n]] B; simpl; intros Hn.
              ** injection Hn as <-. constructor. reflexivity.
              ** injection Hn as <-. apply typed_shift. exact Hv.
              ** apply typed_shift. constructor. exact Hn.
           ++ intros [|n] B; simpl; auto.
        -- eassumption.
        -- unfold lsub. apply (lin_ren is0); [setx|].
           apply (lin_subst is0); [| |eassumption].
           ++ intros [|n] Hn; unfold is0 in *; simpl; try discriminate; reflexivity.
           ++ intros [|n] Hn; unfold is0 in *; simpl; [congruence|].
              apply nocc_shift_is0.
      * econstructor; [eassumption| |eassumption].
        apply typed_shift. eapply typed_ppath; [eassumption|]. eapply yp_typed. eassumption.
    + simpl. split.
      * right. split; [apply lin_yp|].
        unfold lsub. eapply nocc_ren with (X := fun _ => False); [setx|apply nocc_empty; auto].
      * left. split; auto. apply nocc_shift_is0.
  - (* (17): the premise's result is put back outside any dual map *)
    intros l z s0 u w v _ _ _ _ _ _ _ IH Γ A H.
    apply ztyped_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
    inv He. econstructor; [|eassumption]. econstructor; [|eassumption].
    constructor. apply IH. econstructor.
    + econstructor; [|apply ztyped_shift; eassumption].
      eapply ztyped_ren; [eassumption|]. intros [|n] B; simpl; auto.
    + constructor. reflexivity.
  - (* (17), its premise ending in 0 *)
    intros l z w v _ _ _ _ _ _ _ Γ A H.
    apply ztyped_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
    inv He. econstructor; [|eassumption]. econstructor; [|eassumption].
    repeat constructor.
  - (* (18) *)
    intros l s' u w v _ _ _ _ _ Hst _ Γ A H.
    pose proof (proj2 step_steps_preserve _ _ Hst) as IH. zpb H;
      inv He; destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
    + constructor. exact Ht.
    + exact Hl.
  - (* (18), its premise ending in a dual map along 0 *)
    intros l s0 w v _ _ _ _ _ _ _ Γ A H. zpb H; inv He.
    + repeat constructor.
    + exact I.
  - (* (19b) *)
    intros p q p' vq s0 u w v _ _ Hp Hq _ Hst _ Γ A H.
    pose proof (proj2 step_steps_preserve _ _ Hst) as IH. zpb H;
      inv He;
      match goal with H1 : typed _ (yp p) _, H2 : typed _ (yp q) _ |- _ =>
        pose proof (yp_typed _ _ _ _ H1) as Hpt; pose proof (yp_typed _ _ _ _ H2) as Hqt end;
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hpt Hp) as Hlam; inv Hlam;
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq;
      destruct (premise_up _ _ _ _ _ _ _ ltac:(eassumption) Hvq IH) as [Ht Hl].
    + constructor.
      * econstructor; [eassumption|]. apply typed_shift. exact Hvq.
      * eapply typed_subst; [exact Ht|]. intros [|n] B; simpl; intros Hn.
        -- injection Hn as <-. assumption.
        -- constructor. exact Hn.
    + simpl. split; [split; [apply lin_yp|apply nocc_shift_is0]|].
      eapply lin_subst; [| |exact Hl]; intros [|n] Hn; unfold is0 in *; simpl;
        try discriminate; [apply lin_yp|congruence].
  - (* (19c) *)
    intros p q p' vq w v _ _ Hp Hq _ _ Γ A H. zpb H;
      inv He;
      match goal with H2 : typed _ (yp q) _ |- _ => pose proof (yp_typed _ _ _ _ H2) as Hqt end;
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq.
    + econstructor; [eassumption|]. apply typed_shift. exact Hvq.
    + simpl. split; [apply lin_yp|apply nocc_shift_is0].
  - (* (19b), its premise ending in a dual map along 0 *)
    intros p q p' vq s0 w v _ _ Hp Hq _ _ _ Γ A H. zpb H;
      inv He;
      match goal with H2 : typed _ (yp q) _ |- _ => pose proof (yp_typed _ _ _ _ H2) as Hqt end;
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq.
    + econstructor; [eassumption|]. apply typed_shift. exact Hvq.
    + simpl. split; [apply lin_yp|apply nocc_shift_is0].
  - (* (20a) *)
    intros e s0 u w v _ _ _ _ Hst _ Γ A H.
    pose proof (proj1 step_steps_preserve _ _ Hst) as IH. zpb H;
      inv He; destruct (premise_up _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
    + constructor; [eassumption|exact Ht].
    + simpl. split; [reflexivity|exact Hl].
  - (* (20b) *)
    intros e w v _ _ _ _ Γ A H. zpb H; inv He.
    + constructor; [eassumption|constructor].
    + simpl. split; [reflexivity|exact I].
  - (* evaluation contexts; [(λx.C)* · V] by [step_steps_preserve] *)
    intros F t t' _ Hst IH Γ A H.
    pose proof (proj1 step_steps_preserve _ _ Hst) as (Ht & Hn & Hl).
    destruct F; simpl in *; inv H; eauto.
  - (* steps: refl *)
    auto.
  - (* steps: cons *)
    intros t t' t'' _ IH1 _ IH2 Γ A H. auto.
Qed.

(** ** Subject reduction for the typed premise *)
Theorem ztyped_preservation t t' A : ztyped [] t A -> step t t' -> ztyped [] t' A.
Proof. intros H Hs. exact (proj1 step_steps_zpreserve _ _ Hs [] A H). Qed.

Theorem ztyped_steps t t' A : ztyped [] t A -> steps t t' -> ztyped [] t' A.
Proof. intros H Hs. exact (proj2 step_steps_zpreserve _ _ Hs [] A H). Qed.

End dense.
End ztyped_pres.

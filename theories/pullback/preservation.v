(** * Subject reduction for the pullback reductions (spec §5-§6)

    The paper obtains subject reduction from its semantics (Corollary 4.7);
    here it is proved syntactically.  Because the (dual) typing rule asks
    the bound variable of a dual map to be linear, and evaluation goes under
    that binder ([(λx.C)* · V]), the theorem carries two companions: a step
    keeps the free variables ([nocc]) and the linear variables ([lin]). *)
From Pullback Require Import syntax typing anf backprop reduction.

(** Scripts shared with ztyped_pres.v, for [typed] and [ztyped]:
    - [pbapp_inv_by]: the inversion of [((Ω λy.E) · ω) V]
      ([typed_pbapp_inv], [ztyped_pbapp_inv]);
    - [out_typed_by T_subst1]: the typing of its reduct
      [(λv.S)* · (ω E[V/y])] ([typed_out], [ztyped_out]). *)
Ltac pbapp_inv_by :=
  let H := fresh "H" in
  intros H; inversion H; subst; clear H;
  match goal with H : _ _ (Pb _ _) _ |- _ => inversion H; subst; clear H end;
  eauto 10.

Ltac out_typed_by T_subst1 :=
  let He := fresh "He" in let Hw := fresh "Hw" in let Hv := fresh "Hv" in
  let Hs := fresh "Hs" in let Hl := fresh "Hl" in
  intros He Hw Hv Hs Hl; econstructor; [exact Hs| |exact Hl];
  econstructor; [exact Hw|]; eapply T_subst1; eauto.

Section preservation.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B σ τ : ty) (X : nat -> Prop).

Ltac inv H := inversion H; subst; clear H.
Ltac setx := intros [|[|[|?]]]; simpl; unfold is0; try split; intros; try congruence; firstorder.
(** [premise_typed Ht Hp]: from the typing [Hp] of the premise of a
    pullback rule and its preservation [Ht], the typing of its result
    [Dual s (App (Var k) u)], cut down to the two goals on [s]. *)
Ltac premise_typed Ht Hp :=
  apply Ht in Hp; inv Hp;
  match goal with H : typed _ (App (Var _) _) _ |- _ => inv H end;
  match goal with H : typed _ (Var _) _ |- _ => inv H end;
  simpl in *; unfold TOmega in *;
  match goal with H : Some _ = Some _ |- _ => injection H as -> -> end;
  split.

(** ** Auxiliary facts *)
Lemma nocc_ppath X p t : nocc X (ppath p t) <-> nocc X t.
Proof. revert t. induction p; simpl; intros t; [tauto|]. rewrite IHp. simpl. tauto. Qed.

Lemma lin_ppath X p t : lin X (ppath p t) <-> lin X t.
Proof. revert t. induction p; simpl; intros t; [tauto|]. rewrite IHp. simpl. tauto. Qed.

Lemma nocc_num X r : nocc X (num_tm r).
Proof. induction r; simpl; auto. Qed.

Lemma lin_num_dense X r : dense r -> ~ lin X (num_tm r).
Proof. induction r; simpl; tauto. Qed.

Lemma proj_val_typed Γ p v u σ A :
  typed Γ v σ -> path_ty σ p = Some A -> proj_val p v = Some u -> typed Γ u A.
Proof.
  revert v σ. induction p as [|i p IH]; intros v σ Hv Hp Hu; simpl in *.
  - injection Hp as <-. injection Hu as <-. exact Hv.
  - destruct σ; try discriminate. destruct v; try discriminate.
    inv Hv. destruct i; eauto.
Qed.

Lemma proj_val_nocc X p v u : nocc X v -> proj_val p v = Some u -> nocc X u.
Proof.
  revert v. induction p as [|i p IH]; intros v Hv Hu; simpl in *.
  - injection Hu as <-. exact Hv.
  - destruct v; try discriminate. simpl in Hv. destruct i; eapply IH; eauto; tauto.
Qed.

Lemma yp_typed Γ σ p A : typed (σ :: Γ) (yp p) A -> path_ty σ p = Some A.
Proof.
  intros H. apply typed_ppath_inv in H as (σ0 & Hv & Hp). inv Hv. simpl in *.
  congruence.
Qed.

Lemma lin_yp p : lin is0 (yp p).
Proof. unfold yp. apply lin_ppath. simpl. reflexivity. Qed.

Lemma nocc_yp X p : ~ X 0 -> nocc X (yp p).
Proof. intros H. unfold yp. apply nocc_ppath. exact H. Qed.

Lemma nocc_shift X t : nocc X t -> nocc (lift X) (shift t).
Proof. intros H. eapply nocc_ren; [|exact H]. intros n Hn. exact Hn. Qed.

Lemma nocc_shift_is0 t : nocc is0 (shift t).
Proof.
  eapply nocc_ren with (X := fun _ => False); [|apply nocc_empty; auto].
  unfold is0. intros n Hn. discriminate.
Qed.

Lemma lin_shape_lin e : lin_shape e -> lin is0 e.
Proof.
  destruct 1; simpl; repeat split; auto using lin_yp, nocc_yp.
Qed.

(** The three invariants a step keeps. *)
Definition preserves (t t' : tm) : Prop :=
  (forall Γ A, typed Γ t A -> typed Γ t' A) /\
  (forall X, nocc X t -> nocc X t') /\
  (forall Γ A X, typed Γ t A -> lin X t -> lin X t').

(** Typing of [((Ω λy.E) · ω) V] and of its reducts [(λv.S)* · (ω E[V/y])]. *)
Lemma typed_pbapp_inv Γ e w v A :
  typed Γ (App (Pb e w) v) A ->
  exists σ τ, A = TDual σ /\ typed (σ :: Γ) e τ /\ typed Γ w (TOmega τ) /\ typed Γ v σ.
Proof. pbapp_inv_by. Qed.

Lemma typed_out Γ σ τ e w v s :
  typed (σ :: Γ) e τ -> typed Γ w (TOmega τ) -> typed Γ v σ ->
  typed (σ :: Γ) s τ -> lin is0 s -> typed Γ (Dual s (out w v e)) (TDual σ).
Proof. out_typed_by typed_subst1. Qed.

Lemma nocc_subst1 X v e : nocc X v -> nocc (lift X) e -> nocc X (subst1 v e).
Proof.
  intros Hv He. eapply nocc_subst; [|exact He]. intros [|n] Hn; simpl; auto.
Qed.

Lemma nocc_out X e w v s :
  nocc X (App (Pb e w) v) -> nocc (lift X) s -> nocc X (Dual s (out w v e)).
Proof.
  simpl. intros [[He Hw] Hv] Hs. repeat split; auto. apply nocc_subst1; auto.
Qed.

(** The premise of 16b, 16c and 18 gives the Jacobian body [S]. *)
Lemma premise_swap Γ l τl σx σ v s' u :
  typed (σx :: σ :: Γ) l τl -> typed Γ v σ ->
  preserves (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))
            (Dual (ren swap s') (App (Var 1) u)) ->
  typed (σx :: σ :: Γ) s' τl /\ lin (lift is0) s'.
Proof.
  intros Hl Hv [Ht _].
  assert (Hp : typed (σx :: TOmega τl :: Γ)
                 (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v)) (TDual σ)).
  { econstructor.
    - econstructor.
      + eapply typed_ren; [exact Hl|]. intros [|[|n]] B; simpl; auto.
      + constructor. reflexivity.
    - eapply typed_ren; [exact Hv|]. intros n B; simpl; auto. }
  premise_typed Ht Hp.
  - eapply typed_ren_inv; [eassumption|]. intros [|[|n]] B; simpl; auto.
  - eapply lin_ren_inv; [|eassumption]. setx.
Qed.

Lemma premise_swap_nocc X l v s' u :
  nocc (lift (lift X)) l -> nocc X v ->
  preserves (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))
            (Dual (ren swap s') (App (Var 1) u)) ->
  nocc (lift (lift X)) s'.
Proof.
  intros Hl Hv [_ [Hn _]].
  assert (Hp : nocc (lift (lift X)) (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))).
  { simpl. repeat split; auto.
    - eapply nocc_ren; [|exact Hl]. setx.
    - eapply nocc_ren; [|exact Hv]. setx. }
  apply Hn in Hp. simpl in Hp. destruct Hp as [Hs _].
  eapply nocc_ren_inv; [|exact Hs]. setx.
Qed.

(** The premise of 19b, 19c and 20a. *)
Lemma premise_up Γ p τ σ vq s0 u :
  typed (σ :: Γ) p τ -> typed Γ vq σ ->
  preserves (App (Pb (ren (up_ren S) p) (Var 0)) (shift vq))
            (Dual (ren (up_ren S) s0) (App (Var 0) u)) ->
  typed (σ :: Γ) s0 τ /\ lin is0 s0.
Proof.
  intros Hl Hv [Ht _].
  assert (Hp : typed (TOmega τ :: Γ) (App (Pb (ren (up_ren S) p) (Var 0)) (shift vq)) (TDual σ)).
  { econstructor.
    - econstructor.
      + eapply typed_ren; [exact Hl|]. intros [|n] B; simpl; auto.
      + constructor. reflexivity.
    - apply typed_shift. exact Hv. }
  premise_typed Ht Hp.
  - eapply typed_ren_inv; [eassumption|]. intros [|n] B; simpl; auto.
  - eapply lin_ren_inv; [|eassumption]. setx.
Qed.

Lemma premise_up_nocc X p vq s0 u :
  nocc (lift X) p -> nocc X vq ->
  preserves (App (Pb (ren (up_ren S) p) (Var 0)) (shift vq))
            (Dual (ren (up_ren S) s0) (App (Var 0) u)) ->
  nocc (lift X) s0.
Proof.
  intros Hl Hv [_ [Hn _]].
  assert (Hp : nocc (lift X) (App (Pb (ren (up_ren S) p) (Var 0)) (shift vq))).
  { simpl. repeat split; auto.
    - eapply nocc_ren; [|exact Hl]. setx.
    - apply nocc_shift. exact Hv. }
  apply Hn in Hp. simpl in Hp. destruct Hp as [Hs _].
  eapply nocc_ren_inv; [|exact Hs]. setx.
Qed.

Lemma efill_preserves F t t' :
  preserves t t' -> preserves (efill F t) (efill F t').
Proof.
  intros (Ht & Hn & Hl). split; [|split].
  - intros Γ A H. destruct F; simpl in *; inv H; eauto.
  - intros X H. destruct F; simpl in *; intuition.
  - intros Γ A X H0 H. destruct F; simpl in *; inv H0; intuition eauto.
Qed.

Lemma astep_nocc X p p' : astep p p' -> nocc X p -> nocc X p'.
Proof. intros [C r HC Hr]. apply afill_nocc. intros Y. apply ared_nocc. exact Hr. Qed.

Lemma preserves_pbapp e w v t' :
  (forall Γ A, typed Γ (App (Pb e w) v) A -> typed Γ t' A) ->
  (forall X, nocc X (App (Pb e w) v) -> nocc X t') ->
  preserves (App (Pb e w) v) t'.
Proof. intros H1 H2. split; [|split]; auto. intros Γ A X _ [[] _]. Qed.

(** Informal proof: by mutual induction on the derivations of [step] and
    [steps]; [steps] is a composition of steps.  For each head rule:
    - (1) and [let]: the substitution lemmas for typing, [nocc] and [lin];
      (2)-(4): inversion; (3) and (4) use the typing hypotheses of the
      signature ([fsem_ty], [fjac_ty]); a dense numeric point is not linear
      in anything, so their linearity case is void.
    - (5⁺): [bp_ty]; a body on which [bp] succeeds and that is linear in
      variables other than [v] does not mention [v] ([bp_lin_nocc]),
      which the rule excludes, so the linearity case is void.
    - (6): the substitution of the linear [V1] for the linear variable of
      [V2] is linear ([lin_subst], with [lin_union] when the outer map is
      the linear part).
    - (7), (8), the A-step in a pullback body, and 9-20: the redex is a
      pullback or a pullback applied to a point, which is linear in no
      variable; its reduct [(λv.S)* · (ω E[V/y])] is typed at [σ*] by
      [typed_out] once [S] is typed at the type [τ] of [E] in [v:σ] and is
      linear in [v]: for the rules without premise [S] is read off [E]; for
      16b, 16c, 18, 19b and 20a, the induction hypothesis on the premise
      types its result, and inverting the renaming under which [S] appears
      there ([typed_ren_inv], [lin_ren_inv]) types [S] itself
      ([premise_swap], [premise_up]); (16b) and (16c) also need [x] linear
      in [S], a side condition of the rules.
    - Evaluation contexts: [efill_preserves]; the context [(λx.C)* · V]
      needs the linearity part of the induction hypothesis. *)
Lemma step_steps_preserve :
  (forall t t', step t t' -> preserves t t') /\
  (forall t t', steps t t' -> preserves t t').
Proof.
  apply step_steps_mut.
  - (* (1) β *)
    intros s v Hv. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Lam _) _ |- _ => inv H end.
      eapply typed_subst1; eauto.
    + intros X [Hs Hv']. apply nocc_subst1; auto.
    + intros Γ A X _ [Hs Hv']. simpl in Hs. eapply lin_subst; [| |exact Hs];
        intros [|n] Hn; simpl in *; auto; contradiction.
  - (* (2) π1 *)
    intros v1 v2 _ _. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Pair _ _) _ |- _ => inv H end. auto.
    + intros X [H1 H2]. exact H1.
    + intros Γ A X _ [H1 H2]. exact H1.
  - (* (2) π2 *)
    intros v1 v2 _ _. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Pair _ _) _ |- _ => inv H end. auto.
    + intros X [H1 H2]. exact H2.
    + intros Γ A X _ [H1 H2]. exact H2.
  - (* (3) f(r) *)
    intros f r Hr. split; [|split].
    + intros Γ A H. inv H. apply typed_num. apply fsem_ty. eapply typed_num_inv; eassumption.
    + intros X _. apply nocc_num.
    + intros Γ A X _ [].
  - (* (4) (J f · r) r′ *)
    intros f r r' Hr Hr'. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Jac _ _) _ |- _ => inv H end.
      apply typed_num. apply fjac_ty; eapply typed_num_inv; eassumption.
    + intros X _. apply nocc_num.
    + intros Γ A X _ [H _]. simpl in H. exfalso. exact (lin_num_dense X r Hr H).
  - (* (5⁺) *)
    intros s c r Hs Hbp. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (NDual _) _ |- _ => inv H end.
      constructor. eapply bp_ty; [eassumption|eassumption|constructor|exact Hbp].
    + intros X _. exact I.
    + intros Γ A X _ [[Hl _]|[[] _]]. exfalso. apply Hs. eapply bp_lin_nocc; eassumption.
  - (* (6) *)
    intros v1 v2 v3 _ _. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Dual v2 v3) _ |- _ => inv H end.
      econstructor; [| eassumption |].
      * eapply typed_subst; [eassumption|]. intros [|n] B; simpl; intros Hn.
        -- injection Hn as <-. assumption.
        -- constructor. exact Hn.
      * eapply lin_subst; [| |eassumption]; intros [|n] Hn; unfold is0 in *; simpl;
          try discriminate; try congruence; auto.
    + intros X [H1 [H2 H3]]. simpl. split; auto.
      eapply nocc_subst; [|exact H2]. intros [|n] Hn; simpl; auto.
    + intros Γ A X Ht H. inv Ht.
      match goal with H : typed _ (Dual v2 v3) _ |- _ => inv H end.
      destruct H as [[La [Lb Lc]]|[[[Lb Lc]|[Lb Lc]] La]]; simpl.
      * left. split; auto.
        eapply lin_subst with (X := fun n => is0 n \/ lift X n); [| |apply lin_union; assumption].
        -- intros [|n] [Hn|Hn]; unfold is0 in *; simpl in *; try discriminate; auto.
        -- intros [|n] Hn; simpl in *; [exfalso; apply Hn; left; reflexivity|].
           intros Hx. apply Hn. right. exact Hx.
      * left. split; auto. eapply lin_subst; [| |exact Lb]; intros [|n] Hn; simpl in *; auto;
          contradiction.
      * right. split; auto. eapply nocc_subst; [|exact Lc]. intros [|n] Hn; simpl; auto.
  - (* let *)
    intros v l Hv. split; [|split].
    + intros Γ A H. inv H. eapply typed_subst1; eauto.
    + intros X [Hv' Hl]. apply nocc_subst1; auto.
    + intros Γ A X _ [[Hv' Hl]|[Hv' Hl]].
      * eapply lin_subst; [| |exact Hl]; intros [|n] Hn; simpl in *; auto; contradiction.
      * eapply lin_subst; [| |exact Hl]; intros [|n] Hn; simpl in *; auto; contradiction.
  - (* (7) *)
    intros e w _. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Let _ _) _ |- _ => inv H end.
      match goal with H : typed _ (Var 0) _ |- _ => inv H end. simpl in *.
      match goal with H : Some _ = Some _ |- _ => injection H as -> end. eauto.
    + intros X [[He _] Hw]. simpl. auto.
    + intros Γ A X _ [].
  - (* (8) *)
    intros e l w _ _. split; [|split].
    + intros Γ A H. inv H. match goal with H : typed _ (Let _ _) _ |- _ => inv H end.
      econstructor; [constructor; [constructor; reflexivity|eassumption]|].
      econstructor; [|eassumption].
      eapply typed_subst; [eassumption|]. intros [|[|n]] B; simpl; intros Hn.
      * injection Hn as <-. econstructor. constructor. reflexivity.
      * injection Hn as <-. econstructor. constructor. reflexivity.
      * constructor. exact Hn.
    + intros X [[He Hl] Hw]. simpl. repeat split; auto.
      eapply nocc_subst; [|exact Hl]. intros [|[|n]] Hn; simpl in *; auto.
    + intros Γ A X _ [].
  - (* A-step in the body *)
    intros p p' w Ha _. split; [|split].
    + intros Γ A H. inv H. econstructor; [|eassumption]. eapply astep_typed; eassumption.
    + intros X [Hp Hw]. split; auto. eapply astep_nocc; eassumption.
    + intros Γ A X _ [].
  - (* (9) *)
    intros e w v _ _ _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & _). constructor.
    + intros X _. exact I.
  - (* 10b, 11, 12, 13c, 14, 16a, 19a *)
    intros e w v _ _ _ Hs. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto. apply lin_shape_lin. exact Hs.
    + intros X H. apply nocc_out; auto. simpl in H. tauto.
  - (* (10a) *)
    intros a q w v _ _ _ Ha. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto; [inv He; eassumption|apply lin_yp].
    + intros X H. apply nocc_out; auto. simpl in H. tauto.
  - (* (10a) mirrored *)
    intros p a w v _ _ _ Ha. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto; [inv He; eassumption|apply lin_yp].
    + intros X H. apply nocc_out; auto. simpl in H. tauto.
  - (* (13a) *)
    intros p a w v _ _ _ Ha. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto; [inv He; eauto|simpl; auto using lin_yp].
    + intros X H. apply nocc_out; auto. simpl in H |- *. tauto.
  - (* (13b) *)
    intros a q w v _ _ _ Ha. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto; [inv He; eauto|simpl; auto using lin_yp].
    + intros X H. apply nocc_out; auto. simpl in H |- *. tauto.
  - (* (15) *)
    intros f p w v _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      eapply typed_out; eauto.
      * inv He. econstructor; [constructor; eassumption|].
        apply typed_shift. eapply typed_ppath; [eassumption|]. eapply yp_typed. eassumption.
      * simpl. split; [apply lin_yp|apply nocc_shift_is0].
    + intros X H. apply nocc_out; auto. simpl in H |- *. split; [tauto|].
      apply nocc_shift. apply nocc_ppath. tauto.
  - (* (16b) *)
    intros l a s' u w v _ _ _ _ _ Ha Hs' _ _ IH. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
      eapply typed_out; [econstructor; eassumption|eassumption|eassumption| |].
      * econstructor; [exact Ht|eassumption|exact Hs'].
      * simpl. left. auto.
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[Hl Ha'] Hw] Hv].
      split; auto. eapply premise_swap_nocc; eauto.
  - (* (16c) *)
    intros l p s' u w v _ _ _ _ Hs' _ _ IH. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
      eapply typed_out; [econstructor; eassumption|eassumption|eassumption| |].
      * constructor.
        -- econstructor; [| |].
           ++ unfold lsub. apply (typed_ren (σ0 :: Γ)); [apply (typed_subst (σ0 :: σ :: Γ)); [eassumption|]|].
              ** intros [|[|n]] B; simpl; intros Hn.
                 --- injection Hn as <-. constructor. reflexivity.
                 --- injection Hn as <-. apply typed_shift. exact Hv.
                 --- apply typed_shift. constructor. exact Hn.
              ** intros [|n] B; simpl; auto.
           ++ eassumption.
           ++ unfold lsub. apply (lin_ren is0); [setx|].
              apply (lin_subst is0); [| |eassumption].
              ** intros [|n] Hn; unfold is0 in *; simpl; try discriminate; reflexivity.
              ** intros [|n] Hn; unfold is0 in *; simpl; [congruence|].
                 apply nocc_shift_is0.
        -- econstructor; [eassumption| |eassumption].
           apply typed_shift. eapply typed_ppath; [eassumption|]. eapply yp_typed. eassumption.
      * simpl. split.
        -- right. split; [apply lin_yp|].
           unfold lsub. eapply nocc_ren with (X := fun _ => False); [setx|apply nocc_empty; auto].
        -- left. split; auto. apply nocc_shift_is0.
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[Hl Hp] Hw] Hv].
      repeat split; auto.
      * unfold lsub. apply (nocc_ren (lift X)); [setx|].
        apply (nocc_subst (lift (lift X))); [|exact Hl].
        intros [|[|n]] Hn; simpl in *; auto. apply nocc_shift. exact Hv.
      * eapply premise_swap_nocc; eauto.
      * apply nocc_shift. apply nocc_ppath. exact Hv.
  - (* (17) *)
    intros l z s0 u w v _ _ _ _ _ _ _ [IHt [IHn _]]. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. econstructor; [|eassumption]. econstructor; [|eassumption].
      constructor. apply IHt. econstructor.
      * econstructor; [|apply typed_shift; eassumption].
        eapply typed_ren; [eassumption|]. intros [|n] B; simpl; auto.
      * constructor. reflexivity.
    + intros X H. simpl in H. destruct H as [[[Hl Hz] Hw] Hv].
      assert (Hp : nocc (lift (lift X))
                     (App (Pb (ren (up_ren S) l) (shift z)) (Var 0))).
      { simpl. repeat split; auto.
        - apply (nocc_ren (lift (lift X))); [setx|exact Hl].
        - apply (nocc_ren (lift X)); [setx|exact Hz]. }
      apply IHn in Hp. simpl in Hp |- *. tauto.
  - (* (17), its premise ending in 0 *)
    intros l z w v _ _ _ _ _ _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. econstructor; [|eassumption]. econstructor; [|eassumption].
      repeat constructor.
    + intros X H. simpl in H |- *. tauto.
  - (* (18) *)
    intros l s' u w v _ _ _ _ _ _ IH. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. destruct (premise_swap _ _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
      eapply typed_out; [constructor; eassumption|eassumption|eassumption| |].
      * constructor. exact Ht.
      * exact Hl.
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[Hl Hw] Hv].
      eapply premise_swap_nocc; eauto.
  - (* (18), its premise ending in a dual map along 0 *)
    intros l s0 w v _ _ _ _ _ _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. eapply typed_out; [constructor; eassumption|eassumption|eassumption| |].
      * repeat constructor.
      * exact I.
    + intros X H. apply nocc_out; auto. exact I.
  - (* (19b) *)
    intros p q p' vq s0 u w v _ _ Hp Hq _ _ IH. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He.
      match goal with H1 : typed _ (yp p) _, H2 : typed _ (yp q) _ |- _ =>
        pose proof (yp_typed _ _ _ _ H1) as Hpt; pose proof (yp_typed _ _ _ _ H2) as Hqt end.
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hpt Hp) as Hlam. inv Hlam.
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq.
      destruct (premise_up _ _ _ _ _ _ _ ltac:(eassumption) Hvq IH) as [Ht Hl].
      eapply typed_out; eauto.
      * constructor.
        -- econstructor; [eassumption|]. apply typed_shift. exact Hvq.
        -- eapply typed_subst; [exact Ht|]. intros [|n] B; simpl; intros Hn.
           ++ injection Hn as <-. assumption.
           ++ constructor. exact Hn.
      * simpl. split; [split; [apply lin_yp|apply nocc_shift_is0]|].
        eapply lin_subst; [| |exact Hl]; intros [|n] Hn; unfold is0 in *; simpl;
          try discriminate; [apply lin_yp|congruence].
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[Hp' Hq'] Hw] Hv].
      pose proof (proj_val_nocc _ _ _ _ Hv Hp) as Hlam. simpl in Hlam.
      pose proof (proj_val_nocc _ _ _ _ Hv Hq) as Hvq.
      repeat split; auto.
      * apply nocc_shift. exact Hvq.
      * eapply nocc_subst; [|eapply premise_up_nocc; eauto].
        intros [|n] Hn; simpl in *; auto.
  - (* (19c) *)
    intros p q p' vq w v _ _ Hp Hq _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He.
      match goal with H2 : typed _ (yp q) _ |- _ => pose proof (yp_typed _ _ _ _ H2) as Hqt end.
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq.
      eapply typed_out; eauto.
      * econstructor; [eassumption|]. apply typed_shift. exact Hvq.
      * simpl. split; [apply lin_yp|apply nocc_shift_is0].
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[Hp' Hq'] Hw] Hv].
      split; auto. apply nocc_shift. eapply proj_val_nocc; eauto.
  - (* (19b), its premise ending in a dual map along 0: the conclusion of 19c *)
    intros p q p' vq s0 w v _ _ Hp Hq _ _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He.
      match goal with H2 : typed _ (yp q) _ |- _ => pose proof (yp_typed _ _ _ _ H2) as Hqt end.
      pose proof (proj_val_typed _ _ _ _ _ _ Hv Hqt Hq) as Hvq.
      eapply typed_out; eauto.
      * econstructor; [eassumption|]. apply typed_shift. exact Hvq.
      * simpl. split; [apply lin_yp|apply nocc_shift_is0].
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[Hp' Hq'] Hw] Hv].
      split; auto. apply nocc_shift. eapply proj_val_nocc; eauto.
  - (* (20a) *)
    intros e s0 u w v _ _ _ _ _ IH. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. destruct (premise_up _ _ _ _ _ _ _ ltac:(eassumption) Hv IH) as [Ht Hl].
      eapply typed_out; [econstructor; eassumption|eassumption|eassumption| |].
      * constructor; [eassumption|exact Ht].
      * simpl. split; [reflexivity|exact Hl].
    + intros X H. apply nocc_out; auto. simpl in H |- *. destruct H as [[[H0 He] Hw] Hv].
      split; auto. eapply premise_up_nocc; eauto.
  - (* (20b) *)
    intros e w v _ _ _ _. apply preserves_pbapp.
    + intros Γ A H. apply typed_pbapp_inv in H as (σ & τ & -> & He & Hw & Hv).
      inv He. eapply typed_out; [econstructor; eassumption|eassumption|eassumption| |].
      * constructor; [eassumption|constructor].
      * simpl. split; [reflexivity|exact I].
    + intros X H. apply nocc_out; auto. simpl in H |- *. tauto.
  - (* evaluation contexts *)
    intros F t t' _ _ IH. apply efill_preserves. exact IH.
  - (* steps: refl *)
    intros t. split; [|split]; auto.
  - (* steps: cons *)
    intros t t' t'' _ [H1 [H2 H3]] _ [H1' [H2' H3']]. split; [|split]; eauto.
Qed.

(** ** Subject reduction (Corollary 4.7, proved syntactically) *)
Lemma step_typed Γ t t' A : step t t' -> typed Γ t A -> typed Γ t' A.
Proof. intros H. apply (proj1 step_steps_preserve _ _ H). Qed.

Lemma steps_typed Γ t t' A : steps t t' -> typed Γ t A -> typed Γ t' A.
Proof. intros H. apply (proj2 step_steps_preserve _ _ H). Qed.

End preservation.

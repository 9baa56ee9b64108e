(** * Structural lemmas for typing: renaming, weakening, substitution,
    derived zero and sum, handler clauses, type inference.

    The chain is the usual one: [typed_tm_ren] → [typed_tm_subst] (through
    [up]) and likewise for commands.  Command substitution never enters a
    [rev handle] body or a handler, so those premises are reused as they are. *)
From RevHandlers Require Import prelude signature syntax subst typing tactics.

Section typing_lemmas.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Γ Δ : ctx) (M N L V W : tm) (A B C D : ty) (P Q R : cmd).

(** Renaming and substitution are proved by one script each for terms
    and for commands: [typed_tm_map ok_up] is the induction on the typing
    derivation of a term, where the map is lifted under the binders of
    [let] and [rd] by [ok_up] ([ren_ok_up], [subst_ok_up]);
    [typed_cmd_map tm_map ok_up] the same for commands, with [tm_map] for
    the terms ([typed_tm_ren], [typed_tm_subst]). *)
Ltac typed_tm_map ok_up :=
  let HM := fresh "HM" in
  intros HM; elim HM using typed_tm_ind'; clear HM; intros; simpl;
  lazymatch goal with
  | Ht : Forall2 (typed_tm _) ?Ms ?As, IH : Forall2 _ ?Ms ?As |- _ =>
      clear Ht; constructor; induction IH; simpl; constructor; auto
  | _ => first [solve [auto] | econstructor; eauto using ok_up]
  end.

Ltac typed_cmd_map tm_map ok_up :=
  induction 1; intros; simpl; econstructor; eauto using ok_up; eapply tm_map; eauto.

(** ** Renaming *)

(** A renaming [ξ] maps [Γ] into [Γ'] when it preserves the type of every
    variable. *)
Definition ren_ok (ξ : nat -> nat) Γ Γ' : Prop :=
  forall x A, nth_error Γ x = Some A -> nth_error Γ' (ξ x) = Some A.

Lemma ren_ok_up ξ Γ Γ' A : ren_ok ξ Γ Γ' -> ren_ok (up_ren ξ) (A :: Γ) (A :: Γ').
Proof. intros Hξ [|x] B Hx; simpl in *; auto. Qed.

Lemma ren_ok_shift Γ A : ren_ok S Γ (A :: Γ).
Proof. intros x B Hx. exact Hx. Qed.

(** Renaming.  Informal proof: by induction on the typing derivation; a
    variable keeps its type by [ren_ok]; under the binder of [let] and [rd]
    the renaming is lifted ([ren_ok_up]). *)
Lemma typed_tm_ren Γ M A :
  typed_tm Γ M A -> forall ξ Γ', ren_ok ξ Γ Γ' -> typed_tm Γ' (ren_tm ξ M) A.
Proof. typed_tm_map ren_ok_up. Qed.

Lemma typed_tm_shift Γ M A B : typed_tm Γ M A -> typed_tm (B :: Γ) (shift M) A.
Proof. intros HM. eapply typed_tm_ren; eauto using ren_ok_shift. Qed.

(** Weakening by a block of variables at the front. *)
Lemma typed_tm_weaken_app Γ M A Γ0 :
  typed_tm Γ M A -> typed_tm (Γ0 ++ Γ) (ren_tm (fun x => length Γ0 + x) M) A.
Proof.
  intros HM. eapply typed_tm_ren; [exact HM|].
  intros x B Hx. rewrite nth_error_app_ge by lia.
  replace (length Γ0 + x - length Γ0) with x by lia. exact Hx.
Qed.

(** Renaming of commands.  Informal proof: by induction on the typing
    derivation; the terms of [⌊M⌋], [Op(M)] and the argument of
    [rev handle] are renamed by [typed_tm_ren]; the body of a [rev handle]
    and its handler are closed, so they are left as they are. *)
Lemma typed_cmd_ren Δ P A :
  typed_cmd Δ P A -> forall ξ Δ', ren_ok ξ Δ Δ' -> typed_cmd Δ' (ren_cmd ξ P) A.
Proof. typed_cmd_map typed_tm_ren ren_ok_up. Qed.

Lemma typed_cmd_shift_under Δ P A B C :
  typed_cmd (A :: Δ) P C -> typed_cmd (A :: B :: Δ) (ren_cmd (up_ren S) P) C.
Proof.
  intros HP. eapply typed_cmd_ren; [exact HP|].
  apply ren_ok_up, ren_ok_shift.
Qed.

(** ** Substitution *)

(** A substitution [σ] maps [Γ] into [Γ'] when it sends every variable to
    a term of its type. *)
Definition subst_ok (σ : nat -> tm) Γ Γ' : Prop :=
  forall x A, nth_error Γ x = Some A -> typed_tm Γ' (σ x) A.

Lemma subst_ok_up σ Γ Γ' A : subst_ok σ Γ Γ' -> subst_ok (up σ) (A :: Γ) (A :: Γ').
Proof.
  intros Hσ [|x] B Hx; simpl in *.
  - constructor. exact Hx.
  - apply typed_tm_shift. auto.
Qed.

(** Substitution.  Informal proof: by induction on the typing derivation;
    a variable is sent to a term of its type by [subst_ok]; under a binder
    the substitution is lifted, which needs weakening of the substituted
    terms ([subst_ok_up], by [typed_tm_shift]). *)
Lemma typed_tm_subst Γ M A :
  typed_tm Γ M A -> forall σ Γ', subst_ok σ Γ Γ' -> typed_tm Γ' (subst_tm σ M) A.
Proof. typed_tm_map subst_ok_up. Qed.

(** Substitution into commands, as for renaming: terms by
    [typed_tm_subst], the let body under the lifted substitution, and
    neither a [rev handle] body nor a handler is entered. *)
Lemma typed_cmd_subst Δ P A :
  typed_cmd Δ P A -> forall σ Δ', subst_ok σ Δ Δ' -> typed_cmd Δ' (subst_cmd σ P) A.
Proof. typed_cmd_map typed_tm_subst subst_ok_up. Qed.

(** [list_subst Vs] instantiates the block [Δ] of [Δ ++ Γ]. *)
Lemma subst_ok_list Vs Δ Γ :
  Forall2 (typed_tm Γ) Vs Δ -> subst_ok (list_subst Vs) (Δ ++ Γ) Γ.
Proof.
  intros HVs x A Hx. unfold list_subst.
  pose proof (Forall2_length' _ _ _ HVs) as Hlen.
  destruct (Nat.lt_ge_cases x (length Δ)) as [Hlt|Hge].
  - rewrite nth_error_app_lt in Hx by exact Hlt.
    destruct (Forall2_nth_error_r _ _ _ _ _ HVs Hx) as [V [HV HVA]].
    erewrite nth_error_nth; eauto.
  - rewrite nth_error_app_ge in Hx by exact Hge.
    rewrite nth_overflow by lia. constructor. rewrite Hlen. exact Hx.
Qed.

(** ... and, for a command closed apart from [Δ], instantiates all of it. *)
Lemma subst_ok_list_closed Vs Δ Γ :
  Forall2 (typed_tm Γ) Vs Δ -> subst_ok (list_subst Vs) Δ Γ.
Proof.
  intros HVs x A Hx. unfold list_subst.
  destruct (Forall2_nth_error_r _ _ _ _ _ HVs Hx) as [V [HV HVA]].
  erewrite nth_error_nth; eauto.
Qed.

Lemma subst_ok_list_nil Vs Δ :
  Forall2 (typed_tm []) Vs Δ -> subst_ok (list_subst Vs) Δ [].
Proof.
  intros HVs. rewrite <- (app_nil_r Δ). apply subst_ok_list. exact HVs.
Qed.

(** The single substitution [P[V/x]] of a closed-over-[Γ] value. *)
Lemma subst_ok_single V A Γ :
  typed_tm Γ V A -> subst_ok (list_subst [V]) (A :: Γ) Γ.
Proof. intros HV. apply (subst_ok_list [V] [A]). constructor; auto. Qed.

(** ** Derived zero and sum *)

Lemma zero_typed Γ A : typed_tm Γ (zero A) A.
Proof.
  induction A as [b|As IH] using ty_ind'; simpl.
  - rewrite <- (czero_ty b) at 2. constructor.
  - constructor. induction IH; simpl; constructor; auto.
Qed.

Lemma plus_typed Γ A M N :
  typed_tm Γ M A -> typed_tm Γ N A -> typed_tm Γ (plus A M N) A.
Proof.
  revert Γ M N.
  induction A as [b|As IH] using ty_ind'; intros Γ M N HM HN; simpl.
  - constructor; assumption.
  - econstructor; [exact HM|]. econstructor; [apply typed_tm_shift; exact HN|].
    constructor.
    (* The components [proj_i a +_{Ai} proj_i b] for [i] from [0]. *)
    assert (Hgen : forall i As0,
               (forall j A, nth_error As0 j = Some A -> nth_error As (i + j) = Some A) ->
               Forall (fun A => forall Γ M N, typed_tm Γ M A -> typed_tm Γ N A ->
                                     typed_tm Γ (plus A M N) A) As0 ->
               Forall2 (typed_tm (TProd As :: TProd As :: Γ))
                 ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                     match As with
                     | [] => []
                     | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                     end) i As0) As0).
    { intros i As0. revert i. induction As0 as [|A0 As0 IHl]; intros i Hnth HF.
      - constructor.
      - inversion HF as [|? ? HA0 HF']; subst. constructor.
        + apply HA0.
          * econstructor; [constructor; reflexivity|].
            rewrite <- (Nat.add_0_r i). apply Hnth. reflexivity.
          * econstructor; [constructor; reflexivity|].
            rewrite <- (Nat.add_0_r i). apply Hnth. reflexivity.
        + apply IHl; [|exact HF'].
          intros j A Hj. replace (S i + j) with (i + S j) by lia. apply Hnth. exact Hj. }
    apply Hgen; [|exact IH]. intros j A Hj. exact Hj.
Qed.

(** ** Handler clauses *)

Lemma default_clause_typed o :
  typed_cmd [coar o] (snd (fst (default_clause o))) (TPair (ar o) (fst (fst (default_clause o)))) /\
  typed_cmd [ar o; fst (fst (default_clause o))] (snd (default_clause o)) (coar o).
Proof.
  simpl. split.
  - econstructor.
    + constructor. constructor. reflexivity.
    + constructor. constructor. constructor; [constructor; reflexivity|].
      constructor; [apply (zero_typed _ (TBase unit_base))|constructor].
  - constructor. apply zero_typed.
Qed.

Lemma find_clause_typed cls o D Qf Qb :
  typed_clauses cls -> find_clause o cls = Some (D, Qf, Qb) ->
  typed_cmd [coar o] Qf (TPair (ar o) D) /\ typed_cmd [ar o; D] Qb (coar o).
Proof.
  induction 1 as [|o' D' Qf' Qb' rest HQf HQb Hrest IH]; simpl; [discriminate|].
  destruct (opsym_eq_dec o o') as [->|Hne].
  - intros [= <- <- <-]. auto.
  - exact IH.
Qed.

Lemma clause_of_typed H C o D Qf Qb :
  typed_handler H C -> clause_of H o = (D, Qf, Qb) ->
  typed_cmd [coar o] Qf (TPair (ar o) D) /\ typed_cmd [ar o; D] Qb (coar o).
Proof.
  intros HH. inversion HH as [P cls C' HP Hcls]; subst. simpl.
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|] eqn:Hfind.
  - intros [= <- <- <-]. eapply find_clause_typed; eauto.
  - intros Hdef. pose proof (default_clause_typed o) as Hd.
    rewrite Hdef in Hd. exact Hd.
Qed.

Lemma ret_clause_typed H C : typed_handler H C -> typed_cmd [C] (ret_clause H) C.
Proof. intros HH. inversion HH; subst. assumption. Qed.

(** ** Type inference is sound and complete *)

Lemma infer_tm_complete Γ M A : typed_tm Γ M A -> infer_tm Γ M = Some A.
Proof.
  intros HM; elim HM using typed_tm_ind'; clear Γ M A HM.
  - (* typed_tm_var *) intros Γ x A Hx. exact Hx.
  - (* typed_tm_const *) reflexivity.
  - (* typed_tm_app *) intros Γ f M _ IH. simpl. rewrite IH.
    destruct (ty_eq_dec _ _); [reflexivity|contradiction].
  - (* typed_tm_add *) intros Γ M1 M2 b _ IH1 _ IH2. simpl. rewrite IH1, IH2.
    destruct (base_eq_dec b b); [reflexivity|contradiction].
  - (* typed_tm_tuple *) intros Γ Ms As _ IH. simpl.
    assert (Hl : all_some (map (infer_tm Γ) Ms) = Some As).
    { induction IH as [|M A Ms' As' HMA _ IHl]; simpl; [reflexivity|].
      rewrite HMA, IHl. reflexivity. }
    rewrite Hl. reflexivity.
  - (* typed_tm_proj *) intros Γ M As i A _ IH Hi. simpl. rewrite IH. exact Hi.
  - (* typed_tm_let *) intros Γ M N A B _ IHM _ IHN. simpl. rewrite IHM. exact IHN.
  - (* typed_tm_rd *) intros Γ M N L A B _ IHM _ IHN _ IHL. simpl.
    rewrite IHM, IHL, IHN.
    destruct (ty_eq_dec B B); [reflexivity|contradiction].
Qed.

Lemma infer_tm_sound M : forall Γ A, infer_tm Γ M = Some A -> typed_tm Γ M A.
Proof.
  tm_induction M; intros Γ A Hinf; simpl in Hinf.
  - constructor. exact Hinf.
  - injection Hinf as <-. constructor.
  - destruct (infer_tm Γ M) as [A'|] eqn:HM; [|discriminate].
    destruct (ty_eq_dec A' (fsym_dom f)) as [->|]; [|discriminate].
    injection Hinf as <-. constructor. auto.
  - destruct (infer_tm Γ M1) as [[b1|]|] eqn:H1; try discriminate.
    destruct (infer_tm Γ M2) as [[b2|]|] eqn:H2; try discriminate.
    destruct (base_eq_dec b1 b2) as [<-|]; [|discriminate].
    injection Hinf as <-. constructor; auto.
  - destruct (all_some (map (infer_tm Γ) Ms)) as [As|] eqn:HAs; [|discriminate].
    injection Hinf as <-. constructor.
    revert As HAs. induction IH as [|M Ms HM HMs IHl]; intros As HAs; simpl in HAs.
    + injection HAs as <-. constructor.
    + destruct (infer_tm Γ M) as [A1|] eqn:HA1; [|discriminate].
      destruct (all_some (map (infer_tm Γ) Ms)) as [As'|]; [|discriminate].
      injection HAs as <-. constructor; auto.
  - destruct (infer_tm Γ M) as [[|As]|] eqn:HM; try discriminate.
    econstructor; eauto.
  - destruct (infer_tm Γ M) as [A'|] eqn:HM'; [|discriminate].
    econstructor; eauto.
  - destruct (infer_tm Γ M) as [B|] eqn:HM'; [|discriminate].
    destruct (infer_tm Γ L) as [A'|] eqn:HL'; [|discriminate].
    destruct (infer_tm (A' :: Γ) N) as [B'|] eqn:HN'; [|discriminate].
    destruct (ty_eq_dec B B') as [<-|]; [|discriminate].
    injection Hinf as <-. econstructor; eauto.
Qed.

Lemma typed_tm_unique Γ M A A' : typed_tm Γ M A -> typed_tm Γ M A' -> A = A'.
Proof.
  intros H1 H2. apply infer_tm_complete in H1, H2. congruence.
Qed.

End typing_lemmas.

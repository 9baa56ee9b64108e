(** * Command evaluation contexts and the decomposition lemma
    (paper §5.2, Lemma 5.6; spec §7, §8.3)
<<
    F^c ::= [−] | let x ⇐ F^c in Q
    F^t ::= F^c[⌊[−]⌋] | F^c[Op([−])] | F^c[rev handle([−])<x⃗>.R with H]
>>
    [F^c] is the list of the bodies [Q] of its let-frames, innermost first.
    Every hole of [F^c] and [F^t] sits in the same context as the root,
    because a let binder scopes over its body only. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas.

Section cmd_ctx.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Δ : ctx) (M : tm) (A B C : ty) (P Q R : cmd) (K : list cmd).

Definition fill_c (K : list cmd) (P : cmd) : cmd :=
  fold_left (fun P Q => CLet P Q) K P.

(** The command around the term hole of [F^t]. *)
Inductive tcframe : Type :=
| TRet                           (** [⌊[−]⌋] *)
| TOp (o : opsym)                (** [Op([−])] *)
| TRev (R : cmd) (H : handler).  (** [rev handle([−])<x⃗>.R with H] *)

Definition plug_t (F : tcframe) (M : tm) : cmd :=
  match F with
  | TRet => Ret M
  | TOp o => Op o M
  | TRev R H => RevHandle M R H
  end.

Definition fill_t (K : list cmd) (F : tcframe) (M : tm) : cmd := fill_c K (plug_t F M).

(** [F^c] seen in a context with one more variable at the front: each
    body [Q] is under its own binder. *)
Definition shift_frames (K : list cmd) : list cmd := map (ren_cmd (up_ren S)) K.

Lemma fill_c_cons Q K P : fill_c (Q :: K) P = fill_c K (CLet P Q).
Proof. reflexivity. Qed.

Lemma fill_c_app K1 K2 P : fill_c (K1 ++ K2) P = fill_c K2 (fill_c K1 P).
Proof. unfold fill_c. apply fold_left_app. Qed.

(** ** Typing of [F^c]: [typed_frames Δ K A C] says that [F^c] turns a
    command of type [A] into one of type [C], both in [Δ]. *)
Inductive typed_frames : ctx -> list cmd -> ty -> ty -> Prop :=
| typed_frames_nil Δ A : typed_frames Δ [] A A
| typed_frames_cons Δ Q K A B C :
    typed_cmd (A :: Δ) Q B -> typed_frames Δ K B C -> typed_frames Δ (Q :: K) A C.

Lemma fill_c_typed Δ K P A C :
  typed_frames Δ K A C -> typed_cmd Δ P A -> typed_cmd Δ (fill_c K P) C.
Proof.
  intros HK. revert P. induction HK as [|Δ Q K A B C HQ HK IH]; intros P HP; simpl.
  - exact HP.
  - apply IH. econstructor; eassumption.
Qed.

Lemma fill_c_typed_inv Δ K P C :
  typed_cmd Δ (fill_c K P) C -> exists A, typed_cmd Δ P A /\ typed_frames Δ K A C.
Proof.
  revert P. induction K as [|Q K IH]; simpl; intros P HP.
  - exists C. split; [exact HP|constructor].
  - destruct (IH _ HP) as [B [HB HK]]. inversion HB; subst.
    eexists. split; [eassumption|]. econstructor; eassumption.
Qed.

Lemma typed_frames_ren Δ Δ' K A C ξ :
  ren_ok ξ Δ Δ' -> typed_frames Δ K A C ->
  typed_frames Δ' (map (ren_cmd (up_ren ξ)) K) A C.
Proof.
  intros Hξ. induction 1; simpl; econstructor; eauto.
  eapply typed_cmd_ren; [eassumption|]. apply ren_ok_up. exact Hξ.
Qed.

Lemma typed_frames_shift Δ K A C B :
  typed_frames Δ K A C -> typed_frames (B :: Δ) (shift_frames K) A C.
Proof. apply typed_frames_ren. apply ren_ok_shift. Qed.

(** The term in the hole of [F^t] can be replaced by any term of its
    type, in any context: the frame mentions no variable of [Δ]. *)
Lemma plug_t_typed_inv Δ F M A :
  typed_cmd Δ (plug_t F M) A ->
  exists B, typed_tm Δ M B /\
    forall Δ' M', typed_tm Δ' M' B -> typed_cmd Δ' (plug_t F M') A.
Proof.
  destruct F; simpl; intros HP; inversion HP; subst;
    (eexists; split; [eassumption|]); intros Δ' M' HM'; econstructor; eassumption.
Qed.

(** ** Depth through contexts *)
Definition depth_frames (K : list cmd) : nat := list_max' (map depth K).

Lemma depth_fill_c K P : depth (fill_c K P) = Nat.max (depth_frames K) (depth P).
Proof.
  revert P. induction K as [|Q K IH]; intros P; simpl.
  - reflexivity.
  - rewrite IH. unfold depth_frames. simpl. cbn [depth]. lia.
Qed.

Lemma depth_shift_frames K : depth_frames (shift_frames K) = depth_frames K.
Proof.
  unfold depth_frames, shift_frames. rewrite map_map.
  f_equal. apply map_ext. intros Q. apply depth_ren_cmd.
Qed.

Lemma depth_plug_t F M M' : depth (plug_t F M) = depth (plug_t F M').
Proof. destruct F; reflexivity. Qed.

(** ** Decomposition (Lemma 5.6) *)

Definition not_let (P : cmd) : Prop :=
  match P with CLet _ _ => False | _ => True end.

Definition not_var (M : tm) : Prop :=
  match M with Var _ => False | _ => True end.

(** Peel the let-frames off a command. *)
Fixpoint split_c (P : cmd) : list cmd * cmd :=
  match P with
  | CLet P1 Q => let '(K, P0) := split_c P1 in (K ++ [Q], P0)
  | _ => ([], P)
  end.

Lemma split_c_spec P :
  fill_c (fst (split_c P)) (snd (split_c P)) = P /\ not_let (snd (split_c P)).
Proof.
  induction P as [M|o M|P1 IH1 Q _|M R H]; simpl; try (split; [reflexivity|exact I]).
  destruct (split_c P1) as [K P0]. simpl in *. destruct IH1 as [HK Hn].
  rewrite fill_c_app. simpl. rewrite HK. auto.
Qed.

Lemma split_c_fill K P : not_let P -> split_c (fill_c K P) = (K, P).
Proof.
  intros Hn. induction K as [|Q K IH] using rev_ind.
  - destruct P; simpl in *; [reflexivity|reflexivity|contradiction|reflexivity].
  - rewrite fill_c_app. simpl. rewrite IH. reflexivity.
Qed.

(** [F^c] and the non-let command in its hole are unique. *)
Lemma fill_c_inj K K' P P' :
  not_let P -> not_let P' -> fill_c K P = fill_c K' P' -> K = K' /\ P = P'.
Proof.
  intros Hn Hn' Heq. apply (f_equal split_c) in Heq.
  rewrite !split_c_fill in Heq by assumption. injection Heq. auto.
Qed.

(** Informal proof: peel the let-frames off [R] ([split_c]); what remains
    is [⌊M⌋], [Op(M)] or [rev handle(M)…], and [M] is a variable or not; a
    variable of a command typed in [Δ] is an index below [length Δ]. *)
(** Lemma 5.6: every command [⋄;Δ ⊢ R : C] has one of four forms, and
    the variable of forms 1-3 is in [Δ]. *)
Lemma decomposition Δ R C :
  typed_cmd Δ R C ->
  (exists K z, R = fill_c K (Ret (Var z)) /\ z < length Δ) \/
  (exists K o z, R = fill_c K (Op o (Var z)) /\ z < length Δ) \/
  (exists K z R1 H1, R = fill_c K (RevHandle (Var z) R1 H1) /\ z < length Δ) \/
  (exists K F M, R = fill_t K F M /\ not_var M).
Proof.
  intros HR. destruct (split_c_spec R) as [Hfill Hn].
  destruct (split_c R) as [K P0]. simpl in *. subst R.
  apply fill_c_typed_inv in HR. destruct HR as [A [HP0 _]].
  destruct P0 as [M|o M|P1 Q|M R1 H1]; [| |contradiction|].
  - destruct M as [z| | | | | | |];
      try (right; right; right; exists K, TRet; eexists; split; [reflexivity|exact I]).
    left. exists K, z. split; [reflexivity|].
    inversion HP0 as [? ? ? Hz| | |]; subst. inversion Hz; subst.
    apply nth_error_Some. congruence.
  - destruct M as [z| | | | | | |];
      try (right; right; right; exists K, (TOp o); eexists; split; [reflexivity|exact I]).
    right; left. exists K, o, z. split; [reflexivity|].
    inversion HP0 as [|? ? ? Hz| |]; subst. inversion Hz; subst.
    apply nth_error_Some. congruence.
  - destruct M as [z| | | | | | |];
      try (right; right; right; exists K, (TRev R1 H1); eexists; split; [reflexivity|exact I]).
    right; right; left. exists K, z, R1, H1. split; [reflexivity|].
    inversion HP0 as [| | |? ? ? ? ? ? Hz]; subst. inversion Hz; subst.
    apply nth_error_Some. congruence.
Qed.

(** The four forms exclude each other (the "exactly one" of Lemma 5.6):
    the context and the non-let command in its hole are unique, and the
    four hole commands are told apart by their head and by whether the
    term is a variable. *)
Lemma decomposition_unique K K' P P' :
  not_let P -> not_let P' -> fill_c K P = fill_c K' P' -> K = K' /\ P = P'.
Proof. apply fill_c_inj. Qed.

End cmd_ctx.

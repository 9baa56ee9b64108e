(** * Small-step semantics of terms (paper §5.1, spec §5)

    Call-by-value, left to right (decisions.md item 6): in [M.rd(x.N)(L)]
    the cotangent [M] is evaluated before the point [L].  Evaluation
    contexts are lists of frames (innermost first), with head steps apart:
<<
    E ::= [−] | f(E) | E + M | V + E | <V1,…,V_{i−1}, E, M_{i+1},…,Mn>
        | proj_i(E) | let x ← E in N | E.rd(x.N)(L) | W.rd(x.N)(E)
>> *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd.

Section term_sem.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N L V W : tm) (A B : ty).

(** ** Evaluation frames *)
Inductive tframe : Type :=
| KApp (f : fsym)                      (** [f([−])] *)
| KAddL (M2 : tm)                      (** [[−] + M2] *)
| KAddR (V1 : tm)                      (** [V1 + [−]] *)
| KTuple (Vs : list tm) (Ms : list tm) (** [<Vs, [−], Ms>] *)
| KProj (i : nat)                      (** [proj_i([−])] *)
| KLet (N : tm)                        (** [let x ← [−] in N] *)
| KRdL (N L : tm)                      (** [[−].rd(x.N)(L)] *)
| KRdR (W N : tm).                     (** [W.rd(x.N)([−])] *)

Definition fill_frame (K : tframe) (M : tm) : tm :=
  match K with
  | KApp f => App f M
  | KAddL M2 => Add M M2
  | KAddR V1 => Add V1 M
  | KTuple Vs Ms => Tuple (Vs ++ M :: Ms)
  | KProj i => Proj i M
  | KLet N => Let M N
  | KRdL N L => Rd M N L
  | KRdR W N => Rd W N M
  end.

(** Frames whose left neighbours must be values. *)
Definition frame_ok (K : tframe) : Prop :=
  match K with
  | KAddR V1 => value V1
  | KTuple Vs _ => Forall value Vs
  | KRdR W _ => value W
  | _ => True
  end.

(** [E[M]] for [E] a list of frames, innermost first. *)
Definition fill_ectx (K : list tframe) (M : tm) : tm := fold_left (fun M F => fill_frame F M) K M.

(** ** Head reduction
<<
    f(V)               → Ev(f, V)       if Ev(f, V) is defined
    c1 + c2            → c1 +_β c2
    proj_i(<V1..Vn>)   → V_i
    let x ← V in M     → M[V/x]
    W.rd(x.N)(V)       → W.R_V(x.N)
>> *)
Inductive head_step_tm : tm -> tm -> Prop :=
(**
<<
     Ev(f, V) = V'
    ───────────────  (E-Fun)
      f(V) → V'
>> *)
| head_step_tm_app f V V' :
    value V -> ev f V = Some V' ->
    head_step_tm (App f V) V'
(**
<<
    ─────────────────────────  (E-Add)
     c1 + c2 → c1 +_β c2
>> *)
| head_step_tm_add c1 c2 :
    head_step_tm (Add (Const c1) (Const c2)) (Const (cadd c1 c2))
(**
<<
    ───────────────────────────────  (E-Proj)
     proj_i(<V1,…,Vn>) → Vi
>> *)
| head_step_tm_proj Vs i V :
    Forall value Vs -> nth_error Vs i = Some V ->
    head_step_tm (Proj i (Tuple Vs)) V
(**
<<
    ────────────────────────────  (E-Let)
     let x ← V in M → M[V/x]
>> *)
| head_step_tm_let V N :
    value V ->
    head_step_tm (Let V N) (subst_tm (list_subst [V]) N)
(**
<<
          ⊢ V : A
    ──────────────────────────────  (E-Rd)
     W.rd(x.N)(V) → W.R_V(x.N)
>>
    [W.R_V(x.N)] is [rd_rewrite]: the one-variable instance of the
    rewriting of Fig. 4, projected; the type [A] of the point is inferred. *)
| head_step_tm_rd W N V A :
    value W -> value V -> infer_tm [] V = Some A ->
    head_step_tm (Rd W N V) (rd_rewrite [] A W V N).

(** [E[M] → E[M']] if [M → M'] (head). *)
Inductive step_tm : tm -> tm -> Prop :=
(**
<<
          M → M'   (head)
    ─────────────────────  (E-Ctx)
      E[M] → E[M']
>> *)
| step_tm_ctx K M0 M0' M M' :
    Forall frame_ok K ->
    M = fill_ectx K M0 -> M' = fill_ectx K M0' ->
    head_step_tm M0 M0' ->
    step_tm M M'.

(** ** Plugging lemma for frames *)
Lemma fill_frame_typed Γ F M A :
  typed_tm Γ (fill_frame F M) A ->
  exists B, typed_tm Γ M B /\
    forall M', typed_tm Γ M' B -> typed_tm Γ (fill_frame F M') A.
Proof.
  destruct F; simpl; intros HT; inversion HT; subst.
  - (* KApp *) eexists; split; [eassumption|]. intros. constructor. assumption.
  - (* KAddL *) eexists; split; [eassumption|]. intros. constructor; assumption.
  - (* KAddR *) eexists; split; [eassumption|]. intros. constructor; assumption.
  - (* KTuple *)
    match goal with H : Forall2 _ (Vs ++ M :: Ms) As |- _ =>
      destruct (Forall2_app_inv_l _ _ H) as [As1 [As2 [HF1 [HF2 ->]]]] end.
    inversion HF2 as [|? B ? As2' HMB HF2']; subst.
    exists B. split; [exact HMB|]. intros M' HM'. constructor.
    apply Forall2_app'; [exact HF1|]. constructor; assumption.
  - (* KProj *) eexists; split; [eassumption|]. intros. econstructor; eassumption.
  - (* KLet *) eexists; split; [eassumption|]. intros. econstructor; eassumption.
  - (* KRdL *) eexists; split; [eassumption|]. intros. econstructor; eassumption.
  - (* KRdR *) eexists; split; [eassumption|]. intros. econstructor; eassumption.
Qed.

Lemma fill_ectx_typed Γ K M A :
  typed_tm Γ (fill_ectx K M) A ->
  exists B, typed_tm Γ M B /\
    forall M', typed_tm Γ M' B -> typed_tm Γ (fill_ectx K M') A.
Proof.
  revert M. induction K as [|F K IH]; simpl; intros M HT.
  - exists A. auto.
  - destruct (IH _ HT) as [B [HB Hplug]].
    destruct (fill_frame_typed _ _ _ _ HB) as [C [HC Hplug']].
    exists C. split; [exact HC|]. intros M' HM'. apply Hplug, Hplug'. exact HM'.
Qed.

(** ** Subject reduction for terms *)
Section preservation.
Context {Eok : evaluator_ok}.

(** Informal proof: by cases on the head step.  [f(V) → Ev(f, V)] keeps the
    type because [Ev] respects types; [c1 + c2] because [+_β] does;
    projection by the typing of the tuple's components; [let] by the
    substitution lemma; [W.rd(x.N)(V) → W.R_V(x.N)] by the typing lemma of
    the rewriting ([rd_rewrite_typed]), the inferred type of [V] being its
    type (uniqueness of typing). *)
Lemma head_step_tm_preservation M M' A :
  typed_tm [] M A -> head_step_tm M M' -> typed_tm [] M' A.
Proof.
  intros HT Hstep. destruct Hstep as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A' HW HV HA'].
  - (* head_step_tm_app: Ev respects types *)
    inversion HT; subst. eapply ev_typed; eauto.
  - (* head_step_tm_add: closure of the constant monoid *)
    inversion HT as [| | |Γ M1 M2 b H1 H2| | | |]; subst.
    assert (Hb1 : const_ty c1 = b) by (inversion H1; reflexivity).
    assert (Hb2 : const_ty c2 = b) by (inversion H2; reflexivity).
    rewrite <- Hb1, <- (cadd_ty c1 c2) by congruence. constructor.
  - (* head_step_tm_proj *)
    inversion HT; subst.
    match goal with H : typed_tm [] (Tuple Vs) _ |- _ => inversion H; subst end.
    match goal with H : Forall2 _ Vs _ |- _ =>
      destruct (Forall2_nth_error _ _ _ _ _ H Hi) as [B [HB HVB]] end.
    congruence.
  - (* head_step_tm_let *)
    inversion HT; subst. eapply typed_tm_subst; [eassumption|].
    apply subst_ok_single. assumption.
  - (* head_step_tm_rd: the typing lemma of W.R_V(x.N) *)
    inversion HT; subst.
    match goal with H : typed_tm [] V _ |- _ =>
      pose proof (infer_tm_complete _ _ _ H) as HA'' end.
    rewrite HA' in HA''. injection HA'' as ->.
    eapply rd_rewrite_typed; eassumption.
Qed.

(** [⋄ ⊢ M : A] and [M → M'] imply [⋄ ⊢ M' : A]. *)
(** Informal proof: a step is a head step in an evaluation context; the
    plugging lemma ([fill_ectx_typed]) gives the type of the redex and lets
    a term of the same type be put back. *)
(** A step of a well-typed closed term is a head step of a well-typed
    redex in an evaluation context. *)
Lemma step_tm_typed_redex M M' A :
  typed_tm [] M A -> step_tm M M' ->
  exists K M0 M0' B, M = fill_ectx K M0 /\ M' = fill_ectx K M0' /\ head_step_tm M0 M0' /\
    typed_tm [] M0 B /\ forall N, typed_tm [] N B -> typed_tm [] (fill_ectx K N) A.
Proof.
  intros HT Hstep. destruct Hstep as [K M0 M0' M1 M1' _ HM HM' Hhead]. subst.
  destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB Hplug]]. exists K, M0, M0', B. auto.
Qed.

Lemma step_tm_preservation M M' A :
  typed_tm [] M A -> step_tm M M' -> typed_tm [] M' A.
Proof.
  intros HT Hstep. destruct (step_tm_typed_redex _ _ _ HT Hstep) as (K & M0 & M0' & B & -> & -> & Hh & HB & Hplug).
  apply Hplug. eapply head_step_tm_preservation; eassumption.
Qed.

End preservation.
End term_sem.

(** * Small-step semantics of commands and heaps (paper §5.2-5.3, spec §7, §9)
<<
    F^t[M]                               → F^t[M']                if M → M'
    F^c[let x ⇐ ⌊V⌋ in R]                → F^c[R[V/x]]
    F^c[rev handle(V)<x⃗>.R with H]       → F^c[RH^V_H(<x⃗>.R)]
    (hp, P)                              → (hp, P')               if P → P'
    (hp, F^c[Get[ℓ]()])                  → (hp, F^c[⌊hp(ℓ)⌋])
    (hp, F^c[Put[ℓ](v)])                 → (hp[ℓ ↦ v], F^c[⌊0⌋])
>>
    Rules are stated with equation premises, so that they apply without
    syntactic matching of the contexts. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh.

Section cmd_sem.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M V : tm) (A B C : ty) (P Q R : cmd) (K : list cmd) (H : handler).

(** ** Commands without heap (the paper's §5.2 relation [P → P']) *)
Inductive step_cmd : cmd -> cmd -> Prop :=
(**
<<
          M → M'
    ───────────────────────  (S-Term)
     F^t[M] → F^t[M']
>> *)
| step_cmd_term K F M M' P P' :
    step_tm M M' ->
    P = fill_t K F M -> P' = fill_t K F M' ->
    step_cmd P P'
(**
<<
    ───────────────────────────────────────  (S-LetVal)
     F^c[let x ⇐ ⌊V⌋ in Q] → F^c[Q[V/x]]
>> *)
| step_cmd_let_val K V Q P P' :
    value V ->
    P = fill_c K (CLet (Ret V) Q) ->
    P' = fill_c K (subst_cmd (list_subst [V]) Q) ->
    step_cmd P P'
(**
<<
     RH^{V⃗}_H(<x1,…,xn>.R) = R'
    ───────────────────────────────────────────────────────  (S-RevHandle)
     F^c[rev handle(<V1,…,Vn>)<x1,…,xn>.R with H] → F^c[R']
>>
    The value [V] of product type is a tuple [<V1..Vn>]; its component
    types [Bs] are inferred (they are the types of the binders). *)
| step_cmd_revhandle K Vs Bs R H R' P P' :
    Forall value Vs ->
    infer_tm [] (Tuple Vs) = Some (TProd Bs) ->
    rh H Bs Vs R R' ->
    P = fill_c K (RevHandle (Tuple Vs) R H) ->
    P' = fill_c K R' ->
    step_cmd P P'.

(** ** Heaps (paper §5.3): a finite list of bindings; every location not
    listed holds [0] (the paper's [[ℓ_i ↦ v_i]_{i∈I}]). *)
Definition heap := list (loc * const).

Fixpoint heap_lookup (hp : heap) (l : loc) : const :=
  match hp with
  | [] => czero (loc_base l)
  | (l', c) :: hp' => if loc_eq_dec l l' then c else heap_lookup hp' l
  end.

Definition heap_update (hp : heap) (l : loc) (c : const) : heap :=
  (l, c) :: filter (fun lc => if loc_eq_dec l (fst lc) then false else true) hp.

(** [heap_update] as one pass of its own over the heap, without the
    closure [filter] calls at every binding: what the machines run
    ([heap_put_update]: the same heap). *)
Fixpoint heap_drop (l : loc) (hp : heap) : heap :=
  match hp with
  | [] => []
  | lc :: hp' => if loc_eq_dec l (fst lc) then heap_drop l hp' else lc :: heap_drop l hp'
  end.

Definition heap_put (hp : heap) (l : loc) (c : const) : heap := (l, c) :: heap_drop l hp.

Lemma heap_put_update hp l c : heap_put hp l c = heap_update hp l c.
Proof.
  unfold heap_put, heap_update. f_equal.
  induction hp as [|lc hp IH]; cbn [heap_drop filter]; [reflexivity|].
  destruct (loc_eq_dec l (fst lc)); [exact IH|f_equal; exact IH].
Qed.

(** A heap respects the shapes of the locations. *)
Definition heap_ok (hp : heap) : Prop :=
  Forall (fun lc => const_ty (snd lc) = loc_base (fst lc)) hp.

Inductive step_conf : heap -> cmd -> heap -> cmd -> Prop :=
(**
<<
           P → P'
    ─────────────────────  (S-Pure)
     (hp, P) → (hp, P')
>> *)
| step_conf_cmd hp P P' :
    step_cmd P P' ->
    step_conf hp P hp P'
(**
<<
    ─────────────────────────────────────────────  (S-Get)
     (hp, F^c[Get[ℓ](V)]) → (hp, F^c[⌊hp(ℓ)⌋])
>> *)
| step_conf_get hp K l V P P' :
    value V ->
    P = fill_c K (Op (OpGet l) V) ->
    P' = fill_c K (Ret (Const (heap_lookup hp l))) ->
    step_conf hp P hp P'
(**
<<
    ────────────────────────────────────────────────  (S-Put)
     (hp, F^c[Put[ℓ](c)]) → (hp[ℓ ↦ c], F^c[⌊0⌋])
>> *)
| step_conf_put hp K l c P P' :
    P = fill_c K (Op (OpPut l) (Const c)) ->
    P' = fill_c K (Ret (Const (czero unit_base))) ->
    step_conf hp P (heap_update hp l c) P'.

(** Reflexive-transitive closure. *)
Inductive steps_conf : heap -> cmd -> heap -> cmd -> Prop :=
(**
<<
    ──────────────────────  (Steps-Refl)
     (hp, P) →* (hp, P)
>> *)
| steps_conf_refl hp P : steps_conf hp P hp P
(**
<<
     (hp, P) → (hp', P')    (hp', P') →* (hp'', P'')
    ──────────────────────────────────────────────────  (Steps-Step)
                (hp, P) →* (hp'', P'')
>> *)
| steps_conf_step hp P hp' P' hp'' P'' :
    step_conf hp P hp' P' -> steps_conf hp' P' hp'' P'' -> steps_conf hp P hp'' P''.

(** ** Type preservation *)
Section preservation.
Context {Eok : evaluator_ok}.

(** The paper's proposition in §5.2: if [⋄;⋄ ⊢ P : A] and [P → P'] then
    [⋄;⋄ ⊢ P' : A].

    Informal proof: by cases on the step; each redex sits in a context
    whose typing is split by the plugging lemmas ([fill_c_typed_inv],
    [plug_t_typed_inv]), so it suffices that the redex keeps its type:
    - a term step: subject reduction for terms;
    - [let x ⇐ ⌊V⌋ in R]: the substitution lemma;
    - [rev handle(<V⃗>)<x⃗>.R with H]: the inferred component types are the
      binder types (uniqueness of typing) and [rh_typed] types
      [RH^{V⃗}_H(<x⃗>.R)] at [∏ Bs].  ([rh_depth_lt] is what makes [RH]
      well founded; the relation form used here needs it only for
      totality.) *)
Lemma step_cmd_preservation P P' A :
  typed_cmd [] P A -> step_cmd P P' -> typed_cmd [] P' A.
Proof.
  intros HP Hstep.
  destruct Hstep as [K F M M' P P' HMM' -> ->
                    |K V Q P P' HV -> ->
                    |K Vs Bs R H R' P P' HVs Hinf Hrh -> ->].
  - (* step_cmd_term *)
    unfold fill_t in *. apply fill_c_typed_inv in HP. destruct HP as [B [HB HK]].
    eapply fill_c_typed; [exact HK|].
    destruct (plug_t_typed_inv _ _ _ _ HB) as [C [HM Hplug]].
    apply Hplug. eapply step_tm_preservation; eassumption.
  - (* step_cmd_let_val *)
    apply fill_c_typed_inv in HP. destruct HP as [B [HB HK]].
    eapply fill_c_typed; [exact HK|].
    inversion HB as [| |? ? ? A' ? HV' HQ|]; subst. inversion HV'; subst.
    eapply typed_cmd_subst; [exact HQ|]. apply subst_ok_single. assumption.
  - (* step_cmd_revhandle *)
    apply fill_c_typed_inv in HP. destruct HP as [B [HB HK]].
    eapply fill_c_typed; [exact HK|].
    inversion HB as [| | |? ? ? ? As C HM HR HH]; subst.
    rewrite (infer_tm_complete _ _ _ HM) in Hinf. injection Hinf as ->.
    inversion HM as [| | | |? ? ? HVs'| | |]; subst.
    eapply rh_typed; eassumption.
Qed.

Lemma heap_lookup_typed hp l :
  heap_ok hp -> const_ty (heap_lookup hp l) = loc_base l.
Proof.
  induction 1 as [|[l' c] hp' Hc Hhp IH]; simpl.
  - apply czero_ty.
  - destruct (loc_eq_dec l l') as [->|]; [exact Hc|exact IH].
Qed.

Lemma heap_update_ok hp l c :
  heap_ok hp -> const_ty c = loc_base l -> heap_ok (heap_update hp l c).
Proof.
  intros Hhp Hc. constructor; [exact Hc|].
  apply Forall_forall. intros lc Hin. apply filter_In in Hin as [Hin _].
  unfold heap_ok in Hhp. rewrite Forall_forall in Hhp. auto.
Qed.

(** Type preservation for closed commands with heaps (the heap extension
    of the paper's proposition, spec §9): a well-typed configuration steps
    to a well-typed one, with a heap that still respects the shapes. *)
(** Informal proof: a step without the heap is [step_cmd_preservation];
    [Get[ℓ]] returns the heap's constant at [ℓ], whose type is [ℓ]'s base
    type because the heap respects the shapes; [Put[ℓ](c)] stores a
    constant of [ℓ]'s base type (its coarity), so the new heap respects the
    shapes, and returns [0 : Real(0)], its arity. *)
Lemma step_conf_preservation hp P hp' P' A :
  heap_ok hp -> typed_cmd [] P A -> step_conf hp P hp' P' ->
  heap_ok hp' /\ typed_cmd [] P' A.
Proof.
  intros Hhp HP Hstep.
  destruct Hstep as [hp P P' Hs|hp K l V P P' HV -> ->|hp K l c P P' -> ->].
  - (* step_conf_cmd *) split; [exact Hhp|]. eapply step_cmd_preservation; eassumption.
  - (* step_conf_get *)
    split; [exact Hhp|].
    apply fill_c_typed_inv in HP. destruct HP as [B [HB HK]].
    eapply fill_c_typed; [exact HK|].
    inversion HB; subst. simpl.
    rewrite <- (heap_lookup_typed hp l Hhp). constructor. constructor.
  - (* step_conf_put *)
    apply fill_c_typed_inv in HP. destruct HP as [B [HB HK]].
    inversion HB as [|? ? ? HM| |]; subst. simpl in HM.
    inversion HM; subst. split.
    + apply heap_update_ok; assumption.
    + eapply fill_c_typed; [exact HK|]. simpl.
      rewrite <- (czero_ty unit_base) at 2. constructor. constructor.
Qed.

Lemma steps_conf_preservation hp P hp' P' A :
  heap_ok hp -> typed_cmd [] P A -> steps_conf hp P hp' P' ->
  heap_ok hp' /\ typed_cmd [] P' A.
Proof.
  intros Hhp HP Hsteps. revert Hhp HP.
  induction Hsteps as [|hp P hp' P' hp'' P'' Hs Hss IH]; intros Hhp HP.
  - auto.
  - destruct (step_conf_preservation _ _ _ _ _ Hhp HP Hs). auto.
Qed.

End preservation.
End cmd_sem.

(** * Deciders of the progress premises, and why no such syntactic premise
    reaches the whole language

    [fo_progress.v] proves progress with typing and syntactic values on the
    first-order fragment [fq] under the premise [nzq] (no [0] and no sum
    outside the bodies of dual maps, none in a pullback's body, a [0] on the
    spine of dual maps); [fo_grad.v] adds [nzp] and [lastv] on the body of a
    gradient query.  This file gives each a boolean decider proved
    equivalent ([reflect]), shows that the two closed, well-typed,
    well-formed stuck terms of [progress_typed.v] fail [nzq]
    ([fun_sum_not_nzq], [remark36_not_nzq]) while the running example and
    the higher-order example pass it (by the decider), and proves that a
    premise of this shape is not kept by the steps of the whole language
    ([nzq_not_kept]): reduction (9) puts the dual [0] into any evaluation
    context, here a pair component, where [⟨0, r⟩] is a closed, well-typed
    syntactic value.  Whether a [0] or a sum is harmless depends on its
    type (the zero of a dual type, a sum of dual maps) and not on the
    position alone, so the premise that excludes exactly the stuck classes
    of the whole language is a typed one; docs/decisions-pullback.md,
    "Progress beyond the first-order fragment". *)
From Pullback Require Import syntax typing anf reduction decide wf normalize fo norm_fo fo_run progress_typed
  fo_progress fo_grad exec_sig.

Section nz_decide.
Context {Σ : signature}.

(** ** Deciders *)
Fixpoint nzpb (t : tm) : bool :=
  match t with
  | Zero | Plus _ _ => false
  | Var _ | Real _ | NDual _ => true
  | Lam a | Proj _ a | Fun _ a | Jac _ a => nzpb a
  | App a b | Pair a b | Let a b | Dual a b | Pb a b => nzpb a && nzpb b
  end.

Fixpoint zsp0b (t : tm) : bool :=
  match t with
  | Zero => true
  | Dual _ q => zsp0b q
  | _ => false
  end.

Fixpoint nzsb (t : tm) : bool :=
  match t with
  | Zero | Plus _ _ => false
  | Var _ | Real _ | NDual _ => true
  | Lam a => nzsb a || zsp0b a
  | Proj _ a | Fun _ a | Jac _ a => nzsb a
  | App a b | Pair a b | Let a b => nzsb a && nzsb b
  | Dual _ q => nzsb q || zsp0b q
  | Pb p w => nzpb p && nzsb w
  end.

Definition nzqb (t : tm) : bool := nzsb t || zsp0b t.

Fixpoint lastvb (t : tm) : bool :=
  match t with
  | Let e l => if isv0 l then lastvb e else lastvb l
  | Real _ => false
  | _ => true
  end.

Lemma nzpb_iff t : nzpb t = true <-> nzp t.
Proof.
  induction t; simpl; rewrite ?andb_true_iff, ?IHt, ?IHt1, ?IHt2; intuition discriminate.
Qed.

Lemma zsp0b_iff t : zsp0b t = true <-> zsp0 t.
Proof. induction t; simpl; rewrite ?IHt2; intuition discriminate. Qed.

Lemma nzsb_iff t : nzsb t = true <-> nzs t.
Proof.
  induction t; simpl;
    rewrite ?andb_true_iff, ?orb_true_iff, ?zsp0b_iff, ?nzpb_iff, ?IHt, ?IHt1, ?IHt2;
    intuition discriminate.
Qed.

Lemma nzqb_iff t : nzqb t = true <-> nzq t.
Proof. unfold nzqb, nzq. rewrite orb_true_iff, nzsb_iff, zsp0b_iff. reflexivity. Qed.

Lemma lastvb_iff t : lastvb t = true <-> lastv t.
Proof.
  induction t; simpl; try (intuition discriminate).
  destruct (isv0 t2); assumption.
Qed.

Lemma nzpb_spec t : reflect (nzp t) (nzpb t).
Proof. apply iff_reflect. symmetry. apply nzpb_iff. Qed.

Lemma zsp0b_spec t : reflect (zsp0 t) (zsp0b t).
Proof. apply iff_reflect. symmetry. apply zsp0b_iff. Qed.

Lemma nzsb_spec t : reflect (nzs t) (nzsb t).
Proof. apply iff_reflect. symmetry. apply nzsb_iff. Qed.

Lemma nzqb_spec t : reflect (nzq t) (nzqb t).
Proof. apply iff_reflect. symmetry. apply nzqb_iff. Qed.

Lemma lastvb_spec t : reflect (lastv t) (lastvb t).
Proof. apply iff_reflect. symmetry. apply lastvb_iff. Qed.

(** The premises of [fo_progress] other than typing, decided. *)
Definition fo_progressb (t : tm) : bool := fqb t && nzqb t.

Lemma fo_progressb_spec t : reflect (fq t /\ nzq t) (fo_progressb t).
Proof.
  apply iff_reflect. unfold fo_progressb. rewrite andb_true_iff, nzqb_iff, fqb_spec. reflexivity.
Qed.

(** The premises of [fo_query_ndual] on a term, decided: a gradient query
    [((Ω λy.P) · (λx.e* )) r0] with [P] first order, without [0] or sum,
    not ending in a constant, and [r0] a tuple of scalars. *)
Fixpoint num_of (t : tm) : option (num scalar) :=
  match t with
  | Real r => Some (NR r)
  | Pair a b => match num_of a, num_of b with Some x, Some y => Some (NP x y) | _, _ => None end
  | _ => None
  end.

Lemma num_of_spec t r : num_of t = Some r -> t = num_tm r /\ dense r.
Proof.
  revert r. induction t; intros r0 H; simpl in H; try discriminate.
  - destruct (num_of t1) as [x|] eqn:E1; [|discriminate].
    destruct (num_of t2) as [y|] eqn:E2; [|discriminate].
    injection H as <-. destruct (IHt1 _ eq_refl) as [-> ?]. destruct (IHt2 _ eq_refl) as [-> ?].
    simpl. tauto.
  - injection H as <-. simpl. tauto.
Qed.

Definition fo_gradb (t : tm) : bool :=
  match t with
  | App (Pb P (Lam (NDual e))) v =>
      fobb P && wf_letb P && nzpb P && lastvb P && match num_of v with Some _ => true | None => false end
  | _ => false
  end.

Lemma fo_gradb_sound t : fo_gradb t = true ->
  exists P e r0, t = fo_grad_query P e r0 /\ fo_body P /\ nzp P /\ lastv P /\ dense r0.
Proof.
  destruct t as [|s1|s1 t2| | | | | | | | | | |]; simpl; try discriminate.
  destruct s1 as [| | | | | | | | |P w| | | |]; try discriminate.
  destruct w as [|b| | | | | | | | | | | |]; try discriminate.
  destruct b as [| | | | | | | | | |e| | |]; try discriminate.
  destruct (num_of t2) as [r0|] eqn:E; rewrite ?andb_false_r; [|discriminate].
  rewrite !andb_true_iff, fobb_spec, wf_letb_spec, nzpb_iff, lastvb_iff.
  intros ((((? & ?) & ?) & ?) & _). destruct (num_of_spec _ _ E) as [-> ?].
  do 3 eexists. split; [reflexivity|]. unfold fo_body. tauto.
Qed.

(** What the decider gives: a gradient query it accepts, well typed,
    reduces to [r*], which [fo_eval] and [pullback-eval]'s fuel-free run
    return ([fo_query_ndual], under its hypotheses on the signature). *)
Section dense.
Hypothesis fsem_dense : forall f x, dense x -> dense (fsem f x).
Hypothesis fjac_dense : forall f x v, dense x -> dense v -> dense (fjac f x v).

Theorem fo_gradb_ndual t σ : fo_gradb t = true -> typed [] t (TDual σ) ->
  exists r k, steps t (NDual r) /\ num_ty r σ /\ fo_eval t = Some (NDual r) /\
    fo_run_opt t = Some (NDual r, k, OValue).
Proof.
  intros Hb Ht. destruct (fo_gradb_sound t Hb) as (P & e & r0 & -> & HP & Hz & HL & Hd).
  apply fo_query_ndual; assumption.
Qed.
End dense.

(** ** The stuck terms of [progress_typed.v] fail the premise *)
Lemma fun_sum_not_nzq f x : ~ nzq (fun_sum f x).
Proof. unfold nzq, fun_sum. simpl. tauto. Qed.

Lemma remark36_not_nzq r : ~ nzq (remark36 r).
Proof. unfold nzq, remark36. simpl. tauto. Qed.

(** ** The premise is not kept on the whole language

    [⟨((Ω λy. r) · (λu. [r]* )) r, r⟩] has no [0] and no sum; reduction (9)
    (the body does not depend on [y]) turns it into [⟨0, r⟩], a closed,
    well-typed syntactic value of type [R* × R] that fails [nzq]. *)
Definition pair_const (r : scalar) : tm :=
  Pair (App (Pb (Real r) (Lam (NDual (NR r)))) (Real r)) (Real r).

Lemma nzq_not_kept r :
  typed [] (pair_const r) (TProd (TDual TR) TR) /\ nzq (pair_const r) /\
  step (pair_const r) (Pair Zero (Real r)) /\
  svalue (Pair Zero (Real r)) /\ ~ nzq (Pair Zero (Real r)).
Proof.
  unfold pair_const. split; [|split; [|split; [|split]]].
  - apply typed_pair; [|constructor].
    apply (typed_app _ _ _ TR); [|constructor].
    apply (typed_pb _ _ _ _ TR); repeat constructor.
  - left. simpl. tauto.
  - apply (step_ctx (EPairL (Real r))); [exact I|].
    apply step_pb_const; [cbn; tauto|cbn; tauto|apply elem_real|cbn; tauto].
  - simpl. tauto.
  - unfold nzq. simpl. tauto.
Qed.

End nz_decide.

(** At [pullback-eval]'s signature, without hypotheses: what
    [revhandlers pullback check --gradient] accepts and types at a dual type
    reduces to [r*], and the driver's fuel-free run returns it. *)
Section exec.
Context {K : Type} (o : scalar_ops K).

Theorem exec_fo_gradb_ndual t σ : @fo_gradb (exec_sig o) t = true ->
  @typed (exec_sig o) [] t (TDual σ) ->
  exists r k, @steps (exec_sig o) t (NDual r) /\ num_ty r σ /\
    @fo_eval (exec_sig o) t = Some (NDual r) /\ @fo_run_opt (exec_sig o) t = Some (NDual r, k, OValue).
Proof. apply fo_gradb_ndual; [apply exec_fsem_dense|apply exec_fjac_dense]. Qed.
End exec.

(** ** The examples, by the deciders *)
From Pullback Require examples.

(** The running example (Example 4.9, [query_660_528]) is in the fragment
    and satisfies the premise of [fo_progress]; its body satisfies those of
    [fo_query_ndual]. *)
Example query_premise : fq examples.query /\ nzq examples.query.
Proof. apply (reflect_iff _ _ (fo_progressb_spec _)). vm_compute. reflexivity. Qed.

Example query_gradb : fo_gradb examples.query = true.
Proof. vm_compute. reflexivity. Qed.

Example query_body_premise : nzp examples.body /\ lastv examples.body.
Proof. rewrite <- nzpb_iff, <- lastvb_iff. vm_compute. split; reflexivity. Qed.

(** The higher-order example ([ho_query_result]) has no [0] and no sum
    outside dual maps ([nzq]), but lies outside [fq]: no progress theorem
    speaks of it yet. *)
Example ho_query_premise : nzq examples.ho_query /\ ~ fq examples.ho_query.
Proof.
  rewrite <- nzqb_iff, <- fqb_spec. vm_compute. split; [reflexivity|discriminate].
Qed.

(** * Reverse mode with a tape (paper §3, spec §4.2)

    The same nodes, values and adjoint updates as the handler-based
    [diff], but the operations are recorded on a tape and the backward
    phase is a loop over it.  With explicit effects, the dictionary's
    "push on a stack" is a request answered by a state-passing handler that
    resumes at once and does nothing after ([tape_after]): its state is the
    node counter and the tape, most recent operation first.  When the
    expression returns [y], the return clause seeds [y]'s adjoint and runs
    the backward loop ([backward]) over the whole tape.

    The proof reuses the invariant of [reverse.v]: [backward_spec] walks
    the tape with [after_spec], [tape_handle_spec] follows the forward
    phase with the tape's invariant [tape_ok]. *)
From Coq Require Import List PeanoNat Lia.
From DefineByRun Require Import api table reverse tactics.
Import ListNotations.

(** A tape entry: the request and the node that answered it. *)
Definition entry (V : Type) : Type := (ad_req V * node V)%type.

Section tape.
Context {Q A V : Type} (d : dict Q A V).

(** Push: the new node as in [ad_before], recorded on the tape. *)
Definition tape_before (s : nat * list (entry V)) (q : ad_req V)
    : tree Q A (node V * (nat * list (entry V))) :=
  p <- ad_before d (fst s) q ;;
  Ret (fst p, (snd p, (q, fst p) :: snd s)).

Definition tape_after (q : ad_req V) (u : node V) (tb : table V) : tree Q A (table V) :=
  Ret tb.

(** The backward loop: pop each entry, propagate its adjoint. *)
Fixpoint backward (tp : list (entry V)) (tb : table V) : tree Q A (table V) :=
  match tp with
  | [] => Ret tb
  | (q, u) :: tp' => tb' <- ad_after d q u tb ;; backward tp' tb'
  end.

Definition tape_ret (s : nat * list (entry V)) (y : node V) : tree Q A (table V) :=
  tb <- ad_ret d (fst s) y ;;
  backward (snd s) tb.
End tape.

Definition diff_tape (e : exp) : exp :=
  MkExp (fun Q A V d x =>
    tb <- handle1 (tape_ret d) (tape_before d) tape_after (1, [])
            (eval_exp e (ad_req V) (node V) (node V) (ad_dict V) (NVar 0 x)) ;;
    Ret (tlook (zero d) tb 0)).

Local Open Scope sr_scope.

Section proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).
Context {J : Type}.
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Let Hm := ns_impl_mono _ _ _ _ _ Hd.
Let Ht := ns_le_trans Hd.

Context (T : J -> S).
Local Notation adj := (adjoints (le := le) (impl := impl) (d := d) T).
Local Notation fin := (final (impl := impl) (d := d) T).
Local Notation prot := (ad_protocol (le := le) (S := S) (impl := impl) (d := d)).

(** The tape [tp] records the nodes of [Kd] after those of [K0], most
    recent first, each with operands standing for the dual numbers whose
    result it stands for, and whose values implement their value
    components in the world [w]. *)
Inductive tape_ok (w : W) (K0 : list (S * (J -> S))) : list (entry V) -> list (S * (J -> S)) -> Prop :=
| tape_ok_nil : tape_ok w K0 [] K0
| tape_ok_cons tp Kd op a b (pa pb : vdual S J) v :
    tape_ok w K0 tp Kd ->
    node_dual Kd a pa -> node_dual Kd b pb ->
    impl w (get_v d a) (fst pa) -> impl w (get_v d b) (fst pb) ->
    tape_ok w K0 (((op, a, b), NVar (length Kd) v) :: tp)
      (Kd ++ [binop_den (S := vdual S J) op pa pb]).

Lemma tape_ok_mono w w' K0 tp Kd : le w w' -> tape_ok w K0 tp Kd -> tape_ok w' K0 tp Kd.
Proof.
  intros Hle H. induction H as [|tp Kd op a b pa pb v H IH Ha Hb Hav Hbv].
  - constructor.
  - constructor; auto; eapply Hm; eauto.
Qed.

(** The backward loop brings the invariant from all the nodes of the tape
    back to those of [K0].

    Informal proof: by induction on the tape; each entry is the backward
    part of a clause of the handler-based [diff] ([after_spec]). *)
Lemma backward_spec tp : forall w K0 Kd tb α,
  tape_ok w K0 tp Kd ->
  (forall i, i < length Kd -> impl w (tlook (zero d) tb i) (α i)) ->
  (forall j, sum_to (length Kd) (fun i => α i ⊗ dnode Kd i j) ≡ T j) ->
  wp Ψ w (backward d tp tb) (adj (length K0) K0 w).
Proof.
  induction tp as [|[[[op a] b] u] tp IH]; intros w K0 Kd tb α Htp Hα Hsum; simpl.
  - inversion Htp; subst. apply wp_ret. split; [apply (ns_le_refl Hd)|]. eauto.
  - inversion Htp as [|tp' Kd' op' a' b' pa pb v Htp' Ha Hb Hav Hbv]; subst.
    rewrite app_length, Nat.add_1_r in Hα, Hsum.
    apply wp_bind. eapply wp_mono.
    + exact (after_spec Hd T w Kd' op a b pa pb v tb α Ha Hb Hav Hbv Hα Hsum).
    + intros w' tb' [Hle (α' & Hα' & Hsum')].
      eapply wp_mono.
      * apply (IH w' K0 Kd' tb' α'); auto. eapply tape_ok_mono; eauto.
      * intros w'' tb'' [Hle' Hrest]. split; [le_chain Hd|exact Hrest].
Qed.

(** The forward phase: the handler records the operations, and at the end
    the backward loop runs over them.

    Informal proof: by induction on the derivation of [wp] for the
    expression's run.  At [Ret y], [ret_spec] gives the invariant over all
    the nodes made, and [backward_spec] brings it back to [K0].  At a
    request [(op, a, b)], the new node is made as in [diff] and pushed; the
    tape's invariant holds of the extended tape, and the induction
    hypothesis applies to the continuation; the clause does nothing after
    resuming. *)
Lemma tape_handle_spec u t : forall K0 tp,
  wp prot u t fin -> tape_ok (fst u) K0 tp (snd u) ->
  wp Ψ (fst u) (handle1 (tape_ret d) (tape_before d) tape_after (length (snd u), tp) t)
    (adj (length K0) K0 (fst u)).
Proof.
  intros K0 tp H. revert tp. remember fin as Φf eqn:EΦ.
  induction H as [[w Kd] y Φ Hy|[w Kd] [[op a] b] k Φ P HΨ Hk IH]; subst Φ; intros tp Htp; simpl in *.
  - (* return: seed, then the backward loop *)
    destruct Hy as (p & [Hn _] & Hp). rewrite handle1_ret. unfold tape_ret. simpl.
    apply wp_bind. eapply wp_mono; [exact (ret_spec Hd T w Kd (length Kd) y p Hn Hp)|].
    intros w' tb [Hle (α & Hα & Hsum)].
    eapply wp_mono.
    + apply (backward_spec tp w' K0 Kd tb α); auto. eapply tape_ok_mono; eauto.
    + intros w'' tb' [Hle' Hrest]. split; [le_chain Hd|exact Hrest].
  - (* a request: push, resume *)
    destruct HΨ as (pa & pb & [Ha Hav] & [Hb Hbv] & HP). simpl in HP, Ha, Hb, Hav, Hbv.
    rewrite handle1_req. apply wp_bind. unfold tape_before at 1. apply wp_bind.
    rewrite ad_before_req. apply wp_bind.
    eapply wp_mono; [apply (ns_op Hd w op _ _ (fst pa) (fst pb)); [exact Hav|exact Hbv]|].
    intros w1 v [Hle1 Hv]. apply wp_ret. apply wp_ret. simpl.
    assert (Hv' : impl w1 v (fst (binop_den (S := vdual S J) op pa pb))) by (destruct op; exact Hv).
    specialize (IH _ _ (HP w1 v Hle1 Hv') eq_refl). simpl in IH.
    rewrite app_length, Nat.add_1_r in IH.
    apply wp_bind. eapply wp_mono.
    + apply IH. constructor.
      * eapply tape_ok_mono; eauto.
      * exact Ha.
      * exact Hb.
      * eapply Hm; eauto.
      * eapply Hm; eauto.
    + intros w2 tb [Hle2 Hrest]. apply wp_ret. split; [le_chain Hd|exact Hrest].
Qed.
End proof.

(** Statement 5.1 for the tape-based reverse mode.

    Informal proof: as for [diff_correct]: the run of [e] at the nodes
    returns a node standing for [(⟦E⟧(r), ⟦E'⟧(r))]; [tape_handle_spec]
    from the empty tape over [K0 = [(r, 1)]] gives a table whose entry 0
    implements [α 0] with [α 0 · 1 = ⟦E'⟧(r)]. *)
Lemma diff_tape_correct e E : denotes e E -> denotes (diff_tape e) (deriv E).
Proof.
  intros He W Q A V le Ψ S impl d Hd w x r Hx.
  unfold diff_tape. cbn [eval_exp]. apply wp_bind.
  diff_run Hrun He Hd w x r Hx E S V impl d.
  apply (tape_handle_spec Hd (fun _ => eval1 r (deriv E)) _ _ [(r, fun _ => 1)] []) in Hrun;
    [diff_read Hrun Hd S|constructor].
Qed.

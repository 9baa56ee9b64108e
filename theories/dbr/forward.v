(** * Forward mode with dual numbers (paper §3, spec §4.1)

    [diff_fwd e] evaluates [e] on pairs [(v, d)] of numbers of the outer
    dictionary: [zero = (0,0)], [one = (1,0)], [add] componentwise and
    [mul (a,a') (b,b') = (ab, a'b + ab')]; the variable is seeded with
    [(x, 1)] and the derivative component of the result is returned.  The
    dual dictionary's operations perform the outer dictionary's requests
    and nothing else: [e] is instantiated at the outer effect. *)
From DefineByRun Require Import api.

Section dual_dict.
Context {Q A V : Type} (d : dict Q A V).

Definition dual_dict : dict Q A (V * V) := {|
  zero := (zero d, zero d);
  one := (one d, zero d);
  add := fun p p' =>
    s <- add d (fst p) (fst p') ;;
    s' <- add d (snd p) (snd p') ;;
    Ret (s, s');
  mul := fun p p' =>
    s <- mul d (fst p) (fst p') ;;
    u <- mul d (snd p) (fst p') ;;
    u' <- mul d (fst p) (snd p') ;;
    s' <- add d u u' ;;
    Ret (s, s');
|}.
End dual_dict.

Definition diff_fwd (e : exp) : exp :=
  MkExp (fun Q A V d x =>
    y <- eval_exp e Q A (V * V)%type (dual_dict d) (x, one d) ;;
    Ret (snd y)).

Local Open Scope sr_scope.

Section proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).

(** A pair of numbers implements a dual number componentwise. *)
Definition impl_dual (w : W) (p : V * V) (s : dual S) : Prop :=
  impl w (fst p) (fst s) /\ impl w (snd p) (snd s).

(** Informal proof: each operation of the dual dictionary runs [d]'s
    operations on the components; by [num_spec] of [d], their results
    implement the components of the dual sum and product, and the worlds
    only grow along the run. *)
Lemma dual_dict_spec : num_spec le Ψ (dual S) impl_dual (dual_dict d).
Proof.
  split.
  - exact (ns_le_preorder _ _ _ _ _ Hd).
  - intros w w' v s Hle [H1 H2]. split; eapply (ns_impl_mono _ _ _ _ _ Hd); eauto.
  - intros w v s s' [Hs1 Hs2] [H1 H2].
    split; eapply (ns_impl_eq _ _ _ _ _ Hd); eauto.
  - intros w. split; apply (ns_zero _ _ _ _ _ Hd).
  - intros w. split; [apply (ns_one _ _ _ _ _ Hd)|apply (ns_zero _ _ _ _ _ Hd)].
  - intros w [a a'] [b b'] s s' [Ha Ha'] [Hb Hb']; simpl in *.
    apply wp_bind. eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); eauto|].
    intros w1 c [Hle1 Hc]. apply wp_bind.
    eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); eapply (ns_impl_mono _ _ _ _ _ Hd); eauto|].
    intros w2 c' [Hle2 Hc']. apply wp_ret.
    split; [eapply ns_le_trans; eauto|].
    split; simpl; [eapply (ns_impl_mono _ _ _ _ _ Hd)|]; eauto.
  - intros w [a a'] [b b'] s s' [Ha Ha'] [Hb Hb']; simpl in *.
    pose proof (ns_impl_mono _ _ _ _ _ Hd) as Hm.
    pose proof (ns_le_trans Hd) as Ht.
    apply wp_bind. eapply wp_mono; [apply (ns_mul _ _ _ _ _ Hd _ a b); eauto|].
    intros w1 c [Hle1 Hc]. apply wp_bind.
    eapply wp_mono; [apply (ns_mul _ _ _ _ _ Hd _ a' b); eauto|].
    intros w2 u [Hle2 Hu]. apply wp_bind.
    eapply wp_mono; [apply (ns_mul _ _ _ _ _ Hd _ a b'); eauto 7|].
    intros w3 u' [Hle3 Hu']. apply wp_bind.
    eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd _ u u'); eauto|].
    intros w4 c' [Hle4 Hc']. apply wp_ret.
    split; [eauto 6|].
    split; simpl; [|exact Hc']. eapply Hm; [|exact Hc]. eauto.
Qed.
End proof.

(** Statement 5.1 for forward mode.

    Informal proof: given a dictionary [d] implementing [S], the dual
    dictionary implements the dual numbers over [S] with the componentwise
    relation ([dual_dict_spec]: each operation runs [d]'s operations on the
    components, whose results implement the components of the dual sum and
    product).  The seed [(x, one)] implements [(r, 1)].  Since [e] denotes
    [E], the result [y] implements [⟦E⟧] evaluated in dual numbers at
    [(r,1)], which is [(⟦E⟧(r), ⟦E'⟧(r))] ([eval1_dual]); its second
    component implements [⟦E'⟧(r)]. *)
Lemma diff_fwd_correct e E : denotes e E -> denotes (diff_fwd e) (deriv E).
Proof.
  intros He W Q A V le Ψ S impl d Hd w x r Hx.
  unfold diff_fwd. cbn [eval_exp]. apply wp_bind.
  eapply wp_mono.
  - apply (He W Q A (V * V)%type le Ψ (dual S) (impl_dual (impl := impl)) (dual_dict d)
             (dual_dict_spec Hd) w (x, one d) (r, 1)).
    split; [exact Hx|apply (ns_one _ _ _ _ _ Hd)].
  - intros w' y [Hle [_ Hy]]. apply wp_ret. split; [exact Hle|].
    eapply (ns_impl_eq _ _ _ _ _ Hd); [|exact Hy].
    apply (eval1_dual S r E).
Qed.

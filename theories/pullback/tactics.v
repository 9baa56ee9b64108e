(** * Tactics shared by the proofs about the step function

    - [inv H]: inversion, substitution, clearing;
    - for a step computed by [step_at] ([step_fn.v]): [nnocc e] records
      that the path [e] is not free of index 0; [facts] turns the
      hypotheses on syntax into the boolean tests [step_at] makes;
      [comp] computes [step_at] with them and with the head rules;
      [pb_at Hst] computes the pullback rule (20a) from the step [Hst] of
      its premise.
    Defined outside any section so that every file importing this one
    uses them ([cps_run_complete.v]; [step_fn.v] holds the same tactics
    for its own proofs). *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn.

Ltac inv H := inversion H; subst; clear H.

Ltac nnocc e := let H := fresh in
  assert (H : ~ nocc is0 e) by
    (simpl; intros ?; repeat match goal with Hc : _ /\ _ |- _ => destruct Hc end;
     eapply yp_not_nocc; eassumption).

Ltac facts :=
  repeat match goal with
  | H : value ?x |- _ => apply valueb_spec in H
  | H : atom ?x |- _ => apply is_atom_spec in H
  | H : lets ?x |- _ => apply is_lets_spec in H
  | H : elem ?x |- _ => apply is_elem_spec in H
  | H : nocc is0 ?x |- _ => apply noccb_is0 in H
  | H : ~ nocc is0 ?x |- _ => apply noccb_false_of in H
  | H : nocc (syntax.lift is0) ?x |- _ => apply noccb_lift_is0 in H
  | H : ~ nocc (syntax.lift is0) ?x |- _ => apply noccb_lift_false_of in H
  | H : lin is0 ?x |- _ => apply linb_is0 in H
  | H : chain_body ?x |- _ => apply chain_bodyb_spec in H
  end.

Ltac comp :=
  repeat (simpl;
    repeat match goal with
    | H : ?b = true |- context [?b] => rewrite H
    | H : ?b = false |- context [?b] => rewrite H
    | H : ?b = Some _ |- context [?b] => rewrite H
    | H : ?b = None |- context [?b] => rewrite H
    | H : ?b = Stepped _ |- context [?b] => rewrite H
    | H : ?b = EVal _ |- context [?b] => rewrite H
    | H : valueb ?x = true |- context [step_at ?f ?g ?x] => rewrite (step_at_value f g x H)
    | Hs : step (App ?a ?b) _, Ha : valueb ?a = true, Hb : valueb ?b = true
      |- context [head_redexb (App ?a ?b)] => rewrite (hr_app a b _ Ha Hb Hs)
    | Hs : step (Dual ?a ?b) _, Ha : valueb ?a = true, Hb : valueb ?b = true
      |- context [head_redexb (Dual ?a ?b)] => rewrite (hr_dual a b _ Ha Hb Hs)
    | Hs : step (Proj ?i ?a) _, Ha : valueb ?a = true
      |- context [head_redexb (Proj ?i ?a)] => rewrite (hr_proj i a _ Ha Hs)
    | Hs : step (Fun ?f ?a) _, Ha : valueb ?a = true
      |- context [head_redexb (Fun ?f ?a)] => rewrite (hr_fun f a _ Ha Hs)
    | |- context [as_path (yp _)] => rewrite as_path_yp
    | |- context [as_path (Var 0)] => rewrite as_path_var0
    | |- context [noccb is0b (yp _)] => rewrite noccb_yp
    | |- context [is_atom (yp _)] => rewrite is_atom_yp
    | |- context [dual_out swap_inv 1 (Dual (ren swap _) (App (Var 1) _))] => rewrite dual_out_swap
    | |- context [dual_out upS_inv 0 (Dual (ren (up_ren S) _) (App (Var 0) _))] => rewrite dual_out_upS
    end).


Ltac pb_at Hst :=
  erewrite step_at_pb; [ | solve [auto using value_pb, elem_chain] | assumption | exact Hst ].

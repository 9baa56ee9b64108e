(** * Tactics shared by the proofs about the step function

    - [inv H]: inversion, substitution, clearing;
    - for a step computed by [step_at] ([step_fn.v]): [nnocc e] records
      that the path [e] is not free of index 0; [facts] turns the
      hypotheses on syntax into the boolean tests [step_at] makes;
      [comp] computes [step_at] with them and with the head rules;
      [pb_at Hst] computes the pullback rule (20a) from the step [Hst] of
      its premise.
    The last four are [step_fn.v]'s own tactics ([nn], [facts], [comp],
    [pb_at]), defined there outside its sections; they are named here
    too so that a file importing this one finds them all in one place
    ([cps_run_complete.v]). *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn.

Ltac inv H := inversion H; subst; clear H.

Ltac nnocc e := nn e.
Ltac facts := step_fn.facts.
Ltac comp := step_fn.comp.
Ltac pb_at Hst := step_fn.pb_at Hst.

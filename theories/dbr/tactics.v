(** * Tactics shared by the proofs of the reverse modes

    [le_chain Hd]: [le w w'] along the chain of the worlds of a run, by
    reflexivity, a hypothesis, or transitivity through a hypothesis
    [le w w1] ([Hd] the specification of the number dictionary,
    [num_spec]).  Defined outside any section, so that [reverse.v] and
    [tape.v] use the same one. *)
From DefineByRun Require Import api.

Ltac le_chain Hd :=
  first [ eassumption | apply (ns_le_refl Hd)
        | eapply (ns_le_trans Hd); [eassumption|le_chain Hd] ].

(** * Tactics shared by the proofs of the calculus

    - [inv H]: inversion, substitution, clearing;
    - [tm_induction M]: induction on a term with [tm_ind'] (a hypothesis
      for every tuple component), naming the cases' variables and
      induction hypotheses the same way everywhere:
      [x | c | f M IH | M1 M2 IH1 IH2 | Ms IH | i M IH | M N IHM IHN |
      M N L IHM IHN IHL].
    Defined outside any section, so that every file importing this one
    uses them. *)
From RevHandlers Require Import prelude signature syntax.

Ltac inv H := inversion H; subst; clear H.

Ltac tm_induction t :=
  induction t as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL] using tm_ind'.

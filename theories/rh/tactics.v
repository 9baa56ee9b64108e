(** * Tactics shared by the proofs of the calculus

    - [inv H]: inversion, substitution, clearing;
    - [tm_induction M]: induction on a term with [tm_ind'] (a hypothesis
      for every tuple component), naming the cases' variables and
      induction hypotheses the same way everywhere:
      [x | c | f M IH | M1 M2 IH1 IH2 | Ms IH | i M IH | M N IHM IHN |
      M N L IHM IHN IHL].
    - [rh_induction]: induction on a derivation of [rh] ([rh.v]), naming
      the cases' variables and induction hypotheses the same way everywhere.
    - [typed_app]: the rule [typed_tm_app] for a goal [typed_tm Γ (App f M) T]
      whose type [T] is [fsym_cod f] up to computation.
    Defined outside any section, so that every file importing this one
    uses them. *)
From RevHandlers Require Import prelude signature syntax typing.

Ltac inv H := inversion H; subst; clear H.

Ltac tm_induction t :=
  induction t as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL] using tm_ind'.

(** The congruence cases of an equation between substitutions or renamings
    of a term [M], one case of [tm_induction M] after the introduction of
    the maps: [simpl; f_equal; auto] closes all but the tuple and the two
    binders; the tuple by the induction hypothesis on each component
    ([map_ext_in]); [Let] and [Rd] (the body [N] under one more variable)
    by [tac]. *)
Ltac tm_cong_cases tac :=
  simpl; f_equal; auto;
  lazymatch goal with
  | IH : Forall _ _ |- _ =>
      rewrite map_map; rewrite Forall_forall in IH; apply map_ext_in; intros ? ?; apply IH; auto
  | _ => tac
  end.

Ltac rh_induction :=
  induction 1 as [H Bs Vs k Vk Hk | H Bs Vs K z Q R' Hrec IH | H Bs Vs K o k Vk D Qf Qb Rrec Hk Hcl Hrec IH
                 | H Bs Vs K z As1 R1 H1 R1' R' Hz Hrec1 IH1 Hrec2 IH2 | H Bs Vs K F M B' Rrec Hnv Hinf Hrec IH].

Ltac typed_app :=
  match goal with |- typed_tm ?G (App ?f ?M) ?T =>
    let E := fresh "E" in
    assert (E : T = fsym_cod f) by reflexivity; rewrite E; apply typed_tm_app end.

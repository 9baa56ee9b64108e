(** * Renaming and substitution (de Bruijn, in the style of Autosubst)

    Renamings [ξ : nat -> nat] and parallel substitutions [σ : nat -> tm]
    are written once for terms and once for commands.  Substitution into a
    command never enters a [rev handle] body or a handler: both are closed
    apart from their own binders (decisions.md item 1). *)
From RevHandlers Require Import prelude signature syntax.

Section subst.
Context {Srt : sorts}.

(** Lift a renaming under one binder. *)
Definition up_ren (ξ : nat -> nat) : nat -> nat :=
  fun x => match x with 0 => 0 | S x => S (ξ x) end.

Fixpoint ren_tm (ξ : nat -> nat) (M : tm) : tm :=
  match M with
  | Var x => Var (ξ x)
  | Const c => Const c
  | App f M => App f (ren_tm ξ M)
  | Add M1 M2 => Add (ren_tm ξ M1) (ren_tm ξ M2)
  | Tuple Ms => Tuple (map (ren_tm ξ) Ms)
  | Proj i M => Proj i (ren_tm ξ M)
  | Let M N => Let (ren_tm ξ M) (ren_tm (up_ren ξ) N)
  | Rd M N L => Rd (ren_tm ξ M) (ren_tm (up_ren ξ) N) (ren_tm ξ L)
  end.

(** Weakening by one variable at the front. *)
Definition shift (M : tm) : tm := ren_tm S M.

(** Lift a substitution under one binder. *)
Definition up (σ : nat -> tm) : nat -> tm :=
  fun x => match x with 0 => Var 0 | S x => shift (σ x) end.

Fixpoint subst_tm (σ : nat -> tm) (M : tm) : tm :=
  match M with
  | Var x => σ x
  | Const c => Const c
  | App f M => App f (subst_tm σ M)
  | Add M1 M2 => Add (subst_tm σ M1) (subst_tm σ M2)
  | Tuple Ms => Tuple (map (subst_tm σ) Ms)
  | Proj i M => Proj i (subst_tm σ M)
  | Let M N => Let (subst_tm σ M) (subst_tm (up σ) N)
  | Rd M N L => Rd (subst_tm σ M) (subst_tm (up σ) N) (subst_tm σ L)
  end.

(** [list_subst Vs] instantiates the first [length Vs] indices with [Vs]
    and renumbers the others; [P[V/x]] is [list_subst [V]]. *)
Definition list_subst (Vs : list tm) : nat -> tm :=
  fun x => nth x Vs (Var (x - length Vs)).

Fixpoint ren_cmd (ξ : nat -> nat) (P : cmd) : cmd :=
  match P with
  | Ret M => Ret (ren_tm ξ M)
  | Op o M => Op o (ren_tm ξ M)
  | CLet P Q => CLet (ren_cmd ξ P) (ren_cmd (up_ren ξ) Q)
  | RevHandle M R H => RevHandle (ren_tm ξ M) R H
  end.

Fixpoint subst_cmd (σ : nat -> tm) (P : cmd) : cmd :=
  match P with
  | Ret M => Ret (subst_tm σ M)
  | Op o M => Op o (subst_tm σ M)
  | CLet P Q => CLet (subst_cmd σ P) (subst_cmd (up σ) Q)
  | RevHandle M R H => RevHandle (subst_tm σ M) R H
  end.

(** Renaming and substitution do not change the depth of a command. *)

(** Renaming and substitution do not change the depth of a command. *)
Lemma depth_ren_cmd ξ P : depth (ren_cmd ξ P) = depth P.
Proof. revert ξ. induction P; intros ξ; cbn; congruence. Qed.

Lemma depth_subst_cmd σ P : depth (subst_cmd σ P) = depth P.
Proof. revert σ. induction P; intros σ; cbn; congruence. Qed.

End subst.

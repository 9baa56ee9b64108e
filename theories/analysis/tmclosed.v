(** * Predicates on terms closed under the rewriting's building blocks

    The soundness proofs ask of a body a predicate such as [okt], [okg b]
    or [okp], and need it of the terms the rewriting builds: [0_A],
    [M +_A N], one-hot tuples, sums of terms, the tuples of R-Tuple.  These
    are made of variables, zero constants, [+], tuples, projections and
    [let] (and renaming), so one proof serves every predicate closed under
    those ([closed], and the zero constants for [0_A]). *)
From Coq Require Import List Lia.
From RevHandlers Require Import prelude signature syntax subst typing rd rdr_rel.
Import ListNotations.

Section closed.
Context {Srt : sorts}.
Variable P : tm -> Prop.

Record closed : Prop := {
  cl_var : forall x, P (Var x);
  cl_add : forall M N, P M -> P N -> P (Add M N);
  cl_tuple : forall Ms, Forall P Ms -> P (Tuple Ms);
  cl_proj : forall i M, P M -> P (Proj i M);
  cl_let : forall M N, P M -> P N -> P (Let M N);
  cl_ren : forall ξ M, P M -> P (ren_tm ξ M)
}.

Hypothesis HP : closed.

Lemma closed_plus A : forall M N, P M -> P N -> P (plus A M N).
Proof.
  induction A as [n|As IH] using ty_ind'; intros M N HM HN; simpl; [apply (cl_add HP); auto|].
  apply (cl_let HP); auto. apply (cl_let HP); [apply (cl_ren HP); auto|].
  apply (cl_tuple HP).
  assert (Hg : forall As' i, Forall (fun A => forall M N, P M -> P N -> P (plus A M N)) As' ->
    Forall P ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                   match As with
                   | [] => []
                   | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                   end) i As')).
  { intros As' i HI. revert i. induction HI as [|A As' HA HAs IHl]; intros i; constructor.
    - apply HA; apply (cl_proj HP), (cl_var HP).
    - apply IHl. }
  apply Hg. exact IH.
Qed.

(** The components of R-Tuple, for a cotangent satisfying [Q], a predicate
    closed under projections. *)
Lemma closed_rdr_tuple (Q : tm -> Prop) (r : tm -> tm -> tm) W i Ms :
  (forall j M, Q M -> Q (Proj j M)) ->
  Forall (fun M => forall W, Q W -> P (r W M)) Ms -> Q W -> Forall P (rdr_tuple r W i Ms).
Proof.
  intros HQ H HW. revert i. induction H as [|M Ms HM HMs IH]; intros i; cbn [rdr_tuple]; constructor; auto.
Qed.
End closed.

Section closed_zero.
Context {Srt : sorts} {Σ : signature}.
Variable P : tm -> Prop.
Hypothesis HP : closed P.
Hypothesis Hz : forall b, P (Const (czero b)).

Lemma closed_zero A : P (zero A).
Proof.
  induction A as [n|As IH] using ty_ind'; simpl.
  - apply Hz.
  - apply (cl_tuple _ HP). induction IH; simpl; constructor; auto.
Qed.

Lemma closed_onehot As i W : P W -> P (onehot As i W).
Proof.
  intros HW. unfold onehot. apply (cl_tuple _ HP). rewrite Forall_forall. intros M HM.
  apply in_map_iff in HM. destruct HM as [[j A] [<- _]]. simpl. destruct (Nat.eqb j i); auto. apply closed_zero.
Qed.

Lemma closed_sum_tms A Ms : Forall P Ms -> P (sum_tms A Ms).
Proof.
  induction 1 as [|M Ms HM HMs IH]; simpl; [apply closed_zero|]. destruct Ms; auto. apply closed_plus; auto.
Qed.

End closed_zero.

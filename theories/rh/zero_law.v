(** * The zero law of the executable instance (decisions.md, "The
    structural zero cotangent is -0.0")

    [rh4_sparse.v] and [tape_rh4.v] assume the zero law of the constants,
    [cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c],
    as a section hypothesis.  At the instance's list model it follows from
    the law of one scalar, [s_czero] a two-sided identity of [s_add]
    ([scalar_zero_law], a hypothesis on the scalars, not an axiom): true of
    the reals with [0], and of IEEE binary64 in round-to-nearest with
    [-0.0] for every non-NaN number (with [+0.0] it fails:
    [-0.0 + +0.0 = +0.0]).

    Theorems:
    - [vadd_vczero_r], [vadd_vczero_l]: the structural zero is an identity
      of the list model's addition on every vector no longer than it.
    - [exec_zero_law_fits]: the zero law of [exec_signature] at the list
      model, for every constant whose vector is no longer than its type
      says (so for every constant that fits, [shapes.v]'s [const_fits]).
    - [exec_zero_law_not_all]: the law cannot hold for every constant:
      [(0, [x])] plus [0_{Real(0)}] is [(0, [])], whatever the scalars.
      So [run_fast4_correct], whose hypothesis is stated for every
      constant, is not instantiated here.
    - [exec_cfitsb] (at any vectors) decides that a constant fits, and
      [exec_zero_law_cfitsb] is the law at the constants it accepts: the
      test and the hypothesis with which [fast4_correct.v] instantiates
      [tape_rh4.v]'s [run_fast4_correct_fits]. *)
From RevHandlers Require Import prelude signature syntax instance.

(** A constant fits when its vector is no longer than its type says,
    decided at any vectors: the test [tape_rh4.v]'s tape makes before it
    relies on the zero law ([v_len] is [length] at the list model,
    [Array.length] for the float arrays). *)
Definition exec_cfitsb {Vec : Type} (vo : vec_ops Vec) (c : nat * Vec) : bool :=
  Nat.leb (v_len vo (snd c)) (fst c).

Section zero_law.
Context {R : Type} (sc : scalar_ops R).

(** The law of the scalars: [s_czero] is a two-sided identity of [s_add]. *)
Definition scalar_zero_law : Prop :=
  forall x, s_add sc x (s_czero sc) = x /\ s_add sc (s_czero sc) x = x.

Hypothesis Hz : scalar_zero_law.

Lemma vadd_vczero_r v n : length v <= n -> vadd sc v (vczero sc n) = v.
Proof.
  unfold vadd, vmap2, vczero. revert n.
  induction v as [|x v IH]; intros [|n] Hn; cbn in *; try reflexivity; [lia|].
  rewrite (proj1 (Hz x)), IH by lia. reflexivity.
Qed.

Lemma vadd_vczero_l v n : length v <= n -> vadd sc (vczero sc n) v = v.
Proof.
  unfold vadd, vmap2, vczero. revert n.
  induction v as [|x v IH]; intros [|n] Hn; cbn in *; try reflexivity; [lia|].
  rewrite (proj2 (Hz x)), IH by lia. reflexivity.
Qed.

#[local] Instance zl_sorts : sorts := exec_sorts (list R).
Variable decls : list (ty * ty).
Variable locs : list nat.
#[local] Instance zl_signature : signature := exec_signature (list_vec_ops sc) decls locs.

(** The zero law of the constants, at every constant no longer than its
    type says. *)
Lemma exec_zero_law_fits c :
  length (snd c) <= const_ty c ->
  cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.
Proof.
  destruct c as [n v]. cbn [const_ty fst snd]. intros Hn.
  split; cbn; f_equal; [apply vadd_vczero_r|apply vadd_vczero_l]; exact Hn.
Qed.

(** The zero law at every constant [exec_cfitsb] accepts. *)
Lemma exec_zero_law_cfitsb c :
  exec_cfitsb (list_vec_ops sc) c = true ->
  cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.
Proof. intros Hc. apply exec_zero_law_fits. apply Nat.leb_le in Hc. exact Hc. Qed.

End zero_law.

(** The law for every constant, as [tape_rh4.v] states it, fails at the
    list model whatever the scalars: a constant longer than its type is
    cut by the addition. *)
Lemma exec_zero_law_not_all {R : Type} (sc : scalar_ops R) (decls : list (@ty (exec_sorts (list R)) * ty)) locs :
  ~ (forall c, @cadd _ (exec_signature (list_vec_ops sc) decls locs) c
                 (@czero _ (exec_signature (list_vec_ops sc) decls locs)
                    (@const_ty _ (exec_signature (list_vec_ops sc) decls locs) c)) = c).
Proof. intros H. specialize (H (0, [s_zero sc])). discriminate H. Qed.

(** * The gradient: reverse mode for expressions of several variables

    The paper restricts itself to one variable and says the generalisation
    is "possible and should be straightforward" (spec §1); the artifact's
    multivariate prototype is not verified.  Here an expression of [n]
    variables receives them as a list ([mexp]); [mdenotes e E] is the
    specification with a valuation [ρ i = nth i rs 0] ([Leaf i] with
    [i ≥ n] denotes 0).  [grad e] runs [e] under the same handler as [diff],
    with the [n] inputs as the nodes [0 … n−1], and reads their adjoints.

    [grad_correct]: if [e] denotes [E], [grad e] returns numbers that
    implement the partial derivatives [∂E/∂j] at [ρ], [j < n].  The proof
    is [handle_spec] with tangents indexed by [nat]: input [j] is seeded
    with the tangent [e_j], so the invariant at the inputs reads
    [Σ_i α i · e_i(j) = α j = ∂E/∂j]. *)
From Coq Require Import List PeanoNat Lia.
From DefineByRun Require Import api table reverse.
Import ListNotations.

Local Open Scope sr_scope.

Record mexp : Type := MkMexp {
  eval_mexp : forall (Q A V : Type), dict Q A V -> list V -> tree Q A V;
}.

Definition mdenotes (e : mexp) (E : expr nat) : Prop :=
  forall (W Q A V : Type) (le : W -> W -> Prop) (Ψ : W -> Q -> (W -> A -> Prop) -> Prop)
         (S : semiring) (impl : W -> V -> S -> Prop) (d : dict Q A V),
  num_spec le Ψ S impl d ->
  forall w xs (rs : list S), Forall2 (impl w) xs rs ->
  wp Ψ w (eval_mexp e Q A V d xs) (fun w' y => le w w' /\ impl w' y (eval (fun i => nth i rs 0) E)).

(** The inputs, as the nodes [i, i+1, …]. *)
Fixpoint input_nodes {V} (i : nat) (xs : list V) : list (node V) :=
  match xs with
  | [] => []
  | x :: xs => NVar i x :: input_nodes (S i) xs
  end.

Definition grad (e : mexp) : forall (Q A V : Type), dict Q A V -> list V -> tree Q A (list V) :=
  fun Q A V d xs =>
    tb <- handle1 (ad_ret d) (ad_before d) (ad_after d) (length xs)
            (eval_mexp e (ad_req V) (node V) (node V) (ad_dict V) (input_nodes 0 xs)) ;;
    Ret (map (tlook (zero d) tb) (seq 0 (length xs))).

(** ** Seeds: input [i] stands for [(ρ i, e_i)] *)
Section seeds.
Context (S : semiring).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Definition unit_vec (i : nat) : nat -> S := fun j => if Nat.eq_dec j i then 1 else 0.

Fixpoint seeds (i : nat) (rs : list S) : list (S * (nat -> S)) :=
  match rs with
  | [] => []
  | r :: rs => (r, unit_vec i) :: seeds (Datatypes.S i) rs
  end.

Lemma seeds_length i rs : length (seeds i rs) = length rs.
Proof. revert i. induction rs; simpl; auto. Qed.

Lemma nth_seeds i rs k dflt :
  k < length rs -> nth k (seeds i rs) dflt = (nth k rs 0, unit_vec (i + k)).
Proof.
  revert i k. induction rs as [|r rs IH]; intros i k Hk; simpl in *; [lia|].
  destruct k as [|k]; [rewrite Nat.add_0_r; reflexivity|].
  rewrite IH by lia. rewrite Nat.add_succ_r. reflexivity.
Qed.

Lemma sum_to_unit_vec n (α : nat -> S) j :
  j < n -> sum_to n (fun i => α i ⊗ unit_vec i j) ≡ α j.
Proof.
  unfold unit_vec. induction n as [|n IH]; intros Hj; simpl; [lia|].
  destruct (Nat.eq_dec j n) as [->|Hne].
  - rewrite (sum_to_ext _ _ _ (fun _ => 0)).
    + rewrite sum_to_zero. ring.
    + intros i Hi. destruct (Nat.eq_dec n i); [lia|]. ring.
  - rewrite IH by lia. ring.
Qed.

(** Evaluation in [vdual] depends on the tangents [j] of the leaves only. *)
Lemma eval_vdual_agree (δ1 δ2 : nat -> vdual S nat) E j :
  (forall i, fst (δ1 i) ≡ fst (δ2 i) /\ snd (δ1 i) j ≡ snd (δ2 i) j) ->
  fst (eval δ1 E) ≡ fst (eval δ2 E) /\ snd (eval δ1 E) j ≡ snd (eval δ2 E) j.
Proof.
  intros H. induction E as [| |i|[|] El IHl Er IHr]; simpl; auto; try (split; reflexivity).
  - destruct IHl as [H1 H2], IHr as [H3 H4]. simpl. rewrite H1, H2, H3, H4. split; reflexivity.
  - destruct IHl as [H1 H2], IHr as [H3 H4]. simpl. rewrite H1, H2, H3, H4. split; reflexivity.
Qed.
End seeds.

Lemma Forall2_length_eq {T U} (R : T -> U -> Prop) l1 l2 :
  Forall2 R l1 l2 -> length l1 = length l2.
Proof. induction 1; simpl; auto. Qed.

Lemma Forall2_map_seq {T U} (R : T -> U -> Prop) (f : nat -> T) (g : nat -> U) s n :
  (forall j, s <= j < s + n -> R (f j) (g j)) -> Forall2 R (map f (seq s n)) (map g (seq s n)).
Proof.
  revert s. induction n as [|n IH]; intros s H; simpl; constructor.
  - apply H. lia.
  - apply IH. intros j Hj. apply H. lia.
Qed.

Section proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).

(** The inputs stand for their seeds, in a world whose list of nodes
    starts with the seeds. *)
Lemma input_nodes_spec w xs : forall rs pre i,
  Forall2 (impl w) xs rs -> length pre = i ->
  Forall2 (impl_node (impl := impl) (d := d) (w, pre ++ seeds S i rs))
    (input_nodes i xs) (seeds S i rs).
Proof.
  induction xs as [|x xs IH]; intros rs pre i Hf Hlen; inversion Hf as [|x' r xs' rs' Hx Hf']; subst;
    simpl; constructor.
  - split; [|exact Hx]. exists (r, unit_vec S (length pre)). split; [|reflexivity].
    simpl. rewrite nth_error_app2, Nat.sub_diag by lia. reflexivity.
  - specialize (IH rs' (pre ++ [(r, unit_vec S (length pre))]) (Datatypes.S (length pre)) Hf').
    rewrite <- app_assoc in IH. apply IH. rewrite app_length. simpl. lia.
Qed.

(** Informal proof: instantiate [mdenotes e E] at the nodes, with the
    semiring [vdual S nat] and the inputs standing for [(ρ j, e_j)]
    ([input_nodes_spec]).  The result stands for a [p] whose tangents are
    [T := snd p].  [handle_spec] with the [n] seeds as the first nodes gives
    adjoints [α] with [Σ_{i<n} α i · e_i(j) = α j = T j] for every [j]
    ([sum_to_unit_vec]); for [j < n], [T j = ∂E/∂j(ρ)] by [eval_vdual],
    since the seeds and the canonical seeding [(ρ i, e_i)] agree on the
    value and on tangent [j] ([eval_vdual_agree]). *)
Lemma grad_spec e E w xs rs :
  mdenotes e E -> Forall2 (impl w) xs rs ->
  wp Ψ w (grad e Q A V d xs) (fun w' ys => le w w' /\
    Forall2 (impl w') ys
      (map (fun j => pderiv Nat.eq_dec (fun i => nth i rs 0) E j) (seq 0 (length xs)))).
Proof.
  intros He Hxs. unfold grad. apply wp_bind.
  set (K0 := seeds S 0 rs).
  set (P := eval (S := vdual S nat) (fun i => nth i K0 (@sr_zero (vdual S nat))) E).
  assert (Hlen : length xs = length rs) by (eapply Forall2_length_eq; eauto).
  assert (Hrun := He _ _ _ _ _ _ (vdual S nat) _ (ad_dict V) (ad_dict_spec Hd)
    (w, K0) (input_nodes 0 xs) K0 (input_nodes_spec w xs rs [] 0 Hxs eq_refl)).
  apply (wp_mono _ _ _ _ (final (impl := impl) (d := d) (snd P))) in Hrun.
  2: { intros u y [_ Hy]. exists P. split; [exact Hy|]. intros j. reflexivity. }
  apply (handle_spec Hd (snd P)) in Hrun. simpl in Hrun.
  unfold K0 in Hrun. rewrite seeds_length, <- Hlen in Hrun.
  eapply wp_mono; [exact Hrun|].
  intros w' tb [Hle (α & Hα & Hsum)]. apply wp_ret. split; [exact Hle|].
  apply Forall2_map_seq. intros j [_ Hj]. simpl in Hj.
  eapply (ns_impl_eq _ _ _ _ _ Hd); [|apply Hα; exact Hj].
  (* [α j] is the sum, which is tangent [j] of [P] *)
  rewrite <- (sum_to_unit_vec S (length xs) α j Hj).
  rewrite (sum_to_ext _ _ _ (fun i => α i ⊗ dnode (seeds S 0 rs) i j)).
  2: { intros i Hi. unfold dnode. rewrite nth_seeds by lia. reflexivity. }
  rewrite (Hsum j).
  (* tangent [j] of [P] is the partial derivative *)
  destruct (eval_vdual Nat.eq_dec S (fun i => nth i rs 0) E) as [_ Hd'].
  rewrite <- (Hd' j).
  apply (eval_vdual_agree S). intros i.
  destruct (Nat.lt_ge_cases i (length rs)) as [Hi|Hi].
  - unfold K0. rewrite nth_seeds by exact Hi. simpl. split; reflexivity.
  - unfold K0. rewrite nth_overflow by (rewrite seeds_length; exact Hi).
    rewrite (nth_overflow rs) by exact Hi. simpl. split; [reflexivity|].
    destruct (Nat.eq_dec j i); [lia|reflexivity].
Qed.
End proof.

(** The gradient of an expression that denotes [E] implements the
    gradient of [E]: its [j]-th component implements [∂E/∂j] at [ρ], which
    is also [⟦sderiv E j⟧ρ] ([eval_sderiv]). *)
Lemma grad_correct e E :
  mdenotes e E ->
  forall (W Q A V : Type) (le : W -> W -> Prop) (Ψ : W -> Q -> (W -> A -> Prop) -> Prop)
         (S : semiring) (impl : W -> V -> S -> Prop) (d : dict Q A V),
  num_spec le Ψ S impl d ->
  forall w xs (rs : list S), Forall2 (impl w) xs rs ->
  wp Ψ w (grad e Q A V d xs) (fun w' ys => le w w' /\
    Forall2 (impl w') ys
      (map (fun j => eval (fun i => nth i rs 0) (sderiv Nat.eq_dec E j)) (seq 0 (length xs)))).
Proof.
  intros He W Q A V le Ψ S impl d Hd w xs rs Hxs.
  eapply wp_mono; [apply (grad_spec Hd e E w xs rs He Hxs)|].
  intros w' ys [Hle Hys]. split; [exact Hle|].
  revert Hys. generalize (seq 0 (length xs)). intros l.
  revert ys. induction l as [|j l IH]; intros ys Hys; inversion Hys; subst; simpl; constructor.
  - eapply (ns_impl_eq _ _ _ _ _ Hd); [|eassumption]. symmetry. apply eval_sderiv.
  - apply IH. assumption.
Qed.

(** ** A client: [f(x, y) = x·y + x], with gradient [(y + 1, x)]. *)
Definition xy_plus_x : mexp :=
  MkMexp (fun Q A V d xs =>
    let x := nth 0 xs (zero d) in
    let y := nth 1 xs (zero d) in
    p <- mul d x y ;;
    add d p x).

Example grad_xy_plus_x : run (grad xy_plus_x _ _ _ (sr_dict nat_sr) [3; 5]) = Some [6; 3].
Proof. reflexivity. Qed.

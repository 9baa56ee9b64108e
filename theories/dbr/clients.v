(** * Clients (paper Figures 2 and 3; spec §5)

    - [cube_plus_one] is [(x+1)³] (Figure 2): it denotes [(1+X)·(1+X)·(1+X)];
      by [diff_correct] alone, [diff] of it denotes [3·(1+X)²], and [diff]
      twice [6·(1+X)]; evaluated at 4 with natural numbers, the three
      implementations compute 125, 75, 30 and 6.
    - [x_cube] is the artifact's [x·(x·x)]: its first and second derivatives
      computed by [diff] at any [n] are [3·n·n] and [6·n], derived from the
      specification.
    - [monomial k] is [x^k] by fast exponentiation (Figure 3): a loop over
      the binary digits of [k], multiplying by [one] on even digits.  It
      denotes [X^k], so [diff (monomial k)] denotes [k·X^(k−1)].

    Each client's proof of [denotes] uses only [num_spec]: the client knows
    nothing of the implementation of [diff]. *)
From Coq Require Import List PeanoNat PArith NArith Lia.
From DefineByRun Require Import api forward reverse tape.

Local Open Scope sr_scope.

(** ** Reasoning steps shared by the clients *)
Section steps.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).

(** One operation followed by the rest of the computation. *)
Lemma wp_op_bind {R} w op a b s s' (f : V -> tree Q A R) Φ :
  impl w a s -> impl w b s' ->
  (forall w' c, le w w' -> impl w' c (binop_den op s s') -> wp Ψ w' (f c) Φ) ->
  wp Ψ w (bind (dict_op d op a b) f) Φ.
Proof.
  intros Ha Hb Hf. apply wp_bind. eapply wp_mono; [apply (ns_op Hd w op a b s s' Ha Hb)|].
  intros w' c [Hle Hc]. auto.
Qed.

(** One operation ending the computation. *)
Lemma wp_op_last w0 w op a b s s' (t : S) :
  le w0 w -> impl w a s -> impl w b s' -> binop_den op s s' ≡ t ->
  wp Ψ w (dict_op d op a b) (fun w' y => le w0 w' /\ impl w' y t).
Proof.
  intros H0 Ha Hb Ht. eapply wp_mono; [apply (ns_op Hd w op a b s s' Ha Hb)|].
  intros w' c [Hle Hc]. split; [eapply (ns_le_trans Hd); eauto|].
  eapply (ns_impl_eq _ _ _ _ _ Hd); eauto.
Qed.

Lemma impl_mono w w' v s : le w w' -> impl w v s -> impl w' v s.
Proof. apply (ns_impl_mono _ _ _ _ _ Hd). Qed.
End steps.

(** ** [(x+1)³] *)
Definition cube_plus_one : exp :=
  MkExp (fun Q A V d x =>
    s <- add d (one d) x ;;
    t <- mul d s s ;;
    mul d t s).

Definition one_plus_X : expr unit := Node Add One X.
Definition cube_plus_one_E : expr unit :=
  Node Mul (Node Mul one_plus_X one_plus_X) one_plus_X.

(** Informal proof: [add one x] implements [1 + r], then [s·s] implements
    [(1+r)·(1+r)] and the last product [((1+r)·(1+r))·(1+r)]; [x] and [s]
    still implement their numbers in the later worlds. *)
Lemma cube_plus_one_denotes : denotes cube_plus_one cube_plus_one_E.
Proof.
  intros W Q A V le Ψ S impl d Hd w x r Hx. unfold cube_plus_one. cbn [eval_exp].
  eapply (wp_op_bind Hd w Add _ _ 1 r); [apply (ns_one _ _ _ _ _ Hd)|exact Hx|].
  intros w1 s Hle1 Hs.
  eapply (wp_op_bind Hd w1 Mul _ _ _ _); [exact Hs|exact Hs|].
  intros w2 t Hle2 Ht.
  eapply (wp_op_last Hd w w2 Mul _ _ _ _); [eapply (ns_le_trans Hd); eauto|exact Ht|
    eapply (impl_mono Hd); eauto|reflexivity].
Qed.

(** [3], [3·(1+X)²] and [6·(1+X)]. *)
Fixpoint nat_expr (k : nat) : expr unit :=
  match k with O => Zero | S k => Node Add One (nat_expr k) end.

Definition cube_plus_one_E' : expr unit :=
  Node Mul (nat_expr 3) (Node Mul one_plus_X one_plus_X).
Definition cube_plus_one_E'' : expr unit := Node Mul (nat_expr 6) one_plus_X.

Section cube_algebra.
Context (S : semiring).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Lemma cube_plus_one_deriv (r : S) : eval1 r (deriv cube_plus_one_E) ≡ eval1 r cube_plus_one_E'.
Proof. unfold eval1. simpl. ring. Qed.

Lemma cube_plus_one_deriv2 (r : S) :
  eval1 r (deriv (deriv cube_plus_one_E)) ≡ eval1 r cube_plus_one_E''.
Proof. unfold eval1. simpl. ring. Qed.
End cube_algebra.

(** Figure 2: [diff e] denotes [3·(x+1)²], and [diff (diff e)] denotes
    [6·(x+1)].

    Informal proof: [diff_correct] applied once (twice) to
    [cube_plus_one_denotes], then [denotes_ext] with the semiring identities
    [cube_plus_one_deriv] ([cube_plus_one_deriv2]). *)
Lemma diff_cube_plus_one : denotes (diff cube_plus_one) cube_plus_one_E'.
Proof.
  apply (denotes_ext _ (deriv cube_plus_one_E)); [apply cube_plus_one_deriv|].
  apply diff_correct, cube_plus_one_denotes.
Qed.

Lemma diff_diff_cube_plus_one : denotes (diff (diff cube_plus_one)) cube_plus_one_E''.
Proof.
  apply (denotes_ext _ (deriv (deriv cube_plus_one_E))); [apply cube_plus_one_deriv2|].
  apply diff_correct, diff_correct, cube_plus_one_denotes.
Qed.

(** The paper's runtime check, at 4, with natural numbers: [f(4) = 125],
    [f'(4) = 75], [f''(4) = 30], [f'''(4) = 6], with every implementation
    and with mixtures of them (each [diff] handles only its own requests). *)
Example cube_plus_one_at_4 : run (eval_exp cube_plus_one _ _ _ (sr_dict nat_sr) 4) = Some 125.
Proof. reflexivity. Qed.
Example diff_cube_plus_one_at_4 : run (eval_exp (diff cube_plus_one) _ _ _ (sr_dict nat_sr) 4) = Some 75.
Proof. reflexivity. Qed.
Example diff2_cube_plus_one_at_4 :
  run (eval_exp (diff (diff cube_plus_one)) _ _ _ (sr_dict nat_sr) 4) = Some 30.
Proof. reflexivity. Qed.
Example diff3_cube_plus_one_at_4 :
  run (eval_exp (diff (diff (diff cube_plus_one))) _ _ _ (sr_dict nat_sr) 4) = Some 6.
Proof. reflexivity. Qed.
Example diff_fwd_cube_plus_one_at_4 :
  run (eval_exp (diff_fwd cube_plus_one) _ _ _ (sr_dict nat_sr) 4) = Some 75.
Proof. reflexivity. Qed.
Example diff_tape_cube_plus_one_at_4 :
  run (eval_exp (diff_tape cube_plus_one) _ _ _ (sr_dict nat_sr) 4) = Some 75.
Proof. reflexivity. Qed.
Example mixed_cube_plus_one_at_4 :
  run (eval_exp (diff_fwd (diff_tape (diff cube_plus_one))) _ _ _ (sr_dict nat_sr) 4) = Some 6.
Proof. reflexivity. Qed.

(** ** [x³] as [x·(x·x)] (the artifact's machine-checked client) *)
Definition x_cube : exp := MkExp (fun Q A V d x => s <- mul d x x ;; mul d x s).

Definition x_cube_E : expr unit := Node Mul X (Node Mul X X).

(** Informal proof: as for [cube_plus_one_denotes]. *)
Lemma x_cube_denotes : denotes x_cube x_cube_E.
Proof.
  intros W Q A V le Ψ S impl d Hd w x r Hx. unfold x_cube. cbn [eval_exp].
  eapply (wp_op_bind Hd w Mul _ _ r r); [exact Hx|exact Hx|].
  intros w1 s Hle1 Hs.
  eapply (wp_op_last Hd w w1 Mul _ _ r _); [exact Hle1|eapply (impl_mono Hd); eauto|exact Hs|reflexivity].
Qed.

Section x_cube_algebra.
Context (S : semiring).
Add Ring S_ring' : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Lemma x_cube_deriv (r : S) : eval1 r (deriv x_cube_E) ≡ sr_of_nat 3 ⊗ (r ⊗ r).
Proof. unfold eval1. simpl. ring. Qed.

Lemma x_cube_deriv2 (r : S) : eval1 r (deriv (deriv x_cube_E)) ≡ sr_of_nat 6 ⊗ r.
Proof. unfold eval1. simpl. ring. Qed.
End x_cube_algebra.

(** [diff x_cube] at [n] returns [3·(n·n)], and [diff (diff x_cube)] returns
    [6·n], in natural numbers, for every [n].

    Informal proof: [diff_pure] (with [diff_correct] once or twice) says the
    run performs no request and returns [⟦E'⟧(n)] (resp. [⟦E''⟧(n)]); the
    semiring identities [x_cube_deriv], [x_cube_deriv2] conclude. *)
Lemma diff_x_cube_nat n : run (eval_exp (diff x_cube) _ _ _ (sr_dict nat_sr) n) = Some (3 * (n * n)).
Proof.
  destruct (diff_pure x_cube x_cube_E nat_sr n x_cube_denotes) as (y & Hy & Hval).
  rewrite Hy. simpl. f_equal. rewrite Hval. apply (x_cube_deriv nat_sr n).
Qed.

Lemma diff_diff_x_cube_nat n :
  run (eval_exp (diff (diff x_cube)) _ _ _ (sr_dict nat_sr) n) = Some (6 * n).
Proof.
  destruct (diff_pure (diff x_cube) (deriv x_cube_E) nat_sr n
              (diff_correct _ _ x_cube_denotes)) as (y & Hy & Hval).
  rewrite Hy. simpl. f_equal. rewrite Hval. apply (x_cube_deriv2 nat_sr n).
Qed.

(** ** [monomial k]: [x^k] by fast exponentiation (Figure 3)

    The loop [while k > 0 do result := result * (if k even then one else x);
    x := x * x; k := k / 2 done], over the binary digits of [k] (least
    significant first); it multiplies by [one] on even digits. *)
Fixpoint pow_loop {Q A V} (d : dict Q A V) (p : positive) (result x : V) : tree Q A V :=
  result' <- mul d result (match p with xO _ => one d | _ => x end) ;;
  x' <- mul d x x ;;
  match p with
  | xH => Ret result'
  | xO p' | xI p' => pow_loop d p' result' x'
  end.

Definition monomial (k : N) : exp :=
  MkExp (fun Q A V d x =>
    match k with
    | N0 => Ret (one d)
    | Npos p => pow_loop d p (one d) x
    end).

(** [X^k]. *)
Fixpoint pow_expr (k : nat) : expr unit :=
  match k with O => One | S k => Node Mul X (pow_expr k) end.

(** [k·X^(k−1)]. *)
Definition pow_expr' (k : nat) : expr unit := Node Mul (nat_expr k) (pow_expr (pred k)).

Section monomial_algebra.
Context (S : semiring).
Add Ring S_ring'' : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Lemma eval1_pow_expr (r : S) k : eval1 r (pow_expr k) ≡ sr_pow r k.
Proof.
  unfold eval1. induction k as [|k IH]; simpl; [reflexivity|]. rewrite IH. reflexivity.
Qed.

Lemma eval1_nat_expr (r : S) k : eval1 r (nat_expr k) ≡ sr_of_nat k.
Proof.
  unfold eval1. induction k as [|k IH]; simpl; [reflexivity|]. rewrite IH. reflexivity.
Qed.

Lemma sr_pow_sq (s : S) n : sr_pow (s ⊗ s) n ≡ sr_pow s (n + n).
Proof.
  induction n as [|n IH]; simpl; [reflexivity|].
  rewrite Nat.add_succ_r. simpl. rewrite IH. ring.
Qed.

(** [(X^k)' = k·X^(k−1)] in every commutative semiring. *)
Lemma pow_expr_deriv_eval (r : S) k :
  eval1 r (deriv (pow_expr k)) ≡ sr_of_nat k ⊗ sr_pow r (pred k).
Proof.
  induction k as [|k IH].
  - unfold eval1. simpl. ring.
  - change (eval1 r (deriv (pow_expr (Datatypes.S k))))
      with (1 ⊗ eval1 r (pow_expr k) ⊕ r ⊗ eval1 r (deriv (pow_expr k))).
    rewrite IH, eval1_pow_expr.
    destruct k as [|k]; simpl; ring.
Qed.

Lemma pow_expr_deriv (r : S) k : eval1 r (deriv (pow_expr k)) ≡ eval1 r (pow_expr' k).
Proof.
  rewrite pow_expr_deriv_eval. unfold pow_expr'.
  change (eval1 r (Node Mul (nat_expr k) (pow_expr (pred k))))
    with (eval1 r (nat_expr k) ⊗ eval1 r (pow_expr (pred k))).
  rewrite eval1_nat_expr, eval1_pow_expr. reflexivity.
Qed.
End monomial_algebra.

(** [monomial k] denotes [X^k].

    Informal proof: by induction on the binary digits [p] of [k], the loop
    started with [result] implementing [m] and [x] implementing [s] returns
    a number implementing [m·s^p] ([pow_loop_spec]): on digit 1 the result
    is multiplied by [x] and the rest of the loop computes
    [(m·s)·(s²)^p' = m·s^(2p'+1)]; on digit 0 it is multiplied by [one],
    giving [m·(s²)^p' = m·s^(2p')].  Started with [one] and [x]
    implementing [r], it returns [1·r^k = ⟦X^k⟧(r)]. *)
Section monomial_proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).
Add Ring S_ring3 : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Lemma pow_loop_spec p : forall w result x m s,
  impl w result m -> impl w x s ->
  wp Ψ w (pow_loop d p result x)
    (fun w' y => le w w' /\ impl w' y (m ⊗ sr_pow s (Pos.to_nat p))).
Proof.
  induction p as [p IH|p IH|]; intros w result x m s Hr Hx; cbn [pow_loop];
    (* the result multiplied by [x] (digit 1) or by [one] (digit 0) *)
    [eapply (wp_op_bind Hd w Mul _ _ m s); [exact Hr|exact Hx|]
    |eapply (wp_op_bind Hd w Mul _ _ m 1); [exact Hr|apply (ns_one _ _ _ _ _ Hd)|]
    |eapply (wp_op_bind Hd w Mul _ _ m s); [exact Hr|exact Hx|]];
    intros w1 r' Hle1 Hr';
    (* [x] squared *)
    (eapply (wp_op_bind Hd w1 Mul _ _ s s); [eapply (impl_mono Hd); eauto|eapply (impl_mono Hd); eauto|]);
    intros w2 x' Hle2 Hx'.
  3: { (* xH: the last digit *)
    apply wp_ret. split; [eapply (ns_le_trans Hd); eauto|].
    eapply (ns_impl_eq _ _ _ _ _ Hd); [|eapply (impl_mono Hd); eauto]. simpl. ring. }
  (* xI, xO: the rest of the loop *)
  all: (eapply wp_mono; [apply (IH w2 r' x' _ _ (impl_mono Hd _ _ _ _ Hle2 Hr') Hx')|]);
    intros w3 y [Hle3 Hy]; (split; [eapply (ns_le_trans Hd); [|eapply (ns_le_trans Hd)]; eauto|]);
    (eapply (ns_impl_eq _ _ _ _ _ Hd); [|exact Hy]); cbn [binop_den].
  - (* xI *)
    rewrite Pos2Nat.inj_xI, sr_pow_sq.
    change (sr_pow s (Datatypes.S (2 * Pos.to_nat p)))
      with (s ⊗ sr_pow s (2 * Pos.to_nat p)).
    replace (2 * Pos.to_nat p) with (Pos.to_nat p + Pos.to_nat p) by lia. ring.
  - (* xO *)
    rewrite Pos2Nat.inj_xO, sr_pow_sq.
    replace (2 * Pos.to_nat p) with (Pos.to_nat p + Pos.to_nat p) by lia. ring.
Qed.
End monomial_proof.

Lemma monomial_denotes k : denotes (monomial k) (pow_expr (N.to_nat k)).
Proof.
  intros W Q A V le Ψ S impl d Hd w x r Hx. unfold monomial. cbn [eval_exp].
  destruct k as [|p]; simpl.
  - apply wp_ret. split; [apply (ns_le_refl Hd)|]. apply (ns_one _ _ _ _ _ Hd).
  - eapply wp_mono; [apply (pow_loop_spec Hd p w (one d) x 1 r (ns_one _ _ _ _ _ Hd w) Hx)|].
    intros w' y [Hle Hy]. split; [exact Hle|].
    eapply (ns_impl_eq _ _ _ _ _ Hd); [|exact Hy].
    rewrite eval1_pow_expr. destruct S as [? ? ? ? ? ? ? ? ? Sth]. simpl in *.
    apply (SRmul_1_l Sth).
Qed.

(** [diff (monomial k)] denotes [k·X^(k−1)].

    Informal proof: [diff_correct] and [monomial_denotes] give [(X^k)'];
    [pow_expr_deriv] is the identity [(X^k)' = k·X^(k−1)]. *)
Lemma diff_monomial k : denotes (diff (monomial k)) (pow_expr' (N.to_nat k)).
Proof.
  apply (denotes_ext _ (deriv (pow_expr (N.to_nat k)))); [intros S r; apply pow_expr_deriv|].
  apply diff_correct, monomial_denotes.
Qed.

(** The artifact's tests: [(monomial 8)(2) = 256], [(diff (monomial 4))(2) = 32]. *)
Example monomial_8_at_2 : run (eval_exp (monomial 8) _ _ _ (sr_dict nat_sr) 2) = Some 256.
Proof. reflexivity. Qed.
Example diff_monomial_4_at_2 : run (eval_exp (diff (monomial 4)) _ _ _ (sr_dict nat_sr) 2) = Some 32.
Proof. reflexivity. Qed.
Example diff_tape_monomial_5_at_3 :
  run (eval_exp (diff_tape (monomial 5)) _ _ _ (sr_dict nat_sr) 3) = Some 405.
Proof. reflexivity. Qed.

(** * Programs: polynomial expressions as data, and what the driver runs

    The extracted driver ([dbr-eval]) reads an expression as text and must
    turn it into an [exp] (a client, polymorphic in the dictionary).  A
    [prog] is that text's abstract syntax: [0], [1], natural constants,
    variables (de Bruijn levels: the [n] inputs are [0 … n−1], and the
    [let]s number on from [n], outermost first), [+], [×], natural powers and
    [let].  [run_prog d base tb lvl p] is the client's code: it runs [p]
    with the dictionary [d], the inputs [base], the [let]-bound values in
    the table [tb] (a lookup costs O(log n), whatever the nesting) and the
    next level [lvl]; constants are computed by doubling and powers by the
    paper's fast exponentiation ([pow_loop], Figure 3), as the Python
    library does, operation for operation.  [prog_expr env lvl p] is the
    mathematical expression [p] stands for (with [let] substituted).

    - [run_prog_spec]: for any dictionary satisfying [num_spec], [run_prog]
      implements [prog_expr] (no hypothesis on [p]).
    - [prog_denotes], [prog_mdenotes]: the clients [prog_exp p] (one
      variable) and [prog_mexp n p] ([n] variables) denote [prog_E p] and
      [prog_mE n p]; inputs past the last one stand for [0].
    - [driver_diff_correct], [driver_grad_correct]: what the driver computes,
      with any of the three implementations nested [n] times, is the [n]-th
      derivative of the expression, and the gradient. *)
From Coq Require Import List PeanoNat PArith NArith Lia.
From DefineByRun Require Import api table forward reverse tape grad clients.
Import ListNotations.

Local Open Scope sr_scope.

Inductive prog : Type :=
| PZero
| POne
| PNat (k : N)
| PVar (i : nat)
| PAdd (a b : prog)
| PMul (a b : prog)
| PPow (a : prog) (k : N)
| PLet (a b : prog).

(** Binding a level in an environment. *)
Definition eupd {T} (env : nat -> T) (k : nat) (x : T) : nat -> T :=
  fun j => if Nat.eqb j k then x else env j.

(** Every variable of [p] is bound, below level [n]. *)
Fixpoint scoped (n : nat) (p : prog) : bool :=
  match p with
  | PZero | POne | PNat _ => true
  | PVar i => Nat.ltb i n
  | PAdd a b | PMul a b => scoped n a && scoped n b
  | PPow a _ => scoped n a
  | PLet a b => scoped n a && scoped (S n) b
  end.

(** A variable: bound by a [let] (in the table), or an input. *)
Definition lookup {V} (base : nat -> V) (tb : table V) (i : nat) : V :=
  match tget tb i with Some v => v | None => base i end.

Lemma lookup_tset {V} (base : nat -> V) tb k x j :
  lookup base (tset tb k x) j = if Nat.eqb j k then x else lookup base tb j.
Proof. unfold lookup. rewrite tget_tset. destruct (Nat.eqb j k); reflexivity. Qed.

Section run.
Context {Q A V : Type} (d : dict Q A V).

(** A natural constant [k·1] by doubling, over the binary digits of [k],
    least significant first: [acc] is the sum so far ([None] before the
    first digit 1), [pw] the current power of two. *)
Fixpoint nat_loop (p : positive) (acc : option V) (pw : V) : tree Q A V :=
  match p with
  | xH => match acc with None => Ret pw | Some r => add d r pw end
  | xO p' => pw' <- add d pw pw ;; nat_loop p' acc pw'
  | xI p' =>
      r <- match acc with None => Ret pw | Some r => add d r pw end ;;
      pw' <- add d pw pw ;;
      nat_loop p' (Some r) pw'
  end.

Definition natural (k : N) : tree Q A V :=
  match k with N0 => Ret (zero d) | Npos p => nat_loop p None (one d) end.

(** [x^k], the loop of [monomial k]. *)
Definition power (x : V) (k : N) : tree Q A V :=
  match k with N0 => Ret (one d) | Npos p => pow_loop d p (one d) x end.

(** The client's code in continuation-passing style: [run_prog_k … p k]
    runs [p] and passes its value to [k].  Binds are associated to the
    right, so a request tree is traversed once: a left-nested sum of [n]
    terms costs O(n), where [x <- run a ;; …] would re-traverse the tree of
    [a] at each level (O(n²)). *)
Fixpoint run_prog_k {R} (base : nat -> V) (tb : table V) (lvl : nat) (p : prog)
    (k : V -> tree Q A R) : tree Q A R :=
  match p with
  | PZero => k (zero d)
  | POne => k (one d)
  | PNat n => bind (natural n) k
  | PVar i => k (lookup base tb i)
  | PAdd a b => run_prog_k base tb lvl a (fun x => run_prog_k base tb lvl b (fun y => bind (add d x y) k))
  | PMul a b => run_prog_k base tb lvl a (fun x => run_prog_k base tb lvl b (fun y => bind (mul d x y) k))
  | PPow a n => run_prog_k base tb lvl a (fun x => bind (power x n) k)
  | PLet a b => run_prog_k base tb lvl a (fun x => run_prog_k base (tset tb lvl x) (S lvl) b k)
  end.

Definition run_prog (base : nat -> V) (tb : table V) (lvl : nat) (p : prog) : tree Q A V :=
  run_prog_k base tb lvl p Ret.
End run.

(** The mathematical expressions of constants and powers. *)
Fixpoint enat {I} (k : nat) : expr I :=
  match k with 0 => Zero | S k => Node Add One (enat k) end.

Fixpoint epow {I} (E : expr I) (k : nat) : expr I :=
  match k with 0 => One | S k => Node Mul E (epow E k) end.

Fixpoint prog_expr {I} (env : nat -> expr I) (lvl : nat) (p : prog) : expr I :=
  match p with
  | PZero => Zero
  | POne => One
  | PNat k => enat (N.to_nat k)
  | PVar i => env i
  | PAdd a b => Node Add (prog_expr env lvl a) (prog_expr env lvl b)
  | PMul a b => Node Mul (prog_expr env lvl a) (prog_expr env lvl b)
  | PPow a k => epow (prog_expr env lvl a) (N.to_nat k)
  | PLet a b => prog_expr (eupd env lvl (prog_expr env lvl a)) (S lvl) b
  end.

Section eval_facts.
Context {I : Type} (S : semiring) (ρ : I -> S).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Lemma eval_enat k : eval ρ (enat k) ≡ sr_of_nat k.
Proof. induction k as [|k IH]; simpl; [reflexivity|]. rewrite IH. reflexivity. Qed.

Lemma eval_epow E k : eval ρ (epow E k) ≡ sr_pow (eval ρ E) k.
Proof. induction k as [|k IH]; simpl; [reflexivity|]. rewrite IH. reflexivity. Qed.
End eval_facts.

Section proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Let Hle_refl := ns_le_refl Hd.
Let Hle_trans := ns_le_trans Hd.

Lemma impl_eq w v s s' : s ≡ s' -> impl w v s -> impl w v s'.
Proof. apply (ns_impl_eq _ _ _ _ _ Hd). Qed.

(** The accumulator's value: [0] before the first digit. *)
Definition acc_val (acc : option S) : S := match acc with None => 0 | Some a => a end.

Definition acc_impl (w : W) (acc : option V) (a : option S) : Prop :=
  match acc, a with
  | None, None => True
  | Some v, Some s => impl w v s
  | _, _ => False
  end.

Lemma acc_impl_mono w w' acc a : le w w' -> acc_impl w acc a -> acc_impl w' acc a.
Proof. destruct acc, a; simpl; auto. apply (impl_mono Hd). Qed.

(** [nat_loop p acc pw] adds [p] times [pw] to the accumulator.

    Informal proof: by induction on [p]; a digit 1 adds the current power
    of two [s] to the accumulator, and the rest of the loop adds
    [p'·(s ⊕ s) = 2p'·s]. *)
Lemma nat_loop_spec p : forall w acc a pw s,
  acc_impl w acc a -> impl w pw s ->
  wp Ψ w (nat_loop d p acc pw)
    (fun w' y => le w w' /\ impl w' y (acc_val a ⊕ sr_of_nat (Pos.to_nat p) ⊗ s)).
Proof.
  induction p as [p IH|p IH|]; intros w acc a pw s Ha Hpw; cbn [nat_loop].
  - (* digit 1, then more digits *)
    rewrite Pos2Nat.inj_xI.
    assert (Hr : wp Ψ w (match acc with None => Ret pw | Some r => add d r pw end)
                   (fun w' r => le w w' /\ impl w' r (acc_val a ⊕ s))).
    { destruct acc as [r|], a as [sa|]; simpl in Ha |- *; try contradiction.
      - apply (ns_add _ _ _ _ _ Hd); assumption.
      - apply wp_ret. split; [apply Hle_refl|]. eapply impl_eq; [|exact Hpw]. ring. }
    apply wp_bind. eapply wp_mono; [exact Hr|]. intros w1 r [Hle1 Hr1].
    apply wp_bind. eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); apply (impl_mono Hd w w1); eauto|].
    intros w2 pw' [Hle2 Hpw'].
    eapply wp_mono; [apply (IH w2 (Some r) (Some (acc_val a ⊕ s)) pw' (s ⊕ s)); simpl;
                     [apply (impl_mono Hd w1 w2); auto|exact Hpw']|].
    intros w3 y [Hle3 Hy]. split; [eauto|]. eapply impl_eq; [|exact Hy]. cbn [acc_val].
    change (sr_of_nat (S := S) (Datatypes.S (2 * Pos.to_nat p))) with (sr_one (s := S) ⊕ sr_of_nat (S := S) (2 * Pos.to_nat p)).
    replace (2 * Pos.to_nat p) with (Pos.to_nat p + Pos.to_nat p) by lia.
    rewrite sr_of_nat_add. ring.
  - (* digit 0 *)
    rewrite Pos2Nat.inj_xO.
    apply wp_bind. eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); eauto|].
    intros w1 pw' [Hle1 Hpw'].
    eapply wp_mono; [apply (IH w1 acc a pw' (s ⊕ s)); [eapply acc_impl_mono; eauto|exact Hpw']|].
    intros w2 y [Hle2 Hy]. split; [eauto|]. eapply impl_eq; [|exact Hy].
    replace (2 * Pos.to_nat p) with (Pos.to_nat p + Pos.to_nat p) by lia.
    rewrite sr_of_nat_add. ring.
  - (* the last digit *)
    destruct acc as [r|], a as [sa|]; simpl in Ha |- *; try contradiction.
    + eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); eauto|].
      intros w' y [Hle Hy]. split; [exact Hle|]. eapply impl_eq; [|exact Hy]. ring.
    + apply wp_ret. split; [apply Hle_refl|]. eapply impl_eq; [|exact Hpw]. ring.
Qed.

Lemma natural_spec w k :
  wp Ψ w (natural d k) (fun w' y => le w w' /\ impl w' y (sr_of_nat (N.to_nat k))).
Proof.
  destruct k as [|p]; simpl.
  - apply wp_ret. split; [apply Hle_refl|]. apply (ns_zero _ _ _ _ _ Hd).
  - eapply wp_mono; [apply (nat_loop_spec p w None None (one d) 1); [exact I|apply (ns_one _ _ _ _ _ Hd)]|].
    intros w' y [Hle Hy]. split; [exact Hle|]. eapply impl_eq; [|exact Hy]. simpl. ring.
Qed.

Lemma power_spec w x s k :
  impl w x s -> wp Ψ w (power d x k) (fun w' y => le w w' /\ impl w' y (sr_pow s (N.to_nat k))).
Proof.
  intros Hx. destruct k as [|p]; simpl.
  - apply wp_ret. split; [apply Hle_refl|]. apply (ns_one _ _ _ _ _ Hd).
  - eapply wp_mono; [apply (pow_loop_spec Hd p w (one d) x 1 s (ns_one _ _ _ _ _ Hd w) Hx)|].
    intros w' y [Hle Hy]. split; [exact Hle|]. eapply impl_eq; [|exact Hy]. ring.
Qed.

(** [run_prog_k … p k] is safe when [k] is, given a value implementing
    [prog_expr] of [p]. *)
Lemma run_prog_k_spec {I R} (ρ : I -> S) (base : nat -> V) p :
  forall w tb lvl (envE : nat -> expr I) (k : V -> tree Q A R) Φ,
  (forall i, impl w (lookup base tb i) (eval ρ (envE i))) ->
  (forall w' y, le w w' -> impl w' y (eval ρ (prog_expr envE lvl p)) -> wp Ψ w' (k y) Φ) ->
  wp Ψ w (run_prog_k d base tb lvl p k) Φ.
Proof.
  induction p as [| |n|i|a IHa b IHb|a IHa b IHb|a IHa n|a IHa b IHb];
    intros w tb lvl envE k Φ Henv Hk; cbn [run_prog_k prog_expr].
  (* sum and product: the operands in turn, then the operation *)
  5-6: apply (IHa w tb lvl envE _ Φ Henv); intros w1 x Hle1 Hx;
    apply (IHb w1 tb lvl envE _ Φ); [intros i; apply (impl_mono Hd w w1); auto|];
    intros w2 y Hle2 Hy; apply wp_bind;
    eapply wp_mono;
    [first [apply (ns_add _ _ _ _ _ Hd) | apply (ns_mul _ _ _ _ _ Hd)]; [apply (impl_mono Hd w1 w2)|]; eauto|];
    intros w3 z [Hle3 Hz]; apply Hk; [eauto|exact Hz].
  - apply Hk; [apply Hle_refl|apply (ns_zero _ _ _ _ _ Hd)].
  - apply Hk; [apply Hle_refl|apply (ns_one _ _ _ _ _ Hd)].
  - apply wp_bind. eapply wp_mono; [apply natural_spec|]. intros w' y [Hle Hy].
    apply Hk; [exact Hle|]. eapply impl_eq; [|exact Hy]. symmetry. apply eval_enat.
  - apply Hk; [apply Hle_refl|apply Henv].
  - apply (IHa w tb lvl envE _ Φ Henv). intros w1 x Hle1 Hx. apply wp_bind.
    eapply wp_mono; [apply (power_spec w1 x _ n Hx)|]. intros w2 y [Hle2 Hy].
    apply Hk; [eauto|]. eapply impl_eq; [|exact Hy]. symmetry. apply eval_epow.
  - apply (IHa w tb lvl envE _ Φ Henv). intros w1 x Hle1 Hx.
    apply (IHb w1 (tset tb lvl x) (Datatypes.S lvl) (eupd envE lvl (prog_expr envE lvl a)) k Φ).
    { intros i. rewrite lookup_tset. unfold eupd.
      destruct (Nat.eqb i lvl); [exact Hx|]. apply (impl_mono Hd w w1); auto. }
    intros w2 y Hle2 Hy. apply Hk; [eauto|exact Hy].
Qed.

(** [run_prog] implements [prog_expr], in every environment whose values
    implement the expressions' values.

    Informal proof: [run_prog_k_spec] with the continuation [Ret]; that
    lemma is by induction on [p]: each operation is the dictionary's,
    which [num_spec] specifies; constants and powers are [natural_spec]
    and [power_spec]; a [let] extends both environments with the value and
    the expression of its right-hand side. *)
Lemma run_prog_spec {I} (ρ : I -> S) (base : nat -> V) p : forall w tb lvl (envE : nat -> expr I),
  (forall i, impl w (lookup base tb i) (eval ρ (envE i))) ->
  wp Ψ w (run_prog d base tb lvl p) (fun w' y => le w w' /\ impl w' y (eval ρ (prog_expr envE lvl p))).
Proof.
  intros w tb lvl envE Henv. apply (run_prog_k_spec ρ base p w tb lvl envE); [exact Henv|].
  intros w' y Hle Hy. apply wp_ret. auto.
Qed.
End proof.

(** ** The clients of the driver *)

(** One variable, level 0; the [let]s number from 1; other levels stand
    for [0]. *)
Definition prog_exp (p : prog) : exp :=
  MkExp (fun Q A V d x =>
    run_prog d (fun i => if Nat.eqb i 0 then x else zero d) TEmpty 1 p).

Definition prog_E (p : prog) : expr unit :=
  prog_expr (fun i => if Nat.eqb i 0 then X else Zero) 1 p.

Theorem prog_denotes p : denotes (prog_exp p) (prog_E p).
Proof.
  intros W Q A V le Ψ S impl d Hd w x r Hx. cbn [eval_exp prog_exp]. unfold eval1, prog_E.
  apply (run_prog_spec Hd (fun _ => r) _ p w).
  intros i. unfold lookup. simpl. destruct (Nat.eqb i 0); [exact Hx|apply (ns_zero _ _ _ _ _ Hd)].
Qed.

(** [n] variables: input [i] is [Leaf i]; the [let]s number from [n]. *)
Definition prog_mexp (n : nat) (p : prog) : mexp :=
  MkMexp (fun Q A V d xs => run_prog d (fun i => nth i xs (zero d)) TEmpty n p).

Definition prog_mE (n : nat) (p : prog) : expr nat := prog_expr Leaf n p.

Lemma Forall2_nth_default {W V} {S : semiring} (impl : W -> V -> S -> Prop) w (z : V)
    (Hz : impl w z 0) xs (rs : list S) :
  Forall2 (impl w) xs rs -> forall i, impl w (nth i xs z) (nth i rs 0).
Proof.
  intros H. induction H as [|x r xs rs Hxr H IH]; intros [|i]; simpl; auto.
Qed.

Theorem prog_mdenotes n p : mdenotes (prog_mexp n p) (prog_mE n p).
Proof.
  intros W Q A V le Ψ S impl d Hd w xs rs Hxs. cbn [eval_mexp prog_mexp]. unfold prog_mE.
  apply (run_prog_spec Hd (fun i => nth i rs 0) _ p w).
  intros i. unfold lookup. simpl.
  apply Forall2_nth_default; [apply (ns_zero _ _ _ _ _ Hd)|exact Hxs].
Qed.

(** ** What the driver runs *)

(** The three implementations of [diff]. *)
Inductive mode : Type := Handlers | Tape | Forward.

Definition diff_by (m : mode) : exp -> exp :=
  match m with Handlers => diff | Tape => diff_tape | Forward => diff_fwd end.

Lemma diff_by_correct m e E : denotes e E -> denotes (diff_by m e) (deriv E).
Proof. destruct m; [apply diff_correct|apply diff_tape_correct|apply diff_fwd_correct]. Qed.

(** The driver's [n]-th derivative: [diff_by m] applied [n] times. *)
Definition driver_diff (m : mode) (n : nat) (p : prog) : exp := Nat.iter n (diff_by m) (prog_exp p).

(** The driver's [n]-th derivative denotes the [n]-th symbolic derivative
    of the expression, with every implementation. *)
Theorem driver_diff_correct m n p : denotes (driver_diff m n p) (deriv_n n (prog_E p)).
Proof.
  unfold driver_diff. induction n as [|n IH]; simpl; [apply prog_denotes|].
  apply diff_by_correct, IH.
Qed.

(** Run with a pure dictionary, it computes the [n]-th derivative at [r]
    in the semiring, and performs no request. *)
Corollary driver_diff_run m n p (S : semiring) (r : S) :
  exists y, eval_exp (driver_diff m n p) _ _ _ (sr_dict S) r = Ret y
            /\ y ≡ eval1 r (deriv_n n (prog_E p)).
Proof. apply denotes_run, driver_diff_correct. Qed.

(** The driver's gradient: [grad] of the program; its [j]-th component
    implements [∂E/∂j]. *)
Definition driver_grad (n : nat) (p : prog) : forall Q A V, dict Q A V -> list V -> tree Q A (list V) :=
  grad (prog_mexp n p).

Theorem driver_grad_correct n p :
  forall (W Q A V : Type) (le : W -> W -> Prop) (Ψ : W -> Q -> (W -> A -> Prop) -> Prop)
         (S : semiring) (impl : W -> V -> S -> Prop) (d : dict Q A V),
  num_spec le Ψ S impl d ->
  forall w xs (rs : list S), Forall2 (impl w) xs rs ->
  wp Ψ w (driver_grad n p Q A V d xs) (fun w' ys => le w w' /\
    Forall2 (impl w') ys
      (map (fun j => eval (fun i => nth i rs 0) (sderiv Nat.eq_dec (prog_mE n p) j))
           (seq 0 (length xs)))).
Proof. intros. apply grad_correct; [apply prog_mdenotes|assumption..]. Qed.

(** The value of a program itself (order 0, several variables). *)
Definition driver_eval (n : nat) (p : prog) : forall Q A V, dict Q A V -> list V -> tree Q A V :=
  eval_mexp (prog_mexp n p).

(** A pure dictionary given by its operations: what the driver builds
    from exact integers, rationals or floats. *)
Definition pure_dict {V} (z o : V) (a m : V -> V -> V) : dict Empty_set Empty_set V := {|
  zero := z; one := o; add := fun x y => Ret (a x y); mul := fun x y => Ret (m x y);
|}.

(** A pure dictionary is [sr_dict] of the semiring it computes in. *)
Lemma pure_dict_sr (S : semiring) : pure_dict sr_zero sr_one sr_add sr_mul = sr_dict S.
Proof. reflexivity. Qed.

(** ** The entry points of the extracted driver

    With a pure dictionary (no request), each returns [Some] result; the
    corollaries say which, in every commutative semiring (the driver's
    exact integers and rationals are such semirings; its floats are not,
    and are checked against independent references instead). *)
Definition dbr_diff (m : mode) (n : nat) (p : prog) {V} (d : dict Empty_set Empty_set V) (x : V)
    : option V :=
  run (eval_exp (driver_diff m n p) _ _ _ d x).

Definition dbr_grad (n : nat) (p : prog) {V} (d : dict Empty_set Empty_set V) (xs : list V)
    : option (list V) :=
  run (driver_grad n p _ _ _ d xs).

Definition dbr_eval (n : nat) (p : prog) {V} (d : dict Empty_set Empty_set V) (xs : list V)
    : option V :=
  run (driver_eval n p _ _ _ d xs).

Corollary dbr_diff_correct m n p (S : semiring) (r : S) :
  exists y, dbr_diff m n p (sr_dict S) r = Some y /\ y ≡ eval1 r (deriv_n n (prog_E p)).
Proof.
  destruct (driver_diff_run m n p S r) as (y & Hy & HyE). exists y.
  unfold dbr_diff. rewrite Hy. auto.
Qed.

Lemma Forall2_refl_eq (S : semiring) (rs : list S) : Forall2 (fun v s => v ≡ s) rs rs.
Proof. induction rs; constructor; [reflexivity|assumption]. Qed.

Corollary dbr_grad_correct n p (S : semiring) (rs : list S) :
  exists ys, dbr_grad n p (sr_dict S) rs = Some ys /\
    Forall2 sr_eq ys
      (map (fun j => eval (fun i => nth i rs 0) (sderiv Nat.eq_dec (prog_mE n p) j))
           (seq 0 (length rs))).
Proof.
  destruct (wp_no_effect _ _ _
    (driver_grad_correct n p unit Empty_set Empty_set S (fun _ _ => True) no_effect S
       (fun _ v s => v ≡ s) (sr_dict S) (sr_dict_spec S) tt rs rs (Forall2_refl_eq S rs)))
    as (ys & Hys & _ & H).
  exists ys. unfold dbr_grad. rewrite Hys. auto.
Qed.

Corollary dbr_eval_correct n p (S : semiring) (rs : list S) :
  exists y, dbr_eval n p (sr_dict S) rs = Some y /\ y ≡ eval (fun i => nth i rs 0) (prog_mE n p).
Proof.
  destruct (wp_no_effect _ _ _
    (prog_mdenotes n p unit Empty_set Empty_set S (fun _ _ => True) no_effect S
       (fun _ v s => v ≡ s) (sr_dict S) (sr_dict_spec S) tt rs rs (Forall2_refl_eq S rs)))
    as (y & Hy & _ & H).
  exists y. unfold dbr_eval, driver_eval. rewrite Hy. auto.
Qed.

(** * The signature of the executable [pullback-eval]

    Function symbols [add, mul : R² → R] and [neg, sin, cos, exp, sq : R → R]
    with their values, Jacobians and transposed Jacobians, written over the
    operations of a record [scalar_ops K] (zero, [+], [×], negation, sine,
    cosine, exponential), so that they hold for any scalars:
<<
    J add (a,b) (v1,v2) = v1 + v2         (J add)ᵀ c = (c, c)
    J mul (a,b) (v1,v2) = b v1 + a v2     (J mul (a,b))ᵀ c = (b c, a c)
    J neg a v = −v                        J sin a v = cos a · v
    J cos a v = −(sin a) · v              J exp a v = exp a · v
    J sq a v = (a + a) · v
>>
    A missing entry of a tuple (the zero tuple [NZ] of [num], which
    back-propagation starts from) reads as zero.  The typing obligations of
    the [signature] class are proved ([esem_ty], [ejac_ty], [ejac_t_ty]).
    [extraction.v] instantiates [K] with OCaml's floats. *)
From Pullback Require Import syntax.

Record scalar_ops (K : Type) : Type := {
  k_zero : K;
  k_add : K -> K -> K;
  k_mul : K -> K -> K;
  k_neg : K -> K;
  k_sin : K -> K;
  k_cos : K -> K;
  k_exp : K -> K;
}.
Arguments k_zero {K} _.
Arguments k_add {K} _ _ _.
Arguments k_mul {K} _ _ _.
Arguments k_neg {K} _ _.
Arguments k_sin {K} _ _.
Arguments k_cos {K} _ _.
Arguments k_exp {K} _ _.

Inductive fprim : Type := Padd | Pmul | Pneg | Psin | Pcos | Pexp | Psq.

Definition edom (f : fprim) : nat := match f with Padd | Pmul => 2 | _ => 1 end.
Definition ecod (f : fprim) : nat := 1.

Section exec.
Context {K : Type} (o : scalar_ops K).

Notation "x + y" := (k_add o x y).
Notation "x * y" := (k_mul o x y).

(** A scalar, and a pair of scalars, read off a tuple. *)
Definition ecp (a : num K) : K := match a with NR z => z | _ => k_zero o end.
Definition epr (a : num K) : K * K :=
  match a with NP a1 a2 => (ecp a1, ecp a2) | _ => (k_zero o, k_zero o) end.

Definition esem (f : fprim) (x : num K) : num K :=
  match f with
  | Padd => let (a, b) := epr x in NR (a + b)
  | Pmul => let (a, b) := epr x in NR (a * b)
  | Pneg => NR (k_neg o (ecp x))
  | Psin => NR (k_sin o (ecp x))
  | Pcos => NR (k_cos o (ecp x))
  | Pexp => NR (k_exp o (ecp x))
  | Psq => NR (ecp x * ecp x)
  end.

(** [J(f)(x)(v)] *)
Definition ejac (f : fprim) (x v : num K) : num K :=
  match f with
  | Padd => let (v1, v2) := epr v in NR (v1 + v2)
  | Pmul => let (a, b) := epr x in let (v1, v2) := epr v in NR (b * v1 + a * v2)
  | Pneg => NR (k_neg o (ecp v))
  | Psin => NR (k_cos o (ecp x) * ecp v)
  | Pcos => NR (k_neg o (k_sin o (ecp x)) * ecp v)
  | Pexp => NR (k_exp o (ecp x) * ecp v)
  | Psq => NR ((ecp x + ecp x) * ecp v)
  end.

(** [(J(f)(x))ᵀ c]; a function of one scalar to one scalar is its own
    transpose, [J(f)(x)(c)]. *)
Definition ejac_t (f : fprim) (x c : num K) : num K :=
  match f with
  | Padd => NP (NR (ecp c)) (NR (ecp c))
  | Pmul => let (a, b) := epr x in NP (NR (b * ecp c)) (NR (a * ecp c))
  | Pneg | Psin | Pcos | Pexp | Psq => ejac f x c
  end.

Ltac eshape_ok := unfold esem, ejac, ejac_t;
  repeat match goal with |- context [epr ?x] => destruct (epr x) end; repeat constructor.

Lemma esem_ty f x : num_ty x (Rn (edom f)) -> num_ty (esem f x) (Rn (ecod f)).
Proof. intros _. destruct f; simpl; eshape_ok. Qed.

Lemma ejac_ty f x v :
  num_ty x (Rn (edom f)) -> num_ty v (Rn (edom f)) -> num_ty (ejac f x v) (Rn (ecod f)).
Proof. intros _ _. destruct f; simpl; eshape_ok. Qed.

Lemma ejac_t_ty f x c :
  num_ty x (Rn (edom f)) -> num_ty c (Rn (ecod f)) -> num_ty (ejac_t f x c) (Rn (edom f)).
Proof. intros _ _. destruct f; simpl; eshape_ok. Qed.

Definition exec_sig : signature := {|
  scalar := K; szero := k_zero o; sadd := k_add o; smul := k_mul o;
  fsym := fprim; fdom := edom; fcod := ecod;
  fsem := esem; fjac := ejac; fjac_t := ejac_t;
  fsem_ty := esem_ty; fjac_ty := ejac_ty; fjac_t_ty := ejac_t_ty;
|}.

End exec.

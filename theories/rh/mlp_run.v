(** * The §5.3 run of the MLP with [H_train], as a theorem

    The paper's §5.3 ends with the run of the MLP under the training
    handler (spec §9.1):
<<
    ([ℓ0 ↦ m0, ℓ1 ↦ m1], rev handle(v)<x_in>.R_MLP with H_MLP)
      →* ([ℓ0 ↦ m0 − u'_1 (vᵀ), ℓ1 ↦ m1 − α(m1 v1 − t)(v1ᵀ)], ⌊V⌋)    where V is a value
>>
    with [v1 = swish(m0 v)] and [u'_1 = rd[swish](<m0 v, m1ᵀ α(m1 v1 − t)>)]
    (spec §9.1, hand trace; [H_MLP = H_train]).

    Here the run is computed, not traced by hand:
    - the scalars are the free term algebra [sx] of the scalar signature
      of [instance.v] ([scalar_ops]) over symbols for the entries of
      [m0], [m1], [v], [t] and for [α]; running the program computes the
      expression of every heap entry;
    - the program is [P_MLP] of [examples.v] (the paper's [R_MLP] with
      [H_train]), instantiated with the executable signature of
      [instance.v] over the list model of vectors of such terms
      ([list_vec_ops]), with the shapes of [examples/sexp/mlp_step.sexp]:
      [ℓ0 :: (3, 4)], [ℓ1 :: (4, 2)], so [m0] is 4×3, [m1] is 2×4, [v]
      has 3 entries and [t] 2;
    - the expected heap is written independently of the evaluator: from
      the symbols, with the paper's formulas, by matrix functions of this
      file ([mmul], [msub], [mtr], ...) on index functions, never through
      [list_vec_ops] or [exec_ev];
    - the two agree up to the unit laws [0 + x = x = x + 0] of the monoid
      [(+, 0)] of constants (paper §5.1): the evaluator's heap has a [0 +]
      at the start of every sum of a matrix product ([vdot] folds from
      [0]) and where [RH] adds the zero cotangent of the rest of the
      program (RH-2's [y'_k + y''], RH-4's [y'_i + y''_i]); the paper's
      printed heap has none.  [nf] removes exactly these units, and
      [nf_sound] shows it changes no value in any scalar structure where
      the unit laws hold.  [mlp_run_heap_not_literal] shows the
      normalization is needed.

    Reading conventions of the expected side (the paper writes products
    by juxtaposition): [sigm(x) = 1 / (1 + exp(0 − x))] (the scalar
    signature has no negation), [swish(x) = x·sigm(x)],
    [rd[swish](x, u) = u·(sigm(x) + x·(sigm(x)·(1 − sigm(x))))] (paper
    §5.3's [Ev(rd[swish_n], <v, u>)], its triple product read
    right-nested), and a sum [Σ_{k<n} f(k)] is [f(0) + … + f(n−1)],
    left-nested. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem examples typecheck interp interp_facts instance.

(** ** Symbolic scalars: terms over the scalar signature *)

(** The symbols: [M0e i j] is [m0]'s entry [(i, j)], [M1e i j] is [m1]'s,
    [Ve j] is [v]'s entry [j], [Te i] is [t]'s, [Alpha] is [α]. *)
Inductive sym : Type :=
| M0e (i j : nat)
| M1e (i j : nat)
| Ve (j : nat)
| Te (i : nat)
| Alpha.

(** Scalar expressions: the free term algebra of [scalar_ops] (the
    comparison [s_lt] returns a boolean, not a scalar, so it has no
    constructor). *)
Inductive sx : Type :=
| Sym (s : sym)
| SZero
| SOne
| SAdd (a b : sx)
| SSub (a b : sx)
| SMul (a b : sx)
| SDiv (a b : sx)
| SExp (a : sx)
| SLog (a : sx)
| STanh (a : sx)
| SRound (a : sx).

(** The scalar operations build terms.  A comparison of two terms cannot
    be decided; [s_lt] answers [false], and the MLP uses no primitive that
    compares (only [maxpool], [relu] and [sce] do). *)
Definition sx_scalars : scalar_ops sx := {|
  s_zero := SZero; s_czero := SZero; s_one := SOne; s_add := SAdd; s_sub := SSub; s_mul := SMul;
  s_div := SDiv; s_exp := SExp; s_log := SLog; s_tanh := STanh; s_round := SRound;
  s_lt := fun _ _ => false;
|}.

(** ** Normalization by the unit laws of [(+, 0)] *)
Fixpoint nf (e : sx) : sx :=
  match e with
  | SAdd a b =>
      match nf a, nf b with
      | SZero, b' => b'
      | a', SZero => a'
      | a', b' => SAdd a' b'
      end
  | SSub a b => SSub (nf a) (nf b)
  | SMul a b => SMul (nf a) (nf b)
  | SDiv a b => SDiv (nf a) (nf b)
  | SExp a => SExp (nf a)
  | SLog a => SLog (nf a)
  | STanh a => STanh (nf a)
  | SRound a => SRound (nf a)
  | e => e
  end.

(** The value of a term in a scalar structure, the symbols given by [env]. *)
Fixpoint sx_eval {A : Type} (sc : scalar_ops A) (env : sym -> A) (e : sx) : A :=
  match e with
  | Sym s => env s
  | SZero => s_zero sc
  | SOne => s_one sc
  | SAdd a b => s_add sc (sx_eval sc env a) (sx_eval sc env b)
  | SSub a b => s_sub sc (sx_eval sc env a) (sx_eval sc env b)
  | SMul a b => s_mul sc (sx_eval sc env a) (sx_eval sc env b)
  | SDiv a b => s_div sc (sx_eval sc env a) (sx_eval sc env b)
  | SExp a => s_exp sc (sx_eval sc env a)
  | SLog a => s_log sc (sx_eval sc env a)
  | STanh a => s_tanh sc (sx_eval sc env a)
  | SRound a => s_round sc (sx_eval sc env a)
  end.

(** [nf] is sound: in every scalar structure where [0] is a unit of [+],
    a term and its normal form have the same value. *)
Lemma nf_sound {A : Type} (sc : scalar_ops A) (env : sym -> A) :
  (forall x, s_add sc (s_zero sc) x = x) ->
  (forall x, s_add sc x (s_zero sc) = x) ->
  forall e, sx_eval sc env (nf e) = sx_eval sc env e.
Proof.
  intros Hl Hr. induction e as [s| | |a IHa b IHb|a IHa b IHb|a IHa b IHb|a IHa b IHb|a IHa|a IHa|a IHa|a IHa];
    simpl; try congruence.
  rewrite <- IHa, <- IHb.
  destruct (nf a) eqn:Ha; destruct (nf b) eqn:Hb; simpl; rewrite ?Hl, ?Hr; reflexivity.
Qed.

(** ** The program: [P_MLP] of [examples.v] over symbolic scalars *)

Definition sx_vecs : vec_ops (list sx) := list_vec_ops sx_scalars.
#[local] Instance sx_sorts : sorts := exec_sorts (list sx).

(** [ℓ0 :: (n_in, n_hid)] holds [m0], an [n_hid × n_in] matrix;
    [ℓ1 :: (n_hid, n_out)] holds [m1], an [n_out × n_hid] matrix. *)
Definition n_in : nat := 3.
Definition n_hid : nat := 4.
Definition n_out : nat := 2.
Definition l0 : loc := 0.
Definition l1 : loc := 1.

(** Operations [FC[ℓ0] : Real(n_in) ▷ Real(n_hid)] (index 0) and
    [FC[ℓ1] : Real(n_hid) ▷ Real(n_out)] (index 1); locations [ℓ0], [ℓ1]. *)
Definition mlp_decls : list (ty * ty) := [(TBase n_in, TBase n_hid); (TBase n_hid, TBase n_out)].
Definition mlp_locs : list nat := [n_hid * n_in; n_out * n_hid].
#[local] Instance sx_sig : signature := exec_signature sx_vecs mlp_decls mlp_locs.
#[local] Instance sx_ev : evaluator := exec_evaluator sx_vecs.

Definition mlp_shape (l : loc) : nat * nat :=
  match l with 0 => (n_in, n_hid) | _ => (n_hid, n_out) end.

(** ** Matrices of symbolic scalars, independently of the evaluator: a
    matrix is its function of indices; [flat r c A] lists the entries of
    the [r × c] matrix [A] row after row (the layout of [Real(r·c)],
    decisions.md item 4).  A vector is a matrix with one column. *)
Definition mx : Type := nat -> nat -> sx.

Definition flat (r c : nat) (A : mx) : list sx :=
  concat (map (fun i => map (fun j => A i j) (seq 0 c)) (seq 0 r)).

(** [Σ_{k<n} f(k) = f(0) + … + f(n−1)], left-nested ([0] for [n = 0]). *)
Fixpoint msum (n : nat) (f : nat -> sx) : sx :=
  match n with
  | 0 => SZero
  | 1 => f 0
  | S n' => SAdd (msum n' f) (f n')
  end.

(** [A B] for an inner dimension [n]; [A − B]; [Aᵀ]; [a A]; [f] entrywise. *)
Definition mmul (n : nat) (A B : mx) : mx := fun i j => msum n (fun k => SMul (A i k) (B k j)).
Definition msub (A B : mx) : mx := fun i j => SSub (A i j) (B i j).
Definition mtr (A : mx) : mx := fun i j => A j i.
Definition mscale (a : sx) (A : mx) : mx := fun i j => SMul a (A i j).

(** Notations for them ([vᵀ] is read as an identifier: write [v ᵀ]). *)
Declare Scope mx_scope.
Delimit Scope mx_scope with mx.
Notation "A − B" := (msub A B) (at level 50, left associativity) : mx_scope.
Notation "A ⋅[ n ] B" := (mmul n A B) (at level 40, left associativity, format "A  ⋅[ n ]  B") : mx_scope.
Notation "a · A" := (mscale a A) (at level 40, A at level 39) : mx_scope.
Notation "A 'ᵀ'" := (mtr A) (at level 1, left associativity, format "A 'ᵀ'") : mx_scope.
Local Open Scope mx_scope.

(** The logistic function, swish and the [rd] of swish of §5.3:
    [Ev(swish_n, v) = (v_i·sigm(v_i))_i] ([sigm] is [logistic]),
    [Ev(rd[swish_n], <v, u>) = (u_i (sigm(v_i) + v_i sigm(v_i)(1 − sigm(v_i))))_i]. *)
Definition logistic (x : sx) : sx := SDiv SOne (SAdd SOne (SExp (SSub SZero x))).
Definition swish_m (X : mx) : mx := fun i j => SMul (X i j) (logistic (X i j)).
Definition rd_swish_m (X U : mx) : mx := fun i j =>
  SMul (U i j) (SAdd (logistic (X i j)) (SMul (X i j) (SMul (logistic (X i j)) (SSub SOne (logistic (X i j)))))).

(** The symbolic inputs. *)
Definition m0 : mx := fun i j => Sym (M0e i j).
Definition m1 : mx := fun i j => Sym (M1e i j).
Definition v : mx := fun j _ => Sym (Ve j).
Definition t : mx := fun i _ => Sym (Te i).
Definition α : sx := Sym Alpha.

(** The intermediate values of the paper's formula:
    [v1 = swish(m0 v)], [u = α(m1 v1 − t)] (the return clause of
    [H_train]) and [u'_1 = rd[swish](<m0 v, m1ᵀ u>)]. *)
Definition v1 : mx := swish_m (m0 ⋅[n_in] v).
Definition u : mx := α · (m1 ⋅[n_hid] v1 − t).
Definition u'1 : mx := rd_swish_m (m0 ⋅[n_in] v) (m1 ᵀ ⋅[n_out] u).

(** The initial configuration: [[ℓ0 ↦ m0, ℓ1 ↦ m1]] and
    [rev handle(v)<x_in>.R_MLP with H_train[α, t]]. *)
Definition hp0 : heap := [(l0, (n_hid * n_in, flat n_hid n_in m0)); (l1, (n_out * n_hid, flat n_out n_hid m1))].

Definition P_sym : cmd :=
  P_MLP (fun n => n) (fun n => (0, PSwish n)) (fun n => (0, PSmul n)) (fun n => (0, PSub n))
    (fun m n k => (0, PMatmul m n k)) (fun m n => (0, PTranspose m n)) mlp_shape (fun l => l)
    n_out (1, [α]) (n_out, flat n_out 1 t) l0 l1 (n_in, flat n_in 1 v).

Lemma P_sym_typed : typed_cmd [] P_sym (TProd [TBase n_in]).
Proof. apply check_cmd_correct. vm_compute. reflexivity. Qed.

Lemma hp0_ok : heap_ok hp0.
Proof. repeat constructor. Qed.

(** The heap the paper prints:
    [[ℓ0 ↦ m0 − u'_1 (vᵀ), ℓ1 ↦ m1 − α(m1 v1 − t)(v1ᵀ)]], the products
    [u'_1 (vᵀ)] and [α(m1 v1 − t)(v1ᵀ)] of a column by a row having the
    inner dimension 1. *)
Definition paper_heap : heap :=
  [(l0, (n_hid * n_in, flat n_hid n_in (m0 − u'1 ⋅[1] v ᵀ)));
   (l1, (n_out * n_hid, flat n_out n_hid (m1 − α · (m1 ⋅[n_hid] v1 − t) ⋅[1] v1 ᵀ)))].

(** [nf] on every scalar of a heap. *)
Definition heap_nf (hp : heap) : heap :=
  map (fun lc => (fst lc, (fst (snd lc), map nf (snd (snd lc))))) hp.

(** [0 + x] or [x + 0] somewhere in a term, in a heap. *)
Fixpoint has_unit (e : sx) : bool :=
  match e with
  | SAdd SZero _ | SAdd _ SZero => true
  | SAdd a b | SSub a b | SMul a b | SDiv a b => has_unit a || has_unit b
  | SExp a | SRound a => has_unit a
  | _ => false
  end.
Definition heap_has_unit (hp : heap) : bool :=
  existsb (fun lc => existsb has_unit (snd (snd lc))) hp.

(** The computations, checked by [vm_compute] without writing the
    computed heap into the proof. *)
Lemma mlp_run_nf :
  match run 100 0 hp0 P_sym with RDone hp _ _ => heap_nf hp = paper_heap | _ => False end.
Proof. vm_cast_no_check (eq_refl paper_heap). Qed.

Lemma mlp_run_units :
  match run 100 0 hp0 P_sym with RDone hp _ _ => heap_has_unit hp = true | _ => False end.
Proof. vm_cast_no_check (eq_refl true). Qed.

Lemma paper_heap_no_unit : heap_has_unit paper_heap = false.
Proof. vm_cast_no_check (eq_refl false). Qed.

(** ** The theorem: the paper's §5.3 run
<<
    ([ℓ0 ↦ m0, ℓ1 ↦ m1], rev handle(v)<x_in>.R_MLP with H_MLP)
      →* ([ℓ0 ↦ m0 − u'_1 (vᵀ), ℓ1 ↦ m1 − α(m1 v1 − t)(v1ᵀ)], ⌊V⌋)    where V is a value
>>
    The evaluator [run] ends with a value [V] and a heap [hp] which, up to
    the unit laws of [(+, 0)] ([heap_nf]), is the paper's heap, entry for
    entry, as terms. *)
Theorem mlp_run_heap :
  exists hp V n, run 100 0 hp0 P_sym = RDone hp V n /\
    heap_nf hp = [(l0, (n_hid * n_in, flat n_hid n_in (m0 − u'1 ⋅[1] v ᵀ)));
                  (l1, (n_out * n_hid, flat n_out n_hid (m1 − α · (m1 ⋅[n_hid] v1 − t) ⋅[1] v1 ᵀ)))].
Proof.
  pose proof mlp_run_nf as Hnf.
  destruct (run 100 0 hp0 P_sym) as [hp V n| | | |]; try contradiction. eauto.
Qed.

(** The same as a reduction of the small-step semantics with heaps
    ([steps_conf], through [run_sound]). *)
Theorem mlp_run_steps :
  exists hp V, steps_conf hp0 P_sym hp (Ret V) /\ value V /\ heap_nf hp = paper_heap.
Proof.
  destruct mlp_run_heap as (hp & V & n & Hrun & Hnf).
  pose proof (run_sound 100 0 hp0 P_sym) as Hs. rewrite Hrun in Hs.
  destruct Hs as [Hsteps Hval]. eauto.
Qed.

(** What [heap_nf] means: in every scalar structure where [0] is a unit of
    [+] (the monoid of constants of the paper's §5.1), for every value of
    the symbols, the computed heap holds the values of the paper's
    formulas. *)
Definition heap_eval {A : Type} (sc : scalar_ops A) (env : sym -> A) (hp : heap) : list (loc * list A) :=
  map (fun lc => (fst lc, map (sx_eval sc env) (snd (snd lc)))) hp.

Corollary mlp_run_values {A : Type} (sc : scalar_ops A) (env : sym -> A) :
  (forall x, s_add sc (s_zero sc) x = x) ->
  (forall x, s_add sc x (s_zero sc) = x) ->
  exists hp V n, run 100 0 hp0 P_sym = RDone hp V n /\ heap_eval sc env hp = heap_eval sc env paper_heap.
Proof.
  intros Hl Hr. destruct mlp_run_heap as (hp & V & n & Hrun & Hnf).
  change (heap_nf hp = paper_heap) in Hnf.
  exists hp, V, n. split; [exact Hrun|]. rewrite <- Hnf. unfold heap_eval, heap_nf.
  rewrite map_map. apply map_ext. intros [l [k xs]]. simpl. rewrite map_map.
  f_equal. apply map_ext. intros e. symmetry. apply nf_sound; assumption.
Qed.

(** Without [heap_nf] the heap is not literally the paper's: the
    evaluator's terms carry units [0 + …] (see the top of the file); the
    paper's heap has none. *)
Lemma mlp_run_heap_not_literal :
  forall hp V n, run 100 0 hp0 P_sym = RDone hp V n -> hp <> paper_heap.
Proof.
  intros hp V n Hrun ->. pose proof mlp_run_units as Hu. rewrite Hrun in Hu.
  rewrite paper_heap_no_unit in Hu. discriminate.
Qed.

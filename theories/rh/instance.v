(** * The executable instance of the signature (decisions.md items 10-11)

    - Base types are [Real(n)], represented by [n]; [Real(0)] is the unit.
    - Scalars are abstract: every definition takes a record [scalar_ops] of
      scalar operations, which the extracted evaluator receives from OCaml
      (IEEE binary64 [float], listed in [extracted/TRUSTED.md]).  No
      property of the scalars is assumed: type safety does not depend on
      arithmetic.
    - A constant of [Real(n)] is [(n, v)] with [v] a vector of [n]
      scalars.  Vectors are abstract too: the instance takes a record
      [vec_ops V] of the vector operations the primitives are made of
      (decisions.md, "Vectors").  Their model is [list_vec_ops sc], defined
      here on lists of scalars from [scalar_ops]; the extracted evaluator
      runs on OCaml float arrays that implement the same record
      ([extracted/vec.ml], tested bit for bit against [list_vec_ops], see
      [extracted/TRUSTED.md]).  No proof depends on what the vector
      operations compute: type safety holds for any [vec_ops].
    - Function symbols are a library of primitives [p] with their reverse
      derivatives: [(k, p)] is [rd^k[p]].  [Ev] is defined for [k ≤ 2]
      (a rewriting of a term that already contains [rd[p]] needs the second
      level); [Ev] of deeper levels, of ill-shaped arguments or of
      primitives with impossible parameters is undefined, which the
      evaluator reports as a runtime failure.
    - Operation symbols and locations are those declared by the program:
      [o] is an index into [decls] (coarity, arity), [ℓ] into [locs] (the
      dimension of the stored vector). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rdcore braun.

(** The records of this file have their type parameter implicit (and
    maximally inserted) in every projection, which their record argument
    determines; their constructors keep it explicit. *)
Local Set Implicit Arguments.
Local Set Maximal Implicit Insertion.
Record scalar_ops (R : Type) : Type := {
  (** the arithmetic zero, used by negation, sums, dot products and
      padding *)
  s_zero : R;
  (** the structural zero of a cotangent, [0_b]'s entries: a constant
      apart from [s_zero] (decisions.md, "The structural zero cotangent is
      -0.0"); [-0.0] for binary64, [0] for the reals *)
  s_czero : R;
  s_one : R;
  s_add : R -> R -> R;
  s_sub : R -> R -> R;
  s_mul : R -> R -> R;
  s_div : R -> R -> R;
  s_exp : R -> R;
  (** the natural logarithm and the hyperbolic tangent *)
  s_log : R -> R;
  s_tanh : R -> R;
  s_round : R -> R;
  (** [s_lt a b] is [a < b]. *)
  s_lt : R -> R -> bool;
}.
Local Unset Maximal Implicit Insertion.
Local Unset Implicit Arguments.
Arguments Build_scalar_ops : clear implicits.

(** ** The primitives (decisions.md item 10).  Matrices are row-major;
    a signal of [c] channels of length [n] is [Real(c·n)], channel after
    channel. *)
Inductive prim : Type :=
| PSwish (n : nat)                 (** [swish_n : Real(n) → Real(n)], [x·sigm(x)] *)
| PSmul (n : nat)                  (** [(·_n) : Real(1) × Real(n) → Real(n)] *)
| PSub (n : nat)                   (** [(−_n) : Real(n) × Real(n) → Real(n)] *)
| PMatmul (m n k : nat)            (** [Real(m·n) × Real(n·k) → Real(m·k)] *)
| PTranspose (m n : nat)           (** [Real(m·n) → Real(n·m)] *)
| PRound (n : nat)                 (** [round_n : Real(n) → Real(n)] *)
| PPad (c n m : nat)               (** [Real(c·n) → Real(c·m)]: each channel cut or zero-extended to [m] *)
| PUpscale (c n m : nat)           (** [Real(c·n) → Real(c·m)]: nearest neighbour, [y_t = x_{⌊t·n/m⌋}] *)
| PConcat (c c' n : nat)           (** [Real(c·n) × Real(c'·n) → Real((c+c')·n)] *)
| PConv1d (c c' n m : nat)         (** kernel [Real(c'·c·m)] × signal [Real(c·n)] → [Real(c'·(n−m+1))] *)
| PMaxpool (c n m : nat)           (** [Real(c·n) → Real(c·⌈n/m⌉)], windows of [m] *)
| PRelu (n : nat)                  (** [relu_n : Real(n) → Real(n)], [max(x, 0)] *)
| PSigmoid (n : nat)               (** [sigmoid_n : Real(n) → Real(n)], [1/(1 + e^(−x))] *)
| PTanh (n : nat)                  (** [tanh_n : Real(n) → Real(n)] *)
| PExp (n : nat)                   (** [exp_n : Real(n) → Real(n)] *)
| PLog (n : nat)                   (** [log_n : Real(n) → Real(n)], the natural logarithm *)
| PMul (n : nat)                   (** [mul_n : Real(n) × Real(n) → Real(n)], elementwise product *)
| PSum (n : nat)                   (** [sum_n : Real(n) → Real(1)] *)
| PSce (n : nat).                  (** [sce_n : Real(n) × Real(n) → Real(1)], softmax cross-entropy of logits and target *)

Definition prim_eq_dec (p q : prim) : {p = q} + {p <> q}.
Proof. decide equality; apply Nat.eq_dec. Defined.

Definition ceil_div (n m : nat) : nat := (n + m - 1) / m.

(** Leaf dimensions of the domain and codomain. *)
Definition prim_dom (p : prim) : list nat :=
  match p with
  | PSwish n | PRound n | PRelu n | PSigmoid n | PTanh n | PExp n | PLog n | PSum n => [n]
  | PSmul n => [1; n]
  | PSub n | PMul n | PSce n => [n; n]
  | PMatmul m n k => [m * n; n * k]
  | PTranspose m n => [m * n]
  | PPad c n _ | PUpscale c n _ | PMaxpool c n _ => [c * n]
  | PConcat c c' n => [c * n; c' * n]
  | PConv1d c c' n m => [c' * c * m; c * n]
  end.

Definition prim_cod (p : prim) : nat :=
  match p with
  | PSwish n | PRound n | PSmul n | PSub n
  | PRelu n | PSigmoid n | PTanh n | PExp n | PLog n | PMul n => n
  | PSum _ | PSce _ => 1
  | PMatmul m _ k => m * k
  | PTranspose m n => n * m
  | PPad c _ m | PUpscale c _ m => c * m
  | PConcat c c' n => (c + c') * n
  | PConv1d _ c' n m => c' * (n - m + 1)
  | PMaxpool c n m => c * ceil_div n m
  end.

(** Parameters for which the primitive makes sense. *)
Definition prim_ok (p : prim) : bool :=
  match p with
  | PConv1d c c' n m => Nat.ltb 0 m && Nat.leb m n
  | PMaxpool c n m => Nat.ltb 0 m
  | PUpscale c n m => Nat.ltb 0 m
  | _ => true
  end.

(** ** Each primitive's forward map, written once in the core (rdcore.v):
    [rd^k[p]] is its [k]-th reverse derivative [core_prog k p], for every
    [k] (docs/decisions.md, "rd of every order"). *)
Definition prim_core (p : prim) : cprog :=
  let ds := prim_dom p in
  let one o := {| cp_dims := ds; cp_body := [(o, seq 0 (length ds))]; cp_out := [length ds] |} in
  match p with
  | PSwish _ => one (OMap ESwish)
  | PSmul _ => one OScale
  | PSub _ => one OSub
  | PMatmul m n k => one (OMatmul m n k)
  | PTranspose m n => one (OTranspose m n)
  | PRound _ => one (OMap ERound)
  | PPad c n m => one (OPad c n m)
  | PUpscale c n m => one (OUpscale c n m)
  | PConcat _ _ _ => one OAppend
  | PConv1d c c' n m => one (OConv c c' n m)
  | PMaxpool c n m => one (OMaxpool c n m)
  | PRelu _ => one (OMap ERelu)
  | PSigmoid _ => one (OMap ESigm)
  | PTanh _ => one (OMap ETanh)
  | PExp _ => one (OMap EExp)
  | PLog _ => one (OMap ELog)
  | PMul _ => one OMul
  | PSum _ => one OSum
  (** [sce(z, t) = <t, logsumexp(z)·1 − z>], as [eval_sce] below. *)
  | PSce n => {| cp_dims := ds;
                 cp_body := [(OLse, [0]); (OBcast n, [2]); (OSub, [3; 0]); (ODot, [1; 4])];
                 cp_out := [5] |}
  end.

Definition core_prog (k : nat) (p : prim) : cprog := Nat.iter k rd_core (prim_core p).

(** ** The list model of vectors: every vector operation the primitives
    use, on lists of scalars.  These are the definitions the extracted
    float arrays are tested against. *)
Section list_model.
Context {R : Type} (sc : scalar_ops R).

Definition vget (v : list R) (i : nat) : R := nth i v (s_zero sc).
Definition vzero (n : nat) : list R := repeat (s_zero sc) n.
(** The structural zero cotangent [0_{Real(n)}]: [n] copies of [s_czero]. *)
Definition vczero (n : nat) : list R := repeat (s_czero sc) n.
Definition vmap2 (f : R -> R -> R) (u v : list R) : list R := map (fun p => f (fst p) (snd p)) (combine u v).
Definition vadd := vmap2 (s_add sc).
Definition vsub := vmap2 (s_sub sc).
Definition vmul := vmap2 (s_mul sc).
Definition vscale (a : R) (v : list R) : list R := map (s_mul sc a) v.
Definition vneg (v : list R) : list R := map (s_sub sc (s_zero sc)) v.
Definition vsum (v : list R) : R := fold_left (s_add sc) v (s_zero sc).
Definition tabulate (n : nat) (f : nat -> R) : list R := map f (seq 0 n).

(** [chunks n l]: the consecutive blocks of [n > 0] elements, the last one possibly shorter (pooling windows). *)
Fixpoint chunks_aux (fuel n : nat) (l : list R) : list (list R) :=
  match fuel with
  | 0 => []
  | S fuel' => match l with [] => [] | _ => firstn n l :: chunks_aux fuel' n (skipn n l) end
  end.
Definition chunks (n : nat) (l : list R) : list (list R) :=
  match n with 0 => [] | _ => chunks_aux (length l) n l end.

(** Dot products in an order a vector unit executes ([vdot]):
    [vlanes = 8] interleaved running sums, lane [j] accumulating the
    products at the positions [j], [j + 8], [j + 16], … in that order, each
    from [0]; then the lanes added left to right, [((s₀ + s₁) + s₂) + … +
    s₇].  The positions are taken in blocks of 8 from the start (the last
    block may be shorter: its products go to the first lanes).  A product
    and an addition are two roundings: there is no fused multiply-add.
    Over ℝ this is the sum in any order ([vsum_lanes_sum],
    theories/analysis/prims.v); on floats it is the order the C kernels
    follow (extracted/vec_stubs.c), two AVX2 registers of four lanes. *)
Definition vlanes : nat := 8.

(** [lanes_add acc blk]: [blk]'s entries added to the first lanes of [acc]. *)
Fixpoint lanes_add (acc blk : list R) : list R :=
  match acc, blk with
  | a :: acc', x :: blk' => s_add sc a x :: lanes_add acc' blk'
  | _, _ => acc
  end.

Definition vsum_lanes (v : list R) : R :=
  match fold_left lanes_add (chunks vlanes v) (repeat (s_zero sc) vlanes) with
  | [] => s_zero sc
  | s0 :: ss => fold_left (s_add sc) ss s0
  end.

Definition vdot (u v : list R) : R := vsum_lanes (vmul u v).

(** [rows r n l]: [r] consecutive blocks of [n] elements (the rows of an
    [r×n] matrix, the channels of a signal), also when [n = 0]. *)
Definition rows (r n : nat) (l : list R) : list (list R) :=
  map (fun i => firstn n (skipn (i * n) l)) (seq 0 r).

(** Columns of a list of rows of length [k]. *)
Definition columns (k : nat) (rows : list (list R)) : list (list R) :=
  map (fun j => map (fun row => vget row j) rows) (seq 0 k).

(** [A (m×n) · B (n×k)], row-major. *)
Definition matmul (m n k : nat) (A B : list R) : list R :=
  let cols := columns k (rows n k B) in
  concat (map (fun row => map (fun col => vdot row col) cols) (rows m n A)).

Definition transpose (m n : nat) (A : list R) : list R := concat (columns n (rows m n A)).

Definition sigm (x : R) : R := s_div sc (s_one sc) (s_add sc (s_one sc) (s_exp sc (s_sub sc (s_zero sc) x))).
Definition two : R := s_add sc (s_one sc) (s_one sc).
(** [swish(x) = x·σ(x)], [swish'(x) = σ + xσ(1−σ)], [swish''(x) = σ(1−σ)(2 + x(1−2σ))]. *)
Definition swish (x : R) : R := s_mul sc x (sigm x).
Definition swish' (x : R) : R :=
  let s := sigm x in s_add sc s (s_mul sc x (s_mul sc s (s_sub sc (s_one sc) s))).
Definition swish'' (x : R) : R :=
  let s := sigm x in
  s_mul sc (s_mul sc s (s_sub sc (s_one sc) s))
           (s_add sc two (s_mul sc x (s_sub sc (s_one sc) (s_mul sc two s)))).

(** [relu(x) = 0] if [x < 0], else [x] (so a NaN stays NaN);
    [relu'(x) = 1] if [0 < x], else [0]: the derivative at [0] is [0]. *)
Definition relu (x : R) : R := if s_lt sc x (s_zero sc) then s_zero sc else x.
Definition relu' (x : R) : R := if s_lt sc (s_zero sc) x then s_one sc else s_zero sc.
(** [σ' = σ(1−σ)], [σ'' = σ(1−σ)(1−2σ)]. *)
Definition sigm' (x : R) : R := let s := sigm x in s_mul sc s (s_sub sc (s_one sc) s).
Definition sigm'' (x : R) : R :=
  let s := sigm x in
  s_mul sc (s_mul sc s (s_sub sc (s_one sc) s)) (s_sub sc (s_one sc) (s_mul sc two s)).
(** [tanh' = 1 − tanh²], [tanh'' = −2·tanh·(1 − tanh²)]. *)
Definition tanh' (x : R) : R := let y := s_tanh sc x in s_sub sc (s_one sc) (s_mul sc y y).
Definition tanh'' (x : R) : R :=
  let y := s_tanh sc x in
  s_mul sc (s_sub sc (s_zero sc) (s_mul sc two y)) (s_sub sc (s_one sc) (s_mul sc y y)).
(** [log' = 1/x], [log'' = −(1/x)²]. *)
Definition log' (x : R) : R := s_div sc (s_one sc) x.
Definition log'' (x : R) : R := let r := s_div sc (s_one sc) x in s_sub sc (s_zero sc) (s_mul sc r r).

(** The first maximal entry (strict comparison, as [argmax]); [0] for the
    empty vector. *)
Definition vmax (v : list R) : R :=
  match v with [] => s_zero sc | a :: v' => fold_left (fun b x => if s_lt sc b x then x else b) v' a end.
(** [exp(x_i − m)] for [m] the maximum: every entry in [[0, 1]], one of them [1]. *)
Definition shifted_exp (v : list R) : list R := let m := vmax v in map (fun x => s_exp sc (s_sub sc x m)) v.
(** [softmax(z)_i = exp(z_i − m) / Σ_j exp(z_j − m)]. *)
Definition softmax (z : list R) : list R :=
  let e := shifted_exp z in let s := vsum e in map (fun y => s_div sc y s) e.
(** [logsumexp(z) = m + log Σ_j exp(z_j − m)] (the one entry); [log 0] for
    the empty vector. *)
Definition logsumexp (z : list R) : R := s_add sc (vmax z) (s_log sc (vsum (shifted_exp z))).

(** Each channel (of length [n]) cut or zero-extended to length [m]. *)
Definition resize (n m : nat) (ch : list R) : list R := firstn m ch ++ vzero (m - n).
Definition pad (c n m : nat) (x : list R) : list R := concat (map (resize n m) (rows c n x)).

Definition upscale (c n m : nat) (x : list R) : list R :=
  concat (map (fun ch => tabulate m (fun t => vget ch (t * n / m))) (rows c n x)).
(** Adjoint of [upscale]: [dx_i = Σ_{t : ⌊t·n/m⌋ = i} g_t]. *)
Definition upscale_adj (c n m : nat) (g : list R) : list R :=
  concat (map (fun ch => tabulate n (fun i =>
            vsum (map (fun t => if Nat.eqb (t * n / m) i then vget ch t else s_zero sc) (seq 0 m))))
          (rows c m g)).

(** 1-D convolution (cross-correlation, no padding, stride 1):
    [y[o][t] = Σ_{i<c, j<m} K[o][i][j] · x[i][t+j]], [t < n−m+1]. *)
Definition window (x : list R) (t m : nat) : list R := firstn m (skipn t x).
Definition conv1d (c c' n m : nat) (K x : list R) : list R :=
  let L := n - m + 1 in
  let xs := rows c n x in
  concat (map (fun Ko =>
    let Kois := rows c m Ko in
    tabulate L (fun t => vsum (map (fun p => vdot (fst p) (window (snd p) t m)) (combine Kois xs))))
  (rows c' (c * m) K)).
(** [∂K[o][i][j] = Σ_t g[o][t] · x[i][t+j]]. *)
Definition conv1d_dK (c c' n m : nat) (g x : list R) : list R :=
  let L := n - m + 1 in
  let xs := rows c n x in
  concat (map (fun go => concat (map (fun xi => tabulate m (fun j => vdot go (window xi j L))) xs))
              (rows c' L g)).
(** [∂x[i][s] = Σ_o Σ_j K[o][i][j] · g[o][s−j]] over [0 ≤ s−j < n−m+1]. *)
Definition conv1d_dx (c c' n m : nat) (K g : list R) : list R :=
  let L := n - m + 1 in
  let Ks := map (rows c m) (rows c' (c * m) K) in
  let gs := rows c' L g in
  concat (map (fun i => tabulate n (fun s =>
      vsum (map (fun p =>
          let Koi := nth i (fst p) [] in
          vsum (map (fun j => if Nat.leb j s && Nat.ltb (s - j) L
                              then s_mul sc (vget Koi j) (vget (snd p) (s - j))
                              else s_zero sc) (seq 0 m)))
        (combine Ks gs))))
    (seq 0 c)).

(** Max pooling over windows of [m] (the last one may be shorter); the
    first maximal position of each window is its argmax. *)
Fixpoint argmax_aux (w : list R) (i best : nat) (bv : R) : nat :=
  match w with
  | [] => best
  | a :: w' => if s_lt sc bv a then argmax_aux w' (S i) i a else argmax_aux w' (S i) best bv
  end.
Definition argmax (w : list R) : nat :=
  match w with [] => 0 | a :: w' => argmax_aux w' 1 0 a end.
Definition maxpool (c n m : nat) (x : list R) : list R :=
  concat (map (fun ch => map (fun w => vget w (argmax w)) (chunks m ch)) (rows c n x)).
(** Route [g] to the argmax positions (the adjoint at [x]). *)
Definition maxpool_adj (c n m : nat) (x g : list R) : list R :=
  concat (map (fun p =>
      concat (map (fun wg => let w := fst wg in
                   map (fun j => if Nat.eqb j (argmax w) then snd wg else s_zero sc) (seq 0 (length w)))
                (combine (chunks m (fst p)) (snd p))))
    (combine (rows c n x) (rows c (ceil_div n m) g))).
(** Gather [c] at the argmax positions of [x]. *)
Definition maxpool_gather (c n m : nat) (x cx : list R) : list R :=
  concat (map (fun p =>
      map (fun wc => vget (snd wc) (argmax (fst wc))) (combine (chunks m (fst p)) (chunks m (snd p))))
    (combine (rows c n x) (rows c n cx))).

End list_model.

(** ** The vector interface of the instance.  [v_zero n] is [n]
    arithmetic zeros ([s_zero]); [v_czero n] is the structural zero
    cotangent [0_{Real(n)}] ([s_czero], the signature's [czero]).  [v_scale a v] scales [v] by
    the first entry of [a]; [v_dot u v] is the one-entry vector [<u·v>];
    [v_swish], [v_swish1], [v_swish2] and [v_round] map [swish], [swish'],
    [swish''] and [round] over a vector, and so do [v_relu] ... [v_log2]
    for [relu], [relu'], [sigm], [sigm'], [sigm''], [tanh], [tanh'],
    [tanh''], [exp], [log], [log'], [log''];  [v_sum v] is the one-entry
    vector [<Σ v>], [v_bcast n a] the [n] copies of the first entry of
    [a], [v_lse z] the one-entry vector [<logsumexp z>].  The other
    operations are the primitives' building blocks above, with their
    parameters. *)
Local Set Implicit Arguments.
Local Set Maximal Implicit Insertion.
Record vec_ops (V : Type) : Type := {
  v_len : V -> nat;
  v_zero : nat -> V;
  v_czero : nat -> V;
  v_add : V -> V -> V;
  v_sub : V -> V -> V;
  v_mul : V -> V -> V;
  v_neg : V -> V;
  v_scale : V -> V -> V;
  v_dot : V -> V -> V;
  v_swish : V -> V;
  v_swish1 : V -> V;
  v_swish2 : V -> V;
  v_round : V -> V;
  v_relu : V -> V;
  v_relu1 : V -> V;
  v_sigmoid : V -> V;
  v_sigmoid1 : V -> V;
  v_sigmoid2 : V -> V;
  v_tanh : V -> V;
  v_tanh1 : V -> V;
  v_tanh2 : V -> V;
  v_exp : V -> V;
  v_log : V -> V;
  v_log1 : V -> V;
  v_log2 : V -> V;
  v_sum : V -> V;
  v_bcast : nat -> V -> V;
  v_softmax : V -> V;
  v_lse : V -> V;
  v_matmul : nat -> nat -> nat -> V -> V -> V;
  v_transpose : nat -> nat -> V -> V;
  v_pad : nat -> nat -> nat -> V -> V;
  v_upscale : nat -> nat -> nat -> V -> V;
  v_upscale_adj : nat -> nat -> nat -> V -> V;
  v_conv1d : nat -> nat -> nat -> nat -> V -> V -> V;
  v_conv1d_dK : nat -> nat -> nat -> nat -> V -> V -> V;
  v_conv1d_dx : nat -> nat -> nat -> nat -> V -> V -> V;
  v_maxpool : nat -> nat -> nat -> V -> V;
  v_maxpool_adj : nat -> nat -> nat -> V -> V -> V;
  v_maxpool_gather : nat -> nat -> nat -> V -> V -> V;
  v_append : V -> V -> V;
  v_firstn : nat -> V -> V;
  v_skipn : nat -> V -> V;
}.
Local Unset Maximal Implicit Insertion.
Local Unset Implicit Arguments.
Arguments Build_vec_ops : clear implicits.

(** The list model. *)
Definition list_vec_ops {R : Type} (sc : scalar_ops R) : vec_ops (list R) := {|
  v_len := @length R;
  v_zero := vzero sc;
  v_czero := vczero sc;
  v_add := vadd sc;
  v_sub := vsub sc;
  v_mul := vmul sc;
  v_neg := vneg sc;
  v_scale := fun a v => vscale sc (vget sc a 0) v;
  v_dot := fun u v => [vdot sc u v];
  v_swish := map (swish sc);
  v_swish1 := map (swish' sc);
  v_swish2 := map (swish'' sc);
  v_round := map (s_round sc);
  v_relu := map (relu sc);
  v_relu1 := map (relu' sc);
  v_sigmoid := map (sigm sc);
  v_sigmoid1 := map (sigm' sc);
  v_sigmoid2 := map (sigm'' sc);
  v_tanh := map (s_tanh sc);
  v_tanh1 := map (tanh' sc);
  v_tanh2 := map (tanh'' sc);
  v_exp := map (s_exp sc);
  v_log := map (s_log sc);
  v_log1 := map (log' sc);
  v_log2 := map (log'' sc);
  v_sum := fun v => [vsum sc v];
  v_bcast := fun n a => repeat (vget sc a 0) n;
  v_softmax := softmax sc;
  v_lse := fun z => [logsumexp sc z];
  v_matmul := matmul sc;
  v_transpose := transpose sc;
  v_pad := pad sc;
  v_upscale := upscale sc;
  v_upscale_adj := upscale_adj sc;
  v_conv1d := conv1d sc;
  v_conv1d_dK := conv1d_dK sc;
  v_conv1d_dx := conv1d_dx sc;
  v_maxpool := maxpool sc;
  v_maxpool_adj := maxpool_adj sc;
  v_maxpool_gather := maxpool_gather sc;
  v_append := @app R;
  v_firstn := @firstn R;
  v_skipn := @skipn R;
|}.

Definition exec_sorts (V : Type) : sorts := {|
  base := nat;
  base_eq_dec := Nat.eq_dec;
  const := nat * V;
  fsym := nat * prim;
  op := nat;
  op_eq_dec := Nat.eq_dec;
  loc := nat;
  loc_eq_dec := Nat.eq_dec;
|}.

Section instance.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance exec_sorts_inst : sorts := exec_sorts Vec.

(** ** [Ev] of [rd^k[p]] on the leaves of the argument, for [k ≤ 2].
    For a bilinear [B(a, b)] with adjoints [P(g, b)] (in [a]) and [Q(a, g)]
    (in [b]): [rd[B]((a,b),g) = (P(g,b), Q(a,g))] and
    [rd²[B](((a,b),g),(ca,cb)) = ((P(g,cb), Q(ca,g)), B(ca,b) + B(a,cb))].
    For a linear [L] with adjoint [Lᵀ]: [rd[L](x,g) = Lᵀg] and
    [rd²[L]((x,g),c) = (0, L c)]. *)
Definition bilinear (B : Vec -> Vec -> Vec) (P : Vec -> Vec -> Vec)
    (Q : Vec -> Vec -> Vec) (k : nat) (xs : list (Vec)) : option (list (Vec)) :=
  match k, xs with
  | 0, [a; b] => Some [B a b]
  | 1, [a; b; g] => Some [P g b; Q a g]
  | 2, [a; b; g; ca; cb] => Some [P g cb; Q ca g; v_add vo (B ca b) (B a cb)]
  | _, _ => None
  end.

Definition linear (L Lt : Vec -> Vec) (k : nat) (xs : list (Vec)) : option (list (Vec)) :=
  match k, xs with
  | 0, [x] => Some [L x]
  | 1, [x; g] => Some [Lt g]
  | 2, [x; g; c] => Some [v_zero vo (v_len vo x); L c]
  | _, _ => None
  end.

(** A pointwise [f] with derivatives [f'] and [f'']:
    [rd[f](x, u) = u ⊙ f'(x)] and
    [rd²[f]((x, u), c) = (c ⊙ u ⊙ f''(x), c ⊙ f'(x))]. *)
Definition pointwise (f f1 f2 : Vec -> Vec) (k : nat) (xs : list (Vec)) : option (list (Vec)) :=
  match k, xs with
  | 0, [x] => Some [f x]
  | 1, [x; u] => Some [v_mul vo u (f1 x)]
  | 2, [x; u; c] => Some [v_mul vo c (v_mul vo u (f2 x)); v_mul vo c (f1 x)]
  | _, _ => None
  end.

(** Softmax cross-entropy of logits [z] and target [t] (docs/decisions.md,
    the primitive library): with [S = Σ t], [p = softmax(z)] and [r = logsumexp(z)·1 − z],
    [sce(z, t) = <t, r> = S·logsumexp(z) − <t, z>], and
    [rd[sce]((z,t),g) = (g(S·p − t), g·r)],
    [rd²[sce](((z,t),g),(cz,ct)) =
       (g·S·(p ⊙ cz − <p,cz>·p) + g·(Σct·p − ct), g·(<p,cz>·1 − cz),
        <S·p − t, cz> + <r, ct>)]. *)
Definition sce_r (n : nat) (z : Vec) : Vec := v_sub vo (v_bcast vo n (v_lse vo z)) z.

Definition eval_sce (n k : nat) (xs : list (Vec)) : option (list (Vec)) :=
  match k, xs with
  | 0, [z; t] => Some [v_dot vo t (sce_r n z)]
  | 1, [z; t; g] =>
      let dz := v_sub vo (v_scale vo (v_sum vo t) (v_softmax vo z)) t in
      Some [v_scale vo g dz; v_scale vo g (sce_r n z)]
  | 2, [z; t; g; cz; ct] =>
      let p := v_softmax vo z in
      let S := v_sum vo t in
      let pc := v_dot vo p cz in
      let dz := v_sub vo (v_scale vo S p) t in
      Some [v_add vo (v_scale vo g (v_scale vo S (v_sub vo (v_mul vo p cz) (v_scale vo pc p))))
                     (v_scale vo g (v_sub vo (v_scale vo (v_sum vo ct) p) ct));
            v_scale vo g (v_sub vo (v_bcast vo n pc) cz);
            v_add vo (v_dot vo dz cz) (v_dot vo (sce_r n z) ct)]
  | _, _ => None
  end.

(** The kernels of [rd^k[p]] for [k ≤ 2], written by hand. *)
Definition eval_kernel (k : nat) (p : prim) (xs : list (Vec)) : option (list (Vec)) :=
  match p with
  | PSwish n =>
      match k, xs with
      | 0, [x] => Some [v_swish vo x]
      | 1, [x; u] => Some [v_mul vo u (v_swish1 vo x)]
      | 2, [x; u; c] => Some [v_mul vo c (v_mul vo u (v_swish2 vo x)); v_mul vo c (v_swish1 vo x)]
      | _, _ => None
      end
  | PSmul n =>
      bilinear (v_scale vo) (v_dot vo) (v_scale vo) k xs
  | PSub n =>
      match k, xs with
      | 0, [u; v] => Some [v_sub vo u v]
      | 1, [u; v; w] => Some [w; v_neg vo w]
      | 2, [u; v; w; cu; cv] => Some [v_zero vo n; v_zero vo n; v_sub vo cu cv]
      | _, _ => None
      end
  | PMatmul m n k' =>
      bilinear (v_matmul vo m n k') (fun G Bm => v_matmul vo m k' n G (v_transpose vo n k' Bm))
               (fun A G => v_matmul vo n m k' (v_transpose vo m n A) G) k xs
  | PTranspose m n => linear (v_transpose vo m n) (v_transpose vo n m) k xs
  | PRound n =>
      match k, xs with
      | 0, [x] => Some [v_round vo x]
      | 1, [x; g] => Some [v_zero vo n]
      | 2, [x; g; c] => Some [v_zero vo n; v_zero vo n]
      | _, _ => None
      end
  | PPad c n m => linear (v_pad vo c n m) (v_pad vo c m n) k xs
  | PUpscale c n m => linear (v_upscale vo c n m) (v_upscale_adj vo c n m) k xs
  | PConcat c c' n =>
      match k, xs with
      | 0, [x; y] => Some [v_append vo x y]
      | 1, [x; y; g] => Some [v_firstn vo (c * n) g; v_skipn vo (c * n) g]
      | 2, [x; y; g; cx; cy] => Some [v_zero vo (c * n); v_zero vo (c' * n); v_append vo cx cy]
      | _, _ => None
      end
  | PConv1d c c' n m =>
      bilinear (v_conv1d vo c c' n m) (v_conv1d_dK vo c c' n m) (v_conv1d_dx vo c c' n m) k xs
  | PMaxpool c n m =>
      match k, xs with
      | 0, [x] => Some [v_maxpool vo c n m x]
      | 1, [x; g] => Some [v_maxpool_adj vo c n m x g]
      | 2, [x; g; cx] => Some [v_zero vo (c * n); v_maxpool_gather vo c n m x cx]
      | _, _ => None
      end
  | PRelu n =>
      match k, xs with
      | 0, [x] => Some [v_relu vo x]
      | 1, [x; u] => Some [v_mul vo u (v_relu1 vo x)]
      | 2, [x; u; c] => Some [v_zero vo n; v_mul vo c (v_relu1 vo x)]
      | _, _ => None
      end
  | PSigmoid n => pointwise (v_sigmoid vo) (v_sigmoid1 vo) (v_sigmoid2 vo) k xs
  | PTanh n => pointwise (v_tanh vo) (v_tanh1 vo) (v_tanh2 vo) k xs
  | PExp n => pointwise (v_exp vo) (v_exp vo) (v_exp vo) k xs
  | PLog n => pointwise (v_log vo) (v_log1 vo) (v_log2 vo) k xs
  | PMul n => bilinear (v_mul vo) (v_mul vo) (v_mul vo) k xs
  | PSum n => linear (v_sum vo) (v_bcast vo n) k xs
  | PSce n => eval_sce n k xs
  end.

(** ** [rd^k[p]] for every [k]: the core (rdcore.v, docs/decisions.md,
    "rd of every order").  Each operation of the core is the vector
    operation of the same name. *)
Definition efun_eval (f : efun) : Vec -> Vec :=
  match f with
  | ESwish => v_swish vo | ESwish1 => v_swish1 vo | ESwish2 => v_swish2 vo
  | ERound => v_round vo | ERelu => v_relu vo | ERelu1 => v_relu1 vo
  | ESigm => v_sigmoid vo | ESigm1 => v_sigmoid1 vo | ESigm2 => v_sigmoid2 vo
  | ETanh => v_tanh vo | ETanh1 => v_tanh1 vo | ETanh2 => v_tanh2 vo
  | EExp => v_exp vo | ELog => v_log vo | ELog1 => v_log1 vo | ELog2 => v_log2 vo
  end.

Definition cop_eval (o : cop) (xs : list Vec) : Vec :=
  let a := nth 0 xs (v_zero vo 0) in
  let b := nth 1 xs (v_zero vo 0) in
  match o with
  | OZero n => v_zero vo n
  | OAdd => v_add vo a b
  | OSub => v_sub vo a b
  | OMul => v_mul vo a b
  | ONeg => v_neg vo a
  | OScale => v_scale vo a b
  | ODot => v_dot vo a b
  | OMap f => efun_eval f a
  | OSum => v_sum vo a
  | OBcast n => v_bcast vo n a
  | OSoftmax => v_softmax vo a
  | OLse => v_lse vo a
  | OMatmul m n k => v_matmul vo m n k a b
  | OTranspose m n => v_transpose vo m n a
  | OPad c n m => v_pad vo c n m a
  | OUpscale c n m => v_upscale vo c n m a
  | OUpscaleAdj c n m => v_upscale_adj vo c n m a
  | OConv c c' n m => v_conv1d vo c c' n m a b
  | OConvDK c c' n m => v_conv1d_dK vo c c' n m a b
  | OConvDx c c' n m => v_conv1d_dx vo c c' n m a b
  | OMaxpool c n m => v_maxpool vo c n m a
  | OMaxpoolAdj c n m => v_maxpool_adj vo c n m a b
  | OMaxpoolGather c n m => v_maxpool_gather vo c n m a b
  | OAppend => v_append vo a b
  | OFirstn k => v_firstn vo k a
  | OSkipn k => v_skipn vo k a
  end.

(** A vector of [n] entries for every dimension [n], decided. *)
Definition dims_fitb (ds : list nat) (xs : list Vec) : bool :=
  Nat.eqb (length ds) (length xs) &&
  forallb (fun p => Nat.eqb (fst p) (v_len vo (snd p))) (combine ds xs).

(** [Ev] of [rd^k[p]] by the core, for every [k]: the forward map
    ([prim_core], below) differentiated [k] times ([rd_core]), run on the
    vector model.  It answers when the result has the lengths of the
    codomain (which the vector model's shapes give: ev_total.v). *)
Definition eval_core (P : cprog) (ds_out : list nat) (xs : list Vec) : option (list Vec) :=
  if Nat.eqb (length (cp_dims P)) (length xs) then
    let outs := eval_cprog cop_eval (v_zero vo 0) P xs in
    if dims_fitb ds_out outs then Some outs else None
  else None.

(** ** Types of [rd^k[p]] *)
Definition real (n : nat) : ty := TBase n.

Fixpoint fdom (k : nat) (p : prim) : ty :=
  match k with
  | 0 => match prim_dom p with [n] => real n | ns => TProd (map real ns) end
  | S k' => TPair (fdom k' p) (fcod k' p)
  end
with fcod (k : nat) (p : prim) : ty :=
  match k with
  | 0 => real (prim_cod p)
  | S k' => fdom k' p
  end.

(** The leaves of a closed value, left to right. *)
Fixpoint leaves (V : tm) : list (nat * Vec) :=
  match V with
  | Const c => [c]
  | Tuple Vs => concat (map leaves Vs)
  | _ => []
  end.

Fixpoint ty_dims (A : ty) : list nat :=
  match A with
  | TBase n => [n]
  | TProd As => concat (map ty_dims As)
  end.

(** [Ev] of [rd^k[p]] on the leaves of the argument: the hand-written
    kernels for [k ≤ 2], the core beyond. *)
Definition eval_prim (k : nat) (p : prim) (xs : list (Vec)) : option (list (Vec)) :=
  match k with
  | 0 | 1 | 2 => eval_kernel k p xs
  | _ => eval_core (core_prog k p) (ty_dims (fcod k p)) xs
  end.

(** Beyond [rd²], [eval_prim] is the core's.  (Rewrite with this rather
    than let unification unfold [eval_core]: its test on the program's
    inputs would have [core_prog] evaluated on a symbolic [k].) *)
Lemma eval_prim_core k p xs :
  3 <= k -> eval_prim k p xs = eval_core (core_prog k p) (ty_dims (fcod k p)) xs.
Proof.
  intros Hk. destruct k as [|[|[|k]]]; [lia|lia|lia|].
  cbv delta [eval_prim] beta iota. reflexivity.
Qed.

(** One output per dimension of the codomain. *)
Lemma eval_core_length P ds xs outs : eval_core P ds xs = Some outs -> length outs = length ds.
Proof.
  unfold eval_core. destruct (Nat.eqb (length (cp_dims P)) (length xs)); [|discriminate].
  destruct (dims_fitb ds (eval_cprog cop_eval (v_zero vo 0) P xs)) eqn:E; [|discriminate].
  intros [=<-]. unfold dims_fitb in E. apply andb_true_iff in E as [E _].
  apply Nat.eqb_eq in E. symmetry. exact E.
Qed.

(** Build a value of type [A] from leaves, left to right. *)
Fixpoint encode (A : ty) (xs : list (Vec)) {struct A} : tm * list (Vec) :=
  match A with
  | TBase n => match xs with
               | x :: xs' => (Const (n, x), xs')
               | [] => (Const (n, v_zero vo n), [])
               end
  | TProd As =>
      let '(Vs, rest) :=
        (fix go (As : list ty) (xs : list (Vec)) : list tm * list (Vec) :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end) As xs in
      (Tuple Vs, rest)
  end.

Definition leaves_fit (dims : list nat) (ls : list (nat * Vec)) : bool :=
  Nat.eqb (length dims) (length ls) &&
  forallb (fun p => Nat.eqb (fst p) (fst (snd p)) && Nat.eqb (fst p) (v_len vo (snd (snd p))))
          (combine dims ls).

Definition exec_ev (f : nat * prim) (V : tm) : option tm :=
  let '(k, p) := f in
  let ls := leaves V in
  if prim_ok p && leaves_fit (ty_dims (fdom k p)) ls then
    match eval_prim k p (map snd ls) with
    | Some outs => Some (fst (encode (fcod k p) outs))
    | None => None
    end
  else None.

#[local] Instance exec_evaluator : evaluator := {| ev := exec_ev |}.

(** ** The signature for a program's declarations *)
Section declarations.
Variable decls : list (ty * ty).
Variable locs : list nat.

(** The declarations are read through a Braun tree built once per
    signature ([braun.v]): [op_coar o] and [op_ar o] cost [log o] steps
    instead of [o] ([exec_op_coar], [exec_op_ar]: they are [nth o decls]). *)
Definition exec_signature : signature :=
  let dt := bbuild decls in {|
  unit_base := 0;
  const_ty := fst;
  czero := fun n => (n, v_czero vo n);
  cadd := fun c1 c2 => (fst c1, v_add vo (snd c1) (snd c2));
  czero_ty := fun _ => eq_refl;
  cadd_ty := fun _ _ _ => eq_refl;
  fsym_dom := fun f => fdom (fst f) (snd f);
  fsym_cod := fun f => fcod (fst f) (snd f);
  rd := fun f => (S (fst f), snd f);
  rd_dom := fun _ => eq_refl;
  rd_cod := fun _ => eq_refl;
  op_coar := fun o => fst (bget (TProd [], TProd []) dt o);
  op_ar := fun o => snd (bget (TProd [], TProd []) dt o);
  loc_base := fun l => nth l locs 0;
|}.
#[local] Existing Instance exec_signature.

Lemma exec_op_coar o : op_coar o = fst (nth o decls (TProd [], TProd [])).
Proof. cbn [op_coar exec_signature]. rewrite bget_bbuild. reflexivity. Qed.

Lemma exec_op_ar o : op_ar o = snd (nth o decls (TProd [], TProd [])).
Proof. cbn [op_ar exec_signature]. rewrite bget_bbuild. reflexivity. Qed.

Lemma encode_typed A xs : value (fst (encode A xs)) /\ typed_tm [] (fst (encode A xs)) A.
Proof.
  revert xs. induction A as [n|As IH] using ty_ind'; intros xs.
  - destruct xs; simpl; split; try reflexivity; constructor.
  - simpl.
    set (go := fix go (As : list ty) (xs : list (Vec)) : list tm * list (Vec) :=
           match As with
           | [] => ([], xs)
           | A :: As' => let '(V, xs1) := encode A xs in
                         let '(Vs, xs2) := go As' xs1 in (V :: Vs, xs2)
           end).
    assert (Hgo : forall xs, Forall value (fst (go As xs)) /\ Forall2 (typed_tm []) (fst (go As xs)) As).
    { induction IH as [|A As HA HAs IHl]; intros xs'; [split; constructor|].
      change (go (A :: As) xs') with
        (let '(V, xs1) := encode A xs' in let '(Vs, xs2) := go As xs1 in (V :: Vs, xs2)).
      destruct (encode A xs') as [V xs1] eqn:HV.
      specialize (HA xs'). rewrite HV in HA. simpl in HA.
      specialize (IHl xs1). destruct (go As xs1) as [Vs xs2]. simpl in *.
      destruct HA, IHl. split; constructor; auto. }
    specialize (Hgo xs). destruct (go As xs) as [Vs rest]. simpl in *.
    destruct Hgo as [Hv Ht]. split.
    + apply value_tuple_iff. exact Hv.
    + constructor. exact Ht.
Qed.

(** [Ev] respects types: its results are built by [encode] at the codomain. *)
#[local] Instance exec_evaluator_ok : evaluator_ok.
Proof.
  constructor. intros [k p] V V' _ _ Hev. simpl in Hev. unfold exec_ev in Hev.
  destruct (prim_ok p && leaves_fit _ _); [|discriminate].
  destruct (eval_prim k p _) as [outs|]; [|discriminate].
  injection Hev as <-. apply encode_typed.
Qed.

End declarations.
End instance.

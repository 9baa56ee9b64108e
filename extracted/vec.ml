(* Vectors of the executable instance as OCaml float arrays.

   The instance (theories/instance.v) is parametric in a record [vec_ops]
   of vector operations; its model [list_vec_ops] defines each of them on
   lists of scalars.  [ops] below implements the same record on [float
   array] (unboxed, O(1) indexing, loops instead of recursion), performing
   the same IEEE operations in the same order as the list model, so that
   the results are identical bit for bit on every input of the shapes the
   instance passes (checked by vec_check.ml on random shapes and values,
   zero-sized dimensions included: tests/test_vectors.py).

   The dot products (v_dot, matmul, conv1d and its kernel's adjoint) are
   computed in C (vec_stubs.c) in the list model's lane order (vdot: 8
   interleaved running sums, added left to right).  Two rewritings of the
   list model's loops, both exact:
   - a sum [fold_left (+) 0.0 [e_0; ...]] is computed as [acc := 0.0; acc
     := acc +. e_t], in the same order;
   - where the list model adds an explicit [0.0] for the positions a
     kernel does not touch (upscale_adj, conv1d_dx), the loop skips it:
     such a sum starts at +0.0 and, in round-to-nearest, is never -0.0, and
     [a +. 0.0 = a] for every [a] that is not -0.0.
   Every kernel checks the lengths of its arguments against its parameters
   (raising Invalid_argument, reported by the driver as an internal error)
   before its loops use unchecked indexing.  A transpose is not copied until
   needed, and a product with a transposed left factor reads the matrix in
   place (type [t] below). *)

module C = Revhandlers_core

(* The scalars of the list model: IEEE binary64. *)
let float_ops : float C.scalar_ops =
  { C.s_zero = 0.0; s_czero = -0.0; s_one = 1.0; s_add = ( +. ); s_sub = ( -. ); s_mul = ( *. );
    s_div = ( /. ); s_exp = exp; s_log = log; s_tanh = tanh; s_round = Float.round;
    s_lt = (fun (a : float) b -> a < b) }

let need name cond = if not cond then invalid_arg ("vector kernel " ^ name ^ ": argument of the wrong length")

(* Unchecked access to unboxed float arrays, after the length checks. *)
external get : float array -> int -> float = "%array_unsafe_get"
external set : float array -> int -> float -> unit = "%array_unsafe_set"

(* Elementwise maps.  [map f] calls [f] on boxed floats: the transcendental
   maps below use it; the arithmetic ones, on the path of every cotangent,
   are loops on unboxed floats.  Like the list model's [combine], a binary
   map stops at the shorter vector. *)
let map f (u : float array) =
  let n = Array.length u in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (f (get u i)) done;
  w

let add (u : float array) (v : float array) =
  let n = min (Array.length u) (Array.length v) in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (get u i +. get v i) done;
  w

let sub (u : float array) (v : float array) =
  let n = min (Array.length u) (Array.length v) in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (get u i -. get v i) done;
  w

let mul (u : float array) (v : float array) =
  let n = min (Array.length u) (Array.length v) in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (get u i *. get v i) done;
  w

let neg (u : float array) =
  let n = Array.length u in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (0.0 -. get u i) done;
  w

let scale (a : float array) (u : float array) =
  let a0 = if Array.length a > 0 then get a 0 else 0.0 in
  let n = Array.length u in
  let w = Array.create_float n in
  for i = 0 to n - 1 do set w i (a0 *. get u i) done;
  w

(* The dot products, in C (vec_stubs.c): the list model's lane order
   (vdot, instance.v).  [cdot u uo v vo n] is the dot of u[uo, uo+n) and
   v[vo, vo+n); the callers check the bounds. *)
external cdot : float array -> (int[@untagged]) -> float array -> (int[@untagged]) -> (int[@untagged]) -> (float[@unboxed])
  = "rh_vec_dot_byte" "rh_vec_dot" [@@noalloc]
external cmatmul : float array -> float array -> float array -> int -> int -> int -> unit
  = "rh_vec_matmul_byte" "rh_vec_matmul" [@@noalloc]
external cmatmul_tl : float array -> float array -> float array -> int -> int -> int -> unit
  = "rh_vec_matmul_tl_byte" "rh_vec_matmul_tl" [@@noalloc]

let dot (u : float array) (v : float array) =
  let n = min (Array.length u) (Array.length v) in
  [| cdot u 0 v 0 n |]

(* swish(x) = x·σ(x), σ(x) = 1 / (1 + exp(0 − x)); the derivatives as in
   instance.v (two = 1 + 1). *)
let two = 1.0 +. 1.0
let sigm x = 1.0 /. (1.0 +. exp (0.0 -. x))
let swish u = map (fun x -> x *. sigm x) u
let swish1 u = map (fun x -> let s = sigm x in s +. (x *. (s *. (1.0 -. s)))) u
let swish2 u = map (fun x -> let s = sigm x in (s *. (1.0 -. s)) *. (two +. (x *. (1.0 -. (two *. s))))) u
let round u = map Float.round u

(* The pointwise maps of relu, sigmoid, tanh, exp, log and their
   derivatives, with the formulas of instance.v. *)
let relu = map (fun x -> if x < 0.0 then 0.0 else x)
let relu1 = map (fun x -> if 0.0 < x then 1.0 else 0.0)
let sigmoid = map sigm
let sigmoid1 = map (fun x -> let s = sigm x in s *. (1.0 -. s))
let sigmoid2 = map (fun x -> let s = sigm x in (s *. (1.0 -. s)) *. (1.0 -. (two *. s)))
let tanh_ = map tanh
let tanh1 = map (fun x -> let y = tanh x in 1.0 -. (y *. y))
let tanh2 = map (fun x -> let y = tanh x in (0.0 -. (two *. y)) *. (1.0 -. (y *. y)))
let exp_ = map exp
let log_ = map log
let log1 = map (fun x -> 1.0 /. x)
let log2 = map (fun x -> let r = 1.0 /. x in 0.0 -. (r *. r))

(* Σ v from 0.0, left to right (vsum), as a one-entry vector. *)
let sum_ (u : float array) =
  let acc = ref 0.0 in
  for i = 0 to Array.length u - 1 do acc := !acc +. get u i done;
  [| !acc |]

let bcast n (a : float array) = Array.make n (if Array.length a > 0 then get a 0 else 0.0)

(* The first maximal entry by strict comparison (vmax), 0.0 when empty. *)
let vmax (u : float array) =
  let n = Array.length u in
  if n = 0 then 0.0
  else begin
    let b = ref (get u 0) in
    for i = 1 to n - 1 do let x = get u i in if !b < x then b := x done;
    !b
  end

(* exp(z_i − m) for the maximum m (shifted_exp). *)
let shifted_exp (z : float array) = let m = vmax z in map (fun x -> exp (x -. m)) z

let softmax (z : float array) =
  let e = shifted_exp z in
  let s = (sum_ e).(0) in
  for i = 0 to Array.length e - 1 do set e i (get e i /. s) done;
  e

let lse (z : float array) = [| vmax z +. log (sum_ (shifted_exp z)).(0) |]

(* A·B, A m×n and B n×k row-major: c[i][j] the lane dot (vdot) of row i
   of A and column j of B (vec_stubs.c). *)
let matmul m n k (a : float array) (b : float array) =
  need "matmul" (Array.length a = m * n && Array.length b = n * k);
  let c = Array.create_float (m * k) in          (* every entry written by cmatmul *)
  if m * k > 0 then cmatmul a b c m n k;
  c

(* In blocks of 64×64, so that reads and writes both stay in cache; the
   indices advance by addition. *)
let transpose m n (a : float array) =
  need "transpose" (Array.length a = m * n);
  let c = Array.create_float (n * m) in
  let bs = 64 in
  let i0 = ref 0 in
  while !i0 < m do
    let i1 = min m (!i0 + bs) in
    let j0 = ref 0 in
    while !j0 < n do
      let j1 = min n (!j0 + bs) in
      for i = !i0 to i1 - 1 do
        let ci = ref ((!j0 * m) + i) and ai = ref ((i * n) + !j0) in
        for _ = !j0 to j1 - 1 do
          set c !ci (get a !ai);
          incr ai;
          ci := !ci + m
        done
      done;
      j0 := j1
    done;
    i0 := i1
  done;
  c

(* The last [sub_outer u a b]'s by-product: (u, a, uᵀ·a), the product
   [matmul_tl k m 1 u a] computes (u m×k, a of length m), found in the same
   pass over u (vec_stubs.c).  A backward pass that updates a weight matrix
   asks for exactly that product next (w − y xᵀ, then wᵀ·y): [matmul_tl]
   returns it when its arguments are the same arrays, physically (vectors
   are never mutated, so the same array holds the same numbers).  Taken
   once, then forgotten. *)
let last_tl : (float array * float array * float array) option ref = ref None

(* Aᵀ·B where A is n×m (so Aᵀ is m×n) and B n×k, without copying Aᵀ:
   c[i][j] the lane dot over t of a[t][i] and b[t][j], as [matmul m n k
   (transpose n m a) b] computes it (vec_stubs.c). *)
let matmul_tl m n k (a : float array) (b : float array) =
  need "matmul" (Array.length a = n * m && Array.length b = n * k);
  match !last_tl with
  | Some (u, y, c) when k = 1 && u == a && y == b && Array.length c = m ->
      last_tl := None;
      c
  | _ ->
      let c = Array.create_float (m * k) in      (* every entry written by cmatmul_tl *)
      if m * k > 0 then cmatmul_tl a b c m n k;
      c

(* Each of c channels of length n cut or zero-extended to length m. *)
let pad c n m (x : float array) =
  need "pad" (Array.length x = c * n);
  let y = Array.make (c * m) 0.0 in
  let k = min n m in
  for ch = 0 to c - 1 do
    Array.blit x (ch * n) y (ch * m) k
  done;
  y

(* [f i t] for each position t < m of each of c channels of length m and
   the position i < n it is drawn from (t·n/m), both counted over all channels. *)
let upscale_each c n m f =
  for ch = 0 to c - 1 do
    for t = 0 to m - 1 do
      let i = t * n / m in
      if i < n then f ((ch * n) + i) ((ch * m) + t)
    done
  done

let upscale c n m (x : float array) =
  need "upscale" (Array.length x = c * n && m > 0);
  let y = Array.make (c * m) 0.0 in
  upscale_each c n m (fun i t -> set y t (get x i));
  y

let upscale_adj c n m (g : float array) =
  need "upscale_adj" (Array.length g = c * m && m > 0);
  let y = Array.make (c * n) 0.0 in
  upscale_each c n m (fun i t -> set y i (get y i +. get g t));
  y

(* y[o][t] = Σ_i (Σ_j K[o][i][j]·x[i][t+j]), the outer sum from 0 in the
   order of i, the inner ones lane dots (vdot). *)
let conv1d c c' n m (kk : float array) (x : float array) =
  need "conv1d" (Array.length kk = c' * c * m && Array.length x = c * n && 0 < m && m <= n);
  let l = n - m + 1 in
  let y = Array.make (c' * l) 0.0 in
  for o = 0 to c' - 1 do
    for t = 0 to l - 1 do
      let acc = ref 0.0 in
      for i = 0 to c - 1 do
        acc := !acc +. cdot kk (((o * c) + i) * m) x ((i * n) + t) m
      done;
      set y ((o * l) + t) !acc
    done
  done;
  y

(* dK[o][i][j] = Σ_t g[o][t]·x[i][j+t], a lane dot (vdot). *)
let conv1d_dK c c' n m (g : float array) (x : float array) =
  let l = n - m + 1 in
  need "conv1d_dK" (Array.length g = c' * l && Array.length x = c * n && 0 < m && m <= n);
  let dk = Array.make (c' * c * m) 0.0 in
  for o = 0 to c' - 1 do
    for i = 0 to c - 1 do
      for j = 0 to m - 1 do
        set dk ((((o * c) + i) * m) + j) (cdot g (o * l) x ((i * n) + j) l)
      done
    done
  done;
  dk

(* dx[i][s] = Σ_o (Σ_{j ≤ s, s−j < L} K[o][i][j]·g[o][s−j]). *)
let conv1d_dx c c' n m (kk : float array) (g : float array) =
  let l = n - m + 1 in
  need "conv1d_dx" (Array.length kk = c' * c * m && Array.length g = c' * l && 0 < m && m <= n);
  let dx = Array.make (c * n) 0.0 in
  for i = 0 to c - 1 do
    for s = 0 to n - 1 do
      let acc = ref 0.0 in
      for o = 0 to c' - 1 do
        let d = ref 0.0 in
        let kb = ((o * c) + i) * m and gb = o * l in
        for j = max 0 (s - l + 1) to min (m - 1) s do
          d := !d +. (get kk (kb + j) *. get g (gb + s - j))
        done;
        acc := !acc +. !d
      done;
      set dx ((i * n) + s) !acc
    done
  done;
  dx

(* The first maximal position of x[lo, hi) relative to lo (strict <, so a
   NaN never wins and a leading NaN stays), as argmax in instance.v. *)
let argmax (x : float array) lo hi =
  let best = ref 0 and bv = ref (get x lo) in
  for i = lo + 1 to hi - 1 do
    let a = get x i in
    if !bv < a then (best := i - lo; bv := a)
  done;
  !best

let ceil_div n m = (n + m - 1) / m

(* For each window of m over each of c channels of length n (the last of a
   channel may be shorter), [f j p]: j the window's index (channel by
   channel), p the first maximal position of x in it. *)
let argmaxes c n m (x : float array) f =
  let w = ceil_div n m in
  for ch = 0 to c - 1 do
    for k = 0 to w - 1 do
      let lo = (ch * n) + (k * m) in
      let hi = (ch * n) + min n ((k * m) + m) in
      f ((ch * w) + k) (lo + argmax x lo hi)
    done
  done

let maxpool c n m (x : float array) =
  need "maxpool" (Array.length x = c * n && m > 0);
  let y = Array.make (c * ceil_div n m) 0.0 in
  argmaxes c n m x (fun j p -> set y j (get x p));
  y

let maxpool_adj c n m (x : float array) (g : float array) =
  need "maxpool_adj" (Array.length x = c * n && Array.length g = c * ceil_div n m && m > 0);
  let y = Array.make (c * n) 0.0 in
  argmaxes c n m x (fun j p -> set y p (get g j));
  y

let maxpool_gather c n m (x : float array) (cx : float array) =
  need "maxpool_gather" (Array.length x = c * n && Array.length cx = c * n && m > 0);
  let y = Array.make (c * ceil_div n m) 0.0 in
  argmaxes c n m x (fun j p -> set y j (get cx p));
  y

let firstn k (v : float array) = Array.sub v 0 (max 0 (min k (Array.length v)))
let skipn k (v : float array) =
  let k = max 0 (min k (Array.length v)) in
  Array.sub v k (Array.length v - k)

(* The vectors the instance works with: an array, or the transpose of a
   matrix not copied yet (vectors are never mutated, so sharing is safe).
   [Trans (m, n, a)] is the n×m transpose of the m×n matrix [a]; it is
   copied when an operation other than [matmul] (as its left factor) or
   [transpose] needs it, and a product Aᵀ·B reads A directly (matmul_tl). *)
type t =
  | Plain of float array
  | Trans of int * int * float array
  | Outer of float array * float array
      (** [Outer (a, b)]: the product of the column [a] (m×1) and the row
          [b] (1×k), entries [0.0 +. a.(i) *. b.(j)] as [matmul m 1 k] computes
          them; copied when needed, or fused into a subtraction *)

let outer (a : float array) (b : float array) =
  let m = Array.length a and k = Array.length b in
  let c = Array.create_float (m * k) in
  for i = 0 to m - 1 do
    let ai = get a i and row = i * k in
    for j = 0 to k - 1 do
      set c (row + j) (0.0 +. (ai *. get b j))
    done
  done;
  c

let force = function Plain a -> a | Trans (m, n, a) -> transpose m n a | Outer (a, b) -> outer a b

let length = function
  | Plain a -> Array.length a
  | Trans (_, _, a) -> Array.length a
  | Outer (a, b) -> Array.length a * Array.length b

(* u − (a bᵀ), element by element as [sub u (outer a b)] computes it:
   w[i][j] = u[i][j] −. (0.0 +. a[i] *. b[j]), in C (vec_stubs.c), with
   uᵀ·a in the same pass (kept in [last_tl]); the caller (sub_t) checks
   that u has length m·k. *)
external csub_outer_tl : float array -> float array -> float array -> float array -> float array -> unit
  = "rh_vec_sub_outer_tl" [@@noalloc]

let sub_outer (u : float array) (a : float array) (b : float array) =
  let m = Array.length a and k = Array.length b in
  let w = Array.create_float (m * k) in
  let c = if m * k > 0 then Array.create_float k else Array.make k 0.0 in   (* every entry written *)
  if m * k > 0 then csub_outer_tl w u a b c;
  last_tl := Some (u, a, c);
  w

let sub_t u v =
  match u, v with
  | Plain u, Outer (a, b) when Array.length u = Array.length a * Array.length b -> Plain (sub_outer u a b)
  | _ -> Plain (sub (force u) (force v))

let transpose_t m n = function
  | Trans (p, q, a) when p = n && q = m -> Plain a
  | Plain a when Array.length a = m * n && (m = 1 || n = 1) -> Plain a
  | Plain a when Array.length a = m * n -> Trans (m, n, a)
  | u -> Plain (transpose m n (force u))

let matmul_t m n k u v =
  match u with
  | Trans (p, q, a) when p = n && q = m -> Plain (matmul_tl m n k a (force v))
  | _ when n = 1 && length u = m && length v = k -> Outer (force u, force v)
  | _ -> Plain (matmul m n k (force u) (force v))

let lift1 f u = Plain (f (force u))
let lift2 f u v = Plain (f (force u) (force v))

let ops : t C.vec_ops =
  { C.v_len = length;
    v_zero = (fun n -> Plain (Array.make n 0.0));
    v_czero = (fun n -> Plain (Array.make n (-0.0)));
    v_add = lift2 add;
    v_sub = sub_t;
    v_mul = lift2 mul;
    v_neg = lift1 neg;
    v_scale = lift2 scale;
    v_dot = lift2 dot;
    v_swish = lift1 swish;
    v_swish1 = lift1 swish1;
    v_swish2 = lift1 swish2;
    v_round = lift1 round;
    v_relu = lift1 relu;
    v_relu1 = lift1 relu1;
    v_sigmoid = lift1 sigmoid;
    v_sigmoid1 = lift1 sigmoid1;
    v_sigmoid2 = lift1 sigmoid2;
    v_tanh = lift1 tanh_;
    v_tanh1 = lift1 tanh1;
    v_tanh2 = lift1 tanh2;
    v_exp = lift1 exp_;
    v_log = lift1 log_;
    v_log1 = lift1 log1;
    v_log2 = lift1 log2;
    v_sum = lift1 sum_;
    v_bcast = (fun n -> lift1 (bcast n));
    v_softmax = lift1 softmax;
    v_lse = lift1 lse;
    v_matmul = matmul_t;
    v_transpose = transpose_t;
    v_pad = (fun c n m -> lift1 (pad c n m));
    v_upscale = (fun c n m -> lift1 (upscale c n m));
    v_upscale_adj = (fun c n m -> lift1 (upscale_adj c n m));
    v_conv1d = (fun c c' n m -> lift2 (conv1d c c' n m));
    v_conv1d_dK = (fun c c' n m -> lift2 (conv1d_dK c c' n m));
    v_conv1d_dx = (fun c c' n m -> lift2 (conv1d_dx c c' n m));
    v_maxpool = (fun c n m -> lift1 (maxpool c n m));
    v_maxpool_adj = (fun c n m -> lift2 (maxpool_adj c n m));
    v_maxpool_gather = (fun c n m -> lift2 (maxpool_gather c n m));
    v_append = lift2 Array.append;
    v_firstn = (fun k -> lift1 (firstn k));
    v_skipn = (fun k -> lift1 (skipn k)) }

(* The list model, extracted from Coq, for --list-vectors and vec_check. *)
let list_ops : float list C.vec_ops = C.list_vec_ops float_ops

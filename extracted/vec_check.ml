(* vec_check: every operation of the float-array vectors (Vec.ops) against
   the list model extracted from Coq (list_vec_ops over IEEE binary64), bit
   for bit, on random shapes (zero-sized dimensions included) and values
   (signed zeros, ties of rounding, repeated maxima, large and tiny
   magnitudes).  usage: vec_check [CASES] [SEED]; exit 0 when every result
   is identical, 1 at the first difference (printed). *)

module C = Revhandlers_core

(* The float-array operations seen on plain arrays. *)
let a : float array C.vec_ops =
  let o = Vec.ops and p x = Vec.Plain x and f = Vec.force in
  { C.v_len = (fun u -> o.C.v_len (p u)); v_zero = (fun n -> f (o.C.v_zero n));
    v_czero = (fun n -> f (o.C.v_czero n));
    v_add = (fun u v -> f (o.C.v_add (p u) (p v))); v_sub = (fun u v -> f (o.C.v_sub (p u) (p v)));
    v_mul = (fun u v -> f (o.C.v_mul (p u) (p v))); v_neg = (fun u -> f (o.C.v_neg (p u)));
    v_scale = (fun u v -> f (o.C.v_scale (p u) (p v))); v_dot = (fun u v -> f (o.C.v_dot (p u) (p v)));
    v_swish = (fun u -> f (o.C.v_swish (p u))); v_swish1 = (fun u -> f (o.C.v_swish1 (p u)));
    v_swish2 = (fun u -> f (o.C.v_swish2 (p u))); v_round = (fun u -> f (o.C.v_round (p u)));
    v_relu = (fun u -> f (o.C.v_relu (p u))); v_relu1 = (fun u -> f (o.C.v_relu1 (p u)));
    v_sigmoid = (fun u -> f (o.C.v_sigmoid (p u))); v_sigmoid1 = (fun u -> f (o.C.v_sigmoid1 (p u)));
    v_sigmoid2 = (fun u -> f (o.C.v_sigmoid2 (p u))); v_tanh = (fun u -> f (o.C.v_tanh (p u)));
    v_tanh1 = (fun u -> f (o.C.v_tanh1 (p u))); v_tanh2 = (fun u -> f (o.C.v_tanh2 (p u)));
    v_exp = (fun u -> f (o.C.v_exp (p u))); v_log = (fun u -> f (o.C.v_log (p u)));
    v_log1 = (fun u -> f (o.C.v_log1 (p u))); v_log2 = (fun u -> f (o.C.v_log2 (p u)));
    v_sum = (fun u -> f (o.C.v_sum (p u))); v_bcast = (fun n u -> f (o.C.v_bcast n (p u)));
    v_softmax = (fun u -> f (o.C.v_softmax (p u))); v_lse = (fun u -> f (o.C.v_lse (p u)));
    v_matmul = (fun m n k u v -> f (o.C.v_matmul m n k (p u) (p v)));
    v_transpose = (fun m n u -> f (o.C.v_transpose m n (p u)));
    v_pad = (fun c n m u -> f (o.C.v_pad c n m (p u))); v_upscale = (fun c n m u -> f (o.C.v_upscale c n m (p u)));
    v_upscale_adj = (fun c n m u -> f (o.C.v_upscale_adj c n m (p u)));
    v_conv1d = (fun c c' n m u v -> f (o.C.v_conv1d c c' n m (p u) (p v)));
    v_conv1d_dK = (fun c c' n m u v -> f (o.C.v_conv1d_dK c c' n m (p u) (p v)));
    v_conv1d_dx = (fun c c' n m u v -> f (o.C.v_conv1d_dx c c' n m (p u) (p v)));
    v_maxpool = (fun c n m u -> f (o.C.v_maxpool c n m (p u)));
    v_maxpool_adj = (fun c n m u v -> f (o.C.v_maxpool_adj c n m (p u) (p v)));
    v_maxpool_gather = (fun c n m u v -> f (o.C.v_maxpool_gather c n m (p u) (p v)));
    v_append = (fun u v -> f (o.C.v_append (p u) (p v)));
    v_firstn = (fun k u -> f (o.C.v_firstn k (p u))); v_skipn = (fun k u -> f (o.C.v_skipn k (p u))) }

let l = Vec.list_ops

let special = [| 0.0; -0.0; 0.5; -0.5; 1.5; -2.5; 2.5; 1e-310; -1e300; 3.0; 3.0; 710.0; -745.0 |]

let value () =
  match Random.int 5 with
  | 0 -> special.(Random.int (Array.length special))
  | 1 -> float_of_int (Random.int 7 - 3)
  | 2 -> ldexp (Random.float 2.0 -. 1.0) (Random.int 80 - 40)
  | _ -> Random.float 8.0 -. 4.0

let vec n = Array.init n (fun _ -> value ())
let dim () = if Random.int 6 = 0 then 0 else 1 + Random.int 7
let pos () = 1 + Random.int 7

let same (x : float array) (y : float list) =
  let y = Array.of_list y in
  Array.length x = Array.length y
  && Array.for_all2 (fun u v -> Int64.equal (Int64.bits_of_float u) (Int64.bits_of_float v)) x y

let show v = "[" ^ String.concat "; " (List.map (Printf.sprintf "%h") (Array.to_list v)) ^ "]"

let cases = ref 0

let check name args (x : float array) (y : float list) =
  incr cases;
  if not (same x y) then begin
    Printf.printf "vec_check: %s differs on %s\n  arrays: %s\n  lists:  %s\n" name
      (String.concat " " (List.map show args)) (show x) (show (Array.of_list y));
    exit 1
  end

let tl = Array.to_list

let one () =
  let n = dim () in
  let u = vec n and v = vec n in
  check "add" [ u; v ] (a.C.v_add u v) (l.C.v_add (tl u) (tl v));
  check "sub" [ u; v ] (a.C.v_sub u v) (l.C.v_sub (tl u) (tl v));
  check "mul" [ u; v ] (a.C.v_mul u v) (l.C.v_mul (tl u) (tl v));
  check "neg" [ u ] (a.C.v_neg u) (l.C.v_neg (tl u));
  check "zero" [] (a.C.v_zero n) (l.C.v_zero n);
  check "czero" [] (a.C.v_czero n) (l.C.v_czero n);
  let s = vec 1 in
  check "scale" [ s; u ] (a.C.v_scale s u) (l.C.v_scale (tl s) (tl u));
  check "dot" [ u; v ] (a.C.v_dot u v) (l.C.v_dot (tl u) (tl v));
  check "swish" [ u ] (a.C.v_swish u) (l.C.v_swish (tl u));
  check "swish1" [ u ] (a.C.v_swish1 u) (l.C.v_swish1 (tl u));
  check "swish2" [ u ] (a.C.v_swish2 u) (l.C.v_swish2 (tl u));
  check "round" [ u ] (a.C.v_round u) (l.C.v_round (tl u));
  let unary = [ ("relu", a.C.v_relu, l.C.v_relu); ("relu1", a.C.v_relu1, l.C.v_relu1);
                ("sigmoid", a.C.v_sigmoid, l.C.v_sigmoid); ("sigmoid1", a.C.v_sigmoid1, l.C.v_sigmoid1);
                ("sigmoid2", a.C.v_sigmoid2, l.C.v_sigmoid2); ("tanh", a.C.v_tanh, l.C.v_tanh);
                ("tanh1", a.C.v_tanh1, l.C.v_tanh1); ("tanh2", a.C.v_tanh2, l.C.v_tanh2);
                ("exp", a.C.v_exp, l.C.v_exp); ("log", a.C.v_log, l.C.v_log);
                ("log1", a.C.v_log1, l.C.v_log1); ("log2", a.C.v_log2, l.C.v_log2);
                ("sum", a.C.v_sum, l.C.v_sum); ("softmax", a.C.v_softmax, l.C.v_softmax);
                ("lse", a.C.v_lse, l.C.v_lse) ] in
  List.iter (fun (name, fa, fl) -> check name [ u ] (fa u) (fl (tl u))) unary;
  (* the entries of a softmax's input a few units apart, as logits are *)
  let z = Array.map (fun x -> if Float.abs x < 1e3 then x else 1.0) u in
  check "softmax of logits" [ z ] (a.C.v_softmax z) (l.C.v_softmax (tl z));
  check "lse of logits" [ z ] (a.C.v_lse z) (l.C.v_lse (tl z));
  check "bcast" [ s ] (a.C.v_bcast n s) (l.C.v_bcast n (tl s));
  check "bcast of the empty vector" [] (a.C.v_bcast n [||]) (l.C.v_bcast n []);
  check "append" [ u; s ] (a.C.v_append u s) (l.C.v_append (tl u) (tl s));
  let k = Random.int (n + 2) in
  check "firstn" [ u ] (a.C.v_firstn k u) (l.C.v_firstn k (tl u));
  check "skipn" [ u ] (a.C.v_skipn k u) (l.C.v_skipn k (tl u));
  if a.C.v_len u <> l.C.v_len (tl u) then (print_endline "vec_check: len differs"; exit 1);
  let m = dim () and n = dim () and k = dim () in
  let x = vec (m * n) and y = vec (n * k) in
  check (Printf.sprintf "matmul %d %d %d" m n k) [ x; y ] (a.C.v_matmul m n k x y) (l.C.v_matmul m n k (tl x) (tl y));
  check (Printf.sprintf "transpose %d %d" m n) [ x ] (a.C.v_transpose m n x) (l.C.v_transpose m n (tl x));
  let c = dim () and n = dim () and m = dim () in
  let x = vec (c * n) in
  check (Printf.sprintf "pad %d %d %d" c n m) [ x ] (a.C.v_pad c n m x) (l.C.v_pad c n m (tl x));
  let m = pos () in
  check (Printf.sprintf "upscale %d %d %d" c n m) [ x ] (a.C.v_upscale c n m x) (l.C.v_upscale c n m (tl x));
  let g = vec (c * m) in
  check (Printf.sprintf "upscale_adj %d %d %d" c n m) [ g ] (a.C.v_upscale_adj c n m g) (l.C.v_upscale_adj c n m (tl g));
  check (Printf.sprintf "maxpool %d %d %d" c n m) [ x ] (a.C.v_maxpool c n m x) (l.C.v_maxpool c n m (tl x));
  let w = (n + m - 1) / m in
  let g = vec (c * w) and cx = vec (c * n) in
  check (Printf.sprintf "maxpool_adj %d %d %d" c n m) [ x; g ] (a.C.v_maxpool_adj c n m x g) (l.C.v_maxpool_adj c n m (tl x) (tl g));
  check (Printf.sprintf "maxpool_gather %d %d %d" c n m) [ x; cx ] (a.C.v_maxpool_gather c n m x cx)
    (l.C.v_maxpool_gather c n m (tl x) (tl cx));
  let c = dim () and c' = dim () and n = pos () in
  let m = 1 + Random.int n in
  let len = n - m + 1 in
  let kk = vec (c' * c * m) and x = vec (c * n) and g = vec (c' * len) in
  let tag = Printf.sprintf "%d %d %d %d" c c' n m in
  check ("conv1d " ^ tag) [ kk; x ] (a.C.v_conv1d c c' n m kk x) (l.C.v_conv1d c c' n m (tl kk) (tl x));
  check ("conv1d_dK " ^ tag) [ g; x ] (a.C.v_conv1d_dK c c' n m g x) (l.C.v_conv1d_dK c c' n m (tl g) (tl x));
  check ("conv1d_dx " ^ tag) [ kk; g ] (a.C.v_conv1d_dx c c' n m kk g) (l.C.v_conv1d_dx c c' n m (tl kk) (tl g))

(* Shapes past the kernels' blocking and unrolling (64×64 blocks, four
   rows at a time), with ragged edges. *)
let big () =
  let m = 60 + Random.int 80 and n = 60 + Random.int 80 and k = 1 + Random.int 3 in
  let x = vec (m * n) and y = vec (n * k) and y' = vec (m * k) in
  let xt = Vec.ops.C.v_transpose m n (Vec.Plain x) in
  check (Printf.sprintf "matmul %d %d %d of a transpose" n m k) [ x; y' ] (Vec.force (Vec.ops.C.v_matmul n m k xt (Vec.Plain y')))
    (l.C.v_matmul n m k (l.C.v_transpose m n (tl x)) (tl y'));
  check (Printf.sprintf "transpose %d %d" m n) [ x ] (a.C.v_transpose m n x) (l.C.v_transpose m n (tl x));
  check (Printf.sprintf "matmul %d %d %d" m n k) [ x; y ] (a.C.v_matmul m n k x y) (l.C.v_matmul m n k (tl x) (tl y))

(* The dot products' lanes (vdot: 8 interleaved sums): lengths 0, 1, 7, 8,
   9, 15, 16, 17 and up to 40, in every kernel that sums a dot product
   (products of 1 to 12 rows: the four-row kernel and its remainder); the
   same lengths as rows of u − a bᵀ (four numbers per AVX2 register). *)
let lane_dim () =
  match Random.int 3 with
  | 0 -> [| 0; 1; 7; 8; 9; 15; 16; 17 |].(Random.int 8)
  | _ -> Random.int 41

let lanes () =
  let o = Vec.ops in
  let n = lane_dim () in
  let u = vec n and v = vec n in
  check (Printf.sprintf "dot of length %d" n) [ u; v ] (a.C.v_dot u v) (l.C.v_dot (tl u) (tl v));
  let m = 1 + Random.int 12 and k = [| 1; 1; 2; 3; 5; 9 |].(Random.int 6) in
  let x = vec (m * n) and y = vec (n * k) in
  check (Printf.sprintf "matmul %d %d %d" m n k) [ x; y ] (a.C.v_matmul m n k x y) (l.C.v_matmul m n k (tl x) (tl y));
  let col = vec m and w = vec (m * n) in
  check (Printf.sprintf "sub of an outer product %d 1 %d" m n) [ w; col; u ]
    (Vec.force (o.C.v_sub (Vec.Plain w) (o.C.v_matmul m 1 n (Vec.Plain col) (Vec.Plain u))))
    (l.C.v_sub (tl w) (l.C.v_matmul m 1 n (tl col) (tl u)));
  let xt = vec (n * m) in
  check (Printf.sprintf "matmul %d %d %d of a transpose" m n k) [ xt; y ]
    (Vec.force (o.C.v_matmul m n k (o.C.v_transpose n m (Vec.Plain xt)) (Vec.Plain y)))
    (l.C.v_matmul m n k (l.C.v_transpose n m (tl xt)) (tl y));
  let c = 1 + Random.int 3 and c' = 1 + Random.int 3 and cn = 1 + Random.int 40 in
  let cm = 1 + Random.int cn in
  let len = cn - cm + 1 in
  let kk = vec (c' * c * cm) and x = vec (c * cn) and g = vec (c' * len) in
  let tag = Printf.sprintf "%d %d %d %d" c c' cn cm in
  check ("conv1d " ^ tag) [ kk; x ] (a.C.v_conv1d c c' cn cm kk x) (l.C.v_conv1d c c' cn cm (tl kk) (tl x));
  check ("conv1d_dK " ^ tag) [ g; x ] (a.C.v_conv1d_dK c c' cn cm g x) (l.C.v_conv1d_dK c c' cn cm (tl g) (tl x))

(* Transposes kept lazy: a product with a transposed left factor, a
   transpose transposed back, and any other operation on a transpose. *)
let lazy_transposes () =
  let o = Vec.ops in
  let m = dim () and n = dim () and k = dim () in
  let x = vec (n * m) and y = vec (n * k) in
  let xt = o.C.v_transpose n m (Vec.Plain x) in
  check (Printf.sprintf "matmul %d %d %d of a transpose" m n k) [ x; y ] (Vec.force (o.C.v_matmul m n k xt (Vec.Plain y)))
    (l.C.v_matmul m n k (l.C.v_transpose n m (tl x)) (tl y));
  check (Printf.sprintf "transpose of a transpose %d %d" n m) [ x ] (Vec.force (o.C.v_transpose m n xt))
    (l.C.v_transpose m n (l.C.v_transpose n m (tl x)));
  let z = vec (n * m) in
  check (Printf.sprintf "add of a transpose %d %d" n m) [ x; z ] (Vec.force (o.C.v_add xt (Vec.Plain z)))
    (l.C.v_add (l.C.v_transpose n m (tl x)) (tl z));
  let col = vec m and row = vec k in
  let w = vec (m * k) in
  let op = o.C.v_matmul m 1 k (Vec.Plain col) (Vec.Plain row) in
  check (Printf.sprintf "outer product %d 1 %d" m k) [ col; row ] (Vec.force op) (l.C.v_matmul m 1 k (tl col) (tl row));
  check (Printf.sprintf "sub of an outer product %d 1 %d" m k) [ w; col; row ] (Vec.force (o.C.v_sub (Vec.Plain w) op))
    (l.C.v_sub (tl w) (l.C.v_matmul m 1 k (tl col) (tl row)));
  check (Printf.sprintf "add of an outer product %d 1 %d" m k) [ w; col; row ] (Vec.force (o.C.v_add op (Vec.Plain w)))
    (l.C.v_add (l.C.v_matmul m 1 k (tl col) (tl row)) (tl w));
  check (Printf.sprintf "matmul %d %d %d by a transpose" k n m) [ x; y ]
    (Vec.force (o.C.v_matmul k n m (o.C.v_transpose n k (Vec.Plain y)) (Vec.Plain x)))
    (l.C.v_matmul k n m (l.C.v_transpose n k (tl y)) (tl x))

(* A weight update then the transposed product by the same vector (w − y
   xᵀ, then wᵀ·y: the second found in the first's pass over w, Vec.last_tl),
   rows across the four-rows-a-pass path (0, 1, 7-9, 24-25, 31-33, 40-41 or
   up to 70), columns of every lane count; then the same product by
   another vector (not the one kept), and after an unrelated subtraction. *)
let fused () =
  let o = Vec.ops in
  let r = if Random.bool () then [| 0; 1; 7; 8; 9; 24; 25; 31; 32; 33; 40; 41 |].(Random.int 12) else Random.int 71 in
  let k = lane_dim () in
  let w = vec (r * k) and y = vec r and x = vec k and y' = vec r in
  let tag = Printf.sprintf "%d %d" r k in
  let w' = o.C.v_sub (Vec.Plain w) (o.C.v_matmul r 1 k (Vec.Plain y) (Vec.Plain x)) in
  check ("sub of an outer product, then the transposed product " ^ tag) [ w; y; x ] (Vec.force w')
    (l.C.v_sub (tl w) (l.C.v_matmul r 1 k (tl y) (tl x)));
  let wt = o.C.v_transpose r k (Vec.Plain w) in
  check ("transposed product after the update " ^ tag) [ w; y ] (Vec.force (o.C.v_matmul k r 1 wt (Vec.Plain y)))
    (l.C.v_matmul k r 1 (l.C.v_transpose r k (tl w)) (tl y));
  ignore (o.C.v_sub (Vec.Plain w) (o.C.v_matmul r 1 k (Vec.Plain y) (Vec.Plain x)));
  check ("transposed product by another vector after the update " ^ tag) [ w; y' ]
    (Vec.force (o.C.v_matmul k r 1 wt (Vec.Plain y')))
    (l.C.v_matmul k r 1 (l.C.v_transpose r k (tl w)) (tl y'));
  check ("transposed product once more " ^ tag) [ w; y ] (Vec.force (o.C.v_matmul k r 1 wt (Vec.Plain y)))
    (l.C.v_matmul k r 1 (l.C.v_transpose r k (tl w)) (tl y))

(* The zero law the evaluator relies on (tape_rh4.v's zero_law, TRUSTED.md): the structural zero
   cotangent, -0.0 (the scalars' s_czero, the vectors' v_czero), is a two-sided identity of the
   scalars' addition, of the arrays' v_add and of the list model's, bit for bit, on every non-NaN
   number: signed zeros, infinities, subnormals, the extremes and random bit patterns.  NaN is left
   out: IEEE 754 does not fix the payload or sign of the NaN an addition returns.  Then +0.0 is
   checked not to be an identity ((-0.0) +. 0.0 is +0.0). *)
let zero_law () =
  let bits = Int64.bits_of_float in
  let fixed = [ 0.0; -0.0; infinity; neg_infinity; ldexp 1.0 (-1074); -. ldexp 1.0 (-1074);
                Int64.float_of_bits 0x000FFFFFFFFFFFFFL; Int64.float_of_bits 0x800FFFFFFFFFFFFFL;
                min_float; -. min_float; max_float; -. max_float; 1.0; -1.0; 0.5; -2.5; 1e-310; -1e300 ] in
  let rec draw k acc =
    if k = 0 then acc
    else let x = Int64.float_of_bits (Random.int64 Int64.max_int) in
      let x = if Random.bool () then x else -. x in
      if Float.is_nan x then draw k acc else draw (k - 1) (x :: acc) in
  let xs = fixed @ draw 10000 [] in
  let z = Vec.float_ops.C.s_czero and add = Vec.float_ops.C.s_add in
  if not (Int64.equal (bits z) (bits (-0.0))) then (print_endline "vec_check: s_czero is not -0.0"; exit 1);
  if not (Int64.equal (bits (add (-0.0) 0.0)) (bits 0.0)) then
    (print_endline "vec_check: (-0.0) + (+0.0) is not +0.0"; exit 1);
  List.iter (fun x ->
      incr cases;
      if not (Int64.equal (bits (x +. z)) (bits x) && Int64.equal (bits (z +. x)) (bits x)
              && Int64.equal (bits (add x z)) (bits x) && Int64.equal (bits (add z x)) (bits x)) then begin
        Printf.printf "vec_check: the zero law fails at %h\n" x; exit 1 end) xs;
  let o = Vec.ops and v = Array.of_list xs in
  let n = Array.length v in
  check "czero" [] (Vec.force (o.C.v_czero n)) (List.map (fun _ -> -0.0) xs);
  check "v + czero" [ v ] (Vec.force (o.C.v_add (Vec.Plain v) (o.C.v_czero n))) xs;
  check "czero + v" [ v ] (Vec.force (o.C.v_add (o.C.v_czero n) (Vec.Plain v))) xs;
  check "list model: v + czero" [ v ] (Array.of_list (l.C.v_add xs (l.C.v_czero n))) xs;
  check "list model: czero + v" [ v ] (Array.of_list (l.C.v_add (l.C.v_czero n) xs)) xs;
  List.length xs

let () =
  let n = if Array.length Sys.argv > 1 then int_of_string Sys.argv.(1) else 2000 in
  let seed = if Array.length Sys.argv > 2 then int_of_string Sys.argv.(2) else 0 in
  Random.init seed;
  let zeros = zero_law () in
  for r = 1 to n do one (); lazy_transposes (); lanes (); fused (); if r mod 100 = 0 then big () done;
  Printf.printf "vec_check: %d comparisons in %d rounds, all identical bit for bit\n" !cases n;
  Printf.printf "vec_check: zero law on %d numbers: -0.0 a two-sided identity bit for bit\n" zeros

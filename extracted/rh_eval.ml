(* rh-eval: the command-line driver of the verified evaluator.

   Everything that decides what a program means is extracted from Coq
   (module Revhandlers_core, generated at build time from
   theories/extraction.v): the type checker, the step function and the
   evaluator.  This file only
   - reads S-expressions (docs/sexp-format.md) and resolves names to
     de Bruijn indices, declared operations and locations;
   - supplies the vectors: OCaml float arrays (vec.ml), or with
     --list-vectors the list model extracted from Coq over IEEE binary64;
   - keeps resident sessions (--serve: load a program once, run it many
     times on a heap kept between runs);
   - prints results, traces and errors, and chooses the exit code:
     0 result, 1 runtime failure of a well-typed program, 2 bad input. *)

module C = Revhandlers_core
module S = Sexplib.Sexp
open Driver_io

(* ---------- vectors ---------- *)

(* The vectors of constants: float arrays (Vec.ops), or the list model
   extracted from Coq (Vec.list_ops) with --list-vectors.  The extracted
   code is polymorphic in the vector type; these convert at the border. *)
let list_vectors = ref false

let const_of_array n (a : float array) : C.const =
  if !list_vectors then C.mk_const n (Array.to_list a) else C.mk_const n (Vec.Plain a)

let array_of_const (c : C.const) : float array =
  if !list_vectors then Array.of_list (snd (C.const_view c) : float list) else Vec.force (snd (C.const_view c) : Vec.t)

let exec_check decls locs p =
  if !list_vectors then C.exec_check Vec.list_ops decls locs p else C.exec_check Vec.ops decls locs p

(* The environment machine (machine.v, proved equal to the small-step
   evaluator: run_machine_correct), or with --small-step the small-step
   evaluator itself. *)
let small_step = ref false

let exec_run decls locs fuel hp p =
  match !list_vectors, !small_step with
  | false, false -> C.exec_run_machine Vec.ops decls locs fuel hp p
  | false, true -> C.exec_run Vec.ops decls locs fuel hp p
  | true, false -> C.exec_run_machine Vec.list_ops decls locs fuel hp p
  | true, true -> C.exec_run Vec.list_ops decls locs fuel hp p

let exec_step decls locs fuel hp p =
  if !list_vectors then C.exec_step Vec.list_ops decls locs fuel hp p else C.exec_step Vec.ops decls locs fuel hp p

let exec_step_tags decls locs fuel p =
  if !list_vectors then C.exec_step_tags Vec.list_ops decls locs fuel p else C.exec_step_tags Vec.ops decls locs fuel p

(* ---------- printing ---------- *)

type names = { op_names : string array; loc_names : string array }

let rec ty_sexp = function
  | C.TBase b -> list "real" [ int_atom (C.base_view b) ]
  | C.TProd ts -> list "prod" (List.map ty_sexp ts)

let prim_sexp (p : C.prim) =
  let l name ns = list name (List.map int_atom ns) in
  match p with
  | C.PSwish n -> l "swish" [ n ]
  | C.PSmul n -> l "smul" [ n ]
  | C.PSub n -> l "sub" [ n ]
  | C.PMatmul (m, n, k) -> l "matmul" [ m; n; k ]
  | C.PTranspose (m, n) -> l "transpose" [ m; n ]
  | C.PRound n -> l "round" [ n ]
  | C.PPad (c, n, m) -> l "pad" [ c; n; m ]
  | C.PUpscale (c, n, m) -> l "upscale" [ c; n; m ]
  | C.PConcat (c, c', n) -> l "concat" [ c; c'; n ]
  | C.PConv1d (c, c', n, m) -> l "conv1d" [ c; c'; n; m ]
  | C.PMaxpool (c, n, m) -> l "maxpool" [ c; n; m ]
  | C.PRelu n -> l "relu" [ n ]
  | C.PSigmoid n -> l "sigmoid" [ n ]
  | C.PTanh n -> l "tanh" [ n ]
  | C.PExp n -> l "exp" [ n ]
  | C.PLog n -> l "log" [ n ]
  | C.PMul n -> l "mul" [ n ]
  | C.PSum n -> l "sum" [ n ]
  | C.PSce n -> l "sce" [ n ]

let fsym_sexp f =
  let k, p = C.fsym_view f in
  let rec wrap k s = if k = 0 then s else wrap (k - 1) (list "rd" [ s ]) in
  wrap k (prim_sexp p)

let floats_sexp (v : float array) = Array.fold_right (fun x acc -> atom (float_str x) :: acc) v []

let const_sexp c = list "const" (floats_sexp (array_of_const c))

let opsym_sexp nm = function
  | C.OpUser o -> atom nm.op_names.(C.op_view o)
  | C.OpGet l -> list "get" [ atom nm.loc_names.(C.loc_view l) ]
  | C.OpPut l -> list "put" [ atom nm.loc_names.(C.loc_view l) ]

(* Binders are printed v0, v1, ... by their depth; free variables as #i. *)
let fresh env = "v" ^ string_of_int (List.length env)
let var_name env i = match List.nth_opt env i with Some x -> x | None -> "#" ^ string_of_int i

let rec tm_sexp env = function
  | C.Var i -> atom (var_name env i)
  | C.Const c -> const_sexp c
  | C.App (f, m) -> list "app" [ fsym_sexp f; tm_sexp env m ]
  | C.Add (a, b) -> list "add" [ tm_sexp env a; tm_sexp env b ]
  | C.Tuple ms -> list "tuple" (List.map (tm_sexp env) ms)
  | C.Proj (i, m) -> list "proj" [ int_atom i; tm_sexp env m ]
  | C.Let (m, n) -> let x = fresh env in list "let" [ atom x; tm_sexp env m; tm_sexp (x :: env) n ]
  | C.Rd (m, n, l) ->
      let x = fresh env in
      list "rd" [ tm_sexp env m; atom x; tm_sexp (x :: env) n; tm_sexp env l ]

let rec cmd_sexp nm env = function
  | C.Ret m -> list "ret" [ tm_sexp env m ]
  | C.Op (o, m) -> list "op" [ opsym_sexp nm o; tm_sexp env m ]
  | C.CLet (p, q) -> let x = fresh env in list "let" [ atom x; cmd_sexp nm env p; cmd_sexp nm (x :: env) q ]
  | C.RevHandle (m, r, h) ->
      let xs = List.init (max_var r) (fun i -> "v" ^ string_of_int i) in
      list "revhandle" [ tm_sexp env m; S.List (List.map atom xs); cmd_sexp nm xs r; handler_sexp nm h ]

(* The number of binders of a rev handle body is not stored (it is the
   arity of the argument's type); print as many as the body uses. *)
and max_var r =
  let rec tm d = function
    | C.Var i -> if i >= d then i - d + 1 else 0
    | C.Const _ -> 0
    | C.App (_, m) | C.Proj (_, m) -> tm d m
    | C.Add (a, b) -> max (tm d a) (tm d b)
    | C.Tuple ms -> List.fold_left (fun acc m -> max acc (tm d m)) 0 ms
    | C.Let (m, n) -> max (tm d m) (tm (d + 1) n)
    | C.Rd (m, n, l) -> max (tm d m) (max (tm (d + 1) n) (tm d l))
  in
  let rec cmd d = function
    | C.Ret m | C.Op (_, m) | C.RevHandle (m, _, _) -> tm d m
    | C.CLet (p, q) -> max (cmd d p) (cmd (d + 1) q)
  in
  cmd 0 r

and handler_sexp nm (C.Handler (p, cls)) =
  let rec clauses = function
    | C.CNil -> []
    | C.CCons (o, d, qf, qb, rest) ->
        list "clause"
          [ opsym_sexp nm o; ty_sexp d;
            S.List [ atom "x"; cmd_sexp nm [ "x" ] qf ];
            S.List [ atom "y"; atom "z"; cmd_sexp nm [ "y"; "z" ] qb ] ]
        :: clauses rest
  in
  list "handler" (S.List [ atom "return"; atom "x"; cmd_sexp nm [ "x" ] p ] :: clauses cls)

let heap_sexp nm dims (hp : C.heap) =
  let lookup l =
    match List.find_opt (fun (l', _) -> C.loc_view l' = l) hp with
    | Some (_, c) -> array_of_const c
    | None -> Array.make dims.(l) 0.0
  in
  list "heap"
    (List.mapi (fun l name -> S.List [ atom name; S.List (floats_sexp (lookup l)) ])
       (Array.to_list nm.loc_names))

(* ---------- reading ---------- *)

let max_depth = 2000

(* Natural numbers (dimensions, indices) are OCaml ints in the extracted
   code (ExtrOcamlNatInt, no overflow check); bounding them keeps every
   product the primitives form (at most three factors) below 2^62. *)
let max_nat = 1_000_000
let max_loc_size = 100_000_000
(* ... and all of them together (800 MB of float64) *)
let max_heap_size = 100_000_000
let name_of = function S.Atom a -> a | s -> bad "syntax" ("expected a name, found " ^ short s)

let nat_of s =
  match s with
  | S.Atom a -> (
      match int_of_string_opt a with
      | Some n when n >= 0 && n <= max_nat -> n
      | _ -> bad "syntax" ("expected a natural number, found " ^ a))
  | _ -> bad "syntax" ("expected a natural number, found " ^ short s)

let float_of = function
  | S.Atom a -> (
      match float_of_string_opt a with
      | Some f when Float.is_finite f -> f
      | Some _ -> bad "number" ("not a finite number: " ^ a)
      | None -> bad "syntax" ("expected a number, found " ^ a))
  | s -> bad "syntax" ("expected a number, found " ^ short s)

(* Numbers as a float array, without recursion (a location may hold
   millions): decimal atoms, or one (f64 BASE64) of little-endian binary64. *)
let floats_of xs =
  let a = Array.make (List.length xs) 0.0 in
  List.iteri (fun i x -> a.(i) <- float_of x) xs;
  a

let data_of = function
  | S.List [ S.Atom "f64" ] -> [||]
  | S.List [ S.Atom "f64"; S.Atom b ] -> (
      match F64.decode b with
      | Some a ->
          if not (Array.for_all Float.is_finite a) then bad "number" "not a finite number in (f64 ...) data";
          a
      | None -> bad "syntax" "(f64 DATA) needs base64 of little-endian binary64 numbers")
  | S.List xs -> floats_of xs
  | s -> bad "syntax" ("expected numbers (x1 ... xn) or (f64 BASE64), found " ^ short s)

let check_depth d = if d > max_depth then bad "too-deep" (Printf.sprintf "nesting deeper than %d levels" max_depth)

let rec ty_of d s =
  check_depth d;
  match s with
  | S.List [ S.Atom "real"; n ] -> C.TBase (C.mk_base (nat_of n))
  | S.List (S.Atom "prod" :: ts) -> C.TProd (List.map (ty_of (d + 1)) ts)
  | _ -> bad "syntax" ("not a type: " ^ short s)

let prim_of name args =
  let ns = List.map nat_of args in
  let p =
    match (name, ns) with
    | "swish", [ n ] -> C.PSwish n
    | "smul", [ n ] -> C.PSmul n
    | "sub", [ n ] -> C.PSub n
    | "matmul", [ m; n; k ] -> C.PMatmul (m, n, k)
    | "transpose", [ m; n ] -> C.PTranspose (m, n)
    | "round", [ n ] -> C.PRound n
    | "pad", [ c; n; m ] -> C.PPad (c, n, m)
    | "upscale", [ c; n; m ] -> C.PUpscale (c, n, m)
    | "concat", [ c; c'; n ] -> C.PConcat (c, c', n)
    | "conv1d", [ c; c'; n; m ] -> C.PConv1d (c, c', n, m)
    | "maxpool", [ c; n; m ] -> C.PMaxpool (c, n, m)
    | "relu", [ n ] -> C.PRelu n
    | "sigmoid", [ n ] -> C.PSigmoid n
    | "tanh", [ n ] -> C.PTanh n
    | "exp", [ n ] -> C.PExp n
    | "log", [ n ] -> C.PLog n
    | "mul", [ n ] -> C.PMul n
    | "sum", [ n ] -> C.PSum n
    | "sce", [ n ] -> C.PSce n
    | _ -> bad "unbound" (Printf.sprintf "unknown function symbol %s with %d parameters" name (List.length ns))
  in
  if not (C.prim_ok p) then
    bad "shape" ("impossible parameters for " ^ to_line (prim_sexp p) ^ " (conv1d needs 0 < m <= n; maxpool and upscale need m > 0)");
  p

let rec fsym_of d s =
  check_depth d;
  match s with
  | S.List [ S.Atom "rd"; f ] -> let k, p = C.fsym_view (fsym_of (d + 1) f) in C.mk_fsym (k + 1) p
  | S.List (S.Atom name :: args) -> C.mk_fsym 0 (prim_of name args)
  | _ -> bad "syntax" ("not a function symbol: " ^ short s)

type decls = {
  ops : (string * int) list; (* name -> index *)
  op_types : (C.ty * C.ty) list;
  locs : (string * int) list;
  loc_dims : int array;
  nm : names;
}

let lookup_var vars x =
  let rec go i = function [] -> None | y :: ys -> if y = x then Some i else go (i + 1) ys in
  go 0 vars

(* Every reader below works left to right (explicit lets: OCaml evaluates
   constructor arguments in no specified order), so the first error
   reported is the first in the text. *)
let rec tm_of dc vars d s =
  check_depth d;
  let tm = tm_of dc vars (d + 1) in
  match s with
  | S.Atom x -> (
      match lookup_var vars x with
      | Some i -> C.Var i
      | None -> bad "unbound" ("unbound variable " ^ x ^ " (a rev handle body and a handler clause see only their own binders)"))
  | S.List (S.Atom "const" :: xs) -> let v = floats_of xs in C.Const (const_of_array (Array.length v) v)
  | S.List [ S.Atom "app"; f; m ] -> let f = fsym_of (d + 1) f in let m = tm m in C.App (f, m)
  | S.List [ S.Atom "add"; a; b ] -> let a = tm a in let b = tm b in C.Add (a, b)
  | S.List (S.Atom "tuple" :: ms) -> C.Tuple (List.map tm ms)
  | S.List [ S.Atom "proj"; i; m ] -> let i = nat_of i in let m = tm m in C.Proj (i, m)
  | S.List [ S.Atom "let"; x; m; n ] ->
      let x = name_of x in let m = tm m in C.Let (m, tm_of dc (x :: vars) (d + 1) n)
  | S.List [ S.Atom "rd"; m; x; n; l ] ->
      let m = tm m in let x = name_of x in let n = tm_of dc (x :: vars) (d + 1) n in let l = tm l in C.Rd (m, n, l)
  | _ -> bad "syntax" ("not a term: " ^ short s)

let loc_of dc s =
  let l = name_of s in
  match List.assoc_opt l dc.locs with Some i -> C.mk_loc i | None -> bad "unbound" ("unknown location " ^ l)

let opsym_of dc s =
  match s with
  | S.List [ S.Atom "get"; l ] -> C.OpGet (loc_of dc l)
  | S.List [ S.Atom "put"; l ] -> C.OpPut (loc_of dc l)
  | S.Atom o -> (
      match List.assoc_opt o dc.ops with Some i -> C.OpUser (C.mk_op i) | None -> bad "unbound" ("unknown operation " ^ o))
  | _ -> bad "syntax" ("not an operation: " ^ short s)

let rec cmd_of dc vars d s =
  check_depth d;
  let tm = tm_of dc vars (d + 1) and cmd = cmd_of dc vars (d + 1) in
  match s with
  | S.List [ S.Atom "ret"; m ] -> C.Ret (tm m)
  | S.List [ S.Atom "op"; o; m ] -> let o = opsym_of dc o in let m = tm m in C.Op (o, m)
  | S.List [ S.Atom "let"; x; p; q ] ->
      let x = name_of x in let p = cmd p in C.CLet (p, cmd_of dc (x :: vars) (d + 1) q)
  | S.List [ S.Atom "revhandle"; m; S.List xs; r; h ] ->
      let m = tm m in
      let xs = List.map name_of xs in
      let r = cmd_of dc xs (d + 1) r in
      C.RevHandle (m, r, handler_of dc (d + 1) h)
  | _ -> bad "syntax" ("not a command: " ^ short s)

and handler_of dc d s =
  check_depth d;
  match s with
  | S.List (S.Atom "handler" :: S.List [ S.Atom "return"; x; p ] :: cls) ->
      let x = name_of x in
      let p = cmd_of dc [ x ] (d + 1) p in
      let clause = function
        | S.List [ S.Atom "clause"; o; dty; S.List [ x; qf ]; S.List [ y; z; qb ] ] ->
            let o = opsym_of dc o in
            let dty = ty_of (d + 1) dty in
            let x = name_of x in
            let qf = cmd_of dc [ x ] (d + 1) qf in
            let y = name_of y in
            let z = name_of z in
            let qb = cmd_of dc [ y; z ] (d + 1) qb in
            (o, dty, qf, qb)
        | c -> bad "syntax" ("not a handler clause: " ^ short c)
      in
      let cls = List.map clause cls in
      C.Handler (p, List.fold_right (fun (o, dty, qf, qb) rest -> C.CCons (o, dty, qf, qb, rest)) cls C.CNil)
  | _ -> bad "syntax" ("not a handler: " ^ short s)

type program = { dc : decls; main : C.cmd; heap : C.heap Lazy.t; fuel : int option }

(* The numbers of location [l] (index [i]), checked against its size. *)
let loc_data dc l i data =
  let v = data_of data in
  if Array.length v <> dc.loc_dims.(i) then
    bad "shape" (Printf.sprintf "location %s holds %d numbers, the data gives %d" l dc.loc_dims.(i) (Array.length v));
  v

let program_of s =
  let fields =
    match s with
    | S.List (S.Atom "program" :: fields) -> fields
    | _ -> bad "syntax" "a program is (program (ops ...) (locs ...) (heap ...) (main COMMAND))"
  in
  let field name =
    match List.filter (function S.List (S.Atom n :: _) -> n = name | _ -> false) fields with
    | [] -> None
    | [ S.List (_ :: body) ] -> Some body
    | _ -> bad "syntax" ("field " ^ name ^ " given twice")
  in
  List.iter
    (function
      | S.List (S.Atom ("ops" | "locs" | "heap" | "main" | "fuel") :: _) -> ()
      | f -> bad "syntax" ("unknown program field " ^ short f))
    fields;
  let distinct what names =
    List.iteri (fun i n -> if List.mem n (List.filteri (fun j _ -> j < i) names) then bad "syntax" (what ^ " " ^ n ^ " declared twice")) names
  in
  let ops =
    List.map
      (function
        | S.List [ S.Atom o; a; b ] -> let a = ty_of 1 a in let b = ty_of 1 b in (o, (a, b))
        | s -> bad "syntax" ("an operation is declared as (NAME COARITY ARITY), found " ^ short s))
      (Option.value ~default:[] (field "ops"))
  in
  let locs =
    List.map
      (function
        | S.List [ S.Atom l; S.List dims ] ->
            let size = List.fold_left (fun acc n -> let k = nat_of n in if acc > max_loc_size then acc else acc * k) 1 dims in
            if size > max_loc_size then bad "shape" (Printf.sprintf "location %s holds more than %d numbers" l max_loc_size);
            (l, size)
        | s -> bad "syntax" ("a location is declared as (NAME (n1 ... nt)), found " ^ short s))
      (Option.value ~default:[] (field "locs"))
  in
  distinct "operation" (List.map fst ops);
  distinct "location" (List.map fst locs);
  let total = List.fold_left (fun acc (_, n) -> acc + n) 0 locs in
  if total > max_heap_size then
    bad "shape" (Printf.sprintf "the locations hold %d numbers in all, more than the %d a heap may hold" total max_heap_size);
  let nm = { op_names = Array.of_list (List.map fst ops); loc_names = Array.of_list (List.map fst locs) } in
  let dc =
    { ops = List.mapi (fun i (o, _) -> (o, i)) ops; op_types = List.map snd ops;
      locs = List.mapi (fun i (l, _) -> (l, i)) locs; loc_dims = Array.of_list (List.map snd locs); nm }
  in
  let given =
    List.map
      (function
        | S.List [ S.Atom l; data ] -> (
            match List.assoc_opt l dc.locs with
            | None -> bad "unbound" ("unknown location " ^ l ^ " in the heap")
            | Some i -> (i, loc_data dc l i data))
        | s -> bad "syntax" ("a heap entry is (NAME (x1 ... xn)), found " ^ short s))
      (Option.value ~default:[] (field "heap"))
  in
  distinct "heap entry for location" (List.map (fun (i, _) -> nm.loc_names.(i)) given);
  (* built when the program runs, after its type check *)
  let heap =
    lazy
      (List.mapi
         (fun i dim ->
           let v = match List.assoc_opt i given with Some v -> v | None -> Array.make dim 0.0 in
           (C.mk_loc i, const_of_array dim v))
         (Array.to_list dc.loc_dims))
  in
  let main =
    match field "main" with
    | Some [ c ] -> cmd_of dc [] 1 c
    | _ -> bad "syntax" "a program needs exactly one (main COMMAND)"
  in
  let fuel = match field "fuel" with Some [ n ] -> Some (nat_of n) | None -> None | _ -> bad "syntax" "(fuel N)" in
  { dc; main; heap; fuel }

(* ---------- type errors ---------- *)

let rule_str = function
  | C.Rtyped_tm_var -> "typed_tm_var"
  | C.Rtyped_tm_app -> "typed_tm_app"
  | C.Rtyped_tm_add -> "typed_tm_add"
  | C.Rtyped_tm_proj -> "typed_tm_proj"
  | C.Rtyped_tm_rd -> "typed_tm_rd"
  | C.Rtyped_cmd_op -> "typed_cmd_op"
  | C.Rtyped_cmd_revhandle -> "typed_cmd_revhandle"
  | C.Rtyped_handler_rev -> "typed_handler_rev"
  | C.Rtyped_clauses_cons -> "typed_clauses_cons"

let ty_opt = function Some t -> to_line (ty_sexp t) | None -> "?"

let type_error_message nm = function
  | C.TmError (r, m, exp, found) ->
      let where = short (tm_sexp [] m) in
      let what =
        match r with
        | C.Rtyped_tm_var -> "variable out of scope"
        | C.Rtyped_tm_app -> Printf.sprintf "the argument has type %s, the function symbol expects %s" (ty_opt found) (ty_opt exp)
        | C.Rtyped_tm_add -> Printf.sprintf "+ needs two terms of one base type, found %s and %s" (ty_opt exp) (ty_opt found)
        | C.Rtyped_tm_proj -> Printf.sprintf "projection out of range of %s" (ty_opt found)
        | C.Rtyped_tm_rd -> Printf.sprintf "the cotangent has type %s, the differentiated body has type %s" (ty_opt found) (ty_opt exp)
        | _ -> "ill-typed term"
      in
      (rule_str r, what ^ " in " ^ where)
  | C.CmdError (r, p, exp, found) ->
      let where = short (cmd_sexp nm [] p) in
      let what =
        match r with
        | C.Rtyped_cmd_op -> Printf.sprintf "the argument has type %s, the operation's coarity is %s" (ty_opt found) (ty_opt exp)
        | C.Rtyped_cmd_revhandle -> Printf.sprintf "the argument of rev handle has type %s, not a product" (ty_opt found)
        | _ -> "ill-typed command"
      in
      (rule_str r, what ^ " in " ^ where)
  | C.ClauseError (r, o, fwd, exp, found) ->
      let clause =
        match o with
        | None -> "the return clause"
        | Some o -> Printf.sprintf "the %s clause of %s" (if fwd then "forward" else "backward") (to_line (opsym_sexp nm o))
      in
      (rule_str r, Printf.sprintf "%s has type %s, expected %s" clause (ty_opt found) (ty_opt exp))

(* ---------- running ---------- *)

let default_fuel = ref 10_000_000

let check prog =
  match exec_check prog.dc.op_types (Array.to_list prog.dc.loc_dims) prog.main with
  | C.Ok t -> t
  | C.Err e ->
      let rule, msg = type_error_message prog.dc.nm e in
      bad ~rule "type" msg

let result_line prog hp v steps =
  to_line
    (list "result"
       [ list "value" [ tm_sexp [] v ]; heap_sexp prog.dc.nm prog.dc.loc_dims hp; list "steps" [ int_atom steps ] ])

let stuck_ev f v = raise (Runtime ("ev-undefined", Printf.sprintf "Ev is undefined on %s applied to %s" (to_line (fsym_sexp f)) (to_line (tm_sexp [] v))))
let stuck_op nm o v = raise (Runtime ("unhandled-operation", Printf.sprintf "operation %s performed on %s is handled by no handler" (to_line (opsym_sexp nm o)) (to_line (tm_sexp [] v))))
let out_of_fuel n = raise (Runtime ("out-of-fuel", Printf.sprintf "no result after %d steps (raise --fuel)" n))
let wrong () = raise (Runtime ("internal", "a well-typed configuration reached a shape that type safety excludes"))

let fuel_of prog = match prog.fuel with Some f -> f | None -> !default_fuel

let run prog =
  ignore (check prog);
  let locs = Array.to_list prog.dc.loc_dims in
  match exec_run prog.dc.op_types locs (fuel_of prog) (Lazy.force prog.heap) prog.main with
  | C.RDone (hp, v, n) -> result_line prog hp v n
  | C.RStuckEv (_, _, f, v, _) -> stuck_ev f v
  | C.RStuckOp (_, _, o, v, _) -> stuck_op prog.dc.nm o v
  | C.ROutOfFuel (_, _, n) -> out_of_fuel n
  | C.RWrong _ -> wrong ()

(* Step by step with the extracted step function, as exec_run does, calling
   [before] on each configuration: the trace prints it, the coverage asks
   which rules the step uses (exec_step_tags, coverage.v). *)
let stepwise prog before =
  ignore (check prog);
  let locs = Array.to_list prog.dc.loc_dims in
  let fuel = fuel_of prog in
  let rec go n hp p =
    before n hp p (fuel - n);
    if n >= fuel then out_of_fuel n
    else
      match exec_step prog.dc.op_types locs (fuel - n) hp p with
      | C.CSStep (hp', p') -> go (n + 1) hp' p'
      | C.CSDone v -> result_line prog hp v n
      | C.CSStuckEv (f, v) -> stuck_ev f v
      | C.CSStuckOp (o, v) -> stuck_op prog.dc.nm o v
      | C.CSNoFuel -> out_of_fuel n
      | C.CSWrong -> wrong ()
  in
  go 0 (Lazy.force prog.heap) prog.main

let trace prog emit =
  stepwise prog (fun n hp p _ ->
      emit (to_line (list "step" [ int_atom n; heap_sexp prog.dc.nm prog.dc.loc_dims hp;
                                   list "cmd" [ cmd_sexp prog.dc.nm [] p ] ])))

let tag_name = function
  | C.Tstep_tm_app -> "head_step_tm_app" | C.Tstep_tm_add -> "head_step_tm_add"
  | C.Tstep_tm_proj -> "head_step_tm_proj" | C.Tstep_tm_let -> "head_step_tm_let"
  | C.Tstep_tm_rd -> "head_step_tm_rd" | C.Tstep_cmd_let_val -> "step_cmd_let_val"
  | C.Tstep_cmd_revhandle -> "step_cmd_revhandle" | C.Tstep_conf_get -> "step_conf_get"
  | C.Tstep_conf_put -> "step_conf_put" | C.Trh_ret -> "rh_ret" | C.Trh_let_var -> "rh_let_var"
  | C.Trh_op -> "rh_op" | C.Trh_rev -> "rh_rev" | C.Trh_term -> "rh_term" | C.TR_var -> "R-Var"
  | C.TR_varo -> "R-VarO" | C.TR_const -> "R-Const" | C.TR_fun -> "R-Fun" | C.TR_add -> "R-Add"
  | C.TR_tuple -> "R-Tuple" | C.TR_proj -> "R-Proj" | C.TR_let -> "R-Let" | C.TR_rd -> "R-Rd"
  | C.TR_rd_unrewritten -> "R-Rd-unrewritten"

(* Rule coverage (testing instrumentation): the counts and the outcome. *)
let coverage prog =
  let locs = Array.to_list prog.dc.loc_dims in
  let counts = Hashtbl.create 32 in
  let count t =
    let k = tag_name t in
    Hashtbl.replace counts k (1 + Option.value ~default:0 (Hashtbl.find_opt counts k))
  in
  let final =
    try stepwise prog (fun _ _ p rest -> List.iter count (exec_step_tags prog.dc.op_types locs rest p)) with
    | Runtime (kind, msg) -> error_line kind "none" msg
    | Stack_overflow -> error_line "too-deep" "none" "the program is nested too deeply to evaluate"
  in
  let cs = Hashtbl.fold (fun k v acc -> (k, v) :: acc) counts [] |> List.sort compare in
  "(coverage (counts" ^ String.concat "" (List.map (fun (k, v) -> Printf.sprintf " (%s %d)" k v) cs) ^ ") " ^ final ^ ")"

(* ---------- entry points ---------- *)

let mode_of_request s =
  match s with
  | S.List [ S.Atom "run"; p ] -> (`Run, p)
  | S.List [ S.Atom "check"; p ] -> (`Check, p)
  | S.List [ S.Atom "trace"; p ] -> (`Trace, p)
  | S.List [ S.Atom "coverage"; p ] -> (`Coverage, p)
  | S.List (S.Atom "program" :: _) -> (`Run, s)
  | _ -> bad "syntax" "a request is (run PROGRAM), (check PROGRAM), (trace PROGRAM), (coverage PROGRAM), a PROGRAM, or a session request: (load NAME PROGRAM), (exec NAME FIELDS...), (heap NAME), (unload NAME)"

let check_line prog = to_line (list "ok" [ list "type" [ ty_sexp (check prog) ] ])

(* ---------- resident sessions (--serve) ----------
   (load NAME PROGRAM): check PROGRAM, keep it and its initial heap;
   (exec NAME (set (LOC DATA) ...) (read LOC ...) (fuel N)): run the main
   command from the start on the session's heap updated by [set]; on a
   result the session keeps the final heap, on a failure its heap is left
   as it was; (heap NAME); (unload NAME).  Numbers go out as (f64 BASE64). *)

type session = { sprog : program; mutable sheap : C.heap }

let sessions : (string, session) Hashtbl.t = Hashtbl.create 8

let session_of name =
  match Hashtbl.find_opt sessions name with
  | Some s -> s
  | None -> bad "unbound" ("no session named " ^ name ^ " (load it first)")

let loc_index dc l =
  match List.assoc_opt l dc.locs with Some i -> i | None -> bad "unbound" ("unknown location " ^ l)

let heap_value prog hp i =
  match List.find_opt (fun (l', _) -> C.loc_view l' = i) hp with
  | Some (_, c) -> array_of_const c
  | None -> Array.make prog.dc.loc_dims.(i) 0.0

let f64_entry name v = S.List [ atom name; list "f64" (if v = [||] then [] else [ atom (F64.encode v) ]) ]

(* A closed value with its constants as (f64 BASE64). *)
let rec value_f64 = function
  | C.Const c -> list "f64" (let v = array_of_const c in if v = [||] then [] else [ atom (F64.encode v) ])
  | C.Tuple vs -> list "tuple" (List.map value_f64 vs)
  | m -> tm_sexp [] m

let fuel_atom = function
  | S.Atom a -> (match int_of_string_opt a with Some n when n >= 0 -> n | _ -> bad "syntax" ("expected a fuel, found " ^ a))
  | s -> bad "syntax" ("expected a fuel, found " ^ short s)

let exec_session s fields =
  let prog = s.sprog and dc = s.sprog.dc in
  let sets = ref [] and reads = ref [] and fuel = ref (fuel_of s.sprog) and value = ref `Text in
  List.iter
    (function
      | S.List (S.Atom "set" :: entries) -> sets := !sets @ entries
      | S.List (S.Atom "read" :: ls) -> reads := !reads @ List.map name_of ls
      | S.List [ S.Atom "fuel"; n ] -> fuel := fuel_atom n
      | S.List [ S.Atom "value"; S.Atom "text" ] -> value := `Text
      | S.List [ S.Atom "value"; S.Atom "f64" ] -> value := `F64
      | S.List [ S.Atom "value"; S.Atom "none" ] -> value := `None
      | f -> bad "syntax" ("an exec request has the fields (set (LOC DATA) ...), (read LOC ...), (fuel N) and (value text|f64|none), found " ^ short f))
    fields;
  let hp =
    List.fold_left
      (fun hp e ->
        match e with
        | S.List [ S.Atom l; data ] ->
            let i = loc_index dc l in
            let c = const_of_array dc.loc_dims.(i) (loc_data dc l i data) in
            (C.mk_loc i, c) :: List.filter (fun (l', _) -> C.loc_view l' <> i) hp
        | e -> bad "syntax" ("a set entry is (LOC DATA), found " ^ short e))
      s.sheap !sets
  in
  let reads = List.map (fun l -> (l, loc_index dc l)) !reads in
  let locs = Array.to_list dc.loc_dims in
  let t0 = Unix.gettimeofday () in
  let r = exec_run dc.op_types locs !fuel hp prog.main in
  let seconds = Unix.gettimeofday () -. t0 in
  match r with
  | C.RDone (hp', v, n) ->
      s.sheap <- hp';
      to_line
        (list "result"
           [ list "value" (match !value with `Text -> [ tm_sexp [] v ] | `F64 -> [ value_f64 v ] | `None -> []);
             list "read" (List.map (fun (l, i) -> f64_entry l (heap_value prog hp' i)) reads);
             list "steps" [ int_atom n ]; list "seconds" [ atom (Printf.sprintf "%.9f" seconds) ] ])
  | C.RStuckEv (_, _, f, v, _) -> stuck_ev f v
  | C.RStuckOp (_, _, o, v, _) -> stuck_op dc.nm o v
  | C.ROutOfFuel (_, _, n) -> out_of_fuel n
  | C.RWrong _ -> wrong ()

let session_request = function
  | S.List [ S.Atom "load"; S.Atom name; p ] ->
      let prog = program_of p in
      let t = check prog in
      Hashtbl.replace sessions name { sprog = prog; sheap = Lazy.force prog.heap };
      Some (to_line (list "loaded" [ atom name; list "type" [ ty_sexp t ] ]))
  | S.List (S.Atom "exec" :: S.Atom name :: fields) -> Some (exec_session (session_of name) fields)
  | S.List [ S.Atom "heap"; S.Atom name ] ->
      let s = session_of name in
      Some (to_line (list "heap" (List.mapi (fun i l -> f64_entry l (heap_value s.sprog s.sheap i))
                                    (Array.to_list s.sprog.dc.nm.loc_names))))
  | S.List [ S.Atom "unload"; S.Atom name ] ->
      ignore (session_of name);
      Hashtbl.remove sessions name;
      Some (to_line (list "unloaded" [ atom name ]))
  | S.List (S.Atom ("load" | "exec" | "heap" | "unload") :: _) ->
      bad "syntax" "a session request is (load NAME PROGRAM), (exec NAME FIELDS...), (heap NAME) or (unload NAME)"
  | _ -> None

let serve () =
  Driver_io.serve (fun req ->
      match session_request req with
      | Some answer -> answer
      | None -> (
          let mode, p = mode_of_request req in
          let prog = program_of p in
          match mode with
          | `Run -> run prog
          | `Check -> check_line prog
          | `Coverage -> coverage prog
          | `Trace ->
              let steps = ref [] in
              let final = trace prog (fun l -> steps := l :: !steps) in
              "(trace " ^ String.concat " " (List.rev !steps) ^ " " ^ final ^ ")"))

let usage =
  "usage: rh-eval [--check | --trace | --coverage] [--fuel N] [--timeout SECONDS] [--small-step] [--list-vectors] [FILE]\n\
  \       rh-eval --serve [--fuel N] [--timeout SECONDS] [--small-step] [--list-vectors]\n\
   Reads one program (docs/sexp-format.md) from FILE or standard input and\n\
   prints one result line.  Exit codes: 0 result, 1 runtime failure of a\n\
   well-typed program, 2 bad input.  --serve answers one request per line,\n\
   resident sessions included (docs/sexp-format.md).  Programs run on the\n\
   environment machine (machine.v); --small-step runs the small-step\n\
   evaluator instead (--trace and --coverage always do).  --list-vectors\n\
   runs on the list model of vectors extracted from Coq, not float arrays.\n\
   --timeout stops a request after SECONDS (default 60; 0: no limit) with\n\
   the runtime error timeout."

let () =
  (* Large vectors live in the major heap: grow it in large steps and keep
     what it has, rather than mapping fresh pages for every run. *)
  Gc.set { (Gc.get ()) with Gc.major_heap_increment = 1 lsl 22; space_overhead = 200 };
  let mode = ref `Run and serve_mode = ref false and file = ref None in
  let rec args l =
    match common_flag "rh-eval" usage l with
    | Some rest -> args rest
    | None -> (
    match l with
    | [] -> ()
    | "--check" :: rest -> mode := `Check; args rest
    | "--trace" :: rest -> mode := `Trace; args rest
    | "--coverage" :: rest -> mode := `Coverage; args rest
    | "--serve" :: rest -> serve_mode := true; args rest
    | "--list-vectors" :: rest -> list_vectors := true; args rest
    | "--small-step" :: rest -> small_step := true; args rest
    | "--fuel" :: n :: rest -> (
        match int_of_string_opt n with
        | Some f when f >= 0 -> default_fuel := f; args rest
        | _ -> prerr_endline usage; exit 2)
    | f :: rest when String.length f > 0 && f.[0] <> '-' && !file = None -> file := Some f; args rest
    | _ -> prerr_endline usage; exit 2)
  in
  args (List.tl (Array.to_list Sys.argv));
  if !serve_mode then serve ()
  else
    Driver_io.answer_one !file (fun req ->
        let prog = program_of req in
        match !mode with
        | `Run -> run prog
        | `Check -> check_line prog
        | `Coverage -> coverage prog
        | `Trace -> trace prog print_endline)

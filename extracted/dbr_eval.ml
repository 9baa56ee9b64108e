(* dbr-eval: the command-line driver of the define-by-run AD library.

   What is computed is extracted from Coq (module Dbr_core, generated at
   build time from theories/dbr/extraction.v): the three implementations of
   diff (effect handlers, tape, dual numbers), nested, the gradient, and
   the programs' evaluation (program.v, dbr_diff_correct and its
   siblings).  This file only
   - reads requests (docs/sexp-format.md, "dbr-eval") and resolves names to
     de Bruijn levels;
   - supplies the numbers: exact integers and rationals (zarith), or
     binary64 floats, as a pure dictionary of their + and x;
   - prints answers and errors, and chooses the exit code: 0 result, 1
     runtime failure of a well-formed request, 2 bad input. *)

module D = Dbr_core
module S = Sexplib.Sexp
open Driver_io

let max_depth = 2000
let max_order = 8
let max_exponent = 10_000
let max_vars = 1000
let max_number_text = 100
(* operations of the expression, times 5 per order of differentiation *)
let max_work = 100_000_000
(* exact numbers past this size stop the run (a runtime failure) *)
let max_bits = 1_000_000

(* ---------- numbers ---------- *)

type 'v numbers = {
  kind : string;
  parse : string -> 'v option;
  show : 'v -> string;
  zero : 'v;
  one : 'v;
  plus : 'v -> 'v -> 'v;
  times : 'v -> 'v -> 'v;
}

let is_digits s = s <> "" && String.for_all (fun c -> c >= '0' && c <= '9') s

let unsigned s =
  if s <> "" && (s.[0] = '+' || s.[0] = '-') then (s.[0] = '-', String.sub s 1 (String.length s - 1)) else (false, s)

let parse_int s =
  let neg, u = unsigned s in
  if is_digits u then Some (let z = Z.of_string u in if neg then Z.neg z else z) else None

(* p, p/q (q > 0) or a decimal d.ddd *)
let parse_rat s =
  let neg, u = unsigned s in
  let sign q = if neg then Q.neg q else q in
  match String.index_opt u '/', String.index_opt u '.' with
  | Some i, None ->
      let p = String.sub u 0 i and q = String.sub u (i + 1) (String.length u - i - 1) in
      if is_digits p && is_digits q && Z.sign (Z.of_string q) > 0 then
        Some (sign (Q.make (Z.of_string p) (Z.of_string q)))
      else None
  | None, Some i ->
      let a = String.sub u 0 i and b = String.sub u (i + 1) (String.length u - i - 1) in
      if (a = "" || is_digits a) && (b = "" || is_digits b) && (a <> "" || b <> "") then
        let num = Z.of_string ((if a = "" then "0" else a) ^ b) in
        Some (sign (Q.make num (Z.pow (Z.of_int 10) (String.length b))))
      else None
  | None, None -> if is_digits u then Some (sign (Q.of_bigint (Z.of_string u))) else None
  | Some _, Some _ -> None

(* [+-]?(d+.?d*|.d+)([eE][+-]?d+)?, finite *)
let parse_float s =
  let _, u = unsigned s in
  let mant, expo =
    match String.index_from_opt u 0 'e', String.index_from_opt u 0 'E' with
    | Some i, _ | None, Some i -> (String.sub u 0 i, Some (String.sub u (i + 1) (String.length u - i - 1)))
    | None, None -> (u, None)
  in
  let mant_ok =
    match String.index_opt mant '.' with
    | None -> is_digits mant
    | Some i ->
        let a = String.sub mant 0 i and b = String.sub mant (i + 1) (String.length mant - i - 1) in
        (a = "" || is_digits a) && (b = "" || is_digits b) && (a <> "" || b <> "")
  in
  let expo_ok = match expo with None -> true | Some e -> is_digits (snd (unsigned e)) in
  if mant_ok && expo_ok then
    match float_of_string_opt s with Some f when Float.is_finite f -> Some f | _ -> None
  else None

let too_big what =
  raise (Runtime ("too-large", Printf.sprintf "a number grew past %d bits (%s)" max_bits what))

let check_z z = if Z.numbits z > max_bits then too_big "integer" else z
let check_q q = if Z.numbits q.Q.num > max_bits || Z.numbits q.Q.den > max_bits then too_big "rational" else q

let ints = { kind = "int"; parse = parse_int; show = Z.to_string; zero = Z.zero; one = Z.one;
             plus = (fun a b -> check_z (Z.add a b)); times = (fun a b -> check_z (Z.mul a b)) }

let rats = { kind = "rational"; parse = parse_rat; show = Q.to_string; zero = Q.zero; one = Q.one;
             plus = (fun a b -> check_q (Q.add a b)); times = (fun a b -> check_q (Q.mul a b)) }

let floats = { kind = "float"; parse = parse_float; show = float_str; zero = 0.0; one = 1.0;
               plus = ( +. ); times = ( *. ) }

(* The pure dictionary of the numbers, counting its operations. *)
let dict_of nums count =
  D.pure_dict nums.zero nums.one
    (fun a b -> incr count; nums.plus a b)
    (fun a b -> incr count; nums.times a b)

(* ---------- reading ---------- *)

let check_depth d = if d > max_depth then bad "too-deep" (Printf.sprintf "nesting deeper than %d levels" max_depth)

let reserved = [ "+"; "*"; "^"; "let"; "let*" ]

let name_of = function
  | S.Atom a when a <> "" && not (List.mem a reserved) && not (is_digits a) && (match a.[0] with '0' .. '9' | '+' | '-' | '.' -> false | _ -> true) -> a
  | s -> bad "syntax" ("expected a variable name, found " ^ short s)

(* A natural number below [limit], as Coq's binary N. *)
let rec pos_of_z z = if Z.equal z Z.one then D.XH else
  let p = pos_of_z (Z.shift_right z 1) in if Z.is_odd z then D.XI p else D.XO p

let n_of_z z = if Z.sign z = 0 then D.N0 else D.Npos (pos_of_z z)

let natural_of what limit = function
  | S.Atom a when is_digits a && String.length a > 2 * max_number_text ->
      bad "too-large" (Printf.sprintf "%s of %d digits is larger than %s" what (String.length a) (Z.to_string limit))
  | S.Atom a when is_digits a ->
      let z = Z.of_string a in
      if Z.gt z limit then bad "too-large" (Printf.sprintf "%s %s is larger than %s" what a (Z.to_string limit));
      z
  | s -> bad "syntax" (Printf.sprintf "expected %s (a natural number), found %s" what (short s))

let max_constant = Z.pow (Z.of_int 10) 100

module Names = Map.Make (String)

(* [scope]: the names in scope and their levels (a let shadows); [lvl]: the
   next level.  Sums and products of several terms associate to the left. *)
let rec prog_of scope lvl d s =
  check_depth d;
  match s with
  | S.Atom a when is_digits a -> D.PNat (n_of_z (natural_of "a constant" max_constant s))
  | S.Atom _ -> (
      let x = name_of s in
      match Names.find_opt x scope with Some i -> D.PVar i | None -> bad "unbound" ("unknown variable " ^ x))
  | S.List (S.Atom ("+" | "*" as op) :: (a :: b :: rest as args)) ->
      ignore args;
      let mk l r = if op = "+" then D.PAdd (l, r) else D.PMul (l, r) in
      List.fold_left (fun acc e -> mk acc (prog_of scope lvl (d + 1) e)) (mk (prog_of scope lvl (d + 1) a) (prog_of scope lvl (d + 1) b)) rest
  | S.List [ S.Atom "^"; a; k ] ->
      let k = natural_of "an exponent" (Z.of_int max_exponent) k in
      D.PPow (prog_of scope lvl (d + 1) a, n_of_z k)
  | S.List [ S.Atom "let"; x; a; b ] ->
      let x = name_of x in
      let pa = prog_of scope lvl (d + 1) a in
      D.PLet (pa, prog_of (Names.add x lvl scope) (lvl + 1) (d + 1) b)
  | S.List [ S.Atom "let*"; S.List bindings; body ] ->
      (* a flat list of bindings: its length does not count as nesting *)
      let scope, lvl, rhs =
        List.fold_left
          (fun (scope, lvl, rhs) b ->
            match b with
            | S.List [ x; a ] ->
                let x = name_of x in
                let pa = prog_of scope lvl (d + 2) a in
                (Names.add x lvl scope, lvl + 1, pa :: rhs)
            | s -> bad "syntax" ("a let* binding is (NAME EXPR), found " ^ short s))
          (scope, lvl, []) bindings
      in
      let body = prog_of scope lvl (d + 1) body in
      List.fold_left (fun acc pa -> D.PLet (pa, acc)) body rhs
  | _ ->
      bad "syntax"
        ("an expression is a natural number, a variable, (+ E E ...), (* E E ...), (^ E K), (let NAME E E) or (let* ((NAME E) ...) E); found "
        ^ short s)

type request = {
  what : [ `Diff | `Grad | `Eval ];
  expr : S.t option;
  at : string list option;
  vars : string list option;
  order : int option;
  mode : D.mode option;
  numbers : string option;
}

let atoms what = List.map (function S.Atom a -> a | s -> bad "syntax" (Printf.sprintf "expected %s, found %s" what (short s)))

let request_of s =
  let what, fields =
    match s with
    | S.List (S.Atom "diff" :: f) -> (`Diff, f)
    | S.List (S.Atom "grad" :: f) -> (`Grad, f)
    | S.List (S.Atom "eval" :: f) -> (`Eval, f)
    | _ -> bad "syntax" "a request is (diff FIELDS...), (grad FIELDS...) or (eval FIELDS...) (docs/sexp-format.md)"
  in
  let r = ref { what; expr = None; at = None; vars = None; order = None; mode = None; numbers = None } in
  let once name present = if present then bad "syntax" (Printf.sprintf "the field (%s ...) is given twice" name) in
  List.iter
    (fun f ->
      match f with
      | S.List [ S.Atom "expr"; e ] -> once "expr" (!r.expr <> None); r := { !r with expr = Some e }
      | S.List (S.Atom "at" :: xs) -> once "at" (!r.at <> None); r := { !r with at = Some (atoms "a number" xs) }
      | S.List (S.Atom "vars" :: xs) ->
          once "vars" (!r.vars <> None);
          let names = List.map name_of xs in
          if List.length names > max_vars then bad "too-large" (Printf.sprintf "more than %d variables" max_vars);
          List.iteri (fun i x -> if List.exists (fun y -> y = x) (List.filteri (fun j _ -> j < i) names) then
                         bad "syntax" ("the variable " ^ x ^ " is declared twice")) names;
          r := { !r with vars = Some names }
      | S.List [ S.Atom "order"; n ] ->
          once "order" (!r.order <> None);
          if what <> `Diff then bad "syntax" "(order N) belongs to a diff request";
          r := { !r with order = Some (Z.to_int (natural_of "an order" (Z.of_int max_order) n)) }
      | S.List [ S.Atom "mode"; S.Atom m ] ->
          once "mode" (!r.mode <> None);
          let m = match m with
            | "handlers" -> D.Handlers | "tape" -> D.Tape | "forward" -> D.Forward
            | _ -> bad "syntax" ("the mode is handlers, tape or forward, not " ^ m) in
          if what = `Eval then bad "syntax" "(mode M) belongs to a diff or grad request";
          if what = `Grad && m = D.Forward then bad "syntax" "grad runs in reverse mode: (mode handlers) only";
          if what = `Grad && m = D.Tape then bad "syntax" "grad runs in reverse mode with handlers: (mode handlers) only";
          r := { !r with mode = Some m }
      | S.List [ S.Atom "numbers"; S.Atom k ] ->
          once "numbers" (!r.numbers <> None);
          if not (List.mem k [ "int"; "rational"; "float" ]) then bad "syntax" ("the numbers are int, rational or float, not " ^ k);
          r := { !r with numbers = Some k }
      | s -> bad "syntax" ("unknown field " ^ short s ^ " (expr, at, vars, order, mode, numbers)"))
    fields;
  !r

(* ---------- running ---------- *)

let answer_line fields = to_line (list "result" fields)

let run_with nums req =
  let vars = match req.vars with Some v -> v | None -> if req.what = `Diff then [ "x" ] else bad "syntax" "a grad or eval request needs (vars NAME ...)" in
  if req.what = `Diff && List.length vars <> 1 then bad "syntax" "a diff request has one variable: (vars NAME)";
  let e = match req.expr with Some e -> e | None -> bad "syntax" "the request needs (expr E)" in
  let n = List.length vars in
  let scope = List.fold_left (fun m (i, x) -> Names.add x i m) Names.empty (List.mapi (fun i x -> (i, x)) vars) in
  let p = prog_of scope n 0 e in
  if not (D.scoped n p) then raise (Runtime ("internal", "a resolved program has an unbound variable"));
  let at = match req.at with Some a -> a | None -> bad "syntax" "the request needs (at X ...)" in
  if List.length at <> n then bad "syntax" (Printf.sprintf "(at ...) has %d numbers for %d variables" (List.length at) n);
  let xs =
    List.map
      (fun a ->
        if String.length a > max_number_text then bad "number" (Printf.sprintf "the number %s... is longer than %d characters" (String.sub a 0 20) max_number_text);
        match nums.parse a with
        | Some v -> v
        | None -> bad "number" (Printf.sprintf "%s is not %s" a (match nums.kind with "int" -> "an integer" | "rational" -> "a rational number (p, p/q or a decimal)" | _ -> "a finite number")))
      at
  in
  (* the work bound: the expression's operations, times 5 per order *)
  let ops = ref 0 in
  ignore (D.dbr_eval n p (dict_of floats ops) (List.map (fun _ -> 1.0) xs));
  let order = match req.what with `Diff -> Option.value req.order ~default:1 | `Grad -> 1 | `Eval -> 0 in
  let rec pow5 k = if k = 0 then 1 else 5 * pow5 (k - 1) in
  if (!ops + 1) * pow5 order > max_work then
    bad "too-large" (Printf.sprintf "the expression performs %d operations; at order %d that is more than %d" !ops order max_work);
  let count = ref 0 in
  let d = dict_of nums count in
  let t0 = Unix.gettimeofday () in
  let fields =
    match req.what with
    | `Diff -> (
        match D.dbr_diff (Option.value req.mode ~default:D.Handlers) order p d (List.hd xs) with
        | Some v -> [ list "value" [ atom (nums.show v) ] ]
        | None -> raise (Runtime ("internal", "the run performed a request (dbr_diff_correct excludes it)")))
    | `Grad -> (
        match D.dbr_grad n p d xs with
        | Some vs -> [ list "gradient" (List.map (fun v -> atom (nums.show v)) vs) ]
        | None -> raise (Runtime ("internal", "the run performed a request (dbr_grad_correct excludes it)")))
    | `Eval -> (
        match D.dbr_eval n p d xs with
        | Some v -> [ list "value" [ atom (nums.show v) ] ]
        | None -> raise (Runtime ("internal", "the run performed a request (dbr_eval_correct excludes it)")))
  in
  let secs = Unix.gettimeofday () -. t0 in
  answer_line (fields @ [ list "operations" [ int_atom !count ]; list "seconds" [ atom (Printf.sprintf "%.6f" secs) ] ])

let answer s =
  let req = request_of s in
  let kind =
    match req.numbers with
    | Some k -> k
    | None -> (
        match req.at with
        | Some xs when List.for_all (fun a -> parse_int a <> None) xs -> "int"
        | _ -> "rational")
  in
  match kind with "int" -> run_with ints req | "rational" -> run_with rats req | _ -> run_with floats req

let usage =
  "usage: dbr-eval [--timeout SECONDS] [FILE]\n\
  \       dbr-eval --serve [--timeout SECONDS]\n\
   Reads one request (docs/sexp-format.md, \"dbr-eval\"): (diff ...), (grad ...)\n\
   or (eval ...), from FILE or standard input, and prints one answer line.\n\
   Exit codes: 0 result, 1 runtime failure of a well-formed request, 2 bad\n\
   input.  --serve answers one request per line.  --timeout stops a\n\
   computation after SECONDS (default 60; 0: no limit)."

let () =
  let serve_mode = ref false in
  let file = command_line "dbr-eval" usage ~switches:[ ("--serve", fun () -> serve_mode := true) ] ~options:[] in
  if !serve_mode then serve answer else answer_one file answer

(* pullback-eval: the command-line driver of the pullback language (Mak and
   Ong; theories/pullback).

   What is computed is extracted from Coq (module Pullback_core, generated
   at build time from theories/pullback/extraction.v): the type checker
   (infer.v, infer_sound), the erasure of binder types, and the normaliser
   (normalize.v, normalize_sound, over the step function of step_fn.v:
   step_fn_sound, step_fn_complete), the continuation machine (cps.v,
   cps_run_sound, cps_normalize_agree) and the names of the rules that fired
   (cps.v, rule_of, step_rule).  This file only
   - reads a request (docs/sexp-format.md, "pullback-eval") into an
     annotated term, checking nesting, numbers and variable scopes;
   - prints answers and errors, and chooses the exit code: 0 value, 1
     stuck, out of fuel or an answer longer than [max_answer] characters,
     2 bad input (ill-typed and ill-formed included: wf.v). *)

module P = Pullback_core
module S = Sexplib.Sexp
open Driver_io

let max_depth = 2000
let fuel = ref 1_000_000

(* The machine's transitions per run: this many per unit of fuel. *)
let transitions_per_fuel = 64

(* ---------- reading ---------- *)

let check_depth d = if d > max_depth then bad "too-deep" (Printf.sprintf "nesting deeper than %d levels" max_depth)

let is_digits s = s <> "" && String.for_all (fun c -> c >= '0' && c <= '9') s

(* [+-]?(d+.?d*|.d+)([eE][+-]?d+)? *)
let decimal s =
  let n = String.length s in
  let i = ref 0 in
  let digits () = let j = !i in while !i < n && s.[!i] >= '0' && s.[!i] <= '9' do incr i done; !i - j in
  if !i < n && (s.[!i] = '+' || s.[!i] = '-') then incr i;
  let a = digits () in
  let b = if !i < n && s.[!i] = '.' then (incr i; digits ()) else 0 in
  let mant = a + b > 0 in
  let expo_ok =
    if !i < n && (s.[!i] = 'e' || s.[!i] = 'E') then begin
      incr i;
      if !i < n && (s.[!i] = '+' || s.[!i] = '-') then incr i;
      digits () > 0
    end else true
  in
  mant && expo_ok && !i = n

let non_finite = [ "nan"; "+nan"; "-nan"; "inf"; "+inf"; "-inf"; "infinity"; "+infinity"; "-infinity" ]

(* A number atom: [Some f] for a finite decimal; non-finite numbers are
   errors of kind number; other atoms are not numbers. *)
let number_of a =
  if decimal a then
    match float_of_string_opt a with
    | Some f when Float.is_finite f -> Some f
    | _ -> bad "number" (Printf.sprintf "the number %s is not finite in binary64" a)
  else if List.mem (String.lowercase_ascii a) non_finite then
    bad "number" (Printf.sprintf "%s: numbers must be finite" a)
  else None

let rec ty_of d s =
  check_depth d;
  match s with
  | S.Atom "R" -> P.TR
  | S.List [ S.Atom "*"; a; b ] -> P.TProd (ty_of (d + 1) a, ty_of (d + 1) b)
  | S.List [ S.Atom "->"; a; b ] -> P.TArr (ty_of (d + 1) a, ty_of (d + 1) b)
  | S.List [ S.Atom "dual"; a ] -> P.TDual (ty_of (d + 1) a)
  | S.Atom "?" -> bad "syntax" "a binder type ? is only printed (for erased terms); the input gives every binder a type"
  | _ -> bad "syntax" ("a type is R, (* T T), (-> T T) or (dual T); found " ^ short s)

let prims = [ ("add", P.Padd); ("mul", P.Pmul); ("neg", P.Pneg); ("sin", P.Psin); ("cos", P.Pcos); ("exp", P.Pexp); ("sq", P.Psq) ]

let prim_of = function
  | S.Atom f when List.mem_assoc f prims -> P.mk_fsym (List.assoc f prims)
  | s -> bad "unbound" ("unknown function symbol " ^ short s ^ " (add, mul, neg, sin, cos, exp, sq)")

(* An atom of a term or a numeric tuple: zero ([zero]) or a number ([real]);
   any other atom is the syntax error [expected ()]. *)
let scalar_atom ~zero ~real expected = function
  | "zero" -> zero
  | a -> ( match number_of a with Some f -> real (P.mk_real f) | None -> bad "syntax" (expected ()))

let rec num_of d s =
  check_depth d;
  let expected () = "a numeric tuple is a number, zero or (NUM NUM); found " ^ short s in
  match s with
  | S.Atom a -> scalar_atom ~zero:P.NZ ~real:(fun r -> P.NR r) expected a
  | S.List [ a; b ] -> P.NP (num_of (d + 1) a, num_of (d + 1) b)
  | _ -> bad "syntax" (expected ())

(* [k]: the number of binders around the term, for the scope of (var N). *)
let rec term_of k d s =
  check_depth d;
  let sub = term_of k (d + 1) and under = term_of (k + 1) (d + 1) in
  match s with
  | S.Atom a -> scalar_atom ~zero:P.XZero ~real:(fun r -> P.XReal r) (fun () -> "expected a term, found the atom " ^ short s) a
  | S.List [ S.Atom "var"; S.Atom n ] when is_digits n ->
      (match int_of_string_opt n with
       | Some i when i < k -> P.XVar i
       | _ -> bad "unbound" (Printf.sprintf "(var %s) under %d binder%s" n k (if k = 1 then "" else "s")))
  | S.List [ S.Atom "lam"; t; b ] -> let t = ty_of (d + 1) t in P.XLam (t, under b)
  | S.List [ S.Atom "app"; a; b ] -> P.XApp (sub a, sub b)
  | S.List [ S.Atom "proj"; S.Atom "1"; a ] -> P.XProj (false, sub a)
  | S.List [ S.Atom "proj"; S.Atom "2"; a ] -> P.XProj (true, sub a)
  | S.List [ S.Atom "pair"; a; b ] -> P.XPair (sub a, sub b)
  | S.List [ S.Atom "fun"; f; a ] -> let f = prim_of f in P.XFun (f, sub a)
  | S.List [ S.Atom "jac"; f; a ] -> let f = prim_of f in P.XJac (f, sub a)
  | S.List [ S.Atom "dual-map"; t; b; a ] -> let t = ty_of (d + 1) t in P.XDual (t, under b, sub a)
  | S.List [ S.Atom "pullback"; t; b; a ] -> let t = ty_of (d + 1) t in P.XPb (t, under b, sub a)
  | S.List [ S.Atom "ndual"; r ] -> P.XNDual (num_of (d + 1) r)
  | S.List [ S.Atom "+"; a; b ] -> P.XPlus (sub a, sub b)
  | S.List [ S.Atom "let"; e; l ] -> let e = sub e in P.XLet (e, under l)
  | _ ->
      bad "syntax"
        ("a term is (var N), (lam T E), (app E E), (proj 1|2 E), (pair E E), a number, (fun F E), (jac F E), \
          (dual-map T E E), (pullback T E E), (ndual NUM), zero, (+ E E) or (let E E); found " ^ short s)

(* ---------- printing ---------- *)

(* The longest answer pullback-eval prints, in characters (a trace's lines
   together): past it the answer is the runtime error answer-too-large.  A
   value may print far larger than it is in memory (a subterm shared n
   times prints n times: a term doubled n times prints 2^n times), so the
   S-expressions of an answer are built against a budget: every atom and
   list is charged what it prints (no more: sexplib may only add quotes), and
   building stops when the budget is spent, after at most [max_answer]
   nodes. *)
let max_answer = 1_000_000

exception Too_large

(* Characters left; [cutting]: past the budget, a term prints "..."
   (messages) instead of failing (answers). *)
let room = ref max_answer
let cutting = ref false

let charge n =
  room := !room - n;
  if !room < 0 && not !cutting then raise Too_large

let atom s = charge (String.length s); atom s
let int_atom n = atom (string_of_int n)

(* (HEAD X1 ... Xk): 2 parentheses, k separators *)
let list head xs = charge (String.length head + 2 + List.length xs); list head xs

let sexp_list xs = charge (2 + max 0 (List.length xs - 1)); S.List xs

(* [f ()] charged to a fresh budget of [n] characters, cut past it when [cut]. *)
let within ?(cut = false) n f =
  let r = !room and c = !cutting in
  room := n;
  cutting := cut;
  Fun.protect ~finally:(fun () -> room := r; cutting := c) f

let too_large () =
  raise (Runtime ("answer-too-large",
                  Printf.sprintf "the answer would print more than %d characters (max_answer, the limit on an \
                                  answer of pullback-eval)" max_answer))

(* The answer [f ()] builds, within [max_answer] characters. *)
let sized f =
  match within max_answer f with
  | line when String.length line <= max_answer -> line
  | _ | exception Too_large -> too_large ()

let real r = atom (float_str (P.real_view r))

let rec ty_sexp t =
  if !room < 0 then S.Atom "..."
  else
  match t with
  | P.TR -> atom "R"
  | P.TProd (a, b) -> list "*" [ ty_sexp a; ty_sexp b ]
  | P.TArr (a, b) -> list "->" [ ty_sexp a; ty_sexp b ]
  | P.TDual a -> list "dual" [ ty_sexp a ]

let prim_name f = fst (List.find (fun (_, p) -> p = P.fsym_view f) prims)

let rec num_sexp r =
  if !room < 0 then S.Atom "..."
  else
  match r with
  | P.NR r -> real r
  | P.NP (a, b) -> sexp_list [ num_sexp a; num_sexp b ]
  | P.NZ -> atom "zero"

let rec tm_sexp u =
  if !room < 0 then S.Atom "..." (* past the budget of a message *)
  else
  match u with
  | P.Var n -> list "var" [ int_atom n ]
  | P.Lam s -> list "lam" [ atom "?"; tm_sexp s ]
  | P.App (a, b) -> list "app" [ tm_sexp a; tm_sexp b ]
  | P.Proj (i, a) -> list "proj" [ atom (if i then "2" else "1"); tm_sexp a ]
  | P.Pair (a, b) -> list "pair" [ tm_sexp a; tm_sexp b ]
  | P.Real r -> real r
  | P.Fun (f, a) -> list "fun" [ atom (prim_name f); tm_sexp a ]
  | P.Jac (f, a) -> list "jac" [ atom (prim_name f); tm_sexp a ]
  | P.Dual (b, a) -> list "dual-map" [ atom "?"; tm_sexp b; tm_sexp a ]
  | P.Pb (b, a) -> list "pullback" [ atom "?"; tm_sexp b; tm_sexp a ]
  | P.NDual r -> list "ndual" [ num_sexp r ]
  | P.Zero -> atom "zero"
  | P.Plus (a, b) -> list "+" [ tm_sexp a; tm_sexp b ]
  | P.Let (e, l) -> list "let" [ tm_sexp e; tm_sexp l ]

let rule_name = function
  | P.R1 -> "1" | P.R2 -> "2" | P.R3 -> "3" | P.R4 -> "4" | P.R5 -> "5" | P.R6 -> "6"
  | P.RLet -> "let" | P.R7 -> "7" | P.R8 -> "8" | P.RA -> "A" | P.R9 -> "9"
  | P.R10a -> "10a" | P.R10a' -> "10a-mirror" | P.R10b -> "10b" | P.R11 -> "11" | P.R12 -> "12"
  | P.R13a -> "13a" | P.R13b -> "13b" | P.R13c -> "13c" | P.R14 -> "14" | P.R15 -> "15"
  | P.R16a -> "16a" | P.R16b -> "16b" | P.R16c -> "16c" | P.R17 -> "17" | P.R18 -> "18"
  | P.R19a -> "19a" | P.R19b -> "19b" | P.R19c -> "19c" | P.R20a -> "20a" | P.R20b -> "20b"

(* ---------- running ---------- *)

(* [--ztyped] and the request (zcheck TERM): also the typed premise of
   progress, ztyped (theories/pullback/ztyped.v), by the extracted zcheck
   at the type pb_infer gives. *)
let ztyped = ref false

let typed ?(z = false) s =
  let a = term_of 0 0 s in
  match P.pb_infer a with
  | Some t ->
      let e = P.pb_erase a in
      if (z || !ztyped) && not (P.pb_zcheck a t) then
        bad ~rule:"ztyped" "ill-formed"
          ("a 0 or a sum stands at a type that is not a dual type, outside the body of a dual map \
            (theories/pullback/ztyped.v, ztyped, decided by zcheck): the paper's 0 and sums are formal, \
            no rule reduces f(r + r) or a point with a 0 in it: " ^ short s);
      if not (P.pb_lets_ok e) then
        bad ~rule:"wf_let" "ill-formed"
          ("a let in the body of a pullback is not a let series (theories/pullback/wf.v, pb_lets_ok): \
            the paper's terms have no let; write ((lam T L) E) instead: " ^ short s);
      if not (P.pb_jac_ok e) then
        bad ~rule:"jac_app_free" "ill-formed"
          ("a Jacobian (jac f S) is applied in the body of a pullback (theories/pullback/wf.v, pb_jac_ok): \
            Remark 3.6 leaves it stuck, its derivative would need the second derivative of f: " ^ short s);
      if not (P.pb_param_ok e) then
        bad ~rule:"param_app_free" "ill-formed"
          ("a parameter of an abstraction (or of a dual map) in the body of a pullback is applied to data bound in \
            that body (theories/pullback/wf.v, pb_param_ok): Remark 3.6 leaves it stuck, the derivative of an \
            unknown function is not known: " ^ short s);
      (e, t)
  | None ->
      bad "type" ("the term has no type (the checker of theories/pullback/infer.v rejects it; 0 and (ndual ...) \
                   with zero entries need a type from their context): " ^ short s)

let result_line u t k =
  to_line (list "result" [ list "value" [ tm_sexp u ]; list "type" [ ty_sexp t ]; list "steps" [ int_atom k ] ])

(* The answer to a finished run: a value, or a runtime failure. *)
let outcome u t k = function
  | P.OValue -> result_line u t k
  | P.OStuck -> raise (Runtime ("stuck", Printf.sprintf "no rule applies after %d steps, and the term is not a value: %s" k (short (within ~cut:true 400 (fun () -> tm_sexp u)))))
  | P.OFuel -> raise (Runtime ("out-of-fuel", Printf.sprintf "no value within the fuel of %d steps (after %d steps; --fuel N)" !fuel k))

(* The normaliser: on the first-order fragment (fo.v, fq, decided by the
   extracted fqb) the fuel-free run (fo_run.v, fo_run_opt), which ends in
   a value whatever the fuel; elsewhere (and always with [fuelled]) the
   normaliser with the fuel of --fuel.  Both give the same answer where
   the fuelled one ends in a value (fo_run_opt_normalize). *)
let normalise ?(fuelled = false) e =
  match if fuelled then None else P.pb_fo_run e with
  | Some r -> r
  | None -> P.pb_normalize !fuel e

let run ?fuelled s =
  let e, t = typed s in
  let (u, k), o = normalise ?fuelled e in
  sized (fun () -> outcome u t k o)

(* The continuation machine: the same answer, and how often each rule fired,
   the rules of the premises of 16b-20a included (in the order of first
   firing). *)
let run_cps s =
  let e, t = typed s in
  let transitions = min (!fuel * transitions_per_fuel) (max_int / 2) in
  let ((u, k), log), o = P.pb_cps !fuel transitions e in
  match o with
  | P.OValue ->
      let counts = Hashtbl.create 32 and order = ref [] in
      List.iter (fun r ->
          let n = rule_name r in
          match Hashtbl.find_opt counts n with
          | Some c -> Hashtbl.replace counts n (c + 1)
          | None -> Hashtbl.add counts n 1; order := n :: !order)
        (P.pb_log_rules !fuel transitions log);
      sized (fun () ->
          let rules = List.rev_map (fun n -> sexp_list [ atom n; int_atom (Hashtbl.find counts n) ]) !order in
          to_line (list "result" [ list "value" [ tm_sexp u ]; list "type" [ ty_sexp t ]; list "steps" [ int_atom k ];
                                   list "rules" rules ]))
  | P.OStuck -> sized (fun () -> outcome u t k o)
  | P.OFuel ->
      raise (Runtime ("out-of-fuel", Printf.sprintf "no value within the fuel of %d (the continuation machine, after %d steps; --fuel N)" !fuel k))

(* The term a run ends with, whatever the outcome (the normaliser's value,
   stuck term or the term where the fuel ran out), whole: (last (term U)
   (steps K) (outcome value|stuck|out-of-fuel)).  A stuck message cuts its
   term at 400 characters; this answer is bounded by [max_answer] only. *)
let last s =
  let e, _ = typed s in
  let (u, k), o = P.pb_normalize !fuel e in
  let outcome = match o with P.OValue -> "value" | P.OStuck -> "stuck" | P.OFuel -> "out-of-fuel" in
  sized (fun () ->
      to_line (list "last" [ list "term" [ tm_sexp u ]; list "steps" [ int_atom k ]; list "outcome" [ atom outcome ] ]))

let check_line ?z s =
  let t = snd (typed ?z s) in
  sized (fun () -> to_line (list "ok" [ list "type" [ ty_sexp t ] ]))

(* The terms after each step, and the answer (or the runtime failure) at the
   end; and the one line of --serve, (trace STEP ... ANSWER), which is
   [max_answer] characters at most (the lines of --trace then are too). *)
let trace s =
  let e, t = typed s in
  let steps, o = P.pb_trace !fuel e in
  let _, rules = List.fold_left (fun (prev, acc) u -> (u, P.pb_step_rule prev u :: acc)) (e, []) steps in
  let u = List.fold_left (fun _ x -> x) e steps in
  let lines, final =
    match within max_answer (fun () ->
        let lines = List.map2 (fun r u -> to_line (list "step" [ list "rule" [ atom (rule_name r) ]; tm_sexp u ]))
            (List.rev rules) steps in
        (lines, try Ok (outcome u t (List.length steps) o) with Runtime (kind, msg) -> Error (kind, msg)))
    with
    | r -> r
    | exception Too_large -> too_large ()
  in
  let final_text = match final with Ok l -> l | Error (kind, msg) -> error_line kind "none" msg in
  let line = "(trace" ^ String.concat "" (List.map (fun l -> " " ^ l) lines) ^ " " ^ final_text ^ ")" in
  if String.length line > max_answer then too_large ();
  (lines, final, line)

let requests =
  [ ("run", `Run); ("run-fuel", `Run_fuel); ("check", `Check); ("zcheck", `Zcheck); ("trace", `Trace); ("cps", `Cps); ("last", `Last) ]

let mode_of_request s =
  match keyword_request requests s with
  | Some r -> r
  | None -> (
      match s with
      | S.List (S.Atom k :: _) when List.mem_assoc k requests ->
          bad "syntax" "a request is (run TERM), (run-fuel TERM), (check TERM), (zcheck TERM), (trace TERM), \
                        (cps TERM), (last TERM) or a TERM"
      | p -> (`Run, p))

let usage =
  Printf.sprintf "usage: pullback-eval [--check | --trace | --machine step|cps] [--ztyped] [--fuel N] [--timeout SECONDS] [FILE]\n\
  \       pullback-eval --serve [--ztyped] [--fuel N] [--timeout SECONDS]\n\
   Reads one request (docs/sexp-format.md, \"pullback-eval\"): (run TERM),\n\
   (run-fuel TERM), (check TERM), (zcheck TERM), (trace TERM), (cps TERM), (last TERM) or a\n\
   TERM, from FILE or standard input, and prints one answer line (--trace: one\n\
   line per step first,\n\
   with the rule that fired).  --machine cps runs a TERM or (run TERM) on\n\
   the continuation machine (as (cps TERM)), which also counts the rules\n\
   that fired.  Exit codes: 0 value, 1 stuck, out of fuel or an answer\n\
   longer than %d characters (answer-too-large), 2 bad input.\n\
   --fuel N bounds the steps (default 1000000), and the machine's premises\n\
   and (times 64) its transitions; run takes no fuel on the first-order\n\
   fragment (fq, theories/pullback/fo_run.v), where it ends in a value;\n\
   run-fuel, trace and last always take the fuel.  --serve answers one request per line.\n\
   --timeout stops a request after SECONDS (default 60; 0: no limit).\n\
   --ztyped (and the request zcheck, as check) also checks the typed premise of\n\
   progress (theories/pullback/ztyped.v: 0 and sums only at dual types outside\n\
   dual maps' bodies); a term outside it is ill-formed [ztyped], exit code 2." max_answer

let () =
  let mode = ref `Run and serve_mode = ref false and machine = ref `Run in
  let fuel_of n =
    match int_of_string_opt n with Some f when f >= 0 && f <= 1_000_000_000 -> fuel := f; true | _ -> false
  and machine_of = function "cps" -> machine := `Cps; true | "step" -> machine := `Run; true | _ -> false in
  let file =
    command_line "pullback-eval" usage
      ~switches:[ ("--check", fun () -> mode := `Check); ("--trace", fun () -> mode := `Trace);
                  ("--serve", fun () -> serve_mode := true); ("--ztyped", fun () -> ztyped := true) ]
      ~options:[ ("--machine", machine_of); ("--fuel", fuel_of) ]
  in
  (* the answer line to request [m] on [p]; [traced] makes a trace's *)
  let answer traced m p =
    match m with
    | `Run -> run p
    | `Run_fuel -> run ~fuelled:true p
    | `Cps -> run_cps p
    | `Last -> last p
    | `Check -> check_line p
    | `Zcheck -> check_line ~z:true p
    | `Trace -> traced (trace p)
  in
  if !serve_mode then
    serve (fun req ->
        let m, p = mode_of_request req in
        answer (fun (_, _, line) -> line) m p)
  else
    answer_one file (fun req ->
        let m, p = mode_of_request req in
        answer (fun (lines, final, _) ->
            List.iter print_endline lines;
            match final with Ok l -> l | Error (kind, msg) -> raise (Runtime (kind, msg)))
          (if !mode = `Run then (if m = `Run then !machine else m) else !mode) p)

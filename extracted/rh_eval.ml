(* rh-eval: the command-line driver of the verified evaluator.

   What a program means is decided by code extracted from Coq (module
   Revhandlers_core, generated at build time from theories/rh/extraction.v):
   the reader of programs and the printers of answers (frontend.v), the
   type checker and the evaluators.  This file only
   - parses S-expressions (driver_io.ml) and reads atoms: natural numbers
     (int_of_string), numbers (float_of_string, or (f64 BASE64) data);
   - supplies the vectors: OCaml float arrays (vec.ml), or with
     --list-vectors the list model extracted from Coq over IEEE binary64;
   - keeps resident sessions (--serve: load a program once, run it many
     times on a heap kept between runs);
   - prints lines and chooses the exit code: 0 result, 1 runtime failure
     of a well-typed program, 2 bad input. *)

module C = Revhandlers_core
module S = Sexplib.Sexp
open Driver_io

(* The machine with the tape at every rev handle, the RH-4 levels of MLP chains included
   (fast4_correct.v: exec_run_fast4_correct, for every program under the scalars' zero law,
   which binary64 with 0_b = -0.0 meets: TRUSTED.md), the environment machine (--machine; machine.v:
   run_machine_correct) or the small-step evaluator; without a user's fuel (--fuel, (fuel N)),
   the total evaluator's answer (total.v, machine_fast.v: run_total_fast_eq), found as
   rh_embed.ml's run_session finds it. *)
let small_step = ref false
let machine = ref false
(* --tape4: the default machine (tape4 at every rev handle; fast4_correct.v: exec_run_fast4_correct);
   without a fuel, run_fast4_search instead of the total evaluator. *)
let tape4 = ref false
let list_vectors = ref false
let user_fuel = ref None
let max_rd_depth = ref C.max_rd_depth
let max_rd_size = ref C.max_rd_weight

(* ---------- numbers ---------- *)

let nat_opt a = match int_of_string_opt a with Some n when n >= 0 -> Some n | _ -> None

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

let floats_sexp (v : float array) = Array.fold_right (fun x acc -> atom (float_str x) :: acc) v []
let f64_sexp v = list "f64" (if v = [||] then [] else [ atom (F64.encode v) ])

(* Errors of the reader are bad input (exit code 2), of a run runtime failures (1). *)
let ok = function C.Ok x -> x | C.Err (kind, msg) -> bad kind msg
let runtime = function C.Ok x -> x | C.Err (kind, msg) -> raise (Runtime (kind, msg))

(* ---------- the driver, for one representation of vectors ---------- *)

module type VECTORS = sig
  type t
  val ops : t C.vec_ops
  val of_array : float array -> t
  val to_array : t -> float array
end

module Arrays = struct
  type t = Vec.t
  let ops = Vec.ops
  let of_array a = Vec.Plain a
  let to_array = Vec.force
end

module Lists = struct
  type t = float list
  let ops = Vec.list_ops
  let of_array = Array.to_list
  let to_array = Array.of_list
end

module Driver (V : VECTORS) = struct
  let io =
    { C.io_nat = nat_opt;
      io_num = string_of_int;
      io_show = short;
      io_line = (fun s -> to_line s);
      io_floats = (fun xs -> V.of_array (floats_of xs));
      io_data = (fun d -> V.of_array (data_of d));
      io_atoms = (fun v -> floats_sexp (V.to_array v)) }

  let program_of s = ok (C.prog_read V.ops io s)
  let fuel_of p = match p.C.p_fuel with Some f -> Some f | None -> !user_fuel

  (* (fuel, answer) with the user's fuel, or the total evaluator's; it
     refuses only an unchecked program or a heap of the wrong shapes, which
     the driver never passes (run_total_fn_none, init_heap_ok, heap_set_ok,
     run_total_fn_heap_ok). *)
  let run_fuel p fuel hp =
    match fuel with
    | Some f when !tape4 && not !small_step && not !machine -> (f, C.prog_run_fast4 V.ops p f hp)
    | None when !tape4 && not !small_step && not !machine -> C.prog_run_total_fast4 V.ops p hp
    | Some f -> (f, if !machine && not !small_step then C.prog_run_machine V.ops p f hp
                    else C.prog_run V.ops !small_step p f hp)
    | None -> (
        (* The total evaluator's first fuel F0 first (run_total_fn_spec: it answers run F0's
           answer when that is not out of fuel, with the fuel F0), then the total evaluator. *)
        let first = if !machine || !small_step then None
                    else match C.prog_run V.ops false p C.first_fuel hp with
                      | C.ROutOfFuel _ -> None
                      | r -> Some (C.first_fuel, r) in
        match first with
        | Some fr -> fr
        | None ->
            (match (if !machine && not !small_step then C.prog_run_total_machine V.ops p hp
                    else C.prog_run_total V.ops !small_step p hp) with Some fr -> fr
             | None -> raise (Runtime ("internal", "the total evaluator refused the program or its heap"))))

  (* The differentiation depth bound (rd_size.v, docs/decisions.md). *)
  let rd_limit p =
    let d = C.prog_rd_depth p in
    if d > !max_rd_depth then
      bad "too-large" (Printf.sprintf "the program differentiates %d levels deep (rd inside rd or inside a rev handle's body); at most %d are run (--max-rd-depth)" d !max_rd_depth);
    let w = C.prog_rd_weight p in
    if w > !max_rd_size then
      bad "too-large" (Printf.sprintf "the estimated size of the program's rd and rev handle rewritings is %s; at most %d are run (--max-rd-size), as the rewriting's size grows doubly exponentially with the nesting" (if w >= 1 lsl 60 then "at least 2^60" else string_of_int w) !max_rd_size)

  let check p =
    match C.prog_check V.ops p with
    | C.Ok t -> t
    | C.Err e -> let rule, msg = C.prog_type_error io p e in bad ~rule "type" msg

  (* What runs is checked, then bounded (--check only checks). *)
  let runnable p = let t = check p in rd_limit p; t

  let check_line p = to_line (list "ok" [ list "type" [ C.prog_ty_sexp io (check p) ] ])

  (* The user operations no handler covers (effects.v's unhandled), each
     once, in order: a checked program without any is never stuck on an
     operation (effect_safety). *)
  let unhandled p =
    List.fold_left (fun acc o -> if List.mem o acc then acc else acc @ [ o ]) [] (C.prog_unhandled p)

  let effects_line p = ignore (check p); to_line (list "ok" [ list "unhandled" (List.map atom (unhandled p)) ])

  (* --check and (check-program PROGRAM): the checker of never_stuck.v
     (check_program), which accepts exactly the programs
     check_program_never_stuck speaks of: well typed, constants at their
     lengths, function symbols with parameters that make sense (rd nested
     at any depth: Ev is total at every order, exec_ev_total_all), no
     operation left unhandled.
     The request (check PROGRAM) answers the type alone, (effects PROGRAM)
     the unhandled operations. *)
  let check_program_line p =
    match C.prog_check_program V.ops p with
    | C.Ok t -> to_line (list "ok" [ list "type" [ C.prog_ty_sexp io t ] ])
    | C.Err (C.PTypeError e) -> let rule, msg = C.prog_type_error io p e in bad ~rule "type" msg
    | C.Err C.PConstLength -> bad "shape" "a constant's vector does not have the length its type declares"
    | C.Err C.PPrimParams ->
        bad "shape" "impossible parameters for a function symbol (conv1d needs 0 < m <= n; maxpool and upscale need \
                     m > 0)"
    | C.Err (C.PUnhandled os) -> (
        let names = List.fold_left (fun acc o -> let n = C.prog_op_name p o in
                                      if List.mem n acc then acc else acc @ [ n ]) [] os in
        match names with
        | [ o ] -> bad "effect" ("operation " ^ o ^ " is handled by no enclosing handler (a handler without a clause \
                                  for it passes it on to the enclosing ones): running it fails with unhandled-operation")
        | os -> bad "effect" ("operations " ^ String.concat ", " os ^ " are handled by no enclosing handler (a handler \
                               without a clause for one passes it on to the enclosing ones): running them fails with \
                               unhandled-operation"))
  (* --print and (print PROGRAM): the program as printer_spec.v's
     print_program prints it (binders v0, v1, ...; read back to the same
     program, read_reprint_program). *)
  let print_line p = to_line (C.prog_print io p)
  let answer p r = to_line (runtime (C.prog_outcome V.ops io p r))

  let run p =
    ignore (runnable p);
    answer p (snd (run_fuel p (fuel_of p) (C.prog_init_heap V.ops p)))

  (* The small-step evaluator with an observer on every configuration
     (run_obs, proved equal to run: run_obs_run); without a user's fuel,
     with the fuel the total evaluator found (run_total_fn_correct). *)
  let observe p obs =
    ignore (runnable p);
    let fuel = match fuel_of p with Some f -> f | None -> fst (run_fuel p None (C.prog_init_heap V.ops p)) in
    answer p (snd (C.prog_observe V.ops obs () p fuel))

  let trace p emit =
    observe p (fun () n hp q _ ->
        emit (to_line (list "step" [ int_atom n; C.prog_heap_sexp V.ops io p hp;
                                     list "cmd" [ C.prog_cmd_sexp io p q ] ])))

  (* Rule coverage (testing instrumentation): the counts and the outcome. *)
  let coverage p =
    let counts = Hashtbl.create 32 in
    let count t =
      let k = C.tag_name t in
      Hashtbl.replace counts k (1 + Option.value ~default:0 (Hashtbl.find_opt counts k))
    in
    let final =
      try observe p (fun () _ _ q rest -> List.iter count (C.prog_tags V.ops p rest q)) with
      | Runtime (kind, msg) -> error_line kind "none" msg
      | Stack_overflow -> error_line "too-deep" "none" "the program is nested too deeply to evaluate"
    in
    let cs = Hashtbl.fold (fun k v acc -> (k, v) :: acc) counts [] |> List.sort compare in
    "(coverage (counts" ^ String.concat "" (List.map (fun (k, v) -> Printf.sprintf " (%s %d)" k v) cs) ^ ") " ^ final ^ ")"

  let answer_request mode p =
    match mode with
    | `Run -> run p
    | `Check -> check_line p
    | `CheckProgram -> check_program_line p
    | `Print -> print_line p
    | `Effects -> effects_line p
    | `Coverage -> coverage p
    | `Trace ->
        let steps = ref [] in
        let final = trace p (fun l -> steps := l :: !steps) in
        "(trace " ^ String.concat " " (List.rev !steps) ^ " " ^ final ^ ")"

  (* ---------- resident sessions (--serve) ----------
     (load NAME PROGRAM): check PROGRAM, keep it and its initial heap;
     (exec NAME (set (LOC DATA) ...) (read LOC ...) (fuel N)): run the main
     command from the start on the session's heap updated by [set]
     (heap_set, which keeps the shapes: heap_set_ok); on a result the
     session keeps the final heap, on a failure its heap is left as it was;
     (heap NAME); (unload NAME).  Numbers go out as (f64 BASE64). *)

  type session = { prog : V.t C.program; mutable heap : C.heap }

  let sessions : (string, session) Hashtbl.t = Hashtbl.create 8

  let session_of name =
    match Hashtbl.find_opt sessions name with
    | Some s -> s
    | None -> bad "unbound" ("no session named " ^ name ^ " (load it first)")

  let loc_index p l = match C.index_of l p.C.p_locs with Some i -> i | None -> bad "unbound" ("unknown location " ^ l)
  let f64_entry p hp name i = S.List [ atom name; f64_sexp (V.to_array (C.prog_loc_value V.ops p hp i)) ]

  (* A closed value with its constants as (f64 BASE64). *)
  let rec value_f64 = function
    | C.Const c -> f64_sexp (V.to_array (snd (C.const_view c)))
    | C.Tuple vs -> list "tuple" (List.map value_f64 vs)
    | m -> C.prog_tm_sexp io m

  let fuel_atom s = match s with
    | S.Atom a when nat_opt a <> None -> Option.get (nat_opt a) | s -> bad "syntax" ("expected a fuel, found " ^ short s)

  let exec_session s fields =
    let p = s.prog in
    let sets = ref [] and reads = ref [] and fuel = ref (fuel_of p) and value = ref `Text in
    List.iter
      (function
        | S.List (S.Atom "set" :: entries) -> sets := !sets @ entries
        | S.List (S.Atom "read" :: ls) ->
            reads := !reads @ List.map (function S.Atom a -> a | s -> bad "syntax" ("expected a name, found " ^ short s)) ls
        | S.List [ S.Atom "fuel"; n ] -> fuel := Some (fuel_atom n)
        | S.List [ S.Atom "value"; S.Atom "text" ] -> value := `Text
        | S.List [ S.Atom "value"; S.Atom "f64" ] -> value := `F64
        | S.List [ S.Atom "value"; S.Atom "none" ] -> value := `None
        | f -> bad "syntax" ("an exec request has the fields (set (LOC DATA) ...), (read LOC ...), (fuel N) and (value text|f64|none), found " ^ short f))
      fields;
    let hp = ok (C.prog_heap_set V.ops io p s.heap !sets) in
    let reads = List.map (fun l -> (l, loc_index p l)) !reads in
    let t0 = Unix.gettimeofday () in
    let r = snd (run_fuel p !fuel hp) in
    let seconds = Unix.gettimeofday () -. t0 in
    match r with
    | C.RDone (hp', v, n) ->
        s.heap <- hp';
        to_line
          (list "result"
             [ list "value" (match !value with `Text -> [ C.prog_tm_sexp io v ] | `F64 -> [ value_f64 v ] | `None -> []);
               list "read" (List.map (fun (l, i) -> f64_entry p hp' l i) reads);
               list "steps" [ int_atom n ]; list "seconds" [ atom (Printf.sprintf "%.9f" seconds) ] ])
    | r -> answer p r

  let session_request = function
    | S.List [ S.Atom "load"; S.Atom name; p ] ->
        let prog = program_of p in
        let t = runnable prog in
        Hashtbl.replace sessions name { prog; heap = C.prog_init_heap V.ops prog };
        Some (to_line (list "loaded" [ atom name; list "type" [ C.prog_ty_sexp io t ] ]))
    | S.List (S.Atom "exec" :: S.Atom name :: fields) -> Some (exec_session (session_of name) fields)
    | S.List [ S.Atom "heap"; S.Atom name ] ->
        let s = session_of name in
        Some (to_line (list "heap" (List.mapi (fun i l -> f64_entry s.prog s.heap l i) s.prog.C.p_locs)))
    | S.List [ S.Atom "unload"; S.Atom name ] ->
        ignore (session_of name);
        Hashtbl.remove sessions name;
        Some (to_line (list "unloaded" [ atom name ]))
    | S.List (S.Atom ("load" | "exec" | "heap" | "unload") :: _) ->
        bad "syntax" "a session request is (load NAME PROGRAM), (exec NAME FIELDS...), (heap NAME) or (unload NAME)"
    | _ -> None

  let requests =
    [ ("run", `Run); ("check", `Check); ("effects", `Effects); ("check-program", `CheckProgram); ("print", `Print);
      ("trace", `Trace); ("coverage", `Coverage) ]

  let mode_of_request s =
    match (Driver_io.keyword_request requests s, s) with
    | Some r, _ -> r
    | None, S.List (S.Atom "program" :: _) -> (`Run, s)
    | None, _ -> bad "syntax" "a request is (run PROGRAM), (check PROGRAM), (check-program PROGRAM), (print PROGRAM), (effects PROGRAM), (trace PROGRAM), (coverage PROGRAM), a PROGRAM, or a session request: (load NAME PROGRAM), (exec NAME FIELDS...), (heap NAME), (unload NAME)"

  let main serve_mode mode file =
    if serve_mode then
      Driver_io.serve (fun req ->
          match session_request req with
          | Some answer -> answer
          | None -> let mode, p = mode_of_request req in answer_request mode (program_of p))
    else
      Driver_io.answer_one file (fun req ->
          let p = program_of req in
          match mode with `Trace -> trace p print_endline | m -> answer_request m p)
end

let usage =
  "usage: rh-eval [--check | --print | --trace | --coverage] [OPTIONS] [FILE]\n\
  \       rh-eval --serve [OPTIONS]\n\
   OPTIONS: [--fuel N] [--timeout SECONDS] [--memory MB] [--max-rd-depth N] [--max-rd-size N]\n\
   \       [--small-step] [--machine] [--tape4] [--list-vectors]\n\
   Reads one program (docs/sexp-format.md) from FILE or standard input and prints one result line;\n\
   --serve answers one request per line, sessions included.  Exit codes: 0 result, 1 runtime failure\n\
   of a well-typed program, 2 bad input.  By default the environment machine with the tape of rev\n\
   handle over chains of layers Op(f(y)) (tape_rh4.v, run_fast4; its zero cotangent -0.0 is an exact\n\
   identity of addition).  --small-step: the small-step evaluator (--trace and --coverage always use\n\
   it); --machine: the environment machine without the tape (machine.v).  --tape4: with a fuel (--fuel N\n\
   or the program's (fuel N)), the default's run (run_fast4, equal to run at that fuel:\n\
   fast4_correct.v, exec_run_fast4_correct); without one, where the default runs run_fast4 with 2^40\n\
   steps and, if they are not enough, the total evaluator (machine_fast.v's tape, without the RH-4\n\
   levels; total.v), --tape4 runs run_fast4 without its fallback on fuel (run_fast4_nf) from 2^40\n\
   steps, the fuel doubled while out of fuel, at most 20 times (2^60; run_fast4_search_agree).\n\
   --list-vectors: the list model of vectors extracted\n\
   from Coq, not float arrays; --fuel N: stop after N steps (out-of-fuel), without it a checked program\n\
   runs to its end (total.v); --timeout (default 60 s; 0: none); --max-rd-size N (default 2^45): refuse\n\
   programs whose estimated size of rd and rev handle rewritings (cmd_rd_weight) exceeds N;\n\
   --max-rd-depth N (default 64): refuse programs that differentiate more than N levels deep."

let () =
  (* Large vectors live in the major heap: grow it in large steps and keep
     what it has, rather than mapping fresh pages for every run. *)
  Gc.set { (Gc.get ()) with Gc.major_heap_increment = 1 lsl 22; space_overhead = 200 };
  let mode = ref `Run and serve_mode = ref false in
  let set flag () = flag := true and number r n = match nat_opt n with Some n -> r n; true | None -> false in
  let file =
    command_line "rh-eval" usage
      ~switches:[ ("--check", fun () -> mode := `CheckProgram); ("--print", fun () -> mode := `Print);
                  ("--trace", fun () -> mode := `Trace); ("--coverage", fun () -> mode := `Coverage);
                  ("--serve", set serve_mode); ("--list-vectors", set list_vectors);
                  ("--small-step", set small_step); ("--machine", set machine);
                  ("--tape4", set tape4) ]
      ~options:[ ("--fuel", number (fun n -> user_fuel := Some n)); ("--max-rd-depth", number (( := ) max_rd_depth));
                 ("--max-rd-size", number (( := ) max_rd_size)) ]
  in
  if !list_vectors then (let module D = Driver (Lists) in D.main !serve_mode !mode file)
  else (let module D = Driver (Arrays) in D.main !serve_mode !mode file)

(* Driver_io: what the command-line drivers of the extracted evaluators
   (rh-eval, dbr-eval) share: errors and exit codes, S-expression reading
   with a bounded input, one-line printing, the --serve loop.  It decides
   nothing about what a program means. *)

module S = Sexplib.Sexp

(* The project's version (pyproject.toml; tests/test_python_package.py checks
   that they agree), printed by --version. *)
let version = "0.1.0"

exception Bad of string * string * string (* kind, rule, message *)
exception Runtime of string * string (* kind, message *)

(* Messages quote the input: a long one is cut, saying how long it was. *)
let max_message = 1000

let cut msg =
  let n = String.length msg in
  if n <= max_message then msg else Printf.sprintf "%s... (%d characters in all)" (String.sub msg 0 max_message) n

let bad ?(rule = "none") kind msg = raise (Bad (kind, rule, cut msg))

(* Atoms with brackets or braces are quoted, so that every S-expression
   reader (sexpdata too) reads them back as one atom. *)
exception Enough

(* [limit] characters at most (then "..."): error messages quote subterms
   of any size in time proportional to what they print. *)
let to_line ?(limit = max_int) s =
  let b = Buffer.create 256 in
  let rec go s =
    if Buffer.length b > limit then raise Enough;
    match s with
    | S.Atom a when String.exists (fun c -> c = '[' || c = ']' || c = '{' || c = '}') a ->
        Buffer.add_string b (Printf.sprintf "%S" a)
    | S.Atom a -> Buffer.add_string b (S.to_string (S.Atom a))
    | S.List l ->
        Buffer.add_char b '(';
        List.iteri (fun i x -> if i > 0 then Buffer.add_char b ' '; go x) l;
        Buffer.add_char b ')'
  in
  (try go s with Enough -> ());
  if Buffer.length b > limit then Buffer.sub b 0 limit ^ " ..." else Buffer.contents b

let short s = to_line ~limit:300 s

(* A float as an atom every reader takes for a float: 17 significant
   digits (read back exactly), with a "." or an exponent; nan, inf, -inf. *)
let float_str f =
  if Float.is_nan f then "nan"
  else if f = Float.infinity then "inf"
  else if f = Float.neg_infinity then "-inf"
  else
    let s = Printf.sprintf "%.17g" f in
    if String.contains s '.' || String.contains s 'e' then s else s ^ ".0"

let atom s = S.Atom s
let int_atom n = S.Atom (string_of_int n)
let list head xs = S.List (S.Atom head :: xs)

let error_line kind rule msg =
  to_line (list "error" [ list "kind" [ atom kind ]; list "rule" [ atom rule ]; list "message" [ atom msg ] ])

(* A memory bound (--memory MB; 0: none): the OCaml heap of the process,
   checked while a request is evaluated (see [limited]).  By default 4096,
   or half the address-space limit (ulimit -v, read from /proc/self/limits)
   if that is less, so that the bound is reached before the system's. *)
let memory_limit =
  let address_space () =
    let ic = open_in "/proc/self/limits" in
    Fun.protect ~finally:(fun () -> close_in ic) (fun () ->
        let rec find () =
          let l = input_line ic in
          if String.starts_with ~prefix:"Max address space" l then
            match List.filter (( <> ) "") (String.split_on_char ' ' l) with
            | _ :: _ :: _ :: soft :: _ -> int_of_string_opt soft
            | _ -> None
          else find ()
        in
        find ())
  in
  match address_space () with
  | Some bytes -> ref (max 1 (min 4096 (bytes / 2 / (1 lsl 20))))
  | None | (exception _) -> ref 4096

(* The largest program text or request line read, in bytes: 1 GiB, and at
   most a quarter of the memory bound. *)
let max_input () = if !memory_limit = 0 then 1 lsl 30 else min (1 lsl 30) (!memory_limit lsl 18)

let parse_one text =
  match Parsexp.Many.parse_string text with
  | Error e ->
      let p = Parsexp.Parse_error.position e in
      bad "parse"
        (Printf.sprintf "malformed S-expression: %s at line %d, column %d" (Parsexp.Parse_error.message e) p.line p.col)
  | Ok [ s ] -> s
  | Ok [] -> bad "parse" "empty input"
  | Ok _ -> bad "parse" "more than one S-expression"

(* Run [f], turning every failure into an error line and an exit code. *)
let guarded f =
  try (f (), 0) with
  | Bad (kind, rule, msg) -> (error_line kind rule msg, 2)
  | Runtime (kind, msg) -> (error_line kind "none" msg, 1)
  | Stack_overflow -> (error_line "too-deep" "none" "the program is nested too deeply to evaluate", 1)
  | Out_of_memory -> (error_line "out-of-memory" "none" "the evaluation ran out of memory", 1)
  | e -> (error_line "internal" "none" ("unexpected failure: " ^ Printexc.to_string e), 1)

let too_large () = bad "too-large" (Printf.sprintf "the input is larger than %d bytes" (max_input ()))

(* The next line of standard input, at most [max_input ()] bytes: [`Line],
   [`Too_long] (the rest of the line is skipped, or it did not fit in
   memory) or [`Eof]. *)
let next_line =
  let chunk = Bytes.create 65536 and pos = ref 0 and len = ref 0 in
  fun () ->
    let buf = Buffer.create 256 and over = ref false and eof = ref false and fin = ref false in
    while not !fin do
      if !pos >= !len then begin
        len := input stdin chunk 0 65536;
        pos := 0;
        if !len = 0 then (eof := true; fin := true)
      end;
      if not !fin then begin
        let stop = match Bytes.index_from_opt chunk !pos '\n' with Some i when i < !len -> i | _ -> !len in
        if not !over then begin
          if Buffer.length buf + (stop - !pos) > max_input () then (over := true; Buffer.reset buf)
          else
            try Buffer.add_subbytes buf chunk !pos (stop - !pos)
            with Out_of_memory -> over := true; Buffer.reset buf
        end;
        if stop < !len then (fin := true; pos := stop + 1) else pos := !len
      end
    done;
    if !over then `Too_long else if !eof && Buffer.length buf = 0 then `Eof else `Line (Buffer.contents buf)

let read_all ic =
  let buf = Buffer.create 4096 and chunk = Bytes.create 65536 in
  let rec go () =
    let n = input ic chunk 0 65536 in
    if n > 0 then begin
      if Buffer.length buf + n > max_input () then too_large ();
      (try Buffer.add_subbytes buf chunk 0 n with Out_of_memory -> Buffer.reset buf; too_large ());
      go ()
    end
  in
  go ();
  try Buffer.contents buf with Out_of_memory -> Buffer.reset buf; too_large ()

(* A time limit on each request (--timeout SECONDS, default 60; 0: none):
   past it, the computation stops at its next allocation and the request
   fails with the runtime error "timeout" (exit code 1). *)
let time_limit = ref 60.0

(* The --timeout option's value, or None if it is not a time. *)
let timeout_of s = match float_of_string_opt s with Some t when t >= 0.0 && Float.is_finite t -> Some t | _ -> None

exception Out_of_time

(* The memory bound is checked at the end of every major GC cycle (a GC
   alarm) and every 10 ms (the interval timer of [limited]), while a
   request is evaluated ([armed]); past it, the computation stops with the
   runtime error "out-of-memory" (exit code 1), its data become garbage and
   the heap is compacted, so that --serve goes on with the next request. *)
let armed = ref false

let memory_error () =
  Runtime ("out-of-memory", Printf.sprintf "the evaluation needed more than %d MB of memory (--memory %d)" !memory_limit !memory_limit)

let heap_over fraction = (Gc.quick_stat ()).Gc.heap_words > !memory_limit * ((1 lsl 20) / (Sys.word_size / 8)) / fraction

let check_memory () =
  if !armed && heap_over 1 then begin
    armed := false;
    raise (memory_error ())
  end

let alarm = lazy (ignore (Gc.create_alarm check_memory))

(* [f ()] under the bounds: [arm ~timed ~bounded] starts what checks the
   time (and, with [bounded], the memory) and returns what stops it; past
   the deadline ([Out_of_time]) the runtime error "timeout", whose message
   names the option as [what]; after a memory error the heap is compacted.
   Shared by [limited] (a signal) and librh_embed (GC alarms, rh_embed.ml). *)
let limited_with ~arm ~what f =
  let timed = !time_limit > 0.0 and bounded = !memory_limit > 0 in
  if not (timed || bounded) then f ()
  else begin
    Lazy.force alarm;
    (* A heap left large by an earlier request (--serve) is mostly free: give it back. *)
    if bounded && heap_over 2 then Gc.compact ();
    let disarm = arm ~timed ~bounded in
    armed := bounded;
    let stop () = armed := false; disarm () in
    match f () with
    | v -> stop (); v
    | exception Out_of_time ->
        stop ();
        raise (Runtime ("timeout", Printf.sprintf "no answer within %g s (%s)" !time_limit what))
    | exception (Runtime ("out-of-memory", _) | Out_of_memory as e) ->
        stop ();
        Gc.compact ();
        raise e
    | exception e -> stop (); raise e
  end

(* The bounds by an interval timer (every 10 ms with a memory bound). *)
let limited f =
  let arm ~timed ~bounded =
    let deadline = Unix.gettimeofday () +. !time_limit in
    let tick _ =
      if timed && ((not bounded) || Unix.gettimeofday () >= deadline) then raise Out_of_time;
      check_memory ()
    in
    let old = Sys.signal Sys.sigalrm (Sys.Signal_handle tick) in
    let period = if bounded then 0.01 else !time_limit in
    ignore (Unix.setitimer Unix.ITIMER_REAL { Unix.it_interval = period; it_value = period });
    fun () ->
      ignore (Unix.setitimer Unix.ITIMER_REAL { Unix.it_interval = 0.0; it_value = 0.0 });
      Sys.set_signal Sys.sigalrm old
  in
  limited_with ~arm ~what:"--timeout" f

let memory_usage =
  "--memory MB stops a request once the heap exceeds MB megabytes (default\n\
   4096, or half of ulimit -v if less; 0: no limit) with the runtime error\n\
   out-of-memory; the input is then at most MB/4 megabytes (and 1 GiB)."

(* The flags every driver takes: [Some rest] after one of them (--help and
   --version exit), [None] when the arguments start otherwise. *)
let common_flag name usage = function
  | "--timeout" :: t :: rest -> (
      match timeout_of t with Some s -> time_limit := s; Some rest | None -> prerr_endline usage; exit 2)
  | "--memory" :: m :: rest -> (
      match int_of_string_opt m with
      | Some n when n >= 0 && n <= 1 lsl 30 -> memory_limit := n; Some rest
      | _ -> prerr_endline usage; exit 2)
  | ("-h" | "--help") :: _ -> print_endline usage; print_endline memory_usage; exit 0
  | "--version" :: _ -> print_endline (name ^ " " ^ version); exit 0
  | _ -> None

(* The command line of the driver [name]: the common flags, the flags of
   [switches] (no argument; what each sets), the flags of [options] with
   their argument (what each sets; [false] for an argument it refuses) and
   at most one FILE, which it returns.  Anything else prints [usage] and
   exits with 2. *)
let command_line name usage ~switches ~options =
  let file = ref None in
  let rec args l =
    match common_flag name usage l with
    | Some rest -> args rest
    | None -> (
        match l with
        | [] -> ()
        | f :: rest when List.mem_assoc f switches -> List.assoc f switches (); args rest
        | o :: v :: rest when List.mem_assoc o options ->
            if List.assoc o options v then args rest else (prerr_endline usage; exit 2)
        | f :: rest when String.length f > 0 && f.[0] <> '-' && !file = None -> file := Some f; args rest
        | _ -> prerr_endline usage; exit 2)
  in
  args (List.tl (Array.to_list Sys.argv));
  !file

(* A request (KEYWORD BODY) whose KEYWORD [table] lists: [Some] of its mode
   and BODY; [None] for any other request. *)
let keyword_request table = function
  | S.List [ S.Atom k; p ] when List.mem_assoc k table -> Some (List.assoc k table, p)
  | _ -> None

(* Read the whole input: FILE, or standard input. *)
let read_text file =
  try
    match file with
    | None -> read_all stdin
    | Some f ->
        let ic = open_in_bin f in
        Fun.protect ~finally:(fun () -> close_in ic) (fun () -> read_all ic)
  with Sys_error m -> bad "io" m

(* --serve: one request per line, one answer line each, until the end of
   standard input; [answer] maps a parsed request to its answer line. *)
let serve answer =
  let rec loop () =
    match next_line () with
    | `Eof -> ()
    | `Line line when String.trim line = "" -> loop ()
    | (`Line _ | `Too_long) as l ->
        let out, _ =
          guarded (fun () ->
              let line = match l with `Line line -> line | `Too_long -> too_large () in
              limited (fun () -> answer (parse_one line)))
        in
        print_endline out;
        flush stdout;
        loop ()
  in
  loop ()

(* One request from FILE or standard input: print its answer, exit with its code. *)
let answer_one file answer =
  let out, code = guarded (fun () -> let text = read_text file in limited (fun () -> answer (parse_one text))) in
  print_endline out;
  exit code

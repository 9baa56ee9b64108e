(** * The front end of [rh-eval]: reading programs, printing answers

    [rh-eval] reads S-expressions (docs/sexp-format.md).  This file turns
    them into the abstract syntax of the executable instance (instance.v)
    and turns results back into S-expressions:
    - [read_program]: names to de Bruijn indices (with their scopes),
      declared operations and locations to their indices, the dimension of
      each constant from its literal, primitives and their parameters
      within the limits ([max_nat], [max_loc_size], [max_heap_size],
      [max_depth]), the data of the initial heap checked against the
      locations' sizes; every error is a kind and a message;
    - [init_heap]: the initial heap of a program; [heap_set]: a resident
      session's [set] entries;
    - [run_obs]: the evaluator [run] with an observer called on every
      configuration (for [--trace] and [--coverage]);
    - the printers of types, terms, commands, heaps, results and errors.

    Theorems: the reader's main command is closed and every variable is
    bound ([read_program_scoped]), and every constant in it has the
    dimension of its vector ([read_program_consts]); the initial heap, and every heap a
    session's [set] entries make, respects the locations' shapes
    ([init_heap_ok], [heap_set_ok]), so a program that passes the type
    checker never goes wrong ([init_heap_not_wrong], for the small-step
    evaluator and the environment machine); [run_obs] computes [run]
    ([run_obs_run]).

    What stays in OCaml (extracted/rh_eval.ml) is passed in a record
    [reader_io]: the lexical level of atoms (a natural number as OCaml's
    [int_of_string], numbers as floats), the printing of S-expressions and
    of natural numbers.  No theorem depends on what these functions do. *)
From Coq Require Import String.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem typecheck interp progress machine instance coverage.

(** ** S-expressions (extracted to sexplib's [Sexp.t]) *)
Inductive sexp : Type :=
| SAtom (a : string)
| SList (l : list sexp).

(** The lexical level, supplied by the driver. *)
Record reader_io (V : Type) : Type := {
  (** a natural number atom ([int_of_string], non-negative) *)
  io_nat : string -> option nat;
  (** a natural number in decimal *)
  io_num : nat -> string;
  (** an S-expression on one line, cut after 300 characters ([io_show])
      or whole ([io_line]) *)
  io_show : sexp -> string;
  io_line : sexp -> string;
  (** the numbers of [(const x1 ... xn)], and the data of a location
      ([(x1 ... xn)] or [(f64 BASE64)]); they reject what is not a finite
      number *)
  io_floats : list sexp -> V;
  io_data : sexp -> V;
  (** the numbers of a vector as atoms *)
  io_atoms : V -> list sexp;
}.
Arguments io_nat {V} _ _.
Arguments io_num {V} _ _.
Arguments io_show {V} _ _.
Arguments io_line {V} _ _.
Arguments io_floats {V} _ _.
Arguments io_data {V} _ _.
Arguments io_atoms {V} _ _.

(** An error: its kind and its message. *)
Definition error : Type := string * string.

Definition rbind {A B} (r : result A error) (k : A -> result B error) : result B error :=
  match r with Ok a => k a | Err e => Err e end.
Local Notation "'do' x <- r ; k" := (rbind r (fun x => k))
  (at level 200, x ident, r at level 100, k at level 200).

(** Left to right: the first error reported is the first in the text. *)
Fixpoint mapM {A B} (f : A -> result B error) (l : list A) : result (list B) error :=
  match l with
  | [] => Ok []
  | x :: l' => do y <- f x; do ys <- mapM f l'; Ok (y :: ys)
  end.

Lemma mapM_Forall {A B} (P : B -> Prop) (f : A -> result B error) l l' :
  mapM f l = Ok l' -> (forall x y, f x = Ok y -> P y) -> Forall P l'.
Proof.
  revert l'. induction l as [|x l IH]; intros l' Hm Hf; simpl in Hm.
  - injection Hm as <-. constructor.
  - destruct (f x) as [y|e] eqn:Hx; simpl in Hm; [|discriminate].
    destruct (mapM f l) as [ys|e] eqn:Hl; simpl in Hm; [|discriminate].
    injection Hm as <-. constructor; eauto.
Qed.

Fixpoint index_of (x : string) (l : list string) : option nat :=
  match l with
  | [] => None
  | y :: l' => if String.eqb y x then Some 0 else option_map S (index_of x l')
  end.

Lemma index_of_lt x l i : index_of x l = Some i -> i < length l.
Proof.
  revert i. induction l as [|y l IH]; intros i H; simpl in H; [discriminate|].
  destruct (String.eqb y x).
  - injection H as <-. simpl. lia.
  - destruct (index_of x l) as [j|]; simpl in H; [|discriminate].
    injection H as <-. specialize (IH j eq_refl). simpl. lia.
Qed.

(** ** Limits.  Natural numbers are OCaml integers in the extracted code
    (ExtrOcamlNatInt); bounding them keeps every product the primitives
    form (at most three factors) below 2^62. *)
Definition ten : nat := 10.
Definition max_depth : nat := 2 * ten * ten * ten.
Definition max_nat : nat := ten * ten * ten * ten * ten * ten.
(** the numbers of one location, and of all of them (800 MB of float64) *)
Definition max_loc_size : nat := ten * ten * max_nat.
Definition max_heap_size : nat := max_loc_size.
(* never computed in proofs *)
Global Opaque max_depth max_nat max_loc_size max_heap_size.

Local Open Scope string_scope.

Section frontend.
Context {Vec : Type} (vo : vec_ops Vec) (io : reader_io Vec).
#[local] Instance fe_sorts : sorts := exec_sorts Vec.

(** ** Printing *)
Definition atom_n (n : nat) : sexp := SAtom (io_num io n).
Definition slist (head : string) (xs : list sexp) : sexp := SList (SAtom head :: xs).

Fixpoint ty_sexp (A : ty) : sexp :=
  match A with
  | TBase b => slist "real" [atom_n b]
  | TProd As => slist "prod" (map ty_sexp As)
  end.

Definition prim_sexp (p : prim) : sexp :=
  let l name ns := slist name (map atom_n ns) in
  match p with
  | PSwish n => l "swish" [n]
  | PSmul n => l "smul" [n]
  | PSub n => l "sub" [n]
  | PMatmul m n k => l "matmul" [m; n; k]
  | PTranspose m n => l "transpose" [m; n]
  | PRound n => l "round" [n]
  | PPad c n m => l "pad" [c; n; m]
  | PUpscale c n m => l "upscale" [c; n; m]
  | PConcat c c' n => l "concat" [c; c'; n]
  | PConv1d c c' n m => l "conv1d" [c; c'; n; m]
  | PMaxpool c n m => l "maxpool" [c; n; m]
  | PRelu n => l "relu" [n]
  | PSigmoid n => l "sigmoid" [n]
  | PTanh n => l "tanh" [n]
  | PExp n => l "exp" [n]
  | PLog n => l "log" [n]
  | PMul n => l "mul" [n]
  | PSum n => l "sum" [n]
  | PSce n => l "sce" [n]
  end.

Fixpoint wrap_rd (k : nat) (s : sexp) : sexp :=
  match k with 0 => s | S k' => wrap_rd k' (slist "rd" [s]) end.

Definition fsym_sexp (f : nat * prim) : sexp := wrap_rd (fst f) (prim_sexp (snd f)).

Definition const_sexp (c : nat * Vec) : sexp := slist "const" (io_atoms io (snd c)).

Section names.
(** The names of the declared operations and locations. *)
Variables (op_names loc_names : list string).

Definition opsym_sexp (o : opsym) : sexp :=
  match o with
  | OpUser o => SAtom (nth o op_names "")
  | OpGet l => slist "get" [SAtom (nth l loc_names "")]
  | OpPut l => slist "put" [SAtom (nth l loc_names "")]
  end.

(** Binders are printed v0, v1, ... by their depth; free variables as #i. *)
Definition fresh (env : list string) : string := "v" ++ io_num io (length env).
Definition var_name (env : list string) (i : nat) : string :=
  match nth_error env i with Some x => x | None => "#" ++ io_num io i end.

Fixpoint tm_sexp (env : list string) (M : tm) : sexp :=
  match M with
  | Var i => SAtom (var_name env i)
  | Const c => const_sexp c
  | App f N => slist "app" [fsym_sexp f; tm_sexp env N]
  | Add M1 M2 => slist "add" [tm_sexp env M1; tm_sexp env M2]
  | Tuple Ms => slist "tuple" (map (tm_sexp env) Ms)
  | Proj i N => slist "proj" [atom_n i; tm_sexp env N]
  | Let N1 N2 => let x := fresh env in slist "let" [SAtom x; tm_sexp env N1; tm_sexp (x :: env) N2]
  | Rd N1 N2 L =>
      let x := fresh env in slist "rd" [tm_sexp env N1; SAtom x; tm_sexp (x :: env) N2; tm_sexp env L]
  end.

(** The number of binders of a rev handle body is not stored (it is the
    arity of the argument's type); print as many as the body uses. *)
Fixpoint used_tm (d : nat) (M : tm) : nat :=
  match M with
  | Var i => if Nat.leb d i then i - d + 1 else 0
  | Const _ => 0
  | App _ N | Proj _ N => used_tm d N
  | Add M1 M2 => Nat.max (used_tm d M1) (used_tm d M2)
  | Tuple Ms => list_max (map (used_tm d) Ms)
  | Let N1 N2 => Nat.max (used_tm d N1) (used_tm (S d) N2)
  | Rd N1 N2 L => Nat.max (used_tm d N1) (Nat.max (used_tm (S d) N2) (used_tm d L))
  end.

Fixpoint used_cmd (d : nat) (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M | RevHandle M _ _ => used_tm d M
  | CLet P Q => Nat.max (used_cmd d P) (used_cmd (S d) Q)
  end.

Fixpoint cmd_sexp (env : list string) (P : cmd) : sexp :=
  match P with
  | Ret M => slist "ret" [tm_sexp env M]
  | Op o M => slist "op" [opsym_sexp o; tm_sexp env M]
  | CLet P Q => let x := fresh env in slist "let" [SAtom x; cmd_sexp env P; cmd_sexp (x :: env) Q]
  | RevHandle M R H =>
      let xs := map (fun i => "v" ++ io_num io i) (seq 0 (used_cmd 0 R)) in
      slist "revhandle" [tm_sexp env M; SList (map SAtom xs); cmd_sexp xs R; handler_sexp H]
  end
with handler_sexp (H : handler) : sexp :=
  match H with
  | Handler P cls => slist "handler" (SList [SAtom "return"; SAtom "x"; cmd_sexp ["x"] P] :: clauses_sexp cls)
  end
with clauses_sexp (cls : clauses) : list sexp :=
  match cls with
  | CNil => []
  | CCons o D Qf Qb rest =>
      slist "clause" [opsym_sexp o; ty_sexp D; SList [SAtom "x"; cmd_sexp ["x"] Qf];
                      SList [SAtom "y"; SAtom "z"; cmd_sexp ["y"; "z"] Qb]]
      :: clauses_sexp rest
  end.

(** The vector at location [l] ([0] if the heap does not list it). *)
Fixpoint heap_find (hp : list (nat * (nat * Vec))) (l : nat) : option (nat * Vec) :=
  match hp with
  | [] => None
  | (l', c) :: hp' => if Nat.eqb l' l then Some c else heap_find hp' l
  end.

Definition loc_value (dims : list nat) (hp : list (nat * (nat * Vec))) (l : nat) : Vec :=
  match heap_find hp l with Some c => snd c | None => v_zero vo (nth l dims 0) end.

Definition heap_sexp (dims : list nat) (hp : list (nat * (nat * Vec))) : sexp :=
  slist "heap" (map (fun ln => SList [SAtom (snd ln); SList (io_atoms io (loc_value dims hp (fst ln)))])
                    (combine (seq 0 (length loc_names)) loc_names)).

(** Type errors: the rule and the message. *)
Definition rule_str (r : rule_name) : string :=
  match r with
  | Rtyped_tm_var => "typed_tm_var"
  | Rtyped_tm_app => "typed_tm_app"
  | Rtyped_tm_add => "typed_tm_add"
  | Rtyped_tm_proj => "typed_tm_proj"
  | Rtyped_tm_rd => "typed_tm_rd"
  | Rtyped_cmd_op => "typed_cmd_op"
  | Rtyped_cmd_revhandle => "typed_cmd_revhandle"
  | Rtyped_handler_rev => "typed_handler_rev"
  | Rtyped_clauses_cons => "typed_clauses_cons"
  end.

Definition ty_opt (A : option ty) : string :=
  match A with Some A => io_line io (ty_sexp A) | None => "?" end.

Definition type_error_message (e : type_error) : string * string :=
  match e with
  | TmError r M exp found =>
      let what :=
        match r with
        | Rtyped_tm_var => "variable out of scope"
        | Rtyped_tm_app =>
            "the argument has type " ++ ty_opt found ++ ", the function symbol expects " ++ ty_opt exp
        | Rtyped_tm_add =>
            "+ needs two terms of one base type, found " ++ ty_opt exp ++ " and " ++ ty_opt found
        | Rtyped_tm_proj => "projection out of range of " ++ ty_opt found
        | Rtyped_tm_rd =>
            "the cotangent has type " ++ ty_opt found ++ ", the differentiated body has type " ++ ty_opt exp
        | _ => "ill-typed term"
        end in
      (rule_str r, what ++ " in " ++ io_show io (tm_sexp [] M))
  | CmdError r P exp found =>
      let what :=
        match r with
        | Rtyped_cmd_op =>
            "the argument has type " ++ ty_opt found ++ ", the operation's coarity is " ++ ty_opt exp
        | Rtyped_cmd_revhandle => "the argument of rev handle has type " ++ ty_opt found ++ ", not a product"
        | _ => "ill-typed command"
        end in
      (rule_str r, what ++ " in " ++ io_show io (cmd_sexp [] P))
  | ClauseError r o fwd exp found =>
      let clause :=
        match o with
        | None => "the return clause"
        | Some o =>
            "the " ++ (if fwd then "forward" else "backward") ++ " clause of " ++ io_line io (opsym_sexp o)
        end in
      (rule_str r, clause ++ " has type " ++ ty_opt found ++ ", expected " ++ ty_opt exp)
  end.

(** The answer of a run: the result, or a runtime error. *)
Definition outcome (dims : list nat) (r : run_result) : result sexp error :=
  match r with
  | RDone hp V n =>
      Ok (slist "result" [slist "value" [tm_sexp [] V]; heap_sexp dims hp; slist "steps" [atom_n n]])
  | RStuckEv _ _ f V _ =>
      Err ("ev-undefined", "Ev is undefined on " ++ io_line io (fsym_sexp f) ++ " applied to "
                           ++ io_line io (tm_sexp [] V))
  | RStuckOp _ _ o V _ =>
      Err ("unhandled-operation", "operation " ++ io_line io (opsym_sexp o) ++ " performed on "
                                  ++ io_line io (tm_sexp [] V) ++ " is handled by no handler")
  | ROutOfFuel _ _ n => Err ("out-of-fuel", "no result after " ++ io_num io n ++ " steps, the bound set by --fuel or (fuel N)")
  | RWrong _ _ _ => Err ("internal", "a well-typed configuration reached a shape that type safety excludes")
  end.
End names.

Definition tag_name (t : rule_tag) : string :=
  match t with
  | Tstep_tm_app => "head_step_tm_app" | Tstep_tm_add => "head_step_tm_add"
  | Tstep_tm_proj => "head_step_tm_proj" | Tstep_tm_let => "head_step_tm_let"
  | Tstep_tm_rd => "head_step_tm_rd" | Tstep_cmd_let_val => "step_cmd_let_val"
  | Tstep_cmd_revhandle => "step_cmd_revhandle" | Tstep_conf_get => "step_conf_get"
  | Tstep_conf_put => "step_conf_put" | Trh_ret => "rh_ret" | Trh_let_var => "rh_let_var"
  | Trh_op => "rh_op" | Trh_rev => "rh_rev" | Trh_term => "rh_term" | TR_var => "R-Var"
  | TR_varo => "R-VarO" | TR_const => "R-Const" | TR_fun => "R-Fun" | TR_add => "R-Add"
  | TR_tuple => "R-Tuple" | TR_proj => "R-Proj" | TR_let => "R-Let" | TR_rd => "R-Rd"
  | TR_rd_unrewritten => "R-Rd-unrewritten"
  end.

(** ** Reading *)
Definition fail {A} (kind msg : string) : result A error := Err (kind, msg).
Definition syntax_err {A} (what : string) (s : sexp) : result A error := fail "syntax" (what ++ io_show io s).
Definition too_deep {A} : result A error :=
  fail "too-deep" ("nesting deeper than " ++ io_num io max_depth ++ " levels").

Definition name_of (s : sexp) : result string error :=
  match s with SAtom a => Ok a | _ => syntax_err "expected a name, found " s end.

Definition nat_of (s : sexp) : result nat error :=
  match s with
  | SAtom a =>
      match io_nat io a with
      | Some n => if Nat.leb n max_nat then Ok n else fail "syntax" ("expected a natural number, found " ++ a)
      | None => fail "syntax" ("expected a natural number, found " ++ a)
      end
  | _ => syntax_err "expected a natural number, found " s
  end.

(** The readers below take a fuel [f]: the nesting they may still read
    ([max_depth] from the top); none is left is the error [too-deep]. *)
Fixpoint ty_of (f : nat) (s : sexp) : result ty error :=
  match f with
  | 0 => too_deep
  | S f' =>
      match s with
      | SList (SAtom k :: args) =>
          if String.eqb k "real" then
            match args with [n] => do n' <- nat_of n; Ok (TBase n') | _ => syntax_err "not a type: " s end
          else if String.eqb k "prod" then do As <- mapM (ty_of f') args; Ok (TProd As)
          else syntax_err "not a type: " s
      | _ => syntax_err "not a type: " s
      end
  end.

Definition prim_of (name : string) (args : list sexp) : result prim error :=
  do ns <- mapM nat_of args;
  let unknown := fun _ : unit => fail "unbound" ("unknown function symbol " ++ name ++ " with "
                                                ++ io_num io (length ns) ++ " parameters") in
  do p <- match ns with
          | [n] =>
              if String.eqb name "swish" then Ok (PSwish n)
              else if String.eqb name "smul" then Ok (PSmul n)
              else if String.eqb name "sub" then Ok (PSub n)
              else if String.eqb name "round" then Ok (PRound n)
              else if String.eqb name "relu" then Ok (PRelu n)
              else if String.eqb name "sigmoid" then Ok (PSigmoid n)
              else if String.eqb name "tanh" then Ok (PTanh n)
              else if String.eqb name "exp" then Ok (PExp n)
              else if String.eqb name "log" then Ok (PLog n)
              else if String.eqb name "mul" then Ok (PMul n)
              else if String.eqb name "sum" then Ok (PSum n)
              else if String.eqb name "sce" then Ok (PSce n)
              else unknown tt
          | [m; n] => if String.eqb name "transpose" then Ok (PTranspose m n) else unknown tt
          | [a; b; c] =>
              if String.eqb name "matmul" then Ok (PMatmul a b c)
              else if String.eqb name "pad" then Ok (PPad a b c)
              else if String.eqb name "upscale" then Ok (PUpscale a b c)
              else if String.eqb name "concat" then Ok (PConcat a b c)
              else if String.eqb name "maxpool" then Ok (PMaxpool a b c)
              else unknown tt
          | [a; b; c; d] => if String.eqb name "conv1d" then Ok (PConv1d a b c d) else unknown tt
          | _ => unknown tt
          end;
  if prim_ok p then Ok p
  else fail "shape" ("impossible parameters for " ++ io_line io (prim_sexp p)
                     ++ " (conv1d needs 0 < m <= n; maxpool and upscale need m > 0)").

(** [rd^k[f]] for [k] at most [max_fsym_level]: the type of [rd^k[f]] is a
    tree whose size grows exponentially with [k] (a Fibonacci number of
    nodes), and [Ev] is defined up to [rd²] only. *)
Definition max_fsym_level : nat := ten - 2.

Fixpoint fsym_of (f : nat) (s : sexp) : result (nat * prim) error :=
  match f with
  | 0 => too_deep
  | S f' =>
      match s with
      | SList [SAtom k; g] =>
          if String.eqb k "rd" then
            do r <- fsym_of f' g;
            if Nat.ltb max_fsym_level (S (fst r)) then
              fail "too-large" ("rd applied more than " ++ io_num io max_fsym_level
                                ++ " times to a function symbol (the size of its type grows exponentially with the level)")
            else Ok (S (fst r), snd r)
          else do p <- prim_of k [g]; Ok (0, p)
      | SList (SAtom k :: args) => do p <- prim_of k args; Ok (0, p)
      | _ => syntax_err "not a function symbol: " s
      end
  end.

(** Terms, in the scope [vars] of the names bound around them (index [i]
    for the [i]-th name); a constant's dimension is its literal's length. *)
Fixpoint tm_of (f : nat) (vars : list string) (s : sexp) : result tm error :=
  match f with
  | 0 => too_deep
  | S f' =>
      match s with
      | SAtom x =>
          match index_of x vars with
          | Some i => Ok (Var i)
          | None => fail "unbound" ("unbound variable " ++ x
                      ++ " (a rev handle body and a handler clause see only their own binders)")
          end
      | SList (SAtom k :: args) =>
          if String.eqb k "const" then let v := io_floats io args in Ok (Const (v_len vo v, v))
          else if String.eqb k "app" then
            match args with
            | [g; m] => do g' <- fsym_of f' g; do m' <- tm_of f' vars m; Ok (App g' m')
            | _ => syntax_err "not a term: " s
            end
          else if String.eqb k "add" then
            match args with
            | [a; b] => do a' <- tm_of f' vars a; do b' <- tm_of f' vars b; Ok (Add a' b')
            | _ => syntax_err "not a term: " s
            end
          else if String.eqb k "tuple" then do ms <- mapM (tm_of f' vars) args; Ok (Tuple ms)
          else if String.eqb k "proj" then
            match args with
            | [i; m] => do i' <- nat_of i; do m' <- tm_of f' vars m; Ok (Proj i' m')
            | _ => syntax_err "not a term: " s
            end
          else if String.eqb k "let" then
            match args with
            | [x; m; n] =>
                do x' <- name_of x; do m' <- tm_of f' vars m; do n' <- tm_of f' (x' :: vars) n;
                Ok (Let m' n')
            | _ => syntax_err "not a term: " s
            end
          else if String.eqb k "rd" then
            match args with
            | [m; x; n; l] =>
                do m' <- tm_of f' vars m; do x' <- name_of x; do n' <- tm_of f' (x' :: vars) n;
                do l' <- tm_of f' vars l; Ok (Rd m' n' l')
            | _ => syntax_err "not a term: " s
            end
          else syntax_err "not a term: " s
      | _ => syntax_err "not a term: " s
      end
  end.

Section decls.
(** The declared operations and locations, by name. *)
Variables (ops locs : list string).

Definition loc_of (s : sexp) : result nat error :=
  do l <- name_of s;
  match index_of l locs with Some i => Ok i | None => fail "unbound" ("unknown location " ++ l) end.

Definition opsym_of (s : sexp) : result opsym error :=
  match s with
  | SAtom o =>
      match index_of o ops with
      | Some i => Ok (OpUser i)
      | None => fail "unbound" ("unknown operation " ++ o)
      end
  | SList [SAtom k; l] =>
      if String.eqb k "get" then do i <- loc_of l; Ok (OpGet i)
      else if String.eqb k "put" then do i <- loc_of l; Ok (OpPut i)
      else syntax_err "not an operation: " s
  | _ => syntax_err "not an operation: " s
  end.

Definition mk_clauses (cls : list (opsym * ty * cmd * cmd)) : clauses :=
  fold_right (fun c rest => let '(o, D, Qf, Qb) := c in CCons o D Qf Qb rest) CNil cls.

Fixpoint cmd_of (f : nat) (vars : list string) (s : sexp) {struct f} : result cmd error :=
  match f with
  | 0 => too_deep
  | S f' =>
      match s with
      | SList (SAtom k :: args) =>
          if String.eqb k "ret" then
            match args with [m] => do m' <- tm_of f' vars m; Ok (Ret m') | _ => syntax_err "not a command: " s end
          else if String.eqb k "op" then
            match args with
            | [o; m] => do o' <- opsym_of o; do m' <- tm_of f' vars m; Ok (Op o' m')
            | _ => syntax_err "not a command: " s
            end
          else if String.eqb k "let" then
            match args with
            | [x; p; q] =>
                do x' <- name_of x; do p' <- cmd_of f' vars p; do q' <- cmd_of f' (x' :: vars) q;
                Ok (CLet p' q')
            | _ => syntax_err "not a command: " s
            end
          else if String.eqb k "revhandle" then
            match args with
            | [m; SList xs; r; h] =>
                do m' <- tm_of f' vars m; do xs' <- mapM name_of xs; do r' <- cmd_of f' xs' r;
                do h' <- handler_of f' h; Ok (RevHandle m' r' h')
            | _ => syntax_err "not a command: " s
            end
          else syntax_err "not a command: " s
      | _ => syntax_err "not a command: " s
      end
  end
with handler_of (f : nat) (s : sexp) {struct f} : result handler error :=
  match f with
  | 0 => too_deep
  | S f' =>
      match s with
      | SList (SAtom k :: SList [SAtom r; x; p] :: cls) =>
          if String.eqb k "handler" && String.eqb r "return" then
            do x' <- name_of x; do p' <- cmd_of f' [x'] p;
            do cls' <- mapM (fun c =>
                match c with
                | SList [SAtom k; o; d; SList [x; qf]; SList [y; z; qb]] =>
                    if String.eqb k "clause" then
                      do o' <- opsym_of o; do d' <- ty_of f' d; do x' <- name_of x;
                      do qf' <- cmd_of f' [x'] qf; do y' <- name_of y; do z' <- name_of z;
                      do qb' <- cmd_of f' [y'; z'] qb; Ok (o', d', qf', qb')
                    else syntax_err "not a handler clause: " c
                | _ => syntax_err "not a handler clause: " c
                end) cls;
            Ok (Handler p' (mk_clauses cls'))
          else syntax_err "not a handler: " s
      | _ => syntax_err "not a handler: " s
      end
  end.
End decls.

(** ** Programs *)
Record program : Type := {
  p_ops : list string;
  p_decls : list (ty * ty);
  p_locs : list string;
  p_dims : list nat;
  (** the data the program gives, by location index *)
  p_given : list (nat * Vec);
  p_main : cmd;
  p_fuel : option nat;
}.

Definition field_name (s : sexp) : option string :=
  match s with SList (SAtom n :: _) => Some n | _ => None end.

Definition field (fields : list sexp) (name : string) : result (list sexp) error :=
  match filter (fun s => match field_name s with Some n => String.eqb n name | None => false end) fields with
  | [] => Ok []
  | [SList (_ :: body)] => Ok body
  | _ => fail "syntax" ("field " ++ name ++ " given twice")
  end.

Definition field_opt (fields : list sexp) (name : string) : result (option (list sexp)) error :=
  match filter (fun s => match field_name s with Some n => String.eqb n name | None => false end) fields with
  | [] => Ok None
  | [SList (_ :: body)] => Ok (Some body)
  | _ => fail "syntax" ("field " ++ name ++ " given twice")
  end.

Fixpoint known_fields (fields : list sexp) : result unit error :=
  match fields with
  | [] => Ok tt
  | s :: rest =>
      match field_name s with
      | Some n =>
          if existsb (String.eqb n) ["ops"; "locs"; "heap"; "main"; "fuel"] then known_fields rest
          else syntax_err "unknown program field " s
      | None => syntax_err "unknown program field " s
      end
  end.

Fixpoint distinct (what : string) (seen names : list string) : result unit error :=
  match names with
  | [] => Ok tt
  | n :: rest =>
      if existsb (String.eqb n) seen then fail "syntax" (what ++ " " ++ n ++ " declared twice")
      else distinct what (n :: seen) rest
  end.

Definition op_decl (s : sexp) : result (string * (ty * ty)) error :=
  match s with
  | SList [SAtom o; a; b] => do a' <- ty_of max_depth a; do b' <- ty_of max_depth b; Ok (o, (a', b'))
  | _ => syntax_err "an operation is declared as (NAME COARITY ARITY), found " s
  end.

(** The size of a location is the product of its dimensions (the product
    stops growing past [max_loc_size]). *)
Fixpoint loc_size (acc : nat) (dims : list sexp) : result nat error :=
  match dims with
  | [] => Ok acc
  | n :: rest => do k <- nat_of n; loc_size (if Nat.ltb max_loc_size acc then acc else acc * k) rest
  end.

Definition loc_decl (s : sexp) : result (string * nat) error :=
  match s with
  | SList [SAtom l; SList dims] =>
      do size <- loc_size 1 dims;
      if Nat.ltb max_loc_size size then
        fail "shape" ("location " ++ l ++ " holds more than " ++ io_num io max_loc_size ++ " numbers")
      else Ok (l, size)
  | _ => syntax_err "a location is declared as (NAME (n1 ... nt)), found " s
  end.

(** An entry [(LOC DATA)] of the heap or of a session's [set]: the
    location's index and its numbers, as many as its size. *)
Definition entry_of (locs : list string) (dims : list nat) (unknown what : string) (s : sexp)
    : result (nat * Vec) error :=
  match s with
  | SList [SAtom l; data] =>
      match index_of l locs with
      | None => fail "unbound" ("unknown location " ++ l ++ unknown)
      | Some i =>
          let v := io_data io data in
          let d := nth i dims 0 in
          if Nat.eqb (v_len vo v) d then Ok (i, v)
          else fail "shape" ("location " ++ l ++ " holds " ++ io_num io d ++ " numbers, the data gives "
                             ++ io_num io (v_len vo v))
      end
  | _ => syntax_err what s
  end.

Definition read_fields (fields : list sexp) : result program error :=
  do _u <- known_fields fields;
  do ofs <- field fields "ops";
  do ops <- mapM op_decl ofs;
  do lfs <- field fields "locs";
  do locs <- mapM loc_decl lfs;
  do _u <- distinct "operation" [] (map fst ops);
  do _u <- distinct "location" [] (map fst locs);
  let total := fold_left (fun a n => a + n) (map snd locs) 0 in
  if Nat.ltb max_heap_size total then
    fail "shape" ("the locations hold " ++ io_num io total ++ " numbers in all, more than the "
                  ++ io_num io max_heap_size ++ " a heap may hold")
  else
  let lnames := map fst locs in
  let dims := map snd locs in
  do hfs <- field fields "heap";
  do given <- mapM (entry_of lnames dims " in the heap" "a heap entry is (NAME (x1 ... xn)), found ") hfs;
  do _u <- distinct "heap entry for location" [] (map (fun e => nth (fst e) lnames "") given);
  do mfs <- field_opt fields "main";
  do main <- match mfs with
             | Some [c] => cmd_of (map fst ops) lnames max_depth [] c
             | _ => fail "syntax" "a program needs exactly one (main COMMAND)"
             end;
  do ffs <- field_opt fields "fuel";
  do fuel <- match ffs with
             | None => Ok None
             | Some [n] => do n' <- nat_of n; Ok (Some n')
             | Some _ => fail "syntax" "(fuel N)"
             end;
  Ok {| p_ops := map fst ops; p_decls := map snd ops; p_locs := lnames; p_dims := dims;
        p_given := given; p_main := main; p_fuel := fuel |}.

Definition read_program (s : sexp) : result program error :=
  match s with
  | SList (SAtom k :: fields) =>
      if String.eqb k "program" then read_fields fields
      else fail "syntax" "a program is (program (ops ...) (locs ...) (heap ...) (main COMMAND))"
  | _ => fail "syntax" "a program is (program (ops ...) (locs ...) (heap ...) (main COMMAND))"
  end.

(** ** The heap: every location holds the data the program gives, or [0]. *)
Fixpoint given_at (given : list (nat * Vec)) (i : nat) : option Vec :=
  match given with
  | [] => None
  | (j, v) :: rest => if Nat.eqb j i then Some v else given_at rest i
  end.

Fixpoint heap_from (given : list (nat * Vec)) (i : nat) (dims : list nat) : list (nat * (nat * Vec)) :=
  match dims with
  | [] => []
  | d :: ds =>
      (i, (d, match given_at given i with Some v => v | None => v_zero vo d end)) :: heap_from given (S i) ds
  end.

Definition init_heap (p : program) : list (nat * (nat * Vec)) := heap_from (p_given p) 0 (p_dims p).

(** A session's [(set (LOC DATA) ...)]: each entry replaces the location's
    vector, as [Put] does ([heap_update]). *)
Fixpoint heap_set (p : program) (hp : list (nat * (nat * Vec))) (entries : list sexp)
    : result (list (nat * (nat * Vec))) error :=
  match entries with
  | [] => Ok hp
  | e :: rest =>
      do iv <- entry_of (p_locs p) (p_dims p) "" "a set entry is (LOC DATA), found " e;
      heap_set p ((fst iv, (nth (fst iv) (p_dims p) 0, snd iv))
                  :: filter (fun lc => negb (Nat.eqb (fst iv) (fst lc))) hp) rest
  end.

(** ** Theorems *)

(** Scopes: [scoped_tm n M] (syntax.v) when every free variable of [M]
    is below [n]; a rev handle body is closed but for its own binders, a
    handler's clauses but for theirs (one for [Q^f] and the return clause,
    two for [Q^b]). *)

Inductive scoped_cmd : nat -> cmd -> Prop :=
| sc_ret n M : scoped_tm n M = true -> scoped_cmd n (Ret M)
| sc_op n o M : scoped_tm n M = true -> scoped_cmd n (Op o M)
| sc_let n P Q : scoped_cmd n P -> scoped_cmd (S n) Q -> scoped_cmd n (CLet P Q)
| sc_rev n k M R H : scoped_tm n M = true -> scoped_cmd k R -> scoped_handler H ->
    scoped_cmd n (RevHandle M R H)
with scoped_handler : handler -> Prop :=
| sh_handler P cls : scoped_cmd 1 P -> scoped_clauses cls -> scoped_handler (Handler P cls)
with scoped_clauses : clauses -> Prop :=
| scl_nil : scoped_clauses CNil
| scl_cons o D Qf Qb rest : scoped_cmd 1 Qf -> scoped_cmd 2 Qb -> scoped_clauses rest ->
    scoped_clauses (CCons o D Qf Qb rest).

Ltac ok_inv :=
  repeat match goal with
  | H : rbind ?r _ = Ok _ |- _ =>
      let E := fresh "E" in destruct r eqn:E; simpl in H; [|discriminate H]
  | H : Err _ = Ok _ |- _ => discriminate H
  | H : too_deep = Ok _ |- _ => discriminate H
  | H : syntax_err _ _ = Ok _ |- _ => discriminate H
  | H : fail _ _ = Ok _ |- _ => discriminate H
  | H : Ok _ = Ok _ |- _ => injection H; clear H; intros; subst
  | H : (if ?b then _ else _) = Ok _ |- _ => let E := fresh "E" in destruct b eqn:E
  | H : match ?x with _ => _ end = Ok _ |- _ => let E := fresh "E" in destruct x eqn:E
  end.

Lemma tm_of_scoped f vars s M : tm_of f vars s = Ok M -> scoped_tm (length vars) M = true.
Proof.
  revert vars s M. induction f as [|f IH]; intros vars s M H; simpl in H; [discriminate|].
  ok_inv; simpl;
    repeat match goal with
    | H : tm_of f _ _ = Ok _ |- _ => apply IH in H; simpl in H
    end;
    rewrite ?andb_true_iff; repeat split; auto.
  all: try solve [apply Nat.ltb_lt; eapply index_of_lt; eassumption].
  apply forallb_forall. intros x Hx.
  match goal with H : mapM _ _ = Ok _ |- _ =>
    pose proof (mapM_Forall (fun M => scoped_tm (length vars) M = true) _ _ _ H
                  (fun _ _ H => IH _ _ _ H)) as HF end.
  rewrite Forall_forall in HF. auto.
Qed.

Lemma mapM_length {A B} (f : A -> result B error) l l' : mapM f l = Ok l' -> length l' = length l.
Proof.
  revert l'. induction l as [|x l IH]; intros l' H; simpl in H.
  - injection H as <-. reflexivity.
  - ok_inv. simpl. f_equal. auto.
Qed.

Lemma mk_clauses_scoped cls :
  Forall (fun c => let '(o, D, Qf, Qb) := c in scoped_cmd 1 Qf /\ scoped_cmd 2 Qb) cls ->
  scoped_clauses (mk_clauses cls).
Proof.
  induction 1 as [|[[[o D] Qf] Qb] cls [HQf HQb] _ IH]; simpl; constructor; auto.
Qed.

Lemma cmd_of_scoped ops locs f :
  (forall vars s P, cmd_of ops locs f vars s = Ok P -> scoped_cmd (length vars) P) /\
  (forall s H, handler_of ops locs f s = Ok H -> scoped_handler H).
Proof.
  induction f as [|f [IHc IHh]]; split; intros; simpl in *; try discriminate.
  - ok_inv; repeat match goal with
    | H : tm_of _ _ _ = Ok _ |- _ => apply tm_of_scoped in H
    | H : cmd_of _ _ _ _ _ = Ok _ |- _ => apply IHc in H
    | H : handler_of _ _ _ _ = Ok _ |- _ => apply IHh in H
    end; econstructor; eauto.
  - match goal with H : handler_of _ _ _ _ = Ok _ |- _ => cbn -[cmd_of mapM rbind] in H end.
    fold (cmd_of ops locs) in *.
    ok_inv. constructor.
    + match goal with H : cmd_of _ _ _ _ _ = Ok _ |- _ => apply IHc in H; exact H end.
    + apply mk_clauses_scoped.
      eapply mapM_Forall; [eassumption|]. intros c [[[o D] Qf] Qb] Hc. cbv beta in Hc.
      ok_inv. split;
      match goal with H : cmd_of _ _ _ ?xs _ = Ok ?Q |- scoped_cmd (length ?xs) ?Q => apply IHc in H; exact H
      | H : cmd_of _ _ _ [_] _ = Ok ?Q |- scoped_cmd 1 ?Q => apply IHc in H; exact H
      | H : cmd_of _ _ _ [_; _] _ = Ok ?Q |- scoped_cmd 2 ?Q => apply IHc in H; exact H end.
Qed.

Theorem read_program_scoped s p : read_program s = Ok p -> scoped_cmd 0 (p_main p).
Proof.
  unfold read_program, read_fields. intros H.
  destruct s as [|[|[k|] fields]]; try discriminate.
  destruct (String.eqb k "program"); [|discriminate].
  ok_inv; try discriminate.
  all: simpl; match goal with H : cmd_of _ _ _ [] _ = Ok _ |- _ => apply (proj1 (cmd_of_scoped _ _ _)) in H; exact H end.
Qed.

(** Constants: the dimension of every constant is its vector's length. *)
Fixpoint consts_tm (M : tm) : bool :=
  match M with
  | Var _ => true
  | Const c => Nat.eqb (fst c) (v_len vo (snd c))
  | App _ N | Proj _ N => consts_tm N
  | Add M1 M2 | Let M1 M2 => consts_tm M1 && consts_tm M2
  | Tuple Ms => forallb consts_tm Ms
  | Rd N1 N2 L => consts_tm N1 && consts_tm N2 && consts_tm L
  end.

Fixpoint consts_cmd (P : cmd) : bool :=
  match P with
  | Ret M | Op _ M => consts_tm M
  | CLet P Q => consts_cmd P && consts_cmd Q
  | RevHandle M R H => consts_tm M && consts_cmd R && consts_handler H
  end
with consts_handler (H : handler) : bool :=
  match H with Handler P cls => consts_cmd P && consts_clauses cls end
with consts_clauses (cls : clauses) : bool :=
  match cls with
  | CNil => true
  | CCons _ _ Qf Qb rest => consts_cmd Qf && consts_cmd Qb && consts_clauses rest
  end.

Lemma tm_of_consts f vars s M : tm_of f vars s = Ok M -> consts_tm M = true.
Proof.
  revert vars s M. induction f as [|f IH]; intros vars s M H; simpl in H; [discriminate|].
  ok_inv; simpl;
    repeat match goal with
    | H : tm_of f _ _ = Ok _ |- _ => apply IH in H
    end;
    rewrite ?andb_true_iff; repeat split; auto.
  all: try solve [apply Nat.eqb_refl].
  apply forallb_forall. intros x Hx.
  match goal with H : mapM _ _ = Ok _ |- _ =>
    pose proof (mapM_Forall (fun M => consts_tm M = true) _ _ _ H
                  (fun _ _ H => IH _ _ _ H)) as HF end.
  rewrite Forall_forall in HF. auto.
Qed.

Lemma mk_clauses_consts cls :
  Forall (fun c => let '(o, D, Qf, Qb) := c in consts_cmd Qf = true /\ consts_cmd Qb = true) cls ->
  consts_clauses (mk_clauses cls) = true.
Proof.
  induction 1 as [|[[[o D] Qf] Qb] cls [HQf HQb] _ IH]; simpl; auto.
  rewrite HQf, HQb, IH. reflexivity.
Qed.

Lemma cmd_of_consts ops locs f :
  (forall vars s P, cmd_of ops locs f vars s = Ok P -> consts_cmd P = true) /\
  (forall s H, handler_of ops locs f s = Ok H -> consts_handler H = true).
Proof.
  induction f as [|f [IHc IHh]]; split; intros; simpl in *; try discriminate.
  - ok_inv; repeat match goal with
    | H : tm_of _ _ _ = Ok _ |- _ => apply tm_of_consts in H
    | H : cmd_of _ _ _ _ _ = Ok _ |- _ => apply IHc in H
    | H : handler_of _ _ _ _ = Ok _ |- _ => apply IHh in H
    end; simpl; rewrite ?andb_true_iff; repeat split; auto.
  - match goal with H : handler_of _ _ _ _ = Ok _ |- _ => cbn -[cmd_of mapM rbind] in H end.
    fold (cmd_of ops locs) in *.
    ok_inv. simpl. rewrite andb_true_iff. split.
    + match goal with H : cmd_of _ _ _ _ _ = Ok _ |- _ => apply IHc in H; exact H end.
    + apply mk_clauses_consts.
      eapply mapM_Forall; [eassumption|]. intros c [[[o D] Qf] Qb] Hc. cbv beta in Hc.
      ok_inv. split;
      match goal with H : cmd_of _ _ _ _ _ = Ok ?Q |- consts_cmd ?Q = true => apply IHc in H; exact H end.
Qed.

(** The reader's main command is well scoped, and every constant in it
    has the dimension of its vector. *)
Theorem read_program_consts s p : read_program s = Ok p -> consts_cmd (p_main p) = true.
Proof.
  unfold read_program, read_fields. intros H.
  destruct s as [|[|[k|] fields]]; try discriminate.
  destruct (String.eqb k "program"); [|discriminate].
  ok_inv; try discriminate.
  all: simpl; match goal with H : cmd_of _ _ _ [] _ = Ok _ |- _ => apply (proj1 (cmd_of_consts _ _ _)) in H; exact H end.
Qed.

Lemma heap_from_ok decls given ds pre :
  @heap_ok _ (exec_signature vo decls (app pre ds)) (heap_from given (length pre) ds).
Proof.
  revert pre. induction ds as [|d ds IH]; intros pre; simpl; constructor.
  - simpl. rewrite app_nth2 by lia. rewrite Nat.sub_diag. reflexivity.
  - specialize (IH (app pre [d])). rewrite <- app_assoc, app_length in IH. simpl in IH.
    rewrite Nat.add_1_r in IH. exact IH.
Qed.

(** The initial heap respects the shapes of the locations. *)
Theorem init_heap_ok p : @heap_ok _ (exec_signature vo (p_decls p) (p_dims p)) (init_heap p).
Proof. apply (heap_from_ok _ _ _ []). Qed.

(** So does every heap a session's [set] entries make from one that does. *)
Theorem heap_set_ok p hp es hp' :
  @heap_ok _ (exec_signature vo (p_decls p) (p_dims p)) hp ->
  heap_set p hp es = Ok hp' ->
  @heap_ok _ (exec_signature vo (p_decls p) (p_dims p)) hp'.
Proof.
  revert hp. induction es as [|e es IH]; intros hp Hhp H; simpl in H.
  - injection H as <-. exact Hhp.
  - ok_inv. refine (IH _ _ H). unfold heap_ok in *. constructor; [reflexivity|].
    apply Forall_forall. intros x Hx. apply filter_In in Hx.
    rewrite Forall_forall in Hhp. apply Hhp, Hx.
Qed.

(** A program the type checker accepts never goes wrong from its initial
    heap: [run_not_wrong] with its hypothesis [heap_ok] discharged. *)
Theorem init_heap_not_wrong p A fuel :
  @check_cmd _ (exec_signature vo (p_decls p) (p_dims p)) [] (p_main p) = Ok A ->
  match @run _ (exec_signature vo (p_decls p) (p_dims p)) (exec_evaluator vo) fuel 0 (init_heap p) (p_main p)
  with RWrong _ _ _ => False | _ => True end.
Proof.
  intros Hc. apply check_cmd_correct in Hc.
  exact (@run_not_wrong _ _ _ (exec_evaluator_ok vo (p_decls p) (p_dims p)) fuel 0 _ _ A (init_heap_ok p) Hc).
Qed.

Corollary init_heap_not_wrong_machine p A fuel :
  @check_cmd _ (exec_signature vo (p_decls p) (p_dims p)) [] (p_main p) = Ok A ->
  match @run_machine _ (exec_signature vo (p_decls p) (p_dims p)) (exec_evaluator vo) fuel 0 (init_heap p) (p_main p)
  with RWrong _ _ _ => False | _ => True end.
Proof. rewrite run_machine_correct. apply init_heap_not_wrong. Qed.

End frontend.

(** ** The evaluator with an observer (for [--trace] and [--coverage]):
    [obs acc n hp P fuel] is called on every configuration [run] visits,
    before its step; the result is [run]'s. *)
Section observe.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Fixpoint run_obs {A : Type} (obs : A -> nat -> heap -> cmd -> nat -> A) (acc : A)
    (fuel n : nat) (hp : heap) (P : cmd) {struct fuel} : A * run_result :=
  let acc' := obs acc n hp P fuel in
  match fuel with
  | 0 => (acc', ROutOfFuel hp P n)
  | S fuel' =>
      match step_conf_fn fuel hp P with
      | CSStep hp' P' => run_obs obs acc' fuel' (S n) hp' P'
      | CSDone V => (acc', RDone hp V n)
      | CSStuckEv f V => (acc', RStuckEv hp P f V n)
      | CSStuckOp o V => (acc', RStuckOp hp P o V n)
      | CSNoFuel => (acc', ROutOfFuel hp P n)
      | CSWrong => (acc', RWrong hp P n)
      end
  end.

Theorem run_obs_run {A} (obs : A -> nat -> heap -> cmd -> nat -> A) acc fuel n hp P :
  snd (run_obs obs acc fuel n hp P) = run fuel n hp P.
Proof.
  revert acc n hp P. induction fuel as [|fuel IH]; intros acc n hp P; simpl; [reflexivity|].
  destruct (step_conf_fn (S fuel) hp P); simpl; auto.
Qed.
End observe.

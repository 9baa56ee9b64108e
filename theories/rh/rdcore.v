(** * A core of vector programs closed under reverse differentiation

    The executable instance's [Σ_fun] must be closed under [rd]: with a
    function symbol [f], [rd[f]] and then [rd²[f]], [rd³[f]], … must have
    an [Ev].  This file gives the construction that makes it so for every
    order (docs/decisions.md, "rd of every order"):

    - a primitive's forward map is written once, as a straight-line
      program [cprog] over the vector operations [cop] of the instance
      (instance.v, [prim_core]);
    - [rd_prog P] is the reverse-mode program of [P]: it takes [P]'s
      inputs followed by one cotangent per output and returns one
      adjoint per input, the transposed Jacobian of [P] applied to the
      cotangents.  It is again a [cprog]: every operation's
      vector–Jacobian product ([vjp]) and every elementwise function's
      derivative ([efun_d]) is written with the operations of the core;
    - [rd^k[p]] is [Nat.iter k rd_prog (prim_core p)] ([core_prog],
      instance.v).

    The programs are data: [eval_cprog] runs one with any interpretation
    of the operations; the instance gives the vector model's
    ([cop_eval], instance.v), so the list model and the float arrays of
    [rh-eval] compute the same thing operation by operation.

    Variables are numbered: the inputs [0 … n−1], then one per
    instruction, in order.  A body refers only to earlier variables
    ([rd_prog] keeps this); [eval_cprog] of a program that does not is
    still defined (a missing variable reads as the default). *)
From RevHandlers Require Import prelude.

(** ** Elementwise functions and vector operations *)

(** The elementwise functions of the vector interface ([v_swish],
    [v_swish1], …, instance.v): [f], [f'] and [f''] for the smooth
    primitives, [relu] and its step, [round]. *)
Inductive efun : Type :=
| ESwish | ESwish1 | ESwish2 | ERound | ERelu | ERelu1
| ESigm | ESigm1 | ESigm2 | ETanh | ETanh1 | ETanh2
| EExp | ELog | ELog1 | ELog2.

(** One constructor per operation of the vector interface, with its
    parameters. *)
Inductive cop : Type :=
| OZero (n : nat)                   (** [[] → n] *)
| OAdd | OSub | OMul                (** [[u; v] → |u|] *)
| ONeg                              (** [[u] → |u|] *)
| OScale                            (** [[a; v] → |v|], [a₀·v] *)
| ODot                              (** [[u; v] → 1] *)
| OMap (f : efun)                   (** [[x] → |x|] *)
| OSum                              (** [[v] → 1] *)
| OBcast (n : nat)                  (** [[a] → n] *)
| OSoftmax                          (** [[z] → |z|] *)
| OLse                              (** [[z] → 1] *)
| OMatmul (m n k : nat)
| OTranspose (m n : nat)
| OPad (c n m : nat)
| OUpscale (c n m : nat)
| OUpscaleAdj (c n m : nat)
| OConv (c c' n m : nat)
| OConvDK (c c' n m : nat)
| OConvDx (c c' n m : nat)
| OMaxpool (c n m : nat)
| OMaxpoolAdj (c n m : nat)
| OMaxpoolGather (c n m : nat)
| OAppend
| OFirstn (k : nat)
| OSkipn (k : nat).

(** The length of an operation's result from those of its arguments. *)
Definition cop_dim (o : cop) (ds : list nat) : nat :=
  let d0 := nth 0 ds 0 in
  let d1 := nth 1 ds 0 in
  match o with
  | OZero n | OBcast n => n
  | OAdd | OSub | OMul | ONeg | OMap _ | OSoftmax => d0
  | OScale => d1
  | ODot | OSum | OLse => 1
  | OMatmul m _ k => m * k
  | OTranspose m n => n * m
  | OPad c _ m | OUpscale c _ m => c * m
  | OUpscaleAdj c n _ => c * n
  | OConv _ c' n m => c' * (n - m + 1)
  | OConvDK c c' _ m => c' * c * m
  | OConvDx c _ n _ => c * n
  | OMaxpool c n m | OMaxpoolGather c n m => c * ((n + m - 1) / m)
  | OMaxpoolAdj c n _ => c * n
  | OAppend => d0 + d1
  | OFirstn k => k
  | OSkipn k => d0 - k
  end.

(** ** Programs *)

(** [cp_dims]: the lengths of the inputs; [cp_body]: the instructions, an
    operation and the variables it reads; [cp_out]: the variables
    returned. *)
Record cprog : Type := {
  cp_dims : list nat;
  cp_body : list (cop * list nat);
  cp_out : list nat;
}.

Definition cprog_size (P : cprog) : nat := length (cp_body P).

Section eval.
Context {V : Type} (ci : cop -> list V -> V) (dflt : V).

(** [env] holds the [n] variables computed so far, the last first. *)
Fixpoint eval_body (n : nat) (env : list V) (body : list (cop * list nat)) : list V :=
  match body with
  | [] => env
  | (o, args) :: body' =>
      eval_body (S n) (ci o (map (fun i => nth (n - 1 - i) env dflt) args) :: env) body'
  end.

Definition eval_cprog (P : cprog) (xs : list V) : list V :=
  let n := length xs + length (cp_body P) in
  let env := eval_body (length xs) (rev xs) (cp_body P) in
  map (fun i => nth (n - 1 - i) env dflt) (cp_out P).

(** One output per variable returned. *)
Lemma eval_cprog_length P xs : length (eval_cprog P xs) = length (cp_out P).
Proof. unfold eval_cprog. apply map_length. Qed.
End eval.

(** ** Reverse differentiation *)

(** Expressions over variables, compiled into instructions by [emit]. *)
Inductive rexp : Type :=
| RV (i : nat)
| RO (o : cop) (es : list rexp).

(** The instructions emitted so far (the last first) and the next
    variable. *)
Record bstate : Type := { bs_next : nat; bs_acc : list (cop * list nat) }.

Fixpoint emit (e : rexp) (s : bstate) {struct e} : nat * bstate :=
  match e with
  | RV i => (i, s)
  | RO o es =>
      let '(is, s1) :=
        (fix go (es : list rexp) (s : bstate) : list nat * bstate :=
           match es with
           | [] => ([], s)
           | e :: es' => let '(i, s1) := emit e s in
                         let '(is, s2) := go es' s1 in (i :: is, s2)
           end) es s in
      (bs_next s1, {| bs_next := S (bs_next s1); bs_acc := (o, is) :: bs_acc s1 |})
  end.

Definition rmap (f : efun) (x : rexp) : rexp := RO (OMap f) [x].
Definition radd (a b : rexp) : rexp := RO OAdd [a; b].
Definition rmul (a b : rexp) : rexp := RO OMul [a; b].
Definition rtwice (a : rexp) : rexp := radd a a.

(** [σ'''] from [σ], [σ'], [σ'']: [σ'' = σ' − 2σσ'], so
    [σ''' = σ'' − 2(σ'σ' + σσ'')]. *)
Definition sigm3 (x : rexp) : rexp :=
  RO OSub [rmap ESigm2 x; rtwice (radd (rmul (rmap ESigm1 x) (rmap ESigm1 x))
                                      (rmul (rmap ESigm x) (rmap ESigm2 x)))].

(** The derivative of an elementwise function at [x] (whose value is [y]),
    with the core's operations; [None] for the zero derivative.
    - [swish = xσ], [swish' = σ + xσ'], [swish'' = 2σ' + xσ''],
      so [swish''' = 3σ'' + xσ'''];
    - [tanh'' = −2·tanh·tanh'], so [tanh''' = −2(tanh'·tanh' + tanh·tanh'')];
    - [log' = r = 1/x], [log'' = −r²], so [log''' = −2·r·log''];
    - [exp' = exp] (the value [y]); [relu' = step], [step' = 0],
      [round' = 0] (decisions.md item 10). *)
Definition efun_d (f : efun) (x y : rexp) : option rexp :=
  match f with
  | ESwish => Some (rmap ESwish1 x)
  | ESwish1 => Some (rmap ESwish2 x)
  | ESwish2 => Some (radd (radd (rtwice (rmap ESigm2 x)) (rmap ESigm2 x)) (rmul x (sigm3 x)))
  | ERound => None
  | ERelu => Some (rmap ERelu1 x)
  | ERelu1 => None
  | ESigm => Some (rmap ESigm1 x)
  | ESigm1 => Some (rmap ESigm2 x)
  | ESigm2 => Some (sigm3 x)
  | ETanh => Some (rmap ETanh1 x)
  | ETanh1 => Some (rmap ETanh2 x)
  | ETanh2 => Some (RO ONeg [rtwice (radd (rmul (rmap ETanh1 x) (rmap ETanh1 x))
                                          (rmul (rmap ETanh x) (rmap ETanh2 x)))])
  | EExp => Some y
  | ELog => Some (rmap ELog1 x)
  | ELog1 => Some (rmap ELog2 x)
  | ELog2 => Some (RO ONeg [rtwice (rmul (rmap ELog1 x) (rmap ELog2 x))])
  end.

(** The vector–Jacobian product of one instruction: for [y = o(args)]
    with cotangent [g], the contribution to each argument's adjoint
    ([None]: zero).  [as_] are the arguments' variables, [ds] their
    lengths, [y] the result's variable.  The adjoints of the bilinear
    operations are the other two of each triple
    [(conv1d, conv1d_dK, conv1d_dx)], [(maxpool_adj, maxpool_gather)]:
    [⟨conv1d(K, x), g⟩ = ⟨K, conv1d_dK(g, x)⟩ = ⟨x, conv1d_dx(K, g)⟩];
    [maxpool] is linear on the region where its argmax does not change
    (its derivative in [x] through the argmax is zero, as in the kernels
    of instance.v). *)
Definition vjp (o : cop) (as_ : list nat) (ds : list nat) (y g : nat) : list (option rexp) :=
  let a := RV (nth 0 as_ 0) in
  let b := RV (nth 1 as_ 0) in
  let G := RV g in
  let Y := RV y in
  match o with
  | OZero _ => []
  | OAdd => [Some G; Some G]
  | OSub => [Some G; Some (RO ONeg [G])]
  | OMul => [Some (rmul G b); Some (rmul a G)]
  | ONeg => [Some (RO ONeg [G])]
  | OScale => [Some (RO ODot [G; b]); Some (RO OScale [a; G])]
  | ODot => [Some (RO OScale [G; b]); Some (RO OScale [G; a])]
  | OMap f => [option_map (fun d => rmul G d) (efun_d f a Y)]
  | OSum => [Some (RO (OBcast (nth 0 ds 0)) [G])]
  | OBcast _ => [Some (RO OSum [G])]
  | OSoftmax => [Some (RO OSub [rmul Y G; RO OScale [RO ODot [Y; G]; Y]])]
  | OLse => [Some (RO OScale [G; RO OSoftmax [a]])]
  | OMatmul m n k =>
      [Some (RO (OMatmul m k n) [G; RO (OTranspose n k) [b]]);
       Some (RO (OMatmul n m k) [RO (OTranspose m n) [a]; G])]
  | OTranspose m n => [Some (RO (OTranspose n m) [G])]
  | OPad c n m => [Some (RO (OPad c m n) [G])]
  | OUpscale c n m => [Some (RO (OUpscaleAdj c n m) [G])]
  | OUpscaleAdj c n m => [Some (RO (OUpscale c n m) [G])]
  | OConv c c' n m => [Some (RO (OConvDK c c' n m) [G; b]); Some (RO (OConvDx c c' n m) [a; G])]
  | OConvDK c c' n m => [Some (RO (OConv c c' n m) [G; b]); Some (RO (OConvDx c c' n m) [G; a])]
  | OConvDx c c' n m => [Some (RO (OConvDK c c' n m) [b; G]); Some (RO (OConv c c' n m) [a; G])]
  | OMaxpool c n m => [Some (RO (OMaxpoolAdj c n m) [a; G])]
  | OMaxpoolAdj c n m => [None; Some (RO (OMaxpoolGather c n m) [a; G])]
  | OMaxpoolGather c n m => [None; Some (RO (OMaxpoolAdj c n m) [a; G])]
  | OAppend => let d := nth 0 ds 0 in [Some (RO (OFirstn d) [G]); Some (RO (OSkipn d) [G])]
  | OFirstn k => [Some (RO OAppend [G; RO (OZero (nth 0 ds 0 - k)) []])]
  | OSkipn k => [Some (RO OAppend [RO (OZero k) []; G])]
  end.

(** [l] with its [i]-th entry replaced. *)
Fixpoint upd {A} (l : list A) (i : nat) (x : A) : list A :=
  match l, i with
  | [], _ => []
  | _ :: l', 0 => x :: l'
  | y :: l', S i' => y :: upd l' i' x
  end.

(** Add the variable [c] to the adjoint of [i]. *)
Definition accum (adj : list (option nat)) (i c : nat) (s : bstate) : list (option nat) * bstate :=
  match nth i adj None with
  | None => (upd adj i (Some c), s)
  | Some old => let '(j, s1) := emit (radd (RV old) (RV c)) s in (upd adj i (Some j), s1)
  end.

Fixpoint contribs (args : list nat) (cs : list (option rexp)) (adj : list (option nat)) (s : bstate)
    : list (option nat) * bstate :=
  match args, cs with
  | a :: args', Some e :: cs' =>
      let '(c, s1) := emit e s in
      let '(adj1, s2) := accum adj a c s1 in
      contribs args' cs' adj1 s2
  | _ :: args', None :: cs' => contribs args' cs' adj s
  | _, _ => (adj, s)
  end.

Section rd_prog.
Variables (nin q : nat) (dims : list nat).

(** A variable of [P] in [rd_prog P]: the cotangents come after [P]'s
    inputs. *)
Definition ren (i : nat) : nat := if Nat.ltb i nin then i else i + q.

(** The backward sweep over the instructions, last first, each with its
    index. *)
Fixpoint back (instrs : list (nat * (cop * list nat))) (adj : list (option nat)) (s : bstate)
    : list (option nat) * bstate :=
  match instrs with
  | [] => (adj, s)
  | (j, (o, args)) :: instrs' =>
      match nth (nin + j) adj None with
      | None => back instrs' adj s
      | Some g =>
          let cs := vjp o (map ren args) (map (fun i => nth i dims 0) args) (ren (nin + j)) g in
          let '(adj1, s1) := contribs args cs adj s in
          back instrs' adj1 s1
      end
  end.

(** The cotangent of output [r] is the variable [nin + r]. *)
Fixpoint seed (outs : list nat) (r : nat) (adj : list (option nat)) (s : bstate)
    : list (option nat) * bstate :=
  match outs with
  | [] => (adj, s)
  | o :: outs' => let '(adj1, s1) := accum adj o (nin + r) s in seed outs' (S r) adj1 s1
  end.

(** The adjoint of each input, [0] when nothing flows into it. *)
Fixpoint finals (i : nat) (ds : list nat) (adj : list (option nat)) (s : bstate) : list nat * bstate :=
  match ds with
  | [] => ([], s)
  | d :: ds' =>
      let '(x, s1) := match nth i adj None with
                      | Some x => (x, s)
                      | None => emit (RO (OZero d) []) s
                      end in
      let '(xs, s2) := finals (S i) ds' adj s1 in (x :: xs, s2)
  end.
End rd_prog.

(** The lengths of all the variables of a program. *)
Definition body_dims (ds : list nat) (body : list (cop * list nat)) : list nat :=
  fold_left (fun acc ins => acc ++ [cop_dim (fst ins) (map (fun i => nth i acc 0) (snd ins))]) body ds.

(** [rd_prog P]: inputs [P]'s inputs then one cotangent per output,
    outputs one adjoint per input.  The body is [P]'s body (renumbered),
    then the backward sweep. *)
Definition rd_prog (P : cprog) : cprog :=
  let nin := length (cp_dims P) in
  let q := length (cp_out P) in
  let m := length (cp_body P) in
  let dims := body_dims (cp_dims P) (cp_body P) in
  let fwd := map (fun ins => (fst ins, map (ren nin q) (snd ins))) (cp_body P) in
  let s0 := {| bs_next := nin + q + m; bs_acc := rev fwd |} in
  let '(adj1, s1) := seed nin (cp_out P) 0 (repeat None (nin + m)) s0 in
  let '(adj2, s2) := back nin q dims (rev (combine (seq 0 m) (cp_body P))) adj1 s1 in
  let '(outs, s3) := finals 0 (cp_dims P) adj2 s2 in
  {| cp_dims := cp_dims P ++ map (fun i => nth i dims 0) (cp_out P);
     cp_body := rev (bs_acc s3);
     cp_out := outs |}.

(** ** Dead code

    The forward part of [rd_prog P] computes all of [P], also what no
    adjoint needs; [prune] keeps the instructions the outputs depend
    on (and renumbers). *)
Fixpoint mark (body_rev : list (nat * (cop * list nat))) (live : list bool) : list bool :=
  match body_rev with
  | [] => live
  | (v, (_, args)) :: rest =>
      if nth v live false
      then mark rest (fold_left (fun l a => upd l a true) args live)
      else mark rest live
  end.

Definition prune (P : cprog) : cprog :=
  let nin := length (cp_dims P) in
  let m := length (cp_body P) in
  let live0 := fold_left (fun l o => upd l o true) (cp_out P) (repeat false (nin + m)) in
  let live := mark (rev (combine (seq nin m) (cp_body P))) live0 in
  (* new index of each old variable *)
  let newidx := snd (fold_left (fun (st : nat * list nat) (b : bool) =>
                                  (if b then S (fst st) else fst st, snd st ++ [fst st]))
                               (skipn nin live) (nin, seq 0 nin)) in
  let body := map (fun p => (fst (snd p), map (fun a => nth a newidx 0) (snd (snd p))))
                  (filter (fun p => nth (fst p) live false) (combine (seq nin m) (cp_body P))) in
  {| cp_dims := cp_dims P; cp_body := body; cp_out := map (fun o => nth o newidx 0) (cp_out P) |}.

(** The reverse derivative as the instance uses it. *)
Definition rd_core (P : cprog) : cprog := prune (rd_prog P).

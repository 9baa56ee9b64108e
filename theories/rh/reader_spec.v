(** * The reader reads back what the printer prints (issue 27, item 4, in part)

    The reader of frontend.v ([tm_of], [cmd_of], [handler_of], [ty_of],
    [fsym_of], [opsym_of]) and its printer ([tm_sexp], [cmd_sexp],
    [handler_sexp], ...) are inverse on what the reader can produce:
    - [cmd_of_print] (and [tm_of_tm_sexp]): every readable command — scoped
      (a [rev handle] body in some number of binders, as [scoped_cmd]
      says), its constants at their declared lengths, its function symbols
      of sensible parameters and at most [max_fsym_level] levels, its
      numbers at most [max_nat], its operations and locations declared —
      printed with the printer's binder names ([v0], [v1], … by depth;
      [x], [y], [z] in handler clauses) is read back to itself, given
      enough nesting fuel ([cmd_fuel]);
    - [cmd_of_readable]: everything the reader reads is readable, within
      the fuel it was read with; so [cmd_of_reprint]: read, print, read
      gives what was read — the reader fixes a command up to the names of
      its binders.
    The lexical level is the driver's ([reader_io]); what is needed of it
    is stated as hypotheses: a printed number is read back
    ([io_nat (io_num n) = Some n]), numbers print apart ([io_num]
    injective), a vector's atoms are read back to it
    ([io_floats (io_atoms v) = v]); and the declared names are distinct
    (the reader checks it).  The S-expression grammar is [sexp]
    (frontend.v, sexplib's type).  Whole programs (the declarations and
    the heap): printer_spec.v. *)
From Coq Require Import String Ascii.
From RevHandlers Require Import prelude signature syntax typecheck instance frontend.

(** Invert a chain of [do] that answered [Ok] ([ok_inv] of frontend.v,
    whose section it cannot leave).  Outside any section, so that
    printer_spec.v uses it too. *)
Ltac spec_inv :=
  repeat match goal with
  | H : rbind ?r _ = Ok _ |- _ =>
      let E := fresh "E" in destruct r eqn:E; simpl in H; [|discriminate H]
  | H : Err _ = Ok _ |- _ => discriminate H
  | H : too_deep _ = Ok _ |- _ => discriminate H
  | H : syntax_err _ _ _ = Ok _ |- _ => discriminate H
  | H : fail _ _ = Ok _ |- _ => discriminate H
  | H : Ok _ = Ok _ |- _ => injection H; clear H; intros; subst
  | H : (if ?b then _ else _) = Ok _ |- _ => let E := fresh "E" in destruct b eqn:E
  | H : match ?x with _ => _ end = Ok _ |- _ => let E := fresh "E" in destruct x eqn:E
  end.

(** [fix_Forall p l]: [p] holds of every element of [l], written as a
    fixpoint, so that a predicate defined by recursion on terms or types
    ([printable], [ty_printable], never_stuck.v's [tm_ok]) can apply
    itself to a tuple's components and stay structural.  For parsing only:
    the definitions print as they did.  It is [Forall p l]: *)
Notation fix_Forall p l :=
  ((fix go (l0 : list _) : Prop := match l0 with [] => True | a :: l' => p a /\ go l' end) l)
  (only parsing).

Lemma fix_and_Forall {A} (p : A -> Prop) (l : list A) : fix_Forall p l <-> Forall p l.
Proof.
  induction l as [|a l IH]; [split; auto|].
  rewrite IH. split; [intros [? ?]; constructor; auto|intros HF; inversion HF; auto].
Qed.

Section reader_spec.
Context {Vec : Type} (vo : vec_ops Vec) (io : reader_io Vec).
#[local] Instance reader_spec_sorts : sorts := exec_sorts Vec.

Hypothesis io_nat_num : forall n, io_nat io (io_num io n) = Some n.
Hypothesis io_num_inj : forall n m, io_num io n = io_num io m -> n = m.
Hypothesis io_floats_atoms : forall v, io_floats io (io_atoms io v) = v.

Local Open Scope string_scope.

Lemma nat_of_atom n : n <= max_nat -> nat_of io (atom_n io n) = Ok n.
Proof.
  intros Hn. unfold nat_of, atom_n. rewrite io_nat_num.
  apply Nat.leb_le in Hn. rewrite Hn. reflexivity.
Qed.

Lemma mapM_nat_of ns : Forall (fun n => n <= max_nat) ns -> mapM (nat_of io) (map (atom_n io) ns) = Ok ns.
Proof.
  induction 1 as [|n ns Hn _ IH]; [reflexivity|]. cbn [map mapM]. rewrite nat_of_atom by exact Hn.
  cbn [rbind]. rewrite IH. reflexivity.
Qed.

(** The name and the parameters [prim_sexp] prints. *)
Definition prim_args (p : prim) : string * list nat :=
  match p with
  | PSwish n => ("swish", [n])
  | PSmul n => ("smul", [n])
  | PSub n => ("sub", [n])
  | PMatmul m n k => ("matmul", [m; n; k])
  | PTranspose m n => ("transpose", [m; n])
  | PRound n => ("round", [n])
  | PPad c n m => ("pad", [c; n; m])
  | PUpscale c n m => ("upscale", [c; n; m])
  | PConcat c c' n => ("concat", [c; c'; n])
  | PConv1d c c' n m => ("conv1d", [c; c'; n; m])
  | PMaxpool c n m => ("maxpool", [c; n; m])
  | PRelu n => ("relu", [n])
  | PSigmoid n => ("sigmoid", [n])
  | PTanh n => ("tanh", [n])
  | PExp n => ("exp", [n])
  | PLog n => ("log", [n])
  | PMul n => ("mul", [n])
  | PSum n => ("sum", [n])
  | PSce n => ("sce", [n])
  end.

Lemma prim_sexp_args p : prim_sexp io p = slist (fst (prim_args p)) (map (atom_n io) (snd (prim_args p))).
Proof. destruct p; reflexivity. Qed.

Definition prim_printable (p : prim) : Prop :=
  prim_ok p = true /\ Forall (fun n => n <= max_nat) (snd (prim_args p)).

Lemma prim_of_args p :
  prim_printable p -> prim_of io (fst (prim_args p)) (map (atom_n io) (snd (prim_args p))) = Ok p.
Proof.
  intros [Hok Hns]. unfold prim_of. rewrite (mapM_nat_of _ Hns).
  destruct p; cbn [rbind prim_args fst snd]; cbn -[prim_ok]; rewrite Hok; reflexivity.
Qed.

Lemma wrap_rd_S k s : wrap_rd k (slist "rd" [s]) = slist "rd" [wrap_rd k s].
Proof. revert s. induction k as [|k IH]; intros s; [reflexivity|]. cbn. rewrite IH. reflexivity. Qed.

Lemma fsym_of_sexp k p f :
  prim_printable p -> k <= max_fsym_level -> k < f ->
  fsym_of io f (fsym_sexp io (k, p)) = Ok (k, p).
Proof.
  intros Hp. unfold fsym_sexp. cbn [fst snd]. revert f.
  induction k as [|k IH]; intros f Hk Hf; (destruct f as [|f]; [lia|]).
  - cbn [wrap_rd]. rewrite prim_sexp_args. pose proof (prim_of_args p Hp) as Hof.
    destruct p; cbn [prim_args fst snd map] in Hof |- *; cbn [fsym_of slist];
      rewrite ?Hof; cbn; rewrite ?Hof; reflexivity.
  - cbn [wrap_rd]. rewrite wrap_rd_S. cbn [fsym_of slist]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite IH by lia. cbn [rbind fst snd].
    replace (Nat.ltb max_fsym_level (S k)) with false; [reflexivity|].
    symmetry. apply Nat.ltb_ge. exact Hk.
Qed.

(** ** Terms *)

(** The names the printer gives binders: [v0], [v1], … by depth. *)
Definition vname (j : nat) : string := "v" ++ io_num io j.

(** A scope the reader and the printer agree on: distinct names, none of
    them a name the printer would give a binder at a greater depth. *)
Definition env_ok (env : list string) : Prop :=
  NoDup env /\ forall j, length env <= j -> ~ In (vname j) env.

Lemma env_ok_nil : env_ok [].
Proof. split; [constructor|intros j _ []]. Qed.

Lemma env_ok_fresh env : env_ok env -> env_ok (fresh io env :: env).
Proof.
  intros [Hnd Hin]. split.
  - constructor; [|exact Hnd]. apply Hin. lia.
  - intros j Hj [Heq|Hx].
    + unfold fresh, vname in Heq. injection Heq as Heq. apply io_num_inj in Heq. cbn in Hj. lia.
    + apply (Hin j); [cbn in Hj; lia|exact Hx].
Qed.

Lemma index_of_nth env i x : NoDup env -> nth_error env i = Some x -> index_of x env = Some i.
Proof.
  revert i. induction env as [|y env IH]; intros i Hnd Hi; [destruct i; discriminate|].
  inversion Hnd as [|? ? Hy Hnd']; subst. destruct i as [|i]; cbn in Hi |- *.
  - injection Hi as ->. rewrite String.eqb_refl. reflexivity.
  - assert (Hne : y <> x) by (intros ->; apply Hy; eapply nth_error_In; exact Hi).
    apply String.eqb_neq in Hne. rewrite Hne. rewrite (IH i Hnd' Hi). reflexivity.
Qed.

(** A term the reader could produce in a scope of [n] names. *)
Fixpoint printable (n : nat) (M : tm) : Prop :=
  match M with
  | Var i => i < n
  | Const c => v_len vo (snd c) = fst c
  | App f N => fst f <= max_fsym_level /\ prim_printable (snd f) /\ printable n N
  | Add M1 M2 => printable n M1 /\ printable n M2
  | Tuple Ms => fix_Forall (printable n) Ms
  | Proj i N => i <= max_nat /\ printable n N
  | Let M1 M2 => printable n M1 /\ printable (S n) M2
  | Rd M1 M2 L => printable n M1 /\ printable (S n) M2 /\ printable n L
  end.

Lemma printable_tuple n Ms : printable n (Tuple Ms) <-> Forall (printable n) Ms.
Proof.
  cbn. apply fix_and_Forall.
Qed.

(** The nesting the reader needs to read the printed term. *)
Fixpoint tm_fuel (M : tm) : nat :=
  match M with
  | Var _ | Const _ => 1
  | App f N => S (Nat.max (S (fst f)) (tm_fuel N))
  | Add M1 M2 | Let M1 M2 => S (Nat.max (tm_fuel M1) (tm_fuel M2))
  | Tuple Ms => S (list_max (map tm_fuel Ms))
  | Proj _ N => S (tm_fuel N)
  | Rd M1 M2 L => S (Nat.max (tm_fuel M1) (Nat.max (tm_fuel M2) (tm_fuel L)))
  end.

Lemma list_max_map_le {X} (g : X -> nat) l x : In x l -> g x <= list_max (map g l).
Proof.
  intros Hx. pose proof (proj1 (list_max_le (map g l) _) (le_n _)) as Hall.
  rewrite Forall_forall in Hall. apply Hall, in_map, Hx.
Qed.

(** The reader reads the printed term back. *)
Lemma tm_of_tm_sexp M : forall env f,
  env_ok env -> printable (length env) M -> tm_fuel M <= f ->
  tm_of vo io f env (tm_sexp io env M) = Ok M.
Proof.
  induction M as [x|c|g N IH|M1 M2 IH1 IH2|Ms IH|i N IH|M1 M2 IH1 IH2|M1 M2 L IH1 IH2 IHL]
    using tm_ind'; intros env f Henv HM Hf; (destruct f as [|f]; [cbn in Hf; lia|]);
    cbn [tm_fuel] in Hf.
  - (* Var *)
    cbn in HM. destruct (nth_error env x) as [y|] eqn:Hy;
      [|apply nth_error_None in Hy; lia].
    cbn [tm_sexp]. unfold var_name. rewrite Hy. cbn [tm_of].
    rewrite (index_of_nth env x y (proj1 Henv) Hy). reflexivity.
  - (* Const *)
    destruct c as [n v]. cbn in HM. cbn [tm_sexp const_sexp slist tm_of snd].
    cbn [String.eqb Ascii.eqb Bool.eqb andb]. rewrite io_floats_atoms, HM. reflexivity.
  - (* App *)
    cbn in HM. destruct HM as [Hk [Hp HN]].
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    destruct g as [k p]. cbn [fst snd] in Hk, Hp, Hf.
    rewrite fsym_of_sexp; [|exact Hp|exact Hk|lia].
    cbn [rbind]. rewrite IH by (auto; lia). reflexivity.
  - (* Add *)
    cbn in HM. destruct HM as [H1 H2].
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite IH1 by (auto; lia). cbn [rbind]. rewrite IH2 by (auto; lia). reflexivity.
  - (* Tuple *)
    apply printable_tuple in HM.
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    assert (Hall : mapM (tm_of vo io f env) (map (tm_sexp io env) Ms) = Ok Ms).
    { assert (Hle : forall M, In M Ms -> tm_fuel M <= f).
      { intros M HMin. pose proof (list_max_map_le tm_fuel Ms M HMin). lia. }
      clear Hf. induction IH as [|M Ms HIM HIMs IHl]; [reflexivity|].
      inversion HM as [|? ? HM1 HMs]; subst. cbn [map mapM].
      rewrite HIM by (auto; apply Hle; left; reflexivity). cbn [rbind].
      rewrite IHl by (auto; intros; apply Hle; right; assumption). reflexivity. }
    rewrite Hall. reflexivity.
  - (* Proj *)
    cbn in HM. destruct HM as [Hi HN].
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite nat_of_atom by exact Hi. cbn [rbind]. rewrite IH by (auto; lia). reflexivity.
  - (* Let *)
    cbn in HM. destruct HM as [H1 H2].
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    cbn [name_of rbind]. rewrite IH1 by (auto; lia). cbn [rbind].
    rewrite IH2 by (try apply env_ok_fresh; auto; lia). reflexivity.
  - (* Rd *)
    cbn in HM. destruct HM as [H1 [H2 HL]].
    cbn [tm_sexp slist tm_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite IH1 by (auto; lia). cbn [name_of rbind].
    rewrite IH2 by (try apply env_ok_fresh; auto; lia). cbn [rbind].
    rewrite IHL by (auto; lia). reflexivity.
Qed.

(** A closed term, printed at the top. *)
Corollary tm_of_tm_sexp_closed M f :
  printable 0 M -> tm_fuel M <= f -> tm_of vo io f [] (tm_sexp io [] M) = Ok M.
Proof. intros. apply tm_of_tm_sexp; [apply env_ok_nil|assumption|assumption]. Qed.

(** ** Types, operations, commands and handlers *)

Fixpoint ty_printable (A : ty) : Prop :=
  match A with
  | TBase n => n <= max_nat
  | TProd As => fix_Forall ty_printable As
  end.

Fixpoint ty_fuel (A : ty) : nat :=
  match A with
  | TBase _ => 1
  | TProd As => S (list_max (map ty_fuel As))
  end.

Lemma ty_of_ty_sexp A : forall f, ty_printable A -> ty_fuel A <= f -> ty_of io f (ty_sexp io A) = Ok A.
Proof.
  induction A as [n|As IH] using ty_ind'; intros f HA Hf; (destruct f as [|f]; [cbn in Hf; lia|]).
  - cbn [ty_sexp slist ty_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite nat_of_atom by exact HA. reflexivity.
  - cbn [ty_sexp slist ty_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb]. cbn [ty_fuel] in Hf.
    assert (Hall : mapM (ty_of io f) (map (ty_sexp io) As) = Ok As).
    { assert (Hle : forall A, In A As -> ty_fuel A <= f).
      { intros A HAin. pose proof (list_max_map_le ty_fuel As A HAin). lia. }
      clear Hf. induction IH as [|A As HIA HIAs IHl]; [reflexivity|].
      cbn in HA. destruct HA as [HA1 HAs]. cbn [map mapM].
      rewrite HIA by (auto; apply Hle; left; reflexivity). cbn [rbind].
      rewrite IHl by (auto; intros; apply Hle; right; assumption). reflexivity. }
    rewrite Hall. reflexivity.
Qed.

Section names.
Variables (ops locs : list string).
Hypothesis ops_nodup : NoDup ops.
Hypothesis locs_nodup : NoDup locs.

Definition opsym_printable (o : opsym) : Prop :=
  match o with OpUser u => u < length ops | OpGet l | OpPut l => l < length locs end.

Lemma index_of_nth' l i : NoDup l -> i < length l -> index_of (nth i l "") l = Some i.
Proof.
  intros Hnd Hi. apply index_of_nth; [exact Hnd|]. apply nth_error_nth'. exact Hi.
Qed.

Lemma opsym_of_sexp o : opsym_printable o -> opsym_of io ops locs (opsym_sexp ops locs o) = Ok o.
Proof.
  destruct o as [u|l|l]; cbn [opsym_printable opsym_sexp]; intros Ho.
  - cbn [opsym_of]. rewrite (index_of_nth' ops u ops_nodup Ho). reflexivity.
  - cbn [slist opsym_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    unfold loc_of. cbn [name_of rbind]. rewrite (index_of_nth' locs l locs_nodup Ho). reflexivity.
  - cbn [slist opsym_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    unfold loc_of. cbn [name_of rbind]. rewrite (index_of_nth' locs l locs_nodup Ho). reflexivity.
Qed.

(** A command the reader could produce in a scope of [n] names; the body
    of a [rev handle] is scoped in the binders the printer prints, as
    many as it uses ([used_cmd]). *)
Fixpoint cmd_printable (n : nat) (P : cmd) : Prop :=
  match P with
  | Ret M => printable n M
  | Op o M => opsym_printable o /\ printable n M
  | CLet P Q => cmd_printable n P /\ cmd_printable (S n) Q
  | RevHandle M R H => printable n M /\ cmd_printable (used_cmd 0 R) R /\ handler_printable H
  end
with handler_printable (H : handler) : Prop :=
  match H with Handler P cls => cmd_printable 1 P /\ clauses_printable cls end
with clauses_printable (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons o D Qf Qb rest =>
      opsym_printable o /\ ty_printable D /\ cmd_printable 1 Qf /\ cmd_printable 2 Qb /\
      clauses_printable rest
  end.

Fixpoint cmd_fuel (P : cmd) : nat :=
  match P with
  | Ret M | Op _ M => S (tm_fuel M)
  | CLet P Q => S (Nat.max (cmd_fuel P) (cmd_fuel Q))
  | RevHandle M R H => S (Nat.max (tm_fuel M) (Nat.max (cmd_fuel R) (handler_fuel H)))
  end
with handler_fuel (H : handler) : nat :=
  match H with Handler P cls => S (Nat.max (cmd_fuel P) (clauses_fuel cls)) end
with clauses_fuel (cls : clauses) : nat :=
  match cls with
  | CNil => 0
  | CCons _ D Qf Qb rest =>
      Nat.max (Nat.max (ty_fuel D) (Nat.max (cmd_fuel Qf) (cmd_fuel Qb))) (clauses_fuel rest)
  end.

(** The reader of one handler clause, as [handler_of] applies it. *)
Definition clause_reader (f : nat) (c : sexp) : result (opsym * ty * cmd * cmd) error :=
  match c with
  | SList [SAtom k; o; d; SList [x; qf]; SList [y; z; qb]] =>
      if String.eqb k "clause" then
        rbind (opsym_of io ops locs o) (fun o' => rbind (ty_of io f d) (fun d' =>
        rbind (name_of io x) (fun x' => rbind (cmd_of vo io ops locs f [x'] qf) (fun qf' =>
        rbind (name_of io y) (fun y' => rbind (name_of io z) (fun z' =>
        rbind (cmd_of vo io ops locs f [y'; z'] qb) (fun qb' => Ok (o', d', qf', qb'))))))))
      else syntax_err io "not a handler clause: " c
  | _ => syntax_err io "not a handler clause: " c
  end.

Fixpoint clauses_list (cls : clauses) : list (opsym * ty * cmd * cmd) :=
  match cls with CNil => [] | CCons o D Qf Qb rest => (o, D, Qf, Qb) :: clauses_list rest end.

Lemma mk_clauses_list cls : mk_clauses (clauses_list cls) = cls.
Proof.
  induction cls as [|o D Qf Qb rest IH]; [reflexivity|].
  cbn [clauses_list]. unfold mk_clauses in *. cbn [fold_right]. rewrite IH. reflexivity.
Qed.

Lemma env_ok_names (xs : list string) :
  NoDup xs -> (forall j, length xs <= j -> ~ In (vname j) xs) -> env_ok xs.
Proof. intros H1 H2. split; assumption. Qed.

Lemma vname_not_letter j (c : Ascii.ascii) : c <> "v"%char -> vname j <> String c EmptyString.
Proof. intros Hc Heq. unfold vname in Heq. cbn in Heq. injection Heq as Heq _. congruence. Qed.

Lemma env_ok_x : env_ok ["x"].
Proof.
  split; [repeat constructor; intros []|].
  intros j _ [Heq|[]]. exact (vname_not_letter j "x"%char ltac:(discriminate) (eq_sym Heq)).
Qed.

Lemma env_ok_yz : env_ok ["y"; "z"].
Proof.
  split.
  - constructor; [intros [Heq|[]]; discriminate|]. constructor; [intros []|constructor].
  - intros j _ [Heq|[Heq|[]]].
    + exact (vname_not_letter j "y"%char ltac:(discriminate) (eq_sym Heq)).
    + exact (vname_not_letter j "z"%char ltac:(discriminate) (eq_sym Heq)).
Qed.

Lemma NoDup_map_inj {A B} (g : A -> B) l :
  (forall a b, g a = g b -> a = b) -> NoDup l -> NoDup (map g l).
Proof.
  intros Hg. induction 1 as [|x l Hx _ IH]; cbn; constructor; [|exact IH].
  intros Hin. apply in_map_iff in Hin as [y [Hy Hyin]]. apply Hg in Hy. subst. contradiction.
Qed.

Lemma env_ok_binders u : env_ok (map (fun i => "v" ++ io_num io i) (seq 0 u)).
Proof.
  split.
  - apply NoDup_map_inj; [|apply seq_NoDup].
    intros a b Heq. injection Heq as Heq. apply io_num_inj, Heq.
  - rewrite map_length, seq_length. intros j Hj Hin. apply in_map_iff in Hin as [i [Heq Hi]].
    apply in_seq in Hi. unfold vname in Heq. injection Heq as Heq. apply io_num_inj in Heq. lia.
Qed.

Lemma mapM_name_of xs : mapM (name_of io) (map SAtom xs) = Ok xs.
Proof. induction xs as [|x xs IH]; [reflexivity|]. cbn. rewrite IH. reflexivity. Qed.

(** The reader reads the printed command, handler and clauses back. *)
Lemma cmd_of_cmd_sexp :
  (forall P env f, env_ok env -> cmd_printable (length env) P -> cmd_fuel P <= f ->
     cmd_of vo io ops locs f env (cmd_sexp io ops locs env P) = Ok P) /\
  (forall H f, handler_printable H -> handler_fuel H <= f ->
     handler_of vo io ops locs f (handler_sexp io ops locs H) = Ok H) /\
  (forall cls f, clauses_printable cls -> clauses_fuel cls <= f ->
     mapM (clause_reader f) (clauses_sexp io ops locs cls) = Ok (clauses_list cls)).
Proof.
  apply cmd_mutind.
  - (* Ret *)
    intros M env f Henv HP Hf. destruct f as [|f]; [cbn in Hf; lia|]. cbn [cmd_fuel] in Hf.
    cbn [cmd_sexp slist cmd_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite tm_of_tm_sexp by (auto; lia). reflexivity.
  - (* Op *)
    intros o M env f Henv [Ho HM] Hf. destruct f as [|f]; [cbn in Hf; lia|]. cbn [cmd_fuel] in Hf.
    cbn [cmd_sexp slist cmd_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite opsym_of_sexp by exact Ho. cbn [rbind].
    rewrite tm_of_tm_sexp by (auto; lia). reflexivity.
  - (* CLet *)
    intros P IHP Q IHQ env f Henv [HP HQ] Hf. destruct f as [|f]; [cbn in Hf; lia|]. cbn [cmd_fuel] in Hf.
    cbn [cmd_sexp slist cmd_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    cbn [name_of rbind]. rewrite IHP by (auto; lia). cbn [rbind].
    rewrite IHQ by (try apply env_ok_fresh; auto; lia). reflexivity.
  - (* RevHandle *)
    intros M R IHR H IHH env f Henv [HM [HR HH]] Hf. destruct f as [|f]; [cbn in Hf; lia|].
    cbn [cmd_fuel] in Hf.
    cbn [cmd_sexp slist cmd_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite tm_of_tm_sexp by (auto; lia). cbn [rbind]. rewrite mapM_name_of. cbn [rbind].
    rewrite IHR; [|apply env_ok_binders|rewrite map_length, seq_length; exact HR|lia].
    cbn [rbind]. rewrite IHH by (auto; lia). reflexivity.
  - (* Handler *)
    intros P IHP cls IHcls f [HP Hcls] Hf. destruct f as [|f]; [cbn in Hf; lia|].
    cbn [handler_fuel] in Hf.
    cbn [handler_sexp slist handler_of]. cbn [String.eqb Ascii.eqb Bool.eqb andb].
    cbn [name_of rbind]. rewrite IHP; [|apply env_ok_x|exact HP|lia]. cbn [rbind].
    match goal with |- context [rbind (mapM ?g ?l) _] =>
      assert (Hg : mapM g l = Ok (clauses_list cls))
        by exact (IHcls f Hcls ltac:(lia)) end.
    rewrite Hg. cbn [rbind]. rewrite mk_clauses_list. reflexivity.
  - (* CNil *)
    intros f _ _. reflexivity.
  - (* CCons *)
    intros o D Qf IHQf Qb IHQb rest IHrest f [Ho [HD [HQf [HQb Hrest]]]] Hf.
    cbn [clauses_fuel] in Hf. cbn [clauses_sexp mapM]. unfold clause_reader at 1. cbn [slist].
    cbn [String.eqb Ascii.eqb Bool.eqb andb].
    rewrite opsym_of_sexp by exact Ho. cbn [rbind].
    rewrite ty_of_ty_sexp by (auto; lia). cbn [name_of rbind].
    rewrite IHQf; [|apply env_ok_x|exact HQf|lia]. cbn [name_of rbind].
    rewrite IHQb; [|apply env_ok_yz|exact HQb|lia]. cbn [rbind].
    rewrite IHrest by (auto; lia). reflexivity.
Qed.

(** ** Every scoped command is printable

    [cmd_printable] scopes a [rev handle] body in the binders the printer
    prints ([used_cmd]); [cmd_readable] only asks that it be scoped in
    some number of binders, as [scoped_cmd] does (frontend.v). *)
Lemma printable_mono M : forall n n', n <= n' -> printable n M -> printable n' M.
Proof.
  induction M as [x|c|g N IH|M1 M2 IH1 IH2|Ms IH|i N IH|M1 M2 IH1 IH2|M1 M2 L IH1 IH2 IHL]
    using tm_ind'; intros n n' Hn HM; cbn in HM |- *; try tauto; try lia.
  - destruct HM as [? [? ?]]. eauto.
  - destruct HM. eauto.
  - apply printable_tuple. apply printable_tuple in HM.
    rewrite Forall_forall in IH, HM |- *. eauto.
  - destruct HM. eauto.
  - destruct HM. split; [eauto|]. apply (IH2 (S n)); [lia|assumption].
  - destruct HM as [? [? ?]]. split; [eauto|split; [|eauto]]. apply (IH2 (S n)); [lia|assumption].
Qed.

Lemma printable_used M : forall d n, printable (d + n) M -> printable (d + used_tm d M) M.
Proof.
  induction M as [x|c|g N IH|M1 M2 IH1 IH2|Ms IH|i N IH|M1 M2 IH1 IH2|M1 M2 L IH1 IH2 IHL]
    using tm_ind'; intros d n HM; cbn [used_tm]; cbn in HM |- *.
  - destruct (Nat.leb_spec d x); lia.
  - exact HM.
  - destruct HM as [? [? HN]]. split; [assumption|split; [assumption|]]. eapply IH, HN.
  - destruct HM as [H1 H2]. split.
    + eapply printable_mono; [|eapply IH1, H1]. lia.
    + eapply printable_mono; [|eapply IH2, H2]. lia.
  - apply printable_tuple. apply printable_tuple in HM.
    rewrite Forall_forall in IH, HM |- *. intros M HMin.
    eapply printable_mono; [|eapply IH, HM; exact HMin].
    pose proof (list_max_map_le (used_tm d) Ms M HMin). lia.
  - destruct HM as [Hi HN]. split; [exact Hi|]. eapply IH, HN.
  - destruct HM as [H1 H2]. split.
    + eapply printable_mono; [|eapply IH1, H1]. lia.
    + eapply printable_mono; [|apply (IH2 (S d) n), H2]. lia.
  - destruct HM as [H1 [H2 HL]]. split; [|split].
    + eapply printable_mono; [|eapply IH1, H1]. lia.
    + eapply printable_mono; [|apply (IH2 (S d) n), H2]. lia.
    + eapply printable_mono; [|eapply IHL, HL]. lia.
Qed.

Lemma cmd_printable_mono P : forall n n', n <= n' -> cmd_printable n P -> cmd_printable n' P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros n n' Hn HP; cbn [cmd_printable] in HP |- *.
  - eapply printable_mono; eassumption.
  - destruct HP. split; [assumption|]. eapply printable_mono; eassumption.
  - destruct HP. split; [eauto|]. apply (IHQ (S n)); [lia|assumption].
  - destruct HP as [? [? ?]]. split; [eapply printable_mono; eassumption|split; assumption].
Qed.

Lemma cmd_printable_used P : forall d n, cmd_printable (d + n) P -> cmd_printable (d + used_cmd d P) P.
Proof.
  induction P as [M|o M|P IHP Q IHQ|M R H]; intros d n HP; cbn [cmd_printable used_cmd] in HP |- *.
  - eapply printable_used, HP.
  - destruct HP as [Ho HM]. split; [exact Ho|]. eapply printable_used, HM.
  - destruct HP as [H1 H2]. split.
    + eapply cmd_printable_mono; [|eapply IHP, H1]. lia.
    + eapply cmd_printable_mono; [|apply (IHQ (S d) n), H2]. lia.
  - destruct HP as [HM [HR HH]]. split; [eapply printable_used, HM|split; assumption].
Qed.

Fixpoint cmd_readable (n : nat) (P : cmd) : Prop :=
  match P with
  | Ret M => printable n M
  | Op o M => opsym_printable o /\ printable n M
  | CLet P Q => cmd_readable n P /\ cmd_readable (S n) Q
  | RevHandle M R H => printable n M /\ (exists k, cmd_readable k R) /\ handler_readable H
  end
with handler_readable (H : handler) : Prop :=
  match H with Handler P cls => cmd_readable 1 P /\ clauses_readable cls end
with clauses_readable (cls : clauses) : Prop :=
  match cls with
  | CNil => True
  | CCons o D Qf Qb rest =>
      opsym_printable o /\ ty_printable D /\ cmd_readable 1 Qf /\ cmd_readable 2 Qb /\
      clauses_readable rest
  end.

Lemma readable_printable :
  (forall P n, cmd_readable n P -> cmd_printable n P) /\
  (forall H, handler_readable H -> handler_printable H) /\
  (forall cls, clauses_readable cls -> clauses_printable cls).
Proof.
  apply cmd_mutind; cbn [cmd_readable handler_readable clauses_readable
                        cmd_printable handler_printable clauses_printable].
  - auto.
  - auto.
  - intros P IHP Q IHQ n [H1 H2]. auto.
  - intros M R IHR H IHH n [HM [[k HR] HH]]. split; [exact HM|split; [|auto]].
    apply (cmd_printable_used R 0 k). apply IHR, HR.
  - intros P IHP cls IHcls [H1 H2]. auto.
  - auto.
  - intros o D Qf IHQf Qb IHQb rest IHrest [? [? [? [? ?]]]]. auto 7.
Qed.

(** Print, then read: the same command, for every readable command. *)
Lemma cmd_of_print P env f :
  env_ok env -> cmd_readable (length env) P -> cmd_fuel P <= f ->
  cmd_of vo io ops locs f env (cmd_sexp io ops locs env P) = Ok P.
Proof. intros Henv HP Hf. apply cmd_of_cmd_sexp; [exact Henv|apply readable_printable, HP|exact Hf]. Qed.

Corollary cmd_of_print_closed P f :
  cmd_readable 0 P -> cmd_fuel P <= f -> cmd_of vo io ops locs f [] (cmd_sexp io ops locs [] P) = Ok P.
Proof. intros. apply cmd_of_print; [apply env_ok_nil|assumption|assumption]. Qed.

(** ** What the reader reads is readable

    So reading, printing and reading again gives what was read: the reader
    fixes a term up to the names of its binders ([cmd_of_reprint]). *)
Lemma nat_of_le a n : nat_of io a = Ok n -> n <= max_nat.
Proof.
  unfold nat_of. intros H. spec_inv; try discriminate.
  match goal with E : Nat.leb _ _ = true |- _ => apply Nat.leb_le in E; exact E end.
Qed.

Lemma mapM_nat_of_le args ns : mapM (nat_of io) args = Ok ns -> Forall (fun n => n <= max_nat) ns.
Proof. intros H. eapply mapM_Forall; [exact H|]. intros a n Ha. eapply nat_of_le, Ha. Qed.

Lemma prim_of_printable name args p : prim_of io name args = Ok p -> prim_printable p.
Proof.
  unfold prim_of. intros H.
  destruct (mapM (nat_of io) args) as [ns|e] eqn:Hns; cbn [rbind] in H; [|discriminate].
  apply mapM_nat_of_le in Hns.
  destruct ns as [|a [|b [|c [|d [|e' ns']]]]];
    repeat match goal with H : context [if String.eqb ?x ?y then _ else _] |- _ =>
      destruct (String.eqb x y) end;
    cbn [rbind] in H; try discriminate;
    destruct (prim_ok _) eqn:Hok; try discriminate; injection H as <-;
    split; first [exact Hok | exact Hns].
Qed.

Lemma fsym_of_readable f s k p :
  fsym_of io f s = Ok (k, p) -> k <= max_fsym_level /\ prim_printable p /\ k < f.
Proof.
  revert s k p. induction f as [|f IH]; intros s k p H; cbn [fsym_of] in H; [discriminate|].
  destruct s as [a|[|[a|] args]]; try discriminate.
  destruct args as [|g [|g2 args]].
  - destruct (prim_of io a []) as [q|] eqn:Hq; cbn [rbind] in H; [|discriminate].
    injection H as <- <-. apply prim_of_printable in Hq. split; [cbn; lia|split; [exact Hq|lia]].
  - destruct (String.eqb a "rd").
    + destruct (fsym_of io f g) as [[k' p']|] eqn:Hr; cbn [rbind] in H; [|discriminate].
      destruct (IH _ _ _ Hr) as [Hk' [Hp' Hf']]. cbn [fst snd] in H.
      destruct (Nat.ltb max_fsym_level (S k')) eqn:Hlt; [discriminate|].
      injection H as <- <-. apply Nat.ltb_ge in Hlt. split; [exact Hlt|split; [exact Hp'|lia]].
    + destruct (prim_of io a [g]) as [q|] eqn:Hq; cbn [rbind] in H; [|discriminate].
      injection H as <- <-. apply prim_of_printable in Hq. split; [cbn; lia|split; [exact Hq|lia]].
  - destruct (prim_of io a (g :: g2 :: args)) as [q|] eqn:Hq; cbn [rbind] in H; [|discriminate].
    injection H as <- <-. apply prim_of_printable in Hq. split; [cbn; lia|split; [exact Hq|lia]].
Qed.

Lemma tm_of_readable f : forall vars s M,
  tm_of vo io f vars s = Ok M -> printable (length vars) M /\ tm_fuel M <= f.
Proof.
  induction f as [|f IH]; intros vars s M H; cbn [tm_of] in H; [discriminate|].
  destruct s as [x|[|[k|] args]]; try discriminate.
  - destruct (index_of x vars) as [i|] eqn:Hi; [|discriminate]. injection H as <-.
    apply index_of_lt in Hi. cbn. split; [exact Hi|lia].
  - spec_inv; cbn [printable tm_fuel];
      repeat match goal with
      | E : tm_of _ _ f _ _ = Ok _ |- _ => apply IH in E; destruct E
      | E : fsym_of _ f _ = Ok (_, _) |- _ => apply fsym_of_readable in E; destruct E as [? [? ?]]
      | E : fsym_of _ f _ = Ok ?g |- _ => destruct g
      | E : nat_of _ _ = Ok _ |- _ => apply nat_of_le in E
      end;
      cbn [fst snd]; try (split; [tauto|lia]).
    (* tuple *)
    match goal with E : mapM _ _ = Ok ?ms |- _ =>
      pose proof (mapM_Forall (fun M => printable (length vars) M /\ tm_fuel M <= f) _ _ _ E
                    (fun _ _ Hy => IH _ _ _ Hy)) as HF end.
    split.
    + apply printable_tuple. eapply Forall_impl; [|exact HF]. intros ? [? ?]; assumption.
    + apply le_n_S, list_max_le. rewrite Forall_map. eapply Forall_impl; [|exact HF].
      intros ? [? ?]; assumption.
Qed.


Lemma ty_printable_prod As : ty_printable (TProd As) <-> Forall ty_printable As.
Proof.
  cbn. apply fix_and_Forall.
Qed.

Lemma ty_of_readable f : forall s A, ty_of io f s = Ok A -> ty_printable A /\ ty_fuel A <= f.
Proof.
  induction f as [|f IH]; intros s A H; cbn [ty_of] in H; [discriminate|].
  destruct s as [a|[|[k|] args]]; try discriminate.
  spec_inv.
  - match goal with E : nat_of _ _ = Ok _ |- _ => apply nat_of_le in E; cbn; split; [exact E|lia] end.
  - match goal with E : mapM _ _ = Ok ?As |- _ =>
      pose proof (mapM_Forall (fun A => ty_printable A /\ ty_fuel A <= f) _ _ _ E
                    (fun _ _ Hy => IH _ _ Hy)) as HF end.
    split.
    + apply ty_printable_prod. eapply Forall_impl; [|exact HF]. intros ? [? ?]; assumption.
    + cbn [ty_fuel]. apply le_n_S, list_max_le. rewrite Forall_map. eapply Forall_impl; [|exact HF].
      intros ? [? ?]; assumption.
Qed.

Lemma opsym_of_readable s o : opsym_of io ops locs s = Ok o -> opsym_printable o.
Proof.
  unfold opsym_of, loc_of. intros H. spec_inv; cbn [opsym_printable];
    match goal with E : index_of _ _ = Some _ |- _ => exact (index_of_lt _ _ _ E) end.
Qed.

Lemma mk_clauses_readable l f :
  Forall (fun c => let '(o, D, Qf, Qb) := c in
           opsym_printable o /\ ty_printable D /\ cmd_readable 1 Qf /\ cmd_readable 2 Qb /\
           ty_fuel D <= f /\ cmd_fuel Qf <= f /\ cmd_fuel Qb <= f) l ->
  clauses_readable (mk_clauses l) /\ clauses_fuel (mk_clauses l) <= f.
Proof.
  induction 1 as [|[[[o D] Qf] Qb] l Hc _ IH]; [split; [exact I|cbn; lia]|].
  destruct Hc as [Ho [HD [HQf [HQb [HfD [HfQf HfQb]]]]]]. destruct IH as [IH1 IH2].
  unfold mk_clauses in *. cbn [fold_right clauses_readable clauses_fuel].
  split; [tauto|lia].
Qed.

Lemma cmd_of_readable f :
  (forall vars s P, cmd_of vo io ops locs f vars s = Ok P ->
     cmd_readable (length vars) P /\ cmd_fuel P <= f) /\
  (forall s H, handler_of vo io ops locs f s = Ok H -> handler_readable H /\ handler_fuel H <= f).
Proof.
  induction f as [|f [IHc IHh]]; (split; [intros vars s P Hc|intros s Hd Hh]);
    cbn [cmd_of handler_of] in *; try discriminate.
  - destruct s as [a|[|[k|] args]]; try discriminate.
    spec_inv; cbn [cmd_readable cmd_fuel];
      repeat match goal with
      | E : tm_of _ _ f _ _ = Ok _ |- _ => apply tm_of_readable in E; destruct E
      | E : cmd_of _ _ _ _ f _ _ = Ok _ |- _ => apply IHc in E; destruct E
      | E : handler_of _ _ _ _ f _ = Ok _ |- _ => apply IHh in E; destruct E
      | E : opsym_of _ _ _ _ = Ok _ |- _ => apply opsym_of_readable in E
      | E : _ = Ok ?h |- _ =>
          match type of h with handler => apply IHh in E; destruct E end
      end;
      split; try lia; repeat split; eauto.
  - destruct s as [a|l]; [discriminate|].
    destruct l as [|[k|] l]; try discriminate.
    destruct l as [|[r0|l0] cls]; try discriminate.
    destruct l0 as [|[r|] l0]; try discriminate.
    destruct l0 as [|x l0]; try discriminate.
    destruct l0 as [|p l0]; try discriminate.
    destruct l0 as [|? ?]; [|discriminate].
    destruct (String.eqb k "handler" && String.eqb r "return"); [|discriminate].
    destruct (name_of io x) as [x'|] eqn:Ex; cbn [rbind] in Hh; [|discriminate].
    match goal with Hx : rbind ?r _ = Ok _ |- _ =>
      destruct r as [P|] eqn:EP; cbn [rbind] in Hx; [|discriminate] end.
    match goal with Hx : rbind (mapM ?g cls) _ = Ok _ |- _ =>
      destruct (mapM g cls) as [l|] eqn:El; cbn [rbind] in Hx; [|discriminate] end.
    injection Hh as <-. apply IHc in EP as [HP HfP].
    assert (Hl : Forall (fun c => let '(o, D, Qf, Qb) := c in
           opsym_printable o /\ ty_printable D /\ cmd_readable 1 Qf /\ cmd_readable 2 Qb /\
           ty_fuel D <= f /\ cmd_fuel Qf <= f /\ cmd_fuel Qb <= f) l).
    { eapply mapM_Forall; [exact El|]. intros c [[[o D] Qf] Qb] Hc. cbv beta in Hc.
      spec_inv;
        repeat match goal with
        | E : ty_of _ f _ = Ok _ |- _ => apply ty_of_readable in E; destruct E
        | E : cmd_of _ _ _ _ f _ _ = Ok _ |- _ => apply IHc in E; destruct E
        | E : opsym_of _ _ _ _ = Ok _ |- _ => apply opsym_of_readable in E
        | E : _ = Ok ?q |- _ =>
            match type of q with cmd => apply IHc in E; destruct E end
        end; cbn [length] in *; tauto. }
    destruct (mk_clauses_readable l f Hl) as [Hc1 Hc2].
    cbn [handler_readable handler_fuel]. split; [tauto|lia].
Qed.

(** Read, print, read: the same command.  The reader fixes a command up to
    the names of its binders. *)
Lemma cmd_of_reprint f s P :
  cmd_of vo io ops locs f [] s = Ok P -> cmd_of vo io ops locs f [] (cmd_sexp io ops locs [] P) = Ok P.
Proof.
  intros H. destruct (proj1 (cmd_of_readable f) [] s P H) as [HP Hf].
  apply cmd_of_print_closed; assumption.
Qed.

End names.

End reader_spec.

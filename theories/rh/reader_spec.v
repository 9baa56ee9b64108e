(** * The reader reads back what the printer prints: terms

    A first part of a specified reader (issue 27, item 4): for every term
    the reader could have produced — scoped, its constants at their
    declared lengths, its function symbols of sensible parameters and of
    at most [max_fsym_level] levels, its numbers at most [max_nat] — the
    reader [tm_of] reads the printer's [tm_sexp] back to the same term
    ([tm_of_tm_sexp]), with the binder names the printer chooses
    ([v0], [v1], … by depth).  The lexical level is the driver's
    ([reader_io]); what the theorem needs of it is stated as hypotheses: a
    number printed is read back ([io_nat (io_num n) = Some n]), numbers
    print apart ([io_num] injective) and a vector's atoms are read back to
    the vector ([io_floats (io_atoms v) = v]).  Commands, handlers and
    whole programs are not covered here. *)
From Coq Require Import String.
From RevHandlers Require Import prelude signature syntax typecheck instance frontend.

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

Definition env_ok (env : list string) : Prop :=
  NoDup env /\ forall x, In x env -> exists j, j < length env /\ x = vname j.

Lemma env_ok_nil : env_ok [].
Proof. split; [constructor|intros x []]. Qed.

Lemma env_ok_fresh env : env_ok env -> env_ok (fresh io env :: env).
Proof.
  intros [Hnd Hin]. split.
  - constructor; [|exact Hnd]. intros Hx. destruct (Hin _ Hx) as [j [Hj Heq]].
    unfold fresh, vname in Heq. injection Heq as Heq. apply io_num_inj in Heq. lia.
  - intros x [<-|Hx]; [exists (length env); cbn; split; [lia|reflexivity]|].
    destruct (Hin _ Hx) as [j [Hj ->]]. exists j. cbn. split; [lia|reflexivity].
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
  | Tuple Ms => (fix go (l : list tm) : Prop :=
                   match l with [] => True | M' :: l' => printable n M' /\ go l' end) Ms
  | Proj i N => i <= max_nat /\ printable n N
  | Let M1 M2 => printable n M1 /\ printable (S n) M2
  | Rd M1 M2 L => printable n M1 /\ printable (S n) M2 /\ printable n L
  end.

Lemma printable_tuple n Ms : printable n (Tuple Ms) <-> Forall (printable n) Ms.
Proof.
  cbn. induction Ms as [|M Ms IH]; [split; auto|].
  rewrite IH. split; [intros [? ?]; constructor; auto|intros HF; inversion HF; auto].
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

End reader_spec.

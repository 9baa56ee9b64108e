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

End reader_spec.

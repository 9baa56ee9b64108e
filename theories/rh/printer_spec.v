(** * A printer of whole programs, and the reader reads back what it prints
    (issue 27, item 4)

    [print_program] prints a program record of frontend.v as an
    S-expression ([sexp], frontend.v: sexplib's type, atoms and lists):
    the declared operations with their types, the locations with their
    sizes, the data the program gives, the main command (with the binder
    names the printer of commands chooses: [v0], [v1], … by depth; [x],
    [y], [z] in handler clauses) and the fuel.  Two theorems:
    - [read_print_program]: for every program [program_ok] describes (the
      programs the reader can produce: declared names distinct, types and
      numbers within the reader's limits, data of the locations' sizes, the
      main command scoped and readable, [cmd_readable] of reader_spec.v),
      [read_program (print_program p) = Ok p];
    - [read_program_ok]: every program the reader reads is [program_ok];
      so [read_reprint_program]: a text the reader accepts, printed and
      read again, gives the same program: the same de Bruijn command and
      declarations, the names of the binders of the text forgotten.
    What the proofs need of the driver's lexical level ([reader_io]) is
    stated as hypotheses, as in reader_spec.v: a printed number is read
    back, numbers print apart, and a vector's atoms are read back to it,
    as constants ([io_floats]) and as a location's data ([io_data]).

    A location's size is printed as one dimension, or, above [max_nat]
    (the largest number the reader takes), as two whose product it is:
    the reader multiplies a location's dimensions, each at most [max_nat],
    and refuses a product above [max_loc_size] = 100 [max_nat]; every such
    product is one of two numbers at most [max_nat] ([size_split]). *)
From Coq Require Import String.
From RevHandlers Require Import prelude signature syntax typecheck instance frontend reader_spec.

Section printer_spec.
Context {Vec : Type} (vo : vec_ops Vec) (io : reader_io Vec).
#[local] Instance printer_spec_sorts : sorts := exec_sorts Vec.

Local Open Scope string_scope.

(** ** The printer *)

(** A size as the dimensions the printer gives it: itself, or above
    [max_nat] the first [d ≤ max_nat] with [n = d · (n / d)] and
    [n / d ≤ max_nat], and [n / d]. *)
Definition split_ok (n d : nat) : bool := Nat.eqb (d * (n / d)) n && Nat.leb (n / d) max_nat.

(** [find (split_ok n) (seq d fuel)] ([split_search_find]), by a loop
    (the extracted code builds no list of a million numbers). *)
Fixpoint split_search (n d fuel : nat) : option nat :=
  match fuel with
  | 0 => None
  | S f => if split_ok n d then Some d else split_search n (S d) f
  end.

Lemma split_search_find n fuel : forall d, split_search n d fuel = find (split_ok n) (seq d fuel).
Proof.
  induction fuel as [|f IH]; intros d; [reflexivity|]. cbn [split_search seq find].
  destruct (split_ok n d); [reflexivity|apply IH].
Qed.

Definition size_dims (n : nat) : list nat :=
  if Nat.leb n max_nat then [n]
  else match split_search n 1 max_nat with
       | Some d => [d; n / d]
       | None => [n]
       end.

Definition op_decl_sexp (od : string * (ty * ty)) : sexp :=
  SList [SAtom (fst od); ty_sexp io (fst (snd od)); ty_sexp io (snd (snd od))].

Definition loc_decl_sexp (ln : string * nat) : sexp :=
  SList [SAtom (fst ln); SList (map (atom_n io) (size_dims (snd ln)))].

Definition entry_sexp (locs : list string) (e : nat * Vec) : sexp :=
  SList [SAtom (nth (fst e) locs ""); SList (io_atoms io (snd e))].

Definition print_program (p : @program Vec) : sexp :=
  SList (SAtom "program"
         :: slist "ops" (map op_decl_sexp (combine (p_ops p) (p_decls p)))
         :: slist "locs" (map loc_decl_sexp (combine (p_locs p) (p_dims p)))
         :: slist "heap" (map (entry_sexp (p_locs p)) (p_given p))
         :: slist "main" [cmd_sexp io (p_ops p) (p_locs p) [] (p_main p)]
         :: match p_fuel p with Some n => [slist "fuel" [atom_n io n]] | None => [] end).

(** ** The programs the reader can produce *)

(** A size the reader can read: a product of two numbers at most
    [max_nat], at most [max_loc_size]. *)
Definition size_ok (n : nat) : Prop :=
  n <= max_loc_size /\ exists d e, d <= max_nat /\ e <= max_nat /\ d * e = n.

Definition program_ok (p : @program Vec) : Prop :=
  length (p_ops p) = length (p_decls p) /\ NoDup (p_ops p) /\
  Forall (fun d => @ty_printable Vec (fst d) /\ @ty_fuel Vec (fst d) <= max_depth /\
                   @ty_printable Vec (snd d) /\ @ty_fuel Vec (snd d) <= max_depth) (p_decls p) /\
  length (p_locs p) = length (p_dims p) /\ NoDup (p_locs p) /\
  Forall size_ok (p_dims p) /\
  fold_left (fun a n => a + n) (p_dims p) 0 <= max_heap_size /\
  Forall (fun e => fst e < length (p_locs p) /\ v_len vo (snd e) = nth (fst e) (p_dims p) 0) (p_given p) /\
  NoDup (map (fun e => nth (fst e) (p_locs p) "") (p_given p)) /\
  cmd_readable vo (p_ops p) (p_locs p) 0 (p_main p) /\ @cmd_fuel Vec (p_main p) <= max_depth /\
  match p_fuel p with Some n => n <= max_nat | None => True end.

(** ** Print, then read *)

Hypothesis io_nat_num : forall n, io_nat io (io_num io n) = Some n.
Hypothesis io_num_inj : forall n m, io_num io n = io_num io m -> n = m.
Hypothesis io_floats_atoms : forall v, io_floats io (io_atoms io v) = v.
Hypothesis io_data_atoms : forall v, io_data io (SList (io_atoms io v)) = v.

(** The limits are opaque (frontend.v): [max_nat] is a million. *)
Lemma max_loc_size_eq : max_loc_size = 100 * max_nat.
Proof. Transparent max_loc_size. unfold max_loc_size, ten. Opaque max_loc_size. lia. Qed.

Lemma max_nat_ge : 100 <= max_nat.
Proof. Transparent max_nat. unfold max_nat, ten. Opaque max_nat. lia. Qed.

Lemma split_ok_spec n d : split_ok n d = true <-> d * (n / d) = n /\ n / d <= max_nat.
Proof. unfold split_ok. rewrite andb_true_iff, Nat.eqb_eq, Nat.leb_le. tauto. Qed.

(** The reader reads the printed dimensions back to the size. *)
Lemma loc_size_dims n : size_ok n -> loc_size io 1 (map (atom_n io) (size_dims n)) = Ok n.
Proof.
  intros [Hn [d [e [Hd [He Hde]]]]]. pose proof max_loc_size_eq as Hc. pose proof max_nat_ge as H100.
  unfold size_dims. destruct (Nat.leb n max_nat) eqn:Hle.
  - apply Nat.leb_le in Hle. cbn [map loc_size]. rewrite (nat_of_atom io io_nat_num n Hle). cbn [rbind loc_size].
    replace (Nat.ltb max_loc_size 1) with false by (symmetry; apply Nat.ltb_ge; lia). f_equal. lia.
  - apply Nat.leb_gt in Hle. rewrite split_search_find.
    destruct (find (split_ok n) (seq 1 max_nat)) as [d'|] eqn:Hf.
    + apply find_some in Hf as [Hin Hok]. apply in_seq in Hin. apply split_ok_spec in Hok as [Hdd Hq].
      cbn [map loc_size]. rewrite (nat_of_atom io io_nat_num d') by lia. cbn [rbind loc_size].
      rewrite (nat_of_atom io io_nat_num (n / d')) by exact Hq. cbn [rbind loc_size].
      replace (Nat.ltb max_loc_size 1) with false by (symmetry; apply Nat.ltb_ge; lia).
      replace (Nat.ltb max_loc_size (1 * d')) with false by (symmetry; apply Nat.ltb_ge; lia).
      f_equal. lia.
    + exfalso. assert (Hd0 : d <> 0) by (intros ->; lia).
      assert (Hq : n / d = e) by (subst n; rewrite Nat.mul_comm; apply Nat.div_mul; exact Hd0).
      assert (Hin : In d (seq 1 max_nat)) by (apply in_seq; lia).
      pose proof (find_none _ _ Hf d Hin) as Hno.
      assert (Hyes : split_ok n d = true) by (apply split_ok_spec; rewrite Hq; split; [lia|exact He]).
      congruence.
Qed.

Lemma loc_decl_sexp_ok ln : size_ok (snd ln) -> loc_decl io (loc_decl_sexp ln) = Ok ln.
Proof.
  destruct ln as [l n]. intros Hn. unfold loc_decl, loc_decl_sexp. cbn [fst snd].
  rewrite (loc_size_dims n Hn). cbn [rbind].
  replace (Nat.ltb max_loc_size n) with false; [reflexivity|].
  symmetry. apply Nat.ltb_ge. apply Hn.
Qed.

Lemma op_decl_sexp_ok od :
  @ty_printable Vec (fst (snd od)) -> @ty_fuel Vec (fst (snd od)) <= max_depth ->
  @ty_printable Vec (snd (snd od)) -> @ty_fuel Vec (snd (snd od)) <= max_depth ->
  op_decl io (op_decl_sexp od) = Ok od.
Proof.
  destruct od as [o [a b]]. cbn [fst snd]. intros. unfold op_decl, op_decl_sexp. cbn [fst snd].
  rewrite (ty_of_ty_sexp io io_nat_num a) by assumption. cbn [rbind].
  rewrite (ty_of_ty_sexp io io_nat_num b) by assumption. reflexivity.
Qed.

Lemma mapM_map_ok {A B} (f : B -> result A error) (g : A -> B) l :
  (forall x, In x l -> f (g x) = Ok x) -> mapM f (map g l) = Ok l.
Proof.
  induction l as [|x l IH]; intros Hl; [reflexivity|]. cbn [map mapM].
  rewrite (Hl x (or_introl eq_refl)). cbn [rbind]. rewrite IH; [reflexivity|].
  intros y Hy. apply Hl. right. exact Hy.
Qed.

Lemma distinct_ok what seen names :
  NoDup names -> (forall x, In x names -> ~ In x seen) -> distinct what seen names = Ok tt.
Proof.
  revert seen. induction names as [|n names IH]; intros seen Hnd Hdis; [reflexivity|].
  inversion Hnd as [|? ? Hn Hnd']; subst. cbn [distinct].
  destruct (existsb (String.eqb n) seen) eqn:E.
  - exfalso. apply existsb_exists in E as [y [Hy Hyn]]. apply String.eqb_eq in Hyn. subst y.
    exact (Hdis n (or_introl eq_refl) Hy).
  - apply IH; [exact Hnd'|]. intros x Hx [<-|Hin]; [exact (Hn Hx)|].
    exact (Hdis x (or_intror Hx) Hin).
Qed.

Lemma map_fst_combine {A B} (l : list A) (l' : list B) : length l = length l' -> map fst (combine l l') = l.
Proof.
  revert l'. induction l as [|x l IH]; intros [|y l'] Hlen; cbn in *; try discriminate; [reflexivity|].
  rewrite IH by lia. reflexivity.
Qed.

Lemma map_snd_combine {A B} (l : list A) (l' : list B) : length l = length l' -> map snd (combine l l') = l'.
Proof.
  revert l'. induction l as [|x l IH]; intros [|y l'] Hlen; cbn in *; try discriminate; [reflexivity|].
  rewrite IH by lia. reflexivity.
Qed.

Lemma Forall_combine_snd {A B} (P : B -> Prop) (l : list A) (l' : list B) :
  Forall P l' -> forall x, In x (combine l l') -> P (snd x).
Proof.
  intros HP [a b] Hin. apply in_combine_r in Hin. rewrite Forall_forall in HP. exact (HP b Hin).
Qed.

Lemma entry_sexp_ok locs dims unknown what e :
  NoDup locs -> fst e < length locs -> v_len vo (snd e) = nth (fst e) dims 0 ->
  entry_of vo io locs dims unknown what (entry_sexp locs e) = Ok e.
Proof.
  destruct e as [i v]. cbn [fst snd]. intros Hnd Hi Hv. unfold entry_of, entry_sexp. cbn [fst snd].
  rewrite (index_of_nth' locs i Hnd Hi), io_data_atoms, Hv, Nat.eqb_refl. reflexivity.
Qed.

(** Print, then read: the same program. *)
(** Informal proof: the reader meets the fields in the order it looks
    for them; each list of declarations is read back element by element
    ([op_decl_sexp_ok], [loc_decl_sexp_ok], whose size comes back from its
    one or two dimensions, [loc_size_dims]), the names are distinct
    ([distinct_ok]), the total is within the bound, each heap entry finds
    its location by its name ([entry_sexp_ok]), the main command comes back
    by [cmd_of_print_closed] (reader_spec.v) and the fuel by
    [nat_of_atom]. *)
Theorem read_print_program p : program_ok p -> read_program vo io (print_program p) = Ok p.
Proof.
  destruct p as [ops decls locs dims given main fuel].
  intros [Hod [Hops [Hdecls [Hld [Hlocs [Hdims [Htotal [Hgiven [Hgnd [Hmain [Hfmain Hfuel]]]]]]]]]]].
  cbn [p_ops p_decls p_locs p_dims p_given p_main p_fuel] in *.
  unfold read_program, print_program. cbn [p_ops p_decls p_locs p_dims p_given p_main p_fuel].
  assert (Hfuel' : match fuel with Some n => nat_of io (atom_n io n) = Ok n | None => True end)
    by (destruct fuel as [n|]; [apply nat_of_atom; assumption|exact I]).
  clear Hfuel.
  destruct fuel as [n|];
    cbn -[max_depth max_heap_size cmd_of mapM op_decl loc_decl entry_of distinct nat_of fold_left combine map
          Nat.ltb];
    (rewrite mapM_map_ok;
     [|intros od Hin; pose proof (Forall_combine_snd _ _ _ Hdecls od Hin) as [? [? [? ?]]];
       apply op_decl_sexp_ok; assumption]);
    cbn [rbind];
    (rewrite mapM_map_ok;
     [|intros ln Hin; apply loc_decl_sexp_ok; exact (Forall_combine_snd _ _ _ Hdims ln Hin)]);
    cbn [rbind];
    rewrite !map_fst_combine, !map_snd_combine by assumption;
    rewrite !distinct_ok by first [assumption|intros ? ? []];
    cbn [rbind];
    (replace (Nat.ltb max_heap_size (fold_left (fun a n => a + n) dims 0)) with false
      by (symmetry; apply Nat.ltb_ge; exact Htotal));
    (rewrite mapM_map_ok;
     [|intros e Hin; rewrite Forall_forall in Hgiven; destruct (Hgiven e Hin);
       apply entry_sexp_ok; assumption]);
    cbn [rbind];
    rewrite distinct_ok by first [assumption|intros ? ? []];
    cbn [rbind];
    rewrite (cmd_of_print_closed vo io io_nat_num io_num_inj io_floats_atoms ops locs Hops Hlocs main max_depth
               Hmain Hfmain);
    cbn [rbind]; [rewrite Hfuel'|]; reflexivity.
Qed.


(** ** Every size the reader reads is one of two numbers at most [max_nat] *)

Definition dims_prod (ns : list nat) : nat := fold_right Nat.mul 1 ns.

Lemma dims_prod_app l1 l2 : dims_prod (l1 ++ l2) = dims_prod l1 * dims_prod l2.
Proof. unfold dims_prod. induction l1 as [|x l1 IH]; cbn [app fold_right]; [lia|]. rewrite IH. lia. Qed.

Lemma max_nat_ge_sq : 100 * 100 <= max_nat.
Proof. Transparent max_nat. unfold max_nat, ten. Opaque max_nat. lia. Qed.

(** Factors below 100, and a prefix [q] below 100: group a prefix whose
    product passes 100 (it stays below 100², within [max_nat]). *)
Lemma split_small ns : Forall (fun f => f < 100) ns -> forall q, q < 100 -> q * dims_prod ns <= 100 * max_nat ->
  exists d e, d <= max_nat /\ e <= max_nat /\ d * e = q * dims_prod ns.
Proof.
  pose proof max_nat_ge_sq as Hsq.
  induction 1 as [|f ns Hf Hns IH]; intros q Hq Hle.
  - exists q, 1. cbn. split; [lia|split; lia].
  - cbn [dims_prod fold_right] in *. fold (dims_prod ns) in *.
    destruct (Nat.ltb_spec (q * f) 100) as [Hs|Hs].
    + destruct (IH (q * f) Hs) as [d [e [Hd [He Hde]]]]; [nia|]. exists d, e. split; [exact Hd|split; [exact He|nia]].
    + exists (q * f), (dims_prod ns). split; [nia|]. split; [|lia].
      assert (Hb : 100 * dims_prod ns <= q * f * dims_prod ns) by (apply Nat.mul_le_mono_r; exact Hs). nia.
Qed.

Lemma size_split ns : Forall (fun f => f <= max_nat) ns -> dims_prod ns <= max_loc_size ->
  exists d e, d <= max_nat /\ e <= max_nat /\ d * e = dims_prod ns.
Proof.
  rewrite max_loc_size_eq. intros Hns Hle. destruct (existsb (Nat.leb 100) ns) eqn:E.
  - apply existsb_exists in E as [f [Hin Hf]]. apply Nat.leb_le in Hf.
    apply in_split in Hin as [l1 [l2 ->]]. rewrite Forall_forall in Hns.
    assert (Hfm : f <= max_nat) by (apply Hns, in_or_app; right; left; reflexivity).
    rewrite dims_prod_app in *. cbn [dims_prod fold_right] in *. fold (dims_prod l2) in *.
    exists f, (dims_prod l1 * dims_prod l2). split; [exact Hfm|split; [|lia]].
    assert (Hb : 100 * (dims_prod l1 * dims_prod l2) <= f * (dims_prod l1 * dims_prod l2))
      by (apply Nat.mul_le_mono_r; exact Hf).
    nia.
  - assert (Hs : Forall (fun f => f < 100) ns).
    { apply Forall_forall. intros x Hx. destruct (Nat.leb_spec 100 x) as [Hx'|]; [|lia].
      exfalso. assert (Hex : existsb (Nat.leb 100) ns = true)
        by (apply existsb_exists; exists x; split; [exact Hx|apply Nat.leb_le, Hx']). congruence. }
    destruct (split_small ns Hs 1 ltac:(lia) ltac:(lia)) as [d [e [Hd [He Hde]]]].
    exists d, e. split; [exact Hd|split; [exact He|lia]].
Qed.

Lemma loc_size_big acc l r : max_loc_size < acc -> loc_size io acc l = Ok r -> r = acc.
Proof.
  revert acc. induction l as [|s l IH]; intros acc Hacc H; cbn [loc_size] in H; [congruence|].
  destruct (nat_of io s) as [k|]; cbn [rbind] in H; [|discriminate].
  replace (Nat.ltb max_loc_size acc) with true in H by (symmetry; apply Nat.ltb_lt; exact Hacc).
  exact (IH acc Hacc H).
Qed.

Lemma loc_size_prod l : forall acc r, loc_size io acc l = Ok r -> r <= max_loc_size ->
  exists ns, Forall (fun f => f <= max_nat) ns /\ r = acc * dims_prod ns.
Proof.
  induction l as [|s l IH]; intros acc r H Hr; cbn [loc_size] in H.
  - injection H as <-. exists []. split; [constructor|cbn; lia].
  - destruct (nat_of io s) as [k|] eqn:Ek; cbn [rbind] in H; [|discriminate].
    apply (nat_of_le io) in Ek. destruct (Nat.ltb_spec max_loc_size acc) as [Hb|Hb].
    + apply loc_size_big in H; [lia|exact Hb].
    + destruct (IH _ _ H Hr) as [ns [Hns ->]]. exists (k :: ns). split; [constructor; assumption|].
      cbn [dims_prod fold_right]. fold (dims_prod ns). lia.
Qed.

(** ** What the reader reads, the printer prints back *)

Lemma distinct_nodup what seen names :
  distinct what seen names = Ok tt -> NoDup names /\ forall x, In x names -> ~ In x seen.
Proof.
  revert seen. induction names as [|n names IH]; intros seen H; [split; [constructor|intros ? []]|].
  cbn [distinct] in H. destruct (existsb (String.eqb n) seen) eqn:E; [discriminate|].
  destruct (IH _ H) as [Hnd Hdis]. split.
  - constructor; [|exact Hnd]. intros Hin. exact (Hdis n Hin (or_introl eq_refl)).
  - intros x [Hx|Hx] Hin.
    + subst x. assert (Hex : existsb (String.eqb n) seen = true)
        by (apply existsb_exists; exists n; split; [exact Hin|apply String.eqb_refl]). congruence.
    + exact (Hdis x Hx (or_intror Hin)).
Qed.

(** [reader_spec.v]'s [spec_inv]. *)
Ltac print_inv := spec_inv.

Lemma op_decl_readable s od : op_decl io s = Ok od ->
  @ty_printable Vec (fst (snd od)) /\ @ty_fuel Vec (fst (snd od)) <= max_depth /\
  @ty_printable Vec (snd (snd od)) /\ @ty_fuel Vec (snd (snd od)) <= max_depth.
Proof.
  unfold op_decl. intros H. print_inv. cbn [fst snd].
  repeat match goal with E : ty_of _ _ _ = Ok _ |- _ => apply ty_of_readable in E; destruct E end.
  tauto.
Qed.

Lemma loc_decl_readable s ln : loc_decl io s = Ok ln -> size_ok (snd ln).
Proof.
  unfold loc_decl. intros H. print_inv. cbn [snd].
  match goal with E : loc_size _ 1 _ = Ok ?n, L : Nat.ltb max_loc_size ?n = false |- _ =>
    apply Nat.ltb_ge in L; destruct (loc_size_prod _ _ _ E L) as [ns [Hns ->]] end.
  split; [lia|]. rewrite Nat.mul_1_l. apply size_split; [exact Hns|lia].
Qed.

Lemma entry_of_readable lnames dims unknown what s e :
  entry_of vo io lnames dims unknown what s = Ok e -> fst e < length lnames /\ v_len vo (snd e) = nth (fst e) dims 0.
Proof.
  unfold entry_of. intros H. print_inv; try discriminate. cbn [fst snd]. split.
  - eapply index_of_lt. eassumption.
  - match goal with E : Nat.eqb _ _ = true |- _ => apply Nat.eqb_eq in E; exact E end.
Qed.

(** Everything the reader reads is a program [program_ok] describes. *)
(** Informal proof: invert the reader's chain of checks; each gives one
    conjunct: the declarations' types from [ty_of_readable], the sizes
    from [loc_size_prod] and [size_split], the names' distinctness from
    [distinct_nodup], the heap entries from [entry_of_readable], the main
    command from [cmd_of_readable] (reader_spec.v), the fuel from
    [nat_of_le]. *)
Theorem read_program_ok s p : read_program vo io s = Ok p -> program_ok p.
Proof.
  unfold read_program, read_fields. intros H.
  destruct s as [|[|[k|] fields]]; try discriminate.
  destruct (String.eqb k "program"); [|discriminate].
  print_inv; try discriminate.
  all: repeat match goal with
       | u : unit |- _ => destruct u
       | E : distinct _ _ _ = Ok tt |- _ => apply distinct_nodup in E as [? _]
       | E : Nat.ltb max_heap_size _ = false |- _ => apply Nat.ltb_ge in E
       | E : nat_of _ _ = Ok _ |- _ => apply (nat_of_le io) in E
       | E : cmd_of _ _ _ _ max_depth [] _ = Ok _ |- _ => apply (proj1 (cmd_of_readable vo io _ _ _)) in E as [? ?]
       end.
  all: match goal with
       | E1 : mapM (op_decl _) _ = Ok ?ops, E2 : mapM (loc_decl _) _ = Ok ?locs,
         E3 : mapM (entry_of _ _ _ _ _ _) _ = Ok ?given |- _ =>
           pose proof (mapM_Forall _ _ _ _ E1 (fun s od H => op_decl_readable s od H)) as F1;
           pose proof (mapM_Forall _ _ _ _ E2 (fun s ln H => loc_decl_readable s ln H)) as F2;
           pose proof (mapM_Forall _ _ _ _ E3 (fun s e H => entry_of_readable _ _ _ _ s e H)) as F3
       end.
  all: rewrite ?map_length in F3.
  all: unfold program_ok; cbn [p_ops p_decls p_locs p_dims p_given p_main p_fuel].
  all: rewrite ?map_length; repeat split; try assumption; try exact I; try (rewrite Forall_map; assumption).
Qed.

(** Read, print, read: the same program.  The reader fixes a program up
    to the names of the binders of its text. *)
Corollary read_reprint_program s p :
  read_program vo io s = Ok p -> read_program vo io (print_program p) = Ok p.
Proof. intros H. apply read_print_program, (read_program_ok s), H. Qed.

End printer_spec.

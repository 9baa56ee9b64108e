(** * A meaning of commands and of [rev handle] over ℝ, without [RH]

    A command denotes, in an environment [ρ] of trees of real vectors
    ([rv], [denot.v]), a computation of the free model over the operation
    symbols ([comp]): a tree whose nodes are operation calls [Op(a)] with
    a continuation for every possible result, and whose leaves are the
    returned values.  [Get[ℓ]] and [Put[ℓ]] are operation calls like the
    others; a closed program and a heap denote the final value and heap
    obtained by answering them from the heap ([hrun]).

    [rev handle(V)<x⃗>.R with H] is read as the paper's string diagram
    (§2, §6; [docs/decisions.md], "What a rev handle means over ℝ").  The
    body, as a function [F] of the tuple [x] of its binders, is a chain
<<
      g₀ ; Op₁ ; g₁ ; Op₂ ; … ; Opₙ ; gₙ
>>
    where [g_{i−1}] maps everything in scope before [Opᵢ] (the binders and
    the results of [Op₁ … Op_{i−1}]) to [Opᵢ]'s argument ([harg]) and [gₙ]
    to the result.  [revh] runs, in order:
    - forward: for [i = 1 … n], the forward clause [Q^f_{Opᵢ}] at
      [g_{i−1}(env)], which gives the result [bᵢ] bound in scope and a
      residual [dᵢ];
    - turn: the return clause [P] at [gₙ(env)], which gives a cotangent;
    - backward: for [i = n … 1], the cotangent of everything in scope is
      pulled back: through [gₙ] first, then at [Opᵢ] the cotangent held
      for [bᵢ] goes to the backward clause [Q^b_{Opᵢ}] with [dᵢ], whose
      answer is pulled back through [g_{i−1}]; every pull-back is the real
      reverse derivative [rd_den] (Coquelicot's [Derive]) of the pure map
      as a function of the whole environment, and the pulled-back
      cotangents are added ([radd]).
    The answer is the cotangent of [x].  [revh] is one recursion on the
    computation tree: the result [bᵢ] becomes the first component of the
    environment of the rest of the chain ([ext]).  Nothing of the [RH]
    rewriting (its cases RH-1a … RH-4, the decomposition of the body, [rd]
    terms) appears: [cmd_sound.v] proves that the rewriting computes this
    meaning.

    Handlers: an operation without an explicit clause gets the default
    clause's meaning ([dflt_fwd], [dflt_bwd]: perform it again outwards,
    contribute a zero cotangent; [cden_default_clause]).  Operations of an
    inner handler's clauses are operations of the outer body; a nested
    [rev handle] is a sub-chain whose own pull-backs are pure maps of the
    outer chain. *)
From Coq Require Import Reals Lra List Lia FunctionalExtensionality.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem cmd_ctx cmd_sem instance.
From RevHandlers.Analysis Require Import vec sums prims denot rdsound.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

(** ** The free model of the operations *)
Inductive comp : Type :=
| CRet (v : rv)
| CCall (o : opsym) (a : rv) (k : rv -> comp).

Fixpoint bind (t : comp) (f : rv -> comp) : comp :=
  match t with
  | CRet v => f v
  | CCall o a k => CCall o a (fun y => bind (k y) f)
  end.

Lemma bind_ret t : bind t CRet = t.
Proof.
  induction t as [v|o a k IH]; simpl; [reflexivity|].
  f_equal. apply functional_extensionality. exact IH.
Qed.

Lemma bind_assoc t f g : bind (bind t f) g = bind t (fun v => bind (f v) g).
Proof.
  induction t as [v|o a k IH]; simpl; [reflexivity|].
  f_equal. apply functional_extensionality. exact IH.
Qed.

(** ** Trees: components, the environment of a tuple, sums *)
Definition rnth (i : nat) (t : rv) : rv :=
  match t with RNode ts => nth i ts (RNode []) | RLeaf _ => RNode [] end.
Definition rcons (b t : rv) : rv :=
  match t with RNode ts => RNode (b :: ts) | RLeaf _ => RNode [b] end.
Definition rtail (t : rv) : rv :=
  match t with RNode (_ :: ts) => RNode ts | _ => RNode [] end.
(** The environment of a body whose binders hold the components of [t]. *)
Definition envof (t : rv) : nat -> rv := fun i => rnth i t.
(** The sum of two trees of the same shape. *)
Definition radd (s t : rv) : rv := reshape s (vp (rflat s) (rflat t)).
Definition rleaf (t : rv) : vec := match t with RLeaf v => v | RNode _ => [] end.

Definition rho0 : nat -> rv := fun _ => RNode [].

(** ** Trees of a type's shape, decided *)
Fixpoint fitsb (A : ty) (t : rv) {struct A} : bool :=
  match A, t with
  | TBase n, RLeaf v => Nat.eqb (length v) n
  | TProd As, RNode ts =>
      (fix go (As : list ty) (ts : list rv) : bool :=
         match As, ts with
         | [], [] => true
         | A :: As', t :: ts' => fitsb A t && go As' ts'
         | _, _ => false
         end) As ts
  | _, _ => false
  end.

Lemma fitsb_spec A : forall t, fitsb A t = true <-> fits A t.
Proof.
  induction A as [n|As IH] using ty_ind'; intros [v|ts]; simpl.
  - rewrite Nat.eqb_eq. split; [intros; constructor; auto|intros Hf; inversion Hf; auto].
  - split; [discriminate|intros Hf; inversion Hf].
  - split; [discriminate|intros Hf; inversion Hf].
  - transitivity (Forall2 fits As ts); [|split; [intros; constructor; auto|intros Hf; inversion Hf; auto]].
    revert ts. induction IH as [|A As HA HAs IHl]; intros [|t ts]; simpl.
    + split; auto.
    + split; [discriminate|intros Hf; inversion Hf].
    + split; [discriminate|intros Hf; inversion Hf].
    + rewrite Bool.andb_true_iff, HA, IHl. split; [intros [? ?]; constructor; auto|intros Hf; inversion Hf; auto].
Qed.

(** ** The chain of a computation family *)
(** The argument of the first operation (or the returned value). *)
Definition harg (t : comp) : rv := match t with CCall _ a _ => a | CRet v => v end.
(** The rest of the chain once the first operation answered [y]. *)
Definition cont (t : comp) (y : rv) : comp := match t with CCall _ _ k => k y | CRet _ => t end.
(** The rest of the chain as a function of [(y, everything in scope)]. *)
Definition ext (F : rv -> comp) : rv -> comp := fun p => cont (F (rtail p)) (rnth 0 p).

(** ** The meaning of a handler *)
Record hmean : Type := {
  hret : rv -> comp;                    (** [x ↦ P] *)
  hfwd : opsym -> rv -> comp;           (** [x ↦ Q^f_Op] *)
  hbwd : opsym -> rv -> rv -> comp;     (** [y, z ↦ Q^b_Op] *)
}.

Section meaning.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σc : signature := exec_signature Rvo decls locs.

(** A continuation reads the answer of an operation at the shape of its
    arity: the answer itself when it has that shape (always, in a
    well-typed run: [hrun] with a heap of the right shapes), else [0_B]. *)
Definition coerce (B : ty) (y : rv) : rv := if fitsb B y then y else den rho0 (zero B).

Lemma coerce_fits B y : fits B y -> coerce B y = y.
Proof. intros H. unfold coerce. apply fitsb_spec in H. rewrite H. reflexivity. Qed.

(** The default clause: perform [Op] again outwards and return
    [<y, 0>]; backwards, the zero cotangent of the coarity. *)
Definition dflt_fwd (o : opsym) (a : rv) : comp :=
  CCall o a (fun y => CRet (RNode [coerce (ar o) y; RLeaf (snd (czero unit_base))])).
Definition dflt_bwd (o : opsym) (y z : rv) : comp := CRet (den rho0 (zero (coar o))).

(** The forward/backward pass over the chain of [F] at [v] ([t] is [F v]). *)
Fixpoint revh_aux (h : hmean) (t : comp) (F : rv -> comp) (v : rv) {struct t} : comp :=
  match t with
  | CRet c =>
      bind (hret h c) (fun cb => CRet (rd_den cb v (fun x => harg (F x))))
  | CCall o a k =>
      bind (hfwd h o a) (fun bd =>
      bind (revh_aux h (k (rnth 0 bd)) (ext F) (rcons (rnth 0 bd) v)) (fun q =>
      bind (hbwd h o (rnth 0 q) (rnth 1 bd)) (fun ab =>
      CRet (radd (rtail q) (rd_den ab v (fun x => harg (F x)))))))
  end.

Definition revh (h : hmean) (F : rv -> comp) (v : rv) : comp := revh_aux h (F v) F v.

(** [cden ρ P]: the meaning of [P] in [ρ]; [hden H], [clsden cls]: the
    meanings of a handler and of its explicit clauses. *)
Fixpoint cden (ρ : nat -> rv) (P : cmd) {struct P} : comp :=
  match P with
  | Ret M => CRet (den ρ M)
  | Op o M => CCall o (den ρ M) (fun y => CRet (coerce (ar o) y))
  | CLet P Q => bind (cden ρ P) (fun v => cden (scons v ρ) Q)
  | RevHandle M R H => revh (hden H) (fun x => cden (envof x) R) (den ρ M)
  end
with hden (H : handler) : hmean :=
  match H with
  | Handler P cls =>
      {| hret := fun c => cden (scons c rho0) P;
         hfwd := fun o => match clsden cls o with Some (f, _) => f | None => dflt_fwd o end;
         hbwd := fun o => match clsden cls o with Some (_, g) => g | None => dflt_bwd o end |}
  end
with clsden (cls : clauses) : opsym -> option ((rv -> comp) * (rv -> rv -> comp)) :=
  match cls with
  | CNil => fun _ => None
  | CCons o' _ Qf Qb rest =>
      fun o => if opsym_eq_dec o o'
               then Some (fun a => cden (scons a rho0) Qf,
                          fun y z => cden (scons y (scons z rho0)) Qb)
               else clsden rest o
  end.

(** ** Programs with a heap *)
(** Answer [Get] and [Put] from the heap; an operation of the program's
    own reaching the top level has no meaning ([None]). *)
Fixpoint hrun (hp : heap) (t : comp) {struct t} : option (rv * heap) :=
  match t with
  | CRet v => Some (v, hp)
  | CCall (OpGet l) _ k => hrun hp (k (RLeaf (snd (heap_lookup hp l))))
  | CCall (OpPut l) a k =>
      hrun (heap_update hp l (loc_base l, rleaf a)) (k (RLeaf (snd (czero unit_base))))
  | CCall (OpUser _) _ _ => None
  end.

(** The meaning of a closed program [P] run from the heap [hp]: its final
    value and heap. *)
Definition prog_den (hp : heap) (P : cmd) : option (rv * heap) := hrun hp (cden rho0 P).

(** ** Unfolding and sanity lemmas *)
Lemma cden_ret ρ M : cden ρ (Ret M) = CRet (den ρ M).
Proof. reflexivity. Qed.

Lemma cden_op ρ o M : cden ρ (Op o M) = CCall o (den ρ M) (fun y => CRet (coerce (ar o) y)).
Proof. reflexivity. Qed.

Lemma cden_clet ρ P Q : cden ρ (CLet P Q) = bind (cden ρ P) (fun v => cden (scons v ρ) Q).
Proof. reflexivity. Qed.

Lemma cden_revhandle ρ M R H :
  cden ρ (RevHandle M R H) = revh (hden H) (fun x => cden (envof x) R) (den ρ M).
Proof. reflexivity. Qed.

Lemma hrun_bind hp t f :
  hrun hp (bind t f) = match hrun hp t with Some (v, hp') => hrun hp' (f v) | None => None end.
Proof.
  revert hp. induction t as [v|o a k IH]; intros hp; simpl; [reflexivity|].
  destruct o as [o|l|l]; auto.
Qed.

(** The explicit clause of [o] if there is one, as [clause_of] finds it. *)
Lemma clsden_find cls o :
  match find_clause o cls with
  | Some (D, Qf, Qb) => clsden cls o = Some (fun a => cden (scons a rho0) Qf,
                                            fun y z => cden (scons y (scons z rho0)) Qb)
  | None => clsden cls o = None
  end.
Proof.
  induction cls as [|o' D Qf Qb rest IH]; simpl; [reflexivity|].
  destruct (opsym_eq_dec o o'); [reflexivity|exact IH].
Qed.

(** [0_A] is closed. *)
Lemma den_zero_env A ρ ρ' : den ρ (zero A) = den ρ' (zero A).
Proof.
  induction A as [n|As IH] using ty_ind'; simpl; [reflexivity|].
  f_equal. rewrite !map_map. apply map_ext_in. intros A HA.
  rewrite Forall_forall in IH. apply IH. exact HA.
Qed.

(** The meaning of the default clause is the default clause's commands'. *)
Lemma cden_default_clause o :
  let '(_, Qf, Qb) := default_clause o in
  (forall a, cden (scons a rho0) Qf = dflt_fwd o a) /\
  (forall y z, cden (scons y (scons z rho0)) Qb = dflt_bwd o y z).
Proof.
  unfold default_clause. split; intros; simpl; [reflexivity|].
  unfold dflt_bwd. f_equal. apply den_zero_env.
Qed.

(** The handler's clause for [o] is the meaning of [clause_of H o]. *)
Lemma hden_clause H o D Qf Qb :
  clause_of H o = (D, Qf, Qb) ->
  (forall a, hfwd (hden H) o a = cden (scons a rho0) Qf) /\
  (forall y z, hbwd (hden H) o y z = cden (scons y (scons z rho0)) Qb).
Proof.
  destruct H as [P cls]. simpl. pose proof (clsden_find cls o) as Hf.
  destruct (find_clause o cls) as [[[D' Qf'] Qb']|]; rewrite Hf.
  - intros [= <- <- <-]. split; reflexivity.
  - intros Hd. pose proof (cden_default_clause o) as Hc. rewrite Hd in Hc.
    destruct Hc as [H1 H2]. split; intros; symmetry; auto.
Qed.

Lemma hden_ret H c : hret (hden H) c = cden (scons c rho0) (ret_clause H).
Proof. destruct H. reflexivity. Qed.

End meaning.

Ltac cden_simpl := rewrite ?cden_ret, ?cden_op, ?cden_clet, ?cden_revhandle.

(** * Typing (paper Figs. 2-3, spec §4)

    Judgements:
    - [typed_tm Γ M A]      for [Γ ⊢ M : A];
    - [typed_cmd Δ P A]     for [⋄ ; Δ ⊢ P : A] (the pure context is always
      empty, decisions.md item 1, so commands have one context);
    - [typed_handler H C]   for [⊢r H : C];
    - [typed_clauses cls]   for the explicit clauses of a handler. *)
From RevHandlers Require Import prelude signature syntax subst.

(** Contexts grow at the front: index [0] is the head of the list. *)
Notation ctx := (list ty) (only parsing).

Section typing.
Context {Srt : sorts} {Σ : signature}.


(** ** Terms (Fig. 2) *)
Inductive typed_tm : ctx -> tm -> ty -> Prop :=
(**
<<
      x:A ∈ Γ
    ───────────  (T-Var)
     Γ ⊢ x : A
>> *)
| typed_tm_var Γ x A :
    nth_error Γ x = Some A ->
    typed_tm Γ (Var x) A
(**
<<
      c : 1 → β ∈ Σ_fun
    ─────────────────────  (T-Const)
         Γ ⊢ c : β
>> *)
| typed_tm_const Γ c :
    typed_tm Γ (Const c) (TBase (const_ty c))
(**
<<
     f : A → B ∈ Σ_fun    Γ ⊢ M : A
    ─────────────────────────────────  (T-Fun)
              Γ ⊢ f(M) : B
>> *)
| typed_tm_app Γ f M :
    typed_tm Γ M (fsym_dom f) ->
    typed_tm Γ (App f M) (fsym_cod f)
(**
<<
     Γ ⊢ M1 : β    Γ ⊢ M2 : β
    ───────────────────────────  (T-Add)
        Γ ⊢ M1 + M2 : β
>> *)
| typed_tm_add Γ M1 M2 b :
    typed_tm Γ M1 (TBase b) ->
    typed_tm Γ M2 (TBase b) ->
    typed_tm Γ (Add M1 M2) (TBase b)
(**
<<
         Γ ⊢ Mi : Ai   (i = 1..n)
    ──────────────────────────────────  (T-Tuple)
     Γ ⊢ <M1,…,Mn> : ∏_{i=1..n} Ai
>> *)
| typed_tm_tuple Γ Ms As :
    Forall2 (typed_tm Γ) Ms As ->
    typed_tm Γ (Tuple Ms) (TProd As)
(**
<<
     Γ ⊢ M : ∏_{j=1..n} Aj    1 ≤ i ≤ n
    ─────────────────────────────────────  (T-Proj)
            Γ ⊢ proj_i(M) : Ai
>> *)
| typed_tm_proj Γ M As i A :
    typed_tm Γ M (TProd As) ->
    nth_error As i = Some A ->
    typed_tm Γ (Proj i M) A
(**
<<
     Γ ⊢ M : A    x:A, Γ ⊢ N : B
    ──────────────────────────────  (T-Let)
      Γ ⊢ let x ← M in N : B
>> *)
| typed_tm_let Γ M N A B :
    typed_tm Γ M A ->
    typed_tm (A :: Γ) N B ->
    typed_tm Γ (Let M N) B
(**
<<
     Γ ⊢ M : B    x:A, Γ ⊢ N : B    Γ ⊢ L : A
    ────────────────────────────────────────────  (T-Rd)
             Γ ⊢ M.rd(x.N)(L) : A
>> *)
| typed_tm_rd Γ M N L A B :
    typed_tm Γ M B ->
    typed_tm (A :: Γ) N B ->
    typed_tm Γ L A ->
    typed_tm Γ (Rd M N L) A.

(** Induction on term typing with hypotheses for the tuple components. *)
Lemma typed_tm_ind' (P : ctx -> tm -> ty -> Prop)
    (Hvar : forall Γ x A, nth_error Γ x = Some A -> P Γ (Var x) A)
    (Hconst : forall Γ c, P Γ (Const c) (TBase (const_ty c)))
    (Happ : forall Γ f M, typed_tm Γ M (fsym_dom f) -> P Γ M (fsym_dom f) ->
            P Γ (App f M) (fsym_cod f))
    (Hadd : forall Γ M1 M2 b, typed_tm Γ M1 (TBase b) -> P Γ M1 (TBase b) ->
            typed_tm Γ M2 (TBase b) -> P Γ M2 (TBase b) -> P Γ (Add M1 M2) (TBase b))
    (Htuple : forall Γ Ms As, Forall2 (typed_tm Γ) Ms As -> Forall2 (P Γ) Ms As ->
              P Γ (Tuple Ms) (TProd As))
    (Hproj : forall Γ M As i A, typed_tm Γ M (TProd As) -> P Γ M (TProd As) ->
             nth_error As i = Some A -> P Γ (Proj i M) A)
    (Hlet : forall Γ M N A B, typed_tm Γ M A -> P Γ M A ->
            typed_tm (A :: Γ) N B -> P (A :: Γ) N B -> P Γ (Let M N) B)
    (Hrd : forall Γ M N L A B, typed_tm Γ M B -> P Γ M B ->
           typed_tm (A :: Γ) N B -> P (A :: Γ) N B ->
           typed_tm Γ L A -> P Γ L A -> P Γ (Rd M N L) A) :
  forall Γ M A, typed_tm Γ M A -> P Γ M A.
Proof.
  fix IH 4. intros Γ M A HM. destruct HM.
  - apply Hvar; assumption.
  - apply Hconst.
  - apply Happ; auto.
  - apply Hadd; auto.
  - apply Htuple; [assumption|]. induction H; constructor; auto.
  - eapply Hproj; eauto.
  - eapply Hlet; eauto.
  - eapply Hrd; eauto.
Qed.

(** ** Commands and handlers (Fig. 3) *)
Inductive typed_cmd : ctx -> cmd -> ty -> Prop :=
(**
<<
        Δ ⊢ M : A
    ─────────────────  (C-Ret)
     ⋄ ; Δ ⊢ ⌊M⌋ : A
>> *)
| typed_cmd_ret Δ M A :
    typed_tm Δ M A ->
    typed_cmd Δ (Ret M) A
(**
<<
     Op : A ▷ B ∈ Σ_op    Δ ⊢ M : A
    ─────────────────────────────────  (C-Op)
          ⋄ ; Δ ⊢ Op(M) : B
>> *)
| typed_cmd_op Δ o M :
    typed_tm Δ M (coar o) ->
    typed_cmd Δ (Op o M) (ar o)
(**
<<
     ⋄ ; Δ ⊢ P : A    ⋄ ; x:A, Δ ⊢ Q : B
    ──────────────────────────────────────  (C-Let)
        ⋄ ; Δ ⊢ let x ⇐ P in Q : B
>> *)
| typed_cmd_let Δ P Q A B :
    typed_cmd Δ P A ->
    typed_cmd (A :: Δ) Q B ->
    typed_cmd Δ (CLet P Q) B
(**
<<
     Δ ⊢ M : ∏ Ai    ⋄ ; x1:A1,…,xn:An ⊢ R : C    ⊢r H : C
    ────────────────────────────────────────────────────────  (C-Rev)
       ⋄ ; Δ ⊢ rev handle(M)<x1,…,xn>.R with H : ∏ Ai
>> *)
| typed_cmd_revhandle Δ M R H As C :
    typed_tm Δ M (TProd As) ->
    typed_cmd As R C ->
    typed_handler H C ->
    typed_cmd Δ (RevHandle M R H) (TProd As)
with typed_handler : handler -> ty -> Prop :=
(**
<<
     ⋄ ; x:C ⊢ P : C    ⊢ cls explicit clauses
    ─────────────────────────────────────────────  (H-Rev)
          ⊢r {x ↦ P} ∪ cls : C
>>
    Every operation without an explicit clause gets the default clause,
    which is well typed ([default_clause_typed]); so this is the paper's
    rule with [D_Op] given for every [Op]. *)
| typed_handler_rev P cls C :
    typed_cmd [C] P C ->
    typed_clauses cls ->
    typed_handler (Handler P cls) C
with typed_clauses : clauses -> Prop :=
(**
<<
    ────────  (H-Nil)
     ⊢ []
>> *)
| typed_clauses_nil :
    typed_clauses CNil
(**
<<
     Op : A ▷ B    ⋄ ; x:A ⊢ Q^f : B × D    ⋄ ; y:B, z:D ⊢ Q^b : A    ⊢ cls
    ─────────────────────────────────────────────────────────────────────────  (H-Clause)
                     ⊢ (Op, D, x ↦ Q^f | y,z ↦ Q^b) :: cls
>> *)
| typed_clauses_cons o D Qf Qb rest :
    typed_cmd [coar o] Qf (TPair (ar o) D) ->
    typed_cmd [ar o; D] Qb (coar o) ->
    typed_clauses rest ->
    typed_clauses (CCons o D Qf Qb rest).

Scheme typed_cmd_mut := Induction for typed_cmd Sort Prop
  with typed_handler_mut := Induction for typed_handler Sort Prop
  with typed_clauses_mut := Induction for typed_clauses Sort Prop.
Combined Scheme typed_mutind from typed_cmd_mut, typed_handler_mut, typed_clauses_mut.

(** ** Derived zero and sum (spec §4.4, decisions.md item 5) *)

(** [0_A]: [0_β] at base types, the tuple of zeros at products. *)
Fixpoint zero (A : ty) : tm :=
  match A with
  | TBase b => Const (czero b)
  | TProd As => Tuple (map zero As)
  end.

(** [M +_A N]: [+] at base types; at [∏ Ai],
    [let a ← M in let b ← N in <proj_i a +_{Ai} proj_i b>_i]. *)
Fixpoint plus (A : ty) (M N : tm) {struct A} : tm :=
  match A with
  | TBase _ => Add M N
  | TProd As =>
      Let M (Let (shift N)
        (Tuple ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                   match As with
                   | [] => []
                   | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                   end) 0 As)))
  end.

(** ** Handler clauses and the default clause (decisions.md item 8) *)
Fixpoint find_clause (o : opsym) (cls : clauses) : option (ty * cmd * cmd) :=
  match cls with
  | CNil => None
  | CCons o' D Qf Qb rest =>
      if opsym_eq_dec o o' then Some (D, Qf, Qb) else find_clause o rest
  end.

(** [(x ↦ let y ⇐ Op(x) in ⌊<y, 0>⌋ | y,z ↦ ⌊0⌋)] with [D_Op = Real(0)]:
    the operation is performed again outside the handler and contributes a
    zero cotangent. *)
Definition default_clause (o : opsym) : ty * cmd * cmd :=
  (TBase unit_base,
   CLet (Op o (Var 0)) (Ret (Tuple [Var 0; zero (TBase unit_base)])),
   Ret (zero (coar o))).

Definition clause_of (H : handler) (o : opsym) : ty * cmd * cmd :=
  match H with
  | Handler _ cls =>
      match find_clause o cls with Some c => c | None => default_clause o end
  end.

Definition ret_clause (H : handler) : cmd :=
  match H with Handler P _ => P end.

(** [Some] of every element, or [None]. *)
Fixpoint all_some {X} (l : list (option X)) : option (list X) :=
  match l with
  | [] => Some []
  | Some x :: l' => match all_some l' with Some xs => Some (x :: xs) | None => None end
  | None :: _ => None
  end.

(** ** Type inference for terms.  Typing is syntax directed, so the type of
    a well-typed term is computed; [typed_tm_unique] follows. *)
Fixpoint infer_tm (Γ : ctx) (M : tm) : option ty :=
  match M with
  | Var x => nth_error Γ x
  | Const c => Some (TBase (const_ty c))
  | App f M =>
      match infer_tm Γ M with
      | Some A => if ty_eq_dec A (fsym_dom f) then Some (fsym_cod f) else None
      | None => None
      end
  | Add M1 M2 =>
      match infer_tm Γ M1, infer_tm Γ M2 with
      | Some (TBase b1), Some (TBase b2) =>
          if base_eq_dec b1 b2 then Some (TBase b1) else None
      | _, _ => None
      end
  | Tuple Ms =>
      match all_some (map (infer_tm Γ) Ms) with
      | Some As => Some (TProd As)
      | None => None
      end
  | Proj i M =>
      match infer_tm Γ M with
      | Some (TProd As) => nth_error As i
      | _ => None
      end
  | Let M N =>
      match infer_tm Γ M with
      | Some A => infer_tm (A :: Γ) N
      | None => None
      end
  | Rd M N L =>
      match infer_tm Γ M, infer_tm Γ L with
      | Some B, Some A =>
          match infer_tm (A :: Γ) N with
          | Some B' => if ty_eq_dec B B' then Some A else None
          | None => None
          end
      | _, _ => None
      end
  end.

End typing.

(** ** [Ev] respects types (paper §5.1: [Ev_{A,B} : Σ_fun(A,B) × Val_A ⇀ Val_B]). *)
Class evaluator_ok {Srt : sorts} {Σ : signature} {E : evaluator} := {
  ev_typed : forall f V V',
    value V -> typed_tm [] V (fsym_dom f) -> ev f V = Some V' ->
    value V' /\ typed_tm [] V' (fsym_cod f);
}.

(** * A type checker for terms with annotated binders

    [atm] is [tm] with the type of the bound variable on [λx:σ.S],
    [(λx:σ.S1)* · S2] and [(Ω λx:σ.P) · S] ([erase] drops them).  The
    checker is bidirectional, in one function [tc Γ a exp]: with
    [exp = None] it infers a type, with [exp = Some A] it checks [A] and
    answers [Some A].  [0] and numeric duals with [0] entries only check
    (they have every type); an abstraction, a pair and a sum check their
    parts against the expected type; a dual map and a pullback infer their
    body, or else their argument, and check the other against it.
    [tc] is one step [tc_step] tied to itself; the checker of the typed
    premise ([ztyped_infer.v]) is another instance of the same step, and
    both are sound by one proof ([tc_step_sound]).
    [infer Γ a = Some A] and [check Γ a A = true] give [typed Γ (erase a) A]
    ([infer_sound], [check_sound]); the linearity side condition of (dual)
    is decided by [linb] ([decide.v]).  Type equality is decidable
    ([ty_eq_dec]). *)
From Pullback Require Import syntax typing decide.

Definition ty_eq_dec (A B : ty) : {A = B} + {A <> B}.
Proof. decide equality. Defined.

Section infer.
Context {Σ : signature}.

Inductive atm : Type :=
| XVar (n : nat)
| XLam (A : ty) (s : atm)
| XApp (s p : atm)
| XProj (i : bool) (s : atm)
| XPair (s1 s2 : atm)
| XReal (r : scalar)
| XFun (f : fsym) (p : atm)
| XJac (f : fsym) (s : atm)
| XDual (A : ty) (s1 s2 : atm)
| XPb (A : ty) (p s : atm)
| XNDual (r : num scalar)
| XZero
| XPlus (s p : atm)
| XLet (e l : atm).

Fixpoint erase (a : atm) : tm :=
  match a with
  | XVar n => Var n
  | XLam _ s => Lam (erase s)
  | XApp s p => App (erase s) (erase p)
  | XProj i s => Proj i (erase s)
  | XPair s1 s2 => Pair (erase s1) (erase s2)
  | XReal r => Real r
  | XFun f p => Fun f (erase p)
  | XJac f s => Jac f (erase s)
  | XDual _ s1 s2 => Dual (erase s1) (erase s2)
  | XPb _ p s => Pb (erase p) (erase s)
  | XNDual r => NDual r
  | XZero => Zero
  | XPlus s p => Plus (erase s) (erase p)
  | XLet e l => Let (erase e) (erase l)
  end.

(** The type of a numeric tuple without [0] entries, and the check of a
    numeric tuple against a type. *)
Fixpoint num_shape (r : num scalar) : option ty :=
  match r with
  | NR _ => Some TR
  | NP a b => match num_shape a, num_shape b with
              | Some A, Some B => Some (TProd A B)
              | _, _ => None
              end
  | NZ => None
  end.

Fixpoint num_tyb (r : num scalar) (σ : ty) : bool :=
  match r, σ with
  | NR _, TR => true
  | NP a b, TProd A B => num_tyb a A && num_tyb b B
  | NZ, _ => true
  | _, _ => false
  end.

Lemma num_shape_sound r σ : num_shape r = Some σ -> num_ty r σ.
Proof.
  revert σ. induction r as [x|a IHa b IHb|]; simpl; intros σ H; try discriminate.
  - injection H as <-. constructor.
  - destruct (num_shape a) as [A|]; [|discriminate].
    destruct (num_shape b) as [B|]; [|discriminate]. injection H as <-. constructor; auto.
Qed.

Lemma num_tyb_sound r σ : num_tyb r σ = true -> num_ty r σ.
Proof.
  revert σ. induction r as [x|a IHa b IHb|]; intros σ H; destruct σ; simpl in H;
    try discriminate; try (constructor; fail).
  apply Bool.andb_true_iff in H as [H1 H2]. constructor; auto.
Qed.

(** The binder types written in a term. *)
Fixpoint atys (a : atm) : list ty :=
  match a with
  | XLam A s => A :: atys s
  | XDual A s1 s2 | XPb A s1 s2 => A :: atys s1 ++ atys s2
  | XApp s p | XPair s p | XPlus s p | XLet s p => atys s ++ atys p
  | XProj _ s | XFun _ s | XJac _ s => atys s
  | _ => []
  end.

(** A type and its parts. *)
Fixpoint ty_parts (A : ty) : list ty :=
  A :: match A with
       | TProd B C | TArr B C => ty_parts B ++ ty_parts C
       | TDual B => ty_parts B
       | TR => []
       end.

(** A guess of the type of a term whose type cannot be inferred: its
    shape, [R] where nothing says more ([0], the body of [λx:A. 0]).  Only
    a candidate: every guess is checked. *)
Fixpoint guess (Γ : list ty) (a : atm) : ty :=
  match a with
  | XVar n => match nth_error Γ n with Some A => A | None => TR end
  | XLam A s => TArr A (guess (A :: Γ) s)
  | XApp s _ => match guess Γ s with TArr _ B => B | _ => TR end
  | XProj i s => match guess Γ s with TProd A B => if i then B else A | _ => TR end
  | XPair s1 s2 => TProd (guess Γ s1) (guess Γ s2)
  | XFun f _ => Rn (fcod f)
  | XJac f _ => TArr (Rn (fdom f)) (Rn (fcod f))
  | XDual A _ _ => TDual A
  | XPb A _ _ => TOmega A
  | XNDual r => match num_shape r with Some A => TDual A | None => TDual TR end
  | XPlus s _ => guess Γ s
  | XLet e l => guess (guess Γ e :: Γ) l
  | XReal _ | XZero => TR
  end.

(** The types tried for [z] in [let z = e in l] when [e]'s type cannot be
    inferred (a [0], a numeric dual with [0] entries, [λx:A. 0]): the guess
    of [e]'s type, [R], [R²], the expected type, and the binder types of
    [l] and their parts.  Each is checked, so the choice only decides which
    terms are accepted. *)
Definition let_candidates (Γ : list ty) (e : atm) (exp : option ty) (l : atm) : list ty :=
  guess Γ e :: TR :: Rn 2 :: match exp with Some A => [A] | None => [] end ++ flat_map ty_parts (atys l).

(** The first answer of [f] on [cs]. *)
Fixpoint first_ok (f : ty -> option ty) (cs : list ty) : option ty :=
  match cs with
  | [] => None
  | σ :: cs' => match f σ with Some B => Some B | None => first_ok f cs' end
  end.

Lemma first_ok_some f cs B : first_ok f cs = Some B -> exists σ, f σ = Some B.
Proof.
  induction cs as [|σ cs IH]; simpl; [discriminate|].
  destruct (f σ) as [B'|] eqn:E; [intros H; injection H as <-; eauto|exact IH].
Qed.

(** [zok z A]: may a sum or [0] stand at type [A]?  Always when [z] is
    [false] ([typed]); only at a dual type when [z] is [true] ([ztyped],
    [ztyped_infer.v]). *)
Definition zok (z : bool) (A : ty) : bool :=
  if z then match A with TDual _ => true | _ => false end else true.

#[global] Arguments zok !z A /.

(** One step of the checker: [rec] checks the parts, [body] the body of a
    dual map; [z] restricts sums and [0] to dual types ([zok]).  [tc] is
    [tc_step false] with [rec] and [body] itself. *)
Definition tc_step (z : bool) (rec body : list ty -> atm -> option ty -> option ty)
    (Γ : list ty) (a : atm) (exp : option ty) : option ty :=
  let ret (B : ty) : option ty :=
    match exp with
    | None => Some B
    | Some A => if ty_eq_dec A B then Some A else None
    end in
  match a with
  | XVar n => match nth_error Γ n with Some B => ret B | None => None end
  | XLam A s =>
      match exp with
      | Some (TArr A' C) =>
          if ty_eq_dec A A' then
            match rec (A :: Γ) s (Some C) with Some _ => Some (TArr A C) | None => None end
          else None
      | Some _ => None
      | None => match rec (A :: Γ) s None with Some C => Some (TArr A C) | None => None end
      end
  | XApp s p =>
      match rec Γ s None with
      | Some (TArr A B) => match rec Γ p (Some A) with Some _ => ret B | None => None end
      | Some _ => None
      | None =>
          (* a function whose type is not inferred ([λz:A. 0]): checked
             against the argument's type (inferred, or else guessed) and the
             expected one *)
          match exp with
          | Some B =>
              let A := match rec Γ p None with Some A => A | None => guess Γ p end in
              match rec Γ s (Some (TArr A B)), rec Γ p (Some A) with
              | Some _, Some _ => Some B
              | _, _ => None
              end
          | None => None
          end
      end
  | XProj i s =>
      match rec Γ s None with
      | Some (TProd A B) => ret (if i then B else A)
      | _ => None
      end
  | XPair s1 s2 =>
      match exp with
      | Some (TProd A1 A2) =>
          match rec Γ s1 (Some A1), rec Γ s2 (Some A2) with
          | Some _, Some _ => Some (TProd A1 A2)
          | _, _ => None
          end
      | Some _ => None
      | None =>
          match rec Γ s1 None, rec Γ s2 None with
          | Some A1, Some A2 => Some (TProd A1 A2)
          | _, _ => None
          end
      end
  | XReal _ => ret TR
  | XFun f p => match rec Γ p (Some (Rn (fdom f))) with Some _ => ret (Rn (fcod f)) | None => None end
  | XJac f s =>
      match rec Γ s (Some (Rn (fdom f))) with
      | Some _ => ret (TArr (Rn (fdom f)) (Rn (fcod f)))
      | None => None
      end
  | XDual A s1 s2 =>
      if linb is0b (erase s1) then
        match body (A :: Γ) s1 None with
        | Some τ => match rec Γ s2 (Some (TDual τ)) with Some _ => ret (TDual A) | None => None end
        | None =>
            match rec Γ s2 None with
            | Some (TDual τ) =>
                match body (A :: Γ) s1 (Some τ) with Some _ => ret (TDual A) | None => None end
            | _ => None
            end
        end
      else None
  | XPb A p s =>
      match rec (A :: Γ) p None with
      | Some τ => match rec Γ s (Some (TOmega τ)) with Some _ => ret (TOmega A) | None => None end
      | None =>
          match rec Γ s None with
          | Some (TArr τ (TDual τ')) =>
              if ty_eq_dec τ τ' then
                match rec (A :: Γ) p (Some τ) with Some _ => ret (TOmega A) | None => None end
              else None
          | _ => None
          end
      end
  | XNDual r =>
      match exp with
      | Some (TDual σ) => if num_tyb r σ then Some (TDual σ) else None
      | Some _ => None
      | None => match num_shape r with Some σ => Some (TDual σ) | None => None end
      end
  | XZero => if z then match exp with Some (TDual σ) => Some (TDual σ) | _ => None end else exp
  | XPlus s p =>
      match exp with
      | Some A =>
          if zok z A then
            match rec Γ s (Some A), rec Γ p (Some A) with
            | Some _, Some _ => Some A
            | _, _ => None
            end
          else None
      | None =>
          match rec Γ s None with
          | Some A =>
              if zok z A then match rec Γ p (Some A) with Some _ => Some A | None => None end else None
          | None =>
              match rec Γ p None with
              | Some A =>
                  if zok z A then match rec Γ s (Some A) with Some _ => Some A | None => None end else None
              | None => None
              end
          end
      end
  | XLet e l =>
      match rec Γ e None with
      | Some σ => rec (σ :: Γ) l exp
      | None =>
          first_ok (fun σ => match rec Γ e (Some σ) with Some _ => rec (σ :: Γ) l exp | None => None end)
                   (let_candidates Γ e exp l)
      end
  end.

#[global] Arguments tc_step z rec body Γ !a exp /.

Fixpoint tc (Γ : list ty) (a : atm) (exp : option ty) {struct a} : option ty :=
  tc_step false tc tc Γ a exp.


Definition infer (Γ : list ty) (a : atm) : option ty := tc Γ a None.

Definition check (Γ : list ty) (a : atm) (A : ty) : bool :=
  match tc Γ a (Some A) with Some _ => true | None => false end.

Lemma lin_is0_of t : linb is0b t = true -> lin is0 t.
Proof. apply linb_is0. Qed.

#[local] Arguments ty_eq_dec : simpl never.

#[local] Arguments first_ok : simpl never.

(** [ih_checked IH E H]: from [E : tc Γ s (Some A) = Some B] and the
    induction hypothesis [IH] on [s], [H : typed Γ (erase s) A]. *)
Ltac ih_checked IH E H :=
  let He := fresh "He" in destruct (IH _ _ _ E) as [H He]; rewrite (He _ eq_refl) in H; clear He.

(** The answer of [tc] for a term of type [T] once its parts are checked
    ([X] is some type): [T], checked against [exp] when there is one. *)
Lemma tc_ret_spec exp T B : forall X : option ty,
  match X with
  | Some _ => match exp with None => Some T | Some A0 => if ty_eq_dec A0 T then Some A0 else None end
  | None => None
  end = Some B -> B = T /\ (forall A0, exp = Some A0 -> B = A0).
Proof.
  intros [X|] HX; [|discriminate]. destruct exp as [A0|].
  - destruct (ty_eq_dec A0 T) as [->|]; [injection HX as <-|discriminate].
    split; [reflexivity|intros ? E; injection E as ->; reflexivity].
  - injection HX as <-. split; [reflexivity|discriminate].
Qed.

(** Soundness of one step, for any typing relation [R] with the rules of
    [typed] (a sum and [0] only at the types [zok z] allows) and a body
    checker sound for [Rb] (the relation of a dual map's body): [tc_sound]
    ([typed]) and [ztc_sound] ([ztyped], ztyped_infer.v) are instances. *)
Section tc_step_sound.
Variables R Rb : list ty -> tm -> ty -> Prop.
Variable z : bool.
Variables rec body : list ty -> atm -> option ty -> option ty.
Hypothesis rec_unfold : forall Γ a exp, rec Γ a exp = tc_step z rec body Γ a exp.
Hypothesis body_sound : forall a,
  (forall Γ exp B, rec Γ a exp = Some B -> R Γ (erase a) B /\ (forall A, exp = Some A -> B = A)) ->
  forall Γ exp B, body Γ a exp = Some B -> Rb Γ (erase a) B /\ (forall A, exp = Some A -> B = A).
Hypothesis R_zero : forall Γ A, zok z A = true -> R Γ Zero A.
Hypothesis R_plus : forall Γ s p A, zok z A = true -> R Γ s A -> R Γ p A -> R Γ (Plus s p) A.
Hypothesis R_var : forall Γ n A, nth_error Γ n = Some A -> R Γ (Var n) A.
Hypothesis R_lam : forall Γ s A C, R (A :: Γ) s C -> R Γ (Lam s) (TArr A C).
Hypothesis R_app : forall Γ s p A B, R Γ s (TArr A B) -> R Γ p A -> R Γ (App s p) B.
Hypothesis R_proj1 : forall Γ s A B, R Γ s (TProd A B) -> R Γ (Proj false s) A.
Hypothesis R_proj2 : forall Γ s A B, R Γ s (TProd A B) -> R Γ (Proj true s) B.
Hypothesis R_pair : forall Γ s1 s2 A1 A2, R Γ s1 A1 -> R Γ s2 A2 -> R Γ (Pair s1 s2) (TProd A1 A2).
Hypothesis R_real : forall Γ r, R Γ (Real r) TR.
Hypothesis R_fun : forall Γ f p, R Γ p (Rn (fdom f)) -> R Γ (Fun f p) (Rn (fcod f)).
Hypothesis R_jac : forall Γ f s,
  R Γ s (Rn (fdom f)) -> R Γ (Jac f s) (TArr (Rn (fdom f)) (Rn (fcod f))).
Hypothesis R_ndual : forall Γ r σ, num_ty r σ -> R Γ (NDual r) (TDual σ).
Hypothesis R_dual : forall Γ s1 s2 A τ,
  Rb (A :: Γ) s1 τ -> R Γ s2 (TDual τ) -> lin is0 s1 -> R Γ (Dual s1 s2) (TDual A).
Hypothesis R_pb : forall Γ p s A τ, R (A :: Γ) p τ -> R Γ s (TOmega τ) -> R Γ (Pb p s) (TOmega A).
Hypothesis R_let : forall Γ e l σ A, R Γ e σ -> R (σ :: Γ) l A -> R Γ (Let e l) A.

Ltac rule := first [apply R_real | eapply R_var | eapply R_lam | eapply R_app | eapply R_proj1
  | eapply R_proj2 | eapply R_pair | eapply R_fun | eapply R_jac | eapply R_ndual | eapply R_dual
  | eapply R_pb | eapply R_let].

Lemma tc_step_sound a : forall Γ exp B,
  rec Γ a exp = Some B -> R Γ (erase a) B /\ (forall A, exp = Some A -> B = A).
Proof.
  induction a as [n|A s IH|s IHs p IHp|i s IH|s1 IH1 s2 IH2|r|f p IH|f s IH|A s1 IH1 s2 IH2
                 |A p IHp s IHs|r| |s IHs p IHp|e IHe l IHl];
    intros Γ exp B H; rewrite rec_unfold in H; simpl in H |- *.
  - (* var *)
    destruct (nth_error Γ n) as [T|] eqn:En; [|discriminate].
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 T) as [<-|]; [injection H as <-|discriminate].
      split; [rule; exact En|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [rule; exact En|discriminate].
  - (* λ *)
    destruct exp as [[| |A' C|]|]; try discriminate.
    + destruct (ty_eq_dec A A') as [<-|]; [|discriminate].
      destruct (rec (A :: Γ) s (Some C)) as [C'|] eqn:Es; [|discriminate].
      injection H as <-. destruct (IH _ _ _ Es) as [Ht Heq].
      rewrite (Heq C eq_refl) in Ht. split; [rule; exact Ht|].
      intros ? E; injection E as ->; reflexivity.
    + destruct (rec (A :: Γ) s None) as [C|] eqn:Es; [|discriminate].
      injection H as <-. destruct (IH _ _ _ Es) as [Ht _].
      split; [rule; exact Ht|discriminate].
  - (* application *)
    destruct (rec Γ s None) as [[| |A1 B1|]|] eqn:Es; try discriminate.
    + destruct (rec Γ p (Some A1)) as [A2|] eqn:Ep; [|discriminate].
      destruct (IHs _ _ _ Es) as [Hs _]. destruct (IHp _ _ _ Ep) as [Hp Hpe].
      rewrite (Hpe A1 eq_refl) in Hp.
      destruct exp as [A0|].
      * destruct (ty_eq_dec A0 B1) as [<-|]; [injection H as <-|discriminate].
        split; [rule; eassumption|intros ? E; injection E as ->; reflexivity].
      * injection H as <-. split; [rule; eassumption|discriminate].
    + destruct exp as [B0|]; [|discriminate].
      set (A := match rec Γ p None with Some A => A | None => guess Γ p end) in H.
      destruct (rec Γ s (Some (TArr A B0))) as [C|] eqn:Es2; [|discriminate].
      destruct (rec Γ p (Some A)) as [A'|] eqn:Ep; [|discriminate].
      injection H as <-.
      ih_checked IHs Es2 Hs.
      ih_checked IHp Ep Hp.
      split; [rule; eassumption|intros ? E; injection E as ->; reflexivity].
  - (* projection *)
    destruct (rec Γ s None) as [[|A1 A2| |]|] eqn:Es; try discriminate.
    destruct (IH _ _ _ Es) as [Hs _].
    destruct i; destruct exp as [A0|].
    1: destruct (ty_eq_dec A0 A2) as [<-|]; [injection H as <-|discriminate].
    3: destruct (ty_eq_dec A0 A1) as [<-|]; [injection H as <-|discriminate].
    1, 3: split; [rule; eassumption|intros ? E; injection E as ->; reflexivity].
    all: injection H as <-; split; [rule; eassumption|discriminate].
  - (* pair *)
    destruct exp as [[|A1 A2| |]|]; try discriminate.
    + destruct (rec Γ s1 (Some A1)) as [B1|] eqn:E1; [|discriminate].
      destruct (rec Γ s2 (Some A2)) as [B2|] eqn:E2; [|discriminate].
      injection H as <-.
      ih_checked IH1 E1 H1. ih_checked IH2 E2 H2.
      split; [rule; assumption|intros ? E; injection E as ->; reflexivity].
    + destruct (rec Γ s1 None) as [A1|] eqn:E1; [|discriminate].
      destruct (rec Γ s2 None) as [A2|] eqn:E2; [|discriminate].
      injection H as <-.
      destruct (IH1 _ _ _ E1) as [H1 _]. destruct (IH2 _ _ _ E2) as [H2 _].
      split; [rule; assumption|discriminate].
  - (* real *)
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 TR) as [->|]; [injection H as <-|discriminate].
      split; [rule|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [rule|discriminate].
  - (* f(P) *)
    destruct (rec Γ p (Some (Rn (fdom f)))) as [Ap|] eqn:Ep; [|discriminate].
    ih_checked IH Ep Hp.
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 (Rn (fcod f))) as [->|]; [injection H as <-|discriminate].
      split; [rule; exact Hp|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [rule; exact Hp|discriminate].
  - (* J f · S *)
    destruct (rec Γ s (Some (Rn (fdom f)))) as [As|] eqn:Es; [|discriminate].
    ih_checked IH Es Hs.
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 (TArr (Rn (fdom f)) (Rn (fcod f)))) as [->|];
        [injection H as <-|discriminate].
      split; [rule; exact Hs|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [rule; exact Hs|discriminate].
  - (* dual map *)
    destruct (linb is0b (erase s1)) eqn:Hl; [|discriminate]. apply lin_is0_of in Hl.
    pose proof (body_sound s1 IH1) as IB1.
    assert (Hty : R Γ (Dual (erase s1) (erase s2)) (TDual A)).
    { destruct (body (A :: Γ) s1 None) as [τ|] eqn:E1.
      - destruct (rec Γ s2 (Some (TDual τ))) as [B2|] eqn:E2; [|destruct exp; discriminate].
        destruct (IB1 _ _ _ E1) as [H1 _]. ih_checked IH2 E2 H2.
        rule; eassumption.
      - destruct (rec Γ s2 None) as [[| | |τ]|] eqn:E2; try (destruct exp; discriminate).
        destruct (body (A :: Γ) s1 (Some τ)) as [B1|] eqn:E1'; [|destruct exp; discriminate].
        ih_checked IB1 E1' H1. destruct (IH2 _ _ _ E2) as [H2 _].
        rule; eassumption. }
    pose proof (tc_ret_spec exp (TDual A) B) as Hret.
    destruct (body (A :: Γ) s1 None) as [τ|];
      [|destruct (rec Γ s2 None) as [[| | |τ]|]; try discriminate];
      destruct (Hret _ H) as [-> He]; split; assumption.
  - (* pullback *)
    pose proof (tc_ret_spec exp (TOmega A) B) as Hret.
    destruct (rec (A :: Γ) p None) as [τ|] eqn:E1.
    + destruct (Hret _ H) as [-> He]. split; [|exact He].
      destruct (rec Γ s (Some (TOmega τ))) as [B2|] eqn:E2; [|discriminate].
      destruct (IHp _ _ _ E1) as [H1 _]. ih_checked IHs E2 H2.
      rule; eassumption.
    + destruct (rec Γ s None) as [[| |τ [|? ?|? ?|τ']|]|] eqn:E2; try discriminate.
      destruct (ty_eq_dec τ τ') as [<-|]; [|discriminate].
      destruct (Hret _ H) as [-> He]. split; [|exact He].
      destruct (rec (A :: Γ) p (Some τ)) as [B1|] eqn:E1'; [|discriminate].
      ih_checked IHp E1' H1. destruct (IHs _ _ _ E2) as [H2 _].
      rule; eassumption.
  - (* numeric dual *)
    destruct exp as [[| | |σ]|]; try discriminate.
    + destruct (num_tyb r σ) eqn:Hr; [|discriminate]. injection H as <-.
      split; [rule; apply num_tyb_sound; exact Hr|intros ? E; injection E as ->; reflexivity].
    + destruct (num_shape r) as [σ|] eqn:Hr; [|discriminate]. injection H as <-.
      split; [rule; apply num_shape_sound; exact Hr|discriminate].
  - (* 0, where [zok z] allows it *)
    assert (Hzb : z = true \/ z = false) by (destruct z; auto).
    destruct Hzb as [Hz|Hz]; rewrite Hz in H; simpl in H.
    + destruct exp as [[| | |σ]|]; try discriminate. injection H as <-.
      split; [apply R_zero; rewrite Hz; reflexivity|intros ? E; injection E as ->; reflexivity].
    + destruct exp as [A0|]; [|discriminate]. injection H as <-.
      split; [apply R_zero; rewrite Hz; reflexivity|intros ? E; injection E as ->; reflexivity].
  - (* sum, where [zok z] allows it *)
    destruct exp as [A0|].
    + destruct (zok z A0) eqn:Hz; [|discriminate].
      destruct (rec Γ s (Some A0)) as [B1|] eqn:E1; [|discriminate].
      destruct (rec Γ p (Some A0)) as [B2|] eqn:E2; [|discriminate].
      injection H as <-.
      ih_checked IHs E1 H1. ih_checked IHp E2 H2.
      split; [apply R_plus; assumption|intros ? E; injection E as ->; reflexivity].
    + split; [|discriminate].
      destruct (rec Γ s None) as [A1|] eqn:E1.
      * destruct (zok z A1) eqn:Hz; [|discriminate].
        destruct (rec Γ p (Some A1)) as [B2|] eqn:E2; [|discriminate]. injection H as <-.
        destruct (IHs _ _ _ E1) as [H1 _]. ih_checked IHp E2 H2.
        apply R_plus; assumption.
      * destruct (rec Γ p None) as [A2|] eqn:E2; [|discriminate].
        destruct (zok z A2) eqn:Hz; [|discriminate].
        destruct (rec Γ s (Some A2)) as [B1|] eqn:E3; [|discriminate]. injection H as <-.
        ih_checked IHs E3 H1. destruct (IHp _ _ _ E2) as [H2 _].
        apply R_plus; assumption.
  - (* let *)
    destruct (rec Γ e None) as [σ|] eqn:Ee.
    + destruct (IHe _ _ _ Ee) as [He _]. destruct (IHl _ _ _ H) as [Hl Hle].
      split; [rule; eassumption|exact Hle].
    + (* a candidate type for the let-bound term *)
      apply first_ok_some in H as [σ H].
      destruct (rec Γ e (Some σ)) as [σ'|] eqn:E1; [|discriminate].
      destruct (IHe _ _ _ E1) as [He He']. rewrite (He' _ eq_refl) in He.
      destruct (IHl _ _ _ H) as [Hl Hle]. split; [rule; eassumption|exact Hle].
Qed.

End tc_step_sound.

Lemma tc_sound a : forall Γ exp B,
  tc Γ a exp = Some B -> typed Γ (erase a) B /\ (forall A, exp = Some A -> B = A).
Proof.
  apply (tc_step_sound typed typed false tc tc);
    [intros ? []; reflexivity|intros ? IH; exact IH|intros; econstructor; eassumption..].
Qed.

(** A checker sound for [R] in checking mode, as a boolean: [check_sound]
    and [zcheck_sound] (ztyped_infer.v). *)
Lemma checked_sound (c : list ty -> atm -> option ty -> option ty) (R : list ty -> tm -> ty -> Prop) :
  (forall a Γ exp B, c Γ a exp = Some B -> R Γ (erase a) B /\ (forall A, exp = Some A -> B = A)) ->
  forall Γ a A, match c Γ a (Some A) with Some _ => true | None => false end = true -> R Γ (erase a) A.
Proof.
  intros Hc Γ a A. destruct (c Γ a (Some A)) as [B|] eqn:E; [|discriminate]. intros _.
  destruct (Hc a Γ (Some A) B E) as [H He]. rewrite (He A eq_refl) in H. exact H.
Qed.

(** The type checker is sound. *)
Theorem infer_sound Γ a A : infer Γ a = Some A -> typed Γ (erase a) A.
Proof. intros H. apply (tc_sound a Γ None A H). Qed.

Theorem check_sound Γ a A : check Γ a A = true -> typed Γ (erase a) A.
Proof. unfold check. apply (checked_sound tc typed tc_sound). Qed.

End infer.

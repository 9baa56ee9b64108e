(** * A checker for the typed premise [ztyped] on annotated terms

    docs/decisions-pullback.md, "Progress beyond the first-order fragment:
    the premise is typed".  [ztc] is [infer.v]'s bidirectional checker
    [tc] with the restriction of [ztyped]: [0] checks only against a dual
    type, a sum only at a dual type (checked, or inferred from one of its
    parts), and the body of a dual map is checked by [tc] itself (sums and
    [0] stand there at any type).  Everything else, the guesses and the
    candidates for a [let]-bound type included, is [tc]'s.  It is sound
    ([zinfer_sound], [zcheck_sound]); completeness is not proved. *)
From Pullback Require Import syntax typing decide infer ztyped.

Section zinfer.
Context {Σ : signature}.

#[local] Arguments ty_eq_dec : simpl never.
#[local] Arguments first_ok : simpl never.

Ltac ih_checked IH E H :=
  let He := fresh "He" in destruct (IH _ _ _ E) as [H He]; rewrite (He _ eq_refl) in H; clear He.

Fixpoint ztc (Γ : list ty) (a : atm) (exp : option ty) {struct a} : option ty :=
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
            match ztc (A :: Γ) s (Some C) with Some _ => Some (TArr A C) | None => None end
          else None
      | Some _ => None
      | None => match ztc (A :: Γ) s None with Some C => Some (TArr A C) | None => None end
      end
  | XApp s p =>
      match ztc Γ s None with
      | Some (TArr A B) => match ztc Γ p (Some A) with Some _ => ret B | None => None end
      | Some _ => None
      | None =>
          (* a function whose type is not inferred ([λz:A. 0]): checked
             against the argument's type (inferred, or else guessed) and the
             expected one *)
          match exp with
          | Some B =>
              let A := match ztc Γ p None with Some A => A | None => guess Γ p end in
              match ztc Γ s (Some (TArr A B)), ztc Γ p (Some A) with
              | Some _, Some _ => Some B
              | _, _ => None
              end
          | None => None
          end
      end
  | XProj i s =>
      match ztc Γ s None with
      | Some (TProd A B) => ret (if i then B else A)
      | _ => None
      end
  | XPair s1 s2 =>
      match exp with
      | Some (TProd A1 A2) =>
          match ztc Γ s1 (Some A1), ztc Γ s2 (Some A2) with
          | Some _, Some _ => Some (TProd A1 A2)
          | _, _ => None
          end
      | Some _ => None
      | None =>
          match ztc Γ s1 None, ztc Γ s2 None with
          | Some A1, Some A2 => Some (TProd A1 A2)
          | _, _ => None
          end
      end
  | XReal _ => ret TR
  | XFun f p => match ztc Γ p (Some (Rn (fdom f))) with Some _ => ret (Rn (fcod f)) | None => None end
  | XJac f s =>
      match ztc Γ s (Some (Rn (fdom f))) with
      | Some _ => ret (TArr (Rn (fdom f)) (Rn (fcod f)))
      | None => None
      end
  | XDual A s1 s2 =>
      if linb is0b (erase s1) then
        match tc (A :: Γ) s1 None with
        | Some τ => match ztc Γ s2 (Some (TDual τ)) with Some _ => ret (TDual A) | None => None end
        | None =>
            match ztc Γ s2 None with
            | Some (TDual τ) =>
                match tc (A :: Γ) s1 (Some τ) with Some _ => ret (TDual A) | None => None end
            | _ => None
            end
        end
      else None
  | XPb A p s =>
      match ztc (A :: Γ) p None with
      | Some τ => match ztc Γ s (Some (TOmega τ)) with Some _ => ret (TOmega A) | None => None end
      | None =>
          match ztc Γ s None with
          | Some (TArr τ (TDual τ')) =>
              if ty_eq_dec τ τ' then
                match ztc (A :: Γ) p (Some τ) with Some _ => ret (TOmega A) | None => None end
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
  | XZero => match exp with Some (TDual σ) => Some (TDual σ) | _ => None end
  | XPlus s p =>
      match exp with
      | Some (TDual σ) =>
          match ztc Γ s (Some (TDual σ)), ztc Γ p (Some (TDual σ)) with
          | Some _, Some _ => Some (TDual σ)
          | _, _ => None
          end
      | Some _ => None
      | None =>
          match ztc Γ s None with
          | Some (TDual σ) => match ztc Γ p (Some (TDual σ)) with Some _ => Some (TDual σ) | None => None end
          | Some _ => None
          | None =>
              match ztc Γ p None with
              | Some (TDual σ) => match ztc Γ s (Some (TDual σ)) with Some _ => Some (TDual σ) | None => None end
              | _ => None
              end
          end
      end
  | XLet e l =>
      match ztc Γ e None with
      | Some σ => ztc (σ :: Γ) l exp
      | None =>
          first_ok (fun σ => match ztc Γ e (Some σ) with Some _ => ztc (σ :: Γ) l exp | None => None end)
                   (let_candidates Γ e exp l)
      end
  end.


Lemma ztc_sound a : forall Γ exp B,
  ztc Γ a exp = Some B -> ztyped Γ (erase a) B /\ (forall A, exp = Some A -> B = A).
Proof.
  induction a as [n|A s IH|s IHs p IHp|i s IH|s1 IH1 s2 IH2|r|f p IH|f s IH|A s1 IH1 s2 IH2
                 |A p IHp s IHs|r| |s IHs p IHp|e IHe l IHl];
    intros Γ exp B H; simpl in H |- *.
  - (* var *)
    destruct (nth_error Γ n) as [T|] eqn:En; [|discriminate].
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 T) as [<-|]; [injection H as <-|discriminate].
      split; [constructor; exact En|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [constructor; exact En|discriminate].
  - (* λ *)
    destruct exp as [[| |A' C|]|]; try discriminate.
    + destruct (ty_eq_dec A A') as [<-|]; [|discriminate].
      destruct (ztc (A :: Γ) s (Some C)) as [C'|] eqn:Es; [|discriminate].
      injection H as <-. destruct (IH _ _ _ Es) as [Ht Heq].
      rewrite (Heq C eq_refl) in Ht. split; [constructor; exact Ht|].
      intros ? E; injection E as ->; reflexivity.
    + destruct (ztc (A :: Γ) s None) as [C|] eqn:Es; [|discriminate].
      injection H as <-. destruct (IH _ _ _ Es) as [Ht _].
      split; [constructor; exact Ht|discriminate].
  - (* application *)
    destruct (ztc Γ s None) as [[| |A1 B1|]|] eqn:Es; try discriminate.
    + destruct (ztc Γ p (Some A1)) as [A2|] eqn:Ep; [|discriminate].
      destruct (IHs _ _ _ Es) as [Hs _]. destruct (IHp _ _ _ Ep) as [Hp Hpe].
      rewrite (Hpe A1 eq_refl) in Hp.
      destruct exp as [A0|].
      * destruct (ty_eq_dec A0 B1) as [<-|]; [injection H as <-|discriminate].
        split; [econstructor; eassumption|intros ? E; injection E as ->; reflexivity].
      * injection H as <-. split; [econstructor; eassumption|discriminate].
    + destruct exp as [B0|]; [|discriminate].
      set (A := match ztc Γ p None with Some A => A | None => guess Γ p end) in H.
      destruct (ztc Γ s (Some (TArr A B0))) as [C|] eqn:Es2; [|discriminate].
      destruct (ztc Γ p (Some A)) as [A'|] eqn:Ep; [|discriminate].
      injection H as <-.
      ih_checked IHs Es2 Hs.
      ih_checked IHp Ep Hp.
      split; [econstructor; eassumption|intros ? E; injection E as ->; reflexivity].
  - (* projection *)
    destruct (ztc Γ s None) as [[|A1 A2| |]|] eqn:Es; try discriminate.
    destruct (IH _ _ _ Es) as [Hs _].
    destruct i; destruct exp as [A0|].
    1: destruct (ty_eq_dec A0 A2) as [<-|]; [injection H as <-|discriminate].
    3: destruct (ty_eq_dec A0 A1) as [<-|]; [injection H as <-|discriminate].
    1, 3: split; [econstructor; eassumption|intros ? E; injection E as ->; reflexivity].
    all: injection H as <-; split; [econstructor; eassumption|discriminate].
  - (* pair *)
    destruct exp as [[|A1 A2| |]|]; try discriminate.
    + destruct (ztc Γ s1 (Some A1)) as [B1|] eqn:E1; [|discriminate].
      destruct (ztc Γ s2 (Some A2)) as [B2|] eqn:E2; [|discriminate].
      injection H as <-.
      ih_checked IH1 E1 H1. ih_checked IH2 E2 H2.
      split; [constructor; assumption|intros ? E; injection E as ->; reflexivity].
    + destruct (ztc Γ s1 None) as [A1|] eqn:E1; [|discriminate].
      destruct (ztc Γ s2 None) as [A2|] eqn:E2; [|discriminate].
      injection H as <-.
      destruct (IH1 _ _ _ E1) as [H1 _]. destruct (IH2 _ _ _ E2) as [H2 _].
      split; [constructor; assumption|discriminate].
  - (* real *)
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 TR) as [->|]; [injection H as <-|discriminate].
      split; [constructor|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [constructor|discriminate].
  - (* f(P) *)
    destruct (ztc Γ p (Some (Rn (fdom f)))) as [Ap|] eqn:Ep; [|discriminate].
    ih_checked IH Ep Hp.
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 (Rn (fcod f))) as [->|]; [injection H as <-|discriminate].
      split; [constructor; exact Hp|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [constructor; exact Hp|discriminate].
  - (* J f · S *)
    destruct (ztc Γ s (Some (Rn (fdom f)))) as [As|] eqn:Es; [|discriminate].
    ih_checked IH Es Hs.
    destruct exp as [A0|].
    + destruct (ty_eq_dec A0 (TArr (Rn (fdom f)) (Rn (fcod f)))) as [->|];
        [injection H as <-|discriminate].
      split; [constructor; exact Hs|intros ? E; injection E as ->; reflexivity].
    + injection H as <-. split; [constructor; exact Hs|discriminate].
  - (* dual map: the body by [tc_sound] *)
    destruct (linb is0b (erase s1)) eqn:Hl; [|discriminate]. apply lin_is0_of in Hl.
    assert (Hty : ztyped Γ (Dual (erase s1) (erase s2)) (TDual A)).
    { destruct (tc (A :: Γ) s1 None) as [τ|] eqn:E1.
      - destruct (ztc Γ s2 (Some (TDual τ))) as [B2|] eqn:E2; [|destruct exp; discriminate].
        destruct (tc_sound _ _ _ _ E1) as [H1 _]. ih_checked IH2 E2 H2.
        econstructor; eassumption.
      - destruct (ztc Γ s2 None) as [[| | |τ]|] eqn:E2; try (destruct exp; discriminate).
        destruct (tc (A :: Γ) s1 (Some τ)) as [B1|] eqn:E1'; [|destruct exp; discriminate].
        ih_checked (tc_sound s1) E1' H1. destruct (IH2 _ _ _ E2) as [H2 _].
        econstructor; eassumption. }
    pose proof (tc_ret_spec exp (TDual A) B) as Hret.
    destruct (tc (A :: Γ) s1 None) as [τ|];
      [|destruct (ztc Γ s2 None) as [[| | |τ]|]; try discriminate];
      destruct (Hret _ H) as [-> He]; split; assumption.
  - (* pullback *)
    pose proof (tc_ret_spec exp (TOmega A) B) as Hret.
    destruct (ztc (A :: Γ) p None) as [τ|] eqn:E1.
    + destruct (Hret _ H) as [-> He]. split; [|exact He].
      destruct (ztc Γ s (Some (TOmega τ))) as [B2|] eqn:E2; [|discriminate].
      destruct (IHp _ _ _ E1) as [H1 _]. ih_checked IHs E2 H2.
      econstructor; eassumption.
    + destruct (ztc Γ s None) as [[| |τ [|? ?|? ?|τ']|]|] eqn:E2; try discriminate.
      destruct (ty_eq_dec τ τ') as [<-|]; [|discriminate].
      destruct (Hret _ H) as [-> He]. split; [|exact He].
      destruct (ztc (A :: Γ) p (Some τ)) as [B1|] eqn:E1'; [|discriminate].
      ih_checked IHp E1' H1. destruct (IHs _ _ _ E2) as [H2 _].
      econstructor; eassumption.
  - (* numeric dual *)
    destruct exp as [[| | |σ]|]; try discriminate.
    + destruct (num_tyb r σ) eqn:Hr; [|discriminate]. injection H as <-.
      split; [constructor; apply num_tyb_sound; exact Hr|intros ? E; injection E as ->; reflexivity].
    + destruct (num_shape r) as [σ|] eqn:Hr; [|discriminate]. injection H as <-.
      split; [constructor; apply num_shape_sound; exact Hr|discriminate].
  - (* 0, at a dual type *)
    destruct exp as [[| | |σ]|]; try discriminate. injection H as <-.
    split; [constructor|intros ? E; injection E as ->; reflexivity].
  - (* sum, at a dual type *)
    destruct exp as [[| | |σ]|]; try discriminate.
    + destruct (ztc Γ s (Some (TDual σ))) as [B1|] eqn:E1; [|discriminate].
      destruct (ztc Γ p (Some (TDual σ))) as [B2|] eqn:E2; [|discriminate].
      injection H as <-.
      ih_checked IHs E1 H1. ih_checked IHp E2 H2.
      split; [constructor; assumption|intros ? E; injection E as ->; reflexivity].
    + split; [|discriminate].
      destruct (ztc Γ s None) as [[| | |σ]|] eqn:E1; try discriminate.
      * destruct (ztc Γ p (Some (TDual σ))) as [B2|] eqn:E2; [|discriminate]. injection H as <-.
        destruct (IHs _ _ _ E1) as [H1 _]. ih_checked IHp E2 H2.
        constructor; assumption.
      * destruct (ztc Γ p None) as [[| | |σ]|] eqn:E2; try discriminate.
        destruct (ztc Γ s (Some (TDual σ))) as [B1|] eqn:E3; [|discriminate]. injection H as <-.
        ih_checked IHs E3 H1. destruct (IHp _ _ _ E2) as [H2 _].
        constructor; assumption.
  - (* let *)
    destruct (ztc Γ e None) as [σ|] eqn:Ee.
    + destruct (IHe _ _ _ Ee) as [He _]. destruct (IHl _ _ _ H) as [Hl Hle].
      split; [econstructor; eassumption|exact Hle].
    + (* a candidate type for the let-bound term *)
      apply first_ok_some in H as [σ H].
      destruct (ztc Γ e (Some σ)) as [σ'|] eqn:E1; [|discriminate].
      destruct (IHe _ _ _ E1) as [He He']. rewrite (He' _ eq_refl) in He.
      destruct (IHl _ _ _ H) as [Hl Hle]. split; [econstructor; eassumption|exact Hle].
Qed.


Definition zinfer (Γ : list ty) (a : atm) : option ty := ztc Γ a None.

Definition zcheck (Γ : list ty) (a : atm) (A : ty) : bool :=
  match ztc Γ a (Some A) with Some _ => true | None => false end.

(** The checker of the typed premise is sound. *)
Theorem zinfer_sound Γ a A : zinfer Γ a = Some A -> ztyped Γ (erase a) A.
Proof. intros H. apply (ztc_sound a Γ None A H). Qed.

Theorem zcheck_sound Γ a A : zcheck Γ a A = true -> ztyped Γ (erase a) A.
Proof.
  unfold zcheck. destruct (ztc Γ a (Some A)) as [B|] eqn:E; [|discriminate]. intros _.
  destruct (ztc_sound a Γ (Some A) B E) as [H He]. rewrite (He A eq_refl) in H. exact H.
Qed.

(** Examples: [⟨0, r⟩] checks at [R* × R] (it has no inferred type); a sum
    at [R], which [check] accepts, is refused; a pullback applied to a
    point infers [R*]. *)
Example zcheck_pair_zero r : zcheck [] (XPair XZero (XReal r)) (TProd (TDual TR) TR) = true.
Proof. reflexivity. Qed.

Example zcheck_sum_real r :
  zcheck [] (XPlus (XReal r) (XReal r)) TR = false /\ check [] (XPlus (XReal r) (XReal r)) TR = true.
Proof. split; reflexivity. Qed.

Example zinfer_pb_point r :
  zinfer [] (XApp (XPb TR (XVar 0) (XLam TR (XNDual (NR r)))) (XReal r)) = Some (TDual TR).
Proof. reflexivity. Qed.

End zinfer.

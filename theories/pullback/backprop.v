(** * Numeric back-propagation through a first-order linear body (reduction (5⁺))

    Spec §5.1 [GAP]: reduction (5) must be generalised to dual maps whose
    body is first-order linear in the bound variable [v]:
<<
    S ::= v^{π…} | 0 | S + S | ⟨S, S⟩ | (J f · S) r
>>
    [bp S c acc] adds to the cotangent [acc] of [v] the transpose of [S]
    applied to the cotangent [c] of the result: structural
    back-propagation, a numeric vector–Jacobian product.  It fails
    ([None]) outside the fragment.  The nested dual maps the spec also
    allows in the fragment are not handled. *)
From Pullback Require Import syntax typing.

Section backprop.
Context {Σ : signature}.

Notation nm := (num scalar).

(** [v^{p}] for the bound variable [v = Var 0]. *)
Fixpoint as_path (t : tm) : option (list bool) :=
  match t with
  | Var 0 => Some []
  | Proj i t' => match as_path t' with Some p => Some (p ++ [i]) | None => None end
  | _ => None
  end.

Lemma as_path_sound t p : as_path t = Some p -> t = ppath p (Var 0).
Proof.
  revert p. induction t; simpl; intros p H; try discriminate.
  - destruct n; [injection H as <-; reflexivity|discriminate].
  - destruct (as_path t) as [q|] eqn:Hq; [|discriminate].
    injection H as <-. rewrite ppath_app. simpl. f_equal. auto.
Qed.

(** A numeric tuple written as a term. *)
Fixpoint as_num (t : tm) : option nm :=
  match t with
  | Real r => Some (NR r)
  | Pair a b =>
      match as_num a, as_num b with Some x, Some y => Some (NP x y) | _, _ => None end
  | Zero => Some NZ
  | _ => None
  end.

Lemma as_num_sound t x : as_num t = Some x -> t = num_tm x.
Proof.
  revert x. induction t; simpl; intros x H; try discriminate.
  - destruct (as_num t1) eqn:H1; [|discriminate]. destruct (as_num t2) eqn:H2; [|discriminate].
    injection H as <-. simpl. f_equal; auto.
  - injection H as <-. reflexivity.
  - injection H as <-. reflexivity.
Qed.

Lemma as_num_num r : as_num (num_tm r) = Some r.
Proof. induction r; simpl; auto. rewrite IHr1, IHr2. reflexivity. Qed.

(** Sum of numeric tuples of the same shape ([NZ] is the unit). *)
Fixpoint nadd (a b : nm) : nm :=
  match a, b with
  | NZ, _ => b
  | _, NZ => a
  | NR x, NR y => NR (sadd x y)
  | NP a1 a2, NP b1 b2 => NP (nadd a1 b1) (nadd a2 b2)
  | _, _ => a
  end.

(** [add_at p c acc]: add [c] to the component of [acc] at path [p]. *)
Definition nsplit (a : nm) : nm * nm :=
  match a with NP a1 a2 => (a1, a2) | _ => (NZ, NZ) end.

Fixpoint add_at (p : list bool) (c acc : nm) : nm :=
  match p with
  | [] => nadd c acc
  | i :: p' =>
      let (a1, a2) := nsplit acc in
      if i then NP a1 (add_at p' c a2) else NP (add_at p' c a1) a2
  end.

Fixpoint bp (s : tm) (c acc : nm) {struct s} : option nm :=
  match s with
  | Var 0 => Some (add_at [] c acc)
  | Proj _ _ => match as_path s with Some p => Some (add_at p c acc) | None => None end
  | Zero => Some acc
  | Plus s1 s2 => match bp s1 c acc with Some a => bp s2 c a | None => None end
  | Pair s1 s2 =>
      let (c1, c2) := nsplit c in
      match bp s1 c1 acc with Some a => bp s2 c2 a | None => None end
  | App (Jac f q) a =>
      match as_num a with Some x => bp q (fjac_t f x c) acc | None => None end
  | _ => None
  end.

(** ** Typing *)
Lemma nadd_ty a b A : num_ty a A -> num_ty b A -> num_ty (nadd a b) A.
Proof.
  intros Ha. revert b. induction Ha; intros b' Hb; inversion Hb; subst; simpl; auto;
    constructor; auto.
Qed.

Lemma nsplit_ty a A B : num_ty a (TProd A B) -> num_ty (fst (nsplit a)) A /\ num_ty (snd (nsplit a)) B.
Proof. intros H. inversion H; subst; simpl; split; auto; constructor. Qed.

Lemma add_at_ty p c acc σ τ :
  path_ty σ p = Some τ -> num_ty c τ -> num_ty acc σ -> num_ty (add_at p c acc) σ.
Proof.
  revert σ acc. induction p as [|i p IH]; intros σ acc Hp Hc Ha; simpl in *.
  - injection Hp as ->. apply nadd_ty; auto.
  - destruct σ; try discriminate. destruct (nsplit_ty _ _ _ Ha) as [H1 H2].
    destruct (nsplit acc) as [a1 a2]; simpl in *.
    destruct i; constructor; eauto.
Qed.

Lemma bp_path_ty Γ s p c acc σ τ :
  as_path s = Some p -> typed (σ :: Γ) s τ -> num_ty c τ -> num_ty acc σ ->
  num_ty (add_at p c acc) σ.
Proof.
  intros Hp Hs Hc Ha. apply as_path_sound in Hp. subst.
  apply typed_ppath_inv in Hs as (σ0 & Hv & Hpt).
  inversion Hv; subst. simpl in *.
  match goal with H : Some _ = Some _ |- _ => injection H as -> end.
  eapply add_at_ty; eassumption.
Qed.

Lemma bp_ty : forall s Γ c acc res σ τ,
  typed (σ :: Γ) s τ -> num_ty c τ -> num_ty acc σ -> bp s c acc = Some res -> num_ty res σ.
Proof.
  fix IH 1. intros s Γ c acc res σ τ Hs Hc Ha Hbp.
  destruct s as [n| |s1 s2|i s| s1 s2| | | | | | | |s1 s2|];
    cbn [bp] in Hbp; try discriminate.
  - (* v *)
    destruct n; [|discriminate]. injection Hbp as <-.
    clear IH. eapply (bp_path_ty _ (Var 0) []); eauto.
  - (* (J f · q) a *)
    destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (as_num s2) as [x|] eqn:Hx; [|discriminate].
    apply as_num_sound in Hx. subst. inversion Hs; subst.
    match goal with H : typed _ (Jac _ _) _ |- _ => inversion H; subst end.
    apply (IH q Γ (fjac_t f x c) acc res σ (Rn (fdom f))); try assumption.
    apply fjac_t_ty; [eapply typed_num_inv; eassumption|assumption].
  - (* v^{p} *)
    destruct (as_path (Proj i s)) as [p|] eqn:Hp; [|discriminate].
    injection Hbp as <-. clear IH. eapply bp_path_ty; eauto.
  - (* ⟨s1, s2⟩ *)
    inversion Hs; subst. destruct (nsplit_ty _ _ _ Hc) as [Hc1 Hc2].
    destruct (nsplit c) as [c1 c2]; simpl in *.
    destruct (bp s1 c1 acc) as [a|] eqn:Hb1; [|discriminate].
    apply (IH s2 Γ c2 a res σ σ2); try assumption.
    apply (IH s1 Γ c1 acc a σ σ1); assumption.
  - (* 0 *) injection Hbp as <-. exact Ha.
  - (* s1 + s2 *)
    inversion Hs; subst.
    destruct (bp s1 c acc) as [a|] eqn:Hb1; [|discriminate].
    apply (IH s2 Γ c a res σ τ); try assumption.
    apply (IH s1 Γ c acc a σ τ); assumption.
Qed.

(** If [bp] succeeds on a body that is linear in a set of variables not
    containing [v], then [v] does not occur in the body. *)
Lemma path_not_lin X p : ~ lin (lift X) (ppath p (Var 0)).
Proof. induction p as [|i p IH] using rev_ind; simpl; auto. rewrite ppath_app. simpl. exact IH. Qed.

Lemma bp_lin_nocc X : forall s c acc res,
  bp s c acc = Some res -> lin (lift X) s -> nocc is0 s.
Proof.
  fix IH 1. intros s c acc res Hbp Hl.
  destruct s as [n| |s1 s2|i s| s1 s2| | | | | | | |s1 s2|];
    cbn [bp] in Hbp; try discriminate; simpl in Hl |- *.
  - destruct n; [contradiction|discriminate].
  - destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (as_num s2) as [x|] eqn:Hx; [|discriminate].
    apply as_num_sound in Hx. subst. simpl in *. split.
    + apply (IH q _ _ _ Hbp). tauto.
    + clear. induction x; simpl; auto.
  - destruct (as_path (Proj i s)) as [p|] eqn:Hp; [|discriminate].
    apply as_path_sound in Hp. exfalso. clear IH. apply (path_not_lin X p). rewrite <- Hp. exact Hl.
  - destruct (nsplit c) as [c1 c2].
    destruct (bp s1 c1 acc) as [a|] eqn:Hb1; [|discriminate].
    split; [apply (IH s1 _ _ _ Hb1)|apply (IH s2 _ _ _ Hbp)]; tauto.
  - auto.
  - destruct (bp s1 c acc) as [a|] eqn:Hb1; [|discriminate].
    split; [apply (IH s1 _ _ _ Hb1)|apply (IH s2 _ _ _ Hbp)]; tauto.
Qed.

End backprop.

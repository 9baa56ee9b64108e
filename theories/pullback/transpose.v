(** * Reverse is the transpose of forward, for reduction (5⁺)

    Over any commutative semiring of scalars, the numeric dual computed by
    reduction (5⁺), [(λv.S)* · c*  →  r*], is the transpose of the forward
    (tangent) evaluation of the first-order linear body [S]:
<<
    ⟨r, v⟩ = ⟨c, S[v/x]⟩     for every numeric tuple v of the type of x,
>>
    provided every function symbol's [fjac_t] is the transpose of its
    [fjac] ([fjac_adjoint]).  The semiring laws and the adjointness are
    hypotheses of the section, not axioms.

    This is the numeric core of the paper's Corollary 4.8(1) (the reverse
    phase computes [(J f(x))ᵀ e_p]); the corollary itself, for a whole
    reduction of [((Ω λy.P)·(λx. e_p* )) V] to [r*], is proved for
    first-order bodies in [query_transpose.v] ([query_transpose]), with
    this lemma for rule (5⁺). *)
From Coq Require Import Ring_theory Ring.
From Pullback Require Import syntax typing backprop reduction.

(** Numeric tuples, here and in the files that import this one. *)
Notation nm := (num scalar) (only parsing).

(** The pairing of a numeric dual with a numeric tuple. *)
Section dot.
Context {Σ : signature}.

Fixpoint dot (a b : nm) : scalar :=
  match a, b with
  | NR x, NR y => smul x y
  | NP a1 a2, NP b1 b2 => sadd (dot a1 b1) (dot a2 b2)
  | _, _ => szero
  end.

End dot.

(** Every function symbol's [fjac_t] is the transpose of its [fjac]: the
    hypothesis [fjac_adjoint] of the sections here, of [reverse_phase.v]
    and of [query_transpose.v], stated once. *)
Notation fjac_adjoint_law := (forall f x c v,
  num_ty x (Rn (fdom f)) -> num_ty c (Rn (fcod f)) -> num_ty v (Rn (fdom f)) ->
  dot (fjac_t f x c) v = dot c (fjac f x v)) (only parsing).

Section transpose.
Context {Σ : signature}.

Variable sone : scalar.
Hypothesis Hsr : semi_ring_theory szero sone sadd smul eq.
Add Ring scalar_semiring : Hsr.
Hypothesis fjac_adjoint : fjac_adjoint_law.

(** The component of a numeric tuple at a path. *)
Fixpoint get_at (p : list bool) (v : nm) : nm :=
  match p with
  | [] => v
  | i :: p' => let (v1, v2) := nsplit v in get_at p' (if i then v2 else v1)
  end.

(** Forward (tangent) evaluation of a first-order linear body at [v]. *)
Fixpoint fwd (s : tm) (v : nm) {struct s} : nm :=
  match s with
  | Var 0 => v
  | Proj _ _ => match as_path s with Some p => get_at p v | None => NZ end
  | Zero => NZ
  | Plus s1 s2 => nadd (fwd s1 v) (fwd s2 v)
  | Pair s1 s2 => NP (fwd s1 v) (fwd s2 v)
  | App (Jac f q) a =>
      match as_num a with Some x => fjac f x (fwd q v) | None => NZ end
  | _ => NZ
  end.

(** ** Pairing lemmas *)
Lemma dot_nz_l b : dot NZ b = szero.
Proof. destruct b; reflexivity. Qed.

Lemma dot_nz_r a : dot a NZ = szero.
Proof. destruct a; reflexivity. Qed.

Lemma dot_nadd_l a b v A :
  num_ty a A -> num_ty b A -> num_ty v A -> dot (nadd a b) v = sadd (dot a v) (dot b v).
Proof.
  intros Ha. revert b v. induction Ha; intros b' v' Hb Hv.
  - inversion Hb; subst; inversion Hv; subst; simpl; ring.
  - inversion Hb; subst; inversion Hv; subst; simpl; rewrite ?dot_nz_l, ?dot_nz_r; try ring.
    rewrite IHHa1, IHHa2 by assumption. ring.
  - simpl. rewrite ?dot_nz_l. ring.
Qed.

Lemma dot_nadd_r c a b A :
  num_ty c A -> num_ty a A -> num_ty b A -> dot c (nadd a b) = sadd (dot c a) (dot c b).
Proof.
  intros Hc. revert a b. induction Hc; intros a' b' Ha Hb.
  - inversion Ha; subst; inversion Hb; subst; simpl; ring.
  - inversion Ha; subst; inversion Hb; subst; simpl; try ring.
    rewrite IHHc1, IHHc2 by assumption. ring.
  - simpl. rewrite ?dot_nz_l. ring.
Qed.

Lemma nsplit_dot_prod a v1 v2 A B :
  num_ty a (TProd A B) ->
  dot a (NP v1 v2) = sadd (dot (fst (nsplit a)) v1) (dot (snd (nsplit a)) v2).
Proof. intros H. inversion H; subst; simpl; rewrite ?dot_nz_l; ring. Qed.

Lemma get_at_nz p : get_at p NZ = NZ.
Proof. induction p; simpl; auto. destruct a; auto. Qed.

Lemma get_at_ty p v σ τ : path_ty σ p = Some τ -> num_ty v σ -> num_ty (get_at p v) τ.
Proof.
  revert σ v. induction p as [|i p IH]; intros σ v Hp Hv; simpl in *.
  - injection Hp as <-. exact Hv.
  - destruct σ; try discriminate. destruct (nsplit_ty _ _ _ Hv) as [H1 H2].
    destruct (nsplit v) as [v1 v2]. simpl in *. destruct i; eauto.
Qed.

(** Adding [c] at path [p] of the cotangent adds [⟨c, v^p⟩] to the pairing. *)
Lemma dot_add_at p c acc v σ τ :
  path_ty σ p = Some τ -> num_ty c τ -> num_ty acc σ -> num_ty v σ ->
  dot (add_at p c acc) v = sadd (dot acc v) (dot c (get_at p v)).
Proof.
  revert σ acc v. induction p as [|i p IH]; intros σ acc v Hp Hc Ha Hv; simpl in *.
  - injection Hp as <-. rewrite (dot_nadd_l c acc v σ) by assumption. ring.
  - destruct σ as [|σ1 σ2| |]; try discriminate.
    pose proof (nsplit_ty _ _ _ Ha) as [Ha1 Ha2].
    inversion Hv as [|v1 v2 ? ? Hv1 Hv2| ]; subst.
    + rewrite (nsplit_dot_prod acc v1 v2 σ1 σ2 Ha). simpl.
      destruct (nsplit acc) as [a1 a2]. simpl in *.
      destruct i; simpl.
      * rewrite (IH σ2) by assumption. ring.
      * rewrite (IH σ1) by assumption. ring.
    + destruct (nsplit acc) as [a1 a2]. simpl.
      destruct i; simpl; rewrite ?get_at_nz, ?dot_nz_r; ring.
Qed.

(** Informal proof: by induction on the body [S], following [bp].  A path
    [v^p] adds [c] to the cotangent at [p], which adds [⟨c, v^p⟩] to the
    pairing ([dot_add_at]); [0] adds nothing; a sum back-propagates [c]
    through each summand and a pair splits [c], and the pairing is additive
    in each argument; [(J f · Q) x] back-propagates [(J f(x))ᵀ c] through
    [Q], and [⟨(J f(x))ᵀ c, Q(v)⟩ = ⟨c, J f(x) (Q(v))⟩] is the adjointness
    hypothesis.  The typing of the forward value is proved alongside. *)
Lemma bp_transpose : forall s Γ c acc r σ τ v,
  typed (σ :: Γ) s τ -> num_ty c τ -> num_ty acc σ -> num_ty v σ ->
  bp s c acc = Some r ->
  num_ty (fwd s v) τ /\ dot r v = sadd (dot acc v) (dot c (fwd s v)).
Proof.
  fix IH 1. intros s Γ c acc r σ τ v Hs Hc Ha Hv Hbp.
  destruct s as [n| |s1 s2|i s| s1 s2| | | | | | | |s1 s2|];
    cbn [bp] in Hbp; try discriminate.
  - (* v *)
    destruct n; [|discriminate]. injection Hbp as <-. clear IH.
    inversion Hs; subst. simpl in *.
    match goal with H : Some _ = Some _ |- _ => injection H as -> end.
    split; [exact Hv|]. simpl. rewrite (dot_nadd_l c acc v τ) by assumption. ring.
  - (* (J f · q) a *)
    destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (as_num s2) as [x|] eqn:Hx; [|discriminate].
    apply as_num_sound in Hx. subst. inversion Hs; subst.
    match goal with H : typed _ (Jac _ _) _ |- _ => inversion H; subst end.
    assert (Hxt : num_ty x (Rn (fdom f))) by (eapply typed_num_inv; eassumption).
    destruct (IH q Γ (fjac_t f x c) acc r σ (Rn (fdom f)) v) as [Hq Hd]; try assumption.
    { apply fjac_t_ty; assumption. }
    cbn [fwd]. rewrite as_num_num. split.
    + apply fjac_ty; assumption.
    + rewrite Hd. rewrite fjac_adjoint by assumption. reflexivity.
  - (* v^{p} *)
    destruct (as_path (Proj i s)) as [p|] eqn:Hp; [|discriminate].
    injection Hbp as <-. clear IH.
    assert (Hpt : path_ty σ p = Some τ).
    { apply as_path_sound in Hp. rewrite Hp in Hs.
      apply typed_ppath_inv in Hs as (σ0 & Hv0 & Hpt). inversion Hv0; subst. simpl in *.
      congruence. }
    cbn [fwd]. rewrite Hp. split.
    + eapply get_at_ty; eassumption.
    + eapply dot_add_at; eassumption.
  - (* ⟨s1, s2⟩ *)
    inversion Hs; subst. pose proof (nsplit_ty _ _ _ Hc) as [Hc1 Hc2].
    cbn [fwd]. rewrite (nsplit_dot_prod c (fwd s1 v) (fwd s2 v) σ1 σ2 Hc).
    destruct (nsplit c) as [c1 c2]; simpl in *.
    destruct (bp s1 c1 acc) as [a|] eqn:Hb1; [|discriminate].
    assert (Hat : num_ty a σ) by (eapply bp_ty; [| | |exact Hb1]; eassumption).
    destruct (IH s1 Γ c1 acc a σ σ1 v) as [Hf1 Hd1]; try assumption.
    destruct (IH s2 Γ c2 a r σ σ2 v) as [Hf2 Hd2]; try assumption.
    split; [constructor; assumption|]. rewrite Hd2, Hd1. ring.
  - (* 0 *)
    injection Hbp as <-. clear IH. simpl. split; [constructor|]. rewrite dot_nz_r. ring.
  - (* s1 + s2 *)
    inversion Hs; subst.
    destruct (bp s1 c acc) as [a|] eqn:Hb1; [|discriminate].
    assert (Hat : num_ty a σ) by (eapply bp_ty; [| | |exact Hb1]; eassumption).
    destruct (IH s1 Γ c acc a σ τ v) as [Hf1 Hd1]; try assumption.
    destruct (IH s2 Γ c a r σ τ v) as [Hf2 Hd2]; try assumption.
    cbn [fwd]. split; [apply nadd_ty; assumption|].
    rewrite (dot_nadd_r c (fwd s1 v) (fwd s2 v) τ) by assumption.
    rewrite Hd2, Hd1. ring.
Qed.

(** Reduction (5⁺) computes the transpose: if [(λv.S)* · c* → r*] and the
    dual map is typed at [σ*], then [⟨r, v⟩ = ⟨c, S(v)⟩] for every numeric
    [v : σ]. *)
Lemma step_bp_transpose Γ s c r σ v :
  step (Dual s (NDual c)) (NDual r) ->
  typed Γ (Dual s (NDual c)) (TDual σ) -> num_ty v σ ->
  dot r v = dot c (fwd s v).
Proof.
  intros Hst Ht Hv.
  assert (Hb : bp s c NZ = Some r).
  { inversion Hst; subst; auto.
    match goal with H : efill ?F _ = NDual _ |- _ => destruct F; discriminate end. }
  inversion Ht; subst.
  match goal with H : typed _ (NDual _) _ |- _ => inversion H; subst end.
  destruct (bp_transpose s Γ c NZ r σ _ v ltac:(eassumption) ltac:(eassumption)
              (num_ty_z σ) Hv Hb) as [_ Hd].
  rewrite Hd, dot_nz_l. ring.
Qed.

End transpose.

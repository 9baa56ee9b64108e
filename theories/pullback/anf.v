(** * Administrative reduction and A-normal form (spec §4, Appendix B)

    - [atom]: a variable followed by an access path, [z^{π…}] (spec §1 [GAP]:
      after the [λ⟨y,x⟩] sugar of reduction (8) is unfolded, elementary terms
      mention paths where Fig. 3 writes variables).
    - [elem] / [lets]: the elementary terms [E] and let series [L].
    - [bind L K] is [let x = L in K] with the let series [L] flattened
      (Sabry-Felleisen association, spec §4 [GAP]).
    - A-contexts are lists of frames, outermost first; [aredex] are the
      A-redexes and [ared r] the let series an A-redex reduces to.
    - [astep]: [C_A[r_A] →A C_A[L]].

    Results: [astep_typed] (subject reduction, linearity included),
    [adecompose] and [adecompose_unique] (Lemma B.1). *)
From Pullback Require Import syntax typing.

Section anf.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B : ty) (X : nat -> Prop).

(** ** Elementary terms and let series
<<
    a ::= z | a^{πi}
    E ::= 0 | a + a | a | λx.L | a a | ⟨a, a⟩ | r | f(a)
        | J f · a | (λx.L)* · a | (Ω λx.L) · a | r*
    L ::= let z = E in L | let z = E in z
>> *)
Inductive atom : tm -> Prop :=
| atom_var z : atom (Var z)
| atom_proj i a : atom a -> atom (Proj i a).

Inductive elem : tm -> Prop :=
| elem_zero : elem Zero
| elem_plus a1 a2 : atom a1 -> atom a2 -> elem (Plus a1 a2)
| elem_atom a : atom a -> elem a
| elem_lam l : lets l -> elem (Lam l)
| elem_app a1 a2 : atom a1 -> atom a2 -> elem (App a1 a2)
| elem_pair a1 a2 : atom a1 -> atom a2 -> elem (Pair a1 a2)
| elem_real r : elem (Real r)
| elem_fun f a : atom a -> elem (Fun f a)
| elem_jac f a : atom a -> elem (Jac f a)
| elem_dual l a : lets l -> atom a -> elem (Dual l a)
| elem_pb l a : lets l -> atom a -> elem (Pb l a)
| elem_ndual r : elem (NDual r)
with lets : tm -> Prop :=
| lets_last e : elem e -> lets (Let e (Var 0))
| lets_cons e l : elem e -> lets l -> lets (Let e l).

Scheme elem_mut := Induction for elem Sort Prop
  with lets_mut := Induction for lets Sort Prop.
Combined Scheme elem_lets_mut from elem_mut, lets_mut.

#[local] Hint Constructors atom elem lets : core.

Lemma atom_ren ρ a : atom a -> atom (ren ρ a).
Proof. induction 1; simpl; auto. Qed.

Lemma elem_lets_ren :
  (forall e, elem e -> forall ρ, elem (ren ρ e)) /\
  (forall l, lets l -> forall ρ, lets (ren ρ l)).
Proof.
  apply elem_lets_mut; intros; simpl; eauto 6 using atom_ren.
Qed.

Lemma lets_ren ρ l : lets l -> lets (ren ρ l).
Proof. intros H. apply elem_lets_ren. exact H. Qed.

Lemma lets_not_var l n : lets l -> l <> Var n.
Proof. destruct 1; discriminate. Qed.

(** ** [let x = L in K], flattened *)
Fixpoint bind (L K : tm) : tm :=
  match L with
  | Let e (Var 0) => Let e K
  | Let e l => Let e (bind l (ren (up_ren S) K))
  | _ => Let L K
  end.

Lemma bind_let e l K :
  l <> Var 0 -> bind (Let e l) K = Let e (bind l (ren (up_ren S) K)).
Proof. intros H. destruct l as [[|n]| | | | | | | | | | | | |]; simpl; congruence. Qed.

Lemma lets_bind L K : lets L -> lets K -> lets (bind L K).
Proof.
  intros HL. revert K. induction HL as [e He|e l He Hl IH]; intros K HK.
  - simpl. auto.
  - rewrite bind_let by (apply lets_not_var; exact Hl).
    constructor; auto. apply IH, lets_ren, HK.
Qed.

Lemma var0_dec l : l = Var 0 \/ l <> Var 0.
Proof. destruct l as [[|n]| | | | | | | | | | | | |]; auto; right; congruence. Qed.

End anf.

(** The typing scripts shared by [typed] and its refinement [ztyped]
    (ztyped.v, ztyped_pres.v), given the relation's lemmas:
    - [typed_bind_by T_ren Γ L K A]: [bind L K] has the type of [K]
      ([typed_bind], [ztyped_bind]);
    - [ared_typed_by T_bind T_bind2 T_ret T_ren]: an A-redex and its reduct
      have the same type ([ared_typed], [ared_ztyped]); in both relations
      the body of a dual map is typed by [typed]. *)
Ltac typed_bind_by T_ren Γ L K A :=
  let HL := fresh "HL" in let HK := fresh "HK" in let Hne := fresh "Hne" in
  revert Γ K A; induction L; intros Γ K A HL HK; try solve [simpl; eauto];
  inversion HL; subst;
  match goal with |- _ _ (bind (Let _ ?l) _) _ => destruct (var0_dec l) as [->|Hne] end;
  [ simpl; match goal with H : _ _ (Var 0) _ |- _ => inversion H; subst end;
    simpl in *; match goal with H : Some _ = Some _ |- _ => injection H as -> end;
    econstructor; eassumption
  | rewrite bind_let by exact Hne; econstructor; [eassumption|];
    match goal with
    | IH : forall _ _ _, _ -> _ -> _ _ (bind ?l _) _ |- _ _ (bind ?l _) _ => eapply IH; [eassumption|]
    end;
    eapply T_ren; [eassumption|]; intros [|m] C; simpl; auto ].

Ltac ared_typed_by T_bind T_bind2 T_ret T_ren :=
  let Hr := fresh "Hr" in let Ht := fresh "Ht" in
  intros Hr Ht; destruct Hr; simpl; try (apply T_ret; exact Ht);
  inversion Ht; subst;
  first
  [ (* L1 + L2, L1 L2, ⟨L1, L2⟩ *)
    solve [eapply T_bind2; [eassumption|eassumption|]; econstructor; constructor; reflexivity]
  | (* πi(L), f(L), J f · L *)
    solve [eapply T_bind; [eassumption|]; apply T_ret; econstructor; constructor; reflexivity]
  | (* (λx.L)* · L': the body, typed by [typed] *)
    solve [eapply T_bind; [eassumption|]; apply T_ret; econstructor;
           [ eapply typed_ren; [eassumption|]; intros [|m] C; simpl; auto
           | constructor; reflexivity
           | apply lin_is0_ren_up; assumption ]]
  | (* (Ω λx.L) · L' *)
    solve [eapply T_bind; [eassumption|]; apply T_ret; econstructor;
           [ eapply T_ren; [eassumption|]; intros [|m] C; simpl; auto
           | constructor; reflexivity ]]
  | (* let x = L in P *)
    eapply T_bind; eassumption ].

Section anf_typing.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B : ty) (X : nat -> Prop).
#[local] Hint Constructors atom elem lets : core.

Lemma typed_bind Γ L K A B :
  typed Γ L A -> typed (A :: Γ) K B -> typed Γ (bind L K) B.
Proof. typed_bind_by typed_ren Γ L K A. Qed.

(** Renaming facts for the two shifts used by [bind]. *)
Ltac set_iff := intros [|[|?]]; simpl; unfold is0; try split; intros; try congruence; firstorder.

Lemma nocc_bind X L K : nocc X L -> nocc (lift X) K -> nocc X (bind L K).
Proof.
  revert X K. induction L; intros X K HL HK; try solve [simpl in *; auto].
  destruct (var0_dec L2) as [->|Hne]; [simpl in *; tauto|].
  rewrite bind_let by exact Hne. simpl in *. destruct HL as [He Hl].
  split; auto. apply IHL2; auto. eapply nocc_ren; try eassumption; set_iff.
Qed.

Lemma lin_bind_1 X L K : lin X L -> lin (ext X) K -> lin X (bind L K).
Proof.
  revert X K. induction L; intros X K HL HK; try solve [simpl in *; tauto].
  destruct (var0_dec L2) as [->|Hne]; [simpl in *; tauto|].
  rewrite bind_let by exact Hne. simpl in *.
  destruct HL as [[He Hl]|[He Hl]]; [left|right]; split; auto;
    apply IHL2; auto; eapply lin_ren; try eassumption; set_iff.
Qed.

Lemma lin_bind_2 X L K : nocc X L -> lin (lift X) K -> lin X (bind L K).
Proof.
  revert X K. induction L; intros X K HL HK; try solve [simpl in *; tauto].
  destruct (var0_dec L2) as [->|Hne]; [simpl in *; tauto|].
  rewrite bind_let by exact Hne. simpl in *. destruct HL as [He Hl].
  right. split; auto. apply IHL2; auto. eapply lin_ren; try eassumption; set_iff.
Qed.

(** ** A-redexes and their reducts
<<
    r_A ::= 0 | L + L | x | λz.L | L L | πi(L) | ⟨L, L⟩ | r | f(L) | J f · L
          | (λx.L)* · L | (Ω λx.L) · L | r*
>> *)
Inductive aredex : tm -> Prop :=
| aredex_zero : aredex Zero
| aredex_plus l1 l2 : lets l1 -> lets l2 -> aredex (Plus l1 l2)
| aredex_var x : aredex (Var x)
| aredex_lam l : lets l -> aredex (Lam l)
| aredex_app l1 l2 : lets l1 -> lets l2 -> aredex (App l1 l2)
| aredex_proj i l : lets l -> aredex (Proj i l)
| aredex_pair l1 l2 : lets l1 -> lets l2 -> aredex (Pair l1 l2)
| aredex_real r : aredex (Real r)
| aredex_fun f l : lets l -> aredex (Fun f l)
| aredex_jac f l : lets l -> aredex (Jac f l)
| aredex_dual l l' : lets l -> lets l' -> aredex (Dual l l')
| aredex_pb l l' : lets l -> lets l' -> aredex (Pb l l')
| aredex_ndual r : aredex (NDual r)
(** [let x = L in P] with [L] a let series, [P] a let series or [x]:
    flattened by [bind] (the Sabry-Felleisen association, §4 [GAP]); it
    arises when a value substituted into a let series is A-normalised
    again (docs/decisions-pullback.md, "A-contexts that enter a let"). *)
| aredex_let l p : lets l -> lets p \/ p = Var 0 -> aredex (Let l p).

(** The reducts (all let-bound variables fresh):
<<
    0             →A  let x = 0 in x
    L1 + L2       →A  let x1 = L1; x2 = L2; x = x1 + x2 in x
    x             →A  let x' = x in x'
    λz.L          →A  let x = λz.L in x
    L1 L2         →A  let x1 = L1; x2 = L2; x = x1 x2 in x
    πi(L)         →A  let x1 = L; x = x1^{πi} in x
    ⟨L1, L2⟩      →A  let x1 = L1; x2 = L2; x = ⟨x1, x2⟩ in x
    r             →A  let x = r in x
    f(L)          →A  let x1 = L; x = f(x1) in x
    J f · L       →A  let x1 = L; x = J f · x1 in x
    (λx.L)* · L'  →A  let x1 = L'; x2 = (λx.L)* · x1 in x2
    (Ω λx.L) · L' →A  let x1 = L'; x2 = (Ω λx.L) · x1 in x2
    r*            →A  let x = r* in x
>> *)
Definition ret (e : tm) : tm := Let e (Var 0).

Definition bind2 (l1 l2 e : tm) : tm := bind l1 (bind (shift l2) (ret e)).

Definition ared (t : tm) : tm :=
  match t with
  | Plus l1 l2 => bind2 l1 l2 (Plus (Var 1) (Var 0))
  | App l1 l2 => bind2 l1 l2 (App (Var 1) (Var 0))
  | Pair l1 l2 => bind2 l1 l2 (Pair (Var 1) (Var 0))
  | Proj i l => bind l (ret (Proj i (Var 0)))
  | Fun f l => bind l (ret (Fun f (Var 0)))
  | Jac f l => bind l (ret (Jac f (Var 0)))
  | Dual l l' => bind l' (ret (Dual (ren (up_ren S) l) (Var 0)))
  | Pb l l' => bind l' (ret (Pb (ren (up_ren S) l) (Var 0)))
  | Let l p => bind l p
  | t => ret t
  end.

Lemma lets_bind2 l1 l2 e : lets l1 -> lets l2 -> elem e -> lets (bind2 l1 l2 e).
Proof.
  intros H1 H2 He. unfold bind2. apply lets_bind; [exact H1|].
  apply lets_bind; [apply lets_ren; exact H2|]. constructor. exact He.
Qed.

Lemma bind_var0 l : lets l -> bind l (Var 0) = l.
Proof.
  induction 1 as [e He|e l He Hl IH]; [reflexivity|].
  rewrite bind_let by (apply lets_not_var; exact Hl). simpl. rewrite IH. reflexivity.
Qed.

Lemma ared_lets r : aredex r -> lets (ared r).
Proof.
  destruct 1 as [| | | | | | | | | | | | |l p Hl [Hp| ->]];
    [..|apply lets_bind; assumption|simpl; rewrite bind_var0; assumption]; simpl;
    try (apply lets_bind2; auto; constructor; auto; fail);
    try (apply lets_bind; [assumption|]; constructor; auto; fail);
    try (apply lets_bind; [assumption|]; constructor; constructor; auto;
         apply lets_ren; assumption);
    constructor; auto.
Qed.

(** [ret] and [bind2] for a typing relation [T] with the rules (var) and
    (let) ([typed], [ztyped]). *)
Section let_typing.
Variable T : list ty -> tm -> ty -> Prop.
Hypothesis T_var : forall Γ n σ, nth_error Γ n = Some σ -> T Γ (Var n) σ.
Hypothesis T_let : forall Γ e l σ τ, T Γ e σ -> T (σ :: Γ) l τ -> T Γ (Let e l) τ.

Lemma ret_of Γ e A : T Γ e A -> T Γ (ret e) A.
Proof. intros H. eapply T_let; [exact H|]. apply T_var. reflexivity. Qed.

Hypothesis T_bind : forall Γ L K A B, T Γ L A -> T (A :: Γ) K B -> T Γ (bind L K) B.
Hypothesis T_shift : forall Γ t A B, T Γ t A -> T (B :: Γ) (shift t) A.

Lemma bind2_of Γ l1 l2 e A1 A2 B :
  T Γ l1 A1 -> T Γ l2 A2 -> T (A2 :: A1 :: Γ) e B -> T Γ (bind2 l1 l2 e) B.
Proof.
  intros H1 H2 He. unfold bind2. eapply T_bind; [exact H1|].
  eapply T_bind; [apply T_shift; exact H2|]. apply ret_of. exact He.
Qed.
End let_typing.

Lemma typed_ret Γ e A : typed Γ e A -> typed Γ (ret e) A.
Proof. exact (ret_of typed typed_var typed_let Γ e A). Qed.

Lemma typed_bind2 Γ l1 l2 e A1 A2 B :
  typed Γ l1 A1 -> typed Γ l2 A2 -> typed (A2 :: A1 :: Γ) e B ->
  typed Γ (bind2 l1 l2 e) B.
Proof. exact (bind2_of typed typed_var typed_let typed_bind typed_shift Γ l1 l2 e A1 A2 B). Qed.

Lemma ared_typed Γ r A : aredex r -> typed Γ r A -> typed Γ (ared r) A.
Proof. ared_typed_by typed_bind typed_bind2 typed_ret typed_ren. Qed.

(** Linearity and freeness are preserved by an A-redex step. *)
Lemma ared_nocc X r : aredex r -> nocc X r -> nocc X (ared r).
Proof.
  intros Hr Hn. destruct Hr; simpl in *; unfold bind2, ret, shift;
    repeat match goal with H : _ /\ _ |- _ => destruct H end;
    repeat first [apply nocc_bind | split]; simpl; auto;
    try (eapply nocc_ren; [|eassumption]; set_iff);
    apply nocc_bind; assumption.
Qed.

Lemma ared_lin X r : aredex r -> lin X r -> lin X (ared r).
Proof.
  intros Hr Hn. destruct Hr; simpl in *; unfold bind2, ret, shift; try contradiction;
    try (destruct Hn as [[? ?]|[? ?]]);
    repeat match goal with H : _ /\ _ |- _ => destruct H end.
  - left. simpl. auto.
  - apply lin_bind_1; auto. apply lin_bind_1.
    + eapply lin_ren; [|eassumption]. set_iff.
    + left. simpl. auto.
  - left. simpl. auto.
  - left. simpl. auto.
  - apply lin_bind_1; auto. apply lin_bind_2.
    + eapply nocc_ren; [|eassumption]. set_iff.
    + left. simpl. auto.
  - apply lin_bind_1; auto. left. simpl. auto.
  - apply lin_bind_1; auto. apply lin_bind_1.
    + eapply lin_ren; [|eassumption]. set_iff.
    + left. simpl. auto.
  - apply lin_bind_1; auto. left. simpl. auto.
  - apply lin_bind_2; auto. left. simpl. split; auto.
    left. split; simpl; auto. eapply lin_ren; [|eassumption]. set_iff.
  - apply lin_bind_1; auto. left. simpl. split; auto.
    right. split; simpl; auto. eapply nocc_ren; [|eassumption]. set_iff.
  - apply lin_bind_1; auto.
  - apply lin_bind_2; auto.
Qed.

(** ** A-contexts
<<
    C_A ::= [] | C_A + P | L + C_A | λz.C_A | C_A P | L C_A | πi(C_A)
          | ⟨C_A, S⟩ | ⟨L, C_A⟩ | f(C_A) | J f · C_A
          | (λx.C_A)* · S | (λx.L)* · C_A | (Ω λx.C_A) · S | (Ω λx.L) · C_A
>> *)
Inductive aframe : Type :=
| APlusL (p : tm) | APlusR (l : tm)
| ALam
| AAppL (p : tm) | AAppR (l : tm)
| AProj (i : bool)
| APairL (s : tm) | APairR (l : tm)
| AFun (f : fsym) | AJac (f : fsym)
| ADualL (s : tm) | ADualR (l : tm)
| APbL (s : tm) | APbR (l : tm)
| ALetL (l : tm)          (** [let x = C_A in l] *)
| ALetR (e : tm).         (** [let x = e in C_A] *)

Definition afill1 (F : aframe) (t : tm) : tm :=
  match F with
  | APlusL p => Plus t p
  | APlusR l => Plus l t
  | ALam => Lam t
  | AAppL p => App t p
  | AAppR l => App l t
  | AProj i => Proj i t
  | APairL s => Pair t s
  | APairR l => Pair l t
  | AFun f => Fun f t
  | AJac f => Jac f t
  | ADualL s => Dual t s
  | ADualR l => Dual l t
  | APbL s => Pb t s
  | APbR l => Pb l t
  | ALetL l => Let t l
  | ALetR e => Let e t
  end.

(** The left neighbour of a right frame is a let series. *)
Definition aframe_ok (F : aframe) : Prop :=
  match F with
  | APlusR l | AAppR l | APairR l | ADualR l | APbR l => lets l
  | ALetR e => elem e \/ lets e
  | _ => True
  end.

(** The frames that enter a [let] also look at what fills them: the bound
    term is entered only when it is not elementary (a let series binds
    elementary terms, which A-reduction leaves alone), the body only when
    it is not the bound variable itself ([let x = E in x] is a let
    series; [let x = L in x] is the redex [aredex_let]). *)
Definition alet_here (F : aframe) (u : tm) : Prop :=
  match F with
  | ALetL _ => ~ elem u
  | ALetR _ => u <> Var 0
  | _ => True
  end.

(** [C_A[t]]; the head of the list is the outermost frame. *)
Fixpoint afill (C : list aframe) (t : tm) : tm :=
  match C with
  | [] => t
  | F :: C' => afill1 F (afill C' t)
  end.

Fixpoint alet_ok (C : list aframe) (r : tm) : Prop :=
  match C with
  | [] => True
  | F :: C' => alet_here F (afill C' r) /\ alet_ok C' r
  end.

(** ** A-reduction: [C_A[r_A] →A C_A[L]] *)
Inductive astep : tm -> tm -> Prop :=
| astep_ctx C r :
    Forall aframe_ok C -> aredex r -> alet_ok C r ->
    astep (afill C r) (afill C (ared r)).

(** ** Subject reduction for A-reduction *)
Lemma afill1_nocc F t t' :
  (forall X, nocc X t -> nocc X t') ->
  forall X, nocc X (afill1 F t) -> nocc X (afill1 F t').
Proof. intros H X. destruct F; simpl; intuition. Qed.

Lemma afill_nocc C t t' :
  (forall X, nocc X t -> nocc X t') ->
  forall X, nocc X (afill C t) -> nocc X (afill C t').
Proof. induction C; simpl; auto. intros H. apply afill1_nocc. auto. Qed.

Lemma afill1_lin F t t' :
  (forall X, nocc X t -> nocc X t') -> (forall X, lin X t -> lin X t') ->
  forall X, lin X (afill1 F t) -> lin X (afill1 F t').
Proof. intros H1 H2 X. destruct F; simpl; intuition. Qed.

Lemma afill_lin C t t' :
  (forall X, nocc X t -> nocc X t') -> (forall X, lin X t -> lin X t') ->
  forall X, lin X (afill C t) -> lin X (afill C t').
Proof.
  induction C; simpl; auto. intros H1 H2.
  apply afill1_lin; auto. apply afill_nocc. auto.
Qed.

Lemma afill_typed C t t' :
  (forall X, nocc X t -> nocc X t') -> (forall X, lin X t -> lin X t') ->
  (forall Γ A, typed Γ t A -> typed Γ t' A) ->
  forall Γ A, typed Γ (afill C t) A -> typed Γ (afill C t') A.
Proof.
  induction C as [|F C IH]; simpl; auto. intros H1 H2 H3 Γ A Ht.
  destruct F; simpl in *; inversion Ht; subst; eauto;
    econstructor; eauto; eapply afill_lin; eauto.
Qed.

(** Informal proof: an A-redex and its reduct have the same type
    ([ared_typed]: [bind] keeps the type of its body, [typed_bind]), the
    same free variables and the same linear variables ([ared_nocc],
    [ared_lin]: the let series of a linear redex binds the linear
    sub-series with [lin]'s first let clause and the rest with the second).
    Filling a context preserves all three ([afill_typed]); the linearity is
    needed because A-reduction goes under the binder of a dual map,
    [(λx.C_A)* · S], whose typing rule asks [x ∈ lin]. *)
Lemma astep_typed Γ t t' A : astep t t' -> typed Γ t A -> typed Γ t' A.
Proof.
  intros [C r HC Hr]. apply afill_typed.
  - intros X. apply ared_nocc. exact Hr.
  - intros X. apply ared_lin. exact Hr.
  - intros Γ' A'. apply ared_typed. exact Hr.
Qed.

(** ** Lemma B.1: unique decomposition

    The lemma is about the terms A-reduction meets: every [let] in them is
    a let series ([wf_let]); source terms have no [let] at all. *)
Fixpoint wf_let (t : tm) : Prop :=
  match t with
  | Let e l => lets (Let e l)
  | Var _ | Real _ | NDual _ | Zero => True
  | Lam s | Proj _ s | Fun _ s | Jac _ s => wf_let s
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b => wf_let a /\ wf_let b
  end.

Lemma lets_wf_let l : lets l -> wf_let l.
Proof. intros H. destruct H; simpl; auto. Qed.

#[local] Hint Constructors aredex : core.

(** Informal proof: by induction on [t].  A [Let] is a let series by
    [wf_let].  Otherwise look at the immediate subterms in the order the
    A-contexts visit them (left to right, and the body of a binder first):
    the first one that is not a let series decomposes by induction and its
    frame is added to the context (its left neighbours are let series, as
    [aframe_ok] requires); if every one is a let series, [t] is an A-redex. *)
Definition decomp (t : tm) : Prop :=
  exists C r, Forall aframe_ok C /\ aredex r /\ alet_ok C r /\ t = afill C r.

Lemma decomp_redex r : aredex r -> decomp r.
Proof. intros H. exists [], r. simpl. auto. Qed.

Lemma decomp_frame F u : aframe_ok F -> alet_here F u -> decomp u -> decomp (afill1 F u).
Proof. intros HF Hh (C & r & HC & Hr & Hk & ->). exists (F :: C), r. simpl. auto. Qed.

End anf_typing.

(** Tactics that put a decomposition of a subterm in its frame: the only
    subterm of a term with one ([decomp_in_sub1]), the right one [v] of
    a term whose left one [u] is a let series ([decomp_in_right u]), the
    left one ([decomp_in_left v]).  Outside any section, so that
    [anf_termination.v] uses them too. *)
Ltac decomp_in_sub1 :=
  first [ apply (decomp_frame ALam) | apply (decomp_frame (AProj _))
        | apply (decomp_frame (AFun _)) | apply (decomp_frame (AJac _)) ];
  simpl; auto.

Ltac decomp_in_right u :=
  first [ apply (decomp_frame (APlusR u)) | apply (decomp_frame (AAppR u))
        | apply (decomp_frame (APairR u)) | apply (decomp_frame (ADualR u))
        | apply (decomp_frame (APbR u)) ]; simpl; auto.

Ltac decomp_in_left v :=
  first [ apply (decomp_frame (APlusL v)) | apply (decomp_frame (AAppL v))
        | apply (decomp_frame (APairL v)) | apply (decomp_frame (ADualL v))
        | apply (decomp_frame (APbL v)) ]; simpl; auto.

Section anf_decomp.
Context {Σ : signature}.

Implicit Types (Γ : list ty) (A B : ty) (X : nat -> Prop).
#[local] Hint Constructors atom elem lets aredex : core.

Lemma adecompose t : wf_let t -> lets t \/ decomp t.
Proof.
  induction t; simpl; intros Hwf;
    try solve [right; apply decomp_redex; auto];
    repeat match goal with H : _ /\ _ |- _ => destruct H end.
  (* one subterm: the subterm first *)
  all: try match goal with
    | IH : wf_let ?u -> lets ?u \/ decomp ?u, H : wf_let ?u |- lets (?f ?u) \/ _ =>
        right; destruct (IH H) as [Hl|Hd];
        [ apply decomp_redex; auto
        | decomp_in_sub1 ]
    end.
  (* two subterms: the left one first *)
  all: try match goal with
    | IH1 : wf_let ?u -> lets ?u \/ decomp ?u, H1 : wf_let ?u,
      IH2 : wf_let ?v -> lets ?v \/ decomp ?v, H2 : wf_let ?v |- lets (?f ?u ?v) \/ _ =>
        right; destruct (IH1 H1) as [Hl1|Hd1];
        [ destruct (IH2 H2) as [Hl2|Hd2];
          [ apply decomp_redex; auto
          | decomp_in_right u ]
        | decomp_in_left v ]
    end.
  (* let *)
  left. exact Hwf.
Qed.

Lemma elem_not_let e a b : elem e -> e <> Let a b.
Proof. intros H E. subst. inversion H as [| | a0 Ha| | | | | | | | |]. inversion Ha. Qed.

Lemma lets_not_elem l : lets l -> ~ elem l.
Proof. intros Hl He. destruct Hl as [e0 H0|e0 l0 H0 H1]; exact (elem_not_let _ _ _ He eq_refl). Qed.

Lemma lets_not_afill C r : aredex r -> alet_ok C r -> ~ lets (afill C r).
Proof.
  intros Hr. induction C as [|F C IH]; simpl; intros Hk Hl.
  - destruct Hr as [| | | | | | | | | | | | |l0 p0 Hl0 _]; inversion Hl; subst;
      exact (lets_not_elem l0 Hl0 ltac:(assumption)).
  - destruct Hk as [Hh Hk]. destruct F; inversion Hl; subst; simpl in Hh.
    + apply Hh. assumption.
    + apply Hh. assumption.
    + apply Hh. symmetry. assumption.
    + exact (IH Hk ltac:(assumption)).
Qed.

Lemma aredex_not_afill F C r : aredex r -> alet_ok (F :: C) r -> ~ aredex (afill1 F (afill C r)).
Proof.
  intros Hr [Hh Hk] Hr'. destruct F; simpl in Hr', Hh; inversion Hr'; subst;
    try (apply (lets_not_afill C r Hr Hk); assumption).
  match goal with H0 : _ \/ _ |- _ =>
    destruct H0 as [H0|H0]; [exact (lets_not_afill C r Hr Hk H0)|exact (Hh H0)] end.
Qed.

(** Informal proof: by induction on [C].  An A-redex is never a proper
    filling of an A-context, because every immediate subterm an A-context
    can enter is a let series in an A-redex, and a let series is never the
    filling of an A-context ([lets_not_afill], [aredex_not_afill]).  Two
    non-empty contexts with the same filling have the same outer
    constructor; if they entered different subterms, the left one would be
    both a let series (by [aframe_ok]) and a filling, which is impossible;
    for a [let], the bound term is entered only when it is not elementary
    and the body only when the bound term is elementary or a let series;
    so they enter the same subterm and the induction hypothesis applies. *)
Lemma adecompose_unique C r C' r' :
  Forall aframe_ok C -> Forall aframe_ok C' -> aredex r -> aredex r' ->
  alet_ok C r -> alet_ok C' r' ->
  afill C r = afill C' r' -> C = C' /\ r = r'.
Proof.
  revert C'. induction C as [|F C IH]; intros C' HC HC' Hr Hr' Hk Hk' Heq;
    destruct C' as [|F' C']; simpl in Heq.
  - auto.
  - subst. exfalso. apply (aredex_not_afill F' C' r' Hr' Hk' Hr).
  - subst. exfalso. apply (aredex_not_afill F C r Hr Hk Hr').
  - inversion HC as [|? ? HF HC0]; inversion HC' as [|? ? HF' HC0']; subst.
    destruct Hk as [Hh Hk0], Hk' as [Hh' Hk0'].
    destruct F, F'; simpl in Heq, HF, HF', Hh, Hh'; try discriminate;
      injection Heq; intros; subst;
      try (exfalso; match goal with
                    | H : lets (afill ?C ?r), Hr : aredex ?r, Hk : alet_ok ?C ?r |- _ =>
                        exact (lets_not_afill C r Hr Hk H)
                    end);
      try (exfalso; match goal with
                    | H : elem ?u \/ lets ?u, Hh : ~ elem ?u |- _ =>
                        destruct H as [H|H]; [exact (Hh H)|]
                    end;
           match goal with
           | H : lets (afill ?C ?r), Hr : aredex ?r, Hk : alet_ok ?C ?r |- _ =>
               exact (lets_not_afill C r Hr Hk H)
           end);
      match goal with
      | H : afill C r = afill ?C2 r' |- _ =>
          destruct (IH C2 HC0 HC0' Hr Hr' Hk0 Hk0' H) as [-> ->]; split; reflexivity
      end.
Qed.

(** A let series is not an A-context filled with an A-redex: the two
    cases of Lemma B.1 exclude each other. *)
Lemma adecompose_excl C r : aredex r -> alet_ok C r -> lets (afill C r) -> False.
Proof. intros Hr Hk Hl. eapply lets_not_afill; eauto. Qed.

(** In a term whose lets are let series no A-context enters a [let]. *)
Lemma afill_wf_let C r t' :
  aredex r -> alet_ok C r -> wf_let t' -> wf_let (afill C r) -> wf_let (afill C t').
Proof.
  intros Hr. induction C as [|F C IH]; simpl; auto. intros [Hh Hk] Ht H.
  destruct F; simpl in H, Hh |- *; try solve [intuition].
  - exfalso. inversion H; subst; auto.
  - exfalso. inversion H; subst; auto. exact (lets_not_afill C r Hr Hk ltac:(eassumption)).
Qed.

(** A-reduction keeps every [let] a let series, so Lemma B.1 applies again
    after each step. *)
Lemma astep_wf_let t t' : astep t t' -> wf_let t -> wf_let t'.
Proof.
  intros [C r HC Hr Hk]. apply afill_wf_let; auto.
  apply lets_wf_let, ared_lets, Hr.
Qed.

End anf_decomp.

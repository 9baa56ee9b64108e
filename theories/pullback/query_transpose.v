(** * Corollary 4.8(1) for whole first-order queries: reverse is the
    transpose of forward

    Over any commutative semiring of scalars whose function symbols have
    adjoint Jacobians ([fjac_t] the transpose of [fjac]), a first-order
    query
<<
    ((Ω λy.P) · (λx. e* )) x   →*   r*
>>
    computes the transpose of the forward (tangent) propagation of the body
    [P] at the point [x]: for every tangent [v] of the type of [y],
<<
    ⟨r, v⟩ = ⟨e, J P(x) · v⟩.
>>
    [J P(x) · v] is [fwd_tangent P x v], read off the forward semantics [fw]
    below, which propagates a point and a tangent through the body by the
    signature's values [fsem] and Jacobian-vector products [fjac].

    The fragment.  [fw] is defined on first-order terms: variables,
    projections, pairs, scalars [r], [0], sums, function symbols [f(P)] and
    [let]; the theorem holds for every body [P] on which [fw] is defined
    at the point (it is [None] as soon as [P] holds an abstraction, an
    application, a Jacobian, a dual map, a pullback or a numeric dual), in
    particular for the paper's running example [pow2(mult(g(z)))].  On
    typed bodies of the syntactic fragment [fo] the forward tangent is
    defined at every tangent ([fw_total]), and [query_transpose_fo] states
    the theorem for every tangent [v] without that premise.  The
    statement is conditional on the query reaching a numeric dual, so no
    termination argument is needed.

    The proof is an invariant: every term on the way from the query to
    [r*] has a "transpose meaning", a partial map from tangents to scalars
    ([du] for dual terms, [om] for 1-forms, [ln] for the linear bodies of
    dual maps, [pv] for first-order points, [fw] for pullback bodies), and
    each reduction step that fires on a term with a meaning keeps the
    meaning ([du_step]): A-normalisation and let splitting (7, 8) keep [fw],
    the forward rules (11, 12, 13, 15, 20a, 20b) move the tangent of the
    body into the body of a dual map, (1), (2), (3) and [let] keep the
    points, (6) composes the linear bodies and (5⁺) is [step_bp_transpose].
    The one rule that loses the meaning, (9) (a body that does not depend
    on [y], reducing to [0]), leaves a [0] on the spine of dual maps that
    no later step removes ([zsp]), so a run through it never reaches [r*].
    The semiring laws and the adjointness are section hypotheses. *)
From Coq Require Import Ring_theory Ring.
From Pullback Require Import syntax typing anf backprop reduction preservation progress transpose.

Section query_transpose.
Context {Σ : signature}.

Variable sone : scalar.
Hypothesis Hsr : semi_ring_theory szero sone sadd smul eq.
Add Ring scalar_semiring : Hsr.
Hypothesis fjac_adjoint : fjac_adjoint_law.

(** ** Environments: partial maps from indices *)
Definition econs {A} (x : option A) (η : nat -> option A) : nat -> option A :=
  fun n => match n with 0 => x | S m => η m end.

Definition enil {A} : nat -> option A := fun _ => None.

(** The component [i] of a pair ([nsplit]). *)
Definition comp (i : bool) (v : nm) : nm := let (a, b) := nsplit v in if i then b else a.

(** ** Points: first-order evaluation *)
Fixpoint pv (η : nat -> option nm) (t : tm) : option nm :=
  match t with
  | Var n => η n
  | Proj i s => match pv η s with Some x => Some (comp i x) | None => None end
  | Pair a b => match pv η a, pv η b with Some x, Some y => Some (NP x y) | _, _ => None end
  | Real r => Some (NR r)
  | Zero => Some NZ
  | Plus a b => match pv η a, pv η b with Some x, Some y => Some (nadd x y) | _, _ => None end
  | Fun f a => match pv η a with Some x => Some (fsem f x) | None => None end
  | Let e l => match pv η e with Some x => pv (econs (Some x) η) l | None => None end
  | _ => None
  end.

(** ** Forward tangent propagation: a point and a tangent *)
Fixpoint fw (η : nat -> option (nm * nm)) (t : tm) : option (nm * nm) :=
  match t with
  | Var n => η n
  | Proj i s => match fw η s with Some (x, dx) => Some (comp i x, comp i dx) | None => None end
  | Pair a b =>
      match fw η a, fw η b with
      | Some (x, dx), Some (y, dy) => Some (NP x y, NP dx dy)
      | _, _ => None
      end
  | Real r => Some (NR r, NZ)
  | Zero => Some (NZ, NZ)
  | Plus a b =>
      match fw η a, fw η b with
      | Some (x, dx), Some (y, dy) => Some (nadd x y, nadd dx dy)
      | _, _ => None
      end
  | Fun f a => match fw η a with Some (x, dx) => Some (fsem f x, fjac f x dx) | None => None end
  | Let e l => match fw η e with Some xd => fw (econs (Some xd) η) l | None => None end
  | _ => None
  end.

(** [J P(x) · v]: the tangent of the body [P] (bound variable [y]) at the
    point [x] along [v]. *)
Definition fwd_at (P : tm) (x v : nm) : option (nm * nm) := fw (econs (Some (x, v)) enil) P.

(** ** Linear bodies of dual maps: the tangent map [v ↦ S(v)] *)
Fixpoint ln (t : tm) (d : nm) : option nm :=
  match t with
  | Var 0 => Some d
  | Proj i s => match ln s d with Some x => Some (comp i x) | None => None end
  | Pair a b => match ln a d, ln b d with Some x, Some y => Some (NP x y) | _, _ => None end
  | Zero => Some NZ
  | Plus a b => match ln a d, ln b d with Some x, Some y => Some (nadd x y) | _, _ => None end
  | App (Jac f q) a =>
      match pv enil a, ln q d with Some x, Some y => Some (fjac f x y) | _, _ => None end
  | _ => None
  end.

(** ** 1-forms: [om ω x dx] is [ω(x)(dx)] *)
Fixpoint om (w : tm) (x dx : nm) : option scalar :=
  match w with
  | Lam (NDual e) => Some (dot e dx)
  | Pb p w' => match fw (econs (Some (x, dx)) enil) p with Some (y, dy) => om w' y dy | None => None end
  | _ => None
  end.

(** ** Dual terms: [du t v] pairs the dual [t] with the tangent [v] *)
Fixpoint du (t : tm) (v : nm) : option scalar :=
  match t with
  | NDual r => Some (dot r v)
  | Dual s t' => match ln s v with Some d => du t' d | None => None end
  | App w a => match pv enil a with Some x => om w x v | None => None end
  | _ => None
  end.

(** ** Environment lemmas: extensionality, renaming, substitution *)
Definition eeq {A} (η η' : nat -> option A) : Prop := forall n, η n = η' n.

Lemma eeq_cons {A} (x : option A) η η' : eeq η η' -> eeq (econs x η) (econs x η').
Proof. intros H [|n]; simpl; auto. Qed.

(** [pv] and [fw] read a term the same way, through an environment
    extended by [econs] under the binder of [Let]: their extensionality
    and their commutation with renaming and substitution have one script
    each, after the induction on [t].  [env_ext den]: the induction hypotheses
    rewritten, the body of a [Let] under [eeq_cons]; [env_map den_ext fin]:
    the body of a [Let] by [den_ext] at each index,
    [fin] closing the index [S k]. *)
Ltac env_ext den :=
  let H := fresh "H" in
  intros ? ? H; simpl; auto;
    repeat match goal with IH : forall η η', eeq η η' -> den η ?t = den η' ?t |- _ =>
      rewrite (IH _ _ H); clear IH end; auto;
  lazymatch goal with |- context [match ?e with Some _ => _ | None => _ end] => destruct e end; auto;
  lazymatch goal with IH : forall η η', eeq η η' -> _ |- _ => apply IH end; apply eeq_cons; exact H.

Ltac env_map den_ext fin :=
  intros ? ?; simpl; repeat match goal with IH : forall _ _, _ = _ |- _ => progress rewrite IH end; auto;
  lazymatch goal with |- context [match ?e with Some _ => _ | None => _ end] => destruct e end; auto;
  match goal with IH : forall _ _, _ = _ |- _ => rewrite IH end; apply den_ext; intros [|k]; simpl; auto; fin.

Lemma pv_ext t : forall η η', eeq η η' -> pv η t = pv η' t.
Proof. induction t; env_ext pv. Qed.

Lemma fw_ext t : forall η η', eeq η η' -> fw η t = fw η' t.
Proof. induction t; env_ext fw. Qed.

Lemma pv_ren t : forall ρ η, pv η (ren ρ t) = pv (fun n => η (ρ n)) t.
Proof. induction t; env_map pv_ext idtac. Qed.

Lemma fw_ren t : forall ρ η, fw η (ren ρ t) = fw (fun n => η (ρ n)) t.
Proof. induction t; env_map fw_ext idtac. Qed.

Lemma pv_subst t : forall σ η, pv η (subst σ t) = pv (fun n => pv η (σ n)) t.
Proof. induction t; env_map pv_ext ltac:(unfold shift; rewrite pv_ren; reflexivity). Qed.

Lemma fw_subst t : forall σ η, fw η (subst σ t) = fw (fun n => fw η (σ n)) t.
Proof. induction t; env_map fw_ext ltac:(unfold shift; rewrite fw_ren; reflexivity). Qed.

(** A more defined environment gives the same defined point. *)
Definition esub {A} (η η' : nat -> option A) : Prop := forall n x, η n = Some x -> η' n = Some x.

Lemma pv_mono t : forall η η' x, esub η η' -> pv η t = Some x -> pv η' t = Some x.
Proof.
  induction t; intros η η' x H Ht; simpl in *; try discriminate; auto;
    try (apply H; exact Ht);
    repeat match goal with
    | Ht : context [pv ?η ?u], IH : forall η0 η'0 x0, esub η0 η'0 -> pv η0 ?u = Some x0 -> _ |- _ =>
        let E := fresh in destruct (pv η u) eqn:E; [rewrite (IH _ _ _ H E); clear IH | discriminate]
    end; auto.
  refine (IHt2 _ _ _ _ Ht). intros [|m] z; simpl; auto.
Qed.

(** Points and the primal part of [fw]. *)
Definition efst (η : nat -> option (nm * nm)) : nat -> option nm :=
  fun n => match η n with Some (x, _) => Some x | None => None end.

Lemma fw_pv t : forall η,
  pv (efst η) t = match fw η t with Some (x, _) => Some x | None => None end.
Proof.
  induction t; intros η; simpl; try rewrite IHt; try rewrite IHt1; try rewrite IHt2; auto.
  all: try (destruct (fw η t) as [[? ?]|]; reflexivity).
  all: try (destruct (fw η t1) as [[? ?]|]; destruct (fw η t2) as [[? ?]|]; reflexivity).
  destruct (fw η t1) as [[x dx]|]; [|reflexivity]. rewrite <- IHt2. apply pv_ext.
  intros [|k]; reflexivity.
Qed.

(** ** A-normalisation keeps [fw] *)
Lemma fw_bind L : forall K η,
  fw η (bind L K) = match fw η L with Some xd => fw (econs (Some xd) η) K | None => None end.
Proof.
  induction L; intros K η; try reflexivity.
  destruct (var0_dec L2) as [->|Hne].
  - simpl. destruct (fw η L1); reflexivity.
  - rewrite bind_let by exact Hne. simpl. destruct (fw η L1) as [xd|]; [|reflexivity].
    rewrite IHL2. destruct (fw (econs (Some xd) η) L2) as [yd|]; [|reflexivity].
    rewrite fw_ren. apply fw_ext. intros [|k]; reflexivity.
Qed.

Lemma fw_shift t x η : fw (econs x η) (shift t) = fw η t.
Proof. unfold shift. rewrite fw_ren. apply fw_ext. intros k; reflexivity. Qed.

Lemma fw_ret e η : fw η (ret e) = fw η e.
Proof. unfold ret. simpl. destruct (fw η e); reflexivity. Qed.

Lemma fw_ared r η : aredex r -> fw η (ared r) = fw η r.
Proof.
  intros Hr. destruct Hr; cbn [ared]; try apply fw_ret; unfold bind2;
    rewrite fw_bind; cbn [fw];
    try (destruct (fw η l1) as [xd|]; [|reflexivity]; rewrite fw_bind, fw_shift;
         destruct (fw η l2) as [yd|]; [|destruct xd; reflexivity];
         rewrite fw_ret; reflexivity);
    try (destruct (fw η l) as [xd|]; [|reflexivity]; rewrite fw_ret; reflexivity);
    try (destruct (fw η l') as [xd|]; [|reflexivity]; rewrite fw_ret; reflexivity);
    try reflexivity.
Qed.

Lemma fw_afill C t t' : (forall η, fw η t = fw η t') -> forall η, fw η (afill C t) = fw η (afill C t').
Proof.
  intros H. induction C as [|F C IH]; intros η; simpl; auto.
  destruct F; simpl; try rewrite IH; try reflexivity.
  destruct (fw η e); [apply IH|reflexivity].
Qed.

Lemma fw_astep p p' η : astep p p' -> fw η p' = fw η p.
Proof.
  intros [C r HC Hr]. symmetry. apply fw_afill. intros η'. symmetry. apply fw_ared. exact Hr.
Qed.

(** ** Access paths *)
Lemma get_at_cons i p v : get_at (i :: p) v = get_at p (comp i v).
Proof. simpl. unfold comp. destruct (nsplit v); reflexivity. Qed.

(** [ppath p t] read by [pv], [fw] or [ln], after the induction on the
    path: the reading [den] of [t] split into its two cases. *)
Ltac ppath_cases den :=
  intros ? ?; cbn [ppath]; try match goal with IH : forall _ _, _ = _ |- _ => rewrite IH; cbn [den] end;
  lazymatch goal with |- context [match den ?x ?y with Some _ => _ | None => _ end] => destruct (den x y) end;
  rewrite ?get_at_cons; reflexivity.

Lemma fw_ppath p : forall t η,
  fw η (ppath p t) = match fw η t with Some (x, dx) => Some (get_at p x, get_at p dx) | None => None end.
Proof.
  induction p as [|i p IH]; intros t η; cbn [ppath].
  - destruct (fw η t) as [[? ?]|]; reflexivity.
  - rewrite IH. cbn [fw]. destruct (fw η t) as [[x dx]|]; [|reflexivity].
    rewrite !get_at_cons. reflexivity.
Qed.

Lemma pv_ppath p : forall t η,
  pv η (ppath p t) = match pv η t with Some x => Some (get_at p x) | None => None end.
Proof. induction p; ppath_cases pv. Qed.

Lemma ln_ppath p : forall t d,
  ln (ppath p t) d = match ln t d with Some x => Some (get_at p x) | None => None end.
Proof. induction p; ppath_cases ln. Qed.

Lemma pv_num r η : pv η (num_tm r) = Some r.
Proof. induction r; simpl; auto. rewrite IHr1, IHr2. reflexivity. Qed.

Lemma ln_num_dense r d : dense r -> ln (num_tm r) d = None.
Proof.
  induction r; simpl; auto; try contradiction.
  intros [H1 H2]. rewrite (IHr1 H1). reflexivity.
Qed.

(** ** Renaming and substitution in linear bodies *)
Lemma ln_ren : forall s ρ d, ρ 0 = 0 -> (forall n, ρ (S n) <> 0) -> ln (ren ρ s) d = ln s d.
Proof.
  fix IH 1. intros s ρ d H0 HS.
  destruct s as [n| |s1 a|i s| s1 s2| | |f q| | | | |s1 s2|]; simpl; try reflexivity;
    try (rewrite (IH s ρ d H0 HS); reflexivity);
    try (rewrite (IH s1 ρ d H0 HS), (IH s2 ρ d H0 HS); reflexivity).
  - destruct n as [|n]; [rewrite H0; reflexivity|].
    destruct (ρ (S n)) eqn:E; [exfalso; exact (HS n E)|reflexivity].
  - destruct s1 as [| | | | | | |f q| | | | | |]; simpl; try reflexivity.
    rewrite (IH q ρ d H0 HS), pv_ren. reflexivity.
Qed.

Lemma ln_subst_comp : forall u s d d1 d2,
  ln u d = Some d1 -> ln s d1 = Some d2 ->
  ln (subst (scons u (fun n => Var (S n))) s) d = Some d2.
Proof.
  fix IH 2. intros u s d d1 d2 Hu Hs.
  destruct s as [n| |s1 a|i s| s1 s2| | |f q| | | | |s1 s2|]; simpl in *; try discriminate.
  - destruct n; simpl in *; [congruence|discriminate].
  - destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate. simpl in *.
    destruct (pv enil a) as [x|] eqn:Ex; [|discriminate].
    destruct (ln q d1) as [y|] eqn:Ey; [|discriminate].
    rewrite pv_subst. rewrite (pv_mono a enil _ x) by (auto; intros k z Hk; discriminate).
    rewrite (IH u q d d1 y Hu Ey). exact Hs.
  - destruct (ln s d1) as [x|] eqn:E; [|discriminate]. rewrite (IH u s d d1 x Hu E). exact Hs.
  - destruct (ln s1 d1) as [x|] eqn:E1; [|discriminate].
    destruct (ln s2 d1) as [y|] eqn:E2; [|discriminate].
    rewrite (IH u s1 d d1 x Hu E1), (IH u s2 d d1 y Hu E2). exact Hs.
  - exact Hs.
  - destruct (ln s1 d1) as [x|] eqn:E1; [|discriminate].
    destruct (ln s2 d1) as [y|] eqn:E2; [|discriminate].
    rewrite (IH u s1 d d1 x Hu E1), (IH u s2 d d1 y Hu E2). exact Hs.
Qed.

(** ** Typing of the semantic values *)
Lemma comp_ty x A B : num_ty x (TProd A B) -> num_ty (comp false x) A /\ num_ty (comp true x) B.
Proof. intros H. unfold comp. destruct (nsplit_ty _ _ _ H) as [H1 H2]. destruct (nsplit x); auto. Qed.

Definition penv_ty (Γ : list ty) (η : nat -> option nm) : Prop :=
  forall n x A, η n = Some x -> nth_error Γ n = Some A -> num_ty x A.

Lemma pv_ty Γ t A : typed Γ t A -> forall η x, penv_ty Γ η -> pv η t = Some x -> num_ty x A.
Proof.
  induction 1; intros η x Hη Ht; simpl in Ht; try discriminate;
    repeat match type of Ht with
    | context [pv ?η ?u] => let E := fresh in destruct (pv η u) eqn:E; [|discriminate]
    end;
    repeat match goal with H : Some _ = Some _ |- _ => injection H as <- end.
  - constructor.
  - apply nadd_ty; eauto.
  - eapply Hη; eassumption.
  - eapply comp_ty; eauto.
  - eapply comp_ty; eauto.
  - constructor; eauto.
  - constructor.
  - apply fsem_ty; eauto.
  - match goal with E : pv (econs _ _) _ = Some _ |- _ => eapply IHtyped2; [|exact E] end.
    intros [|k] y B Hk HB; simpl in *; [|eapply Hη; eassumption].
    injection Hk as <-. injection HB as <-. eauto.
Qed.

Definition fenv_ty (Γ : list ty) (η : nat -> option (nm * nm)) : Prop :=
  forall n x dx A, η n = Some (x, dx) -> nth_error Γ n = Some A -> num_ty x A /\ num_ty dx A.

Lemma fw_ty Γ t A : typed Γ t A -> forall η x dx, fenv_ty Γ η -> fw η t = Some (x, dx) ->
  num_ty x A /\ num_ty dx A.
Proof.
  induction 1; intros η x dx Hη Ht; simpl in Ht; try discriminate;
    repeat match type of Ht with
    | context [fw ?η ?u] => let E := fresh in destruct (fw η u) as [[? ?]|] eqn:E; [|discriminate]
    end;
    repeat match goal with H : Some _ = Some _ |- _ => injection H as <- <- end.
  - split; constructor.
  - destruct (IHtyped1 _ _ _ Hη H1), (IHtyped2 _ _ _ Hη H2). split; apply nadd_ty; auto.
  - eapply Hη; eassumption.
  - destruct (IHtyped _ _ _ Hη H0) as [Ha Hb].
    split; eapply comp_ty; eauto.
  - destruct (IHtyped _ _ _ Hη H0) as [Ha Hb].
    split; eapply comp_ty; eauto.
  - destruct (IHtyped1 _ _ _ Hη H1), (IHtyped2 _ _ _ Hη H2). split; constructor; auto.
  - split; constructor.
  - destruct (IHtyped _ _ _ Hη H0). split; [apply fsem_ty|apply fjac_ty]; auto.
  - match goal with E : fw (econs _ _) _ = Some _ |- _ => eapply IHtyped2; [|exact E] end.
    intros [|k] y dy B Hk HB; simpl in *; [|eapply Hη; eassumption].
    injection Hk as <- <-. injection HB as <-. eauto.
Qed.

Lemma fenv_one σ x dx : num_ty x σ -> num_ty dx σ -> fenv_ty [σ] (econs (Some (x, dx)) enil).
Proof.
  intros Hx Hdx [|k] z dz B Hk HB; simpl in Hk, HB; [|discriminate].
  injection Hk as <- <-. injection HB as <-. auto.
Qed.

Lemma ln_ty : forall s Γ σ τ d d', typed (σ :: Γ) s τ -> num_ty d σ -> ln s d = Some d' -> num_ty d' τ.
Proof.
  fix IH 1. intros s Γ σ τ d d' Hs Hd Hl.
  destruct s as [n| |s1 a|i s| s1 s2| | |f q| | | | |s1 s2|]; simpl in Hl; try discriminate.
  - destruct n; [|discriminate]. injection Hl as <-. inversion Hs; subst. simpl in *. congruence.
  - destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (pv enil a) as [x|] eqn:Ex; [|discriminate].
    destruct (ln q d) as [y|] eqn:Ey; [|discriminate]. injection Hl as <-.
    inversion Hs; subst. match goal with H : typed _ (Jac _ _) _ |- _ => inversion H; subst end.
    apply fjac_ty.
    + refine (pv_ty _ a _ ltac:(eassumption) enil x _ Ex). intros k z B Hk. discriminate.
    + eapply IH; eassumption.
  - destruct (ln s d) as [x|] eqn:E; [|discriminate]. injection Hl as <-.
    inversion Hs; subst; [eapply proj1|eapply proj2]; eapply comp_ty; eapply IH; eassumption.
  - destruct (ln s1 d) as [x|] eqn:E1; destruct (ln s2 d) as [y|] eqn:E2; try discriminate.
    injection Hl as <-.
    inversion Hs; subst. constructor; eapply IH; eassumption.
  - injection Hl as <-. constructor.
  - destruct (ln s1 d) as [x|] eqn:E1; destruct (ln s2 d) as [y|] eqn:E2; try discriminate.
    injection Hl as <-.
    inversion Hs; subst. apply nadd_ty; [eapply (IH s1)|eapply (IH s2)]; eassumption.
Qed.

(** ** Points and linear bodies are kept by every step *)
Lemma pv_step t t' : step t t' -> forall η x, pv η t = Some x -> pv η t' = Some x.
Proof.
  induction 1; intros η x Ht; simpl in Ht; try discriminate.
  - destruct (pv η v1) eqn:E1; [|discriminate]. destruct (pv η v2) eqn:E2; [|discriminate].
    injection Ht as <-. reflexivity.
  - destruct (pv η v1) eqn:E1; [|discriminate]. destruct (pv η v2) eqn:E2; [|discriminate].
    injection Ht as <-. reflexivity.
  - rewrite pv_num in Ht. rewrite pv_num. exact Ht.
  - destruct (pv η v) as [y|] eqn:E; [|discriminate]. unfold subst1. rewrite pv_subst.
    rewrite <- Ht. apply pv_ext. intros [|k]; simpl; auto.
  - destruct F; simpl in *; try discriminate;
      repeat match type of Ht with
      | context [pv ?η ?u] => let E := fresh in destruct (pv η u) eqn:E; [|discriminate]
      end;
      try (erewrite IHstep by eassumption); auto; try congruence.
Qed.

Lemma jac_step f q t' : step (Jac f q) t' -> exists q', t' = Jac f q'.
Proof.
  intros H. inversion H; subst.
  match goal with E : efill ?F _ = Jac _ _ |- _ => destruct F; simpl in E; try discriminate end.
  injection H0 as -> ->. eexists. reflexivity.
Qed.

Lemma ln_step t t' : step t t' ->
  (forall d x, ln t d = Some x -> ln t' d = Some x) /\
  (forall f q, t = Jac f q -> exists q', t' = Jac f q' /\ forall d x, ln q d = Some x -> ln q' d = Some x).
Proof.
  induction 1; split; intros d x Ht; try discriminate; try (simpl in Ht; discriminate).
  - simpl in Ht. destruct (ln v1 d) eqn:E1; [|discriminate]. destruct (ln v2 d) eqn:E2; [|discriminate].
    injection Ht as <-. reflexivity.
  - simpl in Ht. destruct (ln v1 d) eqn:E1; [|discriminate]. destruct (ln v2 d) eqn:E2; [|discriminate].
    injection Ht as <-. reflexivity.
  - simpl in Ht. rewrite ln_num_dense in Ht by assumption. destruct (pv enil (num_tm r')); discriminate.
  - destruct IHstep as [IH1 IH2]. destruct F; simpl in *; try discriminate.
    + destruct (ln t d) eqn:E1; [|discriminate]. destruct (ln p d) eqn:E2; [|discriminate].
      rewrite (IH1 _ _ E1). exact Ht.
    + destruct (ln v d) eqn:E1; [|discriminate]. destruct (ln t d) eqn:E2; [|discriminate].
      rewrite (IH1 _ _ E2). exact Ht.
    + destruct t as [| | | | | | |f q| | | | | |]; try discriminate.
      destruct (IH2 f q eq_refl) as (q' & -> & Hq). simpl in *.
      destruct (pv enil p) eqn:E1; [|discriminate]. destruct (ln q d) eqn:E2; [|discriminate].
      rewrite (Hq _ _ E2). exact Ht.
    + destruct v as [| | | | | | |f q| | | | | |]; try discriminate.
      destruct (pv enil t) eqn:E1; [|discriminate]. destruct (ln q d) eqn:E2; [|discriminate].
      rewrite (pv_step _ _ H0 _ _ E1). exact Ht.
    + destruct (ln t d) eqn:E1; [|discriminate]. rewrite (IH1 _ _ E1). exact Ht.
    + destruct (ln t d) eqn:E1; [|discriminate]. destruct (ln s d) eqn:E2; [|discriminate].
      rewrite (IH1 _ _ E1). exact Ht.
    + destruct (ln v d) eqn:E1; [|discriminate]. destruct (ln t d) eqn:E2; [|discriminate].
      rewrite (IH1 _ _ E2). exact Ht.
  - destruct IHstep as [IH1 IH2]. destruct F; simpl in Ht; try discriminate.
    injection Ht as -> ->. exists t'. split; [reflexivity|exact IH1].
Qed.

(** ** (5⁺): the linear meaning of a body [bp] accepts is [fwd] *)
Lemma ln_fwd : forall s c acc r v d, bp s c acc = Some r -> ln s v = Some d -> fwd s v = d.
Proof.
  fix IH 1. intros s c acc r v d Hbp Hl.
  destruct s as [n| |s1 s2|i s| s1 s2| | | | | | | |s1 s2|]; cbn [bp] in Hbp; try discriminate.
  - destruct n; [|discriminate]. simpl in Hl. injection Hl as <-. reflexivity.
  - destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (as_num s2) as [x|] eqn:Hx; [|discriminate].
    apply as_num_sound in Hx. subst. cbn [ln] in Hl. rewrite pv_num in Hl.
    destruct (ln q v) as [y|] eqn:Eq; [|discriminate]. injection Hl as <-.
    cbn [fwd]. rewrite as_num_num. rewrite (IH q _ _ _ _ _ Hbp Eq). reflexivity.
  - destruct (as_path (Proj i s)) as [p|] eqn:Hp; [|discriminate].
    pose proof Hp as Hp'. apply as_path_sound in Hp'.
    cbn [fwd]. rewrite Hp. rewrite Hp' in Hl. rewrite ln_ppath in Hl. simpl in Hl.
    injection Hl as <-. reflexivity.
  - destruct (nsplit c) as [c1 c2].
    destruct (bp s1 c1 acc) as [a|] eqn:Hb1; [|discriminate].
    cbn [ln] in Hl. destruct (ln s1 v) as [x|] eqn:E1; destruct (ln s2 v) as [y|] eqn:E2;
      try discriminate. injection Hl as <-.
    cbn [fwd]. rewrite (IH s1 _ _ _ _ _ Hb1 E1), (IH s2 _ _ _ _ _ Hbp E2). reflexivity.
  - simpl in Hl. injection Hl as <-. reflexivity.
  - destruct (bp s1 c acc) as [a|] eqn:Hb1; [|discriminate].
    cbn [ln] in Hl. destruct (ln s1 v) as [x|] eqn:E1; destruct (ln s2 v) as [y|] eqn:E2;
      try discriminate. injection Hl as <-.
    cbn [fwd]. rewrite (IH s1 _ _ _ _ _ Hb1 E1), (IH s2 _ _ _ _ _ Hbp E2). reflexivity.
Qed.

(** ** 1-forms are kept by every step *)
Lemma typed_pb_inv Γ p w A :
  typed Γ (Pb p w) A -> exists σ τ, A = TOmega σ /\ typed (σ :: Γ) p τ /\ typed Γ w (TOmega τ).
Proof. intros H. inversion H; subst. eauto 6. Qed.

Lemma om_step w w' : step w w' -> forall τ x dx m,
  typed [] w (TOmega τ) -> num_ty x τ -> num_ty dx τ -> om w x dx = Some m -> om w' x dx = Some m.
Proof.
  induction 1; intros τ x dx m Ht Hx Hdx Hom; cbn [om] in Hom; try discriminate.
  - (* (7) *)
    cbn [om]. cbn [fw] in Hom. destruct (fw (econs (Some (x, dx)) enil) e) as [[y dy]|]; exact Hom.
  - (* (8) *)
    cbn [fw] in Hom. cbn [om fw].
    destruct (fw (econs (Some (x, dx)) enil) e) as [[y1 dy1]|] eqn:E; [|discriminate].
    cbn [econs]. rewrite fw_subst.
    rewrite (fw_ext l _ (econs (Some (y1, dy1)) (econs (Some (x, dx)) enil))); [exact Hom|].
    intros [|[|k]]; reflexivity.
  - (* A-step in the body *)
    cbn [om]. match goal with H : astep _ _ |- _ => rewrite (fw_astep _ _ _ H) end. exact Hom.
  - destruct F; cbn [efill om] in Hom |- *; try discriminate.
    destruct (typed_pb_inv _ _ _ _ Ht) as (σ0 & τ0 & Eq & Hp & Hw).
    unfold TOmega in Eq. injection Eq as <-.
    destruct (fw (econs (Some (x, dx)) enil) p) as [[y dy]|] eqn:E; [|discriminate].
    destruct (fw_ty _ _ _ Hp _ _ _ (fenv_one _ _ _ Hx Hdx) E) as [Hy Hdy].
    exact (IHstep τ0 y dy m Hw Hy Hdy Hom).
Qed.

(** ** Pullbacks along elementary bodies (9-20) *)
Lemma atom_none a xd : atom a -> nocc is0 a -> fw (econs xd enil) a = None.
Proof.
  induction 1; simpl; intros Hn.
  - destruct z; [exfalso; apply Hn; reflexivity|reflexivity].
  - rewrite IHatom by exact Hn. reflexivity.
Qed.

Lemma elem_const_fw e xd y dy :
  elem e -> nocc is0 e -> fw (econs xd enil) e = Some (y, dy) -> dy = NZ.
Proof.
  intros He Hn Hf. destruct He; cbn [fw nocc] in Hn, Hf; try discriminate.
  - injection Hf as <- <-. reflexivity.
  - destruct Hn as [Hn1 Hn2]. rewrite (atom_none _ xd H Hn1) in Hf. discriminate.
  - rewrite (atom_none _ xd H Hn) in Hf. discriminate.
  - destruct Hn as [Hn1 Hn2]. rewrite (atom_none _ xd H Hn1) in Hf. discriminate.
  - injection Hf as <- <-. reflexivity.
  - rewrite (atom_none _ xd H Hn) in Hf. discriminate.
Qed.

Lemma premise20 t t' : step t t' -> forall e w V s u X dx y dy,
  t = App (Pb e w) V -> t' = Dual s u -> pv enil V = Some X ->
  fw (econs (Some (X, dx)) enil) e = Some (y, dy) -> ln s dx = Some dy.
Proof.
  induction 1; intros e0 w0 V0 s1 u1 X dx y dy Ht Ht' HV He; try discriminate;
    try (destruct F; simpl in *; discriminate);
    injection Ht as <- <- <-; injection Ht' as <- <-; try (cbn [fw] in He; discriminate).
  - (* lin_shape *)
    match goal with H : lin_shape _ |- _ => destruct H end; unfold yp in *; cbn [fw] in He;
      rewrite ?fw_ppath in He; cbn [fw econs] in He; try discriminate;
      injection He as <- <-; cbn [ln]; rewrite ?ln_ppath; reflexivity.
  - cbn [fw] in He. rewrite (atom_none _ _ H1 H2) in He. discriminate.
  - cbn [fw] in He. rewrite (atom_none _ _ H1 H2) in He.
    destruct (fw _ (yp p)) as [[]|]; discriminate.
  - cbn [fw] in He. rewrite (atom_none _ _ H1 H2) in He.
    destruct (fw _ (yp p)) as [[]|]; discriminate.
  - cbn [fw] in He. rewrite (atom_none _ _ H1 H2) in He. discriminate.
  - (* (15) *)
    unfold yp in *. cbn [fw] in He. rewrite fw_ppath in He. cbn [fw econs] in He.
    injection He as <- <-. cbn [ln]. unfold shift. rewrite pv_ren, pv_ppath.
    rewrite (pv_ext v _ enil) by (intros k; reflexivity). rewrite HV, ln_ppath. reflexivity.
  - (* (20a) *)
    cbn [fw econs] in He.
    destruct (fw (econs (Some (X, dx)) enil) e) as [[y0 dy0]|] eqn:E; [|discriminate].
    injection He as <- <-.
    assert (Hs0 : ln (ren (up_ren S) s0) dx = Some dy0).
    { eapply IHstep; [reflexivity|reflexivity| |].
      - unfold shift. rewrite pv_ren. exact HV.
      - rewrite fw_ren. rewrite (fw_ext e _ (econs (Some (X, dx)) enil)); [exact E|].
        intros [|k]; reflexivity. }
    rewrite ln_ren in Hs0 by (reflexivity || (intros n; discriminate)).
    cbn [ln]. rewrite Hs0. reflexivity.
  - (* (20b) *)
    cbn [fw econs] in He.
    destruct (fw (econs (Some (X, dx)) enil) e) as [[y0 dy0]|] eqn:E; [|discriminate].
    injection He as <- <-. rewrite (elem_const_fw _ _ _ _ H1 H2 E). reflexivity.
Qed.

Lemma pb_case e w v s dv m :
  step (App (Pb e w) v) (Dual s (out w v e)) ->
  du (App (Pb e w) v) dv = Some m -> du (Dual s (out w v e)) dv = Some m.
Proof.
  intros Hst Hd. cbn [du om] in Hd. destruct (pv enil v) as [X|] eqn:HX; [|discriminate].
  destruct (fw (econs (Some (X, dv)) enil) e) as [[y dy]|] eqn:He; [|discriminate].
  unfold out. cbn [du].
  rewrite (premise20 _ _ Hst e w v s (out w v e) X dv y dy eq_refl eq_refl HX He).
  assert (Hp : pv enil (subst1 v e) = Some y).
  { unfold subst1. rewrite pv_subst. rewrite (pv_ext e _ (efst (econs (Some (X, dv)) enil))).
    - rewrite fw_pv, He. reflexivity.
    - intros [|k]; simpl; [exact HX|reflexivity]. }
  rewrite Hp. exact Hd.
Qed.

(** ** A [0] on the spine of dual maps stays there *)
Inductive zsp : tm -> Prop :=
| zsp_zero : zsp Zero
| zsp_dual s t : zsp t -> zsp (Dual s t).

Lemma zsp_step t t' : step t t' -> zsp t -> zsp t'.
Proof.
  induction 1; intros Hz; try (destruct F; simpl in Hz |- *); inversion Hz; subst.
  all: try (constructor; auto; fail).
  all: match goal with
       | H : zsp (NDual _) |- _ => inversion H
       | H : zsp (Dual _ _) |- _ => inversion H; subst; constructor; assumption
       end.
Qed.

Lemma zsp_steps t u : steps t u -> zsp t -> zsp u.
Proof. induction 1; eauto using zsp_step. Qed.

(** ** Dual terms are kept by every step, up to a [0] on the spine *)
Lemma app_pb_typed p w a σ :
  typed [] (App (Pb p w) a) (TDual σ) -> typed [] (Pb p w) (TOmega σ) /\ typed [] a σ.
Proof.
  intros H. inversion H; subst.
  match goal with H1 : typed _ (Pb _ _) _ |- _ =>
    destruct (typed_pb_inv _ _ _ _ H1) as (σ1 & τ1 & Eq & _ & _) end.
  unfold TOmega in Eq. injection Eq as -> ->. split; assumption.
Qed.

Lemma du_step t t' : step t t' -> forall σ dv m,
  typed [] t (TDual σ) -> num_ty dv σ -> du t dv = Some m -> du t' dv = Some m \/ zsp t'.
Proof.
  induction 1; intros σ dv m Ht Hdv Hd; try (cbn [du] in Hd; discriminate).
  (* the rules 9-20 whose body has no forward meaning *)
  all: try (exfalso; cbn [du om] in Hd;
            destruct (pv enil _) as [X|]; [|discriminate];
            cbn [fw] in Hd;
            repeat match type of Hd with
              | context [fw ?η ?a] =>
                  match goal with Ha : atom a, Hn : nocc is0 a |- _ =>
                    rewrite (atom_none a _ Ha Hn) in Hd end
              end;
            try discriminate;
            destruct (fw _ (yp _)) as [[]|]; discriminate).
  (* the forward rules *)
  all: try (left; eapply pb_case; [|exact Hd];
            first [ apply step_pb_lin; assumption
                  | apply step_pb_fun; assumption
                  | eapply step_pb_pair_step; eassumption
                  | apply step_pb_pair_const; assumption ]).
  - (* (1) *)
    left. cbn [du] in Hd. destruct (pv enil v) as [X|]; [|discriminate].
    destruct s; cbn [om] in Hd; try discriminate. exact Hd.
  - (* (5+) *)
    left. cbn [du] in Hd |- *. destruct (ln s dv) as [d|] eqn:Hl; [|discriminate].
    injection Hd as <-.
    match goal with H1 : ~ nocc is0 s, H2 : bp s c NZ = Some r |- _ =>
      rewrite (step_bp_transpose sone Hsr fjac_adjoint [] s c r σ dv (step_bp s c r H1 H2) Ht Hdv),
              (ln_fwd s c NZ r dv d H2 Hl) end.
    reflexivity.
  - (* (6) *)
    left. cbn [du] in Hd |- *.
    destruct (ln v1 dv) as [d1|] eqn:E1; [|discriminate].
    destruct (ln v2 d1) as [d2|] eqn:E2; [|discriminate].
    rewrite (ln_subst_comp v1 v2 dv d1 d2 E1 E2). exact Hd.
  - (* (9) *)
    right. constructor.
  - (* contexts *)
    destruct F as [p1|v1|p1|v1|i1|s1|v1|f1|f1|s1|v1|p1|l1]; cbn [efill] in *; try (cbn [du] in Hd; discriminate).
    + (* [] P *)
      left. cbn [du] in Hd |- *. destruct (pv enil p1) as [X|] eqn:HX; [|discriminate].
      destruct t; cbn [om] in Hd; try discriminate.
      * exfalso. apply (value_not_step _ _ H0). simpl. tauto.
      * destruct (app_pb_typed _ _ _ _ Ht) as [Hw Hp].
        refine (om_step _ _ H0 σ X dv m Hw _ Hdv Hd).
        refine (pv_ty _ _ _ Hp enil X _ HX). intros k z B Hk. discriminate.
    + (* V [] *)
      left. cbn [du] in Hd |- *. destruct (pv enil t) as [X|] eqn:HX; [|discriminate].
      rewrite (pv_step _ _ H0 _ _ HX). exact Hd.
    + (* (λx.S)* · [] *)
      inversion Ht; subst. cbn [du] in Hd |- *.
      destruct (ln s1 dv) as [d|] eqn:El; [|discriminate].
      match goal with Hs : typed [σ] s1 ?τ, Htt : typed [] t (TDual ?τ) |- _ =>
        destruct (IHstep _ d m Htt (ln_ty s1 [] σ _ dv d Hs Hdv El) Hd) as [Hl|Hz] end.
      * left. exact Hl.
      * right. constructor. exact Hz.
    + (* (λx.[])* · V *)
      left. cbn [du] in Hd |- *. destruct (ln t dv) as [d|] eqn:El; [|discriminate].
      rewrite (proj1 (ln_step _ _ H0) _ _ El). exact Hd.
Qed.

Lemma du_steps t u : steps t u -> forall σ dv m,
  typed [] t (TDual σ) -> num_ty dv σ -> du t dv = Some m -> du u dv = Some m \/ zsp u.
Proof.
  induction 1 as [t|t t' u Hst Hsteps IH]; intros σ dv m Ht Hdv Hd; [left; exact Hd|].
  destruct (du_step _ _ Hst σ dv m Ht Hdv Hd) as [Hd'|Hz].
  - exact (IH σ dv m (step_typed _ _ _ _ Hst Ht) Hdv Hd').
  - right. exact (zsp_steps _ _ Hsteps Hz).
Qed.

(** ** Corollary 4.8(1) for whole first-order queries

    If [((Ω λy.P) · (λx. e* )) r0 →* r*] (a typed query at a numeric point
    [r0]), then for every tangent [v] at which the forward propagation of
    the body is defined, [⟨r, v⟩ = ⟨e, J P(r0) · v⟩]. *)
Theorem query_transpose P e r0 r σ v y dy :
  typed [] (App (Pb P (Lam (NDual e))) (num_tm r0)) (TDual σ) ->
  steps (App (Pb P (Lam (NDual e))) (num_tm r0)) (NDual r) ->
  num_ty v σ ->
  fwd_at P r0 v = Some (y, dy) ->
  dot r v = dot e dy.
Proof.
  intros Ht Hs Hv Hf.
  assert (Hd : du (App (Pb P (Lam (NDual e))) (num_tm r0)) v = Some (dot e dy)).
  { cbn [du om]. rewrite pv_num. unfold fwd_at in Hf. rewrite Hf. reflexivity. }
  destruct (du_steps _ _ Hs σ v _ Ht Hv Hd) as [Hr|Hz].
  - cbn [du] in Hr. injection Hr as ->. reflexivity.
  - inversion Hz.
Qed.


(** ** The first-order fragment: [fw] is defined on every typed body built
    from variables, projections, pairs, scalars, [0], sums, function
    symbols and [let], so the theorem holds there for every tangent. *)
Inductive fo : tm -> Prop :=
| fo_var n : fo (Var n)
| fo_proj i s : fo s -> fo (Proj i s)
| fo_pair a b : fo a -> fo b -> fo (Pair a b)
| fo_real r : fo (Real r)
| fo_zero : fo Zero
| fo_plus a b : fo a -> fo b -> fo (Plus a b)
| fo_fun f a : fo a -> fo (Fun f a)
| fo_let e l : fo e -> fo l -> fo (Let e l).

Lemma fw_total t : fo t -> forall Γ A η, typed Γ t A ->
  (forall n B, nth_error Γ n = Some B -> exists xd, η n = Some xd) ->
  exists xd, fw η t = Some xd.
Proof.
  induction 1; intros Γ A η Ht Hη; inversion Ht; subst; cbn [fw].
  - eapply Hη. eassumption.
  - destruct (IHfo _ _ _ ltac:(eassumption) Hη) as [[x dx] ->]. eauto.
  - destruct (IHfo _ _ _ ltac:(eassumption) Hη) as [[x dx] ->]. eauto.
  - destruct (IHfo1 _ _ _ ltac:(eassumption) Hη) as [[x dx] ->].
    destruct (IHfo2 _ _ _ ltac:(eassumption) Hη) as [[y dy] ->]. eauto.
  - eauto.
  - eauto.
  - destruct (IHfo1 _ _ _ ltac:(eassumption) Hη) as [[x dx] ->].
    destruct (IHfo2 _ _ _ ltac:(eassumption) Hη) as [[y dy] ->]. eauto.
  - destruct (IHfo _ _ _ ltac:(eassumption) Hη) as [[x dx] ->]. eauto.
  - destruct (IHfo1 _ _ _ ltac:(eassumption) Hη) as [xd ->].
    match goal with H : typed (_ :: Γ) l A |- _ => refine (IHfo2 _ _ _ H _) end.
    intros [|k] B Hk; simpl in *; eauto.
Qed.

(** Corollary 4.8(1) on the first-order fragment: the forward tangent of
    the body is defined at every tangent, and the query computes its
    transpose. *)
Theorem query_transpose_fo P e r0 r σ v :
  fo P ->
  typed [] (App (Pb P (Lam (NDual e))) (num_tm r0)) (TDual σ) ->
  steps (App (Pb P (Lam (NDual e))) (num_tm r0)) (NDual r) ->
  num_ty v σ ->
  exists y dy, fwd_at P r0 v = Some (y, dy) /\ dot r v = dot e dy.
Proof.
  intros Hfo Ht Hs Hv.
  destruct (app_pb_typed _ _ _ _ Ht) as [Hpb _].
  destruct (typed_pb_inv _ _ _ _ Hpb) as (σ0 & τ & Eq & HP & _).
  unfold TOmega in Eq. injection Eq as <-.
  destruct (fw_total P Hfo [σ] τ (econs (Some (r0, v)) enil) HP) as [[y dy] Hf].
  { intros [|k] B Hk; simpl in *; [eauto|destruct k; discriminate]. }
  exists y, dy. split; [exact Hf|].
  exact (query_transpose P e r0 r σ v y dy Ht Hs Hv Hf).
Qed.

End query_transpose.

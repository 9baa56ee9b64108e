(** * Boolean deciders for the side conditions of the reduction rules

    The step function ([step_fn.v]) and the type checker ([infer.v]) test
    the side conditions of the rules by computation, on syntax only (no
    test on scalars).  Each test comes with its specification:
    - [noccb], [linb]: [nocc] and [lin] for a set of indices given by a
      boolean function ([noccb_spec], [linb_spec]);
    - [denseb], [chain_bodyb], [stuckb], [head_redexb], [valueb]: the
      predicates of [reduction.v] ([valueb_spec] etc.);
    - [areduce]: one A-step, the function of [astep] ([areduce_sound],
      [areduce_complete]);
    - [unren]: the inverse of a renaming, which reads the Jacobian body out
      of the value a premise computes ([unren_sound], [unren_ren]);
    - [atom_eqb]: equality of atoms (variables followed by a path). *)
From Coq Require Import Setoid.
From Pullback Require Import syntax typing anf backprop reduction progress.

Section decide.
Context {Σ : signature}.

Ltac inv H := inversion H; subst; clear H.

(** ** Sets of indices as boolean functions *)
Definition liftb (X : nat -> bool) (n : nat) : bool :=
  match n with 0 => false | S m => X m end.
Definition extb (X : nat -> bool) (n : nat) : bool :=
  match n with 0 => true | S m => X m end.
Definition is0b (n : nat) : bool := match n with 0 => true | _ => false end.

Definition set_spec (P : nat -> Prop) (X : nat -> bool) : Prop :=
  forall n, P n <-> X n = true.

Lemma liftb_spec P X : set_spec P X -> set_spec (lift P) (liftb X).
Proof. intros H [|n]; simpl; [split; [tauto|discriminate]|apply H]. Qed.

Lemma extb_spec P X : set_spec P X -> set_spec (ext P) (extb X).
Proof. intros H [|n]; simpl; [tauto|apply H]. Qed.

Lemma is0b_spec : set_spec is0 is0b.
Proof. intros [|n]; unfold is0; simpl; split; congruence. Qed.

(** ** Free variables and linearity *)
Fixpoint noccb (X : nat -> bool) (t : tm) : bool :=
  match t with
  | Var n => negb (X n)
  | Lam s => noccb (liftb X) s
  | App a b | Pair a b | Plus a b => noccb X a && noccb X b
  | Proj _ s | Fun _ s | Jac _ s => noccb X s
  | Dual s1 s2 | Pb s1 s2 => noccb (liftb X) s1 && noccb X s2
  | Let e l => noccb X e && noccb (liftb X) l
  | Real _ | NDual _ | Zero => true
  end.

Lemma noccb_spec t : forall P X, set_spec P X -> (noccb X t = true <-> nocc P t).
Proof.
  induction t; intros P X HP; simpl; rewrite ?Bool.andb_true_iff;
    repeat match goal with
      | IH : forall P X, set_spec P X -> (noccb X ?s = true <-> nocc P ?s)
        |- context [noccb (liftb ?Y) ?s] => rewrite (IH _ _ (liftb_spec _ _ HP))
      | IH : forall P X, set_spec P X -> (noccb X ?s = true <-> nocc P ?s)
        |- context [noccb ?Y ?s] => rewrite (IH _ _ HP)
      end; try tauto.
  specialize (HP n). destruct (X n); simpl; split; intros; try tauto; try discriminate;
    try (intros HPn; apply HP in HPn; discriminate);
    try (exfalso; apply H; apply HP; reflexivity).
Qed.

Fixpoint linb (X : nat -> bool) (t : tm) : bool :=
  match t with
  | Var n => X n
  | Lam s => linb (liftb X) s
  | App s p => linb X s && noccb X p
  | Proj _ s => linb X s
  | Pair a b => linb X a && linb X b
  | Jac _ s => linb X s
  | Dual s1 s2 => (linb (liftb X) s1 && noccb X s2) || (linb X s2 && noccb (liftb X) s1)
  | Zero => true
  | Plus a b => linb X a && linb X b
  | Let e l => (linb X e && linb (extb X) l) || (noccb X e && linb (liftb X) l)
  | Real _ | Fun _ _ | Pb _ _ | NDual _ => false
  end.

Lemma linb_spec t : forall P X, set_spec P X -> (linb X t = true <-> lin P t).
Proof.
  induction t; intros P X HP; simpl; rewrite ?Bool.orb_true_iff, ?Bool.andb_true_iff;
    repeat match goal with
      | IH : forall P X, set_spec P X -> (linb X ?s = true <-> lin P ?s)
        |- context [linb (liftb ?Y) ?s] => rewrite (IH _ _ (liftb_spec _ _ HP))
      | IH : forall P X, set_spec P X -> (linb X ?s = true <-> lin P ?s)
        |- context [linb (extb ?Y) ?s] => rewrite (IH _ _ (extb_spec _ _ HP))
      | IH : forall P X, set_spec P X -> (linb X ?s = true <-> lin P ?s)
        |- context [linb ?Y ?s] => rewrite (IH _ _ HP)
      | |- context [noccb (liftb ?Y) ?s] => rewrite (noccb_spec s _ _ (liftb_spec _ _ HP))
      | |- context [noccb ?Y ?s] => rewrite (noccb_spec s _ _ HP)
      end; try tauto; try (split; intros; discriminate || contradiction).
  symmetry. apply HP.
Qed.

Lemma noccb_is0 t : noccb is0b t = true <-> nocc is0 t.
Proof. apply noccb_spec, is0b_spec. Qed.

Lemma noccb_lift_is0 t : noccb (liftb is0b) t = true <-> nocc (lift is0) t.
Proof. apply noccb_spec, liftb_spec, is0b_spec. Qed.

Lemma linb_is0 t : linb is0b t = true <-> lin is0 t.
Proof. apply linb_spec, is0b_spec. Qed.

(** ** Numeric tuples *)
Fixpoint denseb {K} (r : num K) : bool :=
  match r with NR _ => true | NP a b => denseb a && denseb b | NZ => false end.

Lemma denseb_spec {K} (r : num K) : denseb r = true <-> dense r.
Proof. induction r; simpl; rewrite ?Bool.andb_true_iff; try tauto. split; [discriminate|tauto]. Qed.

(** [t] is a dense numeric tuple: [Some r] with [t = num_tm r]. *)
Definition dense_num (t : tm) : option (num scalar) :=
  match as_num t with Some r => if denseb r then Some r else None | None => None end.

Lemma dense_num_spec t r : dense_num t = Some r <-> dense r /\ t = num_tm r.
Proof.
  unfold dense_num. split.
  - destruct (as_num t) as [r'|] eqn:E; [|discriminate].
    destruct (denseb r') eqn:D; [|discriminate]. intros H. injection H as <-.
    split; [apply denseb_spec; exact D|apply as_num_sound; exact E].
  - intros [Hd ->]. rewrite as_num_num. apply denseb_spec in Hd. rewrite Hd. reflexivity.
Qed.

Lemma dense_num_none t : dense_num t = None -> forall r, dense r -> t <> num_tm r.
Proof.
  intros H r Hr ->. assert (dense_num (num_tm r) = Some r) by (apply dense_num_spec; auto).
  congruence.
Qed.

(** ** Chain bodies, stuck pullbacks, head redexes and values *)
Definition chain_bodyb (p : tm) : bool :=
  is_elem p || match p with Pair (Var 0) e => is_elem e | _ => false end.

Lemma is_elem_spec t : is_elem t = true <-> elem t.
Proof.
  split; [apply is_elem_lets_sound|apply is_elem_lets_complete].
Qed.

Lemma is_lets_spec t : is_lets t = true <-> lets t.
Proof.
  split; [apply is_elem_lets_sound|apply is_elem_lets_complete].
Qed.

Lemma chain_bodyb_spec p : chain_bodyb p = true <-> chain_body p.
Proof.
  unfold chain_bodyb, chain_body. rewrite Bool.orb_true_iff, is_elem_spec. split.
  - intros [H|H]; [left; exact H|right].
    destruct p as [| | | |[[|]| | | | | | | | | | | | |] e| | | | | | | | |]; try discriminate.
    exists e. split; [reflexivity|apply is_elem_spec; exact H].
  - intros [H|(e & -> & He)]; [left; exact H|right]. apply is_elem_spec. exact He.
Qed.

Definition is_lam (t : tm) : bool := match t with Lam _ => true | _ => false end.

Definition stuckb (p v : tm) : bool :=
  match p with
  | App a b =>
      match as_path b with
      | Some _ =>
          (is_atom a && noccb is0b a) ||
          match as_path a with
          | Some p1 => match proj_val p1 v with Some u => negb (is_lam u) | None => true end
          | None => false
          end
      | None => false
      end
  | _ => false
  end.

Lemma as_path_yp' q : as_path (yp q) = Some q.
Proof. apply as_path_yp. Qed.

Lemma as_path_some t p : as_path t = Some p -> t = yp p.
Proof. apply as_path_sound. Qed.

Lemma stuckb_spec p v : stuckb p v = true <-> stuck p v.
Proof.
  unfold stuckb, stuck. split.
  - destruct p as [| |a b| | | | | | | | | | |]; try discriminate.
    destruct (as_path b) as [q|] eqn:Hb; [|discriminate].
    apply as_path_some in Hb. subst b.
    rewrite Bool.orb_true_iff, Bool.andb_true_iff. intros [[Ha Hn]|H].
    + left. exists a, q. split; [apply is_atom_spec; exact Ha|].
      split; [apply noccb_is0; exact Hn|reflexivity].
    + right. destruct (as_path a) as [p1|] eqn:Ha; [|discriminate].
      apply as_path_some in Ha. subst a. exists p1, q. split; [reflexivity|].
      intros b' Hb'. rewrite Hb' in H. discriminate.
  - intros [(a & q & Ha & Hn & ->)|(p1 & q & -> & Hnl)].
    + rewrite as_path_yp. apply Bool.orb_true_iff. left.
      apply Bool.andb_true_iff. split; [apply is_atom_spec; exact Ha|apply noccb_is0; exact Hn].
    + rewrite !as_path_yp. apply Bool.orb_true_iff. right.
      destruct (proj_val p1 v) as [u|]; [|reflexivity].
      destruct u; try reflexivity. exfalso. eapply Hnl. reflexivity.
Qed.

Definition head_redexb (t : tm) : bool :=
  match t with
  | App (Lam _) _ => true
  | App (Jac _ a) b =>
      match dense_num a, dense_num b with Some _, Some _ => true | _, _ => false end
  | App (Pb p _) v => chain_bodyb p && negb (stuckb p v)
  | Proj _ (Pair _ _) => true
  | Fun _ a => match dense_num a with Some _ => true | None => false end
  | Dual s (NDual c) => negb (noccb is0b s) && match bp s c NZ with Some _ => true | None => false end
  | Dual _ (Dual _ _) => true
  | Pb p _ => is_lets p
  | Let _ _ => true
  | _ => false
  end.

Lemma bool_neg_spec (b : bool) (P : Prop) : (b = true <-> P) -> (negb b = true <-> ~ P).
Proof. destruct b; simpl; intuition; discriminate. Qed.

Lemma head_redexb_spec t : head_redexb t = true <-> head_redex t.
Proof.
  destruct t as [n|s|a b|i a|a b|r|f a|f a|s a|p w|r| |a b|e l]; simpl;
    try (split; [discriminate|tauto]); try tauto.
  - destruct a as [| |a1 a2| | | | |f a'| |p w| | | |]; simpl;
      try (split; [discriminate|tauto]); try tauto.
    + destruct (dense_num a') as [r|] eqn:E1; [destruct (dense_num b) as [r'|] eqn:E2|].
      * apply dense_num_spec in E1 as [? ->]. apply dense_num_spec in E2 as [? ->].
        split; [intros _; exists r, r'; auto|reflexivity].
      * split; [discriminate|]. intros (r1 & r1' & _ & Hd & _ & ->).
        exfalso; exact (dense_num_none _ E2 r1' Hd eq_refl).
      * split; [discriminate|]. intros (r1 & r1' & Hd & _ & -> & _).
        exfalso; exact (dense_num_none _ E1 r1 Hd eq_refl).
    + rewrite Bool.andb_true_iff, chain_bodyb_spec, (bool_neg_spec _ _ (stuckb_spec p b)). tauto.
  - destruct a; simpl; split; auto; discriminate.
  - destruct (dense_num a) as [r|] eqn:E.
    + apply dense_num_spec in E as [? ->]. split; eauto.
    + split; [discriminate|]. intros (r & Hd & ->). exfalso; exact (dense_num_none _ E r Hd eq_refl).
  - destruct a; simpl; try (split; [discriminate|tauto]); try tauto.
    rewrite Bool.andb_true_iff, (bool_neg_spec _ _ (noccb_is0 s)).
    destruct (bp s r NZ) as [r'|]; split; intros [H1 H2]; split; eauto; try discriminate.
    destruct H2 as [? H2]; discriminate.
  - apply is_lets_spec.
Qed.

Fixpoint valueb (t : tm) : bool :=
  negb (head_redexb t) &&
  match t with
  | Var _ | Lam _ | Real _ | NDual _ | Zero => true
  | Plus a b | Pair a b | App a b => valueb a && valueb b
  | Proj _ a | Fun _ a | Jac _ a => valueb a
  | Dual s a => valueb s && valueb a
  | Pb p s => chain_bodyb p && valueb s
  | Let _ _ => false
  end.

Lemma valueb_spec t : valueb t = true <-> value t.
Proof.
  induction t; cbn [valueb value]; rewrite Bool.andb_true_iff,
    (bool_neg_spec _ _ (head_redexb_spec _)); rewrite ?Bool.andb_true_iff;
    rewrite ?IHt, ?IHt1, ?IHt2, ?chain_bodyb_spec; try tauto.
  split; [intros [_ H]; discriminate|tauto].
Qed.

Lemma valueb_false t : valueb t = false <-> ~ value t.
Proof.
  rewrite <- valueb_spec. destruct (valueb t); split; congruence.
Qed.

(** ** Values among the terms a rule builds *)
Lemma value_num r : value (num_tm r).
Proof.
  induction r; simpl; repeat split; auto; intros H; exact H.
Qed.

Lemma as_num_value t r : as_num t = Some r -> value t.
Proof. intros H. apply as_num_sound in H. subst. apply value_num. Qed.

(** A body on which (5⁺) succeeds is a value, so the rule does not compete
    with a step under the binder. *)
Lemma bp_value : forall s c acc r, bp s c acc = Some r -> value s /\ dense_num s = None.
Proof.
  fix IH 1. intros s c acc r Hbp.
  destruct s as [n| |s1 s2|i s| s1 s2| | | | | | | |s1 s2|];
    cbn [bp] in Hbp; try discriminate.
  - simpl. auto.
  - destruct s1 as [| | | | | | |f q| | | | | |]; try discriminate.
    destruct (as_num s2) as [x|] eqn:Hx; [|discriminate].
    destruct (IH q _ _ _ Hbp) as [Hq Hqd].
    split; [|reflexivity]. simpl. split.
    + intros (r1 & r2 & Hd1 & _ & Eq & _). exact (dense_num_none _ Hqd r1 Hd1 Eq).
    + split; [split; [auto|exact Hq]|]. eapply as_num_value; eauto.
  - destruct (as_path (Proj i s)) as [p|] eqn:Hp; [|discriminate].
    apply as_path_some in Hp. rewrite Hp. unfold yp. clear.
    split.
    + induction p as [|j p IHp] using rev_ind; simpl; auto.
      rewrite ppath_app. simpl. split; auto.
      pose proof (atom_yp p) as Ha. unfold yp in Ha. revert Ha.
      destruct (ppath p (Var 0)); intros Ha; simpl; auto; inversion Ha.
    + destruct p as [|j p] using rev_ind; [reflexivity|].
      rewrite ppath_app. reflexivity.
  - destruct (nsplit c) as [c1 c2].
    destruct (bp s1 c1 acc) as [a|] eqn:Hb1; [|discriminate].
    destruct (IH s1 _ _ _ Hb1) as [H1 D1]. destruct (IH s2 _ _ _ Hbp) as [H2 D2].
    split; [simpl; auto|]. unfold dense_num in *. simpl.
    destruct (as_num s1) as [x1|]; [|reflexivity].
    destruct (as_num s2) as [x2|]; [|reflexivity]. simpl.
    destruct (denseb x1); [|reflexivity]. destruct (denseb x2); [discriminate|reflexivity].
  - simpl. auto.
  - destruct (bp s1 c acc) as [a|] eqn:Hb1; [|discriminate].
    destruct (IH s1 _ _ _ Hb1) as [H1 _]. destruct (IH s2 _ _ _ Hbp) as [H2 _].
    simpl. auto.
Qed.

(** ** One A-step *)

(** The A-step of [t], a term with two subterms [a] and [b] ([t = C a b])
    reduced from left to right: [t] itself once both are let series, else
    the first one's step ([rec] on it). *)
Definition areduce2 (rec : tm -> option tm) (C : tm -> tm -> tm) (t a b : tm) : option tm :=
  if is_lets a then
    if is_lets b then Some (ared t) else option_map (C a) (rec b)
  else option_map (fun a' => C a' b) (rec a).

Fixpoint areduce (t : tm) : option tm :=
  match t with
  | Var _ | Real _ | NDual _ | Zero => Some (ared t)
  | Lam s => if is_lets s then Some (ared t) else option_map Lam (areduce s)
  | Proj i s => if is_lets s then Some (ared t) else option_map (Proj i) (areduce s)
  | Fun f s => if is_lets s then Some (ared t) else option_map (Fun f) (areduce s)
  | Jac f s => if is_lets s then Some (ared t) else option_map (Jac f) (areduce s)
  | App a b => areduce2 areduce App t a b
  | Pair a b => areduce2 areduce Pair t a b
  | Plus a b => areduce2 areduce Plus t a b
  | Dual a b => areduce2 areduce Dual t a b
  | Pb a b => areduce2 areduce Pb t a b
  | Let a b =>
      if is_lets a then
        if is_lets b || is_var0 b then Some (ared t) else option_map (Let a) (areduce b)
      else if is_elem a then
        if is_var0 b then None else option_map (Let a) (areduce b)
      else option_map (fun a' => Let a' b) (areduce a)
  end.

Lemma astep_frame F s s' : aframe_ok F -> (forall t, alet_here F t) -> astep s s' ->
  astep (afill1 F s) (afill1 F s').
Proof.
  intros HF Hh [C r HC Hr Hk]. apply (astep_ctx (F :: C) r); [constructor; auto|exact Hr|split; [apply Hh|exact Hk]].
Qed.

Lemma astep_frame_let F s s' : aframe_ok F -> alet_here F s -> astep s s' ->
  astep (afill1 F s) (afill1 F s').
Proof.
  intros HF Hh H. inversion H as [C r HC Hr Hk E1 E2]; subst.
  apply (astep_ctx (F :: C) r); [constructor; auto|exact Hr|split; [apply Hh|exact Hk]].
Qed.

(** [astep_frame] for the frame [F] that [t] and [t'] are [s] and [s']
    in: the proofs find [F] by trying the frames in turn. *)
Lemma astep_frame_eq F s s' t t' : t = afill1 F s -> t' = afill1 F s' -> aframe_ok F ->
  (forall u, alet_here F u) -> astep s s' -> astep t t'.
Proof. intros -> -> HF Hh H. exact (astep_frame F s s' HF Hh H). Qed.

Lemma astep_redex r : aredex r -> astep r (ared r).
Proof. intros H. apply (astep_ctx [] r); simpl; auto. Qed.

Lemma astep_redex' r t' : aredex r -> ared r = t' -> astep r t'.
Proof. intros H <-. apply astep_redex. exact H. Qed.

Lemma is_var0_false t : is_var0 t = false -> t <> Var 0.
Proof. intros H ->. discriminate. Qed.

Lemma is_var0_true t : t = Var 0 -> is_var0 t = true.
Proof. intros ->. reflexivity. Qed.

Lemma is_elem_false t : is_elem t = false -> ~ elem t.
Proof. intros H He. apply is_elem_spec in He. congruence. Qed.

(** The [let] case of [areduce_sound]. *)
Lemma areduce_let_sound a b t' :
  (forall t', areduce a = Some t' -> astep a t') ->
  (forall t', areduce b = Some t' -> astep b t') ->
  areduce (Let a b) = Some t' -> astep (Let a b) t'.
Proof.
  intros IHa IHb H. simpl in H.
  destruct (is_lets a) eqn:Ea.
  - apply is_lets_spec in Ea.
    destruct (is_lets b || is_var0 b) eqn:Eb.
    + injection H as <-. apply astep_redex. constructor; [exact Ea|].
      apply Bool.orb_true_iff in Eb. destruct Eb as [Eb|Eb];
        [left; apply is_lets_spec, Eb|right; apply is_var0_spec, Eb].
    + apply Bool.orb_false_iff in Eb. destruct Eb as [_ Eb].
      destruct (areduce b) as [b'|] eqn:Hb; [|discriminate]. injection H as <-.
      apply (astep_frame_let (ALetR a)); simpl; auto using is_var0_false.
  - destruct (is_elem a) eqn:Ee.
    + apply is_elem_spec in Ee. destruct (is_var0 b) eqn:Eb; [discriminate|].
      destruct (areduce b) as [b'|] eqn:Hb; [|discriminate]. injection H as <-.
      apply (astep_frame_let (ALetR a)); simpl; auto using is_var0_false.
    + destruct (areduce a) as [a'|] eqn:Ha; [|discriminate]. injection H as <-.
      apply (astep_frame_let (ALetL b)); simpl; auto using is_elem_false.
Qed.

Lemma areduce_sound t t' : areduce t = Some t' -> astep t t'.
Proof.
  revert t'. induction t; intros t' H;
    try (apply (areduce_let_sound _ _ _ IHt1 IHt2 H); fail);
    simpl in H; try unfold areduce2 in H; try discriminate;
    try (injection H as <-; apply astep_redex'; [constructor|reflexivity]; fail);
    repeat match goal with
      | H : context [if is_lets ?s then _ else _] |- _ =>
          let E := fresh "E" in destruct (is_lets s) eqn:E;
          [apply is_lets_spec in E|]
      end;
    try (injection H as <-; apply astep_redex'; [constructor; assumption|reflexivity]);
    match goal with
    | H : option_map ?k (areduce ?s) = Some _ |- _ =>
        destruct (areduce s) as [s'|] eqn:Hs; [|discriminate];
        injection H as <-
    end;
    match goal with
    | IH : forall t', _ = Some t' -> astep _ t' |- _ => specialize (IH _ eq_refl)
    end.
  all: match goal with IH : astep ?s ?s' |- _ =>
         unshelve eapply (astep_frame_eq _ s s' _ _ _ _ _ _ IH);
           [econstructor|reflexivity|reflexivity|simpl; auto ..]
       end.
Qed.

Lemma is_lets_afill C r : aredex r -> alet_ok C r -> is_lets (afill C r) = false.
Proof.
  intros Hr Hk. destruct (is_lets (afill C r)) eqn:E; [|reflexivity].
  apply is_lets_spec in E. exfalso. exact (lets_not_afill C r Hr Hk E).
Qed.

Lemma areduce_complete t t' : astep t t' -> areduce t = Some t'.
Proof.
  intros [C r HC Hr Hk]. induction C as [|F C IH]; simpl.
  - destruct Hr as [| | | | | | | | | | | | |l p Hl Hp]; simpl; try unfold areduce2;
      repeat match goal with H : lets ?l |- _ => apply is_lets_spec in H; rewrite H; clear H end;
      try reflexivity.
    destruct Hp as [Hp| ->]; [apply is_lets_spec in Hp; rewrite Hp|]; reflexivity.
  - inversion HC as [|? ? HF HC']; subst. destruct Hk as [Hh Hk]. specialize (IH HC' Hk).
    pose proof (is_lets_afill C r Hr Hk) as Hn.
    destruct F; simpl in HF, Hh; cbn [afill1 areduce]; try unfold areduce2; rewrite ?Hn;
      try (apply is_lets_spec in HF; rewrite HF);
      try (rewrite IH; reflexivity).
    + (* let x = C_A in l *)
      destruct (is_elem (afill C r)) eqn:Ee; [apply is_elem_spec in Ee; contradiction|].
      rewrite IH. reflexivity.
    + (* let x = e in C_A *)
      assert (E0 : is_var0 (afill C r) = false)
        by (destruct (is_var0 (afill C r)) eqn:E0; [apply is_var0_spec in E0; contradiction|reflexivity]).
      destruct HF as [He|Hl].
      * destruct (is_lets e) eqn:El;
          [exfalso; apply is_lets_spec in El; exact (lets_not_elem e El He)|].
        apply is_elem_spec in He. rewrite He, E0, IH. reflexivity.
      * apply is_lets_spec in Hl. rewrite Hl, ?Hn, E0. simpl. rewrite IH. reflexivity.
Qed.

(** ** Inverting a renaming *)
Definition up_opt (ρ : nat -> option nat) : nat -> option nat :=
  fun n => match n with 0 => Some 0 | S m => option_map S (ρ m) end.

Definition omap2 {A B C} (f : A -> B -> C) (a : option A) (b : option B) : option C :=
  match a, b with Some x, Some y => Some (f x y) | _, _ => None end.

Fixpoint unren (ρ : nat -> option nat) (t : tm) : option tm :=
  match t with
  | Var n => option_map Var (ρ n)
  | Lam s => option_map Lam (unren (up_opt ρ) s)
  | App a b => omap2 App (unren ρ a) (unren ρ b)
  | Proj i s => option_map (Proj i) (unren ρ s)
  | Pair a b => omap2 Pair (unren ρ a) (unren ρ b)
  | Real r => Some (Real r)
  | Fun f s => option_map (Fun f) (unren ρ s)
  | Jac f s => option_map (Jac f) (unren ρ s)
  | Dual a b => omap2 Dual (unren (up_opt ρ) a) (unren ρ b)
  | Pb a b => omap2 Pb (unren (up_opt ρ) a) (unren ρ b)
  | NDual r => Some (NDual r)
  | Zero => Some Zero
  | Plus a b => omap2 Plus (unren ρ a) (unren ρ b)
  | Let a b => omap2 Let (unren ρ a) (unren (up_opt ρ) b)
  end.

Lemma unren_sound : forall t ρ ρi s,
  (forall n m, ρi n = Some m -> ρ m = n) -> unren ρi t = Some s -> ren ρ s = t.
Proof.
  assert (Hup : forall (ρ : nat -> nat) ρi, (forall n m, ρi n = Some m -> ρ m = n) ->
     forall n m, up_opt ρi n = Some m -> up_ren ρ m = n).
  { intros ρ ρi H [|n] m; simpl; intros E.
    - injection E as <-. reflexivity.
    - destruct (ρi n) as [k|] eqn:Ek; [|discriminate]. injection E as <-. simpl. f_equal. auto. }
  induction t; intros ρ ρi s Hρ H; simpl in H;
    try (injection H as <-; reflexivity);
    repeat match goal with
      | H : option_map _ ?o = Some _ |- _ =>
          let x := fresh "x" in let E := fresh "E" in
          destruct o as [x|] eqn:E; [|discriminate]; injection H as <-
      | H : omap2 _ ?o1 ?o2 = Some _ |- _ =>
          let x := fresh "x" in let E := fresh "E" in
          let y := fresh "y" in let E' := fresh "E" in
          destruct o1 as [x|] eqn:E; [|discriminate];
          destruct o2 as [y|] eqn:E'; [|discriminate]; injection H as <-
      end; simpl; f_equal; eauto.
Qed.

Lemma unren_ren : forall s ρ ρi,
  (forall m, ρi (ρ m) = Some m) -> unren ρi (ren ρ s) = Some s.
Proof.
  assert (Hup : forall (ρ : nat -> nat) ρi, (forall m, ρi (ρ m) = Some m) ->
     forall m, up_opt ρi (up_ren ρ m) = Some m).
  { intros ρ ρi H [|m]; simpl; auto. rewrite H. reflexivity. }
  induction s; intros ρ ρi Hρ; simpl;
    repeat match goal with
      | IH : forall ρ ρi, _ -> unren ρi (ren ρ ?t) = Some ?t |- context [unren ?r (ren ?q ?t)] =>
          rewrite (IH q r) by auto
      end; try rewrite Hρ; reflexivity.
Qed.

Lemma ren_inj ρ ρi s1 s2 :
  (forall m, ρi (ρ m) = Some m) -> ren ρ s1 = ren ρ s2 -> s1 = s2.
Proof.
  intros H E. pose proof (unren_ren s1 ρ ρi H) as H1. rewrite E, unren_ren in H1 by exact H.
  congruence.
Qed.

(** The inverses of the renamings used by the premises. *)
Definition swap_inv (n : nat) : option nat :=
  match n with 0 => Some 1 | 1 => Some 0 | 2 => None | S (S (S k)) => Some (S (S k)) end.

Definition upS_inv (n : nat) : option nat :=
  match n with 0 => Some 0 | 1 => None | S (S k) => Some (S k) end.

Lemma swap_inv_l m : swap_inv (swap m) = Some m.
Proof. destruct m as [|[|m]]; reflexivity. Qed.

Lemma swap_inv_r n m : swap_inv n = Some m -> swap m = n.
Proof. destruct n as [|[|[|n]]]; simpl; intros H; try discriminate; injection H as <-; reflexivity. Qed.

Lemma upS_inv_l m : upS_inv (up_ren S m) = Some m.
Proof. destruct m; reflexivity. Qed.

Lemma upS_inv_r n m : upS_inv n = Some m -> up_ren S m = n.
Proof. destruct n as [|[|n]]; simpl; intros H; try discriminate; injection H as <-; reflexivity. Qed.

(** ** Equality of atoms *)
Fixpoint atom_eqb (a b : tm) : bool :=
  match a, b with
  | Var n, Var m => Nat.eqb n m
  | Proj i a', Proj j b' => Bool.eqb i j && atom_eqb a' b'
  | _, _ => false
  end.

Lemma atom_eqb_sound a b : atom_eqb a b = true -> a = b.
Proof.
  revert b. induction a; intros b H; destruct b; simpl in H; try discriminate.
  - apply PeanoNat.Nat.eqb_eq in H. congruence.
  - apply Bool.andb_true_iff in H as [H1 H2]. apply Bool.eqb_prop in H1. subst.
    f_equal. auto.
Qed.

Lemma atom_eqb_refl a : atom a -> atom_eqb a a = true.
Proof.
  induction 1; simpl; [apply PeanoNat.Nat.eqb_refl|].
  rewrite IHatom, Bool.eqb_reflx. reflexivity.
Qed.

End decide.

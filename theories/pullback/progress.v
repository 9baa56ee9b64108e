(** * Unique decomposition (Lemma 3.8) and decomposition progress (spec §6)

    A value here is a normal form (§6, [value], reduction.v), so
    [progress_premise] says that the redex grammar and the rules agree:
    every term is a normal form, or it steps, or its redex is one of the
    rules with a premise (16b, 16c, 17, 18, 19b, 19c, 20a) whose premise
    has not been evaluated.  It needs no typing and cannot fail: the normal
    forms include open and stuck terms (§6, Remark 3.6).  The only
    hypothesis, [pb_wf], asks every [let] in the body of a pullback to be
    part of a let series, as A-normalisation produces them (Lemma B.1 then
    decomposes the body).  Progress for closed well-typed terms with values
    defined by their syntax is [progress_num] (progress_typed.v). *)
From Pullback Require Import syntax typing anf backprop reduction.

Section progress.
Context {Σ : signature}.

Ltac inv H := inversion H; subst; clear H.

Lemma syntax_ppath_nocc X p t : nocc X (ppath p t) <-> nocc X t.
Proof. revert t. induction p; simpl; intros t; [tauto|]. rewrite IHp. simpl. tauto. Qed.
#[local] Hint Constructors atom elem lets : core.

(** ** Decidability of the redex shapes *)
Fixpoint is_atom (t : tm) : bool :=
  match t with Var _ => true | Proj _ a => is_atom a | _ => false end.

Lemma is_atom_spec t : is_atom t = true <-> atom t.
Proof.
  induction t; simpl; split; intros H; try discriminate; try (inv H; fail);
    try constructor.
  - apply IHt. exact H.
  - inv H. apply IHt. assumption.
Qed.

Definition is_var0 (t : tm) : bool := match t with Var 0 => true | _ => false end.

Lemma is_var0_spec t : is_var0 t = true -> t = Var 0.
Proof. destruct t as [[|n]| | | | | | | | | | | | |]; simpl; congruence. Qed.

Fixpoint is_elem (t : tm) : bool :=
  match t with
  | Zero | Real _ | NDual _ => true
  | Plus a b | App a b | Pair a b => is_atom a && is_atom b
  | Var _ => true
  | Proj _ a => is_atom a
  | Lam l => is_lets l
  | Fun _ a | Jac _ a => is_atom a
  | Dual l a | Pb l a => is_lets l && is_atom a
  | Let _ _ => false
  end
with is_lets (t : tm) : bool :=
  match t with
  | Let e l => is_elem e && (is_var0 l || is_lets l)
  | _ => false
  end.

Ltac atoms := repeat match goal with H : is_atom _ = true |- _ => apply is_atom_spec in H end.

Lemma is_elem_lets_sound t :
  (is_elem t = true -> elem t) /\ (is_lets t = true -> lets t).
Proof.
  induction t; simpl; split; intros H; try discriminate;
    rewrite ?Bool.andb_true_iff, ?Bool.orb_true_iff in H;
    repeat match goal with H : _ /\ _ |- _ => destruct H end; atoms;
    repeat match goal with IH : _ /\ _ |- _ => destruct IH end;
    eauto.
  all: try solve [apply elem_atom; constructor; assumption].
  all: destruct H0 as [H0|H0];
    [apply is_var0_spec in H0; subst; constructor; auto | apply lets_cons; auto].
Qed.

Lemma is_elem_lets_complete :
  (forall e, elem e -> is_elem e = true) /\ (forall l, lets l -> is_lets l = true).
Proof.
  apply elem_lets_mut; intros; simpl;
    rewrite ?Bool.andb_true_iff, ?Bool.orb_true_iff;
    repeat match goal with H : atom _ |- _ => apply is_atom_spec in H end;
    auto.
  destruct a; simpl in *; auto; discriminate.
Qed.

(** A proposition with a sound and complete boolean test is decided. *)
Lemma dec_of_bool (P : Prop) (b : bool) : (b = true -> P) -> (P -> b = true) -> P \/ ~ P.
Proof. intros H1 H2. destruct b; [left; exact (H1 eq_refl)|right; intros HP; discriminate (H2 HP)]. Qed.

Lemma elem_dec t : elem t \/ ~ elem t.
Proof. apply (dec_of_bool _ (is_elem t)); [apply is_elem_lets_sound|apply is_elem_lets_complete]. Qed.

Lemma lets_dec t : lets t \/ ~ lets t.
Proof. apply (dec_of_bool _ (is_lets t)); [apply is_elem_lets_sound|apply is_elem_lets_complete]. Qed.

Lemma atom_dec t : atom t \/ ~ atom t.
Proof. apply (dec_of_bool _ (is_atom t)); apply is_atom_spec. Qed.

Lemma nocc_dec (X : nat -> Prop) t : (forall n, X n \/ ~ X n) -> nocc X t \/ ~ nocc X t.
Proof.
  assert (HL : forall X : nat -> Prop, (forall n, X n \/ ~ X n) -> forall n, lift X n \/ ~ lift X n)
    by (intros X' H [|n]; simpl; auto).
  revert X. induction t; intros X HX; simpl;
    try solve [left; exact I];
    try solve [destruct (HX n); tauto];
    try solve [apply IHt; auto];
    try solve [destruct (IHt1 X); destruct (IHt2 X); auto; tauto];
    try solve [destruct (IHt1 (lift X)); destruct (IHt2 X); auto; tauto];
    try solve [destruct (IHt1 X); destruct (IHt2 (lift X)); auto; tauto].
Qed.

Lemma is0_dec n : is0 n \/ ~ is0 n.
Proof. unfold is0. destruct n; auto. Qed.

Lemma nocc_is0_dec t : nocc is0 t \/ ~ nocc is0 t.
Proof. apply nocc_dec. apply is0_dec. Qed.

Lemma as_path_yp q : as_path (yp q) = Some q.
Proof.
  unfold yp. induction q as [|i q IH] using rev_ind; simpl; auto.
  rewrite ppath_app. simpl. rewrite IH. reflexivity.
Qed.

(** An atom is a path on [y] or does not mention [y]. *)
Lemma atom_split a : atom a -> nocc is0 a \/ exists p, a = yp p.
Proof.
  induction 1 as [[|k]|i a Ha IH].
  - right. exists []. reflexivity.
  - left. simpl. unfold is0. discriminate.
  - destruct IH as [IH|[p ->]].
    + left. exact IH.
    + right. exists (p ++ [i]). unfold yp. rewrite ppath_app. reflexivity.
Qed.

Lemma yp_not_nocc p : ~ nocc is0 (yp p).
Proof.
  unfold yp. intros H. apply (proj1 (syntax_ppath_nocc is0 p (Var 0)) H). reflexivity.
Qed.

Lemma atom_yp p : atom (yp p).
Proof.
  unfold yp. induction p as [|i p IH] using rev_ind; simpl; auto.
  rewrite ppath_app. simpl. constructor. exact IH.
Qed.

Lemma yp_inj p q : yp p = yp q -> p = q.
Proof. intros H. pose proof (as_path_yp p) as Hp. rewrite H, as_path_yp in Hp. congruence. Qed.

Lemma dense_dec {K} (r : num K) : dense r \/ ~ dense r.
Proof. induction r; simpl; tauto. Qed.

Lemma stuck_dec p v : stuck p v \/ ~ stuck p v.
Proof.
  unfold stuck.
  destruct p as [| |a b| | | | | | | | | | |];
    try (right; intros [(aa & qq & _ & _ & HH)|(pp & qq & HH & _)]; discriminate).
  destruct (as_path b) as [q|] eqn:Hb.
  - apply as_path_sound in Hb. fold (yp q) in Hb. subst b.
    destruct (atom_dec a) as [Ha|Ha].
    + destruct (atom_split a Ha) as [Hn|[p1 ->]].
      * left. left. exists a, q. auto.
      * destruct (proj_val p1 v) as [[| | | | | | | | | | | | |]|] eqn:Hpv;
          try (left; right; exists p1, q; split; [reflexivity|]; intros b' Hb'; congruence).
        right. intros [(a' & q' & _ & Hn & Heq)|(p1' & q' & Heq & Hnl)].
        -- injection Heq as <- _. exact (yp_not_nocc p1 Hn).
        -- injection Heq as Heq _. apply yp_inj in Heq. subst p1'. eapply Hnl. exact Hpv.
    + right. intros [(a' & q' & Ha' & _ & Heq)|(p1' & q' & Heq & _)];
        injection Heq as Heq1 _; subst; [contradiction|apply Ha; apply atom_yp].
  - right. intros [(a' & q' & _ & _ & Heq)|(p1' & q' & Heq & _)];
      injection Heq as _ ->; rewrite as_path_yp in Hb; discriminate.
Qed.

Lemma chain_body_dec p : chain_body p \/ ~ chain_body p.
Proof.
  unfold chain_body. destruct (elem_dec p) as [H|H]; [left; left; exact H|].
  destruct p as [| | | |a e| | | | | | | | |];
    try (right; intros [H'|(e' & He & _)]; [contradiction|discriminate]).
  destruct (elem_dec e) as [He|He]; [destruct a as [[|n]| | | | | | | | | | | | |]|].
  all: try (right; intros [H'|(e' & Heq & He')]; [contradiction|injection Heq as ? ?; subst];
            try discriminate; try contradiction; congruence).
  left. right. exists e. auto.
Qed.

Lemma chain_body_not_lets p : chain_body p -> ~ lets p.
Proof.
  intros [H|(e & -> & _)] Hl; [|inversion Hl].
  destruct H; inversion Hl; subst; match goal with H : atom _ |- _ => inversion H end.
Qed.

Lemma num_dec t : (exists r, dense r /\ t = num_tm r) \/ ~ (exists r, dense r /\ t = num_tm r).
Proof.
  destruct (as_num t) as [r|] eqn:Ht.
  - destruct (dense_dec r) as [Hd|Hd].
    + left. exists r. split; auto. apply as_num_sound. exact Ht.
    + right. intros (r' & Hd' & ->). rewrite as_num_num in Ht. congruence.
  - right. intros (r' & Hd' & ->). rewrite as_num_num in Ht. discriminate.
Qed.

Lemma head_redex_dec t : head_redex t \/ ~ head_redex t.
Proof.
  destruct t as [n|s|a b|i a|a b|r|f a|f a|s a|p w|r| |a b|e l];
    try solve [simpl; auto].
  - (* application *)
    destruct a as [| |a1 a2| | | | |f a'| |p w| | | |]; try solve [simpl; auto].
    + destruct (num_dec a') as [(r & Hr & ->)|Hn];
        [destruct (num_dec b) as [(r' & Hr' & ->)|Hn']|].
      * left. simpl. exists r, r'. auto.
      * right. simpl. intros (r1 & r1' & _ & Hd' & _ & ->). apply Hn'. eauto.
      * right. simpl. intros (r1 & r1' & Hd & _ & -> & _). apply Hn. eauto.
    + simpl. destruct (chain_body_dec p); destruct (stuck_dec p b); tauto.
  - destruct a; simpl; auto.
  - simpl. apply num_dec.
  - destruct a; simpl; auto.
    destruct (nocc_is0_dec s) as [Hn|Hn].
    + right. tauto.
    + destruct (bp s r NZ) as [r'|] eqn:Hb.
      * left. split; eauto.
      * right. intros [_ (r' & H)]. congruence.
  - simpl. apply lets_dec.
Qed.

(** ** Evaluation contexts as lists of frames, outermost first *)
Fixpoint efills (C : list eframe) (t : tm) : tm :=
  match C with
  | [] => t
  | F :: C' => efill F (efills C' t)
  end.

(** The evaluation positions of a head redex hold values. *)
Definition ready (t : tm) : Prop :=
  match t with
  | App a b => value a /\ value b
  | Proj _ a | Fun _ a => value a
  | Dual s a => value s /\ value a
  | Let v _ => value v
  | _ => True
  end.

(** A redex of the strategy (§6): a head redex whose evaluation positions
    are values, or a pullback whose body is not yet A-normal (the context
    [(Ω λy.C_A)·S], where Lemma B.1 takes over). *)
Definition redex (t : tm) : Prop :=
  (head_redex t /\ ready t) \/
  (exists p w, t = Pb p w /\ ~ chain_body p /\ ~ lets p).

(** Every [let] in the body of a pullback is part of a let series. *)
Fixpoint pb_wf (t : tm) : Prop :=
  match t with
  | Pb p s => wf_let p /\ pb_wf s
  | Var _ | Real _ | NDual _ | Zero | Lam _ => True
  | App a b | Pair a b | Plus a b | Dual a b | Let a b => pb_wf a /\ pb_wf b
  | Proj _ a | Fun _ a | Jac _ a => pb_wf a
  end.

Definition cbv_decomp (t : tm) : Prop :=
  exists C r, Forall eframe_ok C /\ redex r /\ t = efills C r.

Lemma cbv_decomp_frame F t : eframe_ok F -> cbv_decomp t -> cbv_decomp (efill F t).
Proof. intros HF (C & r & HC & Hr & ->). exists (F :: C), r. simpl. auto. Qed.

Lemma cbv_decomp_redex r : redex r -> cbv_decomp r.
Proof. intros H. exists [], r. auto. Qed.

(** Informal proof: by induction on [t], visiting the evaluation positions
    in the order of the contexts of §6 (left to right; the argument of a
    dual map before its body; the 1-form of a chain).  The first position
    that is not a value decomposes by induction, and its frame extends the
    context.  If every position is a value, [t] is a value unless it has
    the shape of a head redex ([head_redex_dec] decides this), in which case
    it is a redex.  A pullback whose body is neither a let series nor a
    chain body is the A-normalisation redex. *)
Lemma decompose t : pb_wf t -> value t \/ cbv_decomp t.
Proof.
  induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs a IHa
                 |p IHp w IHw|r| |a IHa b IHb|e IHe l IHl]; simpl; intros Hwf;
    try solve [left; simpl; auto].
  - (* S P *)
    destruct Hwf as [Ha Hb]. destruct (IHa Ha) as [Va|Da]; [|right; apply (cbv_decomp_frame (EAppL b)); simpl; auto].
    destruct (IHb Hb) as [Vb|Db]; [|right; apply (cbv_decomp_frame (EAppR a)); simpl; auto].
    destruct (head_redex_dec (App a b)) as [Hr|Hr].
    + right. apply cbv_decomp_redex. left. simpl. auto.
    + left. simpl. auto.
  - (* πi(S) *)
    destruct (IHa Hwf) as [Va|Da]; [|right; apply (cbv_decomp_frame (EProj i)); simpl; auto].
    destruct (head_redex_dec (Proj i a)) as [Hr|Hr].
    + right. apply cbv_decomp_redex. left. simpl. auto.
    + left. simpl. auto.
  - (* ⟨S, S⟩ *)
    destruct Hwf as [Ha Hb]. destruct (IHa Ha) as [Va|Da]; [|right; apply (cbv_decomp_frame (EPairL b)); simpl; auto].
    destruct (IHb Hb) as [Vb|Db]; [|right; apply (cbv_decomp_frame (EPairR a)); simpl; auto].
    left. simpl. auto.
  - (* f(P) *)
    destruct (IHa Hwf) as [Va|Da]; [|right; apply (cbv_decomp_frame (EFun f)); simpl; auto].
    destruct (head_redex_dec (Fun f a)) as [Hr|Hr].
    + right. apply cbv_decomp_redex. left. simpl. auto.
    + left. simpl. auto.
  - (* J f · S *)
    destruct (IHa Hwf) as [Va|Da]; [|right; apply (cbv_decomp_frame (EJac f)); simpl; auto].
    left. simpl. auto.
  - (* (λx.S)* · S′: the argument first, then the body *)
    destruct Hwf as [Hs Ha]. destruct (IHa Ha) as [Va|Da]; [|right; apply (cbv_decomp_frame (EDualR s)); simpl; auto].
    destruct (IHs Hs) as [Vs|Ds]; [|right; apply (cbv_decomp_frame (EDualL a)); simpl; auto].
    destruct (head_redex_dec (Dual s a)) as [Hr|Hr].
    + right. apply cbv_decomp_redex. left. simpl. auto.
    + left. simpl. auto.
  - (* (Ω λy.P) · S *)
    destruct Hwf as [Hp Hw]. destruct (lets_dec p) as [Hl|Hl].
    + right. apply cbv_decomp_redex. left. simpl. auto.
    + destruct (chain_body_dec p) as [Hc|Hc].
      * destruct (IHw Hw) as [Vw|Dw]; [|right; apply (cbv_decomp_frame (EPbR p)); simpl; auto].
        left. simpl. auto.
      * right. apply cbv_decomp_redex. right. eauto.
  - (* S + P *)
    destruct Hwf as [Ha Hb]. destruct (IHa Ha) as [Va|Da]; [|right; apply (cbv_decomp_frame (EPlusL b)); simpl; auto].
    destruct (IHb Hb) as [Vb|Db]; [|right; apply (cbv_decomp_frame (EPlusR a)); simpl; auto].
    left. simpl. auto.
  - (* let *)
    destruct Hwf as [He Hl]. destruct (IHe He) as [Ve|De]; [|right; apply (cbv_decomp_frame (ELet l)); simpl; auto].
    right. apply cbv_decomp_redex. left. simpl. auto.
Qed.

(** ** Lemma 3.8: the decomposition is unique, and values have none *)
Lemma value_efill F t : value (efill F t) -> value t.
Proof. destruct F; simpl; tauto. Qed.

Lemma value_not_redex r : value r -> ~ redex r.
Proof.
  intros Hv [[Hr _]|(p & w & -> & Hc & _)].
  - destruct r; simpl in Hv; tauto.
  - simpl in Hv. tauto.
Qed.

Lemma value_not_decomp C r : redex r -> ~ value (efills C r).
Proof.
  induction C as [|F C IH]; simpl; intros Hr Hv.
  - exact (value_not_redex r Hv Hr).
  - apply IH; [exact Hr|]. eapply value_efill. exact Hv.
Qed.

Lemma redex_not_efill F C r : eframe_ok F -> redex r -> ~ redex (efill F (efills C r)).
Proof.
  intros HF Hr [[Hh Hready]|(p & w & Heq & Hc & _)].
  - destruct F; simpl in *;
      try (destruct (efills C r); contradiction);
      try (destruct Hready);
      try (eapply value_not_decomp; [exact Hr|eassumption]).
    exact (chain_body_not_lets _ HF Hh).
  - destruct F; simpl in Heq; try discriminate. injection Heq as -> _. contradiction.
Qed.

(** Informal proof: by induction on the first context.  A redex is never
    a proper filling of a context, because each context position of a
    redex holds a value (by [ready]; for [(Ω λy.E)·C] the body is a chain
    body, which is neither a let series nor an A-normalisation redex), and
    a value is never a filling ([value_not_decomp]).  Two non-empty
    contexts with the same filling have the same outer constructor; if
    they entered different positions, the left one would hold both a
    value (by [eframe_ok]) and a filling. *)
Lemma decompose_unique C r C' r' :
  Forall eframe_ok C -> Forall eframe_ok C' -> redex r -> redex r' ->
  efills C r = efills C' r' -> C = C' /\ r = r'.
Proof.
  revert C'. induction C as [|F C IH]; intros C' HC HC' Hr Hr' Heq;
    destruct C' as [|F' C']; simpl in Heq.
  - auto.
  - inversion HC'; subst. exfalso. exact (redex_not_efill F' C' r' ltac:(assumption) Hr' Hr).
  - inversion HC; subst. exfalso. exact (redex_not_efill F C r ltac:(assumption) Hr Hr').
  - inversion HC as [|? ? HF HC0]; inversion HC' as [|? ? HF' HC0']; subst.
    destruct F, F'; simpl in Heq, HF, HF'; try discriminate;
      injection Heq; intros; subst;
      try (exfalso; match goal with
                    | H : value (efills ?C ?r), Hr : redex ?r |- _ => exact (value_not_decomp C r Hr H)
                    end);
      match goal with
      | H : efills C r = efills ?C2 r' |- _ =>
          destruct (IH C2 HC0 HC0' Hr Hr' H) as [-> ->]; split; reflexivity
      end.
Qed.

Lemma value_or_decomp_excl t : value t -> ~ cbv_decomp t.
Proof. intros Hv (C & r & _ & Hr & ->). exact (value_not_decomp C r Hr Hv). Qed.

(** ** Progress *)

(** The redexes of the rules with a premise: a pullback applied to a point,
    whose body mentions [y] and is an abstraction (18), an application of
    two paths on [y] (19b, 19c), a dual map (16b, 16c), a pullback (17) or
    a pair [⟨y, E⟩] (20a). *)
Definition premise_redex (t : tm) : Prop :=
  exists e w v, t = App (Pb e w) v /\ value w /\ value v /\ ~ nocc is0 e /\
    ((exists l, e = Lam l) \/ (exists p q, e = App (yp p) (yp q)) \/
     (exists l a, e = Dual l a) \/ (exists l a, e = Pb l a) \/
     (exists e', e = Pair (Var 0) e')).


Lemma step_efills C t t' : Forall eframe_ok C -> step t t' -> step (efills C t) (efills C t').
Proof.
  induction C as [|F C IH]; simpl; intros HC H; auto.
  inversion HC; subst. apply step_ctx; auto.
Qed.


(** The body [a1 + a2] or [⟨a1, a2⟩] of a pullback applied to a point: an
    atom free of [y] on one side and a path on [y] on the other is the rule
    [step_q] ([y] on the right) or [step_p] ([y] on the left); paths on
    both sides make the body linear (12). *)
Ltac two_atoms Ha1 Ha2 Hn step_q step_p :=
  pose proof Ha1; pose proof Ha2;
  apply atom_split in Ha1 as [Ha1|[?p ->]]; apply atom_split in Ha2 as [Ha2|[?q ->]];
  [ simpl in Hn; tauto
  | left; eexists; apply step_q; eauto
  | left; eexists; apply step_p; eauto
  | left; eexists; apply step_pb_lin; auto; constructor ].

(** A pullback chain applied to a point: every elementary body is covered
    by a rule of 9-20, or is stuck (Remark 3.6), or needs a premise. *)
Lemma pbapp_progress e w v :
  value w -> value v -> chain_body e -> ~ stuck e v ->
  (exists t', step (App (Pb e w) v) t') \/ premise_redex (App (Pb e w) v).
Proof.
  intros Hw Hv [He|(e' & -> & He')] Hs.
  2:{ destruct (nocc_is0_dec e') as [Hn|Hn].
      - left. eexists. apply step_pb_pair_const; auto.
      - right. exists (Pair (Var 0) e'), w, v. repeat split; auto.
        + simpl. tauto.
        + right. right. right. right. eauto. }
  destruct (nocc_is0_dec e) as [Hn|Hn].
  { left. eexists. apply step_pb_const; eauto. }
  pose proof He as He0. revert He0.
  destruct He as [ |a1 a2 Ha1 Ha2|a Ha|l Hl|a1 a2 Ha1 Ha2|a1 a2 Ha1 Ha2|r|f a Ha|f a Ha
                 |l a Hl Ha|l a Hl Ha|r]; intros He0.
  - simpl in Hn. tauto.
  - (* a1 + a2 *) two_atoms Ha1 Ha2 Hn step_pb_plus_l step_pb_plus_r.
  - (* a *)
    apply atom_split in Ha as [Ha|[p ->]]; [contradiction|].
    left. eexists. apply step_pb_lin; auto. constructor.
  - (* λx.L: (18) *)
    right. exists (Lam l), w, v. repeat split; auto. left. eauto.
  - (* a1 a2 *)
    pose proof Ha1 as Ha1'.
    apply atom_split in Ha1 as [Ha1|[p ->]]; apply atom_split in Ha2 as [Ha2|[q ->]].
    + simpl in Hn. tauto.
    + exfalso. apply Hs. left. exists a1, q. auto.
    + left. eexists. apply step_pb_lin; auto. constructor. exact Ha2.
    + right. exists (App (yp p) (yp q)), w, v. repeat split; auto. right. left. eauto.
  - (* ⟨a1, a2⟩ *) two_atoms Ha1 Ha2 Hn step_pb_pair_r step_pb_pair_l.
  - simpl in Hn. tauto.
  - (* f(a) *)
    apply atom_split in Ha as [Ha|[p ->]]; [simpl in Hn; tauto|].
    left. eexists. apply step_pb_fun; auto.
  - (* J f · a *)
    apply atom_split in Ha as [Ha|[p ->]]; [simpl in Hn; tauto|].
    left. eexists. apply step_pb_lin; auto. constructor.
  - (* (λx.L)* · a *)
    pose proof Ha as Ha'.
    apply atom_split in Ha as [Ha|[p ->]].
    + right. exists (Dual l a), w, v. repeat split; auto. right. right. left. eauto.
    + destruct (nocc_dec (lift is0) l) as [Hl'|Hl'].
      * intros [|n]; simpl; [auto|apply is0_dec].
      * left. eexists. apply step_pb_lin; auto. constructor. exact Hl'.
      * right. exists (Dual l (yp p)), w, v. repeat split; auto. right. right. left. eauto.
  - (* (Ω λx.L) · a: (17) *)
    right. exists (Pb l a), w, v. repeat split; auto. right. right. right. left. eauto.
  - simpl in Hn. tauto.
Qed.

(** Every redex steps, or is a redex of a rule with a premise. *)
Lemma redex_progress r :
  redex r -> pb_wf r -> (exists r', step r r') \/ premise_redex r.
Proof.
  intros [[Hh Hready]|(p & w & -> & Hc & Hl)] Hwf.
  - destruct r as [n|s|a b|i a|a b|r|f a|f a|s a|p w|r| |a b|e l]; simpl in Hh, Hready;
      try contradiction.
    + (* application *)
      destruct Hready as [Va Vb].
      destruct a as [| |a1 a2| | | | |f a'| |p w| | | |]; simpl in Hh; try contradiction.
      * left. eexists. apply step_beta. exact Vb.
      * destruct Hh as (r & r' & Hr & Hr' & -> & ->). left. eexists. apply step_jac; auto.
      * destruct Hh as [Hc Hs]. simpl in Va. apply pbapp_progress; tauto.
    + (* projection *)
      destruct a; try contradiction. simpl in Hready. destruct i.
      * left. eexists. apply step_proj2; tauto.
      * left. eexists. apply step_proj1; tauto.
    + (* f(r) *)
      destruct Hh as (r & Hr & ->). left. eexists. apply step_fun. exact Hr.
    + (* dual maps *)
      destruct Hready as [Vs Va].
      destruct a; try contradiction.
      * left. eexists. apply step_dual_comp; auto.
      * destruct Hh as [Hn (r' & Hb)]. left. eexists. apply step_bp; eauto.
    + (* (7), (8) *)
      left. inversion Hh; subst.
      * eexists. apply step_pb_ret. assumption.
      * eexists. apply step_pb_let; assumption.
    + (* let *)
      left. eexists. apply step_let. exact Hready.
  - (* A-normalisation of the body *)
    destruct Hwf as [Hp _]. destruct (adecompose p Hp) as [Hl'|(C & r & HC & Hr & Hk & ->)];
      [contradiction|].
    left. eexists. apply step_pb_anf; [|exact Hc]. constructor; assumption.
Qed.

(** Informal proof: decompose the term ([decompose]); a value is done;
    otherwise its redex steps or needs a premise ([redex_progress]), and
    the step is closed under the evaluation context ([step_ctx]).  The
    third disjunct admits terms that are stuck: this is decomposition, not
    type safety (see progress_typed.v). *)
Lemma progress_premise t :
  pb_wf t ->
  value t \/ (exists t', step t t') \/
  (exists C r, Forall eframe_ok C /\ premise_redex r /\ t = efills C r).
Proof.
  intros Hwf. destruct (decompose t Hwf) as [Hv|(C & r & HC & Hr & ->)]; [left; exact Hv|right].
  assert (Hwr : pb_wf r).
  { clear -Hwf. induction C as [|F C IH]; simpl in *; auto.
    apply IH. destruct F; simpl in Hwf; tauto. }
  destruct (redex_progress r Hr Hwr) as [(r' & Hs)|Hp].
  - left. exists (efills C r'). apply step_efills; assumption.
  - right. exists C, r. auto.
Qed.

(** ** Values are normal forms (§6: "a value ... cannot be reduced further") *)
Lemma yp_not_app p a b : yp p <> App a b.
Proof.
  unfold yp. destruct p as [|i p] using rev_ind; [discriminate|].
  rewrite ppath_app. simpl. discriminate.
Qed.

Ltac not_stuck :=
  let Hs := fresh in
  intros Hs; destruct Hs as [(a' & q' & Ha' & Hn' & Heq)|(p1 & q1 & Heq & Hnl)];
  try discriminate.

Lemma value_not_step t t' : step t t' -> ~ value t.
Proof.
  induction 1 as [| | | | | | | | | | |e w v Hw Hv He Hn|e w v Hw Hv Hel Hs|
                  | | | | | | | | | | |p q p' vq s0 u w v Hw Hv Hp Hq _ _
                  |p q p' vq w v Hw Hv Hp Hq _|p q p' vq s0 w v Hw Hv Hp Hq _ _|e s0 u w v Hw Hv He Hn _ _| |F t t' HF _ IH];
    intros Hval.
  all: try (exact (IH (value_efill F t Hval))).
  all: simpl in Hval; destruct Hval as [Hh Hr].
  all: try solve [apply Hh; simpl; eauto 8].
  all: try solve [apply Hh; simpl; split; eauto].
  all: try solve [contradiction].
  all: try solve [destruct Hr as [Hc _]; contradiction].
  (* pullbacks applied to a point *)
  all: destruct Hr as [[_ [Hc _]] _]; apply Hh; simpl; split; [exact Hc|]; not_stuck.
  (* (9) *)
  all: try solve [subst; simpl in Hn; exfalso;
                  first [apply (yp_not_nocc q') | apply (yp_not_nocc q1)]; tauto].
  (* the linear shapes *)
  all: try solve [destruct Hs; try discriminate;
                  try (exfalso; eapply yp_not_app; eassumption);
                  try (exfalso; eapply yp_not_app; symmetry; eassumption);
                  injection Heq; intros; subst;
                  first [exact (yp_not_nocc _ Hn') | exact (yp_not_nocc _ ltac:(eassumption))]].
  (* (19b), (19c) *)
  all: try solve [injection Heq; intros; subst; exact (yp_not_nocc _ Hn')].
  all: injection Heq; intros Hq' Hp1; apply yp_inj in Hp1; subst; eapply Hnl; exact Hp.
Qed.

End progress.

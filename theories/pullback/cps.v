(** * The continuation machine (§3.5, spec §7), and the rule that fired

    The paper's §3.5 writes a pullback as a configuration
    [⟨P | S⟩_y ≡ (Ω λy.P) · S]: a "term" [P] under [y] and a "continuation"
    [S : Ω τ], since a 1-form resembles a continuation with answer type [R];
    the redexes [⟨L | S⟩_y], [⟨E | V⟩_y V′] and [⟨⟨y,E⟩ | V⟩_y V′] are
    rewritten directly from 7-20, e.g. (8) as
    [⟨let x = E in L | ω⟩_y → ⟨⟨y,E⟩ | ⟨L | ω⟩_{⟨y,x⟩}⟩_y].  The paper gives
    no machine beyond these configurations; the one here (the choices are
    in docs/decisions-pullback.md) is the evaluator in continuation-passing style
    with its continuation defunctionalised: a state is a term in focus and
    a stack of evaluation frames of §6 (innermost first), and
    - [MEval t K] descends into the first evaluation position of [t],
      pushing the frame around it (the configuration [⟨P | S⟩_y] whose body
      is a chain sends the machine into its continuation [S]);
    - [MRet V K] returns the value [V] to the innermost frame, which either
      sends the machine into its next evaluation position or, all of its
      positions being values, contracts it when it is a redex (rules 1-20,
      the A-step of a pullback's body, [let]) or returns it as a value.
    After a contraction the machine continues in the reduct with the same
    stack (refocusing): it never decomposes the whole term again, unlike
    [step_fn], which starts from the root at every step.  The head rules
    are those of [step_fn] ([step_at] on a term whose evaluation positions
    hold values: [pb_head], [head_app], [head_dual]); their premises
    (16b-20a) are evaluated by the machine itself ([cps_eval]), with a
    depth [d] bounding the nesting of premises and a number [m] of
    transitions bounding each run.

    [cps_run_sound]: what the machine returns is reached by the reduction
    relation, in exactly the number of contractions it counts, and is a
    value when it says so (and not a value when it says stuck).  With
    [steps_value_det], the machine and the normaliser never disagree on a
    value ([cps_normalize_agree]).

    [rule_of] names the rule of a contraction; the machine lists the rules
    it fired, and [step_rule] names the rule of a step of the step function
    (for the trace).  They are read off the syntax of the redex and the
    reduct; the names are those of Fig. 3 as the spec numbers them. *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn normalize.

(** ** Rule names *)
Inductive rule : Type :=
| R1 | R2 | R3 | R4 | R5 | R6 | RLet | R7 | R8 | RA
| R9 | R10a | R10a' | R10b | R11 | R12 | R13a | R13b | R13c | R14 | R15
| R16a | R16b | R16c | R17 | R18 | R19a | R19b | R19c | R20a | R20b.

Section cps.
Context {Σ : signature}.

(** The rule of the contraction of the head redex [t] into [t'] (the
    reduct tells 19b from 19c). *)
Definition pb_rule (e t' : tm) : rule :=
  match t' with
  | Zero => R9
  | _ =>
      match e with
      | Var _ | Proj _ _ => match as_path e with Some [] => R11 | _ => R12 end
      | Plus a1 a2 =>
          match as_path a1, as_path a2 with
          | Some _, Some _ => R10b
          | None, _ => R10a
          | _, None => R10a'
          end
      | Pair a1 a2 =>
          match as_path a1, as_path a2 with
          | Some _, Some _ => R13c
          | Some [], None => match t' with Dual (Pair _ Zero) _ => R20b | _ => R20a end
          | Some _, None => R13a
          | None, _ => R13b
          end
      | Jac _ _ => R14
      | Fun _ _ => R15
      | Dual l a =>
          match as_path a with
          | Some _ => if noccb (liftb is0b) l then R16a else R16c
          | None => R16b
          end
      | Lam _ => R18
      | Pb _ _ => R17
      | App _ a2 =>
          match as_path a2 with
          | None => R19a
          | Some _ => match t' with Dual (Plus _ _) _ => R19b | _ => R19c end
          end
      | _ => R9
      end
  end.

Definition rule_of (t t' : tm) : rule :=
  match t with
  | App (Lam _) _ => R1
  | App (Jac _ _) _ => R4
  | App (Pb e _) _ => pb_rule e t'
  | Proj _ _ => R2
  | Fun _ _ => R3
  | Dual _ (NDual _) => R5
  | Dual _ _ => R6
  | Pb (Let _ l as p) _ => if is_lets p then (if is_var0 l then R7 else R8) else RA
  | Let _ _ => RLet
  | _ => RA
  end.

(** The rule of a step [t → t'] of [step_fn]: the redex is found as
    [step_at] finds it, and its reduct at the same place in [t']. *)
Fixpoint step_rule (t t' : tm) : rule :=
  match t, t' with
  | App a b, App a' b' | Pair a b, Pair a' b' | Plus a b, Plus a' b' =>
      if valueb a then (if valueb b then rule_of t t' else step_rule b b') else step_rule a a'
  | Proj _ a, Proj _ a' | Fun _ a, Fun _ a' | Jac _ a, Jac _ a' =>
      if valueb a then rule_of t t' else step_rule a a'
  | Dual s a, Dual s' a' =>
      if valueb a then (if valueb s then rule_of t t' else step_rule s s') else step_rule a a'
  | Pb p w, Pb p' w' =>
      if is_lets p then rule_of t t'
      else if chain_bodyb p then step_rule w w' else rule_of t t'
  | Let e l, Let e' l' => if valueb e then rule_of t t' else step_rule e e'
  | _, _ => rule_of t t'
  end.

(** ** The machine *)
Inductive mode : Type := MEval | MRet.

(** [plug K t]: the term a state stands for; frames innermost first. *)
Definition plug (K : list eframe) (t : tm) : tm := fold_left (fun u F => efill F u) K t.

Inductive state : Type := St (m : mode) (t : tm) (K : list eframe).

Inductive next : Type :=
| Next (s : state) (r : option (rule * tm))
    (** a transition; [Some (r, t)]: the contraction of the redex [t] by [r] *)
| Halt (u : tm) (o : outcome).         (** the end: a value, stuck or out of fuel *)

Section machine.
(** [stp]: one step (premise of 20a); [ev]: evaluation to a value
    (premises of 16b-19c). *)
Variable stp : tm -> sres.
Variable ev : tm -> eres.

(** Contract the redex [t] in the continuation [K]. *)
Definition fire (t : tm) (K : list eframe) : next :=
  match step_at stp ev t with
  | Stepped t' => Next (St MEval t' K) (Some (rule_of t t', t))
  | Value => Next (St MRet t K) None
  | Stuck => Halt (plug K t) OStuck
  | NoFuel => Halt (plug K t) OFuel
  end.

(** All evaluation positions of [t] hold values: contract it if it has the
    shape of a redex, else return it. *)
Definition close (t : tm) (K : list eframe) : next :=
  if head_redexb t then fire t K else Next (St MRet t K) None.

Definition transition (s : state) : next :=
  match s with
  | St MEval t K =>
      match t with
      | App a b => Next (St MEval a (EAppL b :: K)) None
      | Proj i a => Next (St MEval a (EProj i :: K)) None
      | Pair a b => Next (St MEval a (EPairL b :: K)) None
      | Plus a b => Next (St MEval a (EPlusL b :: K)) None
      | Fun f a => Next (St MEval a (EFun f :: K)) None
      | Jac f a => Next (St MEval a (EJac f :: K)) None
      | Dual s a => Next (St MEval a (EDualR s :: K)) None
      | Pb p w =>
          (* ⟨P | S⟩_y: a chain body waits for its continuation [S] *)
          if chain_bodyb p then Next (St MEval w (EPbR p :: K)) None else fire t K
      | Let e l => Next (St MEval e (ELet l :: K)) None
      | Var _ | Lam _ | Real _ | NDual _ | Zero => Next (St MRet t K) None
      end
  | St MRet v [] => Halt v OValue
  | St MRet v (F :: K) =>
      match F with
      | EAppL b => Next (St MEval b (EAppR v :: K)) None
      | EPairL b => Next (St MEval b (EPairR v :: K)) None
      | EPlusL b => Next (St MEval b (EPlusR v :: K)) None
      | EDualR s => Next (St MEval s (EDualL v :: K)) None
      | F => close (efill F v) K
      end
  end.

Definition plug_state (s : state) : tm := match s with St _ t K => plug K t end.

(** [run n s k rs]: at most [n] transitions from [s]; [k] contractions so
    far, [rs] their rules and redexes (last first).  The result: the term
    reached, the number of contractions, the rules and redexes in order,
    the outcome. *)
Fixpoint run (n : nat) (s : state) (k : nat) (rs : list (rule * tm)) {struct n}
  : tm * nat * list (rule * tm) * outcome :=
  match n with
  | 0 => (plug_state s, k, rev_append rs [], OFuel)
  | S n' =>
      match transition s with
      | Next s' None => run n' s' k rs
      | Next s' (Some r) => run n' s' (S k) (r :: rs)
      | Halt u o => (u, k, rev_append rs [], o)
      end
  end.

(** ** Soundness *)
Hypothesis stp_sound : forall x y, stp x = Stepped y -> step x y.
Hypothesis ev_sound : forall x y, ev x = EVal y -> steps x y /\ value y.

Definition inv (s : state) : Prop :=
  match s with St m t K => Forall eframe_ok K /\ (m = MRet -> value t) end.

Lemma plug_step K t t' : Forall eframe_ok K -> step t t' -> step (plug K t) (plug K t').
Proof.
  revert t t'. induction K as [|F K IH]; intros t t' HK H; simpl; [exact H|].
  inversion HK; subst. apply IH; [assumption|]. apply step_ctx; assumption.
Qed.

Lemma plug_value K t : value (plug K t) -> value t.
Proof.
  revert t. induction K as [|F K IH]; intros t H; simpl in H; [exact H|].
  apply IH in H. destruct F; simpl in H; tauto.
Qed.

Definition next_ok (s : state) (n : next) : Prop :=
  match n with
  | Next s' None => inv s' /\ plug_state s' = plug_state s
  | Next s' (Some _) => inv s' /\ step (plug_state s) (plug_state s')
  | Halt u o => u = plug_state s /\ (o = OValue -> value u) /\ (o = OStuck -> ~ value u)
  end.

Lemma fire_ok t K : Forall eframe_ok K -> next_ok (St MEval t K) (fire t K).
Proof.
  intros HK. pose proof (step_at_sound stp ev stp_sound ev_sound t) as H.
  unfold fire. destruct (step_at stp ev t) as [t'| | |]; simpl in H |- *.
  - split; [split; [exact HK|discriminate]|]. apply plug_step; assumption.
  - split; [split; [exact HK|intros _; exact H]|reflexivity].
  - split; [reflexivity|]. split; [discriminate|]. intros _ Hv. apply plug_value in Hv. exact (H Hv).
  - split; [reflexivity|]. split; discriminate.
Qed.

Lemma close_ok F v K :
  Forall eframe_ok K -> eframe_ok F -> value v ->
  (forall b, F <> EAppL b) -> (forall b, F <> EPairL b) -> (forall b, F <> EPlusL b) ->
  (forall s, F <> EDualR s) ->
  next_ok (St MRet v (F :: K)) (close (efill F v) K).
Proof.
  intros HK HF Hv N1 N2 N3 N4. unfold close.
  destruct (head_redexb (efill F v)) eqn:Hh.
  - exact (fire_ok _ _ HK).
  - simpl. split; [|reflexivity]. split; [exact HK|intros _].
    assert (Hn : ~ head_redex (efill F v)) by (intros Hr; apply head_redexb_spec in Hr; congruence).
    destruct F; simpl in HF, Hn |- *; try (split; [exact Hn|]); try tauto.
    all: try (exfalso; eapply N1; reflexivity); try (exfalso; eapply N2; reflexivity);
      try (exfalso; eapply N3; reflexivity); try (exfalso; eapply N4; reflexivity).
Qed.

Ltac value_leaf := split; [intros []|exact I].

Lemma transition_ok s : inv s -> next_ok s (transition s).
Proof.
  destruct s as [[|] t K]; unfold inv; intros [HK Hm].
  - destruct t as [n|s|a b|i a|a b|r|f a|f a|s a|p w|r| |a b|e l]; cbv [transition].
    all: try (simpl; split; [split; [constructor; [exact I|exact HK]|discriminate]|reflexivity]).
    all: try (simpl; split; [split; [exact HK|intros _]|reflexivity]).
    all: try value_leaf; try apply value_lam.
    destruct (chain_bodyb p) eqn:Hc.
    + simpl. split; [|reflexivity]. split; [|discriminate]. constructor; [|exact HK].
      simpl. apply chain_bodyb_spec. exact Hc.
    + apply fire_ok. exact HK.
  - specialize (Hm eq_refl). destruct K as [|F K].
    + simpl. split; [reflexivity|]. split; [intros _; exact Hm|discriminate].
    + inversion HK as [|F' K' HF HK']; subst.
      destruct F as [p|v|p|v|i|s|v|f|f|s|v|p|l]; cbv [transition].
      all: try (simpl; split; [split; [constructor; [exact Hm|exact HK']|discriminate]|reflexivity]).
      all: apply close_ok; auto; intros ? ?; discriminate.
Qed.

Theorem run_sound n : forall s k rs u k' rs' o,
  inv s -> run n s k rs = (u, k', rs', o) ->
  exists j, k' = k + j /\ nsteps j (plug_state s) u /\
    (o = OValue -> value u) /\ (o = OStuck -> ~ value u).
Proof.
  induction n as [|n IH]; intros s k rs u k' rs' o Hs H; simpl in H.
  - injection H as <- <- <- <-. exists 0. split; [lia|]. split; [constructor|].
    split; discriminate.
  - pose proof (transition_ok s Hs) as Ht.
    destruct (transition s) as [s' [r|]|u' o'].
    + destruct Ht as [Hs' Hst]. destruct (IH _ _ _ _ _ _ _ Hs' H) as (j & -> & Hj & Ho).
      exists (S j). split; [lia|]. split; [econstructor; eassumption|exact Ho].
    + destruct Ht as [Hs' Heq]. destruct (IH _ _ _ _ _ _ _ Hs' H) as (j & -> & Hj & Ho).
      exists j. split; [lia|]. rewrite <- Heq. split; [exact Hj|exact Ho].
    + injection H as <- <- <- <-. destruct Ht as (-> & Hv & Hst).
      exists 0. split; [lia|]. split; [constructor|]. split; assumption.
Qed.

End machine.

(** ** The machine with its premises

    [cps_step d m]: one step whose premises are evaluated by the machine
    (the premise of 20a); [cps_eval d m]: a run of the machine to a value.
    [d] bounds the nesting of premises, [m] the transitions of each run. *)
Fixpoint cps_step (d m : nat) (t : tm) {struct d} : sres :=
  match d with
  | 0 => step_at (fun _ => NoFuel) (fun _ => EFuel) t
  | S k => step_at (cps_step k m) (cps_eval k m) t
  end
with cps_eval (d m : nat) (t : tm) {struct d} : eres :=
  match d with
  | 0 => EFuel
  | S k =>
      match run (cps_step k m) (cps_eval k m) m (St MEval t []) 0 [] with
      | (u, _, _, OValue) => EVal u
      | (_, _, _, OStuck) => EStuck
      | _ => EFuel
      end
  end.

(** The machine on a closed term: the term reached, the number of
    contractions, the rules that fired with their redexes (in order), the
    outcome. *)
Definition cps_run (d m : nat) (t : tm) : tm * nat * list (rule * tm) * outcome :=
  run (cps_step d m) (cps_eval d m) m (St MEval t []) 0 [].

(** The premise of 19b/19c on the body [App a1 a2] at the point [v]:
    there is one when both atoms are paths into [v] and the first
    projects to a λ. *)
Definition path_premise (a1 a2 v : tm) : list tm :=
  match as_path a1, as_path a2 with
  | Some p, Some q =>
      match proj_val p v, proj_val q v with
      | Some (Lam p'), Some vq => [App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)]
      | _, _ => []
      end
  | _, _ => []
  end.

(** ** The rules that fire in premises

    A contraction by 16b-20a evaluates premises, whose contractions the
    log of a run does not list.  [premises r t] rebuilds the premise terms
    [pb_head] evaluates for the redex [t] contracted by [r], and
    [log_rules] lists the rules of a log with, after each, the rules of its
    premises, found by running the machine on them again (the premise of
    20a is one step, the others runs to a value).  Only a count: nothing
    is proved of it, and the results are not used. *)
Definition premises (r : rule) (t : tm) : list tm :=
  match r, t with
  | R20a, App (Pb (Pair _ e) _) v => [App (Pb (ren (up_ren S) e) (Var 0)) (shift v)]
  | (R16b | R16c | R18), App (Pb (Dual l _ | Lam l) _) v =>
      [App (Pb (ren swap l) (Var 1)) (premise_pt v)]
  | R17, App (Pb (Pb l z) _) _ => [App (Pb (ren (up_ren S) l) (shift z)) (Var 0)]
  | (R19b | R19c), App (Pb (App a1 a2) _) v => path_premise a1 a2 v
  | _, _ => []
  end.

Definition is_r20a (r : rule) : bool := match r with R20a => true | _ => false end.

Fixpoint deep_rules (d m : nat) (t : tm) {struct d} : list rule :=
  match d with
  | 0 => []
  | S d' =>
      let '(_, _, log, _) := cps_run d' m t in
      flat_map (fun '(r, x) =>
        r :: flat_map (fun p =>
               if is_r20a r then
                 match cps_step d' m p with
                 | Stepped p' =>
                     let r' := rule_of p p' in r' :: flat_map (deep_rules d' m) (premises r' p)
                 | _ => []
                 end
               else deep_rules d' m p) (premises r x)) log
  end.

(** The rules of a log of [cps_run d m], premises included. *)
Definition log_rules (d m : nat) (log : list (rule * tm)) : list rule :=
  flat_map (fun '(r, x) =>
    r :: flat_map (fun p =>
           if is_r20a r then
             match cps_step d m p with
             | Stepped p' => let r' := rule_of p p' in r' :: flat_map (deep_rules d m) (premises r' p)
             | _ => []
             end
           else deep_rules d m p) (premises r x)) log.

Lemma cps_step_eval_sound d m :
  (forall t, ssound t (cps_step d m t)) /\
  (forall t v, cps_eval d m t = EVal v -> steps t v /\ value v).
Proof.
  induction d as [|d [IHs IHe]]; split; simpl.
  - intros t. apply step_at_sound; intros x y H; discriminate.
  - intros t v H. discriminate.
  - apply step_at_sound_of; assumption.
  - intros t v H.
    destruct (run (cps_step d m) (cps_eval d m) m (St MEval t []) 0 []) as [[[u k] rs] o] eqn:E.
    destruct o; try discriminate. injection H as <-.
    apply run_sound in E as (j & _ & Hj & Hv & _).
    + split; [eapply nsteps_steps; exact Hj|apply Hv; reflexivity].
    + intros x y H. specialize (IHs x). rewrite H in IHs. exact IHs.
    + exact IHe.
    + split; [constructor|discriminate].
Qed.

(** What the machine returns is reached from [t] by exactly as many steps
    of [→] as it counts contractions; it is a value when the outcome says
    so, and not a value when the machine is stuck. *)
Theorem cps_run_sound d m t u k rs o :
  cps_run d m t = (u, k, rs, o) ->
  nsteps k t u /\ (o = OValue -> value u) /\ (o = OStuck -> ~ value u).
Proof.
  unfold cps_run. intros H. destruct (cps_step_eval_sound d m) as [Hs He].
  apply run_sound in H as (j & -> & Hj & Hv & Hst).
  - simpl. split; [exact Hj|split; assumption].
  - intros x y Hx. specialize (Hs x). rewrite Hx in Hs. exact Hs.
  - exact He.
  - split; [constructor|discriminate].
Qed.

Theorem cps_eval_sound d m t v : cps_eval d m t = EVal v -> steps t v /\ value v.
Proof. apply cps_step_eval_sound. Qed.

(** Two runs of [→] to values end in the same value after as many steps. *)
Lemma nsteps_value_det j t u j' u' :
  nsteps j t u -> value u -> nsteps j' t u' -> value u' -> u = u' /\ j = j'.
Proof.
  intros H. revert j' u'. induction H as [t|j t t1 u H1 Hj IH]; intros j' u' Hv H' Hv'.
  - inversion H'; subst; [split; reflexivity|]. exfalso. eapply value_not_step; eassumption.
  - inversion H' as [|j2 t2 t3 u3 H2 Hj2]; subst.
    + exfalso. eapply value_not_step; eassumption.
    + rewrite (step_det _ _ _ H1 H2) in *. destruct (IH _ _ Hv Hj2 Hv') as [-> ->].
      split; reflexivity.
Qed.

(** The machine and the normaliser agree: a value of the machine is the
    value of the normaliser, after the same number of steps, once the
    normaliser has fuel enough ([cps_normalize_agree]); when both end in a
    value, it is the same ([cps_normalize_value_det]). *)
Theorem cps_normalize_agree d m t u k rs :
  cps_run d m t = (u, k, rs, OValue) ->
  exists N, forall fuel, N <= fuel -> normalize fuel t = (u, k, OValue).
Proof.
  intros H. apply cps_run_sound in H as (Hk & Hv & _).
  specialize (Hv eq_refl).
  destruct (normalize_complete t u (nsteps_steps _ _ _ Hk) Hv) as (k' & N & HN).
  exists N. intros fuel Hf. rewrite (HN fuel Hf).
  pose proof (HN N (le_n N)) as HN'. apply normalize_sound in HN' as (Hk' & _).
  destruct (nsteps_value_det _ _ _ _ _ Hk Hv Hk' Hv) as [_ ->]. reflexivity.
Qed.

Theorem cps_normalize_value_det d m fuel t u k rs u' k' :
  cps_run d m t = (u, k, rs, OValue) -> normalize fuel t = (u', k', OValue) -> u = u' /\ k = k'.
Proof.
  intros H1 H2. apply cps_run_sound in H1 as (Hk & Hv & _).
  apply normalize_sound in H2 as (Hk' & _ & Hv' & _).
  exact (nsteps_value_det _ _ _ _ _ Hk (Hv eq_refl) Hk' (Hv' eq_refl)).
Qed.

End cps.

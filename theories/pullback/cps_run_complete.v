(** * The continuation machine is complete for whole runs

    [cps.v] proves the machine sound, and [cps_complete.v] that from any
    state it makes the step [step_at] makes ([descend], [ascend]).  Here
    these single steps are chained along whole runs, with the machine's
    own evaluation of the premises of 16b-20a ([cps_step], [cps_eval]):
    - more fuel never changes an answer of the machine other than running
      out of fuel ([run_mono], [cps_mono]);
    - a run of [step_at] to a value (resp. to a term on which [step_at] is
      stuck) is followed by the machine, from any state standing for its
      first term, to that value (resp. to a stuck halt on that term), in
      as many contractions ([run_chain], [run_chain_stuck]; the
      administrative transitions terminate, [measure_admin]); conversely
      a run of the machine is a run of [step_at] ([run_sa]);
    - by induction on the derivations of [step] and [steps] (premises of
      16b-20a included), every step of the relation is computed by
      [cps_step], and every run to a value by [cps_eval] and [cps_run],
      with the same count, once the depth [d] and the transitions [m] are
      large enough ([cps_step_complete], [cps_run_complete],
      [cps_eval_complete]);
    - so the machine and the normaliser reach the same value after the
      same number of steps whenever both have enough fuel
      ([cps_normalize_complete], [cps_normalize_iff], [cps_eval_fn_iff]);
    - [step_at] asks its premise evaluators only about the premises of
      the redexes of its term ([premq], [step_at_mono_on]); so, by
      induction on the fuel, every answer of [step_fn] / [eval_fn]
      (a step, a value, stuck) is the machine's once its fuel suffices,
      and conversely ([cps_step_fn_agree], [cps_eval_fn_agree]); the
      machine halts stuck on the same term after as many contractions as
      the normaliser ([cps_normalize_stuck_complete],
      [cps_normalize_stuck_sound], [cps_normalize_stuck_iff],
      [cps_normalize_same]).
    "Enough fuel" is always "all [d' >= d] and [m' >= m]" for some [d], [m]
    (resp. all [fuel >= N]). *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn normalize
  cps cps_complete tactics.

Section run_complete.
Context {Σ : signature}.

(** ** More fuel does not change an answer *)
Lemma cps_step_0 m t : cps_step 0 m t = step_at (fun _ => NoFuel) (fun _ => EFuel) t.
Proof. reflexivity. Qed.

Lemma cps_step_S d m t : cps_step (S d) m t = step_at (cps_step d m) (cps_eval d m) t.
Proof. reflexivity. Qed.

Lemma cps_eval_S d m t :
  cps_eval (S d) m t =
  match run (cps_step d m) (cps_eval d m) m (St MEval t []) 0 [] with
  | (u, _, _, OValue) => EVal u
  | (_, _, _, OStuck) => EStuck
  | _ => EFuel
  end.
Proof. reflexivity. Qed.

Definition not_fuel (x : next) : Prop :=
  match x with Halt _ OFuel => False | _ => True end.

Lemma fire_mono stp ev stp' ev' t K x :
  agree_s stp stp' -> agree_e ev ev' ->
  fire stp ev t K = x -> not_fuel x -> fire stp' ev' t K = x.
Proof.
  intros As Ae. unfold fire. destruct (step_at stp ev t) eqn:E; intros H Hn.
  all: try (rewrite (step_at_mono stp ev stp' ev' t _ As Ae E) by discriminate; exact H).
  subst. contradiction.
Qed.

Lemma transition_mono stp ev stp' ev' s x :
  agree_s stp stp' -> agree_e ev ev' ->
  transition stp ev s = x -> not_fuel x -> transition stp' ev' s = x.
Proof.
  intros As Ae. destruct s as [[|] t K].
  - destruct t; cbv [transition]; try (intros H _; exact H).
    destruct (chain_bodyb _); [intros H _; exact H|]. apply fire_mono; assumption.
  - destruct K as [|F K]; [cbv [transition]; intros H _; exact H|].
    destruct F; cbv [transition close]; try (intros H _; exact H).
    all: destruct (head_redexb _); [apply fire_mono; assumption|intros H _; exact H].
Qed.

Lemma run_mono stp ev stp' ev' n : forall n' s k rs res,
  agree_s stp stp' -> agree_e ev ev' -> n <= n' ->
  run stp ev n s k rs = res -> snd res <> OFuel -> run stp' ev' n' s k rs = res.
Proof.
  induction n as [|n IH]; intros n' s k rs res As Ae Hn H Ho.
  - simpl in H. subst. simpl in Ho. contradiction.
  - destruct n' as [|n']; [lia|]. simpl in H |- *.
    destruct (transition stp ev s) as [s' r|u o] eqn:E.
    + rewrite (transition_mono _ _ _ _ _ _ As Ae E I).
      destruct r; eapply IH; eauto; lia.
    + assert (Hf : not_fuel (Halt u o)) by (rewrite <- H in Ho; simpl in Ho; destruct o; simpl; auto).
      rewrite (transition_mono _ _ _ _ _ _ As Ae E Hf). exact H.
Qed.

Lemma agree_s_trans f g h : agree_s f g -> agree_s g h -> agree_s f h.
Proof. intros A B x r H Hr. apply B; [apply A|]; assumption. Qed.

Lemma agree_e_trans f g h : agree_e f g -> agree_e g h -> agree_e f h.
Proof. intros A B x r H Hr. apply B; [apply A|]; assumption. Qed.

Lemma agree_s_refl f : agree_s f f.
Proof. intros x r H _. exact H. Qed.

Lemma agree_e_refl f : agree_e f f.
Proof. intros x r H _. exact H. Qed.

Lemma cps_eval_mono_run d m m' :
  agree_s (cps_step d m) (cps_step d m') -> agree_e (cps_eval d m) (cps_eval d m') -> m <= m' ->
  agree_e (cps_eval (S d) m) (cps_eval (S d) m').
Proof.
  intros As Ae Hm x r H Hr. rewrite cps_eval_S in H |- *.
  destruct (run (cps_step d m) (cps_eval d m) m (St MEval x []) 0 []) as [[[u k] rs] o] eqn:E.
  destruct o; try (subst; contradiction);
    rewrite (run_mono _ _ _ _ _ _ _ _ _ _ As Ae Hm E) by discriminate; exact H.
Qed.

Lemma cps_mono_m d : forall m m', m <= m' ->
  agree_s (cps_step d m) (cps_step d m') /\ agree_e (cps_eval d m) (cps_eval d m').
Proof.
  induction d as [|d IH]; intros m m' Hm.
  - split; [apply agree_s_refl|apply agree_e_refl].
  - destruct (IH m m' Hm) as [As Ae]. split.
    + intros x r H Hr. rewrite ?cps_step_S, ?cps_step_0 in H |- *. eapply step_at_mono; eassumption.
    + apply cps_eval_mono_run; assumption.
Qed.

Lemma cps_mono_d d : forall m,
  agree_s (cps_step d m) (cps_step (S d) m) /\ agree_e (cps_eval d m) (cps_eval (S d) m).
Proof.
  induction d as [|d IH]; intros m.
  - split.
    + intros x r H Hr. rewrite ?cps_step_S, ?cps_step_0 in H |- *. eapply step_at_mono; [| |exact H|exact Hr].
      * intros y r' E. subst. contradiction.
      * intros y r' E. subst. contradiction.
    + intros x r H Hr. subst. contradiction.
  - destruct (IH m) as [As Ae]. split.
    + intros x r H Hr. rewrite ?cps_step_S, ?cps_step_0 in H |- *. eapply step_at_mono; eassumption.
    + intros x r H Hr. rewrite cps_eval_S in H |- *.
      destruct (run (cps_step d m) (cps_eval d m) m (St MEval x []) 0 []) as [[[u k] rs] o] eqn:E.
      destruct o; try (subst; contradiction);
        rewrite (run_mono _ _ _ _ _ _ _ _ _ _ As Ae (le_n m) E) by discriminate; exact H.
Qed.

(** With more depth and more transitions, the machine's premise
    evaluators only replace [NoFuel] and [EFuel] by answers. *)
Theorem cps_mono d m d' m' : d <= d' -> m <= m' ->
  agree_s (cps_step d m) (cps_step d' m') /\ agree_e (cps_eval d m) (cps_eval d' m').
Proof.
  intros Hd Hm. induction Hd as [|d' Hd IH].
  - apply cps_mono_m. exact Hm.
  - destruct IH as [As Ae]. destruct (cps_mono_d d' m') as [Bs Be].
    split; [exact (agree_s_trans _ _ _ As Bs)|exact (agree_e_trans _ _ _ Ae Be)].
Qed.

Lemma cps_step_mono d m d' m' t r :
  d <= d' -> m <= m' -> cps_step d m t = r -> r <> NoFuel -> cps_step d' m' t = r.
Proof. intros Hd Hm. apply (proj1 (cps_mono d m d' m' Hd Hm)). Qed.

Lemma cps_eval_mono d m d' m' t r :
  d <= d' -> m <= m' -> cps_eval d m t = r -> r <> EFuel -> cps_eval d' m' t = r.
Proof. intros Hd Hm. apply (proj2 (cps_mono d m d' m' Hd Hm)). Qed.

Lemma cps_run_mono d m d' m' t res :
  d <= d' -> m <= m' -> cps_run d m t = res -> snd res <> OFuel -> cps_run d' m' t = res.
Proof.
  intros Hd Hm. destruct (cps_mono d m d' m' Hd Hm) as [As Ae]. unfold cps_run.
  apply run_mono; assumption.
Qed.

(** ** Chaining the steps of [step_at] along a run *)

(** [sa_steps stp ev j t u]: [step_at stp ev] goes from [t] to [u] in [j]
    steps. *)
Inductive sa_steps (stp : tm -> sres) (ev : tm -> eres) : nat -> tm -> tm -> Prop :=
| sa_refl t : sa_steps stp ev 0 t t
| sa_cons j t t' u : step_at stp ev t = Stepped t' -> sa_steps stp ev j t' u -> sa_steps stp ev (S j) t u.

Lemma sa_steps_mono stp ev stp' ev' j t u :
  agree_s stp stp' -> agree_e ev ev' -> sa_steps stp ev j t u -> sa_steps stp' ev' j t u.
Proof.
  intros As Ae. induction 1 as [t|j t t' u H _ IH]; [constructor|].
  econstructor; [|exact IH]. eapply step_at_mono; [exact As|exact Ae|exact H|discriminate].
Qed.

Section chain.
Variables (stp : tm -> sres) (ev : tm -> eres).
Hypothesis stp_sound : forall x y, stp x = Stepped y -> step x y.
Hypothesis ev_sound : forall x y, ev x = EVal y -> steps x y /\ value y.

(** From every state of the invariant, the machine does what [step_at]
    does on the term the state stands for. *)
Lemma inv_goes s : inv s -> goes stp ev s.
Proof.
  destruct s as [[|] t K]; intros [HK Hm].
  - pose proof (descend stp ev stp_sound ev_sound t K HK) as D. unfold follows in D.
    destruct (step_at stp ev t) as [t'| | |] eqn:E.
    + unfold goes. simpl plug_state. rewrite (step_at_plug stp ev K t HK) by congruence.
      rewrite E. simpl. exact D.
    + apply (goes_reaches stp ev _ _ D eq_refl).
      exact (ascend stp ev stp_sound ev_sound K t HK (sa_value stp ev stp_sound ev_sound t E)).
    + unfold goes. simpl plug_state. rewrite (step_at_plug stp ev K t HK) by congruence.
      rewrite E. exact I.
    + unfold goes. simpl plug_state. rewrite (step_at_plug stp ev K t HK) by congruence.
      rewrite E. exact I.
  - exact (ascend stp ev stp_sound ev_sound K t HK (Hm eq_refl)).
Qed.

(** Along a run of [step_at] to a term [u] with [P u], the machine
    follows from any state standing for its first term, as soon as it ends
    with the outcome [o] from every state standing for such a [u]: the
    form of [run_chain] and [run_chain_stuck]. *)
Lemma run_chain_of (P : tm -> Prop) (o : outcome) :
  (forall s, inv s -> P (plug_state s) ->
     exists J, forall n k rs, exists rs', run stp ev (J + S n) s k rs = (plug_state s, k, rs', o)) ->
  forall j t u, sa_steps stp ev j t u -> P u ->
  forall s, inv s -> plug_state s = t ->
  exists J, forall n k rs, exists rs', run stp ev (J + S n) s k rs = (u, k + j, rs', o).
Proof.
  intros Hend j t u Hst. induction Hst as [t|j t t' u Ht _ IH]; intros Hu s Hs Ep.
  - subst t. destruct (Hend s Hs Hu) as [J HJ].
    exists J. intros n k rs. destruct (HJ n k rs) as [rs' E]. exists rs'.
    rewrite E, PeanoNat.Nat.add_0_r. reflexivity.
  - pose proof (inv_goes s Hs) as G. unfold goes in G. rewrite Ep, Ht in G.
    destruct G as (s' & [j1 R] & Ep' & Hs').
    destruct (IH Hu s' Hs' Ep') as [J2 H2].
    exists (j1 + J2). intros n k rs.
    destruct (R (J2 + S n) k rs) as [rs1 E1]. destruct (H2 n (k + 1) rs1) as [rs2 E2].
    exists rs2. rewrite <- PeanoNat.Nat.add_assoc, E1, E2.
    replace (k + 1 + j) with (k + S j) by lia. reflexivity.
Qed.

(** The machine follows a run of [step_at] to a value: from any state
    standing for its first term, it halts on the value after exactly as
    many contractions. *)
Theorem run_chain j t v : sa_steps stp ev j t v -> value v ->
  forall s, inv s -> plug_state s = t ->
  exists J, forall n k rs, exists rs', run stp ev (J + S n) s k rs = (v, k + j, rs', OValue).
Proof.
  apply (run_chain_of value OValue). intros s Hs Hv.
  pose proof (inv_goes s Hs) as G. unfold goes in G. rewrite (value_step_at stp ev _ Hv) in G. exact G.
Qed.

(** ** What a transition says of [step_at] on the term the state stands for *)

(** [next_sa s x]: the transition [x] from [s], in terms of [step_at] on
    the term [s] stands for: an administrative transition keeps it, a
    contraction makes its step, and a halt on a stuck term (or for want
    of fuel) is [step_at] answering [Stuck] (or [NoFuel]) on it. *)
Definition next_sa (s : state) (x : next) : Prop :=
  match x with
  | Next s' None => inv s' /\ plug_state s' = plug_state s
  | Next s' (Some _) => inv s' /\ step_at stp ev (plug_state s) = Stepped (plug_state s')
  | Halt u OValue => u = plug_state s /\ value u
  | Halt u OStuck => u = plug_state s /\ step_at stp ev u = Stuck
  | Halt u OFuel => u = plug_state s /\ step_at stp ev u = NoFuel
  end.

Lemma fire_sa s t K :
  plug_state s = plug K t -> Forall eframe_ok K -> next_sa s (fire stp ev t K).
Proof.
  intros Ep HK. unfold fire. destruct (step_at stp ev t) as [t'| | |] eqn:E; simpl; rewrite Ep.
  - split; [split; [exact HK|discriminate]|].
    rewrite (step_at_plug stp ev K t HK) by congruence. rewrite E. reflexivity.
  - split; [split; [exact HK|intros _; exact (sa_value stp ev stp_sound ev_sound t E)]|reflexivity].
  - split; [reflexivity|]. rewrite (step_at_plug stp ev K t HK) by congruence. rewrite E. reflexivity.
  - split; [reflexivity|]. rewrite (step_at_plug stp ev K t HK) by congruence. rewrite E. reflexivity.
Qed.

Lemma transition_sa s : inv s -> next_sa s (transition stp ev s).
Proof.
  intros Hs. pose proof (transition_ok stp ev stp_sound ev_sound s Hs) as T.
  destruct s as [[|] t K]; destruct Hs as [HK Hm].
  - destruct t; cbv [transition] in T |- *; try exact T.
    destruct (chain_bodyb _); [exact T|apply fire_sa; [reflexivity|exact HK]].
  - destruct K as [|F K].
    + cbv [transition] in T |- *. destruct T as [Eu [Hv _]]. split; [exact Eu|apply Hv; reflexivity].
    + inversion HK; subst. destruct F; cbv [transition close] in T |- *; try exact T.
      all: destruct (head_redexb _); [apply fire_sa; [reflexivity|assumption]|exact T].
Qed.

(** Administrative transitions decrease a measure: the machine cannot
    make them forever. *)
Fixpoint tsize (t : tm) : nat :=
  match t with
  | App a b | Pair a b | Plus a b | Dual a b | Pb a b | Let a b => S (tsize a + tsize b)
  | Proj _ a | Fun _ a | Jac _ a | Lam a => S (tsize a)
  | _ => 1
  end.

Definition fweight (F : eframe) : nat :=
  match F with EPlusL b | EAppL b | EPairL b | EDualR b => 3 * tsize b + 2 | _ => 1 end.

Definition sweight (K : list eframe) : nat := fold_right (fun F n => fweight F + n) 0 K.

Definition state_measure (s : state) : nat :=
  match s with St MEval t K => 3 * tsize t + sweight K | St MRet _ K => sweight K end.

Lemma measure_admin s s' : transition stp ev s = Next s' None -> state_measure s' < state_measure s.
Proof.
  intros H. destruct s as [[|] t K].
  - destruct t; cbv [transition fire] in H;
      repeat match type of H with context [match ?x with _ => _ end] => destruct x end;
      inversion H; subst; simpl; lia.
  - destruct K as [|F K]; [discriminate H|].
    destruct F; cbv [transition close fire] in H;
      repeat match type of H with context [match ?x with _ => _ end] => destruct x end;
      inversion H; subst; simpl; lia.
Qed.

(** From a state standing for a term on which [step_at] is stuck, the
    machine halts with that term, stuck, without a contraction. *)
Lemma run_stuck s : inv s -> step_at stp ev (plug_state s) = Stuck ->
  exists J, forall n k rs, exists rs', run stp ev (J + S n) s k rs = (plug_state s, k, rs', OStuck).
Proof.
  induction s as [s IH] using (well_founded_induction (Wf_nat.well_founded_ltof _ state_measure)).
  intros Hs Hst. pose proof (transition_sa s Hs) as T.
  destruct (transition stp ev s) as [s' [r|]|u o] eqn:E.
  - destruct T as [_ T]. congruence.
  - destruct T as [Hs' Ep]. rewrite <- Ep in Hst.
    destruct (IH s' (measure_admin _ _ E) Hs' Hst) as [J HJ].
    exists (S J). intros n k rs. destruct (HJ n k rs) as [rs' E']. exists rs'.
    simpl. rewrite E, E', Ep. reflexivity.
  - destruct o; simpl in T; destruct T as [-> T].
    + rewrite (value_step_at stp ev _ T) in Hst. discriminate.
    + exists 0. intros n k rs. exists (rev_append rs []). simpl. rewrite E. reflexivity.
    + congruence.
Qed.

(** The machine follows a run of [step_at] to a stuck term, and halts
    there, stuck, after as many contractions. *)
Theorem run_chain_stuck j t u : sa_steps stp ev j t u -> step_at stp ev u = Stuck ->
  forall s, inv s -> plug_state s = t ->
  exists J, forall n k rs, exists rs', run stp ev (J + S n) s k rs = (u, k + j, rs', OStuck).
Proof. apply (run_chain_of (fun u => step_at stp ev u = Stuck) OStuck). exact run_stuck. Qed.

(** Conversely, a run of the machine that ends in a value or stuck is a
    run of [step_at], in as many steps as it counts contractions. *)
Theorem run_sa n : forall s k rs u k' rs' o,
  inv s -> run stp ev n s k rs = (u, k', rs', o) ->
  exists j, k' = k + j /\ sa_steps stp ev j (plug_state s) u /\
    (o = OValue -> value u) /\ (o = OStuck -> step_at stp ev u = Stuck).
Proof.
  induction n as [|n IH]; intros s k rs u k' rs' o Hs H; simpl in H.
  - injection H as <- <- <- <-. exists 0. split; [lia|]. split; [constructor|]. split; discriminate.
  - pose proof (transition_sa s Hs) as T.
    destruct (transition stp ev s) as [s' [r|]|u' o'].
    + destruct T as [Hs' Hst]. destruct (IH _ _ _ _ _ _ _ Hs' H) as (j & -> & Hj & Ho).
      exists (S j). split; [lia|]. split; [econstructor; eassumption|exact Ho].
    + destruct T as [Hs' Heq]. destruct (IH _ _ _ _ _ _ _ Hs' H) as (j & -> & Hj & Ho).
      exists j. split; [lia|]. rewrite <- Heq. split; [exact Hj|exact Ho].
    + injection H as <- <- <- <-. exists 0. split; [lia|]. split; [|split; intros ->].
      * destruct o'; simpl in T; destruct T as [-> _]; constructor.
      * simpl in T. exact (proj2 T).
      * simpl in T. exact (proj2 T).
Qed.

End chain.

Lemma cps_sound_s d m : forall x y, cps_step d m x = Stepped y -> step x y.
Proof.
  intros x y H. pose proof (proj1 (cps_step_eval_sound d m) x) as X. rewrite H in X. exact X.
Qed.

Lemma cps_sound_e d m : forall x y, cps_eval d m x = EVal y -> steps x y /\ value y.
Proof. apply cps_step_eval_sound. Qed.

Lemma inv_start t : inv (St MEval t []).
Proof. split; [constructor|discriminate]. Qed.

(** A run of [step_at] with the machine's premise evaluators at [(d0, m0)]
    to a value: the machine reaches it, with enough transitions. *)
(** A run of [step_at] that ends within fuel [J + 1] at the depth [d0] and
    fuel [m0] is the machine's run from the depth [d0 + 1] and the fuel
    [max m0 (J + 1)] on ([cps_mono], [run_mono]). *)
Lemma cps_enough d0 m0 J t u j rs o :
  run (cps_step d0 m0) (cps_eval d0 m0) (J + 1) (St MEval t []) 0 [] = (u, j, rs, o) -> o <> OFuel ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = match o with OValue => EVal u | OStuck => EStuck | _ => EFuel end /\
    cps_run d' m' t = (u, j, rs, o).
Proof.
  intros E Ho. exists (S d0), (Nat.max m0 (J + 1)). intros d' m' Hd Hm.
  destruct d' as [|d'']; [lia|].
  assert (Hm0 : m0 <= m') by lia. assert (HJm : J + 1 <= m') by lia.
  split.
  - destruct (cps_mono d0 m0 d'' m' ltac:(lia) Hm0) as [As Ae]. rewrite cps_eval_S.
    rewrite (run_mono _ _ _ _ _ _ _ _ _ _ As Ae HJm E) by exact Ho. destruct o; reflexivity.
  - destruct (cps_mono d0 m0 (S d'') m' ltac:(lia) Hm0) as [As Ae]. unfold cps_run.
    rewrite (run_mono _ _ _ _ _ _ _ _ _ _ As Ae HJm E) by exact Ho. reflexivity.
Qed.

(** A machine run from [t] that ends with the outcome [o] (not for want
    of fuel) after [j] contractions, from every fuel [J + 1] on, is
    [cps_run]'s answer for all depths and fuels from some [d], [m] on. *)
Lemma cps_of_run d0 m0 J t u j o :
  (forall n k rs, exists rs',
     run (cps_step d0 m0) (cps_eval d0 m0) (J + S n) (St MEval t []) k rs = (u, k + j, rs', o)) ->
  o <> OFuel ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = match o with OValue => EVal u | OStuck => EStuck | _ => EFuel end /\
    exists rs, cps_run d' m' t = (u, j, rs, o).
Proof.
  intros HJ Ho. destruct (HJ 0 0 []) as [rs E]. simpl in E.
  destruct (cps_enough _ _ _ _ _ _ _ _ E Ho) as [d [m H]].
  exists d, m. intros d' m' Hd Hm. destruct (H d' m' Hd Hm) as [H1 H2]. split; [exact H1|exists rs; exact H2].
Qed.

Lemma cps_of_chain j t v d0 m0 :
  sa_steps (cps_step d0 m0) (cps_eval d0 m0) j t v -> value v ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EVal v /\ exists rs, cps_run d' m' t = (v, j, rs, OValue).
Proof.
  intros Hc Hv.
  destruct (run_chain _ _ (cps_sound_s d0 m0) (cps_sound_e d0 m0) _ _ _ Hc Hv _ (inv_start t) eq_refl)
    as [J HJ].
  exact (cps_of_run _ _ _ _ _ _ _ HJ ltac:(discriminate)).
Qed.

(** ** [step_at] asks its premise evaluators only finitely many questions

    [premq t] lists every premise term [step_at] may pass to [stp] or [ev]
    on [t] (over-approximated: the premises of every head redex in an
    evaluation position); two pairs of premise evaluators that agree on
    these (except where the first runs out of fuel) make [step_at] agree. *)
Definition head_q (e v : tm) : list tm :=
  match e with
  | Pair _ a2 => [App (Pb (ren (up_ren S) a2) (Var 0)) (shift v)]
  | Dual l _ | Lam l => [App (Pb (ren swap l) (Var 1)) (premise_pt v)]
  | Pb l z => [App (Pb (ren (up_ren S) l) (shift z)) (Var 0)]
  | App a1 a2 => path_premise a1 a2 v
  | _ => []
  end.

Fixpoint premq (t : tm) : list tm :=
  match t with
  | App a b => premq a ++ premq b ++ match a with Pb e _ => head_q e b | _ => [] end
  | Proj _ a | Fun _ a | Jac _ a => premq a
  | Pair a b | Plus a b | Dual a b => premq a ++ premq b
  | Pb _ w => premq w
  | Let e _ => premq e
  | _ => []
  end.

Definition agree_on (L : list tm) (stp stp' : tm -> sres) (ev ev' : tm -> eres) : Prop :=
  forall y, In y L ->
    (forall r, stp y = r -> r <> NoFuel -> stp' y = r) /\ (forall r, ev y = r -> r <> EFuel -> ev' y = r).

Lemma agree_on_incl L L' stp stp' ev ev' :
  incl L L' -> agree_on L' stp stp' ev ev' -> agree_on L stp stp' ev ev'.
Proof. intros I A y Hy. apply A, I, Hy. Qed.

Lemma from_step_on (f g : tm -> sres) y k r :
  (forall r, f y = r -> r <> NoFuel -> g y = r) -> from_step (f y) k = r -> r <> NoFuel -> from_step (g y) k = r.
Proof.
  intros A H Hr. destruct (f y) eqn:E; simpl in H; [| | |subst; contradiction];
    rewrite (A _ eq_refl) by discriminate; exact H.
Qed.

Lemma from_ev_on (f g : tm -> eres) y k r :
  (forall r, f y = r -> r <> EFuel -> g y = r) -> from_ev (f y) k = r -> r <> NoFuel -> from_ev (g y) k = r.
Proof.
  intros A H Hr. destruct (f y) eqn:E; simpl in H; [| |subst; contradiction];
    rewrite (A _ eq_refl) by discriminate; exact H.
Qed.

Section on.
Variables (stp stp' : tm -> sres) (ev ev' : tm -> eres).

Lemma pb_head_mono_on e w v r :
  agree_on (head_q e v) stp stp' ev ev' ->
  pb_head stp ev e w v = r -> r <> NoFuel -> pb_head stp' ev' e w v = r.
Proof.
  unfold pb_head, head_q, path_premise.
  repeat match goal with |- context [match ?x with _ => _ end] => destruct x end.
  all: intros A H Hr; try (subst; reflexivity).
  all: first [ eapply from_step_on; [apply (A _ (or_introl eq_refl))|exact H|exact Hr]
             | eapply from_ev_on; [apply (A _ (or_introl eq_refl))|exact H|exact Hr] ].
Qed.

Ltac incl_app := let y := fresh in let Hy := fresh in
  intros y Hy; rewrite ?in_app_iff in *; tauto.

Lemma step_at_mono_on t : agree_on (premq t) stp stp' ev ev' ->
  forall res, step_at stp ev t = res -> res <> NoFuel -> step_at stp' ev' t = res.
Proof.
  induction t; intros A res; simpl in A;
    repeat match goal with
      | IH : agree_on (premq ?x) stp stp' ev ev' -> _ |- _ =>
          let H := fresh in
          assert (H : agree_on (premq x) stp stp' ev ev') by (eapply agree_on_incl; [|exact A]; incl_app);
          specialize (IH H); clear H
      end;
    simpl; step_at_mono_cases.
  all: simpl in A; eapply pb_head_mono_on; [eapply agree_on_incl; [|exact A]; incl_app|reflexivity|assumption].
Qed.

End on.

(** ** Every step and every evaluation is found by the machine

    By induction on the derivations of [step] and [steps] (rules 1-20,
    the premises of 16b-20a included), case by case as
    [step_fn_eval_fn_complete] in [step_fn.v], with the same tactics
    ([tactics.v]): each head rule is computed by [cps_step] with its premise
    evaluated by the machine ([cps_eval], through [cps_of_chain]), and a
    run of [→] is a run of [step_at] with the machine's premise
    evaluators. *)
#[local] Hint Resolve elem_yp atom_yp : core.
#[local] Hint Constructors atom elem lets lin_shape : core.
#[local] Arguments valueb : simpl never.
#[local] Arguments noccb : simpl never.
#[local] Arguments linb : simpl never.
#[local] Arguments is_atom : simpl never.
#[local] Arguments is_elem : simpl never.
#[local] Arguments is_lets : simpl never.
#[local] Arguments chain_bodyb : simpl never.
#[local] Arguments as_path : simpl never.
#[local] Arguments dense_num : simpl never.
#[local] Arguments dual_out : simpl never.
#[local] Arguments areduce : simpl never.
#[local] Arguments atom_eqb : simpl never.
#[local] Arguments head_redexb : simpl never.

(** The premise of a rule, evaluated by the machine. *)
Lemma cps_eval_of_steps t v :
  (value v -> exists j d m, sa_steps (cps_step d m) (cps_eval d m) j t v) -> value v ->
  exists d m, cps_eval d m t = EVal v.
Proof.
  intros H Hv. destruct (H Hv) as (j & d0 & m0 & Hc).
  destruct (cps_of_chain _ _ _ _ _ Hc Hv) as (d & m & E).
  exists d, m. apply (E d m (le_n d) (le_n m)).
Qed.

Theorem cps_step_steps_complete :
  (forall t t', step t t' -> exists d m, cps_step d m t = Stepped t') /\
  (forall t v, steps t v -> value v -> exists j d m, sa_steps (cps_step d m) (cps_eval d m) j t v).
Proof.
  assert (H : (forall t t', step t t' -> step t t' -> exists d m, cps_step d m t = Stepped t') /\
              (forall t v, steps t v -> value v ->
                 exists j d m, sa_steps (cps_step d m) (cps_eval d m) j t v)).
  2: { split; [intros t t' Hs; exact (proj1 H t t' Hs Hs)|exact (proj2 H)]. }
  apply (step_steps_mut (fun t t' _ => step t t' -> exists d m, cps_step d m t = Stepped t')
           (fun t v _ => value v -> exists j d m, sa_steps (cps_step d m) (cps_eval d m) j t v)).
  - (* (1) *)
    intros s v Hv Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_lam s). facts. comp. reflexivity.
  - (* (2) *)
    intros v1 v2 H1 H2 Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_pair _ _ H1 H2). facts. comp. reflexivity.
  - intros v1 v2 H1 H2 Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_pair _ _ H1 H2). facts. comp. reflexivity.
  - (* (3) *)
    intros f r Hr Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_num r).
    assert (dense_num (num_tm r) = Some r) by (apply dense_num_spec; auto). facts. comp. reflexivity.
  - (* (4) *)
    intros f r r' Hr Hr' Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_num r'). pose proof (value_jac_num f r).
    pose proof (value_num r).
    assert (dense_num (num_tm r) = Some r) by (apply dense_num_spec; auto).
    assert (dense_num (num_tm r') = Some r') by (apply dense_num_spec; auto).
    facts. comp. reflexivity.
  - (* (5+) *)
    intros s c r Hn Hb Hst. exists 1, 0. rewrite cps_step_S. pose proof (value_ndual c).
    pose proof (proj1 (bp_value _ _ _ _ Hb)). facts. comp. reflexivity.
  - (* (6) *)
    intros v1 v2 v3 H1 H2 Hst. exists 1, 0. rewrite cps_step_S. pose proof (head_redexb_false_of _ H2).
    pose proof H2 as H3. simpl in H3. destruct H3 as [_ [H3 H4]]. facts. comp. reflexivity.
  - (* let *)
    intros v l Hv Hst. exists 1, 0. rewrite cps_step_S. facts. comp. reflexivity.
  - (* (7) *)
    intros e w He Hst. exists 1, 0. rewrite cps_step_S. assert (lets (Let e (Var 0))) by (constructor; auto).
    facts. comp. reflexivity.
  - (* (8) *)
    intros e l w He Hl Hst. exists 1, 0. rewrite cps_step_S. assert (lets (Let e l)) by (apply lets_cons; auto).
    pose proof (is_var0_lets _ Hl). facts. comp. reflexivity.
  - (* A-step *)
    intros p p' w Ha Hc Hst. exists 1, 0. rewrite cps_step_S. pose proof (astep_not_lets _ _ Ha).
    pose proof (areduce_complete _ _ Ha).
    assert (chain_bodyb p = false) by (destruct (chain_bodyb p) eqn:E; [apply chain_bodyb_spec in E; contradiction|reflexivity]).
    facts. comp. reflexivity.
  - (* (9) *)
    intros e w v Hw Hv He Hn Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head. facts. comp. reflexivity.
  - (* linear *)
    intros e w v Hw Hv He Hs Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst.
    pose proof (lin_shape_not_nocc _ Hs).
    destruct Hs as [p|p q|p q|f p|l p Hl|p a Ha]; [apply pb_head_path|unfold pb_head..].
    + facts. comp. reflexivity.
    + facts. comp. destruct p; reflexivity.
    + facts. comp. reflexivity.
    + apply elem_dual_inv in He as [? ?]. facts. comp. reflexivity.
    + apply elem_app_inv in He as [? ?]. pose proof (as_path_nocc _ Ha). facts. comp. reflexivity.
  - (* (10a) *)
    intros a q w v Hw Hv Ha Hn Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (Plus a (yp q)). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (10a), mirrored *)
    intros p a w v Hw Hv Ha Hn Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (Plus (yp p) a). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (13a) *)
    intros p a w v Hw Hv Ha Hn Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (Pair (yp p) a). pose proof (as_path_nocc _ Hn). pose proof (elem_atom _ Ha).
    destruct p; facts; comp; reflexivity.
  - (* (13b) *)
    intros a q w v Hw Hv Ha Hn Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (Pair a (yp q)). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (15) *)
    intros f p w v Hw Hv Hst. exists 1, 0. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (Fun f (yp p)). facts. comp. reflexivity.
  - (* (16b) *)
    intros l a s' u w v Hw Hv Hl Ha Hnl Hna Hlin Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Dual l a)) by (simpl; tauto).
    pose proof (as_path_nocc _ Hna). facts. comp. reflexivity.
  - (* (16c) *)
    intros l p s' u w v Hw Hv Hl Hnl Hlin Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head, premise_pt.
    nnocc (Dual l (yp p)). facts. comp. reflexivity.
  - (* (17) *)
    intros l z s0 u w v Hw Hv Hl Hz Hn Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hm). exists (S d), m. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    pose proof (atom_eqb_refl _ (atom_ren S _ Hz)). fold (shift z) in *.
    facts. comp. reflexivity.
  - (* (17), its premise ending in 0 *)
    intros l z w v Hw Hv Hl Hz Hn _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH value_zero) as (d & m & Hm). exists (S d), m. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    facts. comp. reflexivity.
  - (* (18) *)
    intros l s' u w v Hw Hv Hl Hnl Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Lam l)) by (simpl; tauto). facts. comp.
    destruct (ren swap s'); reflexivity.
  - (* (18), its premise ending in a dual map along 0 *)
    intros l s0 w v Hw Hv Hl Hnl Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Lam l)) by (simpl; tauto). facts. comp. reflexivity.
  - (* (19b) *)
    intros p q p' vq s0 u w v Hw Hv Hp Hq Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (19c) *)
    intros p q p' vq w v Hw Hv Hp Hq _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH value_zero) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (19b), its premise ending in a dual map along 0 *)
    intros p q p' vq s0 w v Hw Hv Hp Hq Hval _ IH Hst.
    destruct (cps_eval_of_steps _ _ IH Hval) as (d & m & Hn). exists (S d), m. rewrite cps_step_S.
    pb_at Hst. unfold pb_head.
    nnocc (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (20a) *)
    intros e s0 u w v Hw Hv He Hn Hst0 IH Hst.
    assert (Hc : chain_body (Pair (Var 0) e)) by (right; eauto).
    assert (~ nocc is0 (Pair (Var 0) e)) by (simpl; intros [H0 _]; apply H0; reflexivity).
    destruct (as_path e) as [q|] eqn:Eq.
    + apply as_path_some in Eq. subst e.
      rewrite ren_up_yp in Hst0. apply premise_path_inv in Hst0.
      rewrite <- (ren_up_yp S q) in Hst0. apply (ren_inj _ upS_inv) in Hst0; [subst s0|apply upS_inv_l].
      exists 1, 0. rewrite cps_step_S.
      pb_at Hst.
      unfold pb_head, lin_red. facts. comp. reflexivity.
    + destruct (IH Hst0) as (d & m & Hn'). exists (S d), m. rewrite cps_step_S.
      pb_at Hst.
      unfold pb_head. facts. comp. reflexivity.
  - (* (20b) *)
    intros e w v Hw Hv He Hn Hst.
    assert (Hc : chain_body (Pair (Var 0) e)) by (right; eauto).
    assert (~ nocc is0 (Pair (Var 0) e)) by (simpl; intros [H0 _]; apply H0; reflexivity).
    pose proof (as_path_nocc _ Hn). exists 1, 0. rewrite cps_step_S.
    pb_at Hst.
    unfold pb_head. facts. comp. reflexivity.
  - (* evaluation contexts *)
    intros F t t' HF Hst IH _. destruct (IH Hst) as (d & m & Hn).
    exists d, m. destruct d as [|d]; rewrite ?cps_step_0, ?cps_step_S in *;
      (rewrite step_at_efill; [rewrite Hn; reflexivity|exact HF|rewrite Hn; discriminate]).
  - (* steps: refl *)
    intros t Hv. exists 0, 0, 0. constructor.
  - (* steps: cons *)
    intros t t' t'' Hst IH1 _ IH2 Hv. destruct (IH1 Hst) as (d1 & m1 & H1).
    destruct (IH2 Hv) as (j & d2 & m2 & H2).
    exists (S j), (Nat.max d1 d2), (Nat.max m1 m2). econstructor.
    + change (step_at (cps_step (Nat.max d1 d2) (Nat.max m1 m2)) (cps_eval (Nat.max d1 d2) (Nat.max m1 m2)) t)
        with (cps_step (S (Nat.max d1 d2)) (Nat.max m1 m2) t).
      apply (cps_step_mono d1 m1); [lia|lia|exact H1|discriminate].
    + destruct (cps_mono d2 m2 (Nat.max d1 d2) (Nat.max m1 m2)) as [As Ae]; [lia|lia|].
      exact (sa_steps_mono _ _ _ _ _ _ _ As Ae H2).
Qed.

(** ** Completeness along whole runs *)

Lemma sa_steps_nsteps stp ev j t u :
  (forall x y, stp x = Stepped y -> step x y) ->
  (forall x y, ev x = EVal y -> steps x y /\ value y) ->
  sa_steps stp ev j t u -> nsteps j t u.
Proof.
  intros Hs He. induction 1 as [t|j t t' u H _ IH]; [constructor|].
  econstructor; [|exact IH].
  pose proof (step_at_sound stp ev Hs He t) as X. rewrite H in X. exact X.
Qed.

(** Every step of [→] (rules 1-20 with their premises, in evaluation
    contexts) is computed by [cps_step], once [d] and [m] are large enough. *)
Theorem cps_step_complete t t' :
  step t t' -> exists d m, forall d' m', d <= d' -> m <= m' -> cps_step d' m' t = Stepped t'.
Proof.
  intros H. destruct (proj1 cps_step_steps_complete _ _ H) as (d & m & E).
  exists d, m. intros d' m' Hd Hm. apply (cps_step_mono d m); [exact Hd|exact Hm|exact E|discriminate].
Qed.

(** A run of [→] to a value [v] in [k] steps: the machine, with its own
    premise evaluation, reaches [v] after exactly [k] contractions, once
    [d] and [m] are large enough. *)
Theorem cps_run_complete k t v :
  nsteps k t v -> value v ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EVal v /\ exists rs, cps_run d' m' t = (v, k, rs, OValue).
Proof.
  intros Hk Hv.
  destruct (proj2 cps_step_steps_complete _ _ (nsteps_steps _ _ _ Hk) Hv) as (j & d0 & m0 & Hc).
  pose proof (sa_steps_nsteps _ _ _ _ _ (cps_sound_s d0 m0) (cps_sound_e d0 m0) Hc) as Hj.
  destruct (nsteps_value_det _ _ _ _ _ Hj Hv Hk Hv) as [_ ->].
  exact (cps_of_chain _ _ _ _ _ Hc Hv).
Qed.

Theorem cps_eval_complete t v :
  steps t v -> value v -> exists d m, forall d' m', d <= d' -> m <= m' -> cps_eval d' m' t = EVal v.
Proof.
  intros Hs Hv. destruct (steps_nsteps _ _ Hs) as [k Hk].
  destruct (cps_run_complete _ _ _ Hk Hv) as (d & m & E).
  exists d, m. intros d' m' Hd Hm. exact (proj1 (E d' m' Hd Hm)).
Qed.

(** What the normaliser reaches, the machine reaches, in as many
    contractions. *)
Theorem cps_normalize_complete fuel t v k :
  normalize fuel t = (v, k, OValue) ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EVal v /\ exists rs, cps_run d' m' t = (v, k, rs, OValue).
Proof.
  intros H. apply normalize_sound in H as (Hk & _ & Hv & _).
  exact (cps_run_complete _ _ _ Hk (Hv eq_refl)).
Qed.

(** An answer reached by the normaliser with all fuel from some [N] on
    is one reached by the machine with all depths and transitions from
    some [d], [m] on, as soon as each side's answer gives the other's:
    the form of [cps_normalize_iff] and [cps_normalize_stuck_iff]. *)
Lemma fuel_iff (P : nat -> Prop) (X Q : nat -> nat -> Prop) :
  (forall N, P N -> exists d m, forall d' m', d <= d' -> m <= m' -> X d' m' /\ Q d' m') ->
  (forall d m, Q d m -> exists N, forall fuel, N <= fuel -> P fuel) ->
  (exists N, forall fuel, N <= fuel -> P fuel) <->
  (exists d m, forall d' m', d <= d' -> m <= m' -> Q d' m').
Proof.
  intros H1 H2. split.
  - intros [N HN]. destruct (H1 N (HN N (le_n N))) as (d & m & E).
    exists d, m. intros d' m' Hd Hm. exact (proj2 (E d' m' Hd Hm)).
  - intros (d & m & E). exact (H2 d m (E d m (le_n d) (le_n m))).
Qed.

(** With enough fuel, the machine and the normaliser give the same value
    after the same number of steps: one reaches [(v, k)] if and only if
    the other does. *)
Theorem cps_normalize_iff t v k :
  (exists N, forall fuel, N <= fuel -> normalize fuel t = (v, k, OValue)) <->
  (exists d m, forall d' m', d <= d' -> m <= m' -> exists rs, cps_run d' m' t = (v, k, rs, OValue)).
Proof.
  apply (fuel_iff _ (fun d m => cps_eval d m t = EVal v) _ (fun N => cps_normalize_complete N t v k)).
  intros d m [rs H]. exact (cps_normalize_agree _ _ _ _ _ _ H).
Qed.

(** The same for the machine's evaluation and the step function's
    ([eval_fn], the premise evaluation of the normaliser). *)
Theorem cps_eval_fn_iff t v :
  (exists n, forall n', n <= n' -> eval_fn n' t = EVal v) <->
  (exists d m, forall d' m', d <= d' -> m <= m' -> cps_eval d' m' t = EVal v).
Proof.
  split.
  - intros [n Hn]. destruct (eval_fn_sound _ _ _ (Hn n (le_n n))) as [Hs Hv].
    exact (cps_eval_complete _ _ Hs Hv).
  - intros (d & m & E). destruct (cps_eval_sound _ _ _ _ (E d m (le_n d) (le_n m))) as [Hs Hv].
    exact (eval_fn_complete _ _ Hs Hv).
Qed.

(** ** The machine and the step function give the same answers

    Not only values: on every term, [cps_step] and [step_fn] (resp.
    [cps_eval] and [eval_fn]) give the same answer, stuck included,
    whenever both have enough fuel ([cps_step_fn_agree],
    [cps_eval_fn_agree]); the machine halts stuck exactly where the
    normaliser does ([cps_normalize_stuck_iff]). *)

Lemma eval_fn_S n x :
  eval_fn (S n) x =
  match step_fn n x with
  | Stepped x' => eval_fn n x'
  | Value => EVal x
  | Stuck => EStuck
  | NoFuel => EFuel
  end.
Proof. reflexivity. Qed.

Lemma list_eventually2 (P : tm -> nat -> nat -> Prop) L :
  (forall y, In y L -> exists d m, forall d' m', d <= d' -> m <= m' -> P y d' m') ->
  exists d m, forall d' m', d <= d' -> m <= m' -> forall y, In y L -> P y d' m'.
Proof.
  induction L as [|y L IH]; intros H.
  - exists 0, 0. intros d' m' _ _ y [].
  - destruct (H y (or_introl eq_refl)) as (d1 & m1 & H1).
    destruct IH as (d2 & m2 & H2); [intros z Hz; apply H; right; exact Hz|].
    exists (Nat.max d1 d2), (Nat.max m1 m2). intros d' m' Hd Hm z [<-|Hz].
    + apply H1; lia.
    + apply H2; [lia|lia|exact Hz].
Qed.

Lemma list_eventually1 (P : tm -> nat -> Prop) L :
  (forall y, In y L -> exists n, forall n', n <= n' -> P y n') ->
  exists n, forall n', n <= n' -> forall y, In y L -> P y n'.
Proof.
  induction L as [|y L IH]; intros H.
  - exists 0. intros n' _ y [].
  - destruct (H y (or_introl eq_refl)) as (n1 & H1).
    destruct IH as (n2 & H2); [intros z Hz; apply H; right; exact Hz|].
    exists (Nat.max n1 n2). intros n' Hn z [<-|Hz].
    + apply H1; lia.
    + apply H2; [lia|exact Hz].
Qed.

(** A run of the machine's [step_at] that ends stuck. *)
Lemma cps_of_chain_stuck j t u d0 m0 :
  sa_steps (cps_step d0 m0) (cps_eval d0 m0) j t u -> cps_step (S d0) m0 u = Stuck ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EStuck /\ exists rs, cps_run d' m' t = (u, j, rs, OStuck).
Proof.
  intros Hc Hu.
  destruct (run_chain_stuck _ _ (cps_sound_s d0 m0) (cps_sound_e d0 m0) _ _ _ Hc Hu _ (inv_start t) eq_refl)
    as [J HJ].
  exact (cps_of_run _ _ _ _ _ _ _ HJ ltac:(discriminate)).
Qed.

(** What the machine's runs of [step_at] say of an answer of [eval_fn]. *)
Definition eres_c (x : tm) (r : eres) : Prop :=
  match r with
  | EVal v => value v /\ exists j d m, sa_steps (cps_step d m) (cps_eval d m) j x v
  | EStuck => exists j u d m, sa_steps (cps_step d m) (cps_eval d m) j x u /\ cps_step (S d) m u = Stuck
  | EFuel => True
  end.

Lemma eres_c_eval x r : eres_c x r -> r <> EFuel ->
  exists d m, forall d' m', d <= d' -> m <= m' -> cps_eval d' m' x = r.
Proof.
  destruct r as [v| |]; simpl; intros H Hr.
  - destruct H as [Hv (j & d0 & m0 & Hc)]. destruct (cps_of_chain _ _ _ _ _ Hc Hv) as (d & m & E).
    exists d, m. intros d' m' Hd Hm. exact (proj1 (E d' m' Hd Hm)).
  - destruct H as (j & u & d0 & m0 & Hc & Hu). destruct (cps_of_chain_stuck _ _ _ _ _ Hc Hu) as (d & m & E).
    exists d, m. intros d' m' Hd Hm. exact (proj1 (E d' m' Hd Hm)).
  - contradiction.
Qed.

(** Every answer of the step function (other than [NoFuel]) is the
    machine's, with enough fuel. *)
Theorem step_fn_to_cps n :
  (forall x r, step_fn n x = r -> r <> NoFuel ->
     exists d m, forall d' m', d <= d' -> m <= m' -> cps_step d' m' x = r) /\
  (forall x r, eval_fn n x = r -> eres_c x r).
Proof.
  induction n as [|n [IHs IHe]]; split.
  - intros x r H Hr. change (step_fn 0 x) with (step_at (fun _ => NoFuel) (fun _ => EFuel) x) in H.
    exists 0, 0. intros d' m' _ _. destruct d' as [|d']; rewrite ?cps_step_0, ?cps_step_S;
      (eapply step_at_mono; [| |exact H|exact Hr]); intros y r' E; subst; contradiction.
  - intros x r H. change (eval_fn 0 x) with EFuel in H. subst. exact I.
  - intros x r H Hr. change (step_fn (S n) x) with (step_at (step_fn n) (eval_fn n) x) in H.
    assert (Hl : exists d m, forall d' m', d <= d' -> m <= m' -> forall y, In y (premq x) ->
              (forall r, step_fn n y = r -> r <> NoFuel -> cps_step d' m' y = r) /\
              (forall r, eval_fn n y = r -> r <> EFuel -> cps_eval d' m' y = r)).
    { apply list_eventually2. intros y _.
      assert (A1 : exists d m, forall d' m', d <= d' -> m <= m' ->
                forall r, step_fn n y = r -> r <> NoFuel -> cps_step d' m' y = r).
      { destruct (step_fn n y) eqn:Es.
        all: try (destruct (IHs y _ Es ltac:(discriminate)) as (d & m & Hd); exists d, m;
                  intros d' m' Hd' Hm' r' <- _; exact (Hd d' m' Hd' Hm')).
        exists 0, 0. intros d' m' _ _ r' <- Hr'. contradiction. }
      assert (A2 : exists d m, forall d' m', d <= d' -> m <= m' ->
                forall r, eval_fn n y = r -> r <> EFuel -> cps_eval d' m' y = r).
      { destruct (eval_fn n y) eqn:Ee.
        all: try (destruct (eres_c_eval _ _ (IHe y _ Ee) ltac:(discriminate)) as (d & m & Hd); exists d, m;
                  intros d' m' Hd' Hm' r' <- _; exact (Hd d' m' Hd' Hm')).
        exists 0, 0. intros d' m' _ _ r' <- Hr'. contradiction. }
      destruct A1 as (d1 & m1 & A1). destruct A2 as (d2 & m2 & A2).
      exists (Nat.max d1 d2), (Nat.max m1 m2). intros d' m' Hd Hm.
      split; [apply A1|apply A2]; lia. }
    destruct Hl as (d & m & Hl). exists (S d), m. intros d' m' Hd Hm.
    destruct d' as [|d']; [lia|]. rewrite cps_step_S.
    eapply step_at_mono_on; [|exact H|exact Hr]. intros y Hy. apply Hl; [lia|lia|exact Hy].
  - intros x r H. rewrite eval_fn_S in H. destruct (step_fn n x) as [x'| | |] eqn:Es.
    + destruct (IHs x _ Es ltac:(discriminate)) as (d1 & m1 & H1). pose proof (IHe x' r H) as Ec.
      destruct r as [v| |]; simpl in Ec |- *.
      * destruct Ec as [Hv (j & d2 & m2 & Hc)]. split; [exact Hv|].
        exists (S j), (Nat.max d1 d2), (Nat.max m1 m2). econstructor.
        -- change (step_at (cps_step (Nat.max d1 d2) (Nat.max m1 m2)) (cps_eval (Nat.max d1 d2) (Nat.max m1 m2)) x)
             with (cps_step (S (Nat.max d1 d2)) (Nat.max m1 m2) x). apply H1; lia.
        -- destruct (cps_mono d2 m2 (Nat.max d1 d2) (Nat.max m1 m2)) as [As Ae]; [lia|lia|].
           exact (sa_steps_mono _ _ _ _ _ _ _ As Ae Hc).
      * destruct Ec as (j & u & d2 & m2 & Hc & Hu).
        exists (S j), u, (Nat.max d1 d2), (Nat.max m1 m2). split.
        -- econstructor.
           ++ change (step_at (cps_step (Nat.max d1 d2) (Nat.max m1 m2)) (cps_eval (Nat.max d1 d2) (Nat.max m1 m2)) x)
                with (cps_step (S (Nat.max d1 d2)) (Nat.max m1 m2) x). apply H1; lia.
           ++ destruct (cps_mono d2 m2 (Nat.max d1 d2) (Nat.max m1 m2)) as [As Ae]; [lia|lia|].
              exact (sa_steps_mono _ _ _ _ _ _ _ As Ae Hc).
        -- exact (cps_step_mono (S d2) m2 (S (Nat.max d1 d2)) (Nat.max m1 m2) u Stuck
                    ltac:(lia) ltac:(lia) Hu ltac:(discriminate)).
      * exact I.
    + subst r. simpl. split; [exact (step_fn_value _ _ Es)|]. exists 0, 0, 0. constructor.
    + subst r. simpl. destruct (IHs x _ Es ltac:(discriminate)) as (d & m & Hd).
      exists 0, x, d, m. split; [constructor|]. exact (Hd (S d) m ltac:(lia) (le_n m)).
    + subst r. exact I.
Qed.

(** A run of [step_at] whose steps the step function computes, with
    enough fuel: [eval_fn] ends where it ends. *)
Lemma sa_to_eval_fn stp ev j x u :
  (forall y r, step_at stp ev y = r -> r <> NoFuel -> exists n, forall n', n <= n' -> step_fn n' y = r) ->
  sa_steps stp ev j x u ->
  (value u -> exists n, forall n', n <= n' -> eval_fn n' x = EVal u) /\
  (step_at stp ev u = Stuck -> exists n, forall n', n <= n' -> eval_fn n' x = EStuck).
Proof.
  intros T. induction 1 as [x|j x x' u Hx _ IH].
  - split.
    + intros Hv. exists 1. intros n' Hn'. destruct n' as [|n']; [lia|].
      rewrite eval_fn_S, (step_fn_value_complete n' x Hv). reflexivity.
    + intros Hs. destruct (T _ _ Hs ltac:(discriminate)) as [n Hn]. exists (S n).
      intros n' Hn'. destruct n' as [|n']; [lia|]. rewrite eval_fn_S, Hn by lia. reflexivity.
  - destruct (T _ _ Hx ltac:(discriminate)) as [n1 H1]. destruct IH as [IHv IHs]. split.
    + intros Hv. destruct (IHv Hv) as [n2 H2]. exists (S (Nat.max n1 n2)).
      intros n' Hn'. destruct n' as [|n']; [lia|]. rewrite eval_fn_S, H1 by lia. apply H2. lia.
    + intros Hs. destruct (IHs Hs) as [n2 H2]. exists (S (Nat.max n1 n2)).
      intros n' Hn'. destruct n' as [|n']; [lia|]. rewrite eval_fn_S, H1 by lia. apply H2. lia.
Qed.

(** Every answer of the machine (other than for want of fuel) is the step
    function's, with enough fuel. *)
Theorem cps_to_step_fn d : forall m,
  (forall x r, cps_step d m x = r -> r <> NoFuel -> exists n, forall n', n <= n' -> step_fn n' x = r) /\
  (forall x r, cps_eval d m x = r -> r <> EFuel -> exists n, forall n', n <= n' -> eval_fn n' x = r).
Proof.
  induction d as [|d IH]; intros m.
  - split.
    + intros x r H Hr. rewrite cps_step_0 in H. exists 0. intros n' _.
      apply (step_fn_mono 0); [lia|exact H|exact Hr].
    + intros x r H Hr. change (cps_eval 0 m x) with EFuel in H. subst. contradiction.
  - destruct (IH m) as [IHs IHe].
    assert (Hs : forall x r, cps_step (S d) m x = r -> r <> NoFuel ->
                   exists n, forall n', n <= n' -> step_fn n' x = r).
    { intros x r H Hr. rewrite cps_step_S in H.
      assert (Hl : exists n, forall n', n <= n' -> forall y, In y (premq x) ->
                (forall r, cps_step d m y = r -> r <> NoFuel -> step_fn n' y = r) /\
                (forall r, cps_eval d m y = r -> r <> EFuel -> eval_fn n' y = r)).
      { apply list_eventually1. intros y _.
        assert (A1 : exists n, forall n', n <= n' ->
                  forall r, cps_step d m y = r -> r <> NoFuel -> step_fn n' y = r).
        { destruct (cps_step d m y) eqn:Es.
          all: try (destruct (IHs y _ Es ltac:(discriminate)) as [n Hn]; exists n;
                    intros n' Hn' r' <- _; exact (Hn n' Hn')).
          exists 0. intros n' _ r' <- Hr'. contradiction. }
        assert (A2 : exists n, forall n', n <= n' ->
                  forall r, cps_eval d m y = r -> r <> EFuel -> eval_fn n' y = r).
        { destruct (cps_eval d m y) eqn:Ee.
          all: try (destruct (IHe y _ Ee ltac:(discriminate)) as [n Hn]; exists n;
                    intros n' Hn' r' <- _; exact (Hn n' Hn')).
          exists 0. intros n' _ r' <- Hr'. contradiction. }
        destruct A1 as [n1 A1]. destruct A2 as [n2 A2].
        exists (Nat.max n1 n2). intros n' Hn'. split; [apply A1|apply A2]; lia. }
      destruct Hl as [n Hl]. exists (S n). intros n' Hn'. destruct n' as [|n']; [lia|].
      change (step_fn (S n') x) with (step_at (step_fn n') (eval_fn n') x).
      eapply step_at_mono_on; [|exact H|exact Hr]. intros y Hy. apply Hl; [lia|exact Hy]. }
    split; [exact Hs|].
    intros x r H Hr. rewrite cps_eval_S in H.
    destruct (run (cps_step d m) (cps_eval d m) m (St MEval x []) 0 []) as [[[u k] rs] o] eqn:E.
    destruct (run_sa _ _ (cps_sound_s d m) (cps_sound_e d m) _ _ _ _ _ _ _ _ (inv_start x) E)
      as (j & _ & Hc & Hv & Hst).
    destruct (sa_to_eval_fn _ _ _ _ _ Hs Hc) as [Ev Es].
    destruct o; subst r; [exact (Ev (Hv eq_refl))|exact (Es (Hst eq_refl))|contradiction].
Qed.

(** The machine's one step and the step function's agree, once both
    have enough fuel: every answer of one (other than for want of fuel) is
    eventually the other's. *)
Theorem cps_step_fn_agree :
  (forall n x r, step_fn n x = r -> r <> NoFuel ->
     exists d m, forall d' m', d <= d' -> m <= m' -> cps_step d' m' x = r) /\
  (forall d m x r, cps_step d m x = r -> r <> NoFuel ->
     exists n, forall n', n <= n' -> step_fn n' x = r).
Proof.
  split.
  - intros n. exact (proj1 (step_fn_to_cps n)).
  - intros d m. exact (proj1 (cps_to_step_fn d m)).
Qed.

(** The machine's evaluation (a premise evaluation, [cps_eval]) and the
    step function's ([eval_fn]) agree, values and stuck terms alike. *)
Theorem cps_eval_fn_agree :
  (forall n x r, eval_fn n x = r -> r <> EFuel ->
     exists d m, forall d' m', d <= d' -> m <= m' -> cps_eval d' m' x = r) /\
  (forall d m x r, cps_eval d m x = r -> r <> EFuel ->
     exists n, forall n', n <= n' -> eval_fn n' x = r).
Proof.
  split.
  - intros n x r H Hr. exact (eres_c_eval _ _ (proj2 (step_fn_to_cps n) x r H) Hr).
  - intros d m. exact (proj2 (cps_to_step_fn d m)).
Qed.

(** ** Stuck runs: the machine and the normaliser *)
Inductive fsteps (f : tm -> sres) : nat -> tm -> tm -> Prop :=
| fs_refl t : fsteps f 0 t t
| fs_cons j t t' u : f t = Stepped t' -> fsteps f j t' u -> fsteps f (S j) t u.

Lemma norm_loop_stuck pf n : forall k t u k',
  norm_loop pf n k t = (u, k', OStuck) ->
  exists j, k' = k + j /\ fsteps (step_fn pf) j t u /\ step_fn pf u = Stuck.
Proof.
  induction n as [|n IH]; intros k t u k' H; simpl in H;
    destruct (step_fn pf t) as [t'| | |] eqn:E; try discriminate.
  all: try (injection H as <- <-; exists 0; split; [lia|split; [constructor|exact E]]).
  destruct (IH _ _ _ _ H) as (j & -> & Hj & Hu).
  exists (S j). split; [lia|split; [econstructor; eassumption|exact Hu]].
Qed.

Lemma fsteps_to_cps pf j t u :
  fsteps (step_fn pf) j t u -> step_fn pf u = Stuck ->
  exists d m, sa_steps (cps_step d m) (cps_eval d m) j t u /\ cps_step (S d) m u = Stuck.
Proof.
  induction 1 as [t|j t t' u Ht _ IH]; intros Hu.
  - destruct (proj1 (step_fn_to_cps pf) _ _ Hu ltac:(discriminate)) as (d & m & Hd).
    exists d, m. split; [constructor|apply Hd; lia].
  - destruct (proj1 (step_fn_to_cps pf) _ _ Ht ltac:(discriminate)) as (d1 & m1 & H1).
    destruct (IH Hu) as (d2 & m2 & Hc & Hs).
    exists (Nat.max d1 d2), (Nat.max m1 m2). split.
    + econstructor.
      * change (step_at (cps_step (Nat.max d1 d2) (Nat.max m1 m2)) (cps_eval (Nat.max d1 d2) (Nat.max m1 m2)) t)
          with (cps_step (S (Nat.max d1 d2)) (Nat.max m1 m2) t). apply H1; lia.
      * destruct (cps_mono d2 m2 (Nat.max d1 d2) (Nat.max m1 m2)) as [As Ae]; [lia|lia|].
        exact (sa_steps_mono _ _ _ _ _ _ _ As Ae Hc).
    + apply (cps_step_mono (S d2) m2); [lia|lia|exact Hs|discriminate].
Qed.

(** Where the normaliser halts stuck, the machine halts stuck, on the same
    term after as many contractions, once [d] and [m] are large enough. *)
Theorem cps_normalize_stuck_complete fuel t u k :
  normalize fuel t = (u, k, OStuck) ->
  exists d m, forall d' m', d <= d' -> m <= m' ->
    cps_eval d' m' t = EStuck /\ exists rs, cps_run d' m' t = (u, k, rs, OStuck).
Proof.
  unfold normalize. intros H. destruct (norm_loop_stuck _ _ _ _ _ _ H) as (j & -> & Hj & Hu).
  destruct (fsteps_to_cps _ _ _ _ Hj Hu) as (d & m & Hc & Hs).
  exact (cps_of_chain_stuck _ _ _ _ _ Hc Hs).
Qed.

Lemma sa_to_norm_loop stp ev j t u :
  (forall y r, step_at stp ev y = r -> r <> NoFuel -> exists n, forall n', n <= n' -> step_fn n' y = r) ->
  sa_steps stp ev j t u -> step_at stp ev u = Stuck ->
  exists P, forall pf n k, P <= pf -> j <= n -> norm_loop pf n k t = (u, k + j, OStuck).
Proof.
  intros T. induction 1 as [t|j t t' u Ht _ IH]; intros Hu.
  - destruct (T _ _ Hu ltac:(discriminate)) as [P HP]. exists P. intros pf n k Hpf _.
    destruct n; simpl; rewrite (HP pf Hpf), PeanoNat.Nat.add_0_r; reflexivity.
  - destruct (IH Hu) as [P HP]. destruct (T _ _ Ht ltac:(discriminate)) as [n0 Hn0].
    exists (Nat.max n0 P). intros pf n k Hpf Hn.
    destruct n as [|n]; [lia|]. simpl.
    rewrite Hn0 by lia. rewrite HP by lia. f_equal. f_equal. lia.
Qed.

(** Where the machine halts stuck, the normaliser halts stuck, on the same
    term after as many steps, once its fuel suffices. *)
Theorem cps_normalize_stuck_sound d m t u k rs :
  cps_run d m t = (u, k, rs, OStuck) ->
  exists N, forall fuel, N <= fuel -> normalize fuel t = (u, k, OStuck).
Proof.
  unfold cps_run. intros H.
  destruct (run_sa _ _ (cps_sound_s d m) (cps_sound_e d m) _ _ _ _ _ _ _ _ (inv_start t) H)
    as (j & -> & Hc & _ & Hst).
  specialize (Hst eq_refl).
  assert (T : forall y r, step_at (cps_step d m) (cps_eval d m) y = r -> r <> NoFuel ->
                exists n, forall n', n <= n' -> step_fn n' y = r)
    by (intros y r Hy Hr; exact (proj1 (cps_to_step_fn (S d) m) y r Hy Hr)).
  destruct (sa_to_norm_loop _ _ _ _ _ T Hc Hst) as [P HP].
  exists (Nat.max P j). intros fuel Hf. unfold normalize. rewrite HP by lia. reflexivity.
Qed.

Theorem cps_normalize_stuck_iff t u k :
  (exists N, forall fuel, N <= fuel -> normalize fuel t = (u, k, OStuck)) <->
  (exists d m, forall d' m', d <= d' -> m <= m' -> exists rs, cps_run d' m' t = (u, k, rs, OStuck)).
Proof.
  apply (fuel_iff _ (fun d m => cps_eval d m t = EStuck) _ (fun N => cps_normalize_stuck_complete N t u k)).
  intros d m [rs H]. exact (cps_normalize_stuck_sound _ _ _ _ _ _ H).
Qed.

(** The machine and the normaliser give the same answer, a value or a
    stuck term, on the same term after as many steps, whenever both have
    enough fuel: an answer of either (other than for want of fuel) is the
    other's once its fuel suffices. *)
Theorem cps_normalize_same :
  (forall fuel t u k o, normalize fuel t = (u, k, o) -> o <> OFuel ->
     exists d m, forall d' m', d <= d' -> m <= m' -> exists rs, cps_run d' m' t = (u, k, rs, o)) /\
  (forall d m t u k rs o, cps_run d m t = (u, k, rs, o) -> o <> OFuel ->
     exists N, forall fuel, N <= fuel -> normalize fuel t = (u, k, o)).
Proof.
  split.
  - intros fuel t u k [| |] H Ho; [| |contradiction].
    + destruct (cps_normalize_complete _ _ _ _ H) as (d & m & E).
      exists d, m. intros d' m' Hd Hm. exact (proj2 (E d' m' Hd Hm)).
    + destruct (cps_normalize_stuck_complete _ _ _ _ H) as (d & m & E).
      exists d, m. intros d' m' Hd Hm. exact (proj2 (E d' m' Hd Hm)).
  - intros d m t u k rs [| |] H Ho; [| |contradiction].
    + exact (cps_normalize_agree _ _ _ _ _ _ H).
    + exact (cps_normalize_stuck_sound _ _ _ _ _ _ H).
Qed.

End run_complete.

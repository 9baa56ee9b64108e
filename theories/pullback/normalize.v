(** * The normaliser: [step_fn] iterated, with a step count

    [normalize fuel t = (u, k, o)]: starting from [t], at most [fuel]
    steps of [step_fn fuel] (the same fuel bounds the premises), ending in
    [u] after exactly [k] steps, with the outcome [o]:
    - [OValue]: [u] is a value;
    - [OStuck]: [u] is not a value and no rule applies to it;
    - [OFuel]: the fuel ran out (the steps, or a premise).
    [normalize_sound] states these; [normalize_complete]: a term that
    evaluates to a value is normalised to it with enough fuel.
    [trace] is the same loop recording every term it reaches
    ([trace_sound]: a chain of steps, and the same result as
    [normalize]).  Both loops are tail-recursive. *)
From Pullback Require Import syntax typing anf backprop reduction progress decide step_fn.

Section normalize.
Context {Σ : signature}.

Inductive outcome : Type := OValue | OStuck | OFuel.

(** [nsteps k t u]: [t] reaches [u] in exactly [k] steps. *)
Inductive nsteps : nat -> tm -> tm -> Prop :=
| nsteps_refl t : nsteps 0 t t
| nsteps_cons k t t' u : step t t' -> nsteps k t' u -> nsteps (S k) t u.

Lemma nsteps_steps k t u : nsteps k t u -> steps t u.
Proof. induction 1; [apply steps_refl|eapply steps_cons; eauto]. Qed.

Lemma steps_nsteps t u : steps t u -> exists k, nsteps k t u.
Proof.
  induction 1 as [t|t t' u Hs _ [k Hk]]; [exists 0; constructor|exists (S k); econstructor; eauto].
Qed.

(** [pf]: the fuel of the premises; [n]: the steps left; [k]: the steps
    taken so far. *)
Fixpoint norm_loop (pf n k : nat) (t : tm) {struct n} : tm * nat * outcome :=
  match step_fn pf t with
  | Value => (t, k, OValue)
  | Stuck => (t, k, OStuck)
  | NoFuel => (t, k, OFuel)
  | Stepped t' =>
      match n with
      | 0 => (t, k, OFuel)
      | S n' => norm_loop pf n' (S k) t'
      end
  end.

Definition normalize (fuel : nat) (t : tm) : tm * nat * outcome := norm_loop fuel fuel 0 t.

Definition outcome_spec (u : tm) (o : outcome) : Prop :=
  match o with
  | OValue => value u
  | OStuck => ~ value u /\ forall u', ~ step u u'
  | OFuel => ~ value u
  end.

Lemma step_fn_not_value pf t r : step_fn pf t = r -> r <> Value -> ~ value t.
Proof. intros H Hr Hv. rewrite (step_fn_value_complete pf t Hv) in H. subst. contradiction. Qed.

Lemma norm_loop_sound pf n : forall k t u k' o,
  norm_loop pf n k t = (u, k', o) ->
  exists j, k' = k + j /\ nsteps j t u /\ outcome_spec u o.
Proof.
  induction n as [|n IH]; intros k t u k' o H; simpl in H;
    destruct (step_fn pf t) as [t'| | |] eqn:E.
  all: try (injection H as <- <- <-; exists 0; split; [lia|split; [constructor|]]; simpl).
  all: try (eapply step_fn_not_value; [exact E|discriminate]).
  all: try (eapply step_fn_value; exact E).
  all: try (apply step_fn_stuck in E; exact E).
  destruct (IH _ _ _ _ _ H) as (j & -> & Hj & Ho).
  exists (S j). split; [lia|split; [|exact Ho]].
  econstructor; [eapply step_fn_sound; eassumption|exact Hj].
Qed.

(** [normalize] reaches its result in exactly the steps it counts, and
    its outcome is true of the result. *)
Theorem normalize_sound fuel t u k o :
  normalize fuel t = (u, k, o) ->
  nsteps k t u /\ steps t u /\
  (o = OValue -> value u) /\
  (o = OStuck -> ~ value u /\ forall u', ~ step u u') /\
  (o = OFuel -> ~ value u).
Proof.
  unfold normalize. intros H. destruct (norm_loop_sound _ _ _ _ _ _ _ H) as (j & -> & Hj & Ho).
  simpl. split; [exact Hj|split; [eapply nsteps_steps; eauto|]].
  destruct o; simpl in Ho; (split; [|split]); intros E; try discriminate; tauto.
Qed.

Lemma norm_loop_complete j t v :
  nsteps j t v -> value v ->
  exists P, forall pf n k, P <= pf -> j <= n -> norm_loop pf n k t = (v, k + j, OValue).
Proof.
  induction 1 as [t|j t t' v Hs _ IH]; intros Hv.
  - exists 0. intros pf n k _ _. destruct n; simpl; rewrite (step_fn_value_complete pf t Hv);
      f_equal; f_equal; lia.
  - destruct (IH Hv) as [P HP]. destruct (step_fn_complete _ _ Hs) as [n0 Hn0].
    exists (Nat.max n0 P). intros pf n k Hpf Hn.
    destruct n as [|n]; [lia|]. simpl.
    rewrite Hn0 by lia. rewrite HP by lia. f_equal. f_equal. lia.
Qed.

(** A term that evaluates to a value is normalised to it, with its number
    of steps, once the fuel suffices. *)
Theorem normalize_complete t v :
  steps t v -> value v ->
  exists k N, forall fuel, N <= fuel -> normalize fuel t = (v, k, OValue).
Proof.
  intros Hs Hv. destruct (steps_nsteps _ _ Hs) as [k Hk].
  destruct (norm_loop_complete _ _ _ Hk Hv) as [P HP].
  exists k, (Nat.max P k). intros fuel Hf. unfold normalize. rewrite HP by lia. reflexivity.
Qed.

(** ** The trace: every term reached, in order *)
Fixpoint trace_loop (pf n : nat) (acc : list tm) (t : tm) {struct n} : list tm * outcome :=
  match step_fn pf t with
  | Value => (rev_append acc [], OValue)
  | Stuck => (rev_append acc [], OStuck)
  | NoFuel => (rev_append acc [], OFuel)
  | Stepped t' =>
      match n with
      | 0 => (rev_append acc [], OFuel)
      | S n' => trace_loop pf n' (t' :: acc) t'
      end
  end.

Definition trace (fuel : nat) (t : tm) : list tm * outcome := trace_loop fuel fuel [] t.

(** [chain t l]: [l] lists the terms of a reduction sequence from [t]. *)
Inductive chain : tm -> list tm -> Prop :=
| chain_nil t : chain t []
| chain_cons t t' l : step t t' -> chain t' l -> chain t (t' :: l).

Lemma last_cons (x : tm) l d : last (x :: l) d = last l x.
Proof.
  revert x d. induction l as [|y l IH]; intros x d; [reflexivity|].
  change (last (y :: l) d = last (y :: l) x). rewrite !IH. reflexivity.
Qed.

Lemma trace_loop_sound pf n : forall acc t l o,
  trace_loop pf n acc t = (l, o) ->
  exists l', l = rev acc ++ l' /\ chain t l' /\
    forall k, norm_loop pf n k t = (last l' t, k + length l', o).
Proof.
  induction n as [|n IH]; intros acc t l o H; simpl in H |- *;
    destruct (step_fn pf t) as [t'| | |] eqn:E.
  all: try (injection H as <- <-; exists [];
            (split; [rewrite rev_append_rev, app_nil_r; reflexivity|]);
            (split; [constructor|]); intros k; simpl; rewrite PeanoNat.Nat.add_0_r; reflexivity).
  destruct (IH _ _ _ _ H) as (l'' & -> & Hc & Hn).
  exists (t' :: l''). split; [simpl; rewrite <- app_assoc; reflexivity|].
  split; [econstructor; [eapply step_fn_sound; eassumption|exact Hc]|].
  intros k. rewrite Hn. replace (S k + length l'') with (k + length (t' :: l'')) by (simpl; lia).
  rewrite last_cons. reflexivity.
Qed.

(** The trace is a chain of steps from [t], and ends where [normalize]
    ends, after as many steps, with the same outcome. *)
Theorem trace_sound fuel t l o :
  trace fuel t = (l, o) ->
  chain t l /\ normalize fuel t = (last l t, length l, o).
Proof.
  unfold trace, normalize. intros H.
  destruct (trace_loop_sound _ _ _ _ _ _ H) as (l' & -> & Hc & Hn). simpl.
  split; [exact Hc|]. rewrite Hn. reflexivity.
Qed.

End normalize.

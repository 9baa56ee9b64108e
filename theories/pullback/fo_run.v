(** * The fuel-free run of the first-order fragment, for pullback-eval

    [fo_normalize] (norm_fo.v) returns the value of a term of the fragment
    [fq] without fuel, but not the number of steps that [pullback-eval]
    prints with it.  [fo_run] is the driver's normaliser [normalize] run
    with fuel [2^j] for the first [j] at which it ends in a value, found by
    the well-founded search of [ConstructiveEpsilon] whose termination is
    [fo_normalize_normalize]; so it returns the value of [fo_normalize]
    and the exact number of steps ([fo_run_value]), and whatever
    [normalize] returns as a value with any fuel it returns too
    ([fo_run_normalize]).  [fo_run_opt] decides the fragment ([fqb]) and
    then runs: [None] outside it, a value inside it, on every term
    ([fo_run_opt_sound], [fo_run_opt_complete], [fo_run_opt_normalize]).
    The search costs at most about twice the last run ([normalize] with
    fuel [f] takes at most [f] steps). *)
From Coq Require Import ConstructiveEpsilon.
From Pullback Require Import syntax reduction normalize cps norm_fo fo.

Section fo_run.
Context {Σ : signature}.

Definition is_done (r : tm * nat * outcome) : bool :=
  match r with (_, _, OValue) => true | _ => false end.

(** Informal proof: with enough fuel [N], [normalize] ends in a value
    ([fo_normalize_normalize]), and [2^N > N]. *)
Lemma fq_run_fuel t : fq t -> exists j, is_done (normalize (2 ^ j) t) = true.
Proof.
  intros H. destruct (fo_normalize_normalize t H) as (k & N & HN).
  apply (pow2_exists (fun n => is_done (normalize n t)) N). intros n Hn. rewrite HN by exact Hn. reflexivity.
Qed.

Definition fo_run_fuel (t : tm) (H : fq t) : nat :=
  pow2_search (fun n => is_done (normalize n t)) (fq_run_fuel t H).

Definition fo_run (t : tm) (H : fq t) : tm * nat * outcome := normalize (2 ^ fo_run_fuel t H) t.

(** Informal proof: the search stops at a fuel where [normalize] ends in
    a value [u] after [k] steps ([normalize_sound]); [u] is the value
    [→*] reaches, which is [fo_normalize]'s ([fo_normalize_steps]). *)
Lemma fo_run_value t H :
  exists k, fo_run t H = (fo_normalize t H, k, OValue) /\ nsteps k t (fo_normalize t H).
Proof.
  unfold fo_run. assert (Hj : is_done (normalize (2 ^ fo_run_fuel t H) t) = true)
    by exact (pow2_search_spec (fun n => is_done (normalize n t)) (fq_run_fuel t H)).
  destruct (normalize (2 ^ fo_run_fuel t H) t) as [[u k] o] eqn:E; destruct o; try discriminate.
  apply normalize_sound in E as (Hk & Hs & Hv & _).
  rewrite (fo_normalize_steps t H u Hs (Hv eq_refl)). eauto.
Qed.

(** Whenever [normalize] (the fuelled path of [pullback-eval]) ends in a
    value, [fo_run] gives the same value after the same number of steps
    (the steps to a value are determined: [nsteps_value_det]). *)
Lemma fo_run_normalize t H fuel u k :
  normalize fuel t = (u, k, OValue) -> fo_run t H = (u, k, OValue).
Proof.
  intros E. apply normalize_sound in E as (Hk & _ & Hv & _).
  destruct (fo_run_value t H) as (k' & -> & Hk').
  destruct (nsteps_value_det _ _ _ _ _ Hk' (proj2 (fo_normalize_sound t H)) Hk (Hv eq_refl))
    as [-> ->].
  reflexivity.
Qed.

(** And the fuelled path reaches [fo_run]'s answer once its fuel suffices. *)
Lemma fo_run_normalize_eventually t H :
  exists N, forall fuel, N <= fuel -> normalize fuel t = fo_run t H.
Proof.
  destruct (fo_normalize_normalize t H) as (k & N & HN). exists N. intros fuel Hf.
  rewrite (HN fuel Hf). symmetry. apply (fo_run_normalize t H fuel). exact (HN fuel Hf).
Qed.

(** [fo_run_opt t]: [None] outside the fragment, else [fo_run]'s answer;
    a total function of every term, with no fuel. *)
Definition fo_run_opt (t : tm) : option (tm * nat * outcome) := on_fq fo_run t.

Lemma fo_run_opt_sound t r :
  fo_run_opt t = Some r -> exists v k, r = (v, k, OValue) /\ nsteps k t v /\ value v.
Proof.
  intros Hr. destruct (on_fq_some _ _ _ Hr) as [Hq ->].
  destruct (fo_run_value t Hq) as (k & -> & Hk).
  exists (fo_normalize t Hq), k.
  split; [reflexivity|split; [exact Hk|apply fo_normalize_sound]].
Qed.

Lemma fo_run_opt_complete t : fq t -> exists r, fo_run_opt t = Some r.
Proof. apply on_fq_complete. Qed.

Lemma fo_run_opt_none t : fo_run_opt t = None -> ~ fq t.
Proof. apply on_fq_none. Qed.

(** The two paths of [pullback-eval] agree: where the fuelled normaliser
    ends in a value, the fuel-free run gives the same answer. *)
Lemma fo_run_opt_normalize t r fuel u k :
  fo_run_opt t = Some r -> normalize fuel t = (u, k, OValue) -> r = (u, k, OValue).
Proof. intros Hr. destruct (on_fq_some _ _ _ Hr) as [Hq ->]. apply fo_run_normalize. Qed.

End fo_run.

(** * The three implementations agree (spec §8, "All three implementations
    agree")

    All three satisfy Statement 5.1, so they denote the same expression
    [E'] ([modes_denote_same]); with a semiring's own pure dictionary, they
    perform no request and compute equal numbers ([modes_agree]). *)
From DefineByRun Require Import api forward reverse tape.

Local Open Scope sr_scope.

(** Informal proof: [diff_correct], [diff_tape_correct], [diff_fwd_correct]. *)
Lemma modes_denote_same e E :
  denotes e E ->
  denotes (diff e) (deriv E) /\ denotes (diff_tape e) (deriv E) /\
  denotes (diff_fwd e) (deriv E).
Proof.
  intros He. split; [|split].
  - apply diff_correct, He.
  - apply diff_tape_correct, He.
  - apply diff_fwd_correct, He.
Qed.

(** Informal proof: [denotes_run] applied to each of [diff_correct],
    [diff_tape_correct] and [diff_fwd_correct]: each run is a [Ret] of a
    number equal to [⟦E'⟧(r)]. *)
Lemma modes_agree e E (S : semiring) (r : S) :
  denotes e E ->
  exists y1 y2 y3,
    eval_exp (diff e) _ _ _ (sr_dict S) r = Ret y1 /\
    eval_exp (diff_tape e) _ _ _ (sr_dict S) r = Ret y2 /\
    eval_exp (diff_fwd e) _ _ _ (sr_dict S) r = Ret y3 /\
    y1 ≡ eval1 r (deriv E) /\ y1 ≡ y2 /\ y1 ≡ y3.
Proof.
  intros He.
  destruct (denotes_run _ _ S r (diff_correct _ _ He)) as (y1 & H1 & E1).
  destruct (denotes_run _ _ S r (diff_tape_correct _ _ He)) as (y2 & H2 & E2).
  destruct (denotes_run _ _ S r (diff_fwd_correct _ _ He)) as (y3 & H3 & E3).
  exists y1, y2, y3. repeat split; auto.
  - rewrite E1, E2. reflexivity.
  - rewrite E1, E3. reflexivity.
Qed.

(** * A checker for the typed premise [ztyped] on annotated terms

    docs/decisions-pullback.md, "Progress beyond the first-order fragment:
    the premise is typed".  [ztc] is [infer.v]'s bidirectional checker
    [tc] with the restriction of [ztyped], both instances of [tc_step]: [0] checks only against a dual
    type, a sum only at a dual type (checked, or inferred from one of its
    parts), and the body of a dual map is checked by [tc] itself (sums and
    [0] stand there at any type).  Everything else, the guesses and the
    candidates for a [let]-bound type included, is [tc]'s.  It is sound
    ([zinfer_sound], [zcheck_sound], from [infer.v]'s [tc_step_sound]);
    completeness is not proved. *)
From Pullback Require Import syntax typing decide infer ztyped.

Section zinfer.
Context {Σ : signature}.

Fixpoint ztc (Γ : list ty) (a : atm) (exp : option ty) {struct a} : option ty :=
  tc_step true ztc tc Γ a exp.

Lemma ztc_sound a : forall Γ exp B,
  ztc Γ a exp = Some B -> ztyped Γ (erase a) B /\ (forall A, exp = Some A -> B = A).
Proof.
  apply (tc_step_sound ztyped typed true ztc tc);
    [intros ? []; reflexivity|intros ? _; apply tc_sound
    |intros ? [| | |σ] Hz; try discriminate; constructor
    |intros ? ? ? [| | |σ] Hz; try discriminate; constructor; assumption
    |intros; econstructor; eassumption..].
Qed.

Definition zinfer (Γ : list ty) (a : atm) : option ty := ztc Γ a None.

Definition zcheck (Γ : list ty) (a : atm) (A : ty) : bool :=
  match ztc Γ a (Some A) with Some _ => true | None => false end.

(** The checker of the typed premise is sound. *)
Theorem zinfer_sound Γ a A : zinfer Γ a = Some A -> ztyped Γ (erase a) A.
Proof. intros H. apply (ztc_sound a Γ None A H). Qed.

Theorem zcheck_sound Γ a A : zcheck Γ a A = true -> ztyped Γ (erase a) A.
Proof. unfold zcheck. apply (checked_sound ztc ztyped ztc_sound). Qed.

(** Examples: [⟨0, r⟩] checks at [R* × R] (it has no inferred type); a sum
    at [R], which [check] accepts, is refused; a pullback applied to a
    point infers [R*]. *)
Example zcheck_pair_zero r : zcheck [] (XPair XZero (XReal r)) (TProd (TDual TR) TR) = true.
Proof. reflexivity. Qed.

Example zcheck_sum_real r :
  zcheck [] (XPlus (XReal r) (XReal r)) TR = false /\ check [] (XPlus (XReal r) (XReal r)) TR = true.
Proof. split; reflexivity. Qed.

Example zinfer_pb_point r :
  zinfer [] (XApp (XPb TR (XVar 0) (XLam TR (XNDual (NR r)))) (XReal r)) = Some (TDual TR).
Proof. reflexivity. Qed.

End zinfer.

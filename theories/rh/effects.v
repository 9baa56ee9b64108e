(** * Effects: the operations a command may perform

    The paper types a command by its result only; an operation that no
    handler covers is well typed and stuck at run time ([stuck_op],
    [progress]).  This file adds what the type does not say: [eff P], the
    list of the operations [P] may perform outwards, and proves it sound:
    every step performs no operation outside it, so a closed well-typed
    program whose [eff] holds no user operation is never stuck on an
    unhandled operation, for the relation, for [run] at every fuel, for the
    machine and for the total evaluator ([Get] and [Put] are always
    answered by the heap).

    [eff] reads the handlers as the rewriting [RH] uses them
    ([clause_of]): an operation of the body with an explicit clause
    performs what that clause's forward and backward commands perform; an
    operation without one is passed on, as its default clause performs it
    again outwards; and the return clause runs once.
<<
    eff ⌊M⌋                              = ∅
    eff Op(M)                            = {Op}
    eff (let x ⇐ P in Q)                 = eff P ∪ eff Q
    eff (rev handle(M)<x⃗>.R with H)      = eff_H H (eff R)
    eff_H ({x ↦ P} ∪ cls) E             = eff P ∪ ⋃_{o ∈ E} eff_cls cls o
    eff_cls cls o = eff Q^f ∪ eff Q^b    if cls has a clause (o, D, Q^f, Q^b) (the first)
                  = {o}                  otherwise (the default clause)
>>
    It is a function of the syntax only: the terms of a command play no
    part, so substitution and term steps leave it unchanged.  The
    executable checkers compute the same set ([frontend.v]'s
    [unhandled_ops]; Python's [typecheck.unhandled_operations]). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  cmd_ctx rd rh term_sem cmd_sem interp interp_facts progress machine instance.

Section effects.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (M V : tm) (P Q R : cmd) (K : list cmd) (H : handler) (E : list opsym).

Fixpoint eff (P : cmd) : list opsym :=
  match P with
  | Ret _ => []
  | Op o _ => [o]
  | CLet P Q => eff P ++ eff Q
  | RevHandle _ R H => eff_handler H (eff R)
  end
with eff_handler (H : handler) (E : list opsym) : list opsym :=
  match H with
  | Handler P cls => eff P ++ flat_map (eff_clauses cls) E
  end
with eff_clauses (cls : clauses) (o : opsym) : list opsym :=
  match cls with
  | CNil => [o]
  | CCons o' _ Qf Qb rest =>
      if opsym_eq_dec o o' then eff Qf ++ eff Qb else eff_clauses rest o
  end.

(** The user operations among them: those no heap answers. *)
Definition unhandled (P : cmd) : list op :=
  flat_map (fun o => match o with OpUser u => [u] | _ => [] end) (eff P).

Lemma unhandled_In P u : In u (unhandled P) <-> In (OpUser u) (eff P).
Proof.
  unfold unhandled. rewrite in_flat_map. split.
  - intros [o [Ho Hu]]. destruct o; simpl in Hu; try contradiction.
    destruct Hu as [<-|[]]. exact Ho.
  - intros Ho. exists (OpUser u). split; [exact Ho|left; reflexivity].
Qed.

(** ** Terms play no part *)

Lemma eff_ren ξ P : eff (ren_cmd ξ P) = eff P.
Proof. revert ξ. induction P; intros ξ; cbn; try reflexivity. rewrite IHP1, IHP2. reflexivity. Qed.

Lemma eff_subst σ P : eff (subst_cmd σ P) = eff P.
Proof. revert σ. induction P; intros σ; cbn; try reflexivity. rewrite IHP1, IHP2. reflexivity. Qed.

Definition eff_frames (K : list cmd) : list opsym := flat_map eff K.

Lemma eff_fill_c K P : eff (fill_c K P) = eff P ++ eff_frames K.
Proof.
  revert P. induction K as [|Q K IH]; intros P.
  - cbn. rewrite app_nil_r. reflexivity.
  - rewrite fill_c_cons, IH. cbn. rewrite app_assoc. reflexivity.
Qed.

Lemma eff_frames_shift K : eff_frames (shift_frames K) = eff_frames K.
Proof.
  unfold eff_frames, shift_frames. induction K as [|Q K IH]; [reflexivity|].
  cbn [map flat_map]. rewrite eff_ren, IH. reflexivity.
Qed.

Lemma eff_plug_t F M M' : eff (plug_t F M) = eff (plug_t F M').
Proof. destruct F; reflexivity. Qed.

Lemma eff_fill_t K F M M' : eff (fill_t K F M) = eff (fill_t K F M').
Proof. unfold fill_t. rewrite !eff_fill_c, (eff_plug_t F M M'). reflexivity. Qed.

(** ** The handler's side *)

Lemma eff_handler_mono H E E' : incl E E' -> incl (eff_handler H E) (eff_handler H E').
Proof.
  destruct H as [P cls]. cbn. intros HE o Ho. apply in_app_or in Ho as [Ho|Ho].
  - apply in_or_app. left. exact Ho.
  - apply in_or_app. right. apply in_flat_map in Ho as [o' [Ho' Ho]].
    apply in_flat_map. exists o'. split; [apply HE; exact Ho'|exact Ho].
Qed.

(** The effects of one operation's clause are those [clause_of] gives
    [RH], the default clause included. *)
Lemma eff_clauses_clause_of P cls o D Qf Qb :
  clause_of (Handler P cls) o = (D, Qf, Qb) -> eff_clauses cls o = eff Qf ++ eff Qb.
Proof.
  cbn [clause_of]. induction cls as [|o' D' Qf' Qb' rest IH]; cbn [find_clause eff_clauses].
  - unfold default_clause. intros [= <- <- <-]. reflexivity.
  - destruct (opsym_eq_dec o o'); [intros [= <- <- <-]; reflexivity|exact IH].
Qed.

Lemma eff_ret_clause H E : incl (eff (ret_clause H)) (eff_handler H E).
Proof. destruct H as [P cls]. cbn. intros o Ho. apply in_or_app. left. exact Ho. Qed.

Lemma eff_clause_incl H E o D Qf Qb :
  clause_of H o = (D, Qf, Qb) -> In o E -> incl (eff Qf ++ eff Qb) (eff_handler H E).
Proof.
  destruct H as [P cls]. intros Hc HoE o' Ho'. cbn. apply in_or_app. right.
  apply in_flat_map. exists o. split; [exact HoE|]. erewrite eff_clauses_clause_of; eassumption.
Qed.

(** ** [RH] performs nothing the handled command and its handler do not *)

(** Informal proof: by induction on [rh].  RH-1a's output runs the
    return clause; RH-1b and RH-4 recurse on a command with the same
    effects (terms play no part); RH-2 runs the operation's clause, which
    [eff_handler] counts as the operation is in the body, around the
    rewriting of the rest; RH-3 replaces a nested [rev handle] by the
    output of its own rewriting, whose effects are within the nested
    handler's (induction hypothesis), and [eff_handler] is monotone. *)
Lemma rh_eff H Bs Vs R R' : rh H Bs Vs R R' -> incl (eff R') (eff_handler H (eff R)).
Proof.
  induction 1 as [H Bs Vs k Vk Hk
                 |H Bs Vs K z Q R' Hrec IH
                 |H Bs Vs K o k Vk D Qf Qb Rrec Hk Hc Hrec IH
                 |H Bs Vs K z As1 R1 H1 R1' R' Hz Hin IHin Hout IHout
                 |H Bs Vs K F M B' Rrec Hnv Hinf Hrec IH].
  - (* rh_ret *)
    unfold rh_ret_out. cbn. rewrite eff_subst, app_nil_r. apply eff_ret_clause.
  - (* rh_let_var *)
    rewrite eff_fill_c, eff_subst in IH. rewrite eff_fill_c. cbn. exact IH.
  - (* rh_op *)
    unfold rh_op_out. cbn. rewrite !eff_subst, app_nil_r.
    assert (HoR : In o (eff (fill_c K (Op o (Var k))))).
    { rewrite eff_fill_c. cbn. left. reflexivity. }
    assert (Hmono : incl (eff (fill_c (shift_frames K) (Ret (Var 0))))
                         (eff (fill_c K (Op o (Var k))))).
    { rewrite !eff_fill_c, eff_frames_shift. cbn. intros o' Ho'. right. exact Ho'. }
    pose proof (eff_clause_incl _ _ _ _ _ _ Hc HoR) as HQ.
    intros o' Ho'. apply in_app_or in Ho' as [Ho'|Ho'].
    + apply HQ. apply in_or_app. left. exact Ho'.
    + apply in_app_or in Ho' as [Ho'|Ho'].
      * eapply eff_handler_mono; [exact Hmono|]. apply IH. exact Ho'.
      * apply HQ. apply in_or_app. right. exact Ho'.
  - (* rh_rev *)
    intros o Ho. eapply eff_handler_mono; [|apply IHout; exact Ho].
    rewrite !eff_fill_c. cbn. intros o' Ho'. apply in_app_or in Ho' as [Ho'|Ho'].
    + apply in_or_app. left. apply IHin. exact Ho'.
    + apply in_or_app. right. exact Ho'.
  - (* rh_term *)
    unfold rh_term_out. cbn. rewrite app_nil_r.
    unfold fill_t in IH |- *. rewrite !eff_fill_c, eff_frames_shift in IH.
    rewrite eff_fill_c. rewrite (eff_plug_t F M (Var 0)). exact IH.
Qed.

(** ** Every step performs nothing new *)

Context {Ev : evaluator}.

Lemma step_cmd_eff P P' : step_cmd P P' -> incl (eff P') (eff P).
Proof.
  destruct 1 as [K F M M' P P' _ -> ->|K V Q P P' _ -> ->|K Vs Bs R H R' P P' _ _ Hrh -> ->].
  - (* step_cmd_term *) rewrite (eff_fill_t K F M' M). apply incl_refl.
  - (* step_cmd_let_val *) rewrite !eff_fill_c, eff_subst. cbn. apply incl_refl.
  - (* step_cmd_revhandle *)
    rewrite !eff_fill_c. cbn. intros o Ho. apply in_app_or in Ho as [Ho|Ho].
    + apply in_or_app. left. apply (rh_eff _ _ _ _ _ Hrh). exact Ho.
    + apply in_or_app. right. exact Ho.
Qed.

Lemma step_conf_eff hp P hp' P' : step_conf hp P hp' P' -> incl (eff P') (eff P).
Proof.
  destruct 1 as [hp P P' Hs|hp K l V P P' _ -> ->|hp K l c P P' -> ->].
  - (* step_conf_cmd *) apply step_cmd_eff. exact Hs.
  - (* step_conf_get *) rewrite !eff_fill_c. cbn. intros o Ho. right. exact Ho.
  - (* step_conf_put *) rewrite !eff_fill_c. cbn. intros o Ho. right. exact Ho.
Qed.

Lemma steps_conf_eff hp P hp' P' : steps_conf hp P hp' P' -> incl (eff P') (eff P).
Proof.
  induction 1 as [hp P|hp P hp' P' hp'' P'' Hs _ IH].
  - apply incl_refl.
  - intros o Ho. apply (step_conf_eff _ _ _ _ Hs). apply IH. exact Ho.
Qed.

Lemma stuck_op_eff P o V : stuck_op P o V -> In (OpUser o) (eff P).
Proof. intros [K [-> _]]. rewrite eff_fill_c. cbn. left. reflexivity. Qed.

(** ** Effect safety *)

(** A closed well-typed program with a heap that respects the shapes and
    no unhandled operation only reaches well-typed configurations that are
    a value, step, or are stuck on an undefined [Ev]: never on an
    operation. *)
Theorem effect_safety {Eok : evaluator_ok} hp P A hp' P' :
  heap_ok hp -> typed_cmd [] P A -> unhandled P = [] -> steps_conf hp P hp' P' ->
  heap_ok hp' /\ typed_cmd [] P' A /\ unhandled P' = [] /\
  ((exists V, P' = Ret V /\ value V) \/
   (exists hp'' P'', step_conf hp' P' hp'' P'') \/
   (exists f V, stuck_ev P' f V)).
Proof.
  intros Hhp HP Hno Hsteps.
  destruct (type_safety _ _ _ _ _ Hhp HP Hsteps) as [Hhp' [HP' Hprog]].
  assert (Hno' : unhandled P' = []).
  { destruct (unhandled P') as [|u rest] eqn:Hu; [reflexivity|exfalso].
    assert (Hin : In u (unhandled P')) by (rewrite Hu; left; reflexivity).
    apply unhandled_In, (steps_conf_eff _ _ _ _ Hsteps), unhandled_In in Hin.
    rewrite Hno in Hin. exact Hin. }
  split; [exact Hhp'|]. split; [exact HP'|]. split; [exact Hno'|].
  destruct Hprog as [Hv|[Hs|[He|[o [V Ho]]]]]; [left; exact Hv|right; left; exact Hs|right; right; exact He|].
  exfalso. apply stuck_op_eff, unhandled_In in Ho. rewrite Hno' in Ho. exact Ho.
Qed.

(** [run], at every fuel, never answers "stuck on an operation" for a
    program without unhandled operations (no typing needed). *)
Theorem run_not_stuck_op fuel n hp P :
  unhandled P = [] ->
  match run fuel n hp P with RStuckOp _ _ _ _ _ => False | _ => True end.
Proof.
  intros Hno. pose proof (run_sound fuel n hp P) as Hs.
  destruct (run fuel n hp P) as [| |hp' P' o V n'| |]; try exact I.
  destruct o as [u|l|l]; try contradiction. destruct Hs as [Hsteps Hst].
  apply stuck_op_eff, (steps_conf_eff _ _ _ _ Hsteps), unhandled_In in Hst.
  rewrite Hno in Hst. exact Hst.
Qed.

Theorem run_machine_not_stuck_op fuel n hp P :
  unhandled P = [] ->
  match run_machine fuel n hp P with RStuckOp _ _ _ _ _ => False | _ => True end.
Proof. rewrite run_machine_correct. apply run_not_stuck_op. Qed.

End effects.

(** * A type checker that names the rule that failed

    [check_tm], [check_cmd] and [check_handler] compute the type of a term
    or command (or check a handler) and, on failure, return the name of the
    typing rule whose premise does not hold, the offending subterm and the
    expected and found types.  They are sound and complete with respect to
    [typed_tm], [typed_cmd] and [typed_handler]. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas.

(** The rules that can fail; named after the Coq constructors. *)
Inductive rule_name : Type :=
| Rtyped_tm_var | Rtyped_tm_app | Rtyped_tm_add | Rtyped_tm_proj | Rtyped_tm_rd
| Rtyped_cmd_op | Rtyped_cmd_revhandle | Rtyped_handler_rev | Rtyped_clauses_cons.

Inductive result (A E : Type) : Type :=
| Ok (a : A)
| Err (e : E).
Arguments Ok {A E} a.
Arguments Err {A E} e.

Definition to_option {A E} (r : result A E) : option A :=
  match r with Ok a => Some a | Err _ => None end.

Section typecheck.
Context {Srt : sorts} {Σ : signature}.

Inductive type_error : Type :=
| TmError (r : rule_name) (M : tm) (expected found : option ty)
| CmdError (r : rule_name) (P : cmd) (expected found : option ty)
(** a handler clause: the operation ([None] for the return clause), the
    part ([true] for [Q^f]), the expected and found types *)
| ClauseError (r : rule_name) (o : option opsym) (forward : bool) (expected found : option ty).

Definition bind {A B} (r : result A type_error) (k : A -> result B type_error) : result B type_error :=
  match r with Ok a => k a | Err e => Err e end.

Fixpoint check_tm (Γ : ctx) (M : tm) : result ty type_error :=
  match M with
  | Var x =>
      match nth_error Γ x with
      | Some A => Ok A
      | None => Err (TmError Rtyped_tm_var M None None)
      end
  | Const c => Ok (TBase (const_ty c))
  | App f N =>
      bind (check_tm Γ N) (fun A =>
        if ty_eq_dec A (fsym_dom f) then Ok (fsym_cod f)
        else Err (TmError Rtyped_tm_app M (Some (fsym_dom f)) (Some A)))
  | Add M1 M2 =>
      bind (check_tm Γ M1) (fun A1 =>
      bind (check_tm Γ M2) (fun A2 =>
        match A1, A2 with
        | TBase b1, TBase b2 =>
            if base_eq_dec b1 b2 then Ok (TBase b1)
            else Err (TmError Rtyped_tm_add M (Some A1) (Some A2))
        | TBase _, _ => Err (TmError Rtyped_tm_add M (Some A1) (Some A2))
        | _, _ => Err (TmError Rtyped_tm_add M None (Some A1))
        end))
  | Tuple Ms =>
      let fix go (l : list tm) : result (list ty) type_error :=
        match l with
        | [] => Ok []
        | M' :: l' => bind (check_tm Γ M') (fun A => bind (go l') (fun As => Ok (A :: As)))
        end in
      bind (go Ms) (fun As => Ok (TProd As))
  | Proj i N =>
      bind (check_tm Γ N) (fun A =>
        match A with
        | TProd As =>
            match nth_error As i with
            | Some B => Ok B
            | None => Err (TmError Rtyped_tm_proj M None (Some A))
            end
        | _ => Err (TmError Rtyped_tm_proj M None (Some A))
        end)
  | Let N1 N2 =>
      bind (check_tm Γ N1) (fun A => check_tm (A :: Γ) N2)
  | Rd N1 N2 L =>
      bind (check_tm Γ N1) (fun B =>
      bind (check_tm Γ L) (fun A =>
      bind (check_tm (A :: Γ) N2) (fun B' =>
        if ty_eq_dec B B' then Ok A
        else Err (TmError Rtyped_tm_rd M (Some B') (Some B)))))
  end.

Fixpoint check_cmd (Δ : ctx) (P : cmd) {struct P} : result ty type_error :=
  match P with
  | Ret M => check_tm Δ M
  | Op o M =>
      bind (check_tm Δ M) (fun A =>
        if ty_eq_dec A (coar o) then Ok (ar o)
        else Err (CmdError Rtyped_cmd_op P (Some (coar o)) (Some A)))
  | CLet P1 Q => bind (check_cmd Δ P1) (fun A => check_cmd (A :: Δ) Q)
  | RevHandle M R H =>
      bind (check_tm Δ M) (fun A =>
        match A with
        | TProd As =>
            bind (check_cmd As R) (fun C =>
            bind (check_handler H C) (fun _ => Ok (TProd As)))
        | _ => Err (CmdError Rtyped_cmd_revhandle P None (Some A))
        end)
  end
with check_handler (H : handler) (C : ty) {struct H} : result unit type_error :=
  match H with
  | Handler P cls =>
      bind (check_cmd [C] P) (fun C' =>
        if ty_eq_dec C' C then check_clauses cls
        else Err (ClauseError Rtyped_handler_rev None true (Some C) (Some C')))
  end
with check_clauses (cls : clauses) {struct cls} : result unit type_error :=
  match cls with
  | CNil => Ok tt
  | CCons o D Qf Qb rest =>
      bind (check_cmd [coar o] Qf) (fun Af =>
        if ty_eq_dec Af (TPair (ar o) D) then
          bind (check_cmd [ar o; D] Qb) (fun Ab =>
            if ty_eq_dec Ab (coar o) then check_clauses rest
            else Err (ClauseError Rtyped_clauses_cons (Some o) false (Some (coar o)) (Some Ab)))
        else Err (ClauseError Rtyped_clauses_cons (Some o) true (Some (TPair (ar o) D)) (Some Af)))
  end.

(** ** Soundness and completeness *)

Lemma bind_Ok {A B} (r : result A type_error) (k : A -> result B type_error) b :
  bind r k = Ok b <-> exists a, r = Ok a /\ k a = Ok b.
Proof.
  destruct r as [a|e]; simpl; split.
  - eauto.
  - intros [a' [[= <-] Hk]]. exact Hk.
  - discriminate.
  - intros [a' [Hr _]]. discriminate.
Qed.

Lemma check_tm_infer Γ M : to_option (check_tm Γ M) = infer_tm Γ M.
Proof.
  revert Γ.
  induction M as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ; simpl.
  - destruct (nth_error Γ x); reflexivity.
  - reflexivity.
  - rewrite <- IH. destruct (check_tm Γ M) as [A|e]; simpl; [|reflexivity].
    destruct (ty_eq_dec A (fsym_dom f)); reflexivity.
  - rewrite <- IH1, <- IH2.
    destruct (check_tm Γ M1) as [A1|e]; simpl; [|reflexivity].
    destruct (check_tm Γ M2) as [A2|e]; simpl; [|destruct A1; reflexivity].
    destruct A1, A2; try reflexivity.
    destruct (base_eq_dec b b0); reflexivity.
  - assert (Hgo : to_option ((fix go (l : list tm) : result (list ty) type_error :=
                    match l with
                    | [] => Ok []
                    | M' :: l' => bind (check_tm Γ M') (fun A => bind (go l') (fun As => Ok (A :: As)))
                    end) Ms) = all_some (map (infer_tm Γ) Ms)).
    { induction IH as [|M Ms HM HMs IHl]; simpl; [reflexivity|].
      rewrite <- HM. destruct (check_tm Γ M) as [A|e]; simpl; [|reflexivity].
      destruct ((fix go (l : list tm) : result (list ty) type_error :=
                    match l with
                    | [] => Ok []
                    | M' :: l' => bind (check_tm Γ M') (fun A => bind (go l') (fun As => Ok (A :: As)))
                    end) Ms) as [As|e]; simpl in *; rewrite <- IHl; reflexivity. }
    destruct ((fix go (l : list tm) : result (list ty) type_error :=
                    match l with
                    | [] => Ok []
                    | M' :: l' => bind (check_tm Γ M') (fun A => bind (go l') (fun As => Ok (A :: As)))
                    end) Ms) as [As|e]; simpl in *; rewrite <- Hgo; reflexivity.
  - rewrite <- IH. destruct (check_tm Γ M) as [[b|As]|e]; simpl; try reflexivity.
    destruct (nth_error As i); reflexivity.
  - rewrite <- IHM. destruct (check_tm Γ M) as [A|e]; simpl; [apply IHN|reflexivity].
  - rewrite <- IHM, <- IHL.
    destruct (check_tm Γ M) as [B|e]; simpl; [|reflexivity].
    destruct (check_tm Γ L) as [A|e]; simpl; [|reflexivity].
    rewrite <- IHN. destruct (check_tm (A :: Γ) N) as [B'|e]; simpl; [|reflexivity].
    destruct (ty_eq_dec B B'); reflexivity.
Qed.

Lemma check_tm_sound Γ M A : check_tm Γ M = Ok A -> typed_tm Γ M A.
Proof.
  intros H. apply infer_tm_sound. rewrite <- check_tm_infer, H. reflexivity.
Qed.

Lemma check_tm_complete Γ M A : typed_tm Γ M A -> check_tm Γ M = Ok A.
Proof.
  intros H. apply infer_tm_complete in H. rewrite <- check_tm_infer in H.
  destruct (check_tm Γ M); simpl in H; congruence.
Qed.

Lemma check_sound :
  (forall P Δ A, check_cmd Δ P = Ok A -> typed_cmd Δ P A) /\
  (forall H C u, check_handler H C = Ok u -> typed_handler H C) /\
  (forall cls u, check_clauses cls = Ok u -> typed_clauses cls).
Proof.
  apply cmd_mutind.
  - (* Ret *) intros M Δ A Hc. constructor. apply check_tm_sound. exact Hc.
  - (* Op *) intros o M Δ A Hc. simpl in Hc. apply bind_Ok in Hc as [A' [HM Hc]].
    destruct (ty_eq_dec A' (coar o)) as [->|]; [|discriminate].
    injection Hc as <-. constructor. apply check_tm_sound. exact HM.
  - (* CLet *) intros P1 IH1 Q IH2 Δ A Hc. simpl in Hc. apply bind_Ok in Hc as [A' [HP HQ]].
    econstructor; eauto.
  - (* RevHandle *) intros M R IHR H IHH Δ A Hc. simpl in Hc. apply bind_Ok in Hc as [A' [HM Hc]].
    destruct A' as [b|As]; [discriminate|].
    apply bind_Ok in Hc as [C [HR Hc]]. apply bind_Ok in Hc as [u [HH Hc]].
    injection Hc as <-. econstructor; eauto. apply check_tm_sound. exact HM.
  - (* Handler *) intros P IHP cls IHcls C u Hc. simpl in Hc.
    apply bind_Ok in Hc as [C' [HP Hc]].
    destruct (ty_eq_dec C' C) as [->|]; [|discriminate].
    constructor; eauto.
  - (* CNil *) intros u _. constructor.
  - (* CCons *) intros o D Qf IHf Qb IHb rest IHr u Hc. simpl in Hc.
    apply bind_Ok in Hc as [Af [Hf Hc]].
    destruct (ty_eq_dec Af (TPair (ar o) D)) as [->|]; [|discriminate].
    apply bind_Ok in Hc as [Ab [Hb Hc]].
    destruct (ty_eq_dec Ab (coar o)) as [->|]; [|discriminate].
    constructor; eauto.
Qed.

Lemma check_complete :
  (forall Δ P A, typed_cmd Δ P A -> check_cmd Δ P = Ok A) /\
  (forall H C, typed_handler H C -> check_handler H C = Ok tt) /\
  (forall cls, typed_clauses cls -> check_clauses cls = Ok tt).
Proof.
  apply typed_mutind.
  - (* typed_cmd_ret *) intros Δ M A HM. simpl. apply check_tm_complete. exact HM.
  - (* typed_cmd_op *) intros Δ o M HM. simpl. rewrite (check_tm_complete _ _ _ HM). simpl.
    destruct (ty_eq_dec (coar o) (coar o)); [reflexivity|contradiction].
  - (* typed_cmd_let *) intros Δ P Q A B HP IHP HQ IHQ. simpl. rewrite IHP. exact IHQ.
  - (* typed_cmd_revhandle *) intros Δ M R H As C HM HR IHR HH IHH. simpl.
    rewrite (check_tm_complete _ _ _ HM). simpl. rewrite IHR. simpl. rewrite IHH. reflexivity.
  - (* typed_handler_rev *) intros P cls C HP IHP Hcls IHcls. simpl. rewrite IHP. simpl.
    destruct (ty_eq_dec C C); [exact IHcls|contradiction].
  - (* typed_clauses_nil *) reflexivity.
  - (* typed_clauses_cons *) intros o D Qf Qb rest Hf IHf Hb IHb Hr IHr. simpl.
    rewrite IHf. simpl. destruct (ty_eq_dec _ _); [|contradiction].
    rewrite IHb. simpl. destruct (ty_eq_dec _ _); [exact IHr|contradiction].
Qed.

(** The checker accepts exactly the well-typed commands, with their type. *)
Lemma check_cmd_correct Δ P A : check_cmd Δ P = Ok A <-> typed_cmd Δ P A.
Proof. split; [apply check_sound|apply check_complete]. Qed.

Lemma check_tm_correct Γ M A : check_tm Γ M = Ok A <-> typed_tm Γ M A.
Proof. split; [apply check_tm_sound|apply check_tm_complete]. Qed.

Lemma check_handler_correct H C : check_handler H C = Ok tt <-> typed_handler H C.
Proof.
  split; [apply check_sound|apply check_complete].
Qed.

End typecheck.

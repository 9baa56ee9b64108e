(** * Explicit effects: request trees, deep handlers, a Kripke weakest
    precondition (spec §3 "How to state it in Coq", §7 items 4–6)

    OCaml 4.13 has no effect handlers, so effects are explicit.  A
    computation that may perform requests [q : Q], each answered by a value
    of [A], and that returns an [R], is a finite tree [tree Q A R]: either
    [Ret r], or [Req q k], the request [q] with its continuation [k].  This
    is the free monad of the signature "one operation [Q ~> A]"; the
    single-effect, payload-as-value discipline of the paper's core language
    HH, with types.  Effect polymorphism is polymorphism in [Q] and [A].

    - [handle ret op t]: the deep handler of [t], a fold of the tree; the
      clause [op q k] receives the request and the handled continuation.
    - [handle1 ret before after s t]: the one-shot deep handlers used by the
      AD library: a clause first computes the answer to the request (with
      the outer effects of [before], threading a state [s]), then resumes
      the continuation exactly once, then post-processes the continuation's
      result (with the outer effects of [after]).  The continuation is
      used once by construction; [handle1_handle] shows it is a [handle].
    - [wp Ψ w t Φ]: [t] is safe under the protocol [Ψ] from world [w], and
      its result satisfies [Φ]; it plays the part of Hazel's [EWP].
      [Ψ w q P] reads: "in world [w] the request [q] may be performed, and
      it is answered, in a world [w'], by an [a] with [P w' a]".  Worlds
      are the logical state (Iris's ghost state): a Kripke-style relation
      lets the proof of a handler record the nodes it has created. *)

Inductive tree (Q A R : Type) : Type :=
| Ret (r : R)
| Req (q : Q) (k : A -> tree Q A R).
Arguments Ret {Q A R} r.
Arguments Req {Q A R} q k.

Fixpoint bind {Q A R R'} (t : tree Q A R) (f : R -> tree Q A R') : tree Q A R' :=
  match t with
  | Ret r => f r
  | Req q k => Req q (fun a => bind (k a) f)
  end.

Notation "x <- t ;; u" := (bind t (fun x => u))
  (at level 61, t at next level, right associativity).

(** Performing one request. *)
Definition perform {Q A} (q : Q) : tree Q A A := Req q Ret.

Lemma bind_ret_l {Q A R R'} (r : R) (f : R -> tree Q A R') : bind (Ret r) f = f r.
Proof. reflexivity. Qed.

(** The deep handler, as a fold over the tree. *)
Fixpoint handle {Q A R B} (ret : R -> B) (op : Q -> (A -> B) -> B)
    (t : tree Q A R) : B :=
  match t with
  | Ret r => ret r
  | Req q k => op q (fun a => handle ret op (k a))
  end.

Section handle1.
Context {St Qi Ai R Q A B : Type}.
Context (ret : St -> R -> tree Q A B).
Context (before : St -> Qi -> tree Q A (Ai * St)).
Context (after : Qi -> Ai -> B -> tree Q A B).

(** The one-shot deep handler with a state: the tree [t] has the inner
    requests [Qi ~> Ai]; the handled computation performs only the outer
    requests [Q ~> A] of the clauses.  It is the fold [handle] at the
    answer type [St -> tree Q A B], whose clause resumes [k] exactly once. *)
Definition handle1 (s : St) (t : tree Qi Ai R) : tree Q A B :=
  handle (fun r s => ret s r)
         (fun q k s => p <- before s q ;; b <- k (fst p) (snd p) ;; after q (fst p) b)
         t s.

Lemma handle1_ret s r : handle1 s (Ret r) = ret s r.
Proof. reflexivity. Qed.

Lemma handle1_req s q k :
  handle1 s (Req q k) =
  (p <- before s q ;; b <- handle1 (snd p) (k (fst p)) ;; after q (fst p) b).
Proof. reflexivity. Qed.
End handle1.

Section wp.
Context {W Q A : Type} (Ψ : W -> Q -> (W -> A -> Prop) -> Prop).

(** [wp Ψ w t Φ]: from world [w], every request [t] performs is allowed by
    [Ψ], and, whatever answers [Ψ] promises, [t] terminates with an [r]
    such that [Φ w' r] in its final world [w'].
<<
        Φ w r                        Ψ w q P     ∀ w' a, P w' a → wp w' (k a) Φ
   -------------- (wp_ret)          -------------------------------------------- (wp_req)
   wp w (Ret r) Φ                                 wp w (Req q k) Φ
>> *)
Inductive wp {R : Type} : W -> tree Q A R -> (W -> R -> Prop) -> Prop :=
| wp_ret w r (Φ : W -> R -> Prop) :
    Φ w r -> wp w (Ret r) Φ
| wp_req w q k Φ (P : W -> A -> Prop) :
    Ψ w q P -> (forall w' a, P w' a -> wp w' (k a) Φ) -> wp w (Req q k) Φ.

Lemma wp_mono {R} w (t : tree Q A R) (Φ Φ' : W -> R -> Prop) :
  wp w t Φ -> (forall w' r, Φ w' r -> Φ' w' r) -> wp w t Φ'.
Proof.
  intros H HΦ. induction H as [w r Φ Hr|w q k Φ P HΨ Hk IH].
  - apply wp_ret. auto.
  - apply (wp_req w q k Φ' P HΨ). intros w' a Ha. auto.
Qed.

Lemma wp_bind {R R'} w (t : tree Q A R) (f : R -> tree Q A R') Φ :
  wp w t (fun w' r => wp w' (f r) Φ) -> wp w (bind t f) Φ.
Proof.
  intros H. remember (fun w' r => wp w' (f r) Φ) as Φ0 eqn:EΦ.
  induction H as [w r Φ0 Hr|w q k Φ0 P HΨ Hk IH]; subst Φ0; simpl.
  - exact Hr.
  - apply (wp_req w q _ Φ P HΨ). intros w' a Ha. apply IH; auto.
Qed.

Lemma wp_perform w q (P Φ : W -> A -> Prop) :
  Ψ w q P -> (forall w' a, P w' a -> Φ w' a) -> wp w (perform q) Φ.
Proof. intros HΨ HP. apply (wp_req w q Ret Φ P HΨ). intros w' a Ha. apply wp_ret. auto. Qed.
End wp.

(** The empty protocol: no request is allowed.  A computation safe under
    it performs no effect: it is a [Ret]. *)
Definition no_effect {W Q A : Type} : W -> Q -> (W -> A -> Prop) -> Prop :=
  fun _ _ _ => False.

Lemma wp_no_effect {W Q A R} w (t : tree Q A R) Φ :
  wp (@no_effect W Q A) w t Φ -> exists r, t = Ret r /\ Φ w r.
Proof. intros [w' r Φ' Hr|w' q k Φ' P []]. eauto. Qed.

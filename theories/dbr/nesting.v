(** * Nested differentiation: the inner handler forwards the outer requests

    [diff_n_correct] ([reverse.v]) gives that [diff (diff e)] denotes [E'']
    from the specification alone.  This file states the operational fact
    behind it: the handler of [diff] never intercepts, answers or inspects
    a request of the dictionary it is given — it forwards them.  Renaming
    the dictionary's requests (by any [f : Q -> Q'], with answers translated
    back by [g : A' -> A]) renames the requests of the run of [diff e] and
    changes nothing else ([diff_forwards]).  As the renaming is arbitrary,
    the handler cannot tell the outer requests apart, so in
    [diff (diff e)] the requests that the outer [diff]'s dictionary sends
    through the inner [diff] reach the outer handler unchanged, in the
    order the inner run sends them (generative effects, spec §7 item 4).

    Trees are compared by [teq], equality up to pointwise equality of the
    continuations (the continuations are functions, and no extensionality
    is assumed). *)
From DefineByRun Require Import api reverse.

Inductive teq {Q A R} : tree Q A R -> tree Q A R -> Prop :=
| teq_ret r : teq (Ret r) (Ret r)
| teq_req q k k' : (forall a, teq (k a) (k' a)) -> teq (Req q k) (Req q k').

Lemma teq_refl {Q A R} (t : tree Q A R) : teq t t.
Proof. induction t; constructor; auto. Qed.

Lemma teq_sym {Q A R} (t t' : tree Q A R) : teq t t' -> teq t' t.
Proof. induction 1; constructor; auto. Qed.

Lemma teq_trans {Q A R} (t1 t2 t3 : tree Q A R) : teq t1 t2 -> teq t2 t3 -> teq t1 t3.
Proof.
  intros H. revert t3. induction H as [r|q k k' H IH]; intros t3 H3; inversion H3; subst.
  - constructor.
  - constructor. intros a. apply IH. match goal with H : forall a, teq (k' a) _ |- _ => apply H end.
Qed.

Lemma teq_bind {Q A R R'} (t t' : tree Q A R) (h h' : R -> tree Q A R') :
  teq t t' -> (forall r, teq (h r) (h' r)) -> teq (bind t h) (bind t' h').
Proof. intros H Hh. induction H; simpl; [auto|]. constructor. auto. Qed.

Section rename.
Context {Q A Q' A' : Type} (f : Q -> Q') (g : A' -> A).

(** Renaming the requests of a tree. *)
Fixpoint map_tree {R} (t : tree Q A R) : tree Q' A' R :=
  match t with
  | Ret r => Ret r
  | Req q k => Req (f q) (fun a' => map_tree (k (g a')))
  end.

(** A dictionary whose requests are renamed. *)
Definition map_dict {V} (d : dict Q A V) : dict Q' A' V := {|
  zero := zero d;
  one := one d;
  add := fun a b => map_tree (add d a b);
  mul := fun a b => map_tree (mul d a b);
|}.

Lemma map_bind {R R'} (t : tree Q A R) (h : R -> tree Q A R') :
  teq (map_tree (bind t h)) (bind (map_tree t) (fun r => map_tree (h r))).
Proof.
  induction t as [r|q k IH]; simpl; [apply teq_refl|]. constructor. intros a. apply IH.
Qed.

Section clauses.
Context {V : Type} (d : dict Q A V).

Lemma dict_op_map op a b : dict_op (map_dict d) op a b = map_tree (dict_op d op a b).
Proof. destruct op; reflexivity. Qed.

Lemma update_map tb u c :
  teq (update (map_dict d) tb u c) (map_tree (update d tb u c)).
Proof.
  destruct u as [| |i v]; simpl; try apply teq_refl.
  apply teq_sym. eapply teq_trans; [apply map_bind|]. apply teq_refl.
Qed.

Lemma ad_ret_map n y : teq (ad_ret (map_dict d) n y) (map_tree (ad_ret d n y)).
Proof. apply update_map. Qed.

Lemma ad_before_map n q : teq (ad_before (map_dict d) n q) (map_tree (ad_before d n q)).
Proof.
  destruct q as [[op a] b]. rewrite !ad_before_req, dict_op_map.
  apply teq_sym. eapply teq_trans; [apply map_bind|]. apply teq_refl.
Qed.

Lemma ad_after_map q u tb : teq (ad_after (map_dict d) q u tb) (map_tree (ad_after d q u tb)).
Proof.
  destruct q as [[op a] b]. destruct op; simpl.
  - apply teq_sym. eapply teq_trans; [apply map_bind|].
    apply teq_bind; [apply teq_sym, update_map|]. intros tb1. apply teq_sym, update_map.
  - apply teq_sym. eapply teq_trans; [apply map_bind|]. apply teq_bind; [apply teq_refl|].
    intros ca. eapply teq_trans; [apply map_bind|].
    apply teq_bind; [apply teq_sym, update_map|]. intros tb1.
    eapply teq_trans; [apply map_bind|]. apply teq_bind; [apply teq_refl|].
    intros cb. apply teq_sym, update_map.
Qed.

(** The handler, run with the renamed dictionary, is the renamed run. *)
Lemma handle1_map s (t : tree (ad_req V) (node V) (node V)) :
  teq (handle1 (ad_ret (map_dict d)) (ad_before (map_dict d)) (ad_after (map_dict d)) s t)
      (map_tree (handle1 (ad_ret d) (ad_before d) (ad_after d) s t)).
Proof.
  revert s. induction t as [y|q k IH]; intros s.
  - rewrite !handle1_ret. apply ad_ret_map.
  - rewrite !handle1_req. apply teq_sym. eapply teq_trans; [apply map_bind|].
    apply teq_sym. apply teq_bind; [apply ad_before_map|]. intros p.
    apply teq_sym. eapply teq_trans; [apply map_bind|]. apply teq_sym.
    apply teq_bind; [apply IH|]. intros tb. apply ad_after_map.
Qed.
End clauses.
End rename.

(** The handler of [diff] forwards the dictionary's requests.

    Informal proof: the tree the handler interprets,
    [eval_exp e (ad_req V) (node V) (node V) (ad_dict V) (NVar 0 x)], does not
    depend on the dictionary; by induction on it ([handle1_map]), each
    clause run with the renamed dictionary is the renamed clause, since
    renaming commutes with [bind] ([map_bind]). *)
Lemma diff_forwards e {Q A Q' A' V} (f : Q -> Q') (g : A' -> A) (d : dict Q A V) x :
  teq (eval_exp (diff e) Q' A' V (map_dict f g d) x) (map_tree f g (eval_exp (diff e) Q A V d x)).
Proof.
  unfold diff. cbn [eval_exp]. apply teq_sym. eapply teq_trans; [apply map_bind|]. apply teq_sym.
  apply teq_bind; [apply handle1_map|]. intros tb. apply teq_refl.
Qed.

(** * Reverse mode with effect handlers (paper §3 and §5, spec §4.3)

    The verified implementation of the paper.  Numbers of the inner run are
    the nodes [node V]: the constants [NZero], [NOne], or [NVar i v], the
    [i]-th node created, whose value is [v].  The dictionary [ad_dict]
    answers [zero]/[one] with the constants and turns each [add]/[mul] into
    a request [(op, a, b)].  [diff e] runs [e] at these nodes under a deep
    one-shot handler ([handle1], with the node counter as its state):

    - on a request [(op, a, b)], the handler computes the value of the new
      node with the outer dictionary ([ad_before]), resumes the
      continuation with the node (the rest of the forward phase and the
      backward phase of every later operation), and then propagates the new
      node's adjoint to [a] and [b] ([ad_after]);
    - when [e] returns [y], the adjoint of [y] is seeded with [one]
      ([ad_ret]).

    The tape is the stack of suspended handler frames.  OCaml's mutable
    adjoint fields are an adjoint table ([table V], a binary trie indexed by
    the nodes' creation indices, [table.v]) returned by the handled
    computation: the continuation returns the table with the contributions
    of every later operation, and the clause adds its own.  The handled tree has the inner
    requests [ad_req V] only, and the clauses perform the outer dictionary's
    requests, so an inner handler never sees an outer one's requests (in
    [diff (diff e)], the outer [diff]'s requests travel through the inner
    [diff]'s clauses, never into its handler).

    The proof ([diff_correct]) instantiates [denotes e E] at the nodes, with
    the dual numbers over the outer semiring as the semiring: a node
    implements the dual number [(value, derivative with respect to x)] of
    the sub-expression it stands for.  The proof is written once for dual
    numbers with a vector of tangents indexed by any [J] ([vdual]); [diff]
    uses [J = unit], the gradient ([grad.v]) [J = nat].  The worlds record
    the outer world and the list of the dual numbers of the nodes made so
    far (the paper's ghost Wengert list).  The backward invariant ([handle_spec]) is the sum
    [Σ_i adjoint(i) · derivative(i) = E'(r)] over the nodes [i] made before
    the handled subcomputation; it needs no filling of contexts. *)
From Coq Require Import List PeanoNat Lia.
From DefineByRun Require Import api table tactics.
Import ListNotations.

Inductive node (V : Type) : Type :=
| NZero
| NOne
| NVar (i : nat) (v : V).
Arguments NZero {V}.
Arguments NOne {V}.
Arguments NVar {V} i v.

(** The requests [Add (a, b)] and [Mul (a, b)]. *)
Definition ad_req (V : Type) : Type := (binop * node V * node V)%type.

(** The dictionary handed to the expression being differentiated. *)
Definition ad_dict (V : Type) : dict (ad_req V) (node V) (node V) := {|
  zero := NZero;
  one := NOne;
  add := fun a b => perform (Add, a, b);
  mul := fun a b => perform (Mul, a, b);
|}.

Section diff.
Context {Q A V : Type} (d : dict Q A V).

Definition get_v (u : node V) : V :=
  match u with NZero => zero d | NOne => one d | NVar _ v => v end.

(** The adjoint of a node.  On constants, OCaml's [get_d] fails; it is never
    asked here (the handler reads only the nodes it made), and answers
    [zero]. *)
Definition get_d (tb : table V) (u : node V) : V :=
  match u with NVar i _ => tlook (zero d) tb i | _ => zero d end.

(** [u.d <- u.d + c]; nothing on constants. *)
Definition update (tb : table V) (u : node V) (c : V) : tree Q A (table V) :=
  match u with
  | NVar i _ => s <- add d (tlook (zero d) tb i) c ;; Ret (tset tb i s)
  | _ => Ret tb
  end.

(** Return clause: every adjoint is [zero], then [update y one]. *)
Definition ad_ret (n : nat) (y : node V) : tree Q A (table V) :=
  update TEmpty y (one d).

(** Forward part of the clause: the new node [n], valued [a op b]. *)
Definition ad_before (n : nat) (q : ad_req V) : tree Q A (node V * nat) :=
  let '(op, a, b) := q in
  v <- dict_op d op (get_v a) (get_v b) ;;
  Ret (NVar n v, S n).

(** Backward part of the clause, once the continuation has returned. *)
Definition ad_after (q : ad_req V) (u : node V) (tb : table V) : tree Q A (table V) :=
  let '(op, a, b) := q in
  let ud := get_d tb u in
  match op with
  | Add =>
      tb1 <- update tb a ud ;;
      update tb1 b ud
  | Mul =>
      ca <- mul d ud (get_v b) ;;
      tb1 <- update tb a ca ;;
      cb <- mul d ud (get_v a) ;;
      update tb1 b cb
  end.
End diff.

Lemma ad_before_req {Q A V} (d : dict Q A V) n op a b :
  ad_before d n (op, a, b) = (v <- dict_op d op (get_v d a) (get_v d b) ;; Ret (NVar n v, S n)).
Proof. reflexivity. Qed.

(** The handler-based [diff : exp -> exp].  The variable is node 0. *)
Definition diff (e : exp) : exp :=
  MkExp (fun Q A V d x =>
    tb <- handle1 (ad_ret d) (ad_before d) (ad_after d) 1
            (eval_exp e (ad_req V) (node V) (node V) (ad_dict V) (NVar 0 x)) ;;
    Ret (tlook (zero d) tb 0)).

Local Open Scope sr_scope.

Lemma nth_error_app_Some {T} (l L : list T) i x :
  nth_error l i = Some x -> nth_error (l ++ L) i = Some x.
Proof. revert i. induction l as [|y l IH]; intros [|i] H; simpl in *; try discriminate; auto. Qed.

Lemma nth_error_snoc {T} (l : list T) x : nth_error (l ++ [x]) (length l) = Some x.
Proof. induction l as [|y l IH]; simpl; auto. Qed.

Section proof.
Context {W Q A V : Type} {le : W -> W -> Prop} {Ψ : W -> Q -> (W -> A -> Prop) -> Prop}
  {S : semiring} {impl : W -> V -> S -> Prop} {d : dict Q A V}.
Context (Hd : num_spec le Ψ S impl d).
(** Tangents are indexed by [J] ([unit] for [diff], [nat] for [grad]). *)
Context {J : Type}.
Add Ring S_ring : (sr_theory S) (setoid (sr_eq_equiv S) (sr_ext S)).

Let Hm := ns_impl_mono _ _ _ _ _ Hd.
Let Ht := ns_le_trans Hd.

(** ** The inner instance: worlds, representation, protocol *)

(** An inner world: the outer world and the dual numbers of the nodes made
    so far (node [i] at position [i]), each a value with its tangents. *)
Definition iworld : Type := (W * list (S * (J -> S)))%type.

Definition ile (u1 u2 : iworld) : Prop :=
  le (fst u1) (fst u2) /\ exists L, snd u2 = snd u1 ++ L.

(** Which dual number a node stands for, independent of the outer world. *)
Definition node_dual (Kd : list (S * (J -> S))) (n : node V) (p : vdual S J) : Prop :=
  match n with
  | NZero => p ≡ 0
  | NOne => p ≡ 1
  | NVar i _ => exists p0 : vdual S J, nth_error Kd i = Some p0 /\ p0 ≡ p
  end.

(** [n] implements [p]: it stands for [p] and its value implements the
    value component of [p]. *)
Definition impl_node (u : iworld) (n : node V) (p : vdual S J) : Prop :=
  node_dual (snd u) n p /\ impl (fst u) (get_v d n) (fst p).

(** The protocol of the requests (the paper's [AD]): a request [(op, a, b)]
    on nodes standing for [pa], [pb] is answered by the next node, which
    stands for [pa op pb]; its value implements the value component. *)
Definition ad_protocol (u : iworld) (q : ad_req V) (P : iworld -> node V -> Prop) : Prop :=
  let '(op, a, b) := q in
  exists pa pb : vdual S J, impl_node u a pa /\ impl_node u b pb /\
  forall w' v, le (fst u) w' ->
    impl w' v (fst (binop_den (S := vdual S J) op pa pb)) ->
    P (w', snd u ++ [binop_den (S := vdual S J) op pa pb]) (NVar (length (snd u)) v).

Lemma node_dual_mono Kd L n p : node_dual Kd n p -> node_dual (Kd ++ L) n p.
Proof.
  destruct n as [| |i v]; simpl; auto.
  intros (p0 & H0 & Hp). exists p0. split; [apply nth_error_app_Some|]; auto.
Qed.

Lemma node_dual_eq Kd n p p' : (p : vdual S J) ≡ p' -> node_dual Kd n p -> node_dual Kd n p'.
Proof.
  intros Hp. destruct n as [| |i v]; simpl.
  - intros H. rewrite <- Hp. exact H.
  - intros H. rewrite <- Hp. exact H.
  - intros (p0 & H0 & H1). exists p0. split; [exact H0|]. rewrite H1. exact Hp.
Qed.

Lemma node_dual_lt Kd i v p : node_dual Kd (NVar i v) p -> i < length Kd.
Proof. intros (p0 & H0 & _). apply nth_error_Some. congruence. Qed.

(** The nodes implement the dual numbers under [ad_protocol].

    Informal proof: worlds grow by extending the outer world and the list
    of nodes, and a node keeps its meaning in a larger world; the constants
    stand for [0] and [1]; [add a b] performs the request [(Add, a, b)], and
    the protocol promises that the answer, the next node, stands for the
    dual sum and that its value implements the value component. *)
Lemma ad_dict_spec : num_spec ile ad_protocol (vdual S J) impl_node (ad_dict V).
Proof.
  split.
  - split.
    + intros u. split; [apply (ns_le_refl Hd)|]. exists []. rewrite app_nil_r. reflexivity.
    + intros u1 u2 u3 [H12 [L1 E1]] [H23 [L2 E2]]. split; [eauto|].
      exists (L1 ++ L2). rewrite E2, E1, app_assoc. reflexivity.
  - intros u u' n p [Hle [L E]] [Hn Hv]. split.
    + rewrite E. apply node_dual_mono. exact Hn.
    + eapply Hm; eauto.
  - intros u n p p' Hp [Hn Hv]. split.
    + eapply node_dual_eq; eauto.
    + eapply (ns_impl_eq _ _ _ _ _ Hd); [|exact Hv]. apply Hp.
  - intros u. split; [simpl; reflexivity|apply (ns_zero _ _ _ _ _ Hd)].
  - intros u. split; [simpl; reflexivity|apply (ns_one _ _ _ _ _ Hd)].
  - intros [w Kd] a b pa pb Ha Hb.
    apply (wp_perform _ _ _ (fun u' c => ile (w, Kd) u' /\ impl_node u' c (pa ⊕ pb))).
    + exists pa, pb. split; [exact Ha|]. split; [exact Hb|].
      intros w' v Hle Hv. split.
      * split; [exact Hle|]. exists [pa ⊕ pb]. reflexivity.
      * split; [|exact Hv]. exists (pa ⊕ pb). split; [apply nth_error_snoc|reflexivity].
    + auto.
  - intros [w Kd] a b pa pb Ha Hb.
    apply (wp_perform _ _ _ (fun u' c => ile (w, Kd) u' /\ impl_node u' c (pa ⊗ pb))).
    + exists pa, pb. split; [exact Ha|]. split; [exact Hb|].
      intros w' v Hle Hv. split.
      * split; [exact Hle|]. exists [pa ⊗ pb]. reflexivity.
      * split; [|exact Hv]. exists (pa ⊗ pb). split; [apply nth_error_snoc|reflexivity].
    + auto.
Qed.

(** ** The backward invariant *)

(** The tangents of node [i]. *)
Definition dnode (Kd : list (S * (J -> S))) (i : nat) : J -> S := snd (nth i Kd (0, fun _ => 0)).

(** [T] is the tangent the run must compute: [E'(r)] for [diff], the
    gradient for [grad]. *)
Context (T : J -> S).

(** The adjoint table [tb], in the outer world [w'], holds adjoints [α i]
    of the [n] nodes made before, with [Σ_{i<n} α i · dnode i j = T j] for
    every [j]. *)
Definition adjoints (n : nat) (Kd : list (S * (J -> S))) (w w' : W) (tb : table V) : Prop :=
  le w w' /\ exists α : nat -> S,
    (forall i, i < n -> impl w' (tlook (zero d) tb i) (α i)) /\
    forall j, sum_to n (fun i => α i ⊗ dnode Kd i j) ≡ T j.

(** Adjoints survive outer effects. *)
Lemma table_mono n w w' (tb : table V) α :
  le w w' -> (forall i, i < n -> impl w (tlook (zero d) tb i) (α i)) ->
  (forall i, i < n -> impl w' (tlook (zero d) tb i) (α i)).
Proof. intros Hle H i Hi. eapply Hm; eauto. Qed.

(** [update tb a c] adds [γ · dnode a] to the sum, when [c] implements [γ]
    and [a] stands for a dual number of the first [n] nodes. *)
Lemma update_spec n Kd w tb α a pa c γ :
  n = length Kd -> node_dual Kd a pa ->
  (forall i, i < n -> impl w (tlook (zero d) tb i) (α i)) -> impl w c γ ->
  wp Ψ w (update d tb a c) (fun w' tb' => le w w' /\ exists α',
    (forall i, i < n -> impl w' (tlook (zero d) tb' i) (α' i)) /\
    forall j, sum_to n (fun i => α' i ⊗ dnode Kd i j)
    ≡ sum_to n (fun i => α i ⊗ dnode Kd i j) ⊕ γ ⊗ snd pa j).
Proof.
  intros En Ha Htb Hc. destruct a as [| |i v]; simpl.
  - apply wp_ret. split; [apply (ns_le_refl Hd)|]. exists α. split; [exact Htb|].
    intros j. destruct Ha as [_ Ha]. simpl in Ha. rewrite (Ha j). ring.
  - apply wp_ret. split; [apply (ns_le_refl Hd)|]. exists α. split; [exact Htb|].
    intros j. destruct Ha as [_ Ha]. simpl in Ha. rewrite (Ha j). ring.
  - pose proof (node_dual_lt _ _ _ _ Ha) as Hi. rewrite <- En in Hi.
    destruct Ha as (p0 & H0 & [_ Hp0]).
    apply wp_bind. eapply wp_mono; [apply (ns_add _ _ _ _ _ Hd); [apply Htb|]; eauto|].
    intros w' s [Hle Hs]. apply wp_ret. split; [exact Hle|].
    exists (bump α i γ). split.
    + intros j Hj. rewrite tlook_tset. unfold bump. destruct (Nat.eqb j i) eqn:Eji.
      * apply Nat.eqb_eq in Eji. subst j. exact Hs.
      * eapply Hm; eauto.
    + intros j. rewrite sum_to_bump by exact Hi. unfold dnode.
      rewrite (nth_error_nth _ _ _ H0). rewrite (Hp0 j). reflexivity.
Qed.

(** The postcondition the handler expects of the expression's result. *)
Definition final (u : iworld) (y : node V) : Prop :=
  exists p : vdual S J, impl_node u y p /\ forall j, snd p j ≡ T j.

Lemma get_v_spec u n p : impl_node u n p -> impl (fst u) (get_v d n) (fst p).
Proof. intros [_ H]. exact H. Qed.

Lemma dnode_snoc Kd p i : i < length Kd -> dnode (Kd ++ [p]) i = dnode Kd i.
Proof. intros Hi. unfold dnode. rewrite app_nth1 by exact Hi. reflexivity. Qed.

Lemma dnode_last Kd (p : S * (J -> S)) : dnode (Kd ++ [p]) (length Kd) = snd p.
Proof. unfold dnode. rewrite app_nth2, Nat.sub_diag by lia. reflexivity. Qed.

(** The return clause seeds the adjoint of the result: if [y] stands for
    [p] with [snd p = T], the table it returns satisfies the invariant.
    If [y] is node [i], its adjoint is [0 + 1] and the others are [0], so
    the sum is [dnode i = snd p = T]; if [y] is a constant, [snd p = 0 = T]
    and every adjoint is [0] (at every tangent index). *)
Lemma ret_spec w Kd n y p :
  node_dual Kd y p -> (forall j, snd p j ≡ T j) ->
  wp Ψ w (ad_ret d n y) (adjoints (length Kd) Kd w).
Proof.
  intros Hn Hp. unfold ad_ret. destruct y as [| |i v].
  - apply wp_ret. split; [apply (ns_le_refl Hd)|]. exists (fun _ => 0). split.
    + intros i _. apply (ns_zero _ _ _ _ _ Hd).
    + intros j. rewrite <- (Hp j). destruct Hn as [_ Hn]. simpl in Hn. rewrite (Hn j).
      rewrite (sum_to_ext _ _ _ (fun _ => 0)) by (intros; ring). apply sum_to_zero.
  - apply wp_ret. split; [apply (ns_le_refl Hd)|]. exists (fun _ => 0). split.
    + intros i _. apply (ns_zero _ _ _ _ _ Hd).
    + intros j. rewrite <- (Hp j). destruct Hn as [_ Hn]. simpl in Hn. rewrite (Hn j).
      rewrite (sum_to_ext _ _ _ (fun _ => 0)) by (intros; ring). apply sum_to_zero.
  - eapply wp_mono.
    + apply (update_spec (length Kd) Kd w TEmpty (fun _ => 0)
               (NVar i v) p (one d) 1); [reflexivity|exact Hn| |apply (ns_one _ _ _ _ _ Hd)].
      intros j _. apply (ns_zero _ _ _ _ _ Hd).
    + intros w' tb [Hle (α & Hα & Hsum)]. split; [exact Hle|]. exists α. split; [exact Hα|].
      intros j. rewrite (Hsum j), (sum_to_ext _ _ _ (fun _ => 0)) by (intros; ring).
      rewrite sum_to_zero, <- (Hp j). ring.
Qed.

(** The backward part of a clause moves the invariant from the [n + 1]
    nodes ending with [n = a op b] to the first [n].  It adds
    [α n · ∂(a op b)/∂a] to [a]'s adjoint and [α n · ∂(a op b)/∂b] to [b]'s
    ([update_spec]): at every tangent index [j], [α n · (snd pa j + snd pb j)]
    for [Add], [α n · (fst pb · snd pa j + fst pa · snd pb j)] for [Mul], in
    both cases [α n · snd (pa op pb) j], the term of node [n] in the sum
    (the forward rule of dual numbers). *)
Lemma after_spec w Kd op a b pa pb v tb α :
  node_dual Kd a pa -> node_dual Kd b pb ->
  impl w (get_v d a) (fst pa) -> impl w (get_v d b) (fst pb) ->
  (forall i, i < Datatypes.S (length Kd) -> impl w (tlook (zero d) tb i) (α i)) ->
  (forall j, sum_to (Datatypes.S (length Kd))
     (fun i => α i ⊗ dnode (Kd ++ [binop_den (S := vdual S J) op pa pb]) i j) ≡ T j) ->
  wp Ψ w (ad_after d (op, a, b) (NVar (length Kd) v) tb) (adjoints (length Kd) Kd w).
Proof.
  intros Ha Hb Hav Hbv Hα Hsum0.
  assert (Hsum : forall j, sum_to (length Kd) (fun i => α i ⊗ dnode Kd i j)
                 ⊕ α (length Kd) ⊗ snd (binop_den (S := vdual S J) op pa pb) j ≡ T j).
  { intros j. specialize (Hsum0 j). simpl in Hsum0. rewrite dnode_last in Hsum0.
    rewrite (sum_to_ext _ _ _ (fun i => α i ⊗ dnode Kd i j)) in Hsum0
      by (intros i Hi; rewrite dnode_snoc by exact Hi; reflexivity).
    exact Hsum0. }
  clear Hsum0.
  assert (Htb : forall i, i < length Kd -> impl w (tlook (zero d) tb i) (α i)) by auto.
  assert (Hn : impl w (tlook (zero d) tb (length Kd)) (α (length Kd))) by auto.
  unfold ad_after. simpl get_d. destruct op; simpl in Hsum.
  - (* Add: both operands receive the adjoint of the new node *)
    apply wp_bind. eapply wp_mono; [apply (update_spec (length Kd) Kd w tb α a pa); eauto|].
    intros w3 tb1 [Hle3 (α1 & Hα1 & Hs1)].
    eapply wp_mono; [apply (update_spec (length Kd) Kd w3 tb1 α1 b pb); eauto|].
    intros w4 tb2 [Hle4 (α2 & Hα2 & Hs2)].
    split; [le_chain Hd|]. exists α2. split; [exact Hα2|].
    intros j. rewrite (Hs2 j), (Hs1 j), <- (Hsum j). ring.
  - (* Mul: [a] receives [ud·b], [b] receives [ud·a] *)
    apply wp_bind.
    eapply wp_mono; [exact (ns_mul _ _ _ _ _ Hd _ _ _ _ _ Hn Hbv)|].
    intros w3 ca [Hle3 Hca]. apply wp_bind.
    eapply wp_mono.
    { apply (update_spec (length Kd) Kd w3 tb α a pa ca); [reflexivity|exact Ha| |exact Hca].
      intros j Hj. eapply Hm; [exact Hle3|apply Htb; exact Hj]. }
    intros w4 tb1 [Hle4 (α1 & Hα1 & Hs1)]. apply wp_bind.
    assert (Hn4 : impl w4 (tlook (zero d) tb (length Kd)) (α (length Kd))) by (eapply Hm; [|exact Hn]; le_chain Hd).
    assert (Hav4 : impl w4 (get_v d a) (fst pa)) by (eapply Hm; [|exact Hav]; le_chain Hd).
    eapply wp_mono; [exact (ns_mul _ _ _ _ _ Hd _ _ _ _ _ Hn4 Hav4)|].
    intros w5 cb [Hle5 Hcb].
    eapply wp_mono.
    { apply (update_spec (length Kd) Kd w5 tb1 α1 b pb cb); [reflexivity|exact Hb| |exact Hcb].
      intros j Hj. eapply Hm; [exact Hle5|apply Hα1; exact Hj]. }
    intros w6 tb2 [Hle6 (α2 & Hα2 & Hs2)].
    split; [le_chain Hd|]. exists α2. split; [exact Hα2|].
    intros j. rewrite (Hs2 j), (Hs1 j), <- (Hsum j). ring.
Qed.

(** The run of the handler.

    Informal proof, by induction on the derivation of [wp] for the
    expression's run ([t]), in the inner world [(w, Kd)] with [n = |Kd|]
    nodes made:
    - [t = Ret y]: [y] stands for [p] with [snd p = T]; [ret_spec].
    - [t = Req (op, a, b) k]: the protocol says [a], [b] stand for [pa], [pb].
      The forward part computes [v] implementing [fst pa op fst pb], the
      value component of [pa op pb]; the new node [n] in the world
      [(w', Kd ++ [pa op pb])] satisfies the protocol's promise, so the
      induction hypothesis applies to the continuation: it returns adjoints
      of the [n + 1] nodes whose sum is [T].  The backward part brings the
      sum back to the first [n] nodes ([after_spec]). *)
Lemma handle_spec u t :
  wp ad_protocol u t final ->
  wp Ψ (fst u) (handle1 (ad_ret d) (ad_before d) (ad_after d) (length (snd u)) t)
    (adjoints (length (snd u)) (snd u) (fst u)).
Proof.
  intros H. remember final as Φf eqn:EΦ.
  induction H as [[w Kd] y Φ Hy|[w Kd] [[op a] b] k Φ P HΨ Hk IH]; subst Φ; simpl.
  - (* the return clause *)
    destruct Hy as (p & [Hn _] & Hp). rewrite handle1_ret. exact (ret_spec w Kd _ y p Hn Hp).
  - (* a request: the clause *)
    destruct HΨ as (pa & pb & [Ha Hav] & [Hb Hbv] & HP). simpl in HP, Ha, Hb, Hav, Hbv.
    rewrite handle1_req. apply wp_bind. rewrite ad_before_req. apply wp_bind.
    eapply wp_mono; [apply (ns_op Hd w op _ _ (fst pa) (fst pb)); [exact Hav|exact Hbv]|].
    intros w1 v [Hle1 Hv]. apply wp_ret. simpl.
    (* the continuation, in the world where node [length Kd] stands for [pa op pb] *)
    assert (Hv' : impl w1 v (fst (binop_den (S := vdual S J) op pa pb))) by (destruct op; exact Hv).
    specialize (IH _ _ (HP w1 v Hle1 Hv') eq_refl). simpl in IH.
    rewrite app_length, Nat.add_1_r in IH.
    apply wp_bind. eapply wp_mono; [exact IH|].
    intros w2 tb [Hle2 (α & Hα & Hsum)].
    (* the backward part *)
    eapply wp_mono.
    + apply (after_spec w2 Kd op a b pa pb v tb α Ha Hb); [| |exact Hα|exact Hsum];
        (eapply Hm; [|eassumption]; le_chain Hd).
    + intros w3 tb' [Hle3 Hrest]. split; [le_chain Hd|exact Hrest].
Qed.
End proof.

(** The two halves shared by the proofs of Statement 5.1 ([diff_correct]
    here, [diff_tape_correct] in [tape.v]).  [diff_run Hrun He Hd w x r Hx
    E S V impl d]: the run of [e] (denoting [E], [He]) at the nodes over
    the dual numbers, from the node standing for [(r, 1)], ends ([Hrun])
    in a node standing for [(⟦E⟧(r), ⟦E'⟧(r))] ([eval1_vdual]).
    [diff_read Hrun Hd S]: with [Hrun] turned by the handler's
    specification into a table whose entry 0 implements [α 0] with
    [α 0 · 1 = ⟦E'⟧(r)], the handled run returns [⟦E'⟧(r)]. *)
Ltac diff_run Hrun He Hd w x r Hx E S V impl d :=
  assert (Hrun := He _ _ _ _ _ _ (vdual S unit) _ (ad_dict V) (ad_dict_spec Hd)
    (w, [(r, fun _ => 1)]) (NVar 0 x) (r, fun _ => 1));
  let Hx' := fresh "Hx'" in
  assert (Hx' : impl_node (impl := impl) (d := d) (w, [(r, fun _ : unit => 1)]) (NVar 0 x)
                  (r, fun _ => 1))
    by (split; [|exact Hx]; exists (r, fun _ => 1); split; reflexivity);
  specialize (Hrun Hx');
  apply (wp_mono _ _ _ _ (final (impl := impl) (d := d) (fun _ => eval1 r (deriv E)))) in Hrun;
  [| intros ? ? [_ Hy]; exists (eval1 (S := vdual S unit) (r, fun _ => 1) E);
     split; [exact Hy|]; intros []; apply (eval1_vdual S r E) ].

Ltac diff_read Hrun Hd S :=
  simpl in Hrun; eapply wp_mono; [exact Hrun|];
  intros ? ? [Hle (α & Hα & Hsum)]; apply wp_ret; split; [exact Hle|];
  eapply (ns_impl_eq _ _ _ _ _ Hd); [|apply Hα; auto];
  rewrite <- (Hsum tt); unfold dnode; simpl;
  let Sth := fresh "Sth" in
  destruct S as [? ? ? ? ? ? ? ? ? Sth]; simpl in *;
  rewrite (SRadd_0_l Sth), (SRmul_comm Sth), (SRmul_1_l Sth); reflexivity.

(** Statement 5.1: if [e] denotes [E], then [diff e] denotes [E'].  ([diff]
    itself performs no effect: [diff e] is a function, built at once; the
    requests of a run of [diff e] are those of the dictionary it is given,
    see [diff_pure].)

    Informal proof: fix a dictionary [d] implementing [S] under [Ψ], and
    [x] implementing [r].  The nodes with the protocol [ad_protocol]
    implement the dual numbers over [S] ([ad_dict_spec]), and the variable
    [NVar 0 x] in the world [(w, [(r, 1)])] implements [(r, 1)].  As [e]
    denotes [E], its run at the nodes returns a node standing for
    [⟦E⟧(r, 1) = (⟦E⟧(r), ⟦E'⟧(r))] in dual numbers ([eval1_dual]).  By
    [handle_spec] with [T = ⟦E'⟧(r)] and the single node 0 (whose
    derivative component is 1), the handled run returns a table whose
    entry 0 implements [α 0] with [α 0 · 1 = ⟦E'⟧(r)]. *)
Lemma diff_correct e E : denotes e E -> denotes (diff e) (deriv E).
Proof.
  intros He W Q A V le Ψ S impl d Hd w x r Hx.
  unfold diff. cbn [eval_exp]. apply wp_bind.
  diff_run Hrun He Hd w x r Hx E S V impl d.
  apply (handle_spec Hd (fun _ => eval1 r (deriv E))) in Hrun. diff_read Hrun Hd S.
Qed.

(** [diff] performs no effect of its own: with a dictionary that performs
    none, a run of [diff e] performs none either.

    Informal proof: [denotes_run] applied to [diff_correct]. *)
Lemma diff_pure e E (S : semiring) (r : S) :
  denotes e E ->
  exists y, eval_exp (diff e) _ _ _ (sr_dict S) r = Ret y /\ y ≡ eval1 r (deriv E).
Proof. intros He. apply denotes_run, diff_correct, He. Qed.

(** Iterated differentiation follows from the specification alone.

    Informal proof: by induction on [n], applying [diff_correct] at each
    step; nothing about the implementation of [diff] is used. *)
Lemma diff_n_correct n e E :
  denotes e E -> denotes (Nat.iter n diff e) (deriv_n n E).
Proof.
  intros He. induction n as [|n IH]; simpl; [exact He|]. apply diff_correct, IH.
Qed.

(** * The tape with the RH-4 levels of MLP chains, under the zero law

    [tape.v]'s tape covers chains of operations [let x ⇐ Op(y_k) in R].
    The layers of an MLP chain are [let x ⇐ Op(f(y_k)) in R], the last
    one [Op(f(y_k))]: [RH] rewrites them by RH-4 on [f(y_k)], then RH-2
    on [Op(w)] ([rh_fn_layer], [rh4_sparse.v]).
    [tape4_checked] is the tape with these two cases added: [tape.v]'s
    [tape_with] with [tape_layer] at both, proved once by
    [tape_layer_ok] (then [tape_with_correct]): it computes the forward
    value [f(V_k)], runs the rest of the chain (one variable more in
    scope), applies [rd(f)] once at the point [V_k], and updates the k-th
    cotangent only ([add_at]), with the step count of the semantics given
    by [run_rh4_level]'s formula instead of taken.  The additions of the
    [m − 1] zeros of the one-hot tuple are skipped, which is the semantics
    bit for bit only under the zero law [c + 0 = c /\ 0 + c = c] of those
    [m − 1] cotangents.  The tape is given a test [cfitsb] of the constants
    and asks the law only of the constants that pass it
    ([zero_law_fits], a hypothesis of the theorems): it tests every
    cotangent it keeps and answers [None] (the machine then takes its
    ordinary path) when one fails.  At the executable instance the law
    holds only for the constants that fit ([zero_law.v]), and the test is
    [exec_cfitsb] ([fast4_correct.v]).

    [tape4_checked] still checks at each RH-4 level, in Θ(m) each, what
    [run_rh4_level] assumes (the points [point_okb], their type, their
    cost [point_cost], the cotangents' types, [cfitsb] of the cotangents)
    and renames the rest of the body as [RH] does.  [tape4] is linear in
    the size of the run: it checks the points once ([lin_entry]) and runs
    [tape_lin], which keeps these as invariants ([lin_inv]; the
    cotangents' types and [cfitsb] checked in full at RH-1a, then at the
    component a level updates only: [ctypedb] in [check_at], and
    [cfitsb (c + g)] at an RH-4 level), keeps the renaming pending (an
    environment) and updates one cotangent per level ([set_nth]: no
    structural zero is added, no projection walked).  [tape_lin_refines]:
    every answer of [tape_lin] is [tape4_checked]'s.  The tests cost one
    per cotangent kept; at the instance a test compares a vector's length
    ([v_len]: time 1 for the float arrays) with its type.

    Under [zero_law_fits] (the law of the constants that pass [cfitsb]):
    - [tape_layer_correct]: a level is [run] on [rh_term_out], given that
      the recursive call's answer is [run]'s ([run_rh4_level], whose
      premises are [tape_layer]'s checks); [tape_layer_ok]: [layer_ok].
    - [tape4_correct]: an answer of [tape4] is [rh_fn]'s output closed by
      [σ] and run by [run], as [tape_correct].
    - [run_fast4_correct_fits]: the machine with [tape4] at every
      [rev handle] computes exactly what [run] computes, for every
      command, heap and fuel.
    - [run_fast4_nf_agree]: without the fallback on fuel, the same answer
      or both "out of fuel"; [run_fast4_search] is [rh-eval --tape4]'s
      search of the fuel, [run_fast4_search_agree] its answer.
    - [run_fast4_correct] (under [zero_law], the law for every constant):
      [run_fast4_correct_fits], whatever the test.

    What stays paid by an index: the handler's [clause_of H o] and the
    heap's locations are lists ([typing.v], [cmd_sem.v]), looked up in
    time the index of the operation or location; the signature's
    [ar o]/[coar o] take its logarithm ([braun.v], [instance.v])
    (docs/decisions.md, "tape4: linear"). *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts complete machine run_ctx tape rh4_sparse total machine_fast.

Section tape_rh4.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm) (P Q R : cmd) (H : handler) (σ τ : nat -> tm).

(** The constants the zero law is asked of, decided: the tape checks
    that every cotangent it keeps satisfies [cfitsb] (at RH-1a, then at
    the component a level updates) and answers [None] when one does not,
    so that the machine takes its ordinary path.  At the executable
    instance it is [zero_law.v]'s [exec_cfitsb], a comparison of a
    vector's length with its type ([fast4_correct.v]). *)
Variable cfitsb : const -> bool.

(** [point_ok], decided. *)
Definition point_okb (M : tm) : bool :=
  is_value M || match M with
                | Proj i (Tuple Ws) => forallb is_value Ws && Nat.ltb i (length Ws)
                | _ => false
                end.

Lemma point_okb_ok M : point_okb M = true -> point_ok M.
Proof.
  unfold point_okb. intros Hb. apply Bool.orb_true_iff in Hb as [HV|Hp]; [left; exact HV|right].
  destruct M as [| | | | |i [| | | |Ws| | |]| |]; try discriminate.
  apply Bool.andb_true_iff in Hp as [HWs Hi]. apply Nat.ltb_lt in Hi.
  destruct (nth_error Ws i) as [V|] eqn:HV; [|apply nth_error_None in HV; lia].
  exists i, Ws, V. split; [reflexivity|]. split; [|exact HV].
  apply Forall_forall. intros x Hx. rewrite forallb_forall in HWs. apply HWs, Hx.
Qed.

Lemma forallb_point_okb Ms : forallb point_okb Ms = true -> Forall point_ok Ms.
Proof.
  intros Hb. apply Forall_forall. intros M HM. apply point_okb_ok.
  rewrite forallb_forall in Hb. apply Hb, HM.
Qed.

(** The constants of a tuple of constants. *)
Fixpoint consts_of (l : list tm) : option (list const) :=
  match l with
  | [] => Some []
  | Const c :: l' => option_map (cons c) (consts_of l')
  | _ => None
  end.

Lemma consts_of_ok l cs : consts_of l = Some cs -> l = map Const cs.
Proof.
  revert cs. induction l as [|M l IH]; intros cs Hc; cbn [consts_of] in Hc.
  - injection Hc as <-. reflexivity.
  - destruct M as [|c| | | | | |]; try discriminate.
    destruct (consts_of l) as [cs'|] eqn:Hl; [|discriminate].
    cbn [option_map] in Hc. injection Hc as <-. cbn [map]. f_equal. apply IH. reflexivity.
Qed.

(** The closed point of the level below an RH-4 level: [G1 · σ] on the
    point of [RH]'s recursive call. *)
Lemma map_subst_var_cons σ G1 Vs :
  G1 :: map (subst_tm σ) Vs =
  map (subst_tm (fun x => subst_tm (list_subst [G1]) (up σ x))) (Var 0 :: map shift Vs).
Proof. rewrite map_subst_up_cons. reflexivity. Qed.

(** ** The tape with RH-4 levels

    [tape_layer rec fuel n hp Bs Vs f k]: an RH-4 level on [f(y_k)], [Vs]
    closed; [rec B' …] runs the rest of the chain (RH-2 on [Op(w)], then
    the continuation or nothing) with [w : B'] in scope. *)
Definition tape_layer (rec : ty -> nat -> nat -> heap -> list tm -> option (heap * list tm * nat))
    (fuel n : nat) (hp : heap) (Bs : list ty) (Vs : list tm) (f : fsym) (k : nat)
    : option (heap * list tm * nat) :=
  match nth_error Vs k, infer_tm Bs (App f (Var k)) with
  | Some Vk, Some B' =>
      let c1 := if is_value Vk then 1 else 2 in
      match (if forallb point_okb Vs then ev f (point_val Vk) else None) with
      | Some G1 =>
          match (if is_value G1 then rec B' (fuel - S c1) (S (n + c1)) hp (G1 :: Vs) else None) with
          | Some (hp2, w' :: qs, n2) =>
              (* the premises of [run_rh4_level], checked *)
              match consts_of qs, infer_tm [] (Tuple (map point_val Vs)), ev (rd f) (Tuple [point_val Vk; w']) with
              | Some cs, Some A, Some (Const g) =>
                  let n3 := S (S n2 + (1 + point_cost Vs + 5)) + 3 * length cs in
                  if is_value w' && Nat.ltb n3 (n + fuel) &&
                     (if list_eq_dec ty_eq_dec (A :: Bs) (TProd (map TBase (map const_ty cs)) :: map TBase (map const_ty cs))
                      then true else false) && forallb cfitsb cs
                  then Some (hp2, map Const (add_at k g cs), n3) else None
              | _, _, _ => None
              end
          | _ => None
          end
      | None => None
      end
  | _, _ => None
  end.

(** [tape_with] with [tape_layer], which checks at every level what
    [run_rh4_level] assumes, [cfitsb] of the cotangents included; [tape4]
    refines it ([tape4_refines]). *)
Definition tape4_checked (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm)
    (m : nat) (R : cmd) : option (heap * list tm * nat) :=
  tape_with tape_layer rf fuel n hp H Bs Vs m R.

Section zero_law_fits.
(** The zero law of the scalar model ([rh4_sparse.v]), for the constants
    that satisfy [cfitsb]: the only ones the tape adds a structural zero
    to, since it checks them. *)
Hypothesis zero_law_fits :
  forall c, cfitsb c = true -> cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.

(** An RH-4 level of the tape is [run] on [rh_term_out] around the output
    the recursive call stands for ([rh_rec B']), closed by [σ]
    ([run_rh4_level], whose premises are the checks [tape_layer] makes,
    [cfitsb] of the cotangents the level leaves unchanged among them). *)
Lemma tape_layer_correct rec rh_rec fuel n hp Bs Vs σ m f k hp' vs n' :
  m = length Bs ->
  (forall B' f1 n1 hp1 G1 hp2 qs n2,
     rec B' f1 n1 hp1 (G1 :: map (subst_tm σ) Vs) = Some (hp2, qs, n2) ->
     exists Rrec, rh_rec B' = RHOk Rrec /\
       run f1 n1 hp1 (subst_cmd (fun x => subst_tm (list_subst [G1]) (up σ x)) Rrec)
         = RDone hp2 (Tuple qs) n2 /\ length qs = S m) ->
  tape_layer rec fuel n hp Bs (map (subst_tm σ) Vs) f k = Some (hp', vs, n') ->
  exists B' Rrec, infer_tm Bs (App f (Var k)) = Some B' /\ rh_rec B' = RHOk Rrec /\
    run fuel n hp (subst_cmd σ (rh_term_out Bs Vs (App f (Var k)) Rrec)) = RDone hp' (Tuple vs) n' /\
    length vs = m.
Proof.
  intros Hm Hrec Ht. unfold tape_layer in Ht. cbv zeta in Ht.
  rewrite nth_error_map in Ht. destruct (nth_error Vs k) as [Vk|] eqn:Hk; [|discriminate].
  cbn [option_map] in Ht.
  destruct (infer_tm Bs (App f (Var k))) as [B'|] eqn:HB'; [|discriminate].
  destruct (forallb point_okb (map (subst_tm σ) Vs)) eqn:Hpok; [|discriminate].
  destruct (ev f (point_val (subst_tm σ Vk))) as [G1|] eqn:Hf; [|discriminate].
  destruct (is_value G1) eqn:HG1; [|discriminate].
  destruct (rec B' _ _ hp _) as [[[hp2 [|w' qs]] n2]|] eqn:Ht2; try discriminate.
  destruct (Hrec _ _ _ _ _ _ _ _ Ht2) as [Rrec [Hrh [Hrun Hlen]]].
  destruct (consts_of qs) as [cs|] eqn:Hcs; [|discriminate].
  apply consts_of_ok in Hcs. subst qs.
  destruct (infer_tm [] (Tuple (map point_val (map (subst_tm σ) Vs)))) as [A|] eqn:HA; [|discriminate].
  destruct (ev (rd f) (Tuple [point_val (subst_tm σ Vk); w'])) as [[|g| | | | | |]|] eqn:Hrd;
    try discriminate.
  destruct (is_value w') eqn:Hw; [|discriminate].
  destruct (Nat.ltb_spec (S (S n2 + (1 + point_cost (map (subst_tm σ) Vs) + 5)) + 3 * length cs)
              (n + fuel)) as [Hfuel|]; [|discriminate].
  destruct (list_eq_dec ty_eq_dec _ _) as [Heq|]; [|discriminate].
  injection Heq as -> HBs.
  destruct (forallb cfitsb cs) eqn:Hfb; [|discriminate].
  assert (Hfit : Forall (fun c => cfitsb c = true) cs).
  { apply Forall_forall. intros c Hc. rewrite forallb_forall in Hfb. apply Hfb, Hc. }
  injection Ht as <- <- <-.
  exists B', Rrec. split; [reflexivity|]. split; [exact Hrh|].
  split; [|rewrite map_length, add_at_length; cbn [length] in Hlen; rewrite map_length in Hlen; lia].
  subst Bs.
  apply (run_rh4_level (fun c => cfitsb c = true) zero_law_fits fuel n hp σ cs Vs k Vk f g G1 Rrec hp2 w' n2); try assumption.
  apply forallb_point_okb. exact Hpok.
Qed.

(** [tape_layer] at both RH-4 levels of a chain: [tape_layer_correct],
    then [rh_fn_layer] for [rh_fn]'s output. *)
Lemma tape_layer_ok : layer_ok tape_layer.
Proof.
  intros rec rf H Bs Vs σ m last o f k Q fuel n hp hp' vs n' Hm Hrec Ht.
  destruct (tape_layer_correct rec
              (fun B' => rh_fn rf H (B' :: Bs) (Var 0 :: map shift Vs) (snd (layer_cmds last o f k Q)))
              fuel n hp Bs Vs σ m f k hp' vs n' Hm Hrec Ht) as [B' [Rrec [HB' [Hrh [Hrun Hlen]]]]].
  exists (rh_term_out Bs Vs (App f (Var k)) Rrec). split; [|split; assumption].
  cbv beta in Hrh. destruct last; cbn [fst snd layer_cmds] in *;
    [ etransitivity; [exact (rh_fn_layer rf H Bs Vs true o f k Q)|]
    | etransitivity; [exact (rh_fn_layer rf H Bs Vs false o f k Q)|] ];
    cbv iota; rewrite HB', Hrh; reflexivity.
Qed.

(** ** [tape4]: the checks kept as invariants

    [tape4_checked] re-checks at every RH-4 level, each in Θ(m), what
    [run_rh4_level] assumes of the m components in scope: that they are
    points ([point_okb]), their type ([infer_tm]), their cost
    ([point_cost]), and that the cotangents returned are constants of the
    types in scope that pass [cfitsb]; and it adds the [m − 1] zeros of the one-hot tuple by
    rebuilding the tuple ([add_at]).  [tape4] checks the points once, at
    the [rev handle], and keeps the rest as invariants:
    - [lin_inv Bs Vs pc]: the points, their types [Bs] and [pc] their
      cost, extended at each level by a check of the new point only
      ([lin_next]: time its size);
    - what a level returns is constants of the types [Bs] that pass
      [cfitsb] ([Forall2 ctyped]), checked once at RH-1a ([ctypedb_all])
      and, after an update, at the component updated only ([check_at]:
      time [k]; at an RH-4 level, [cfitsb (c + g)] in [tape_layer_lin]);
    - the cotangent of an RH-4 level is updated at [k] only ([set_nth]),
      as [tape_op] does: a structural zero is never added.
    [tape_lin_refines]: every answer of [tape_lin] is [tape4_checked]'s,
    so [tape4_correct] follows from [tape_with_correct]. *)

(** A cotangent that is a constant of the type in scope, one the zero
    law is asked of ([cfitsb]). *)
Definition ctyped (q : tm) (B : ty) : Prop := exists c, q = Const c /\ B = TBase (const_ty c) /\ cfitsb c = true.

Definition ctypedb (q : tm) (B : ty) : bool :=
  match q with
  | Const c => if ty_eq_dec B (TBase (const_ty c)) then cfitsb c else false
  | _ => false
  end.

Lemma ctypedb_ok q B : ctypedb q B = true -> ctyped q B.
Proof.
  destruct q as [|c| | | | | |]; cbn; try discriminate.
  destruct (ty_eq_dec B (TBase (const_ty c))) as [->|]; [|discriminate]. intros Hc. exists c.
  split; [reflexivity|split; [reflexivity|exact Hc]].
Qed.

Fixpoint ctypedb_all (qs : list tm) (Bs : list ty) : bool :=
  match qs, Bs with
  | [], [] => true
  | q :: qs', B :: Bs' => ctypedb q B && ctypedb_all qs' Bs'
  | _, _ => false
  end.

Lemma ctypedb_all_ok qs Bs : ctypedb_all qs Bs = true -> Forall2 ctyped qs Bs.
Proof.
  revert Bs. induction qs as [|q qs IH]; intros [|B Bs] Hb; cbn in Hb; try discriminate; [constructor|].
  apply Bool.andb_true_iff in Hb as [H1 H2]. constructor; [apply ctypedb_ok, H1|apply IH, H2].
Qed.

Lemma ctyped_consts qs Bs :
  Forall2 ctyped qs Bs ->
  exists cs, qs = map Const cs /\ Bs = map TBase (map const_ty cs) /\ forallb cfitsb cs = true.
Proof.
  induction 1 as [|q B qs Bs [c [-> [-> Hc]]] _ [cs [-> [-> Hcs]]]];
    [exists []; split; [reflexivity|split; reflexivity]|].
  exists (c :: cs). cbn [map forallb]. rewrite Hc, Hcs. split; [reflexivity|split; reflexivity].
Qed.

(** The component [k] of [vs] is a constant of the type at [k]. *)
Definition check_at (k : nat) (vs : list tm) (Bs : list ty) : bool :=
  match nth_error vs k, nth_error Bs k with
  | Some q, Some B => ctypedb q B
  | _, _ => false
  end.

Lemma nth_error_set_nth k x (l : list tm) y : nth_error l k = Some y -> nth_error (set_nth k x l) k = Some x.
Proof.
  revert k. induction l as [|z l IH]; intros [|k] Hk; cbn in *; try discriminate; [reflexivity|]. apply IH, Hk.
Qed.

Lemma Forall2_set_nth k x l Bs y :
  Forall2 ctyped l Bs -> nth_error l k = Some y -> check_at k (set_nth k x l) Bs = true ->
  Forall2 ctyped (set_nth k x l) Bs.
Proof.
  unfold check_at. intros Hl Hk. rewrite (nth_error_set_nth k x l y Hk).
  destruct (nth_error Bs k) as [B|] eqn:HB; [|discriminate]. intros Hc. apply ctypedb_ok in Hc.
  revert k Hk HB. induction Hl as [|z B' l Bs' Hz Hl IH]; intros [|k] Hk HB; cbn in *; try discriminate.
  - injection HB as ->. constructor; assumption.
  - constructor; [exact Hz|]. eapply IH; eassumption.
Qed.

(** The invariant of the points in scope: points, of the types [Bs],
    [pc] of them not values. *)
Definition lin_inv (Bs : list ty) (Vs : list tm) (pc : nat) : Prop :=
  forallb point_okb Vs = true /\ pc = point_cost Vs /\
  infer_tm [] (Tuple (map point_val Vs)) = Some (TProd Bs).

Definition has_ty (M : tm) (A : ty) : bool :=
  match infer_tm [] M with Some A' => if ty_eq_dec A' A then true else false | None => false end.

Lemma has_ty_ok M A : has_ty M A = true -> infer_tm [] M = Some A.
Proof.
  unfold has_ty. destruct (infer_tm [] M) as [A'|]; [|discriminate].
  destruct (ty_eq_dec A' A) as [->|]; [reflexivity|discriminate].
Qed.

Lemma lin_inv_cons Bs Vs pc W0 A :
  lin_inv Bs Vs pc -> point_okb W0 = true -> has_ty (point_val W0) A = true ->
  lin_inv (A :: Bs) (W0 :: Vs) (if is_value W0 then pc else S pc).
Proof.
  intros [Hok [Hpc HA]] Hp Ht. apply has_ty_ok in Ht. split; [|split].
  - cbn [forallb]. rewrite Hp, Hok. reflexivity.
  - subst pc. unfold point_cost. cbn [filter]. destruct (is_value W0); reflexivity.
  - cbn [map infer_tm] in *. cbn [all_some map]. rewrite Ht.
    destruct (all_some (map (infer_tm []) (map point_val Vs))) as [As|]; [|discriminate].
    injection HA as ->. reflexivity.
Qed.

(** The rest of the chain with one point [W0] more in scope, of type [A]:
    [go] with the cost updated, after a check of [W0] only. *)
Definition lin_next (go : nat -> option (heap * list tm * nat)) (A : ty) (pc : nat) (Vs1 : list tm)
    : option (heap * list tm * nat) :=
  match Vs1 with
  | W0 :: _ => if point_okb W0 && has_ty (point_val W0) A then go (if is_value W0 then pc else S pc) else None
  | [] => None
  end.

(** An RH-2 level: [tape_op], then a check of the component it updated. *)
Definition lin_op (rec : nat -> nat -> heap -> list tm -> option (heap * list tm * nat))
    (fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm) (m : nat) (o : opsym) (k : nat)
    : option (heap * list tm * nat) :=
  match tape_op rec fuel n hp H Vs m o k with
  | Some (hp', vs, n') => if check_at k vs Bs then Some (hp', vs, n') else None
  | None => None
  end.

(** [tape_op] answers what it answers with any [rec] that answers what
    the first does, and its answer updates at [k] a cotangent tuple [rec]
    returned. *)
Lemma tape_op_mono (rec1 rec2 : nat -> nat -> heap -> list tm -> option (heap * list tm * nat))
    (Qp : heap * list tm * nat -> Prop) fuel n hp H Vs m o k hp' vs n' :
  (forall f1 n1 hp1 V1 x, rec1 f1 n1 hp1 (Proj 0 V1 :: Vs) = Some x ->
     rec2 f1 n1 hp1 (Proj 0 V1 :: Vs) = Some x /\ Qp x) ->
  tape_op rec1 fuel n hp H Vs m o k = Some (hp', vs, n') ->
  tape_op rec2 fuel n hp H Vs m o k = Some (hp', vs, n') /\
  exists hp2 y' cs n2 c y, Qp (hp2, y' :: cs, n2) /\ nth_error cs k = Some (Const c) /\
    vs = set_nth k (Const (cadd c y)) cs.
Proof.
  intros Hrec Ht. unfold tape_op in *.
  destruct (nth_error Vs k) as [Vk|]; [|discriminate].
  destruct (clause_of H o) as [[D Qf] Qb].
  destruct (coar o); [|discriminate].
  destruct (cmd_closed 1 Qf && cmd_closed 2 Qb); [|discriminate].
  destruct (run_machine _ _ _ _) as [hp1 V1 n1| | | |]; try discriminate.
  destruct (Nat.ltb _ fuel); [|discriminate].
  destruct (rec1 _ _ _ _) as [[[hp2 qs] n2]|] eqn:Heq; [|discriminate].
  destruct (Hrec _ _ _ _ _ Heq) as [-> HQ].
  split; [exact Ht|].
  destruct (Nat.ltb _ _); [|discriminate].
  destruct (mloop _ _ _ _) as [hp3 Y n3| | | |]; try discriminate.
  destruct (Nat.ltb _ _); [|discriminate].
  destruct qs as [|y' cs]; [discriminate|]. destruct Y as [|y| | | | | |]; try discriminate.
  destruct (nth_error cs k) as [[|c| | | | | |]|] eqn:Hck; try discriminate.
  destruct (Nat.ltb _ _); [|discriminate].
  injection Ht as <- <- <-. exists hp2, y', cs, n2, c, y. split; [exact HQ|]. split; [exact Hck|reflexivity].
Qed.

(** The sparse update of [tape_layer]'s dense one: [add_at] at [k] is
    [set_nth] at [k]. *)
Lemma nth_set_nth k x (l : list tm) i d :
  i < length l -> nth i (set_nth k x l) d = if Nat.eqb i k then x else nth i l d.
Proof.
  revert k i. induction l as [|y l IH]; intros k i Hi; cbn in Hi; [lia|].
  destruct k as [|k], i as [|i]; cbn [set_nth nth Nat.eqb]; try reflexivity; apply IH; lia.
Qed.

Lemma add_at_set_nth k g cs c :
  nth_error cs k = Some c -> map Const (add_at k g cs) = set_nth k (Const (cadd c g)) (map Const cs).
Proof.
  intros Hk. apply nth_ext with (d := Const c) (d' := Const c).
  - rewrite set_nth_length, !map_length, add_at_length. reflexivity.
  - intros i Hi. rewrite map_length, add_at_length in Hi.
    rewrite nth_set_nth by (rewrite map_length; exact Hi).
    rewrite map_nth with (d := c), add_at_nth by exact Hi.
    destruct (Nat.eqb_spec i k) as [->|]; [|rewrite map_nth; reflexivity].
    rewrite (nth_error_nth _ _ c Hk). reflexivity.
Qed.

Lemma consts_of_map cs : consts_of (map Const cs) = Some cs.
Proof. induction cs as [|c cs IH]; [reflexivity|]. cbn [map consts_of]. rewrite IH. reflexivity. Qed.

Lemma point_val_value G : is_value G = true -> point_val G = G.
Proof. destruct G as [| | | | |i M| |]; try reflexivity. discriminate. Qed.

(** An RH-4 level under the invariant: [tape_layer] without its checks
    over the m components, the cotangent updated at [k] only. *)
Definition tape_layer_lin (rec : ty -> nat -> nat -> heap -> list tm -> option (heap * list tm * nat))
    (fuel n : nat) (hp : heap) (Bs : list ty) (Vs : list tm) (m pc : nat) (f : fsym) (k : nat)
    : option (heap * list tm * nat) :=
  match nth_error Vs k, infer_tm Bs (App f (Var k)) with
  | Some Vk, Some B' =>
      let c1 := if is_value Vk then 1 else 2 in
      (* forwards: the new point [G1 = f(V_k)], then the rest of the chain *)
      match option_map (fun G1 => (G1, is_value G1 && has_ty G1 B')) (ev f (point_val Vk)) with
      | Some (G1, true) =>
          match rec B' (fuel - S c1) (S (n + c1)) hp (G1 :: Vs) with
          | Some (hp2, w' :: qs, n2) =>
              (* backwards: [rd(f)] at [V_k], added at [k] only *)
              match is_value w', nth_error qs k, ev (rd f) (Tuple [point_val Vk; w']) with
              | true, Some (Const c), Some (Const g) =>
                  let n3 := S (S n2 + (1 + pc + 5)) + 3 * m in
                  if base_eq_dec (const_ty c) (const_ty g) then
                    (* the updated cotangent, checked: the zero law is
                       asked of it at the levels above *)
                    let c' := cadd c g in
                    if Nat.ltb n3 (n + fuel) && cfitsb c' then Some (hp2, set_nth k (Const c') qs, n3)
                    else None
                  else None
              | _, _, _ => None
              end
          | _ => None
          end
      | _ => None
      end
  | _, _ => None
  end.

Lemma tape_layer_lin_refines rec1 rec2 fuel n hp Bs Vs m pc f k hp' vs n' :
  m = length Bs -> lin_inv Bs Vs pc ->
  (forall B' f1 n1 hp1 G1 x, is_value G1 = true -> has_ty G1 B' = true ->
     rec1 B' f1 n1 hp1 (G1 :: Vs) = Some x ->
     rec2 B' f1 n1 hp1 (G1 :: Vs) = Some x /\ Forall2 ctyped (snd (fst x)) (B' :: Bs)) ->
  tape_layer_lin rec1 fuel n hp Bs Vs m pc f k = Some (hp', vs, n') ->
  tape_layer rec2 fuel n hp Bs Vs f k = Some (hp', vs, n') /\ Forall2 ctyped vs Bs.
Proof.
  intros Hm [Hok [Hpc HA]] Hrec Ht. unfold tape_layer_lin in Ht. unfold tape_layer. cbv zeta in Ht |- *.
  destruct (nth_error Vs k) as [Vk|]; [|discriminate].
  destruct (infer_tm Bs (App f (Var k))) as [B'|]; [|discriminate].
  rewrite Hok.
  destruct (ev f (point_val Vk)) as [G1|]; [|discriminate]. cbn [option_map] in Ht.
  destruct (is_value G1) eqn:HG1; [|discriminate]. destruct (has_ty G1 B') eqn:HB'; [|discriminate].
  cbn [andb] in Ht.
  destruct (rec1 _ _ _ _ _) as [[[hp2 [|w' qs]] n2]|] eqn:Heq; try discriminate.
  destruct (Hrec _ _ _ _ _ _ HG1 HB' Heq) as [-> Hpost]. cbn [fst snd] in Hpost.
  assert (Hqs : Forall2 ctyped qs Bs) by (inversion Hpost; assumption). clear Hpost.
  subst pc m.
  destruct (ctyped_consts _ _ Hqs) as [cs [-> [-> Hfb]]].
  rewrite consts_of_map, HA. destruct (is_value w'); [|discriminate].
  rewrite nth_error_map in Ht. destruct (nth_error cs k) as [c|] eqn:Hck; [|discriminate].
  cbn [option_map] in Ht.
  destruct (ev (rd f) _) as [[|g| | | | | |]|]; try discriminate.
  destruct (base_eq_dec (const_ty c) (const_ty g)) as [Hcg|]; [|discriminate].
  rewrite !map_length in Ht.
  destruct (Nat.ltb _ _); [|discriminate].
  destruct (cfitsb (cadd c g)) eqn:Hcf; [|discriminate].
  destruct (list_eq_dec ty_eq_dec _ _) as [_|Hne]; [|contradiction Hne; reflexivity]. cbn [andb].
  rewrite Hfb.
  injection Ht as <- <- <-. rewrite (add_at_set_nth k g cs c Hck). split; [reflexivity|].
  apply (Forall2_set_nth k _ _ _ (Const c)); [exact Hqs|rewrite nth_error_map, Hck; reflexivity|].
  unfold check_at. rewrite (nth_error_set_nth k _ _ (Const c)) by (rewrite nth_error_map, Hck; reflexivity).
  rewrite !nth_error_map, Hck. cbn [option_map ctypedb].
  rewrite (cadd_ty c g Hcg). destruct (ty_eq_dec _ _) as [_|Hne]; [exact Hcf|contradiction Hne; reflexivity].
Qed.

(** The renamings [tape_lin] keeps pending instead of applying them. *)
Definition scons_ren (a : nat) (ξ : nat -> nat) : nat -> nat :=
  fun x => match x with 0 => a | S y => ξ y end.

Lemma ren_cmd_ext ξ ζ P : (forall x, ξ x = ζ x) -> ren_cmd ξ P = ren_cmd ζ P.
Proof. intros Hx. rewrite !ren_cmd_as_subst. apply subst_cmd_ext. intros x. rewrite Hx. reflexivity. Qed.

Lemma ren_cmd_ren ξ ζ P : ren_cmd ζ (ren_cmd ξ P) = ren_cmd (fun x => ζ (ξ x)) P.
Proof. rewrite !ren_cmd_as_subst, subst_cmd_subst. apply subst_cmd_ext. intros x. reflexivity. Qed.

Lemma ren_cmd_id P : ren_cmd (fun x => x) P = P.
Proof. rewrite ren_cmd_as_subst. apply subst_cmd_id. Qed.

(** RH-1b on a pending renaming: the renaming extended by [a]. *)
Lemma subst_var_ren_up a ξ Q : subst_cmd (list_subst [Var a]) (ren_cmd (up_ren ξ) Q) = ren_cmd (scons_ren a ξ) Q.
Proof.
  rewrite !ren_cmd_as_subst, subst_cmd_subst. apply subst_cmd_ext. intros [|x]; [reflexivity|].
  cbn [up_ren subst_tm scons_ren]. unfold list_subst. cbn [nth length].
  destruct (ξ x); cbn; f_equal; lia.
Qed.

(** RH-4's renaming of the rest, [ren_cmd (up_ren S)], after a pending one. *)
Lemma ren_up_S_up ξ Q : ren_cmd (up_ren S) (ren_cmd (up_ren ξ) Q) = ren_cmd (up_ren (fun y => S (ξ y))) Q.
Proof. rewrite ren_cmd_ren. apply ren_cmd_ext. intros [|x]; reflexivity. Qed.

(** [tape_lin rf fuel n hp H Bs Vs m pc ξ R]: [tape4_checked] on
    [ren_cmd ξ R] under [lin_inv Bs Vs pc], the renaming [ξ] kept pending
    (an environment: [R]'s variable [x] is [ξ x]) instead of applied to
    the rest of the body at every level as [RH] does: the same cases,
    [lin_op] at RH-2 and [tape_layer_lin] at RH-4 (whose RH-2 level on
    [Op(w)] is taken at once, the rest under [up_ren (S ∘ ξ)]); RH-1a is
    [tape4_checked]'s, its answer checked once. *)
Fixpoint tape_lin (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm)
    (m pc : nat) (ξ : nat -> nat) (R : cmd) {struct rf} : option (heap * list tm * nat) :=
  match rf with
  | 0 => None
  | S rf' =>
      match R with
      | Ret (Var k) =>
          match tape4_checked rf fuel n hp H Bs Vs m (Ret (Var (ξ k))) with
          | Some (hp', vs, n') => if ctypedb_all vs Bs then Some (hp', vs, n') else None
          | None => None
          end
      | CLet (Ret (Var z)) Q => tape_lin rf' fuel n hp H Bs Vs m pc (scons_ren (ξ z) ξ) Q
      | Op o (Var k) =>
          lin_op (fun f1 n1 hp1 Vs1 =>
                    lin_next (fun pc' => tape_lin rf' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) pc' (fun x => x) (Ret (Var 0)))
                      (ar o) pc Vs1)
            fuel n hp H Bs Vs m o (ξ k)
      | CLet (Op o (Var k)) Q =>
          match rf' with
          | 0 => None
          | S rf'' =>
              lin_op (fun f1 n1 hp1 Vs1 =>
                        lin_next (fun pc' => tape_lin rf'' f1 n1 hp1 H (ar o :: Bs) Vs1 (S m) pc' (up_ren ξ) Q)
                          (ar o) pc Vs1)
                fuel n hp H Bs Vs m o (ξ k)
          end
      | CLet (Op o (App f (Var k))) Q =>
          tape_layer_lin (fun B' f1 n1 hp1 Vs1 =>
                            match rf' with
                            | 0 | 1 => None
                            | S (S rf''') =>
                                lin_op (fun f2 n2 hp2 Vs2 =>
                                          lin_next (fun pc' => tape_lin rf''' f2 n2 hp2 H (ar o :: B' :: Bs) Vs2
                                                                 (S (S m)) pc' (up_ren (fun y => S (ξ y))) Q)
                                            (ar o) pc Vs2)
                                  f1 n1 hp1 H (B' :: Bs) Vs1 (S m) o 0
                            end)
            fuel n hp Bs Vs m pc f (ξ k)
      | Op o (App f (Var k)) =>
          tape_layer_lin (fun B' f1 n1 hp1 Vs1 =>
                            tape_lin rf' f1 n1 hp1 H (B' :: Bs) Vs1 (S m) pc (fun x => x) (Op o (Var 0)))
            fuel n hp Bs Vs m pc f (ξ k)
      | _ => None
      end
  end.

(** An RH-2 level of [tape_lin] is one of [tape4_checked], its answer
    constants of the types in scope. *)
Lemma lin_op_refines rec1 rec2 A fuel n hp H Bs Vs m o k hp' vs n' :
  (forall f1 n1 hp1 V1 x, rec1 f1 n1 hp1 (Proj 0 V1 :: Vs) = Some x ->
     rec2 f1 n1 hp1 (Proj 0 V1 :: Vs) = Some x /\ Forall2 ctyped (snd (fst x)) (A :: Bs)) ->
  lin_op rec1 fuel n hp H Bs Vs m o k = Some (hp', vs, n') ->
  tape_op rec2 fuel n hp H Vs m o k = Some (hp', vs, n') /\ Forall2 ctyped vs Bs.
Proof.
  intros Hrec Ht. unfold lin_op in Ht.
  destruct (tape_op rec1 _ _ _ _ _ _ _ _) as [[[hp1 vs1] n1]|] eqn:Heq; [|discriminate].
  destruct (check_at k vs1 Bs) eqn:Hc; [|discriminate]. injection Ht as <- <- <-.
  destruct (tape_op_mono rec1 rec2 (fun x => Forall2 ctyped (snd (fst x)) (A :: Bs)) _ _ _ _ _ _ _ _ _ _ _
              Hrec Heq) as [E2 [hp2 [y' [cs [n2 [c [y [Hq [Hck ->]]]]]]]]].
  split; [exact E2|]. cbn [fst snd] in Hq. inversion Hq; subst.
  eapply Forall2_set_nth; eassumption.
Qed.

(** Every answer of [tape_lin] is [tape4_checked]'s on the command
    renamed, constants of the types in scope.

    Informal proof: by induction on [rf], one case per case of
    [tape_with] on [ren_cmd ξ R]: RH-1a is [tape4_checked]'s, its answer
    checked by [ctypedb_all]; RH-1b the induction hypothesis with the
    renaming extended ([subst_var_ren_up]); RH-2 [lin_op_refines] with the
    induction hypothesis under [lin_inv_cons] for the new point; RH-4
    [tape_layer_lin_refines], the new point [G1] a value of the type
    checked, then RH-2 on [Op(w)] as before, the two renamings of the rest
    composed ([ren_up_S_up]). *)
Lemma tape_lin_refines rf : forall fuel n hp H Bs Vs m pc ξ R hp' vs n',
  m = length Bs -> lin_inv Bs Vs pc ->
  tape_lin rf fuel n hp H Bs Vs m pc ξ R = Some (hp', vs, n') ->
  tape4_checked rf fuel n hp H Bs Vs m (ren_cmd ξ R) = Some (hp', vs, n') /\ Forall2 ctyped vs Bs.
Proof.
  unfold tape4_checked.
  induction rf as [rf IH] using (well_founded_induction lt_wf).
  intros fuel n hp H Bs Vs m pc ξ R hp' vs n' Hm Hinv Ht.
  destruct rf as [|rf']; [discriminate|].
  (* the RH-2 levels *)
  assert (Hop : forall Bs Vs m pc rf0 o ζ R', rf0 < S rf' -> m = length Bs -> lin_inv Bs Vs pc ->
    (forall f1 n1 hp1 V1 x,
       lin_next (fun pc' => tape_lin rf0 f1 n1 hp1 H (ar o :: Bs) (Proj 0 V1 :: Vs) (S m) pc' ζ R') (ar o) pc
         (Proj 0 V1 :: Vs) = Some x ->
       tape_with tape_layer rf0 f1 n1 hp1 H (ar o :: Bs) (Proj 0 V1 :: Vs) (S m) (ren_cmd ζ R') = Some x /\
       Forall2 ctyped (snd (fst x)) (ar o :: Bs))).
  { intros Bs0 Vs0 m0 pc0 rf0 o ζ R' Hlt Hm0 Hinv0 f1 n1 hp1 V1 [[hp2 qs] n2] Hx. unfold lin_next in Hx.
    destruct (point_okb (Proj 0 V1) && has_ty (point_val (Proj 0 V1)) (ar o)) eqn:Hc; [|discriminate].
    apply Bool.andb_true_iff in Hc as [Hp Hty].
    refine (IH rf0 Hlt _ _ _ _ _ _ _ _ _ _ _ _ _ _ (lin_inv_cons _ _ _ _ _ Hinv0 Hp Hty) Hx). cbn. lia. }
  (* the new point of an RH-4 level *)
  assert (Hnew : forall B' G1, is_value G1 = true -> has_ty G1 B' = true -> lin_inv (B' :: Bs) (G1 :: Vs) pc).
  { intros B' G1 HG1 Hty. assert (Hinv' := lin_inv_cons _ _ _ G1 B' Hinv).
    rewrite HG1, point_val_value in Hinv' by exact HG1.
    apply Hinv'; [unfold point_okb; rewrite HG1; reflexivity|exact Hty]. }
  destruct R as [M|o M|P Q|M R H1]; [| |destruct P as [M|o M|P Q'|M R H1]| ];
    try (destruct M as [k| |f [k| | | | | | |]| | | | |]); cbn [tape_lin] in Ht; try discriminate.
  - (* RH-1a *)
    unfold tape4_checked in Ht.
    destruct (tape_with tape_layer (S rf') _ _ _ _ _ _ _ _) as [[[hp1 vs1] n1]|] eqn:Heq; [|discriminate].
    destruct (ctypedb_all vs1 Bs) eqn:Hc; [|discriminate]. injection Ht as <- <- <-.
    split; [first [exact Heq|reflexivity]|apply ctypedb_all_ok, Hc].
  - (* RH-2, the last operation of the body *)
    cbn [ren_cmd ren_tm tape_with].
    exact (lin_op_refines _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
             (Hop Bs Vs m pc rf' o (fun x => x) (Ret (Var 0)) (Nat.lt_succ_diag_r _) Hm Hinv) Ht).
  - (* RH-4, the last layer *)
    cbn [ren_cmd ren_tm tape_with].
    refine (tape_layer_lin_refines _ _ _ _ _ _ _ _ _ _ _ _ _ _ Hm Hinv _ Ht).
    intros B' f1 n1 hp1 G1 [[hp2 qs] n2] HG1 Hty Hx.
    refine (IH rf' (Nat.lt_succ_diag_r _) _ _ _ _ _ _ _ _ _ (Op o (Var 0)) _ _ _ _ (Hnew B' G1 HG1 Hty) Hx).
    cbn. lia.
  - (* RH-1b *)
    cbn [ren_cmd ren_tm tape_with]. rewrite subst_var_ren_up.
    exact (IH rf' (Nat.lt_succ_diag_r _) _ _ _ _ _ _ _ _ _ _ _ _ _ Hm Hinv Ht).
  - (* RH-2 *)
    destruct rf' as [|rf'']; [discriminate|]. cbn [ren_cmd ren_tm tape_with].
    exact (lin_op_refines _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ (Hop Bs Vs m pc rf'' o (up_ren ξ) Q ltac:(lia) Hm Hinv) Ht).
  - (* RH-4, then RH-2 on [Op(w)] *)
    cbn [ren_cmd ren_tm tape_with].
    refine (tape_layer_lin_refines _ _ _ _ _ _ _ _ _ _ _ _ _ _ Hm Hinv _ Ht).
    intros B' f1 n1 hp1 G1 [[hp2 qs] n2] HG1 Hty Hx.
    destruct rf' as [|[|rf''']]; [discriminate|discriminate|]. cbn [tape_with up_ren].
    rewrite ren_up_S_up.
    exact (lin_op_refines _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
             (Hop (B' :: Bs) (G1 :: Vs) (S m) pc rf''' o _ Q ltac:(lia) ltac:(cbn; lia) (Hnew B' G1 HG1 Hty)) Hx).
Qed.

(** The points of a [rev handle], checked once. *)
Definition lin_entry (Bs : list ty) (Vs : list tm) : bool :=
  forallb point_okb Vs && has_ty (Tuple (map point_val Vs)) (TProd Bs).

Lemma lin_entry_ok Bs Vs : lin_entry Bs Vs = true -> lin_inv Bs Vs (point_cost Vs).
Proof.
  unfold lin_entry. intros Hb. apply Bool.andb_true_iff in Hb as [H1 H2].
  split; [exact H1|]. split; [reflexivity|]. apply has_ty_ok, H2.
Qed.

(** [tape4]: the points checked once ([lin_entry]), then [tape_lin]. *)
Definition tape4 (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm)
    (m : nat) (R : cmd) : option (heap * list tm * nat) :=
  if lin_entry Bs Vs then tape_lin rf fuel n hp H Bs Vs m (point_cost Vs) (fun x => x) R else None.

Lemma tape4_refines rf fuel n hp H Bs Vs m R r :
  m = length Bs -> tape4 rf fuel n hp H Bs Vs m R = Some r -> tape4_checked rf fuel n hp H Bs Vs m R = Some r.
Proof.
  intros Hm Ht. unfold tape4 in Ht. destruct (lin_entry Bs Vs) eqn:He; [|discriminate].
  destruct r as [[hp' vs] n'].
  rewrite <- (ren_cmd_id R).
  exact (proj1 (tape_lin_refines rf _ _ _ _ _ _ _ _ _ _ _ _ _ Hm (lin_entry_ok _ _ He) Ht)).
Qed.

(** [tape4] is [run] on the output of [rh_fn], closed by [σ].

    Informal proof: [tape4_refines], then [tape_with_correct] with
    [tape_layer_ok] for [tape4_checked] (by induction on [rf] as
    [tape_correct], the RH-4 case by [rh_fn_layer] for [rh_fn]'s output,
    the induction hypothesis for the rest of the chain closed by
    [G1 · σ], and [run_rh4_level] for the level, whose premises are the
    checks [tape4_checked] makes). *)
Lemma tape4_correct rf : forall fuel n hp H Bs Vs σ m R hp' vs n',
  m = length Bs ->
  tape4 rf fuel n hp H Bs (map (subst_tm σ) Vs) m R = Some (hp', vs, n') ->
  exists R', rh_fn rf H Bs Vs R = RHOk R' /\
             run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m.
Proof.
  intros fuel n hp H Bs Vs σ m R hp' vs n' Hm Ht.
  exact (tape_with_correct tape_layer tape_layer_ok rf _ _ _ _ _ _ _ _ _ _ _ _ Hm
           (tape4_refines _ _ _ _ _ _ _ _ _ _ Hm Ht)).
Qed.

(** ** The machine with [tape4] at every [rev handle] *)

(** The shape of [tape4]'s fragment: [tape.v]'s chains with the layers
    [let x ⇐ Op(f(y_k)) in R] and [Op(f(y_k))]. *)
Fixpoint chain_shape4 (R : cmd) : bool :=
  match R with
  | Ret (Var _) | Op _ (Var _) | Op _ (App _ (Var _)) => true
  | CLet (Ret (Var _)) Q | CLet (Op _ (Var _)) Q | CLet (Op _ (App _ (Var _))) Q => chain_shape4 Q
  | _ => false
  end.

Definition fast_hook4 : mhook := fun fuel k n hp H Bs Vs R =>
  if chain_shape4 R then tape4 (fuel - k) (fuel - S k) (S (n + k)) hp H Bs Vs (length Bs) R
  else None.

Definition run_fast4 (fuel n : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_hook fast_hook4 mfallback (S fuel) fuel n (MConf hp [] [] P).

(** [run_fast4] without the fallback on fuel: "out of fuel" as soon as
    the fuel is short ([machine_fast.v]'s [run_fast_nf]). *)
Definition run_fast4_nf (fuel : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_hook fast_hook4 out_of_fuel_now (S fuel) fuel 0 (MConf hp [] [] P).

(** [tape4] answers only what [run] computes ([tape_hook_ok] with
    [tape_layer_ok]), under [zero_law_fits]. *)
Lemma fast_hook4_ok : hook_ok fast_hook4.
Proof.
  intros fuel k n hp H Bs Vs R hp' vs n' Hlt Ht. unfold fast_hook4 in Ht.
  apply (tape_hook_ok tape_layer tape_layer_ok chain_shape4 _ _ _ _ _ _ _ _ _ _ _ Hlt).
  unfold tape_hook. destruct (chain_shape4 R); [|discriminate].
  exact (tape4_refines _ _ _ _ _ _ _ _ _ _ eq_refl Ht).
Qed.

(** The machine with [tape4] computes exactly what [run] computes, for
    every command, heap and fuel, under the zero law of the constants
    that satisfy [cfitsb]. *)
Theorem run_fast4_correct_fits fuel n hp P : run_fast4 fuel n hp P = run fuel n hp P.
Proof.
  unfold run_fast4.
  pose proof (mloop_hook_agrees eq fast_hook4 mfallback (S fuel) fuel n hp [] [] P
                (fun r => eq_refl) fast_hook4_ok short_ok_mfallback (Forall_nil _) (Forall_nil _)) as Hr.
  rewrite Hr. unfold assemble. cbn [map fill_c fold_left]. rewrite subst_cmd_nil. reflexivity.
Qed.

(** Without the fallback on fuel, for a search of the fuel: equal
    answers, or both "out of fuel" ([machine_fast.v]'s [run_fast_nf]). *)
Lemma run_fast4_nf_agree fuel hp P : agree (run_fast4_nf fuel hp P) (run fuel 0 hp P).
Proof.
  unfold run_fast4_nf.
  pose proof (mloop_hook_agrees agree fast_hook4 out_of_fuel_now (S fuel) fuel 0 hp [] [] P
                (fun r => or_introl eq_refl) fast_hook4_ok short_ok_nf (Forall_nil _) (Forall_nil _)) as Hr.
  unfold assemble in Hr. cbn [map fill_c fold_left] in Hr. rewrite subst_cmd_nil in Hr. exact Hr.
Qed.

End zero_law_fits.

Section zero_law.
(** The zero law of the scalar model ([rh4_sparse.v]), for every
    constant: then [cfitsb] is any test. *)
Hypothesis zero_law : forall c, cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.

(** [run_fast4_correct_fits], the law asked of every constant. *)
Theorem run_fast4_correct fuel n hp P : run_fast4 fuel n hp P = run fuel n hp P.
Proof. exact (run_fast4_correct_fits (fun c _ => zero_law c) fuel n hp P). Qed.

End zero_law.

(** [run_fast4_search tries f hp P]: [run_fast4_nf] with the fuel [f],
    doubled while the answer is "out of fuel", at most [tries] times; the
    fuel used and its answer ([rh-eval --tape4] without a fuel, from
    [total.v]'s [first_fuel]: [total.v]'s search of the fuel, bounded). *)
Fixpoint run_fast4_search (tries f : nat) (hp : heap) (P : cmd) : nat * run_result :=
  let r := run_fast4_nf f hp P in
  match tries with
  | 0 => (f, r)
  | S t => if out_of_fuel_dec r then run_fast4_search t (f + f) hp P else (f, r)
  end.

Section search.
Hypothesis zero_law_fits :
  forall c, cfitsb c = true -> cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.

(** The search's answer is [run]'s with the fuel it returns, or both
    "out of fuel" ([run_fast4_nf_agree] at that fuel). *)
Lemma run_fast4_search_agree tries f hp P :
  agree (snd (run_fast4_search tries f hp P)) (run (fst (run_fast4_search tries f hp P)) 0 hp P).
Proof.
  revert f. induction tries as [|t IH]; intros f; cbn [run_fast4_search].
  - exact (run_fast4_nf_agree zero_law_fits f hp P).
  - destruct (out_of_fuel_dec (run_fast4_nf f hp P)); [apply IH|exact (run_fast4_nf_agree zero_law_fits f hp P)].
Qed.
End search.
End tape_rh4.

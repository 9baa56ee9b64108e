(** * [Ev] of the executable instance answers on every argument of the
    right shape, up to [rd²]; beyond, it is the core's

    [exec_ev (k, p) V] (instance.v) is [rd^k[p]] applied to the leaves of
    the value [V].  It answers [None] when [p]'s parameters make no sense
    ([prim_ok]), when the leaves do not have the dimensions of the domain
    ([leaves_fit]), or, for [k ≥ 3], when the core's answer (rdcore.v,
    [eval_core]) has not the lengths of the codomain.  This file proves
    that for [k ≤ 2] the first two are the only cases: a closed value typed at the domain of
    [rd^k[p]] whose constants have the lengths their types declare always
    gets an answer ([exec_ev_total]).  For [k ≥ 3], that the core's
    answer always has the codomain's lengths is not proved yet
    (docs/decisions.md, "rd of every order"), so a run of a checked
    program whose constants keep their declared lengths can be stuck on
    [Ev] only at [rd³] or beyond, where the checker's [rd] order
    ([order_ok], never_stuck.v) keeps it from going.

    The constants' lengths are a hypothesis on the value ([consts_fit]),
    not a consequence of typing: a constant [(n, v)] is typed by its
    declared dimension [n], whatever the length of [v].  The reader keeps
    it for the constants of a program it accepts ([read_program_consts],
    frontend.v); that the vector operations keep it along a run is a
    property of the vector model, [vec_shapes], proved for the list model
    in shapes.v; never_stuck.v proves that every step keeps it and that a
    checked program within the [rd] order is never stuck on [Ev]. *)
From RevHandlers Require Import prelude signature syntax typing instance.

Section ev_total.
Context {Vec : Type} (vo : vec_ops Vec).
#[local] Instance ev_total_sorts : sorts := exec_sorts Vec.
Context (decls : list (ty * ty)) (locs : list nat).
#[local] Instance ev_total_signature : signature := exec_signature vo decls locs.

Implicit Types (V : tm) (A : ty).

(** The number of leaves of the domain of [rd^k[p]] is what the cases of
    [eval_prim] expect: [eval_prim] answers on every list of that length. *)
Lemma eval_prim_total k p xs :
  k <= 2 -> length xs = length (@ty_dims Vec (@fdom Vec k p)) -> eval_prim vo k p xs <> None.
Proof.
  intros Hk Hlen.
  destruct k as [|[|[|k]]]; [| | |lia];
    destruct p; cbn in Hlen;
    do 6 (try (destruct xs as [|? xs]; cbn [length] in Hlen; try lia));
    cbn; try discriminate.
Qed.

(** The constants of a value have the lengths their types declare. *)
Definition consts_fit (V : tm) : Prop :=
  Forall (fun c : nat * Vec => v_len vo (snd c) = fst c) (@leaves Vec V).

(** A closed value of type [A] has one leaf per base type of [A], with the
    dimensions of [A]. *)
Lemma leaves_dims V A : value V -> typed_tm [] V A -> map fst (@leaves Vec V) = @ty_dims Vec A.
Proof.
  revert A. induction V as [x|c|f M _|M1 M2 _ _|Ms IH|i M _|M N _ _|M N L _ _ _] using tm_ind';
    intros A HV HT; try discriminate HV.
  - inversion HT as [? ? ? Hn| | | | | | |]; subst. destruct x; discriminate Hn.
  - inversion HT; subst. reflexivity.
  - inversion HT as [| | | |? ? As HF| | |]; subst. cbn. clear HT.
    apply value_tuple_iff in HV.
    induction HF as [|M B Ms' Bs HMB HF' IHF]; [reflexivity|].
    inversion IH as [|? ? IHM IHMs]; subst. inversion HV as [|? ? HVM HVMs]; subst.
    cbn. rewrite map_app, (IHM B HVM HMB). f_equal. exact (IHF IHMs HVMs).
Qed.

Lemma leaves_fit_of ls dims :
  map fst ls = dims -> Forall (fun c : nat * Vec => v_len vo (snd c) = fst c) ls ->
  leaves_fit vo dims ls = true.
Proof.
  intros <- Hfit. unfold leaves_fit. rewrite map_length, Nat.eqb_refl. cbn.
  induction ls as [|[n v] ls IH]; [reflexivity|].
  inversion Hfit as [|? ? Hv Hls]; subst. cbn in Hv |- *.
  rewrite Nat.eqb_refl, Hv, Nat.eqb_refl. cbn. exact (IH Hls).
Qed.

(** [Ev] answers on every well-shaped argument of [rd^k[p]], [k ≤ 2]. *)
Theorem exec_ev_total k p V :
  k <= 2 -> prim_ok p = true -> value V -> typed_tm [] V (@fdom Vec k p) -> consts_fit V ->
  exists V', exec_ev vo (k, p) V = Some V'.
Proof.
  intros Hk Hok HV HT Hfit. unfold exec_ev.
  pose proof (leaves_dims V _ HV HT) as Hdims.
  rewrite Hok, (leaves_fit_of _ _ Hdims Hfit). cbn [andb].
  destruct (eval_prim vo k p (map snd (@leaves Vec V))) as [outs|] eqn:He.
  - eexists. reflexivity.
  - exfalso. refine (eval_prim_total k p _ Hk _ He).
    rewrite map_length, <- Hdims, map_length. reflexivity.
Qed.

(** Beyond [rd²], [Ev] is the core's: [rd^k[p]] is [p]'s forward map
    differentiated [k] times by [rd_core] (rdcore.v), run on the vector
    model, answering when the result has the lengths of the codomain. *)
Lemma eval_prim_rd3_core k p xs :
  3 <= k -> eval_prim vo k p xs = eval_core vo (core_prog k p) (@ty_dims Vec (@fcod Vec k p)) xs.
Proof. apply eval_prim_core. Qed.

End ev_total.

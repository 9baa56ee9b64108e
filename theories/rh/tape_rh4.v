(** * The tape with the RH-4 levels of MLP chains, under the zero law

    [tape.v]'s tape covers chains of operations [let x ⇐ Op(y_k) in R].
    The layers of an MLP chain are [let x ⇐ Op(f(y_k)) in R], the last
    one [Op(f(y_k))]: [RH] rewrites them by RH-4 on [f(y_k)], then RH-2
    on [Op(w)] ([rh_fn_layer], [rh_fn_last_layer], [rh4_sparse.v]).
    [tape4] is the tape with these two cases added: [tape.v]'s
    [tape_with] with [tape_layer] at both, proved once by
    [tape_layer_correct] ([tape_layer_ok], then [tape_with_correct]): it computes the forward value
    [f(V_k)], runs the rest of the chain (one variable more in scope), applies [rd(f)] once at the point
    [V_k], and updates the k-th cotangent only ([add_at]), with the step
    count of the semantics given by [run_rh4_level]'s formula instead of
    taken.  The additions of the [m − 1] zeros of the one-hot tuple are
    skipped, which is the semantics bit for bit only under the zero law
    [forall c, c + 0 = c /\ 0 + c = c], a hypothesis of the theorem.

    - [tape4_correct] (under [zero_law]): an answer of [tape4] is
      [rh_fn]'s output closed by [σ] and run by [run], as [tape_correct].
    - [run_fast4_correct] (under [zero_law]): the machine with [tape4] at
      every [rev handle] computes exactly what [run] computes.

    Not linear yet: at each RH-4 level [tape4] checks what
    [run_rh4_level] assumes by recomputing it (the point's components
    [point_okb], its type [infer_tm], its cost [point_cost], that the
    types in scope are those of the cotangents), each Θ(m), and it
    renames the rest of the body ([ren_cmd (up_ren S) Q]) as [RH] does.
    Keeping these as invariants of the tape is what remains
    (docs/decisions.md, "The tape with the RH-4 levels").  The
    extracted evaluator does not use [tape4]. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts complete machine run_ctx tape rh4_sparse total machine_fast.

Section tape_rh4.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm) (P Q R : cmd) (H : handler) (σ τ : nat -> tm).

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
      if forallb point_okb Vs then
        match ev f (point_val Vk) with
        | Some G1 =>
            if is_value G1 then
              match rec B' (fuel - S (if is_value Vk then 1 else 2))
                      (S (n + (if is_value Vk then 1 else 2))) hp (G1 :: Vs) with
              | Some (hp2, w' :: qs, n2) =>
                  match consts_of qs with
                  | Some cs =>
                      if is_value w' then
                        if list_eq_dec ty_eq_dec Bs (map TBase (map const_ty cs)) then
                          match infer_tm [] (Tuple (map point_val Vs)) with
                          | Some A =>
                              if ty_eq_dec A (TProd (map TBase (map const_ty cs))) then
                                match ev (rd f) (Tuple [point_val Vk; w']) with
                                | Some (Const g) =>
                                    let n3 := S (S n2 + (1 + point_cost Vs + 5)) + 3 * length cs in
                                    if Nat.ltb n3 (n + fuel) then Some (hp2, map Const (add_at k g cs), n3)
                                    else None
                                | _ => None
                                end
                              else None
                          | None => None
                          end
                        else None
                      else None
                  | None => None
                  end
              | _ => None
              end
            else None
        | None => None
        end
      else None
  | _, _ => None
  end.

Definition tape4 (rf fuel n : nat) (hp : heap) (H : handler) (Bs : list ty) (Vs : list tm)
    (m : nat) (R : cmd) : option (heap * list tm * nat) :=
  tape_with tape_layer rf fuel n hp H Bs Vs m R.

Section zero_law.
(** The zero law of the scalar model ([rh4_sparse.v]). *)
Hypothesis zero_law : forall c, cadd c (czero (const_ty c)) = c /\ cadd (czero (const_ty c)) c = c.

(** An RH-4 level of the tape is [run] on [rh_term_out] around the output
    the recursive call stands for ([rh_rec B']), closed by [σ]
    ([run_rh4_level], whose premises are the checks [tape_layer] makes). *)
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
  intros Hm Hrec Ht. unfold tape_layer in Ht.
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
  destruct (is_value w') eqn:Hw; [|discriminate].
  destruct (list_eq_dec ty_eq_dec Bs (map TBase (map const_ty cs))) as [HBs|]; [|discriminate].
  destruct (infer_tm [] (Tuple (map point_val (map (subst_tm σ) Vs)))) as [A|] eqn:HA; [|discriminate].
  destruct (ty_eq_dec A (TProd (map TBase (map const_ty cs)))) as [->|]; [|discriminate].
  destruct (ev (rd f) (Tuple [point_val (subst_tm σ Vk); w'])) as [[|g| | | | | |]|] eqn:Hrd;
    try discriminate.
  destruct (Nat.ltb_spec (S (S n2 + (1 + point_cost (map (subst_tm σ) Vs) + 5)) + 3 * length cs)
              (n + fuel)) as [Hfuel|]; [|discriminate].
  injection Ht as <- <- <-.
  exists B', Rrec. split; [reflexivity|]. split; [exact Hrh|].
  split; [|rewrite map_length, add_at_length; cbn [length] in Hlen; rewrite map_length in Hlen; lia].
  subst Bs.
  apply (run_rh4_level zero_law fuel n hp σ cs Vs k Vk f g G1 Rrec hp2 w' n2); try assumption.
  apply forallb_point_okb. exact Hpok.
Qed.

(** [tape_layer] at both RH-4 levels of a chain: [tape_layer_correct],
    then [rh_fn_layer] or [rh_fn_last_layer] for [rh_fn]'s output. *)
Lemma tape_layer_ok : layer_ok tape_layer.
Proof.
  intros rec rf H Bs Vs σ m last o f k Q fuel n hp hp' vs n' Hm Hrec Ht.
  destruct (tape_layer_correct rec
              (fun B' => rh_fn rf H (B' :: Bs) (Var 0 :: map shift Vs) (snd (layer_cmds last o f k Q)))
              fuel n hp Bs Vs σ m f k hp' vs n' Hm Hrec Ht) as [B' [Rrec [HB' [Hrh [Hrun Hlen]]]]].
  exists (rh_term_out Bs Vs (App f (Var k)) Rrec). split; [|split; assumption].
  cbv beta in Hrh. destruct last; cbn [fst snd layer_cmds] in *;
    [rewrite rh_fn_last_layer|rewrite rh_fn_layer]; rewrite HB', Hrh; reflexivity.
Qed.

(** [tape4] is [run] on the output of [rh_fn], closed by [σ].

    Informal proof: [tape_with_correct] with [tape_layer_ok]: by
    induction on [rf] as [tape_correct], the RH-4 case by [rh_fn_layer]
    for [rh_fn]'s output, the induction hypothesis for the rest of the
    chain closed by [G1 · σ], and [run_rh4_level] for the level, whose
    premises are the checks [tape4] makes. *)
Lemma tape4_correct rf : forall fuel n hp H Bs Vs σ m R hp' vs n',
  m = length Bs ->
  tape4 rf fuel n hp H Bs (map (subst_tm σ) Vs) m R = Some (hp', vs, n') ->
  exists R', rh_fn rf H Bs Vs R = RHOk R' /\
             run fuel n hp (subst_cmd σ R') = RDone hp' (Tuple vs) n' /\ length vs = m.
Proof. exact (tape_with_correct tape_layer tape_layer_ok rf). Qed.

(** ** The machine with [tape4] at every [rev handle] *)

(** The shape of [tape4]'s fragment: [tape.v]'s chains with the layers
    [let x ⇐ Op(f(y_k)) in R] and [Op(f(y_k))]. *)
Fixpoint chain_shape4 (R : cmd) : bool :=
  match R with
  | Ret (Var _) | Op _ (Var _) | Op _ (App _ (Var _)) => true
  | CLet (Ret (Var _)) Q | CLet (Op _ (Var _)) Q | CLet (Op _ (App _ (Var _))) Q => chain_shape4 Q
  | _ => false
  end.

Definition fast_hook4 : mhook := tape_hook tape_layer chain_shape4.

Definition run_fast4 (fuel n : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_hook fast_hook4 mfallback (S fuel) fuel n (MConf hp [] [] P).

(** [run_fast4] without the fallback on fuel: "out of fuel" as soon as
    the fuel is short ([machine_fast.v]'s [run_fast_nf]). *)
Definition run_fast4_nf (fuel : nat) (hp : heap) (P : cmd) : run_result :=
  mloop_hook fast_hook4 out_of_fuel_now (S fuel) fuel 0 (MConf hp [] [] P).

(** [tape4] answers only what [run] computes ([tape_hook_ok] with
    [tape_layer_ok]). *)
Lemma fast_hook4_ok : hook_ok fast_hook4.
Proof. exact (tape_hook_ok tape_layer tape_layer_ok chain_shape4). Qed.

(** The machine with [tape4] computes exactly what [run] computes, for
    every command, heap and fuel, under the zero law. *)
Theorem run_fast4_correct fuel n hp P : run_fast4 fuel n hp P = run fuel n hp P.
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
End tape_rh4.

(** * The core's reverse differentiation over ℝ: the chain rule over a body

    The backward pass of [rd_prog] (theories/rh/rdcore.v) builds its
    program with [emit], [accum], [contribs], [seed], [back] and
    [finals].  This file proves, in the real model, what the instructions
    they add compute: the real counterparts of the invariants
    [core_dims.v] keeps for their lengths.
    - [emit] adds instructions that compute the expression's value and
      keeps the earlier values ([emit_sound]);
    - [accum] adds a contribution to one adjoint, [contribs] to each
      argument's, an argument read twice receiving both ([accum_sound],
      [contribs_sound]; [sum_ctr_at]: summed over the variables, fan-out
      is a sum);
    - one instruction of the sweep, with [vjp_adjoint] (rdcore_sound.v):
      the pairing of the tangents with the adjoints over the variables
      before it plus its own term is the pairing over the variables
      before it afterwards ([sweep_step]; its contributions have the
      arguments' lengths, [vjp_cs_ok]);
    - the sweep of a whole body by induction on it ([back_sound]), the
      seed ([seed_sound]), the outputs ([finals_sound]), and the three
      together ([sweep_sound]): from a state holding the forward values,
      [Σᵢ ⟨hᵢ, outᵢ⟩ = Σₚ ⟨T(outsₚ), wₚ⟩] for the tangents [T]
      propagated from [h] by [cop_tan].
    The hypotheses [instr_ok] follow from [wd_prog] (rdcore_fwd.v,
    rdcore_prog.v: [rd_prog_adjoint]).  Not proved (docs/decisions.md,
    "rd of every order over ℝ, operation by operation"): that the
    tangents [T] are the Fréchet derivative of the program, [prune], and
    so [core_prog (S k) p] the reverse derivative of [core_prog k p]. *)
From RevHandlers.Analysis Require Import base vec sums prims rdcore_real rdcore_sound.
From RevHandlers Require Import shapes rdcore core_dims.
Open Scope R_scope.

(** ** The values the emitted instructions compute

    The first step of the chain rule over a body: [emit] compiles an
    expression into instructions that compute its value.  [vals X body]
    are the values of all the variables of a body run on the inputs [X]
    (the instance's evaluation, in order); [senv X s] reads those of the
    instructions of a builder's state. *)
Lemma eval_body_app {V} (ci : cop -> list V -> V) d n env b1 b2 :
  eval_body ci d n env (b1 ++ b2) = eval_body ci d (n + length b1) (eval_body ci d n env b1) b2.
Proof.
  revert n env; induction b1 as [|[o args] b1 IH]; intros n env; cbn [app eval_body length].
  - rewrite Nat.add_0_r. reflexivity.
  - rewrite IH. f_equal. lia.
Qed.

Lemma eval_body_length {V} (ci : cop -> list V -> V) d n env b :
  length (eval_body ci d n env b) = (length env + length b)%nat.
Proof.
  revert n env; induction b as [|[o args] b IH]; intros n env; cbn [eval_body length].
  - lia.
  - rewrite IH. cbn [length]. lia.
Qed.

Definition vals (X : list vec) (body : list (cop * list nat)) : list vec :=
  rev (eval_body (cop_eval Rvo) (v_zero Rvo 0) (length X) (rev X) body).

Lemma vals_length X body : length (vals X body) = (length X + length body)%nat.
Proof. unfold vals. rewrite rev_length, eval_body_length, rev_length. reflexivity. Qed.

(** One more instruction, reading earlier variables. *)
Lemma vals_snoc X body o is :
  Forall (fun a => a < length X + length body)%nat is ->
  vals X (body ++ [(o, is)]) = vals X body ++ [cop_eval Rvo o (map (fun a => nth a (vals X body) []) is)].
Proof.
  intros His. unfold vals. rewrite eval_body_app. cbn [eval_body rev].
  match goal with |- _ ++ [cop_eval Rvo o ?l1] = _ ++ [cop_eval Rvo o ?l2] =>
    replace l1 with l2; [reflexivity|] end.
  symmetry. apply map_ext_in. intros a Ha. rewrite Forall_forall in His. specialize (His a Ha).
  rewrite rev_nth by (rewrite eval_body_length, rev_length; lia).
  rewrite eval_body_length, rev_length. f_equal; first [lia | reflexivity].
Qed.

Definition sval (X : list vec) (s : bstate) : list vec := vals X (rev (bs_acc s)).
Definition senv (X : list vec) (s : bstate) (i : nat) : vec := nth i (sval X s) [].

(** The variables of an expression are below [n]. *)
Fixpoint rbelow (n : nat) (e : rexp) : Prop :=
  match e with
  | RV i => (i < n)%nat
  | RO _ es => fold_right and True (map (rbelow n) es)
  end.

Lemma rbelow_mono n n' e : (n <= n')%nat -> rbelow n e -> rbelow n' e.
Proof.
  intros Hn. induction e as [i|o es IH] using rexp_ind'; cbn; [lia|].
  induction IH as [|e es He _ IHes]; cbn; [tauto|]. intros [H1 H2]. split; auto.
Qed.

(** [reval] reads the variables below [n] only. *)
Lemma reval_ext n (env env' : nat -> vec) e :
  (forall i, (i < n)%nat -> env i = env' i) -> rbelow n e -> reval env e = reval env' e.
Proof.
  intros Henv. induction e as [i|o es IH] using rexp_ind'; cbn [rbelow reval].
  - apply Henv.
  - intros Hb. f_equal. induction IH as [|e es He _ IHes]; [reflexivity|].
    cbn in Hb |- *. destruct Hb as [H1 H2]. rewrite He, IHes; auto.
Qed.

Definition st_inv (X : list vec) (s : bstate) : Prop := bs_next s = (length X + length (bs_acc s))%nat.

Lemma sval_length X s : st_inv X s -> length (sval X s) = bs_next s.
Proof. unfold st_inv, sval. intros H. rewrite vals_length, rev_length. lia. Qed.

Definition emit_val (X : list vec) (e : rexp) (s : bstate) : Prop :=
  st_inv X (snd (emit e s)) /\
  (fst (emit e s) < bs_next (snd (emit e s)))%nat /\
  senv X (snd (emit e s)) (fst (emit e s)) = reval (senv X s) e /\
  exists E, sval X (snd (emit e s)) = sval X s ++ E.

Lemma senv_app X s s' E i : sval X s' = sval X s ++ E -> (i < length (sval X s))%nat ->
  senv X s' i = senv X s i.
Proof. intros HE Hi. unfold senv. rewrite HE, app_nth1 by exact Hi. reflexivity. Qed.

(** [emit] of an expression over earlier variables adds instructions
    that compute its value, and keeps the earlier values. *)
Lemma emit_sound X e : forall s, st_inv X s -> rbelow (bs_next s) e -> emit_val X e s.
Proof.
  induction e as [i|o es IH] using rexp_ind'; intros s Hs Hb; unfold emit_val.
  - cbn. split; [exact Hs|]. split; [exact Hb|]. split; [reflexivity|]. exists []. symmetry. apply app_nil_r.
  - cbn [emit].
    match goal with |- context [?F es s] => pose (go := F); change (F es s) with (go es s) end.
    assert (Hgo : forall l s, Forall (fun e => forall s, st_inv X s -> rbelow (bs_next s) e -> emit_val X e s) l ->
              st_inv X s -> fold_right and True (map (rbelow (bs_next s)) l) ->
              st_inv X (snd (go l s)) /\
              Forall2 (fun i e => (i < bs_next (snd (go l s)))%nat /\
                                  senv X (snd (go l s)) i = reval (senv X s) e) (fst (go l s)) l /\
              exists E, sval X (snd (go l s)) = sval X s ++ E).
    { clear IH Hs Hb s. induction l as [|e l IHl]; intros s IH Hs Hb.
      - cbn. split; [exact Hs|]. split; [constructor|]. exists []. symmetry. apply app_nil_r.
      - inversion IH as [|? ? He IH']; subst. cbn in Hb. destruct Hb as [Hbe Hbl].
        change (go (e :: l) s) with (let '(i, s1) := emit e s in
                                     let '(is, s2) := go l s1 in (i :: is, s2)).
        destruct (He s Hs Hbe) as (Hs1 & Hi & Hni & E1 & HE1).
        destruct (emit e s) as [i s1] eqn:Hem. cbn [fst snd] in Hs1, Hi, Hni, HE1.
        assert (Hlen1 : (bs_next s <= bs_next s1)%nat).
        { rewrite <- (sval_length X s Hs), <- (sval_length X s1 Hs1), HE1, app_length. lia. }
        assert (Hbl1 : fold_right and True (map (rbelow (bs_next s1)) l)).
        { clear -Hbl Hlen1. induction l as [|e' l IHl]; cbn in *; [exact I|].
          destruct Hbl as [H1 H2]. split; [apply (rbelow_mono _ _ _ Hlen1 H1)|auto]. }
        destruct (IHl s1 IH' Hs1 Hbl1) as (Hs2 & Hl & E2 & HE2).
        destruct (go l s1) as [is s2]. cbn [fst snd] in *.
        assert (Hlen2 : (bs_next s1 <= bs_next s2)%nat).
        { rewrite <- (sval_length X s1 Hs1), <- (sval_length X s2 Hs2), HE2, app_length. lia. }
        split; [exact Hs2|]. split.
        + constructor.
          * split; [lia|]. rewrite (senv_app X s1 s2 E2 i HE2) by (rewrite sval_length by exact Hs1; lia).
            exact Hni.
          * clear -Hl HE1 Hbl Hs Hs1. induction Hl as [|j e' js l' [Hj Hnj] Hl IHl']; constructor.
            -- split; [exact Hj|]. rewrite Hnj. cbn in Hbl. destruct Hbl as [Hb1 _].
               apply (reval_ext (bs_next s)); [|exact Hb1].
               intros k Hk. apply (senv_app X s s1 E1 k HE1). rewrite sval_length by exact Hs. exact Hk.
            -- cbn in Hbl. apply IHl'. tauto.
        + exists (E1 ++ E2). rewrite HE2, HE1, app_assoc. reflexivity. }
    destruct (Hgo es s IH Hs Hb) as (Hs1 & His & E1 & HE1).
    destruct (go es s) as [is s1]. cbn [fst snd] in *.
    assert (Hlt : Forall (fun a => a < length X + length (rev (bs_acc s1)))%nat is).
    { unfold st_inv in Hs1. rewrite rev_length, <- Hs1.
      clear -His. induction His as [|j e js l [Hj _] _ IHs]; constructor; assumption. }
    assert (Hsv : sval X {| bs_next := S (bs_next s1); bs_acc := (o, is) :: bs_acc s1 |} =
                  sval X s1 ++ [cop_eval Rvo o (map (senv X s1) is)]).
    { unfold sval. cbn [bs_acc rev]. rewrite vals_snoc by exact Hlt. reflexivity. }
    assert (Hinv : st_inv X {| bs_next := S (bs_next s1); bs_acc := (o, is) :: bs_acc s1 |}).
    { unfold st_inv in *. cbn [bs_next bs_acc length]. lia. }
    cbn [fst snd]. split; [exact Hinv|]. split; [cbn; lia|]. split.
    + unfold senv at 1. rewrite Hsv, app_nth2 by (rewrite sval_length by exact Hs1; lia).
      rewrite sval_length, Nat.sub_diag by exact Hs1. cbn [nth]. rewrite reval_RO. f_equal.
      clear -His. induction His as [|j e js l [_ Hj] _ IHs]; [reflexivity|]. cbn. rewrite Hj, IHs. reflexivity.
    + exists (E1 ++ [cop_eval Rvo o (map (senv X s1) is)]). rewrite Hsv, HE1, app_assoc. reflexivity.
Qed.

(** ** The adjoints: [accum] and [contribs] *)

(** The value of the adjoint of variable [k] (of the program being
    differentiated) in a state: that of the variable [adj] names for it,
    [[]] (which pairs to [0]) when it has none. *)
Definition aval (X : list vec) (s : bstate) (adj : list (option nat)) (k : nat) : vec :=
  match nth k adj None with Some v => senv X s v | None => [] end.

(** Every adjoint is an existing variable. *)
Definition adj_below (s : bstate) (adj : list (option nat)) : Prop :=
  forall k v, nth k adj None = Some v -> (v < bs_next s)%nat.

(** The adjoints have the lengths [dk]. *)
Definition adj_len (X : list vec) (s : bstate) (adj : list (option nat)) (dk : nat -> nat) : Prop :=
  forall k v, nth k adj None = Some v -> length (senv X s v) = dk k.

Lemma next_mono X s s' E : st_inv X s -> st_inv X s' -> sval X s' = sval X s ++ E ->
  (bs_next s <= bs_next s')%nat.
Proof.
  intros Hs Hs' HE. rewrite <- (sval_length X s Hs), <- (sval_length X s' Hs'), HE, app_length. lia.
Qed.

(** [accum adj i c s] adds the value of [c] to the adjoint of [i] and keeps
    the others. *)
Lemma accum_sound X adj i c s dk :
  st_inv X s -> adj_below s adj -> adj_len X s adj dk -> (c < bs_next s)%nat -> (i < length adj)%nat ->
  length (senv X s c) = dk i ->
  let r := accum adj i c s in
  st_inv X (snd r) /\ adj_below (snd r) (fst r) /\ adj_len X (snd r) (fst r) dk /\
  length (fst r) = length adj /\ (exists E, sval X (snd r) = sval X s ++ E) /\
  (forall k, k <> i -> aval X (snd r) (fst r) k = aval X s adj k) /\
  (forall T, dot T (aval X (snd r) (fst r) i) = dot T (aval X s adj i) + dot T (senv X s c)).
Proof.
  intros Hs Hb Hl Hc Hi Hci. unfold accum. cbv zeta.
  destruct (nth i adj None) as [old|] eqn:Ho.
  - assert (Hold : (old < bs_next s)%nat) by exact (Hb i old Ho).
    destruct (emit_sound X (radd (RV old) (RV c)) s Hs ltac:(cbn; tauto)) as (Hs1 & Hj & Hval & E & HE).
    destruct (emit (radd (RV old) (RV c)) s) as [j s1] eqn:Hem. cbn [fst snd] in *.
    pose proof (next_mono X s s1 E Hs Hs1 HE) as Hmono.
    assert (Hkeep : forall v, (v < bs_next s)%nat -> senv X s1 v = senv X s v).
    { intros v Hv. apply (senv_app X s s1 E v HE). rewrite sval_length by exact Hs. exact Hv. }
    assert (Hsum : senv X s1 j = vp (senv X s old) (senv X s c)).
    { rewrite Hval. unfold radd. rewrite reval_RO. cbn [map reval]. apply ce_add.
      rewrite (Hl i old Ho). symmetry. exact Hci. }
    split; [exact Hs1|]. split; [|split; [|split; [|split; [|split]]]].
    + intros k v Hk. destruct (Nat.eq_dec k i) as [->|Hki].
      * rewrite nth_upd_eq in Hk by exact Hi. injection Hk as <-. exact Hj.
      * rewrite nth_upd_ne in Hk by exact Hki. specialize (Hb k v Hk). lia.
    + intros k v Hk. destruct (Nat.eq_dec k i) as [->|Hki].
      * rewrite nth_upd_eq in Hk by exact Hi. injection Hk as <-.
        rewrite Hsum, length_vp, (Hl i old Ho), Hci. lia.
      * rewrite nth_upd_ne in Hk by exact Hki. rewrite Hkeep by exact (Hb k v Hk). exact (Hl k v Hk).
    + apply upd_length.
    + exists E. exact HE.
    + intros k Hki. unfold aval. rewrite nth_upd_ne by exact Hki.
      destruct (nth k adj None) as [v|] eqn:Hv; [|reflexivity]. apply Hkeep. exact (Hb k v Hv).
    + intros T. unfold aval. rewrite nth_upd_eq by exact Hi. rewrite Ho, Hsum, dot_vp_r. reflexivity.
  - cbn [fst snd]. split; [exact Hs|]. split; [|split; [|split; [|split; [|split]]]].
    + intros k v Hk. destruct (Nat.eq_dec k i) as [->|Hki].
      * rewrite nth_upd_eq in Hk by exact Hi. injection Hk as <-. exact Hc.
      * rewrite nth_upd_ne in Hk by exact Hki. exact (Hb k v Hk).
    + intros k v Hk. destruct (Nat.eq_dec k i) as [->|Hki].
      * rewrite nth_upd_eq in Hk by exact Hi. injection Hk as <-. exact Hci.
      * rewrite nth_upd_ne in Hk by exact Hki. exact (Hl k v Hk).
    + apply upd_length.
    + exists []. symmetry. apply app_nil_r.
    + intros k Hki. unfold aval. rewrite nth_upd_ne by exact Hki. reflexivity.
    + intros T. unfold aval. rewrite nth_upd_eq by exact Hi. rewrite Ho, dot_nil_r. ring.
Qed.

Lemma aval_ext X s s' adj E k : st_inv X s -> adj_below s adj -> sval X s' = sval X s ++ E ->
  aval X s' adj k = aval X s adj k.
Proof.
  intros Hs Hb HE. unfold aval. destruct (nth k adj None) as [v|] eqn:Hv; [|reflexivity].
  apply (senv_app X s s' E v HE). rewrite sval_length by exact Hs. exact (Hb k v Hv).
Qed.

(** The contributions [cs] to the arguments [args] that reach variable [k],
    paired with [T]. *)
Fixpoint ctr_at (env : nat -> vec) (k : nat) (T : vec) (args : list nat) (cs : list (option rexp)) : R :=
  match args, cs with
  | a :: args', Some e :: cs' =>
      (if Nat.eq_dec a k then dot T (reval env e) else 0) + ctr_at env k T args' cs'
  | _ :: args', None :: cs' => ctr_at env k T args' cs'
  | _, _ => 0
  end.

(** The contributions read earlier variables and have their argument's
    length. *)
Fixpoint cs_ok (X : list vec) (s : bstate) (dk : nat -> nat) (args : list nat) (cs : list (option rexp)) : Prop :=
  match args, cs with
  | a :: args', Some e :: cs' =>
      rbelow (bs_next s) e /\ length (reval (senv X s) e) = dk a /\ cs_ok X s dk args' cs'
  | _ :: args', None :: cs' => cs_ok X s dk args' cs'
  | _, _ => True
  end.

Lemma ctr_at_ext X s s' E k T args cs dk : st_inv X s -> st_inv X s' -> sval X s' = sval X s ++ E ->
  cs_ok X s dk args cs ->
  ctr_at (senv X s') k T args cs = ctr_at (senv X s) k T args cs /\ cs_ok X s' dk args cs.
Proof.
  intros Hs Hs' HE. assert (Hkeep : forall v, (v < bs_next s)%nat -> senv X s' v = senv X s v).
  { intros v Hv. apply (senv_app X s s' E v HE). rewrite sval_length by exact Hs. exact Hv. }
  assert (Hn : (bs_next s <= length (sval X s'))%nat).
  { rewrite HE, app_length, sval_length by exact Hs. lia. }
  revert cs; induction args as [|a args IH]; intros [|[e|] cs] Hok; cbn [ctr_at cs_ok] in Hok |- *; try tauto.
  - destruct Hok as (Hb & Hlen & Hok).
    assert (Hr : reval (senv X s') e = reval (senv X s) e) by exact (reval_ext _ _ _ e Hkeep Hb).
    destruct (IH cs Hok) as [IH1 IH2]. rewrite Hr, IH1. split; [reflexivity|].
    split; [|split; [exact Hlen|exact IH2]].
    apply (rbelow_mono (bs_next s)); [|exact Hb]. pose proof (sval_length X s' Hs'). lia.
  - apply IH. exact Hok.
Qed.

(** [contribs] adds to each argument's adjoint its contribution. *)
Lemma contribs_sound X dk args : forall cs adj s,
  st_inv X s -> adj_below s adj -> adj_len X s adj dk ->
  Forall (fun a => a < length adj)%nat args -> cs_ok X s dk args cs ->
  let r := contribs args cs adj s in
  st_inv X (snd r) /\ adj_below (snd r) (fst r) /\ adj_len X (snd r) (fst r) dk /\
  length (fst r) = length adj /\ (exists E, sval X (snd r) = sval X s ++ E) /\
  (forall k T, dot T (aval X (snd r) (fst r) k) = dot T (aval X s adj k) + ctr_at (senv X s) k T args cs).
Proof.
  induction args as [|a args IH]; intros cs adj s Hs Hb Hl Hargs Hok.
  - cbn. split; [exact Hs|]. split; [exact Hb|]. split; [exact Hl|]. split; [reflexivity|].
    split; [exists []; symmetry; apply app_nil_r|]. intros. ring.
  - inversion Hargs as [|? ? Ha Hargs']; subst.
    destruct cs as [|[e|] cs].
    + cbn. split; [exact Hs|]. split; [exact Hb|]. split; [exact Hl|]. split; [reflexivity|].
      split; [exists []; symmetry; apply app_nil_r|]. intros. ring.
    + cbn [cs_ok] in Hok. destruct Hok as (Hbe & Hle & Hok).
      cbn [contribs].
      destruct (emit_sound X e s Hs Hbe) as (Hs1 & Hc & Hval & E1 & HE1).
      destruct (emit e s) as [c s1] eqn:Hem. cbn [fst snd] in *.
      assert (Hkeep1 : forall v, (v < bs_next s)%nat -> senv X s1 v = senv X s v).
      { intros v Hv. apply (senv_app X s s1 E1 v HE1). rewrite sval_length by exact Hs. exact Hv. }
      pose proof (next_mono X s s1 E1 Hs Hs1 HE1) as Hm1.
      assert (Hb1 : adj_below s1 adj) by (intros k v Hk; specialize (Hb k v Hk); lia).
      assert (Hl1 : adj_len X s1 adj dk) by (intros k v Hk; rewrite Hkeep1 by exact (Hb k v Hk); exact (Hl k v Hk)).
      assert (Hcl : length (senv X s1 c) = dk a) by (rewrite Hval; exact Hle).
      destruct (accum_sound X adj a c s1 dk Hs1 Hb1 Hl1 Hc Ha Hcl) as (Hs2 & Hb2 & Hl2 & Hlen2 & (E2 & HE2) & Hoth & Hself).
      destruct (accum adj a c s1) as [adj1 s2] eqn:Hac. cbn [fst snd] in *.
      assert (HE12 : sval X s2 = sval X s ++ (E1 ++ E2)) by (rewrite HE2, HE1, app_assoc; reflexivity).
      destruct (ctr_at_ext X s s2 (E1 ++ E2) 0 [] args cs dk Hs Hs2 HE12 Hok) as [_ Hok2].
      assert (Hargs2 : Forall (fun a => a < length adj1)%nat args) by (rewrite Hlen2; exact Hargs').
      destruct (IH cs adj1 s2 Hs2 Hb2 Hl2 Hargs2 Hok2) as (Hs3 & Hb3 & Hl3 & Hlen3 & (E3 & HE3) & Hdot).
      destruct (contribs args cs adj1 s2) as [adj3 s3]. cbn [fst snd] in *.
      split; [exact Hs3|]. split; [exact Hb3|]. split; [exact Hl3|]. split; [lia|].
      split; [exists (E1 ++ E2 ++ E3); rewrite HE3, HE12, <- !app_assoc; reflexivity|].
      intros k T. rewrite Hdot.
      destruct (ctr_at_ext X s s2 (E1 ++ E2) k T args cs dk Hs Hs2 HE12 Hok) as [Hct _]. rewrite Hct.
      rewrite <- (aval_ext X s s1 adj E1 k Hs Hb HE1).
      destruct (Nat.eq_dec a k) as [->|Hak].
      * rewrite Hself, Hval. cbn [ctr_at]. destruct (Nat.eq_dec k k) as [_|C]; [ring|congruence].
      * rewrite Hoth by (intros ->; apply Hak; reflexivity). cbn [ctr_at].
        destruct (Nat.eq_dec a k) as [C|_]; [contradiction|ring].
    + cbn [cs_ok] in Hok. cbn [contribs ctr_at]. apply (IH cs adj s Hs Hb Hl Hargs' Hok).
Qed.

(** ** One step of the sweep: the chain rule at one instruction *)

(** Summed over the variables, the contributions that reach each one are
    the contributions paired with the arguments' tangents: fan-out (an
    argument read twice) is a sum. *)
Lemma sum_ctr_at env (T : nat -> vec) args cs N : Forall (fun a => a < N)%nat args ->
  sumn N (fun k => ctr_at env k (T k) args cs) = ctr env (map T args) cs.
Proof.
  revert cs; induction args as [|a args IH]; intros cs Hargs.
  - apply sumn_0. intros k _. destruct cs as [|[e|] cs]; reflexivity.
  - inversion Hargs as [|? ? Ha Hargs']; subst.
    destruct cs as [|[e|] cs]; cbn [ctr_at ctr map].
    + apply sumn_0. intros. reflexivity.
    + rewrite sumn_add, IH by exact Hargs'. f_equal.
      transitivity (sumn N (fun k => if Nat.eqb a k then dot (T k) (reval env e) else 0)).
      * apply sumn_ext. intros k _. destruct (Nat.eq_dec a k) as [->|Hak].
        -- rewrite Nat.eqb_refl. reflexivity.
        -- apply Nat.eqb_neq in Hak. rewrite Hak. reflexivity.
      * rewrite sumn_single. apply Nat.ltb_lt in Ha. rewrite Ha. reflexivity.
    + apply IH. exact Hargs'.
Qed.

(** The pairing of the tangents [T] of the first [N] variables with their
    adjoints. *)
Definition pairing X s adj (T : nat -> vec) N : R := sumn N (fun k => dot (T k) (aval X s adj k)).

(** Sweeping one instruction [j = o(args)] whose adjoint is [g]: the
    contributions of its [vjp] added to the adjoints of its arguments turn
    the pairing over the variables before [j] plus [j]'s own term into the
    pairing over the variables before [j].  [xv] are the values of the
    program's variables, [ren] where the differentiated program holds them,
    [T] tangents of the program's variables with [T j] the derivative of
    [o] at its arguments in the direction of theirs ([cop_tan]). *)
Lemma sweep_step X dk s adj (xv T : nat -> vec) (ren : nat -> nat) j o args g :
  st_inv X s -> adj_below s adj -> adj_len X s adj dk ->
  Forall (fun a => a < j)%nat args -> (j <= length adj)%nat ->
  cop_ok o (map (fun a => length (xv a)) args) ->
  (forall a, In a args -> length (T a) = length (xv a)) ->
  (forall a, In a args -> senv X s (ren a) = xv a) ->
  senv X s (ren j) = cop_eval Rvo o (map xv args) ->
  length (senv X s g) = cop_dim o (map (fun a => length (xv a)) args) ->
  op_diff o (map xv args) ->
  T j = cop_tan o (map xv args) (map T args) ->
  cs_ok X s dk args (vjp o (map ren args) (map (fun a => length (xv a)) args) (ren j) g) ->
  let r := contribs args (vjp o (map ren args) (map (fun a => length (xv a)) args) (ren j) g) adj s in
  st_inv X (snd r) /\ adj_below (snd r) (fst r) /\ adj_len X (snd r) (fst r) dk /\
  length (fst r) = length adj /\ (exists E, sval X (snd r) = sval X s ++ E) /\
  pairing X (snd r) (fst r) T j = pairing X s adj T j + dot (T j) (senv X s g).
Proof.
  intros Hs Hb Hl Hargs Hj Hok HT Hren Hy Hg Hd HTj Hcs.
  assert (Hargs' : Forall (fun a => a < length adj)%nat args).
  { eapply Forall_impl; [|exact Hargs]. intros a Ha. cbv beta in Ha. lia. }
  destruct (contribs_sound X dk args _ adj s Hs Hb Hl Hargs' Hcs) as (Hs' & Hb' & Hl' & Hlen' & HE' & Hdot).
  split; [exact Hs'|]. split; [exact Hb'|]. split; [exact Hl'|]. split; [exact Hlen'|]. split; [exact HE'|].
  unfold pairing. rewrite (sumn_ext j _ (fun k => dot (T k) (aval X s adj k) +
    ctr_at (senv X s) k (T k) args (vjp o (map ren args) (map (fun a => length (xv a)) args) (ren j) g)))
    by (intros k _; apply Hdot).
  rewrite sumn_add, sum_ctr_at by exact Hargs. f_equal.
  rewrite HTj. rewrite <- (map_map xv (@length R)).
  apply vjp_adjoint.
  - rewrite map_map. exact Hok.
  - rewrite !map_map. apply map_ext_in. exact HT.
  - rewrite !map_length. reflexivity.
  - intros i Hi. rewrite map_length in Hi.
    rewrite (nth_map_lt ren args i 0%nat 0%nat) by exact Hi.
    erewrite nth_map_lt by exact Hi. apply Hren. apply nth_In. exact Hi.
  - exact Hy.
  - rewrite map_map. exact Hg.
  - exact Hd.
Qed.

(** ** The contributions of [vjp] have their arguments' lengths *)

(** An expression judged over the lengths [D] of the variables has, in
    the real model, the length [rexp_dim] gives. *)
Lemma reval_len D (env : nat -> vec) e :
  (forall i, (i < length D)%nat -> length (env i) = nth i D 0%nat) ->
  rexp_ok D e -> length (reval env e) = rexp_dim D e /\ rbelow (length D) e.
Proof.
  intros Henv. induction e as [i|o es IH] using rexp_ind'; cbn [rexp_ok rexp_dim reval rbelow].
  - intros Hi. split; [apply Henv; exact Hi|exact Hi].
  - intros Hok. apply fold_right_and_map in Hok as [Hes Hcop].
    assert (Hall : Forall (fun e => length (reval env e) = rexp_dim D e /\ rbelow (length D) e) es).
    { clear Hcop. induction IH as [|e es He _ IHes]; constructor; inversion Hes; subst; auto. }
    split.
    + apply (cop_eval_fits Rvo (list_vec_shapes Rsc) o (map (rexp_dim D) es) (map (reval env) es) Hcop).
      unfold fit_dims. clear -Hall. induction Hall as [|e es [H _] _ IHa]; cbn; constructor; auto.
    + clear -Hall. induction Hall as [|e es [_ H] _ IHa]; cbn; [exact I|]. split; assumption.
Qed.

(** The hypothesis [cs_ok] of [sweep_step], from the lengths alone. *)
Lemma vjp_cs_ok X s (xv : nat -> vec) (ren : nat -> nat) j o args g :
  st_inv X s -> cop_ok o (map (fun a => length (xv a)) args) ->
  (forall a, In a args -> (ren a < bs_next s)%nat /\ senv X s (ren a) = xv a) ->
  (ren j < bs_next s)%nat -> senv X s (ren j) = cop_eval Rvo o (map xv args) ->
  (g < bs_next s)%nat -> length (senv X s g) = cop_dim o (map (fun a => length (xv a)) args) ->
  cs_ok X s (fun a => length (xv a)) args
    (vjp o (map ren args) (map (fun a => length (xv a)) args) (ren j) g).
Proof.
  intros Hs Hok Hargs Hj Hy Hg Hgl.
  set (D := map (@length R) (sval X s)).
  assert (HD : length D = bs_next s) by (unfold D; rewrite map_length; apply sval_length; exact Hs).
  assert (Henv : forall i, (i < length D)%nat -> length (senv X s i) = nth i D 0%nat).
  { intros i Hi. unfold D, senv. rewrite HD, <- (sval_length X s Hs) in Hi.
    rewrite (nth_map_lt _ _ _ [] 0%nat) by exact Hi. reflexivity. }
  assert (Hlen : forall v, (v < bs_next s)%nat -> nth v D 0%nat = length (senv X s v)).
  { intros v Hv. symmetry. apply Henv. rewrite HD. exact Hv. }
  assert (Hyl : length (senv X s (ren j)) = cop_dim o (map (fun a => length (xv a)) args)).
  { rewrite Hy. rewrite <- (map_map xv (@length R)).
    apply (cop_eval_fits Rvo (list_vec_shapes Rsc)); [rewrite map_map; exact Hok|].
    unfold fit_dims. clear. induction args as [|a args IH]; cbn; constructor; auto. }
  assert (Has : Forall2 (fun a d => (a < length D)%nat /\ nth a D 0%nat = d)
                        (map ren args) (map (fun a => length (xv a)) args)).
  { clear -Hargs HD Hlen. induction args as [|a args IH]; cbn; constructor.
    - destruct (Hargs a (or_introl eq_refl)) as [Ha Hv]. rewrite HD. split; [exact Ha|].
      rewrite Hlen, Hv by exact Ha. reflexivity.
    - apply IH. intros b Hb. apply Hargs. right. exact Hb. }
  pose proof (vjp_dims D o (map ren args) (map (fun a => length (xv a)) args) (ren j) g Hok Has
                ltac:(rewrite HD; exact Hj) ltac:(rewrite Hlen by exact Hj; exact Hyl)
                ltac:(rewrite HD; exact Hg) ltac:(rewrite Hlen by exact Hg; exact Hgl)) as Hv.
  revert Hv. generalize (vjp o (map ren args) (map (fun a => length (xv a)) args) (ren j) g) as cs.
  clear -Henv HD. induction args as [|a args IH]; intros cs Hv; [destruct cs as [|[e|] cs]; exact I|].
  cbn [map] in Hv. inversion Hv as [|c d cs' ds' Hc Hv' Ec Ed]; subst.
  destruct c as [e|]; cbn [cs_ok].
  - destruct Hc as [Hok He]. destruct (reval_len D (senv X s) e Henv Hok) as [H1 H2].
    rewrite <- HD. split; [exact H2|]. split; [rewrite H1; exact He|]. apply IH. exact Hv'.
  - apply IH. exact Hv'.
Qed.

(** ** The backward sweep over a body: the chain rule by induction *)

Lemma combine_app' {A B} (l1 l2 : list A) (m1 m2 : list B) : length l1 = length m1 ->
  combine (l1 ++ l2) (m1 ++ m2) = combine l1 m1 ++ combine l2 m2.
Proof.
  revert m1; induction l1 as [|a l1 IH]; intros [|b m1] H; cbn in *; try discriminate; [reflexivity|].
  rewrite IH by lia. reflexivity.
Qed.

Lemma firstn_S_nth {A} (l : list A) t d : (t < length l)%nat -> firstn (S t) l = firstn t l ++ [nth t l d].
Proof.
  revert t; induction l as [|x l IH]; intros [|t] H; cbn in *; try lia; [reflexivity|].
  rewrite <- IH by lia. reflexivity.
Qed.

(** The instructions [t−1, …, 0] of a body, the last first, as [rd_prog]
    sweeps them. *)
Definition swept (body : list (cop * list nat)) (t : nat) : list (nat * (cop * list nat)) :=
  rev (combine (seq 0 t) (firstn t body)).

Lemma swept_S body t : (t < length body)%nat ->
  swept body (S t) = (t, nth t body (OZero 0, [])) :: swept body t.
Proof.
  intros Ht. unfold swept. rewrite seq_S, (firstn_S_nth body t (OZero 0, [])) by exact Ht.
  rewrite combine_app' by (rewrite seq_length, firstn_length; lia). rewrite rev_app_distr. reflexivity.
Qed.

Section sweep.
Variables (X : list vec) (nin q : nat) (dims : list nat) (xv T : nat -> vec).

(** What the sweep of instruction [j] of the body needs: its arguments are
    earlier variables with lengths [dims] and the values [xv] (held at
    [ren] in the state [s]), its result is [o] of them (held at [ren] too),
    [o] is smooth there ([op_diff]), and the tangent of [j] is the
    derivative of [o] in the direction of its arguments' tangents. *)
Definition instr_ok (s : bstate) (j : nat) (ins : cop * list nat) : Prop :=
  let o := fst ins in let args := snd ins in
  Forall (fun a => a < nin + j)%nat args /\
  cop_ok o (map (fun a => length (xv a)) args) /\
  (forall a, In a args -> length (T a) = length (xv a) /\ nth a dims 0%nat = length (xv a) /\
                          (ren nin q a < bs_next s)%nat /\ senv X s (ren nin q a) = xv a) /\
  (ren nin q (nin + j) < bs_next s)%nat /\ senv X s (ren nin q (nin + j)) = xv (nin + j) /\
  xv (nin + j) = cop_eval Rvo o (map xv args) /\
  op_diff o (map xv args) /\
  T (nin + j) = cop_tan o (map xv args) (map T args).

Lemma instr_ok_ext s s' E j ins : st_inv X s -> st_inv X s' -> sval X s' = sval X s ++ E ->
  instr_ok s j ins -> instr_ok s' j ins.
Proof.
  intros Hs Hs' HE (H1 & H2 & H3 & H4 & H5 & H6 & H7 & H8).
  pose proof (next_mono X s s' E Hs Hs' HE) as Hm.
  assert (Hkeep : forall v, (v < bs_next s)%nat -> senv X s' v = senv X s v).
  { intros v Hv. apply (senv_app X s s' E v HE). rewrite sval_length by exact Hs. exact Hv. }
  split; [exact H1|]. split; [exact H2|]. split.
  - intros a Ha. destruct (H3 a Ha) as (Ha1 & Ha2 & Ha3 & Ha4).
    split; [exact Ha1|]. split; [exact Ha2|]. split; [lia|]. rewrite Hkeep by exact Ha3. exact Ha4.
  - split; [lia|]. split; [rewrite Hkeep by exact H4; exact H5|]. split; [exact H6|]. split; assumption.
Qed.

(** The sweep of the instructions [t−1, …, 0] turns the pairing of the
    tangents with the adjoints over the first [nin + t] variables into
    the pairing over the inputs. *)
Theorem back_sound body t : forall adj s,
  (t <= length body)%nat ->
  (forall j, (j < t)%nat -> instr_ok s j (nth j body (OZero 0, []))) ->
  st_inv X s -> adj_below s adj -> adj_len X s adj (fun a => length (xv a)) ->
  (nin + t <= length adj)%nat ->
  let r := back nin q dims (swept body t) adj s in
  st_inv X (snd r) /\ adj_below (snd r) (fst r) /\ adj_len X (snd r) (fst r) (fun a => length (xv a)) /\
  length (fst r) = length adj /\ (exists E, sval X (snd r) = sval X s ++ E) /\
  pairing X (snd r) (fst r) T nin = pairing X s adj T (nin + t).
Proof.
  induction t as [|t IH]; intros adj s Ht Hins Hs Hb Hl Hadj.
  - unfold swept. cbn. split; [exact Hs|]. split; [exact Hb|]. split; [exact Hl|]. split; [reflexivity|].
    split; [exists []; symmetry; apply app_nil_r|]. rewrite Nat.add_0_r. reflexivity.
  - rewrite swept_S by lia. cbn [back].
    destruct (Hins t (Nat.lt_succ_diag_r t)) as (H1 & H2 & H3 & H4 & H5 & H6 & H7 & H8).
    destruct (nth t body (OZero 0, [])) as [o args] eqn:Hnt. cbn [fst snd] in *.
    assert (Hsplit : pairing X s adj T (nin + S t) =
                     pairing X s adj T (nin + t) + dot (T (nin + t)%nat) (aval X s adj (nin + t))).
    { unfold pairing. rewrite Nat.add_succ_r. reflexivity. }
    destruct (nth (nin + t) adj None) as [g|] eqn:Hg.
    + assert (Hgl : length (senv X s g) = cop_dim o (map (fun a => length (xv a)) args)).
      { rewrite (Hl _ g Hg), H6. rewrite <- (map_map xv (@length R)).
        apply (cop_eval_fits Rvo (list_vec_shapes Rsc)); [rewrite map_map; exact H2|].
        unfold fit_dims. clear. induction args as [|a args IH]; cbn; constructor; auto. }
      assert (Hdims : map (fun i => nth i dims 0%nat) args = map (fun a => length (xv a)) args).
      { apply map_ext_in. intros a Ha. apply (H3 a Ha). }
      rewrite Hdims.
      assert (Hcs := vjp_cs_ok X s xv (ren nin q) (nin + t) o args g Hs H2
        (fun a Ha => conj (proj1 (proj2 (proj2 (H3 a Ha)))) (proj2 (proj2 (proj2 (H3 a Ha)))))
        H4 ltac:(rewrite H5; exact H6) (Hb _ g Hg) Hgl).
      assert (Hargs : Forall (fun a => a < nin + t)%nat args) by exact H1.
      destruct (sweep_step X (fun a => length (xv a)) s adj xv T (ren nin q) (nin + t) o args g
                  Hs Hb Hl Hargs ltac:(lia) H2 (fun a Ha => proj1 (H3 a Ha))
                  (fun a Ha => proj2 (proj2 (proj2 (H3 a Ha)))) ltac:(rewrite H5; exact H6) Hgl H7 H8 Hcs)
        as (Hs1 & Hb1 & Hl1 & Hlen1 & (E1 & HE1) & Hp1).
      destruct (contribs args _ adj s) as [adj1 s1]. cbn [fst snd] in *.
      destruct (IH adj1 s1 ltac:(lia)
                  (fun j Hj => instr_ok_ext s s1 E1 j _ Hs Hs1 HE1 (Hins j ltac:(lia)))
                  Hs1 Hb1 Hl1 ltac:(lia)) as (Hs2 & Hb2 & Hl2 & Hlen2 & (E2 & HE2) & Hp2).
      split; [exact Hs2|]. split; [exact Hb2|]. split; [exact Hl2|]. split; [lia|].
      split; [exists (E1 ++ E2); rewrite HE2, HE1, <- app_assoc; reflexivity|].
      rewrite Hp2, Hp1, Hsplit. unfold aval. rewrite Hg. reflexivity.
    + destruct (IH adj s ltac:(lia) (fun j Hj => Hins j ltac:(lia)) Hs Hb Hl ltac:(lia))
        as (Hs2 & Hb2 & Hl2 & Hlen2 & HE2 & Hp2).
      split; [exact Hs2|]. split; [exact Hb2|]. split; [exact Hl2|]. split; [exact Hlen2|].
      split; [exact HE2|]. rewrite Hp2, Hsplit. unfold aval. rewrite Hg, dot_nil_r. ring.
Qed.
End sweep.

(** The sweep of the whole body, from a state that extends the one the
    instructions are judged in. *)
Lemma back_whole X nin q dims (xv T : nat -> vec) body s0 adj1 s1 adj2 s2 E1 :
  st_inv X s0 -> st_inv X s1 -> sval X s1 = sval X s0 ++ E1 ->
  (forall j, (j < length body)%nat -> instr_ok X nin q dims xv T s0 j (nth j body (OZero 0, []))) ->
  adj_below s1 adj1 -> adj_len X s1 adj1 (fun a => length (xv a)) -> (nin + length body <= length adj1)%nat ->
  back nin q dims (rev (combine (seq 0 (length body)) body)) adj1 s1 = (adj2, s2) ->
  st_inv X s2 /\ adj_below s2 adj2 /\ adj_len X s2 adj2 (fun a => length (xv a)) /\
  length adj2 = length adj1 /\ (exists E, sval X s2 = sval X s1 ++ E) /\
  pairing X s2 adj2 T nin = pairing X s1 adj1 T (nin + length body).
Proof.
  intros Hs0 Hs1 HE1 Hins Hb1 Hl1 Hlen Hback.
  pose proof (back_sound X nin q dims xv T body (length body) adj1 s1 (le_n _)
                (fun j Hj => instr_ok_ext X nin q dims xv T s0 s1 E1 j _ Hs0 Hs1 HE1 (Hins j Hj)) Hs1 Hb1 Hl1 Hlen) as H.
  unfold swept in H. rewrite firstn_all, Hback in H. exact H.
Qed.

(** ** The seed: each output's adjoint starts at its cotangent *)

Lemma pairing_upd X s s' adj adj' T N i δ :
  (i < N)%nat -> (forall k, k <> i -> aval X s' adj' k = aval X s adj k) ->
  dot (T i) (aval X s' adj' i) = dot (T i) (aval X s adj i) + δ ->
  pairing X s' adj' T N = pairing X s adj T N + δ.
Proof.
  intros Hi Hk Hd. unfold pairing.
  rewrite (sumn_ext N _ (fun k => dot (T k) (aval X s adj k) + (if Nat.eqb i k then δ else 0))).
  - rewrite sumn_add. pose proof (sumn_single N i (fun _ => δ)) as Hs. cbv beta in Hs. rewrite Hs.
    apply Nat.ltb_lt in Hi. rewrite Hi. reflexivity.
  - intros k _. destruct (Nat.eqb_spec i k) as [<-|Hik]; [exact Hd|]. rewrite Hk by congruence. ring.
Qed.

(** [seed] adds to the adjoint of each output [outs_p] the cotangent held
    by the variable [nin + r + p] (of value [w (r + p)]). *)
Lemma seed_sound X dk (T w : nat -> vec) nin N outs : forall r adj s,
  st_inv X s -> adj_below s adj -> adj_len X s adj dk ->
  Forall (fun o => o < N)%nat outs -> (N <= length adj)%nat ->
  (forall p, (p < length outs)%nat ->
     (nin + r + p < bs_next s)%nat /\ senv X s (nin + r + p) = w (r + p)%nat /\
     length (w (r + p)%nat) = dk (nth p outs 0%nat)) ->
  let res := seed nin outs r adj s in
  st_inv X (snd res) /\ adj_below (snd res) (fst res) /\ adj_len X (snd res) (fst res) dk /\
  length (fst res) = length adj /\ (exists E, sval X (snd res) = sval X s ++ E) /\
  pairing X (snd res) (fst res) T N =
    pairing X s adj T N + sumn (length outs) (fun p => dot (T (nth p outs 0%nat)) (w (r + p)%nat)).
Proof.
  induction outs as [|o outs IH]; intros r adj s Hs Hb Hl Houts HN Hw.
  - cbn. split; [exact Hs|]. split; [exact Hb|]. split; [exact Hl|]. split; [reflexivity|].
    split; [exists []; symmetry; apply app_nil_r|]. ring.
  - inversion Houts as [|? ? Ho Houts']; subst. cbn [seed].
    destruct (Hw 0%nat ltac:(cbn; lia)) as (Hc & Hv & Hwl). rewrite !Nat.add_0_r in Hc, Hv, Hwl.
    cbn [nth] in Hwl.
    destruct (accum_sound X adj o (nin + r) s dk Hs Hb Hl Hc ltac:(lia) ltac:(rewrite Hv, ?Nat.add_0_r; exact Hwl))
      as (Hs1 & Hb1 & Hl1 & Hlen1 & (E1 & HE1) & Hoth & Hself).
    destruct (accum adj o (nin + r) s) as [adj1 s1]. cbn [fst snd] in *.
    assert (Hkeep : forall v, (v < bs_next s)%nat -> senv X s1 v = senv X s v).
    { intros v Hv'. apply (senv_app X s s1 E1 v HE1). rewrite sval_length by exact Hs. exact Hv'. }
    pose proof (next_mono X s s1 E1 Hs Hs1 HE1) as Hm.
    destruct (IH (S r) adj1 s1 Hs1 Hb1 Hl1 Houts' ltac:(lia)) as (Hs2 & Hb2 & Hl2 & Hlen2 & (E2 & HE2) & Hp2).
    { intros p Hp. destruct (Hw (S p) ltac:(cbn; lia)) as (H1 & H2 & H3).
      replace (nin + S r + p)%nat with (nin + r + S p)%nat by lia.
      replace (S r + p)%nat with (r + S p)%nat by lia.
      split; [lia|]. split; [rewrite Hkeep by exact H1; exact H2|exact H3]. }
    destruct (seed nin outs (S r) adj1 s1) as [adj2 s2]. cbn [fst snd] in *.
    split; [exact Hs2|]. split; [exact Hb2|]. split; [exact Hl2|]. split; [lia|].
    split; [exists (E1 ++ E2); rewrite HE2, HE1, <- app_assoc; reflexivity|].
    rewrite Hp2. rewrite (pairing_upd X s s1 adj adj1 T N o (dot (T o) (w r)) Ho Hoth)
      by (rewrite Hself, Hv, ?Nat.add_0_r; reflexivity).
    cbn [length]. rewrite sumn_shift. cbn [nth]. rewrite Nat.add_0_r.
    rewrite (sumn_ext (length outs) (fun p => dot (T (nth p outs 0%nat)) (w (S r + p)%nat))
               (fun i => dot (T (nth i outs 0%nat)) (w (r + S i)%nat)))
      by (intros i _; replace (S r + i)%nat with (r + S i)%nat by lia; reflexivity).
    ring.
Qed.

(** ** The outputs: each input's adjoint, zero when nothing reached it *)
Lemma finals_sound X ds : forall i adj s,
  st_inv X s -> adj_below s adj ->
  let res := finals i ds adj s in
  st_inv X (snd res) /\ (exists E, sval X (snd res) = sval X s ++ E) /\
  length (fst res) = length ds /\ Forall (fun v => v < bs_next (snd res))%nat (fst res) /\
  (forall p h, (p < length ds)%nat ->
     dot h (senv X (snd res) (nth p (fst res) 0%nat)) = dot h (aval X s adj (i + p))).
Proof.
  induction ds as [|d ds IH]; intros i adj s Hs Hb.
  - cbn. split; [exact Hs|]. split; [exists []; symmetry; apply app_nil_r|]. split; [reflexivity|].
    split; [constructor|]. intros p h Hp. cbn in Hp. lia.
  - cbn [finals].
    assert (Hx : exists x s1, (match nth i adj None with Some x => (x, s) | None => emit (RO (OZero d) []) s end)
                               = (x, s1) /\ st_inv X s1 /\ (exists E, sval X s1 = sval X s ++ E) /\
                               (x < bs_next s1)%nat /\ forall h, dot h (senv X s1 x) = dot h (aval X s adj i)).
    { unfold aval. destruct (nth i adj None) as [x|] eqn:Hx.
      - exists x, s. split; [reflexivity|]. split; [exact Hs|]. split; [exists []; symmetry; apply app_nil_r|].
        split; [exact (Hb i x Hx)|]. reflexivity.
      - destruct (emit_sound X (RO (OZero d) []) s Hs I) as (Hs1 & Hv & Hval & E & HE).
        destruct (emit (RO (OZero d) []) s) as [x s1]. cbn [fst snd] in *.
        exists x, s1. split; [reflexivity|]. split; [exact Hs1|]. split; [exists E; exact HE|].
        split; [exact Hv|]. intros h. rewrite Hval, reval_RO. cbn [map]. rewrite ce_zero, dot_zeros_r, dot_nil_r.
        reflexivity. }
    destruct Hx as (x & s1 & Heq & Hs1 & (E1 & HE1) & Hxs & Hxv). rewrite Heq.
    pose proof (next_mono X s s1 E1 Hs Hs1 HE1) as Hm.
    assert (Hb1 : adj_below s1 adj) by (intros k v Hk; specialize (Hb k v Hk); lia).
    destruct (IH (S i) adj s1 Hs1 Hb1) as (Hs2 & (E2 & HE2) & Hlen2 & Hall2 & Hdot2).
    destruct (finals (S i) ds adj s1) as [xs s2]. cbn [fst snd] in *.
    pose proof (next_mono X s1 s2 E2 Hs1 Hs2 HE2) as Hm2.
    split; [exact Hs2|]. split; [exists (E1 ++ E2); rewrite HE2, HE1, <- app_assoc; reflexivity|].
    split; [cbn; lia|]. split; [constructor; [lia|exact Hall2]|].
    intros [|p] h Hp; cbn [nth].
    + rewrite (senv_app X s1 s2 E2 x HE2) by (rewrite sval_length by exact Hs1; exact Hxs).
      rewrite Hxv, Nat.add_0_r. reflexivity.
    + rewrite Hdot2 by (cbn in Hp; lia). rewrite (aval_ext X s s1 adj E1 (S i + p) Hs Hb HE1).
      replace (S i + p)%nat with (i + S p)%nat by lia. reflexivity.
Qed.

(** ** The whole backward pass: seed, sweep, outputs *)

(** From a state holding the forward values (the hypotheses [instr_ok] of
    every instruction, the cotangents [w] at [nin + p]), the seed, the
    sweep of the whole body and the outputs of [rd_prog] compute the
    transposed derivative: paired with the inputs' tangents [h], the
    outputs give the outputs' tangents paired with the cotangents,
    [Σᵢ ⟨hᵢ, outᵢ⟩ = Σₚ ⟨T(outsₚ), wₚ⟩], for the tangents [T] that
    [instr_ok] propagates from [h]. *)
Theorem sweep_sound X nin q dims (xv T w h : nat -> vec) body outs ds s0 adj1 s1 adj2 s2 res s3 :
  st_inv X s0 ->
  (forall j, (j < length body)%nat -> instr_ok X nin q dims xv T s0 j (nth j body (OZero 0, []))) ->
  Forall (fun o => o < nin + length body)%nat outs ->
  (forall p, (p < length outs)%nat ->
     (nin + p < bs_next s0)%nat /\ senv X s0 (nin + p) = w p /\ length (w p) = length (xv (nth p outs 0%nat))) ->
  (forall i, (i < nin)%nat -> T i = h i) -> length ds = nin ->
  seed nin outs 0 (repeat None (nin + length body)) s0 = (adj1, s1) ->
  back nin q dims (rev (combine (seq 0 (length body)) body)) adj1 s1 = (adj2, s2) ->
  finals 0 ds adj2 s2 = (res, s3) ->
  sumn nin (fun i => dot (h i) (senv X s3 (nth i res 0%nat))) =
  sumn (length outs) (fun p => dot (T (nth p outs 0%nat)) (w p)).
Proof.
  intros Hs0 Hins Houts Hw HTh Hds Hseed Hback Hfin.
  set (N := (nin + length body)%nat) in *.
  assert (Hnone : forall k, nth k (repeat (@None nat) N) None = None).
  { intros k. destruct (Nat.lt_ge_cases k N). - apply nth_repeat. - apply nth_overflow. rewrite repeat_length. lia. }
  assert (Hb0 : adj_below s0 (repeat None N)) by (intros k v Hk; rewrite Hnone in Hk; discriminate).
  assert (Hl0 : adj_len X s0 (repeat None N) (fun a => length (xv a))) by (intros k v Hk; rewrite Hnone in Hk; discriminate).
  assert (Hp0 : pairing X s0 (repeat None N) T N = 0).
  { unfold pairing. apply sumn_0. intros k _. unfold aval. rewrite Hnone. apply dot_nil_r. }
  destruct (seed_sound X (fun a => length (xv a)) T w nin N outs 0 (repeat None N) s0 Hs0 Hb0 Hl0 Houts
              ltac:(rewrite repeat_length; lia) ltac:(intros p Hp; rewrite Nat.add_0_r; exact (Hw p Hp)))
    as (Hs1 & Hb1 & Hl1 & Hlen1 & (E1 & HE1) & Hp1).
  rewrite Hseed in Hs1, Hb1, Hl1, Hlen1, HE1, Hp1. cbn [fst snd] in *. rewrite repeat_length in Hlen1.
  destruct (back_whole X nin q dims xv T body s0 adj1 s1 adj2 s2 E1 Hs0 Hs1 HE1 Hins Hb1 Hl1 ltac:(lia) Hback)
    as (Hs2 & Hb2 & Hl2 & Hlen2 & (E2 & HE2) & Hp2).
  destruct (finals_sound X ds 0 adj2 s2 Hs2 Hb2) as (Hs3 & _ & Hlen3 & _ & Hdot3).
  rewrite Hfin in Hs3, Hlen3, Hdot3. cbn [fst snd] in *.
  transitivity (pairing X s2 adj2 T nin).
  - unfold pairing. apply sumn_ext. intros i Hi. rewrite Hdot3 by lia. rewrite HTh by exact Hi. reflexivity.
  - rewrite Hp2. fold N. rewrite Hp1, Hp0. cbn [Nat.add]. ring.
Qed.

(** * The forward tangents are the derivative of a program

    [tvals] (rdcore_prog.v) propagates tangents through a body, each
    instruction's the derivative [cop_tan] of its operation at its
    arguments' values.  Here: wherever [cop_tan] is the Fréchet
    derivative of each operation the body performs at the values it
    performs it at ([cop_deriv], one hypothesis per instruction), the
    tangent of every variable is the Fréchet derivative ([has_deriv]) of
    that variable's value as a map of the flat input ([var_deriv]), by
    induction on the variables: an input is a block of the flat vector
    (a linear map), an instruction the composite of its operation with
    the concatenation of its arguments (the chain rule).

    [cop_deriv] for each operation is rdcore_opderiv.v (every operation
    but the [maxpool] family). *)
From RevHandlers.Analysis Require Import base vec sums templates prims level2 ev rdcore_real rdcore_sound rdcore_chain rdcore_fwd rdcore_prog rdcore_prune.
From RevHandlers Require Import shapes rdcore core_dims prune_dims.
Open Scope R_scope.

(** [cop_tan o xs] is the Fréchet derivative at [xs] of [o] as a map of
    its arguments concatenated. *)
Definition cop_deriv (o : cop) (xs : list vec) : Prop :=
  let ds := map (@length R) xs in
  has_deriv (dsum ds) (cop_dim o ds) (fun w => cop_eval Rvo o (split_at 0 ds w)) (concat xs)
            (fun h => cop_tan o xs (split_at 0 ds h)).

(** ** Blocks of a flat vector *)

Lemma dsum_cons d ds : dsum (d :: ds) = (d + dsum ds)%nat.
Proof. reflexivity. Qed.

Lemma split_at_fits c D (v : vec) : (c + dsum D <= length v)%nat ->
  Forall2 (fun d (w : vec) => length w = d) D (split_at c D v).
Proof.
  revert c. induction D as [|d D IH]; intros c Hc; cbn [split_at]; constructor; rewrite dsum_cons in Hc.
  - apply length_proj. lia.
  - apply IH. lia.
Qed.

Lemma split_at_nth c D (v : vec) k : (k < length D)%nat ->
  nth k (split_at c D v) [] = proj (c + dsum (firstn k D)) (nth k D 0%nat) v.
Proof.
  revert c k. induction D as [|d D IH]; intros c k Hk; cbn in Hk; [lia|].
  destruct k as [|k]; cbn [split_at nth firstn].
  - cbn. f_equal. lia.
  - rewrite IH by lia. rewrite dsum_cons. f_equal. lia.
Qed.

Lemma dsum_firstn_nth D k : (k < length D)%nat -> (dsum (firstn k D) + nth k D 0 <= dsum D)%nat.
Proof.
  revert k. induction D as [|d D IH]; intros k Hk; cbn in Hk; [lia|].
  destruct k as [|k]; cbn [firstn nth]; rewrite ?dsum_cons; [cbn; lia|]. specialize (IH k ltac:(lia)). lia.
Qed.

Lemma concat_length_dsum (ls : list vec) : length (concat ls) = dsum (map (@length R) ls).
Proof. induction ls as [|l ls IH]; [reflexivity|]. cbn [concat map]. rewrite app_length, IH. reflexivity. Qed.

Lemma split_at_concat0 (ls : list vec) : split_at 0 (map (@length R) ls) (concat ls) = ls.
Proof.
  apply (split_at_concat _ _ []). induction ls as [|l ls IH]; constructor; [reflexivity|exact IH].
Qed.

(** ** Concatenating differentiable maps *)

Lemma lin_nil n : lin n 0 (fun _ => []).
Proof. constructor; [intros v _; reflexivity|reflexivity|reflexivity]. Qed.

Lemma has_deriv_concat {A} n (F L : A -> vec -> vec) (d : A -> nat) x (l : list A) :
  length x = n -> Forall (fun a => has_deriv n (d a) (F a) x (L a)) l ->
  has_deriv n (dsum (map d l)) (fun v => concat (map (fun a => F a v) l)) x (fun h => concat (map (fun a => L a h) l)).
Proof.
  intros Hx Hl. induction Hl as [|a l Ha Hl IH].
  - apply (has_deriv_lin n 0 (fun _ => []) x (lin_nil n) Hx).
  - cbn [map concat]. rewrite dsum_cons. exact (has_deriv_pair _ _ _ _ _ _ _ _ Ha IH).
Qed.

(** ** Every variable *)

Section var_deriv.
Variables (D : list nat) (body : list (cop * list nat)) (x : vec).
Hypothesis Hwd : wd_body D body.
Hypothesis Hx : length x = dsum D.

(** Variable [k] as a map of the flat input, and its tangent. *)
Let F (k : nat) (v : vec) : vec := nth k (vals (split_at 0 D v) body) [].
Let L (k : nat) (h : vec) : vec := nth k (tvals (split_at 0 D x) (split_at 0 D h) body) [].
Let n := dsum D.

Lemma split_fits v : length v = n -> fit_dims Rvo D (split_at 0 D v).
Proof. intros Hv. apply split_at_fits. unfold n in Hv. lia. Qed.

Lemma split_len v : length (split_at 0 D v) = length D.
Proof. apply split_at_length. Qed.

Lemma reads_split v : reads_earlier (length (split_at 0 D v)) body.
Proof. intros j Hj. rewrite split_len. exact (proj1 (wd_nth D body j Hwd Hj)). Qed.

(** Informal proof: by strong induction on [k].  An input is
    [proj (offset) (length) v], linear; instruction [j] is
    [o ∘ concat (args)] ([xv_instr]) with tangent
    [cop_tan o (args' values) (args' tangents)] ([T_instr]): the chain
    rule ([has_deriv_comp]) with [has_deriv_concat] and [cop_deriv]. *)
Theorem var_deriv :
  (forall j, (j < length body)%nat ->
     cop_deriv (fst (nth j body (OZero 0, []))) (map (fun a => F a x) (snd (nth j body (OZero 0, []))))) ->
  forall k, (k < length D + length body)%nat -> has_deriv n (nth k (body_dims D body) 0%nat) (F k) x (L k).
Proof.
  intros Hd k. induction k as [k IH] using (well_founded_induction lt_wf). intros Hk.
  destruct (Nat.lt_ge_cases k (length D)) as [Hkd|Hkd].
  - (* an input: a block of the flat vector *)
    rewrite body_dims_nth by exact Hkd.
    assert (Hin : forall v, length v = n -> F k v = proj (dsum (firstn k D)) (nth k D 0%nat) v).
    { intros v Hv. unfold F. rewrite (vals_nth_prefix _ body 0) by (rewrite ?split_len; lia).
      cbn [firstn]. rewrite vals_nil. apply split_at_nth, Hkd. }
    apply (has_deriv_ext _ _ (proj (dsum (firstn k D)) (nth k D 0%nat)) _ _ (proj (dsum (firstn k D)) (nth k D 0%nat))).
    + intros v Hv. symmetry. apply Hin, Hv.
    + intros h Hh. unfold L, tvals. destruct (tgo_prefix (vals (split_at 0 D x) body) (split_at 0 D h) body) as [E HE].
      rewrite HE, app_nth1 by (rewrite split_len; exact Hkd). symmetry. apply split_at_nth, Hkd.
    + apply has_deriv_proj; [apply dsum_firstn_nth, Hkd|exact Hx].
  - (* instruction [j]: its operation after the concatenation of its arguments *)
    set (j := (k - length D)%nat). assert (Ek : k = (length D + j)%nat) by (unfold j; lia).
    assert (Hj : (j < length body)%nat) by (unfold j; lia).
    pose proof (Hd j Hj) as Hdj. destruct (wd_nth D body j Hwd Hj) as [Hargs Hok].
    assert (HX : forall v, length v = n -> F k v =
              cop_eval Rvo (fst (nth j body (OZero 0, []))) (map (fun a => F a v) (snd (nth j body (OZero 0, []))))).
    { intros v Hv. unfold F. rewrite Ek, <- (split_len v).
      exact (xv_instr (split_at 0 D v) (split_at 0 D v) body (reads_split v) eq_refl j Hj). }
    assert (HT : forall h, length h = n -> L k h =
              cop_tan (fst (nth j body (OZero 0, []))) (map (fun a => F a x) (snd (nth j body (OZero 0, []))))
                      (map (fun a => L a h) (snd (nth j body (OZero 0, []))))).
    { intros h Hh. unfold L, F. rewrite Ek, <- (split_len x).
      exact (T_instr (split_at 0 D x) (split_at 0 D h) body (reads_split x)
               (eq_trans (split_len h) (eq_sym (split_len x))) j Hj). }
    destruct (nth j body (OZero 0, [])) as [o args] eqn:Hnj. cbn [fst snd] in *.
    rewrite Forall_forall in Hargs.
    (* the arguments' lengths *)
    set (ds := map (fun a => nth a (body_dims D body) 0%nat) args) in *.
    assert (HlF : forall a v, In a args -> length v = n -> length (F a v) = nth a (body_dims D body) 0%nat).
    { intros a v Ha Hv. apply (xv_len D _ body Hwd (split_fits v Hv)). specialize (Hargs a Ha). lia. }
    assert (Hds : map (@length R) (map (fun a => F a x) args) = ds).
    { unfold ds. rewrite map_map. apply map_ext_in. intros a Ha. apply HlF; [exact Ha|exact Hx]. }
    assert (Hcat : forall v, length v = n -> split_at 0 ds (concat (map (fun a => F a v) args)) = map (fun a => F a v) args).
    { intros v Hv. apply (split_at_concat _ _ []). unfold ds. clear -HlF Hv.
      induction args as [|a args IHa]; constructor.
      - apply HlF; [left; reflexivity|exact Hv].
      - apply IHa. intros b w Hb Hw. apply HlF; [right; exact Hb|exact Hw]. }
    (* the arguments, concatenated *)
    assert (HG : has_deriv n (dsum ds) (fun v => concat (map (fun a => F a v) args)) x
                   (fun h => concat (map (fun a => L a h) args))).
    { unfold ds. apply has_deriv_concat; [exact Hx|]. rewrite Forall_forall. intros a Ha.
      apply IH; specialize (Hargs a Ha); lia. }
    assert (HLcat : forall h, length h = n -> split_at 0 ds (concat (map (fun a => L a h) args)) = map (fun a => L a h) args).
    { intros h Hh. apply (split_at_concat _ _ []). unfold ds. clear -Hargs Hh IH Hkd Ek Hj Hk.
      assert (Hlen : forall a, In a args -> length (L a h) = nth a (body_dims D body) 0%nat).
      { intros a Ha. specialize (Hargs a Ha). destruct (IH a ltac:(lia) ltac:(lia)) as (_ & _ & HLa & _).
        apply (lin_len _ _ _ HLa), Hh. }
      clear -Hlen. induction args as [|a args IHa]; constructor.
      - apply Hlen. left. reflexivity.
      - apply IHa. intros b Hb. apply Hlen. right. exact Hb. }
    (* the operation at the concatenation *)
    unfold cop_deriv in Hdj. cbv zeta in Hdj. rewrite Hds in Hdj.
    assert (Hdim : cop_dim o ds = nth k (body_dims D body) 0%nat).
    { rewrite <- (cop_eval_fits Rvo (list_vec_shapes Rsc) o ds (map (fun a => F a x) args)).
      - transitivity (length (cop_eval Rvo o (map (fun a => F a x) args))); [reflexivity|].
        rewrite <- HX by exact Hx. apply (xv_len D _ body Hwd (split_fits x Hx)). lia.
      - exact Hok.
      - rewrite <- Hds. unfold fit_dims. clear. induction (map (fun a => F a x) args); constructor; [reflexivity|assumption]. }
    rewrite <- Hdim.
    pose proof (has_deriv_comp _ _ _ _ _ _ _ _ HG Hdj) as HC.
    refine (has_deriv_ext _ _ _ _ _ _ _ _ _ HC).
    + intros v Hv. cbv beta. rewrite Hcat by exact Hv. symmetry. apply HX, Hv.
    + intros h Hh. cbv beta. rewrite HLcat by exact Hh. symmetry. apply HT, Hh.
Qed.
End var_deriv.

(** ** The program: [rd_core P] is the reverse derivative of [P] *)

Lemma split_at_app c D O (v : vec) : split_at c (D ++ O) v = split_at c D v ++ split_at (c + dsum D) O v.
Proof.
  revert c. induction D as [|d D IH]; intros c; cbn [app split_at]; [cbn; rewrite Nat.add_0_r; reflexivity|].
  rewrite IH, dsum_cons, Nat.add_assoc. reflexivity.
Qed.

Lemma split_at_app_l c D (u w : vec) : (c + dsum D <= length u)%nat -> split_at c D (u ++ w) = split_at c D u.
Proof.
  revert c. induction D as [|d D IH]; intros c Hc; [reflexivity|]. rewrite dsum_cons in Hc. cbn [split_at].
  rewrite proj_app_l, IH by lia. reflexivity.
Qed.

Lemma split_at_app_r c D (u w : vec) : split_at (length u + c) D (u ++ w) = split_at c D w.
Proof.
  revert c. induction D as [|d D IH]; intros c; [reflexivity|]. cbn [split_at].
  rewrite proj_app_r' by lia. replace (length u + c - length u)%nat with c by lia.
  rewrite <- Nat.add_assoc, IH. reflexivity.
Qed.

Lemma concat_split_at_from c D (v : vec) : concat (split_at c D v) ++ skipn (c + dsum D) v = skipn c v.
Proof.
  revert c. induction D as [|d D IH]; intros c; cbn [split_at concat].
  - change (dsum []) with 0%nat. rewrite Nat.add_0_r. reflexivity.
  - rewrite <- app_assoc, dsum_cons, Nat.add_assoc, IH. unfold proj. rewrite <- skipn_skipn_gen. apply firstn_skipn.
Qed.

Lemma concat_split_at D (v : vec) : length v = dsum D -> concat (split_at 0 D v) = v.
Proof.
  intros Hv. pose proof (concat_split_at_from 0 D v) as H.
  rewrite skipn_all2, app_nil_r in H by (cbn; lia). exact H.
Qed.

Lemma concat_length_fits D (ls : list vec) : Forall2 (fun d (v : vec) => length v = d) D ls -> length (concat ls) = dsum D.
Proof. induction 1 as [|d l D ls Hl _ IH]; [reflexivity|]. cbn [concat]. rewrite app_length, Hl, IH. reflexivity. Qed.

Lemma dot_concat_nth (A B : list vec) : map (@length R) A = map (@length R) B ->
  dot (concat A) (concat B) = sumn (length A) (fun i => dot (nth i A []) (nth i B [])).
Proof.
  revert B. induction A as [|a A IH]; intros [|b B] HAB; try discriminate; [reflexivity|].
  injection HAB as Hab HAB. cbn [concat length]. rewrite dot_app by exact Hab. rewrite sumn_shift, IH by exact HAB.
  reflexivity.
Qed.

Lemma fits_map_length D (ls : list vec) : Forall2 (fun d (v : vec) => length v = d) D ls -> map (@length R) ls = D.
Proof. induction 1 as [|d l D ls Hl _ IH]; [reflexivity|]. cbn [map]. rewrite Hl, IH. reflexivity. Qed.

Lemma rd_prog_dims P : cp_dims (rd_prog P) = cp_dims P ++ out_dims P.
Proof.
  unfold rd_prog. destruct (seed _ _ _ _ _) as [adj1 s1]. destruct (back _ _ _ _ _ _) as [adj2 s2].
  destruct (finals _ _ _ _) as [outs s3]. reflexivity.
Qed.

(** The values of a program's variables, [ceval] read in [vals]. *)
Lemma ceval_vals P xs : Forall (fun o => o < length xs + length (cp_body P))%nat (cp_out P) ->
  ceval P xs = map (fun o => nth o (vals xs (cp_body P)) []) (cp_out P).
Proof. intros Ho. unfold ceval. rewrite (eval_cprog_gv _ _ P xs Ho). reflexivity. Qed.

(** Informal proof: the derivative is [h ↦ concat (T(outₚ))], the
    forward tangents at the outputs, which is the Fréchet derivative by
    [var_deriv] and [has_deriv_concat]; its transpose is [rd_prog P]
    by [rd_prog_adjoint] (pairings of concatenations are sums of the
    blocks' pairings, [dot_concat_nth]), and [rd_core P] computes what
    [rd_prog P] computes ([core_fun_rd_core]). *)
Theorem rd_core_rev_deriv P x :
  wd_prog P -> length x = dsum (cp_dims P) ->
  (forall j, (j < length (cp_body P))%nat ->
     let ins := nth j (cp_body P) (OZero 0, []) in
     let xs := map (fun k => nth k (vals (split_at 0 (cp_dims P) x) (cp_body P)) []) (snd ins) in
     cop_deriv (fst ins) xs /\ op_diff (fst ins) xs) ->
  is_rev_deriv (dsum (cp_dims P)) (dsum (out_dims P)) (core_fun P) x (fun y => core_fun (rd_core P) (x ++ y)).
Proof.
  intros HP Hx Hd. pose proof HP as [Hwd Hout].
  set (D := cp_dims P) in *. set (body := cp_body P) in *. set (outs := cp_out P) in *.
  set (xs := split_at 0 D x).
  assert (Hfx : fit_dims Rvo D xs) by (apply split_at_fits; lia).
  assert (Hlxs : length xs = length D) by apply split_at_length.
  assert (Hout' : Forall (fun o => o < length xs + length body)%nat outs) by (rewrite Hlxs; exact Hout).
  set (T := fun h o => nth o (tvals xs (split_at 0 D h) body) []).
  exists (fun h => concat (map (T h) outs)). split; [|split].
  - (* the derivative *)
    refine (has_deriv_ext _ _ (fun v => concat (map (fun o => nth o (vals (split_at 0 D v) body) []) outs)) _ _ _ _ _ _ _).
    + intros v Hv. unfold core_fun. fold D. rewrite ceval_vals; [reflexivity|]. rewrite split_at_length. exact Hout.
    + intros h _. reflexivity.
    + unfold out_dims. fold D body outs. apply has_deriv_concat; [exact Hx|].
      rewrite Forall_forall in Hout |- *. intros o Ho.
      exact (var_deriv D body x Hwd Hx (fun j Hj => proj1 (Hd j Hj)) o (Hout o Ho)).
  - (* the lengths of [rd_core P]'s results *)
    intros y Hy. destruct (rd_core_wd P HP) as [HR HRout]. unfold core_fun.
    apply concat_length_fits. fold D in HRout. rewrite <- HRout. apply (eval_cprog_fits Rvo (list_vec_shapes Rsc)); [exact HR|].
    apply split_at_fits. rewrite app_length, rd_core_dims, dsum_app'. fold D. lia.
  - (* the transpose *)
    intros h y Hh Hy. rewrite core_fun_rd_core by exact HP.
    set (hs := split_at 0 D h). set (ws := split_at 0 (out_dims P) y).
    assert (Hfh : fit_dims Rvo D hs) by (apply split_at_fits; lia).
    assert (Hfw : fit_dims Rvo (out_dims P) ws) by (apply split_at_fits; lia).
    assert (Hsplit : split_at 0 (cp_dims (rd_prog P)) (x ++ y) = xs ++ ws).
    { rewrite rd_prog_dims, split_at_app, split_at_app_l by (fold D; lia). fold D xs. f_equal.
      rewrite Nat.add_0_l, <- Hx, <- (Nat.add_0_r (length x)), split_at_app_r. reflexivity. }
    destruct (rd_prog_wd P HP) as [HR HRout].
    pose proof (eval_cprog_fits Rvo (list_vec_shapes Rsc) (rd_prog P) (xs ++ ws) HR
                  ltac:(rewrite rd_prog_dims; apply Forall2_app; assumption)) as HfR.
    rewrite HRout in HfR. fold D in HfR.
    unfold core_fun. rewrite Hsplit.
    rewrite <- (concat_split_at (out_dims P) y Hy) at 1. fold ws.
    rewrite <- (concat_split_at D h Hh) at 2. fold hs.
    rewrite !dot_concat_nth.
    + symmetry. rewrite map_length.
      replace (length hs) with (length xs) by (unfold hs, xs; rewrite !split_at_length; reflexivity).
      etransitivity; [exact (rd_prog_adjoint P xs ws hs HP Hfx Hfh Hfw (fun j Hj => proj2 (Hd j Hj)))|].
      apply sumn_ext. intros p Hp. rewrite (nth_map_lt _ _ _ 0%nat) by exact Hp. reflexivity.
    + rewrite (fits_map_length _ _ Hfh). symmetry. exact (fits_map_length _ _ HfR).
    + rewrite (fits_map_length _ _ Hfw), map_map. unfold out_dims. apply map_ext_in. intros o Ho.
      rewrite Forall_forall in Hout. specialize (Hout o Ho). unfold T. fold hs.
      rewrite (T_len D xs hs body Hwd Hfx Hfh o Hout). apply (xv_len D xs body Hwd Hfx o Hout).
Qed.

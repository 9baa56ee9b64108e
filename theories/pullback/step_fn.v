(** * The step function: one step of the call-by-value strategy, computed

    [step_fn n t] computes the step of [t] under [step] (reduction.v):
    the evaluation contexts of §6, the A-step in the body of a pullback,
    and the head rules 1-20.  The rules 16b, 16c, 17, 18, 19b and 19c
    evaluate an auxiliary term to a value in their premise, and 20a steps
    one; the function does this by calling itself ([eval_fn], [step_fn]),
    so it takes a fuel [n] that bounds the depth and the length of these
    nested evaluations.  (No total function can do without: the premise of
    18 runs an arbitrary program.)  The answer says which of four things
    happened:
    - [Stepped t']: [step t t'] ([step_fn_sound]);
    - [Value]: [t] is a value ([step_fn_value]);
    - [Stuck]: [t] is not a value and no rule applies ([step_fn_stuck]);
    - [NoFuel]: a premise needed more fuel.
    Values are recognised on the way down, in one pass over the term.
    More fuel never changes an answer other than [NoFuel]
    ([step_fn_mono]), and every step of the relation is computed once the
    fuel suffices ([step_fn_complete]).  So the relation is deterministic
    ([step_det], [steps_value_det]).  Every test is on syntax
    ([decide.v]); scalars are only computed with, never compared, so the
    function runs over any [signature]. *)
From Pullback Require Import syntax typing anf backprop reduction progress decide.

Section step_fn.
Context {Σ : signature}.

(** The answer of one step: a step, or the term is a value, or it is
    stuck (a normal form that is not a value), or a premise needed more
    fuel. *)
Inductive sres : Type := Stepped (t : tm) | Value | Stuck | NoFuel.
Inductive eres : Type := EVal (v : tm) | EStuck | EFuel.

Definition from_step (r : sres) (k : tm -> sres) : sres :=
  match r with Stepped x => k x | Value | Stuck => Stuck | NoFuel => NoFuel end.

Definition from_ev (r : eres) (k : tm -> sres) : sres :=
  match r with EVal x => k x | EStuck => Stuck | EFuel => NoFuel end.

(** The value a premise ends in, [(λv.S)* · (ω′ V′)] with [S] under a
    renaming [ρ] whose inverse is [ρi] and [ω′] the index [k]: [(S, V′)]. *)
Definition dual_out (ρi : nat -> option nat) (k : nat) (V : tm) : option (tm * tm) :=
  match V with
  | Dual s (App (Var k') u) =>
      if Nat.eqb k k' then
        match unren ρi s with Some s' => Some (s', u) | None => None end
      else None
  | _ => None
  end.

(** [V] moved under [x] and [ω′] (premises of 16b, 16c, 18). *)
Definition premise_pt (v : tm) : tm := ren (fun n => S (S n)) v.

(** The reduct of the linear rules: [(λv.E[v/y])* · (ω E[V/y])]. *)
Definition lin_red (e w v : tm) : sres := Stepped (Dual e (out w v e)).

(** A dual map along [0], [(λv.S)* · 0]. *)
Definition is_dual_zero (t : tm) : bool := match t with Dual _ Zero => true | _ => false end.

Lemma is_dual_zero_true t : is_dual_zero t = true -> exists s0, t = Dual s0 Zero.
Proof.
  destruct t as [| | | | | | | |s0 t2| | | | |]; try discriminate. destruct t2; try discriminate. eauto.
Qed.

Section heads.
(** [stp]: one step (premise of 20a); [ev]: evaluation to a value
    (premises of 16b-19c). *)
Variable stp : tm -> sres.
Variable ev : tm -> eres.

(** [((Ω λy.e) · w) v], for a chain [Ω λy.e · w] and a value [v]:
    rules 9-20. *)
Definition pb_head (e w v : tm) : sres :=
  if noccb is0b e then (if is_elem e then Stepped Zero else Stuck) else
  match e with
  | Var _ | Proj _ _ => match as_path e with Some _ => lin_red e w v | None => Stuck end
  | Plus a1 a2 =>
      match as_path a1, as_path a2 with
      | Some _, Some _ => lin_red e w v
      | None, Some q =>
          if is_atom a1 && noccb is0b a1 then Stepped (Dual (yp q) (out w v e)) else Stuck
      | Some p, None =>
          if is_atom a2 && noccb is0b a2 then Stepped (Dual (yp p) (out w v e)) else Stuck
      | None, None => Stuck
      end
  | Pair a1 a2 =>
      match as_path a1, as_path a2 with
      | Some _, Some _ => lin_red e w v
      | Some [], None =>
          if is_elem a2 then
            if noccb is0b a2 then Stepped (Dual (Pair (Var 0) Zero) (out w v e))
            else from_step (stp (App (Pb (ren (up_ren S) a2) (Var 0)) (shift v)))
                   (fun V => match dual_out upS_inv 0 V with
                             | Some (s0, _) => Stepped (Dual (Pair (Var 0) s0) (out w v e))
                             | None => Stuck
                             end)
          else Stuck
      | Some p, None =>
          if is_atom a2 && noccb is0b a2
          then Stepped (Dual (Pair (yp p) Zero) (out w v e)) else Stuck
      | None, Some q =>
          if is_atom a1 && noccb is0b a1
          then Stepped (Dual (Pair Zero (yp q)) (out w v e)) else Stuck
      | None, None => Stuck
      end
  | Jac _ a => match as_path a with Some _ => lin_red e w v | None => Stuck end
  | Fun f a =>
      match as_path a with
      | Some p => Stepped (Dual (App (Jac f (yp p)) (shift (ppath p v))) (out w v e))
      | None => Stuck
      end
  | Dual l a =>
      if is_lets l && is_atom a then
        match as_path a with
        | Some p =>
            if noccb (liftb is0b) l then lin_red e w v
            else from_ev (ev (App (Pb (ren swap l) (Var 1)) (premise_pt v)))
                   (fun V => match dual_out swap_inv 1 V with
                             | Some (s', _) =>
                                 if linb is0b s' then
                                   Stepped (Dual (Plus (Dual (lsub v l) (yp p))
                                                       (Dual s' (shift (ppath p v))))
                                                 (out w v e))
                                 else Stuck
                             | None => Stuck
                             end)
        | None =>
            if noccb is0b a && negb (noccb (liftb is0b) l) then
              from_ev (ev (App (Pb (ren swap l) (Var 1)) (premise_pt v)))
                (fun V => match dual_out swap_inv 1 V with
                          | Some (s', _) =>
                              if linb is0b s' then Stepped (Dual (Dual s' a) (out w v e))
                              else Stuck
                          | None => Stuck
                          end)
            else Stuck
        end
      else Stuck
  | Lam l =>
      if is_lets l && negb (noccb (liftb is0b) l) then
        from_ev (ev (App (Pb (ren swap l) (Var 1)) (premise_pt v)))
          (fun V => match V with
                    | Dual _ Zero => Stepped (Dual (Lam Zero) (out w v e))
                    | _ =>
                        match dual_out swap_inv 1 V with
                        | Some (s', _) => Stepped (Dual (Lam s') (out w v e))
                        | None => Stuck
                        end
                    end)
      else Stuck
  | Pb l z =>
      if is_lets l && is_atom z then
        from_ev (ev (App (Pb (ren (up_ren S) l) (shift z)) (Var 0)))
          (fun V => match V with
                    | Dual s0 (App z' u) =>
                        if atom_eqb z' (shift z)
                        then Stepped (App (Pb (Lam (Dual s0 (App (shift z) u))) w) v)
                        else Stuck
                    | Zero => Stepped (App (Pb (Lam Zero) w) v)
                    | _ => Stuck
                    end)
      else Stuck
  | App a1 a2 =>
      match as_path a1, as_path a2 with
      | Some _, None => if is_atom a2 && noccb is0b a2 then lin_red e w v else Stuck
      | Some p, Some q =>
          match proj_val p v, proj_val q v with
          | Some (Lam p'), Some vq =>
              from_ev (ev (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)))
                (fun V => match V with
                          | Zero => Stepped (Dual (App (yp p) (shift vq)) (out w v e))
                          | _ =>
                              if is_dual_zero V then Stepped (Dual (App (yp p) (shift vq)) (out w v e)) else
                              match dual_out upS_inv 0 V with
                              | Some (s0, _) =>
                                  Stepped (Dual (Plus (App (yp p) (shift vq)) (subst (vsub q) s0))
                                                (out w v e))
                              | None => Stuck
                              end
                          end)
          | _, _ => Stuck
          end
      | _, _ => Stuck
      end
  | _ => Stuck
  end.

(** Head rules, for a term whose evaluation positions hold values. *)
Definition head_app (a b : tm) : sres :=
  match a with
  | Lam s => Stepped (subst1 b s)
  | Jac f q =>
      match dense_num q, dense_num b with
      | Some r, Some r' => Stepped (num_tm (fjac f r' r))
      | _, _ => Stuck
      end
  | Pb e w => pb_head e w b
  | _ => Stuck
  end.

Definition head_dual (s a : tm) : sres :=
  match a with
  | NDual c =>
      if noccb is0b s then Stuck
      else match bp s c NZ with Some r => Stepped (NDual r) | None => Stuck end
  | Dual v2 v3 => Stepped (Dual (subst (scons s (fun n => Var (S n))) v2) v3)
  | _ => Stuck
  end.

(** One step: the first evaluation position that steps (or is stuck),
    else the head rule if the term has the shape of a redex, else the term
    is a value. *)
Fixpoint step_at (t : tm) : sres :=
  match t with
  | App a b =>
      match step_at a with
      | Stepped a' => Stepped (App a' b)
      | Value =>
          match step_at b with
          | Stepped b' => Stepped (App a b')
          | Value => if head_redexb (App a b) then head_app a b else Value
          | r => r
          end
      | r => r
      end
  | Proj i a =>
      match step_at a with
      | Stepped a' => Stepped (Proj i a')
      | Value =>
          if head_redexb (Proj i a) then
            match a with Pair v1 v2 => Stepped (if i then v2 else v1) | _ => Stuck end
          else Value
      | r => r
      end
  | Pair a b =>
      match step_at a with
      | Stepped a' => Stepped (Pair a' b)
      | Value => match step_at b with Stepped b' => Stepped (Pair a b') | r => r end
      | r => r
      end
  | Plus a b =>
      match step_at a with
      | Stepped a' => Stepped (Plus a' b)
      | Value => match step_at b with Stepped b' => Stepped (Plus a b') | r => r end
      | r => r
      end
  | Fun f a =>
      match step_at a with
      | Stepped a' => Stepped (Fun f a')
      | Value =>
          if head_redexb (Fun f a) then
            match dense_num a with Some r => Stepped (num_tm (fsem f r)) | None => Stuck end
          else Value
      | r => r
      end
  | Jac f a => match step_at a with Stepped a' => Stepped (Jac f a') | r => r end
  | Dual s a =>
      match step_at a with
      | Stepped a' => Stepped (Dual s a')
      | Value =>
          match step_at s with
          | Stepped s' => Stepped (Dual s' a)
          | Value => if head_redexb (Dual s a) then head_dual s a else Value
          | r => r
          end
      | r => r
      end
  | Pb p w =>
      if is_lets p then
        match p with
        | Let e l => if is_var0 l then Stepped (Pb e w)
                     else Stepped (Pb (Pair (Var 0) e) (Pb (subst sub8 l) w))
        | _ => Stuck
        end
      else if chain_bodyb p then
        match step_at w with Stepped w' => Stepped (Pb p w') | r => r end
      else match areduce p with Some p' => Stepped (Pb p' w) | None => Stuck end
  | Let e l =>
      match step_at e with
      | Stepped e' => Stepped (Let e' l)
      | Value => Stepped (subst1 e l)
      | r => r
      end
  | Var _ | Lam _ | Real _ | NDual _ | Zero => Value
  end.

End heads.

(** ** Soundness *)
Ltac inv H := inversion H; subst; clear H.

Lemma dual_out_sound ρ ρi k V s u :
  (forall n m, ρi n = Some m -> ρ m = n) ->
  dual_out ρi k V = Some (s, u) -> V = Dual (ren ρ s) (App (Var k) u).
Proof.
  intros Hρ H. destruct V as [| | | | | | | |s0 a| | | | |]; try discriminate.
  destruct a as [| |[k'| | | | | | | | | | | | |] u'| | | | | | | | | | |]; try discriminate.
  simpl in H. destruct (Nat.eqb k k') eqn:Ek; [|discriminate].
  apply PeanoNat.Nat.eqb_eq in Ek. subst k'.
  destruct (unren ρi s0) as [s1|] eqn:Es; [|discriminate]. injection H as <- <-.
  erewrite unren_sound; eauto.
Qed.

Lemma dual_out_complete ρ ρi k s u :
  (forall m, ρi (ρ m) = Some m) ->
  dual_out ρi k (Dual (ren ρ s) (App (Var k) u)) = Some (s, u).
Proof.
  intros Hρ. simpl. rewrite PeanoNat.Nat.eqb_refl, unren_ren by exact Hρ. reflexivity.
Qed.

Lemma from_step_inv r k t' : from_step r k = Stepped t' -> exists x, r = Stepped x /\ k x = Stepped t'.
Proof. destruct r; simpl; intros H; try discriminate. eauto. Qed.

Lemma from_ev_inv r k t' : from_ev r k = Stepped t' -> exists x, r = EVal x /\ k x = Stepped t'.
Proof. destruct r; simpl; intros H; try discriminate. eauto. Qed.

Lemma elem_yp p : elem (yp p).
Proof. apply elem_atom, atom_yp. Qed.

#[local] Hint Resolve elem_yp atom_yp : core.
#[local] Hint Constructors atom elem lets lin_shape : core.

Ltac bools :=
  repeat match goal with
  | H : _ && _ = true |- _ => apply Bool.andb_true_iff in H as [? ?]
  | H : negb _ = true |- _ => apply Bool.negb_true_iff in H
  | H : is_atom _ = true |- _ => apply is_atom_spec in H
  | H : is_elem _ = true |- _ => apply is_elem_spec in H
  | H : is_lets _ = true |- _ => apply is_lets_spec in H
  | H : noccb is0b _ = true |- _ => apply noccb_is0 in H
  | H : noccb (liftb is0b) _ = true |- _ => apply noccb_lift_is0 in H
  | H : linb is0b _ = true |- _ => apply linb_is0 in H
  | H : as_path _ = Some _ |- _ => apply as_path_some in H; subst
  | H : Stepped _ = Stepped _ |- _ => injection H as <-
  end.

Lemma noccb_false_is0 t : noccb is0b t = false -> ~ nocc is0 t.
Proof. intros H Hn. apply noccb_is0 in Hn. congruence. Qed.

Lemma noccb_false_lift t : noccb (liftb is0b) t = false -> ~ nocc (lift is0) t.
Proof. intros H Hn. apply noccb_lift_is0 in Hn. congruence. Qed.

Section sound.
Variables (stp : tm -> sres) (ev : tm -> eres).
Hypothesis stp_sound : forall x y, stp x = Stepped y -> step x y.
Hypothesis ev_sound : forall x y, ev x = EVal y -> steps x y /\ value y.

Lemma pb_head_sound e w v t' :
  value w -> value v -> pb_head stp ev e w v = Stepped t' -> step (App (Pb e w) v) t'.
Proof.
  intros Hw Hv H. unfold pb_head in H.
  destruct (noccb is0b e) eqn:Hn.
  { destruct (is_elem e) eqn:He; [|discriminate]. bools.
    apply step_pb_const; auto. }
  apply noccb_false_is0 in Hn.
  destruct e as [n|l|a1 a2|i a|a1 a2|r|f a|f a|l a|l z|r| |a1 a2|e l]; try discriminate.
  - (* y *)
    destruct (as_path (Var n)) as [p|] eqn:E; [|discriminate]. unfold lin_red in H.
    bools. rewrite E. apply step_pb_lin; auto.
  - (* λx.L: (18) *)
    destruct (is_lets l && negb (noccb (liftb is0b) l)) eqn:E; [|discriminate]. bools.
    apply from_ev_inv in H as (V & HV & Hk). destruct (ev_sound _ _ HV) as [Hs Hval].
    assert (Hz : (exists s0, V = Dual s0 Zero) \/
                 (match dual_out swap_inv 1 V with
                  | Some (s', _) => Stepped (Dual (Lam s') (out w v (Lam l)))
                  | None => Stuck
                  end = Stepped t')).
    { destruct V as [| | | | | | | |s0 v2| | | | |]; try (right; exact Hk).
      destruct v2; try (right; exact Hk). left; eauto. }
    destruct Hz as [[s0 ->]|Hk'].
    + simpl in Hk. injection Hk as <-.
      eapply step_pb_lam_zero; eauto using noccb_false_lift, noccb_false_is0.
    + destruct (dual_out swap_inv 1 V) as [[s' u]|] eqn:Ed; [|discriminate]. bools.
      apply (dual_out_sound swap) in Ed; [|apply swap_inv_r]. subst V.
      eapply step_pb_lam; eauto using noccb_false_lift, noccb_false_is0.
  - (* a1 a2 *)
    destruct (as_path a1) as [p|] eqn:E1; [|discriminate].
    destruct (as_path a2) as [q|] eqn:E2.
    + destruct (proj_val p v) as [[| p'| | | | | | | | | | | |]|] eqn:Hp; try discriminate.
      destruct (proj_val q v) as [vq|] eqn:Hq; [|discriminate].
      apply from_ev_inv in H as (V & HV & Hk). destruct (ev_sound _ _ HV) as [Hs Hval].
      bools.
      destruct V eqn:EV; try (simpl in Hk; discriminate).
      * rewrite <- EV in Hk, Hs, Hval.
        destruct (is_dual_zero V) eqn:Ez.
        { apply is_dual_zero_true in Ez as [s0 Ez]. rewrite Ez in Hs, Hval.
          injection Hk as <-. eapply step_pb_app_lam_zero; eauto. }
        destruct (dual_out upS_inv 0 V) as [[s0 u]|] eqn:Ed; [|discriminate].
        bools. apply (dual_out_sound (up_ren S)) in Ed; [|apply upS_inv_r].
        rewrite Ed in Hs, Hval. eapply step_pb_app_lam; eauto.
      * subst V. bools. eapply step_pb_app_zero; eauto.
    + destruct (is_atom a2 && noccb is0b a2) eqn:Ea; [|discriminate]. unfold lin_red in H.
      bools. apply step_pb_lin; auto.
  - (* a^{πi} *)
    destruct (as_path (Proj i a)) as [p|] eqn:E; [|discriminate]. unfold lin_red in H.
    bools. rewrite E. apply step_pb_lin; auto.
  - (* ⟨a1, a2⟩ *)
    destruct (as_path a1) as [p|] eqn:E1; destruct (as_path a2) as [q|] eqn:E2.
    + unfold lin_red in H. bools. destruct p; simpl in H; bools; apply step_pb_lin; auto.
    + destruct p as [|i p].
      * destruct (is_elem a2) eqn:He; [|discriminate].
        destruct (noccb is0b a2) eqn:Hn2.
        -- bools. apply step_pb_pair_const; auto.
        -- apply from_step_inv in H as (V & HV & Hk). apply stp_sound in HV.
           destruct (dual_out upS_inv 0 V) as [[s0 u]|] eqn:Ed; [|discriminate].
           apply (dual_out_sound (up_ren S)) in Ed; [|apply upS_inv_r]. subst V.
           bools.
           eapply step_pb_pair_step; eauto using noccb_false_lift, noccb_false_is0.
      * destruct (is_atom a2 && noccb is0b a2) eqn:Ea; [|discriminate].
        bools. apply step_pb_pair_l; auto.
    + destruct (is_atom a1 && noccb is0b a1) eqn:Ea; [|discriminate].
      bools. apply step_pb_pair_r; auto.
    + discriminate.
  - (* f(a) *)
    destruct (as_path a) as [p|] eqn:E; [|discriminate]. bools. apply step_pb_fun; auto.
  - (* J f · a *)
    destruct (as_path a) as [p|] eqn:E; [|discriminate]. unfold lin_red in H.
    bools. apply step_pb_lin; auto.
  - (* (λx.L)* · a *)
    destruct (is_lets l && is_atom a) eqn:E; [|discriminate]. bools.
    destruct (as_path a) as [p|] eqn:Ea.
    + destruct (noccb (liftb is0b) l) eqn:El.
      * unfold lin_red in H. bools. apply step_pb_lin; auto.
      * apply from_ev_inv in H as (V & HV & Hk). destruct (ev_sound _ _ HV) as [Hs Hval].
        destruct (dual_out swap_inv 1 V) as [[s' u]|] eqn:Ed; [|discriminate].
        destruct (linb is0b s') eqn:Hl; [|discriminate].
        apply (dual_out_sound swap) in Ed; [|apply swap_inv_r]. subst V.
        bools. eapply step_pb_dual_y; eauto using noccb_false_lift, noccb_false_is0.
    + destruct (noccb is0b a && negb (noccb (liftb is0b) l)) eqn:E'; [|discriminate].
      apply from_ev_inv in H as (V & HV & Hk). destruct (ev_sound _ _ HV) as [Hs Hval].
      destruct (dual_out swap_inv 1 V) as [[s' u]|] eqn:Ed; [|discriminate].
      destruct (linb is0b s') eqn:Hl; [|discriminate].
      apply (dual_out_sound swap) in Ed; [|apply swap_inv_r]. subst V.
      bools. eapply step_pb_dual_z; eauto using noccb_false_lift, noccb_false_is0.
  - (* (Ω λx.L) · z: (17) *)
    destruct (is_lets l && is_atom z) eqn:E; [|discriminate]. bools.
    apply from_ev_inv in H as (V & HV & Hk). destruct (ev_sound _ _ HV) as [Hs Hval].
    destruct V as [| | | | | | | |s0 a| | | | |]; try discriminate.
    + destruct a as [| |z' u| | | | | | | | | | |]; try discriminate.
      destruct (atom_eqb z' (shift z)) eqn:Ez; [|discriminate].
      apply atom_eqb_sound in Ez. subst z'. bools. eapply step_pb_pb; eauto.
    + injection Hk as <-. bools. eapply step_pb_pb_zero; eauto.
  - (* a1 + a2 *)
    destruct (as_path a1) as [p|] eqn:E1; destruct (as_path a2) as [q|] eqn:E2.
    + unfold lin_red in H. bools. apply step_pb_lin; auto.
    + destruct (is_atom a2 && noccb is0b a2) eqn:Ea; [|discriminate].
      bools. apply step_pb_plus_r; auto.
    + destruct (is_atom a1 && noccb is0b a1) eqn:Ea; [|discriminate].
      bools. apply step_pb_plus_l; auto.
    + discriminate.
Qed.

Lemma value_pb_inv e w : value (Pb e w) -> chain_body e /\ value w.
Proof. simpl. tauto. Qed.

Lemma head_redexb_not_value t : head_redexb t = true -> ~ value t.
Proof.
  intros H Hv. apply head_redexb_spec in H. destruct t; simpl in Hv; tauto.
Qed.

#[local] Arguments head_redexb : simpl never.

Ltac nv := let Hv := fresh in intros Hv; simpl in Hv; tauto.
Ltac nothead := let Hh := fresh in intros Hh; apply head_redexb_spec in Hh; congruence.
(** [sub_step x IH F]: the case of [step_at] on the subterm [x] under the
    frame [F]: a step of [x] is one of the whole term in [F], a stuck [x]
    makes it stuck, no fuel stays no fuel; left is the case of a value. *)
Ltac sub_step x IH F :=
  destruct (step_at stp ev x) as [?| | |]; simpl in IH |- *;
    [apply (step_ctx F); simpl; auto| |nv|exact I].

Definition ssound (t : tm) (r : sres) : Prop :=
  match r with
  | Stepped t' => step t t'
  | Value => value t
  | Stuck => ~ value t
  | NoFuel => True
  end.

Lemma pb_head_not_value e w v : pb_head stp ev e w v <> Value.
Proof.
  unfold pb_head, lin_red, from_step, from_ev.
  repeat match goal with |- context [match ?x with _ => _ end] => destruct x end;
    discriminate.
Qed.

Lemma step_at_sound t : ssound t (step_at stp ev t).
Proof.
  induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs a IHa
                 |p IHp w IHw|r| |a IHa b IHb|e IHe l IHl]; simpl.
  all: try (split; [intros []|exact I]).
  - (* application *)
    sub_step a IHa (EAppL b).
    sub_step b IHb (EAppR a).
    destruct (head_redexb (App a b)) eqn:Hh;
      [|split; [nothead|split; assumption]].
    pose proof (head_redexb_not_value _ Hh) as Hn. unfold head_app.
    destruct a as [| s| | | | | |f q| |e w| | | |]; simpl; try exact Hn.
    + apply step_beta. exact IHb.
    + destruct (dense_num q) as [r|] eqn:Eq; [destruct (dense_num b) as [r'|] eqn:Eb|];
        simpl; try exact Hn.
      apply dense_num_spec in Eq as [Hr ->]. apply dense_num_spec in Eb as [Hr' ->].
      apply step_jac; auto.
    + destruct (pb_head stp ev e w b) as [t'| | |] eqn:E; simpl; auto.
      * apply pb_head_sound; [apply value_pb_inv in IHa; tauto|exact IHb|exact E].
      * exfalso. exact (pb_head_not_value _ _ _ E).
  - (* projection *)
    sub_step a IHa (EProj i).
    destruct (head_redexb (Proj i a)) eqn:Hh; [|split; [nothead|assumption]].
    pose proof (head_redexb_not_value _ Hh) as Hn.
    destruct a; simpl; try exact Hn. simpl in IHa. destruct IHa as [_ [V1 V2]].
    destruct i; [apply step_proj2|apply step_proj1]; auto.
  - (* pair *)
    sub_step a IHa (EPairL b).
    sub_step b IHb (EPairR a).
    split; [intros []|split; assumption].
  - (* f(P) *)
    sub_step a IHa (EFun f).
    destruct (head_redexb (Fun f a)) eqn:Hh; [|split; [nothead|assumption]].
    pose proof (head_redexb_not_value _ Hh) as Hn.
    destruct (dense_num a) as [r|] eqn:Ea; simpl; [|exact Hn].
    apply dense_num_spec in Ea as [Hr ->]. apply step_fun. exact Hr.
  - (* J f · S *)
    sub_step a IHa (EJac f).
    split; [intros []|assumption].
  - (* dual map *)
    sub_step a IHa (EDualR s).
    sub_step s IHs (EDualL a).
    destruct (head_redexb (Dual s a)) eqn:Hh; [|split; [nothead|split; assumption]].
    pose proof (head_redexb_not_value _ Hh) as Hn. unfold head_dual.
    destruct a; simpl; try exact Hn.
    + apply step_dual_comp; auto.
    + destruct (noccb is0b s) eqn:Hs; simpl; [exact Hn|].
      destruct (bp s r NZ) as [r'|] eqn:Hb; simpl; [|exact Hn].
      apply step_bp; auto. apply noccb_false_is0. exact Hs.
  - (* pullback *)
    destruct (is_lets p) eqn:Hl.
    + apply is_lets_spec in Hl. destruct p; simpl;
        try (intros [Hh _]; apply Hh; simpl; exact Hl).
      inversion Hl; subst.
      * apply step_pb_ret. assumption.
      * destruct (is_var0 p2) eqn:Hv.
        -- apply is_var0_spec in Hv. subst. apply step_pb_ret. assumption.
        -- apply step_pb_let; assumption.
    + destruct (chain_bodyb p) eqn:Hc.
      * apply chain_bodyb_spec in Hc.
        sub_step w IHw (EPbR p).
        split; [|split; assumption]. intros Hh. apply is_lets_spec in Hh. simpl in Hh. congruence.
      * destruct (areduce p) as [p'|] eqn:Ha; simpl.
        -- apply step_pb_anf; [apply areduce_sound; exact Ha|].
           intros Hc'. apply chain_bodyb_spec in Hc'. congruence.
        -- intros [_ [Hc' _]]. apply chain_bodyb_spec in Hc'. congruence.
  - (* sum *)
    sub_step a IHa (EPlusL b).
    sub_step b IHb (EPlusR a).
    split; [intros []|split; assumption].
  - (* let *)
    sub_step e IHe (ELet l).
    apply step_let. exact IHe.
Qed.

End sound.

(** [step_at] is sound when its premise evaluators are, stated with
    [ssound] for the step: the case [S n] of the soundness of every
    evaluator that calls [step_at] on itself ([step_fn], [cps_step]). *)
Lemma step_at_sound_of stp ev :
  (forall x, ssound x (stp x)) -> (forall x v, ev x = EVal v -> steps x v /\ value v) ->
  forall t, ssound t (step_at stp ev t).
Proof.
  intros Hs He t. apply step_at_sound; [|exact He].
  intros x y H. specialize (Hs x). rewrite H in Hs. exact Hs.
Qed.

End step_fn.

(** The sections of this file are closed around the tactics below so
    that they live outside any section: importing files use them
    ([tactics.v], [cps_run_complete.v]) instead of a copy. *)
#[local] Hint Resolve elem_yp atom_yp : core.
#[local] Hint Constructors atom elem lets lin_shape : core.

(** [step_at_mono_cases]: after [induction t] on a goal
    [step_at stp ev t = r -> r <> NoFuel -> step_at stp' ev' t = r] whose
    induction hypotheses have that form, computes both sides through the
    subterms and the matches of [step_at] and closes the cases that do not
    reach a pullback head ([pb_head]), leaving those with [H] and [Hr]. *)
Ltac step_at_mono_cases :=
  repeat match goal with
    | IH : forall r, step_at ?stp ?ev ?x = r -> r <> NoFuel -> step_at ?stp' ?ev' ?x = r
      |- context [step_at ?stp ?ev ?x] =>
        let E := fresh "E" in
        pose proof (IH _ eq_refl) as E;
        destruct (step_at stp ev x);
        [ rewrite E by discriminate; clear E .. | clear E ]
    end;
  repeat match goal with
    |- context [match ?x with _ => _ end] =>
      lazymatch x with context [step_at] => fail | _ => destruct x end
    end;
  intros H Hr; subst; try reflexivity; try contradiction;
  unfold head_app in *; repeat match goal with
    |- context [match ?x with _ => _ end] =>
      lazymatch x with context [step_at] => fail | _ => destruct x end
    end; try (subst; reflexivity).

Section step_fn_mono.
Context {Σ : signature}.

(** ** More fuel does not change an answer *)
#[local] Arguments head_redexb : simpl never.

Definition agree_s (f g : tm -> sres) : Prop := forall x r, f x = r -> r <> NoFuel -> g x = r.
Definition agree_e (f g : tm -> eres) : Prop := forall x r, f x = r -> r <> EFuel -> g x = r.

Lemma from_step_mono f g x k r :
  agree_s f g -> from_step (f x) k = r -> r <> NoFuel -> from_step (g x) k = r.
Proof.
  intros A H Hr. destruct (f x) eqn:E; simpl in H; [| | |subst; contradiction];
    rewrite (A x _ E) by discriminate; exact H.
Qed.

Lemma from_ev_mono f g x k r :
  agree_e f g -> from_ev (f x) k = r -> r <> NoFuel -> from_ev (g x) k = r.
Proof.
  intros A H Hr. destruct (f x) eqn:E; simpl in H; [| |subst; contradiction];
    rewrite (A x _ E) by discriminate; exact H.
Qed.

Lemma pb_head_mono stp ev stp' ev' e w v r :
  agree_s stp stp' -> agree_e ev ev' ->
  pb_head stp ev e w v = r -> r <> NoFuel -> pb_head stp' ev' e w v = r.
Proof.
  intros As Ae. unfold pb_head.
  repeat match goal with |- context [match ?x with _ => _ end] => destruct x end.
  all: intros H Hr; try (subst; reflexivity).
  all: first [ eapply from_step_mono; eassumption | eapply from_ev_mono; eassumption ].
Qed.

Lemma step_at_mono stp ev stp' ev' t res :
  agree_s stp stp' -> agree_e ev ev' ->
  step_at stp ev t = res -> res <> NoFuel -> step_at stp' ev' t = res.
Proof.
  intros As Ae. revert res.
  induction t; intros res; simpl; step_at_mono_cases.
  all: eapply pb_head_mono; [eassumption|eassumption|reflexivity|assumption].
Qed.

End step_fn_mono.

(** ** Completeness: every step is found, with enough fuel *)
#[local] Arguments valueb : simpl never.
#[local] Arguments noccb : simpl never.
#[local] Arguments linb : simpl never.
#[local] Arguments is_atom : simpl never.
#[local] Arguments is_elem : simpl never.
#[local] Arguments is_lets : simpl never.
#[local] Arguments chain_bodyb : simpl never.
#[local] Arguments as_path : simpl never.
#[local] Arguments dense_num : simpl never.
#[local] Arguments dual_out : simpl never.
#[local] Arguments areduce : simpl never.
#[local] Arguments atom_eqb : simpl never.
#[local] Arguments head_redexb : simpl never.

Section step_fn_complete.
Context {Σ : signature}.

Lemma noccb_false_of t : ~ nocc is0 t -> noccb is0b t = false.
Proof. intros H. destruct (noccb is0b t) eqn:E; [|reflexivity]. apply noccb_is0 in E. contradiction. Qed.

Lemma noccb_lift_false_of t : ~ nocc (lift is0) t -> noccb (liftb is0b) t = false.
Proof.
  intros H. destruct (noccb (liftb is0b) t) eqn:E; [|reflexivity].
  apply noccb_lift_is0 in E. contradiction.
Qed.

Lemma value_lam s : value (Lam s).
Proof. split; auto. Qed.

Lemma value_ndual r : value (NDual r).
Proof. split; auto. Qed.

Lemma value_pair a b : value a -> value b -> value (Pair a b).
Proof. intros. split; auto. Qed.

Lemma value_jac_num f r : value (Jac f (num_tm r)).
Proof. split; auto. apply value_num. Qed.

Lemma value_pb e w : chain_body e -> value w -> value (Pb e w).
Proof. intros Hc Hw. split; auto. apply chain_body_not_lets. exact Hc. Qed.

Lemma step_not_valueb t t' : step t t' -> valueb t = false.
Proof. intros H. apply valueb_false. exact (value_not_step t t' H). Qed.

Lemma as_path_nocc a : nocc is0 a -> as_path a = None.
Proof.
  intros H. destruct (as_path a) eqn:E; [|reflexivity].
  apply as_path_some in E. subst. exfalso. exact (yp_not_nocc _ H).
Qed.

Lemma yp_snoc p i : yp (p ++ [i]) = Proj i (yp p).
Proof. unfold yp. rewrite ppath_app. reflexivity. Qed.

Lemma is_var0_lets l : lets l -> is_var0 l = false.
Proof. destruct 1; reflexivity. Qed.

Lemma astep_not_lets p p' : astep p p' -> is_lets p = false.
Proof. intros [C r HC Hr Hk]. apply is_lets_afill; assumption. Qed.

Lemma ren_up_yp ρ p : ren (up_ren ρ) (yp p) = yp p.
Proof. unfold yp. rewrite ren_ppath. reflexivity. Qed.

Lemma elem_chain e : elem e -> chain_body e.
Proof. intros H. left. exact H. Qed.

Lemma dual_out_swap s u : dual_out swap_inv 1 (Dual (ren swap s) (App (Var 1) u)) = Some (s, u).
Proof. apply dual_out_complete. apply swap_inv_l. Qed.

Lemma dual_out_upS s u : dual_out upS_inv 0 (Dual (ren (up_ren S) s) (App (Var 0) u)) = Some (s, u).
Proof. apply dual_out_complete. apply upS_inv_l. Qed.

Lemma head_redexb_false_of t : value t -> head_redexb t = false.
Proof.
  intros Hv. destruct (head_redexb t) eqn:E; [|reflexivity].
  exfalso. exact (head_redexb_not_value _ E Hv).
Qed.

(** On a value, [step_at] answers [Value], whatever the premises do. *)
Lemma step_at_value stp ev t : valueb t = true -> step_at stp ev t = Value.
Proof.
  intros Hv. apply valueb_spec in Hv. revert Hv.
  induction t; intros Hv; pose proof (head_redexb_false_of _ Hv) as Hh; simpl in Hv |- *;
    repeat match goal with H : _ /\ _ |- _ => destruct H end; try contradiction;
    repeat match goal with
      | IH : value ?x -> step_at stp ev ?x = Value, H : value ?x |- _ => rewrite (IH H); clear IH
      end;
    rewrite ?Hh; try reflexivity.
  destruct (is_lets t1) eqn:E; [apply is_lets_spec in E; contradiction|].
  apply chain_bodyb_spec in H0. rewrite H0. reflexivity.
Qed.

(** A term that steps and is a value as soon as it is not a head redex
    is a head redex: the four head-redex tests of [comp] below. *)
Lemma hr_of_step t t' : step t t' -> (~ head_redex t -> value t) -> head_redexb t = true.
Proof.
  intros H Hv. apply head_redexb_spec.
  destruct (head_redex_dec t) as [Hh|Hh]; [exact Hh|].
  exfalso. exact (value_not_step _ _ H (Hv Hh)).
Qed.

Lemma hr_app a b t' : valueb a = true -> valueb b = true -> step (App a b) t' ->
  head_redexb (App a b) = true.
Proof. intros Ha Hb H. apply valueb_spec in Ha, Hb. apply (hr_of_step _ _ H). simpl. auto. Qed.

Lemma hr_dual s a t' : valueb s = true -> valueb a = true -> step (Dual s a) t' ->
  head_redexb (Dual s a) = true.
Proof. intros Ha Hb H. apply valueb_spec in Ha, Hb. apply (hr_of_step _ _ H). simpl. auto. Qed.

Lemma hr_proj i a t' : valueb a = true -> step (Proj i a) t' -> head_redexb (Proj i a) = true.
Proof. intros Ha H. apply valueb_spec in Ha. apply (hr_of_step _ _ H). simpl. auto. Qed.

Lemma hr_fun f a t' : valueb a = true -> step (Fun f a) t' -> head_redexb (Fun f a) = true.
Proof. intros Ha H. apply valueb_spec in Ha. apply (hr_of_step _ _ H). simpl. auto. Qed.

Lemma step_at_pb stp ev e w v t' :
  value (Pb e w) -> value v -> step (App (Pb e w) v) t' ->
  step_at stp ev (App (Pb e w) v) = pb_head stp ev e w v.
Proof.
  intros H1 H2 H. apply valueb_spec in H1, H2.
  change (step_at stp ev (App (Pb e w) v)) with
    (match step_at stp ev (Pb e w) with
     | Stepped a' => Stepped (App a' v)
     | Value =>
         match step_at stp ev v with
         | Stepped b' => Stepped (App (Pb e w) b')
         | Value => if head_redexb (App (Pb e w) v) then head_app stp ev (Pb e w) v else Value
         | r => r
         end
     | r => r
     end).
  rewrite (step_at_value _ _ _ H1), (step_at_value _ _ _ H2), (hr_app _ _ _ H1 H2 H).
  reflexivity.
Qed.

Lemma noccb_yp p : noccb is0b (yp p) = false.
Proof. apply noccb_false_of, yp_not_nocc. Qed.

Lemma is_atom_yp p : is_atom (yp p) = true.
Proof. apply is_atom_spec, atom_yp. Qed.

Lemma lin_shape_not_nocc e : lin_shape e -> ~ nocc is0 e.
Proof.
  destruct 1; simpl; intros Hn; repeat match goal with Hc : _ /\ _ |- _ => destruct Hc end;
    eapply yp_not_nocc; eassumption.
Qed.

Lemma elem_dual_inv l a : elem (Dual l a) -> lets l /\ atom a.
Proof. intros H. inversion H; subst; auto. match goal with H : atom _ |- _ => inversion H end. Qed.

Lemma elem_app_inv a b : elem (App a b) -> atom a /\ atom b.
Proof. intros H. inversion H; subst; auto. match goal with H : atom _ |- _ => inversion H end. Qed.

Lemma pb_head_path stp ev p w v : pb_head stp ev (yp p) w v = lin_red (yp p) w v.
Proof.
  unfold pb_head. rewrite noccb_yp. destruct p as [|i p _] using rev_ind; [reflexivity|].
  generalize (as_path_yp (p ++ [i])). rewrite yp_snoc. intros E. simpl. rewrite E. reflexivity.
Qed.

Lemma value_zero : value Zero.
Proof. split; auto. Qed.

Lemma as_path_var0 : as_path (Var 0) = Some [].
Proof. reflexivity. Qed.

End step_fn_complete.

(** Tactics for a step computed by [step_at]: [nn e] records that the
    path [e] is not free of index 0; [facts] turns the hypotheses on syntax
    into the boolean tests [step_at] makes; [comp] computes [step_at] with
    them and with the head rules; [pb_at Hst] computes the pullback rule
    (20a) from the step [Hst] of its premise. *)
Ltac nn e := let H := fresh in
  assert (H : ~ nocc is0 e) by
    (simpl; intros ?; repeat match goal with Hc : _ /\ _ |- _ => destruct Hc end;
     eapply yp_not_nocc; eassumption).

Ltac facts :=
  repeat match goal with
  | H : value ?x |- _ => apply valueb_spec in H
  | H : atom ?x |- _ => apply is_atom_spec in H
  | H : lets ?x |- _ => apply is_lets_spec in H
  | H : elem ?x |- _ => apply is_elem_spec in H
  | H : nocc is0 ?x |- _ => apply noccb_is0 in H
  | H : ~ nocc is0 ?x |- _ => apply noccb_false_of in H
  | H : nocc (lift is0) ?x |- _ => apply noccb_lift_is0 in H
  | H : ~ nocc (lift is0) ?x |- _ => apply noccb_lift_false_of in H
  | H : lin is0 ?x |- _ => apply linb_is0 in H
  | H : chain_body ?x |- _ => apply chain_bodyb_spec in H
  end.

Ltac comp :=
  repeat (simpl;
    repeat match goal with
    | H : ?b = true |- context [?b] => rewrite H
    | H : ?b = false |- context [?b] => rewrite H
    | H : ?b = Some _ |- context [?b] => rewrite H
    | H : ?b = None |- context [?b] => rewrite H
    | H : ?b = Stepped _ |- context [?b] => rewrite H
    | H : ?b = EVal _ |- context [?b] => rewrite H
    | H : valueb ?x = true |- context [step_at ?f ?g ?x] => rewrite (step_at_value f g x H)
    | Hs : step (App ?a ?b) _, Ha : valueb ?a = true, Hb : valueb ?b = true
      |- context [head_redexb (App ?a ?b)] => rewrite (hr_app a b _ Ha Hb Hs)
    | Hs : step (Dual ?a ?b) _, Ha : valueb ?a = true, Hb : valueb ?b = true
      |- context [head_redexb (Dual ?a ?b)] => rewrite (hr_dual a b _ Ha Hb Hs)
    | Hs : step (Proj ?i ?a) _, Ha : valueb ?a = true
      |- context [head_redexb (Proj ?i ?a)] => rewrite (hr_proj i a _ Ha Hs)
    | Hs : step (Fun ?f ?a) _, Ha : valueb ?a = true
      |- context [head_redexb (Fun ?f ?a)] => rewrite (hr_fun f a _ Ha Hs)
    | |- context [as_path (yp _)] => rewrite as_path_yp
    | |- context [as_path (Var 0)] => rewrite as_path_var0
    | |- context [noccb is0b (yp _)] => rewrite noccb_yp
    | |- context [is_atom (yp _)] => rewrite is_atom_yp
    | |- context [dual_out swap_inv 1 (Dual (ren swap _) (App (Var 1) _))] => rewrite dual_out_swap
    | |- context [dual_out upS_inv 0 (Dual (ren (up_ren S) _) (App (Var 0) _))] => rewrite dual_out_upS
    end).

Ltac pb_at Hst :=
  erewrite step_at_pb; [ | solve [auto using value_pb, elem_chain] | assumption | exact Hst ].

Section step_fn_complete_run.
Context {Σ : signature}.

(** [step_fn n t]: one step; [eval_fn n t]: the value [t] evaluates to,
    if it ends in one in at most [n] steps ([EStuck]: it ends in a stuck
    term).  With fuel [0] a step needs no premise. *)
Fixpoint step_fn (n : nat) (t : tm) {struct n} : sres :=
  match n with
  | 0 => step_at (fun _ => NoFuel) (fun _ => EFuel) t
  | S k => step_at (step_fn k) (eval_fn k) t
  end
with eval_fn (n : nat) (t : tm) {struct n} : eres :=
  match n with
  | 0 => EFuel
  | S k =>
      match step_fn k t with
      | Stepped t' => eval_fn k t'
      | Value => EVal t
      | Stuck => EStuck
      | NoFuel => EFuel
      end
  end.

(** ** Soundness of [step_fn] (from that of [step_at]) *)
Lemma step_fn_eval_fn_sound n :
  (forall t, ssound t (step_fn n t)) /\
  (forall t v, eval_fn n t = EVal v -> steps t v /\ value v).
Proof.
  induction n as [|n [IHs IHe]]; split; simpl.
  - intros t. apply step_at_sound; intros x y H; discriminate.
  - intros t v H. discriminate.
  - apply step_at_sound_of; assumption.
  - intros t v H. specialize (IHs t).
    destruct (step_fn n t) as [t'| | |]; try discriminate.
    + destruct (IHe _ _ H) as [H1 H2]. split; [|exact H2].
      eapply steps_cons; [exact IHs|exact H1].
    + injection H as <-. split; [apply steps_refl|exact IHs].
Qed.

(** [step_fn_sound]: a computed step is a step of the relation; a term
    found to be a value is one; a stuck term is not a value. *)
Theorem step_fn_sound n t t' : step_fn n t = Stepped t' -> step t t'.
Proof. intros H. pose proof (proj1 (step_fn_eval_fn_sound n) t) as S. rewrite H in S. exact S. Qed.

Theorem step_fn_value n t : step_fn n t = Value -> value t.
Proof. intros H. pose proof (proj1 (step_fn_eval_fn_sound n) t) as S. rewrite H in S. exact S. Qed.

Theorem step_fn_stuck_not_value n t : step_fn n t = Stuck -> ~ value t.
Proof. intros H. pose proof (proj1 (step_fn_eval_fn_sound n) t) as S. rewrite H in S. exact S. Qed.

Theorem eval_fn_sound n t v : eval_fn n t = EVal v -> steps t v /\ value v.
Proof. apply step_fn_eval_fn_sound. Qed.

(** ** More fuel does not change an answer of [step_fn] *)
Lemma step_fn_eval_fn_mono n :
  (forall t r, step_fn n t = r -> r <> NoFuel -> step_fn (S n) t = r) /\
  (forall t r, eval_fn n t = r -> r <> EFuel -> eval_fn (S n) t = r).
Proof.
  induction n as [|n [IHs IHe]]; split.
  - intros t r H Hr. cbn [step_fn] in *. eapply step_at_mono; [| |exact H|exact Hr].
    + intros x r' E. subst. contradiction.
    + intros x r' E. subst. contradiction.
  - intros t r H Hr. simpl in H. subst. contradiction.
  - intros t r H Hr. cbn [step_fn] in *. eapply step_at_mono; [| |exact H|exact Hr].
    + exact IHs.
    + exact IHe.
  - intros t r H Hr. cbn [eval_fn] in *.
    destruct (step_fn n t) as [t'| | |] eqn:E.
    + rewrite (IHs _ _ E) by discriminate. apply IHe; assumption.
    + rewrite (IHs _ _ E) by discriminate. exact H.
    + rewrite (IHs _ _ E) by discriminate. exact H.
    + subst. contradiction.
Qed.

Theorem step_fn_mono n m t r : n <= m -> step_fn n t = r -> r <> NoFuel -> step_fn m t = r.
Proof.
  induction 1 as [|m Hle IH]; intros H Hr; auto. apply (proj1 (step_fn_eval_fn_mono m)); auto.
Qed.

Lemma eval_fn_mono n m t r : n <= m -> eval_fn n t = r -> r <> EFuel -> eval_fn m t = r.
Proof.
  induction 1 as [|m Hle IH]; intros H Hr; auto. apply (proj2 (step_fn_eval_fn_mono m)); auto.
Qed.

(** ** Completeness of [step_fn] *)
(** The body of the premise of 20a when it is a path: its step is the
    linear rule (12), whose Jacobian body is the path itself. *)
Lemma premise_path_inv q x s u :
  step (App (Pb (yp q) (Var 0)) x) (Dual s (App (Var 0) u)) -> s = yp q.
Proof.
  destruct q as [|i q _] using rev_ind; [|rewrite yp_snoc]; simpl; intros H;
    inversion H; subst; try reflexivity;
    try match goal with F : eframe |- _ => destruct F; simpl in *; discriminate end;
    try (exfalso; eapply yp_not_nocc; eassumption).
Qed.

Theorem step_fn_eval_fn_complete :
  (forall t t', step t t' -> exists n, step_fn n t = Stepped t') /\
  (forall t v, steps t v -> value v -> exists n, eval_fn n t = EVal v).
Proof.
  assert (H : (forall t t', step t t' -> step t t' -> exists n, step_fn n t = Stepped t') /\
              (forall t v, steps t v -> value v -> exists n, eval_fn n t = EVal v)).
  2: { split; [intros t t' Hs; exact (proj1 H t t' Hs Hs)|exact (proj2 H)]. }
  apply (step_steps_mut (fun t t' _ => step t t' -> exists n, step_fn n t = Stepped t')
                        (fun t v _ => value v -> exists n, eval_fn n t = EVal v)).
  - (* (1) *)
    intros s v Hv Hst. exists 1. pose proof (value_lam s). facts. comp. reflexivity.
  - (* (2) *)
    intros v1 v2 H1 H2 Hst. exists 1. pose proof (value_pair _ _ H1 H2). facts. comp. reflexivity.
  - intros v1 v2 H1 H2 Hst. exists 1. pose proof (value_pair _ _ H1 H2). facts. comp. reflexivity.
  - (* (3) *)
    intros f r Hr Hst. exists 1. pose proof (value_num r).
    assert (dense_num (num_tm r) = Some r) by (apply dense_num_spec; auto). facts. comp. reflexivity.
  - (* (4) *)
    intros f r r' Hr Hr' Hst. exists 1. pose proof (value_num r'). pose proof (value_jac_num f r).
    pose proof (value_num r).
    assert (dense_num (num_tm r) = Some r) by (apply dense_num_spec; auto).
    assert (dense_num (num_tm r') = Some r') by (apply dense_num_spec; auto).
    facts. comp. reflexivity.
  - (* (5+) *)
    intros s c r Hn Hb Hst. exists 1. pose proof (value_ndual c).
    pose proof (proj1 (bp_value _ _ _ _ Hb)). facts. comp. reflexivity.
  - (* (6) *)
    intros v1 v2 v3 H1 H2 Hst. exists 1. pose proof (head_redexb_false_of _ H2).
    pose proof H2 as H3. simpl in H3. destruct H3 as [_ [H3 H4]]. facts. comp. reflexivity.
  - (* let *)
    intros v l Hv Hst. exists 1. facts. comp. reflexivity.
  - (* (7) *)
    intros e w He Hst. exists 1. assert (lets (Let e (Var 0))) by (constructor; auto).
    facts. comp. reflexivity.
  - (* (8) *)
    intros e l w He Hl Hst. exists 1. assert (lets (Let e l)) by (apply lets_cons; auto).
    pose proof (is_var0_lets _ Hl). facts. comp. reflexivity.
  - (* A-step *)
    intros p p' w Ha Hc Hst. exists 1. pose proof (astep_not_lets _ _ Ha).
    pose proof (areduce_complete _ _ Ha).
    assert (chain_bodyb p = false) by (destruct (chain_bodyb p) eqn:E; [apply chain_bodyb_spec in E; contradiction|reflexivity]).
    facts. comp. reflexivity.
  - (* (9) *)
    intros e w v Hw Hv He Hn Hst. exists 1. cbn [step_fn].
    pb_at Hst.
    unfold pb_head. facts. comp. reflexivity.
  - (* linear *)
    intros e w v Hw Hv He Hs Hst. exists 1. cbn [step_fn].
    pb_at Hst.
    pose proof (lin_shape_not_nocc _ Hs).
    destruct Hs as [p|p q|p q|f p|l p Hl|p a Ha]; [apply pb_head_path|unfold pb_head..].
    + facts. comp. reflexivity.
    + facts. comp. destruct p; reflexivity.
    + facts. comp. reflexivity.
    + apply elem_dual_inv in He as [? ?]. facts. comp. reflexivity.
    + apply elem_app_inv in He as [? ?]. pose proof (as_path_nocc _ Ha). facts. comp. reflexivity.
  - (* (10a) *)
    intros a q w v Hw Hv Ha Hn Hst. exists 1. cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (Plus a (yp q)). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (10a), mirrored *)
    intros p a w v Hw Hv Ha Hn Hst. exists 1. cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (Plus (yp p) a). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (13a) *)
    intros p a w v Hw Hv Ha Hn Hst. exists 1. cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (Pair (yp p) a). pose proof (as_path_nocc _ Hn). pose proof (elem_atom _ Ha).
    destruct p; facts; comp; reflexivity.
  - (* (13b) *)
    intros a q w v Hw Hv Ha Hn Hst. exists 1. cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (Pair a (yp q)). pose proof (as_path_nocc _ Hn). facts. comp. reflexivity.
  - (* (15) *)
    intros f p w v Hw Hv Hst. exists 1. cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (Fun f (yp p)). facts. comp. reflexivity.
  - (* (16b) *)
    intros l a s' u w v Hw Hv Hl Ha Hnl Hna Hlin Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Dual l a)) by (simpl; tauto).
    pose proof (as_path_nocc _ Hna). facts. comp. reflexivity.
  - (* (16c) *)
    intros l p s' u w v Hw Hv Hl Hnl Hlin Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst.
    unfold pb_head, premise_pt.
    nn (Dual l (yp p)). facts. comp. reflexivity.
  - (* (17) *)
    intros l z s0 u w v Hw Hv Hl Hz Hn Hval _ IH Hst.
    destruct (IH Hval) as [m Hm]. exists (S m). cbn [step_fn].
    pb_at Hst. unfold pb_head.
    pose proof (atom_eqb_refl _ (atom_ren S _ Hz)). fold (shift z) in *.
    facts. comp. reflexivity.
  - (* (17), its premise ending in 0 *)
    intros l z w v Hw Hv Hl Hz Hn _ IH Hst.
    destruct (IH value_zero) as [m Hm]. exists (S m). cbn [step_fn].
    pb_at Hst. unfold pb_head.
    facts. comp. reflexivity.
  - (* (18) *)
    intros l s' u w v Hw Hv Hl Hnl Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Lam l)) by (simpl; tauto). facts. comp.
    destruct (ren swap s'); reflexivity.
  - (* (18), its premise ending in a dual map along 0 *)
    intros l s0 w v Hw Hv Hl Hnl Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst.
    unfold pb_head, premise_pt.
    assert (~ nocc is0 (Lam l)) by (simpl; tauto). facts. comp. reflexivity.
  - (* (19b) *)
    intros p q p' vq s0 u w v Hw Hv Hp Hq Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (19c) *)
    intros p q p' vq w v Hw Hv Hp Hq _ IH Hst.
    destruct (IH (value_zero)) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (19b), its premise ending in a dual map along 0 *)
    intros p q p' vq s0 w v Hw Hv Hp Hq Hval _ IH Hst.
    destruct (IH Hval) as [n Hn]. exists (S n). cbn [step_fn].
    pb_at Hst. unfold pb_head.
    nn (App (yp p) (yp q)). facts. comp. reflexivity.
  - (* (20a) *)
    intros e s0 u w v Hw Hv He Hn Hst0 IH Hst.
    assert (Hc : chain_body (Pair (Var 0) e)) by (right; eauto).
    assert (~ nocc is0 (Pair (Var 0) e)) by (simpl; intros [H0 _]; apply H0; reflexivity).
    destruct (as_path e) as [q|] eqn:Eq.
    + apply as_path_some in Eq. subst e.
      rewrite ren_up_yp in Hst0. apply premise_path_inv in Hst0.
      rewrite <- (ren_up_yp S q) in Hst0. apply (ren_inj _ upS_inv) in Hst0; [subst s0|apply upS_inv_l].
      exists 1. cbn [step_fn].
      pb_at Hst.
      unfold pb_head, lin_red. facts. comp. reflexivity.
    + destruct (IH Hst0) as [n Hn']. exists (S n). cbn [step_fn].
      pb_at Hst.
      unfold pb_head. facts. comp. reflexivity.
  - (* (20b) *)
    intros e w v Hw Hv He Hn Hst.
    assert (Hc : chain_body (Pair (Var 0) e)) by (right; eauto).
    assert (~ nocc is0 (Pair (Var 0) e)) by (simpl; intros [H0 _]; apply H0; reflexivity).
    pose proof (as_path_nocc _ Hn). exists 1. cbn [step_fn].
    pb_at Hst.
    unfold pb_head. facts. comp. reflexivity.
  - (* evaluation contexts *)
    intros F t t' HF Hst IH _. destruct (IH Hst) as [n Hn].
    exists n. destruct n as [|n]; cbn [step_fn] in *;
      destruct F; simpl in HF;
      try (assert (is_lets p = false) by
             (destruct (is_lets p) eqn:E; [apply is_lets_spec in E; exfalso;
                                          exact (chain_body_not_lets _ HF E)|reflexivity]));
      facts; comp; reflexivity.
  - (* steps: refl *)
    intros t Hv. exists 1. facts. comp. reflexivity.
  - (* steps: cons *)
    intros t t' t'' Hst IH1 _ IH2 Hv. destruct (IH1 Hst) as [n1 H1]. destruct (IH2 Hv) as [n2 H2].
    exists (S (Nat.max n1 n2)). cbn [eval_fn].
    rewrite (step_fn_mono n1 (Nat.max n1 n2) _ _ (PeanoNat.Nat.le_max_l _ _) H1) by discriminate.
    apply (eval_fn_mono n2); [apply PeanoNat.Nat.le_max_r|exact H2|discriminate].
Qed.

(** [step_fn_complete]: every step of the relation is computed, once the
    fuel suffices for its premises. *)
Theorem step_fn_complete t t' :
  step t t' -> exists n, forall m, n <= m -> step_fn m t = Stepped t'.
Proof.
  intros H. destruct (proj1 step_fn_eval_fn_complete _ _ H) as [n Hn].
  exists n. intros m Hm. apply (step_fn_mono n); auto. discriminate.
Qed.

Theorem eval_fn_complete t v :
  steps t v -> value v -> exists n, forall m, n <= m -> eval_fn m t = EVal v.
Proof.
  intros H Hv. destruct (proj2 step_fn_eval_fn_complete _ _ H Hv) as [n Hn].
  exists n. intros m Hm. apply (eval_fn_mono n); auto. discriminate.
Qed.

(** The relation is deterministic: both steps are computed by the
    function with enough fuel. *)
Theorem step_det t t1 t2 : step t t1 -> step t t2 -> t1 = t2.
Proof.
  intros H1 H2. destruct (step_fn_complete _ _ H1) as [n1 E1].
  destruct (step_fn_complete _ _ H2) as [n2 E2].
  specialize (E1 (Nat.max n1 n2) (PeanoNat.Nat.le_max_l _ _)).
  specialize (E2 (Nat.max n1 n2) (PeanoNat.Nat.le_max_r _ _)). congruence.
Qed.

(** A term evaluates to at most one value. *)
Theorem steps_value_det t v1 v2 : steps t v1 -> value v1 -> steps t v2 -> value v2 -> v1 = v2.
Proof.
  intros H1 V1 H2 V2. destruct (eval_fn_complete _ _ H1 V1) as [n1 E1].
  destruct (eval_fn_complete _ _ H2 V2) as [n2 E2].
  specialize (E1 (Nat.max n1 n2) (PeanoNat.Nat.le_max_l _ _)).
  specialize (E2 (Nat.max n1 n2) (PeanoNat.Nat.le_max_r _ _)). congruence.
Qed.

(** On a value, [step_fn] answers [Value] with any fuel. *)
Theorem step_fn_value_complete n t : value t -> step_fn n t = Value.
Proof.
  intros H. apply valueb_spec in H. destruct n; cbn [step_fn]; apply step_at_value; exact H.
Qed.

(** [Stuck] is a stuck term: not a value, and no rule applies to it.
    (With more fuel the answer would still be [Stuck], and a step would
    be found.) *)
Theorem step_fn_stuck n t : step_fn n t = Stuck -> ~ value t /\ forall t', ~ step t t'.
Proof.
  intros H. split; [exact (step_fn_stuck_not_value _ _ H)|].
  intros t' Hs. destruct (step_fn_complete _ _ Hs) as [m Hm].
  specialize (Hm (Nat.max n m) (PeanoNat.Nat.le_max_r _ _)).
  rewrite (step_fn_mono n (Nat.max n m) t Stuck (PeanoNat.Nat.le_max_l _ _) H) in Hm
    by discriminate.
  discriminate.
Qed.

(** [EStuck]: the term evaluates to a normal form that is not a value, so
    it evaluates to no value. *)
Theorem eval_fn_stuck n t : eval_fn n t = EStuck -> forall v, steps t v -> ~ value v.
Proof.
  intros H v Hs Hv. destruct (eval_fn_complete _ _ Hs Hv) as [m Hm].
  specialize (Hm (Nat.max n m) (PeanoNat.Nat.le_max_r _ _)).
  rewrite (eval_fn_mono n (Nat.max n m) t EStuck (PeanoNat.Nat.le_max_l _ _) H) in Hm
    by discriminate.
  discriminate.
Qed.

End step_fn_complete_run.

(** * The step function: one step of the call-by-value strategy, computed

    [stepf n t] computes the step of [t] under [step] (reduction.v):
    the evaluation context of §6, the A-step in the body of a pullback,
    and the head rules 1-20.  The rules 16b, 16c, 17, 18, 19b, 19c evaluate
    an auxiliary term to a value in their premise, and 20a steps one; the
    function does this by calling itself, so it takes a fuel [n] that
    bounds the depth and the length of these nested evaluations.  The
    answer says which of three things happened:
    - [Stepped t']: [step t t'] ([stepf_sound]);
    - [Normal]: no rule applies, [t] is a normal form ([stepf_normal]);
    - [NoFuel]: a premise needed more fuel; with more fuel the answer is
      one of the two others.
    Every test is on syntax ([decide.v]); scalars are only computed with,
    never compared, so the function runs over any [signature].

    Results: [stepf_sound], [stepf_complete] (every step is found with
    enough fuel), [stepf_mono] (more fuel does not change an answer),
    [step_det] (the relation is deterministic, from the three), and
    [stepf_normal]. *)
From Pullback Require Import syntax typing anf backprop reduction progress decide.

Section step_fn.
Context {Σ : signature}.

Inductive sres : Type := Stepped (t : tm) | Normal | NoFuel.
Inductive eres : Type := EVal (v : tm) | EStuck | EFuel.

Definition ctx1 (k : tm -> tm) (r : sres) : sres :=
  match r with Stepped x => Stepped (k x) | Normal => Normal | NoFuel => NoFuel end.

Definition from_step (r : sres) (k : tm -> sres) : sres :=
  match r with Stepped x => k x | Normal => Normal | NoFuel => NoFuel end.

Definition from_ev (r : eres) (k : tm -> sres) : sres :=
  match r with EVal x => k x | EStuck => Normal | EFuel => NoFuel end.

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

Section heads.
(** [stp]: one step (premise of 20a); [ev]: evaluation to a value
    (premises of 16b-19c). *)
Variable stp : tm -> sres.
Variable ev : tm -> eres.

(** [((Ω λy.e) · w) v], for a chain [Ω λy.e · w] and a value [v]:
    rules 9-20. *)
Definition pb_head (e w v : tm) : sres :=
  if noccb is0b e then (if is_elem e then Stepped Zero else Normal) else
  match e with
  | Var _ | Proj _ _ => match as_path e with Some _ => lin_red e w v | None => Normal end
  | Plus a1 a2 =>
      match as_path a1, as_path a2 with
      | Some _, Some _ => lin_red e w v
      | None, Some q =>
          if is_atom a1 && noccb is0b a1 then Stepped (Dual (yp q) (out w v e)) else Normal
      | Some p, None =>
          if is_atom a2 && noccb is0b a2 then Stepped (Dual (yp p) (out w v e)) else Normal
      | None, None => Normal
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
                             | None => Normal
                             end)
          else Normal
      | Some p, None =>
          if is_atom a2 && noccb is0b a2
          then Stepped (Dual (Pair (yp p) Zero) (out w v e)) else Normal
      | None, Some q =>
          if is_atom a1 && noccb is0b a1
          then Stepped (Dual (Pair Zero (yp q)) (out w v e)) else Normal
      | None, None => Normal
      end
  | Jac _ a => match as_path a with Some _ => lin_red e w v | None => Normal end
  | Fun f a =>
      match as_path a with
      | Some p => Stepped (Dual (App (Jac f (yp p)) (shift (ppath p v))) (out w v e))
      | None => Normal
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
                                 else Normal
                             | None => Normal
                             end)
        | None =>
            if noccb is0b a && negb (noccb (liftb is0b) l) then
              from_ev (ev (App (Pb (ren swap l) (Var 1)) (premise_pt v)))
                (fun V => match dual_out swap_inv 1 V with
                          | Some (s', _) =>
                              if linb is0b s' then Stepped (Dual (Dual s' a) (out w v e))
                              else Normal
                          | None => Normal
                          end)
            else Normal
        end
      else Normal
  | Lam l =>
      if is_lets l && negb (noccb (liftb is0b) l) then
        from_ev (ev (App (Pb (ren swap l) (Var 1)) (premise_pt v)))
          (fun V => match dual_out swap_inv 1 V with
                    | Some (s', _) => Stepped (Dual (Lam s') (out w v e))
                    | None => Normal
                    end)
      else Normal
  | Pb l z =>
      if is_lets l && is_atom z then
        from_ev (ev (App (Pb (ren (up_ren S) l) (shift z)) (Var 0)))
          (fun V => match V with
                    | Dual s0 (App z' u) =>
                        if atom_eqb z' (shift z)
                        then Stepped (App (Pb (Lam (Dual s0 (App (shift z) u))) w) v)
                        else Normal
                    | _ => Normal
                    end)
      else Normal
  | App a1 a2 =>
      match as_path a1, as_path a2 with
      | Some _, None => if is_atom a2 && noccb is0b a2 then lin_red e w v else Normal
      | Some p, Some q =>
          match proj_val p v, proj_val q v with
          | Some (Lam p'), Some vq =>
              from_ev (ev (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)))
                (fun V => match V with
                          | Zero => Stepped (Dual (App (yp p) (shift vq)) (out w v e))
                          | _ =>
                              match dual_out upS_inv 0 V with
                              | Some (s0, _) =>
                                  Stepped (Dual (Plus (App (yp p) (shift vq)) (subst (vsub q) s0))
                                                (out w v e))
                              | None => Normal
                              end
                          end)
          | _, _ => Normal
          end
      | _, _ => Normal
      end
  | _ => Normal
  end.

(** One step: the first evaluation position that is not a value, else the
    head rule. *)
Fixpoint step_at (t : tm) : sres :=
  match t with
  | App a b =>
      if valueb a then
        if valueb b then
          match a with
          | Lam s => Stepped (subst1 b s)
          | Jac f q =>
              match dense_num q, dense_num b with
              | Some r, Some r' => Stepped (num_tm (fjac f r' r))
              | _, _ => Normal
              end
          | Pb e w => pb_head e w b
          | _ => Normal
          end
        else ctx1 (App a) (step_at b)
      else ctx1 (fun a' => App a' b) (step_at a)
  | Proj i a =>
      if valueb a then
        match a with Pair v1 v2 => Stepped (if i then v2 else v1) | _ => Normal end
      else ctx1 (Proj i) (step_at a)
  | Pair a b =>
      if valueb a then (if valueb b then Normal else ctx1 (Pair a) (step_at b))
      else ctx1 (fun a' => Pair a' b) (step_at a)
  | Plus a b =>
      if valueb a then (if valueb b then Normal else ctx1 (Plus a) (step_at b))
      else ctx1 (fun a' => Plus a' b) (step_at a)
  | Fun f a =>
      if valueb a then
        match dense_num a with Some r => Stepped (num_tm (fsem f r)) | None => Normal end
      else ctx1 (Fun f) (step_at a)
  | Jac f a => if valueb a then Normal else ctx1 (Jac f) (step_at a)
  | Dual s a =>
      if valueb a then
        if valueb s then
          match a with
          | NDual c =>
              if noccb is0b s then Normal
              else match bp s c NZ with Some r => Stepped (NDual r) | None => Normal end
          | Dual v2 v3 => Stepped (Dual (subst (scons s (fun n => Var (S n))) v2) v3)
          | _ => Normal
          end
        else ctx1 (fun s' => Dual s' a) (step_at s)
      else ctx1 (Dual s) (step_at a)
  | Pb p w =>
      if is_lets p then
        match p with
        | Let e l => if is_var0 l then Stepped (Pb e w)
                     else Stepped (Pb (Pair (Var 0) e) (Pb (subst sub8 l) w))
        | _ => Normal
        end
      else if chain_bodyb p then (if valueb w then Normal else ctx1 (Pb p) (step_at w))
      else match areduce p with Some p' => Stepped (Pb p' w) | None => Normal end
  | Let e l => if valueb e then Stepped (subst1 e l) else ctx1 (fun e' => Let e' l) (step_at e)
  | Var _ | Lam _ | Real _ | NDual _ | Zero => Normal
  end.

End heads.

(** [stepf n t]: one step; [evalf n t]: the value [t] evaluates to, if
    it ends in one in at most [n] steps ([EStuck]: it ends in a normal
    form that is not a value). *)
Fixpoint stepf (n : nat) (t : tm) {struct n} : sres :=
  match n with
  | 0 => NoFuel
  | S k => step_at (stepf k) (evalf k) t
  end
with evalf (n : nat) (t : tm) {struct n} : eres :=
  match n with
  | 0 => EFuel
  | S k =>
      if valueb t then EVal t
      else match stepf k t with
           | Stepped t' => evalf k t'
           | Normal => EStuck
           | NoFuel => EFuel
           end
  end.

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

Lemma ctx1_inv k r t' : ctx1 k r = Stepped t' -> exists x, r = Stepped x /\ t' = k x.
Proof. destruct r; simpl; intros H; try discriminate. injection H as <-. eauto. Qed.

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
    destruct (dual_out swap_inv 1 V) as [[s' u]|] eqn:Ed; [|discriminate]. bools.
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
    destruct a as [| |z' u| | | | | | | | | | |]; try discriminate.
    destruct (atom_eqb z' (shift z)) eqn:Ez; [|discriminate].
    apply atom_eqb_sound in Ez. subst z'. bools. eapply step_pb_pb; eauto.
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

Lemma step_at_sound t t' : step_at stp ev t = Stepped t' -> step t t'.
Proof.
  revert t'. induction t as [n|s IHs|a IHa b IHb|i a IHa|a IHa b IHb|r|f a IHa|f a IHa|s IHs a IHa
                 |p IHp w IHw|r| |a IHa b IHb|e IHe l IHl]; intros t' H; simpl in H;
    try discriminate;
    repeat match goal with
      | H : (if valueb ?x then _ else _) = _ |- _ =>
          let E := fresh "V" in destruct (valueb x) eqn:E; [apply valueb_spec in E|]
      end;
    try solve [
      match goal with
      | H : ctx1 _ (step_at _ _ ?x) = Stepped _,
        IH : forall t', step_at _ _ ?x = Stepped t' -> step ?x t' |- _ =>
          apply ctx1_inv in H as (x' & Hx & ->); apply IH in Hx;
          first [ apply (step_ctx (EAppL _)) | apply (step_ctx (EAppR _))
                | apply (step_ctx (EProj _)) | apply (step_ctx (EPairL _))
                | apply (step_ctx (EPairR _)) | apply (step_ctx (EPlusL _))
                | apply (step_ctx (EPlusR _)) | apply (step_ctx (EFun _))
                | apply (step_ctx (EJac _)) | apply (step_ctx (EDualR _))
                | apply (step_ctx (EDualL _)) | apply (step_ctx (EPbR _))
                | apply (step_ctx (ELet _)) ]; simpl; auto
      end ]; try discriminate.
  - (* application *)
    destruct a as [| s| | | | | |f q| |e w| | | |]; try discriminate.
    + injection H as <-. apply step_beta. assumption.
    + destruct (dense_num q) as [r|] eqn:Eq; [|discriminate].
      destruct (dense_num b) as [r'|] eqn:Eb; [|discriminate].
      apply dense_num_spec in Eq as [Hr ->]. apply dense_num_spec in Eb as [Hr' ->].
      injection H as <-. apply step_jac; auto.
    + apply value_pb_inv in V as [_ Hw]. apply pb_head_sound; auto.
  - (* projection *)
    destruct a; try discriminate. simpl in V. destruct V as [_ [V1 V2]].
    injection H as <-. destruct i; [apply step_proj2|apply step_proj1]; auto.
  - (* f(r) *)
    destruct (dense_num a) as [r|] eqn:Ea; [|discriminate].
    apply dense_num_spec in Ea as [Hr ->]. injection H as <-. apply step_fun. exact Hr.
  - (* dual maps *)
    destruct a; try discriminate.
    + injection H as <-. apply step_dual_comp; auto.
    + destruct (noccb is0b s) eqn:Hn; [discriminate|].
      destruct (bp s r NZ) as [r'|] eqn:Hb; [|discriminate]. injection H as <-.
      apply step_bp; auto. apply noccb_false_is0. exact Hn.
  - (* pullbacks: (7), (8), A-steps *)
    destruct (is_lets p) eqn:Hl.
    + apply is_lets_spec in Hl. destruct p; try discriminate.
      inversion Hl; subst.
      * injection H as <-. apply step_pb_ret. assumption.
      * destruct (is_var0 p2) eqn:Hv.
        -- apply is_var0_spec in Hv. subst. injection H as <-. apply step_pb_ret. assumption.
        -- injection H as <-. apply step_pb_let; assumption.
    + destruct (chain_bodyb p) eqn:Hc.
      * apply chain_bodyb_spec in Hc.
        destruct (valueb w) eqn:Vw; [discriminate|].
        apply ctx1_inv in H as (x' & Hx & ->). apply IHw in Hx.
        apply (step_ctx (EPbR _)); simpl; auto.
      * destruct (areduce p) as [p'|] eqn:Ha; [|discriminate]. injection H as <-.
        apply step_pb_anf; [apply areduce_sound; exact Ha|].
        intros Hc'. apply chain_bodyb_spec in Hc'. congruence.
  - (* let *)
    injection H as <-. apply step_let. assumption.
Qed.

End sound.

Lemma stepf_evalf_sound n :
  (forall t t', stepf n t = Stepped t' -> step t t') /\
  (forall t v, evalf n t = EVal v -> steps t v /\ value v).
Proof.
  induction n as [|n [IHs IHe]]; split; simpl; try discriminate.
  - intros t t'. apply step_at_sound; assumption.
  - intros t v H. destruct (valueb t) eqn:Vt.
    + injection H as <-. split; [apply steps_refl|apply valueb_spec; exact Vt].
    + destruct (stepf n t) as [t'| |] eqn:Hs; try discriminate.
      destruct (IHe _ _ H) as [H1 H2]. split; [|exact H2].
      eapply steps_cons; [apply IHs; exact Hs|exact H1].
Qed.

(** [step_fn_sound]: a computed step is a step of the relation. *)
Theorem stepf_sound n t t' : stepf n t = Stepped t' -> step t t'.
Proof. apply stepf_evalf_sound. Qed.

Theorem evalf_sound n t v : evalf n t = EVal v -> steps t v /\ value v.
Proof. apply stepf_evalf_sound. Qed.

(** ** More fuel does not change an answer *)
Definition agree_s (f g : tm -> sres) : Prop := forall x r, f x = r -> r <> NoFuel -> g x = r.
Definition agree_e (f g : tm -> eres) : Prop := forall x r, f x = r -> r <> EFuel -> g x = r.

Lemma from_step_mono f g x k r :
  agree_s f g -> from_step (f x) k = r -> r <> NoFuel -> from_step (g x) k = r.
Proof.
  intros A H Hr. destruct (f x) eqn:E; simpl in H.
  - rewrite (A x _ E) by discriminate. exact H.
  - rewrite (A x _ E) by discriminate. exact H.
  - subst. contradiction.
Qed.

Lemma from_ev_mono f g x k r :
  agree_e f g -> from_ev (f x) k = r -> r <> NoFuel -> from_ev (g x) k = r.
Proof.
  intros A H Hr. destruct (f x) eqn:E; simpl in H.
  - rewrite (A x _ E) by discriminate. exact H.
  - rewrite (A x _ E) by discriminate. exact H.
  - subst. contradiction.
Qed.

Lemma ctx1_mono k a b r :
  (forall r', a = r' -> r' <> NoFuel -> b = r') -> ctx1 k a = r -> r <> NoFuel -> ctx1 k b = r.
Proof.
  intros A H Hr. destruct a; simpl in H.
  - rewrite (A _ eq_refl) by discriminate. exact H.
  - rewrite (A _ eq_refl) by discriminate. exact H.
  - subst. contradiction.
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
  induction t; intros res; simpl;
    repeat match goal with
      |- context [match ?x with _ => _ end] =>
        lazymatch x with context [step_at] => fail | _ => destruct x end
      end.
  all: intros H Hr; try (subst; reflexivity).
  all: first [ eapply pb_head_mono; eassumption
             | eapply ctx1_mono; [|eassumption|eassumption]; auto ].
Qed.

Lemma stepf_evalf_mono n :
  (forall t r, stepf n t = r -> r <> NoFuel -> stepf (S n) t = r) /\
  (forall t r, evalf n t = r -> r <> EFuel -> evalf (S n) t = r).
Proof.
  induction n as [|n [IHs IHe]]; split.
  - intros t r H Hr. simpl in H. subst. contradiction.
  - intros t r H Hr. simpl in H. subst. contradiction.
  - intros t r H Hr. cbn [stepf] in *. eapply step_at_mono; [| |exact H|exact Hr].
    + exact IHs.
    + exact IHe.
  - intros t r H Hr. cbn [evalf] in *. destruct (valueb t); [exact H|].
    destruct (stepf n t) as [t'| |] eqn:E.
    + rewrite (IHs _ _ E) by discriminate. apply IHe; assumption.
    + rewrite (IHs _ _ E) by discriminate. exact H.
    + subst. contradiction.
Qed.

Theorem stepf_mono n m t r : n <= m -> stepf n t = r -> r <> NoFuel -> stepf m t = r.
Proof.
  induction 1 as [|m Hle IH]; intros H Hr; auto. apply (proj1 (stepf_evalf_mono m)); auto.
Qed.

Lemma evalf_mono n m t r : n <= m -> evalf n t = r -> r <> EFuel -> evalf m t = r.
Proof.
  induction 1 as [|m Hle IH]; intros H Hr; auto. apply (proj2 (stepf_evalf_mono m)); auto.
Qed.

End step_fn.

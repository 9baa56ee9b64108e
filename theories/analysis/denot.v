(** * A denotation of terms in the real model

    [den ρ M] is the meaning of [M] in the environment [ρ] (index [x] is
    [ρ x]): a tree of real vectors ([rv]) shaped like the values of the
    calculus.  Primitives are the instance over ℝ ([eval_prim Rvo]), sums
    the instance's [+], and [M.rd(x.N)(L)] the real reverse derivative of
    its body: coordinate [j] of the answer is
    [d/dt ⟨⟦M⟧, ⟦N⟧(⟦L⟧ + t·e_j)⟩] at [t = 0] (Coquelicot's [Derive], total
    and choice-free), reshaped like [⟦L⟧].

    Proved: renaming and substitution lemmas ([den_ren], [den_subst]), and
    soundness of every step of the term semantics but the [rd] step
    ([step_tm_den]): [M → M'] by a head step other than
    [W.rd(x.N)(V) → W.R_V(x.N)] gives [⟦M⟧ = ⟦M'⟧] for well-typed closed
    [M].  The [rd] step is not proved here. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd term_sem instance tactics.
From RevHandlers.Analysis Require Import vec templates sums prims ev.
Import ListNotations.
Open Scope R_scope.

Inductive rv : Type := RLeaf (v : vec) | RNode (vs : list rv).

Fixpoint rleaves (t : rv) : list vec :=
  match t with RLeaf v => [v] | RNode ts => concat (map rleaves ts) end.
Definition rflat (t : rv) : vec := concat (rleaves t).

(** The leaves of [t] refilled with the consecutive blocks of [y]. *)
Fixpoint reshape_aux (t : rv) (y : vec) : rv * vec :=
  match t with
  | RLeaf v => (RLeaf (firstn (length v) y), skipn (length v) y)
  | RNode ts =>
      let '(ts', y') :=
        (fix go (ts : list rv) (y : vec) : list rv * vec :=
           match ts with
           | [] => ([], y)
           | t :: ts => let '(t', y1) := reshape_aux t y in
                        let '(ts', y2) := go ts y1 in (t' :: ts', y2)
           end) ts y in
      (RNode ts', y')
  end.
Definition reshape (t : rv) (y : vec) : rv := fst (reshape_aux t y).

Definition unitv (n j : nat) : vec := tab n (fun i => if Nat.eqb i j then 1 else 0).

(** The reverse derivative at [l] of [F] (a map of trees shaped like [l]),
    applied to the cotangent [w]. *)
Definition rd_den (w l : rv) (F : rv -> rv) : rv :=
  let n := length (rflat l) in
  reshape l (tab n (fun j => Derive (fun t =>
    dot (rflat w) (rflat (F (reshape l (vp (rflat l) (vs t (unitv n j))))))) 0)).

Lemma rd_den_ext w l F G : (forall a, F a = G a) -> rd_den w l F = rd_den w l G.
Proof.
  intros H. unfold rd_den. f_equal. apply tab_ext. intros j _. apply Derive_ext. intros t.
  rewrite H. reflexivity.
Qed.

Definition scons (a : rv) (ρ : nat -> rv) : nat -> rv := fun x => match x with 0 => a | S x => ρ x end.

#[local] Instance Rsorts' : sorts := exec_sorts vec.

(** Closed values as trees. *)
Fixpoint tval (V : tm) : rv :=
  match V with
  | Const c => RLeaf (snd c)
  | Tuple Vs => RNode (map tval Vs)
  | _ => RNode []
  end.

Fixpoint den (ρ : nat -> rv) (M : tm) : rv :=
  match M with
  | Var x => ρ x
  | Const c => RLeaf (snd c)
  | App f M =>
      match eval_prim Rvo (fst f) (snd f) (rleaves (den ρ M)) with
      | Some outs => tval (fst (encode Rvo (fcod (fst f) (snd f)) outs))
      | None => RNode []
      end
  | Add M1 M2 =>
      match den ρ M1, den ρ M2 with
      | RLeaf u, RLeaf v => RLeaf (vadd Rsc u v)
      | _, _ => RNode []
      end
  | Tuple Ms => RNode (map (den ρ) Ms)
  | Proj i M => match den ρ M with RNode ts => nth i ts (RNode []) | _ => RNode [] end
  | Let M N => den (scons (den ρ M) ρ) N
  | Rd M N L => rd_den (den ρ M) (den ρ L) (fun a => den (scons a ρ) N)
  end.

Lemma den_ext M : forall ρ ρ', (forall x, ρ x = ρ' x) -> den ρ M = den ρ' M.
Proof.
  tm_induction M; intros ρ ρ' H; simpl; auto.
  - rewrite (IH ρ ρ' H). reflexivity.
  - rewrite (IH1 ρ ρ' H), (IH2 ρ ρ' H). reflexivity.
  - f_equal. apply map_ext_in. intros M HM. rewrite Forall_forall in IH. apply IH; auto.
  - rewrite (IH ρ ρ' H). reflexivity.
  - rewrite (IHM ρ ρ' H). apply IHN. intros [|x]; simpl; auto.
  - rewrite (IHM ρ ρ' H), (IHL ρ ρ' H). apply rd_den_ext. intros a. apply IHN.
    intros [|x]; simpl; auto.
Qed.

(** The cases of [den_ren] and [den_subst] other than the binders: by the
    induction hypotheses, componentwise for a tuple. *)
Local Ltac den_map_case :=
  lazymatch goal with
  | IH : Forall _ _ |- _ =>
      f_equal; rewrite map_map; apply map_ext_in; intros ? ?; rewrite Forall_forall in IH; apply IH; auto
  | _ => repeat match goal with IH : forall _ _, den _ _ = _ |- _ => rewrite IH end; reflexivity
  end.

Lemma den_ren M : forall ξ ρ, den ρ (ren_tm ξ M) = den (fun x => ρ (ξ x)) M.
Proof.
  tm_induction M; intros ξ ρ; simpl; auto.
  1-4: den_map_case.
  - rewrite IHM, IHN. apply den_ext. intros [|x]; simpl; auto.
  - rewrite IHM, IHL. apply rd_den_ext. intros a. rewrite IHN. apply den_ext. intros [|x]; simpl; auto.
Qed.

(** The substitution lemma: [⟦M[σ]⟧ρ = ⟦M⟧(x ↦ ⟦σ x⟧ρ)]. *)
Lemma den_subst M : forall σ ρ, den ρ (subst_tm σ M) = den (fun x => den ρ (σ x)) M.
Proof.
  tm_induction M; intros σ ρ; simpl; auto.
  1-4: den_map_case.
  - rewrite IHM, IHN. apply den_ext. intros [|x]; simpl; auto.
    unfold shift. rewrite den_ren. apply den_ext. intros y. reflexivity.
  - rewrite IHM, IHL. apply rd_den_ext. intros a. rewrite IHN. apply den_ext.
    intros [|x]; simpl; auto. unfold shift. rewrite den_ren. apply den_ext. intros y. reflexivity.
Qed.

(** ** Soundness of the steps other than [rd] *)
Lemma rleaves_tval V : rleaves (tval V) = map snd (@leaves vec V).
Proof.
  induction V as [x|c|f M IH|M1 M2 IH1 IH2|Vs IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; simpl; auto.
  rewrite concat_map, map_map, map_map. f_equal. apply map_ext_in. intros V HV.
  rewrite Forall_forall in IH. apply IH. auto.
Qed.

Section steps.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σr : signature := exec_signature Rvo decls locs.
#[local] Instance Er : evaluator := exec_evaluator Rvo.

Lemma den_value ρ V A : typed_tm [] V A -> value V -> den ρ V = tval V.
Proof.
  revert A. induction V as [x|c|f M IH|M1 M2 IH1 IH2|Vs IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros A HT HV; simpl; try discriminate; auto.
  - inversion HT; subst. destruct x; discriminate.
  - inversion HT as [| | | |? ? As HF| | |]; subst. apply value_tuple_iff in HV. f_equal.
    apply map_ext_in. intros V HVin. rewrite Forall_forall in IH, HV.
    destruct (In_nth_error _ _ HVin) as [j Hj].
    destruct (Forall2_nth_error _ _ _ j V HF Hj) as [B [_ HB]].
    eapply IH; eauto.
Qed.

Lemma den_fill_frame ρ F M M' : den ρ M = den ρ M' -> den ρ (fill_frame F M) = den ρ (fill_frame F M').
Proof.
  intros H. destruct F; simpl; rewrite ?H; auto.
  rewrite !map_app. simpl. rewrite H. reflexivity.
Qed.

Lemma den_fill_ectx ρ K M M' : den ρ M = den ρ M' -> den ρ (fill_ectx K M) = den ρ (fill_ectx K M').
Proof.
  revert M M'. induction K as [|F K IH]; intros M M' H; simpl; auto.
  apply IH. apply den_fill_frame. auto.
Qed.

Lemma head_step_den ρ M0 M0' B : typed_tm [] M0 B -> head_step_tm M0 M0' ->
  (forall W N V, M0 <> Rd W N V) -> den ρ M0 = den ρ M0'.
Proof.
  intros HT Hstep Hnrd. destruct Hstep as [f V V' HV Hev|c1 c2|Vs i V HVs Hi|V N HV|W N V A' HW HV HA'].
  - inversion HT; subst. simpl.
    rewrite (den_value ρ V _ ltac:(eassumption) HV), rleaves_tval.
    simpl in Hev. destruct f as [k p]. unfold exec_ev in Hev.
    match type of Hev with context [if ?b then _ else _] => destruct b end; [|discriminate].
    match type of Hev with context [match ?e with Some _ => _ | None => _ end] =>
      destruct e as [outs|] eqn:Eo end; [|discriminate].
    injection Hev as <-. simpl. unfold vec in *. rewrite Eo. destruct (encode_typed Rvo decls locs (fcod k p) outs) as [Hv Ht].
    symmetry. eapply den_value; eauto.
  - reflexivity.
  - simpl. apply nth_error_nth. rewrite nth_error_map, Hi. reflexivity.
  - simpl. rewrite den_subst. apply den_ext. intros [|x]; simpl; auto.
    unfold list_subst. simpl. rewrite ?Nat.sub_0_r. destruct x; reflexivity.
  - exfalso. eapply Hnrd. reflexivity.
Qed.

(** Every step of a well-typed closed term whose redex is not an [rd]
    keeps its denotation. *)
Theorem step_tm_den ρ K M0 M0' A :
  typed_tm [] (fill_ectx K M0) A -> head_step_tm M0 M0' -> (forall W N V, M0 <> Rd W N V) ->
  den ρ (fill_ectx K M0) = den ρ (fill_ectx K M0').
Proof.
  intros HT Hstep Hnrd. destruct (fill_ectx_typed _ _ _ _ HT) as [B [HB _]].
  apply den_fill_ectx. eapply head_step_den; eauto.
Qed.
End steps.

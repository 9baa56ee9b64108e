(** * The reverse-derivative rewriting [W.R_V(x.N)] (paper Fig. 4, spec §6)

    Following decisions.md item 7, the definition is the multi-variable
    variant [W.R_{V1..Vk}(<x1..xk>.N) : ∏ Ai]: the chain rule for
    [let y ← M in N] differentiates [N] in the variables [(y, x1..xk)] at
    once, so every forward prefix is computed once (the single-variable
    let rule recomputes them and grows exponentially).

    [rdr d Γ0 As θ W N] is [W.R_θ(<x⃗>.N)] where
    - [N] is typed in [As ++ Γ0]: the block [As] holds the variables
      [x1..xk] being differentiated, [Γ0] the other free variables;
    - [θ] sends every index of [As ++ Γ0] to a term of the output context:
      its first [k] entries are the point [V1..Vk], the others say where
      the remaining free variables of [N] live;
    - [W] is the cotangent, of the type of [N].
    The result has type [∏ As].

    The cases, with [k = |As|] and fresh let-bound variables:
<<
  (R-Var)    W.R(x⃗. x_i)            = <0,…,W@i,…,0>
  (R-VarO)   W.R(x⃗. y)              = 0_{∏A}                      (y ∉ x⃗)
  (R-Const)  W.R(x⃗. c)              = 0_{∏A}
  (R-Fun)    W.R(x⃗. f(M))           = let w ← rd[f](<M[θ], W>) in w.R(x⃗.M)
  (R-Add)    W.R(x⃗. M1 + M2)        = W.R(x⃗.M1) +_{∏A} W.R(x⃗.M2)
  (R-Tuple)  W.R(x⃗. <M1,…,Mn>)      = (proj_1 W).R(x⃗.M1) +_{∏A} … (proj_n W).R(x⃗.Mn)
  (R-Proj)   W.R(x⃗. proj_i(M))      = <0,…,W@i,…,0>.R(x⃗.M)
  (R-Let)    W.R(x⃗. let y ← M in N) = let y ← M[θ] in
                                       let p ← W.R_{(y,θ)}(<y,x⃗>.N) in
                                       <proj_2 p,…,proj_{k+1} p> +_{∏A} (proj_1 p).R(x⃗.M)
  (R-Rd)     W.R(x⃗. M.rd(y.N)(L))   = W.R(x⃗. let l ← L in let u ← M in u.R_l(y.N))
>>
    The recursion is structural in [N] except for R-Rd, which rewrites the
    inner [rd] first and differentiates the result; it is bounded by the
    [rd]-nesting depth [d].  Should [d] run out (it does not when started
    at [rd_depth N]: [rd_bound.v] proves that a larger bound gives the same
    term), the rewriting answers the unrewritten term
    [W.rd(q.N[proj_i q/x_i])(<V⃗>)], which denotes the same derivative and
    has the same type, so the bound never changes the meaning.  Fig. 4
    without a bound is the relation [rdr_rel] of [rdr_rel.v], which proves
    that on well-typed bodies [rdr] computes exactly it from the bound
    [rd_depth N] on. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas.

Section rd.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Γ : ctx) (M N L V W : tm) (A B : ty).

(* The derived zero and sum are used through their typing lemmas only. *)
#[local] Arguments plus : simpl never.
#[local] Arguments zero : simpl never.

(** Nesting depth of [rd] terms. *)
Fixpoint rd_depth (M : tm) : nat :=
  match M with
  | Var _ | Const _ => 0
  | App _ M | Proj _ M => rd_depth M
  | Add M1 M2 | Let M1 M2 => Nat.max (rd_depth M1) (rd_depth M2)
  | Tuple Ms => list_max' (map rd_depth Ms)
  | Rd M N L => S (Nat.max (rd_depth M) (Nat.max (rd_depth N) (rd_depth L)))
  end.

(** [<0_{A1},…,W@i,…,0_{An}>]. *)
Definition onehot (As : list ty) (i : nat) (W : tm) : tm :=
  Tuple (map (fun jA => if Nat.eqb (fst jA) i then W else zero (snd jA))
             (combine (seq 0 (length As)) As)).

(** [M1 +_A … +_A Mn], and [0_A] for [n = 0]. *)
Fixpoint sum_tms (A : ty) (Ms : list tm) : tm :=
  match Ms with
  | [] => zero A
  | [M] => M
  | M :: Ms' => plus A M (sum_tms A Ms')
  end.

(** [θ] seen from under one more binder. *)
Definition shift_subst (θ : nat -> tm) : nat -> tm := fun x => shift (θ x).

(** Substitution used by the unrewritten fallback: [x_i ↦ proj_i q]. *)
Definition proj_subst (k : nat) (θ : nat -> tm) : nat -> tm :=
  fun x => if Nat.ltb x k then Proj x (Var 0) else shift (θ x).

(** The substitution [y ↦ l, x ↦ x] that moves [N] (typed in [y :: Γf])
    under the two binders [u :: l :: Γf] of R-Rd. *)
Definition rd_inner_subst : nat -> tm :=
  fun x => match x with 0 => Var 1 | S x => Var (S (S x)) end.

Definition rdr_fun := ctx -> list ty -> (nat -> tm) -> tm -> tm -> tm.

(** One level of the rewriting; [rec] is the rewriting for terms of
    smaller [rd]-depth ([None] when the bound is spent). *)
Fixpoint rdr_step (rec : option rdr_fun)
    (Γ0 : ctx) (As : list ty) (θ : nat -> tm) (W : tm) (N : tm) {struct N} : tm :=
  let k := length As in
  match N with
  | Var x => if Nat.ltb x k then onehot As x W else zero (TProd As)
  | Const _ => zero (TProd As)
  | App f M =>
      Let (App (rd f) (Tuple [subst_tm θ M; W]))
          (rdr_step rec Γ0 As (shift_subst θ) (Var 0) M)
  | Add M1 M2 =>
      plus (TProd As) (rdr_step rec Γ0 As θ W M1) (rdr_step rec Γ0 As θ W M2)
  | Tuple Ms =>
      sum_tms (TProd As)
        ((fix go (i : nat) (Ms : list tm) {struct Ms} : list tm :=
            match Ms with
            | [] => []
            | M :: Ms' => rdr_step rec Γ0 As θ (Proj i W) M :: go (S i) Ms'
            end) 0 Ms)
  | Proj i M =>
      match infer_tm (As ++ Γ0) M with
      | Some (TProd Bs) => rdr_step rec Γ0 As θ (onehot Bs i W) M
      | _ => zero (TProd As)
      end
  | Let M N' =>
      match infer_tm (As ++ Γ0) M with
      | Some A' =>
          Let (subst_tm θ M)
            (Let (rdr_step rec Γ0 (A' :: As) (up θ) (shift W) N')
               (plus (TProd As)
                  (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 k)))
                  (rdr_step rec Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M)))
      | None => zero (TProd As)
      end
  | Rd M N' L =>
      match rec with
      | None =>
          Rd W (subst_tm (proj_subst k θ) N) (Tuple (map θ (seq 0 k)))
      | Some r =>
          match infer_tm (As ++ Γ0) L with
          | Some Ay =>
              r Γ0 As θ W
                (Let L (Let (shift M)
                   (Proj 0 (r (As ++ Γ0) [Ay] rd_inner_subst (Var 0) N'))))
          | None => zero (TProd As)
          end
      end
  end.

Fixpoint rdr (d : nat) : rdr_fun :=
  match d with
  | 0 => rdr_step None
  | S d' => rdr_step (Some (rdr d'))
  end.

(** The rewriting used by the reduction rule [W.rd(x.N)(V) → W.R_V(x.N)]
    at a point [V : A] in context [Γ] (empty at run time): the
    one-variable instance, projected. *)
Definition rd_rewrite (Γ : ctx) (A : ty) (W V N : tm) : tm :=
  Proj 0 (rdr (rd_depth N) Γ [A] (list_subst [V]) W N).

(** ** Typing (the paper's lemma in §5.1: [Γ ⊢ W.R_V(x.N) : A]) *)

Lemma onehot_typed Γ As i A W :
  nth_error As i = Some A -> typed_tm Γ W A -> typed_tm Γ (onehot As i W) (TProd As).
Proof.
  intros Hi HW. unfold onehot. constructor.
  assert (Hgen : forall j As0,
             (forall n B, nth_error As0 n = Some B -> j + n = i -> B = A) ->
             Forall2 (typed_tm Γ)
               (map (fun jA => if Nat.eqb (fst jA) i then W else zero (snd jA))
                    (combine (seq j (length As0)) As0)) As0).
  { intros j As0. revert j. induction As0 as [|B As0 IH]; intros j Hj; simpl.
    - constructor.
    - constructor.
      + destruct (Nat.eqb_spec j i) as [<-|Hne].
        * rewrite (Hj 0 B eq_refl (Nat.add_0_r j)). exact HW.
        * apply zero_typed.
      + apply IH. intros n C Hn Hjn. apply (Hj (S n)); [exact Hn|lia]. }
  apply Hgen. intros n B Hn Hni. simpl in Hni. subst n. congruence.
Qed.

Lemma sum_tms_typed Γ A Ms :
  Forall (fun M => typed_tm Γ M A) Ms -> typed_tm Γ (sum_tms A Ms) A.
Proof.
  induction 1 as [|M Ms HM HMs IH]; simpl.
  - apply zero_typed.
  - destruct Ms; [exact HM|]. apply plus_typed; assumption.
Qed.

Lemma subst_ok_shift_subst θ Γf Γ B :
  subst_ok θ Γf Γ -> subst_ok (shift_subst θ) Γf (B :: Γ).
Proof. intros Hθ x A Hx. apply typed_tm_shift. auto. Qed.

(** The property of [rec] that the typing proof needs. *)
Definition rdr_fun_ok (r : rdr_fun) : Prop :=
  forall Γ0 As θ W N B Γ,
    typed_tm (As ++ Γ0) N B -> typed_tm Γ W B -> subst_ok θ (As ++ Γ0) Γ ->
    typed_tm Γ (r Γ0 As θ W N) (TProd As).

(** Informal proof: by induction on the typing derivation of [N], for
    every block [As], point [θ] and cotangent [W] (spec §6).  R-Var: the
    one-hot tuple; R-Fun: [rd[f] : A' × B → A'] applied to [<M[θ], W>],
    then the induction hypothesis with the new cotangent [w : A']; R-Add and
    R-Tuple: sums at [∏ As] of the hypotheses; R-Proj: the one-hot tuple at
    the type of [M] (inferred); R-Let: the hypothesis for [N] in the block
    [(y, x⃗)] gives [∏ (A' :: As)], whose tail and the hypothesis for [M]
    with cotangent [proj_1 p] are summed; R-Rd: the rewriting [r] of the
    smaller [rd] depth types the inner [u.R_l(y.N)] and then the rewritten
    term; when the depth bound is spent, the unrewritten [rd] term has type
    [∏ As] by T-Rd. *)
Lemma rdr_step_typed rec :
  match rec with Some r => rdr_fun_ok r | None => True end ->
  rdr_fun_ok (rdr_step rec).
Proof.
  intros Hrec Γ0 As θ W N B Γ HN HW Hθ.
  remember (As ++ Γ0) as Γf eqn:HΓf. revert As Γ0 HΓf θ W Γ HW Hθ.
  elim HN using typed_tm_ind'; clear N B HN Γf.
  - (* typed_tm_var *)
    intros Γf x A Hx As Γ0 HΓf θ W Γ HW Hθ. simpl.
    destruct (Nat.ltb_spec x (length As)) as [Hlt|Hge].
    + subst Γf. rewrite nth_error_app_lt in Hx by exact Hlt.
      eapply onehot_typed; eauto.
    + apply zero_typed.
  - (* typed_tm_const *)
    intros. simpl. apply zero_typed.
  - (* typed_tm_app *)
    intros Γf f M HM IH As Γ0 HΓf θ W Γ HW Hθ. simpl.
    apply typed_tm_let with (A := fsym_dom f).
    + rewrite <- rd_cod. constructor. rewrite rd_dom. constructor.
      constructor; [eapply typed_tm_subst; eauto|].
      constructor; [exact HW|constructor].
    + eapply IH; eauto.
      * constructor. reflexivity.
      * apply subst_ok_shift_subst. exact Hθ.
  - (* typed_tm_add *)
    intros Γf M1 M2 b HM1 IH1 HM2 IH2 As Γ0 HΓf θ W Γ HW Hθ. simpl.
    apply plus_typed; eauto.
  - (* typed_tm_tuple *)
    intros Γf Ms Bs HMs IH As Γ0 HΓf θ W Γ HW Hθ. simpl.
    apply sum_tms_typed.
    assert (Hgen : forall i Ms0 Bs0,
               Forall2 (fun M B => forall As Γ0, Γf = As ++ Γ0 -> forall θ W Γ,
                          typed_tm Γ W B -> subst_ok θ Γf Γ ->
                          typed_tm Γ (rdr_step rec Γ0 As θ W M) (TProd As)) Ms0 Bs0 ->
               (forall j B, nth_error Bs0 j = Some B -> nth_error Bs (i + j) = Some B) ->
               Forall (fun M => typed_tm Γ M (TProd As))
                 ((fix go (i : nat) (Ms : list tm) {struct Ms} : list tm :=
                     match Ms with
                     | [] => []
                     | M :: Ms' => rdr_step rec Γ0 As θ (Proj i W) M :: go (S i) Ms'
                     end) i Ms0)).
    { intros i Ms0 Bs0 HF. revert i.
      induction HF as [|M B Ms0 Bs0 HMB HF IHl]; intros i Hnth; simpl; constructor.
      - eapply HMB; eauto.
        econstructor; [exact HW|]. rewrite <- (Nat.add_0_r i). apply Hnth. reflexivity.
      - apply IHl. intros j C Hj. replace (S i + j) with (i + S j) by lia.
        apply Hnth. exact Hj. }
    apply (Hgen 0 Ms Bs).
    + exact IH.
    + intros j C Hj. exact Hj.
  - (* typed_tm_proj *)
    intros Γf M Bs i A HM IH Hi As Γ0 HΓf θ W Γ HW Hθ. simpl.
    subst Γf. rewrite (infer_tm_complete _ _ _ HM).
    eapply IH; eauto. eapply onehot_typed; eauto.
  - (* typed_tm_let *)
    intros Γf M N A' B HM IHM HN IHN As Γ0 HΓf θ W Γ HW Hθ. simpl.
    subst Γf. rewrite (infer_tm_complete _ _ _ HM).
    econstructor; [eapply typed_tm_subst; eauto|].
    econstructor.
    + eapply (IHN (A' :: As)); [reflexivity| |apply subst_ok_up; exact Hθ].
      apply typed_tm_shift. exact HW.
    + apply plus_typed.
      * constructor.
        assert (Hgen : forall j As0,
                   (forall n C, nth_error As0 n = Some C -> nth_error As (j + n) = Some C) ->
                   Forall2 (typed_tm (TProd (A' :: As) :: A' :: Γ))
                     (map (fun j => Proj (S j) (Var 0)) (seq j (length As0))) As0).
        { intros j As0. revert j. induction As0 as [|C As0 IHa]; intros j Hj; simpl.
          - constructor.
          - constructor.
            + econstructor; [constructor; reflexivity|]. simpl.
              rewrite <- (Nat.add_0_r j). apply Hj. reflexivity.
            + apply IHa. intros n C' Hn. replace (S j + n) with (j + S n) by lia.
              apply Hj. exact Hn. }
        apply Hgen. intros n C Hn. exact Hn.
      * eapply IHM; [reflexivity| |].
        -- econstructor; [constructor; reflexivity|reflexivity].
        -- do 2 apply subst_ok_shift_subst. exact Hθ.
  - (* typed_tm_rd *)
    intros Γf M N L A B HM IHM HN IHN HL IHL As Γ0 HΓf θ W Γ HW Hθ. simpl.
    destruct rec as [r|].
    + subst Γf. rewrite (infer_tm_complete _ _ _ HL).
      eapply Hrec; [| exact HW | exact Hθ].
      econstructor; [exact HL|].
      econstructor; [apply typed_tm_shift; exact HM|].
      apply typed_tm_proj with (As := [A]); [|reflexivity].
      eapply (Hrec (As ++ Γ0) [A]); [exact HN|constructor; reflexivity|].
      intros [|x] C Hx; simpl in Hx |- *; constructor.
      * simpl. congruence.
      * exact Hx.
    + econstructor.
      * exact HW.
      * eapply (typed_tm_subst Γf (Rd M N L) A); [econstructor; eauto|].
        intros x C Hx. unfold proj_subst.
        destruct (Nat.ltb_spec x (length As)) as [Hlt|Hge].
        -- subst Γf. rewrite nth_error_app_lt in Hx by exact Hlt.
           econstructor; [constructor; reflexivity|exact Hx].
        -- apply typed_tm_shift. auto.
      * constructor. subst Γf.
        assert (Hgen : forall j As0,
                   (forall n C, nth_error As0 n = Some C -> nth_error As (j + n) = Some C) ->
                   Forall2 (typed_tm Γ) (map θ (seq j (length As0))) As0).
        { intros j As0. revert j. induction As0 as [|C As0 IHa]; intros j Hj; simpl.
          - constructor.
          - constructor.
            + apply Hθ. rewrite nth_error_app_lt.
              * rewrite <- (Nat.add_0_r j). apply Hj. reflexivity.
              * assert (nth_error As (j + 0) = Some C) as Hc by (apply Hj; reflexivity).
                rewrite Nat.add_0_r in Hc. apply nth_error_Some. congruence.
            + apply IHa. intros n C' Hn. replace (S j + n) with (j + S n) by lia.
              apply Hj. exact Hn. }
        apply Hgen. intros n C Hn. exact Hn.
Qed.

Lemma rdr_typed d : rdr_fun_ok (rdr d).
Proof.
  induction d as [|d IH]; simpl; apply rdr_step_typed; [exact I|exact IH].
Qed.

(** The paper's lemma: for [Γ ⊢ W : B], [Γ ⊢ V : A] and [x:A, Γ ⊢ N : B],
    [Γ ⊢ W.R_V(x.N) : A]. *)
Lemma rd_rewrite_typed Γ W V N A B :
  typed_tm Γ W B -> typed_tm Γ V A -> typed_tm (A :: Γ) N B ->
  typed_tm Γ (rd_rewrite Γ A W V N) A.
Proof.
  intros HW HV HN. unfold rd_rewrite.
  apply typed_tm_proj with (As := [A]); [|reflexivity].
  eapply (rdr_typed _ Γ [A]); [exact HN| exact HW |].
  apply (subst_ok_list [V] [A]). constructor; [exact HV|constructor].
Qed.

End rd.

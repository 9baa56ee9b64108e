(** * Fig. 4 as a relation: the unbounded rewriting [W.R_θ(x⃗.N)]

    [rdr d] ([rd.v]) computes the reverse-derivative rewriting with a bound
    [d] on the nesting of [rd] terms, and answers an unrewritten [rd] term
    when the bound is spent; [rd_bound.v] proves that from [rd_depth N] on
    the bound does not matter.  That alone would not show that [rdr] meets
    the paper's Fig. 4: a definition that always fell back would satisfy it.

    Here Fig. 4 is stated as an inductive relation [rdr_rel Γ0 As θ W N R]
    ("[W.R_θ(x⃗.N)] is [R]"), with the arguments of [rdr_fun]: the context
    [Γ0] of the other free variables, the types [As] of the differentiated
    block [x⃗], the substitution [θ] (the point, and where the other
    variables live), the cotangent [W], the body [N] and the result.  It has
    one rule per case of the figure (in the multi-variable form of
    decisions.md item 7, as [rd.v] defines it) and no bound: R-Rd refers to
    [rdr_rel] itself both for the inner [u.R_l(y.N)] and for the term built
    around it.  The derived terms [0_A], [+_A], one-hot tuples and sums and
    the substitutions are those of [rd.v].

    The rules carry the typing facts the figure's side conditions read
    ([x⃗, Γ0 ⊢ M : ∏ Bj] in R-Proj, the type of the let-bound term in R-Let
    and of the point [L] in R-Rd); they are stated with [typed_tm], so the
    relation is the paper's, not the inference function's.

    Results:
    - [rdr_rel_rdr]: for a well-typed [N] and every bound [d ≥ rd_depth N],
      the bounded [rdr d] is related to [N] (so it meets Fig. 4, and its
      fallback is never what it answers);
    - [rdr_rel_eq]: conversely every result of the relation is [rdr d] for
      such a [d] (no typing needed), hence [rdr_rel_det] (the relation is
      functional) and [rdr_rel_iff];
    - [rd_rewrite_rel], [rd_rewrite_unique], [rd_rewrite_iff]: the same for
      the one-variable instance [rd_rewrite] used by the reduction
      [W.rd(x.N)(V) → W.R_V(x.N)]. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd rd_bound.

Section rdr_rel.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Γ : ctx) (M N L V W R : tm) (A B : ty).

(* The derived terms are compared, never unfolded. *)
#[local] Arguments plus : simpl never.
#[local] Arguments zero : simpl never.
#[local] Arguments onehot : simpl never.
#[local] Arguments sum_tms : simpl never.

(** In the rules, [k = |As|], [∏A] is [TProd As], and the block [x⃗] is
    the first [k] variables of the context [As ++ Γ0] of [N]. *)
Inductive rdr_rel : ctx -> list ty -> (nat -> tm) -> tm -> tm -> tm -> Prop :=
(**
<<
                 i < k
    ──────────────────────────────────────  (R-Var)
     W.R_θ(x⃗. x_i) = <0,…,W@i,…,0>
>> *)
| rdr_rel_var Γ0 As θ W x :
    x < length As ->
    rdr_rel Γ0 As θ W (Var x) (onehot As x W)
(**
<<
             y ∉ x⃗
    ─────────────────────────  (R-VarO)
     W.R_θ(x⃗. y) = 0_{∏A}
>> *)
| rdr_rel_varo Γ0 As θ W x :
    length As <= x ->
    rdr_rel Γ0 As θ W (Var x) (zero (TProd As))
(**
<<
    ─────────────────────────  (R-Const)
     W.R_θ(x⃗. c) = 0_{∏A}
>> *)
| rdr_rel_const Γ0 As θ W c :
    rdr_rel Γ0 As θ W (Const c) (zero (TProd As))
(**
<<
                    w.R_θ(x⃗.M) = R
    ───────────────────────────────────────────────────────  (R-Fun)
     W.R_θ(x⃗. f(M)) = let w ← rd[f](<M[θ], W>) in R
>> *)
| rdr_rel_fun Γ0 As θ W f M R :
    rdr_rel Γ0 As (shift_subst θ) (Var 0) M R ->
    rdr_rel Γ0 As θ W (App f M)
      (Let (App (rd f) (Tuple [subst_tm θ M; W])) R)
(**
<<
     W.R_θ(x⃗.M1) = R1    W.R_θ(x⃗.M2) = R2
    ────────────────────────────────────────  (R-Add)
       W.R_θ(x⃗. M1 + M2) = R1 +_{∏A} R2
>> *)
| rdr_rel_add Γ0 As θ W M1 M2 R1 R2 :
    rdr_rel Γ0 As θ W M1 R1 ->
    rdr_rel Γ0 As θ W M2 R2 ->
    rdr_rel Γ0 As θ W (Add M1 M2) (plus (TProd As) R1 R2)
(**
<<
          (proj_i W).R_θ(x⃗.Mi) = Ri   (i = 1..n)
    ─────────────────────────────────────────────────────  (R-Tuple)
     W.R_θ(x⃗. <M1,…,Mn>) = R1 +_{∏A} … +_{∏A} Rn
>>
    ([0_{∏A}] for [n = 0]; indices are 0-based in Coq.) *)
| rdr_rel_tuple Γ0 As θ W Ms Rs :
    length Rs = length Ms ->
    (forall i M R, nth_error Ms i = Some M -> nth_error Rs i = Some R ->
       rdr_rel Γ0 As θ (Proj i W) M R) ->
    rdr_rel Γ0 As θ W (Tuple Ms) (sum_tms (TProd As) Rs)
(**
<<
     x⃗, Γ0 ⊢ M : ∏_j Bj    <0_{B1},…,W@i,…,0_{Bn}>.R_θ(x⃗.M) = R
    ──────────────────────────────────────────────────────────────  (R-Proj)
                    W.R_θ(x⃗. proj_i(M)) = R
>> *)
| rdr_rel_proj Γ0 As θ W i M Bs R :
    typed_tm (As ++ Γ0) M (TProd Bs) ->
    rdr_rel Γ0 As θ (onehot Bs i W) M R ->
    rdr_rel Γ0 As θ W (Proj i M) R
(**
<<
     x⃗, Γ0 ⊢ M : A'    W.R_{(y,θ)}(<y,x⃗>.N) = R1    (proj_1 p).R_θ(x⃗.M) = R2
    ────────────────────────────────────────────────────────────────────────  (R-Let)
     W.R_θ(x⃗. let y ← M in N) = let y ← M[θ] in let p ← R1 in
                                  <proj_2 p,…,proj_{k+1} p> +_{∏A} R2
>>
    ([R1] is computed under [y], [R2] under [y] and [p].) *)
| rdr_rel_let Γ0 As θ W M N A' R1 R2 :
    typed_tm (As ++ Γ0) M A' ->
    rdr_rel Γ0 (A' :: As) (up θ) (shift W) N R1 ->
    rdr_rel Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M R2 ->
    rdr_rel Γ0 As θ W (Let M N)
      (Let (subst_tm θ M)
         (Let R1
            (plus (TProd As)
               (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As))))
               R2)))
(**
<<
     x⃗, Γ0 ⊢ L : A    u.R_l(y.N) = R1    W.R_θ(x⃗. let l ← L in let u ← M in R1) = R
    ───────────────────────────────────────────────────────────────────────────────  (R-Rd)
                           W.R_θ(x⃗. M.rd(y.N)(L)) = R
>>
    The inner rewriting is the one-variable instance (block [[A]], point
    [l], cotangent [u]) in the context [u, l, x⃗, Γ0], projected; it and the
    outer one are [rdr_rel] itself: no bound. *)
| rdr_rel_rd Γ0 As θ W M N L A R1 R :
    typed_tm (As ++ Γ0) L A ->
    rdr_rel (As ++ Γ0) [A] rd_inner_subst (Var 0) N R1 ->
    rdr_rel Γ0 As θ W (Let L (Let (shift M) (Proj 0 R1))) R ->
    rdr_rel Γ0 As θ W (Rd M N L) R.

(** ** The bounded rewriting, case by case *)

(** The components of R-Tuple as [rdr_step] computes them. *)
Fixpoint rdr_tuple (r : tm -> tm -> tm) (W : tm) (i : nat) (Ms : list tm) : list tm :=
  match Ms with
  | [] => []
  | M :: Ms' => r (Proj i W) M :: rdr_tuple r W (S i) Ms'
  end.

Lemma rdr_tuple_length r W i Ms : length (rdr_tuple r W i Ms) = length Ms.
Proof. revert i. induction Ms as [|M Ms IH]; intros i; simpl; [reflexivity|]. rewrite IH. reflexivity. Qed.

Lemma rdr_tuple_nth r W i Ms j R :
  nth_error (rdr_tuple r W i Ms) j = Some R ->
  exists M, nth_error Ms j = Some M /\ R = r (Proj (i + j) W) M.
Proof.
  revert i j. induction Ms as [|M Ms IH]; intros i j Hj; simpl in Hj.
  - destruct j; discriminate.
  - destruct j as [|j]; simpl in Hj.
    + injection Hj as <-. exists M. rewrite Nat.add_0_r. split; reflexivity.
    + destruct (IH (S i) j Hj) as [M' [HM' ->]]. exists M'. split; [exact HM'|].
      f_equal. f_equal. lia.
Qed.

Lemma rdr_tuple_unique r W i Ms Rs :
  length Rs = length Ms ->
  (forall j M R, nth_error Ms j = Some M -> nth_error Rs j = Some R -> R = r (Proj (i + j) W) M) ->
  Rs = rdr_tuple r W i Ms.
Proof.
  revert i Rs. induction Ms as [|M Ms IH]; intros i Rs Hlen HRs; destruct Rs as [|R Rs];
    simpl in Hlen |- *; try discriminate; [reflexivity|].
  f_equal.
  - rewrite <- (Nat.add_0_r i). apply (HRs 0); reflexivity.
  - apply IH; [lia|]. intros j M' R' HM' HR'.
    replace (S i + j) with (i + S j) by lia. apply (HRs (S j)); assumption.
Qed.

Lemma rdr_Var d Γ0 As θ W x :
  rdr d Γ0 As θ W (Var x) = if Nat.ltb x (length As) then onehot As x W else zero (TProd As).
Proof. destruct d; reflexivity. Qed.

Lemma rdr_Const d Γ0 As θ W c : rdr d Γ0 As θ W (Const c) = zero (TProd As).
Proof. destruct d; reflexivity. Qed.

Lemma rdr_App d Γ0 As θ W f M :
  rdr d Γ0 As θ W (App f M) =
  Let (App (rd f) (Tuple [subst_tm θ M; W])) (rdr d Γ0 As (shift_subst θ) (Var 0) M).
Proof. destruct d; reflexivity. Qed.

Lemma rdr_Add d Γ0 As θ W M1 M2 :
  rdr d Γ0 As θ W (Add M1 M2) = plus (TProd As) (rdr d Γ0 As θ W M1) (rdr d Γ0 As θ W M2).
Proof. destruct d; reflexivity. Qed.

Lemma rdr_Tuple d Γ0 As θ W Ms :
  rdr d Γ0 As θ W (Tuple Ms) = sum_tms (TProd As) (rdr_tuple (rdr d Γ0 As θ) W 0 Ms).
Proof.
  destruct d; simpl; f_equal; generalize 0;
    (induction Ms as [|M Ms IH]; intros i; simpl; [reflexivity|]; rewrite IH; reflexivity).
Qed.

Lemma rdr_Proj d Γ0 As θ W i M :
  rdr d Γ0 As θ W (Proj i M) =
  match infer_tm (As ++ Γ0) M with
  | Some (TProd Bs) => rdr d Γ0 As θ (onehot Bs i W) M
  | _ => zero (TProd As)
  end.
Proof. destruct d; reflexivity. Qed.

Lemma rdr_Let d Γ0 As θ W M N :
  rdr d Γ0 As θ W (Let M N) =
  match infer_tm (As ++ Γ0) M with
  | Some A' =>
      Let (subst_tm θ M)
        (Let (rdr d Γ0 (A' :: As) (up θ) (shift W) N)
           (plus (TProd As)
              (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As))))
              (rdr d Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M)))
  | None => zero (TProd As)
  end.
Proof. destruct d; reflexivity. Qed.

Lemma rdr_Rd d Γ0 As θ W M N L :
  rdr (S d) Γ0 As θ W (Rd M N L) =
  match infer_tm (As ++ Γ0) L with
  | Some A =>
      rdr d Γ0 As θ W
        (Let L (Let (shift M) (Proj 0 (rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N))))
  | None => zero (TProd As)
  end.
Proof. reflexivity. Qed.

(** With the bound spent, the unrewritten fallback; it is never reached
    from a sufficient bound ([rdr_rel_rdr] and [rdr_rel_eq] below). *)
Lemma rdr_Rd_spent Γ0 As θ W M N L :
  rdr 0 Γ0 As θ W (Rd M N L) =
  Rd W (subst_tm (proj_subst (length As) θ) (Rd M N L)) (Tuple (map θ (seq 0 (length As)))).
Proof. reflexivity. Qed.

Lemma rd_depth_nth Ms j M :
  nth_error Ms j = Some M -> rd_depth M <= list_max' (map rd_depth Ms).
Proof.
  revert j. induction Ms as [|M' Ms IH]; intros j Hj; [destruct j; discriminate|].
  destruct j as [|j]; simpl in Hj |- *.
  - injection Hj as ->. lia.
  - specialize (IH j Hj). lia.
Qed.

(** In R-Rd the outer rewriting is applied to a term within the smaller
    bound: the inner rewriting does not deepen [rd] nesting. *)
Lemma rd_depth_rd_body d Γf A M N L :
  rd_depth N <= d -> rd_depth L <= d -> rd_depth M <= d ->
  rd_depth (Let L (Let (shift M) (Proj 0 (rdr d Γf [A] rd_inner_subst (Var 0) N)))) <= d.
Proof.
  intros HN HL HM. simpl. rewrite rd_depth_shift.
  pose proof (rdr_depth d N Γf [A] rd_inner_subst (Var 0) HN rd_free_inner) as H.
  simpl in H. lia.
Qed.

(** ** Every result of the relation is the bounded rewriting *)

(** Informal proof: by induction on the derivation, for every sufficient
    bound [d].  Each rule but R-Rd is the case of [rdr_step] on the same
    constructor, with the recursive calls at the same bound; the typing
    premises fix the type that [rdr_step] infers (inference is complete).
    In R-Rd, [d = S d'] since [rd_depth] counts the [rd]; the inner result
    is [rdr d'] by the hypothesis, and the term built around it is within
    [d'] ([rd_depth_rd_body]), so the outer result is [rdr d'] too, which is
    what [rdr (S d')] computes. *)
Theorem rdr_rel_eq Γ0 As θ W N R :
  rdr_rel Γ0 As θ W N R -> forall d, rd_depth N <= d -> R = rdr d Γ0 As θ W N.
Proof.
  induction 1 as [Γ0 As θ W x Hx|Γ0 As θ W x Hx|Γ0 As θ W c
                 |Γ0 As θ W f M R HR IH|Γ0 As θ W M1 M2 R1 R2 HR1 IH1 HR2 IH2
                 |Γ0 As θ W Ms Rs Hlen HRs IH|Γ0 As θ W i M Bs R HM HR IH
                 |Γ0 As θ W M N A' R1 R2 HM HR1 IH1 HR2 IH2
                 |Γ0 As θ W M N L A R1 R HL HR1 IH1 HR IH];
    intros d Hd; simpl in Hd.
  - rewrite rdr_Var. destruct (Nat.ltb_spec x (length As)); [reflexivity|lia].
  - rewrite rdr_Var. destruct (Nat.ltb_spec x (length As)); [lia|reflexivity].
  - rewrite rdr_Const. reflexivity.
  - rewrite rdr_App, <- IH by exact Hd. reflexivity.
  - rewrite rdr_Add, <- IH1, <- IH2 by lia. reflexivity.
  - rewrite rdr_Tuple. f_equal. apply rdr_tuple_unique; [exact Hlen|].
    intros j M R HM HR. apply (IH j M R HM HR).
    pose proof (rd_depth_nth Ms j M HM). lia.
  - rewrite rdr_Proj, (infer_tm_complete _ _ _ HM). apply IH. exact Hd.
  - rewrite rdr_Let, (infer_tm_complete _ _ _ HM), <- IH1, <- IH2 by lia. reflexivity.
  - destruct d as [|d]; [lia|].
    rewrite rdr_Rd, (infer_tm_complete _ _ _ HL).
    rewrite (IH1 d) in IH by lia.
    apply IH. apply rd_depth_rd_body; lia.
Qed.

(** The relation is functional. *)
Corollary rdr_rel_det Γ0 As θ W N R1 R2 :
  rdr_rel Γ0 As θ W N R1 -> rdr_rel Γ0 As θ W N R2 -> R1 = R2.
Proof.
  intros H1 H2.
  rewrite (rdr_rel_eq _ _ _ _ _ _ H1 (rd_depth N) (le_n _)).
  rewrite (rdr_rel_eq _ _ _ _ _ _ H2 (rd_depth N) (le_n _)).
  reflexivity.
Qed.

(** ** The bounded rewriting satisfies the relation *)

Definition rel_ok (d : nat) : Prop :=
  forall Γf N B, typed_tm Γf N B -> rd_depth N <= d ->
  forall As Γ0, Γf = As ++ Γ0 -> forall θ W, rdr_rel Γ0 As θ W N (rdr d Γ0 As θ W N).

(** Informal proof: by induction on the typing derivation of [N], for the
    bound [d], assuming the statement for the bound [d - 1] if [d > 0].
    Each case but R-Rd applies its rule to the hypotheses for the immediate
    subterms (R-Tuple component by component; R-Proj, R-Let, R-Rd take the
    type from the typing derivation, which is the inferred one).  In R-Rd,
    [d = S d']: the inner rewriting [rdr d'] of the body meets the relation
    by the assumption for [d'], and so does the outer one, on a term that
    is well typed ([rdr_typed]) and within the bound [d']
    ([rd_depth_rd_body]). *)
Lemma rdr_rel_rdr_step d :
  (forall d', d = S d' -> rel_ok d') -> rel_ok d.
Proof.
  intros Hrec Γf N B HN. elim HN using typed_tm_ind'; clear Γf N B HN.
  - (* typed_tm_var *)
    intros Γf x A Hx Hd As Γ0 HΓf θ W. rewrite rdr_Var.
    destruct (Nat.ltb_spec x (length As)).
    + apply rdr_rel_var. assumption.
    + apply rdr_rel_varo. assumption.
  - (* typed_tm_const *)
    intros Γf c Hd As Γ0 HΓf θ W. rewrite rdr_Const. apply rdr_rel_const.
  - (* typed_tm_app *)
    intros Γf f M HM IH Hd As Γ0 HΓf θ W. rewrite rdr_App.
    apply rdr_rel_fun. apply IH; assumption.
  - (* typed_tm_add *)
    intros Γf M1 M2 b HM1 IH1 HM2 IH2 Hd As Γ0 HΓf θ W. simpl in Hd. rewrite rdr_Add.
    apply rdr_rel_add; [apply IH1|apply IH2]; (assumption || lia).
  - (* typed_tm_tuple *)
    intros Γf Ms Bs HMs IH Hd As Γ0 HΓf θ W. simpl in Hd. rewrite rdr_Tuple.
    apply rdr_rel_tuple; [apply rdr_tuple_length|].
    intros j M R HM HR.
    destruct (rdr_tuple_nth _ _ _ _ _ _ HR) as [M' [HM' ->]].
    rewrite HM in HM'. injection HM' as <-.
    destruct (Forall2_nth_error _ _ _ _ _ IH HM) as [Bj [_ HP]].
    apply HP; [|exact HΓf]. pose proof (rd_depth_nth Ms j M HM). lia.
  - (* typed_tm_proj *)
    intros Γf M Bs i A HM IH Hi Hd As Γ0 HΓf θ W. simpl in Hd. subst Γf.
    rewrite rdr_Proj, (infer_tm_complete _ _ _ HM).
    eapply rdr_rel_proj; [exact HM|]. apply IH; [exact Hd|reflexivity].
  - (* typed_tm_let *)
    intros Γf M N A' B HM IHM HN IHN Hd As Γ0 HΓf θ W. simpl in Hd. subst Γf.
    rewrite rdr_Let, (infer_tm_complete _ _ _ HM).
    eapply rdr_rel_let; [exact HM|apply IHN|apply IHM]; (reflexivity || lia).
  - (* typed_tm_rd *)
    intros Γf M N L A B HM _ HN _ HL _ Hd As Γ0 HΓf θ W. simpl in Hd. subst Γf.
    destruct d as [|d]; [lia|]. specialize (Hrec d eq_refl).
    rewrite rdr_Rd, (infer_tm_complete _ _ _ HL).
    apply rdr_rel_rd with (A := A) (R1 := rdr d (As ++ Γ0) [A] rd_inner_subst (Var 0) N); [exact HL| |].
    + eapply Hrec; [exact HN|lia|reflexivity].
    + eapply Hrec; [| apply rd_depth_rd_body; lia | reflexivity].
      econstructor; [exact HL|].
      econstructor; [apply typed_tm_shift; exact HM|].
      apply typed_tm_proj with (As := [A]); [|reflexivity].
      eapply (rdr_typed d (As ++ Γ0) [A]); [exact HN|constructor; reflexivity|].
      intros [|x] C Hx; simpl in Hx |- *; constructor.
      * simpl. congruence.
      * exact Hx.
Qed.

Lemma rdr_rel_ok d : rel_ok d.
Proof.
  induction d as [|d IH]; apply rdr_rel_rdr_step; intros d' Hd'.
  - discriminate.
  - injection Hd' as <-. exact IH.
Qed.

(** For a well-typed body and every bound from [rd_depth N] on, the
    bounded rewriting meets Fig. 4. *)
Theorem rdr_rel_rdr d Γ0 As θ W N B :
  typed_tm (As ++ Γ0) N B -> rd_depth N <= d ->
  rdr_rel Γ0 As θ W N (rdr d Γ0 As θ W N).
Proof. intros HN Hd. exact (rdr_rel_ok d _ N B HN Hd As Γ0 eq_refl θ W). Qed.

(** The bound [rd_rewrite] chooses. *)
Corollary rdr_rel_rdr_depth Γ0 As θ W N B :
  typed_tm (As ++ Γ0) N B ->
  rdr_rel Γ0 As θ W N (rdr (rd_depth N) Γ0 As θ W N).
Proof. intros HN. apply (rdr_rel_rdr _ _ _ _ _ _ B HN (le_n _)). Qed.

(** Fig. 4 determines the bounded rewriting, and conversely. *)
Corollary rdr_rel_iff d Γ0 As θ W N B R :
  typed_tm (As ++ Γ0) N B -> rd_depth N <= d ->
  rdr_rel Γ0 As θ W N R <-> R = rdr d Γ0 As θ W N.
Proof.
  intros HN Hd. split.
  - intros HR. exact (rdr_rel_eq _ _ _ _ _ _ HR d Hd).
  - intros ->. exact (rdr_rel_rdr d _ _ _ _ _ B HN Hd).
Qed.

(** The paper's typing lemma, for the relation. *)
Corollary rdr_rel_typed Γ0 As θ W N R B Γ :
  rdr_rel Γ0 As θ W N R ->
  typed_tm (As ++ Γ0) N B -> typed_tm Γ W B -> subst_ok θ (As ++ Γ0) Γ ->
  typed_tm Γ R (TProd As).
Proof.
  intros HR HN HW Hθ. rewrite (rdr_rel_eq _ _ _ _ _ _ HR (rd_depth N) (le_n _)).
  eapply rdr_typed; eassumption.
Qed.

(** ** The rewriting of the reduction [W.rd(x.N)(V) → W.R_V(x.N)] *)

(** [rd_rewrite Γ A W V N] is the one-variable instance of Fig. 4 (block
    [[A]], point [x ↦ V] and the other variables renumbered), projected. *)
Theorem rd_rewrite_rel Γ A B W V N :
  typed_tm (A :: Γ) N B ->
  exists R, rdr_rel Γ [A] (list_subst [V]) W N R /\ rd_rewrite Γ A W V N = Proj 0 R.
Proof.
  intros HN. eexists. split; [|reflexivity].
  apply (rdr_rel_rdr_depth Γ [A] _ W N B HN).
Qed.

(** ... and whatever Fig. 4 relates to [N] is what [rd_rewrite] computes
    (no typing needed). *)
Theorem rd_rewrite_unique Γ A W V N R :
  rdr_rel Γ [A] (list_subst [V]) W N R -> rd_rewrite Γ A W V N = Proj 0 R.
Proof.
  intros HR. unfold rd_rewrite.
  rewrite <- (rdr_rel_eq _ _ _ _ _ _ HR (rd_depth N) (le_n _)). reflexivity.
Qed.

Corollary rd_rewrite_iff Γ A B W V N R :
  typed_tm (A :: Γ) N B ->
  rd_rewrite Γ A W V N = Proj 0 R <-> rdr_rel Γ [A] (list_subst [V]) W N R.
Proof.
  intros HN. split.
  - intros Heq. destruct (rd_rewrite_rel Γ A B W V N HN) as [R' [HR' Heq']].
    rewrite Heq in Heq'. injection Heq' as ->. exact HR'.
  - apply rd_rewrite_unique.
Qed.

End rdr_rel.

(** * The [rd]-depth bound of the rewriting is enough

    [rdr d] ([rd.v]) rewrites nested [rd] terms by recursion on a bound [d]
    and would answer an unrewritten [rd] term, were the bound spent;
    [rd_rewrite] starts it at [rd_depth N].  This file proves that the bound
    is never spent: from [rd_depth N] on, a larger bound gives the same
    term ([rdr_enough], [rd_rewrite_enough]).  That the term is the one of
    the paper's Fig. 4, which has no bound, is proved in [rdr_rel.v]
    against Fig. 4 stated as a relation ([rdr_rel_rdr], [rdr_rel_eq]).

    The key fact is that the rewriting does not deepen [rd] nesting
    ([rdr_depth]): with a point made of terms without [rd], the output's
    [rd]-depth is at most that of [N] and of the cotangent.  So in R-Rd,
    where the rewriting is applied to a term built around the inner
    rewritten body, that term is still within the smaller bound. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd tactics.

Section rd_bound.
Context {Srt : sorts} {Σ : signature}.

Implicit Types (Γ : ctx) (M N L V W : tm) (A B : ty).

(** ** [list_max'] *)

Lemma list_max'_le l b : Forall (fun n => n <= b) l -> list_max' l <= b.
Proof. induction 1; simpl; lia. Qed.

Lemma list_max'_map_le {X} (f : X -> nat) l b :
  Forall (fun x => f x <= b) l -> list_max' (map f l) <= b.
Proof. induction 1; simpl; lia. Qed.

Lemma list_max'_map_ext {X} (f g : X -> nat) l :
  Forall (fun x => f x = g x) l -> list_max' (map f l) = list_max' (map g l).
Proof. induction 1; simpl; congruence. Qed.

(** ** Renaming and substitution *)

Lemma rd_depth_ren M : forall ξ, rd_depth (ren_tm ξ M) = rd_depth M.
Proof.
  tm_induction M; intros ξ; simpl; try reflexivity.
  - apply IH.
  - rewrite IH1, IH2. reflexivity.
  - rewrite map_map. apply list_max'_map_ext.
    eapply Forall_impl; [|exact IH]. intros M HM. apply HM.
  - apply IH.
  - rewrite IHM, IHN. reflexivity.
  - rewrite IHM, IHN, IHL. reflexivity.
Qed.

Lemma rd_depth_shift M : rd_depth (shift M) = rd_depth M.
Proof. apply rd_depth_ren. Qed.

(** A substitution by terms without [rd]. *)
Definition rd_free (σ : nat -> tm) : Prop := forall x, rd_depth (σ x) = 0.

Lemma rd_free_up σ : rd_free σ -> rd_free (up σ).
Proof. intros Hσ [|x]; simpl; [reflexivity|]. rewrite rd_depth_shift. apply Hσ. Qed.

Lemma rd_free_shift_subst σ : rd_free σ -> rd_free (shift_subst σ).
Proof. intros Hσ x. unfold shift_subst. rewrite rd_depth_shift. apply Hσ. Qed.

Lemma rd_depth_subst M : forall σ, rd_free σ -> rd_depth (subst_tm σ M) = rd_depth M.
Proof.
  tm_induction M; intros σ Hσ; simpl; try reflexivity.
  - apply Hσ.
  - apply IH, Hσ.
  - rewrite IH1, IH2 by exact Hσ. reflexivity.
  - rewrite map_map. apply list_max'_map_ext.
    eapply Forall_impl; [|exact IH]. intros M HM. apply HM, Hσ.
  - apply IH, Hσ.
  - rewrite IHM by exact Hσ. rewrite IHN by (apply rd_free_up; exact Hσ). reflexivity.
  - rewrite IHM, IHL by exact Hσ. rewrite IHN by (apply rd_free_up; exact Hσ). reflexivity.
Qed.

(** ** The derived terms *)

Lemma rd_depth_zero A : rd_depth (zero A) = 0.
Proof.
  induction A as [b|As IH] using ty_ind'; simpl; [reflexivity|].
  apply Nat.le_0_r. apply list_max'_map_le.
  rewrite Forall_map. eapply Forall_impl; [|exact IH]. intros B HB. cbv beta in HB. lia.
Qed.

Lemma rd_depth_plus A : forall M N, rd_depth (plus A M N) <= Nat.max (rd_depth M) (rd_depth N).
Proof.
  induction A as [b|As IH] using ty_ind'; intros M N; simpl; [lia|].
  rewrite rd_depth_shift.
  assert (Hgo : forall i As0, Forall (fun A => forall M N,
                  rd_depth (plus A M N) <= Nat.max (rd_depth M) (rd_depth N)) As0 ->
                list_max' (map rd_depth
                  ((fix go (i : nat) (As : list ty) {struct As} : list tm :=
                      match As with
                      | [] => []
                      | A :: As' => plus A (Proj i (Var 1)) (Proj i (Var 0)) :: go (S i) As'
                      end) i As0)) = 0).
  { intros i As0 HF. revert i. induction HF as [|B As0 HB HF IHF]; intros i; simpl; [reflexivity|].
    rewrite IHF. specialize (HB (Proj i (Var 1)) (Proj i (Var 0))). simpl in HB. lia. }
  rewrite (Hgo 0 As IH). lia.
Qed.

Lemma rd_depth_onehot As i W : rd_depth (onehot As i W) <= rd_depth W.
Proof.
  unfold onehot. simpl. apply list_max'_map_le. rewrite Forall_map.
  apply Forall_forall. intros [j A] _. simpl.
  destruct (Nat.eqb j i); [lia|]. rewrite rd_depth_zero. lia.
Qed.

Lemma rd_depth_sum_tms A Ms b :
  Forall (fun M => rd_depth M <= b) Ms -> rd_depth (sum_tms A Ms) <= b.
Proof.
  induction 1 as [|M Ms HM HMs IH]; simpl.
  - rewrite rd_depth_zero. lia.
  - destruct Ms as [|M' Ms']; [exact HM|].
    pose proof (rd_depth_plus A M (sum_tms A (M' :: Ms'))). lia.
Qed.

(** ** The rewriting does not deepen [rd] nesting *)

(* From here on, the derived terms are used through the lemmas above. *)
#[local] Arguments plus : simpl never.
#[local] Arguments zero : simpl never.
#[local] Arguments onehot : simpl never.
#[local] Arguments sum_tms : simpl never.

Definition depth_ok (d : nat) (r : rdr_fun) : Prop :=
  forall N Γ0 As θ W, rd_depth N <= d -> rd_free θ ->
    rd_depth (r Γ0 As θ W N) <= Nat.max (rd_depth N) (rd_depth W).

(** What R-Rd needs of the rewriting [rec] of smaller depth. *)
Definition rec_ok (d : nat) (rec : option rdr_fun) : Prop :=
  match rec with
  | None => d = 0
  | Some r => exists d', d = S d' /\ depth_ok d' r
  end.

Lemma rd_free_inner : rd_free rd_inner_subst.
Proof. intros [|x]; reflexivity. Qed.

Lemma rdr_step_depth d rec : rec_ok d rec -> depth_ok d (rdr_step rec).
Proof.
  intros Hrec N. induction N as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ0 As θ W Hd Hθ; simpl in Hd; cbn [rdr_step rd_depth map list_max' fold_right].
  - destruct (Nat.ltb x (length As)).
    + pose proof (rd_depth_onehot As x W). lia.
    + rewrite rd_depth_zero. lia.
  - rewrite rd_depth_zero. lia.
  - rewrite rd_depth_subst by exact Hθ.
    pose proof (IH Γ0 As (shift_subst θ) (Var 0) Hd (rd_free_shift_subst θ Hθ)). simpl in *. lia.
  - pose proof (rd_depth_plus (TProd As) (rdr_step rec Γ0 As θ W M1) (rdr_step rec Γ0 As θ W M2)).
    pose proof (IH1 Γ0 As θ W ltac:(lia) Hθ). pose proof (IH2 Γ0 As θ W ltac:(lia) Hθ). lia.
  - apply rd_depth_sum_tms.
    assert (Hgo : forall i Ms0,
               Forall (fun M => forall Γ0 As θ W, rd_depth M <= d -> rd_free θ ->
                         rd_depth (rdr_step rec Γ0 As θ W M) <= Nat.max (rd_depth M) (rd_depth W)) Ms0 ->
               list_max' (map rd_depth Ms0) <= list_max' (map rd_depth Ms) ->
               Forall (fun M => rd_depth M <= Nat.max (list_max' (map rd_depth Ms)) (rd_depth W))
                 ((fix go (i : nat) (Ms : list tm) {struct Ms} : list tm :=
                     match Ms with
                     | [] => []
                     | M :: Ms' => rdr_step rec Γ0 As θ (Proj i W) M :: go (S i) Ms'
                     end) i Ms0)).
    { intros i Ms0 HF. revert i. induction HF as [|M Ms0 HM HF IHF]; intros i Hle; simpl in Hle |- *;
        constructor.
      - pose proof (HM Γ0 As θ (Proj i W) ltac:(lia) Hθ). simpl in *. lia.
      - apply IHF. lia. }
    apply Hgo; [exact IH|lia].
  - destruct (infer_tm (As ++ Γ0) M) as [[b|Bs]|].
    + rewrite rd_depth_zero. lia.
    + pose proof (IH Γ0 As θ (onehot Bs i W) Hd Hθ). pose proof (rd_depth_onehot Bs i W). lia.
    + rewrite rd_depth_zero. lia.
  - destruct (infer_tm (As ++ Γ0) M) as [A'|].
    + cbn [rd_depth]. rewrite rd_depth_subst by exact Hθ.
      pose proof (IHN Γ0 (A' :: As) (up θ) (shift W) ltac:(lia) (rd_free_up θ Hθ)).
      rewrite rd_depth_shift in H.
      pose proof (IHM Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) ltac:(lia)
                    (rd_free_shift_subst _ (rd_free_shift_subst θ Hθ))).
      simpl in H0.
      pose proof (rd_depth_plus (TProd As) (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As))))
                    (rdr_step rec Γ0 As (shift_subst (shift_subst θ)) (Proj 0 (Var 0)) M)).
      assert (Hproj : rd_depth (Tuple (map (fun j => Proj (S j) (Var 0)) (seq 0 (length As)))) = 0).
      { simpl. rewrite map_map. apply Nat.le_0_r. apply list_max'_map_le.
        apply Forall_forall. intros j _. simpl. lia. }
      lia.
    + rewrite rd_depth_zero. lia.
  - destruct rec as [r|]; simpl in Hrec.
    + destruct Hrec as [d' [-> Hr]].
      destruct (infer_tm (As ++ Γ0) L) as [Ay|].
      * pose proof (Hr N (As ++ Γ0) [Ay] rd_inner_subst (Var 0) ltac:(lia) rd_free_inner) as Hin.
        simpl in Hin.
        set (X := r (As ++ Γ0) [Ay] rd_inner_subst (Var 0) N) in *.
        assert (HT : rd_depth (Let L (Let (shift M) (Proj 0 X))) <= d').
        { simpl. rewrite rd_depth_shift. lia. }
        pose proof (Hr _ Γ0 As θ W HT Hθ). simpl in H. rewrite rd_depth_shift in H. lia.
      * rewrite rd_depth_zero. lia.
    + lia.
Qed.

Lemma rdr_depth d : depth_ok d (rdr d).
Proof.
  induction d as [|d IH]; simpl; apply rdr_step_depth; simpl; [reflexivity|].
  exists d. split; [reflexivity|exact IH].
Qed.

(** ** A larger bound gives the same term *)

(** What R-Rd needs of two rewritings [rec1], [rec2] to agree. *)
Definition rec_agree (d : nat) (rec1 rec2 : option rdr_fun) : Prop :=
  match rec1, rec2 with
  | Some r1, Some r2 =>
      exists d', d = S d' /\ depth_ok d' r1 /\
        forall N Γ0 As θ W, rd_depth N <= d' -> r1 Γ0 As θ W N = r2 Γ0 As θ W N
  | _, _ => d = 0
  end.

Lemma rdr_step_agree d rec1 rec2 :
  rec_agree d rec1 rec2 ->
  forall N Γ0 As θ W, rd_depth N <= d -> rdr_step rec1 Γ0 As θ W N = rdr_step rec2 Γ0 As θ W N.
Proof.
  intros Hrec N. induction N as [x|c|f M IH|M1 M2 IH1 IH2|Ms IH|i M IH|M N IHM IHN|M N L IHM IHN IHL]
    using tm_ind'; intros Γ0 As θ W Hd; simpl in Hd |- *; try reflexivity.
  - rewrite IH by exact Hd. reflexivity.
  - rewrite IH1, IH2 by lia. reflexivity.
  - f_equal.
    assert (Hgo : forall i Ms0,
               Forall (fun M => forall Γ0 As θ W, rd_depth M <= d ->
                         rdr_step rec1 Γ0 As θ W M = rdr_step rec2 Γ0 As θ W M) Ms0 ->
               list_max' (map rd_depth Ms0) <= d ->
               (fix go (i : nat) (Ms : list tm) {struct Ms} : list tm :=
                  match Ms with
                  | [] => []
                  | M :: Ms' => rdr_step rec1 Γ0 As θ (Proj i W) M :: go (S i) Ms'
                  end) i Ms0 =
               (fix go (i : nat) (Ms : list tm) {struct Ms} : list tm :=
                  match Ms with
                  | [] => []
                  | M :: Ms' => rdr_step rec2 Γ0 As θ (Proj i W) M :: go (S i) Ms'
                  end) i Ms0).
    { intros i Ms0 HF. revert i. induction HF as [|M Ms0 HM HF IHF]; intros i Hle; simpl in Hle |- *;
        [reflexivity|].
      rewrite HM by lia. rewrite IHF by lia. reflexivity. }
    apply Hgo; [exact IH|exact Hd].
  - destruct (infer_tm (As ++ Γ0) M) as [[b|Bs]|]; try reflexivity. apply IH. exact Hd.
  - destruct (infer_tm (As ++ Γ0) M) as [A'|]; [|reflexivity].
    rewrite IHN, IHM by lia. reflexivity.
  - destruct rec1 as [r1|], rec2 as [r2|]; simpl in Hrec; try lia.
    destruct Hrec as [d' [-> [Hdepth Hagree]]].
    destruct (infer_tm (As ++ Γ0) L) as [Ay|]; [|reflexivity].
    rewrite <- (Hagree N (As ++ Γ0) [Ay] rd_inner_subst (Var 0)) by lia.
    apply Hagree. simpl. rewrite rd_depth_shift.
    pose proof (Hdepth N (As ++ Γ0) [Ay] rd_inner_subst (Var 0) ltac:(lia) rd_free_inner).
    simpl in H. lia.
Qed.

Lemma rdr_stable d :
  forall N Γ0 As θ W, rd_depth N <= d -> rdr d Γ0 As θ W N = rdr (S d) Γ0 As θ W N.
Proof.
  induction d as [|d IH]; intros N Γ0 As θ W Hd.
  - apply (rdr_step_agree 0 None (Some (rdr 0))); [reflexivity|exact Hd].
  - apply (rdr_step_agree (S d) (Some (rdr d)) (Some (rdr (S d)))); [|exact Hd].
    exists d. split; [reflexivity|]. split; [apply rdr_depth|exact IH].
Qed.

(** The bound [rd_depth N] is enough: any larger one gives the same term. *)
Theorem rdr_enough N d Γ0 As θ W :
  rd_depth N <= d -> rdr d Γ0 As θ W N = rdr (rd_depth N) Γ0 As θ W N.
Proof.
  intros Hd. induction Hd as [|d Hd IH]; [reflexivity|].
  rewrite <- IH. symmetry. apply rdr_stable. exact Hd.
Qed.

(** [rd_rewrite] is the rewriting with any bound large enough: the
    unrewritten fallback of [rdr] is never what it computes. *)
Theorem rd_rewrite_enough Γ A W V N d :
  rd_depth N <= d -> Proj 0 (rdr d Γ [A] (list_subst [V]) W N) = rd_rewrite Γ A W V N.
Proof. intros Hd. unfold rd_rewrite. rewrite (rdr_enough N d) by exact Hd. reflexivity. Qed.

End rd_bound.

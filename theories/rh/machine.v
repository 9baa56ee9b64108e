(** * An environment machine for commands, proved equal to [run]

    [run] (interp.v) is the small-step semantics run literally: every step
    re-splits the whole command from its root, rebuilds it, and a [let]
    step substitutes the value into the whole rest of the let-chain.  The
    machine of this file keeps the configuration decomposed instead:
    - the let-frames form a stack of closures [(Q, ρ)]: the body [Q] and
      the environment [ρ] of its free variables (a list of values, index
      [0] first), never re-split from the root;
    - a variable is looked up in the environment ([env_lookup], which is
      [list_subst ρ]); nothing is substituted into the rest of the program;
    - the term in evaluation position is evaluated by a big-step evaluator
      in the environment ([meval]), which counts the small steps it stands
      for; [W.rd(x.N)(L)] closes [N] by the environment and evaluates
      [W.R_V(x.N)] in the empty environment, the result of [Ev] likewise;
    - [rev handle(V)<x⃗>.R with H] calls [rh_fn] on [R] (which substitution
      never enters: it is closed) and continues with its output in the
      empty environment.
    A [let] step, an operation on the heap and the descent into a command
    cost constant time; a term costs the time of its evaluation.  What
    remains of the small-step semantics' own cost: [rh_fn] (interp.v) is
    run as defined, and a projection costs its index (and the look-up of
    a variable its de Bruijn index).

    Whenever the machine would leave the path of a completed step (an
    undefined [Ev], an ill-shaped term, not enough fuel, [meval]'s
    recursion bound spent, [RH] out of fuel or wrong), it re-assembles the
    command (closing every frame by its environment) and finishes with
    [run] itself ([mfallback]); this happens at most once, at the end of a
    run.

    Main theorem ([run_machine_correct]): [run_machine fuel n hp P =
    run fuel n hp P] for every command [P], heap and fuel: the same result,
    heap, value, step count and stuck command, with no hypothesis (the
    same [Ev] applications and [cadd]s happen, in the same order).
    [run_machine] has [run]'s arguments and result type.

    One loop ([mloop_hook]) serves every machine of the calculus: it is
    parametrised by its answer when a term needs the fuel left ([short])
    and by what it tries first at a [rev handle] ([hook]); its correctness
    ([mloop_hook_agrees]) is proved once, for any [short] and [hook] that
    answer what [run] computes ([short_ok], [hook_ok]).  [mloop_with] is
    the loop without a hook; [machine_fast.v]'s [mloop_fast_with] the loop
    with the tape. *)
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas
  rd term_sem cmd_ctx rh cmd_sem interp interp_facts tactics.

Section machine.
Context {Srt : sorts} {Σ : signature} {E : evaluator}.

Implicit Types (M N V W : tm) (P Q R : cmd) (H : handler) (ρ : list tm).

(** ** Composition of renamings and substitutions *)

Lemma ren_tm_ext ξ ζ M : (forall x, ξ x = ζ x) -> ren_tm ξ M = ren_tm ζ M.
Proof.
  revert ξ ζ.
  tm_induction M; intros ξ ζ Hx; simpl; f_equal; auto.
  - rewrite Forall_forall in IH. apply map_ext_in. intros a Ha. apply IH; auto.
  - apply IHN. intros [|x]; simpl; congruence.
  - apply IHN. intros [|x]; simpl; congruence.
Qed.

Lemma subst_tm_ext σ τ M : (forall x, σ x = τ x) -> subst_tm σ M = subst_tm τ M.
Proof.
  revert σ τ.
  tm_induction M; intros σ τ Hx; simpl; f_equal; auto.
  - rewrite Forall_forall in IH. apply map_ext_in. intros a Ha. apply IH; auto.
  - apply IHN. intros [|x]; simpl; [reflexivity|]. unfold shift. congruence.
  - apply IHN. intros [|x]; simpl; [reflexivity|]. unfold shift. congruence.
Qed.

Lemma ren_ren ξ ζ M : ren_tm ζ (ren_tm ξ M) = ren_tm (fun x => ζ (ξ x)) M.
Proof.
  revert ξ ζ.
  tm_induction M; intros ξ ζ; tm_cong_cases ltac:(rewrite IHN; apply ren_tm_ext; intros [|x]; reflexivity).
Qed.

Lemma subst_ren σ ξ M : subst_tm σ (ren_tm ξ M) = subst_tm (fun x => σ (ξ x)) M.
Proof.
  revert σ ξ.
  tm_induction M; intros σ ξ; tm_cong_cases ltac:(rewrite IHN; apply subst_tm_ext; intros [|x]; reflexivity).
Qed.

Lemma ren_subst ξ σ M : ren_tm ξ (subst_tm σ M) = subst_tm (fun x => ren_tm ξ (σ x)) M.
Proof.
  revert σ ξ.
  tm_induction M; intros σ ξ; tm_cong_cases ltac:(
    rewrite IHN; apply subst_tm_ext; intros [|x]; [reflexivity|]; simpl; unfold shift;
    rewrite !ren_ren; apply ren_tm_ext; intros y; reflexivity).
Qed.

Lemma up_comp σ τ x :
  subst_tm (up τ) (up σ x) = up (fun y => subst_tm τ (σ y)) x.
Proof.
  destruct x as [|x]; [reflexivity|]. simpl. unfold shift.
  rewrite subst_ren, ren_subst. apply subst_tm_ext. intros y. reflexivity.
Qed.

Lemma subst_subst σ τ M : subst_tm τ (subst_tm σ M) = subst_tm (fun x => subst_tm τ (σ x)) M.
Proof.
  revert σ τ.
  tm_induction M; intros σ τ; tm_cong_cases ltac:(rewrite IHN; apply subst_tm_ext; apply up_comp).
Qed.

Lemma subst_tm_id M : subst_tm Var M = M.
Proof.
  tm_induction M; simpl; f_equal; auto.
  - rewrite Forall_forall in IH. rewrite <- map_id. apply map_ext_in. auto.
  - rewrite <- IHN at 2. apply subst_tm_ext. intros [|x]; reflexivity.
  - rewrite <- IHN at 2. apply subst_tm_ext. intros [|x]; reflexivity.
Qed.

Lemma list_subst_nil x : list_subst [] x = Var x.
Proof. unfold list_subst. simpl. destruct x; simpl; f_equal; lia. Qed.

Lemma subst_tm_nil M : subst_tm (list_subst []) M = M.
Proof. rewrite (subst_tm_ext _ Var) by apply list_subst_nil. apply subst_tm_id. Qed.

(** [σ_{[V]} ∘ up σ_ρ = σ_{V :: ρ}]. *)
Lemma list_subst_cons_comp V ρ x :
  subst_tm (list_subst [V]) (up (list_subst ρ) x) = list_subst (V :: ρ) x.
Proof.
  destruct x as [|x]; [reflexivity|]. simpl. unfold shift. rewrite subst_ren.
  rewrite (subst_tm_ext _ Var); [apply subst_tm_id|].
  intros y. unfold list_subst. simpl. destruct y; simpl; f_equal; lia.
Qed.

Lemma subst_tm_cons V ρ M :
  subst_tm (list_subst [V]) (subst_tm (up (list_subst ρ)) M) = subst_tm (list_subst (V :: ρ)) M.
Proof. rewrite subst_subst. apply subst_tm_ext. apply list_subst_cons_comp. Qed.

(** The same for commands (substitution never enters [rev handle]). *)
Lemma subst_cmd_ext σ τ P : (forall x, σ x = τ x) -> subst_cmd σ P = subst_cmd τ P.
Proof.
  revert σ τ. induction P as [M|o M|P1 IH1 Q IH2|M R _ H]; intros σ τ Hx; simpl; f_equal;
    try (apply subst_tm_ext; exact Hx); auto.
  apply IH2. intros [|x]; simpl; [reflexivity|]. unfold shift. congruence.
Qed.

Lemma subst_cmd_subst σ τ P :
  subst_cmd τ (subst_cmd σ P) = subst_cmd (fun x => subst_tm τ (σ x)) P.
Proof.
  revert σ τ. induction P as [M|o M|P1 IH1 Q IH2|M R _ H]; intros σ τ; simpl; f_equal;
    try apply subst_subst; auto.
  rewrite IH2. apply subst_cmd_ext. apply up_comp.
Qed.

Lemma subst_cmd_nil P : subst_cmd (list_subst []) P = P.
Proof.
  induction P as [M|o M|P1 IH1 Q IH2|M R _ H]; simpl; f_equal; try apply subst_tm_nil; auto.
  rewrite <- IH2 at 2. apply subst_cmd_ext. intros [|x]; simpl; [reflexivity|].
  rewrite list_subst_nil. reflexivity.
Qed.

Lemma subst_cmd_cons V ρ Q :
  subst_cmd (list_subst [V]) (subst_cmd (up (list_subst ρ)) Q) =
  subst_cmd (list_subst (V :: ρ)) Q.
Proof. rewrite subst_cmd_subst. apply subst_cmd_ext. apply list_subst_cons_comp. Qed.

(** ** Small steps of terms, counted *)

(** [tstar k M M']: [k] steps of [step_tm_fn] lead from [M] to [M']. *)
Inductive tstar : nat -> tm -> tm -> Prop :=
| tstar_refl M : tstar 0 M M
| tstar_step k M M' M'' : step_tm_fn M = TSStep M' -> tstar k M' M'' -> tstar (S k) M M''.

Lemma tstar_trans k1 k2 M1 M2 M3 : tstar k1 M1 M2 -> tstar k2 M2 M3 -> tstar (k1 + k2) M1 M3.
Proof.
  induction 1 as [|k M M' M'' Hs _ IH]; intros H2; [exact H2|].
  simpl. econstructor; [exact Hs|]. apply IH. exact H2.
Qed.

Lemma tstar_frame F k M M' :
  frame_ok F -> tstar k M M' -> tstar k (fill_frame F M) (fill_frame F M').
Proof.
  intros HF. induction 1 as [|k M M' M'' Hs _ IH]; [constructor|].
  econstructor; [|exact IH]. apply step_tm_fn_frame; assumption.
Qed.

Lemma tstar_one M M' : step_tm_fn M = TSStep M' -> tstar 1 M M'.
Proof. intros Hs. econstructor; [exact Hs|constructor]. Qed.

(** ** Environments

    [env_lookup ρ x] is [list_subst ρ x], without computing [length ρ]
    unless [x] is beyond [ρ] (an open command). *)
Definition env_lookup (ρ : list tm) (x : nat) : tm :=
  match nth_error ρ x with
  | Some V => V
  | None => Var (x - length ρ)
  end.

Lemma env_lookup_spec ρ x : env_lookup ρ x = list_subst ρ x.
Proof.
  unfold env_lookup, list_subst. destruct (nth_error ρ x) as [V|] eqn:Hx.
  - symmetry. apply nth_error_nth. exact Hx.
  - symmetry. apply nth_overflow. apply nth_error_None. exact Hx.
Qed.

(** ** The big-step evaluator of terms in an environment

    [meval fuel ρ M] evaluates [M], whose free variables are given by [ρ]
    ([list_subst ρ]), to a value, and counts the small steps of
    [step_tm_fn] that evaluating [M] closed by [ρ] takes.  [None] means:
    an undefined [Ev], an ill-shaped term, or the recursion bound [fuel]
    spent; the machine then falls back to [run]. *)
Fixpoint meval_list (ev1 : tm -> option (tm * nat)) (Ms : list tm) : option (list tm * nat) :=
  match Ms with
  | [] => Some ([], 0)
  | M :: Ms' =>
      match ev1 M with
      | Some (V, k) =>
          match meval_list ev1 Ms' with
          | Some (Vs, ks) => Some (V :: Vs, k + ks)
          | None => None
          end
      | None => None
      end
  end.

(** *** Tuples of projections in linear time

    The tuples that [RH] builds list the components of a tuple variable in
    order ([<y'_1, …, y'_m>] is [<proj_2 q, …, proj_{m+1} q>], RH-4 adds
    [proj_{i+1} q + proj_i p] component by component) and their [rd]
    points list variables of increasing index.  Looked up one by one, a
    projection costs its index and a variable its de Bruijn index: a tuple
    of m such components would cost m².  [meval_tuple] evaluates a tuple
    keeping a cursor into the environment ([ecur]: an index [j] and the
    environment from [j] on) and, for at most two tuple variables, a cursor
    into their components ([pcache]: the variable, an index [i] and the
    components from [i] on), so that such a tuple costs m.  A component of
    another shape is evaluated by [meval] itself; the cursors only answer
    what [meval] answers ([meval_tuple_list]). *)
Definition ecur : Type := (nat * list tm)%type.
Definition pcache : Type := list (nat * nat * list tm).

Definition ecur_lookup (ρ : list tm) (e : ecur) (x : nat) : option tm * ecur :=
  let r := if Nat.leb (fst e) x then skipn (x - fst e) (snd e) else skipn x ρ in
  match r with
  | V :: _ => (Some V, (x, r))
  | [] => (None, e)
  end.

Fixpoint pc_find (c : pcache) (x : nat) : option (nat * list tm) :=
  match c with
  | [] => None
  | (y, i, r) :: c' => if Nat.eqb x y then Some (i, r) else pc_find c' x
  end.

Definition pc_drop (c : pcache) (x : nat) : pcache :=
  filter (fun e => negb (Nat.eqb x (fst (fst e)))) c.

(** [proj_i x] from the environment, the cursor of [x] set after it. *)
Definition pc_from_env (ρ : list tm) (e : ecur) (c : pcache) (x i : nat)
    : option tm * ecur * pcache :=
  match ecur_lookup ρ e x with
  | (Some (Tuple Vs), e') =>
      match skipn i Vs with
      | V :: r' => (Some V, e', (x, S i, r') :: firstn 1 (pc_drop c x))
      | [] => (None, e, c)
      end
  | _ => (None, e, c)
  end.

(** [proj_i x]: from the cursor of [x] if it is at most [i], else from the
    environment. *)
Definition pc_proj (ρ : list tm) (e : ecur) (c : pcache) (x i : nat) : option tm * ecur * pcache :=
  match pc_find c x with
  | Some (i0, r) =>
      if Nat.leb i0 i then
        match skipn (i - i0) r with
        | V :: r' => (Some V, e, (x, S i, r') :: firstn 1 (pc_drop c x))
        | [] => (None, e, c)
        end
      else pc_from_env ρ e c x i
  | None => pc_from_env ρ e c x i
  end.

(** A component of the shapes above, with its value and step count, or
    [None] (and the cursors unchanged). *)
Definition fast_component (ρ : list tm) (e : ecur) (c : pcache) (M : tm)
    : option (tm * nat) * ecur * pcache :=
  match M with
  | Var x =>
      match ecur_lookup ρ e x with
      | (Some V, e') => (Some (V, 0), e', c)
      | (None, _) => (None, e, c)
      end
  | Proj i (Var x) =>
      match pc_proj ρ e c x i with
      | (Some V, e', c') => (Some (V, 1), e', c')
      | _ => (None, e, c)
      end
  | Add (Proj i1 (Var x1)) (Proj i2 (Var x2)) =>
      match pc_proj ρ e c x1 i1 with
      | (Some (Const c1), e1, cc1) =>
          match pc_proj ρ e1 cc1 x2 i2 with
          | (Some (Const c2), e2, cc2) => (Some (Const (cadd c1 c2), 3), e2, cc2)
          | _ => (None, e, c)
          end
      | _ => (None, e, c)
      end
  | _ => (None, e, c)
  end.

Fixpoint meval_tuple (ev1 : tm -> option (tm * nat)) (ρ : list tm) (e : ecur) (c : pcache)
    (Ms : list tm) : option (list tm * nat) :=
  match Ms with
  | [] => Some ([], 0)
  | M :: Ms' =>
      let '(r, e', c') := fast_component ρ e c M in
      match match r with Some p => Some p | None => ev1 M end with
      | Some (V, k) =>
          match meval_tuple ev1 ρ e' c' Ms' with
          | Some (Vs, ks) => Some (V :: Vs, k + ks)
          | None => None
          end
      | None => None
      end
  end.

(** The cursors are used from a recursion bound of 3 on (what [meval]
    needs for [proj_i x + proj_j y]). *)
Definition meval_tup (ev1 : tm -> option (tm * nat)) (fuel : nat) (ρ : list tm) (Ms : list tm)
    : option (list tm * nat) :=
  if Nat.leb 3 fuel then meval_tuple ev1 ρ (0, ρ) [] Ms else meval_list ev1 Ms.
#[local] Arguments meval_tup : simpl never.

Fixpoint meval (fuel : nat) (ρ : list tm) (M : tm) {struct fuel} : option (tm * nat) :=
  match fuel with
  | 0 => None
  | S fuel' =>
      match M with
      | Var x => Some (env_lookup ρ x, 0)
      | Const c => Some (Const c, 0)
      | App f N =>
          match meval fuel' ρ N with
          | Some (V, k) =>
              match ev f V with
              | Some V' =>
                  match meval fuel' [] V' with
                  | Some (V'', k') => Some (V'', k + S k')
                  | None => None
                  end
              | None => None
              end
          | None => None
          end
      | Add M1 M2 =>
          match meval fuel' ρ M1 with
          | Some (Const c1, k1) =>
              match meval fuel' ρ M2 with
              | Some (Const c2, k2) => Some (Const (cadd c1 c2), k1 + S k2)
              | _ => None
              end
          | _ => None
          end
      | Tuple Ms =>
          match meval_tup (meval fuel' ρ) fuel' ρ Ms with
          | Some (Vs, k) => Some (Tuple Vs, k)
          | None => None
          end
      | Proj i N =>
          match meval fuel' ρ N with
          | Some (Tuple Vs, k) =>
              match nth_error Vs i with
              | Some V => Some (V, S k)
              | None => None
              end
          | _ => None
          end
      | Let N1 N2 =>
          match meval fuel' ρ N1 with
          | Some (V1, k1) =>
              match meval fuel' (V1 :: ρ) N2 with
              | Some (V2, k2) => Some (V2, k1 + S k2)
              | None => None
              end
          | None => None
          end
      | Rd N1 N2 L =>
          match meval fuel' ρ N1 with
          | Some (W, k1) =>
              match meval fuel' ρ L with
              | Some (V, k2) =>
                  match infer_tm [] V with
                  | Some A =>
                      let N2' := subst_tm (up (env_lookup ρ)) N2 in
                      match meval fuel' [] (rd_rewrite [] A W V N2') with
                      | Some (V', k3) => Some (V', k1 + (k2 + S k3))
                      | None => None
                      end
                  | None => None
                  end
              | None => None
              end
          | None => None
          end
      end
  end.

Lemma list_subst_value ρ x : Forall value ρ -> value (list_subst ρ x).
Proof.
  intros Hρ. unfold list_subst. destruct (nth_error ρ x) as [V|] eqn:Hx.
  - rewrite (nth_error_nth _ _ _ Hx). rewrite Forall_forall in Hρ. apply Hρ.
    eapply nth_error_In. exact Hx.
  - rewrite nth_overflow by (apply nth_error_None; exact Hx). reflexivity.
Qed.

Lemma meval_list_sound (ev1 : tm -> option (tm * nat)) (σ : nat -> tm) Ms Vs k :
  (forall M V k, In M Ms -> ev1 M = Some (V, k) -> tstar k (subst_tm σ M) V /\ value V) ->
  meval_list ev1 Ms = Some (Vs, k) ->
  forall pre, Forall value pre ->
  tstar k (Tuple (pre ++ map (subst_tm σ) Ms)) (Tuple (pre ++ Vs)) /\ Forall value Vs.
Proof.
  revert Vs k. induction Ms as [|M Ms IH]; intros Vs k Hev Hl pre Hpre; simpl in Hl.
  - injection Hl as <- <-. split; constructor.
  - destruct (ev1 M) as [[V k1]|] eqn:HM; [|discriminate].
    destruct (meval_list ev1 Ms) as [[Vs' k2]|] eqn:HMs; [|discriminate].
    injection Hl as <- <-.
    destruct (Hev M V k1 (or_introl eq_refl) HM) as [HsM HV].
    destruct (IH Vs' k2 (fun M' V' k' Hin => Hev M' V' k' (or_intror Hin)) eq_refl
                (pre ++ [V])) as [HsMs HVs].
    { apply Forall_app. split; [exact Hpre|constructor; [exact HV|constructor]]. }
    split; [|constructor; assumption].
    eapply tstar_trans.
    + apply (tstar_frame (KTuple pre (map (subst_tm σ) Ms))); [exact Hpre|exact HsM].
    + simpl. rewrite <- !app_assoc in HsMs. exact HsMs.
Qed.

(** The cursors answer what [meval] answers. *)
Definition ecur_ok (ρ : list tm) (e : ecur) : Prop := snd e = skipn (fst e) ρ.
Definition pc_ok (ρ : list tm) (c : pcache) : Prop :=
  Forall (fun en => exists Vs, env_lookup ρ (fst (fst en)) = Tuple Vs /\
                               snd en = skipn (snd (fst en)) Vs) c.

Lemma skipn_skipn' {X} n m (l : list X) : skipn n (skipn m l) = skipn (n + m) l.
Proof.
  revert l. induction m as [|m IH]; intros l.
  - rewrite Nat.add_0_r. reflexivity.
  - destruct l as [|a l].
    + rewrite Nat.add_succ_r. destruct n; reflexivity.
    + rewrite Nat.add_succ_r. simpl. apply IH.
Qed.

Lemma skipn_cons_nth {X} x (l : list X) (a : X) r : skipn x l = a :: r -> nth_error l x = Some a.
Proof.
  revert l. induction x as [|x IH]; intros [|b l] Hs; simpl in *; try discriminate.
  - congruence.
  - apply IH. exact Hs.
Qed.

Lemma skipn_cons_tail {X} x (l : list X) (a : X) r : skipn x l = a :: r -> r = skipn (S x) l.
Proof.
  revert l. induction x as [|x IH]; intros [|b l] Hs; simpl in *; try discriminate.
  - congruence.
  - apply (IH l). exact Hs.
Qed.

Lemma In_firstn' {X} n (l : list X) a : In a (firstn n l) -> In a l.
Proof.
  revert l. induction n as [|n IH]; intros [|b l]; simpl; try tauto.
  intros [->|Ha]; [left; reflexivity|right; apply IH; exact Ha].
Qed.

Lemma pc_ok_keep ρ c x n : pc_ok ρ c -> pc_ok ρ (firstn n (pc_drop c x)).
Proof.
  unfold pc_ok, pc_drop. rewrite !Forall_forall. intros Hc en Hin.
  apply In_firstn' in Hin. apply filter_In in Hin as [Hin _]. apply Hc. exact Hin.
Qed.

Lemma ecur_lookup_spec ρ e x V e' :
  ecur_ok ρ e -> ecur_lookup ρ e x = (Some V, e') ->
  env_lookup ρ x = V /\ ecur_ok ρ e'.
Proof.
  destruct e as [j r]. unfold ecur_ok, ecur_lookup. cbn [fst snd]. intros Hr.
  assert (Hx : (if Nat.leb j x then skipn (x - j) r else skipn x ρ) = skipn x ρ).
  { destruct (Nat.leb_spec j x); [|reflexivity].
    subst r. rewrite skipn_skipn'. f_equal. lia. }
  rewrite Hx. destruct (skipn x ρ) as [|V0 r0] eqn:Hs; [discriminate|].
  intros [= <- <-]. split.
  - unfold env_lookup. rewrite (skipn_cons_nth _ _ _ _ Hs). reflexivity.
  - cbn [fst snd]. symmetry. exact Hs.
Qed.

Lemma pc_find_spec ρ c x i r :
  pc_ok ρ c -> pc_find c x = Some (i, r) -> exists Vs, env_lookup ρ x = Tuple Vs /\ r = skipn i Vs.
Proof.
  induction 1 as [|[[y i0] r0] c Hen Hc IH]; simpl; [discriminate|].
  destruct (Nat.eqb_spec x y) as [->|]; [|exact IH].
  intros [= <- <-]. exact Hen.
Qed.

(** [pc_answer ρ x i V e' c']: what a projection [Proj i (Var x)] through
    the cursor and the cache answers when it finds [V]: [V] is component
    [i] of [x]'s tuple, and the new cursor [e'] and cache [c'] are sound.
    For parsing only: the statements below print as they did. *)
Notation pc_answer ρ x i V e' c' :=
  ((exists Vs, env_lookup ρ x = Tuple Vs /\ nth_error Vs i = Some V) /\ ecur_ok ρ e' /\ pc_ok ρ c')
  (only parsing).

(** A hit at component [i] of [x]'s tuple [Vs], as [pc_from_env] and
    [pc_proj] answer it: the component, the cursor, the cache with the
    entry of [x] after it. *)
Lemma pc_hit_spec ρ e c x i Vs V r' :
  ecur_ok ρ e -> pc_ok ρ c -> env_lookup ρ x = Tuple Vs -> skipn i Vs = V :: r' ->
  pc_answer ρ x i V e ((x, S i, r') :: firstn 1 (pc_drop c x)).
Proof.
  intros He Hc HVs Hs.
  split; [exists Vs; split; [exact HVs|eapply skipn_cons_nth; exact Hs]|].
  split; [exact He|]. constructor; [|exact (pc_ok_keep ρ c x 1 Hc)].
  exists Vs. split; [exact HVs|]. cbn [fst snd]. eapply skipn_cons_tail. exact Hs.
Qed.

Lemma pc_from_env_spec ρ e c x i V e' c' :
  ecur_ok ρ e -> pc_ok ρ c -> pc_from_env ρ e c x i = (Some V, e', c') -> pc_answer ρ x i V e' c'.
Proof.
  intros He Hc. unfold pc_from_env.
  destruct (ecur_lookup ρ e x) as [[W|] e1] eqn:Hl; [|discriminate].
  destruct W as [| | | |Vs| | |]; try discriminate.
  destruct (skipn i Vs) as [|V0 r'] eqn:Hs; [discriminate|].
  intros [= <- <- <-].
  destruct (ecur_lookup_spec _ _ _ _ _ He Hl) as [HW He1].
  exact (pc_hit_spec _ _ _ _ _ _ _ _ He1 Hc HW Hs).
Qed.

Lemma pc_proj_spec ρ e c x i V e' c' :
  ecur_ok ρ e -> pc_ok ρ c -> pc_proj ρ e c x i = (Some V, e', c') -> pc_answer ρ x i V e' c'.
Proof.
  intros He Hc. unfold pc_proj.
  destruct (pc_find c x) as [[i0 r]|] eqn:Hf; [|apply pc_from_env_spec; assumption].
  destruct (Nat.leb_spec i0 i) as [Hle|]; [|apply pc_from_env_spec; assumption].
  destruct (pc_find_spec _ _ _ _ _ Hc Hf) as [Vs [HVs ->]].
  rewrite skipn_skipn', Nat.sub_add by exact Hle.
  destruct (skipn i Vs) as [|V0 r'] eqn:Hs; [discriminate|].
  intros [= <- <- <-].
  exact (pc_hit_spec _ _ _ _ _ _ _ _ He Hc HVs Hs).
Qed.

Lemma meval_proj_var f ρ x i Vs V :
  env_lookup ρ x = Tuple Vs -> nth_error Vs i = Some V ->
  meval (S (S f)) ρ (Proj i (Var x)) = Some (V, 1).
Proof. intros Hx Hi. simpl. rewrite Hx, Hi. reflexivity. Qed.

Lemma fast_component_none ρ e c M e' c' :
  fast_component ρ e c M = (None, e', c') -> e' = e /\ c' = c.
Proof.
  unfold fast_component.
  repeat match goal with
         | |- context [match ?t with _ => _ end] => destruct t
         end; intros [= <- <-]; auto.
Qed.

Lemma fast_component_spec fuel ρ e c M p e' c' :
  3 <= fuel -> ecur_ok ρ e -> pc_ok ρ c ->
  fast_component ρ e c M = (Some p, e', c') ->
  meval fuel ρ M = Some p /\ ecur_ok ρ e' /\ pc_ok ρ c'.
Proof.
  intros Hf He Hc Hfc. destruct fuel as [|[|[|f]]]; try lia. unfold fast_component in Hfc.
  destruct M as [x| | |M1 M2| |i [x| | | | | | |]| |]; try discriminate Hfc.
  - destruct (ecur_lookup ρ e x) as [[V|] e1] eqn:Hl; [|discriminate Hfc].
    injection Hfc as <- <- <-. destruct (ecur_lookup_spec _ _ _ _ _ He Hl) as [<- He1].
    split; [reflexivity|split; assumption].
  - destruct M1 as [| | | | |i1 [x1| | | | | | |]| |]; try discriminate Hfc.
    destruct M2 as [| | | | |i2 [x2| | | | | | |]| |]; try discriminate Hfc.
    destruct (pc_proj ρ e c x1 i1) as [[[[| c1 | | | | | |]|] e1] cc1] eqn:Hp1; try discriminate Hfc.
    destruct (pc_proj ρ e1 cc1 x2 i2) as [[[[| c2 | | | | | |]|] e2] cc2] eqn:Hp2; try discriminate Hfc.
    injection Hfc as <- <- <-.
    destruct (pc_proj_spec _ _ _ _ _ _ _ _ He Hc Hp1) as [[Vs1 [HVs1 Hi1]] [He1 Hc1]].
    destruct (pc_proj_spec _ _ _ _ _ _ _ _ He1 Hc1 Hp2) as [[Vs2 [HVs2 Hi2]] [He2 Hc2]].
    split; [|split; assumption].
    change (meval (S (S (S f))) ρ (Add (Proj i1 (Var x1)) (Proj i2 (Var x2)))) with
      (match meval (S (S f)) ρ (Proj i1 (Var x1)) with
       | Some (Const a1, k1) =>
           match meval (S (S f)) ρ (Proj i2 (Var x2)) with
           | Some (Const a2, k2) => Some (Const (cadd a1 a2), k1 + S k2)
           | _ => None
           end
       | _ => None
       end).
    rewrite (meval_proj_var f _ _ _ _ _ HVs1 Hi1), (meval_proj_var f _ _ _ _ _ HVs2 Hi2).
    reflexivity.
  - destruct (pc_proj ρ e c x i) as [[[V|] e1] c1] eqn:Hp; [|discriminate Hfc].
    injection Hfc as <- <- <-. destruct (pc_proj_spec _ _ _ _ _ _ _ _ He Hc Hp) as [[Vs [HVs Hi]] [He1 Hc1]].
    split; [apply (meval_proj_var _ _ _ _ _ _ HVs Hi)|split; assumption].
Qed.

Lemma meval_tuple_list fuel ρ e c Ms :
  3 <= fuel -> ecur_ok ρ e -> pc_ok ρ c ->
  meval_tuple (meval fuel ρ) ρ e c Ms = meval_list (meval fuel ρ) Ms.
Proof.
  intros Hf. revert e c. induction Ms as [|M Ms IH]; intros e c He Hc; [reflexivity|].
  cbn [meval_tuple meval_list].
  destruct (fast_component ρ e c M) as [[[p|] e'] c'] eqn:Hfc.
  - destruct (fast_component_spec _ _ _ _ _ _ _ _ Hf He Hc Hfc) as [Hm [He' Hc']].
    rewrite Hm. destruct p as [V k]. rewrite (IH _ _ He' Hc'). reflexivity.
  - destruct (fast_component_none _ _ _ _ _ _ Hfc) as [-> ->].
    destruct (meval fuel ρ M) as [[V k]|]; [|reflexivity]. rewrite (IH _ _ He Hc). reflexivity.
Qed.

Lemma meval_tup_list fuel ρ Ms : meval_tup (meval fuel ρ) fuel ρ Ms = meval_list (meval fuel ρ) Ms.
Proof.
  unfold meval_tup. destruct (Nat.leb_spec 3 fuel); [|reflexivity].
  apply meval_tuple_list; [assumption|reflexivity|constructor].
Qed.

(** [meval] agrees with iterating [step_tm_fn] on the closed term. *)
Lemma meval_sound fuel ρ M V k :
  Forall value ρ -> meval fuel ρ M = Some (V, k) ->
  tstar k (subst_tm (list_subst ρ) M) V /\ value V.
Proof.
  revert ρ M V k. induction fuel as [|fuel IH]; intros ρ M V k Hρ Hev; [discriminate|].
  destruct M as [x|c|f N|M1 M2|Ms|i N|N1 N2|N1 N2 L]; simpl in Hev |- *.
  - injection Hev as <- <-. rewrite env_lookup_spec.
    split; [constructor|apply list_subst_value; exact Hρ].
  - injection Hev as <- <-. split; [constructor|reflexivity].
  - destruct (meval fuel ρ N) as [[V1 k1]|] eqn:H1; [|discriminate].
    destruct (ev f V1) as [V'|] eqn:Hf; [|discriminate].
    destruct (meval fuel [] V') as [[V'' k']|] eqn:H2; [|discriminate].
    injection Hev as <- <-.
    destruct (IH _ _ _ _ Hρ H1) as [Hs1 HV1].
    destruct (IH _ _ _ _ (Forall_nil _) H2) as [Hs2 HV2]. rewrite subst_tm_nil in Hs2.
    split; [|exact HV2].
    eapply tstar_trans; [apply (tstar_frame (KApp f)); [exact I|exact Hs1]|].
    econstructor; [|exact Hs2]. simpl. rewrite (step_tm_fn_value _ HV1), Hf. reflexivity.
  - destruct (meval fuel ρ M1) as [[[| c1 | | | | | |] k1]|] eqn:H1; try discriminate.
    destruct (meval fuel ρ M2) as [[[| c2 | | | | | |] k2]|] eqn:H2; try discriminate.
    injection Hev as <- <-.
    destruct (IH _ _ _ _ Hρ H1) as [Hs1 _]. destruct (IH _ _ _ _ Hρ H2) as [Hs2 _].
    split; [|reflexivity].
    eapply tstar_trans; [apply (tstar_frame (KAddL _)); [exact I|exact Hs1]|].
    replace (S k2) with (k2 + 1) by lia.
    eapply tstar_trans; [apply (tstar_frame (KAddR (Const c1))); [reflexivity|exact Hs2]|].
    apply tstar_one. reflexivity.
  - rewrite meval_tup_list in Hev.
    destruct (meval_list (meval fuel ρ) Ms) as [[Vs k1]|] eqn:H1; [|discriminate].
    injection Hev as <- <-.
    destruct (meval_list_sound (meval fuel ρ) (list_subst ρ) Ms Vs k1
                (fun M V k _ HM => IH _ _ _ _ Hρ HM) H1 [] (Forall_nil _)) as [Hs HVs].
    split; [exact Hs|]. apply value_tuple_iff. exact HVs.
  - destruct (meval fuel ρ N) as [[[| | | |Vs| | |] k1]|] eqn:H1; try discriminate.
    destruct (nth_error Vs i) as [Vi|] eqn:Hi; [|discriminate]. injection Hev as <- <-.
    destruct (IH _ _ _ _ Hρ H1) as [Hs1 HV1].
    split.
    + replace (S k1) with (k1 + 1) by lia.
      eapply tstar_trans; [apply (tstar_frame (KProj i)); [exact I|exact Hs1]|].
      apply tstar_one. cbn [fill_frame]. rewrite step_tm_fn_proj, (step_tm_fn_value _ HV1), Hi.
      reflexivity.
    + apply value_tuple_iff in HV1. rewrite Forall_forall in HV1. apply HV1.
      eapply nth_error_In. exact Hi.
  - destruct (meval fuel ρ N1) as [[V1 k1]|] eqn:H1; [|discriminate].
    destruct (meval fuel (V1 :: ρ) N2) as [[V2 k2]|] eqn:H2; [|discriminate].
    injection Hev as <- <-.
    destruct (IH _ _ _ _ Hρ H1) as [Hs1 HV1].
    destruct (IH _ _ _ _ (Forall_cons _ HV1 Hρ) H2) as [Hs2 HV2].
    split; [|exact HV2].
    eapply tstar_trans; [apply (tstar_frame (KLet _)); [exact I|exact Hs1]|].
    econstructor; [|rewrite <- subst_tm_cons in Hs2; exact Hs2].
    simpl. rewrite (step_tm_fn_value _ HV1). reflexivity.
  - destruct (meval fuel ρ N1) as [[W k1]|] eqn:H1; [|discriminate].
    destruct (meval fuel ρ L) as [[VL k2]|] eqn:H2; [|discriminate].
    destruct (infer_tm [] VL) as [A|] eqn:HA; [|discriminate].
    destruct (meval fuel [] _) as [[V3 k3]|] eqn:H3; [|discriminate].
    injection Hev as <- <-.
    rewrite (subst_tm_ext (up (env_lookup ρ)) (up (list_subst ρ))) in H3
      by (intros [|x]; simpl; [reflexivity|rewrite env_lookup_spec; reflexivity]).
    destruct (IH _ _ _ _ Hρ H1) as [Hs1 HW].
    destruct (IH _ _ _ _ Hρ H2) as [Hs2 HVL].
    destruct (IH _ _ _ _ (Forall_nil _) H3) as [Hs3 HV3]. rewrite subst_tm_nil in Hs3.
    split; [|exact HV3].
    eapply tstar_trans; [apply (tstar_frame (KRdL _ _)); [exact I|exact Hs1]|].
    eapply tstar_trans; [apply (tstar_frame (KRdR W _)); [exact HW|exact Hs2]|].
    econstructor; [|exact Hs3].
    simpl. rewrite (step_tm_fn_value _ HW), (step_tm_fn_value _ HVL), HA. reflexivity.
Qed.

(** ** [run] along term steps and on values *)

Lemma step_conf_fn_term fuel hp K F M M' :
  step_tm_fn M = TSStep M' -> step_conf_fn fuel hp (fill_t K F M) = CSStep hp (fill_t K F M').
Proof.
  intros Hs. unfold step_conf_fn. rewrite split_c_fill_t.
  destruct F; simpl; unfold term_conf_step; rewrite Hs; reflexivity.
Qed.

Lemma run_tstar k M M' fuel n hp K F :
  tstar k M M' -> k <= fuel ->
  run fuel n hp (fill_t K F M) = run (fuel - k) (n + k) hp (fill_t K F M').
Proof.
  intros Hs. revert fuel n. induction Hs as [M|k M M' M'' Hs _ IH]; intros fuel n Hle.
  - rewrite Nat.sub_0_r, Nat.add_0_r. reflexivity.
  - destruct fuel as [|fuel]; [lia|]. cbn [run]. rewrite (step_conf_fn_term _ _ _ _ _ _ Hs).
    rewrite IH by lia. simpl. f_equal. lia.
Qed.

Lemma step_conf_fn_ret_done fuel hp V :
  value V -> step_conf_fn fuel hp (Ret V) = CSDone V.
Proof.
  intros HV. unfold step_conf_fn. simpl. unfold term_conf_step.
  rewrite (step_tm_fn_value _ HV). reflexivity.
Qed.

Lemma step_conf_fn_ret_let fuel hp Q K V :
  value V ->
  step_conf_fn fuel hp (fill_c (Q :: K) (Ret V)) =
  CSStep hp (fill_c K (subst_cmd (list_subst [V]) Q)).
Proof.
  intros HV. unfold step_conf_fn. rewrite split_c_fill by exact I. unfold term_conf_step.
  rewrite (step_tm_fn_value _ HV). reflexivity.
Qed.

Lemma step_conf_fn_op fuel hp K o V :
  value V ->
  step_conf_fn fuel hp (fill_c K (Op o V)) =
  match o with
  | OpGet l => CSStep hp (fill_c K (Ret (Const (heap_lookup hp l))))
  | OpPut l =>
      match V with
      | Const c => CSStep (heap_update hp l c) (fill_c K (Ret (Const (czero unit_base))))
      | _ => CSWrong
      end
  | OpUser _ => CSStuckOp o V
  end.
Proof.
  intros HV. unfold step_conf_fn. rewrite split_c_fill by exact I. unfold term_conf_step.
  rewrite (step_tm_fn_value _ HV). reflexivity.
Qed.

Lemma step_conf_fn_rev fuel hp K Vs R H Bs R' :
  value (Tuple Vs) -> infer_tm [] (Tuple Vs) = Some (TProd Bs) ->
  rh_fn fuel H Bs Vs R = RHOk R' ->
  step_conf_fn fuel hp (fill_c K (RevHandle (Tuple Vs) R H)) = CSStep hp (fill_c K R').
Proof.
  intros HV HA Hrh. unfold step_conf_fn. rewrite split_c_fill by exact I. unfold term_conf_step.
  rewrite (step_tm_fn_value _ HV), HA, Hrh. reflexivity.
Qed.

(** ** The machine *)

(** A let-frame [let x ⇐ [−] in Q] whose body's free variables other than
    [x] are given by the environment [ρ]. *)
Definition mframe : Type := (cmd * list tm)%type.

Definition close_frame (fr : mframe) : cmd := subst_cmd (up (list_subst (snd fr))) (fst fr).

(** The command a machine state stands for: the stack [K] (innermost
    first) around [P] closed by [ρ]. *)
Definition assemble (K : list mframe) (ρ : list tm) (P : cmd) : cmd :=
  fill_c (map close_frame K) (subst_cmd (list_subst ρ) P).

(** Push the let-frames of [P] onto the stack. *)
Fixpoint descend (K : list mframe) (ρ : list tm) (P : cmd) : list mframe * cmd :=
  match P with
  | CLet P1 Q => descend ((Q, ρ) :: K) ρ P1
  | _ => (K, P)
  end.

(** Leave the machine: finish with [run] on the assembled command. *)
Definition mfallback (fuel n : nat) (hp : heap) (K : list mframe) (ρ : list tm) (P : cmd)
    : run_result :=
  run fuel n hp (assemble K ρ P).

(** A machine state: the heap, the stack, and the command under
    evaluation with its environment (one argument, so that the extracted
    loop keeps few enough arguments to be tail-recursive). *)
Inductive mconf : Type :=
| MConf (hp : heap) (K : list mframe) (ρ : list tm) (P : cmd).

(** What the machine may do at [rev handle(V)<y⃗>.R with H] before it
    builds [RH]'s output: [hook fuel k n hp H Bs Vs R], with [k] the steps
    the term took and [n] the steps before it, answers the heap, the
    components and the step count at which [RH]'s output ends with a tuple
    value, or [None] to build the output with [rh_fn].  [no_hook] always
    answers [None]; [machine_fast.v]'s [fast_hook] runs the tape. *)
Definition mhook : Type :=
  nat -> nat -> nat -> heap -> handler -> list ty -> list tm -> cmd -> option (heap * list tm * nat).

Definition no_hook : mhook := fun _ _ _ _ _ _ _ _ => None.

(** [mloop_hook hook short gas fuel n (MConf hp K ρ P)]: the machine's
    loop, [short fuel n hp K ρ P] being what it answers when the term
    under evaluation needs at least the fuel left, [hook] what it tries
    first at a [rev handle].  [gas] bounds the number of transitions (each
    takes at least one step, so [gas = S fuel] is enough). *)
Fixpoint mloop_hook (hook : mhook)
    (short : nat -> nat -> heap -> list mframe -> list tm -> cmd -> run_result)
    (gas fuel n : nat) (c : mconf) {struct gas} : run_result :=
  let '(MConf hp K ρ P) := c in
  match gas with
  | 0 => mfallback fuel n hp K ρ P
  | S gas' =>
      let '(K1, P0) := descend K ρ P in
      match P0 with
      | Ret M =>
          match meval fuel ρ M with
          | Some (V, k) =>
              if Nat.ltb k fuel then
                match K1 with
                | [] => RDone hp V (n + k)
                | (Q, ρ') :: K2 =>
                    mloop_hook hook short gas' (fuel - S k) (S (n + k)) (MConf hp K2 (V :: ρ') Q)
                end
              else short fuel n hp K1 ρ P0
          | None => mfallback fuel n hp K1 ρ P0
          end
      | Op o M =>
          match meval fuel ρ M with
          | Some (V, k) =>
              if Nat.ltb k fuel then
                match o with
                | OpGet l =>
                    mloop_hook hook short gas' (fuel - S k) (S (n + k))
                      (MConf hp K1 [] (Ret (Const (heap_lookup hp l))))
                | OpPut l =>
                    match V with
                    | Const c =>
                        mloop_hook hook short gas' (fuel - S k) (S (n + k))
                          (MConf (heap_put hp l c) K1 [] (Ret (Const (czero unit_base))))
                    | _ => mfallback fuel n hp K1 ρ P0
                    end
                | OpUser _ => RStuckOp hp (fill_c (map close_frame K1) (Op o V)) o V (n + k)
                end
              else short fuel n hp K1 ρ P0
          | None => mfallback fuel n hp K1 ρ P0
          end
      | RevHandle M R H =>
          match meval fuel ρ M with
          | Some (V, k) =>
              if Nat.ltb k fuel then
                match V with
                | Tuple Vs =>
                    match infer_tm [] V with
                    | Some (TProd Bs) =>
                        match hook fuel k n hp H Bs Vs R with
                        | Some (hp', vs, n') =>
                            mloop_hook hook short gas' (fuel - S k - (n' - S (n + k))) n'
                              (MConf hp' K1 [] (Ret (Tuple vs)))
                        | None =>
                            match rh_fn (fuel - k) H Bs Vs R with
                            | RHOk R' =>
                                mloop_hook hook short gas' (fuel - S k) (S (n + k)) (MConf hp K1 [] R')
                            | _ => mfallback fuel n hp K1 ρ P0
                            end
                        end
                    | _ => mfallback fuel n hp K1 ρ P0
                    end
                | _ => mfallback fuel n hp K1 ρ P0
                end
              else short fuel n hp K1 ρ P0
          | None => mfallback fuel n hp K1 ρ P0
          end
      | CLet _ _ => mfallback fuel n hp K1 ρ P0
      end
  end.

(** [mloop_with short]: the loop without a hook.  [mloop] (below)
    finishes with [run], through [mfallback]: [mloop gas fuel n (MConf hp
    K ρ P)] is [run fuel n hp (assemble K ρ P)]; [total.v]'s [mloop_nf]
    answers "out of fuel" at once. *)
Definition mloop_with (short : nat -> nat -> heap -> list mframe -> list tm -> cmd -> run_result)
    : nat -> nat -> nat -> mconf -> run_result :=
  mloop_hook no_hook short.

Local Notation mloop := (mloop_with mfallback).

(** The evaluator: a drop-in replacement for [run]. *)
Definition run_machine (fuel n : nat) (hp : heap) (P : cmd) : run_result :=
  mloop (S fuel) fuel n (MConf hp [] [] P).

(** ** Correctness *)

Definition env_ok (ρ : list tm) : Prop := Forall value ρ.
Definition stack_ok (K : list mframe) : Prop := Forall (fun fr => env_ok (snd fr)) K.

Lemma descend_spec K ρ P K1 P0 :
  descend K ρ P = (K1, P0) -> env_ok ρ -> stack_ok K ->
  assemble K ρ P = assemble K1 ρ P0 /\ stack_ok K1.
Proof.
  revert K. induction P as [M|o M|P1 IH1 Q _|M R _ H]; intros K Hd Hρ HK; simpl in Hd;
    try (injection Hd as <- <-; auto).
  destruct (IH1 _ Hd Hρ) as [Hasm HK1]; [constructor; assumption|].
  split; [|exact HK1]. rewrite <- Hasm. reflexivity.
Qed.

Lemma assemble_term K ρ F M :
  fill_t (map close_frame K) F (subst_tm (list_subst ρ) M) = assemble K ρ (plug_t F M).
Proof. destruct F; reflexivity. Qed.

(** What [short] must answer: [run]'s answer up to [rel], whenever the
    term [M] in evaluation position takes at least the fuel left. *)
Definition short_ok (rel : run_result -> run_result -> Prop)
    (short : nat -> nat -> heap -> list mframe -> list tm -> cmd -> run_result) : Prop :=
  forall fuel n hp K ρ F M V k,
    env_ok ρ -> meval fuel ρ M = Some (V, k) -> fuel <= k ->
    rel (short fuel n hp K ρ (plug_t F M)) (run fuel n hp (assemble K ρ (plug_t F M))).

Lemma short_ok_mfallback : short_ok eq mfallback.
Proof. intros fuel n hp K ρ F M V k _ _ _. reflexivity. Qed.

(** What [hook] must answer: when it answers, [rh_fn] succeeds, and [run]
    goes in any context from [RH]'s output to the tuple of the answer,
    with the heap, the steps and the fuel the answer says. *)
Definition hook_ok (hook : mhook) : Prop :=
  forall fuel k n hp H Bs Vs R hp' vs n',
    k < fuel -> hook fuel k n hp H Bs Vs R = Some (hp', vs, n') ->
    exists R', rh_fn (fuel - k) H Bs Vs R = RHOk R' /\
      forall K, run (fuel - S k) (S (n + k)) hp (fill_c K R') =
                run (fuel - S k - (n' - S (n + k))) n' hp' (fill_c K (Ret (Tuple vs))).

Lemma hook_ok_no_hook : hook_ok no_hook.
Proof. intros until n'. discriminate. Qed.

(** The loop agrees with [run] up to [rel], for a [short] answer that
    does and a [hook] that answers only what [run] computes.

    Informal proof: by induction on the gas, the state standing for
    [assemble K ρ P] ([descend_spec]); a term evaluated by [meval] is
    [run]'s steps on it ([run_tstar]), each transition one step of
    [run] ([step_conf_fn_ret_done], [step_conf_fn_ret_let],
    [step_conf_fn_op], [step_conf_fn_rev]); the hook's answer is
    [run]'s by [hook_ok]. *)
Lemma mloop_hook_agrees (rel : run_result -> run_result -> Prop) hook short gas fuel n hp K ρ P :
  (forall r, rel r r) -> hook_ok hook -> short_ok rel short ->
  env_ok ρ -> stack_ok K ->
  rel (mloop_hook hook short gas fuel n (MConf hp K ρ P)) (run fuel n hp (assemble K ρ P)).
Proof.
  intros Hrefl Hhook Hshort. revert fuel n hp K ρ P.
  induction gas as [|gas IH]; intros fuel n hp K ρ P Hρ HK; [apply Hrefl|].
  cbn [mloop_hook]. destruct (descend K ρ P) as [K1 P0] eqn:Hd.
  destruct (descend_spec _ _ _ _ _ Hd Hρ HK) as [-> HK1]. clear Hd K HK.
  unfold mfallback.
  destruct P0 as [M|o M|P1 Q|M R H]; [| |apply Hrefl|];
    (destruct (meval fuel ρ M) as [[V k]|] eqn:Hev; [|apply Hrefl]);
    destruct (meval_sound _ _ _ _ _ Hρ Hev) as [Hs HV];
    (destruct (Nat.ltb_spec k fuel) as [Hlt|Hge];
      [|first [ apply (Hshort _ _ _ _ _ TRet _ _ _ Hρ Hev Hge)
              | apply (Hshort _ _ _ _ _ (TOp o) _ _ _ Hρ Hev Hge)
              | apply (Hshort _ _ _ _ _ (TRev R H) _ _ _ Hρ Hev Hge) ]]).
  - (* ⌊M⌋ *)
    change (assemble K1 ρ (Ret M)) with (assemble K1 ρ (plug_t TRet M)).
    rewrite <- assemble_term, (run_tstar _ _ _ _ _ _ _ _ Hs) by lia.
    replace (fuel - k) with (S (fuel - S k)) by lia. cbn [run]. unfold fill_t, plug_t.
    destruct K1 as [|[Q ρ'] K2].
    + simpl. rewrite (step_conf_fn_ret_done _ _ _ HV). apply Hrefl.
    + rewrite map_cons, (step_conf_fn_ret_let _ _ _ _ _ HV).
      inversion HK1 as [|? ? Hρ' HK2]; subst.
      specialize (IH (fuel - S k) (S (n + k)) hp K2 (V :: ρ') Q
                    ltac:(constructor; [exact HV|exact Hρ']) HK2).
      unfold assemble, close_frame in IH |- *. cbn [fst snd] in *. rewrite subst_cmd_cons.
      exact IH.
  - (* Op(M) *)
    change (assemble K1 ρ (Op o M)) with (assemble K1 ρ (plug_t (TOp o) M)).
    rewrite <- assemble_term, (run_tstar _ _ _ _ _ _ _ _ Hs) by lia.
    replace (fuel - k) with (S (fuel - S k)) by lia. cbn [run]. unfold fill_t, plug_t.
    rewrite (step_conf_fn_op _ _ _ _ _ HV).
    destruct o as [o|l|l].
    + apply Hrefl.
    + apply IH; [apply Forall_nil|exact HK1].
    + destruct V; try apply Hrefl. rewrite heap_put_update. apply IH; [apply Forall_nil|exact HK1].
  - (* rev handle(M) *)
    change (assemble K1 ρ (RevHandle M R H)) with (assemble K1 ρ (plug_t (TRev R H) M)).
    destruct V as [| | | |Vs| | |]; try apply Hrefl.
    destruct (infer_tm [] (Tuple Vs)) as [[b|Bs]|] eqn:HA; try apply Hrefl.
    destruct (hook fuel k n hp H Bs Vs R) as [[[hp' vs] n']|] eqn:Ht.
    + (* the hook *)
      destruct (Hhook _ _ _ _ _ _ _ _ _ _ _ Hlt Ht) as [R' [Hrh Hrun]].
      rewrite <- assemble_term, (run_tstar _ _ _ _ _ _ _ _ Hs) by lia.
      replace (fuel - k) with (S (fuel - S k)) in * by lia. cbn [run]. unfold fill_t, plug_t.
      rewrite (step_conf_fn_rev _ _ _ _ _ _ _ _ HV HA Hrh), Hrun.
      specialize (IH (fuel - S k - (n' - S (n + k))) n' hp' K1 [] (Ret (Tuple vs))
                    (Forall_nil _) HK1).
      unfold assemble in IH. rewrite subst_cmd_nil in IH. exact IH.
    + destruct (rh_fn (fuel - k) H Bs Vs R) as [R'| |] eqn:Hrh; try apply Hrefl.
      rewrite <- assemble_term, (run_tstar _ _ _ _ _ _ _ _ Hs) by lia.
      replace (fuel - k) with (S (fuel - S k)) in * by lia. cbn [run]. unfold fill_t, plug_t.
      rewrite (step_conf_fn_rev _ _ _ _ _ _ _ _ HV HA Hrh).
      specialize (IH (fuel - S k) (S (n + k)) hp K1 [] R' (Forall_nil _) HK1).
      unfold assemble in IH. rewrite subst_cmd_nil in IH. exact IH.
Qed.

Lemma mloop_correct gas fuel n hp K ρ P :
  env_ok ρ -> stack_ok K ->
  mloop gas fuel n (MConf hp K ρ P) = run fuel n hp (assemble K ρ P).
Proof.
  exact (mloop_hook_agrees eq no_hook mfallback gas fuel n hp K ρ P
           (fun r => eq_refl) hook_ok_no_hook short_ok_mfallback).
Qed.

(** The machine computes exactly what [run] computes. *)
Theorem run_machine_correct fuel n hp P : run_machine fuel n hp P = run fuel n hp P.
Proof.
  unfold run_machine. rewrite mloop_correct by constructor.
  unfold assemble. simpl. rewrite subst_cmd_nil. reflexivity.
Qed.

End machine.

(** The machine that finishes with [run]. *)
Notation mloop := (mloop_with mfallback).

(** * Pullback reductions 1-20 and the call-by-value strategy (spec §5, §6)

    [step] is the one-step call-by-value reduction: the head rules of
    Fig. 3, numbered as in the spec, closed under the evaluation contexts of
    §6.  Reductions with a premise (16b, 16c, 17, 18, 19b, 19c, 20a) refer
    to [steps] (reflexive-transitive closure) or, for 20a, to [step], so the
    two relations are mutually inductive.  As in the paper ("if r →* V"),
    a premise evaluated with [steps] must end in a value.

    De Bruijn conventions.  In [(Ω λy.E) · ω] the body [E] is typed in
    [y :: Γ], and in every reduct [(λv.S)* · (ω E[V/y])] the Jacobian body
    [S] is typed in [v :: Γ]: [v] and [y] are both index [0], so the parts
    of [E] that do not mention [y] are reused in [S] unchanged.  The
    premises of 16b, 16c and 18 are evaluated in [x :: ω' :: Γ]: the open
    body [L] (where [x] is free, [y] bound) is [ren swap L], and the
    computed Jacobian body [S] (in [x :: v :: Γ] in the reduct) comes back as
    [ren swap S]; [ω'] is index 1.  The premises of 19b, 19c and 20a are
    evaluated in [ω' :: Γ] ([ω'] is index 0); that of 17 in [a :: y :: Γ]. *)
From Pullback Require Import syntax typing anf backprop.

Section reduction.
Context {Σ : signature}.

(** [y^{p}], [v^{p}]: a path on the innermost variable. *)
Definition yp (p : list bool) : tm := ppath p (Var 0).

(** [V^{p}] for a tuple value [V], computed on its syntax. *)
Fixpoint proj_val (p : list bool) (v : tm) : option tm :=
  match p with
  | [] => Some v
  | i :: p' => match v with Pair a b => proj_val p' (if i then b else a) | _ => None end
  end.

(** Bodies of a pullback chain before it is applied to a point:
    [(Ω λy.E)·ω] and [(Ω λy.⟨y,E⟩)·ω]. *)
Definition chain_body (p : tm) : Prop :=
  elem p \/ exists e, p = Pair (Var 0) e /\ elem e.

(** The 1-form applied to the image of the point: [ω (E[V/y])]. *)
Definition out (w v e : tm) : tm := App w (subst1 v e).

(** Exchange of [x] and [y] with [ω'] inserted: [x ↦ 1, y ↦ 0, k+2 ↦ k+3]. *)
Definition swap (n : nat) : nat :=
  match n with 0 => 1 | 1 => 0 | S (S k) => S (S (S k)) end.

(** [L̂ = L[π1(z)/y][π2(z)/x]] of reduction (8): [x ↦ π2 z, y ↦ π1 z]. *)
Definition sub8 (n : nat) : tm :=
  match n with 0 => Proj true (Var 0) | 1 => Proj false (Var 0) | S (S k) => Var (S k) end.

(** [S′[v^{q}/v′]] of reduction (19b). *)
Definition vsub (q : list bool) : nat -> tm := scons (yp q) (fun n => Var (S n)).

(** [L[V/y]] moved under [v] (reduction (16c)): [L] is in [x :: y :: Γ],
    the result in [x :: v :: Γ]. *)
Definition lsub (v l : tm) : tm := ren (up_ren S) (subst (up (scons v Var)) l).

(** Elementary bodies whose Jacobian is themselves (linear in [y]):
    reductions 10b, 11, 12, 13c, 14, 16a, 19a. *)
Inductive lin_shape : tm -> Prop :=
| lin_shape_path p : lin_shape (yp p)
| lin_shape_plus p q : lin_shape (Plus (yp p) (yp q))
| lin_shape_pair p q : lin_shape (Pair (yp p) (yp q))
| lin_shape_jac f p : lin_shape (Jac f (yp p))
| lin_shape_dual l p : nocc (lift is0) l -> lin_shape (Dual l (yp p))
| lin_shape_app p a : nocc is0 a -> lin_shape (App (yp p) a).

(** ** Redexes and values (§6)

    Remark 3.6: [((Ω λy. z y^{πi}) · ω) V] with [z] free (here [z] may be
    followed by a path), and [((Ω λy. y^{πi} y^{πj}) · ω) V] with [V^{πi}]
    not an abstraction, are stuck; they are values. *)
Definition stuck (p v : tm) : Prop :=
  (exists a q, atom a /\ nocc is0 a /\ p = App a (yp q)) \/
  (exists p1 q, p = App (yp p1) (yp q) /\ forall b, proj_val p1 v <> Some (Lam b)).

(** The shape of a head redex (rules 1-20 and [let]); no premise is
    evaluated here. *)
Definition head_redex (t : tm) : Prop :=
  match t with
  | App (Lam _) _ => True
  | App (Jac _ a) b => exists r r', dense r /\ dense r' /\ a = num_tm r /\ b = num_tm r'
  | App (Pb p _) v => chain_body p /\ ~ stuck p v
  | Proj _ (Pair _ _) => True
  | Fun _ a => exists r, dense r /\ a = num_tm r
  | Dual s (NDual c) => ~ nocc is0 s /\ exists r, bp s c NZ = Some r
  | Dual _ (Dual _ _) => True
  | Pb p _ => lets p
  | Let _ _ => True
  | _ => False
  end.

(** A value is a term in normal form (§6): no evaluation position holds a
    redex and the term is not a redex itself.  Open normal forms, such as
    [ω V], [πi(x)] or a chain [(Ω λy.E)·V], are values. *)
Fixpoint value (t : tm) : Prop :=
  ~ head_redex t /\
  match t with
  | Var _ | Lam _ | Real _ | NDual _ | Zero => True
  | Plus a b | Pair a b | App a b => value a /\ value b
  | Proj _ a | Fun _ a | Jac _ a => value a
  | Dual s a => value s /\ value a
  | Pb p s => chain_body p /\ value s
  | Let _ _ => False
  end.

(** ** Evaluation contexts
<<
    C ::= [] | C + P | V + C | C P | V C | πi(C) | ⟨C, S⟩ | ⟨V, C⟩
        | f(C) | J f · C | (λx.S)* · C | (λx.C)* · V
        | (Ω λy.C_A) · S | (Ω λy.E) · C | (Ω λy.⟨y,E⟩) · C
        | let x = C in L                                   [GAP]
>>
    [(Ω λy.C_A)·S] is the rule [step_pb_anf] below (an A-step in the body). *)
Inductive eframe : Type :=
| EPlusL (p : tm) | EPlusR (v : tm)
| EAppL (p : tm) | EAppR (v : tm)
| EProj (i : bool)
| EPairL (s : tm) | EPairR (v : tm)
| EFun (f : fsym) | EJac (f : fsym)
| EDualR (s : tm)         (** [(λx.s)* · []] *)
| EDualL (v : tm)         (** [(λx.[])* · v] *)
| EPbR (p : tm)           (** [(Ω λy.p) · []] *)
| ELet (l : tm).

Definition efill (F : eframe) (t : tm) : tm :=
  match F with
  | EPlusL p => Plus t p
  | EPlusR v => Plus v t
  | EAppL p => App t p
  | EAppR v => App v t
  | EProj i => Proj i t
  | EPairL s => Pair t s
  | EPairR v => Pair v t
  | EFun f => Fun f t
  | EJac f => Jac f t
  | EDualR s => Dual s t
  | EDualL v => Dual t v
  | EPbR p => Pb p t
  | ELet l => Let t l
  end.

Definition eframe_ok (F : eframe) : Prop :=
  match F with
  | EPlusR v | EAppR v | EPairR v | EDualL v => value v
  | EPbR p => chain_body p
  | _ => True
  end.

(** ** The reduction relation *)
Inductive step : tm -> tm -> Prop :=
(** *** CBV core and dual-map arithmetic (§5.1) *)
(**
<<
    (λx.S) V  →  S[V/x]                                          (1)
>> *)
| step_beta s v : value v -> step (App (Lam s) v) (subst1 v s)
(**
<<
    πi(⟨V1, V2⟩)  →  Vi                                           (2)
>> *)
| step_proj1 v1 v2 : value v1 -> value v2 -> step (Proj false (Pair v1 v2)) v1
| step_proj2 v1 v2 : value v1 -> value v2 -> step (Proj true (Pair v1 v2)) v2
(**
<<
    f(r)  →  f(r)                                                 (3)
>> *)
| step_fun f r : dense r -> step (Fun f (num_tm r)) (num_tm (fsem f r))
(**
<<
    (J f · r) r′  →  J(f)(r′)(r)                                  (4)
>> *)
| step_jac f r r' : dense r -> dense r' ->
    step (App (Jac f (num_tm r)) (num_tm r')) (num_tm (fjac f r' r))
(**
<<
    (λv.S)* · r′*  →  (Sᵀ r′)*     S first-order linear in v      (5⁺)
>> *)
| step_bp s c r : ~ nocc is0 s -> bp s c NZ = Some r ->
    step (Dual s (NDual c)) (NDual r)
(**
<<
    (λv.V1)* · ((λv.V2)* · V3)  →  (λv.V2[V1/v])* · V3            (6)
>> *)
| step_dual_comp v1 v2 v3 : value v1 -> value (Dual v2 v3) ->
    step (Dual v1 (Dual v2 v3)) (Dual (subst (scons v1 (fun n => Var (S n))) v2) v3)
(**
<<
    let x = V in L  →  L[V/x]                                     [GAP]
>> *)
| step_let v l : value v -> step (Let v l) (subst1 v l)
(** *** Let series (§5.2) *)
(**
<<
    (Ω (λy. let x = E in x)) · ω  →  (Ω λy.E) · ω                 (7)
>> *)
| step_pb_ret e w : elem e -> step (Pb (Let e (Var 0)) w) (Pb e w)
(**
<<
    (Ω (λy. let x = E in L)) · ω  →  (Ω λy.⟨y, E⟩) · ((Ω λ⟨y,x⟩.L) · ω)   (8)
>> *)
| step_pb_let e l w : elem e -> lets l ->
    step (Pb (Let e l) w) (Pb (Pair (Var 0) e) (Pb (subst sub8 l) w))
(**
<<
    (Ω λy.C_A[r_A]) · S  →  (Ω λy.C_A[L]) · S     (context (Ω λy.C_A)·S)
>> *)
| step_pb_anf p p' w : astep p p' -> ~ chain_body p -> step (Pb p w) (Pb p' w)
(** *** Pullbacks along elementary terms applied to a value (§5.3)

    The body [E] of each rule 9-20 is elementary (spec §5.3): the rules
    whose shape alone does not say so ([(λx.L)* · ·], [λx.L], [(Ω λx.L) · z],
    [y^{π} a]) ask for it ([elem e], [lets l], [atom a]).  Without these
    premises a body that is not yet A-normal, such as
    [((Ω λy. (λx.x)* · y) · ω) V], could both take the A-step in its body
    and fire the rule, and [step] would not be deterministic
    ([step_det], [step_fn.v]). *)
(**
<<
    ((Ω λy.E) · ω) V  →  0                     y ∉ FV(E)          (9)
>> *)
| step_pb_const e w v : value w -> value v -> elem e -> nocc is0 e ->
    step (App (Pb e w) v) Zero
(**
<<
    ((Ω λy.E) · ω) V  →  (λv.E[v/y])* · (ω E[V/y])
       E ∈ { y^p, y^p + y^q, ⟨y^p, y^q⟩, J f · y^p, (λx.L)*·y^p, y^p z }
                                         (11, 12, 10b, 13c, 14, 16a, 19a)
>> *)
| step_pb_lin e w v : value w -> value v -> elem e -> lin_shape e ->
    step (App (Pb e w) v) (Dual e (out w v e))
(**
<<
    ((Ω λy. z + y^q) · ω) V  →  (λv. v^q)* · (ω (z + V^q))        (10a)
>> *)
| step_pb_plus_l a q w v : value w -> value v -> atom a -> nocc is0 a ->
    step (App (Pb (Plus a (yp q)) w) v) (Dual (yp q) (out w v (Plus a (yp q))))
(**
<<
    ((Ω λy. y^p + z) · ω) V  →  (λv. v^p)* · (ω (V^p + z))        (10a, mirrored) [GAP]
>> *)
| step_pb_plus_r p a w v : value w -> value v -> atom a -> nocc is0 a ->
    step (App (Pb (Plus (yp p) a) w) v) (Dual (yp p) (out w v (Plus (yp p) a)))
(**
<<
    ((Ω λy. ⟨y^p, z⟩) · ω) V  →  (λv. ⟨v^p, 0⟩)* · (ω ⟨V^p, z⟩)    (13a)
    ((Ω λy. ⟨z, y^q⟩) · ω) V  →  (λv. ⟨0, v^q⟩)* · (ω ⟨z, V^q⟩)    (13b)
>> *)
| step_pb_pair_l p a w v : value w -> value v -> atom a -> nocc is0 a ->
    step (App (Pb (Pair (yp p) a) w) v) (Dual (Pair (yp p) Zero) (out w v (Pair (yp p) a)))
| step_pb_pair_r a q w v : value w -> value v -> atom a -> nocc is0 a ->
    step (App (Pb (Pair a (yp q)) w) v) (Dual (Pair Zero (yp q)) (out w v (Pair a (yp q))))
(**
<<
    ((Ω λy. f(y^p)) · ω) V  →  (λv. (J f · v^p) V^p)* · (ω f(V^p))  (15)
>> *)
| step_pb_fun f p w v : value w -> value v ->
    step (App (Pb (Fun f (yp p)) w) v)
         (Dual (App (Jac f (yp p)) (shift (ppath p v))) (out w v (Fun f (yp p))))
(**
<<
    ((Ω λy.L) · ω′) V →* (λv.S)* · (ω′ V′)   y ∈ FV(λx.L)   y ∉ FV(z)   x ∈ lin(S)
    ─────────────────────────────────────────────────────────────────  (16b)
    ((Ω λy. (λx.L)* · z) · ω) V  →  (λv. (λx.S)* · z)* · (ω ((λx.L[V/y])* · z))
>> *)
| step_pb_dual_z l a s' u w v : value w -> value v -> lets l -> atom a ->
    ~ nocc (lift is0) l ->
    nocc is0 a -> lin is0 s' ->
    value (Dual (ren swap s') (App (Var 1) u)) ->
    steps (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))
          (Dual (ren swap s') (App (Var 1) u)) ->
    step (App (Pb (Dual l a) w) v) (Dual (Dual s' a) (out w v (Dual l a)))
(**
<<
    ((Ω λy.L) · ω′) V →* (λv.S)* · (ω′ V′)     y ∈ FV(λx.L)   x ∈ lin(S)
    ─────────────────────────────────────────────────────────────────  (16c)
    ((Ω λy. (λx.L)* · y^p) · ω) V
      →  (λv. (λx.L[V/y])* · v^p + (λx.S)* · V^p)* · (ω ((λx.L[V/y])* · V^p))
>> *)
| step_pb_dual_y l p s' u w v : value w -> value v -> lets l -> ~ nocc (lift is0) l ->
    lin is0 s' ->
    value (Dual (ren swap s') (App (Var 1) u)) ->
    steps (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))
          (Dual (ren swap s') (App (Var 1) u)) ->
    step (App (Pb (Dual l (yp p)) w) v)
         (Dual (Plus (Dual (lsub v l) (yp p)) (Dual s' (shift (ppath p v))))
               (out w v (Dual l (yp p))))
(**
<<
    ((Ω λx.L) · z) a  →*  (λv.S)* · (z W)      a fresh   y ∈ FV((Ω λx.L) · z)
    ─────────────────────────────────────────────────────────────────  (17)
    ((Ω λy. (Ω λx.L) · z) · ω) V  →  ((Ω λy. λa. (λv.S)* · (z W)) · ω) V
>> *)
| step_pb_pb l z s0 u w v : value w -> value v -> lets l -> atom z -> ~ nocc is0 (Pb l z) ->
    value (Dual s0 (App (shift z) u)) ->
    steps (App (Pb (ren (up_ren S) l) (shift z)) (Var 0)) (Dual s0 (App (shift z) u)) ->
    step (App (Pb (Pb l z) w) v) (App (Pb (Lam (Dual s0 (App (shift z) u))) w) v)
(**
<<
    ((Ω λx.L) · z) a  →*  0                    a fresh   y ∈ FV((Ω λx.L) · z)
    ─────────────────────────────────────────────────────────────────  (17, 0)
    ((Ω λy. (Ω λx.L) · z) · ω) V  →  ((Ω λy. λa. 0) · ω) V
>>
    The premise of 17 ends in [0] when [L] does not depend on [x] (rule 9):
    [0] is the dual map [(λv.0)* · (z W)] of 17 (as 19c reads it for 19b). *)
| step_pb_pb_zero l z w v : value w -> value v -> lets l -> atom z -> ~ nocc is0 (Pb l z) ->
    steps (App (Pb (ren (up_ren S) l) (shift z)) (Var 0)) Zero ->
    step (App (Pb (Pb l z) w) v) (App (Pb (Lam Zero) w) v)
(**
<<
    ((Ω λy.L) · ω′) V →* (λv.S)* · (ω′ V′)     y ∈ FV(λx.L)
    ─────────────────────────────────────────────────────────────────  (18)
    ((Ω λy. λx.L) · ω) V  →  (λv. λx.S)* · (ω (λx. L[V/y]))
>> *)
| step_pb_lam l s' u w v : value w -> value v -> lets l -> ~ nocc (lift is0) l ->
    value (Dual (ren swap s') (App (Var 1) u)) ->
    steps (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v))
          (Dual (ren swap s') (App (Var 1) u)) ->
    step (App (Pb (Lam l) w) v) (Dual (Lam s') (out w v (Lam l)))
(**
<<
    ((Ω λy.L) · ω′) V →* (λv.S)* · 0          y ∈ FV(λx.L)
    ─────────────────────────────────────────────────────────────────  (18, 0)
    ((Ω λy. λx.L) · ω) V  →  (λv. λx.0)* · (ω (λx. L[V/y]))
>>
    The premise of 18 ends in a dual map along [0] when the last [let] of
    [L] does not depend on its variables (rule 9): [(λv.S)* · 0] is the
    dual map [(λv.0)* · (ω′ V′)], as 17's zero variant reads [0]. *)
| step_pb_lam_zero l s0 w v : value w -> value v -> lets l -> ~ nocc (lift is0) l ->
    value (Dual s0 Zero) ->
    steps (App (Pb (ren swap l) (Var 1)) (ren (fun n => S (S n)) v)) (Dual s0 Zero) ->
    step (App (Pb (Lam l) w) v) (Dual (Lam Zero) (out w v (Lam l)))
(**
<<
    V^p ≡ λz.P′    ((Ω λz.P′) · ω′) V^q →* (λv′.S′)* · (ω′ W)
    ─────────────────────────────────────────────────────────────────  (19b)
    ((Ω λy. y^p y^q) · ω) V  →  (λv. v^p V^q + S′[v^q/v′])* · (ω (V^p V^q))
>> *)
| step_pb_app_lam p q p' vq s0 u w v : value w -> value v ->
    proj_val p v = Some (Lam p') -> proj_val q v = Some vq ->
    value (Dual (ren (up_ren S) s0) (App (Var 0) u)) ->
    steps (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq))
          (Dual (ren (up_ren S) s0) (App (Var 0) u)) ->
    step (App (Pb (App (yp p) (yp q)) w) v)
         (Dual (Plus (App (yp p) (shift vq)) (subst (vsub q) s0))
               (out w v (App (yp p) (yp q))))
(**
<<
    V^p ≡ λz.V′    ((Ω λz.V′) · ω′) V^q →* 0
    ─────────────────────────────────────────────────────────────────  (19c)
    ((Ω λy. y^p y^q) · ω) V  →  (λv. v^p V^q)* · (ω (V^p V^q))
>> *)
| step_pb_app_zero p q p' vq w v : value w -> value v ->
    proj_val p v = Some (Lam p') -> proj_val q v = Some vq ->
    steps (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)) Zero ->
    step (App (Pb (App (yp p) (yp q)) w) v)
         (Dual (App (yp p) (shift vq)) (out w v (App (yp p) (yp q))))
(**
<<
    V^p ≡ λz.P′    ((Ω λz.P′) · ω′) V^q →* (λv′.S′)* · 0
    ─────────────────────────────────────────────────────────────────  (19b, 0)
    ((Ω λy. y^p y^q) · ω) V  →  (λv. v^p V^q)* · (ω (V^p V^q))
>>
    The premise of 19b ending in a dual map along [0] is read as 17's
    zero variant reads [0]: [(λv′.0)* · (ω′ W)], [S′ = 0], the conclusion
    of 19c. *)
| step_pb_app_lam_zero p q p' vq s0 w v : value w -> value v ->
    proj_val p v = Some (Lam p') -> proj_val q v = Some vq ->
    value (Dual s0 Zero) ->
    steps (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)) (Dual s0 Zero) ->
    step (App (Pb (App (yp p) (yp q)) w) v)
         (Dual (App (yp p) (shift vq)) (out w v (App (yp p) (yp q))))
(**
<<
    ((Ω λy.E) · ω′) V → (λv.S)* · (ω′ W)       y ∈ FV(E)
    ─────────────────────────────────────────────────────────────────  (20a)
    ((Ω λy. ⟨y, E⟩) · ω) V  →  (λv. ⟨v, S⟩)* · (ω ⟨V, E[V/y]⟩)
>> *)
| step_pb_pair_step e s0 u w v : value w -> value v -> elem e -> ~ nocc is0 e ->
    step (App (Pb (ren (up_ren S) e) (Var 0)) (shift v))
         (Dual (ren (up_ren S) s0) (App (Var 0) u)) ->
    step (App (Pb (Pair (Var 0) e) w) v)
         (Dual (Pair (Var 0) s0) (out w v (Pair (Var 0) e)))
(**
<<
    ((Ω λy. ⟨y, E⟩) · ω) V  →  (λv. ⟨v, 0⟩)* · (ω ⟨V, E⟩)   y ∉ FV(E)   (20b)
>> *)
| step_pb_pair_const e w v : value w -> value v -> elem e -> nocc is0 e ->
    step (App (Pb (Pair (Var 0) e) w) v)
         (Dual (Pair (Var 0) Zero) (out w v (Pair (Var 0) e)))
(** *** Evaluation contexts *)
| step_ctx F t t' : eframe_ok F -> step t t' -> step (efill F t) (efill F t')
with steps : tm -> tm -> Prop :=
| steps_refl t : steps t t
| steps_cons t t' t'' : step t t' -> steps t' t'' -> steps t t''.

Scheme step_mut := Induction for step Sort Prop
  with steps_mut := Induction for steps Sort Prop.
Combined Scheme step_steps_mut from step_mut, steps_mut.

End reduction.

(** * The running example (spec §9): reverse phase of Example 3.9

    An instance of the signature over the integers with the three primitives
    of §9: [g(x,y) = ⟨x+1, 2x+y²⟩], [mult(a,b) = a·b], [pow2(a) = a²], and
    the chain of dual maps D1 … D4 that the forward phase of Example 3.7
    leaves at the point [⟨1,3⟩] (intermediate values [⟨2,11⟩], [22]).
    Its reduction under the strategy ends in [[660 528]*], the Jacobian of
    [f = pow2 ∘ mult ∘ g] at [⟨1,3⟩]. *)
From Coq Require Import ZArith Ring_theory Ring.
From Pullback Require Import syntax typing anf anf_termination backprop reduction progress transpose reverse_phase.
Open Scope Z_scope.

Inductive prim : Type := Pg | Pmult | Ppow2.

Definition pdom (f : prim) : nat := match f with Pg | Pmult => 2 | Ppow2 => 1 end.
Definition pcod (f : prim) : nat := match f with Pg => 2 | Pmult | Ppow2 => 1 end.

(** Reading a scalar or a pair of scalars ([NZ] reads as zeros), so that
    the primitives accept sparse tuples. *)
Definition cp (a : num Z) : Z := match a with NR z => z | _ => 0 end.
Definition pr (a : num Z) : Z * Z := match a with NP a1 a2 => (cp a1, cp a2) | _ => (0, 0) end.

Definition zsem (f : prim) (x : num Z) : num Z :=
  match f with
  | Pg => let (a, b) := pr x in NP (NR (a + 1)) (NR (2 * a + b * b))
  | Pmult => let (a, b) := pr x in NR (a * b)
  | Ppow2 => NR (cp x * cp x)
  end.

(** [J(f)(x)(v)] *)
Definition zjac (f : prim) (x v : num Z) : num Z :=
  match f with
  | Pg => let (a, b) := pr x in let (v1, v2) := pr v in NP (NR v1) (NR (2 * v1 + 2 * b * v2))
  | Pmult => let (a, b) := pr x in let (v1, v2) := pr v in NR (b * v1 + a * v2)
  | Ppow2 => NR (2 * cp x * cp v)
  end.

(** [(J(f)(x))ᵀ c] *)
Definition zjac_t (f : prim) (x c : num Z) : num Z :=
  match f with
  | Pg => let (a, b) := pr x in let (c1, c2) := pr c in NP (NR (c1 + 2 * c2)) (NR (2 * b * c2))
  | Pmult => let (a, b) := pr x in NP (NR (b * cp c)) (NR (a * cp c))
  | Ppow2 => NR (2 * cp x * cp c)
  end.

Ltac shape_ok := unfold zsem, zjac, zjac_t;
  repeat match goal with |- context [pr ?x] => destruct (pr x) end; repeat constructor.

Lemma zsem_ty f x : num_ty x (Rn (pdom f)) -> num_ty (zsem f x) (Rn (pcod f)).
Proof. intros Hx. destruct f; simpl in *; shape_ok. Qed.

Lemma zjac_ty f x v :
  num_ty x (Rn (pdom f)) -> num_ty v (Rn (pdom f)) -> num_ty (zjac f x v) (Rn (pcod f)).
Proof. intros Hx Hv. destruct f; simpl in *; shape_ok. Qed.

Lemma zjac_t_ty f x c :
  num_ty x (Rn (pdom f)) -> num_ty c (Rn (pcod f)) -> num_ty (zjac_t f x c) (Rn (pdom f)).
Proof. intros Hx Hc. destruct f; simpl in *; shape_ok. Qed.

#[export] Instance zsig : signature := {|
  scalar := Z; szero := 0; sadd := Z.add; smul := Z.mul;
  fsym := prim; fdom := pdom; fcod := pcod;
  fsem := zsem; fjac := zjac; fjac_t := zjac_t;
  fsem_ty := zsem_ty; fjac_ty := zjac_ty; fjac_t_ty := zjac_t_ty;
|}.

(** Environment tuples nest to the left: [⟨⟨⟨⟨x,y⟩,z1⟩,z2⟩,z3⟩].
<<
    D1 = (λv. ⟨v, v⟩)*                                  v : R²
    D2 = (λv. ⟨v, (J g · v^{π2}) ⟨1,3⟩⟩)*               v : R² × R²
    D3 = (λv. ⟨v, (J mult · v^{π2}) ⟨2,11⟩⟩)*           v : (R² × R²) × R²
    D4 = (λv. (J pow2 · v^{π2}) 22)*                    v : ((R² × R²) × R²) × R
>> *)
Definition vec2 (a b : Z) : num Z := NP (NR a) (NR b).

Definition D1 : tm := Pair (Var 0) (Var 0).
Definition D2 : tm := Pair (Var 0) (App (Jac Pg (Proj true (Var 0))) (num_tm (vec2 1 3))).
Definition D3 : tm := Pair (Var 0) (App (Jac Pmult (Proj true (Var 0))) (num_tm (vec2 2 11))).
Definition D4 : tm := App (Jac Ppow2 (Proj true (Var 0))) (num_tm (NR 22)).

Definition reverse_query : tm := Dual D1 (Dual D2 (Dual D3 (Dual D4 (NDual (NR 1))))).

Ltac not_nocc := let H := fresh in intros H; simpl in H; unfold is0 in H; tauto.

(** Example 3.9: four steps of (5⁺), innermost first, give [[660 528]*]. *)
Example reverse_phase_660_528 : steps reverse_query (NDual (vec2 660 528)).
Proof.
  unfold reverse_query.
  eapply steps_cons.
  { apply (step_ctx (EDualR D1)); [exact I|]. apply (step_ctx (EDualR D2)); [exact I|].
    apply (step_ctx (EDualR D3)); [exact I|]. apply step_bp; [not_nocc|reflexivity]. }
  eapply steps_cons.
  { apply (step_ctx (EDualR D1)); [exact I|]. apply (step_ctx (EDualR D2)); [exact I|].
    apply step_bp; [not_nocc|reflexivity]. }
  eapply steps_cons.
  { apply (step_ctx (EDualR D1)); [exact I|]. apply step_bp; [not_nocc|reflexivity]. }
  eapply steps_cons.
  { apply step_bp; [not_nocc|reflexivity]. }
  simpl. apply steps_refl.
Qed.

(** The query is well typed at [(R²)*]. *)
Example reverse_query_typed : typed [] reverse_query (TDual (Rn 2)).
Proof.
  unfold reverse_query, D1, D2, D3, D4.
  repeat (econstructor; simpl; try reflexivity).
Qed.

(** The instance satisfies the adjointness hypothesis of [transpose.v],
    so [chain_reverse] applies to it. *)
Lemma zjac_adjoint (f : prim) (x c v : num Z) :
  num_ty x (Rn (pdom f)) -> num_ty c (Rn (pcod f)) -> num_ty v (Rn (pdom f)) ->
  dot (zjac_t f x c) v = dot c (zjac f x v).
Proof.
  intros Hx Hc Hv. destruct f; cbn [pdom pcod Rn] in Hx, Hc, Hv;
    repeat match goal with H : num_ty _ _ |- _ => inversion H; subst; clear H end;
    cbn -[Z.mul Z.add]; ring.
Qed.

Lemma Zsr : semi_ring_theory 0 1 Z.add Z.mul eq.
Proof. constructor; intros; ring. Qed.

Lemma reverse_query_chain : chain reverse_query.
Proof.
  unfold reverse_query, D1, D2, D3, D4.
  repeat constructor;
    try (apply (fol_path []));
    try (apply (fol_jac _ _ _ (fol_path [true])));
    try (simpl; unfold is0; tauto).
  all: apply (fol_path [true]).
Qed.

(** [chain_reverse] on the running example: the numeric dual the reverse
    phase computes pairs with every tangent [v] as the forward chain does. *)
Lemma reverse_query_transpose :
  exists r, steps reverse_query (NDual r) /\
            forall v, num_ty v (Rn 2) -> dot r v = pair_chain reverse_query v.
Proof.
  apply (chain_reverse (Σ := zsig) (1%Z : @scalar zsig) Zsr zjac_adjoint []).
  - exact reverse_query_chain.
  - exact reverse_query_typed.
Qed.

(** ** Example 3.3: A-normal form of [pow2(mult(g(⟨x,y⟩)))]

    With [x] at index 1 and [y] at index 0.  A-reduction also A-normalises
    the two variables ([x →A let x' = x in x']), so the normal form starts
    with two copies that the paper's Example 3.3 leaves out:
<<
    let a = x; b = y; z1 = ⟨a, b⟩; z2 = g(z1); z3 = mult(z2); z4 = pow2(z3) in z4
>> *)
Definition ex33 : tm := Fun Ppow2 (Fun Pmult (Fun Pg (Pair (Var 1) (Var 0)))).

Definition ex33_anf : tm :=
  Let (Var 1) (Let (Var 1) (Let (Pair (Var 1) (Var 0))
    (Let (Fun Pg (Var 0)) (Let (Fun Pmult (Var 0)) (Let (Fun Ppow2 (Var 0)) (Var 0)))))).

Ltac lets_tac := apply (proj2 (is_elem_lets_sound _)); reflexivity.

Ltac astep_at C r :=
  eapply asteps_cons;
  [ apply (astep_ctx C r);
    [ repeat apply Forall_cons; try apply Forall_nil; simpl; try exact I; try lets_tac
    | constructor; lets_tac
    | simpl; repeat split ]
  | ]; cbn.

Example ex33_asteps : asteps ex33 ex33_anf.
Proof.
  unfold ex33.
  astep_at [AFun Ppow2; AFun Pmult; AFun Pg; APairL (Var 0)] (Var 1).
  astep_at [AFun Ppow2; AFun Pmult; AFun Pg; APairR (Let (Var 1) (Var 0))] (Var 0).
  astep_at [AFun Ppow2; AFun Pmult; AFun Pg] (Pair (Let (Var 1) (Var 0)) (Let (Var 0) (Var 0))).
  astep_at [AFun Ppow2; AFun Pmult]
           (Fun Pg (Let (Var 1) (Let (Var 1) (Let (Pair (Var 1) (Var 0)) (Var 0))))).
  astep_at [AFun Ppow2]
           (Fun Pmult (Let (Var 1) (Let (Var 1) (Let (Pair (Var 1) (Var 0))
              (Let (Fun Pg (Var 0)) (Var 0)))))).
  astep_at (@nil aframe)
           (Fun Ppow2 (Let (Var 1) (Let (Var 1) (Let (Pair (Var 1) (Var 0))
              (Let (Fun Pg (Var 0)) (Let (Fun Pmult (Var 0)) (Var 0))))))).
  apply asteps_refl.
Qed.

Example ex33_lets : lets ex33_anf.
Proof. lets_tac. Qed.

Example ex33_typed : typed [TR; TR] ex33_anf TR.
Proof.
  eapply asteps_typed; [exact ex33_asteps|].
  unfold ex33. repeat (econstructor; simpl; try reflexivity).
Qed.

(** The forward chain D1 … D4 at the point [⟨1,3⟩] is the Jacobian
    [J f(1,3) = [660 528]] of [f = pow2 ∘ mult ∘ g]: pairing [1] with the
    tangent it computes gives [660 v1 + 528 v2]. *)
Example forward_chain_jacobian v1 v2 :
  pair_chain reverse_query (vec2 v1 v2) = 660 * v1 + 528 * v2.
Proof. cbn -[Z.mul Z.add]. ring. Qed.

(** ** Example 4.9: the whole query reduces to [[660 528]*]

    [((Ω λz. pow2(mult(g(z)))) · Ω[1]) ⟨1,3⟩  →*  [660 528]*], with
    [Ω[1] = λx.[1]*].  The body takes the pair [z] directly instead of the
    paper's [λ⟨x,y⟩ … g(⟨x,y⟩)]; the function is the same.  The reduction
    runs every stage: A-normalisation of the body (four A-steps, given
    explicitly), the splitting of the let series into a chain by (8) and (7)
    (Example 3.4), the forward phase by (20a) with premises (11) and (15),
    the projections (2) and the primitives (3) computed once each
    (Example 3.7), the 1-form applied by (1), then the bodies of the dual
    maps evaluated under their binders and the reverse phase by (5⁺)
    (Example 3.9).  [find_step] finds each remaining step by trying the
    rules and the evaluation contexts; the side conditions are decided by
    computation. *)
Definition omega1 : tm := Lam (NDual (NR 1)).
Definition point : tm := num_tm (vec2 1 3).
Definition body : tm := Fun Ppow2 (Fun Pmult (Fun Pg (Var 0))).
Definition query : tm := App (Pb body omega1) point.

Ltac elem_tac := apply (proj1 (is_elem_lets_sound _)); reflexivity.
Ltac lets_tac2 := apply (proj2 (is_elem_lets_sound _)); reflexivity.

Ltac no_redex H :=
  simpl in H;
  repeat match type of H with
         | ex _ => destruct H as [? H]
         | _ /\ _ => destruct H as [? H]
         end;
  repeat match goal with
         | E : _ = num_tm ?r |- _ => destruct r; simpl in E; discriminate
         | E : num_tm ?r = _ |- _ => destruct r; simpl in E; discriminate
         | E : lets _ |- _ => solve [inversion E]
         end;
  try contradiction; try discriminate.

Ltac value_tac :=
  lazymatch goal with
  | |- value _ => simpl; value_tac
  | |- _ /\ _ => split; value_tac
  | |- ~ _ => let H := fresh in intros H; no_redex H
  | |- True => exact I
  | |- chain_body _ =>
      first [ left; elem_tac | right; eexists; split; [reflexivity|elem_tac] ]
  | |- _ => idtac
  end.


Lemma step_pb_pair_step_fix e s0 u w v :
  value w -> value v -> elem e -> ~ nocc is0 e ->
  step (App (Pb (ren (up_ren S) e) (Var 0)) (shift v)) (Dual s0 (App (Var 0) u)) ->
  ren (up_ren S) s0 = s0 ->
  step (App (Pb (Pair (Var 0) e) w) v) (Dual (Pair (Var 0) s0) (out w v (Pair (Var 0) e))).
Proof.
  intros Hw Hv He Hn Hs Hr.
  pose proof (step_pb_pair_step e s0 u w v Hw Hv He Hn) as H. rewrite Hr in H. exact (H Hs).
Qed.

Ltac not_chain :=
  let H := fresh in
  intros [H|(? & H & _)]; [apply is_elem_lets_complete in H; discriminate | discriminate].

Ltac svalue := solve [value_tac].

Ltac num_of a k :=
  let r := eval compute in (as_num a) in
  lazymatch r with Some ?x => k x end.

Ltac find_step :=
  unfold out, subst1, shift; cbn [ren up_ren subst scons up];
  lazymatch goal with
  | |- step ?t _ =>
    first
      [ solve [ apply step_beta; svalue ]
      | solve [ apply step_proj1; svalue ]
      | solve [ apply step_proj2; svalue ]
      | solve [ lazymatch t with Fun ?f ?a => num_of a ltac:(fun x => apply step_fun with (r := x); cbn; repeat split) end ]
      | solve [ lazymatch t with App (Jac ?f ?a) ?b =>
          num_of a ltac:(fun x => num_of b ltac:(fun y => apply step_jac with (r := x) (r' := y); cbn; repeat split)) end ]
      | solve [ lazymatch t with Dual _ (NDual _) => eapply step_bp; [not_nocc | reflexivity] end ]
      | solve [ apply step_let; svalue ]
      | solve [ apply step_pb_ret; elem_tac ]
      | solve [ apply step_pb_let; [elem_tac | lets_tac2] ]
      | solve [ lazymatch t with App (Pb (Fun ?f ?a) _) _ =>
                  let pth := eval compute in (as_path a) in
                  lazymatch pth with Some ?p' => apply step_pb_fun with (p := p'); svalue end end ]
      | solve [ lazymatch t with App (Pb ?e _) _ =>
                  let p := eval compute in (as_path e) in
                  lazymatch p with Some ?p' =>
                    apply step_pb_lin; [svalue | svalue | elem_tac | apply (lin_shape_path p')] end end ]
      | solve [ eapply step_pb_pair_step_fix; [svalue | svalue | elem_tac | not_nocc | find_step | reflexivity] ]
      | solve [ apply step_pb_pair_const; [svalue | svalue | elem_tac | simpl; unfold is0; auto] ]
      | solve [ apply (step_ctx (EAppL _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EAppR _)); [cbn [eframe_ok]; svalue | find_step] ]
      | solve [ apply (step_ctx (EPlusL _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EPlusR _)); [cbn [eframe_ok]; svalue | find_step] ]
      | solve [ apply (step_ctx (EProj _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EPairL _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EPairR _)); [cbn [eframe_ok]; svalue | find_step] ]
      | solve [ apply (step_ctx (EFun _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EJac _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EDualR _)); [exact I | find_step] ]
      | solve [ apply (step_ctx (EDualL _)); [cbn [eframe_ok]; svalue | find_step] ]
      | solve [ apply (step_ctx (EPbR _)); [cbn [eframe_ok]; svalue | find_step] ]
      | solve [ apply (step_ctx (ELet _)); [exact I | find_step] ] ]
  end.

Ltac query_astep_at C r :=
  eapply steps_cons;
  [ apply (step_ctx (EAppL _)); [exact I|];
    apply step_pb_anf; [|not_chain];
    apply (astep_ctx C r);
    [ repeat apply Forall_cons; try apply Forall_nil; simpl; try exact I; try lets_tac2
    | constructor; lets_tac2
    | simpl; repeat split ]
  | ]; cbn.


Example query_660_528 : steps query (NDual (vec2 660 528)).
Proof.
  unfold query, body, omega1, point. cbn.
  query_astep_at [AFun Ppow2; AFun Pmult; AFun Pg] (Var 0).
  query_astep_at [AFun Ppow2; AFun Pmult] (Fun Pg (Let (Var 0) (Var 0))).
  query_astep_at [AFun Ppow2] (Fun Pmult (Let (Var 0) (Let (Fun Pg (Var 0)) (Var 0)))).
  query_astep_at (@nil aframe) (Fun Ppow2 (Let (Var 0) (Let (Fun Pg (Var 0)) (Let (Fun Pmult (Var 0)) (Var 0))))).
  repeat (eapply steps_cons; [find_step|]; unfold out, subst1, shift; cbn).
  apply steps_refl.
Qed.

(** The query is well typed at [(R²)*], so every term on the way is too
    ([steps_typed]). *)
Example query_typed : typed [] query (TDual (Rn 2)).
Proof.
  unfold query, body, omega1, point.
  eapply typed_app; [eapply typed_pb|].
  - repeat (econstructor; simpl; try reflexivity).
  - repeat (econstructor; simpl; try reflexivity).
  - repeat (econstructor; simpl; try reflexivity).
Qed.

(** ** A higher-order query (rule 19b, D-eval)

    [((Ω λy. y^{π1} y^{π2}) · Ω[1]) ⟨λz. pow2(z), 3⟩] evaluates the
    pullback of an application [f x] at the point [⟨f, x⟩ = ⟨λz.z², 3⟩].
    Reduction (19b) differentiates the function argument in its premise
    (by (15)), and the result is the normal form
<<
    (λv. v^{π1} 3 + (J pow2 · v^{π2}) 3)* · [1]*
>>
    whose body is the derivative of [f x] at [⟨λz.z², 3⟩] along a tangent
    [v = ⟨δf, δx⟩]: [δf(3) + 6·δx] (D-eval).  (5⁺) does not apply, as the
    body is higher order. *)
Lemma step_pb_app_lam_fix p q p' vq s0 u w v :
  value w -> value v -> proj_val p v = Some (Lam p') -> proj_val q v = Some vq ->
  value (Dual s0 (App (Var 0) u)) ->
  steps (App (Pb (ren (up_ren S) p') (Var 0)) (shift vq)) (Dual s0 (App (Var 0) u)) ->
  ren (up_ren S) s0 = s0 ->
  step (App (Pb (App (yp p) (yp q)) w) v)
       (Dual (Plus (App (yp p) (shift vq)) (subst (vsub q) s0)) (out w v (App (yp p) (yp q)))).
Proof.
  intros Hw Hv Hp Hq Hval Hs Hr.
  pose proof (step_pb_app_lam p q p' vq s0 u w v Hw Hv Hp Hq) as H.
  rewrite Hr in H. exact (H Hval Hs).
Qed.

Ltac norm := unfold out, subst1, shift, vsub, yp; cbn.

Ltac find_step_ho :=
  first
    [ find_step
    | lazymatch goal with
      | |- step (App (Pb (App ?a ?b) _) ?v) _ =>
          let pa := eval compute in (as_path a) in
          let pb := eval compute in (as_path b) in
          lazymatch pa with Some ?p => lazymatch pb with Some ?q =>
          let fa := eval compute in (proj_val p v) in
          let fb := eval compute in (proj_val q v) in
          lazymatch fa with Some (Lam ?p') => lazymatch fb with Some ?vq =>
            eapply (step_pb_app_lam_fix p q p' vq);
            [ svalue | svalue | reflexivity | reflexivity | idtac
            | norm; repeat (eapply steps_cons; [find_step|]; norm); apply steps_refl
            | reflexivity ]; svalue
          end end end end
      end
    | solve [ apply (step_ctx (EAppL _)); [exact I | find_step_ho] ]
    | solve [ apply (step_ctx (EAppR _)); [cbn [eframe_ok]; svalue | find_step_ho] ]
    | solve [ apply (step_ctx (EDualR _)); [exact I | find_step_ho] ]
    | solve [ apply (step_ctx (EDualL _)); [cbn [eframe_ok]; svalue | find_step_ho] ] ].

(** [((Ω λy. y^{π1} y^{π2}) · Ω[1]) ⟨λz. pow2(z), 3⟩] *)
Definition ho_query : tm :=
  App (Pb (App (Proj false (Var 0)) (Proj true (Var 0))) (Lam (NDual (NR 1))))
      (Pair (Lam (Fun Ppow2 (Var 0))) (Real 3)).

Example ho_query_result :
  steps ho_query
    (Dual (Plus (App (Proj false (Var 0)) (Real 3)) (App (Jac Ppow2 (Proj true (Var 0))) (Real 3)))
          (NDual (NR 1))).
Proof.
  unfold ho_query.
  repeat (eapply steps_cons; [find_step_ho|]; norm).
  apply steps_refl.
Qed.

Example ho_query_normal :
  value (Dual (Plus (App (Proj false (Var 0)) (Real 3)) (App (Jac Ppow2 (Proj true (Var 0))) (Real 3)))
              (NDual (NR 1))).
Proof. svalue. Qed.

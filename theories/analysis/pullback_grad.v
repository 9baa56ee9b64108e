(** * A first-order gradient query ends in the real gradient

    [pullback_real.v]'s [query_gradient] is conditional: if a first-order
    query [((Ω λy.P) · (λx.e* )) r0] over the executable signature at the
    reals reduces to [r*], then [r] is the gradient.  [fo_grad.v]
    (theory [Pullback]) proves what the query reduces to, without that
    premise, for a body with no [0] and no sum: [r*], or a term with a [0]
    on its spine (the body, or the last term of its let series, does not
    depend on [y]; rule (9)), and [fo_eval] returns it without fuel.  This
    file puts the two together ([query_gradient_value]): the query ends in
    a syntactic value [u] that [fo_eval] and [pullback-eval]'s fuel-free
    run ([fo_run_opt]) compute, and either [u] is [r*]
    with [r] the transposed Jacobian of [⟦λy.P⟧] at [r0] applied to [e],
    or [u] has a [0] on its spine, which happens only when the body ends
    in a scalar ([lastv]).  For a body that does not ([query_gradient_total]),
    the query reduces to [r*] and [r] is the gradient, without a premise on
    the reduction (docs/decisions-pullback.md, "Progress on the
    first-order fragment"). *)
From Coq Require Import Reals List.
From Pullback Require Import syntax typing anf backprop reduction preservation progress
  exec_sig query_transpose fo norm_fo normalize fo_run progress_typed fo_progress fo_grad.
From RevHandlers.Analysis Require Import vec pullback_real.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsig.

(** The function symbols of [Rsig] and their Jacobians give tuples of
    reals on tuples of reals. *)
Lemma Rsig_fsem_dense f (x : num R) : dense x -> dense (@fsem Rsig f x).
Proof. intros _. destruct f; simpl; unfold esem; try (destruct (epr Ro x)); exact I. Qed.

Lemma Rsig_fjac_dense f (x v : num R) : dense x -> dense v -> dense (@fjac Rsig f x v).
Proof.
  intros _ _. destruct f; simpl; unfold ejac; try (destruct (epr Ro x)); try (destruct (epr Ro v)); exact I.
Qed.

(** A first-order body without [0] or sums is in the fragment [fo] of
    [query_transpose.v]. *)
Lemma fob_fo P : fob P -> fo P.
Proof. induction P; simpl; intros H; try contradiction; constructor; tauto. Qed.

(** Corollary 4.8(1) in ℝ with Corollary 5.2: a first-order body
    [y : σ ⊢ P : τ] with no [0] and no sum, whose lets are let series, a
    covector [e] of [τ] and a point [r0] of ℝⁿ.  The query
    [((Ω λy.P) · (λx.e* )) r0] reduces to a syntactic value [u] of type
    [σ*], which [fo_eval] returns; [u] is [r*] with [r] the gradient
    [(J ⟦λy.P⟧(r0))ᵀ e] (a Fréchet derivative [L] of [⟦λy.P⟧] at [r0] with
    [⟨h, r⟩ = ⟨L h, e⟩] for every [h]), or [u] has a [0] on its spine.

    Informal proof: [fo_query_result] (fo_grad.v) at [Rsig], whose symbols
    give tuples of reals; in the first case [query_gradient]
    (pullback_real.v) applies to the reduction to [r*]. *)
Theorem query_gradient_value P (e r0 : num R) σ τ :
  fo_body P -> nzp P -> typed [σ] P τ -> num_ty e τ -> num_ty r0 σ -> dense r0 ->
  exists u k, fo_eval (fo_grad_query P e r0) = Some u /\
    fo_run_opt (fo_grad_query P e r0) = Some (u, k, OValue) /\ steps (fo_grad_query P e r0) u /\
    svalue u /\
    ((exists r, u = NDual r /\ num_ty r σ /\
       exists L, has_deriv (ndim σ) (ndim τ) (pb_den σ τ P) (nvec σ r0) L /\
         forall h, length h = ndim σ -> vec.dot h (nvec σ r) = vec.dot (L h) (nvec τ e))
     \/ (~ lastv P /\ zsp0 u)).
Proof.
  intros HP Hz HPt He Hr Hd.
  assert (Hq : typed [] (fo_grad_query P e r0) (TDual σ)).
  { apply typed_app with σ; [|apply typed_num; exact Hr].
    apply typed_pb with τ; [exact HPt|]. apply typed_lam. apply typed_ndual. exact He. }
  destruct (fo_query_result Rsig_fsem_dense Rsig_fjac_dense P e r0 σ HP Hz Hd Hq)
    as (u & Hu & Hs & Hsv & _ & Hcase).
  destruct (fo_query_run Rsig_fsem_dense Rsig_fjac_dense P e r0 σ HP Hz Hd Hq)
    as (u' & k & Hk & Hu' & _).
  rewrite Hu in Hu'. injection Hu' as <-.
  exists u, k. split; [exact Hu|split; [exact Hk|split; [exact Hs|split; [exact Hsv|]]]].
  destruct Hcase as [(r & -> & Hrt)|Hzu]; [left|right; exact Hzu].
  exists r. split; [reflexivity|split; [exact Hrt|]].
  exact (query_gradient P e r0 r σ τ (fob_fo P (proj1 HP)) HPt He Hr Hd Hs).
Qed.

(** Corollary 4.8(1) in ℝ without the premise that the query reaches
    [r*]: for a first-order body [y : σ ⊢ P : τ] with no [0] and no sum,
    whose lets are let series and whose last term is not a scalar
    ([lastv]), every covector [e] of [τ] and every point [r0] of ℝⁿ, the
    query [((Ω λy.P) · (λx.e* )) r0] reduces to [r*], [fo_eval] and
    [pullback-eval]'s fuel-free run return [r*], and [r] is the gradient
    [(J ⟦λy.P⟧(r0))ᵀ e].

    Informal proof: [fo_query_ndual] (fo_grad.v) at [Rsig] gives the
    reduction to [r*] and the two evaluators' answers; [query_gradient]
    (pullback_real.v) applies to that reduction. *)
Theorem query_gradient_total P (e r0 : num R) σ τ :
  fo_body P -> nzp P -> lastv P -> typed [σ] P τ -> num_ty e τ -> num_ty r0 σ -> dense r0 ->
  exists r k, steps (fo_grad_query P e r0) (NDual r) /\ num_ty r σ /\
    fo_eval (fo_grad_query P e r0) = Some (NDual r) /\
    fo_run_opt (fo_grad_query P e r0) = Some (NDual r, k, OValue) /\
    exists L, has_deriv (ndim σ) (ndim τ) (pb_den σ τ P) (nvec σ r0) L /\
      forall h, length h = ndim σ -> vec.dot h (nvec σ r) = vec.dot (L h) (nvec τ e).
Proof.
  intros HP Hz HL HPt He Hr Hd.
  assert (Hq : typed [] (fo_grad_query P e r0) (TDual σ)).
  { apply typed_app with σ; [|apply typed_num; exact Hr].
    apply typed_pb with τ; [exact HPt|]. apply typed_lam. apply typed_ndual. exact He. }
  destruct (fo_query_ndual Rsig_fsem_dense Rsig_fjac_dense P e r0 σ HP Hz HL Hd Hq)
    as (r & k & Hs & Hrt & Hev & Hrun).
  exists r, k. split; [exact Hs|split; [exact Hrt|split; [exact Hev|split; [exact Hrun|]]]].
  exact (query_gradient P e r0 r σ τ (fob_fo P (proj1 HP)) HPt He Hr Hd Hs).
Qed.

(** * The reverse phase terminates and computes the transpose (spec §5.1,
    §9.6 step 5)

    Fragment: a chain of dual maps ending in a numeric dual,
<<
    (λv.S1)* · ((λv.S2)* · ( … ((λv.Sn)* · c* ) … ))
>>
    whose bodies are first-order linear in [v] and mention it ([fol]).
    This is what the forward phase leaves for a first-order query once the
    1-form has been applied (Example 3.9).  Under the call-by-value
    strategy such a chain reduces, by n steps of (5⁺) from the inside out,
    to a numeric dual [r*], and over any commutative semiring with adjoint
    Jacobians
<<
    ⟨r, v⟩ = ⟨c, Sn( … S2(S1(v)) … )⟩,
>>
    i.e. [r] is the transpose of the forward (tangent) evaluation of the
    chain applied to [c]. *)
From Coq Require Import Ring_theory Ring.
From Pullback Require Import syntax typing backprop reduction preservation progress transpose.

Section reverse_phase.
Context {Σ : signature}.

Variable sone : scalar.
Hypothesis Hsr : semi_ring_theory szero sone sadd smul eq.
Add Ring scalar_semiring : Hsr.
Hypothesis fjac_adjoint : fjac_adjoint_law.

(** First-order linear bodies:
<<
    S ::= v^{p} | 0 | S + S | ⟨S, S⟩ | (J f · S) r
>> *)
Inductive fol : tm -> Prop :=
| fol_path p : fol (yp p)
| fol_zero : fol Zero
| fol_plus a b : fol a -> fol b -> fol (Plus a b)
| fol_pair a b : fol a -> fol b -> fol (Pair a b)
| fol_jac f q x : fol q -> fol (App (Jac f q) (num_tm x)).

Inductive chain : tm -> Prop :=
| chain_ndual c : chain (NDual c)
| chain_dual s t : fol s -> ~ nocc is0 s -> chain t -> chain (Dual s t).

(** The forward evaluation of a chain at [v], paired with its final [c]. *)
Fixpoint pair_chain (t : tm) (v : num scalar) : scalar :=
  match t with
  | NDual c => dot c v
  | Dual s t' => pair_chain t' (fwd s v)
  | _ => szero
  end.

Lemma bp_yp p c acc : bp (yp p) c acc = Some (add_at p c acc).
Proof.
  destruct p as [|i p] using rev_ind; [reflexivity|].
  pose proof (as_path_yp (p ++ [i])) as Hp.
  unfold yp in *. rewrite ppath_app in *. simpl in *. cbn [bp]. rewrite Hp. reflexivity.
Qed.

Lemma fol_bp s : fol s -> forall c acc, exists r, bp s c acc = Some r.
Proof.
  induction 1 as [p| |a b Ha IHa Hb IHb|a b Ha IHa Hb IHb|f q x Hq IHq]; intros c acc.
  - rewrite bp_yp. eauto.
  - eexists. reflexivity.
  - cbn [bp]. destruct (IHa c acc) as [r1 ->]. apply IHb.
  - cbn [bp]. destruct (nsplit c) as [c1 c2]. destruct (IHa c1 acc) as [r1 ->]. apply IHb.
  - cbn [bp]. rewrite as_num_num. apply IHq.
Qed.

Lemma steps_ctx F t t' : eframe_ok F -> steps t t' -> steps (efill F t) (efill F t').
Proof.
  intros HF. induction 1; [constructor|]. econstructor; [apply step_ctx; eassumption|assumption].
Qed.

Lemma steps_trans t t' t'' : steps t t' -> steps t' t'' -> steps t t''.
Proof. induction 1; auto. intros H'. econstructor; eauto. Qed.

(** Informal proof: by induction on the chain.  The innermost numeric dual
    is a value.  For [(λv.S)* · T], the induction hypothesis reduces [T]
    (in the context [(λv.S)* · []]) to a numeric dual [r′*] with
    [⟨r′, w⟩] equal to the forward pairing of [T] at every [w]; [bp]
    succeeds on the first-order linear body ([fol_bp]), so (5⁺) fires and
    gives [r*]; by [bp_transpose], [⟨r, v⟩ = ⟨r′, S(v)⟩], the forward
    pairing of the whole chain. *)
Lemma chain_reverse Γ t σ :
  chain t -> typed Γ t (TDual σ) ->
  exists r, steps t (NDual r) /\
            forall v, num_ty v σ -> dot r v = pair_chain t v.
Proof.
  intros Hc. revert σ. induction Hc as [c|s t Hs Hn Hc IH]; intros σ Ht.
  - exists c. split; [constructor|]. reflexivity.
  - inversion Ht; subst.
    match goal with H : typed (σ :: Γ) s ?τ |- _ => rename τ into τ; rename H into Hst end.
    match goal with H : typed Γ t (TDual τ) |- _ => rename H into Htt end.
    destruct (IH τ Htt) as (r' & Hsteps & Hr').
    assert (Hr't : num_ty r' τ).
    { pose proof (steps_typed _ _ _ _ Hsteps Htt) as H. inversion H; subst. assumption. }
    destruct (fol_bp s Hs r' NZ) as [r Hb].
    exists r. split.
    + eapply steps_trans; [apply (steps_ctx (EDualR s)); [exact I|exact Hsteps]|].
      econstructor; [apply step_bp; eassumption|constructor].
    + intros v Hv. simpl.
      destruct (bp_transpose sone Hsr fjac_adjoint s Γ r' NZ r σ τ v Hst Hr't (num_ty_z σ) Hv Hb)
        as [Hf Hd].
      rewrite Hd, dot_nz_l, Hr' by exact Hf. ring.
Qed.

End reverse_phase.

(** * Instances of the meaning of [rev handle] ([cmd_den.v])

    - [revh_pure]: a body without operations, [⌊M⌋], with the return clause
      [x ↦ ⌊x⌋] and no explicit clause, denotes the real reverse
      derivative of [M] at [⟦V⃗⟧] applied to [⟦M⟧] itself: the gradient of
      [½‖M‖²] ([revh_pure_grad]: for every reverse derivative [r] of [M]
      at the point, the answer flattened is [r(M(v))]).
    - [revh_op_default]: a body that only performs [Op(x)] with no clause
      for [Op] performs [Op] outwards (the default clause), at the same
      argument, once, and nothing else. *)
From Coq Require Import Reals Lra List Lia.
From Coquelicot Require Import Coquelicot.
From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas rd cmd_ctx cmd_sem instance.
From RevHandlers.Analysis Require Import vec sums prims denot rdden cmd_den.
Import ListNotations.
Open Scope R_scope.

#[local] Existing Instance Rsorts'.

Section examples.
Variables (decls : list (ty * ty)) (locs : list nat).
#[local] Instance Σe : signature := exec_signature Rvo decls locs.

Notation cden := (cden decls locs).

Lemma revh_pure ρ Vs M :
  let v := RNode (map (den ρ) Vs) in
  cden ρ (RevHandle (Tuple Vs) (Ret M) (Handler (Ret (Var 0)) CNil)) =
  CRet (rd_den (den (envof v) M) v (fun x => den (envof x) M)).
Proof. reflexivity. Qed.

Lemma revh_pure_grad ρ Vs M m r :
  let v := RNode (map (den ρ) Vs) in
  is_rev_deriv (length (rflat v)) m (fun y => rflat (den (envof (reshape v y)) M)) (rflat v) r ->
  length (rflat (den (envof v) M)) = m ->
  exists t, cden ρ (RevHandle (Tuple Vs) (Ret M) (Handler (Ret (Var 0)) CNil)) = CRet t /\
            rflat t = r (rflat (den (envof v) M)).
Proof.
  intros v Hr Hm. eexists. split; [apply revh_pure|].
  apply (rd_den_correct _ v (fun x => den (envof x) M) m r Hr Hm).
Qed.

(** No clause for [Op]: the operation goes outwards once, at [⟦V⟧]; the
    answer of the whole [rev handle] is then computed without any other
    operation. *)
Lemma revh_op_default ρ V o :
  exists k, cden ρ (RevHandle (Tuple [V]) (Op o (Var 0)) (Handler (Ret (Var 0)) CNil)) =
            CCall o (den ρ V) (fun y => CRet (k y)).
Proof. eexists. reflexivity. Qed.

End examples.

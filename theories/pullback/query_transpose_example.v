(** * [query_transpose] on the running example (Example 4.9)

    The query [((Ω λz. pow2(mult(g(z)))) · Ω[1]) ⟨1,3⟩ →* [660 528]*]
    ([query_660_528]) pairs with every tangent [v] as the forward tangent
    of the body does.  The forward tangent is computed by hand:
    [g(1,3) = ⟨2,11⟩] with [J g · v = ⟨v1, 2v1 + 6v2⟩]; [mult(2,11) = 22]
    with tangent [11·v1 + 2·(2v1 + 6v2) = 15v1 + 12v2]; [pow2(22) = 484]
    with tangent [44·(15v1 + 12v2) = 660v1 + 528v2]. *)
From Coq Require Import ZArith Ring_theory Ring.
From Pullback Require Import syntax typing reduction transpose examples query_transpose.
Open Scope Z_scope.

(** The forward semantics of the body agrees with the hand computation. *)
Example fwd_body_1_3 v1 v2 :
  fwd_at body (vec2 1 3) (vec2 v1 v2) = Some (NR 484, NR (660 * v1 + 528 * v2)).
Proof. cbn -[Z.mul Z.add]. do 3 f_equal. ring. Qed.

(** The whole query computes the transpose of that tangent map. *)
Example query_transpose_1_3 v1 v2 :
  dot (vec2 660 528) (vec2 v1 v2) = dot (NR 1) (NR (660 * v1 + 528 * v2)).
Proof.
  apply (query_transpose (Σ := zsig) 1%Z Zsr zjac_adjoint body (NR 1) (vec2 1 3) (vec2 660 528)
           (Rn 2) (vec2 v1 v2) (NR 484)).
  - exact query_typed.
  - exact query_660_528.
  - repeat constructor.
  - apply fwd_body_1_3.
Qed.

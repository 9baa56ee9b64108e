# Mak and Ong, Example 3.2 and Appendix A.2 (spec §10): the pullback of a
# 1-form along sum : List(R) → R with Church-encoded lists,
#
#   List(R) = (R ⇒ R ⇒ R) ⇒ R ⇒ R,   [x1, x2] = λf d. f x2 (f x1 d),
#   sum = λl. l (λx y. x + y) zero,
#
# at the list [1, −2] (the paper's digits are lost; spec §10 suggests these),
# with the 1-form Ω[1] = λz. [1]*.  The result is a linear functional on
# List(R) (a higher-order type: it is not a numeric dual); applied to a
# tangent list δ it gives Σ δᵢ, since sum is linear (Corollary 4.8(2)).
(
  (Ω λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l (λx:R. λy:R. x + y) zero)
    · (λz:R. [1]*)
) (λf:R ⇒ R ⇒ R. λd:R. f -2 (f 1 d))

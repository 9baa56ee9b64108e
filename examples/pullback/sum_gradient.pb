# The derivative of y ↦ sum [y1, y2·y2] at ⟨1, −2⟩, with sum of spec §10 on
# Church-encoded lists (a higher-order program with a first-order type
# R^2 → R): the gradient is [1, 2·y2] = [1, −4] (revhandlers pullback
# reference).
#
# The reduction rules do not reach it, and the checkers reject it as
# ill-formed (rule param_app_free, theories/pullback/wf.v; exit code 2):
# run, it would end stuck, faithfully to Fig. 3.  The list λf.λd. f (b·b) (f a d) depends on the point
# y = ⟨a, b⟩; its pullback is rule 20a, whose premise is rule 18 (D-curry),
# whose premise differentiates the body λd. f (b·b) (f a d) in y with f free.
# There, after 7/8, the application f (b·b) is ((Ω λy'. y'^π y'^π′) · ω′) V′
# with V′^π = f, a variable, not an abstraction: the stuck value of
# Remark 3.6 (19b/19c need the function).  The premise ends in that value,
# not in a dual map (λv.S)* · (ω′ V″), so 18, and then 20a, do not apply.
# The paper's own sum example (§10, Fig. 5) differentiates with respect to
# the list, whose function argument λxy.x+y is known; differentiating a
# closure that applies its own parameter to data depending on y is beyond
# the rules (the paper claims correctness, Theorem 4.6, not progress).
(
  (Ω λ⟨a, b⟩:R^2.
      (λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l (λx:R. λy:R. x + y) zero)
      (λf:R ⇒ R ⇒ R. λd:R. f (mul(b, b)) (f a d)))
    · (λz:R. [1]*)
) ⟨1, -2⟩

# The derivative of y ↦ sum [y1, y2·y2] at ⟨1, −2⟩, with sum of spec §10 on
# Church-encoded lists (a higher-order program with a first-order type
# R^2 → R): the gradient is [1, 2·y2] = [1, −4].
(
  (Ω λ⟨a, b⟩:R^2.
      (λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l (λx:R. λy:R. x + y) 0)
      (λf:R ⇒ R ⇒ R. λd:R. f (mul(b, b)) (f a d)))
    · (λz:R. [1]*)
) ⟨1, -2⟩

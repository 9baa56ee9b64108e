# theories/pullback/examples.v, ho_query (rule 19b, D-eval): the pullback of
# an application f x at the point ⟨f, x⟩ = ⟨λz. z², 3⟩.  The result is the
# linear functional ⟨δf, δx⟩ ↦ δf(3) + 6 δx on (R ⇒ R) × R.
((Ω λy:(R ⇒ R) × R. π1(y) π2(y)) · (λx:R. [1]*)) ⟨λz:R. sq(z), 3⟩

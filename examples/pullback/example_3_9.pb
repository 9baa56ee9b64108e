# Mak and Ong, Example 3.9 (spec §9.6, step 5; theories/pullback/examples.v,
# reverse_query): the reverse phase, the chain of dual maps D1 … D4 that the
# forward phase (Example 3.7) leaves at the point ⟨1, 3⟩, with intermediate
# values ⟨2, 11⟩ = g(1, 3) and 22 = 2 · 11, applied to [1]*:
#
#   D1 = (λv. ⟨v, v⟩)*                              v : R²
#   D2 = (λv. ⟨v, (J g · π2(v)) ⟨1,3⟩⟩)*            v : R² × R²
#   D3 = (λv. ⟨v, (J mult · π2(v)) ⟨2,11⟩⟩)*        v : (R² × R²) × R²
#   D4 = (λv. (J pow2 · π2(v)) 22)*                 v : ((R² × R²) × R²) × R
#
# With add, mul and sq for g, mult and pow2: J g(1,3) · w = ⟨w1, 2 w1 + 6 w2⟩
# is (J add · ⟨(J mul · ⟨zero, w1⟩) ⟨2, 1⟩, (J sq · w2) 3⟩) ⟨2, 9⟩ next to w1
# (zero is the zero term 0, linear in everything; a real 0 would not be linear).
# The result is [660, 528]*.
(λv:R^2. ⟨v, v⟩)* ·
(λv:R^2 × R^2.
    ⟨v, ⟨π1(π2(v)),
         (J add · ⟨(J mul · ⟨zero, π1(π2(v))⟩) ⟨2, 1⟩, (J sq · π2(π2(v))) 3⟩) ⟨2, 9⟩⟩⟩)* ·
(λv:(R^2 × R^2) × R^2. ⟨v, (J mul · π2(v)) ⟨2, 11⟩⟩)* ·
(λv:((R^2 × R^2) × R^2) × R. (J sq · π2(v)) 22)* ·
[1]*

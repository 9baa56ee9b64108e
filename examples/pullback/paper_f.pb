# Mak and Ong, Examples 3.1, 3.9 and 4.9 (spec §9.6): the reverse-mode query
#
#   ((Ω λ⟨x,y⟩. pow2(mult(g(⟨x,y⟩)))) · Ω[1]) ⟨1,3⟩  →*  [660 528]*
#
# for f(x, y) = ((x+1)(2x+y²))², with g(x, y) = ⟨x+1, 2x+y²⟩, mult(a, b) = a·b
# and pow2(a) = a².  The signature here has add, mul and sq, so g is written
# out; Ω[1] is the constant 1-form λz. [1]*.  The result is the gradient of f
# at ⟨1, 3⟩: [660, 528]* (f(1, 3) = 484).
(
  (Ω λ⟨x, y⟩:R^2. sq(mul(add(x, 1), add(mul(2, x), sq(y)))))
    · (λz:R. [1]*)
) ⟨1, 3⟩

# Mak and Ong, Example 3.3 (spec §4): the A-normal form of the body,
#
#   pow2(mult(g(⟨x,y⟩)))  →*A  let z1 = ⟨x,y⟩; z2 = g(z1); z3 = mult(z2); z4 = pow2(z3) in z4,
#
# here with g written out in the signature add, mul, sq (each let binds one
# elementary term), in the query of Example 4.9.  The let series means the same
# function, so the query gives [660, 528]* as paper_f.pb does.  An elementary
# pair pairs variables (E ::= ⟨z, z⟩), so the constants 1 and 2 are bound by
# lets of their own: with ⟨a, 1⟩ the body would not be a let series, and no
# rule applies to a pullback whose body is a let that is neither a let series
# nor an A-redex (A-contexts do not enter a let; progress.v asks pb_wf).
(
  (Ω λ⟨x, y⟩:R^2.
      let z1 = ⟨x, y⟩ in
      let a = π1(z1) in
      let b = π2(z1) in
      let one = 1 in
      let c = ⟨a, one⟩ in
      let d = add(c) in              # x + 1
      let two = 2 in
      let e = ⟨two, a⟩ in
      let h = mul(e) in              # 2x
      let k = sq(b) in               # y²
      let l = ⟨h, k⟩ in
      let m = add(l) in              # 2x + y²
      let z2 = ⟨d, m⟩ in             # g(⟨x, y⟩)
      let z3 = mul(z2) in            # mult(z2)
      let z4 = sq(z3) in             # pow2(z3)
      z4)
    · (λz:R. [1]*)
) ⟨1, 3⟩

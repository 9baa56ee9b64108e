; the query of Example 4.9 with its body written as lets that are not a let series:
; ⟨a, 1⟩ and ⟨2, a⟩ pair a constant, not an atom (E ::= ⟨z, z⟩), so the body is
; neither a let series nor an A-redex and it is not pb_wf: stuck (a named outcome)
(app (pullback (* R R) (let (pair (proj 1 (var 0)) (proj 2 (var 0))) (let (proj 1 (var 0)) (let (proj 2 (var 1)) (let (pair (var 1) 1.0) (let (fun add (var 0)) (let (pair 2.0 (var 3)) (let (fun mul (var 0)) (let (fun sq (var 4)) (let (pair (var 1) (var 0)) (let (fun add (var 0)) (let (pair (var 5) (var 0)) (let (fun mul (var 0)) (let (fun sq (var 0)) (var 0)))))))))))))) (lam R (ndual 1.0))) (pair 1.0 3.0))

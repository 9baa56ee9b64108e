; seeded from examples/pullback/paper_f.pb (the format `revhandlers pullback fuzz` writes)
; Mak and Ong, Examples 3.1, 3.9 and 4.9: f(x, y) = ((x+1)(2x+y²))² pulled back along
; Ω[1] = λz. [1]* at ⟨1, 3⟩ gives the gradient [660 528]*
(app (pullback (* R R) (fun sq (fun mul (pair (fun add (pair (proj 1 (var 0)) 1.0)) (fun add (pair (fun mul (pair 2.0 (proj 1 (var 0)))) (fun sq (proj 2 (var 0)))))))) (lam R (ndual 1.0))) (pair 1.0 3.0))

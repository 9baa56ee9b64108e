; seeded from examples/pullback/example_3_3.pb (the format `revhandlers pullback fuzz` writes)
; Mak and Ong, Example 3.3: the query of Example 4.9 with its body written as a let
; series (the constants bound by lets of their own): [660, 528]*
(app (pullback (* R R) (let (pair (proj 1 (var 0)) (proj 2 (var 0))) (let (proj 1 (var 0)) (let (proj 2 (var 1)) (let 1.0 (let (pair (var 2) (var 0)) (let (fun add (var 0)) (let 2.0 (let (pair (var 0) (var 5)) (let (fun mul (var 0)) (let (fun sq (var 6)) (let (pair (var 1) (var 0)) (let (fun add (var 0)) (let (pair (var 6) (var 0)) (let (fun mul (var 0)) (let (fun sq (var 0)) (var 0)))))))))))))))) (lam R (ndual 1.0))) (pair 1.0 3.0))

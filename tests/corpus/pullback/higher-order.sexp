; seeded from examples/pullback/higher_order.pb (the format `revhandlers pullback fuzz` writes)
; theories/pullback/examples.v, ho_query: the pullback of f x at ⟨λz. z², 3⟩, a
; functional on (R ⇒ R) × R (not numeric: not compared)
(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) (lam R (ndual 1.0))) (pair (lam R (fun sq (var 0))) 3.0))

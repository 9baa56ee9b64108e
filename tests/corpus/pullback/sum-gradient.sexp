; seeded from examples/pullback/sum_gradient.pb (the format `revhandlers pullback fuzz` writes)
; spec §10: sum of a Church-encoded list [y1, y2·y2] at ⟨1, −2⟩, gradient [1, −4]*
; (the reference's value; pullback-eval gets stuck on it, a named outcome: the premise of
; 18 inside 20a ends in the stuck value of Remark 3.6, f applied with f a free variable)
(app (pullback (* R R) (app (lam (-> (-> R (-> R R)) (-> R R)) (app (app (var 0) (lam R (lam R (+ (var 1) (var 0))))) zero)) (lam (-> R (-> R R)) (lam R (app (app (var 1) (fun mul (pair (proj 2 (var 2)) (proj 2 (var 2))))) (app (app (var 1) (proj 1 (var 2))) (var 0)))))) (lam R (ndual 1.0))) (pair 1.0 -2.0))

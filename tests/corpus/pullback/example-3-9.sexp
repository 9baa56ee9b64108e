; seeded from examples/pullback/example_3_9.pb (the format `revhandlers pullback fuzz` writes)
; Mak and Ong, Example 3.9: the reverse phase, a chain of dual maps applied to [1]*,
; gives [660 528]* (not a query: compared as a closed term of type (R^2)*)
(dual-map (* R R) (pair (var 0) (var 0)) (dual-map (* (* R R) (* R R)) (pair (var 0) (pair (proj 1 (proj 2 (var 0))) (app (jac add (pair (app (jac mul (pair zero (proj 1 (proj 2 (var 0))))) (pair 2.0 1.0)) (app (jac sq (proj 2 (proj 2 (var 0)))) 3.0))) (pair 2.0 9.0)))) (dual-map (* (* (* R R) (* R R)) (* R R)) (pair (var 0) (app (jac mul (proj 2 (var 0))) (pair 2.0 11.0))) (dual-map (* (* (* (* R R) (* R R)) (* R R)) R) (app (jac sq (proj 2 (var 0))) 22.0) (ndual 1.0)))))

; found by `revhandlers pullback fuzz --seed 1`, shrunk by Hypothesis
; the Coq checker (pullback-eval) rejects a query the Python checker types as R* (the term has no type (the checker of theories/pullback/infer.v rejects it; 0 and (ndual ...) with zero entries need a type from their context)): (app (pullback R (+ (pair (var 0) (var 0)) (let zero (pair (var 0) (var 0)))) (lam (* R R) (ndual (1.0 1.0)))) 0.0)
(app (pullback R (+ (pair (var 0) (var 0)) (let zero (pair (var 0) (var 0)))) (lam (* R R) (ndual (1.0 1.0)))) 0.0)

; the gradient of (x + y^2)^3 at (2, 3) is (363, 2178)
(case (expr (^ (+ x (^ y 2)) 3)) (vars x y) (at 2 3) (order 1))

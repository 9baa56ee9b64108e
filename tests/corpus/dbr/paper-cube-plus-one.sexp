; the paper's Figure 2: (x+1)^3 at 4, third derivative 6 (125, 75, 30, 6)
(case (expr (^ (+ x 1) 3)) (vars x) (at 4) (order 3))

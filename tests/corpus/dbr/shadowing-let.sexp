; a let that shadows the variable, at a negative rational point
(case (expr (let a (* x x) (let x (+ a x) (* x (^ a 3))))) (vars x) (at -7/3) (order 2))

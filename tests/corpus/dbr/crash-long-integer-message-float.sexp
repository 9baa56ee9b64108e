; found by `revhandlers dbr fuzz --seed 15001`, shrunk by Hypothesis
; crash: ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit
(case (expr (^ (^ (^ (^ x 3) 4) 5) 5)) (vars x) (at 0.907131895567126) (order 0))

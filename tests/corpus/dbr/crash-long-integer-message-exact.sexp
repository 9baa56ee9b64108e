; found by `revhandlers dbr fuzz --seed 15000`, shrunk by Hypothesis
; crash: ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit
(case (expr (^ (^ (^ (^ (^ 100000000000000000000 2) 3) 3) 3) 4)) (vars x) (at 0) (order 0))

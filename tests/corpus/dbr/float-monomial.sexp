; x^64 by fast exponentiation in floats (every digit of 64 but the last is 0)
(case (expr (^ x 64)) (vars x) (at 1.0625) (order 1))

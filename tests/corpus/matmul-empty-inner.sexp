; an m×0 matrix times a 0×k matrix is the m×k zero matrix (the instance's matmul once returned
; an empty vector here, cutting a 0-column matrix into no rows)
(program (main (ret (tuple (app (matmul 2 0 3) (tuple (const) (const)))
                            (rd (const 1.0 2.0 3.0 4.0 5.0 6.0) x (app (matmul 2 0 3) (tuple x (const))) (const))))))

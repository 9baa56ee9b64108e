; rd of a body that contains rd of the outer variable (R-Rd, R-VarO, rd[rd[f]])
(program
 (main
  (ret (rd (const 1.0) a
           (rd (const 2.0) b (app (smul 1) (tuple a (app (swish 1) b))) a)
           (const 0.7)))))

; The one-layer example of the paper's §5.2 (spec §9.5):
;   rev handle(<v>)<x>. FC[l](x) with H_MLP,   l :: (2, 3)
; Its first step rewrites it to the let-chain the paper prints
; (rh-eval --trace examples/sexp/one_layer.sexp).
(program
 (ops (FC (real 2) (real 3)))
 (locs (l (2 3)))
 (heap (l (1.0 2.0 3.0 4.0 5.0 6.0)))
 (main
  (revhandle (tuple (const 0.5 -1.0)) (x)
   (op FC x)
   (handler
    (return x (ret (app (smul 3) (tuple (const 0.1) (app (sub 3) (tuple x (const 1.0 0.0 0.0)))))))
    (clause FC (prod (real 6) (real 2))
     (x (let w (op (get l) (const))
          (ret (tuple (app (matmul 3 2 1) (tuple w x)) (tuple w x)))))
     (y z (let u (op (put l) (app (sub 6) (tuple (proj 0 z)
                                                  (app (matmul 3 1 2) (tuple y (app (transpose 2 1) (proj 1 z)))))))
            (ret (app (matmul 2 3 1) (tuple (app (transpose 3 2) (proj 0 z)) y))))))))))

; One training step of the paper's MLP with swish (§2, §4.1, §5.3; spec §9.1):
;   R_MLP = let x1 <= FC[l0](x_in) in FC[l1](swish(x1))
;   rev handle(<v>)<x_in>. R_MLP with H_train
; with l0 :: (3, 4), l1 :: (4, 2), learning rate alpha = 0.05 and target t.
; The final heap holds
;   l1 := m1 - alpha (m1 v1 - t) v1^T,   l0 := m0 - u'_1 v^T
; where v1 = swish(m0 v) and u'_1 = rd[swish](m0 v, m1^T alpha (m1 v1 - t)).
(program
 (ops (FC0 (real 3) (real 4))
      (FC1 (real 4) (real 2)))
 (locs (l0 (3 4))
       (l1 (4 2)))
 (heap (l0 (0.2 -0.1 0.4  0.3 0.5 -0.2  -0.6 0.1 0.2  0.05 -0.3 0.7))
       (l1 (0.3 -0.4 0.2 0.1  -0.5 0.6 0.25 -0.15)))
 (main
  (revhandle (tuple (const 1.0 -0.5 2.0)) (x_in)
   (let x1 (op FC0 x_in)
     (op FC1 (app (swish 4) x1)))
   (handler
    (return x (ret (app (smul 2) (tuple (const 0.05) (app (sub 2) (tuple x (const 0.5 -1.0)))))))
    (clause FC0 (prod (real 12) (real 3))
     (x (let w (op (get l0) (const))
          (ret (tuple (app (matmul 4 3 1) (tuple w x)) (tuple w x)))))
     (y z (let u (op (put l0) (app (sub 12) (tuple (proj 0 z)
                                                   (app (matmul 4 1 3) (tuple y (app (transpose 3 1) (proj 1 z)))))))
            (ret (app (matmul 3 4 1) (tuple (app (transpose 4 3) (proj 0 z)) y))))))
    (clause FC1 (prod (real 8) (real 4))
     (x (let w (op (get l1) (const))
          (ret (tuple (app (matmul 2 4 1) (tuple w x)) (tuple w x)))))
     (y z (let u (op (put l1) (app (sub 8) (tuple (proj 0 z)
                                                  (app (matmul 2 1 4) (tuple y (app (transpose 4 1) (proj 1 z)))))))
            (ret (app (matmul 4 2 1) (tuple (app (transpose 2 4) (proj 0 z)) y))))))))))

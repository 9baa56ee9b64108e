; a rev handle inside a rev handle: the inner handler has no clause for Op0,
; so its default clause performs Op0 again outside, where the outer handler's
; clause (which reads and writes l0) takes it; the cotangent flows back through both
(program
 (ops (Op0 (real 1) (real 1)))
 (locs (l0 (1)))
 (heap (l0 (0.5)))
 (main
  (revhandle (tuple (const 2.0)) (x0)
   (let v1 (revhandle (tuple x0) (y0) (op Op0 (app (swish 1) y0)) (handler (return r (ret r))))
     (ret (add (proj 0 v1) x0)))
   (handler
    (return r (ret (app (smul 1) (tuple (const 3.0) r))))
    (clause Op0 (real 1)
     (x (let w (op (get l0) (const)) (ret (tuple (app (smul 1) (tuple w x)) x))))
     (y z (let w (op (get l0) (const))
            (let u (op (put l0) (app (sub 1) (tuple w (app (smul 1) (tuple y z)))))
              (ret (app (smul 1) (tuple w y)))))))))))

; found by `revhandlers fuzz --seed 0` (with a mutated reference, but the divergence was in the
; evaluator): rd[pad[1,2,0]] must give a channel of 2 zeros from a channel of length 0; the
; instance's pad cut an empty signal into no channels at all (Ev then failed on rd[swish 2])
(program (main (ret (rd (const) v0 (app (pad 1 2 0) (app (swish 2) (const 0.0 0.0))) (const)))))

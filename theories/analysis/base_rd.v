(** * The libraries the files on the soundness of the [rd] step start from

    [rdsound_all.v], [rdsound_eval.v], [rdsound_lin.v] and [rdsound_on.v]
    read the calculus's terms, typing, rewriting and term semantics, the
    real model up to [rdsound.v], and the sorts [Rsorts4] of [rdsound.v];
    they import [base_rd] and their own neighbours. *)
From Coq Require Export Reals Lra List Lia.
From Coquelicot Require Export Coquelicot.
From RevHandlers Require Export prelude signature syntax subst typing typing_lemmas rd rdr_rel rd_bound term_sem instance normalization tactics.
From RevHandlers.Analysis Require Export vec templates sums prims ev denot rdden rdprim rdcalc level2 tmclosed rdsound.
Export ListNotations.

#[export] Existing Instance Rsorts4.

(** * The libraries every file of the real model starts from

    Coq's real numbers and lists, Coquelicot, and the calculus's prelude,
    signature and executable instance; the files that need only these
    import [base] and their own neighbours. *)
From Coq Require Export Reals Lra List Lia.
From Coquelicot Require Export Coquelicot.
From RevHandlers Require Export prelude signature instance.
Export ListNotations.

"""The main calculus: reverse handlers for arrows (``theories/rh``).

Its modules have the roles the other systems' modules of the same names
have: :mod:`.syntax`, :mod:`.surface`, :mod:`.sexp`, :mod:`.typecheck`,
:mod:`.engine` (the ``rh-eval`` process), :mod:`.reference`, :mod:`.gen`,
:mod:`.campaign` (``revhandlers fuzz``) and :mod:`.command`; the others are
named for what they do (:mod:`.session`, :mod:`.train`, :mod:`.diagram`,
:mod:`.fmt`, :mod:`.printer`, :mod:`.prims`, …).  The public API is
re-exported by :mod:`revhandlers`."""

"""Mak and Ong's differential-form pullback language (*A Differential-form
Pullback Programming Language for Higher-order Reverse-mode Automatic
Differentiation*, arXiv:2002.08241), whose Coq theory is
``theories/pullback`` and whose spec is ``spec/pullback.md``.

* :mod:`.syntax`: the abstract syntax, mirroring the Coq ``tm`` (with binder
  types), and the function symbols;
* :mod:`.surface`: the paper-like surface syntax (:func:`parse`,
  :func:`pretty`, Unicode or ASCII);
* :mod:`.fmt`: ``revhandlers pullback fmt``, the surface syntax laid out
  again keeping its comments (on :class:`revhandlers.layout.Layout`);
* :mod:`.sexp`: the S-expression format of the extracted driver
  (:func:`to_sexp`, :func:`from_sexp`, requests and answers);
* :mod:`.typecheck`: the typing rules of ``typing.v``, with linearity;
* :mod:`.reference`: an independent numpy reference (the denotational
  semantics with forward-mode dual numbers, and the meaning of a pullback
  query as a transposed Jacobian), which never uses the pullback reductions;
* :mod:`.gen`: Hypothesis generators of terms and of well-typed programs;
* :mod:`.engine`: the extracted driver ``pullback-eval`` from Python
  (:class:`~.engine.PullbackEvaluator`, ``run``, ``check``, ``trace``);
* :mod:`.campaign`: ``revhandlers pullback fuzz``, pullback-eval against the
  reference on generated queries;
* :mod:`.command`: ``revhandlers pullback``.
"""

from __future__ import annotations

from .sexp import from_sexp, read_answer, read_request, request_sexp, to_sexp
from .surface import parse, parse_type, pretty, pretty_type
from .syntax import (FUNCTIONS, NP, NR, NZ, TR, App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, R, Real, Rn,
                     TArr, TDual, TOmega, TProd, Var, Zero)
from .typecheck import type_of

__all__ = ["parse", "parse_type", "pretty", "pretty_type", "to_sexp", "from_sexp", "request_sexp", "read_request",
           "read_answer", "type_of", "FUNCTIONS", "R", "Rn", "TOmega", "TR", "TProd", "TArr", "TDual",
           "NR", "NP", "NZ", "Var", "Lam", "App", "Proj", "Pair", "Real", "Fun", "Jac", "Dual", "Pb", "NDual", "Zero",
           "Plus", "Let"]

"""Applying a primitive of the instance through ``rh-eval --serve``: the
helpers shared by the tests of the primitives (``test_primitives.py``,
``test_real_derivatives.py``)."""

from __future__ import annotations

import subprocess

import numpy as np
import sexpdata

from revhandlers.paths import rh_eval_path


class Serve:
    def __init__(self):
        self.proc = subprocess.Popen([str(rh_eval_path()), "--serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)

    def ask(self, line: str) -> str:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def fmt(x: float) -> str:
    return repr(float(x))


def value_sexp(v) -> str:
    """A nested structure of 1-D arrays as a value S-expression."""
    if isinstance(v, np.ndarray):
        return "(const " + " ".join(fmt(x) for x in v) + ")"
    return "(tuple " + " ".join(value_sexp(x) for x in v) + ")"


def leaves(sexp) -> list[np.ndarray]:
    head = sexp[0].value()
    if head == "const":
        return [np.array(sexp[1:], dtype=float)]
    return [leaf for item in sexp[1:] for leaf in leaves(item)]


def apply(serve: Serve, fsym: str, arg) -> list[np.ndarray]:
    prog = f"(program (main (ret (app {fsym} {value_sexp(arg)}))))"
    out = sexpdata.loads(serve.ask(prog))
    assert out[0].value() == "result", out
    return leaves(out[1][1])


def rd(fsym: str, k: int) -> str:
    for _ in range(k):
        fsym = f"(rd {fsym})"
    return fsym

"""The `rd` step on both sides of `rd²` (theories/analysis/rdsound_all.v).

`rd_step_sound_all` covers every body in which a primitive `rd^k[p]` under
`j` enclosing `rd`s has `k + j < b`, for every budget `b`.  Within `rd²`
(`k + j ≤ 1`) the instance's `Ev` runs the hand-written kernels; past it the
rewriting applies `rd³[p]`, which `Ev` computes with the core
(theories/rh/rdcore.v: the forward map differentiated three times; over ℝ
`ev_core` and `ev_rdk_correct` in theories/analysis/rdcore_ev.v, and the
instance `rd_eval_den_depth3`).  Here both sides are run through
`rh-eval` on binary64; the values on both sides are compared with sympy's
exact derivative of the body.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import sexpdata
import sympy as sp

from revhandlers.paths import rh_eval_path

POINT, COT = (0.7, 1.3), (0.5, -0.25)


def run(term: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(rh_eval_path())], input=f"(program (main (ret {term})))",
                          capture_output=True, text=True, timeout=60)


def outer(body: str) -> str:
    """`W.rd(x.body)(V)` at the point and cotangent above."""
    return f"(rd (const {COT[0]} {COT[1]}) x {body} (const {POINT[0]} {POINT[1]}))"


def expected() -> np.ndarray:
    """`W ⊙ d/dx [x · swish'(x)]`, coordinate by coordinate, by sympy."""
    x = sp.Symbol("x", real=True)
    d = sp.diff(x * sp.diff(x / (1 + sp.exp(-x)), x), x)
    return np.array([float(sp.N(w * d.subs(x, v), 30)) for w, v in zip(COT, POINT)])


def expected_beyond() -> np.ndarray:
    """`W ⊙ d/dx [x · d/dx (x · swish'(x))]`, by sympy: the inner body
    `y ↦ y · swish'(y)` differentiated once more at cotangent `x`."""
    x = sp.Symbol("x", real=True)
    inner = x * sp.diff(x / (1 + sp.exp(-x)), x)
    d = sp.diff(x * sp.diff(inner, x), x)
    return np.array([float(sp.N(w * d.subs(x, v), 30)) for w, v in zip(COT, POINT)])


#: bodies within `rd²`: `rd[swish]` applied in the body (k = 1, j = 0), and
#: `swish` under one inner `rd` (k = 0, j = 1); both denote x ↦ x · swish'(x)
WITHIN = {
    "rd[swish] in the body": "(app (rd (swish 2)) (tuple x x))",
    "swish under one rd": "(rd x y (app (swish 2) y) x)",
}

#: bodies whose rewriting applies `rd³[swish]`
BEYOND = {
    "swish under two rds": "(rd x y (rd y z (app (swish 2) z) y) x)",
    "rd[swish] under one rd": "(rd x y (app (rd (swish 2)) (tuple y y)) x)",
}


#: each body with the derivative it must give and the tolerance: `rd³`
#: computed by the core rounds a little more than `rd²`
CASES = ([pytest.param(WITHIN[name], expected, 1e-12, id=f"within rd2: {name}") for name in sorted(WITHIN)]
         + [pytest.param(BEYOND[name], expected_beyond, 1e-10, id=f"beyond rd2 (rd3): {name}")
            for name in sorted(BEYOND)])


@pytest.mark.parametrize("body, derivative, rtol", CASES)
def test_the_step_runs_and_gives_the_real_derivative(body, derivative, rtol):
    out = run(outer(body))
    assert out.returncode == 0, out.stdout + out.stderr
    answer = sexpdata.loads(out.stdout)
    value = np.array(answer[1][1][1:], dtype=float)
    np.testing.assert_allclose(value, derivative(), rtol=rtol, atol=1e-12)

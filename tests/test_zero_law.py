"""The structural zero cotangent is −0.0 (docs/decisions.md, "The
structural zero cotangent is -0.0"): the zero law `x + 0 = x ∧ 0 + x = x`
that `tape_rh4.v`'s `run_fast4_correct` takes as a hypothesis, checked bit
for bit for the scalars (`float_ops`: `s_czero`, `s_add`), the float-array
kernels (`v_czero`, `v_add`) and the extracted list model, by `vec_check`
on every special value (signed zeros, infinities, subnormals, the
extremes) and random bit patterns of both signs; NaN is left out (IEEE 754
does not fix the payload or sign of the NaN a sum returns).  Then the
visible effect: a cotangent nothing flows into prints ``-0.0`` in
``rh-eval``, and the numpy reference agrees."""

from __future__ import annotations

import math
import struct
import subprocess

import numpy as np
import pytest

from revhandlers.paths import build_dir, rh_eval_path
from revhandlers.rh import reference
from revhandlers.rh.sexp import parse_program

VEC_CHECK = build_dir() / "extracted" / "vec_check.exe"


def bits(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


SPECIAL = [0.0, -0.0, math.inf, -math.inf, 5e-324, -5e-324, 2.2250738585072009e-308, -2.2250738585072009e-308,
           2.2250738585072014e-308, -2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
           1.0, -1.0, 0.5, -2.5]


@pytest.mark.parametrize("x", SPECIAL, ids=repr)
def test_negative_zero_is_an_identity_and_positive_zero_is_not(x):
    """The IEEE fact itself, in the host's binary64 (an independent
    computation of what vec_check must find): ``x + (-0.0)`` and
    ``(-0.0) + x`` are ``x``'s bits."""
    assert bits(x + -0.0) == bits(x) and bits(-0.0 + x) == bits(x)
    assert bits(0.0 + -0.0) == bits(0.0) != bits(-0.0)       # +0.0 is no identity


@pytest.mark.parametrize("seed", [1, 28])
def test_zero_law_of_scalars_kernels_and_list_model(seed):
    assert VEC_CHECK.exists(), f"{VEC_CHECK} is missing: build extracted/vec_check.exe"
    out = subprocess.run([str(VEC_CHECK), "1", str(seed)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    line = [x for x in out.stdout.splitlines() if "zero law" in x]
    assert line and "-0.0 a two-sided identity bit for bit" in line[0], out.stdout
    assert int(line[0].split()[4]) >= 10_000 + len(SPECIAL)


# A cotangent nothing flows into: the derivative of x ↦ 5 at 2, and the
# cotangent of the unused component y of a handled body's input.
UNUSED_RD = "(program (main (ret (rd (const 1.0 2.0) x (const 5.0 6.0) (const 2.0)))))"
UNUSED_INPUT = """
(program
 (ops (F (real 1) (real 1)))
 (main
  (revhandle (tuple (const 3.0) (const 4.0)) (x y)
   (op F x)
   (handler
    (return r (ret (const 1.0)))
    (clause F (prod (real 1))
     (x (ret (tuple (app (smul 1) (tuple (const 2.0) x)) (tuple x))))
     (y z (ret (app (smul 1) (tuple (const 2.0) y)))))))))
"""


def rh_eval(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(rh_eval_path()), *args], input=stdin, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("flags", [[], ["--machine"], ["--small-step"], ["--list-vectors"]])
def test_a_structural_zero_prints_negative_zero(flags):
    out = rh_eval(*flags, stdin=UNUSED_RD)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "(value (const -0.0))" in out.stdout, out.stdout


@pytest.mark.parametrize("source", [UNUSED_RD, UNUSED_INPUT], ids=["rd", "rev-handle"])
def test_the_reference_puts_negative_zero_where_the_semantics_does(source):
    value = reference.run_reference(parse_program(source)).value
    leaves = []

    def walk(v):
        if isinstance(v, np.ndarray):
            leaves.extend(v.tolist())
        else:
            for x in v:
                walk(x)

    walk(value)
    negative_zeros = [x for x in leaves if x == 0.0 and math.copysign(1.0, x) < 0]
    assert negative_zeros, f"no -0.0 in the reference's value {value!r}"

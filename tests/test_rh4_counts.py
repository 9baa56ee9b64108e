"""The semantics' additions on an MLP-like chain are quadratic in its depth
(docs/decisions.md, "RH-4 levels of the MLP chains"): the counts of the
rules fired (`rh-eval --coverage`, the small-step semantics) against the
counts derived from the shapes `RH` produces.

A chain of L layers `FC[l_i](swish(x_i))` in one `rev handle` has L RH-2
levels (the operations, at m = 1, 3, …, 2L − 1 variables in scope) and
L − 1 RH-4 levels (the terms `swish(x_i)`, at m = 2, 4, …, 2L − 2).  An
RH-2 level adds once; an RH-4 level adds m times (`<y'_i + y''_i>_i`),
and `rd` fires once there.  So `head_step_tm_add` fires
L + Σ_{i<L} 2i = L² times and `head_step_tm_rd` L − 1 times: these
numbers come from the rewriting's definition, not from a run."""

from __future__ import annotations

import pytest

import revhandlers as rh
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.families import mlp_chain_source


def chain_text(L: int, n: int = 2) -> str:
    """The chain of bench/training_step.py (`chain_program`), width n."""
    return mlp_chain_source(L, n)


@pytest.fixture(scope="module")
def ev():
    e = VerifiedEvaluator()
    yield e
    e.close()


@pytest.mark.parametrize("L", [2, 3, 5, 8, 16])
def test_additions_are_quadratic_in_the_depth(ev, L):
    counts, outcome = ev.coverage(rh.parse(chain_text(L)))
    assert not isinstance(outcome, Exception), outcome
    assert counts.get("head_step_tm_add", 0) == L * L, counts
    assert counts.get("head_step_tm_rd", 0) == L - 1, counts
    assert counts.get("rh_op", 0) == L and counts.get("rh_term", 0) == L - 1, counts

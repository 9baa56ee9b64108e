"""The heap a program starts from in training and in sessions: which
locations are drawn at random, from which seed, and the program's digest
that a checkpoint or snapshot records."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Iterable

import numpy as np

from ..errors import BadInput
from .sexp import program_sexp
from .syntax import CCons, OpGet, Program

IO = ("input", "target", "lr", "output")


@dataclass(frozen=True)
class Layout:
    """What a trainable program declares: the sample's locations ``input``
    (its size the data's inputs), ``target`` (the classes), ``lr`` (one
    number) and ``output`` (the network's output, like ``target``); every
    other location is training state, carried from sample to sample."""
    n_in: int
    n_out: int
    state: tuple[str, ...]
    layers: tuple[int, ...]       # the widths read off the weight matrices, e.g. (64, 32, 10)


def layout(prog: Program, n_in: int = 64, n_out: int = 10) -> Layout:
    """The program's :class:`Layout`, or a :class:`BadInput` saying what is missing."""
    decls = {d.name: d for d in prog.locs}
    for name in IO:
        if name not in decls:
            raise BadInput("unbound", f"a trainable program declares location {name} (see examples/mlp.rh)")
    if decls["input"].size != n_in or decls["target"].size != n_out:
        raise BadInput("shape", f"the digits have {n_in} inputs and {n_out} classes; the program has "
                                f"{decls['input'].size} and {decls['target'].size}")
    if decls["output"].size != n_out:
        raise BadInput("shape", f"location output holds {decls['output'].size} numbers, the target {n_out}")
    if decls["lr"].size != 1:
        raise BadInput("shape", f"location lr holds {decls['lr'].size} numbers, a learning rate is one")
    state = tuple(d.name for d in prog.locs if d.name not in IO)
    mats = [decls[n].shape for n in state if len(decls[n].shape) == 2]
    layers = (mats[0][0],) + tuple(b for _, b in mats) if mats else (n_in, n_out)
    return Layout(n_in, n_out, state, layers)


def _nodes(node):
    """Every AST node under ``node`` (itself included)."""
    yield node
    for name in getattr(node, "__dataclass_fields__", {}):
        v = getattr(node, name)
        for c in (v if isinstance(v, tuple) else (v,)):
            if hasattr(c, "__dataclass_fields__"):
                yield from _nodes(c)


def forward_reads(prog: Program) -> set[str]:
    """The locations some handler's forward clause reads (``Get[l]`` in an
    ``x ↦ Q^f``): the weights of an operation, as ``H_train`` reads them."""
    return {n.loc for c in _nodes(prog.main) if isinstance(c, CCons) for n in _nodes(c.fwd) if isinstance(n, OpGet)}


def random_locations(prog: Program) -> list[str]:
    """The locations :func:`initial_heap` draws at random, in declaration
    order: two-dimensional, read by a forward clause, without a ``heap``
    entry."""
    reads, declared = forward_reads(prog), dict(prog.heap)
    return [d.name for d in prog.locs if len(d.shape) == 2 and d.name in reads and d.name not in declared]


def initial_heap(prog: Program, seed: int = 0, given: dict | None = None,
                 names: Iterable[str] | None = None) -> dict[str, np.ndarray]:
    """The heap ``revhandlers train --seed S`` starts from, for every
    location (or those in ``names``): each of :func:`random_locations`, of
    shape ``(a, b)``, drawn from N(0, 1/sqrt(a)) by ``default_rng(seed)`` in
    declaration order (whether or not ``given`` replaces it, so the others do
    not depend on it); any other location holds the program's ``heap`` entry
    if it has one, else zeros; ``given`` (e.g. from ``--load``) overrides
    both."""
    decls = {d.name: d for d in prog.locs}
    declared = dict(prog.heap)
    rng = np.random.default_rng(seed)
    drawn = {name: rng.normal(0.0, 1.0 / math.sqrt(decls[name].shape[0]), decls[name].size)
             for name in random_locations(prog)}
    wanted = list(decls) if names is None else list(names)
    state = {}
    for name in wanted:
        if name in drawn:
            state[name] = drawn[name]
        elif name in declared:
            state[name] = np.array(declared[name], dtype=float)
        else:
            state[name] = np.zeros(decls[name].size)
    for name, values in (given or {}).items():
        if name not in wanted:
            if name in decls:
                continue
            raise BadInput("unbound", f"the initial values name location {name!r}, which the program does not declare")
        a = np.asarray(values, dtype=float).reshape(-1)
        if a.size != decls[name].size:
            raise BadInput("shape", f"the initial values of {name!r} have {a.size} numbers, "
                                    f"the location holds {decls[name].size}")
        state[name] = a
    return state


def initial_state(prog: Program, lay: Layout, seed: int = 0, given: dict | None = None) -> dict[str, np.ndarray]:
    """The training state before training: :func:`initial_heap` of the
    state locations."""
    return initial_heap(prog, seed, given, names=lay.state)


def describe_init(prog: Program, given: dict | None = None) -> str:
    """One line naming each location drawn at random (the rule of
    :func:`initial_heap`), so that none is initialised silently."""
    drawn = [n for n in random_locations(prog) if n not in (given or {})]
    if not drawn:
        return "initial heap: no location drawn at random (heap entries, or zeros)"
    shapes = {d.name: d.shape for d in prog.locs}
    names = ", ".join(f"{n} {shapes[n]}" for n in drawn)
    return (f"initial heap: {names} drawn at random from N(0, 1/sqrt(a)) (two-dimensional, read by a forward "
            f"clause, no heap entry); every other location at its heap entry or zero")


def program_digest(prog: Program) -> str:
    return hashlib.sha256(program_sexp(prog).encode()).hexdigest()[:16]

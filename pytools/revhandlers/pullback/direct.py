"""The strategies of :mod:`.gen`, drawn directly from a ``random.Random``:
the fast path of ``revhandlers pullback fuzz``.

Drawing through Hypothesis costs about 5 ms of CPU per query (its engine,
the choice sequence kept for shrinking, the mutations), twenty times what
pullback-eval spends on the query (``bench/pullback_campaign_rate.py``).
:mod:`.gen` is written once, against the part of Hypothesis's strategy API
listed here; :data:`gen` is the same source loaded a second time with
``st`` bound to this module, whose strategies are plain functions of a
``random.Random``: the same constructors, shapes and budgets, with uniform
choices (Hypothesis's distribution differs in its biases), no shrinking
and no database.  Query ``i`` of a campaign of seed ``s`` is drawn from
``random.Random(f"{s}/{i}")``, so it is reproducible alone
(:func:`draw_case`)."""

from __future__ import annotations

import math
import random
import struct
import sys
import types as _types
from pathlib import Path


class SearchStrategy:
    """A strategy: a function of a ``random.Random``."""

    def __init__(self, fn):
        self.fn = fn

    def __class_getitem__(cls, item):
        return cls

    def example_from(self, rng: random.Random):
        return self.fn(rng)

    def map(self, f) -> SearchStrategy:
        return SearchStrategy(lambda r: f(self.fn(r)))

    def flatmap(self, f) -> SearchStrategy:
        return SearchStrategy(lambda r: f(self.fn(r)).fn(r))


def just(x) -> SearchStrategy:
    return SearchStrategy(lambda r: x)


def none() -> SearchStrategy:
    return just(None)


def booleans() -> SearchStrategy:
    return SearchStrategy(lambda r: r.random() < 0.5)


def integers(min_value: int, max_value: int) -> SearchStrategy:
    return SearchStrategy(lambda r: r.randint(min_value, max_value))


def sampled_from(options) -> SearchStrategy:
    options = tuple(options)
    return SearchStrategy(lambda r: options[r.randrange(len(options))])


def one_of(*strategies) -> SearchStrategy:
    if len(strategies) == 1 and not isinstance(strategies[0], SearchStrategy):
        strategies = tuple(strategies[0])
    return SearchStrategy(lambda r: strategies[r.randrange(len(strategies))].fn(r))


def builds(target, *args: SearchStrategy) -> SearchStrategy:
    return SearchStrategy(lambda r: target(*(a.fn(r) for a in args)))


def deferred(thunk) -> SearchStrategy:
    cell: list = []

    def fn(r):
        if not cell:
            cell.append(thunk())
        return cell[0].fn(r)
    return SearchStrategy(fn)


def lists(elements: SearchStrategy, min_size: int = 0, max_size: int | None = None) -> SearchStrategy:
    top = min_size + 4 if max_size is None else max_size
    return SearchStrategy(lambda r: [elements.fn(r) for _ in range(r.randint(min_size, top))])


#: finite floats of every kind, as Hypothesis draws them: special values, then any bit pattern
_SPECIAL = (0.0, -0.0, 1.0, -1.0, 0.5, 1e-308, 5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308,
            1e300, -1e300, 1e-5, 3.0)


def _float(r: random.Random) -> float:
    if r.random() < 0.3:
        return _SPECIAL[r.randrange(len(_SPECIAL))]
    while True:
        x = struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0]
        if math.isfinite(x):
            return x


def floats(allow_nan: bool = False, allow_infinity: bool = False) -> SearchStrategy:
    assert not allow_nan and not allow_infinity
    return SearchStrategy(_float)


def recursive(base: SearchStrategy, extend, max_leaves: int = 100) -> SearchStrategy:
    """``base``, or ``extend`` applied up to ``log2(max_leaves)`` times."""
    level = base
    for _ in range(max(1, int(math.log2(max(max_leaves, 2))))):
        level = one_of(base, extend(level))
    return level


def composite(f):
    def strategy(*args, **kwargs) -> SearchStrategy:
        return SearchStrategy(lambda r: f(lambda s: s.fn(r), *args, **kwargs))
    strategy.__name__ = f.__name__
    strategy.__doc__ = f.__doc__
    return strategy


def _load_gen():
    """:mod:`.gen`'s source, loaded as ``revhandlers.pullback.gen_direct``
    with ``st`` this module."""
    src = Path(__file__).with_name("gen.py").read_text(encoding="utf-8")
    line = "from hypothesis import strategies as st\n"
    if src.count(line) != 1:
        raise ImportError("gen.py no longer imports hypothesis.strategies as st once")
    name = __name__.rsplit(".", 1)[0] + ".gen_direct"
    mod = _types.ModuleType(name, "gen.py drawn directly from random.Random (direct.py)")
    mod.__package__ = __name__.rsplit(".", 1)[0]
    mod.__file__ = str(Path(__file__).with_name("gen.py"))
    sys.modules[name] = mod
    exec(compile(src.replace(line, f"from {__name__} import _ST as st\n"), mod.__file__, "exec"), mod.__dict__)
    return mod


_ST = sys.modules[__name__]
gen = _load_gen()


def draw_case(strategy: SearchStrategy, seed: int, index: int):
    """Case ``index`` of a campaign of ``seed``."""
    return strategy.fn(random.Random(f"{seed}/{index}"))

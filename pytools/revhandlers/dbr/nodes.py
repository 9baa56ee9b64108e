"""The nodes of the reverse modes (the paper's ``t = O | I | Var of {v;
mutable d}``): the constants ``O`` and ``I``, and variables holding a
value and an adjoint, initially ``zero``."""

from __future__ import annotations

from .dictionary import Dictionary


class Const:
    """``O`` or ``I``: a constant, whose adjoint is never wanted."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


O = Const("O")
I = Const("I")


class Var:
    """A node made by the differentiator: its value and its adjoint."""

    __slots__ = ("v", "d")

    def __init__(self, v, d):
        self.v = v
        self.d = d

    def __repr__(self) -> str:
        return f"Var({self.v!r}, {self.d!r})"


def get_v(d: Dictionary, u):
    if u is O:
        return d.zero
    if u is I:
        return d.one
    return u.v


def update(d: Dictionary, u, c) -> None:
    """``u.d <- u.d + c``; nothing on constants."""
    if isinstance(u, Var):
        u.d = d.add(u.d, c)


def check_node(u, who: str) -> None:
    if not (u is O or u is I or isinstance(u, Var)):
        raise TypeError(f"{who}: the client returned {u!r}, not a value of the dictionary it was given")

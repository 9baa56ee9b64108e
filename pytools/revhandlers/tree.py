"""What the syntax trees of the three systems share: :class:`Node`, the
base of their frozen dataclasses (in ``rh`` and ``pullback`` one per Coq
constructor), :func:`leaves`, a tree's leaves in order, and
:func:`preorder`, its nodes in order, both without recursion."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Node:
    """A node of a syntax tree: every subclass is a frozen dataclass
    (equality and hashing by value, no mutation), as if written under
    ``@dataclass(frozen=True)``; its annotated names are its fields, in
    order (a mirrored Coq constructor's arguments in theirs)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)


def leaves(root: T, parts: Callable[[T], Iterable[T] | None]) -> list[T]:
    """The leaves of the tree at ``root``, left to right, without recursion
    (so trees of any depth): ``parts(n)`` is ``n``'s parts, in order, or
    ``None`` when ``n`` is a leaf."""
    out: list[T] = []
    stack = [root]
    while stack:
        n = stack.pop()
        below = parts(n)
        if below is None:
            out.append(n)
        else:
            stack.extend(reversed(list(below)))
    return out


def preorder(root: T, parts: Callable[[T], Iterable[T]]) -> Iterator[T]:
    """Every node of the tree at ``root``, each before its parts and the
    parts left to right (the order of the text), without recursion:
    ``parts(n)`` is ``n``'s parts, in order (none for a leaf)."""
    stack = [root]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(list(parts(n))))

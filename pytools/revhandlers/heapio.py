"""Heaps in and out of files: location values as flat float arrays, and
``.npz`` archives of them (``--heap``, ``--load``, sessions)."""

from __future__ import annotations

import os

import numpy as np

from .errors import BadInput

_KINDS = {"b": "booleans", "c": "complex numbers", "U": "strings", "S": "bytes", "O": "objects",
          "V": "records", "M": "dates", "m": "time spans"}


def heap_numbers(name: str, values: object, where: str = "") -> np.ndarray:
    """``values`` for location ``name`` as a flat float array: integers or
    floats of any shape; anything else (strings, booleans, complex numbers,
    ragged lists) is a ``number`` error.  Sizes and finiteness are the
    program's to check (they are checked as rh-eval checks a ``heap`` entry)."""
    try:
        a = np.asarray(values)
    except (TypeError, ValueError) as e:
        raise BadInput("number", f"{where}location {name!r}: not an array of numbers ({e})") from None
    if a.dtype.kind not in "iuf":
        raise BadInput("number", f"{where}location {name!r} holds {_KINDS.get(a.dtype.kind, a.dtype.name)}, "
                                 "not real numbers")
    return a.astype(float).reshape(-1)


def read_npz(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` archive (name -> array), each of integers or
    floats (else a ``number`` error); whether the names and sizes fit a
    program is checked when the heap is used."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if not hasattr(data, "files"):
                raise ValueError("not an .npz archive (a single array)")
            arrays = {k: np.array(data[k]) for k in data.files}
    except MemoryError:
        raise BadInput("io", f"cannot read the heap {path}: too large to load") from None
    except Exception as e:  # numpy raises several types for bad files
        raise BadInput("io", f"cannot read the heap {path}: {e}") from None
    for name, a in arrays.items():
        heap_numbers(name, a, f"the heap {path}: ")
    return arrays

"""Where the build puts things: the compiled theories and the extracted evaluator."""

from __future__ import annotations

import os
from pathlib import Path


def repo_root() -> Path:
    """The checkout this package was installed from (editable install)."""
    return Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    return repo_root() / "_build" / "default"


def theories_build_dir() -> Path:
    """The compiled main theory (logical name ``RevHandlers``)."""
    return build_dir() / "theories" / "rh"


def rh_eval_path() -> Path:
    """The extracted evaluator's driver; ``RH_EVAL`` overrides it."""
    override = os.environ.get("RH_EVAL")
    return Path(override) if override else build_dir() / "extracted" / "rh-eval"

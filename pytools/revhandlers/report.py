"""What a differential campaign reports (every campaign, the journal and
the cluster runner share it)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


class Divergence(AssertionError):
    """Two engines disagree on a case."""


@dataclass
class Report:
    programs: int = 0
    skipped: int = 0
    seconds: float = 0.0
    divergence: str | None = None
    corpus_file: str | None = None
    outcomes: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)

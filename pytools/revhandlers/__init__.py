"""RevHandlers: reverse handlers for arrows (Sanada, Hoshino, Hirai, Katsumata, ICFP 2026).

The calculus is mechanized in Coq under ``theories/``; this package holds the
Python side.  :mod:`revhandlers.coq` locates the compiled theories and runs Coq
on files that use them.
"""

__version__ = "0.1.0"

"""``python -m revhandlers``: the ``revhandlers`` command line."""

from .cli import entry

entry()

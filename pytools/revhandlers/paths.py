"""Where things are: the compiled theories, the extracted drivers
(``rh-eval``, ``dbr-eval``) and the package's data.

The package runs either from a checkout (installed editable by ``make
deps``: the drivers are in the checkout's ``_build/default/extracted/``) or
installed from a wheel: the platform wheel of ``make wheel`` carries them
in ``revhandlers/bin/``; a wheel built with ``REVHANDLERS_DRIVERS=none``
does not, and they are programs on ``PATH`` (``make install`` puts them
there).  :func:`driver_path` finds a driver in every case."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .process import EvaluatorNotBuilt


def repo_root() -> Path:
    """The checkout this package was installed from (editable install).
    Outside a checkout this is not a checkout: see :func:`checkout_root`."""
    return Path(__file__).resolve().parents[2]


def checkout_root() -> Path | None:
    """The checkout the package runs from, or ``None`` when it runs from an
    installed wheel (then :func:`repo_root` is some directory of the Python
    installation)."""
    here = Path(__file__).resolve().parent
    root = here.parents[1]
    if (here == root / "pytools" / "revhandlers" and (root / "pyproject.toml").is_file()
            and (root / "dune-project").is_file()):
        return root
    return None


def build_dir() -> Path:
    return repo_root() / "_build" / "default"


def theories_build_dir() -> Path:
    """The compiled main theory (logical name ``RevHandlers``)."""
    return build_dir() / "theories" / "rh"


class DriverNotFound(EvaluatorNotBuilt):
    """No extracted driver to run (exit code 2, kind ``io``), with how to
    get one."""

    def __init__(self, name: str, env: str, why: str):
        where = checkout_root()
        build = (f"run `make build` in the checkout {where}" if where is not None
                 else "install the platform wheel (`make wheel` in a checkout of RevHandlers builds it), "
                      "or run `make build` in a checkout")
        msg = (f"{why}; to get {name}: {build}, or `make install` there (puts {name} on PATH, in "
               f"/usr/local/bin by default), or set {env} to the path of a built {name}")
        super(EvaluatorNotBuilt, self).__init__("io", msg)
        self.path = name
        self.exit_code = 2


def driver_path(name: str, env: str) -> Path:
    """The extracted driver ``name`` (``rh-eval``, ``dbr-eval``): the
    environment variable ``env`` if set (a path, or a program name looked up
    on ``PATH``); else the checkout's ``_build/default/extracted/NAME`` when
    the package runs from a checkout and it is built; else the copy the
    platform wheel carries (``revhandlers/bin/NAME``); else ``NAME`` on
    ``PATH``.  Raises :class:`DriverNotFound` (exit code 2) when there is
    none."""
    override = os.environ.get(env)
    if override:
        p = Path(override).expanduser()
        if p.is_file():
            return p
        found = shutil.which(override) if os.sep not in override else None
        if found:
            return Path(found)
        raise DriverNotFound(name, env, f"{env} is set to {override}, which is not a file")
    root = checkout_root()
    if root is not None:
        built = root / "_build" / "default" / "extracted" / name
        if built.exists():
            return built
    carried = Path(__file__).resolve().parent / "bin" / name
    if carried.is_file() and os.access(carried, os.X_OK):
        return carried
    found = shutil.which(name)
    if found:
        return Path(found)
    places = f"{root / '_build' / 'default' / 'extracted' / name} does not exist, " if root is not None else ""
    raise DriverNotFound(name, env, f"{places}{name} is not on PATH and {env} is not set")


def rh_eval_path() -> Path:
    """The extracted evaluator's driver (:func:`driver_path`); ``RH_EVAL``
    overrides it."""
    return driver_path("rh-eval", "RH_EVAL")


def package_data(name: str) -> Path:
    """A data file shipped in the package (``revhandlers/data/NAME``)."""
    return Path(__file__).resolve().parent / "data" / name


def digits_path() -> Path:
    """The UCI digits: the checkout's ``data/digits.csv.gz`` when the package
    runs from a checkout, else the copy installed with the package."""
    root = checkout_root()
    if root is not None and (root / "data" / "digits.csv.gz").is_file():
        return root / "data" / "digits.csv.gz"
    return package_data("digits.csv.gz")

"""The build steps pyproject.toml cannot declare: the wheel carries the
three extracted drivers (``rh-eval``, ``dbr-eval``, ``pullback-eval``) in
``revhandlers/bin/``, built from the proofs when the wheel is built, and is
therefore a platform wheel (``py3-none-<platform>``: the drivers are
native programs; the Python code runs on any Python 3.11+).

Where the drivers come from, in this order:

* ``REVHANDLERS_DRIVERS=DIR``: the three programs already built in ``DIR``
  (``make wheel`` builds them with dune first, then passes
  ``_build/default/extracted``);
* else, in a source tree (a checkout or the sdist, which carries the
  theories and the drivers' sources): ``dune build`` of the three drivers,
  which checks the proofs they are extracted from.  When Coq, dune or
  OCaml is missing, the build stops and names what is missing.

``REVHANDLERS_DRIVERS=none`` builds the pure-Python package without the
drivers (they are then looked up on ``PATH``; see
``revhandlers/paths.py``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:                       # setuptools < 70.1: the wheel package's command
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
DRIVERS = ("rh-eval", "dbr-eval", "pullback-eval")


def _without_drivers() -> bool:
    return os.environ.get("REVHANDLERS_DRIVERS", "").lower() == "none"


def _missing_tools() -> list[str]:
    """What building the drivers from the proofs needs and this machine lacks."""
    missing = [t for t in ("coqc", "dune", "ocamlfind", "ocamlopt") if shutil.which(t) is None]
    if shutil.which("ocamlfind"):
        for lib in ("sexplib", "zarith"):
            if subprocess.run(["ocamlfind", "query", lib], capture_output=True).returncode != 0:
                missing.append(f"the OCaml library {lib}")
    if shutil.which("coqc"):
        where = subprocess.run(["coqc", "-where"], capture_output=True, text=True).stdout.strip()
        if not (Path(where) / "user-contrib" / "Coquelicot").is_dir():
            missing.append("Coquelicot")
    return missing


def built_drivers() -> Path:
    """The directory holding the three built drivers."""
    given = os.environ.get("REVHANDLERS_DRIVERS")
    if given:
        d = Path(given).expanduser().resolve()
        absent = [n for n in DRIVERS if not (d / n).is_file()]
        if absent:
            sys.exit(f"revhandlers: REVHANDLERS_DRIVERS={given} lacks {', '.join(absent)}")
        return d
    if not (HERE / "dune-project").is_file() or not (HERE / "extracted").is_dir():
        sys.exit("revhandlers: this source tree has neither the theories nor the drivers' sources; "
                 "set REVHANDLERS_DRIVERS=DIR to a directory holding rh-eval, dbr-eval and pullback-eval, "
                 "or REVHANDLERS_DRIVERS=none for the package without them")
    missing = _missing_tools()
    if missing:
        sys.exit("revhandlers: building the wheel builds rh-eval, dbr-eval and pullback-eval from the Coq "
                 f"proofs, which needs Coq 8.16 with Coquelicot, dune and OCaml with sexplib and zarith; missing: "
                 f"{', '.join(missing)}.  On Debian: `make deps-tools` in the checkout (or apt-get install coq "
                 "dune ocaml ocaml-findlib libsexplib-ocaml-dev libzarith-ocaml-dev libcoq-coquelicot); or set "
                 "REVHANDLERS_DRIVERS=DIR to built drivers, or REVHANDLERS_DRIVERS=none for the package "
                 "without them (it then finds them on PATH)")
    print("revhandlers: building rh-eval, dbr-eval and pullback-eval from the proofs (dune build)", file=sys.stderr)
    targets = [f"extracted/{n}" for n in DRIVERS]
    p = subprocess.run(["dune", "build", *targets], cwd=HERE)
    if p.returncode != 0:
        sys.exit(f"revhandlers: `dune build {' '.join(targets)}` failed (exit code {p.returncode})")
    return HERE / "_build" / "default" / "extracted"


class build_py_with_drivers(build_py):
    """The Python package, then the drivers into ``revhandlers/bin/``."""

    def run(self):
        super().run()
        if _without_drivers():
            return
        src = built_drivers()
        dest = Path(self.build_lib) / "revhandlers" / "bin"
        dest.mkdir(parents=True, exist_ok=True)
        for name in DRIVERS:
            target = dest / name
            if target.exists():
                target.chmod(0o755)
                target.unlink()
            shutil.copyfile(src / name, target)
            target.chmod(0o755)


class platform_wheel(bdist_wheel):
    """Tagged for the platform (native drivers inside), any Python 3."""

    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = _without_drivers()

    def get_tag(self):
        python, abi, plat = super().get_tag()
        return (python, abi, plat) if _without_drivers() else ("py3", "none", plat)


setup(cmdclass={"build_py": build_py_with_drivers, "bdist_wheel": platform_wheel})

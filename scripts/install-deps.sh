#!/usr/bin/env bash
# Install what the build and the tests need, idempotently and quickly when
# everything is already there:
#   - Debian's Coq and OCaml toolchain (coq, ocaml, dune, findlib, sexplib,
#     zarith)
#     and Graphviz (for `revhandlers diagram`);
#   - this repository's Python package, editable, with its test and torch
#     extras (torch==2.13.0, a CPU build).
# With --coq (`make deps-coq`, used by `make proofs` and `make html`): only
# what checking the proofs needs, Coq, dune and Coquelicot (for
# theories/analysis), no OCaml libraries, pip or torch.
# With --tools (`make deps-tools`, used by `make drivers`, `make install` and
# `make wheel`): only the Debian packages, no Python package and no Jupyter
# kernel (installing must not change a Python environment it was not asked
# to).
set -euo pipefail
cd "$(dirname "$0")/.."
coq_only=""
tools_only=""
[ "${1:-}" = "--coq" ] && coq_only=yes
[ "${1:-}" = "--tools" ] && tools_only=yes

need=()
command -v coqc >/dev/null 2>&1 || need+=(coq)
command -v dune >/dev/null 2>&1 || need+=(dune)
if [ -d theories/analysis ] && ! [ -d "$(coqc -where 2>/dev/null)/user-contrib/Coquelicot" ]; then
  need+=(libcoq-coquelicot)
fi
if [ -z "$coq_only" ]; then
  command -v ocamlfind >/dev/null 2>&1 || need+=(ocaml-findlib)
  command -v ocamlopt >/dev/null 2>&1 || need+=(ocaml)
  ocamlfind query sexplib >/dev/null 2>&1 || need+=(libsexplib-ocaml-dev)
  # zarith (exact numbers of dbr-eval): the runtime package lacks zarith.cmxa
  [ -f "$(ocamlfind query zarith 2>/dev/null)/zarith.cmxa" ] || need+=(libzarith-ocaml-dev)
  command -v dot >/dev/null 2>&1 || need+=(graphviz)
fi
if ((${#need[@]})); then
  echo "install-deps: installing Debian packages: ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

[ -z "$coq_only" ] && [ -z "$tools_only" ] || exit 0

PY="${PY:-python3}"
# The package must be importable *from this checkout* (an editable install
# made from another clone would test other sources).
here="$(pwd -P)"
if ! "$PY" - "$here" <<'PYEOF' 2>/dev/null
import os, sys
import pytest, hypothesis, numpy, sexpdata, lark, matplotlib, torch, coq_jupyter, nbclient, greenlet, sympy  # noqa: F401
import ruff, mypy  # noqa: F401  (make lint)
import dask, distributed  # noqa: F401
import revhandlers
sys.exit(0 if os.path.realpath(revhandlers.__file__).startswith(sys.argv[1] + os.sep) else 1)
PYEOF
then
  echo "install-deps: installing the Python package (editable, with test, torch and cluster extras)"
  REVHANDLERS_DRIVERS=none "$PY" -m pip install -q -e ".[test,torch,cluster]"
fi

# The Jupyter kernel for the notebooks, bound to this checkout's theories.
PY="$PY" bash scripts/install-coq-kernel.sh

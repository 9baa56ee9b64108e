# RevHandlers: `make demo` and `make test` set everything up on a fresh
# Debian bookworm machine (see README.md).
SHELL := /bin/bash
PY ?= python3
COQ_THEORIES := _build/default/theories/rh
RH_EVAL := _build/default/extracted/rh-eval
DRIVERS := $(RH_EVAL) _build/default/extracted/dbr-eval _build/default/extracted/pullback-eval

# `make install`: where the drivers go, and the pip that installs the package
PREFIX ?= /usr/local
DESTDIR ?=
PIP ?= $(PY) -m pip

.PHONY: all help deps deps-coq deps-tools proofs build drivers install wheel demo headline html rules test bench clean

all: build

## help: list the targets
help:
	@grep -E '^## ' Makefile | sed -e 's/^## //'

## deps: install Debian's Coq/OCaml toolchain and the Python package if missing
deps:
	@PY=$(PY) bash scripts/install-deps.sh

## deps-coq: install only what the proofs need (Coq, dune, Coquelicot): no OCaml libraries, pip or torch
deps-coq:
	@bash scripts/install-deps.sh --coq

## deps-tools: install only Debian's Coq/OCaml toolchain (what the drivers need): no pip, no Jupyter kernel
deps-tools:
	@bash scripts/install-deps.sh --tools

## proofs: check every proof in theories/ (and report the time it took); needs only deps-coq
proofs: deps-coq
	@start=$$(date +%s.%N); \
	dune build @theories/default 2>&1; status=$$?; \
	end=$$(date +%s.%N); \
	awk "BEGIN { printf \"proofs: theories/ checked in %.1f s\\n\", $$end - $$start }"; \
	exit $$status

## build: the proofs, then the evaluator extracted from them (rh-eval)
build: deps proofs
	@dune build 2>&1
	@echo "build: $(RH_EVAL)"

## drivers: rh-eval, dbr-eval and pullback-eval, extracted from the proofs (needs only deps-tools)
drivers: deps-tools
	@dune build $(DRIVERS) 2>&1
	@echo "drivers: $(DRIVERS)"

## install: the three drivers to $(DESTDIR)$(PREFIX)/bin (PREFIX=/usr/local), then the package, not
##          editable, with $(PIP) (PIP= skips it); builds only the drivers and changes no other
##          Python environment (no editable install, no Jupyter kernel), and says where it installed
install: drivers
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 $(DRIVERS) "$(DESTDIR)$(PREFIX)/bin/"
	@echo "install: rh-eval, dbr-eval and pullback-eval in $(DESTDIR)$(PREFIX)/bin"
	@# setuptools builds in ./build: removed afterwards unless it was there before
	@if [ -n "$(PIP)" ]; then \
	  had_build=$$([ -e build ] && echo yes); \
	  REVHANDLERS_DRIVERS=none $(PIP) install . || exit $$?; \
	  [ -n "$$had_build" ] || rm -rf build; \
	  where=$$($(PIP) show revhandlers 2>/dev/null | sed -n 's/^Location: //p'); \
	  echo "install: the package revhandlers (not editable) in $$where, by $(PIP)"; \
	fi

## wheel: a platform wheel in dist/ carrying rh-eval, dbr-eval and pullback-eval built from the proofs
##        (pip install dist/revhandlers-*.whl needs no Coq, OCaml or dune)
wheel: drivers
	@had_build=$$([ -e build ] && echo yes); \
	REVHANDLERS_DRIVERS=$(CURDIR)/_build/default/extracted $(PY) -m pip wheel --no-deps --no-build-isolation \
	  --disable-pip-version-check -w dist . || exit $$?; \
	[ -n "$$had_build" ] || rm -rf build; \
	ls -l dist/revhandlers-*.whl

## headline: print the headline theorems and their assumptions
headline: proofs
	@tmp=$$(mktemp -d); \
	coqc -Q $(COQ_THEORIES) RevHandlers -o $$tmp/headline.vo tests/coq/headline.v; \
	rm -rf $$tmp

## html: the theories' documentation (coqdoc) in docs/html/ (not committed; docs/paper-map.md links into it)
html: proofs
	@bash scripts/coqdoc-html.sh docs/html

## rules: write docs/rules.md, every typing, reduction, Fig. 4 and RH rule, from the Coq sources
##        (tests/test_rules_doc.py checks that it is current and names every constructor)
rules:
	@$(PY) scripts/gen-rules.py

## demo: the main job: train the paper's MLP through the verified evaluator
demo: build
	@$(PY) scripts/proof-summary.py
	@echo
	@echo "== the paper's one-layer example: rev handle rewritten to its let-chain, then run"
	@$(RH_EVAL) --trace examples/sexp/one_layer.sexp | sed -n '2p;$$p' | cut -c1-400
	@echo
	@echo "== revhandlers train examples/mlp.rh"
	@revhandlers train examples/mlp.rh --plot results/mlp-loss.png

## lint: ruff and mypy, as configured in pyproject.toml (mypy strict on the shared layer)
.PHONY: lint
lint:
	$(PY) -m ruff check .
	$(PY) -m mypy

## test: the lint, then every test
test: build lint
	$(PY) -m pytest tests

## bench: how the evaluator's time grows with program size, against the reference;
##        then one training step per sample against numpy and PyTorch, and growth with depth;
##        then the define-by-run library's cost: operations per operation of the client, and
##        its Python and extracted implementations against PyTorch autograd (10^5 operations)
bench: build
	$(PY) bench/scaling.py
	$(PY) bench/training_step.py
	$(PY) bench/dbr_cost.py

clean:
	dune clean
	rm -rf dist build

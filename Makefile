# Two entry points, the README's two commands: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The CPU build of torch by default. This machine finds the 2.13.0 CPU wheel on
# disk; elsewhere pass TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu".
# On a GPU machine use `make install EXTRAS=dev,gpu` and a CUDA torch instead.
TORCH_INDEX ?=
EXTRAS ?= dev
DEMO_STORE ?= .embedstore-demo

.PHONY: install demo test lint bench

$(PY):
	python3 -m venv $(VENV)

install: $(PY)
	$(PIP) install -q "torch==2.13.0" $(TORCH_INDEX)
	$(PIP) install -q -e ".[$(EXTRAS)]"

demo: install
	HF_HUB_OFFLINE=1 $(VENV)/bin/embedstore index examples/demo-repo --name demo --store $(DEMO_STORE)
	HF_HUB_OFFLINE=1 $(VENV)/bin/embedstore search "parse the config file and merge defaults" \
		--name demo --store $(DEMO_STORE) -k 3

test: install
	$(PY) -m ruff check .
	$(PY) -m mypy embedstore indexes api cli
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q

bench: install
	HF_HUB_OFFLINE=1 $(PY) bench/index_stdlib.py

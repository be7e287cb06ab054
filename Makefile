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

.PHONY: install demo test typecheck browser bench

$(PY):
	python3 -m venv $(VENV)

install: $(PY)
	$(PIP) install -q "torch==2.13.0" $(TORCH_INDEX)
	$(PIP) install -q -e ".[$(EXTRAS)]"

demo: install
	HF_HUB_OFFLINE=1 $(VENV)/bin/embedstore index examples/demo-repo --name demo --store $(DEMO_STORE)
	HF_HUB_OFFLINE=1 $(VENV)/bin/embedstore search "parse the config file and merge defaults" \
		--name demo --store $(DEMO_STORE) -k 3
	@echo
	@echo "Done. In each new shell, put embedstore on your PATH:  . $(VENV)/bin/activate"
	@echo "An MCP configuration's \"command\" (agents start it without the venv): $(abspath $(VENV))/bin/embedstore"

test: install typecheck browser
	$(PY) -m ruff check .
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -n auto --maxprocesses 4 --dist loadfile --durations=15

# The search page's test drives Debian's chromium (Playwright never downloads a browser
# here); installed when missing and we are root, else that one test is skipped.
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		echo "chromium is not installed: the browser test will be skipped"

# mypy cannot follow setuptools' package-dir mapping, so it checks a tree of
# symlinks laid out the way the package installs.
typecheck: install
	rm -rf build/typecheck && mkdir -p build/typecheck/embedstore
	for f in embedstore/*; do ln -s "$(CURDIR)/$$f" build/typecheck/embedstore/; done
	for d in indexes api cli; do ln -s "$(CURDIR)/$$d" build/typecheck/embedstore/$$d; done
	cd build/typecheck && "$(CURDIR)/$(PY)" -m mypy --config-file "$(CURDIR)/pyproject.toml" -p embedstore

# The speed benches of issue 9, in the order they need each other (encode_speed builds
# the standard-library collection the others search).
bench: install
	HF_HUB_OFFLINE=1 $(PY) bench/encode_speed.py
	HF_HUB_OFFLINE=1 $(PY) bench/search_latency.py
	HF_HUB_OFFLINE=1 $(PY) bench/cli_latency.py
	HF_HUB_OFFLINE=1 $(PY) bench/api_load.py

# Two commands on a fresh machine (Linux or macOS with python3):
#   make lab    install everything into .venv and open JupyterLab on labs/
#   make test   install everything (browser and tshark included) and run every test
# Also: make figures (regenerate figures/ headlessly), make bench (print benchmark figures).

PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# numba writes compiled kernels here (the default beside the sources may be read-only).
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: install lab figures test lint unit notebooks browser-test chromium tshark bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[lab,test]"
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp .jupyter-settings/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	touch $(STAMP)

install: $(STAMP)

lab: install
	$(BIN)/jupyter lab labs/00_start_here.ipynb $(if $(filter 0,$(shell id -u)),--allow-root)

figures: install
	$(BIN)/python -m simcore figures all

# Debian/Ubuntu: installs Debian's chromium for the browser test (as root, or with sudo).
# Elsewhere: install Chromium yourself; without it the browser test is skipped, except under CI=true.
chromium:
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
		echo "chromium: $$(command -v chromium || command -v chromium-browser)"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "chromium not found and cannot be installed here: the browser test will be skipped"; \
	fi

# Debian/Ubuntu: installs Debian's tshark, which reads the lab's exported captures in tests/packet/test_tshark.py
# (as root, or with sudo). Elsewhere: install Wireshark's tshark yourself; without it those tests are
# skipped, except under CI=true.
tshark:
	@if command -v tshark >/dev/null 2>&1; then \
		echo "tshark: $$(command -v tshark)"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; \
	else \
		echo "tshark not found and cannot be installed here: the tshark tests will be skipped"; \
	fi

lint: install
	$(BIN)/ruff check .

test: install chromium tshark lint
	$(BIN)/python -m pytest -n 2 --dist loadfile tests labs --nbval-lax -p no:cacheprovider \
		--timeout=900 --nbval-cell-timeout=600

bench: install
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .numba_cache test-artifacts

# Two commands on a fresh machine (Linux or macOS with python3):
#   make lab    install everything into .venv and open JupyterLab at the repository root (data/ in the
#               file browser) with the start-here chapter open
#   make test   install everything (browser and tshark included) and run every test
# Also: make figures (regenerate figures/ headlessly), make bench (print benchmark figures),
#       make book (the chapters, executed, as a static website in book/_build/html).

PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
# numba writes compiled kernels here (the default beside the sources may be read-only).
export NUMBA_CACHE_DIR ?= $(CURDIR)/.numba_cache

.PHONY: install lab figures book test lint unit notebooks browser-test chromium tshark chp bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[lab,test,course]"
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp .jupyter-settings/overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	mkdir -p $(VENV)/etc/jupyter
	cp .jupyter-settings/voila.json $(VENV)/etc/jupyter/voila.json
	touch $(STAMP)

install: $(STAMP)

# Warm numba's cache first (a progress bar; minutes only on a machine's first run), then open the lab.
lab: install
	$(BIN)/python -m simcore warm
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" labs/00_start_here.ipynb $(if $(filter 0,$(shell id -u)),--allow-root)

figures: install
	$(BIN)/python -m simcore figures all

# Executes each chapter once into book/labs/ (again only when its inputs change), builds with Jupyter Book 1
# with warnings as errors, and checks the internal links. make test builds it too (tests/test_book.py).
book: install
	$(BIN)/python -m simcore book

# $(call apt_install,PACKAGE,COMMANDS,WHAT): if one of COMMANDS is on the PATH, say where; else, on
# Debian/Ubuntu, apt-get PACKAGE (as root, or with sudo); else say that WHAT will be skipped.
define apt_install
	@found=""; for c in $(2); do if command -v $$c >/dev/null 2>&1; then found=$$(command -v $$c); break; fi; done; \
	if [ -n "$$found" ]; then \
		echo "$(1): $$found"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; \
	elif command -v apt-get >/dev/null 2>&1 && command -v sudo >/dev/null 2>&1; then \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(1) >/dev/null; \
	else \
		echo "$(1) not found and cannot be installed here: $(3) will be skipped"; \
	fi
endef

# Debian/Ubuntu: installs Debian's chromium for the browser test (as root, or with sudo).
# Elsewhere: install Chromium yourself; without it the browser test is skipped, except under CI=true.
chromium:
	$(call apt_install,chromium,chromium chromium-browser,the browser test)

# Debian/Ubuntu: installs Debian's tshark, which reads the lab's exported captures in tests/packet/test_tshark.py.
# Elsewhere: install Wireshark's tshark yourself; without it those tests are skipped, except under CI=true.
tshark:
	$(call apt_install,tshark,tshark,the tshark tests)

# configurable-http-proxy (npm), the proxy of the local JupyterHub that tests/deploy/test_hub.py and
# benchmarks/bench_class.py start, into .venv/node (installs Debian's npm first if needed, as for chromium).
# Without npm the hub's smoke test is skipped, except under CI=true.
CHP := $(VENV)/node/node_modules/.bin/configurable-http-proxy
chp: $(CHP)

$(CHP):
	$(call apt_install,npm,npm,the course hub's smoke test)
	@if command -v npm >/dev/null 2>&1; then \
		npm install --prefix $(VENV)/node --no-audit --no-fund --loglevel=error configurable-http-proxy@5; fi

lint: install
	$(BIN)/ruff check .

test: install chromium tshark chp lint
	$(BIN)/python -m pytest -n 2 --dist loadfile tests labs --nbval-lax -p no:cacheprovider \
		--timeout=900 --nbval-cell-timeout=600

bench: install
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .numba_cache test-artifacts book/_build book/labs

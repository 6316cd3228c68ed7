# Two entry points for a fresh machine: `make serve` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
export NO_MKDOCS_2_WARNING := 1

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
KATEX := node_modules/katex/dist/katex.min.js
# Debian's Chromium for Lighthouse and for looking at pages; the tests drive its
# headless shell (same version, package chromium-headless-shell), the build
# Playwright itself uses for headless runs: the same Blink, 40 % less CPU a page.
CHROMIUM ?= /usr/bin/chromium
TEST_CHROMIUM ?= /usr/bin/chromium-headless-shell
ifndef SITE_DIR
SITE_DIR := $(shell mktemp -d -u /tmp/posenc-site.XXXXXX)
endif

.PHONY: help install serve build dist lint unit browser test clean rebuild

help:
	@echo "make serve  - install everything and serve the site on http://127.0.0.1:8000"
	@echo "make test   - lint, unit tests, strict build, browser tests"
	@echo "make dist   - build the package's sdist and wheel into dist/"

$(INSTALLED): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $@

$(KATEX): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: $(INSTALLED) $(KATEX)

serve: install
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: install
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)

# The same reproducible wheel the site serves at downloads/ (see hooks/wheel.py).
dist: $(INSTALLED)
	rm -rf dist
	$(BIN)/python hooks/wheel.py dist

$(CHROMIUM) $(TEST_CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get update -qq && apt-get install -y -qq chromium chromium-headless-shell; \
	else \
	  echo "$@ is missing: run 'sudo apt-get install -y chromium" \
	       "chromium-headless-shell' (Debian/Ubuntu), or set CHROMIUM and" \
	       "TEST_CHROMIUM to a Chromium and its headless shell."; exit 1; \
	fi

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

unit: install
	$(BIN)/python -m pytest -n 2 --dist loadfile -m "not build and not browser"

# Each test file whole on one worker (its module fixtures built once), the longest
# first (tests/conftest.py). Two workers, one a core: three were no faster (178 s
# against 170-185 s; the run keeps both cores over 90 % busy).
PYTEST_ALL := $(BIN)/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder \
	--durations=10

browser: install $(TEST_CHROMIUM)
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)
	POSENC_SITE_DIR=$(SITE_DIR) CHROMIUM=$(TEST_CHROMIUM) $(PYTEST_ALL) -m "build or browser"
	rm -rf $(SITE_DIR)

# Lint, then unit, build and browser tests in one run, the strict build running in the
# background meanwhile: the tests that need no site go first, the others wait for it
# (tests/conftest.py), so its core is not idle. Its log follows the tests; a failed
# build fails the tests that need it and this target.
test: lint $(TEST_CHROMIUM)
	rm -rf $(SITE_DIR) $(SITE_DIR).log $(SITE_DIR).status
	{ $(BIN)/mkdocs build --strict --site-dir $(SITE_DIR) >$(SITE_DIR).log 2>&1; \
	  echo $$? >$(SITE_DIR).part && mv $(SITE_DIR).part $(SITE_DIR).status; } &
	POSENC_SITE_DIR=$(SITE_DIR) POSENC_SITE_STATUS=$(SITE_DIR).status \
	  CHROMIUM=$(TEST_CHROMIUM) $(PYTEST_ALL)
	cat $(SITE_DIR).log
	test "$$(cat $(SITE_DIR).status)" = 0
	rm -rf $(SITE_DIR) $(SITE_DIR).log $(SITE_DIR).status

clean:
	rm -rf $(VENV) node_modules site .cache dist

# Developer measurements, not tests: page weight and layout shift of every page, then
# Lighthouse (mobile) on a sample of pages, against a fresh strict build.
benchmarks: install $(CHROMIUM)
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)
	$(BIN)/python -m benchmarks.pages $(SITE_DIR)
	rm -rf $(SITE_DIR)

lighthouse: install $(CHROMIUM)
	$(BIN)/mkdocs build --strict --site-dir $(SITE_DIR)
	CHROMIUM=$(CHROMIUM) $(BIN)/python -m benchmarks.lighthouse $(SITE_DIR)
	rm -rf $(SITE_DIR)

# Build times (cold, warm, serve rebuilds after a page and a module edit) of each
# revision in REVS, in temporary copies; WORKTREE is the files as they are now.
REVS ?= WORKTREE
rebuild: install
	$(BIN)/python -m benchmarks.rebuild $(REVS)

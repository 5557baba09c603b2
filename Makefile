# Every target sets up what it needs: `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint typecheck unit eval bench clean

setup: $(VENV)/.installed-dev

# learn and its own dependencies, nothing else: all `make demo` needs (the dev
# tools and PostgreSQL of the extras cost minutes and hundreds of MB).
$(VENV)/.installed-base: pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

# + the dev tools and the team extra (PostgreSQL for the team store's tests).
$(VENV)/.installed-dev: $(VENV)/.installed-base
	$(BIN)/pip install -q -e '.[dev,team]'
	touch $@

demo: $(VENV)/.installed-base
	$(BIN)/learn demo

lint: setup
	$(BIN)/ruff check learn tests benchmarks evals
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

# On every core, at most 4: serially the suite leaves a core of a 2-core machine
# idle (most tests wait on subprocesses and sockets); two workers took it from
# about 25 to about 11 minutes. Each test has its own HOME and temp dirs.
unit: setup
	$(BIN)/pytest -n auto --maxprocesses=4

eval: setup
	$(BIN)/learn eval --gate

# Every step runs whatever an earlier one said (a failing unit test must not
# hide what the eval gate would say); the exit status is non-zero if any failed.
test: setup
	@failed=""; \
	for step in lint typecheck unit eval; do \
	  $(MAKE) --no-print-directory $$step || failed="$$failed $$step"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed" >&2; exit 1; fi; \
	echo "make test: lint, typecheck, unit and eval all passed"

bench: setup
	$(BIN)/python benchmarks/parse.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache

# Every target sets up what it needs: `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint typecheck unit eval bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,team]'
	touch $@

demo: setup
	$(BIN)/learn demo

lint: setup
	$(BIN)/ruff check learn tests benchmarks evals
	$(BIN)/lint-imports

typecheck: setup
	$(BIN)/mypy

unit: setup
	$(BIN)/pytest

eval: setup
	$(BIN)/learn eval --gate

test: lint typecheck unit eval

bench: setup
	$(BIN)/python benchmarks/parse.py

clean:
	rm -rf $(VENV) build *.egg-info .mypy_cache .pytest_cache .ruff_cache

# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8080
HOST ?= 127.0.0.1
RELEASES ?= releases

.PHONY: run test test-slow install install-test publish clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'

publish: install
	$(BIN)/ras publish --releases $(RELEASES)

run: publish
	$(BIN)/ras serve --releases $(RELEASES) --host $(HOST) --port $(PORT)

# The suite runs on every core (at most four workers; one test file per worker at a time, so a file's fixtures are
# made once). Slow reliability tests (crash trials, soak) run alone in .ci/run after `make test`: `make test-slow`.
PYTEST_ARGS ?= -m "not slow" -n auto --maxprocesses 4 --dist loadfile

test: install-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-slow: install-test
	$(BIN)/python -m pytest -m slow -s

clean:
	rm -rf $(VENV) $(RELEASES) dist build *.egg-info

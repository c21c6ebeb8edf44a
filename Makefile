# One command for each habit. `make setup` then `make test` on a fresh machine.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
# RLlib pins gymnasium 1.2.2 (the project is on 1.4): it gets a venv of its own, for its README snippet's test.
RLLIB_VENV ?= .venv-rllib

.PHONY: setup test lint bench demo train tournament serve docs docs-serve warmup clean

setup:
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install torch==2.13.0
	$(PIP) install -e '.[train,dev,docs,bench,web,ray]'
	python3 -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/pip install -q torch==2.13.0
	$(RLLIB_VENV)/bin/pip install -q -e '.[rllib]'
	-scripts/install_chromium.sh
	$(VENV)/bin/spades warmup

test:
	$(PY) -m pytest -n 2 --dist loadgroup --nbmake tests notebooks

# The docs site (mkdocs-material, mkdocstrings): built strictly, so a broken link or a missing page fails.
# make test builds it too (tests/project/test_docs_site.py).
docs:
	$(VENV)/bin/mkdocs build --strict --site-dir site

docs-serve:
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:8001

warmup:
	$(VENV)/bin/spades warmup

lint:
	$(VENV)/bin/ruff check spades_env agents train tests bench
	$(VENV)/bin/ruff format --check spades_env agents train tests bench
	$(VENV)/bin/lint-imports

bench:
	$(PY) -m bench.run --seconds 3

demo:
	$(VENV)/bin/spades demo

train:
	$(VENV)/bin/spades train --config configs/train/default.yaml

tournament:
	$(VENV)/bin/spades tournament

serve:
	$(VENV)/bin/spades serve

clean:
	rm -rf $(VENV) $(RLLIB_VENV) site *.egg-info .pytest_cache .ruff_cache .hypothesis

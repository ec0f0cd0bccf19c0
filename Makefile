# The two commands a new user runs: `make run` and `make test`.
# Both bootstrap .venv on first use; `make bench` measures speed (`make bench ARGS=--quick`: small sizes).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench crash clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(VENV)/bin/pyside6-lrelease -silent resources/i18n/pidesktop_zh_CN.ts -qm resources/i18n/pidesktop_zh_CN.qm
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/pidesktop

# One worker per core, a test file per worker at a time (its fixtures and its Xvfb stay together).
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -n auto --dist loadfile

# Lint, formatting, types (ui/ against tools/mypy-baseline.txt) and the import layers; no display needed.
# Every check runs and reports; the target fails when any of them failed.
.PHONY: check
check: $(STAMP)
	@status=0; \
	echo "ruff check"; $(VENV)/bin/ruff check . || status=1; \
	echo "ruff format --check"; $(VENV)/bin/ruff format --check . || status=1; \
	echo "mypy"; $(PY) tools/mypy_baseline.py || status=1; \
	echo "lint-imports"; $(VENV)/bin/lint-imports --no-logo || status=1; \
	exit $$status


bench: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) bench/run.py $(ARGS)

# SIGKILL the host at 1,000 instants of its writes and the data-folder move at 100; prints a summary.
crash: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) tools/crash_campaign.py

clean:
	rm -rf $(VENV) build *.egg-info

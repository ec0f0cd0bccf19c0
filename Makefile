# The two commands a new user runs: `make run` and `make test`.
# Both bootstrap .venv on first use; `make bench` measures speed (`make bench ARGS=--quick`: small sizes).
# `make dist` builds the installers into dist/ (wheel, sdist, a self-contained bundle, a .deb);
# `make dist-test` builds them and installs each one to check it runs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DIST_STAMP := $(VENV)/.installed-dist
CATALOGUE := pidesktop/resources/i18n/pidesktop_zh_CN
# setuptools' notice that an editable install is one (ten lines on every bootstrap) tells a person nothing;
# its other warnings still show.
EDITABLE := PYTHONWARNINGS="ignore:Editable installation" $(PY) -m pip install --quiet -e

.PHONY: run test bench crash dist dist-test clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(EDITABLE) '.[test]'
	$(VENV)/bin/pyside6-lrelease -silent $(CATALOGUE).ts -qm $(CATALOGUE).qm
	touch $(STAMP)

$(DIST_STAMP): $(STAMP)
	$(EDITABLE) '.[test,dist]'
	touch $(DIST_STAMP)

# Exit status 2 is pidesktop refusing to start with its reason already printed (a missing library, a
# data folder in use): that sentence stays the last line, without make's own error line under it.
run: $(STAMP)
	@$(VENV)/bin/pidesktop || { status=$$?; [ $$status -eq 2 ] || exit $$status; }

# One worker per core, a test file per worker at a time (its fixtures and its Xvfb stay together).
# A worker that crashes (a segfault is a bug) ends the run with its test named, instead of a replacement
# worker that xdist's file scheduling can leave waiting for ever.
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -n auto --dist loadfile --max-worker-restart 0

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

# The wheel and sdist (the wheel built from the sdist, translations compiled by setup.py), then the
# PyInstaller bundle and the .deb made from it (packaging/).
dist: $(DIST_STAMP)
	rm -rf dist build/bundle build/deb
	mkdir -p build
	$(PY) -m build --outdir dist . >build/python-build.log 2>&1 || { tail -40 build/python-build.log; exit 1; }
	$(PY) packaging/bundle.py
	$(PY) packaging/deb.py
	@cd dist && du -h *

# Installs each artefact of `make dist` and runs it (tests/test_dist.py): slow, so not in `make test`.
dist-test: dist
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest -q -p no:cacheprovider -m dist tests/test_dist.py

clean:
	rm -rf $(VENV) build dist *.egg-info

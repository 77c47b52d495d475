#!/usr/bin/env bash
# Install everything the test suite needs on a fresh Debian machine, then run it:
#   Debian's chromium (browser tests) and postgresql (persistence tests), a virtualenv with the project and its
#   test dependencies, then ruff, mypy and pytest.  Safe to run again: installed parts are reused.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO="sudo"; fi

need=()
command -v chromium >/dev/null || need+=(chromium)
command -v pg_ctlcluster >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null; then
    echo "+ apt-get install ${need[*]}"
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}" >/dev/null
  else
    echo "warning: cannot install ${need[*]} (no apt-get); the tests that need them will be skipped" >&2
  fi
fi

# PostgreSQL: start Debian's cluster and make a login role for the tests.
if command -v pg_ctlcluster >/dev/null; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
    # After an unclean stop the server first recovers (and syncs its data directory), which can take longer than
    # pg_ctl's 60 s: it goes on starting in the background, so wait for it below rather than give up.
    $SUDO pg_ctlcluster "$version" main start || echo "PostgreSQL is still starting (recovery); waiting" >&2
  fi
  for _ in $(seq 1 600); do
    $SUDO runuser -u postgres -- pg_isready -q -h 127.0.0.1 && break
    sleep 0.5
  done
  if ! $SUDO runuser -u postgres -- pg_isready -q -h 127.0.0.1; then
    # PostgreSQL is installed: the persistence and scale-out tests must run, not be skipped.
    echo "error: PostgreSQL did not accept connections within 5 minutes (see /var/log/postgresql/)" >&2
    exit 1
  fi
  $SUDO runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -c \
    "DO \$\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'hansa_test') THEN
       CREATE ROLE hansa_test LOGIN SUPERUSER PASSWORD 'hansa_test'; END IF; END \$\$;" >/dev/null
  export HANSA_TEST_POSTGRES_URL="postgresql+psycopg://hansa_test:hansa_test@127.0.0.1:5432/postgres"
fi

python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -e '.[test,rl,openspiel,ray,learn]'  # compiles the engine core with mypyc when it can
.venv/bin/python -c "import hansa; print('+ engine:', 'compiled (mypyc)' if hansa.compiled() else 'pure Python')"
# The test machine has a C compiler: a build that fell back to pure Python (mypyc's type check failed) is an error.
if [ "${HANSA_PURE_PYTHON:-0}" = 0 ] && command -v gcc >/dev/null; then
  .venv/bin/python -c "import hansa, sys; sys.exit(0 if hansa.compiled() else 'the engine did not compile: see pip install -v -e . for mypyc errors')"
fi
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy
# CI has 30 minutes: the random-game property tests play 6 complete games per configuration here (40 when pytest is
# run directly; thousands with `hansa simulate --check`), and the two workers steal work from each other so that the
# long browser games do not leave one of them idle at the end.
export HANSA_PROPERTY_GAMES="${HANSA_PROPERTY_GAMES:-6}"
exec .venv/bin/python -m pytest -n 2 --dist worksteal -q --durations=25 "$@"

#!/usr/bin/env bash
# Run every test: make .venv if needed, install with the test extra, find a Chromium and the HTML checker, run pytest.
# --fast (or FAST=1): the edit loop's tier, without the slow, browser and HTML checker tests; needs no browser.
fast="${FAST:-}"
if [ "${1:-}" = "--fast" ]; then fast=1; shift; fi
. "$(dirname "$0")/setup.sh" "test"

# The linter and the type checker first, on every tier: their settings are in pyproject.toml.
if ! "$VENV/bin/ruff" check --quiet .; then
  echo "error: ruff found the problems above (configured in pyproject.toml)." >&2
  echo "" >&2
  echo "Fix them, or let '$VENV/bin/ruff check --fix .' fix the ones it can, then run this again." >&2
  exit 1
fi
if ! "$VENV/bin/mypy" --no-error-summary; then
  echo "error: mypy found the type errors above in speculative/ (configured in pyproject.toml)." >&2
  exit 1
fi

if [ -n "$fast" ] && [ "$fast" != 0 ]; then
  TEST_TIER=fast exec "$PY" -m pytest -q -n "${TEST_WORKERS:-auto}" --dist worksteal -m "not slow and not browser and not validator" "$@"
fi

apt_updated=""
apt_install() {  # as root with apt only; one apt-get update per run
  have_root_apt || return 1
  if [ -z "$apt_updated" ]; then apt-get update -qq >/dev/null 2>&1 || return 1; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1
}

find_chromium() {
  if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then return 0; fi
  for name in chromium chromium-browser google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then CHROMIUM_PATH="$(command -v "$name")"; return 0; fi
  done
  return 1
}

if find_chromium; then
  export CHROMIUM_PATH
  echo "test: using the system browser $CHROMIUM_PATH" >&2
elif timeout 300 "$PY" -m playwright install chromium >/dev/null 2>&1; then
  unset CHROMIUM_PATH
  echo "test: using Playwright's own Chromium" >&2
elif apt_install chromium && find_chromium; then
  export CHROMIUM_PATH
  echo "test: installed Debian's chromium at $CHROMIUM_PATH" >&2
else
  echo "error: no Chromium for the browser tests." >&2
  echo "" >&2
  echo "Install one: 'sudo apt-get install chromium' (Debian), or '.venv/bin/python -m playwright install chromium'," >&2
  echo "or set CHROMIUM_PATH to a Chromium or Chrome executable, then run this again." >&2
  exit 1
fi

# The Nu HTML Checker for tests/test_validator.py: vnu.jar from npm at a pinned version, run with Java.
# What is missing is installed once (Debian's default-jre-headless and npm as root with apt). If that fails,
# the validator test says what to install: it fails under CI=true and skips elsewhere.
VNU_VERSION=26.9.27
export VNU_JAR="$PWD/.cache/vnu/node_modules/vnu-jar/build/dist/vnu.jar"
vnu_pinned() { [ -f "$VNU_JAR" ] && grep -Eqs "\"version\": *\"$VNU_VERSION\"" .cache/vnu/node_modules/vnu-jar/package.json; }

if ! command -v java >/dev/null 2>&1; then
  # Debian's slim images lack this folder, and the JRE's post-install step fails without it.
  if have_root_apt; then mkdir -p /usr/share/man/man1; fi
  if apt_install --no-install-recommends default-jre-headless && command -v java >/dev/null 2>&1; then
    echo "test: installed Debian's default-jre-headless for the HTML checker" >&2
  else
    echo "test: no java for the HTML checker; tests/test_validator.py will say what to install" >&2
  fi
fi
if ! vnu_pinned; then
  if ! command -v npm >/dev/null 2>&1 && apt_install --no-install-recommends npm; then
    echo "test: installed Debian's npm to fetch the HTML checker" >&2
  fi
  if command -v npm >/dev/null 2>&1 &&
     timeout 300 npm install --prefix .cache/vnu --no-audit --no-fund --silent "vnu-jar@$VNU_VERSION" >/dev/null 2>&1 &&
     vnu_pinned; then
    echo "test: installed vnu-jar $VNU_VERSION into .cache/vnu" >&2
  else
    echo "test: could not install vnu-jar $VNU_VERSION with npm; tests/test_validator.py will say what to install" >&2
  fi
fi

if [ "$#" -gt 0 ]; then exec "$PY" -m pytest "$@"; fi

# No arguments: every test in one run on every core (pytest-xdist; TEST_WORKERS=1 runs them in one process), so
# the browser tests, which wait on Chromium, share the cores with the ones that compute. sampler.py and stats.py
# must reach full branch coverage from their own test modules (tests/conftest.py's MEASURED; the tracer is paused
# in every other test). set -e stops at the first non-zero exit, with its code.
export COVERAGE_FILE=.cache/coverage
mkdir -p .cache
"$PY" -m pytest -n "${TEST_WORKERS:-auto}" --dist worksteal --cov=speculative --cov-branch --cov-report=
if ! "$PY" -m coverage report -m --include=speculative/sampler.py,speculative/stats.py --fail-under=100; then
  echo "error: speculative/sampler.py and speculative/stats.py must reach 100% branch coverage." >&2
  echo "" >&2
  echo "Add tests for the lines listed under Missing above, then run this again." >&2
  exit 1
fi

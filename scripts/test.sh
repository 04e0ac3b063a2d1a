#!/usr/bin/env bash
# Run every test: make .venv if needed, install with the test extra, find a Chromium, run pytest.
. "$(dirname "$0")/setup.sh" "test"

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
elif have_root_apt && { apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; } && find_chromium; then
  export CHROMIUM_PATH
  echo "test: installed Debian's chromium at $CHROMIUM_PATH" >&2
else
  echo "error: no Chromium for the browser tests." >&2
  echo "" >&2
  echo "Install one: 'sudo apt-get install chromium' (Debian), or '.venv/bin/python -m playwright install chromium'," >&2
  echo "or set CHROMIUM_PATH to a Chromium or Chrome executable, then run this again." >&2
  exit 1
fi

if [ "$#" -gt 0 ]; then exec "$PY" -m pytest "$@"; fi

# No arguments: the non-browser tests under branch coverage, which the rule and the exact statistics
# must reach in full, then the browser tests. set -e stops at the first non-zero exit, with its code.
export COVERAGE_FILE=.cache/coverage
mkdir -p .cache
"$PY" -m coverage run --branch --source=speculative -m pytest -m "not browser"
if ! "$PY" -m coverage report -m --include=speculative/sampler.py,speculative/stats.py --fail-under=100; then
  echo "error: speculative/sampler.py and speculative/stats.py must reach 100% branch coverage." >&2
  echo "" >&2
  echo "Add tests for the lines listed under Missing above, then run this again." >&2
  exit 1
fi
"$PY" -m pytest -m browser

# Sourced by build.sh and test.sh: make .venv and install the project into it, once per pyproject.toml.
# Usage: . scripts/setup.sh [extra]   (extra: "" for the build, "test" for the tests)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV="${VENV:-.venv}"
PY="$VENV/bin/python"
extra="${1:-}"

have_root_apt() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }

if [ ! -x "$PY" ]; then
  python=""
  for candidate in python3 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      python="$candidate"; break
    fi
  done
  if [ -z "$python" ]; then
    echo "error: Python 3.11 or newer was not found on PATH." >&2
    echo "" >&2
    echo "Install it (Debian/Ubuntu: apt-get install python3 python3-venv) and run this again." >&2
    exit 1
  fi
  if ! "$python" -m venv "$VENV" >/dev/null 2>&1; then
    rm -rf "$VENV"
    if have_root_apt; then
      echo "setup: installing python3-venv with apt-get" >&2
      apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      "$python" -m venv "$VENV"
    else
      echo "error: '$python -m venv' failed." >&2
      echo "" >&2
      echo "Install the venv module (Debian/Ubuntu: sudo apt-get install python3-venv) and run this again." >&2
      exit 1
    fi
  fi
fi

spec="."
[ -n "$extra" ] && spec=".[$extra]"
stamp="$VENV/.installed-$extra-$(cat pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  echo "setup: installing $spec into $VENV" >&2
  "$PY" -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
  # pip's own warnings (such as setuptools' editable-install banner) go to a log, shown only if the install fails
  mkdir -p .cache
  if ! "$PY" -m pip install -q --disable-pip-version-check -e "$spec" 2>.cache/pip-install.log; then
    cat .cache/pip-install.log >&2
    echo "error: installing $spec into $VENV failed; pip's messages are above (and in .cache/pip-install.log)." >&2
    exit 1
  fi
  touch "$stamp"
fi

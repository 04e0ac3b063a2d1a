#!/usr/bin/env bash
# Build the page: make .venv if needed, install, run build.py. Extra arguments go to build.py.
. "$(dirname "$0")/setup.sh" ""
"$PY" build.py "$@"
status=$?
if [ $status -eq 0 ] && [ $# -eq 0 ]; then
  echo "Open site/index.html in a browser (file://$(pwd)/site/index.html); the page is one file and works offline."
fi
exit $status

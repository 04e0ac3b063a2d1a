#!/usr/bin/env bash
# The Pages workflow's first step: build the page (scripts/build.sh) before any test. When the build refuses its
# inputs, its lines are this step's last output and the job summary ($GITHUB_STEP_SUMMARY, when set) names the file
# and each problem, so an author reads the loader's lines, not a wall of test failures.
log="$(mktemp)"
bash "$(dirname "$0")/build.sh" "$@" 2>"$log"
status=$?
cat "$log" >&2
if [ $status -ne 0 ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "## The page was not built"
    echo
    echo "The build refused its inputs (exit status $status), so nothing was tested or published."
    echo "Fix the problems below, each named by its file, then push again:"
    echo
    echo '```text'
    grep -v '^setup: ' "$log"
    echo '```'
  } >> "$GITHUB_STEP_SUMMARY"
fi
rm -f "$log"
exit $status

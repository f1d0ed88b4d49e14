#!/usr/bin/env bash
# Counts the tests a `ctest` run in BUILD_DIR ran: every gtest case (from the
# XML reports each gtest binary or shard writes to BUILD_DIR/test-results) plus
# every CTest test of another kind (the CLI script, the example runs). With a
# MINIMUM, fails when fewer ran: a test binary that stopped registering its
# cases, a glob that stopped matching or a shard that wrote nothing shows up
# here instead of as a quieter green run.
#
# Usage: scripts/count-tests.sh BUILD_DIR [MINIMUM]
set -euo pipefail
build=${1:?usage: count-tests.sh BUILD_DIR [MINIMUM]}
minimum=${2:-0}
results="$build/test-results"

reports=$(find "$results" -name '*.xml' 2>/dev/null | wc -l)
expected_reports=$(ctest --test-dir "$build" -N -L gtest | sed -n 's/^Total Tests: //p')
if [ "$reports" -ne "$expected_reports" ]; then
  echo "count-tests: $reports gtest reports in $results, expected $expected_reports (one per gtest test)" >&2
  exit 1
fi
cases=0
skipped=0
if [ "$reports" -gt 0 ]; then
  cases=$(cat "$results"/*.xml | grep -o '<testsuites tests="[0-9]*"' | grep -o '[0-9]*' | awk '{s += $1} END {print s + 0}')
  skipped=$(cat "$results"/*.xml | grep -c 'result="skipped"' || true)
fi
others=$(ctest --test-dir "$build" -N -LE gtest | sed -n 's/^Total Tests: //p')
total=$((cases + others))
echo "count-tests: $total tests ran ($cases gtest cases in $reports processes, $skipped of them skipped; $others other tests)"
if [ "$total" -lt "$minimum" ]; then
  echo "count-tests: $total tests ran, fewer than the minimum of $minimum (.ci/minimum-tests)" >&2
  exit 1
fi

#!/usr/bin/env bash
# Builds nasc and its tests and runs them all with ctest (the test command of the README).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NASC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" test
"$root/scripts/build.sh"
cd "$build"
ctest --output-on-failure -j2 "$@"

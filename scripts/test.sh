#!/usr/bin/env bash
# Builds nasc and its tests and runs them all with ctest (the test command of the README):
# once for this machine's CPU, and on x86-64 once more with the AVX2 level forced
# (NASC_CPU=x86-64-v3), so code for AVX2-only machines is tested on any machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NASC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" test
"$root/scripts/build.sh"
cd "$build"
echo "== tests for this machine's CPU =="
ctest --output-on-failure -j2 "$@"
if [ "$(uname -m)" = x86_64 ] && [ -z "${NASC_CPU:-}" ]; then
  echo "== tests with the AVX2 level forced (NASC_CPU=x86-64-v3) =="
  NASC_CPU=x86-64-v3 ctest --output-on-failure -j2 "$@"
fi

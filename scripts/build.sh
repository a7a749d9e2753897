#!/usr/bin/env bash
# Configures and builds nasc into build/ (Ninja + ccache). Extra args are ninja targets.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NASC_BUILD_DIR:-$root/build}
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${NASC_CMAKE_ARGS:-} >/dev/null
ninja -C "$build" "$@"

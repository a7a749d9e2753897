#!/usr/bin/env bash
# Runs clang-tidy-19 with the root .clang-tidy on C++ sources and fails (exit 1) on any finding.
# Usage: scripts/check-tidy.sh [FILE.cpp ...]
#   without files: the .cpp files that differ from HEAD~1 (the last commit and uncommitted
#   changes). Needs a configured build (compile_commands.json in $NASC_BUILD_DIR, default build/)
#   and clang-tidy-19 (apt-get install clang-tidy-19). A whole-tree run takes about an hour on 2
#   cores (LLVM's headers), so CI checks formatting (scripts/check-format.sh) and this runs by hand.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NASC_BUILD_DIR:-$root/build}
tidy=${CLANG_TIDY:-clang-tidy-19}
if ! command -v "$tidy" >/dev/null; then
  echo "check-tidy.sh: $tidy not found (apt-get install clang-tidy-19)" >&2
  exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check-tidy.sh: no $build/compile_commands.json (configure first: scripts/build.sh)" >&2
  exit 1
fi
cd "$root"
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git diff --name-only --diff-filter=d HEAD~1 -- '*.cpp')
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "check-tidy.sh: no changed .cpp files"
  exit 0
fi
# libstdc++ 12's std::stable_sort calls get_temporary_buffer, which clang 19 reports as deprecated
"$tidy" -p "$build" --quiet --warnings-as-errors='*' --extra-arg=-Wno-deprecated-declarations \
  "${files[@]}"
echo "check-tidy.sh: ${#files[@]} files clean"

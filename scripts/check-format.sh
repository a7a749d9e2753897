#!/usr/bin/env bash
# Fails (exit 1), naming each file, when a tracked C++ file (*.cpp, *.h) differs from what
# clang-format makes of it with the root .clang-format; with --fix, formats them in place.
# Usage: scripts/check-format.sh [--fix]   (clang-format-19: scripts/install-deps.sh test)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
format=${CLANG_FORMAT:-clang-format-19}
if ! command -v "$format" >/dev/null; then
  echo "check-format.sh: $format not found (scripts/install-deps.sh test)" >&2
  exit 1
fi
cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find codegen compiler ir polyhedral runtime test tools \
    -path tools/bench/node_modules -prune -o \( -name '*.cpp' -o -name '*.h' \) -print | sort)
fi
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$format" --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted by $format:" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "fix: scripts/check-format.sh --fix" >&2
  exit 1
fi
echo "check-format.sh: ${#files[@]} files formatted"

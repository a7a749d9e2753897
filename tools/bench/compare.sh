#!/usr/bin/env bash
# End-to-end speed of nasc against ONNX Runtime (CPU, npm onnxruntime-node) on torchvision CNNs.
#
# Usage: tools/bench/compare.sh [--nasc PATH] [--models "resnet18 resnet34 resnext50_32x4d"]
#                               [--shape 1x3x224x224] [--repeat R] [--threads N] [--out DIR]
#                               [--files "A.onnx B.onnx@SCHEDULE.json"]
#   --nasc     nasc binary (default $NASC, else build/tools/nasc under the repo root)
#   --models   torchvision model names known to tools/export_torchvision.py (default resnet18)
#   --files    ONNX files instead of --models; FILE@SCHEDULE runs nasc with `--schedule SCHEDULE`
#              (e.g. a search's OUT/schedule.json on the original: the searched network in nasc
#              against the original in ORT) and ORT on FILE itself
#   --shape    input shape NxCxHxW of the --models exports (default 1x3x224x224)
#   --repeat   timed runs per tool, each after one warm-up run (default $REPEAT, else 10)
#   --threads  threads for both tools (default 1)
#   --out      directory for the exported .onnx files, reused if present (default /tmp/nasc-bench)
# For each model it exports MODEL_SHAPE.onnx with /usr/bin/python3 tools/export_torchvision.py
# (once), runs `nasc bench` and tools/bench/ort_bench.js on that same file in the same run, and
# prints a table: median ms of each tool, nasc/ORT latency ratio, and GFLOP/s of each tool, both
# computed from the FLOP count nasc reports (2 FLOP per multiply-add). Installs onnxruntime-node
# with `npm install --ignore-scripts` if tools/bench/node_modules is missing. Exits non-zero on
# the first failing step.
set -euo pipefail

bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$bench_dir/../.." && pwd)"

nasc="${NASC:-$repo_root/build/tools/nasc}"
models="resnet18"
files=""
shape="1x3x224x224"
repeat="${REPEAT:-10}"
threads=1
out_dir="/tmp/nasc-bench"

# Prints $1 to stderr and exits 1.
die() { echo "compare.sh: $1" >&2; exit 1; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --nasc) nasc="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --files) files="$2"; shift 2 ;;
    --shape) shape="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --out) out_dir="$2"; shift 2 ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

[[ -x "$nasc" ]] || die "nasc binary '$nasc' not found or not executable (use --nasc or NASC=)"

# Installs onnxruntime-node (its CPU library ships prebuilt in the package) unless present.
ensure_onnxruntime() {
  if [[ ! -d "$bench_dir/node_modules/onnxruntime-node" ]]; then
    echo "installing onnxruntime-node into $bench_dir/node_modules" >&2
    (cd "$bench_dir" && npm install --ignore-scripts --no-audit --no-fund >&2)
  fi
}

# Prints the path of MODEL's .onnx at $shape, exporting it first if needed.
exported_model() {
  local model="$1" file="$out_dir/${1}_${shape}.onnx"
  if [[ ! -f "$file" ]]; then
    mkdir -p "$out_dir"
    /usr/bin/python3 "$repo_root/tools/export_torchvision.py" \
      --models "$model" --shape "$shape" --out "$out_dir" >&2
  fi
  echo "$file"
}

# Prints "MS GFLOP" from nasc's last line for model $1 (further arguments passed to nasc bench):
# `median latency: X ms over R runs, G GFLOP per run, Y GFLOP/s, T thread(s)`.
nasc_median_and_gflop() {
  local last
  last="$("$nasc" bench "$@" --repeat "$repeat" --threads "$threads" | tail -n 1)"
  [[ "$last" =~ ^median\ latency:\ ([0-9.]+)\ ms\ over\ [0-9]+\ runs,\ ([0-9.]+)\ GFLOP ]] \
    || die "cannot parse nasc bench output: '$last'"
  echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# Prints ORT's median ms from ort_bench.js's `ort_median_ms X` line.
ort_median() {
  local line
  line="$(node "$bench_dir/ort_bench.js" "$1" --threads "$threads" --repeat "$repeat" | tail -n 1)"
  [[ "$line" =~ ^ort_median_ms\ ([0-9.]+)$ ]] || die "cannot parse ort_bench.js output: '$line'"
  echo "${BASH_REMATCH[1]}"
}

ensure_onnxruntime
inputs="shape $shape"
[[ -z "$files" ]] || inputs="each file's own input shape"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $inputs, $threads thread(s), median of $repeat runs"
printf '%-18s %12s %10s %10s %14s %12s\n' model "nasc ms" "ORT ms" nasc/ORT "nasc GFLOP/s" "ORT GFLOP/s"
# Prints the table row of $1 (label): nasc on $2 with the further arguments, ORT on $2.
row() {
  local label="$1" file="$2" nasc_result nasc_ms gflop ort_ms
  shift
  nasc_result="$(nasc_median_and_gflop "$@")"
  read -r nasc_ms gflop <<< "$nasc_result"
  ort_ms="$(ort_median "$file")"
  awk -v m="$label" -v n="$nasc_ms" -v o="$ort_ms" -v g="$gflop" 'BEGIN {
    printf "%-18s %12.2f %10.2f %10.2f %14.2f %12.2f\n", m, n, o, n / o, g * 1000 / n, g * 1000 / o
  }'
}

if [[ -n "$files" ]]; then
  for entry in $files; do
    file="${entry%%@*}"
    [[ -f "$file" ]] || die "no file '$file'"
    if [[ "$entry" == *@* ]]; then
      row "$(basename "$file")+schedule" "$file" --schedule "${entry#*@}"
    else
      row "$(basename "$file")" "$file"
    fi
  done
  exit 0
fi
for model in $models; do
  row "$model" "$(exported_model "$model")"
done

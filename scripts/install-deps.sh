#!/usr/bin/env bash
# Installs everything nasc needs on Debian 12 from Debian's archive (apt-get only).
# Usage: scripts/install-deps.sh [build|bench|test]
#   build: compiler toolchain and libraries (enough for `nasc compile` and the demo; lld links
#          the libraries nasc compiles, faster than GNU ld), gnuplot
#          for `nasc search`'s pareto.svg, XGBoost for its cost model
#   bench: build + oneDNN (libdnnl-dev) for tools/bench/layer_bench, the per-layer benchmark
#   test:  bench + Python/PyTorch/ONNX for exporting test models, ONNX conformance data, the
#          AArch64 cross toolchain with qemu-user (the AArch64 tests, docs/targets.md),
#          clang-format-19 (the style check, scripts/check-format.sh); the test suite includes
#          a smoke run of layer_bench
set -euo pipefail
profile=${1:-build}

build_pkgs=(
  build-essential cmake ninja-build ccache pkg-config lld
  libisl-dev llvm-19-dev libeigen3-dev catch2 libcli11-dev
  libonnx-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev libcurl4-openssl-dev
  libsqlite3-dev gnuplot-nox libxgboost-dev
)
bench_pkgs=(libdnnl-dev)
test_pkgs=(
  python3-torch python3-torchvision python3-onnx python3-numpy
  libonnx-testdata dataset-fashion-mnist
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  clang-format-19
)

case "$profile" in
  build) pkgs=("${build_pkgs[@]}") ;;
  bench) pkgs=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
  test) pkgs=("${build_pkgs[@]}" "${bench_pkgs[@]}" "${test_pkgs[@]}") ;;
  *) echo "install-deps.sh: unknown profile '$profile' (build, bench or test)" >&2; exit 1 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

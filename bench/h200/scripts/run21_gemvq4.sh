#!/usr/bin/env bash
# H200 run 21 (gemvq4, issue 13): the q4gsw decode GEMV variants on Llama-3.2-1B Q4_0 (synth), < 60 s.
#   i8        today's GPU default (gemv_q4_i8.wgsl, 22-bit x in 3 byte planes; 32,8,2 below N 32768)
#   i8 8,32,4 the lm-head shape of the i8 kernel for every N (more rows per workgroup for gate/up, down)
#   s8        the bandwidth kernel (gemv_q4_s8.wgsl: x staged once per workgroup, subgroup tasks of RPT rows, U
#             loads in flight, subgroupAdd) at its shape rule (x in 3 byte planes, the i8 error bound), then forced
#             shapes RPT,TR,U,PLANES with int8 x (PLANES 1: llama.cpp's activation rounding, 1/3 of the dot work)
# Per-kernel rows: wgrt_bench_ops' BM_GemvQ4 (K x N, f32 scales) for i8 and s8. The release binaries must be
# built from a main that has gemv_q4_s8.wgsl (WGRT_GEMV_Q4_ROUTE=s8 is rejected by older ones).
# Usage (repo root on the H200 machine): bash bench/h200/scripts/run21_gemvq4.sh
set -u
source .devlibs/env.sh
W=${WGRT:-.devlibs/new/wgrt}; OPS=${OPS:-.devlibs/new/wgrt_bench_ops}
M=/tmp/m; mkdir -p $M
[ -f $M/l1b-Q4_0.gguf ] || $W synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
tg() {  # label, env...
  local label=$1; shift
  echo "-- $label: $(env "$@" timeout 40 $W bench -m $M/l1b-Q4_0.gguf -p 128 -n 64 -r 2 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
}
echo "== tg64 at depth 128, pipelined"
tg "i8 (default)"
tg "s8 rule (3 planes)" WGRT_GEMV_Q4_ROUTE=s8
tg "s8 4,8,2,1 (int8 x)" WGRT_GEMV_Q4_ROUTE=s8 WGRT_GEMV_Q4_S8=4,8,2,1
tg "s8 2,8,4,1" WGRT_GEMV_Q4_ROUTE=s8 WGRT_GEMV_Q4_S8=2,8,4,1
tg "s8 8,8,2,1" WGRT_GEMV_Q4_ROUTE=s8 WGRT_GEMV_Q4_S8=8,8,2,1
tg "i8 8,32,4" WGRT_GEMV_Q4_ROUTE=i8 WGRT_GEMV_Q4=8,32,4
if [ -x "$OPS" ]; then
  for r in i8 s8 s8,4,8,2,1; do
    echo "== bench_ops BM_GemvQ4 route $r"
    WGRT_GEMV_Q4_ROUTE=${r%%,*} WGRT_GEMV_Q4_S8=$( [ "$r" = "${r#*,}" ] || echo "${r#*,}") timeout 30 $OPS --benchmark_filter='BM_GemvQ4' --benchmark_min_time=0.05 2>&1 | grep -E '^BM_GemvQ4'
  done
else
  echo "(no $OPS: per-kernel rows skipped)"
fi

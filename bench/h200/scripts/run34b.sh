#!/usr/bin/env bash
# H200 run 34b (fourteenth session), ~8 min: the GPUs' rows rule for the block GEMV with the RMSNorm folded in
# (ggml_gemv_norm_rpt: 4 rows of W per invocation from 8192 rows, the gate/up GEMVs) on (default) and off
# (WGRT_GEMV_KQ_NORM_RPT=0), one binary; then llama.cpp's Vulkan llama-bench (fa 1, median of 5) on the same files.
# Lines:
#   -- OPS on|off BM_... | GPU us |   wgrt_bench_ops: fused gate/up (norm + SwiGLU, int8 x staged) at the 0.5B's and
#                                     the 1B's shapes (Q5_0 K 896 x 2 * 4864; Q4_K / Q6_K K 2048 x 2 * 8192)
#   -- DEC on|off FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), alternating
#   -- LLAMA FILE                     llama-bench rows (lib.sh lb)
# Usage: bash bench/h200/scripts/run34b.sh
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
F='BM_GemvGgmlFused/6/896/4864/1/1/2/|BM_GemvGgmlFused/(12|14)/2048/8192/1/1/2/'
for r in 1 2; do for v in on off; do e=; [ $v = off ] && e=WGRT_GEMV_KQ_NORM_RPT=0
  env $e timeout 100 .devlibs/new/wgrt_bench_ops --benchmark_filter="$F" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
  quantize $s-Q4_K_M $pre Q4_K_M --init-std 0.2
  quantize $s-lq-Q4_0 $pre Q4_0 --init-std 0.2
done
dec() { local e=; [ $1 = off ] && e=WGRT_GEMV_KQ_NORM_RPT=0
  echo "-- DEC $1 $2 d$3 $(env $e timeout 40 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do
  for r in 1 2; do for f in q05-Q4_K_M l1b-Q4_K_M; do dec on $f $d; dec off $f $d; done; done
  dec on q05-lq-Q4_0 $d; dec on l1b-lq-Q4_0 $d
done
llama_bench
for f in q05-Q4_K_M l1b-Q4_K_M q05-lq-Q4_0 l1b-lq-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
echo "== done"

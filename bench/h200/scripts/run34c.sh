#!/usr/bin/env bash
# H200 run 34c (fourteenth session), ~6 min: an experiment for the narrow block GEMVs (o- and down-projections: few
# rows of W, long K, so RPT 2 gives few workgroups): 1 row of W per invocation below WGRT_GEMV_KQ_NARROW_N rows
# (off by default) against the default, with the fused-norm rows rule (run 34b) on in both; llama.cpp's Vulkan
# llama-bench (fa 1, median of 5) on the Q4_K_M files in the same lease.
# Lines:
#   -- OPS off|n4096 BM_... | GPU us |   wgrt_bench_ops: ffn_down of the 0.5B (K 4864 x 896) and the 1B (8192 x 2048)
#   -- DEC off|n4096 FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), alternating
#   -- LLAMA FILE                        llama-bench rows (lib.sh lb)
# Usage: bash bench/h200/scripts/run34c.sh
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
F='BM_GemvGgml/(12|14)/4864/896/1/2/|BM_GemvGgml/(12|14)/8192/2048/1/2/'
for r in 1 2; do for v in off n4096; do e=; [ $v = n4096 ] && e=WGRT_GEMV_KQ_NARROW_N=4096
  env $e timeout 100 .devlibs/new/wgrt_bench_ops --benchmark_filter="$F" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do quantize ${p##*:}-Q4_K_M ${p%%:*} Q4_K_M --init-std 0.2; done
dec() { local e=; [ $1 = n4096 ] && e=WGRT_GEMV_KQ_NARROW_N=4096
  echo "-- DEC $1 $2 d$3 $(env $e timeout 40 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for r in 1 2; do for f in q05-Q4_K_M l1b-Q4_K_M; do dec off $f $d; dec n4096 $f $d; done; done; done
llama_bench
for f in q05-Q4_K_M l1b-Q4_K_M; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
echo "== done"

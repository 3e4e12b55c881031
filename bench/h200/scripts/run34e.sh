#!/usr/bin/env bash
# H200 run 34e (fourteenth session), ~4 min: main with the block GEMV's rows rules (runs 34b-34d) against llama.cpp's
# Vulkan llama-bench (fa 1, median of 5) on the Q4_K_M files; then an experiment for the q4gsw GEMV (lq-Q4_0 files):
# its int8 kernel at 1 row of W per invocation for every width (WGRT_GEMV_Q4=32,8,1) against the default.
# Lines: -- DEC LABEL FILE dD | tg128 |  (wgrt bench tg128 pipelined, -r 3);  -- LLAMA FILE  (lib.sh lb rows)
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do quantize ${p##*:}-Q4_K_M ${p%%:*} Q4_K_M --init-std 0.2; done
dec() { local l=$1 f=$2 d=$3; shift 3
  echo "-- DEC $l $f d$d $(env "$@" timeout 40 $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for f in q05-Q4_K_M l1b-Q4_K_M; do dec main $f $d; done; done
llama_bench
for f in q05-Q4_K_M l1b-Q4_K_M; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do quantize ${p##*:}-lq-Q4_0 ${p%%:*} Q4_0 --init-std 0.2; done
for f in q05-lq-Q4_0 l1b-lq-Q4_0; do dec main $f 128; dec q4rpt1 $f 128 WGRT_GEMV_Q4=32,8,1; dec main $f 128; dec q4rpt1 $f 128 WGRT_GEMV_Q4=32,8,1; done
echo "== done"

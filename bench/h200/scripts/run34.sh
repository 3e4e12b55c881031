#!/usr/bin/env bash
# H200 run 34 (fourteenth session), ~9 min: the block GEMV's 2-byte aligned formats without word_at's branch
# (new: Q5_0 blocks from 6 aligned words through q5_0_block, Q6_K's int8 code runs from 5 aligned words through
# words4_at, the Q6_K scales from 3) against main (old). The Q6_K part doubled the LM head's time and was dropped
# after this run (BENCHMARKS.md); the Q5_0 part landed.
# Lines:
#   -- OPS old|new[ RPT R] BM_... | GPU us |  wgrt_bench_ops: Q5_0 / Q8_0 at Qwen2-0.5B's K 896 (q/o 896, k/v 128
#                                            rows; fused gate/up 2 x 4864) against the fused q4gsw GEMV at the same
#                                            shape; the Q6_K LM head (2048 x 128256) in its own process
#   -- DEC old|new FILE dD | tg128 |          wgrt bench tg128 pipelined (-r 3), binaries alternating
#   -- IDS old|new FILE                       32 greedy ids (must be equal)
# Needs .devlibs/new/{wgrt,wgrt_old,wgrt_bench_ops,wgrt_bench_ops_old}. Usage: bash bench/h200/scripts/run34.sh
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
F='BM_GemvGgml/(6|8)/896/|BM_GemvGgmlFused/6/896/|BM_GemvQ4Fused/896/'
ops() {  # ops LABEL BINARY FILTER [VAR=VALUE...]
  local l=$1 b=$2 f=$3; shift 3
  env "$@" timeout 120 $b --benchmark_filter="$f" --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v="$l" '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
}
echo "== block GEMV at K 896, old / new, then new at RPT 1 / 4"
for r in 1 2; do
  ops old .devlibs/new/wgrt_bench_ops_old "$F"; ops new .devlibs/new/wgrt_bench_ops "$F"
done
for R in 1 4; do ops "new RPT $R" .devlibs/new/wgrt_bench_ops "$F" WGRT_GEMV_GGML=blocks,$R; done
echo "== Q6_K LM head, fresh processes"
for r in 1 2; do
  ops old .devlibs/new/wgrt_bench_ops_old 'BM_GemvGgml/14/2048/128256/1/2/'
  ops new .devlibs/new/wgrt_bench_ops 'BM_GemvGgml/14/2048/128256/1/2/'
done
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
  quantize $s-Q4_K_M $pre Q4_K_M --init-std 0.2
  quantize $s-lq-Q4_0 $pre Q4_0 --init-std 0.2
done
bin() { case $1 in old) echo .devlibs/new/wgrt_old;; *) echo "$N";; esac; }
for f in q05-Q4_K_M l1b-Q4_K_M; do for v in old new; do
  echo "-- IDS $v $f $(timeout 60 $(bin $v) generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids 2>&1 >/dev/null | grep '^generated ids')"
done; done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $(bin $1) bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do
  for r in 1 2; do dec old q05-Q4_K_M $d; dec new q05-Q4_K_M $d; done
  dec new q05-lq-Q4_0 $d
  for r in 1 2; do dec old l1b-Q4_K_M $d; dec new l1b-Q4_K_M $d; done
done
echo "== done"

#!/usr/bin/env bash
# H200 run 24b (seventh session), ~7 min: the block GEMV's aligned loads (gemv_kq.wgsl words2_at / words4_at: Q6_K's
# 210-byte and Q8_0's 34-byte blocks alternate 2-byte alignment from lane to lane, and word_at's branch ran both
# paths for a warp) old vs new binary, then `wgrt serve` with the final multi-row rule (16x16x4 from 3 rows).
# Lines:
#   -- OPS old|new BM_GemvGgml/TYPE/K/N/M/X | GPU us |   wgrt_bench_ops, X 2 int8 staged, 3 int8 pass (Q4_K 12,
#        Q6_K 14, Q8_0 8; N 128256 = the 1B LM head)
#   -- DEC old|new FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), binaries alternating
#   -- SERVE FILE: serve_bench.py 1/2/4/8 streams (128 tokens x 2 requests per stream, warm-up per level)
# Outcome (log bench/h200/run24b_2026-12-02.log; its OPS rows came from a rerun in the same lease, libbenchmark being
# missing from .devlibs on the first pass): the aligned loads were mixed (Q6_K M 8 -12%, the Q6_K LM head +9%;
# lavapipe Q6_K prefill 2x slower) and were not kept; the serving rows are the committed rule's.
# Needs .devlibs/new/{wgrt,wgrt_old,wgrt_bench_ops,wgrt_bench_ops_old}. Usage (repo root, H200): bash bench/h200/scripts/run24b.sh
set -u; source bench/h200/scripts/lib.sh
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
peer_files
quantize l1b-lq-Q4_0 llama-3.2-1b Q4_0 --init-std 0.2  # llama.cpp's own Q4_0 (its LM head type)
echo "== block GEMV, old / new"
for v in old new; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  timeout 120 $b --benchmark_filter='BM_GemvGgml/[0-9]+/2048/[0-9]+/(1|8)/(2|3)/' --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done
echo "== decode tg128, old / new"
for f in l1b-Q4_K_M q05-Q4_K_M l1b-lq-Q4_0 l1b-Q4_0; do for d in 128 2048; do for v in old new; do b=.devlibs/new/wgrt; [ $v = old ] && b=${b}_old
  echo "-- DEC $v $f d$d $(timeout 60 $b bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done; done
echo "== serve 1/2/4/8 streams (new)"
serve_rows l1b-Q4_0 l1b-Q4_K_M
echo "== done"

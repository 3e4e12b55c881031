#!/usr/bin/env bash
# H200 run 25 (eighth session), ~6 min: Q8_0 in the block GEMV read as 9 aligned words funnelled by a select
# (gemv_kq.wgsl q8_0_block: a 34-byte block alternates 4- and 2-byte alignment from lane to lane, and word_at's
# branch ran both paths for a warp), old vs new binary. GPUs keep RPT 2 (the by-type rows are a CPU-adapter rule).
# Lines:
#   -- OPS old|new BM_GemvGgml/8/K/N/M/X | GPU us |   wgrt_bench_ops, Q8_0, X 2 int8 staged, 3 int8 pass (N 128256 =
#        the 1B LM head of llama.cpp's Q4_0 file)
#   -- DEC old|new FILE dD | tg128 |   wgrt bench tg128 pipelined (-r 3), binaries alternating; l1b-lq-Q4_0 is
#        llama.cpp's own Q4_0 (Q8_0 LM head), l1b-Q4_0 the synthesized one (no Q8_0: the control)
# Needs .devlibs/new/{wgrt,wgrt_old,wgrt_bench_ops,wgrt_bench_ops_old}. Usage (repo root, H200): bash bench/h200/scripts/run25.sh
set -u; source bench/h200/scripts/lib.sh
export TMPDIR=${TMPDIR:-/tmp}
"$N" info 2>&1 | grep -i "block-format"
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-lq-Q4_0 llama-3.2-1b Q4_0 --init-std 0.2  # llama.cpp's own Q4_0 (its LM head type)
echo "== Q8_0 block GEMV, old / new"
for r in 1 2; do for v in old new; do b=.devlibs/new/wgrt_bench_ops; [ $v = old ] && b=${b}_old
  timeout 150 $b --benchmark_filter='BM_GemvGgml/8/2048/[0-9]+/[0-9]+/(2|3)/' --benchmark_min_time=0.2 2>&1 |
    grep -E '^BM_' | awk -v v=$v '{print "-- OPS " v " " $1 " | " $2 " " $3 " |"}'
done; done
echo "== decode tg128, old / new"
for f in l1b-lq-Q4_0 l1b-Q4_0; do for d in 128 2048; do for v in old new old new; do b=.devlibs/new/wgrt; [ $v = old ] && b=${b}_old
  echo "-- DEC $v $f d$d $(timeout 60 $b bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done; done
echo "== done"

#!/usr/bin/env bash
# H200 run 23 (prefill, issue 13): the int8 prefill GEMMs' software pipeline (PF: the next K slice's loads in
# flight during this slice's products; WGRT_GEMM_MMQ_PIPELINE=0|1, both int8 kernels), tile variants, and split K
# for the q4gsw int8 GEMM where its grid is small (WGRT_GEMM_MMQ_SPLITK=target workgroups; 0 = off, the default).
#  1. wgrt_bench_ops BM_GemmMmq: GPU time of the GEMM kernel alone and TOPS (int8 ops), q4gsw (Q4_0 files) and
#     Q4_K (Q4_K_M files), at the 1B prefill shapes M 512 / 2048 x (K 2048: N 2048, 512, 8192; K 8192: N 2048),
#     variants: rule pf0 (the default before), rule pf1, rule pf1 split 1024 (q4gsw only; time incl. the reduce),
#     64x64 kb4 pf1, 128x128 pf1, and workgroups of 128 invocations (WGRT_GEMM_MMQ_TILE's 5th field): 32x64 pf1,
#     64x64 pf1 and pf0 (8x4 outputs per invocation).
#  2. wgrt bench -p 512 / 2048 -n 4 -r 3 on the 1B Q4_0 file, pipeline off / on and three forced tiles; Q4_K_M
#     pipeline off / on.
#  3. One per-kernel prefill profile (1B Q4_0, ~660-token prompt, pipeline on).
# Decides: the GPU defaults of WGRT_GEMM_MMQ_PIPELINE (on if the Q4_0 pp512 and pp2048 rows of part 2 gain) and
# WGRT_GEMM_MMQ_SPLITK (1024 if its rows gain), and whether the tile rule takes the 128-invocation tiles (part 1:
# per shape, the fastest tile at each grid size; part 2: whole-model rows). Part 3 says where the prefill time
# goes then. Budget about 4 minutes.
# Usage (repo root on the H200 machine, release binaries in .devlibs/new): bash bench/h200/scripts/run23_prefill.sh
set -u
source bench/h200/scripts/lib.sh
B=${BENCH_OPS:-.devlibs/new/wgrt_bench_ops}
timeout 20 "$N" info 2>&1 | grep -E "int8 GEMM"
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
echo "== 1. int8 GEMM kernel alone (us, TOPS), per shape and variant"
# One process per shape (run 23 mid: one process for all 112 rows printed nothing: killed by its timeout with its
# output still buffered in the pipe).
if [ -x "$B" ]; then
  for s in 512/2048/2048 512/2048/512 512/2048/8192 512/8192/2048 2048/2048/2048 2048/2048/512 2048/2048/8192 2048/8192/2048; do
    timeout 30 stdbuf -oL "$B" --benchmark_min_time=0.05 --benchmark_filter="BM_GemmMmq/$s/" 2>&1 | grep -E '^BM_' |
      awk '{sub("/manual_time", "", $1); l=""; for (i = 7; i <= NF; i++) l = l " " $i; printf "%s %s us%s\n", $1, $2, l}'
  done
else echo "(no $B: kernel rows skipped)"; fi
echo "== 2. wgrt bench prefill (tok/s)"
pp() {  # FILE TOKENS VAR=VALUE...: the pp row of one wgrt bench
  local f=$1 t=$2
  shift 2
  env "$@" timeout 40 "$N" bench -m "$M/$f.gguf" -p "$t" -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' '
}
for v in "pf0|WGRT_GEMM_MMQ_PIPELINE=0" "pf1|WGRT_GEMM_MMQ_PIPELINE=1" \
         "pf1 64x64 kb4|WGRT_GEMM_MMQ_PIPELINE=1 WGRT_GEMM_MMQ_TILE=64,64,4" \
         "pf1 split 1024|WGRT_GEMM_MMQ_PIPELINE=1 WGRT_GEMM_MMQ_SPLITK=1024" \
         "pf1 32x64 wg128|WGRT_GEMM_MMQ_PIPELINE=1 WGRT_GEMM_MMQ_TILE=32,64,2,1,128" \
         "pf1 64x64 wg128|WGRT_GEMM_MMQ_PIPELINE=1 WGRT_GEMM_MMQ_TILE=64,64,2,1,128"; do
  # shellcheck disable=SC2086  # the assignments are a word list on purpose
  echo "-- l1b-Q4_0 ${v%%|*}: $(pp l1b-Q4_0 512 ${v#*|}) $(pp l1b-Q4_0 2048 ${v#*|})"
done
for v in "pf0|WGRT_GEMM_MMQ_PIPELINE=0" "pf1|WGRT_GEMM_MMQ_PIPELINE=1"; do
  # shellcheck disable=SC2086
  echo "-- l1b-Q4_K_M ${v%%|*}: $(pp l1b-Q4_K_M 512 ${v#*|}) $(pp l1b-Q4_K_M 2048 ${v#*|})"
done
echo "== 3. profile, 1B Q4_0 prefill of a ~660-token prompt, pipeline on"
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_r23.txt','w').write(' '.join(random.choice(w) for _ in range(520)))"
WGRT_GEMM_MMQ_PIPELINE=1 timeout 30 "$N" generate -m "$M/l1b-Q4_0.gguf" -f /tmp/p_r23.txt -n 1 -c 4096 \
  --prefill-chunk 2048 --profile 2>&1 >/dev/null | grep -vE '^(model|Once)' | head -14
echo "== done"

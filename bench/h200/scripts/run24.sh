#!/usr/bin/env bash
# H200 run 24 (seventh session), ~9 min: the multi-row q4 GEMV shape (route 4 of the q4 linear: 16x16x4 from 2
# rows of x, tuning gemv_q4_multi_*; issue 15's 8-stream goal) and the decode attention's 16 V rows per step
# (sdpa_decode_vstep, WGRT_SDPA_DECODE_V=16; issue 13's depth goal), against llama.cpp's Vulkan llama-bench on
# the same files in the same run. Lines:
#   -- BB FILE LABEL | rows | step ms | tok/s | vs 1 row | dispatches |   wgrt_bench_batch rows 1,2,4,8, depth 128
#        default (multi-row shape from 2 rows), WGRT_GEMV_Q4_MULTI_ROWS=0 (run 23's one shape), =4
#   -- SERVE FILE [VAR]: serve_bench.py 1/2/4/8 streams (128 tokens x 2 requests per stream, warm-up per level)
#   -- DEC FILE dD VSTEP V: `wgrt bench` tg128 pipelined at depth D (-r 3)
#   -- llama-bench fa1 tg128 at d128, d2048 (-r 5; median) and the matrix-cores-off prefill of the 1B files
# Decisions: the multi rule's row count from the BB rows (the smallest count where it beats 0); VSTEP 16 the GPU
# default if its d2048 rows beat 4 on every file without a d128 loss beyond the noise (~1%).
# Outcome (log bench/h200/run24_2026-12-02.log): VSTEP 16 was slower on every row (1B Q4_0 d2048 859 -> 816), so
# the knob was taken out again after the run (its rows now run the default twice); the multi-row rule moved to 3
# rows (2 rows: 2.57 ms vs 2.51 with one shape).
# Needs .devlibs/new/{wgrt,wgrt_bench_batch} from this tree. Usage (repo root, H200): bash bench/h200/scripts/run24.sh
set -u; source bench/h200/scripts/lib.sh
BB=${BB:-.devlibs/new/wgrt_bench_batch}
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
peer_files  # $FILES: l1b / q05 Q4_0 and Q4_K_M; the tuning policy; llama-bench
bb() {  # LABEL FILE ROWS STEPS [VAR=VALUE...]
  local label=$1 f=$2 rows=$3 steps=$4
  shift 4
  env "$@" timeout 40 "$BB" -m "$M/$f.gguf" --rows "$rows" --depth 128 --steps "$steps" --ctx 1024 2>&1 |
    grep -E '^\| [0-9]' | sed "s/^/-- BB $f $label /"
}
echo "== bench_batch: the multi-row GEMV shape"
for f in l1b-Q4_0 l1b-Q4_K_M; do
  bb "default" $f 1,2,3,4,8 32
  bb "MULTI_ROWS=0" $f 1,2,3,4,8 32 WGRT_GEMV_Q4_MULTI_ROWS=0
done
bb "MULTI=32,8,4" l1b-Q4_0 2,4,8 32 WGRT_GEMV_Q4_MULTI=32,8,4
bb "MULTI=8,32,4" l1b-Q4_0 2,4,8 32 WGRT_GEMV_Q4_MULTI=8,32,4
echo "== serve 1/2/4/8 streams"
serve_rows l1b-Q4_0 l1b-Q4_K_M
echo "== decode tg128 pipelined, VSTEP 4 / 16"
for f in $FILES; do for d in 128 2048; do for v in 4 16; do
  echo "-- DEC $f d$d VSTEP $v $(WGRT_SDPA_DECODE_V=$v timeout 60 $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done; done
echo "== llama-bench fa1 tg128 @ d128,d2048 (-r 5)"
for f in $FILES; do echo "-- $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
echo "== decode profile at depth ~2000, l1b-Q4_0, VSTEP 4 / 16 (attention rows)"
python3 -c "
import random; random.seed(1); w='the cat sat on a mat and then it ran far away to see what was there'.split()
open('/tmp/p_long.txt','w').write(' '.join(random.choice(w) for _ in range(960)))"
for v in 4 16; do
  WGRT_SDPA_DECODE_V=$v timeout 60 "$N" generate -m "$M/l1b-Q4_0.gguf" -f /tmp/p_long.txt -n 129 --temp 0 -c 4096 --profile 2>&1 >/dev/null |
    grep -E 'sdpa_decode|total GPU|^load' | sed "s/^/-- PROF VSTEP $v /"
done
echo "== done"

#!/usr/bin/env bash
# H200 run 23, serving attention (issue 15, branch serveattn), ~3.5 min: the serving batch's attention on the
# decode route (wgrt.sdpa_batched -> sdpa_batched_decode.wgsl: the G query heads of a kv head share each K/V
# row load, split-KV from the step's longest row; tuning sdpa_batched_decode_rows, WGRT_SDPA_BATCHED) against the
# scores route (sdpa_batched.wgsl, WGRT_SDPA_BATCHED=0; run 22: 85-95 us per layer at 1 and 8 rows), on
# Llama-3.2-1B Q4_0 and Q4_K_M synths. Lines:
#   -- BB FILE attn=on|off | rows | step ms | tok/s | vs 1 row | dispatches |   wgrt_bench_batch rows 1,2,4,8
#        (BatchLlm::step, 8 slots at depth 128, 32 steps per row count; step ms is the median)
#   -- PROFILE FILE rows R: top kernels of the 1- and 8-row steps (attention on): sdpa_batched_decode.wgsl
#        main/combine mean us against run 22's 85-95 us for sdpa_batched.wgsl
#   -- SPLIT FILE WGRT_SDPA_SPLIT=...: the same step with the decode split rule from 64 keys (info: at depth 128
#        neither route splits by default; this says whether a split helps the batched step)
#   -- GEMV FILE VAR=VALUE: rows 1,8 with the 8-row GEMV moved (WGRT_GEMV_MAX_ROWS=4: 8 rows to the int8 GEMM)
#        or the q4 int8 GEMV shape forced (WGRT_GEMV_Q4=TK,TR,RPT): what else scales badly from 1 to 8 rows
#   -- SERVE FILE: serve_bench.py 1/2/4/8 streams (aggregate tok/s, TTFT, ITL), attention on
# Decisions: attn=on step ms below attn=off at every row count -> keep the default (every row count); on slower
# from some row count R -> sdpa_batched_decode_rows = the largest count where on wins; on slower at 1 row ->
# WGRT_SDPA_BATCHED default 0. A SPLIT row faster than attn=on at 8 rows -> note for the split rule (not a default
# here: it moves single-stream decode too). A GEMV row faster at 8 rows -> a follow-up rule for multi-row GEMVs.
# Needs .devlibs/new/wgrt and .devlibs/new/wgrt_bench_batch built from this branch (release).
# Usage (repo root on the H200 machine): bash bench/h200/scripts/run23_serveattn.sh
set -u; source bench/h200/scripts/lib.sh
BB=${BB:-.devlibs/new/wgrt_bench_batch}
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
FILES=""
for f in l1b-Q4_0 l1b-Q4_K_M; do [ -s "$M/$f.gguf" ] && FILES="$FILES $f"; done
"$N" info 2>&1 | grep -E 'serving-batch attention|split-KV' | sed 's/^/-- INFO /'
bb() {  # LABEL FILE ROWS STEPS [VAR=VALUE...]: bench_batch rows as labelled lines
  local label=$1 f=$2 rows=$3 steps=$4
  shift 4
  env "$@" timeout 30 "$BB" -m "$M/$f.gguf" --rows "$rows" --depth 128 --steps "$steps" --ctx 1024 2>&1 |
    grep -E '^\| [0-9]' | sed "s/^/-- $label $f /"
}
echo "== bench_batch attention on / off"
for f in $FILES; do
  bb "BB attn=on" "$f" 1,2,4,8 32
  bb "BB attn=off" "$f" 1,2,4,8 32 WGRT_SDPA_BATCHED=0
done
echo "== profile rows 1,8 (attention on)"
for f in $FILES; do
  timeout 30 "$BB" -m "$M/$f.gguf" --rows 1,8 --depth 128 --steps 16 --ctx 1024 --profile 2>&1 | grep -vE '^\|' |
    awk -v f="$f" '/^==/{n=0; r=$2} {if (n++ < 9) print "-- PROFILE " f " rows " r ": " $0}'
done
echo "== split from 64 keys (info)"
bb "SPLIT WGRT_SDPA_SPLIT=64,32,512" l1b-Q4_0 1,8 16 WGRT_SDPA_SPLIT=64,32,512
echo "== multi-row GEMV (q4gsw)"
bb "GEMV default" l1b-Q4_0 1,8 16
bb "GEMV WGRT_GEMV_MAX_ROWS=4" l1b-Q4_0 1,8 16 WGRT_GEMV_MAX_ROWS=4
bb "GEMV WGRT_GEMV_Q4=16,16,4" l1b-Q4_0 1,8 16 WGRT_GEMV_Q4=16,16,4
bb "GEMV WGRT_GEMV_Q4=32,8,4" l1b-Q4_0 1,8 16 WGRT_GEMV_Q4=32,8,4
echo "== serve 1/2/4/8 streams (attention on)"
for f in $FILES; do
  timeout 50 python3 bench/serve_bench.py --wgrt "$N" --streams 1,2,4,8 --max-tokens 128 --requests 2 --warmup-tokens 16 \
    -- -m "$M/$f.gguf" --ctx 1024 --parallel 8 2>&1 | grep -E '^\|' | sed "s/^/-- SERVE $f /"
done
echo "== done"

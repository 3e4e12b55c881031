#!/usr/bin/env bash
# H200 run 21 (attndec, issue 13): decode attention on the new kernel (src/ops/attention/sdpa_decode.wgsl: the G
# query heads of a kv head per workgroup, vec4 K/V rows read once per split, split-KV from the live key count,
# combine only when split) vs the previous path (WGRT_SDPA_DECODE=0: sdpa_flash.wgsl narrow + combine), and a
# sweep of the split rule WGRT_SDPA_SPLIT=MIN_CONTEXT,MIN_CHUNK,TARGET_WORKGROUPS (default 256,128,512).
# Llama-3.2-1B Q4_0 (synth), tg64 pipelined after a 128- and a 2048-token prompt; then the op alone
# (wgrt_bench_attention: GPU us per decode step at context 128/640/2048/4096, route 0 = new, 3 = previous).
# About 50 s. Usage (repo root on the H200 machine, release binaries in .devlibs/new):
#   bash bench/h200/scripts/run21_attndec.sh
set -u
source .devlibs/env.sh
N=${WGRT:-.devlibs/new/wgrt}
M=/tmp/m; mkdir -p $M
[ -f $M/l1b-Q4_0.gguf ] || $N synth --preset llama-3.2-1b --type q4_0 -o $M/l1b-Q4_0.gguf >/dev/null
"$N" info 2>&1 | grep -i "attention"
run() {  # label, env assignments...
  local label=$1; shift
  for p in 128 2048; do
    echo "-- $label p$p: $(env "$@" "$N" bench -m $M/l1b-Q4_0.gguf -p $p -n 64 -r 2 --tg-mode pipelined -c 4096 2>&1 | grep -E '^\| tg' | tr -s ' ')"
  done
}
run "new (default 256,128,512)" WGRT_SDPA_DECODE=1
run "previous (WGRT_SDPA_DECODE=0)" WGRT_SDPA_DECODE=0
run "new split 64,64,512" WGRT_SDPA_SPLIT=64,64,512
run "new split 512,256,256" WGRT_SDPA_SPLIT=512,256,256
B=.devlibs/new/wgrt_bench_attention
[ -x $B ] && $B --benchmark_filter='route:(0|3)/' 2>&1 | grep -E "BM_Sdpa" \
  || echo "(no $B: op rows skipped)"

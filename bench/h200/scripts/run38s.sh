#!/usr/bin/env bash
# Run 38s (eighteenth session), ~2 min, for a lease of under 3 minutes: BM_SdpaDecode GPU time (f32 caches, Hq 32
# Hkv 8 D 64) for WGRT_SDPA_DECODE_LANES 0 (sdpa_decode.wgsl) / 16 / 8, alternating, then the 1B Q4_0 decode tg128
# pipelined at depths 2048 and 128 for lanes 0 and 16.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
for L in 0 16 8 0 16; do
  WGRT_SDPA_DECODE_LANES=$L timeout 30 .devlibs/new/wgrt_bench_attention \
    --benchmark_filter='BM_SdpaDecode/ctx:(128|2048)/route:0' --benchmark_min_time=0.2 2>&1 |
    grep BM_ | awk -v L=$L '{print "-- ATT lanes " L " " $0}' | tr -s ' ' | cut -c1-160
done
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
for L in 0 16 0 16; do for d in 2048 128; do
  echo "-- DEC lanes $L d$d $(WGRT_SDPA_DECODE_LANES=$L timeout 40 $N bench -m $M/l1b-Q4_0.gguf -p $d -n 128 -r 2 \
    --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
echo "== done"

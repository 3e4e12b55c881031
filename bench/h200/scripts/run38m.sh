#!/usr/bin/env bash
# Run 38m (eighteenth session), ~3 min, the short form of run38.sh for the last device minutes: the subgroup decode
# attention (WGRT_SDPA_DECODE_LANES = lanes per key; 0 = sdpa_decode.wgsl) in one binary on wgrt's own Q4_0 files
# of the 1B and 0.5B shapes: greedy tokens per setting, BM_SdpaDecode GPU time (f32 caches, Hq 32 Hkv 8 D 64), and
# decode tg128 pipelined -r 3 at depths 128 and 2048, settings alternating, two passes.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:|subgroup' | head -2
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
for L in 0 16 8; do
  for f in l1b-Q4_0 q05-Q4_0; do
    h=$(WGRT_SDPA_DECODE_LANES=$L timeout 60 $N generate -m $M/$f.gguf -p "Once upon a time" -n 300 --temp 0 2>/dev/null |
      md5sum | cut -c1-12)
    echo "-- SAME lanes $L $f $h"
  done
done
for L in 0 16 8; do
  WGRT_SDPA_DECODE_LANES=$L timeout 60 .devlibs/new/wgrt_bench_attention \
    --benchmark_filter='BM_SdpaDecode/ctx:(128|2048|4096)/route:0' --benchmark_min_time=0.2 2>&1 |
    grep BM_ | awk -v L=$L '{print "-- ATT lanes " L " " $0}' | tr -s ' ' | cut -c1-160
done
timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1
dec() {
  echo "-- DEC lanes $1 $2 d$3 $(WGRT_SDPA_DECODE_LANES=$1 timeout 60 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 \
    --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
}
for pass in 1 2; do
  for f in l1b-Q4_0 q05-Q4_0; do for d in 2048 128; do for L in 0 16 8; do dec $L $f $d; done; done; done
done
echo "== done"

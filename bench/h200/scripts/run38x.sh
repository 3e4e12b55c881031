#!/usr/bin/env bash
# Run 38x (nineteenth session), ~1.5 min, after run38.sh in the same lease: the subgroup decode attention with
# fewer, longer splits. Its workgroup walks a chunk in fewer steps than sdpa_decode.wgsl's, so a larger split chunk
# (WGRT_SDPA_SPLIT=MIN_CONTEXT,MIN_CHUNK,TARGET) may pay for fewer partials in the combine. Decode tg128 pipelined
# -r 3 on the 1B Q4_0 and Q4_K_M files at depth 2048 (and 128 as a control), lanes 0 / 16 / 8 x chunk 64 / 128 / 256.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
row() { echo "-- SPLIT lanes $1 chunk $2 $3 d$4 $(WGRT_SDPA_DECODE_LANES=$1 WGRT_SDPA_SPLIT=128,$2,512 timeout 60 $N bench -m $M/$3.gguf -p $4 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in l1b-Q4_0 l1b-Q4_K_M; do
  for L in 0 16 8; do for c in 64 128 256; do row $L $c $f 2048; done; done
  for L in 0 16; do row $L 128 $f 128; done
done
echo "== done"

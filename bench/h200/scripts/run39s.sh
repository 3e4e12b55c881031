#!/usr/bin/env bash
# Run 39s (nineteenth session), at most 5 min, for the last device minutes: greedy tokens (300) of the 1B Q4_K_M file
# with WGRT_SDPA_DECODE_LANES 0 (sdpa_decode.wgsl) and 16, decode tg128 pipelined -r 3 at depths 2048 and 128 for
# lanes 0 / 16 alternating on the 1B Q4_K_M and Q4_0 files, then llama.cpp's llama-bench (fa 1, -r 3) on the 1B Q4_K_M.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
for L in 0 16; do
  echo "-- SAME lanes $L $(WGRT_SDPA_DECODE_LANES=$L timeout 40 $N generate -m $M/l1b-Q4_K_M.gguf -p "Once upon a time" -n 300 --temp 0 2>/dev/null | md5sum | cut -c1-12)"
done
dec() { echo "-- DEC lanes $1 $2 d$3 $(WGRT_SDPA_DECODE_LANES=$1 timeout 40 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for pass in 1 2; do for d in 2048 128; do for L in 0 16; do dec $L l1b-Q4_K_M $d; done; done; done
llama_bench
echo "-- LLAMA l1b-Q4_K_M"; lb -m $M/l1b-Q4_K_M.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
for d in 2048 128; do for L in 0 16; do dec $L l1b-Q4_0 $d; done; done
echo "== done"

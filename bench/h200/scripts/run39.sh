#!/usr/bin/env bash
# Run 39 (nineteenth session), ~5 min, right after run38.sh in the same lease (its files in $M are reused): decode
# peer ratios for a subgroup decode attention setting. `bash bench/h200/scripts/run39.sh L` runs llama.cpp's
# llama-bench (Vulkan, fa 1, tg128 at depths 128 and 2048, -r 5) and wgrt's decode tg128 pipelined -r 3 at the same
# depths with WGRT_SDPA_DECODE_LANES=L and =0 (sdpa_decode.wgsl), alternating, on the 1B and 0.5B Q4_0 and Q4_K_M files.
set -u; source bench/h200/scripts/lib.sh
L=${1:-16}
"$N" info 2>&1 | grep -iE 'device:' | head -1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
llama_bench
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M q05-Q4_K_M; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1
dec() { echo "-- DEC lanes $1 $2 d$3 $(WGRT_SDPA_DECODE_LANES=$1 timeout 60 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in l1b-Q4_0 q05-Q4_0 l1b-Q4_K_M q05-Q4_K_M; do
  for d in 128 2048; do dec 0 $f $d; dec $L $f $d; done
done
echo "== done"

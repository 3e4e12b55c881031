#!/usr/bin/env bash
# Run 39c (nineteenth session), one call of at most ~9 min, for a session whose device minutes allow one lease: the
# subgroup decode attention (WGRT_SDPA_DECODE_LANES = lanes per key; 0 = sdpa_decode.wgsl) and llama.cpp's decode in
# the same lease, most decisive rows first. Greedy tokens per setting (300 tokens), decode tg128 pipelined -r 3 at
# depths 2048 and 128 for lanes 0 / 16 / 8 on the 1B Q4_0 and Q4_K_M and the 0.5B Q4_K_M files, llama.cpp's
# llama-bench (fa 1, -r 5) on the same files and depths, then a second pass of the wgrt rows.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:|subgroup' | head -2
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
F="l1b-Q4_0 l1b-Q4_K_M q05-Q4_K_M"
for L in 0 16 8; do for f in l1b-Q4_K_M q05-Q4_K_M; do
  echo "-- SAME lanes $L $f $(WGRT_SDPA_DECODE_LANES=$L timeout 60 $N generate -m $M/$f.gguf -p "Once upon a time" -n 300 --temp 0 2>/dev/null | md5sum | cut -c1-12)"
done; done
timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1
dec() { echo "-- DEC lanes $1 $2 d$3 $(WGRT_SDPA_DECODE_LANES=$1 timeout 60 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in $F; do for d in 2048 128; do for L in 0 16 8; do dec $L $f $d; done; done; done
llama_bench
for f in $F; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
for f in $F; do for d in 2048 128; do for L in 8 16 0; do dec $L $f $d; done; done; done
WGRT_SDPA_DECODE_LANES=16 timeout 30 .devlibs/new/wgrt_bench_attention --benchmark_filter='BM_SdpaDecode/ctx:(128|2048)/route:0' --benchmark_min_time=0.2 2>&1 | grep BM_ | tr -s ' ' | cut -c1-120
echo "== done"

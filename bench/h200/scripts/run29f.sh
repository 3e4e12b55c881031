#!/usr/bin/env bash
# H200 run 29f (twelfth session), ~8 min: main after this session's commits (f16 KV cache, the combine's loads)
# against llama.cpp's Vulkan llama-bench in the same lease: decode tg128 at depths 128 and 2048 (fa 1, median of
# 5), prefill pp512 / pp2048 (matrix cores off, median of 3), on the 1B and 0.5B Q4_0, lq-Q4_0 and Q4_K_M files.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
quantize l1b-lq-Q4_0 llama-3.2-1b Q4_0 --init-std 0.2
quantize q05-lq-Q4_0 qwen2.5-0.5b Q4_0 --init-std 0.2
dec() { echo "-- DEC $1 d$2 $(timeout 40 $N bench -m $M/$1.gguf -p $2 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for f in l1b-Q4_K_M l1b-Q4_0 l1b-lq-Q4_0 q05-Q4_K_M q05-Q4_0 q05-lq-Q4_0; do dec $f $d; done; done
for f in l1b-Q4_0 l1b-Q4_K_M; do for p in 512 2048; do
  echo "-- PRE $f $(timeout 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done
llama_bench
for f in l1b-Q4_K_M l1b-Q4_0 l1b-lq-Q4_0 q05-Q4_K_M q05-Q4_0 q05-lq-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- LLAMA-PP $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
done
echo "== done"

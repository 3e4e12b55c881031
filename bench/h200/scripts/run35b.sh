#!/usr/bin/env bash
# H200 run 35b (fifteenth session), part B, ~5 min, in run 35's lease (its files in $M): llama.cpp's Vulkan
# llama-bench on the same files: decode tg128 at depths 128 and 2048 (fa 1, median of 5) and prefill pp512 / pp2048
# (fa 1, median of 3) with matrix cores off (issue 13's like-for-like peer) and on (coopmat2, for the record).
set -u; source bench/h200/scripts/lib.sh
llama_bench
for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- LLAMA-PP nocoopmat $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
  echo "-- LLAMA-PP coopmat $f"; lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
done
echo "== done"

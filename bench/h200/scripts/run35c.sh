#!/usr/bin/env bash
# H200 run 35c (fifteenth session), ~8 min, one lease: main with the GPU prefill chunk of 2048 (tuning.cpp) against
# llama.cpp's Vulkan llama-bench on run 35's files. Prefill pp512 / pp2048 (wgrt bench -r 3 at the default chunk;
# llama.cpp fa 1 with matrix cores off, median of 3) on the 1B and 0.5B Q4_0 and Q4_K_M files; decode tg128 at
# depths 128 and 2048 (wgrt bench pipelined -r 5, two passes; llama.cpp fa 1, median of 5) on the Q4_K_M and
# lq-Q4_0 files. Two throwaway benches first (the first rows after a machine starts are noisy).
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do
  synth ${p##*:}-Q4_0 ${p%%:*} q4_0 --init-std 0.2
  quantize ${p##*:}-Q4_K_M ${p%%:*} Q4_K_M --init-std 0.2; quantize ${p##*:}-lq-Q4_0 ${p%%:*} Q4_0 --init-std 0.2
done
for i in 1 2; do timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1; done
for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0 q05-Q4_K_M; do
  echo "-- PRE $f $(timeout 60 $N bench -m $M/$f.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ') $(timeout 60 $N bench -m $M/$f.gguf -p 2048 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done
dec() { echo "-- DEC $1 d$2 $(timeout 60 $N bench -m $M/$1.gguf -p $2 -n 128 -r 5 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for pass in 1 2; do for d in 128 2048; do for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do dec $f $d; done; done; done
llama_bench
for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0 q05-Q4_K_M; do
  echo "-- LLAMA-PP nocoopmat $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
done
echo "== done"

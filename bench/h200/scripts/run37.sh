#!/usr/bin/env bash
# Run 37 (seventeenth session), ~8 min, one lease: greedy tokens of both binaries compared, then Q6_K's 212-byte GPU blocks (ops::ggml_to_gpu_layout) against
# main's 210-byte ones (.devlibs/new/wgrt_old), alternating, on the Q4_K_M files (Q6_K LM head / token embedding,
# attn_v and ffn_down in half the layers) and a Q6_K file of the 0.5B: decode tg128 pipelined -r 3 at depths 128
# and 2048, prefill pp512 -r 3, two passes. Then, for the peer ratio, llama.cpp's llama-bench on the Q4_K_M
# files (decode fa 1 at depths 128 and 2048; prefill pp512 / pp2048 with matrix cores off) and the new binary's
# pp2048.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
quantize q05-Q6_K qwen2.5-0.5b Q6_K --init-std 0.2
OLD=.devlibs/new/wgrt_old
# Same tokens: 48 greedy tokens from each binary (the kernels' arithmetic is unchanged, only where words are read).
for f in l1b-Q4_K_M q05-Q4_K_M q05-Q6_K; do
  a=$(timeout 60 $OLD generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | md5sum | cut -c1-12)
  b=$(timeout 60 $N generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | md5sum | cut -c1-12)
  echo "-- SAME $f old $a new $b $([ "$a" = "$b" ] && echo equal || echo DIFFERENT)"
done
for i in 1 2; do timeout 60 $N bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1; done
dec() { echo "-- DEC $(basename $1) $2 d$3 $(timeout 60 $1 bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
pre() { echo "-- PRE $(basename $1) $2 $(timeout 60 $1 bench -m $M/$2.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"; }
for pass in 1 2; do
  for f in l1b-Q4_K_M q05-Q4_K_M q05-Q6_K; do
    for d in 128 2048; do dec $OLD $f $d; dec $N $f $d; done
    pre $OLD $f; pre $N $f
  done
done
for f in l1b-Q4_K_M q05-Q4_K_M; do
  echo "-- PRE2048 $f $(timeout 60 $N bench -m $M/$f.gguf -p 2048 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done
llama_bench
for f in l1b-Q4_K_M q05-Q4_K_M; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
  echo "-- LLAMA-PP nocoopmat $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
done
echo "== done"

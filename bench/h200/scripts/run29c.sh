#!/usr/bin/env bash
# H200 run 29c (twelfth session), ~5 min: the decode split rule (WGRT_SDPA_SPLIT min_context,min_chunk,target)
# swept again with the f16 KV cache, 1B Q4_0 / Q4_K_M at depths 2048 and 128; then prefill pp512 and pp2048.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
for d in 2048 128; do for f in l1b-Q4_0 l1b-Q4_K_M; do
  for s in 128,64,512 128,128,512 128,128,1024 128,64,1024 128,256,512 128,64,256; do
    sweep "$f d$d split $s" $f "-p $d -n 128 -r 3 --tg-mode pipelined" WGRT_SDPA_SPLIT=$s
  done
done; done
for f in l1b-Q4_0 l1b-Q4_K_M; do for p in 512 2048; do
  echo "-- PRE $f $(timeout 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done
echo "== done"

#!/usr/bin/env bash
# Run 40h (twentieth session): run 40's table cut to about 3.5 minutes for a lease with little device time left
# (most decisive rows first): decode tg128 pipelined -r 3 at depths 128 and 2048 on the four files, llama.cpp
# fa 1 -r 3 on the same, then pp512 of the 1B files against llama.cpp with matrix cores off.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
peer_files >/dev/null
timeout 40 $N bench -m $M/l1b-Q4_0.gguf -p 128 -n 64 -r 1 --tg-mode pipelined >/dev/null 2>&1
dec() { echo "-- DEC $1 d$2 $(timeout 40 $N bench -m $M/$1.gguf -p $2 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in $FILES; do for d in 2048 128; do dec $f $d; done; done
for f in $FILES; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1; done
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- PRE $f $(timeout 40 $N bench -m $M/$f.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
  echo "-- LLAMA-PP nocoopmat $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512 -n 0 -fa 1
done
echo "== done"

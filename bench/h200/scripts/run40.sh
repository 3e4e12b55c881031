#!/usr/bin/env bash
# Run 40 (twentieth session), one call of at most ~9 min: issue 13's whole table on the lease's GPU with main's
# defaults (decode attention on the subgroup kernel, 16 lanes per key), wgrt and llama.cpp in the same lease.
# Files: wgrt's Q4_0 synths and llama.cpp-quantized Q4_K_M of Llama-3.2-1B and Qwen2.5-0.5B (std-0.2 weights).
#   decode  tg128 pipelined -r 3 at depths 128 and 2048, two passes; llama.cpp fa 1 -r 5 at the same depths
#   prefill pp512 / pp2048 -r 3; llama.cpp fa 1 -r 3 with matrix cores off (the like-for-like peer) and on
#   cold    process start to first token of the 1B Q4_0 (wgrt generate -n 1), disk cache cold then warm
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:|subgroup' | head -2
peer_files
timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1
dec() { echo "-- DEC $1 d$2 $(timeout 60 $N bench -m $M/$1.gguf -p $2 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in $FILES; do for d in 2048 128; do dec $f $d; done; done
for f in $FILES; do echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
for f in $FILES; do for p in 512 2048; do
  echo "-- PRE $f $(timeout 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done
for f in $FILES; do
  echo "-- LLAMA-PP nocoopmat $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
  echo "-- LLAMA-PP coopmat $f"; lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
done
for f in $FILES; do for d in 128 2048; do dec $f $d; done; done
t() { local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1; e=$(date +%s%N); echo "$(( (e - s) / 1000000 )) ms"; }
rm -rf /tmp/wc
for i in cold warm warm; do echo "-- COLD $i $(t env WGRT_CACHE_DIR=/tmp/wc timeout 60 $N generate -m $M/l1b-Q4_0.gguf -p Hello -n 1)"; done
echo "== done"

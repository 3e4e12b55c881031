#!/usr/bin/env bash
# Run 37d (seventeenth session), ~2 min: an experiment binary (.devlibs/new/wgrt_e2) with Q6_K's GPU blocks padded
# to 224 bytes (16-byte aligned), whose int8 chunk loads the codes and scales as vec4s (5 loads per chunk and row
# instead of 15), against main (wgrt, 212-byte blocks), alternating, on the 1B Q4_K_M: greedy tokens compared,
# the per-kernel profile (64 tokens), decode tg128 pipelined -r 3 at depths 128, 2048 and 128 again (the device
# budget left allowed no more).
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
E2=.devlibs/new/wgrt_e2
for f in l1b-Q4_K_M; do
  a=$(timeout 60 $N generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | md5sum | cut -c1-12)
  b=$(timeout 60 $E2 generate -m $M/$f.gguf -p "Once upon a time" -n 48 --temp 0 2>/dev/null | md5sum | cut -c1-12)
  echo "-- SAME $f main $a e2 $b $([ "$a" = "$b" ] && echo equal || echo DIFFERENT)"
done
for b in $N $E2; do
  echo "-- PROFILE $(basename $b)"
  timeout 90 $b generate -m $M/l1b-Q4_K_M.gguf -p "Once upon a time" -n 64 --temp 0 --profile 2>&1 >/dev/null | grep -E 'gemv_kq|gemm_mmq|total GPU'
done
dec() { echo "-- DEC $(basename $1) $2 d$3 $(timeout 60 $1 bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
pre() { echo "-- PRE $(basename $1) $2 $(timeout 60 $1 bench -m $M/$2.gguf -p 512 -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"; }
for d in 128 2048 128; do dec $N l1b-Q4_K_M $d; dec $E2 l1b-Q4_K_M $d; done
echo "== done"

#!/usr/bin/env bash
# Run 37c (seventeenth session), ~4 min, another lease: what landed (Q6_K's 212-byte GPU blocks; the f32 chunk's
# aligned word loads; the GPU's int8 chunk still reading through word_at, run 37b) against main (wgrt_old),
# alternating: greedy tokens compared, decode tg128 pipelined -r 3 at depths 128 and 2048 and prefill pp512 -r 3 on
# the 1B Q4_K_M, 0.5B Q4_K_M and 0.5B Q6_K files, two passes.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
quantize q05-Q6_K qwen2.5-0.5b Q6_K --init-std 0.2
OLD=.devlibs/new/wgrt_old
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
echo "== done"

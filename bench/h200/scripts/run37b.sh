#!/usr/bin/env bash
# Run 37b (seventeenth session), ~4 min, same lease as run 37: where the 1B Q4_K_M's decode lost 2.5% with Q6_K's
# 212-byte blocks. Per-kernel GPU time (`generate --profile`, 64 greedy tokens) of main (wgrt_old) and the padded
# blocks (wgrt); then decode tg128 at depth 128, alternating, of wgrt_old, wgrt and wgrt_e1 (padded blocks, the
# GPU's int8 Q6_K chunk still reading through word_at) on the 1B Q4_K_M and 0.5B Q6_K files, two passes.
set -u; source bench/h200/scripts/lib.sh
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q6_K qwen2.5-0.5b Q6_K --init-std 0.2
OLD=.devlibs/new/wgrt_old; E1=.devlibs/new/wgrt_e1
for b in $OLD $N; do
  echo "-- PROFILE $(basename $b)"
  timeout 90 $b generate -m $M/l1b-Q4_K_M.gguf -p "Once upon a time" -n 64 --temp 0 --profile 2>&1 >/dev/null | grep -vE '^\s*$' | head -40
done
dec() { echo "-- DEC $(basename $1) $2 d$3 $(timeout 60 $1 bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for pass in 1 2; do for f in l1b-Q4_K_M q05-Q6_K; do for b in $OLD $N $E1; do dec $b $f 128; done; done; done
echo "== done"

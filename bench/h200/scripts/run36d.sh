#!/usr/bin/env bash
# Run 36d (sixteenth session), ~3 min, same lease as run 36c: the decode kernel's P·V step with 8 V loads issued
# together instead of 4 (a slot of a 64-key chunk holds 8 keys: one memory round trip instead of two), an
# experiment binary .devlibs/new/wgrt_e1 against main ($N), alternating, decode tg128 pipelined -r 3 at depths
# 2048 and 128 on the 1B Q4_0 / Q4_K_M and 0.5B Q4_0 files, two passes; then wgrt_e1 with 128-key chunks
# (WGRT_SDPA_SPLIT=128,128,512) at depth 2048.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
E1=.devlibs/new/wgrt_e1
one() { echo "-- $1 $2 d$3 $(timeout 60 $1 bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for pass in 1 2; do for d in 2048 128; do for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0; do one $N $f $d; one $E1 $f $d; done; done; done
for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0; do
  echo "-- e1 split 128,128,512 $f d2048 $(WGRT_SDPA_SPLIT=128,128,512 timeout 60 $E1 bench -m $M/$f.gguf -p 2048 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
echo "== done"

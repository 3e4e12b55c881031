#!/usr/bin/env bash
# Run 36b (sixteenth session), ~4 min, one lease. Needs the experiment binary: sdpa_decode_body.wgsl with WG an
# override (64 or 128) set by WGRT_SDPA_DECODE=1,WG. After run 36 (larger workgroups: slower at both depths), the
# smaller one: 64 invocations = 64 keys per tile, so a 64-key split chunk keeps every lane busy in the score phase
# (4 P·V slots instead of 8). Decode tg128 pipelined -r 3, two passes, 1B Q4_0 / Q4_K_M and 0.5B Q4_0 at depths
# 2048 and 128, then greedy text (24 tokens after a ~670-token prompt) under each setting (the same text expected).
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
for i in 1 2; do timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1; done
timeout 60 $N bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 16 -r 1 --tg-mode pipelined >/dev/null 2>&1
cfgs=("1,128 128,64,512" "1,64 128,64,512" "1,64 128,32,512")
for pass in 1 2; do for d in 2048 128; do for f in l1b-Q4_0 l1b-Q4_K_M q05-Q4_0; do for c in "${cfgs[@]}"; do
  sweep "DEC $f d$d wg,split=${c// /;}" $f "-p $d -n 128 -r 3 --tg-mode pipelined" WGRT_SDPA_DECODE=${c%% *} WGRT_SDPA_SPLIT=${c##* }
done; done; done; done
P=$(python3 -c "print(' '.join(['the cat sat on the mat and looked at the dog'] * 10))")
for f in l1b-Q4_K_M q05-Q4_0; do for c in "${cfgs[@]}"; do
  echo "-- GEN $f wg,split=${c// /;} $(WGRT_SDPA_DECODE=${c%% *} WGRT_SDPA_SPLIT=${c##* } timeout 60 $N generate -m $M/$f.gguf -p "$P" -n 24 --temp 0 2>/dev/null | tail -c 160 | tr "\n" " ")"
done; done
echo "== done"

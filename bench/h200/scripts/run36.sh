#!/usr/bin/env bash
# Run 36 (sixteenth session; ran on an H100, log bench/h200/run36_2026-12-06.log), ~4 min, one lease. Needs the
# experiment binary, not landed: sdpa_decode_body.wgsl with WG an override (128, 256, 512; MAX_SLOTS 32) set by
# WGRT_SDPA_DECODE=1,WG. It measured the decode attention kernel's workgroup size (keys per tile,
# WGRT_SDPA_DECODE=1,WG) with the split rule's chunk a multiple of it (WGRT_SDPA_SPLIT), on the 1B Q4_0 and
# Q4_K_M files at depths 128 and 2048 (wgrt bench pipelined -r 3, two passes), then greedy text at depth ~900
# under each setting (the same text expected).
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
for i in 1 2; do timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1; done
timeout 60 $N bench -m $M/l1b-Q4_K_M.gguf -p 512 -n 16 -r 1 --tg-mode pipelined >/dev/null 2>&1
cfgs=("1,128 128,64,512" "1,256 128,256,512" "1,512 128,512,512" "1,512 128,256,512" "1,256 128,128,512" "1,512 128,512,1024")
for pass in 1 2; do for d in 2048 128; do for f in l1b-Q4_0 l1b-Q4_K_M; do for c in "${cfgs[@]}"; do
  sweep "DEC $f d$d wg,split=${c// /;}" $f "-p $d -n 128 -r 3 --tg-mode pipelined" WGRT_SDPA_DECODE=${c%% *} WGRT_SDPA_SPLIT=${c##* }
done; done; done; done
P=$(python3 -c "print(' '.join(['the cat sat on the mat and looked at the dog'] * 80))")
for c in "${cfgs[@]}"; do
  echo "-- GEN wg,split=${c// /;} $(WGRT_SDPA_DECODE=${c%% *} WGRT_SDPA_SPLIT=${c##* } timeout 60 $N generate -m $M/l1b-Q4_K_M.gguf -p "$P" -n 24 --temp 0 2>/dev/null | tail -c 200 | md5sum)"
done
echo "== done"

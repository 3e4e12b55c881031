#!/usr/bin/env bash
# H200 run 28e (eleventh session), ~5 min: the landed binary's decode split rule (WGRT_SDPA_SPLIT =
# MIN_CONTEXT,MIN_CHUNK,TARGET_WORKGROUPS; default 128,64,256) with the parallel combine, more splits at depth.
# Lines: -- SPLIT rule f dD | tg128 |.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
sp() { echo "-- SPLIT $1 $2 d$3 $(WGRT_SDPA_SPLIT=$1 timeout 40 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for f in l1b-Q4_0 l1b-Q4_K_M; do
  for s in 128,64,256 128,64,512 128,32,512 128,32,256; do sp $s $f 2048; done
  for s in 128,64,256 128,32,256; do sp $s $f 128; done
done
echo "== done"

#!/usr/bin/env bash
# H200 run 29 (twelfth session), ~8 min: the f16 KV cache (the default now) against --cache-type f32 in the same
# binary, decode tg128 at depths 128 and 2048 on the 1B and 0.5B Q4_0 / Q4_K_M files; 32 greedy ids of both.
# Lines: -- IDS ct f: md5 of 32 greedy ids, -- DEC ct f dD | tg128 |.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
synth q05-Q4_0 qwen2.5-0.5b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
quantize q05-Q4_K_M qwen2.5-0.5b Q4_K_M --init-std 0.2
for f in l1b-Q4_K_M l1b-Q4_0; do for ct in f16 f32; do
  echo "-- IDS $ct $f: $(timeout 60 $N generate -m $M/$f.gguf -p 'Once upon a time' -n 32 --temp 0 --ids --cache-type $ct 2>&1 >/dev/null | grep 'generated ids' | md5sum | cut -c1-12)"
done; done
dec() { echo "-- DEC $1 $2 d$3 $(timeout 40 $N bench -m $M/$2.gguf -p $3 -n 128 -r 3 --tg-mode pipelined --cache-type $1 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 2048 128; do
  for f in l1b-Q4_K_M l1b-Q4_0 q05-Q4_K_M q05-Q4_0; do dec f16 $f $d; dec f32 $f $d; done
done
echo "== done"

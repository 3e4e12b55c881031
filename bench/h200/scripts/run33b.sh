#!/usr/bin/env bash
# H200 run 33b (thirteenth session), ~8 min: main with Qwen2's bias in the RoPE epilogue against llama.cpp's Vulkan
# llama-bench in the same lease (decode tg128 at depths 128 and 2048, fa 1, median of 5) on the 1B and 0.5B Q4_K_M
# and lq-Q4_0 files; then where the 0.5B Q4_K_M decode step's time goes against its lq-Q4_0 (`generate --profile`,
# 64 tokens after a short prompt, the kernel table).
set -u; source bench/h200/scripts/lib.sh
for p in llama-3.2-1b:l1b qwen2.5-0.5b:q05; do pre=${p%%:*}; s=${p##*:}
  quantize $s-Q4_K_M $pre Q4_K_M --init-std 0.2
  quantize $s-lq-Q4_0 $pre Q4_0 --init-std 0.2
done
dec() { echo "-- DEC $1 d$2 $(timeout 40 $N bench -m $M/$1.gguf -p $2 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"; }
for d in 128 2048; do for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do dec $f $d; done; done
llama_bench
for f in l1b-Q4_K_M l1b-lq-Q4_0 q05-Q4_K_M q05-lq-Q4_0; do
  echo "-- LLAMA $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1
done
for f in q05-Q4_K_M q05-lq-Q4_0; do
  echo "-- PROFILE $f"
  timeout 60 $N generate -m $M/$f.gguf -p 'Once upon a time there was' -n 64 --temp 0 --profile 2>&1 >/dev/null | head -24
done
echo "== done"

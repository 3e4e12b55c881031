#!/usr/bin/env bash
# H200 run 20 (issue 13 direction 2, sampling): decode tok/s with sampling (temperature 0.8, top-p 0.95) on the
# GPU (wgrt.sample, pipelined GPU-resident loop) vs the CPU sampler (every token's logits read back) vs greedy,
# Llama-3.2-1B and Qwen2.5-0.5B Q4_0 (synthesized), 3 repetitions each; then end-to-end `wgrt generate`
# (GPU sampling on / off via WGRT_GPU_SAMPLING) and a determinism check (same seed twice).
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt
$N info 2>&1 | sed -n '/Tuning policy/,$p'
$N synth --preset llama-3.2-1b --type q4_0 -o $M/llama-3.2-1b-Q4_0.gguf >/dev/null || echo "synth failed"
$N synth --preset qwen2.5-0.5b --type q4_0 -o $M/qwen2.5-0.5b-Q4_0.gguf >/dev/null || echo "synth failed"
S="--temp 0.8 --top-p 0.95 --seed 1"
for f in $M/llama-3.2-1b-Q4_0.gguf $M/qwen2.5-0.5b-Q4_0.gguf; do
  b=$(basename $f)
  echo "== $b tg128 greedy pipelined"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg'
  echo "== $b tg128 sample GPU ($S)"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode sample $S 2>&1 | grep -E '^\| tg'
  echo "== $b tg128 sample CPU ($S)"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode sample-cpu $S 2>&1 | grep -E '^\| tg'
  echo "== $b tg128 sample GPU top-k 40 top-p 0.95 min-p 0.05 repeat-penalty 1.1"
  $N bench -m $f -p 128 -n 128 -r 3 --tg-mode sample --temp 0.8 --top-k 40 --top-p 0.95 --min-p 0.05 --repeat-penalty 1.1 --seed 1 2>&1 | grep -E '^\| tg'
  echo "== $b tg128 logits (read back every token, no sampling)"; $N bench -m $f -p 128 -n 128 -r 3 --tg-mode logits 2>&1 | grep -E '^\| tg'
done
f=$M/llama-3.2-1b-Q4_0.gguf
for gs in 1 0; do
  echo "== generate WGRT_GPU_SAMPLING=$gs -n 256 $S"
  WGRT_GPU_SAMPLING=$gs $N generate -m $f -p "Once upon a time" -n 256 $S 2>&1 >/dev/null | grep -E "tok/s"
done
echo "== determinism: generate twice, same seed (GPU sampling)"
a=$($N generate -m $f -p "Once upon a time" -n 64 $S 2>/dev/null | md5sum); b=$($N generate -m $f -p "Once upon a time" -n 64 $S 2>/dev/null | md5sum)
echo "run1 $a"; echo "run2 $b"; [ "$a" = "$b" ] && echo "same" || echo "DIFFERENT"

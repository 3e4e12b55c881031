#!/usr/bin/env bash
# Sampling decode, GPU draw (wgrt.sample) vs the CPU sampler, on the default adapter (lavapipe here):
# `wgrt bench --tg-mode sample` (the draw on the GPU, GPU-resident loop when the tuning pipelines decode) against
# `--tg-mode sample-cpu` (every token's logits read back and drawn by text::Sampler, what generate did before) and
# `--tg-mode greedy`, interleaved, ROUNDS rounds. Usage: bench/run_sampling_bench.sh MODEL.gguf [P N ROUNDS]
# Env: WGRT (default build/wgrt), SAMPLING (default "--temp 0.8 --top-p 0.95 --seed 1").
set -euo pipefail
m=$1; p=${2:-32}; n=${3:-32}; rounds=${4:-3}
wgrt=${WGRT:-build/wgrt}
s=${SAMPLING:---temp 0.8 --top-p 0.95 --seed 1}
for r in $(seq "$rounds"); do
  for mode in greedy sample sample-cpu; do
    extra=""; [ "$mode" = greedy ] || extra=$s
    t=$($wgrt bench -m "$m" -p "$p" -n "$n" -r 1 --tg-mode $mode $extra 2>&1 | grep -E '^\| tg' | awk -F'|' '{print $3}')
    echo "round $r $mode tg$n: $t"
  done
done

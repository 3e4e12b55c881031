#!/usr/bin/env bash
# H200 run 29d (twelfth session): where decode attention's time goes at depth: `generate --profile` of 64 decode
# tokens after a ~100- and a ~2000-token prompt (1B Q4_0), the attention kernels' lines.
set -u; source bench/h200/scripts/lib.sh
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
short=$(printf 'hello %.0s' $(seq 1 12)); long=$(printf 'hello %.0s' $(seq 1 250))  # 8 tokens each
for p in short long; do
  echo "-- PROFILE $p"
  timeout 60 $N generate -m $M/l1b-Q4_0.gguf -p "${!p}" -n 64 --temp 0 --profile 2>&1 >/dev/null | grep -E -i "sdpa|combine|kernel|total|prompt|gemv_kq|q4gsw" | head -30
done
echo "== done"

#!/usr/bin/env bash
# Run 36c (sixteenth session), ~2 min, one lease: where the 1B's decode at depth goes. `generate --profile`
# (per-kernel GPU time under timestamp queries) on the 1B Q4_0 and Q4_K_M files, 128 greedy tokens after a
# ~134-token and a ~2010-token prompt (the synth vocabulary's tokens of 20 / 300 words), plus the decode rate
# without the profiler at both depths.
set -u; source bench/h200/scripts/lib.sh
"$N" info 2>&1 | grep -iE 'device:' | head -1
synth l1b-Q4_0 llama-3.2-1b q4_0 --init-std 0.2
quantize l1b-Q4_K_M llama-3.2-1b Q4_K_M --init-std 0.2
for i in 1 2; do timeout 60 $N bench -m $M/l1b-Q4_0.gguf -p 512 -n 128 -r 2 --tg-mode pipelined >/dev/null 2>&1; done
for f in l1b-Q4_0 l1b-Q4_K_M; do for rep in 2 30; do
  P=$(python3 -c "print(' '.join(['the cat sat on the mat and looked at the dog'] * $rep))")
  echo "-- PROFILE $f words $((rep * 10))"
  timeout 90 $N generate -m $M/$f.gguf -p "$P" -n 128 --temp 0 --profile 2>&1 >/dev/null | grep -vE '^\s*$' | tail -30
  echo "-- RATE $f words $((rep * 10)) $(timeout 90 $N generate -m $M/$f.gguf -p "$P" -n 128 --temp 0 2>&1 >/dev/null | grep -E '^load')"
done; done
echo "== done"

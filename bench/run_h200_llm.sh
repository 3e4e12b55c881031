#!/usr/bin/env bash
# End-to-end speed check on the H200 (device tool): wgrt bench on the smollm2-135m and llama-3.2-1b synth presets
# (random Q4_0 weights), pp128 / tg64, 3 repetitions, plus the device's tuning policy (wgrt info). Expects a
# stripped wgrt in $BIN (default .devlibs), like run_h200.sh. Usage: BIN=.devlibs bash bench/run_h200_llm.sh
set -u
[ -f .devlibs/env.sh ] && source .devlibs/env.sh
BIN=${BIN:-.devlibs}
M=${MODELS:-/tmp/wgrt-models}
mkdir -p "$M"
echo "== info"; "$BIN/wgrt" info | sed -n '/Tuning policy/,$p'
for p in smollm2-135m llama-3.2-1b; do
  "$BIN/wgrt" synth --preset "$p" --type q4_0 -o "$M/$p.gguf" > /dev/null
  echo "== bench $p q4_0 pp128/tg64"; "$BIN/wgrt" bench -m "$M/$p.gguf" -p 128 -n 64 -r 3
done

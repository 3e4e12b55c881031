#!/usr/bin/env bash
# wgrt decode/prefill speed per llama.cpp file type on the same weights (issue 12's goal: K-quant decode within
# 10% of Q4_0 decode on the same GPU). `wgrt synth` writes an F16 model of PRESET's shape, llama.cpp's own
# quantizer (build/tests/wgrt_llamacpp_helper, node-llama-cpp's CPU libllama) makes each TYPE from it, and
# `wgrt bench` runs each file (tg N after a pp P prompt, R repetitions). Prints a markdown table with the decode
# rate relative to Q4_0.
#
# Usage: bench/run_quant_types.sh   (env: WGRT=build/wgrt, HELPER=build/tests/wgrt_llamacpp_helper,
#        LIBDIR=bench/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64 (the folder with libllama.v0.4.0.so;
#        on the H200 carry a copy of it), OUT=bench/results/quant, PRESET=llama-3.2-1b, TYPES="Q4_0 Q4_K_M Q6_K
#        Q8_0 Q5_K_M Q3_K_M Q2_K IQ4_XS", P=128, N=128, R=3)
set -euo pipefail
cd "$(dirname "$0")/.."
WGRT=${WGRT:-build/wgrt}
HELPER=${HELPER:-build/tests/wgrt_llamacpp_helper}
LIBDIR=${LIBDIR:-bench/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64}
OUT=${OUT:-bench/results/quant}
PRESET=${PRESET:-llama-3.2-1b}
TYPES=${TYPES:-"Q4_0 Q4_K_M Q6_K Q8_0 Q5_K_M Q3_K_M Q2_K IQ4_XS"}
P=${P:-128}; N=${N:-128}; R=${R:-3}
for f in "$WGRT" "$HELPER"; do [ -x "$f" ] || { echo "missing $f (build first)" >&2; exit 1; }; done
[ -f "$LIBDIR/libllama.v0.4.0.so" ] || { echo "no libllama.v0.4.0.so in $LIBDIR (set LIBDIR=...)" >&2; exit 1; }
mkdir -p "$OUT"
src="$OUT/$PRESET-f16.gguf"
[ -f "$src" ] || "$WGRT" synth --preset "$PRESET" --type f16 --seed 0 -o "$src" >&2
echo "| type | file MiB | model line | pp$P t/s | tg$N t/s | tg vs Q4_0 |"
echo "|---|---|---|---|---|---|"
q4_tg=""
for t in $TYPES; do
  f="$OUT/$PRESET-$t.gguf"
  [ -f "$f" ] || "$HELPER" quantize "$LIBDIR" "$src" "$f" "$t" >&2
  log="$OUT/$PRESET-$t.wgrt.txt"
  "$WGRT" bench -m "$f" -p "$P" -n "$N" -r "$R" > "$log" 2>&1 || { echo "| $t | wgrt bench failed: see $log |"; continue; }
  pp=$(grep -Eo "pp$P[^0-9]*[0-9.]+" "$log" | grep -Eo '[0-9.]+$' | head -1 || true)
  tg=$(grep -Eo "tg$N[^0-9]*[0-9.]+" "$log" | grep -Eo '[0-9.]+$' | head -1 || true)
  [ "$t" = Q4_0 ] && q4_tg=$tg
  rel=$( [ -n "$q4_tg" ] && [ -n "$tg" ] && awk -v a="$tg" -v b="$q4_tg" 'BEGIN{printf "%.2f", a/b}' || echo "-")
  mib=$(du -m "$f" | cut -f1)
  model=$(grep -m1 '^model:' "$log" | sed 's/^model: //; s/|/\//g' || true)
  echo "| $t | $mib | $model | ${pp:--} | ${tg:--} | $rel |"
done

#!/usr/bin/env bash
# End-to-end LLM throughput, wgrt vs llama.cpp, on the same synthesized GGUF files in the same run.
# For each preset: `wgrt synth` writes a random-weight Q4_0 GGUF of the real architecture shape, then
# `wgrt bench` and bench/llamacpp_bench.mjs (llama.cpp through node-llama-cpp, Vulkan, all layers on the GPU)
# measure pp N (prefill of N tokens) and tg N (N single-token decode steps), mean ± sd over R runs.
# Prints a markdown table with the ratio wgrt / llama.cpp (> 1: wgrt faster). On a CPU adapter (lavapipe) the
# numbers depend on everything else the CPU runs: the log shows the load average before each measurement.
#
# Setup: build wgrt (build/wgrt), then `cd bench && npm ci --ignore-scripts` (node-llama-cpp 3.21.1 + its Vulkan prebuilt).
# Usage:  bench/run_llm_bench.sh            (env: WGRT=path/to/wgrt, OUT=dir for models and logs,
#                                             PRESETS="smollm2-135m llama-3.2-1b", REPS=3,
#                                             PP_<preset>=128 TG_<preset>=32 with '-' and '.' as '_')
# llama.cpp's Vulkan backend ignores CPU devices (Mesa lavapipe) unless GGML_VK_VISIBLE_DEVICES names them: the
# script sets GGML_VK_VISIBLE_DEVICES=0 unless it is already set.
set -euo pipefail
cd "$(dirname "$0")/.."
WGRT=${WGRT:-build/wgrt}
OUT=${OUT:-bench/results}
PRESETS=${PRESETS:-"smollm2-135m llama-3.2-1b"}
REPS=${REPS:-3}
export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
mkdir -p "$OUT"
[ -x "$WGRT" ] || { echo "wgrt binary not found at $WGRT (set WGRT=...)" >&2; exit 1; }
[ -d bench/node_modules/node-llama-cpp ] || { echo "run 'cd bench && npm ci --ignore-scripts' first" >&2; exit 1; }

default_pp() { case "$1" in llama-3.2-1b) echo 32 ;; *) echo 128 ;; esac; }
default_tg() { case "$1" in llama-3.2-1b) echo 16 ;; *) echo 32 ;; esac; }

rows=()
for preset in $PRESETS; do
  key=${preset//[-.]/_}
  ppv="PP_$key"; tgv="TG_$key"
  P=${!ppv:-$(default_pp "$preset")}
  N=${!tgv:-$(default_tg "$preset")}
  model="$OUT/$preset-q4_0.gguf"
  "$WGRT" synth --preset "$preset" --type q4_0 --seed 0 -o "$model" >&2
  echo "== $preset: wgrt bench -p $P -n $N -r $REPS (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  "$WGRT" bench -m "$model" -p "$P" -n "$N" -r "$REPS" | tee "$OUT/$preset.wgrt.txt" >&2
  echo "== $preset: llama.cpp (node-llama-cpp, Vulkan) -p $P -n $N -r $REPS (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  node bench/llamacpp_bench.mjs -m "$model" -p "$P" -n "$N" -r "$REPS" --json | tee "$OUT/$preset.llamacpp.json" >&2
  rows+=("$preset|$P|$N|$OUT/$preset.wgrt.txt|$OUT/$preset.llamacpp.json")
done

/usr/bin/env python3 - "${rows[@]}" <<'PY'
import json, re, sys
print("| model (Q4_0, random weights) | test | wgrt t/s | llama.cpp t/s | wgrt / llama.cpp |")
print("|---|---|---|---|---|")
for row in sys.argv[1:]:
    preset, p, n, wfile, lfile = row.split("|")
    w = {}
    for line in open(wfile):
        m = re.match(r"\|\s*(pp|tg)(\d+)\s*\|\s*([\d.]+)\s*±\s*([\d.]+)", line)
        if m: w[m.group(1)] = (float(m.group(3)), float(m.group(4)))
    l = json.load(open(lfile))
    for t, size in (("pp", p), ("tg", n)):
        wm, ws = w[t]
        lm, ls = l[t]["mean"], l[t]["sd"]
        print(f"| {preset} | {t}{size} | {wm:.2f} ± {ws:.2f} | {lm:.2f} ± {ls:.2f} | {wm / lm:.2f} |")
PY

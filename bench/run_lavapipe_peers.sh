#!/usr/bin/env bash
# Lavapipe: `wgrt bench` against llama.cpp on the same files in the same run (issues 12 and 13): llama.cpp's
# Vulkan backend on the same lavapipe adapter (node-llama-cpp's Vulkan prebuilt, GGML_VK_VISIBLE_DEVICES=0) and
# llama.cpp's CPU backend (node-llama-cpp's CPU prebuilt, T threads, the same cores lavapipe runs on).
# Files: `wgrt synth` F16 of each preset's shape, then llama.cpp's own quantizer (build/tests/wgrt_llamacpp_helper)
# makes each TYPE. Each round runs every (preset, type) through the three engines in turn; ROUNDS rounds show how
# noisy the shared machine is (the load average is printed beside each row).
# Usage: bench/run_lavapipe_peers.sh > table.md   (env: WGRT=build/wgrt, HELPER=build/tests/wgrt_llamacpp_helper,
#   OUT=bench/results/lavapipe_peers, PRESETS="smollm2-135m llama-3.2-1b", TYPES="Q4_0 Q4_K_M Q6_K", ROUNDS=2,
#   R=2 (repetitions inside each engine's run), T=2, P_<preset>/N_<preset> (pp / tg lengths, '-' and '.' as '_';
#   defaults 64/16 for smollm2-135m and 16/8 otherwise))
# Setup: build wgrt; cd bench && npm ci --ignore-scripts (node-llama-cpp 3.21.1 with its Vulkan and CPU prebuilts).
set -euo pipefail
cd "$(dirname "$0")/.."
WGRT=${WGRT:-build/wgrt}
HELPER=${HELPER:-build/tests/wgrt_llamacpp_helper}
LIBDIR=bench/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64
OUT=${OUT:-bench/results/lavapipe_peers}
PRESETS=${PRESETS:-"smollm2-135m llama-3.2-1b"}
TYPES=${TYPES:-"Q4_0 Q4_K_M Q6_K"}
ROUNDS=${ROUNDS:-2}; R=${R:-2}; T=${T:-2}
export GGML_VK_VISIBLE_DEVICES=${GGML_VK_VISIBLE_DEVICES:-0}
for f in "$WGRT" "$HELPER"; do [ -x "$f" ] || { echo "missing $f (build first)" >&2; exit 1; }; done
[ -d bench/node_modules/node-llama-cpp ] || { echo "run 'cd bench && npm ci --ignore-scripts' first" >&2; exit 1; }
mkdir -p "$OUT"
load() { cut -d' ' -f1 /proc/loadavg; }
num() { grep -Eo "$1[^0-9]*[0-9.]+" "$2" | grep -Eo '[0-9.]+$' | head -1 || true; }
js() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%.2f' % d['$1']['mean'])" "$2" 2>/dev/null || true; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}' || echo "-"; }
for preset in $PRESETS; do
  src="$OUT/$preset-f16.gguf"
  [ -f "$src" ] || "$WGRT" synth --preset "$preset" --type f16 --seed 0 -o "$src" >&2
  for t in $TYPES; do
    f="$OUT/$preset-$t.gguf"
    [ -f "$f" ] || "$HELPER" quantize "$LIBDIR" "$src" "$f" "$t" >&2
  done
done
echo "| round | model | type | P/N | wgrt pp | llama.cpp Vulkan pp | llama.cpp CPU pp | wgrt tg | Vulkan tg | CPU tg | wgrt/Vulkan pp, tg | wgrt/CPU pp, tg | load avg (1 min) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
  for preset in $PRESETS; do
    key=${preset//[-.]/_}; pv="P_$key"; nv="N_$key"
    if [ "$preset" = smollm2-135m ]; then P=${!pv:-64}; N=${!nv:-16}; else P=${!pv:-16}; N=${!nv:-8}; fi
    for t in $TYPES; do
      f="$OUT/$preset-$t.gguf"; base="$OUT/$preset-$t.r$round"
      l0=$(load)
      "$WGRT" bench -m "$f" -p "$P" -n "$N" -r "$R" > "$base.wgrt.txt" 2>&1 || echo "wgrt bench failed: $base.wgrt.txt" >&2
      node bench/llamacpp_bench.mjs -m "$f" -p "$P" -n "$N" -r "$R" --json > "$base.vk.json" 2> "$base.vk.err" || echo "llama.cpp Vulkan failed: $base.vk.err" >&2
      node bench/llamacpp_bench.mjs -m "$f" -p "$P" -n "$N" -r "$R" --cpu -t "$T" --json > "$base.cpu.json" 2> "$base.cpu.err" || echo "llama.cpp CPU failed: $base.cpu.err" >&2
      l1=$(load)
      wp=$(num "pp$P" "$base.wgrt.txt"); wt=$(num "tg$N" "$base.wgrt.txt")
      vp=$(js pp "$base.vk.json"); vt=$(js tg "$base.vk.json"); cp=$(js pp "$base.cpu.json"); ct=$(js tg "$base.cpu.json")
      echo "| $round | $preset | $t | $P/$N | ${wp:--} | ${vp:--} | ${cp:--} | ${wt:--} | ${vt:--} | ${ct:--} |" \
           "$(ratio "$wp" "$vp"), $(ratio "$wt" "$vt") | $(ratio "$wp" "$cp"), $(ratio "$wt" "$ct") | $l0-$l1 |"
    done
  done
done

#!/usr/bin/env bash
# Browser build vs native, same adapter, one run (BENCHMARKS.md "Browser build"):
#   SwiftShader: headless Chromium's WebGPU (the page, web/index.html) vs native wgrt with
#                VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json;
#   lavapipe:    the same wasm under Node with npm webgpu (dawn.node) vs native wgrt on lavapipe.
# Greedy decode of N tokens (default 128) after the prompt "Once upon a time", per model; REPS runs each
# (default 3), the median decode tok/s is printed, as a Markdown table.
# Models: stories260K, and every extra .gguf given as an argument (e.g. a `wgrt synth` file).
# Needs build/wgrt and build-web/site (scripts/build.sh, scripts/build_web.sh). Ports 18200-18299.
#   bash bench/web_speed.sh [MODEL.gguf ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
site=$root/build-web/site
wgrt=$root/build/wgrt
n=${N:-128}
reps=${REPS:-3}
prompt="Once upon a time"
swiftshader=/usr/lib/chromium/vk_swiftshader_icd.json
lavapipe=/usr/share/vulkan/icd.d/lvp_icd.json
models=("$root/../shared/models/stories260K/stories260K.gguf" "$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/wgrt_web_bench.XXXXXX")
server_pid=
trap '[ -n "$server_pid" ] && kill $server_pid 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/models" "$work/results"
for m in "${models[@]}"; do ln -s "$(realpath "$m")" "$work/models/$(basename "$m")"; done
node web/serve.mjs "$site" --models "$work/models" --results "$work/results" > "$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q '^port ' "$work/server.log" && break; sleep 0.1; done
port=$(sed -n 's/^port //p' "$work/server.log")

median() { sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "nan")}'; }
native_tps() {  # ICD MODEL
  VK_ICD_FILENAMES=$1 "$wgrt" generate -m "$2" -p "$prompt" -n "$n" --temp 0 2>&1 >/dev/null |
    sed -n 's/.*generated: [0-9]* tokens, \([0-9.]*\) tok\/s.*/\1/p'
}
page_tps() {  # MODEL NAME
  local pid
  rm -f "$work/results/$2.json"
  setsid timeout 600 chromium --headless=new --no-sandbox --enable-unsafe-webgpu --no-first-run --disable-extensions \
    --user-data-dir="$work/profile" \
    "http://127.0.0.1:$port/?auto=1&name=$2&model=models/$(basename "$1")&n=$n&prompt=Once%20upon%20a%20time" \
    > /dev/null 2>&1 &
  pid=$!
  for _ in $(seq 6000); do [ -s "$work/results/$2.json" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  kill -- -$pid 2>/dev/null; wait $pid 2>/dev/null
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r.get('decodeTokPerS', 'nan'))" "$work/results/$2.json" 2>/dev/null
}
node_tps() {  # MODEL
  node web/tests/run_node.mjs "$site" "$1" --prompt "$prompt" --n "$n" 2>/dev/null |
    python3 -c "import json,sys; print(json.load(sys.stdin).get('decodeTokPerS', 'nan'))"
}

echo "| model | adapter | native tok/s | browser build tok/s | ratio |"
echo "|---|---|---|---|---|"
for m in "${models[@]}"; do
  name=$(basename "$m" .gguf)
  nat=$(for _ in $(seq "$reps"); do native_tps "$swiftshader" "$m"; done | median)
  web=$(for i in $(seq "$reps"); do page_tps "$m" "b$i"; done | median)
  printf '| %s | SwiftShader (Chromium page vs native) | %.1f | %.1f | %.2fx |\n' "$name" "$nat" "$web" \
    "$(python3 -c "print($web / $nat if $nat else float('nan'))")"
  nat=$(for _ in $(seq "$reps"); do native_tps "$lavapipe" "$m"; done | median)
  web=$(for _ in $(seq "$reps"); do node_tps "$m"; done | median)
  printf '| %s | lavapipe (Node + dawn.node vs native) | %.1f | %.1f | %.2fx |\n' "$name" "$nat" "$web" \
    "$(python3 -c "print($web / $nat if $nat else float('nan'))")"
done

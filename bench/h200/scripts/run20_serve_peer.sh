#!/usr/bin/env bash
# H200 run 20: issue 15's serving benchmark against its peer. wgrt serve and llama.cpp's llama-server (commit
# 80fb11a, the llama-bench peer's source; Vulkan; bench/peers/build_llama_server.sh links it against
# node-llama-cpp's prebuilt libraries) on the same Llama-3.2-1B Q4_0 (wgrt synth, std 0.2) and Q4_K_M
# (llama.cpp's quantizer from the F16 synth) files, same prompt, 1/2/4/8 concurrent streams x 3 requests of 128
# tokens each (ignore_eos), 8 slots of 1024 tokens each (llama-server: --parallel 8 -c 8192, which it divides
# among the slots), greedy. bench/serve_bench.py prints aggregate tok/s, TTFT and inter-token time per stream.
# llama-server runs twice: flash attention auto (its default) and off.
# Needs (carried in .devlibs like run19): new/wgrt, wgrt_llamacpp_helper, llamacpp-cpu.tar.xz, and
# peers/llama-server-peer.tar.xz (bench/peers/build_llama_server.sh --pack).
# Usage (repo root on the H200 machine): bash bench/h200/scripts/run20_serve_peer.sh
set -u
source .devlibs/env.sh
WGRT=${WGRT:-.devlibs/new/wgrt}
M=${M:-/tmp/serve-models}
mkdir -p "$M" /tmp/lsp
export WGRT_TEST_PORTS=${WGRT_TEST_PORTS:-18100-18199} TMPDIR=${TMPDIR:-/tmp}
source bench/h200/scripts/serve_files.sh
LS=""
if [ -f .devlibs/peers/llama-server-peer.tar.xz ]; then
  tar -xJf .devlibs/peers/llama-server-peer.tar.xz -C /tmp/lsp && LS=/tmp/lsp/llama-server-peer/llama-server
  "$LS" --version 2>&1 | tail -2
  "$LS" --list-devices 2>&1 | tail -3
else
  echo "no .devlibs/peers/llama-server-peer.tar.xz: wgrt rows only"
fi
for f in "${files[@]}"; do
  echo "== wgrt serve $(basename "$f")"
  python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 3 -- -m "$f" --ctx 1024 --parallel 8
  if [ -n "$LS" ]; then
    for fa in auto off; do
      echo "== llama-server $(basename "$f") -fa $fa"
      python3 bench/serve_bench.py --llama-server "$LS" --max-tokens 128 --requests 3 -- \
        -m "$f" -ngl 99 --parallel 8 -c 8192 -fa $fa || echo "llama-server run failed"
    done
  fi
done

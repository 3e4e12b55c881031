#!/usr/bin/env bash
# H200 run 20 (final, merged main), serving: wgrt serve vs llama-server (bench/peers/build_llama_server.sh, same
# llama.cpp commit as llama-bench, -fa auto) at 1/2/4/8 streams x 2 requests of 128 tokens on Llama-3.2-1B Q4_0
# and Q4_K_M (std 0.2 weights; serve_files.sh).
set -u
source .devlibs/env.sh
WGRT=.devlibs/new/wgrt; M=/tmp/serve-models; mkdir -p $M /tmp/lsp
export WGRT_TEST_PORTS=18100-18199 TMPDIR=/tmp
source bench/h200/scripts/serve_files.sh
tar -xJf .devlibs/peers/llama-server-peer.tar.xz -C /tmp/lsp && LS=/tmp/lsp/llama-server-peer/llama-server
for f in "${files[@]}"; do
  echo "== wgrt serve $(basename "$f")"
  timeout 150 python3 bench/serve_bench.py --wgrt "$WGRT" --max-tokens 128 --requests 2 -- -m "$f" --ctx 1024 --parallel 8
  echo "== llama-server $(basename "$f") -fa auto"
  timeout 150 python3 bench/serve_bench.py --llama-server "$LS" --max-tokens 128 --requests 2 -- \
    -m "$f" -ngl 99 --parallel 8 -c 8192 -fa auto || echo "llama-server run failed"
done

#!/usr/bin/env bash
# H200 run 23 final (merged main, end of the sixth session): decode and prefill against llama.cpp's Vulkan
# llama-bench on the same files in the same run (the peer's median of 5 repetitions: its first repetition runs at
# about half speed), 1B and 0.5B, Q4_0 and llama.cpp-quantized Q4_K_M (std-0.2 weights); then serving at
# 1/2/4/8 streams for wgrt and llama-server (Vulkan, same commit as llama-bench, warm-up per level) on the 1B
# files, and the ViT at batch 1. Most important rows first. ~8 min.
set -u
source bench/h200/scripts/lib.sh
T() { timeout "$@"; }
peer_files  # $FILES: l1b / q05 Q4_0 and Q4_K_M; the tuning policy; llama-bench
echo "== wgrt decode tg128 pipelined (-r 3)"
for f in $FILES; do for d in 128 2048; do
  echo "-- $f d$d $(T 60 $N bench -m $M/$f.gguf -p $d -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done; done
echo "== wgrt decode d128 with split-KV from 128 keys (WGRT_SDPA_SPLIT=128,64,512; default from 256)"
for f in $FILES; do
  echo "-- $f d128 split128 $(WGRT_SDPA_SPLIT=128,64,512 T 60 $N bench -m $M/$f.gguf -p 128 -n 128 -r 3 --tg-mode pipelined 2>&1 | grep -E '^\| tg' | tr -s ' ')"
done
echo "== llama-bench fa1 tg128 @ d128,d2048 (-r 5)"
for f in $FILES; do echo "-- $f"; lb -m $M/$f.gguf -ngl 99 -r 5 -p 0 -n 128 -d 128,2048 -fa 1; done
echo "== wgrt prefill (-r 3)"
for f in $FILES; do for p in 512 2048; do
  echo "-- $f $(T 60 $N bench -m $M/$f.gguf -p $p -n 4 -r 3 2>&1 | grep -E '^\| pp' | tr -s ' ')"
done; done
echo "== llama-bench fa1 pp512,2048 matrix cores off (-r 3)"
for f in $FILES; do echo "-- $f"; GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 lb -m $M/$f.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1; done
echo "-- l1b-Q4_0 coopmat on"; lb -m $M/l1b-Q4_0.gguf -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1
echo "== serve 1/2/4/8 streams, wgrt and llama-server (128 tokens x 2 requests per stream, warm-up per level)"
export WGRT_TEST_PORTS=18100-18199 TMPDIR=/tmp
LS=""
if [ -f .devlibs/peers/llama-server-peer.tar.xz ]; then
  mkdir -p /tmp/lsp && tar -xJf .devlibs/peers/llama-server-peer.tar.xz -C /tmp/lsp && LS=/tmp/lsp/llama-server-peer/llama-server
fi
for f in l1b-Q4_0 l1b-Q4_K_M; do
  echo "-- wgrt $f"; T 60 python3 bench/serve_bench.py --wgrt $N --streams 1,2,4,8 --max-tokens 128 --requests 2 \
    --warmup-tokens 16 -- -m $M/$f.gguf --ctx 1024 --parallel 8 | grep -E '^\|'
  [ -n "$LS" ] && { echo "-- llama-server $f"; T 120 python3 bench/serve_bench.py --llama-server $LS --streams 1,2,4,8 \
    --max-tokens 128 --requests 2 --warmup-tokens 16 -- -m $M/$f.gguf -ngl 99 --parallel 8 -c 8192 -fa on | grep -E '^\|'; }
done
echo "-- wgrt l1b-Q4_0 WGRT_GEMV_Q4=16,16,4 (the multi-row GEMV shape of run 23 mid, forced for every M)"
WGRT_GEMV_Q4=16,16,4 T 60 python3 bench/serve_bench.py --wgrt $N --streams 1,8 --max-tokens 128 --requests 2 \
  --warmup-tokens 16 -- -m $M/l1b-Q4_0.gguf --ctx 1024 --parallel 8 | grep -E '^\|'
echo "== vit batch 1"
V=/tmp/vit; mkdir -p $V && cp .devlibs/vit/vit_b16_d12.onnx $V/ &&
  python3 tests/golden/make_vit_onnx.py $V/vit_b16_d12.onnx --depth 12 --data-only >/dev/null &&
  T 30 "$(dirname "$N")/wgrt_bench_ocr" --only vit --vit $V/vit_b16_d12.onnx --runs 20 --warmup 3 2>&1 | grep -E '^wgrt vit'
echo "== done"

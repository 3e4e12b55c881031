#!/usr/bin/env bash
# H200: issue 13, attention and prefill half. wgrt (flash attention; WGRT_SDPA=legacy = the scores-in-scratch
# route in the same binary; .devlibs/base/wgrt = the branch point, when present) and llama.cpp's Vulkan
# llama-bench (fa 1; prefill also with matrix cores off) on the same files in one run:
#   pp512, pp2048, tg128 at depth 128 and 2048, for llama-3.2-1b and qwen2.5-0.5b, Q4_0 and Q4_K_M.
# wgrt bench decodes right after its prompt: `-p 128 -n 128` gives tg128 at depth 128, `-p 2048 -n 128`
# pp2048 and tg128 at depth 2048. Q4_K_M files: llama.cpp's own quantizer (as run17) from a wgrt-synth F16.
# WGRT_GEMM_BIG rows: the register-blocked 128x128 GEMM never / always / from 16 output tiles (Q4_0; Q4_K_M
# takes the block-format GEMM for every prefill). Optional: .devlibs/new/wgrt_bench_attention (GPU time of one decode attention at context 128/1024/4096).
set -u
source .devlibs/env.sh
M=/tmp/m; mkdir -p $M
N=.devlibs/new/wgrt; B=.devlibs/base/wgrt
$N info 2>&1 | sed -n 1,40p
mkdir -p /tmp/lc && tar -xJf .devlibs/llamacpp-cpu.tar.xz -C /tmp/lc
xz -dc .devlibs/peers/llama-bench-vulkan.xz > /tmp/llama-bench && chmod +x /tmp/llama-bench
MODELS="llama-3.2-1b qwen2.5-0.5b"
for p in $MODELS; do
  $N synth --preset $p --type q4_0 -o $M/$p-Q4_0.gguf >/dev/null || echo "synth $p q4_0 failed"
  $N synth --preset $p --type f16 --seed 0 -o $M/$p-f16.gguf >/dev/null || echo "synth $p f16 failed"
  .devlibs/wgrt_llamacpp_helper quantize /tmp/lc/linux-x64 $M/$p-f16.gguf $M/$p-Q4_K_M.gguf Q4_K_M >/dev/null 2>&1 ||
    echo "quantize $p Q4_K_M failed"
done
wgrt_rows() {  # label, binary, file, [env]
  local label=$1 bin=$2 f=$3; shift 3
  echo "== $label $(basename $f) pp512"; env "$@" $bin bench -m $f -p 512 -n 16 -r 3 2>&1 | grep -E '^\| pp'
  echo "== $label $(basename $f) tg128 at depth 128"; env "$@" $bin bench -m $f -p 128 -n 128 -r 3 2>&1 | grep -E '^\| tg'
  echo "== $label $(basename $f) pp2048 + tg128 at depth 2048"; env "$@" $bin bench -m $f -p 2048 -n 128 -r 3 2>&1 | grep -E '^\| (pp|tg)'
}
for p in $MODELS; do for t in Q4_0 Q4_K_M; do
  f=$M/$p-$t.gguf; [ -f $f ] || continue
  wgrt_rows new $N $f
  wgrt_rows new-legacy-attn $N $f WGRT_SDPA=legacy
  for big in 0 1 16; do  # the 128x128 GEMM: never, always, from 16 tiles (default 64)
    echo "== new WGRT_GEMM_BIG=$big $(basename $f) pp512, pp2048"
    WGRT_GEMM_BIG=$big $N bench -m $f -p 512 -n 1 -r 3 2>&1 | grep -E '^\| pp'
    WGRT_GEMM_BIG=$big $N bench -m $f -p 2048 -n 1 -r 3 2>&1 | grep -E '^\| pp'
  done
  [ -x $B ] && wgrt_rows base $B $f
  echo "== llama-bench $p $t fa1"
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
  /tmp/llama-bench -m $f -ngl 99 -r 3 -p 0 -n 128 -d 128,2048 -fa 1 2>&1 | grep -E '^\| .*tg'
  echo "== llama-bench $p $t fa1 matrix cores off"
  GGML_VK_DISABLE_COOPMAT=1 GGML_VK_DISABLE_COOPMAT2=1 /tmp/llama-bench -m $f -ngl 99 -r 3 -p 512,2048 -n 0 -fa 1 2>&1 | grep -E '^\| .*pp'
done; done
if [ -x .devlibs/new/wgrt_bench_attention ]; then
  echo "== decode attention GPU time (route 0 flash rule, 1 legacy, 2 flash without split-KV)"
  .devlibs/new/wgrt_bench_attention 2>&1 | grep BM_
fi
echo "== profile: llama-3.2-1b Q4_0, 16 decode tokens after 2048"
$N generate -m $M/llama-3.2-1b-Q4_0.gguf -p "$(printf 'word %.0s' $(seq 1 1000))" -n 16 --temp 0 --profile 2>&1 | grep -iE 'sdpa|attention|gemm|total' | head -20

#!/usr/bin/env bash
# H200 run 22 (vitgemm, issue 17): the f32 GEMM of aten.mm / addmm at moderate M (ViT-B/16's linear layers, M = 197
# tokens at batch 1, 1576 at batch 8; K/N 768/2304, 768/768, 768/3072, 3072/768), by variant of the tuning policy:
#   main      WGRT_GEMM_SPLITK=0 WGRT_GEMM_BIG=0   (main's choice: gemm.wgsl 64x64 always)
#   default   (this branch: gemm_big.wgsl from 64 tiles of 128x128; split-K below 256 workgroups)
#   split512  WGRT_GEMM_SPLITK=512; split1k WGRT_GEMM_SPLITK=1024
#   big       WGRT_GEMM_BIG=1 (128x128 kernel always) with split 256; bignosplit WGRT_GEMM_BIG=1 WGRT_GEMM_SPLITK=0
#   big512    WGRT_GEMM_BIG=1 WGRT_GEMM_SPLITK=512
# Per variant: wgrt_bench_ops BM_Addmm (GPU time per shape), the ViT at batch 1 (wgrt_bench_ocr, wall per
# forward), the batch-8 GPU total and its top kernels (`wgrt run --profile`); batch-1 profiles for main and default.
# About 50 s. Carry as run21_vit.sh: .devlibs (env.sh; release wgrt, wgrt_bench_ocr, wgrt_bench_ops from this
# branch in .devlibs/new/) and the weight-less graph .devlibs/vit/vit_b16_d12.onnx (40 KB); weights regenerated here.
set -u
source .devlibs/env.sh
B=.devlibs/new V=/tmp/vit
mkdir -p $V && cp .devlibs/vit/vit_b16_d12.onnx $V/
python3 tests/golden/make_vit_onnx.py $V/vit_b16_d12.onnx --depth 12 --data-only >/dev/null || exit 1
for b in 1 8; do
  python3 -c "import numpy as np; np.save('$V/px$b.npy', np.random.default_rng(0).uniform(-1, 1, ($b, 3, 224, 224)).astype(np.float32))"
done
$B/wgrt info 2>&1 | grep -E "GEMM|split-K"
run_variant() {
  local name=$1; shift
  echo "== $name ($*)"
  env "$@" timeout 20 $B/wgrt_bench_ops --benchmark_filter=BM_Addmm --benchmark_min_time=0.05 2>&1 | grep -E '^BM_Addmm' | tr -s ' '
  env "$@" timeout 15 $B/wgrt_bench_ocr --only vit --vit $V/vit_b16_d12.onnx --runs 10 --warmup 2 2>&1 | grep -E '^wgrt vit'
  env "$@" timeout 15 $B/wgrt run $V/vit_b16_d12.onnx -i pixels=$V/px8.npy --repeat 3 --profile 2>&1 | grep -E '^ran|aten.addmm|gemm|total GPU'
}
run_variant main WGRT_GEMM_SPLITK=0 WGRT_GEMM_BIG=0
run_variant default WGRT_NONE=1
run_variant split512 WGRT_GEMM_SPLITK=512
run_variant split1k WGRT_GEMM_SPLITK=1024
run_variant big WGRT_GEMM_BIG=1
run_variant bignosplit WGRT_GEMM_BIG=1 WGRT_GEMM_SPLITK=0
run_variant big512 WGRT_GEMM_BIG=1 WGRT_GEMM_SPLITK=512
for v in "WGRT_GEMM_SPLITK=0 WGRT_GEMM_BIG=0" "WGRT_NONE=1"; do
  echo "== profile batch 1 ($v)"
  env $v timeout 15 $B/wgrt run $V/vit_b16_d12.onnx -i pixels=$V/px1.npy --repeat 5 --profile 2>&1 | sed -n '/^ran/,$p' | head -12
done
echo "== done"

#!/usr/bin/env bash
# H200 run 21 (vit, issue 17): the ViT-B/16 ONNX classifier (tests/golden/make_vit_onnx.py: 86.6M parameters,
# features [B, 197, 768] + logits [B, 1000]) on wgrt, absolute figures: wall time per forward at batch 1
# (wgrt_bench_ocr --only vit: host pixels in, both outputs read back), with and without the importer's linear/GELU
# pattern fusion (WGRT_NO_PATTERN_FUSION=1: MatMul and bias Add, and the 5-node erf GELU, one dispatch each), and
# the per-kernel GPU profile at batch 1 and 8 (`wgrt run --profile`). About 30 s.
# Carry: .devlibs as for the other runs (env.sh, release wgrt and wgrt_bench_ocr in .devlibs/new/) plus the
# weight-less graph .devlibs/vit/vit_b16_d12.onnx (40 KB), made on the dev machine with
#   /usr/bin/python3 tests/golden/make_vit_onnx.py .devlibs/vit/vit_b16_d12.onnx && rm .devlibs/vit/*.data
# The 347 MB of weights are regenerated here with numpy alone (--data-only: the same bytes).
set -u
source .devlibs/env.sh
B=.devlibs/new V=/tmp/vit
mkdir -p $V && cp .devlibs/vit/vit_b16_d12.onnx $V/
t0=$(date +%s.%N)
python3 tests/golden/make_vit_onnx.py $V/vit_b16_d12.onnx --depth 12 --data-only || exit 1
echo "weights generated in $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
for fuse in 1 0; do
  if [ $fuse = 0 ]; then export WGRT_NO_PATTERN_FUSION=1; else unset WGRT_NO_PATTERN_FUSION; fi
  echo "== vit batch 1 pattern fusion=$fuse"; "$B/wgrt_bench_ocr" --only vit --vit $V/vit_b16_d12.onnx --runs 20 --warmup 3
done
unset WGRT_NO_PATTERN_FUSION
for b in 1 8; do
  python3 -c "import numpy as np; np.save('$V/px$b.npy', np.random.default_rng(0).uniform(-1, 1, ($b, 3, 224, 224)).astype(np.float32))"
  echo "== profile batch $b"; "$B/wgrt" run $V/vit_b16_d12.onnx -i pixels=$V/px$b.npy --repeat 5 --profile 2>&1 | head -24
done

#!/usr/bin/env bash
# H200: issue 17 (onnxdyn) ONNX bounded symbolic dims. PP-OCRv4 rec over widths 96..1280 (batch 1 and 6):
# per-size graphs (a compile + weight upload per new width) vs one bounded graph (one build, a host lowering per
# new width): first-run cost per width, steady latency per width, graphs built, weight bytes uploaded; then
# `wgrt ocr` end to end (rec bounded by default now) on rendered images if PIL is there. Carry: .devlibs (env.sh,
# Vulkan loader/ICD as for the other runs; the stripped release binaries wgrt, wgrt_bench_onnx_sizes and
# wgrt_bench_ocr in .devlibs/new/) and the models in .devlibs/ocr-models/ (as run18_ocr.sh).
set -u
source .devlibs/env.sh
M=.devlibs/ocr-models B=.devlibs/new
echo "== info"; "$B/wgrt" info | sed -n '1,12p'
for n in 1 6; do
  echo "== rec widths, batch $n"
  "$B/wgrt_bench_onnx_sizes" --model "$M/ch_PP-OCRv4_rec_infer.onnx" --dims "$n,3,48,320" --axis 3 \
    --values 96,160,240,320,480,640,960,1280 --runs 10
done
echo "== det sizes (H = W)"
"$B/wgrt_bench_onnx_sizes" --model "$M/ch_PP-OCRv4_det_infer.onnx" --dims 1,3,640,640 --axis 2 --values 320,480,640 --runs 10
echo "== rec 6x320 latency (wgrt_bench_ocr, per-size graph, for comparison with run 18)"
"$B/wgrt_bench_ocr" --models "$M" --only rec --rec 6x320 --runs 20 --warmup 3
if command -v python3 >/dev/null && python3 -c 'import PIL' 2>/dev/null; then
  python3 tests/ocr/render_text_images.py /tmp/ocr_images >/dev/null
  for f in img_04 img_23; do
    echo "== wgrt ocr $f"; "$B/wgrt" ocr /tmp/ocr_images/$f.png --models "$M" --time
  done
fi

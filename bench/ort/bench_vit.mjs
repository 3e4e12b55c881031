// Wall-time benchmark of a ViT-B/16-shaped encoder (bench/ort/models/vit_b16_d{D}.onnx from make_models.py)
// on onnxruntime-node's WebGPU execution provider, for comparison with wgrt's BM_VitWall (bench/bench_vit.cpp)
// on the same config. Per timed run: await session.run({pixels}) with a CPU float32 [1, 3, 224, 224] tensor
// in and the [1, 197, 768] features out, timed with process.hrtime; prints median, min and mean after warm-up.
// --check also runs the CPU EP once and prints the max |webgpu - cpu| of the features.
// Usage: node bench/ort/bench_vit.mjs [--runs N] [--warmup W] [--check] [model.onnx]   (default vit_b16_d2.onnx)
import ort from 'onnxruntime-node';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
let runs = 5, warmup = 1, check = false, file = path.join(here, 'models', 'vit_b16_d2.onnx');
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  if (argv[i] === '--runs') runs = Math.max(1, parseInt(argv[++i], 10));
  else if (argv[i] === '--warmup') warmup = Math.max(0, parseInt(argv[++i], 10));
  else if (argv[i] === '--check') check = true;
  else file = argv[i];
}

const px = new Float32Array(3 * 224 * 224);
let s = 2;
for (let i = 0; i < px.length; ++i) {  // seeded xorshift32, uniform [-1, 1)
  s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
  px[i] = (s / 4294967296) * 2 - 1;
}
const feeds = { pixels: new ort.Tensor('float32', px, [1, 3, 224, 224]) };

let t0 = process.hrtime.bigint();
const sess = await ort.InferenceSession.create(file, { executionProviders: ['webgpu'] });
const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
let y;
t0 = process.hrtime.bigint();
for (let i = 0; i < warmup; ++i) y = await sess.run(feeds);
const warmMs = Number(process.hrtime.bigint() - t0) / 1e6 / Math.max(1, warmup);
const ms = [];
for (let i = 0; i < runs; ++i) {
  const t = process.hrtime.bigint();
  y = await sess.run(feeds);
  ms.push(Number(process.hrtime.bigint() - t) / 1e6);
}
const srt = [...ms].sort((a, b) => a - b), n = srt.length;
const median = n % 2 ? srt[(n - 1) / 2] : 0.5 * (srt[n / 2 - 1] + srt[n / 2]);
const mean = ms.reduce((a, b) => a + b, 0) / n;
console.log(`ort webgpu ${path.basename(file)}: median ${median.toFixed(1)} ms  min ${srt[0].toFixed(1)} ms  mean ${mean.toFixed(1)} ms ` +
            `(${runs} runs after ${warmup} warm-up of ${warmMs.toFixed(0)} ms each; session create ${createMs.toFixed(0)} ms; ` +
            `output ${y.features.dims})`);
if (check) {
  const cpu = await ort.InferenceSession.create(file, { executionProviders: ['cpu'] });
  const yc = (await cpu.run(feeds)).features.data;
  let err = 0, mag = 0;
  for (let i = 0; i < yc.length; ++i) { err = Math.max(err, Math.abs(yc[i] - y.features.data[i])); mag = Math.max(mag, Math.abs(yc[i])); }
  console.log(`max |webgpu - cpu| ${err.toExponential(2)} (max |y| ${mag.toFixed(3)})`);
}

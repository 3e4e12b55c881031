// Wall-time benchmark of onnxruntime-node's WebGPU execution provider on one-node MatMulNBits models (q4 GEMV,
// M = 1), for comparison with wgrt's q4 GEMV timed the same way (bench/bench_gemv_wall.cpp).
// Per timed run: await session.run({A}) with a CPU float32 tensor in and out (upload K floats, dispatch, wait,
// read back N floats), timed with process.hrtime; prints median, min and mean after warm-up runs.
// ORT exposes no GPU timestamps to JS, hence wall time.
// Models: bench/ort/models/matmulnbits_K{K}_N{N}.onnx from make_models.py (256x256 probes the fixed per-run cost).
// --check also runs the CPU EP on the same input and prints the max |webgpu - cpu| (sanity: the node ran and
// computed the same product).
// Usage: node bench/ort/bench_matmulnbits.mjs [--runs N] [--warmup W] [--check] [model.onnx ...]
import ort from 'onnxruntime-node';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
let runs = 50, warmup = 5, check = false;
const models = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  if (argv[i] === '--runs') runs = Math.max(1, parseInt(argv[++i], 10));
  else if (argv[i] === '--warmup') warmup = Math.max(0, parseInt(argv[++i], 10));
  else if (argv[i] === '--check') check = true;
  else models.push(argv[i]);
}
if (models.length === 0)
  for (const [K, N] of [[256, 256], [2048, 2048], [2048, 8192], [8192, 2048]])
    models.push(path.join(here, 'models', `matmulnbits_K${K}_N${N}.onnx`));

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  const median = n % 2 ? s[(n - 1) / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  return { median, min: s[0], mean: s.reduce((a, b) => a + b, 0) / n };
}

// Seeded uniform [-1, 1) input (xorshift32), so runs are repeatable.
function randomInput(K, seed = 3) {
  const a = new Float32Array(K);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < K; ++i) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    a[i] = (x / 4294967296) * 2 - 1;
  }
  return a;
}

console.log(`onnxruntime-node ${JSON.parse(fs.readFileSync(path.join(here, 'node_modules/onnxruntime-node/package.json'))).version}, ` +
            `EP webgpu, ${runs} runs after ${warmup} warm-up`);
for (const file of models) {
  const m = /K(\d+)_N(\d+)/.exec(path.basename(file));
  if (!m) throw new Error(`cannot read K and N from the model name '${file}'`);
  const K = Number(m[1]), N = Number(m[2]);
  const t0 = process.hrtime.bigint();
  const sess = await ort.InferenceSession.create(file, { executionProviders: ['webgpu'] });
  const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const a = new ort.Tensor('float32', randomInput(K), [1, K]);
  let y;
  for (let i = 0; i < warmup; ++i) y = await sess.run({ A: a });
  const us = [];
  for (let i = 0; i < runs; ++i) {
    const s = process.hrtime.bigint();
    y = await sess.run({ A: a });
    us.push(Number(process.hrtime.bigint() - s) / 1e3);
  }
  if (y.Y.dims[1] !== N) throw new Error(`unexpected output dims ${y.Y.dims}`);
  const st = stats(us);
  const wbytes = N * K / 2 + N * K / 32 * 4;
  let extra = '';
  if (check) {
    const cpu = await ort.InferenceSession.create(file, { executionProviders: ['cpu'] });
    const yc = (await cpu.run({ A: a })).Y.data;
    let err = 0, mag = 0;
    for (let i = 0; i < N; ++i) { err = Math.max(err, Math.abs(yc[i] - y.Y.data[i])); mag = Math.max(mag, Math.abs(yc[i])); }
    extra = `; max |webgpu - cpu| ${err.toExponential(2)} (max |y| ${mag.toFixed(3)})`;
    await cpu.release();
  }
  console.log(`ort webgpu MatMulNBits K ${String(K).padStart(5)} N ${String(N).padStart(5)}: median ${st.median.toFixed(1).padStart(9)} us  ` +
              `min ${st.min.toFixed(1).padStart(9)} us  mean ${st.mean.toFixed(1).padStart(9)} us  ` +
              `(weights+scales ${(wbytes / 1e6).toFixed(1)} MB -> ${(wbytes / st.median / 1e3).toFixed(2)} GB/s at the median; ` +
              `session create ${createMs.toFixed(0)} ms${extra})`);
  await sess.release();
}

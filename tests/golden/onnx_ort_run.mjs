// onnxruntime-node (CPU execution provider) as the oracle for wgrt's ONNX importer:
//   node tests/golden/onnx_ort_run.mjs MODEL.onnx OUT_DIR NAME=FILE.npy ...
// Runs the model on the .npy inputs (float32 / int64 / bool) and writes every output as OUT_DIR/<name>.npy
// (float32 or int64), with names made file-safe as `wgrt run` does. onnxruntime-node comes from bench/ort
// (scripts/setup.sh installs it; NODE_PATH or the default resolution from bench/ort/node_modules).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, '../../bench/ort/package.json'));
const ort = require('onnxruntime-node');

function readNpy(file) {
  const b = fs.readFileSync(file);
  if (b.readUInt32BE(0) !== 0x934e554d) throw new Error(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const off = (major === 1 ? 10 : 12) + hlen;
  const header = b.subarray(major === 1 ? 10 : 12, off).toString('latin1');
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const data = b.subarray(off);
  const ab = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  if (descr === '<f4') return new ort.Tensor('float32', new Float32Array(ab), shape);
  if (descr === '<i8') return new ort.Tensor('int64', new BigInt64Array(ab), shape);
  if (descr === '|b1') return new ort.Tensor('bool', new Uint8Array(ab), shape);
  throw new Error(`${file}: dtype ${descr} not handled`);
}

function writeNpy(file, t) {
  const descr = t.type === 'float32' ? '<f4' : t.type === 'int64' ? '<i8' : t.type === 'bool' ? '|b1' : null;
  if (!descr) throw new Error(`output type ${t.type} not handled`);
  const shape = t.dims.length === 1 ? `(${t.dims[0]},)` : `(${t.dims.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + h.length + 1) % 64) h += ' ';
  h += '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(h.length, 8);
  const d = t.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(h, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

const [model, outDir, ...specs] = process.argv.slice(2);
const feeds = {};
for (const s of specs) {
  const eq = s.indexOf('=');
  feeds[s.slice(0, eq)] = readNpy(s.slice(eq + 1));
}
const session = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
const t0 = performance.now();
const out = await session.run(feeds);
const ms = performance.now() - t0;
fs.mkdirSync(outDir, { recursive: true });
for (const name of session.outputNames) {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
  writeNpy(path.join(outDir, (safe.startsWith('.') || !safe ? '_' : '') + safe + '.npy'), out[name]);
}
console.log(`ort cpu: ${session.outputNames.length} outputs in ${ms.toFixed(1)} ms`);

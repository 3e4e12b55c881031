// onnxruntime-node as a subprocess oracle for wgrt's tests and benchmarks (tests/ocr/ort_runner.cpp).
// Protocol on stdin/stdout, one request at a time:
//   request:  one JSON line {"model": "/abs/model.onnx", "dims": [n, c, h, w]}  then prod(dims) float32 (LE)
//   response: one JSON line {"dims": [...], "ms": run_ms}  then prod(dims) float32 (LE) of the first output,
//             or {"error": "..."} and no data.
// Sessions are cached per model path. EP: --ep cpu (default) or --ep webgpu.
import ort from 'onnxruntime-node';

let ep = 'cpu';
for (let i = 2; i < process.argv.length; ++i) if (process.argv[i] === '--ep') ep = process.argv[++i];
const sessions = new Map();
let buf = Buffer.alloc(0);
let pending = null;  // parsed header waiting for its data
let busy = false;

function write(header, data) {
  process.stdout.write(JSON.stringify(header) + '\n');
  if (data) process.stdout.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

async function pump() {
  if (busy) return;
  busy = true;
  try {
    for (;;) {
      if (!pending) {
        const nl = buf.indexOf(10);
        if (nl < 0) break;
        pending = JSON.parse(buf.subarray(0, nl).toString('utf8'));
        buf = buf.subarray(nl + 1);
      }
      const count = pending.dims.reduce((a, b) => a * b, 1);
      if (buf.length < count * 4) break;
      const bytes = Buffer.from(buf.subarray(0, count * 4));  // copy: aligned for Float32Array
      buf = buf.subarray(count * 4);
      const req = pending;
      pending = null;
      try {
        let s = sessions.get(req.model);
        if (!s) {
          s = await ort.InferenceSession.create(req.model, { executionProviders: [ep] });
          sessions.set(req.model, s);
        }
        const x = new Float32Array(bytes.buffer, bytes.byteOffset, count);
        const t0 = process.hrtime.bigint();
        const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', x, req.dims) });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const y = out[s.outputNames[0]];
        write({ dims: y.dims, ms }, y.data);
      } catch (e) {
        write({ error: String(e.message || e).split('\n')[0] });
      }
    }
  } finally {
    busy = false;
  }
}

process.stdin.on('data', (chunk) => { buf = Buffer.concat([buf, chunk]); pump(); });
process.stdin.on('end', () => { const wait = () => (busy ? setTimeout(wait, 10) : process.exit(0)); wait(); });

// wgrt in the browser: a small ES module over the wasm build (wgrt_wasm.js / wgrt_wasm.wasm beside this file).
//
//   import { createEngine } from './wgrt.js';
//   const engine = await createEngine();                       // WebGPU device from navigator.gpu
//   await engine.load('models/stories260K.gguf', { onProgress: (got, total) => ... });
//   const r = await engine.generate('Once upon a time', { maxTokens: 64 }, (text) => out.append(text));
//   r.text, r.tokens (ids), r.decodeTokPerS ...; engine.dispose();
//
// Errors reject with an Error whose message is one line, "wgrt: error: ...", as the native CLI prints it.
// Calls are queued: a generate() waits for a load() in progress, and so on (the engine is single-threaded).
// Limits (docs/BROWSER.md): the model is copied once into the wasm heap, which holds at most 2 GiB, so a model
// file must stay under maxModelBytes (default 1.5 GiB); larger ones are refused before they are downloaded.
import createWgrtModule from './wgrt_wasm.js';

export const DEFAULT_MAX_MODEL_BYTES = 1.5 * 1024 ** 3;

function gib(n) { return (n / 1024 ** 3).toFixed(2) + ' GiB'; }
function fail(msg) { return new Error(msg.startsWith('wgrt: error: ') ? msg : 'wgrt: error: ' + msg); }

// Fetches `url` into one Uint8Array, in chunks, calling onProgress(received, total|0). Refuses (before reading
// the body, when the server sends Content-Length) anything over maxBytes.
async function fetchBytes(url, what, maxBytes, onProgress) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw fail(`could not fetch the ${what} ${url}: ${e.message}`);
  }
  if (!res.ok) throw fail(`could not fetch the ${what} ${url}: HTTP ${res.status} ${res.statusText}`.trim());
  const total = Number(res.headers.get('content-length') || 0);
  const tooLarge = (n) => fail(`the ${what} ${url} is ${gib(n)}; the browser build holds at most ${gib(maxBytes)} ` +
    '(the wasm heap is limited to 2 GiB): use a smaller or more quantized model, or the native wgrt');
  if (total > maxBytes) {
    try { await res.body?.cancel(); } catch (e) { /* the refusal is the message */ }
    throw tooLarge(total);
  }
  if (!res.body) {  // no streaming (old runtimes): one piece
    const b = new Uint8Array(await res.arrayBuffer());
    if (b.length > maxBytes) throw tooLarge(b.length);
    onProgress?.(b.length, b.length);
    return b;
  }
  const reader = res.body.getReader();
  let buf = new Uint8Array(total || 1 << 20), got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (got + value.length > buf.length) {  // no or wrong Content-Length: grow
      if (got + value.length > maxBytes) { await reader.cancel(); throw tooLarge(got + value.length); }
      const bigger = new Uint8Array(Math.max(buf.length * 2, got + value.length));
      bigger.set(buf.subarray(0, got));
      buf = bigger;
    }
    buf.set(value, got);
    got += value.length;
    onProgress?.(got, total);
  }
  if (total && got < total) throw fail(`the download of the ${what} ${url} ended early (${got} of ${total} bytes)`);
  return buf.subarray(0, got);
}

function toBytes(x) {
  if (x instanceof Uint8Array) return x;
  if (x instanceof ArrayBuffer) return new Uint8Array(x);
  if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
  return null;
}

class Engine {
  constructor(module, options) {
    this._m = module;
    this._maxBytes = options.maxModelBytes ?? DEFAULT_MAX_MODEL_BYTES;
    this._queue = Promise.resolve();
    this.model = null;
  }

  _serial(fn) {
    const run = this._queue.then(fn, fn);
    this._queue = run.catch(() => {});
    return run;
  }

  async _call(name, types, args) {
    const p = this._m.ccall(name, 'number', types, args, { async: true });
    const ptr = await p;
    if (!ptr) throw fail(this._m.UTF8ToString(this._m.ccall('wgrt_web_error', 'number', [], [])));
    return JSON.parse(this._m.UTF8ToString(ptr));
  }

  async _file(src, name, what, onProgress) {
    let bytes = toBytes(src);
    if (!bytes) bytes = await fetchBytes(String(src), what, this._maxBytes, onProgress);
    else if (bytes.length > this._maxBytes)
      throw fail(`the ${what} is ${gib(bytes.length)}; the browser build holds at most ${gib(this._maxBytes)}`);
    const path = '/models/' + name;
    try { this._m.FS.mkdir('/models'); } catch (e) { /* exists */ }
    this._m.FS.writeFile(path, bytes, { canOwn: true });
    return path;
  }

  // Loads a model: a URL (fetched in chunks) or the file's bytes (ArrayBuffer / Uint8Array). GGUF files carry
  // their vocabulary; llama2.c checkpoints (.bin) need options.tokenizer (URL or bytes) too.
  // options: { tokenizer, context (KV-cache tokens, 0 = the model's, at most 4096), onProgress(received, total) }.
  // Resolves to { description, context, vocab, gpu_bytes, load_seconds }.
  load(source, options = {}) {
    return this._serial(async () => {
      this._m.ccall('wgrt_web_dispose', null, [], []);
      this.model = null;
      // The file keeps the URL's name in the in-memory file system, so the engine's messages name it.
      const base = typeof source === 'string' ? source.split(/[?#]/)[0].split('/').pop() : '';
      const name = base.replace(/[^A-Za-z0-9._-]/g, '_') || 'model';
      const model = await this._file(source, name, 'model file', options.onProgress);
      const tok = options.tokenizer ? await this._file(options.tokenizer, 'tokenizer.bin', 'tokenizer file') : '';
      try {
        this.model = await this._call('wgrt_web_load', ['string', 'string', 'number'], [model, tok, options.context | 0]);
      } finally {
        // The engine keeps its own copy (mapped into the heap): the file's bytes can go.
        try { this._m.FS.unlink(model); } catch (e) { /* gone */ }
        if (tok) try { this._m.FS.unlink(tok); } catch (e) { /* gone */ }
      }
      return this.model;
    });
  }

  // Generates from `prompt` as `wgrt generate` does (BOS first unless addBos is false). options: { maxTokens
  // (default 128), temperature (0 = greedy, the default), topK, topP, seed, addBos }. onToken(text) receives the
  // text as it streams. Resolves to { text, tokens, promptIds, promptTokens, generatedTokens, prefillTokPerS,
  // decodeTokPerS, prefillSeconds, decodeSeconds, stopReason }.
  generate(prompt, options = {}, onToken) {
    return this._serial(async () => {
      this._m.wgrtOnText = onToken || null;
      try {
        const r = await this._call('wgrt_web_generate',
          ['string', 'number', 'number', 'number', 'number', 'number', 'number'],
          [String(prompt), options.maxTokens ?? 128, options.temperature ?? 0, options.topK ?? 0, options.topP ?? 1,
           options.seed ?? 0, options.addBos === false ? 0 : 1]);
        return { text: r.text, tokens: r.tokens, promptIds: r.prompt_ids, promptTokens: r.prompt_tokens,
                 generatedTokens: r.generated_tokens, prefillTokPerS: r.prefill_tok_s, decodeTokPerS: r.decode_tok_s,
                 prefillSeconds: r.prefill_seconds, decodeSeconds: r.decode_seconds, stopReason: r.stop_reason };
      } finally {
        this._m.wgrtOnText = null;
      }
    });
  }

  // Frees the model (GPU buffers and heap); the engine can load another one.
  dispose() {
    return this._serial(async () => { this._m.ccall('wgrt_web_dispose', null, [], []); this.model = null; });
  }
}

// The adapter the page's WebGPU offers: { name, vendor, architecture, description, fallback, features[], limits{} },
// or null without WebGPU. (The engine asks navigator.gpu for the same default adapter.)
export async function adapterInfo() {
  const gpu = globalThis.navigator?.gpu;
  const a = gpu && await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!a) return null;
  const i = a.info || {};
  const limits = {};
  for (const k in a.limits) if (typeof a.limits[k] === 'number') limits[k] = a.limits[k];
  return { name: i.device || i.description || [i.vendor, i.architecture].filter(Boolean).join(' ') || '(unnamed)', vendor: i.vendor || '', architecture: i.architecture || '',
           description: i.description || '', fallback: !!(i.isFallbackAdapter || a.isFallbackAdapter),
           subgroupMinSize: i.subgroupMinSize || 0, subgroupMaxSize: i.subgroupMaxSize || 0,
           features: [...a.features].sort(), limits };
}

// Under Node, Emscripten 3.1.6's ES-module output still calls require() and reads __dirname: provide them.
function isNode() { return typeof process === 'object' && !!process.versions?.node; }
export async function nodeGlobals() {
  if (!isNode()) return;
  const { createRequire } = await import('node:module');
  globalThis.require ??= createRequire(import.meta.url);
  globalThis.__dirname ??= decodeURIComponent(new URL('.', import.meta.url).pathname);
}

// Starts the wasm. options: { maxModelBytes (default 1.5 GiB), locateFile (where wgrt_wasm.wasm is), print }.
export async function createEngine(options = {}) {
  if (!globalThis.navigator?.gpu) throw fail('this browser has no WebGPU (navigator.gpu is missing)');
  await nodeGlobals();
  const args = {
    locateFile: options.locateFile,
    print: options.print || ((s) => console.log(s)),
    printErr: options.printErr || ((s) => console.warn(s)),
  };
  if (isNode()) {  // Node's fetch() cannot read files: hand Emscripten the wasm's bytes
    const { readFileSync } = await import('node:fs');
    args.wasmBinary = readFileSync(options.locateFile ? options.locateFile('wgrt_wasm.wasm')
                                                      : new URL('wgrt_wasm.wasm', import.meta.url));
  }
  const m = await createWgrtModule(args);
  return new Engine(m, options);
}

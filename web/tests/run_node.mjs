// Runs the browser build under Node with npm `webgpu` (dawn.node; on this machine lavapipe): loads a model from
// its bytes (the ArrayBuffer path of load()), generates greedily, and prints the outcome as one JSON line (the
// same fields the page reports), or {"error": "..."}.
//   node web/tests/run_node.mjs SITE_DIR MODEL_FILE [--tokenizer FILE] [--prompt TEXT] [--n N]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : def; };
const site = resolve(args[0]);
const require = createRequire(import.meta.url);
const { create, globals } = require('webgpu');
Object.assign(globalThis, globals);
Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]) }, configurable: true });

const out = {};
try {
  const { createEngine, adapterInfo } = await import(pathToFileURL(resolve(site, 'wgrt.js')).href);
  out.adapter = await adapterInfo();
  const engine = await createEngine({ locateFile: (f) => resolve(site, f), print: () => {}, printErr: (s) => console.error(s) });
  const tok = opt('--tokenizer');
  out.model = await engine.load(readFileSync(resolve(args[1])), { tokenizer: tok ? readFileSync(tok) : undefined });
  let streamed = opt('--prompt', 'Once upon a time');
  const r = await engine.generate(opt('--prompt', 'Once upon a time'), { maxTokens: Number(opt('--n', '32')) },
                                  (s) => { streamed += s; });
  Object.assign(out, r, { streamed });
  await engine.dispose();
} catch (e) {
  out.error = e.message || String(e);
}
console.log(JSON.stringify(out));
process.exit(0);

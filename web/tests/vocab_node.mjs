// Tokenizer conformance of the browser build: llama.cpp's vocab test vectors (ggml-vocab-NAME.gguf with .inp and
// .out, extracted by scripts/vocab_vectors.sh) tokenized by the wasm (its PCRE2 is Debian's source compiled for
// wasm), as tests/vocab/vocab_vectors_test.cpp does natively. Needs no GPU. Prints one line per vocabulary and a
// last line "vocab: P/T vectors pass"; exits 1 unless every vector passes.
//   node web/tests/vocab_node.mjs SITE_DIR VOCAB_DIR [NAME...]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [siteArg, vocabArg, ...names] = process.argv.slice(2);
const site = resolve(siteArg), vocab = resolve(vocabArg);
// The vocabularies whose type wgrt claims (tests/vocab/vocab_vectors_test.cpp's list).
const claimed = names.length ? names : ['llama-spm', 'llama-bpe', 'qwen2', 'qwen35', 'gpt-2', 'phi-3', 'gemma-4',
  'deepseek-llm', 'deepseek-coder', 'falcon', 'mpt', 'starcoder', 'refact', 'command-r', 'bert-bge'];
const { nodeGlobals } = await import(pathToFileURL(resolve(site, 'wgrt.js')).href);
await nodeGlobals();
const { default: createWgrtModule } = await import(pathToFileURL(resolve(site, 'wgrt_wasm.js')).href);
const m = await createWgrtModule({ wasmBinary: readFileSync(resolve(site, 'wgrt_wasm.wasm')), print: () => {}, printErr: () => {} });
m.FS.mkdir('/vocab');
const enc = new TextEncoder();
let pass = 0, total = 0, bad = 0;
for (const name of claimed) {
  const file = resolve(vocab, `ggml-vocab-${name}.gguf`);
  m.FS.writeFile(`/vocab/${name}.gguf`, readFileSync(file));
  const ins = readFileSync(file + '.inp', 'utf8').split('\n__ggml_vocab_test__\n');
  const outs = readFileSync(file + '.out', 'utf8').split('\n');
  const tests = new Map();  // duplicate inputs keep the last expectation, as llama.cpp's runner
  ins.forEach((t, i) => { if (i < outs.length) tests.set(t, outs[i].trim() ? outs[i].trim().split(/\s+/).map(Number) : []); });
  let ok = 0;
  for (const [text, want] of tests) {
    const bytes = enc.encode(text);
    const ptr = m._malloc(bytes.length + 1);
    m.HEAPU8.set(bytes, ptr);
    const r = m.ccall('wgrt_web_tokenize_vocab', 'number', ['string', 'number', 'number'], [`/vocab/${name}.gguf`, ptr, bytes.length]);
    m._free(ptr);
    if (!r) { console.log(`${name}: ${m.UTF8ToString(m.ccall('wgrt_web_error', 'number', [], []))}`); bad++; break; }
    const got = JSON.parse(m.UTF8ToString(r));
    if (JSON.stringify(got) === JSON.stringify(want)) ok++;
    else if (bad++ < 5) console.log(`${name}: input ${JSON.stringify(text)}\n  want ${want.join(' ')}\n  got  ${got.join(' ')}`);
  }
  m.FS.unlink(`/vocab/${name}.gguf`);
  console.log(`vocab ${name.padEnd(15)} ${String(ok).padStart(3)}/${tests.size} vectors pass`);
  pass += ok; total += tests.size;
}
console.log(`vocab: ${pass}/${total} vectors pass`);
process.exit(pass === total && total > 0 ? 0 : 1);

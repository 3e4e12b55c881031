// Tokenizer speed, wgrt vs llama.cpp (node-llama-cpp 3.21.1, CPU build) on the same vocab-only GGUF files and
// the same 1 MB text (deterministic: words of llama.cpp's own test inputs); also checks the ids are identical.
// Run from the repo root after the build, `scripts/vocab_vectors.sh build/vocab` and `(cd bench && npm ci)`:
//   node bench/tokenizer_bench.mjs [build/vocab]
// Prints, per vocabulary, the tokenize-only wall time of each (best of 3) and whether the ids agree.
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {createRequire} from "node:module";

const require = createRequire(path.resolve("bench/package.json"));
const {getLlama} = await import(require.resolve("node-llama-cpp"));
const dir = process.argv[2] ?? "build/vocab";
const words = fs.readFileSync(path.join(dir, "ggml-vocab-llama-bpe.gguf.inp"), "utf8").split(/\s+/).filter(Boolean);
let seed = 1, text = "";
while (text.length < 1000000) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  text += words[seed % words.length] + (seed % 7 === 0 ? "\n" : " ");
}
const file = path.join(os.tmpdir(), "wgrt_tokenizer_bench.txt");
fs.writeFileSync(file, text);
const bytes = Buffer.byteLength(text);
const llama = await getLlama({gpu: false, build: "never"});
console.log(`text: ${bytes} bytes; times: tokenize only, best of 3`);
for (const v of ["llama-spm", "llama-bpe", "qwen2", "gemma-4", "bert-bge"]) {
  const gguf = path.join(dir, `ggml-vocab-${v}.gguf`);
  const ours = execFileSync("build/wgrt", ["tokenize", "-m", gguf, "-f", file, "--ids", "--no-bos"],
                            {encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 28}).trim();
  let wgrtMs = Infinity;
  for (let r = 0; r < 3; r++) {
    const err = execFileSync("sh", ["-c", `build/wgrt tokenize -m ${gguf} -f ${file} --ids --no-bos --time 2>&1 >/dev/null`],
                             {encoding: "utf8"});
    wgrtMs = Math.min(wgrtMs, Number(/tokenize ([0-9.]+) ms/.exec(err)[1]));
  }
  const model = await llama.loadModel({modelPath: gguf, vocabOnly: true});
  let lcMs = Infinity, ids = [];
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    ids = model.tokenize(text, false);
    lcMs = Math.min(lcMs, performance.now() - t0);
  }
  await model.dispose();
  const same = ours === "[" + Array.from(ids).join(", ") + "]";
  console.log(`${v.padEnd(10)} wgrt ${wgrtMs.toFixed(0).padStart(5)} ms  llama.cpp ${lcMs.toFixed(0).padStart(5)} ms  ` +
              `ratio ${(lcMs / wgrtMs).toFixed(2)}  ${ids.length} tokens  ids identical: ${same}`);
}

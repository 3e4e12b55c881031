// llama.cpp throughput on a GGUF through node-llama-cpp (prebuilt Vulkan backend, all layers on the GPU),
// measured like llama-bench: pp N = one batch of N random tokens into an empty KV cache; tg N = N single-token
// decode steps into an empty KV cache; tokens/s as mean ± sd over -r repetitions, after one warm-up of each.
// No sampling is timed (evaluateWithoutGeneratingNewTokens), as in llama-bench.
//
//   GGML_VK_VISIBLE_DEVICES=0 node bench/llamacpp_bench.mjs -m model.gguf -p 128 -n 32 -r 3 [--json]
//   GGML_VK_VISIBLE_DEVICES=0 node bench/llamacpp_bench.mjs -m stories260K.gguf --greedy 60 [--prompt TEXT]
// (llama.cpp's Vulkan backend skips CPU devices such as Mesa lavapipe unless GGML_VK_VISIBLE_DEVICES names them.)
//   node bench/llamacpp_bench.mjs -m model.gguf --cpu -t 2 ...   llama.cpp's CPU backend (node-llama-cpp's CPU
//   prebuilt, no layers offloaded) on -t threads.
// --greedy N prints the N greedy (temperature 0) token ids after BOS (+ prompt) and their text, as JSON.
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

function parseArgs(argv) {
  const a = {model: null, prompt: 128, gen: 32, reps: 3, json: false, greedy: 0, text: "", threads: 0, cpu: false};
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i], v = () => {
      if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
      return argv[++i];
    };
    if (k === "-m" || k === "--model") a.model = v();
    else if (k === "-p") a.prompt = parseInt(v(), 10);
    else if (k === "-n") a.gen = parseInt(v(), 10);
    else if (k === "-r") a.reps = parseInt(v(), 10);
    else if (k === "-t") a.threads = parseInt(v(), 10);
    else if (k === "--json") a.json = true;
    else if (k === "--cpu") a.cpu = true;
    else if (k === "--greedy") a.greedy = parseInt(v(), 10);
    else if (k === "--prompt") a.text = v();
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.model) throw new Error("-m MODEL.gguf is required");
  for (const k of ["prompt", "gen", "reps"]) if (!(a[k] > 0)) throw new Error(`bad value for ${k}`);
  return a;
}

function meanSd(v) {
  const m = v.reduce((s, x) => s + x, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((s, x) => s + (x - m) ** 2, 0) / (v.length - 1)) : 0;
  return {mean: m, sd};
}

// Deterministic random token ids in [3, vocab) (mulberry32).
function randomTokens(n, vocab, seed = 42) {
  let s = seed >>> 0;
  const out = [];
  for (let i = 0; i < n; ++i) {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out.push(3 + (((t ^ (t >>> 14)) >>> 0) % (vocab - 3)));
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const llama = await getLlama({gpu: args.cpu ? false : "vulkan", build: "never", logLevel: LlamaLogLevel.error,
                              progressLogs: false});
const model = await llama.loadModel({modelPath: args.model, gpuLayers: args.cpu ? 0 : "max"});
const gpuName = args.cpu ? `CPU (${args.threads > 0 ? args.threads : "default"} threads)`
                         : (await llama.getGpuDeviceNames()).join(", ");

if (args.greedy > 0) {
  const context = await model.createContext({contextSize: 512, sequences: 1});
  const seq = context.getSequence();
  const input = [model.tokens.bos, ...(args.text ? model.tokenize(args.text) : [])];
  const ids = [];
  for await (const tok of seq.evaluate(input, {temperature: 0})) {
    ids.push(tok);
    if (ids.length >= args.greedy || tok === model.tokens.eos) break;
  }
  console.log(JSON.stringify({input, ids, text: model.detokenize(ids), gpu: gpuName}));
  process.exit(0);
}

const nVocab = model.fileInfo.metadata?.tokenizer?.ggml?.tokens?.length ?? 32000;
const ctxSize = args.prompt + args.gen + 8;
const context = await model.createContext({
  contextSize: ctxSize, batchSize: args.prompt, sequences: 1,
  ...(args.threads > 0 ? {threads: args.threads} : {}),
});
const seq = context.getSequence();
const prompt = randomTokens(args.prompt, nVocab);
const genTokens = randomTokens(args.gen, nVocab, 7);

async function pp() {
  await seq.clearHistory();
  const t0 = process.hrtime.bigint();
  await seq.evaluateWithoutGeneratingNewTokens(prompt);
  return args.prompt / (Number(process.hrtime.bigint() - t0) / 1e9);
}
async function tg() {
  await seq.clearHistory();
  const t0 = process.hrtime.bigint();
  for (const t of genTokens) await seq.evaluateWithoutGeneratingNewTokens([t]);
  return args.gen / (Number(process.hrtime.bigint() - t0) / 1e9);
}

await pp();  // warm-up (pipeline compilation)
await tg();
const ppRuns = [], tgRuns = [];
for (let r = 0; r < args.reps; ++r) {
  ppRuns.push(await pp());
  tgRuns.push(await tg());
}
const res = {pp: meanSd(ppRuns), tg: meanSd(tgRuns), n_prompt: args.prompt, n_gen: args.gen, gpu: gpuName,
             llama_cpp: `node-llama-cpp 3.21.1 (${args.cpu ? "CPU" : "Vulkan"} prebuilt)`};
if (args.json) console.log(JSON.stringify(res));
else {
  console.log(`model: ${args.model} | ${gpuName}`);
  console.log(`| test | t/s |\n|---|---|`);
  console.log(`| pp${args.prompt} | ${res.pp.mean.toFixed(2)} ± ${res.pp.sd.toFixed(2)} |`);
  console.log(`| tg${args.gen} | ${res.tg.mean.toFixed(2)} ± ${res.tg.sd.toFixed(2)} |`);
}
await context.dispose();
await model.dispose();

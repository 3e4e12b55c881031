/* llama.cpp as an independent oracle for wgrt's tests and benchmarks, through node-llama-cpp 3.21.1's prebuilt
 * CPU libraries (bench/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64: llama.cpp 80fb11a). The
 * libraries are opened with dlopen at run time, so this builds without them; the structs below copy the
 * layouts of llama.h at 80fb11a (enums are int-sized).
 *
 *   wgrt_llamacpp_helper quantize LIBDIR IN.gguf OUT.gguf TYPE
 *       llama_model_quantize with llama.cpp's file type TYPE: F32 F16 BF16 Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K
 *       Q3_K_S Q3_K_M Q3_K_L Q4_K_S Q4_K_M Q5_K_S Q5_K_M Q6_K IQ4_NL IQ4_XS IQ2_XXS IQ2_XS IQ2_S IQ2_M
 *       IQ3_XXS IQ3_XS IQ3_S IQ3_M IQ1_S IQ1_M (the K and IQ ones mix tensor types as llama-quantize does).
 *       The IQ1/IQ2/IQ3 types get an importance matrix of all ones (every column equally important; tensor
 *       shapes read with libggml's gguf reader): llama.cpp refuses IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ1_S IQ1_M
 *       without one, and its IQ3 mixes pick IQ2_S for some small tensors. F32 from a
 *       quantized IN writes every tensor dequantized by llama.cpp.
 *   wgrt_llamacpp_helper run LIBDIR MODEL.gguf N_GEN TOKEN[,TOKEN...] [f32|f16]
 *       CPU forward of the prompt tokens (KV cache of the last argument's type, default f32; no flash
 *       attention), then N_GEN greedy steps (argmax, first index on ties). Prints
 *       "logits <v>..." (the vocabulary's logits after the prompt, %.9g) and "ids <id>..." (the N_GEN ids).
 *   wgrt_llamacpp_helper load LIBDIR MODEL.gguf
 *       Loads the model's metadata as llama.cpp does for inference (hyperparameters, vocabulary, every tensor
 *       checked against the shapes its architecture expects and to lie within the file) with no_alloc set, so
 *       no weight is read (the file may be sparse), and makes a context (its allocations simulated).
 *       Prints "n_params <n>" (llama_model_n_params), "n_layer <n>" and "desc <llama_model_desc>".
 * Exit status 0 on success; 1 with a one-line message on stderr otherwise. WGRT_LLAMACPP_THREADS sets the
 * quantizer's threads (default 2). Set WGRT_LLAMACPP_VERBOSE=1 for
 * llama.cpp's log.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct quantize_params { /* llama_model_quantize_params */
  int32_t nthread;
  int ftype, output_tensor_type, token_embedding_type;
  bool allow_requantize, quantize_output_tensor, only_copy, pure, keep_split, dry_run;
  const void *imatrix, *kv_overrides, *tt_overrides;
  const int32_t* prune_layers;
  size_t max_buf_size;
};
struct model_params { /* llama_model_params */
  void* devices;
  const void* tensor_buft_overrides;
  int32_t n_gpu_layers;
  int split_mode, load_mode, lazy_mode;
  int32_t main_gpu;
  const float* tensor_split;
  void* progress_callback;
  void* progress_callback_user_data;
  const void* kv_overrides;
  bool vocab_only, check_tensors, use_extra_bufts, no_host, no_alloc, load_mtp;
};
struct context_params { /* llama_context_params */
  uint32_t n_ctx, n_batch, n_ubatch, n_seq_max, n_rs_seq, n_outputs_max, n_outputs_max_per_seq;
  int32_t n_threads, n_threads_batch;
  int ctx_type, rope_scaling_type, pooling_type, attention_type, flash_attn_type;
  float rope_freq_base, rope_freq_scale, yarn_ext_factor, yarn_attn_factor, yarn_beta_fast, yarn_beta_slow;
  uint32_t yarn_orig_ctx;
  float defrag_thold;
  void* cb_eval;
  void* cb_eval_user_data;
  int type_k, type_v;
  void* abort_callback;
  void* abort_callback_data;
  bool embeddings, offload_kqv, no_perf, op_offload, swa_full, kv_unified;
  void* samplers;
  size_t n_samplers;
  void* ctx_other;
};
struct batch { /* llama_batch */
  int32_t n_tokens;
  int32_t* token;
  float* embd;
  int32_t* pos;
  int32_t* n_seq_id;
  int32_t** seq_id;
  int8_t* logits;
};

static const struct { const char* name; int ftype; } kTypes[] = {
    {"F32", 0},     {"F16", 1},     {"Q4_0", 2},    {"Q4_1", 3},    {"Q8_0", 7},     {"Q5_0", 8},
    {"Q5_1", 9},    {"Q2_K", 10},   {"Q3_K_S", 11}, {"Q3_K_M", 12}, {"Q3_K_L", 13},  {"Q4_K_S", 14},
    {"Q4_K_M", 15}, {"Q5_K_S", 16}, {"Q5_K_M", 17}, {"Q6_K", 18},   {"IQ4_NL", 25},  {"IQ4_XS", 30},
    {"BF16", 32},   {"IQ2_XXS", 19}, {"IQ2_XS", 20},  {"IQ3_XS", 22},  {"IQ3_XXS", 23}, {"IQ1_S", 24},
    {"IQ3_S", 26},  {"IQ3_M", 27},   {"IQ2_S", 28},   {"IQ2_M", 29},   {"IQ1_M", 31},
};
struct imatrix_data { /* llama_model_imatrix_data */
  const char* name;
  const float* data;
  size_t size;
};
struct gguf_params { /* gguf_init_params */
  bool no_alloc;
  void** ctx;
};
struct tensor_head { /* the first fields of ggml_tensor */
  int type;
  void* buffer;
  int64_t ne[4];
};

static void* lib;
static int fail(const char* msg, const char* what) {
  fprintf(stderr, "wgrt_llamacpp_helper: error: %s%s\n", msg, what ? what : "");
  return 1;
}
static void* sym(const char* name) {
  void* p = dlsym(lib, name);
  if (!p) {
    fail("libllama lacks ", name);
    exit(1);
  }
  return p;
}
static void quiet(int level, const char* text, void* user) { (void)level, (void)text, (void)user; }

/* Opens LIBDIR/libllama.v0.4.0.so and loads the CPU backends beside it (node-llama-cpp builds them as
 * dynamically loaded modules). */
static int open_llama(const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/libggml.v0.4.0.so", dir);
  void* ggml = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!ggml) return fail("cannot open ", dlerror());
  snprintf(path, sizeof path, "%s/libllama.v0.4.0.so", dir);
  lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) return fail("cannot open ", dlerror());
  void (*load_all)(const char*) = (void (*)(const char*))dlsym(ggml, "ggml_backend_load_all_from_path");
  if (!load_all) return fail("libggml lacks ggml_backend_load_all_from_path", 0);
  if (!getenv("WGRT_LLAMACPP_VERBOSE")) ((void (*)(void (*)(int, const char*, void*), void*))sym("llama_log_set"))(quiet, 0);
  load_all(dir);
  ((void (*)(void))sym("llama_backend_init"))();
  return 0;
}

/* An all-ones importance matrix for every tensor of `path` of 2 or more dimensions (entries of ne0 * ne2
 * values), terminated by a NULL name; NULL on failure. Freed by free_imatrix. */
static struct imatrix_data* ones_imatrix(const char* path) {
  void* gctx = 0;
  struct gguf_params gp = {true, &gctx};
  void* g = ((void* (*)(const char*, struct gguf_params))sym("gguf_init_from_file"))(path, gp);
  if (!g || !gctx) {
    if (g) ((void (*)(void*))sym("gguf_free"))(g);
    return 0;
  }
  struct tensor_head* (*first)(void*) = (struct tensor_head * (*)(void*)) sym("ggml_get_first_tensor");
  struct tensor_head* (*nxt)(void*, struct tensor_head*) =
      (struct tensor_head * (*)(void*, struct tensor_head*)) sym("ggml_get_next_tensor");
  const char* (*name)(struct tensor_head*) = (const char* (*)(struct tensor_head*))sym("ggml_get_name");
  size_t n = 0, most = 0;
  for (struct tensor_head* t = first(gctx); t; t = nxt(gctx, t)) ++n;
  struct imatrix_data* m = calloc(n + 1, sizeof *m);
  size_t k = 0;
  for (struct tensor_head* t = first(gctx); t; t = nxt(gctx, t)) {
    if (t->ne[1] <= 1) continue;
    m[k].name = strdup(name(t));
    m[k].size = (size_t)(t->ne[0] * t->ne[2]);
    if (m[k].size > most) most = m[k].size;
    ++k;
  }
  float* ones = malloc((most ? most : 1) * sizeof *ones);
  for (size_t i = 0; i < most; ++i) ones[i] = 1.0f;
  for (size_t i = 0; i < k; ++i) m[i].data = ones;
  if (k == 0) free(ones);
  ((void (*)(void*))sym("gguf_free"))(g);
  ((void (*)(void*))sym("ggml_free"))(gctx);
  return m;
}

/* Frees ones_imatrix's matrix: the names and the one shared ones array. */
static void free_imatrix(struct imatrix_data* m) {
  if (!m) return;
  if (m[0].name) free((void*)m[0].data);
  for (size_t i = 0; m[i].name; ++i) free((void*)m[i].name);
  free(m);
}

static int quantize(const char* in, const char* out, const char* type) {
  int ftype = -1;
  for (size_t i = 0; i < sizeof kTypes / sizeof kTypes[0]; ++i)
    if (strcmp(type, kTypes[i].name) == 0) ftype = kTypes[i].ftype;
  if (ftype < 0) return fail("unknown type ", type);
  struct quantize_params p = ((struct quantize_params(*)(void))sym("llama_model_quantize_default_params"))();
  p.ftype = ftype;
  if ((ftype >= 19 && ftype <= 24) || (ftype >= 26 && ftype <= 29) || ftype == 31) {
    p.imatrix = ones_imatrix(in);
    if (!p.imatrix) return fail("cannot read the tensors of ", in);
  }
  p.allow_requantize = true;
  p.nthread = getenv("WGRT_LLAMACPP_THREADS") ? atoi(getenv("WGRT_LLAMACPP_THREADS")) : 2;
  uint32_t (*q)(const char*, const char*, const struct quantize_params*) =
      (uint32_t(*)(const char*, const char*, const struct quantize_params*))sym("llama_model_quantize");
  const uint32_t rc = q(in, out, &p);
  free_imatrix((struct imatrix_data*)p.imatrix);
  if (rc != 0) return fail("llama_model_quantize failed for ", in);
  return 0;
}

static int argmax(const float* v, int n) {
  int b = 0;
  for (int i = 1; i < n; ++i)
    if (v[i] > v[b]) b = i;
  return b;
}

static int run(const char* model_path, int n_gen, const char* list, const char* kv_type) {
  if (strcmp(kv_type, "f32") != 0 && strcmp(kv_type, "f16") != 0) return fail("KV cache type must be f32 or f16, not ", kv_type);
  int32_t toks[4096];
  int n = 0;
  for (const char* s = list; *s && n < 4096;) {
    toks[n++] = (int32_t)strtol(s, (char**)&s, 10);
    if (*s == ',') ++s;
    else if (*s) return fail("bad token list ", list);
  }
  if (n == 0) return fail("empty token list", 0);
  struct model_params mp = ((struct model_params(*)(void))sym("llama_model_default_params"))();
  mp.n_gpu_layers = 0;
  void* model = ((void* (*)(const char*, struct model_params))sym("llama_model_load_from_file"))(model_path, mp);
  if (!model) return fail("llama.cpp cannot load ", model_path);
  struct context_params cp = ((struct context_params(*)(void))sym("llama_context_default_params"))();
  cp.n_ctx = (uint32_t)(n + n_gen + 8);
  cp.n_batch = cp.n_ubatch = (uint32_t)n;
  cp.n_threads = cp.n_threads_batch = 2;
  cp.type_k = cp.type_v = strcmp(kv_type, "f16") == 0 ? 1 : 0; /* GGML_TYPE_F16 : GGML_TYPE_F32 (f16 rounds K and V) */
  cp.flash_attn_type = 0;      /* LLAMA_FLASH_ATTN_TYPE_DISABLED: the plain f32 softmax(QK^T)V path */
  void* ctx = ((void* (*)(void*, struct context_params))sym("llama_init_from_model"))(model, cp);
  if (!ctx) return fail("llama.cpp cannot make a context for ", model_path);
  const int vocab = ((int32_t(*)(const void*))sym("llama_vocab_n_tokens"))(
      ((const void* (*)(const void*))sym("llama_model_get_vocab"))(model));
  struct batch (*get_one)(int32_t*, int32_t) = (struct batch(*)(int32_t*, int32_t))sym("llama_batch_get_one");
  int32_t (*decode)(void*, struct batch) = (int32_t(*)(void*, struct batch))sym("llama_decode");
  float* (*logits)(void*, int32_t) = (float* (*)(void*, int32_t))sym("llama_get_logits_ith");
  if (decode(ctx, get_one(toks, n)) != 0) return fail("llama_decode failed", 0);
  const float* l = logits(ctx, -1);
  printf("logits");
  for (int i = 0; i < vocab; ++i) printf(" %.9g", l[i]);
  printf("\nids");
  int32_t next = argmax(l, vocab);
  for (int g = 0; g < n_gen; ++g) {
    printf(" %d", next);
    if (g + 1 == n_gen) break;
    if (decode(ctx, get_one(&next, 1)) != 0) return fail("llama_decode failed", 0);
    next = argmax(logits(ctx, -1), vocab);
  }
  printf("\n");
  ((void (*)(void*))sym("llama_free"))(ctx);
  ((void (*)(void*))sym("llama_model_free"))(model);
  return 0;
}

static int load(const char* model_path) {
  struct model_params mp = ((struct model_params(*)(void))sym("llama_model_default_params"))();
  mp.n_gpu_layers = 0;
  mp.no_alloc = true;
  mp.load_mode = 0; /* LLAMA_LOAD_MODE_NONE: no mapping (the memory-fit pass maps nothing) */
  mp.lazy_mode = 0; /* LLAMA_LAZY_MODE_OFF */
  void* model = ((void* (*)(const char*, struct model_params))sym("llama_model_load_from_file"))(model_path, mp);
  if (!model) return fail("llama.cpp cannot load ", model_path);
  struct context_params cp = ((struct context_params(*)(void))sym("llama_context_default_params"))();
  cp.n_ctx = cp.n_batch = cp.n_ubatch = 16;
  cp.n_threads = cp.n_threads_batch = 1;
  void* ctx = ((void* (*)(void*, struct context_params))sym("llama_init_from_model"))(model, cp);
  if (!ctx) return fail("llama.cpp cannot make a context for ", model_path);
  char desc[256] = "";
  ((int32_t(*)(const void*, char*, size_t))sym("llama_model_desc"))(model, desc, sizeof desc);
  printf("n_params %llu\nn_layer %d\ndesc %s\n",
         (unsigned long long)((uint64_t(*)(const void*))sym("llama_model_n_params"))(model),
         ((int32_t(*)(const void*))sym("llama_model_n_layer"))(model), desc);
  ((void (*)(void*))sym("llama_free"))(ctx);
  ((void (*)(void*))sym("llama_model_free"))(model);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 6 && strcmp(argv[1], "quantize") == 0)
    return open_llama(argv[2]) ? 1 : quantize(argv[3], argv[4], argv[5]);
  if ((argc == 6 || argc == 7) && strcmp(argv[1], "run") == 0)
    return open_llama(argv[2]) ? 1 : run(argv[3], atoi(argv[4]), argv[5], argc == 7 ? argv[6] : "f32");
  if (argc == 4 && strcmp(argv[1], "load") == 0) return open_llama(argv[2]) ? 1 : load(argv[3]);
  return fail("usage: wgrt_llamacpp_helper quantize LIBDIR IN.gguf OUT.gguf TYPE | run LIBDIR MODEL.gguf N_GEN TOKENS [f32|f16]"
              " | load LIBDIR MODEL.gguf", 0);
}

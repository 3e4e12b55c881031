#include "models/llama_graph.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <optional>
#include <tuple>


#include "ops/linear/linear_ggml.h"
#include "ops/sampling/sampling.h"
#include "models/rope_scaling.h"
#include "wgrt/error.h"

namespace wgrt::models {

namespace {

class Builder {
 public:
  Builder(const WeightSource& w, const LlamaGraphOptions& o, LlamaGraph& out) : w_(w), cfg_(w.config()), o_(o), out_(out) {}

  // A [N, K] weight as a q4gsw pair (4-bit), raw ggml blocks (wtype >= 0) or an f32 matrix.
  struct Matrix {
    bool q4 = false;
    int64_t wtype = -1;                // ggml type id of raw blocks kept as they are in the file
    ValueId weight = -1, scales = -1;  // q4: qweight u32 [N, K/8], scales f16 [N, K/32]; ggml: u32 [words]
    int64_t n = 0, k = 0;
    IntList parts;  // a stack of two block types: [type_0, rows_0, type_1, rows_1] (ops::ggml_stack_layout)
  };

  // wgrt.linear_ggml's wtype argument: the one type, or the stack's parts.
  ValueId wtype_arg(const Matrix& m) { return m.parts.empty() ? g().int_value(m.wtype) : g().int_list(IntList(m.parts)); }

  Matrix matrix(const std::string& name) {
    if (auto it = mats_.find(name); it != mats_.end()) return it->second;
    return mats_[name] = upload(name, {&w_.get(name)});
  }

  // The named matrices stacked along the output dim as one weight (one GEMV instead of several), when all are
  // stored the same way on the GPU; nullopt otherwise (the caller keeps separate linears). two_types: block-format
  // matrices of the fused block GEMV may change type once along the stack (a Q4_K_M layer's Q4_K q, k and Q6_K v).
  std::optional<Matrix> stacked(const std::vector<std::string>& names, const std::string& name, bool two_types = false) {
    std::vector<const WeightTensor*> parts;
    int changes = 0;
    for (const std::string& n : names) {
      const WeightTensor& t = w_.get(n);
      const WeightTensor& t0 = parts.empty() ? t : *parts[0];
      if (t.cols() != t0.cols() || keeps_q4(t) != keeps_q4(t0) || keeps_blocks(t) != keeps_blocks(t0))
        return std::nullopt;
      if (!parts.empty() && keeps_blocks(t) && t.type != parts.back()->type) {
        if (!two_types || ++changes > 1 || !ops::ggml_gemv_blocks_type(int64_t(t.type)) ||
            !ops::ggml_gemv_blocks_type(int64_t(t0.type)))
          return std::nullopt;
      }
      parts.push_back(&t);
    }
    return upload(name, std::move(parts));
  }
  std::optional<Matrix> stacked(const std::string& a, const std::string& b, const std::string& name) {
    return stacked(std::vector<std::string>{a, b}, name);
  }

  // The biases of stacked matrices as one vector (rows of a missing bias are 0); None when none has one.
  ValueId stacked_bias(const std::vector<std::string>& weights, const std::string& name) {
    return has_bias(weights) ? f32_constant(name, stacked_bias_values(weights)) : g().none();
  }
  bool has_bias(const std::vector<std::string>& weights) const {
    for (const std::string& wn : weights)
      if (w_.has(wn + ".bias")) return true;
    return false;
  }
  // wgrt.linear_ggml_rope_qkv's norm-and-bias vector: the norm weight [K], zeros up to ops::rope_bias_start(K), then
  // the stacked q/k/v bias (one binding: the op's GEMV epilogue has no 11th storage binding for a bias).
  ValueId norm_and_bias(const std::string& norm, const std::vector<std::string>& weights, const std::string& name) {
    const WeightTensor& t = w_.get(norm);
    account(t, false);
    std::vector<float> f = t.to_f32();
    f.resize(size_t(ops::rope_bias_start(int64_t(f.size()))), 0.0f);
    const std::vector<float> bias = stacked_bias_values(weights);
    f.insert(f.end(), bias.begin(), bias.end());
    return f32_constant(name, std::move(f));
  }
  std::vector<float> stacked_bias_values(const std::vector<std::string>& weights) {
    std::vector<float> f;
    for (const std::string& wn : weights) {
      if (!w_.has(wn + ".bias")) {
        f.resize(f.size() + size_t(w_.get(wn).rows()), 0.0f);
        continue;
      }
      const WeightTensor& t = w_.get(wn + ".bias");
      account(t, false);
      std::vector<float> v = t.to_f32();
      f.insert(f.end(), v.begin(), v.end());
    }
    return f;
  }

  bool keeps_q4(const WeightTensor& t) const { return t.type == GgmlType::Q4_0 && o_.weights == WeightPolicy::Auto; }
  // Types the block-format kernels decode (wgrt.linear_ggml / wgrt.embedding_ggml) stay as the file's blocks.
  bool keeps_blocks(const WeightTensor& t) const {
    return o_.weights == WeightPolicy::Auto && !keeps_q4(t) && t.type != GgmlType::F32 &&
           ops::ggml_gpu_block(int64_t(t.type)).has_value() && t.cols() % ops::ggml_gpu_block(int64_t(t.type))->elems == 0;
  }

  // Counts a file tensor's bytes, and those of it that load widened to f32 (see LlamaGraph::widened_bytes).
  void account(const WeightTensor& t, bool kept) {
    out_.file_weight_bytes += t.data.size();
    if (!kept && t.type != GgmlType::F32) {
      out_.widened_file_bytes += t.data.size();
      out_.widened_gpu_bytes += t.n_elements * 4;
    }
  }

  // The blocks of `parts` in their GPU layout (ops::ggml_to_gpu_layout) laid out as `st` says. One part whose GPU
  // layout is the file's, of whole words, views the file's bytes (no host copy: the upload reads the mapping); else
  // the blocks are copied once into an uninitialized array, only its gaps zeroed.
  ConstantData block_bytes(const std::vector<const WeightTensor*>& parts, const ops::GgmlStack& st) const {
    const std::span<const uint8_t> d0 = parts[0]->data;
    if (parts.size() == 1 && d0.size() == st.bytes && reinterpret_cast<uintptr_t>(d0.data()) % 4 == 0)
      return ConstantData{d0.data(), d0.size(), w_.keepalive()};
    const size_t bytes = size_t(st.bytes);
    std::shared_ptr<uint8_t[]> buf(new uint8_t[bytes]);
    size_t part = 0, at = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0 && parts[i]->type != parts[i - 1]->type) {
        const size_t next = size_t(st.parts[++part].offset);
        std::memset(buf.get() + at, 0, next - at);
        at = next;
      }
      at += size_t(ops::ggml_to_gpu_layout(int64_t(parts[i]->type), parts[i]->data, buf.get() + at));
    }
    std::memset(buf.get() + at, 0, bytes - at);
    return ConstantData{buf.get(), bytes, buf};
  }

  // One weight constant from the rows of `parts` (same column count and storage), as q4gsw or f32.
  // Under WeightPolicy::Auto, Q4_0 becomes q4gsw and the types ops::ggml_gpu_block() lists stay as raw blocks;
  // every other type is dequantized to f32 here (interim, until the block-format kernels decode it too).
  Matrix upload(const std::string& name, std::vector<const WeightTensor*> parts) {
    Matrix m;
    m.k = parts[0]->cols();
    for (const WeightTensor* t : parts) {
      m.n += t->rows();
      account(*t, keeps_q4(*parts[0]) || keeps_blocks(*parts[0]));
    }
    if (keeps_blocks(*parts[0])) {
      // Rows of one type run together; a second type starts at ggml_stack_layout's offset.
      std::vector<std::pair<int64_t, int64_t>> type_rows;
      for (const WeightTensor* t : parts) {
        if (type_rows.empty() || type_rows.back().first != int64_t(t->type)) type_rows.push_back({int64_t(t->type), 0});
        type_rows.back().second += t->rows();
      }
      const ops::GgmlStack st = ops::ggml_stack_layout(type_rows, m.k);
      if (st.parts.size() > 1)
        for (const ops::GgmlStackPart& pt : st.parts) m.parts.insert(m.parts.end(), {pt.wtype, pt.rows});
      m.wtype = int64_t(parts[0]->type);
      out_.weight_bytes += st.bytes;
      m.weight = g().constant(name, DType::U32, {int64_t(st.bytes / 4)}, block_bytes(parts, st));
    } else if (keeps_q4(*parts[0])) {
      Q4gsw q = parts[0]->q4gsw();
      for (size_t i = 1; i < parts.size(); ++i) {
        Q4gsw more = parts[i]->q4gsw();
        q.qweight.insert(q.qweight.end(), more.qweight.begin(), more.qweight.end());
        q.scales.insert(q.scales.end(), more.scales.begin(), more.scales.end());
      }
      m.q4 = true;
      out_.weight_bytes += q.qweight.size() * 4 + (q.scales.size() * 2 + 3) / 4 * 4;
      m.weight = g().constant(name + ".qweight", DType::U32, {m.n, m.k / 8}, ConstantData::from_vector(std::move(q.qweight)));
      m.scales = g().constant(name + ".scales", DType::F16, {m.n, m.k / 32}, ConstantData::from_vector(std::move(q.scales)));
    } else {
      std::vector<float> f = parts[0]->to_f32();
      for (size_t i = 1; i < parts.size(); ++i) {
        std::vector<float> more = parts[i]->to_f32();
        f.insert(f.end(), more.begin(), more.end());
      }
      out_.weight_bytes += f.size() * 4;
      m.weight = g().constant(name, DType::F32, {m.n, m.k}, ConstantData::from_vector(std::move(f)));
    }
    return m;
  }

  // One f32 constant per tensor, however many nodes read it (the fused q/k/v linears share attn_norm).
  ValueId vector(const std::string& name) {
    if (auto it = vecs_.find(name); it != vecs_.end()) return it->second;
    return vecs_[name] = upload_vector(name);
  }

  ValueId upload_vector(const std::string& name) {
    const WeightTensor& t = w_.get(name);
    account(t, false);
    return f32_constant(name, t.to_f32());
  }

  // An f32 vector constant, counted in the GPU weight bytes.
  ValueId f32_constant(const std::string& name, std::vector<float> f) {
    out_.weight_bytes += f.size() * 4;
    const int64_t n = int64_t(f.size());
    return g().constant(name, DType::F32, {n}, ConstantData::from_vector(std::move(f)));
  }

  // Every intermediate gets explicit max dims: [1, S, ...] (prefill max), or [1, ...] after the last-token select.
  Dims like(ValueId x, int64_t last) const {
    Dims d = out_.graph.tensor_at(x).max_dims;
    d.back() = last;
    return d;
  }

  ValueId linear(ValueId x, const std::string& wname, const std::string& bias_name, const std::string& label) {
    return linear(x, matrix(wname), bias_name, label);
  }

  ValueId linear(ValueId x, const Matrix& m, const std::string& bias_name, const std::string& label) {
    return linear(x, m, bias_name.empty() || !w_.has(bias_name) ? g().none() : vector(bias_name), label);
  }

  ValueId linear(ValueId x, const Matrix& m, ValueId bias, const std::string& label) {
    ValueId y = g().tensor(DType::F32, like(x, m.n), label);
    if (m.wtype >= 0)
      g().op("wgrt.linear_ggml.default", {x, m.weight, wtype_arg(m), g().int_value(m.n), bias, y}, label);
    else if (m.q4)
      g().op("et_vk.linear_q4gsw.default", {x, m.weight, m.scales, g().int_value(32), bias, y}, label);
    else
      g().op("aten.linear.default", {x, m.weight, bias, y}, label);
    return y;
  }

  // wgrt.linear_q4gsw_fused: out = glu?(rms_norm?(x) @ W^T + bias) (+ residual); -1 / 0 leave a part out.
  ValueId fused(ValueId x, const Matrix& m, const std::string& bias_name, const std::string& norm_name,
                ValueId residual, int act, const std::string& label) {
    return fused(x, m, bias_name.empty() || !w_.has(bias_name) ? g().none() : vector(bias_name), norm_name, residual,
                 act, label);
  }

  ValueId fused(ValueId x, const Matrix& m, ValueId bias, const std::string& norm_name, ValueId residual, int act,
                const std::string& label) {
    ValueId nw = norm_name.empty() ? g().none() : vector(norm_name);
    ValueId y = g().tensor(DType::F32, like(x, act ? m.n / 2 : m.n), label);
    const ValueId res = residual < 0 ? g().none() : residual;
    if (m.wtype >= 0)
      g().op("wgrt.linear_ggml_fused.default", {x, m.weight, wtype_arg(m), g().int_value(m.n), bias, nw,
             g().real(cfg_.rms_eps), res, g().int_value(act), y}, label);
    else
      g().op("wgrt.linear_q4gsw_fused.default", {x, m.weight, m.scales, g().int_value(32), bias, nw,
             g().real(cfg_.rms_eps), res, g().int_value(act), y}, label);
    return y;
  }

  // The fused layer body applies (LlamaGraphOptions::fuse): every layer matrix q4gsw or in a block format of
  // the fused block GEMV (ops::ggml_gemv_blocks_type: wgrt.linear_ggml_fused), gate/up stackable (same type),
  // no post-norms. The serving batch (rows of several sequences) fuses q4gsw only: the fused block GEMV at 8
  // rows measured slower than the separate ops on the H200 (run 22 mid: Llama-3.2-1B Q4_K_M 8-row step 10.2 vs
  // 9.2 ms), so block formats keep the unfused body there.
  bool fusable() {
    if (!o_.fuse || cfg_.post_norms) return false;
    auto fused_kernel = [&](const WeightTensor& t) {
      return keeps_q4(t) || (o_.slots == 0 && keeps_blocks(t) && ops::ggml_gemv_blocks_type(int64_t(t.type)));
    };
    for (int l = 0; l < cfg_.n_layers; ++l) {
      const std::string p = fmt::format("blk.{}.", l);
      for (const char* t : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"})
        if (!fused_kernel(w_.get(p + t))) return false;
      const WeightTensor &gate = w_.get(p + "ffn_gate"), &up = w_.get(p + "ffn_up");
      if (gate.cols() != up.cols() || gate.type != up.type) return false;
    }
    return true;
  }

  ValueId rms_norm(ValueId x, ValueId weight, const std::string& label) {
    ValueId y = g().tensor(DType::F32, g().tensor_at(x).max_dims, label);
    g().op("et_vk.rms_norm.default", {x, weight, g().real(cfg_.rms_eps), y}, label);
    return y;
  }

  // (x + residual, rms_norm(x + residual)) in one dispatch.
  std::pair<ValueId, ValueId> add_rms_norm(ValueId x, ValueId residual, ValueId weight, const std::string& label) {
    const Dims d = g().tensor_at(x).max_dims;  // a copy: creating a tensor may move the graph's storage
    ValueId sum = g().tensor(DType::F32, d, label + ".residual"), y = g().tensor(DType::F32, d, label);
    g().op("wgrt.add_rms_norm.default", {x, residual, weight, g().real(cfg_.rms_eps), sum, y}, label);
    return {sum, y};
  }

  ValueId view(ValueId x, IntList sizes, const std::string& label) {
    Dims d(sizes.begin(), sizes.end());
    d[1] = g().tensor_at(x).max_dims[1];  // the -1 (sequence) dim
    ValueId y = g().tensor(DType::F32, d, label);
    g().op("aten.view_copy.default", {x, g().int_list(std::move(sizes)), y}, label);
    return y;
  }

  // wgrt.scale (x * s) or wgrt.softcap (c * tanh(x / c)), elementwise.
  ValueId scalar_op(const char* op, ValueId x, double s, const std::string& label) {
    ValueId y = g().tensor(DType::F32, g().tensor_at(x).max_dims, label);
    g().op(op, {x, g().real(s), y}, label);
    return y;
  }

  // The RoPE cos/sin tables of a layer kind (sliding-window layers have their own base; rope_scaling.h).
  std::pair<ValueId, ValueId> rope_tables(int C, bool swa) {
    ops::RopeTables rt = rope_tables_for(C, rope_frequencies(cfg_, C, swa));
    const int64_t half = cfg_.head_dim / 2;
    const std::string n = swa ? "rope_swa" : "rope";
    return {g().constant(n + ".cos", DType::F32, {C, half}, ConstantData::from_vector(std::move(rt.cos))),
            g().constant(n + ".sin", DType::F32, {C, half}, ConstantData::from_vector(std::move(rt.sin)))};
  }

  // The RoPE table of wgrt.linear_ggml_rope_qkv: [C, D] with cos in columns 0 .. D/2 and sin after (one binding
  // of its kernel instead of two), made on first use.
  ValueId rope_cos_sin(int C, bool swa) {
    if (auto it = cos_sin_.find(swa); it != cos_sin_.end()) return it->second;
    ops::RopeTables rt = rope_tables_for(C, rope_frequencies(cfg_, C, swa));
    const size_t half = size_t(cfg_.head_dim / 2);
    std::vector<float> both;
    both.reserve(rt.cos.size() * 2);
    for (size_t r = 0; r < size_t(C); ++r) {
      both.insert(both.end(), rt.cos.begin() + long(r * half), rt.cos.begin() + long((r + 1) * half));
      both.insert(both.end(), rt.sin.begin() + long(r * half), rt.sin.begin() + long((r + 1) * half));
    }
    return cos_sin_[swa] = g().constant(swa ? "rope_swa.cos_sin" : "rope.cos_sin", DType::F32, {C, 2 * int64_t(half)},
                                        ConstantData::from_vector(std::move(both)));
  }

  ValueId binary(const char* op, ValueId a, ValueId b, const std::string& label, bool alpha) {
    ValueId y = g().tensor(DType::F32, g().tensor_at(a).max_dims, label);
    if (alpha) g().op(op, {a, b, g().real(1.0), y}, label);
    else g().op(op, {a, b, y}, label);
    return y;
  }

  void build() {
    // Final values, resolved by the caller (Llm::load): no defaults here.
    const int C = o_.context, S = o_.max_prefill;
    if (C <= 0) throw InvalidArgument(fmt::format("context {} must be at least 1", C));
    if (C > cfg_.context_length && cfg_.context_length > 0)
      throw InvalidArgument(fmt::format("context {} exceeds the model's context length {}", C, cfg_.context_length));
    if (S <= 0 || S > C) throw InvalidArgument(fmt::format("max_prefill {} must be in 1..context ({})", S, C));
    out_.context = C;
    out_.max_prefill = S;
    const int64_t D = cfg_.dim, hd = cfg_.head_dim, Hq = cfg_.n_heads, Hkv = cfg_.n_kv_heads;

    out_.tokens = g().input("tokens", DType::I32, {1, S});
    const int N = o_.slots;  // serving batch: rows of N sequence slots (llama_graph.h)
    if (N < 0) throw InvalidArgument(fmt::format("slots {} must be >= 0", N));
    ValueId pos = -1;
    if (N > 0) {
      out_.row_slots = g().input("row_slots", DType::I32, {S});
      out_.row_pos = g().input("row_pos", DType::I32, {S});
      out_.out_rows = g().input("out_rows", DType::I32, {N});
    } else {
      out_.input_pos = g().input("input_pos", DType::I32, {1});
      pos = g().symint();
      g().op("et_vk.select_as_symint.default", {out_.input_pos, g().int_value(0), g().int_value(0), pos}, "input_pos");
    }

    const auto rope_global = rope_tables(C, false);
    const auto rope_swa = cfg_.swa_layers.empty() ? rope_global : rope_tables(C, true);
    const char* rope_op = cfg_.rope_interleaved ? "et_vk.apply_rotary_emb.default" : "et_vk.apply_rotary_emb_hf.default";

    // Token embedding.
    ValueId x = g().tensor(DType::F32, {1, S, D}, "embd");
    Matrix emb = matrix("tok_embd");
    if (emb.wtype >= 0)
      g().op("wgrt.embedding_ggml.default",
             {emb.weight, g().int_value(emb.wtype), g().int_value(emb.n), g().int_value(emb.k), out_.tokens, x}, "tok_embd");
    else if (emb.q4)
      g().op("et_vk.embedding_q4gsw.default", {emb.weight, emb.scales, g().int_value(32), out_.tokens, x}, "tok_embd");
    else
      g().op("aten.embedding.default", {emb.weight, out_.tokens, x}, "tok_embd");
    if (cfg_.embd_scale != 0.0f) x = scalar_op("wgrt.scale.default", x, cfg_.embd_scale, "embd_scaled");

    // Unfused: each residual add is fused with the norm that follows it (wgrt.add_rms_norm); h is the current
    // block input. Fused: x is the residual stream, the linears normalize it themselves.
    const bool fuse = fusable();
    ValueId h = fuse ? -1 : rms_norm(x, vector("blk.0.attn_norm"), "blk.0.attn_norm");
    for (int l = 0; l < cfg_.n_layers; ++l) {
      g().set_layer(l);
      std::string p = fmt::format("blk.{}.", l);
      auto qkv = [&](const char* t) {
        return fuse ? fused(x, matrix(p + t), p + t + ".bias", p + "attn_norm", -1, 0, p + t)
                    : linear(h, p + t, p + t + ".bias", p + t);
      };
      const bool rope = cfg_.has_rope(l);  // smollm3's NoPE layers attend with q and k as projected
      const bool swa = cfg_.is_swa(l);
      const auto& [fcos, fsin] = swa ? rope_swa : rope_global;
      ValueId kc = g().state(p + "k_cache", out_.kv_type, {std::max(N, 1), C, Hkv, hd});
      ValueId vc = g().state(p + "v_cache", out_.kv_type, {std::max(N, 1), C, Hkv, hd});
      out_.kv_caches.insert(out_.kv_caches.end(), {kc, vc});
      out_.kv_bytes += g().tensor_at(kc).max_bytes() + g().tensor_at(vc).max_bytes();
      // [Wq; Wk; Wv] stacked (in the fused body also when Wv's block type differs, as a Q4_K_M layer's Q6_K attn_v:
      // one two-type GEMV), else [Wq; Wk] with Wv apart.
      std::vector<std::string> qkv_names = {p + "attn_q", p + "attn_k", p + "attn_v"};
      std::optional<Matrix> wqkv;
      bool v_apart = false;
      if (o_.fuse_qkv && N == 0 && !cfg_.has_qk_norm) {
        wqkv = stacked(qkv_names, p + "attn_qkv", fuse);
        if (!wqkv && (wqkv = stacked(p + "attn_q", p + "attn_k", p + "attn_qk"))) qkv_names.pop_back(), v_apart = true;
      }
      ValueId q = -1, k = -1, v = -1, qr = -1, kr = -1;
      if (wqkv) {
        // One linear over the stack; RoPE and the cache write in one dispatch; the SDPA reads the caches.
        qr = g().tensor(DType::F32, {1, S, Hq, hd}, p + "q_rope");
        if (fuse && !v_apart && wqkv->wtype >= 0) {
          // Block formats: RoPE and the cache write in the GEMV's epilogue (one dispatch in decode); a q/k/v bias
          // (Qwen2) rides after the norm weight in one vector.
          const ValueId none = g().none();
          const ValueId nw = has_bias(qkv_names) ? norm_and_bias(p + "attn_norm", qkv_names, p + "attn_norm_and_qkv_bias")
                                                 : vector(p + "attn_norm");
          g().op("wgrt.linear_ggml_rope_qkv.default",
                 {x, wqkv->weight, wtype_arg(*wqkv), g().int_value(wqkv->n), nw, g().real(cfg_.rms_eps),
                  rope ? fcos : none, rope ? fsin : none, rope ? rope_cos_sin(C, swa) : none, pos, g().int_value(Hq),
                  g().int_value(Hkv), g().boolean(!cfg_.rope_interleaved), kc, vc, qr}, p + "attn_qkv");
        } else {
          const ValueId bias = stacked_bias(qkv_names, p + (v_apart ? "attn_qk.bias" : "attn_qkv.bias"));
          const ValueId y = fuse ? fused(x, *wqkv, bias, p + "attn_norm", -1, 0, p + "attn_qkv")
                                 : linear(h, *wqkv, bias, p + "attn_qkv");
          const ValueId vin = v_apart ? qkv("attn_v") : g().none();
          g().op("wgrt.rope_qkv_cache.default", {y, rope ? fcos : g().none(), rope ? fsin : g().none(), pos,
                 g().int_value(Hq), g().int_value(Hkv), g().boolean(!cfg_.rope_interleaved), vin, kc, vc, qr}, p + "rope_qkv");
        }
        k = v = kr = g().none();
      } else {
        q = view(qkv("attn_q"), {1, -1, Hq, hd}, p + "q_heads");
        k = view(qkv("attn_k"), {1, -1, Hkv, hd}, p + "k_heads");
        v = view(qkv("attn_v"), {1, -1, Hkv, hd}, p + "v_heads");
      }
      if (cfg_.has_qk_norm) {
        q = rms_norm(q, vector(p + "attn_q_norm"), p + "attn_q_norm");
        k = rms_norm(k, vector(p + "attn_k_norm"), p + "attn_k_norm");
      }
      if (!wqkv) {
        qr = rope ? g().tensor(DType::F32, {1, S, Hq, hd}, p + "q_rope") : q;
        kr = rope ? g().tensor(DType::F32, {1, S, Hkv, hd}, p + "k_rope") : k;
      }
      ValueId att = g().tensor(DType::F32, {1, S, Hq, hd}, p + "attn");
      const ValueId scale = cfg_.attn_scale != 0.0f ? g().real(cfg_.attn_scale) : g().none();
      if (N > 0) {
        if (rope)
          g().op(cfg_.rope_interleaved ? "wgrt.rope_rows.default" : "wgrt.rope_rows_hf.default",
                 {q, k, fcos, fsin, out_.row_pos, qr, kr}, p + "rope");
        if (cfg_.attn_softcap != 0.0f || swa)  // gemma: soft-capped scores, sliding window
          g().op("wgrt.sdpa_batched_swa.default", {qr, kr, v, kc, vc, out_.row_slots, out_.row_pos, scale,
                  g().real(cfg_.attn_softcap), g().int_value(swa ? cfg_.sliding_window : 0), att}, p + "sdpa");
        else
          g().op("wgrt.sdpa_batched.default", {qr, kr, v, kc, vc, out_.row_slots, out_.row_pos, scale, att}, p + "sdpa");
      } else {
        if (rope && !wqkv) g().op(rope_op, {q, k, fcos, fsin, pos, qr, kr}, p + "rope");
        if (cfg_.attn_softcap != 0.0f || swa)  // gemma: soft-capped scores, sliding window
          g().op("wgrt.sdpa_with_kv_cache_swa.default",
                 {qr, kr, v, kc, vc, pos, g().none(), g().none(), g().real(0.0), g().boolean(true), scale,
                  g().real(cfg_.attn_softcap), g().int_value(swa ? cfg_.sliding_window : 0), att}, p + "sdpa");
        else
          g().op("llama.sdpa_with_kv_cache.default",
                 {qr, kr, v, kc, vc, pos, g().none(), g().none(), g().real(0.0), g().boolean(true), scale, att}, p + "sdpa");
      }
      if (fuse) {
        // x2 = x + o-proj(att); x = x2 + down(glu(gate/up(norm(x2)))).
        ValueId x2 = fused(view(att, {1, -1, Hq * hd}, p + "attn_flat"), matrix(p + "attn_output"), "", "", x, 0,
                           p + "attn_output");
        auto gu = stacked(p + "ffn_gate", p + "ffn_up", p + "ffn_gate_up");
        ValueId prod = fused(x2, *gu, "", p + "ffn_norm", -1, cfg_.gelu_ffn ? 2 : 1, p + "ffn_gate_up");
        x = fused(prod, matrix(p + "ffn_down"), "", "", x2, 0, p + "ffn_down");
        continue;
      }
      ValueId o = linear(view(att, {1, -1, Hq * hd}, p + "attn_flat"), p + "attn_output", "", p + "attn_output");
      if (cfg_.post_norms) o = rms_norm(o, vector(p + "post_attention_norm"), p + "post_attention_norm");
      auto [x2, h2] = add_rms_norm(x, o, vector(p + "ffn_norm"), p + "ffn_norm");
      ValueId prod;
      if (auto gu = stacked(p + "ffn_gate", p + "ffn_up", p + "ffn_gate_up")) {
        // One GEMV over [gate; up], then silu(gate) * up in one dispatch.
        ValueId both = linear(h2, *gu, "", p + "ffn_gate_up");
        prod = g().tensor(DType::F32, like(both, gu->n / 2), p + "ffn_swiglu");
        g().op(cfg_.gelu_ffn ? "wgrt.geglu.default" : "wgrt.swiglu.default", {both, prod}, p + "ffn_swiglu");
      } else {
        ValueId gate = linear(h2, p + "ffn_gate", "", p + "ffn_gate");
        ValueId up = linear(h2, p + "ffn_up", "", p + "ffn_up");
        ValueId act = g().tensor(DType::F32, g().tensor_at(gate).max_dims, p + "ffn_silu");
        if (cfg_.gelu_ffn) g().op("aten.gelu.default", {gate, g().string("tanh"), act}, p + "ffn_gelu");
        else g().op("aten.silu.default", {gate, act}, p + "ffn_silu");
        prod = binary("aten.mul.Tensor", act, up, p + "ffn_mul", false);
      }
      ValueId down = linear(prod, p + "ffn_down", "", p + "ffn_down");
      if (cfg_.post_norms) down = rms_norm(down, vector(p + "post_ffw_norm"), p + "post_ffw_norm");
      if (l + 1 < cfg_.n_layers) {
        std::string next = fmt::format("blk.{}.attn_norm", l + 1);
        std::tie(x, h) = add_rms_norm(x2, down, vector(next), next);
      } else {
        x = binary("aten.add.Tensor", x2, down, p + "ffn_residual", true);
      }
    }
    g().set_layer(-1);
    // Only the last position feeds the classifier.
    ValueId last = -1;
    if (N > 0) {
      // The rows named by out_rows (each sequence's last row in this step) feed the classifier: a row gather.
      ValueId rows = g().tensor(DType::F32, {S, D}, "hidden_rows");
      g().op("aten.view_copy.default", {x, g().int_list({-1, D}), rows}, "hidden_rows");
      last = g().tensor(DType::F32, {N, D}, "last_hidden");
      g().op("aten.embedding.default", {rows, out_.out_rows, last}, "last_hidden");
    } else {
      last = g().tensor(DType::F32, {1, D}, "last_hidden");
      g().op("aten.select_copy.int", {x, g().int_value(1), g().int_value(-1), last}, "last_hidden");
    }
    ValueId n = rms_norm(last, vector("output_norm"), "output_norm");
    out_.logits = linear(n, w_.has("output") ? "output" : "tok_embd", "", "output");
    if (cfg_.final_softcap != 0.0f) out_.logits = scalar_op("wgrt.softcap.default", out_.logits, cfg_.final_softcap, "logits_softcap");
    out_.next_token = g().tensor(DType::I32, {std::max(N, 1)}, "next_token");
    g().op("wgrt.argmax_checked.default", {out_.logits, g().int_value(-1), g().boolean(false), out_.next_token}, "argmax");
    g().output(out_.logits);
    g().output(out_.next_token);
    // The seeded GPU draw (off until its params say on): single sequence, one params row and a window fed back
    // on the GPU; serving batch, one params row and penalty window per output row (set by the host each step).
    const Dims pd = N == 0 ? Dims{ops::kSampleParams} : Dims{N, ops::kSampleParams};
    const Dims wd = N == 0 ? Dims{kLlamaSampleWindow} : Dims{N, kLlamaSampleWindow};
    out_.sample_params = g().input("sample_params", DType::I32, pd);
    out_.sample_window = g().input("sample_window", DType::I32, wd);
    out_.sampled = g().tensor(DType::I32, {std::max(N, 1)}, "sampled");
    out_.sample_window_out = g().tensor(DType::I32, wd, "sample_window_out");
    g().op("wgrt.sample.default", {out_.logits, out_.sample_params, out_.sample_window, out_.sampled,
                                   out_.sample_window_out, g().none()}, "sample");
    g().output(out_.sampled);
    g().output(out_.sample_window_out);
  }

 private:
  Graph& g() { return out_.graph; }
  const WeightSource& w_;
  const LlamaConfig& cfg_;
  const LlamaGraphOptions& o_;
  LlamaGraph& out_;
  std::map<bool, ValueId> cos_sin_;  // rope_cos_sin by swa
  std::map<std::string, Matrix> mats_;
  std::map<std::string, ValueId> vecs_;
};

}  // namespace

DType kv_cache_type(const LlamaConfig& c, const LlamaGraphOptions& opts) {
  if (opts.kv_type != DType::F32 && opts.kv_type != DType::F16)
    throw InvalidArgument(fmt::format("the KV cache must be f32 or f16, not {}", dtype_name(opts.kv_type)));
  return opts.kv_type == DType::F16 && c.head_dim % 4 == 0 ? DType::F16 : DType::F32;
}

DType kv_cache_option(const std::string& name) {
  if (name == "f16") return DType::F16;
  if (name == "f32") return DType::F32;
  throw InvalidArgument(fmt::format("unknown KV cache type '{}': use f16 or f32", name));
}

std::string kv_cache_summary(DType t, uint64_t bytes) {
  const double b = double(bytes);
  return b < 1048576.0 ? fmt::format("{} KV cache, {:.1f} KiB", dtype_name(t), b / 1024.0)
                       : fmt::format("{} KV cache, {:.1f} MiB", dtype_name(t), b / 1048576.0);
}

LlamaGraph build_llama_graph(const WeightSource& w, const LlamaGraphOptions& opts) {
  LlamaGraph out;
  out.kv_type = kv_cache_type(w.config(), opts);
  Builder(w, opts, out).build();
  return out;
}

}  // namespace wgrt::models

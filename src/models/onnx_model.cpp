// wgrt::OnnxModel (include/wgrt/onnx.h): the parsed model, one device, and the executables that serve its
// input sizes: with bounded symbolic dims one graph built at the max dims (onnx_graph/dynamic_dims.h), else
// (and for dims that graph cannot serve) an LRU cache of graphs compiled per input dims (and the values of
// host-folded non-float inputs).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <list>
#include <map>
#include <set>

#include "formats/onnx/onnx_file.h"
#include "graph/executable.h"
#include "models/onnx_graph/dynamic_dims.h"
#include "models/onnx_graph/lowering.h"
#include "models/onnx_graph/onnx_graph.h"
#include "models/onnx_model_io.h"
#include "util/printable.h"
#include "webgpu/device.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace wgrt {

namespace {

using Clock = std::chrono::steady_clock;
using HostInputs = std::map<std::string, onnx::HostTensor>;

// One set of input dims (and host-folded values) and the executable that serves it.
struct Variant {
  std::string key;
  std::vector<onnx::Port> inputs, outputs;
  ExecutableGraph* exe = nullptr;
  std::unique_ptr<ExecutableGraph> own;                 // a graph of its own; null on the shared graph
  std::vector<std::pair<ValueId, int64_t>> symints;    // shared graph: the plan's sizes at these dims
  std::vector<std::pair<ValueId, Dims>> live_dims;     // shared graph: what the resize hooks must reach
  std::string own_reason;
};

// The one graph built at the bounded max dims.
struct SharedGraph {
  std::unique_ptr<ExecutableGraph> exe;
  onnx::DynamicPlan plan;
  std::vector<uint64_t> digests;  // of its constants (onnx::constant_digests)
  std::map<std::string, Variant> sizes;  // by key; cleared when the graph is rebuilt
};

class OnnxModelImpl final : public OnnxModel {
 public:
  OnnxModelImpl(const std::string& path, const OnnxOptions& o) : opts_(o), model_(onnx::load_model(path)) {
    onnx::check_operators(model_);
    if (opts_.max_cached_graphs < 1) throw InvalidArgument("OnnxOptions::max_cached_graphs must be >= 1");
    for (const auto& v : model_.inputs) {
      if (onnx::is_float_type(v.type) && v.type != onnx::ElemType::Float)
        throw Unsupported(fmt::format("ONNX model input '{}' has element type {}; wgrt takes float (32-bit) inputs only",
                                      printable(v.name), onnx::elem_name(v.type)));
      if (onnx::elem_size(v.type) == 0)
        throw Unsupported(fmt::format("ONNX model input '{}' has element type {}, which wgrt does not take", printable(v.name), onnx::elem_name(v.type)));
      inputs_.push_back(onnx_io::info(v));
    }
    for (const auto& v : model_.outputs) outputs_.push_back(onnx_io::info(v));
    if (o.share_device) {
      dev_ = static_cast<const OnnxModelImpl*>(o.share_device)->dev_;
    } else {
      webgpu::DeviceOptions d;
      d.adapter = o.adapter;
      dev_ = webgpu::Device::create(d);
    }
    if (!o.dim_bounds.empty()) bound_dims(o.dim_bounds);
  }

  const std::vector<OnnxValueInfo>& inputs() const override { return inputs_; }
  const std::vector<OnnxValueInfo>& outputs() const override { return outputs_; }
  int64_t opset() const override { return model_.opset; }
  std::string profile_table() const override {
    return last_ && last_->profiler() ? last_->profiler()->table() : "";
  }
  std::string adapter() const override { return dev_->adapter_info().summary(); }
  OnnxModelCounters counters() const override { return counters_; }

  void bound_dims(const std::map<std::string, int64_t>& bounds) override {
    bounded_ = onnx_io::check_bounds(model_, bounds);
    bounds_ = bounds;
    reset_shared({});
    cache_.clear();
    last_ = nullptr;
    counters_ = {};
  }

  void prepare(const std::vector<OnnxTensor>& in) override { compiled_for(in, nullptr); }

  std::vector<OnnxTensor> run(const std::vector<OnnxTensor>& in, OnnxRunStats* stats) override { return run_impl(in, stats, false); }
  std::vector<OnnxTensor> run_gpu(const std::vector<OnnxTensor>& in, OnnxRunStats* stats) override { return run_impl(in, stats, true); }
  std::vector<float> read(const OnnxTensor& t) const override { return onnx_io::read(t); }

 private:
  std::vector<OnnxTensor> run_impl(const std::vector<OnnxTensor>& in, OnnxRunStats* stats, bool keep_on_gpu) {
    OnnxRunStats st;
    const auto t0 = Clock::now();
    Variant* cp = nullptr;
    for (;;) {
      cp = &compiled_for(in, &st);
      Variant& c = *cp;
      for (const auto& [id, v] : c.symints) c.exe->set_symint(id, v);
      for (const auto& p : c.inputs) {
        if (p.id < 0) continue;
        const OnnxTensor* t = onnx_io::find(in, p.name);
        if (t->gpu) c.exe->feed_input(p.id, p.dims, onnx_io::buffer(*t, *dev_), uint64_t(numel(p.dims)) * 4);
        else c.exe->set_input(p.id, p.dims, std::span<const float>(t->f32));
      }
      // An op of the shared graph that refuses these live dims in its resize hook (before anything is
      // submitted; the graph stays usable) sends these dims to a graph of their own.
      std::string refused;
      try {
        c.exe->execute();
        break;
      } catch (const InvalidArgument& e) {
        if (c.own) throw;
        refused = e.what();
      } catch (const Unsupported& e) {
        if (c.own) throw;
        refused = e.what();
      }
      forced_own_[c.key] = "an op cannot follow these dims on the shared graph: " + refused;
      shared_.sizes.erase(c.key);
    }
    Variant& c = *cp;
    last_ = c.exe;
    for (const auto& [id, d] : c.live_dims)
      if (c.exe->dims(id) != d)
        throw Error(fmt::format("internal error: the shared ONNX graph's tensor '{}' has live dims {} where the lowering at "
                                "these input dims has {}", c.exe->graph().tensor_at(id).name, dims_str(c.exe->dims(id)), dims_str(d)));
    std::vector<OnnxTensor> out;
    for (const auto& p : c.outputs) out.push_back(onnx_io::output(p, *c.exe, keep_on_gpu ? dev_ : nullptr));
    st.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count() - st.compile_seconds;
    st.dispatches = c.exe->dispatch_count();
    st.shared_graph = !c.own;
    st.own_graph_reason = c.own_reason;
    counters_.runs++;
    counters_.shared_graph_runs += st.shared_graph;
    if (stats) *stats = st;
    return out;
  }

  // The executable for these inputs. A node that needs the values of a float input bound on the device
  // (NeedsHostInput) makes that input host-bound from then on (its values join the key): bound again, rebuilt.
  Variant& compiled_for(const std::vector<OnnxTensor>& api_in, OnnxRunStats* st) {
    for (size_t attempt = 0;; ++attempt) {
      try {
        return compiled_for(onnx_io::bind(model_, api_in, host_inputs_), st);
      } catch (const onnx::NeedsHostInput& e) {
        if (host_inputs_.count(e.input) || attempt > model_.inputs.size()) throw;
        host_inputs_.insert(e.input);
        reset_shared({});  // the shared graph took that input on the device
      }
    }
  }

  void reset_shared(onnx::DynamicPlan plan) {
    if (shared_.exe && last_ == shared_.exe.get()) last_ = nullptr;
    shared_ = SharedGraph{};
    shared_.plan = std::move(plan);
    forced_own_.clear();
  }

  std::unique_ptr<ExecutableGraph> build(Graph g) {
    auto exe = ExecutableGraph::build(std::move(g), *dev_);
    if (opts_.profile) exe->enable_profiling(true);
    counters_.graphs_built++;
    counters_.weight_bytes_uploaded += exe->memory().constant_bytes;
    return exe;
  }

  onnx::BuiltGraph lower(const HostInputs& in) {
    counters_.host_lowerings++;
    onnx::LowerOptions lo;
    lo.fuse_layernorm = opts_.fuse_layernorm;
    return onnx::build_onnx_graph(model_, in, host_inputs_, lo);
  }

  Variant& compiled_for(const HostInputs& in, OnnxRunStats* st) {
    const std::string key = onnx_io::key_of(in);
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->key == key) {
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front();
      }
    std::string reason;
    if (bounded_) {
      reason = onnx_io::above_bounds(model_, bounds_, in, host_inputs_, opts_.above_bounds_compile);
      if (auto f = forced_own_.find(key); reason.empty() && f != forced_own_.end()) reason = f->second;
      if (reason.empty()) {
        auto it = shared_.sizes.find(key);
        if (it != shared_.sizes.end()) return it->second;
        const auto t0 = Clock::now();
        onnx::BuiltGraph fresh = lower(in);
        onnx::DimsMatch m;
        for (int tries = 0; tries < 2; ++tries) {
          if (!shared_.exe) build_shared(in, fresh.graph, st);
          m = onnx::match_dims(shared_.exe->graph(), shared_.digests, shared_.plan, fresh.graph);
          if (!m.mismatch.empty() || m.grow.empty()) break;
          onnx::DynamicPlan plan = shared_.plan;  // a size first seen to vary at these dims: rebuild once with it
          plan.merge(m.grow);
          reset_shared(std::move(plan));
        }
        if (st) st->compile_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        if (m.serves()) {
          if (shared_.sizes.size() >= 256) shared_.sizes.clear();
          Variant v{key, std::move(fresh.inputs), std::move(fresh.outputs), shared_.exe.get(), nullptr, std::move(m.symints),
                    std::move(m.live_dims), ""};
          return shared_.sizes.emplace(key, std::move(v)).first->second;
        }
        reason = m.mismatch.empty() ? "the plan of varying sizes did not settle" : m.mismatch;
        return own_graph(key, std::move(fresh), reason, st);
      }
    }
    return own_graph(key, lower(in), reason, st);
  }

  // Lowers at the bounded max dims, grows the plan by what differs from `fresh` (the run's dims), builds.
  void build_shared(const HostInputs& in, const Graph& fresh, OnnxRunStats* st) {
    onnx::BuiltGraph at_max = lower(onnx_io::max_inputs(model_, bounds_, in, host_inputs_));
    onnx::apply_plan(at_max.graph, shared_.plan);
    shared_.digests = onnx::constant_digests(at_max.graph);
    onnx::DimsMatch m = onnx::match_dims(at_max.graph, shared_.digests, shared_.plan, fresh);
    if (m.mismatch.empty()) {
      onnx::apply_plan(at_max.graph, m.grow);
      shared_.plan.merge(m.grow);
    }
    shared_.exe = build(std::move(at_max.graph));
    shared_.sizes.clear();
    if (st) st->compiled = true;
  }

  Variant& own_graph(const std::string& key, onnx::BuiltGraph bg, const std::string& reason, OnnxRunStats* st) {
    const auto t0 = Clock::now();
    Variant c;
    c.key = key;
    c.inputs = std::move(bg.inputs);
    c.outputs = std::move(bg.outputs);
    c.own = build(std::move(bg.graph));
    c.exe = c.own.get();
    c.own_reason = reason;
    if (st) {
      st->compiled = true;
      st->compile_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    }
    cache_.push_front(std::move(c));
    while (cache_.size() > size_t(opts_.max_cached_graphs)) {
      if (last_ == cache_.back().exe) last_ = nullptr;
      cache_.pop_back();
    }
    return cache_.front();
  }

  OnnxOptions opts_;
  onnx::Model model_;
  std::vector<OnnxValueInfo> inputs_, outputs_;
  std::shared_ptr<webgpu::Device> dev_;
  std::map<std::string, int64_t> bounds_;
  bool bounded_ = false;  // every symbolic dim of the device inputs has a bound
  SharedGraph shared_;
  std::map<std::string, std::string> forced_own_;  // keys the shared graph failed to run, and why
  std::list<Variant> cache_;
  std::set<std::string> host_inputs_;  // float inputs folded on the host (see compiled_for)
  const ExecutableGraph* last_ = nullptr;  // the graph of the last run
  OnnxModelCounters counters_;
};

}  // namespace

std::unique_ptr<OnnxModel> OnnxModel::load(const std::string& path, const OnnxOptions& options) {
  return std::make_unique<OnnxModelImpl>(path, options);
}

}  // namespace wgrt

// wgrt::OnnxModel (include/wgrt/onnx.h): the parsed model, one device, and a cache of compiled graphs keyed
// by input dims (and the values of host-folded non-float inputs).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <list>
#include <map>
#include <set>

#include "formats/onnx/onnx_file.h"
#include "graph/executable.h"
#include "models/onnx_graph/lowering.h"
#include "models/onnx_graph/onnx_graph.h"
#include "util/printable.h"
#include "webgpu/device.h"
#include "wgrt/error.h"
#include "wgrt/onnx.h"

namespace wgrt {

namespace {

using Clock = std::chrono::steady_clock;

struct Compiled {
  std::string key;
  std::vector<onnx::Port> inputs, outputs;
  std::unique_ptr<ExecutableGraph> exe;
};

class OnnxModelImpl final : public OnnxModel {
 public:
  OnnxModelImpl(const std::string& path, const OnnxOptions& o) : opts_(o), model_(onnx::load_model(path)) {
    onnx::check_operators(model_);
    if (opts_.max_cached_graphs < 1) throw InvalidArgument("OnnxOptions::max_cached_graphs must be >= 1");
    auto info = [](const onnx::ValueInfo& v) {
      OnnxValueInfo i;
      i.name = v.name;
      i.elem_type = int32_t(v.type);
      for (const auto& d : v.dims) {
        i.dims.push_back(d.value);
        i.dim_params.push_back(d.param);
      }
      return i;
    };
    for (const auto& v : model_.inputs) {
      if (onnx::is_float_type(v.type) && v.type != onnx::ElemType::Float)
        throw Unsupported(fmt::format("ONNX model input '{}' has element type {}; wgrt takes float (32-bit) inputs only",
                                      printable(v.name), onnx::elem_name(v.type)));
      if (onnx::elem_size(v.type) == 0)
        throw Unsupported(fmt::format("ONNX model input '{}' has element type {}, which wgrt does not take", printable(v.name), onnx::elem_name(v.type)));
      inputs_.push_back(info(v));
    }
    for (const auto& v : model_.outputs) outputs_.push_back(info(v));
    if (o.share_device) {
      dev_ = static_cast<const OnnxModelImpl*>(o.share_device)->dev_;
    } else {
      webgpu::DeviceOptions d;
      d.adapter = o.adapter;
      dev_ = webgpu::Device::create(d);
    }
  }

  const std::vector<OnnxValueInfo>& inputs() const override { return inputs_; }
  const std::vector<OnnxValueInfo>& outputs() const override { return outputs_; }
  int64_t opset() const override { return model_.opset; }
  std::string profile_table() const override {
    return last_ && last_->profiler() ? last_->profiler()->table() : "";
  }
  std::string adapter() const override { return dev_->adapter_info().summary(); }

  void prepare(const std::vector<OnnxTensor>& in) override { compiled_for(in, nullptr); }

  std::vector<OnnxTensor> run(const std::vector<OnnxTensor>& in, OnnxRunStats* stats) override {
    OnnxRunStats st;
    Compiled& c = compiled_for(in, &st);
    const auto t0 = Clock::now();
    for (const auto& p : c.inputs) {
      if (p.id < 0) continue;
      const OnnxTensor* t = find(in, p.name);
      c.exe->set_input(p.id, p.dims, std::span<const float>(t->f32));
    }
    c.exe->execute();
    last_ = c.exe.get();
    std::vector<OnnxTensor> out;
    for (const auto& p : c.outputs) {
      OnnxTensor t;
      t.name = p.name;
      if (p.host) {
        t.elem_type = int32_t(p.host->type);
        t.dims = p.host->dims;
        if (p.host->is_float()) t.f32 = p.host->floats();
        else t.ints = p.host->i;
        if (p.host->is_float()) t.elem_type = 1;
      } else {
        t.elem_type = 1;
        t.dims = c.exe->dims(p.id);
        t.f32 = c.exe->read_f32(p.id);
      }
      out.push_back(std::move(t));
    }
    st.run_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    st.dispatches = c.exe->dispatch_count();
    if (stats) *stats = st;
    return out;
  }

 private:
  static const OnnxTensor* find(const std::vector<OnnxTensor>& in, const std::string& name) {
    for (const auto& t : in)
      if (t.name == name) return &t;
    return nullptr;
  }

  // Checks the caller's inputs against the model; returns them as host tensors (float data left out).
  std::map<std::string, onnx::HostTensor> bind(const std::vector<OnnxTensor>& in) const {
    std::set<std::string> names;
    for (const auto& t : in) {
      bool known = false;
      for (const auto& v : model_.inputs) known = known || v.name == t.name;
      if (!known) throw InvalidArgument(fmt::format("ONNX model has no input named '{}'", printable(t.name)));
      if (!names.insert(t.name).second) throw InvalidArgument(fmt::format("ONNX input '{}' is given twice", printable(t.name)));
    }
    std::map<std::string, onnx::HostTensor> out;
    for (const auto& v : model_.inputs) {
      const OnnxTensor* t = find(in, v.name);
      if (!t) throw InvalidArgument(fmt::format("ONNX model input '{}' is not given", printable(v.name)));
      if (t->elem_type != int32_t(v.type))
        throw InvalidArgument(fmt::format("ONNX input '{}' is {}; the model needs {}", printable(v.name),
                                          onnx::elem_name(onnx::ElemType(t->elem_type)), onnx::elem_name(v.type)));
      int64_t n = 1;
      for (int64_t d : t->dims) {
        if (d < 0 || (d > 0 && n > (int64_t(1) << 40) / d))
          throw InvalidArgument(fmt::format("ONNX input '{}' has invalid dims {}", printable(v.name), dims_str(t->dims)));
        n *= d;
      }
      onnx::HostTensor h;
      h.type = v.type;
      h.dims = t->dims;
      if (v.type == onnx::ElemType::Float) {
        if (int64_t(t->f32.size()) != n)
          throw InvalidArgument(fmt::format("ONNX input '{}' has {} floats; dims {} need {}", printable(v.name), t->f32.size(), dims_str(t->dims), n));
        if (host_inputs_.count(v.name)) h.f.assign(t->f32.begin(), t->f32.end());
      } else {
        if (onnx::is_float_type(v.type)) throw Unsupported(fmt::format("ONNX input '{}': element type {} is not supported", printable(v.name), onnx::elem_name(v.type)));
        if (int64_t(t->ints.size()) != n)
          throw InvalidArgument(fmt::format("ONNX input '{}' has {} values; dims {} need {}", printable(v.name), t->ints.size(), dims_str(t->dims), n));
        h.i = t->ints;
      }
      out.emplace(v.name, std::move(h));
    }
    return out;
  }

  static std::string key_of(const std::map<std::string, onnx::HostTensor>& in) {
    std::string k;
    for (const auto& [name, h] : in) {
      k += name + dims_str(h.dims);
      if (!h.i.empty()) k += "=" + fmt::format("{}", fmt::join(h.i, ","));
      for (double f : h.f) k += fmt::format("{:a},", f);
      k += ";";
    }
    return k;
  }

  // The compiled graph for these inputs. A node that needs the values of a float input bound on the device
  // (NeedsHostInput) makes that input host-bound from then on (its values join the key): bound again, rebuilt.
  Compiled& compiled_for(const std::vector<OnnxTensor>& api_in, OnnxRunStats* st) {
    for (size_t attempt = 0;; ++attempt) {
      try {
        return compiled_for(bind(api_in), st);
      } catch (const onnx::NeedsHostInput& e) {
        if (host_inputs_.count(e.input) || attempt > model_.inputs.size()) throw;
        host_inputs_.insert(e.input);
      }
    }
  }

  Compiled& compiled_for(const std::map<std::string, onnx::HostTensor>& in, OnnxRunStats* st) {
    const std::string key = key_of(in);
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->key == key) {
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front();
      }
    const auto t0 = Clock::now();
    onnx::BuiltGraph bg = onnx::build_onnx_graph(model_, in, host_inputs_);
    Compiled c;
    c.key = key;
    c.inputs = std::move(bg.inputs);
    c.outputs = std::move(bg.outputs);
    c.exe = ExecutableGraph::build(std::move(bg.graph), *dev_);
    if (opts_.profile) c.exe->enable_profiling(true);
    if (st) {
      st->compiled = true;
      st->compile_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    cache_.push_front(std::move(c));
    while (cache_.size() > size_t(opts_.max_cached_graphs)) {
      if (last_ == cache_.back().exe.get()) last_ = nullptr;
      cache_.pop_back();
    }
    return cache_.front();
  }

  OnnxOptions opts_;
  onnx::Model model_;
  std::vector<OnnxValueInfo> inputs_, outputs_;
  std::shared_ptr<webgpu::Device> dev_;
  std::list<Compiled> cache_;
  std::set<std::string> host_inputs_;  // float inputs folded on the host (see compiled_for)
  const ExecutableGraph* last_ = nullptr;  // the graph of the last run (in cache_)
};

}  // namespace

std::unique_ptr<OnnxModel> OnnxModel::load(const std::string& path, const OnnxOptions& options) {
  return std::make_unique<OnnxModelImpl>(path, options);
}

}  // namespace wgrt

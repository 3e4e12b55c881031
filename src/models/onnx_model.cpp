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
    for (const auto& v : model_.inputs) inputs_.push_back(info(v));
    for (const auto& v : model_.outputs) outputs_.push_back(info(v));
    webgpu::DeviceOptions d;
    d.adapter = o.adapter;
    dev_ = webgpu::Device::create(d);
  }

  const std::vector<OnnxValueInfo>& inputs() const override { return inputs_; }
  const std::vector<OnnxValueInfo>& outputs() const override { return outputs_; }
  int64_t opset() const override { return model_.opset; }
  std::string adapter() const override { return dev_->adapter_info().summary(); }

  void prepare(const std::vector<OnnxTensor>& in) override { compiled_for(bind(in), nullptr); }

  std::vector<OnnxTensor> run(const std::vector<OnnxTensor>& in, OnnxRunStats* stats) override {
    OnnxRunStats st;
    const auto host = bind(in);
    Compiled& c = compiled_for(host, &st);
    const auto t0 = Clock::now();
    for (const auto& p : c.inputs) {
      if (p.id < 0) continue;
      const OnnxTensor* t = find(in, p.name);
      c.exe->set_input(p.id, p.dims, std::span<const float>(t->f32));
    }
    c.exe->execute();
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
      k += ";";
    }
    return k;
  }

  Compiled& compiled_for(const std::map<std::string, onnx::HostTensor>& in, OnnxRunStats* st) {
    const std::string key = key_of(in);
    for (auto it = cache_.begin(); it != cache_.end(); ++it)
      if (it->key == key) {
        cache_.splice(cache_.begin(), cache_, it);
        return cache_.front();
      }
    const auto t0 = Clock::now();
    onnx::BuiltGraph bg = onnx::build_onnx_graph(model_, in);
    Compiled c;
    c.key = key;
    c.inputs = std::move(bg.inputs);
    c.outputs = std::move(bg.outputs);
    c.exe = ExecutableGraph::build(std::move(bg.graph), *dev_);
    if (st) {
      st->compiled = true;
      st->compile_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    cache_.push_front(std::move(c));
    while (cache_.size() > size_t(opts_.max_cached_graphs)) cache_.pop_back();
    return cache_.front();
  }

  OnnxOptions opts_;
  onnx::Model model_;
  std::vector<OnnxValueInfo> inputs_, outputs_;
  std::unique_ptr<webgpu::Device> dev_;
  std::list<Compiled> cache_;
};

}  // namespace

std::unique_ptr<OnnxModel> OnnxModel::load(const std::string& path, const OnnxOptions& options) {
  return std::make_unique<OnnxModelImpl>(path, options);
}

}  // namespace wgrt

#include "models/onnx_model_io.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt::onnx_io {

OnnxValueInfo info(const onnx::ValueInfo& v) {
  OnnxValueInfo i;
  i.name = v.name;
  i.elem_type = int32_t(v.type);
  for (const auto& d : v.dims) {
    i.dims.push_back(d.value);
    i.dim_params.push_back(d.param);
  }
  return i;
}

const OnnxTensor* find(const std::vector<OnnxTensor>& in, const std::string& name) {
  for (const auto& t : in)
    if (t.name == name) return &t;
  return nullptr;
}

std::map<std::string, onnx::HostTensor> bind(const onnx::Model& m, const std::vector<OnnxTensor>& in, const std::set<std::string>& host_floats) {
  std::set<std::string> names;
  for (const auto& t : in) {
    bool known = false;
    for (const auto& v : m.inputs) known = known || v.name == t.name;
    if (!known) throw InvalidArgument(fmt::format("ONNX model has no input named '{}'", printable(t.name)));
    if (!names.insert(t.name).second) throw InvalidArgument(fmt::format("ONNX input '{}' is given twice", printable(t.name)));
  }
  std::map<std::string, onnx::HostTensor> out;
  for (const auto& v : m.inputs) {
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
    if (t->gpu) {
      if (v.type != onnx::ElemType::Float)
        throw InvalidArgument(fmt::format("ONNX input '{}': GPU tensors are float32, the model needs {}", printable(v.name), onnx::elem_name(v.type)));
      if (int64_t(t->gpu->count) != n)
        throw InvalidArgument(fmt::format("ONNX input '{}': the GPU tensor has {} floats; dims {} need {}", printable(v.name), t->gpu->count, dims_str(t->dims), n));
      if (host_floats.count(v.name)) {
        const std::vector<float> f = read(*t);
        h.f.assign(f.begin(), f.end());
      }
    } else if (v.type == onnx::ElemType::Float) {
      if (int64_t(t->f32.size()) != n)
        throw InvalidArgument(fmt::format("ONNX input '{}' has {} floats; dims {} need {}", printable(v.name), t->f32.size(), dims_str(t->dims), n));
      if (host_floats.count(v.name)) h.f.assign(t->f32.begin(), t->f32.end());
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

std::string key_of(const std::map<std::string, onnx::HostTensor>& in) {
  std::string k;
  for (const auto& [name, h] : in) {
    k += name + dims_str(h.dims);
    if (!h.i.empty()) k += "=" + fmt::format("{}", fmt::join(h.i, ","));
    for (double f : h.f) k += fmt::format("{:a},", f);
    k += ";";
  }
  return k;
}

bool check_bounds(const onnx::Model& m, const std::map<std::string, int64_t>& bounds) {
  for (const auto& [name, b] : bounds) {
    bool found = false;
    for (const auto& v : m.inputs)
      for (const auto& d : v.dims) found = found || (d.value < 0 && d.param == name);
    if (!found) throw InvalidArgument(fmt::format("dim bound '{}': the model has no symbolic input dim of that name", printable(name)));
    if (b < 1 || b > (int64_t(1) << 31))
      throw InvalidArgument(fmt::format("dim bound '{}' = {} is out of range (1 to 2^31)", printable(name), b));
  }
  if (bounds.empty()) return false;
  for (const auto& v : m.inputs) {
    if (v.type != onnx::ElemType::Float) continue;
    if (!v.has_shape) return false;
    for (const auto& d : v.dims)
      if (d.value < 0 && (d.param.empty() || !bounds.count(d.param))) return false;
  }
  return true;
}

std::string above_bounds(const onnx::Model& m, const std::map<std::string, int64_t>& bounds, const std::map<std::string, onnx::HostTensor>& in,
                         const std::set<std::string>& host_floats, bool compile_ok) {
  for (const auto& v : m.inputs) {
    if (v.type == onnx::ElemType::Float && host_floats.count(v.name))
      return fmt::format("input '{}' is folded on the host (a node needs its values)", printable(v.name));
    const onnx::HostTensor& h = in.at(v.name);
    for (size_t k = 0; k < v.dims.size() && k < h.dims.size(); ++k) {
      auto b = bounds.find(v.dims[k].param);
      if (v.dims[k].value >= 0 || b == bounds.end() || h.dims[k] <= b->second) continue;
      std::string why = fmt::format("ONNX input '{}' dim {} ('{}') is {}, above its bound {}", printable(v.name), k,
                                    printable(v.dims[k].param), h.dims[k], b->second);
      if (compile_ok) return why;
      throw InvalidArgument(why + " (raise it in OnnxOptions::dim_bounds, or set above_bounds_compile)");
    }
  }
  return "";
}

std::map<std::string, onnx::HostTensor> max_inputs(const onnx::Model& m, const std::map<std::string, int64_t>& bounds,
                                                   std::map<std::string, onnx::HostTensor> in, const std::set<std::string>& host_floats) {
  for (const auto& v : m.inputs) {
    if (v.type != onnx::ElemType::Float || host_floats.count(v.name)) continue;
    onnx::HostTensor& h = in.at(v.name);
    for (size_t k = 0; k < v.dims.size() && k < h.dims.size(); ++k)
      h.dims[k] = v.dims[k].value >= 0 ? v.dims[k].value : bounds.at(v.dims[k].param);
  }
  return in;
}

OnnxTensor output(const onnx::Port& p, const ExecutableGraph& exe, const std::shared_ptr<webgpu::Device>& gpu_dev) {
  OnnxTensor t;
  t.name = p.name;
  if (p.host) {
    t.elem_type = p.host->is_float() ? 1 : int32_t(p.host->type);
    t.dims = p.host->dims;
    if (p.host->is_float()) t.f32 = p.host->floats();
    else t.ints = p.host->i;
    return t;
  }
  t.elem_type = 1;
  t.dims = exe.dims(p.id);
  if (!gpu_dev) {
    t.f32 = exe.read_f32(p.id);
    return t;
  }
  auto g = std::make_shared<OnnxGpuData>();
  g->dev = gpu_dev;
  g->buf = exe.copy_out(p.id);
  g->count = size_t(numel(t.dims));
  t.gpu = std::move(g);
  return t;
}

const webgpu::Buffer& buffer(const OnnxTensor& t, const webgpu::Device& dev) {
  if (t.gpu->dev.get() != &dev)
    throw InvalidArgument(fmt::format("ONNX input '{}' is a GPU tensor of another device (load the models with "
                                      "OnnxOptions::share_device to chain them)", printable(t.name)));
  return t.gpu->buf;
}

std::vector<float> read(const OnnxTensor& t) {
  if (!t.gpu) return t.f32;
  std::vector<float> v(t.gpu->count);
  if (!v.empty()) webgpu::read_buffer(*t.gpu->dev, t.gpu->buf.get(), 0, v.data(), v.size() * 4);
  return v;
}

}  // namespace wgrt::onnx_io

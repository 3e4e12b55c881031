#include "models/onnx_graph/host_tensor.h"

#include <cmath>
#include <cstring>

#include "util/half.h"
#include "wgrt/error.h"

namespace wgrt::onnx {

bool is_float_type(ElemType t) {
  return t == ElemType::Float || t == ElemType::Double || t == ElemType::Float16 || t == ElemType::Bfloat16;
}

int64_t to_i64(double v) {
  if (!(v == v)) return 0;
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  if (v <= -9.2233720368547758e18) return INT64_MIN;
  return int64_t(v);
}

int64_t host_numel(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) throw Unsupported("ONNX: a tensor with a negative dim in " + dims_str(dims));
    if (d != 0 && n > kMaxHostElems / d) throw Unsupported("ONNX: a tensor of dims " + dims_str(dims) + " is too large to compute at load time");
    n *= d;
  }
  return n;
}

bool HostTensor::is_float() const { return is_float_type(type); }

std::vector<int64_t> HostTensor::ints() const {
  if (!is_float()) return i;
  std::vector<int64_t> out(f.size());
  for (size_t k = 0; k < f.size(); ++k) out[k] = to_i64(f[k]);
  return out;
}

std::vector<float> HostTensor::floats() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  for (size_t k = 0; k < out.size(); ++k) out[k] = float(at(k));
  return out;
}

namespace {

// Wraps an integer into the range of type t (two's complement), as a C cast does.
int64_t wrap_int(int64_t v, ElemType t) {
  switch (t) {
    case ElemType::Int8: return int8_t(v);
    case ElemType::Uint8: return uint8_t(v);
    case ElemType::Int16: return int16_t(v);
    case ElemType::Uint16: return uint16_t(v);
    case ElemType::Int32: return int32_t(v);
    case ElemType::Uint32: return uint32_t(v);
    case ElemType::Bool: return v != 0;
    default: return v;
  }
}

double round_float(double v, ElemType t) {
  switch (t) {
    case ElemType::Float: return double(float(v));
    case ElemType::Float16: return f16_to_f32(f32_to_f16(float(v)));
    case ElemType::Bfloat16: return bf16_to_f32(f32_to_bf16(float(v)));
    default: return v;
  }
}

}  // namespace

HostTensor HostTensor::cast(ElemType t) const {
  HostTensor out;
  out.type = t;
  out.dims = dims;
  const size_t n = size_t(numel());
  if (is_float_type(t)) {
    out.f.resize(n);
    for (size_t k = 0; k < n; ++k) out.f[k] = round_float(at(k), t);
  } else {
    out.i.resize(n);
    for (size_t k = 0; k < n; ++k) {
      if (t == ElemType::Bool) out.i[k] = at(k) != 0;
      else if (is_float()) out.i[k] = std::isfinite(f[k]) ? wrap_int(to_i64(f[k]), t) : 0;
      else out.i[k] = wrap_int(i[k], t);
    }
  }
  return out;
}

HostTensor host_ints(ElemType t, Dims dims, std::vector<int64_t> v) {
  HostTensor h;
  h.type = t;
  h.dims = std::move(dims);
  h.i = std::move(v);
  return h;
}

HostTensor host_floats(ElemType t, Dims dims, std::vector<double> v) {
  HostTensor h;
  h.type = t;
  h.dims = std::move(dims);
  h.f = std::move(v);
  return h;
}

HostTensor host_from(const Tensor& t) {
  HostTensor h;
  h.type = t.type;
  h.dims = t.dims;
  const size_t n = size_t(t.numel());
  const uint8_t* p = t.data ? t.data->data() : nullptr;
  auto rd = [&](auto v, size_t k) {
    std::memcpy(&v, p + k * sizeof(v), sizeof(v));
    return v;
  };
  if (h.is_float()) h.f.resize(n);
  else h.i.resize(n);
  for (size_t k = 0; k < n; ++k) {
    switch (t.type) {
      case ElemType::Float: h.f[k] = rd(float{}, k); break;
      case ElemType::Double: h.f[k] = rd(double{}, k); break;
      case ElemType::Float16: h.f[k] = f16_to_f32(rd(uint16_t{}, k)); break;
      case ElemType::Bfloat16: h.f[k] = bf16_to_f32(rd(uint16_t{}, k)); break;
      case ElemType::Int8: h.i[k] = rd(int8_t{}, k); break;
      case ElemType::Uint8: h.i[k] = rd(uint8_t{}, k); break;
      case ElemType::Bool: h.i[k] = rd(uint8_t{}, k) != 0; break;
      case ElemType::Int16: h.i[k] = rd(int16_t{}, k); break;
      case ElemType::Uint16: h.i[k] = rd(uint16_t{}, k); break;
      case ElemType::Int32: h.i[k] = rd(int32_t{}, k); break;
      case ElemType::Uint32: h.i[k] = rd(uint32_t{}, k); break;
      case ElemType::Int64: h.i[k] = rd(int64_t{}, k); break;
      case ElemType::Uint64: h.i[k] = int64_t(rd(uint64_t{}, k)); break;
      default: throw Unsupported("ONNX tensor '" + t.name + "' has element type " + elem_name(t.type) + ", which wgrt does not read");
    }
  }
  return h;
}

std::vector<uint8_t> host_bytes(const HostTensor& h) {
  const size_t n = size_t(h.numel()), es = elem_size(h.type);
  std::vector<uint8_t> out(n * es);
  auto wr = [&](auto v, size_t k) { std::memcpy(out.data() + k * sizeof(v), &v, sizeof(v)); };
  for (size_t k = 0; k < n; ++k) {
    switch (h.type) {
      case ElemType::Float: wr(float(h.f[k]), k); break;
      case ElemType::Double: wr(h.f[k], k); break;
      case ElemType::Float16: wr(f32_to_f16(float(h.f[k])), k); break;
      case ElemType::Bfloat16: wr(f32_to_bf16(float(h.f[k])), k); break;
      case ElemType::Int8: wr(int8_t(h.i[k]), k); break;
      case ElemType::Uint8: case ElemType::Bool: wr(uint8_t(h.i[k]), k); break;
      case ElemType::Int16: wr(int16_t(h.i[k]), k); break;
      case ElemType::Uint16: wr(uint16_t(h.i[k]), k); break;
      case ElemType::Int32: wr(int32_t(h.i[k]), k); break;
      case ElemType::Uint32: wr(uint32_t(h.i[k]), k); break;
      case ElemType::Int64: case ElemType::Uint64: wr(h.i[k], k); break;
      default: throw Unsupported("element type " + elem_name(h.type) + " has no byte form in wgrt");
    }
  }
  return out;
}

}  // namespace wgrt::onnx

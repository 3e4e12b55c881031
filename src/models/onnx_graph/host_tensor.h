// Host-side tensors of the ONNX importer: values known at import time (initializers, Constant nodes, and the
// results of folded shape computations such as Shape -> Gather -> Concat). Floating types keep their values
// as double, integer and bool types as int64 (so INT64_MAX in a Slice end stays exact).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "formats/onnx/onnx_file.h"
#include "graph/value.h"

namespace wgrt::onnx {

// double -> int64 truncating toward zero, saturating at the int64 range (NaN -> 0): never undefined.
int64_t to_i64(double v);
// The element count of dims; Unsupported if a dim is negative or the count exceeds kMaxHostElems.
constexpr int64_t kMaxHostElems = int64_t(1) << 26;
int64_t host_numel(const Dims& dims);

struct HostTensor {
  ElemType type = ElemType::Float;
  Dims dims;
  std::vector<double> f;   // floating types (Float, Double, Float16, Bfloat16)
  std::vector<int64_t> i;  // integer types and Bool

  bool is_float() const;
  int64_t numel() const { return wgrt::numel(dims); }
  double at(size_t k) const { return is_float() ? f[k] : double(i[k]); }
  int64_t int_at(size_t k) const { return is_float() ? to_i64(f[k]) : i[k]; }
  std::vector<int64_t> ints() const;  // all values as int64 (floats truncated)
  std::vector<float> floats() const;  // all values as float
  // Values as a new tensor of type t (ONNX Cast semantics: float -> int truncates, -> bool is != 0).
  HostTensor cast(ElemType t) const;
};

bool is_float_type(ElemType t);
HostTensor host_from(const Tensor& t);  // decodes the file's bytes (float16/bfloat16 widened)
HostTensor host_ints(ElemType t, Dims dims, std::vector<int64_t> v);
HostTensor host_floats(ElemType t, Dims dims, std::vector<double> v);
// The row-major bytes of `h` in its element type (for .npy files and output tensors).
std::vector<uint8_t> host_bytes(const HostTensor& h);

}  // namespace wgrt::onnx

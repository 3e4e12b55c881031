// Graph values: tensors (max dims that size the buffer + live dims of the current call), SymInts (live
// scalars recomputed at every execute), and the scalar/list arguments ops take.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "graph/dtype.h"

namespace wgrt {

using ValueId = int32_t;
using Dims = std::vector<int64_t>;

int64_t numel(const Dims& d);
std::string dims_str(const Dims& d);  // "[1, 7, 64]"

// Bytes of host data for a constant: a view plus whatever keeps it alive (a vector, an mmapped file).
struct ConstantData {
  const void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<const void> keepalive;
  static ConstantData copy_of(const void* p, size_t bytes);
  template <typename T>
  static ConstantData from_vector(std::vector<T> v) {
    auto owned = std::make_shared<std::vector<T>>(std::move(v));
    return ConstantData{owned->data(), owned->size() * sizeof(T), owned};
  }
};

enum class TensorRole : uint8_t {
  Intermediate,  // produced by an op; its buffer may be shared with tensors of disjoint lifetime
  Input,         // written by the caller before each execute
  Constant,      // weights: uploaded once at build
  State,         // persistent, zero-initialised, never shared (KV caches)
};

struct TensorValue {
  std::string name;
  DType dtype = DType::F32;
  Dims max_dims;  // sizes the buffer; empty with `infer_dims` = taken from the producing op at build
  Dims dims;      // live dims of the current call (<= max_dims elementwise)
  TensorRole role = TensorRole::Intermediate;
  bool infer_dims = false;
  bool is_output = false;
  ConstantData constant;  // Constant only

  uint64_t max_bytes() const;   // bytes of the buffer at max dims
  uint64_t live_bytes() const;  // bytes of the live dims
};

struct SymIntValue {
  int64_t value = 0;
};
struct NoneValue {};
struct ValueList {
  std::vector<ValueId> ids;
};
using IntList = std::vector<int64_t>;

using Value = std::variant<NoneValue, TensorValue, SymIntValue, int64_t, double, bool, IntList, ValueList, std::string>;

std::string_view value_kind(const Value& v);  // "tensor", "symint", "int", ...

}  // namespace wgrt

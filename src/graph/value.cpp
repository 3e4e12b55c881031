#include "graph/value.h"

#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace wgrt {

int64_t numel(const Dims& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

std::string dims_str(const Dims& d) { return fmt::format("[{}]", fmt::join(d, ", ")); }

ConstantData ConstantData::copy_of(const void* p, size_t bytes) {
  auto owned = std::make_shared<std::vector<uint8_t>>(bytes);
  if (bytes) std::memcpy(owned->data(), p, bytes);
  return ConstantData{owned->data(), bytes, owned};
}

static uint64_t bytes_of(DType t, const Dims& d) { return (uint64_t(numel(d)) * dtype_bits(t) + 7) / 8; }
uint64_t TensorValue::max_bytes() const { return bytes_of(dtype, max_dims); }
uint64_t TensorValue::live_bytes() const { return bytes_of(dtype, dims); }

std::string_view value_kind(const Value& v) {
  static constexpr std::string_view names[] = {"none", "tensor", "symint", "int", "double", "bool", "int_list",
                                               "value_list", "string"};
  return names[v.index()];
}

}  // namespace wgrt

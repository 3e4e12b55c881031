// NumPy .npy files (format versions 1.0-3.0), C order only: the tensors of `wgrt run`'s --input and
// outputs. Element types read: <f4, <f8 (narrowed to f32), <f2 (widened), <i8, <i4, <i2, |i1, |u1, <u2, <u4,
// <u8 (as int64), |b1 (bool as 0/1). Written: <f4, <i8, |b1.
// Errors: FormatError naming the file (bad magic, header, dtype, Fortran order, data length).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace wgrt {

struct NpyArray {
  enum class Kind { Float, Int, Bool } kind = Kind::Float;
  std::vector<int64_t> dims;
  std::vector<float> f32;    // Kind::Float
  std::vector<int64_t> ints; // Kind::Int and Kind::Bool
};

NpyArray parse_npy(std::span<const uint8_t> bytes, const std::string& what);
NpyArray read_npy(const std::string& path);
std::vector<uint8_t> npy_bytes(const NpyArray& a);
void write_npy(const std::string& path, const NpyArray& a);

}  // namespace wgrt

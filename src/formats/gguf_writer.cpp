#include "formats/gguf_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>
#include <wgrt/error.h>

#include "formats/ggml_quant.h"
#include "util/half.h"

namespace wgrt {
namespace {

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void put_scalar(std::vector<uint8_t>& out, const GgufValue& v) {
  switch (v.type) {
    case GgufValueType::U8: case GgufValueType::BOOL: put<uint8_t>(out, static_cast<uint8_t>(v.u)); break;
    case GgufValueType::I8: put<int8_t>(out, static_cast<int8_t>(v.i)); break;
    case GgufValueType::U16: put<uint16_t>(out, static_cast<uint16_t>(v.u)); break;
    case GgufValueType::I16: put<int16_t>(out, static_cast<int16_t>(v.i)); break;
    case GgufValueType::U32: put<uint32_t>(out, static_cast<uint32_t>(v.u)); break;
    case GgufValueType::I32: put<int32_t>(out, static_cast<int32_t>(v.i)); break;
    case GgufValueType::U64: put<uint64_t>(out, v.u); break;
    case GgufValueType::I64: put<int64_t>(out, v.i); break;
    case GgufValueType::F32: put<float>(out, static_cast<float>(v.f)); break;
    case GgufValueType::F64: put<double>(out, v.f); break;
    case GgufValueType::STRING: put_string(out, v.str); break;
    default: throw InvalidArgument("GgufWriter: cannot write value type " + gguf_value_type_name(v.type));
  }
}

void put_value_body(std::vector<uint8_t>& out, const GgufValue& v) {
  if (!v.is_array()) return put_scalar(out, v);
  put<uint32_t>(out, static_cast<uint32_t>(v.elem_type));
  put<uint64_t>(out, v.count);
  if (v.elem_type == GgufValueType::STRING) {
    if (v.strings.size() != v.count) throw InvalidArgument("GgufWriter: string array count mismatch");
    for (const auto& s : v.strings) put_string(out, s);
  } else if (v.elem_type == GgufValueType::ARRAY) {
    if (v.arrays.size() != v.count) throw InvalidArgument("GgufWriter: nested array count mismatch");
    for (const auto& a : v.arrays) put_value_body(out, a);
  } else {
    size_t sz = gguf_value_type_size(v.elem_type);
    if (sz == 0 || v.raw.size() != v.count * sz) throw InvalidArgument("GgufWriter: numeric array size mismatch");
    out.insert(out.end(), v.raw.begin(), v.raw.end());
  }
}

uint64_t check_dims(const std::string& name, const std::vector<uint64_t>& dims) {
  if (dims.empty() || dims.size() > 4) throw InvalidArgument("GgufWriter: tensor " + name + " needs 1..4 dims");
  uint64_t n = 1;
  for (uint64_t d : dims) {
    if (d == 0 || __builtin_mul_overflow(n, d, &n)) throw InvalidArgument("GgufWriter: tensor " + name + " bad dims");
  }
  return n;
}

void check_storable(const std::string& name, const std::vector<uint64_t>& dims, GgmlType store_as) {
  switch (store_as) {
    case GgmlType::F32: case GgmlType::F16: return;
    case GgmlType::Q4_0: case GgmlType::Q8_0:
      if (dims[0] % 32 != 0) throw InvalidArgument("GgufWriter: tensor " + name + ": ne0 must be a multiple of 32");
      return;
    default:
      throw InvalidArgument("GgufWriter: cannot store tensor " + name + " as " + ggml_type_name(store_as));
  }
}

// Appends the encoding of `data` as `store_as` (one of the types check_storable accepts) to `out`.
void encode_f32(std::vector<uint8_t>& out, std::span<const float> data, GgmlType store_as) {
  switch (store_as) {
    case GgmlType::F32: {
      size_t at = out.size();
      out.resize(at + data.size_bytes());
      if (!data.empty()) std::memcpy(out.data() + at, data.data(), data.size_bytes());
      break;
    }
    case GgmlType::F16: {
      size_t at = out.size();
      out.resize(at + data.size() * 2);
      for (size_t i = 0; i < data.size(); ++i) {
        uint16_t h = f32_to_f16(data[i]);
        std::memcpy(out.data() + at + 2 * i, &h, 2);
      }
      break;
    }
    default: {
      std::vector<uint8_t> q = store_as == GgmlType::Q4_0 ? quantize_q4_0(data) : quantize_q8_0(data);
      out.insert(out.end(), q.begin(), q.end());
    }
  }
}

}  // namespace

void GgufWriter::set(const std::string& key, GgufValue value) {
  for (auto& kv : kv_)
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  kv_.emplace_back(key, std::move(value));
}

void GgufWriter::set_alignment(uint32_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw InvalidArgument("GgufWriter: alignment " + std::to_string(alignment) + " is not a power of two");
  alignment_ = alignment;
  set("general.alignment", GgufValue::of_u32(alignment));
}

void GgufWriter::check_new(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) throw InvalidArgument("GgufWriter: duplicate tensor " + name);
}

void GgufWriter::add_tensor_f32(const std::string& name, std::vector<uint64_t> dims, std::span<const float> data,
                                GgmlType store_as) {
  uint64_t n = check_dims(name, dims);
  if (n != data.size())
    throw InvalidArgument("GgufWriter: tensor " + name + " has " + std::to_string(data.size()) + " values for " +
                          std::to_string(n) + " elements");
  check_storable(name, dims, store_as);
  std::vector<uint8_t> bytes;
  encode_f32(bytes, data, store_as);
  add_tensor_raw(name, std::move(dims), static_cast<uint32_t>(store_as), std::move(bytes));
}

void GgufWriter::add_tensor_stream(const std::string& name, std::vector<uint64_t> dims, RowFill fill,
                                   GgmlType store_as) {
  uint64_t n = check_dims(name, dims);
  check_storable(name, dims, store_as);
  check_new(name);
  if (!fill) throw InvalidArgument("GgufWriter: tensor " + name + " has no fill function");
  auto tr = ggml_type_traits(static_cast<uint32_t>(store_as));
  uint64_t size = n / tr->block_elems * tr->block_bytes;
  tensors_.push_back({name, std::move(dims), static_cast<uint32_t>(store_as), {}, std::move(fill), store_as, size});
}

void GgufWriter::add_tensor_raw(const std::string& name, std::vector<uint64_t> dims, uint32_t type_id,
                                std::vector<uint8_t> bytes) {
  uint64_t n = check_dims(name, dims);
  check_new(name);
  if (auto tr = ggml_type_traits(type_id)) {
    if (dims[0] % tr->block_elems != 0 || n / tr->block_elems * tr->block_bytes != bytes.size())
      throw InvalidArgument("GgufWriter: tensor " + name + ": " + std::to_string(bytes.size()) +
                            " bytes do not match its dims for type " + tr->name);
  }
  uint64_t size = bytes.size();
  tensors_.push_back({name, std::move(dims), type_id, std::move(bytes), {}, GgmlType::F32, size});
}

void GgufWriter::emit(const Sink& sink, bool zero_streams) const {
  if (version_ != 2 && version_ != 3) throw InvalidArgument("GgufWriter: version must be 2 or 3");
  std::vector<uint8_t> out = {'G', 'G', 'U', 'F'};
  put<uint32_t>(out, version_);
  put<uint64_t>(out, tensors_.size());
  put<uint64_t>(out, kv_.size());
  for (const auto& [key, v] : kv_) {
    put_string(out, key);
    put<uint32_t>(out, static_cast<uint32_t>(v.type));
    put_value_body(out, v);
  }
  auto align = [this](uint64_t x) { return (x + alignment_ - 1) / alignment_ * alignment_; };
  uint64_t offset = 0;
  for (const auto& t : tensors_) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) put<uint64_t>(out, d);
    put<uint32_t>(out, t.type_id);
    put<uint64_t>(out, offset);
    offset = align(offset + t.size);
  }
  if (!tensors_.empty()) out.resize(align(out.size()), 0);
  sink(out.data(), out.size());
  uint64_t pos = 0;  // within the data section
  std::vector<float> values;
  for (const auto& t : tensors_) {
    out.assign(align(pos) - pos, 0);
    if (!out.empty()) sink(out.data(), out.size());
    pos = align(pos);
    if (!t.fill) {
      if (!t.bytes.empty()) sink(t.bytes.data(), t.bytes.size());
    } else if (zero_streams) {
      sink(nullptr, t.size);  // a run of zero bytes the sink need not be given
    } else {
      const uint64_t row = t.dims[0], rows = check_dims(t.name, t.dims) / row;
      const uint64_t chunk_rows = std::max<uint64_t>(1, kStreamChunk / row);
      for (uint64_t r0 = 0; r0 < rows; r0 += chunk_rows) {
        const uint64_t nr = std::min(chunk_rows, rows - r0);
        values.resize(nr * row);
        t.fill(r0, values);
        out.clear();
        encode_f32(out, values, t.store_as);
        sink(out.data(), out.size());
      }
    }
    pos += t.size;
  }
}

void GgufWriter::write_zero_data(const std::string& path) const {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw FormatError("cannot create '" + path + "'");
  uint64_t size = 0;
  emit([&](const uint8_t* p, size_t n) {
    if (!p && std::fseek(f.get(), long(n), SEEK_CUR) != 0) throw FormatError("cannot write '" + path + "'");
    if (p && n != 0 && std::fwrite(p, 1, n, f.get()) != n) throw FormatError("cannot write '" + path + "'");
    size += n;
  }, true);
  if (std::fflush(f.get()) != 0 || ::ftruncate(::fileno(f.get()), off_t(size)) != 0)
    throw FormatError("cannot write '" + path + "'");
}

std::vector<uint8_t> GgufWriter::to_bytes() const {
  std::vector<uint8_t> bytes;
  emit([&](const uint8_t* p, size_t n) { bytes.insert(bytes.end(), p, p + n); });
  return bytes;
}

void GgufWriter::write(const std::string& path) const {
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) throw FormatError("cannot create '" + path + "'");
  emit([&](const uint8_t* p, size_t n) {
    if (n != 0 && std::fwrite(p, 1, n, f.get()) != n) throw FormatError("cannot write '" + path + "'");
  });
  if (std::fflush(f.get()) != 0) throw FormatError("cannot write '" + path + "'");
}

}  // namespace wgrt

#include "formats/gguf.h"

#include <algorithm>
#include <wgrt/error.h>

#include "util/byte_reader.h"
#include "util/file_bytes.h"
#include "util/printable.h"

namespace wgrt {

namespace {

constexpr int kMaxArrayDepth = 8;
constexpr uint64_t kMaxElements = uint64_t{1} << 62;

std::string read_gguf_string(ByteReader& r, const char* what) {
  uint64_t len = r.read<uint64_t>(what);
  r.need(len, what);  // length larger than the remaining bytes -> error before any allocation
  return r.read_string(len, what);
}

void check_count(const ByteReader& r, uint64_t count, uint64_t min_bytes_each, const std::string& what) {
  if (count > r.remaining() / min_bytes_each)
    throw FormatError(r.context() + ": " + what + " " + std::to_string(count) + " at offset " +
                      std::to_string(r.offset()) + " is larger than the remaining " + std::to_string(r.remaining()) +
                      " bytes can hold");
}

GgufValue read_value(ByteReader& r, GgufValueType type, const std::string& key, int depth);

void read_array(ByteReader& r, GgufValue& v, const std::string& key, int depth) {
  if (depth >= kMaxArrayDepth)
    throw FormatError(r.context() + ": key '" + printable(key) + "': arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  v.elem_type = static_cast<GgufValueType>(r.read<uint32_t>("array element type"));
  v.count = r.read<uint64_t>("array count");
  const std::string what = "key '" + printable(key) + "': array count";
  if (v.elem_type == GgufValueType::STRING) {
    check_count(r, v.count, 8, what);
    v.strings.reserve(v.count);
    for (uint64_t i = 0; i < v.count; ++i) v.strings.push_back(read_gguf_string(r, "array string"));
  } else if (v.elem_type == GgufValueType::ARRAY) {
    check_count(r, v.count, 12, what);
    v.arrays.reserve(v.count);
    for (uint64_t i = 0; i < v.count; ++i) v.arrays.push_back(read_value(r, GgufValueType::ARRAY, key, depth + 1));
  } else {
    size_t sz = gguf_value_type_size(v.elem_type);
    if (sz == 0)
      throw FormatError(r.context() + ": key '" + printable(key) + "': unknown array element type " +
                        std::to_string(static_cast<uint32_t>(v.elem_type)));
    check_count(r, v.count, sz, what);
    auto b = r.read_bytes(v.count * sz, "array data");
    if (v.elem_type == GgufValueType::BOOL)
      for (uint8_t x : b)
        if (x > 1) throw FormatError(r.context() + ": key '" + printable(key) + "': bool array element is " + std::to_string(x));
    v.raw.assign(b.begin(), b.end());
  }
}

GgufValue read_value(ByteReader& r, GgufValueType type, const std::string& key, int depth) {
  GgufValue v;
  v.type = type;
  switch (type) {
    case GgufValueType::U8: v.u = r.read<uint8_t>("u8 value"); break;
    case GgufValueType::I8: v.i = r.read<int8_t>("i8 value"); break;
    case GgufValueType::U16: v.u = r.read<uint16_t>("u16 value"); break;
    case GgufValueType::I16: v.i = r.read<int16_t>("i16 value"); break;
    case GgufValueType::U32: v.u = r.read<uint32_t>("u32 value"); break;
    case GgufValueType::I32: v.i = r.read<int32_t>("i32 value"); break;
    case GgufValueType::U64: v.u = r.read<uint64_t>("u64 value"); break;
    case GgufValueType::I64: v.i = r.read<int64_t>("i64 value"); break;
    case GgufValueType::F32: v.f = r.read<float>("f32 value"); break;
    case GgufValueType::F64: v.f = r.read<double>("f64 value"); break;
    case GgufValueType::BOOL:
      v.u = r.read<uint8_t>("bool value");
      if (v.u > 1) throw FormatError(r.context() + ": key '" + printable(key) + "': bool value is " + std::to_string(v.u));
      break;
    case GgufValueType::STRING: v.str = read_gguf_string(r, "string value"); break;
    case GgufValueType::ARRAY: read_array(r, v, key, depth); break;
    default:
      throw FormatError(r.context() + ": key '" + printable(key) + "' has unknown value type " +
                        std::to_string(static_cast<uint32_t>(type)));
  }
  return v;
}

}  // namespace

GgufFile GgufFile::open(const std::string& path) { return from_file(FileBytes::open(path)); }

GgufFile GgufFile::from_bytes(std::vector<uint8_t> bytes, std::string name) {
  return from_file(FileBytes::from_bytes(std::move(bytes), std::move(name)));
}

// A FileBytes copy shares its storage: keeping one alive keeps the bytes valid.
GgufFile GgufFile::from_file(const FileBytes& fb) {
  GgufFile f;
  f.storage_ = std::make_shared<FileBytes>(fb);
  f.bytes_ = fb.bytes();
  f.path_ = fb.name();
  fb.parse_checked([&] { f.parse(); });
  return f;
}

void GgufFile::check_unchanged() const { storage_->check_unchanged(); }

void GgufFile::parse() {
  ByteReader r(bytes_, "gguf '" + printable(path_, 300) + "'");
  const std::string& ctx = r.context();
  auto magic = r.read_bytes(4, "magic");
  if (std::string(magic.begin(), magic.end()) != "GGUF") throw FormatError(ctx + ": not a GGUF file (bad magic)");
  version_ = r.read<uint32_t>("version");
  if (version_ != 2 && version_ != 3)
    throw Unsupported(ctx + ": GGUF version " + std::to_string(version_) + " is not supported (only 2 and 3)");
  uint64_t n_tensors = r.read<uint64_t>("tensor count");
  uint64_t n_kv = r.read<uint64_t>("kv count");
  check_count(r, n_kv, 13, "kv count");            // key len (8) + type (4) + 1-byte value at least
  check_count(r, n_tensors, 32, "tensor count");   // name len 8, n_dims 4, one dim 8, type 4, offset 8
  kv_.reserve(n_kv);
  for (uint64_t k = 0; k < n_kv; ++k) {
    std::string key = read_gguf_string(r, "metadata key");
    auto type = static_cast<GgufValueType>(r.read<uint32_t>("value type"));
    GgufValue v = read_value(r, type, key, 0);
    if (!kv_index_.emplace(key, kv_.size()).second) throw FormatError(ctx + ": duplicate metadata key '" + printable(key) + "'");
    kv_.emplace_back(std::move(key), std::move(v));
  }
  if (const GgufValue* a = find("general.alignment")) {
    if (a->type != GgufValueType::U32)
      throw FormatError(ctx + ": general.alignment has type " + gguf_value_type_name(a->type) + ", expected u32");
    if (a->u == 0 || (a->u & (a->u - 1)) != 0)
      throw FormatError(ctx + ": general.alignment " + std::to_string(a->u) + " is not a power of two");
    alignment_ = static_cast<uint32_t>(a->u);
  }

  tensors_.reserve(n_tensors);
  for (uint64_t t = 0; t < n_tensors; ++t) {
    GgufTensorInfo ti;
    ti.name = read_gguf_string(r, "tensor name");
    const std::string tctx = ctx + ": tensor '" + printable(ti.name) + "'";
    uint32_t n_dims = r.read<uint32_t>("tensor n_dims");
    if (n_dims < 1 || n_dims > 4) throw FormatError(tctx + " has " + std::to_string(n_dims) + " dims (1..4 allowed)");
    ti.n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t ne = r.read<uint64_t>("tensor dim");
      if (ne == 0) throw FormatError(tctx + " has a zero dimension");
      if (__builtin_mul_overflow(ti.n_elements, ne, &ti.n_elements) || ti.n_elements > kMaxElements)
        throw FormatError(tctx + ": element count overflows");
      ti.dims.push_back(ne);
    }
    uint32_t type_id = r.read<uint32_t>("tensor type");
    auto tr = ggml_type_traits(type_id);
    if (!tr) throw FormatError(tctx + " has unknown ggml type id " + std::to_string(type_id));
    ti.type = static_cast<GgmlType>(type_id);
    if (ti.dims[0] % tr->block_elems != 0)
      throw FormatError(tctx + ": row length " + std::to_string(ti.dims[0]) + " is not a multiple of the " +
                        tr->name + " block size " + std::to_string(tr->block_elems));
    ti.n_bytes = checked_mul(ti.n_elements / tr->block_elems, tr->block_bytes, tctx, "byte size");
    ti.offset = r.read<uint64_t>("tensor offset");
    if (ti.offset % alignment_ != 0)
      throw FormatError(tctx + ": offset " + std::to_string(ti.offset) + " is not a multiple of the alignment " +
                        std::to_string(alignment_));
    if (!tensor_index_.emplace(ti.name, tensors_.size()).second)
      throw FormatError(ctx + ": duplicate tensor name '" + printable(ti.name) + "'");
    tensors_.push_back(std::move(ti));
  }

  data_offset_ = (r.offset() + alignment_ - 1) / alignment_ * alignment_;  // offset < 2^63: no overflow
  const uint64_t data_size = data_offset_ <= bytes_.size() ? bytes_.size() - data_offset_ : 0;
  std::vector<const GgufTensorInfo*> by_offset;
  by_offset.reserve(tensors_.size());
  for (const auto& ti : tensors_) {
    uint64_t end;
    if (__builtin_add_overflow(ti.offset, ti.n_bytes, &end) || end > data_size || data_offset_ > bytes_.size())
      throw FormatError(ctx + ": tensor '" + printable(ti.name) + "' data [" + std::to_string(ti.offset) + ", +" +
                        std::to_string(ti.n_bytes) + ") reaches past the end of the file (data section " +
                        std::to_string(data_size) + " bytes)");
    by_offset.push_back(&ti);
  }
  std::sort(by_offset.begin(), by_offset.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i - 1]->offset + by_offset[i - 1]->n_bytes > by_offset[i]->offset)
      throw FormatError(ctx + ": tensor '" + printable(by_offset[i]->name) + "' overlaps tensor '" +
                        printable(by_offset[i - 1]->name) + "'");
  // The data section ends with the last tensor plus at most alignment - 1 bytes of padding (ggml and gguf-py
  // pad every tensor, wgrt's writer none). More left over means the offsets were laid out for another
  // alignment (e.g. general.alignment rewritten) and every tensor would be read from the wrong place.
  if (!by_offset.empty()) {
    const uint64_t last_end = by_offset.back()->offset + by_offset.back()->n_bytes;
    if (data_size - last_end >= alignment_)
      throw FormatError(ctx + ": " + std::to_string(data_size - last_end) + " bytes follow the last tensor '" +
                        printable(by_offset.back()->name) + "' (at most " + std::to_string(alignment_ - 1) +
                        " bytes of padding expected): the tensor layout does not match general.alignment " +
                        std::to_string(alignment_) + ", or the file has trailing data");
  }
}

const GgufTensorInfo* GgufFile::find_tensor(const std::string& name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

const GgufTensorInfo& GgufFile::tensor(const std::string& name) const {
  const GgufTensorInfo* t = find_tensor(name);
  if (!t) throw InvalidArgument("gguf '" + path_ + "': no tensor named '" + printable(name) + "'");
  return *t;
}

std::span<const uint8_t> GgufFile::tensor_data(const GgufTensorInfo& t) const {
  return bytes_.subspan(data_offset_ + t.offset, t.n_bytes);  // validated in parse()
}

std::vector<float> GgufFile::to_f32(const GgufTensorInfo& t) const {
  return dequantize(t.type, tensor_data(t), t.n_elements, printable(t.name));
}

Q4gsw GgufFile::repack_q4_0_to_q4gsw(const GgufTensorInfo& t) const {
  if (t.type != GgmlType::Q4_0)
    throw Unsupported("tensor " + t.name + " has type " + ggml_type_name(t.type) + ", q4gsw repack needs Q4_0");
  return wgrt::repack_q4_0_to_q4gsw(tensor_data(t), t.n_elements / t.dims[0], t.dims[0], printable(t.name));
}

}  // namespace wgrt

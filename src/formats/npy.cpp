#include "formats/npy.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "util/half.h"
#include "util/mapped_file.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt {

namespace {

// The value of key `k` in the header dict text ("'descr': '<f4', ..."), or "".
std::string field(const std::string& h, const std::string& k) {
  const size_t p = h.find("'" + k + "'");
  if (p == std::string::npos) return "";
  size_t c = h.find(':', p);
  if (c == std::string::npos) return "";
  ++c;
  while (c < h.size() && h[c] == ' ') ++c;
  if (c >= h.size()) return "";
  if (h[c] == '\'') {
    const size_t e = h.find('\'', c + 1);
    return e == std::string::npos ? "" : h.substr(c + 1, e - c - 1);
  }
  if (h[c] == '(') {
    const size_t e = h.find(')', c);
    return e == std::string::npos ? "" : h.substr(c, e - c + 1);
  }
  size_t e = c;
  while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
  return h.substr(c, e - c);
}

}  // namespace

NpyArray parse_npy(std::span<const uint8_t> b, const std::string& what) {
  auto fail = [&](const std::string& m) -> void { throw FormatError(fmt::format(".npy file {}: {}", printable(what), m)); };
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) fail("not a .npy file (bad magic)");
  const uint8_t major = b[6];
  size_t hlen = 0, off = 0;
  if (major == 1) {
    hlen = size_t(b[8]) | size_t(b[9]) << 8;
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) fail("truncated header");
    hlen = size_t(b[8]) | size_t(b[9]) << 8 | size_t(b[10]) << 16 | size_t(b[11]) << 24;
    off = 12;
  } else {
    fail(fmt::format("format version {} is not supported", major));
  }
  if (hlen > b.size() - off) fail("truncated header");
  const std::string h(reinterpret_cast<const char*>(b.data() + off), hlen);
  off += hlen;
  const std::string descr = field(h, "descr"), fo = field(h, "fortran_order"), shape = field(h, "shape");
  if (descr.empty() || shape.empty()) fail("header has no descr or shape");
  if (fo.find("True") != std::string::npos) fail("Fortran order is not supported (save with C order)");
  NpyArray a;
  int64_t n = 1;
  {
    std::string s = shape.substr(1, shape.size() - 2);
    size_t p = 0;
    while (p < s.size()) {
      while (p < s.size() && (s[p] == ' ' || s[p] == ',')) ++p;
      if (p >= s.size()) break;
      size_t e = p;
      while (e < s.size() && s[e] >= '0' && s[e] <= '9') ++e;
      if (e == p || e - p > 15) fail(fmt::format("bad shape {}", printable(shape)));
      const int64_t d = std::stoll(s.substr(p, e - p));
      if (d > 0 && n > (int64_t(1) << 40) / d) fail("shape too large");
      n *= d;
      a.dims.push_back(d);
      p = e;
    }
  }
  const char order = descr[0];
  const std::string t = descr.substr(1);
  if (order == '>' && t != "i1" && t != "u1" && t != "b1") fail("big-endian data is not supported");
  size_t es = 0;
  if (t == "f4" || t == "i4" || t == "u4") es = 4;
  else if (t == "f8" || t == "i8" || t == "u8") es = 8;
  else if (t == "f2" || t == "i2" || t == "u2") es = 2;
  else if (t == "i1" || t == "u1" || t == "b1") es = 1;
  else fail(fmt::format("dtype '{}' is not supported", printable(descr)));
  if (b.size() - off != size_t(n) * es)
    fail(fmt::format("holds {} data bytes; shape {} of {} needs {}", b.size() - off, printable(shape), printable(descr), size_t(n) * es));
  const uint8_t* p = b.data() + off;
  auto rd = [&](auto v, int64_t k) {
    std::memcpy(&v, p + size_t(k) * sizeof(v), sizeof(v));
    return v;
  };
  const bool is_float = t[0] == 'f';
  a.kind = is_float ? NpyArray::Kind::Float : t == "b1" ? NpyArray::Kind::Bool : NpyArray::Kind::Int;
  for (int64_t k = 0; k < n; ++k) {
    if (t == "f4") a.f32.push_back(rd(float{}, k));
    else if (t == "f8") a.f32.push_back(float(rd(double{}, k)));
    else if (t == "f2") a.f32.push_back(f16_to_f32(rd(uint16_t{}, k)));
    else if (t == "i8") a.ints.push_back(rd(int64_t{}, k));
    else if (t == "u8") a.ints.push_back(int64_t(rd(uint64_t{}, k)));
    else if (t == "i4") a.ints.push_back(rd(int32_t{}, k));
    else if (t == "u4") a.ints.push_back(rd(uint32_t{}, k));
    else if (t == "i2") a.ints.push_back(rd(int16_t{}, k));
    else if (t == "u2") a.ints.push_back(rd(uint16_t{}, k));
    else if (t == "i1") a.ints.push_back(rd(int8_t{}, k));
    else if (t == "u1") a.ints.push_back(rd(uint8_t{}, k));
    else a.ints.push_back(rd(uint8_t{}, k) != 0);
  }
  return a;
}

NpyArray read_npy(const std::string& path) {
  require_regular_file(path, ".npy file");
  MappedFile f = MappedFile::open(path);
  NpyArray a = parse_npy(f.bytes(), path);
  f.check_unchanged();
  return a;
}

std::vector<uint8_t> npy_bytes(const NpyArray& a) {
  std::string shape = "(";
  for (size_t k = 0; k < a.dims.size(); ++k) shape += fmt::format("{}{}", a.dims[k], a.dims.size() == 1 ? "," : (k + 1 < a.dims.size() ? ", " : ""));
  shape += ")";
  const char* descr = a.kind == NpyArray::Kind::Float ? "<f4" : a.kind == NpyArray::Kind::Int ? "<i8" : "|b1";
  std::string h = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(h.size() & 0xff), uint8_t(h.size() >> 8)};
  out.insert(out.end(), h.begin(), h.end());
  if (a.kind == NpyArray::Kind::Float) {
    const auto* p = reinterpret_cast<const uint8_t*>(a.f32.data());
    out.insert(out.end(), p, p + a.f32.size() * 4);
  } else if (a.kind == NpyArray::Kind::Int) {
    const auto* p = reinterpret_cast<const uint8_t*>(a.ints.data());
    out.insert(out.end(), p, p + a.ints.size() * 8);
  } else {
    for (int64_t v : a.ints) out.push_back(v != 0);
  }
  return out;
}

void write_npy(const std::string& path, const NpyArray& a) {
  const auto bytes = npy_bytes(a);
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), std::fclose);
  if (!f) throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(errno)));
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size() || std::fflush(f.get()) != 0)
    throw Error(fmt::format("cannot write {}: {}", printable(path), std::strerror(errno)));
}

}  // namespace wgrt

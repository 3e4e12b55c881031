// ONNX ModelProto reader (see onnx_file.h): protobuf via libonnx_proto, everything else checked here.
#include "formats/onnx/onnx_file.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "util/mapped_file.h"
#include "util/printable.h"
#include "wgrt/error.h"

namespace wgrt::onnx {

size_t elem_size(ElemType t) {
  switch (t) {
    case ElemType::Float: case ElemType::Int32: case ElemType::Uint32: return 4;
    case ElemType::Uint8: case ElemType::Int8: case ElemType::Bool: return 1;
    case ElemType::Uint16: case ElemType::Int16: case ElemType::Float16: case ElemType::Bfloat16: return 2;
    case ElemType::Int64: case ElemType::Double: case ElemType::Uint64: case ElemType::Complex64: return 8;
    case ElemType::Complex128: return 16;
    default: return 0;
  }
}

std::string elem_name(ElemType t) {
  static const char* names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string",
                                "bool", "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  const auto i = int32_t(t);
  return i >= 0 && i <= 16 ? names[i] : fmt::format("type {}", i);
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string Node::label() const {
  return name.empty() ? fmt::format("#{} ({})", index, op_type) : fmt::format("'{}' ({})", printable(name), op_type);
}

namespace {

constexpr int64_t kMaxElems = int64_t(1) << 62;

struct Reader {
  std::string what;      // "model.onnx"
  std::string base_dir;  // external data folder ("" = none allowed)

  template <typename... A>
  [[noreturn]] void fail(fmt::format_string<A...> f, A&&... a) const {
    throw FormatError(fmt::format("ONNX file {}: {}", what, fmt::format(f, std::forward<A>(a)...)));
  }

  int64_t checked_numel(const std::vector<int64_t>& dims, const std::string& name) const {
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0) fail("tensor '{}' has a negative dim {}", printable(name), d);
      if (d != 0 && n > kMaxElems / d) fail("tensor '{}': its dims overflow 64 bits", printable(name));
      n *= d;
    }
    return n;
  }

  std::vector<uint8_t> external(const ::onnx::TensorProto& t, size_t want) const {
    std::string location;
    int64_t offset = 0, length = -1;
    for (const auto& kv : t.external_data()) {
      auto num = [&](const std::string& v) {
        try {
          size_t used = 0;
          long long x = std::stoll(v, &used);
          if (used != v.size() || x < 0) throw std::invalid_argument("x");
          return int64_t(x);
        } catch (const std::exception&) {
          fail("tensor '{}': external data {} '{}' is not a non-negative integer", printable(t.name()), kv.key(), printable(v));
        }
      };
      if (kv.key() == "location") location = kv.value();
      else if (kv.key() == "offset") offset = num(kv.value());
      else if (kv.key() == "length") length = num(kv.value());
    }
    if (location.empty()) fail("tensor '{}': external data has no location", printable(t.name()));
    if (base_dir.empty()) fail("tensor '{}': external data '{}' cannot be read from in-memory bytes", printable(t.name()), printable(location));
    const std::filesystem::path rel(location);
    if (rel.is_absolute() || location.find("..") != std::string::npos)
      fail("tensor '{}': external data location '{}' must be a relative path inside the model's folder", printable(t.name()), printable(location));
    const std::string full = (std::filesystem::path(base_dir) / rel).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(full, ec))
      fail("tensor '{}': external data file '{}' is missing (looked in {})", printable(t.name()), printable(location), printable(base_dir));
    if (length >= 0 && uint64_t(length) != want)
      fail("tensor '{}': external data length {} disagrees with its dims ({} bytes)", printable(t.name()), length, want);
    MappedFile f = MappedFile::open(full);
    if (uint64_t(offset) > f.size() || f.size() - uint64_t(offset) < want)
      fail("tensor '{}': external data file '{}' is too short ({} bytes; needs {} at offset {})", printable(t.name()),
           printable(location), f.size(), want, offset);
    std::vector<uint8_t> out(f.data() + offset, f.data() + offset + want);
    f.check_unchanged();
    return out;
  }

  Tensor tensor(const ::onnx::TensorProto& t, const std::string& name) const {
    Tensor out;
    out.name = name;
    out.type = ElemType(t.data_type());
    out.dims.assign(t.dims().begin(), t.dims().end());
    const int64_t n = checked_numel(out.dims, name);
    const size_t es = elem_size(out.type);
    if (es == 0 || out.type == ElemType::Complex64 || out.type == ElemType::Complex128)
      throw Unsupported(fmt::format("ONNX file {}: tensor '{}' has element type {}, which wgrt does not read", what,
                                    printable(name), elem_name(out.type)));
    if (uint64_t(n) > (uint64_t(1) << 40) / es) fail("tensor '{}' is too large ({} elements)", printable(name), n);
    const size_t want = size_t(n) * es;
    auto data = std::make_shared<std::vector<uint8_t>>();
    auto mismatch = [&](size_t have, const char* field) {
      fail("tensor '{}' has {} values in {} but its dims {} need {}", printable(name), have, field,
           fmt::format("[{}]", fmt::join(out.dims, ", ")), n);
    };
    if (t.data_location() == ::onnx::TensorProto::EXTERNAL) {
      *data = external(t, want);
    } else if (t.has_raw_data()) {
      if (t.raw_data().size() != want) mismatch(t.raw_data().size() / es, "raw_data");
      data->assign(t.raw_data().begin(), t.raw_data().end());
    } else {
      // The typed field's length is checked before anything is allocated: a corrupt dims list must not
      // allocate its claimed size (up to 1 TiB) for a field holding a handful of values.
      auto put = [&](const auto& field, const char* fname, auto convert) {
        if (size_t(field.size()) != size_t(n)) mismatch(size_t(field.size()), fname);
        data->resize(want);
        for (int64_t k = 0; k < n; ++k) convert(field[int(k)], data->data() + k * es);
      };
      auto store = [es](auto v) { return [es, v](auto x, uint8_t* p) { auto y = decltype(v)(x); std::memcpy(p, &y, es); }; };
      switch (out.type) {
        case ElemType::Float: put(t.float_data(), "float_data", store(float{})); break;
        case ElemType::Double: put(t.double_data(), "double_data", store(double{})); break;
        case ElemType::Int64: put(t.int64_data(), "int64_data", store(int64_t{})); break;
        case ElemType::Uint64: put(t.uint64_data(), "uint64_data", store(uint64_t{})); break;
        case ElemType::Uint32: put(t.uint64_data(), "uint64_data", store(uint32_t{})); break;
        case ElemType::Int32: put(t.int32_data(), "int32_data", store(int32_t{})); break;
        case ElemType::Int16: case ElemType::Uint16: case ElemType::Float16: case ElemType::Bfloat16:
          put(t.int32_data(), "int32_data", store(uint16_t{})); break;
        default: put(t.int32_data(), "int32_data", store(uint8_t{})); break;  // int8, uint8, bool
      }
    }
    out.data = std::move(data);
    return out;
  }

  ValueInfo value_info(const ::onnx::ValueInfoProto& v) const {
    ValueInfo out;
    out.name = v.name();
    if (!v.type().has_tensor_type()) return out;
    const auto& tt = v.type().tensor_type();
    out.type = ElemType(tt.elem_type());
    out.has_shape = tt.has_shape();
    for (const auto& d : tt.shape().dim()) {
      Dim dim;
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) fail("graph input/output '{}' has a negative dim {}", printable(v.name()), d.dim_value());
        dim.value = d.dim_value();
      } else {
        dim.param = d.dim_param();
      }
      out.dims.push_back(dim);
    }
    return out;
  }

  Attribute attribute(const ::onnx::AttributeProto& a, const std::string& node) const {
    Attribute out;
    using A = ::onnx::AttributeProto;
    switch (a.type()) {
      case A::FLOAT: out.kind = Attribute::Kind::Float; out.f = a.f(); break;
      case A::INT: out.kind = Attribute::Kind::Int; out.i = a.i(); break;
      case A::STRING: out.kind = Attribute::Kind::String; out.s = a.s(); break;
      case A::TENSOR: out.kind = Attribute::Kind::Tensor; out.t = tensor(a.t(), node + "." + a.name()); break;
      case A::FLOATS: out.kind = Attribute::Kind::Floats; out.floats.assign(a.floats().begin(), a.floats().end()); break;
      case A::INTS: out.kind = Attribute::Kind::Ints; out.ints.assign(a.ints().begin(), a.ints().end()); break;
      case A::STRINGS: out.kind = Attribute::Kind::Strings; out.strings.assign(a.strings().begin(), a.strings().end()); break;
      case A::GRAPH: case A::GRAPHS: out.kind = Attribute::Kind::Graph; break;
      default: out.kind = Attribute::Kind::Other; break;
    }
    return out;
  }

  // A Constant node's value as a tensor named `name`.
  Tensor constant(const Node& n, const std::string& name) const {
    auto scalar = [&](ElemType t, std::vector<int64_t> dims, const void* p, size_t bytes) {
      Tensor out;
      out.name = name;
      out.type = t;
      out.dims = std::move(dims);
      out.data = std::make_shared<std::vector<uint8_t>>((const uint8_t*)p, (const uint8_t*)p + bytes);
      return out;
    };
    if (n.attrs.size() != 1) fail("Constant node {} must have exactly one attribute, has {}", n.label(), n.attrs.size());
    const auto& [key, a] = *n.attrs.begin();
    if (key == "value" && a.t) {
      Tensor t = *a.t;
      t.name = name;
      return t;
    }
    if (key == "value_float" && a.kind == Attribute::Kind::Float) return scalar(ElemType::Float, {}, &a.f, 4);
    if (key == "value_int" && a.kind == Attribute::Kind::Int) return scalar(ElemType::Int64, {}, &a.i, 8);
    if (key == "value_floats" && a.kind == Attribute::Kind::Floats)
      return scalar(ElemType::Float, {int64_t(a.floats.size())}, a.floats.data(), a.floats.size() * 4);
    if (key == "value_ints" && a.kind == Attribute::Kind::Ints)
      return scalar(ElemType::Int64, {int64_t(a.ints.size())}, a.ints.data(), a.ints.size() * 8);
    throw Unsupported(fmt::format("ONNX file {}: Constant node {} uses attribute '{}', which wgrt does not support "
                                  "(supported: value, value_float(s), value_int(s))", what, n.label(), printable(key)));
  }

  // Orders nodes so every input is produced first (Kahn); refuses cycles and dangling inputs.
  std::vector<Node> topo_sort(std::vector<Node> nodes, const std::set<std::string>& available) const {
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const auto& o : nodes[i].outputs) {
        if (o.empty()) continue;
        if (available.count(o) || !producer.emplace(o, i).second)
          fail("value '{}' is produced twice (node {})", printable(o), nodes[i].label());
      }
    std::vector<size_t> missing(nodes.size(), 0);
    std::vector<std::vector<size_t>> users(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i)
      for (const auto& in : nodes[i].inputs) {
        if (in.empty() || available.count(in)) continue;
        auto it = producer.find(in);
        if (it == producer.end()) fail("node {} reads '{}', which no node, initializer or graph input produces", nodes[i].label(), printable(in));
        ++missing[i];
        users[it->second].push_back(i);
      }
    std::vector<size_t> ready, order;
    for (size_t i = nodes.size(); i-- > 0;)
      if (missing[i] == 0) ready.push_back(i);
    while (!ready.empty()) {
      size_t i = ready.back();
      ready.pop_back();
      order.push_back(i);
      for (size_t u : users[i])
        if (--missing[u] == 0) ready.push_back(u);
    }
    if (order.size() != nodes.size()) {
      for (size_t i = 0; i < nodes.size(); ++i)
        if (missing[i]) fail("the graph has a cycle through node {}", nodes[i].label());
    }
    std::vector<Node> out;
    out.reserve(nodes.size());
    for (size_t i : order) out.push_back(std::move(nodes[i]));
    return out;
  }

  Model model(const ::onnx::ModelProto& m) const {
    Model out;
    out.ir_version = m.ir_version();
    for (const auto& op : m.opset_import()) {
      std::string d = op.domain() == "ai.onnx" ? "" : op.domain();
      out.opsets[d] = op.version();
    }
    if (!out.opsets.count("")) {
      if (m.opset_import_size() == 0 && m.ir_version() <= 2) out.opsets[""] = 1;
      else if (m.opset_import_size() == 0) fail("the model imports no opset");
      else throw Unsupported(fmt::format("ONNX file {}: the model imports no opset of the default ONNX domain (only '{}')", what, printable(m.opset_import(0).domain())));
    }
    out.opset = out.opsets[""];
    const auto& g = m.graph();
    std::set<std::string> available;
    for (const auto& t : g.initializer()) {
      if (out.initializers.count(t.name())) fail("initializer '{}' appears twice", printable(t.name()));
      out.initializers.emplace(t.name(), tensor(t, t.name()));
      available.insert(t.name());
    }
    if (g.sparse_initializer_size() > 0) throw Unsupported(fmt::format("ONNX file {}: sparse initializers are not supported", what));
    for (const auto& v : g.input()) {
      if (out.initializers.count(v.name())) continue;  // an initializer with a default (IR < 4 style)
      ValueInfo vi = value_info(v);
      if (vi.type == ElemType::Undefined)
        throw Unsupported(fmt::format("ONNX file {}: graph input '{}' is not a tensor (sequence, map and optional inputs are not supported)", what, printable(v.name())));
      out.inputs.push_back(std::move(vi));
      available.insert(v.name());
    }
    for (const auto& v : g.output()) out.outputs.push_back(value_info(v));
    std::vector<Node> nodes;
    for (int i = 0; i < g.node_size(); ++i) {
      const auto& p = g.node(i);
      Node n;
      n.index = size_t(i);
      n.name = p.name();
      n.op_type = p.op_type();
      n.domain = p.domain() == "ai.onnx" ? "" : p.domain();
      n.inputs.assign(p.input().begin(), p.input().end());
      n.outputs.assign(p.output().begin(), p.output().end());
      for (const auto& a : p.attribute()) n.attrs[a.name()] = attribute(a, n.name.empty() ? n.op_type : n.name);
      if (n.op_type == "Constant" && n.domain.empty()) {
        if (n.outputs.size() != 1 || n.outputs[0].empty()) fail("Constant node {} must have one output", n.label());
        if (available.count(n.outputs[0])) fail("value '{}' is produced twice (node {})", printable(n.outputs[0]), n.label());
        out.initializers.emplace(n.outputs[0], constant(n, n.outputs[0]));
        available.insert(n.outputs[0]);
        continue;
      }
      nodes.push_back(std::move(n));
    }
    out.nodes = topo_sort(std::move(nodes), available);
    std::set<std::string> produced = available;
    for (const auto& n : out.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& o : out.outputs)
      if (!produced.count(o.name)) fail("graph output '{}' is not produced by any node", printable(o.name));
    return out;
  }
};

template <typename Proto>
void parse_proto(Proto& p, std::span<const uint8_t> bytes, const Reader& r, const char* kind) {
  if (bytes.size() > (size_t(1) << 31) - 1) r.fail("{} is larger than 2 GiB; store large weights as external data", kind);
  google::protobuf::io::CodedInputStream in(bytes.data(), int(bytes.size()));
  in.SetTotalBytesLimit(INT32_MAX);
  in.SetRecursionLimit(64);
  if (!p.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
    r.fail("not a valid {} (corrupt or truncated protobuf)", kind);
}

}  // namespace

Model parse_model(std::span<const uint8_t> bytes, const std::string& base_dir, const std::string& what) {
  Reader r{what, base_dir};
  ::onnx::ModelProto m;
  parse_proto(m, bytes, r, "ONNX model");
  if (!m.has_graph()) r.fail("the model has no graph (corrupt or truncated protobuf?)");
  Model out = r.model(m);
  out.path = what;
  return out;
}

Model load_model(const std::string& path) {
  require_regular_file(path, "ONNX model file");
  MappedFile f = MappedFile::open(path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  Model m = parse_model(f.bytes(), dir.empty() ? "." : dir, path);
  f.check_unchanged();
  return m;
}

Tensor parse_tensor(std::span<const uint8_t> bytes, const std::string& what) {
  Reader r{what, ""};
  ::onnx::TensorProto t;
  parse_proto(t, bytes, r, "ONNX TensorProto");
  return r.tensor(t, t.name());
}

}  // namespace wgrt::onnx

// The ONNX reader (src/formats/onnx) and importer on bad input, device-free: corrupt and truncated protobuf,
// missing / short / escaping external data, initializer data that disagrees with its dims, a graph cycle, a
// dangling input, dims overflowing 64 bits, an unsupported op / opset / attribute / element type (refused at
// load naming the node, op and what is missing); then a mutation test over the seed corpus tests/corpus/onnx
// (made by tests/golden/make_onnx_corpus.py): bit flips, byte overwrites and truncations must end in a
// wgrt::Error or a built graph, never a crash (ASan/UBSan in the sanitizer run), as the libFuzzer target
// fuzz/fuzz_onnx.cpp does for longer.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <cstring>
#include <functional>
#include <random>
#include <unistd.h>

#include "formats/onnx/onnx_file.h"
#include "models/onnx_graph/onnx_graph.h"
#include "support/paths.h"
#include "wgrt/error.h"

namespace wgrt::test {
namespace {

namespace fs = std::filesystem;

// y = x + w (w an initializer [2, 3]), x a [N, 3] input.
::onnx::ModelProto add_model() {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("add");
  auto* x = g->add_input();
  x->set_name("x");
  x->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("N");
  x->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(3);
  g->add_output()->set_name("y");
  auto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(2);
  w->add_dims(3);
  for (int i = 0; i < 6; ++i) w->add_float_data(float(i));
  auto* n = g->add_node();
  n->set_op_type("Add");
  n->set_name("add0");
  n->add_input("x");
  n->add_input("w");
  n->add_output("y");
  return m;
}

std::string bytes_of(const ::onnx::ModelProto& m) { return m.SerializeAsString(); }

onnx::Model parse(const std::string& b, const std::string& dir = "") {
  return onnx::parse_model({reinterpret_cast<const uint8_t*>(b.data()), b.size()}, dir, "test.onnx");
}

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << part << "'";
  } catch (const E& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(part), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(OnnxFile, ValidModelParses) {
  const onnx::Model m = parse(bytes_of(add_model()));
  EXPECT_EQ(m.opset, 13);
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].dims[0].param, "N");
  EXPECT_EQ(m.initializers.at("w").dims, (std::vector<int64_t>{2, 3}));
  onnx::check_operators(m);
}

TEST(OnnxFile, CorruptAndTruncatedProtobufAreRefused) {
  const std::string good = bytes_of(add_model());
  expect_error<FormatError>([&] { parse("\xff\xff\xff\xff garbage"); }, "corrupt or truncated");
  for (size_t cut : {size_t(1), good.size() / 3, good.size() / 2, good.size() - 1}) {
    SCOPED_TRACE(cut);
    try {
      parse(good.substr(0, cut));
      ADD_FAILURE() << "truncated at " << cut << " parsed";
    } catch (const FormatError& e) {
    }
  }
  expect_error<FormatError>([&] { parse(""); }, "no graph");
}

TEST(OnnxFile, InitializerSizeMustMatchDims) {
  auto m = add_model();
  m.mutable_graph()->mutable_initializer(0)->add_float_data(7.0f);
  expect_error<FormatError>([&] { parse(bytes_of(m)); }, "has 7 values in float_data but its dims [2, 3] need 6");
  auto r = add_model();
  auto* w = r.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_raw_data(std::string(20, '\0'));
  expect_error<FormatError>([&] { parse(bytes_of(r)); }, "raw_data");
  // A corrupt dims list claiming 512 GiB (inside the 1 TiB cap) over a 6-value float_data is refused for the
  // count before anything is allocated (CI fuzz finding: the reader allocated the claimed size first).
  auto big = add_model();
  auto* b = big.mutable_graph()->mutable_initializer(0);
  b->clear_dims();
  b->add_dims(int64_t(1) << 37);
  expect_error<FormatError>([&] { parse(bytes_of(big)); }, "has 6 values in float_data but its dims [137438953472] need 137438953472");
}

TEST(OnnxFile, DimsOverflowing64BitsAreRefused) {
  auto m = add_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->add_dims(int64_t(1) << 40);
  w->add_dims(int64_t(1) << 40);
  expect_error<FormatError>([&] { parse(bytes_of(m)); }, "overflow 64 bits");
  w->clear_dims();
  w->add_dims(-2);
  expect_error<FormatError>([&] { parse(bytes_of(m)); }, "negative dim");
}

TEST(OnnxFile, CyclesAndDanglingInputsAreRefused) {
  auto m = add_model();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(1, "z");  // add0 reads z, which relu0 makes from y
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("relu0");
  n->add_input("y");
  n->add_output("z");
  expect_error<FormatError>([&] { parse(bytes_of(m)); }, "cycle");
  auto d = add_model();
  d.mutable_graph()->mutable_node(0)->set_input(1, "nowhere");
  expect_error<FormatError>([&] { parse(bytes_of(d)); }, "reads 'nowhere', which no node");
}

TEST(OnnxFile, ExternalData) {
  const fs::path dir = fs::path(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") / ("wgrt_onnx_ext_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto m = add_model();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto kv = [&](const char* k, const std::string& v) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", "weights.bin");
  kv("offset", "8");
  const std::string b = bytes_of(m);
  expect_error<FormatError>([&] { parse(b, dir.string()); }, "external data file 'weights.bin' is missing");
  expect_error<FormatError>([&] { parse(b, ""); }, "cannot be read from in-memory bytes");
  {
    std::ofstream f(dir / "weights.bin", std::ios::binary);
    f.write("12345678", 8);
    const float v[6] = {0.5f, 1, 2, 3, 4, 5};
    f.write(reinterpret_cast<const char*>(v), 20);  // one float short
  }
  expect_error<FormatError>([&] { parse(b, dir.string()); }, "is too short");
  {
    std::ofstream f(dir / "weights.bin", std::ios::binary | std::ios::app);
    f.write("\0\0\xa0\x40", 4);
  }
  const onnx::Model ok = parse(b, dir.string());
  const auto& t = ok.initializers.at("w");
  float first, last;
  std::memcpy(&first, t.data->data(), 4);
  std::memcpy(&last, t.data->data() + 20, 4);
  EXPECT_EQ(first, 0.5f);
  EXPECT_EQ(last, 5.0f);
  auto esc = add_model();
  auto* w2 = esc.mutable_graph()->mutable_initializer(0);
  w2->clear_float_data();
  w2->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* e = w2->add_external_data();
  e->set_key("location");
  e->set_value("../../etc/passwd");
  expect_error<FormatError>([&] { parse(bytes_of(esc), dir.string()); }, "must be a relative path inside the model's folder");
  fs::remove_all(dir);
}

TEST(OnnxFile, UnsupportedOpOpsetAttributeAndTypeAreRefusedAtLoadNamingThem) {
  auto m = add_model();
  m.mutable_graph()->mutable_node(0)->set_op_type("LSTM");
  expect_error<Unsupported>([&] { onnx::check_operators(parse(bytes_of(m))); }, "ONNX node 'add0' (LSTM): operator LSTM is not supported");
  auto o = add_model();
  o.mutable_opset_import(0)->set_version(99);
  expect_error<Unsupported>([&] { onnx::check_operators(parse(bytes_of(o))); }, "opset 99 is newer");
  auto a = add_model();
  auto* at = a.mutable_graph()->mutable_node(0)->add_attribute();
  at->set_name("frobnicate");
  at->set_type(::onnx::AttributeProto::INT);
  at->set_i(1);
  onnx::HostTensor x;
  x.dims = {2, 3};
  expect_error<Unsupported>([&] { onnx::build_onnx_graph(parse(bytes_of(a)), {{"x", x}}); },
                            "ONNX node 'add0' (Add): attribute 'frobnicate' is not supported");
  auto t = add_model();
  t.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(9);  // bool x + float w
  onnx::HostTensor xb;
  xb.type = onnx::ElemType::Bool;
  xb.dims = {2, 3};
  xb.i.assign(6, 1);
  const onnx::BuiltGraph bg = onnx::build_onnx_graph(parse(bytes_of(t)), {{"x", xb}});  // folded on the host
  ASSERT_TRUE(bg.outputs[0].host.has_value());
}

TEST(OnnxFile, InputDimsMustAgreeWithTheModel) {
  const onnx::Model m = parse(bytes_of(add_model()));
  onnx::HostTensor x;
  x.dims = {2, 4};
  expect_error<InvalidArgument>([&] { onnx::build_onnx_graph(m, {{"x", x}}); }, "has dims [2, 4]; the model needs [N, 3]");
  expect_error<InvalidArgument>([&] { onnx::build_onnx_graph(m, {}); }, "input 'x' is not given");
}

// Bit flips, byte overwrites and truncations of every seed: each mutant parses and lowers or throws wgrt::Error.
TEST(OnnxFile, MutatedCorpusNeverCrashes) {
  const fs::path dir = source_path("tests/corpus/onnx");
  std::mt19937_64 rng(12345);
  size_t seeds = 0, accepted = 0, total = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream f(e.path(), std::ios::binary);
    const std::string seed((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(seed.empty());
    ++seeds;
    for (int k = 0; k < 400; ++k) {
      std::string b = seed;
      const int kind = k % 3;
      if (kind == 0) b[rng() % b.size()] ^= char(1u << (rng() % 8));
      if (kind == 1) b[rng() % b.size()] = char(rng());
      if (kind == 2) b.resize(rng() % b.size());
      ++total;
      try {
        const onnx::Model m = parse(b);
        onnx::check_operators(m);
        std::map<std::string, onnx::HostTensor> in;
        bool ok = true;
        for (const auto& v : m.inputs) {
          onnx::HostTensor h;
          h.type = v.type;
          int64_t n = 1;
          for (const auto& d : v.dims) {
            h.dims.push_back(d.value < 0 ? 3 : std::min<int64_t>(d.value, 64));
            n *= h.dims.back();
          }
          ok = ok && n <= 4096 && (v.type == onnx::ElemType::Float || !onnx::is_float_type(v.type));
          if (!h.is_float()) h.i.assign(size_t(n), 0);
          in.emplace(v.name, h);
        }
        if (ok) onnx::build_onnx_graph(m, in);
        ++accepted;
      } catch (const Error&) {
      }
    }
  }
  EXPECT_GE(seeds, 6u);
  std::printf("%zu mutants of %zu seeds: %zu lowered without error\n", total, seeds, accepted);
}

}  // namespace
}  // namespace wgrt::test

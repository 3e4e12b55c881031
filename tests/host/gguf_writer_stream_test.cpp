// GgufWriter::add_tensor_stream: the bytes are identical to add_tensor_f32 of the same values (F32, F16, Q4_0,
// Q8_0; row counts that do not divide the chunk; a single row longer than the chunk), fill is called with
// consecutive whole-row chunks covering every row exactly once, write() streams the same bytes as to_bytes(),
// and bad input is rejected. Reference: the in-memory add_tensor_f32 path (tested in gguf_writer_test.cpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "support/synth_model.h"

namespace wgrt {
namespace {

struct Case {
  GgmlType type;
  std::vector<uint64_t> dims;
};

TEST(GgufWriterStream, SameBytesAsInMemoryTensors) {
  const uint64_t big_row = GgufWriter::kStreamChunk + 64;  // one row larger than a chunk
  const std::vector<Case> cases = {
      {GgmlType::F32, {7, 3}},           {GgmlType::F16, {5}},
      {GgmlType::Q4_0, {64, 37}},        {GgmlType::Q8_0, {32, 5, 2}},
      {GgmlType::Q4_0, {96, (GgufWriter::kStreamChunk / 96) * 2 + 7}},  // 3 chunks, the last one short
      {GgmlType::F16, {big_row, 2}},
  };
  GgufWriter mem, stream;
  mem.set("k", GgufValue::of_u32(1));
  stream.set("k", GgufValue::of_u32(1));
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    uint64_t n = 1;
    for (uint64_t d : c.dims) n *= d;
    auto values = test::synth_values(n, 100 + i, -3.0f, 3.0f);
    const std::string name = "t" + std::to_string(i);
    mem.add_tensor_f32(name, c.dims, values, c.type);
    auto next_row = std::make_shared<uint64_t>(0);
    const uint64_t row = c.dims[0];
    stream.add_tensor_stream(
        name, c.dims,
        [values, row, next_row](uint64_t row0, std::span<float> out) {
          // Chunks arrive in order, whole rows, never past the end (per emit pass: row0 restarts at 0).
          if (row0 == 0) *next_row = 0;
          ASSERT_EQ(row0, *next_row);
          ASSERT_EQ(out.size() % row, 0u);
          ASSERT_LE(row0 * row + out.size(), values.size());
          std::copy_n(values.begin() + ptrdiff_t(row0 * row), out.size(), out.begin());
          *next_row += out.size() / row;
        },
        c.type);
  }
  const auto expect = mem.to_bytes();
  EXPECT_EQ(stream.to_bytes(), expect);
  const std::string path = testing::TempDir() + "gguf_writer_stream.gguf";
  stream.write(path);
  EXPECT_EQ(test::read_file(path), expect);
  auto g = GgufFile::open(path);
  ASSERT_EQ(g.tensors().size(), cases.size());
  EXPECT_EQ(g.tensor("t2").type, GgmlType::Q4_0);
  std::remove(path.c_str());
}

TEST(GgufWriterStream, RejectsBadInput) {
  GgufWriter w;
  auto fill = [](uint64_t, std::span<float> out) { std::fill(out.begin(), out.end(), 0.0f); };
  EXPECT_THROW(w.add_tensor_stream("q", {48, 2}, fill, GgmlType::Q4_0), InvalidArgument);  // ne0 % 32
  EXPECT_THROW(w.add_tensor_stream("z", {0, 2}, fill), InvalidArgument);
  EXPECT_THROW(w.add_tensor_stream("k", {32}, fill, GgmlType::Q4_K), InvalidArgument);
  EXPECT_THROW(w.add_tensor_stream("e", {32}, GgufWriter::RowFill{}), InvalidArgument);
  w.add_tensor_stream("a", {32}, fill);
  EXPECT_THROW(w.add_tensor_stream("a", {32}, fill), InvalidArgument);
  std::vector<float> v(32);
  EXPECT_THROW(w.add_tensor_f32("a", {32}, v), InvalidArgument);
  // A throwing fill propagates out of write/to_bytes.
  GgufWriter bad;
  bad.add_tensor_stream("b", {4}, [](uint64_t, std::span<float>) { throw FormatError("fill failed"); });
  EXPECT_THROW(bad.to_bytes(), FormatError);
  EXPECT_THROW(bad.write("/nonexistent-dir/x.gguf"), FormatError);
}

}  // namespace
}  // namespace wgrt

// GgufWriter -> GgufFile round trips: every metadata value type (incl. string arrays and nested arrays),
// v2 and v3, custom alignment, F32/F16 tensors (F16 values compared against f32_to_f16), raw BF16 tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <wgrt/error.h>

#include "formats/gguf.h"
#include "formats/gguf_writer.h"
#include "support/synth_model.h"
#include "util/half.h"

namespace wgrt {
namespace {

GgufWriter all_types_writer(uint32_t version) {
  GgufWriter w(version);
  w.set("t.u8", GgufValue::of_u8(250));
  w.set("t.i8", GgufValue::of_i8(-100));
  w.set("t.u16", GgufValue::of_u16(65000));
  w.set("t.i16", GgufValue::of_i16(-32000));
  w.set("t.u32", GgufValue::of_u32(4000000000u));
  w.set("t.i32", GgufValue::of_i32(-2000000000));
  w.set("t.f32", GgufValue::of_f32(3.25f));
  w.set("t.bool", GgufValue::of_bool(true));
  w.set("t.string", GgufValue::of_string("h\xC3\xA9llo\n"));
  w.set("t.empty", GgufValue::of_string(""));
  w.set("t.u64", GgufValue::of_u64(0xFFFFFFFFFFFFFFF0ull));
  w.set("t.i64", GgufValue::of_i64(std::numeric_limits<int64_t>::min()));
  w.set("t.f64", GgufValue::of_f64(-1e300));
  std::vector<float> f = {1.5f, -2.0f, 0.0f};
  w.set("t.arr_f32", GgufValue::array_of<float>(GgufValueType::F32, f));
  std::vector<int32_t> i = {-1, 2, 2147483647};
  w.set("t.arr_i32", GgufValue::array_of<int32_t>(GgufValueType::I32, i));
  std::vector<uint8_t> bools = {1, 0, 1};
  w.set("t.arr_bool", GgufValue::array_of<uint8_t>(GgufValueType::BOOL, bools));
  w.set("t.arr_str", GgufValue::array_of_strings({"a", "", "<0x0A>", std::string("\0z", 2)}));
  std::vector<uint16_t> u16 = {7};
  w.set("t.nested", GgufValue::array_of_arrays({GgufValue::array_of_strings({"x", "y"}),
                                                GgufValue::array_of<uint16_t>(GgufValueType::U16, u16),
                                                GgufValue::array_of_arrays({})}));
  std::vector<float> empty;
  w.set("t.arr_empty", GgufValue::array_of<float>(GgufValueType::F32, empty));
  return w;
}

void check_all_types(const GgufFile& g) {
  EXPECT_EQ(g.metadata().size(), 19u + (g.has("general.alignment") ? 1u : 0u));
  EXPECT_EQ(g.find("t.u8")->type, GgufValueType::U8);
  EXPECT_EQ(g.get_u32("t.u8"), 250u);
  EXPECT_EQ(g.get_i32("t.i8"), -100);
  EXPECT_EQ(g.find("t.i8")->type, GgufValueType::I8);
  EXPECT_EQ(g.get_u32("t.u16"), 65000u);
  EXPECT_EQ(g.get_i32("t.i16"), -32000);
  EXPECT_EQ(g.get_u32("t.u32"), 4000000000u);
  EXPECT_EQ(g.get_i32("t.i32"), -2000000000);
  EXPECT_EQ(g.get_f32("t.f32"), 3.25f);
  EXPECT_EQ(g.get_bool("t.bool"), true);
  EXPECT_EQ(g.get_string("t.string"), "h\xC3\xA9llo\n");
  EXPECT_EQ(g.get_string("t.empty"), "");
  EXPECT_EQ(g.get_u64("t.u64"), 0xFFFFFFFFFFFFFFF0ull);
  EXPECT_EQ(g.find("t.i64")->i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(g.find("t.f64")->f, -1e300);
  EXPECT_EQ(g.get_array_f32("t.arr_f32"), (std::vector<float>{1.5f, -2.0f, 0.0f}));
  EXPECT_EQ(g.get_array_i32("t.arr_i32"), (std::vector<int32_t>{-1, 2, 2147483647}));
  EXPECT_EQ(g.find("t.arr_bool")->raw, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(g.get_array_strings("t.arr_str"), (std::vector<std::string>{"a", "", "<0x0A>", std::string("\0z", 2)}));
  const GgufValue* n = g.find("t.nested");
  ASSERT_EQ(n->elem_type, GgufValueType::ARRAY);
  ASSERT_EQ(n->arrays.size(), 3u);
  EXPECT_EQ(n->arrays[0].strings, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(n->arrays[1].elem_type, GgufValueType::U16);
  EXPECT_EQ(n->arrays[1].numeric_elem(0), 7.0);
  EXPECT_EQ(n->arrays[2].count, 0u);
  EXPECT_TRUE(g.get_array_f32("t.arr_empty").empty());
  // Range and type checks of the converting getters.
  EXPECT_THROW(g.get_i32("t.u32"), FormatError);   // 4e9 does not fit i32
  EXPECT_THROW(g.get_u32("t.i8"), FormatError);    // negative
  EXPECT_THROW(g.get_u32("t.u64"), FormatError);
  EXPECT_THROW(g.get_f32("t.u8"), FormatError);
  EXPECT_THROW(g.get_bool("t.u8"), FormatError);
  EXPECT_THROW(g.get_array_i32("t.arr_f32"), FormatError);
  EXPECT_THROW(g.get_array_strings("t.nested"), FormatError);
  EXPECT_EQ(g.opt_string("nope"), std::nullopt);
  EXPECT_THROW(g.opt_string("t.u8"), FormatError);
}

TEST(GgufWriter, AllMetadataTypesRoundTripV3AndV2) {
  for (uint32_t version : {3u, 2u}) {
    GgufFile g = GgufFile::from_bytes(all_types_writer(version).to_bytes());
    EXPECT_EQ(g.version(), version);
    EXPECT_TRUE(g.tensors().empty());
    check_all_types(g);
  }
}

TEST(GgufWriter, TensorsRoundTripThroughAFileWithAlignment) {
  for (uint32_t align : {32u, 1u, 64u, 4096u}) {
    GgufWriter w = all_types_writer(3);
    if (align != 32) w.set_alignment(align);
    auto a = test::synth_values(3 * 5, 1), b = test::synth_values(7, 2, -70000.f, 70000.f), c = test::synth_values(64, 3);
    w.add_tensor_f32("a", {5, 3}, a);
    w.add_tensor_f32("b16", {7}, b, GgmlType::F16);
    w.add_tensor_f32("c", {4, 2, 2, 4}, c);
    std::vector<uint8_t> bf16;
    for (float x : a) {
      uint16_t h = f32_to_bf16(x);
      bf16.push_back(uint8_t(h)), bf16.push_back(uint8_t(h >> 8));
    }
    w.add_tensor_raw("bf", {15}, uint32_t(GgmlType::BF16), bf16);
    const std::string path = testing::TempDir() + "wgrt_writer_" + std::to_string(align) + ".gguf";
    w.write(path);
    GgufFile g = GgufFile::open(path);
    std::remove(path.c_str());
    EXPECT_EQ(g.alignment(), align);
    EXPECT_EQ(g.data_offset() % align, 0u);
    ASSERT_EQ(g.tensors().size(), 4u);
    EXPECT_EQ(g.tensor("a").dims, (std::vector<uint64_t>{5, 3}));
    EXPECT_EQ(g.tensor("c").dims, (std::vector<uint64_t>{4, 2, 2, 4}));
    EXPECT_EQ(g.to_f32(g.tensor("a")), a);
    EXPECT_EQ(g.to_f32(g.tensor("c")), c);
    auto b16 = g.to_f32(g.tensor("b16"));
    for (size_t i = 0; i < b.size(); ++i) EXPECT_EQ(b16[i], f16_to_f32(f32_to_f16(b[i]))) << i;
    EXPECT_TRUE(std::isinf(b16[0]) || std::fabs(b16[0]) <= 65504.f);
    auto bf = g.to_f32(g.tensor("bf"));
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(bf[i], a[i], std::fabs(a[i]) / 256.0f) << i;
    for (const auto& t : g.tensors()) EXPECT_EQ(t.offset % align, 0u);
    check_all_types(g);
  }
}

TEST(GgufWriter, RejectsBadInput) {
  GgufWriter w;
  std::vector<float> v(8);
  EXPECT_THROW(w.add_tensor_f32("x", {3}, v), InvalidArgument);            // count mismatch
  EXPECT_THROW(w.add_tensor_f32("x", {}, v), InvalidArgument);             // no dims
  EXPECT_THROW(w.add_tensor_f32("x", {8, 1, 1, 1, 1}, v), InvalidArgument);
  EXPECT_THROW(w.add_tensor_f32("x", {8}, v, GgmlType::Q4_0), InvalidArgument);  // ne0 % 32
  EXPECT_THROW(w.add_tensor_f32("x", {8}, v, GgmlType::Q4_K), InvalidArgument);
  EXPECT_THROW(w.add_tensor_raw("x", {256}, uint32_t(GgmlType::Q4_K), std::vector<uint8_t>(100)), InvalidArgument);
  w.add_tensor_f32("x", {8}, v);
  EXPECT_THROW(w.add_tensor_f32("x", {8}, v), InvalidArgument);  // duplicate
  EXPECT_THROW(w.set_alignment(48), InvalidArgument);
  EXPECT_THROW(GgufWriter(1).to_bytes(), InvalidArgument);
  EXPECT_THROW(w.write("/nonexistent-dir/x.gguf"), FormatError);
}

}  // namespace
}  // namespace wgrt

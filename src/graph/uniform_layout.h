// Host-side descriptions of uniform parameter blocks, checked against the WGSL struct of the binding they are
// bound to (OpBuilder::dispatch): same size, same number of members, and member i at the same offset with the
// same size (names are reported, not compared).
//
// Usage, right after the struct (one line for the whole struct, fields in declaration order):
//   struct UnaryParams { uint32_t n; float p0, p1; uint32_t pad; };
//   WGRT_UNIFORM(UnaryParams, n, p0, p1, pad);
// then `b.uniform<UnaryParams>()` in the op's build and `r.set_uniform(ref, UnaryParams{...})` in its resize hook.
// The macro defines a function found by argument-dependent lookup, so it works in any namespace, including an
// anonymous one. Up to 32 fields; a member that is an array or a nested struct is one field.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

namespace wgrt {

struct UniformField {
  const char* name;
  uint32_t offset, size;  // bytes
};

struct UniformLayout {
  const char* type;  // the host struct's name
  uint32_t size;     // sizeof
  std::span<const UniformField> fields;
};

}  // namespace wgrt

#define WGRT_UF_(T, m) ::wgrt::UniformField{#m, uint32_t(offsetof(T, m)), uint32_t(sizeof(T::m))}
#define WGRT_UF_1(T, x) WGRT_UF_(T, x)
#define WGRT_UF_2(T, x, ...) WGRT_UF_(T, x), WGRT_UF_1(T, __VA_ARGS__)
#define WGRT_UF_3(T, x, ...) WGRT_UF_(T, x), WGRT_UF_2(T, __VA_ARGS__)
#define WGRT_UF_4(T, x, ...) WGRT_UF_(T, x), WGRT_UF_3(T, __VA_ARGS__)
#define WGRT_UF_5(T, x, ...) WGRT_UF_(T, x), WGRT_UF_4(T, __VA_ARGS__)
#define WGRT_UF_6(T, x, ...) WGRT_UF_(T, x), WGRT_UF_5(T, __VA_ARGS__)
#define WGRT_UF_7(T, x, ...) WGRT_UF_(T, x), WGRT_UF_6(T, __VA_ARGS__)
#define WGRT_UF_8(T, x, ...) WGRT_UF_(T, x), WGRT_UF_7(T, __VA_ARGS__)
#define WGRT_UF_9(T, x, ...) WGRT_UF_(T, x), WGRT_UF_8(T, __VA_ARGS__)
#define WGRT_UF_10(T, x, ...) WGRT_UF_(T, x), WGRT_UF_9(T, __VA_ARGS__)
#define WGRT_UF_11(T, x, ...) WGRT_UF_(T, x), WGRT_UF_10(T, __VA_ARGS__)
#define WGRT_UF_12(T, x, ...) WGRT_UF_(T, x), WGRT_UF_11(T, __VA_ARGS__)
#define WGRT_UF_13(T, x, ...) WGRT_UF_(T, x), WGRT_UF_12(T, __VA_ARGS__)
#define WGRT_UF_14(T, x, ...) WGRT_UF_(T, x), WGRT_UF_13(T, __VA_ARGS__)
#define WGRT_UF_15(T, x, ...) WGRT_UF_(T, x), WGRT_UF_14(T, __VA_ARGS__)
#define WGRT_UF_16(T, x, ...) WGRT_UF_(T, x), WGRT_UF_15(T, __VA_ARGS__)
#define WGRT_UF_17(T, x, ...) WGRT_UF_(T, x), WGRT_UF_16(T, __VA_ARGS__)
#define WGRT_UF_18(T, x, ...) WGRT_UF_(T, x), WGRT_UF_17(T, __VA_ARGS__)
#define WGRT_UF_19(T, x, ...) WGRT_UF_(T, x), WGRT_UF_18(T, __VA_ARGS__)
#define WGRT_UF_20(T, x, ...) WGRT_UF_(T, x), WGRT_UF_19(T, __VA_ARGS__)
#define WGRT_UF_21(T, x, ...) WGRT_UF_(T, x), WGRT_UF_20(T, __VA_ARGS__)
#define WGRT_UF_22(T, x, ...) WGRT_UF_(T, x), WGRT_UF_21(T, __VA_ARGS__)
#define WGRT_UF_23(T, x, ...) WGRT_UF_(T, x), WGRT_UF_22(T, __VA_ARGS__)
#define WGRT_UF_24(T, x, ...) WGRT_UF_(T, x), WGRT_UF_23(T, __VA_ARGS__)
#define WGRT_UF_25(T, x, ...) WGRT_UF_(T, x), WGRT_UF_24(T, __VA_ARGS__)
#define WGRT_UF_26(T, x, ...) WGRT_UF_(T, x), WGRT_UF_25(T, __VA_ARGS__)
#define WGRT_UF_27(T, x, ...) WGRT_UF_(T, x), WGRT_UF_26(T, __VA_ARGS__)
#define WGRT_UF_28(T, x, ...) WGRT_UF_(T, x), WGRT_UF_27(T, __VA_ARGS__)
#define WGRT_UF_29(T, x, ...) WGRT_UF_(T, x), WGRT_UF_28(T, __VA_ARGS__)
#define WGRT_UF_30(T, x, ...) WGRT_UF_(T, x), WGRT_UF_29(T, __VA_ARGS__)
#define WGRT_UF_31(T, x, ...) WGRT_UF_(T, x), WGRT_UF_30(T, __VA_ARGS__)
#define WGRT_UF_32(T, x, ...) WGRT_UF_(T, x), WGRT_UF_31(T, __VA_ARGS__)
#define WGRT_UF_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, NAME, ...) NAME
#define WGRT_UF_EACH_(T, ...) WGRT_UF_PICK_(__VA_ARGS__, WGRT_UF_32, WGRT_UF_31, WGRT_UF_30, WGRT_UF_29, WGRT_UF_28, WGRT_UF_27, WGRT_UF_26, WGRT_UF_25, WGRT_UF_24, WGRT_UF_23, WGRT_UF_22, WGRT_UF_21, WGRT_UF_20, WGRT_UF_19, WGRT_UF_18, WGRT_UF_17, WGRT_UF_16, WGRT_UF_15, WGRT_UF_14, WGRT_UF_13, WGRT_UF_12, WGRT_UF_11, WGRT_UF_10, WGRT_UF_9, WGRT_UF_8, WGRT_UF_7, WGRT_UF_6, WGRT_UF_5, WGRT_UF_4, WGRT_UF_3, WGRT_UF_2, WGRT_UF_1)(T, __VA_ARGS__)

#define WGRT_UNIFORM(T, ...)                                                                     \
  [[maybe_unused]] inline const ::wgrt::UniformLayout& wgrt_uniform_layout(const T*) {           \
    static_assert(std::is_trivially_copyable_v<T> && std::is_standard_layout_v<T>);              \
    static constexpr ::wgrt::UniformField fields[] = {WGRT_UF_EACH_(T, __VA_ARGS__)};           \
    static constexpr ::wgrt::UniformLayout layout{#T, uint32_t(sizeof(T)), fields};              \
    return layout;                                                                               \
  }                                                                                              \
  static_assert(true)

// aten::_int_mm and tir::int_mm_weight (kernels/shapes/linear_algebra/int_mm.h), the int8
// products of torchao's dynamically quantized linears, and torchao's affine quantization ops
// (kernels/reference/quantization/affine.cc).
//
// The products must be torch's exact int32 sums: the oneDNN kernel (both of its routes: the
// int8 matmul where int8 pairs do not saturate, the float32 route in K chunks elsewhere) and the
// reference are compared for equality with sums in int64. Cases cover int8 and uint8 A, B
// plain and transposed (t() views), weights known at prepare and not, and K past one float32
// chunk with every product at its extreme (-128 * -128, 255 * -128), where a float32 sum of
// the whole row would round (K * 2^14 > 2^24).
//
// The affine ops' exactness against torch is the fixtures' (tests/runtime/torchao_import_test.cc);
// here: their block arithmetic on a per-group case, and that bad arguments are refused with a
// message that names them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct MmCase {
  bool unsigned_a = false, transposed_b = false, weight_form = false, extreme = false;
  int64_t m = 3, k = 17, n = 11;
};

void check_mm(const MmCase& c, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message()
               << "u8 " << c.unsigned_a << " bT " << c.transposed_b << " weight " << c.weight_form
               << " extreme " << c.extreme << " m " << c.m << " k " << c.k << " n " << c.n);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Buffer a(c.unsigned_a ? DType::kUInt8 : DType::kInt8, {c.m, c.k});
  for (int64_t i = 0; i < c.m * c.k; ++i) {
    if (c.unsigned_a)
      a.span<uint8_t>()[i] = uint8_t(c.extreme ? 255 : pick(0, 255));
    else
      a.span<int8_t>()[i] = int8_t(c.extreme ? -128 : pick(-128, 127));
  }
  // B as the op reads it: [K, N] for _int_mm, [N, K] (weight) for tir::int_mm_weight; a
  // transposed B is the t() view of a [N, K] (resp. [K, N]) buffer.
  const bool stored_nk = c.weight_form != c.transposed_b;
  Buffer stored(DType::kInt8,
                stored_nk ? std::vector<int64_t>{c.n, c.k} : std::vector<int64_t>{c.k, c.n});
  for (int8_t& v : stored.span<int8_t>()) v = int8_t(c.extreme ? -128 : pick(-128, 127));
  const Buffer b = c.transposed_b ? stored.transposed() : stored;
  // b_at(k, j): B[k, j] of the product
  const auto b_at = [&](int64_t k, int64_t j) {
    const int8_t* q = stored.span<int8_t>().data();
    return stored_nk ? q[j * c.k + k] : q[k * c.n + j];
  };
  std::vector<int64_t> want(size_t(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < c.k; ++k)
        acc +=
            int64_t(c.unsigned_a ? a.span<uint8_t>()[i * c.k + k] : a.span<int8_t>()[i * c.k + k]) *
            b_at(k, j);
      want[size_t(i * c.n + j)] = acc;
    }
  for (const KernelImpl impl : {KernelImpl::kOptimized, KernelImpl::kReference})
    for (const bool at_prepare : {true, false}) {
      CallBuilder cb(c.weight_form ? "tir::int_mm_weight" : "aten::_int_mm");
      cb.tensor(a).tensor(b);
      RunOptions o;
      o.impl = impl;
      o.data_at_prepare = at_prepare;
      o.repeat_runs = 2;
      const RunResult r = run_kernel(cb, o);
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      const Tensor& out = r.outputs[0].tensor();
      ASSERT_EQ(out.dtype, DType::kInt32);
      ASSERT_EQ(out.rank, 2);
      ASSERT_EQ(out.sizes[0], c.m);
      ASSERT_EQ(out.sizes[1], c.n);
      int64_t wrong = 0;
      for (size_t i = 0; i < want.size(); ++i) wrong += out.data_as<const int32_t>()[i] != want[i];
      EXPECT_EQ(wrong, 0) << (impl == KernelImpl::kOptimized ? "oneDNN" : "reference")
                          << (at_prepare ? ", B at prepare" : ", B at run");
    }
}

TEST(IntMm, ExactInt32Sums) {
  std::mt19937 rng(test_seed());
  for (int i = 0; i < 16; ++i) {
    MmCase c;
    c.unsigned_a = i & 1;
    c.transposed_b = i & 2;
    c.weight_form = i & 4;
    c.m = std::uniform_int_distribution<int64_t>(1, 9)(rng);
    c.k = std::uniform_int_distribution<int64_t>(1, 90)(rng);
    c.n = std::uniform_int_distribution<int64_t>(1, 40)(rng);
    check_mm(c, rng);
  }
}

// K past one float32 chunk (1024 int8 or 512 uint8 terms) with every product extreme: a
// float32 sum of the row would round (1500 * 2^14 > 2^24), the chunked sum must not.
TEST(IntMm, LongRowsStayExact) {
  std::mt19937 rng(test_seed());
  for (const bool u8 : {false, true})
    for (const bool extreme : {true, false}) {
      MmCase c;
      c.unsigned_a = u8;
      c.extreme = extreme;
      c.weight_form = true;
      c.m = 2;
      c.k = 1500;
      c.n = 5;
      check_mm(c, rng);
    }
}

TEST(IntMm, RefusesBadOperands) {
  Buffer a(DType::kInt8, {2, 4}), b(DType::kInt8, {3, 5}), b32(DType::kInt32, {4, 5});
  Buffer a3(DType::kInt8, {2, 2, 4});
  struct Bad {
    const Buffer *a, *b;
    const char* says;
  } cases[] = {{&a, &b32, "mat2"}, {&a, &b, "cannot be multiplied"}, {&a3, &b, "2-D operands"}};
  for (const Bad& bad : cases)
    for (const KernelImpl impl : {KernelImpl::kOptimized, KernelImpl::kReference}) {
      CallBuilder cb("aten::_int_mm");
      cb.tensor(*bad.a).tensor(*bad.b);
      RunOptions o;
      o.impl = impl;
      const RunResult r = run_kernel(cb, o);
      ASSERT_FALSE(r.status.ok()) << bad.says;
      EXPECT_NE(r.status.message().find(bad.says), std::string::npos) << r.status.message();
    }
}

// ---------------------------------------------------------------------- torchao affine ops

/// torchao::quantize_affine(x, block_size, scale, zero_point, output_dtype, quant_min,
/// quant_max) with its arguments named as the program names them.
CallBuilder quantize_call(const Buffer& x, std::vector<int64_t> block, const Buffer& scale,
                          const Buffer& zp) {
  CallBuilder cb("torchao::quantize_affine");
  cb.tensor(x).named("input").ints(std::move(block)).named("block_size");
  cb.tensor(scale).named("scale").tensor(zp).named("zero_point");
  cb.dtype(DType::kInt8).named("output_dtype").i(-128).named("quant_min").i(127).named("quant_max");
  return cb;
}

// Groups of 4 along the last dim of [2, 8] (torchao's PerGroup(4)): choose_qparams_affine
// (symmetric, keepdim) gives one scale per group, quantize_affine and dequantize_affine apply
// each group's; every dequantized value is within half a step of the input.
TEST(TorchaoAffine, PerGroupRoundTrip) {
  std::mt19937 rng(test_seed());
  const Buffer x = Buffer::random(rng, {2, 8}, -3.f, 3.f);
  CallBuilder choose("torchao::choose_qparams_affine");
  choose.tensor(x).named("input").str("SYMMETRIC").named("mapping_type");
  choose.ints({1, 4}).named("block_size").dtype(DType::kInt8).named("target_dtype");
  choose.i(-128).named("quant_min").i(127).named("quant_max");
  choose.f(1.1920928955078125e-07).named("eps").dtype(DType::kFloat32).named("scale_dtype");
  choose.dtype(DType::kInt8).named("zero_point_dtype").b(true).named("keepdim");
  RunOptions two;
  two.n_outputs = 2;
  const RunResult qp = run_kernel(choose, two);
  ASSERT_TRUE(qp.status.ok()) << qp.status.message();
  const Tensor& scale = qp.outputs[0].tensor();
  ASSERT_EQ(scale.rank, 2);
  EXPECT_EQ(scale.sizes[0], 2);
  EXPECT_EQ(scale.sizes[1], 2);
  EXPECT_EQ(qp.outputs[1].tensor().dtype, DType::kInt8);
  for (int64_t g = 0; g < 4; ++g) {
    float amax = 0;
    for (int64_t i = 0; i < 4; ++i) amax = std::max(amax, std::abs(x.span<float>()[g * 4 + i]));
    EXPECT_EQ(scale.data_as<const float>()[g], amax / 127.5f) << "group " << g;
    EXPECT_EQ(qp.outputs[1].tensor().data_as<const int8_t>()[g], 0);
  }
  const RunResult q = run_kernel(quantize_call(x, {1, 4}, qp.outputs[0], qp.outputs[1]));
  ASSERT_TRUE(q.status.ok()) << q.status.message();
  ASSERT_EQ(q.outputs[0].tensor().dtype, DType::kInt8);
  CallBuilder deq("torchao::dequantize_affine");
  deq.tensor(q.outputs[0]).named("input").ints({1, 4}).named("block_size");
  deq.tensor(qp.outputs[0]).named("scale").tensor(qp.outputs[1]).named("zero_point");
  deq.dtype(DType::kInt8).named("input_dtype");
  const RunResult y = run_kernel(deq);
  ASSERT_TRUE(y.status.ok()) << y.status.message();
  for (int64_t i = 0; i < 16; ++i) {
    const float s = scale.data_as<const float>()[i / 4];
    EXPECT_LE(std::abs(y.outputs[0].tensor().data_as<const float>()[i] - x.span<float>()[i]),
              0.5f * s * 1.001f)  // half a step, plus float32 rounding of x / s and q * s
        << "element " << i;
  }
}

TEST(TorchaoAffine, RefusesBadArguments) {
  const Buffer x = Buffer::f32({2, 8});
  const Buffer scale = Buffer::f32({2, 1}, {0.1f, 0.2f});
  Buffer zp(DType::kInt8, {2, 1});
  // a block that does not divide its dim
  RunResult r = run_kernel(quantize_call(x, {1, 3}, scale, zp));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("block_size[1] = 3"), std::string::npos) << r.status.message();
  // as many scales as blocks
  r = run_kernel(quantize_call(x, {1, 4}, scale, zp));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("scale has 2 elements for 4 blocks"), std::string::npos)
      << r.status.message();
  // block_size of another rank
  r = run_kernel(quantize_call(x, {8}, scale, zp));
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("block_size has 1 entries"), std::string::npos)
      << r.status.message();
  // a mapping type torchao does not define
  CallBuilder choose("torchao::choose_qparams_affine");
  choose.tensor(x).named("input").str("ROUND_TRIP").named("mapping_type");
  choose.ints({1, 8}).named("block_size").dtype(DType::kInt8).named("target_dtype");
  RunOptions two;
  two.n_outputs = 2;
  r = run_kernel(choose, two);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("mapping_type 'ROUND_TRIP'"), std::string::npos)
      << r.status.message();
  // a quant range outside the dtype
  CallBuilder wide("torchao::quantize_affine");
  wide.tensor(x).named("input").ints({1, 8}).named("block_size");
  wide.tensor(scale).named("scale").dtype(DType::kInt8).named("output_dtype");
  wide.i(-300).named("quant_min");
  r = run_kernel(wide);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("does not fit int8"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tir::kernels::testing

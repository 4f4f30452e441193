// fp16 / bf16 conversions (core/float16.h) against torch's own on edge cases (ties,
// subnormals, overflow, inf, NaN) and random values, from tests/data/gen_weights.py.
#include "core/float16.h"

#include <gtest/gtest.h>
#include <immintrin.h>  // _cvtsh_ss: the CPU's own half -> float (F16C, in x86-64-v3)

#include <cmath>

#include "runtime/weights/weight_set.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

TEST(Float16, NarrowingMatchesTorchAndWideningIsExact) {
  auto set = WeightSet::open(testing::fixture_dir() + "/weights/rounding.safetensors");
  ASSERT_TRUE(set.ok()) << set.status().message();
  const Tensor* f32 = (*set)->find("f32");
  const Tensor* bf16 = (*set)->find("bf16");
  const Tensor* fp16 = (*set)->find("fp16");
  ASSERT_TRUE(f32 && bf16 && fp16);
  ASSERT_EQ(f32->numel(), bf16->numel());
  ASSERT_GT(f32->numel(), 600);
  for (int64_t i = 0; i < f32->numel(); ++i) {
    const float x = f32->data_as<float>()[i];
    const uint16_t b = bf16->data_as<uint16_t>()[i], h = fp16->data_as<uint16_t>()[i];
    if (std::isnan(x)) {  // any NaN will do, torch's payload is its own business
      EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(x))));
      EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(x))));
      continue;
    }
    EXPECT_EQ(float_to_bf16(x), b) << i << ": " << x;
    EXPECT_EQ(float_to_fp16(x), h) << i << ": " << x;
    EXPECT_EQ(std::bit_cast<uint32_t>(fp16_to_float(h)), std::bit_cast<uint32_t>(_cvtsh_ss(h)))
        << i;
    EXPECT_EQ(std::bit_cast<uint32_t>(bf16_to_float(b)), uint32_t(b) << 16) << i;
  }
}

}  // namespace
}  // namespace tir

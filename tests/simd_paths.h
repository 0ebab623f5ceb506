// Runs a test suite once per SIMD path this machine has (core/engine/simd.h), so every exact
// promise of the engine is checked on the scalar reference path and on each vectorised one:
//   class MySuite : public testing_support::OnEveryPath {};
//   TEST_P(MySuite, Something) { ... }
//   MHA_ON_EVERY_PATH(MySuite);
#pragma once

#include "engine/simd.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>

namespace core {
inline void PrintTo(SimdLevel level, std::ostream* out) {
    *out << toString(level);
} // gtest names it
} // namespace core

namespace testing_support {

class OnEveryPath : public ::testing::TestWithParam<core::SimdLevel> {
  protected:
    void SetUp() override {
        previous_ = core::activeSimdLevel();
        ASSERT_TRUE(core::useSimdLevel(GetParam()));
    }
    void TearDown() override { core::useSimdLevel(previous_); }

  private:
    core::SimdLevel previous_ = core::SimdLevel::Scalar;
};

inline std::string pathName(const ::testing::TestParamInfo<core::SimdLevel>& info) {
    return std::string(core::toString(info.param));
}

// The same for suites run on (a fixture's name, every SIMD path): the real models' checkpoints,
// the PyTorch cases. Instantiate with ::testing::Combine(names, ValuesIn(availableSimdLevels())).
using NamedPath = std::tuple<std::string, core::SimdLevel>;

class OnEveryPathNamed : public ::testing::TestWithParam<NamedPath> {
  protected:
    void SetUp() override {
        previous_ = core::activeSimdLevel();
        ASSERT_TRUE(core::useSimdLevel(std::get<1>(GetParam())));
    }
    void TearDown() override { core::useSimdLevel(previous_); }
    const std::string& name() const { return std::get<0>(GetParam()); }

  private:
    core::SimdLevel previous_ = core::SimdLevel::Scalar;
};

// "bert_f32_avx2": the fixture's name and the path.
inline std::string namedPathName(const ::testing::TestParamInfo<NamedPath>& info) {
    return std::get<0>(info.param) + "_" + std::string(core::toString(std::get<1>(info.param)));
}

} // namespace testing_support

#define MHA_ON_EVERY_PATH(Suite)                                                                   \
    INSTANTIATE_TEST_SUITE_P(Path, Suite, ::testing::ValuesIn(core::availableSimdLevels()),        \
                             testing_support::pathName)

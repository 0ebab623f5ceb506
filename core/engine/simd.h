// Which SIMD path runs the engine's hot code (attention_kernel.cpp), picked once at start-up
// from what the CPU supports, the way numeric libraries dispatch. The portable build keeps an
// SSE2 copy inside the binary and loads the AVX2+FMA and AVX-512 copies from shared objects
// in <prefix>/lib/mha-viz, so one binary runs on any x86-64 CPU at its best speed, with the
// same numbers (docs/portability.md).
#pragma once

#include "base/enum_names.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core {

// Scalar: Eigen's vectorisation switched off (a reference path for the tests).
enum class SimdLevel { Scalar, Sse2, Avx2, Avx512 };
inline constexpr EnumName<SimdLevel> kSimdLevelNames[] = {{SimdLevel::Scalar, "scalar", ""},
                                                          {SimdLevel::Sse2, "sse2", ""},
                                                          {SimdLevel::Avx2, "avx2", ""},
                                                          {SimdLevel::Avx512, "avx512", ""}};
constexpr std::span<const EnumName<SimdLevel>> enumNames(SimdLevel) {
    return kSimdLevelNames;
}

// Whether this CPU (and OS) can run a level's instructions; Scalar and Sse2 always on x86-64.
bool cpuRuns(SimdLevel level);

// Paths this CPU can run and this installation has, lowest first.
std::vector<SimdLevel> availableSimdLevels();

// The path core::forward uses: the best available one, or MHA_SIMD=scalar|sse2|avx2|avx512
// from the environment when that one is available.
SimdLevel activeSimdLevel();

// Switches the path for the whole process (tests, benchmarks). False, and nothing changes,
// when the level is not available here.
bool useSimdLevel(SimdLevel level);

// One line for --version and the benchmark: "avx512 (available: scalar sse2 avx2 avx512)".
std::string simdSummary();

} // namespace core

// mha_bench: forward-pass speed on the shapes the UI and the README quote.
//   ./build/tests/mha_bench --benchmark_counters_tabular=true
// Counters: GFLOPs = forward FLOP/s, vs_gemm = that rate / Eigen's own GEMM rate on a
// d_model x d_model x d_model product measured in the same run (1.0 = GEMM speed). Both run on
// the engine's SIMD path, printed first ("engine: avx2 ..."); MHA_SIMD=sse2 picks another.
#include "engine/attention.h"
#include "engine/cost_model.h"
#include "engine/simd.h"
#include "engine/weights.h"

#include "test_support.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <map>

namespace {

using testing_support::randomMatrix;

// Eigen GEMM FLOP/s for an n x n x n float product, timed once per n.
double eigenGemmRate(int n) {
    static std::map<int, double> cache;
    if (auto it = cache.find(n); it != cache.end()) return it->second;
    const core::Mat a = randomMatrix(n, n, 1), b = randomMatrix(n, n, 2);
    core::Mat c(n, n);             // n x n
    core::engineMultiply(a, b, c); // warm up
    const double flops = 2.0 * n * n * n;
    int reps = std::max(1, int(2e9 / flops));
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps; ++r) core::engineMultiply(a, b, c);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    benchmark::DoNotOptimize(c.data());
    return cache[n] = flops * reps / seconds;
}

// BM_Forward/N/d_model/H: B = 1 self-attention, full trace (per-head weights and outputs).
void BM_Forward(benchmark::State& state) {
    const int n = int(state.range(0)), d = int(state.range(1)), h = int(state.range(2));
    core::AttentionInput in;
    in.batch = 1, in.queryLen = in.keyLen = n, in.heads = h;
    in.x = randomMatrix(n, d, 3); // N x d_model
    const core::Weights w = core::randomWeights(1, d);
    core::Attention out;
    for (auto _ : state) {
        core::forward(in, w, out);
        benchmark::DoNotOptimize(out.output.data());
    }
    const double flops = core::forwardCost(core::costShape(out)).flops; // the Cost tab's count
    state.counters["GFLOPs"] =
        benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
    state.counters["vs_gemm"] =
        benchmark::Counter(flops / eigenGemmRate(d), benchmark::Counter::kIsIterationInvariantRate);
}

// Eigen's GEMM on its own, the yardstick for vs_gemm.
void BM_EigenGemm(benchmark::State& state) {
    const int n = int(state.range(0));
    const core::Mat a = randomMatrix(n, n, 1), b = randomMatrix(n, n, 2);
    core::Mat c(n, n); // n x n
    for (auto _ : state) {
        core::engineMultiply(a, b, c);
        benchmark::DoNotOptimize(c.data());
    }
    state.counters["GFLOPs"] =
        benchmark::Counter(2.0 * n * n * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

} // namespace

BENCHMARK(BM_Forward)
    ->ArgNames({"N", "d_model", "H"})
    ->Args({10, 64, 8})
    ->Args({128, 512, 8})
    ->Args({128, 512, 16})
    ->Args({512, 512, 8})
    ->Args({1024, 1024, 16})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime()
    // With --benchmark_repetitions: the fastest run, the figure least moved by a busy machine.
    ->ComputeStatistics("min", [](const std::vector<double>& v) {
        return *std::min_element(v.begin(), v.end());
    });
BENCHMARK(BM_EigenGemm)->Arg(64)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond)->UseRealTime();

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("engine", core::simdSummary());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

// mha_bench: forward-pass speed on the shapes the UI and docs/performance.md quote, and the
// speed of a training step of mha-viz train.
//   ./build/tests/mha_bench --benchmark_counters_tabular=true
// Counters: GFLOPs = forward FLOP/s, vs_gemm = that rate / Eigen's own GEMM rate on a
// d_model x d_model x d_model product measured in the same run (1.0 = GEMM speed). Both run on
// the engine's SIMD path, printed first ("engine: avx2 ..."); MHA_SIMD=sse2 picks another.
// steps_per_s = training steps per second (BM_TrainStep; tests/bench_train_torch.py is the same
// step in PyTorch; --benchmark_repetitions=5 gives their median). Threads: OpenMP's
// (OMP_NUM_THREADS; all cores by default), printed first as well.
// BM_QuantizedLinear: a Llama 1B MLP projection with BF16, Q8_0 and Q4_K weights (GGUF).
// BM_ExportBigScene: `mha-viz --export` of the big scene, in seconds (files written to
// a temporary folder, removed between runs).
#include "engine/attention.h"
#include "engine/cost_model.h"
#include "engine/scene.h"
#include "engine/simd.h"
#include "engine/weights.h"
#include "io/figure_export.h"
#include "models/formats/ggml_quants.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/tasks.h"

#include "test_support.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

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

// A weight of ggml's `type` (BF16, Q8_0 or Q4_K), rows x cols: random bytes with small
// finite F16 scales (any quant bits are valid blocks; the time does not depend on them).
std::vector<std::uint8_t> randomWeights(core::models::GgmlType type, Eigen::Index rows,
                                        Eigen::Index cols) {
    const auto info = *core::models::ggmlTypeInfo(std::uint32_t(type));
    std::vector<std::uint8_t> bytes(*core::models::ggmlRowBytes(type, std::uint64_t(cols)) *
                                    std::size_t(rows));
    core::SplitMix64 rng(17);
    for (auto& b : bytes) b = std::uint8_t(rng.next());
    const bool bf16 = type == core::models::GgmlType::BF16;
    for (std::size_t at = 0; at < bytes.size(); at += std::size_t(info.blockBytes))
        for (std::size_t s = 0; s < (type == core::models::GgmlType::Q4_K ? 2u : 1u); ++s)
            bytes[at + 2 * s + 1] = bf16 ? 0x3C : 0x20; // 2^-7 ... 2^-8 magnitudes, finite
    return bytes;
}

// BM_QuantizedLinear/ggml_type: x W^T, x 128 x 2048 and W 8192 x 2048 (the Llama 3.2 1B MLP's
// gate and up projections, torch.nn.Linear's out x in), W held as BF16 (30: widened a panel at
// a time, engineMultiply with a HalfMatrix) or quantized as Q8_0 (8) or Q4_K (12: dequantized
// a panel at a time inside the product, a QuantMatrix). Issue 38's goal: Q4_K within 1.5x of
// BF16.
void BM_QuantizedLinear(benchmark::State& state) {
    using core::models::GgmlType;
    const auto type = GgmlType(state.range(0));
    constexpr Eigen::Index kTokens = 128, kIn = 2048, kOut = 8192;
    const core::Mat x = randomMatrix(kTokens, kIn, 4); // 128 x 2048
    const auto bytes = randomWeights(type, kOut, kIn);
    const core::ConstMatMap xm(x.data(), x.rows(), x.cols());
    core::Mat y; // 128 x 8192
    const auto info = *core::models::ggmlTypeInfo(std::uint32_t(type));
    const core::QuantMatrix quant{reinterpret_cast<const std::byte*>(bytes.data()),
                                  kOut,
                                  kIn,
                                  bytes.size() / std::size_t(kOut),
                                  info.blockValues,
                                  info.blockBytes,
                                  core::models::ggmlDequantizer(type)};
    const core::HalfMatrix half{reinterpret_cast<const std::uint16_t*>(bytes.data()), kOut, kIn};
    for (auto _ : state) {
        if (type == GgmlType::BF16)
            core::engineMultiply(xm, half, true, y);
        else
            core::engineMultiply(xm, quant, true, y);
        benchmark::DoNotOptimize(y.data());
    }
    state.SetLabel(info.name);
    state.counters["GFLOPs"] = benchmark::Counter(2.0 * kTokens * kIn * kOut * 1e-9,
                                                  benchmark::Counter::kIsIterationInvariantRate);
}

// BM_TrainStep/layers/d_model/heads/seq/batch: one step of mha-viz train on the induction
// task with Adam (lr 1e-3): forward, backward and the optimizer's update, as the trainer runs
// them (buffers reused from step to step). The batches are made before the clock starts.
void BM_TrainStep(benchmark::State& state) {
    using namespace core::train;
    const Task task(TaskKind::Induction);
    ModelConfig config;
    config.vocab = task.vocabSize();
    config.layers = int(state.range(0)), config.d_model = int(state.range(1));
    config.heads = int(state.range(2)), config.seq = int(state.range(3));
    const int batchSize = int(state.range(4));
    core::SplitMix64 rng(7);
    std::vector<Batch> batches; // a few distinct batches, taken in turn
    for (int i = 0; i < 16; ++i) batches.push_back(task.makeBatch(rng, batchSize, config.seq));
    Params params = initParams(config, 1);
    Optimizer adam(OptimizerKind::Adam, 1e-3, config);
    StepBuffers buffers;
    std::size_t next = 0;
    for (auto _ : state) {
        const Batch& batch = batches[next++ % batches.size()];
        benchmark::DoNotOptimize(lossAndGradients(config, params, batch, buffers));
        adam.step(params, buffers.gradients);
    }
    state.counters["steps_per_s"] =
        benchmark::Counter(1, benchmark::Counter::kIsIterationInvariantRate);
}

// BM_ExportBigScene/workers: every figure of 120 tokens, d_model 512, 16 heads at scale 4 (57
// files, as `mha-viz --sentence "$(seq -s ' ' 1 120)" --d-model 512 --heads 16 --export DIR
// --export-scale 4` writes them), with that many export workers.
void BM_ExportBigScene(benchmark::State& state) {
    namespace fs = std::filesystem;
    core::Scene scene;
    scene.sentences = {"1"};
    for (int i = 2; i <= 120; ++i) scene.sentences[0].append(" ").append(std::to_string(i));
    scene.d_model = 512;
    scene.heads = 16;
    const core::Trace trace = core::run(scene);
    const fs::path dir = fs::temp_directory_path() / "mha-bench-export";
    std::size_t files = 0, bytes = 0;
    for (auto _ : state) {
        state.PauseTiming();
        fs::remove_all(dir);
        state.ResumeTiming();
        files = core::exportFigures(trace, dir.string(), 4, core::ColormapId::Viridis,
                                    int(state.range(0)))
                    .size();
    }
    for (const auto& entry : fs::directory_iterator(dir)) bytes += entry.file_size();
    fs::remove_all(dir);
    state.counters["files"] = double(files);
    state.counters["MB"] = double(bytes) / 1e6;
}

int ompThreads() {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

// With --benchmark_repetitions: the fastest run, the figure least moved by a busy machine.
double fastest(const std::vector<double>& v) {
    return *std::min_element(v.begin(), v.end());
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
    ->ComputeStatistics("min", fastest);
BENCHMARK(BM_EigenGemm)->Arg(64)->Arg(512)->Arg(1024)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_QuantizedLinear)
    ->ArgNames({"ggml_type"})
    ->Arg(int(core::models::GgmlType::BF16))
    ->Arg(int(core::models::GgmlType::Q8_0))
    ->Arg(int(core::models::GgmlType::Q4_K))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->ComputeStatistics("min", fastest);
BENCHMARK(BM_TrainStep)
    ->ArgNames({"layers", "d_model", "heads", "seq", "batch"})
    ->Args({2, 64, 4, 32, 32}) // mha-viz train's defaults
    ->Args({1, 64, 4, 32, 32})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime(); // no "min": it would give the slowest steps_per_s; read the median
BENCHMARK(BM_ExportBigScene)
    ->ArgNames({"workers"})
    ->Arg(1)
    ->Arg(2)
    ->Iterations(3)
    ->Unit(benchmark::kSecond)
    ->UseRealTime(); // the workers' time, not the waiting caller's

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::AddCustomContext("engine", core::simdSummary());
    benchmark::AddCustomContext("threads", std::to_string(ompThreads()));
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

#include "engine/simd.h"

#include "engine/attention_kernel.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#if defined(__linux__) || defined(__APPLE__) || defined(__unix__)
#include <dlfcn.h>
#define MHA_HAS_DLOPEN 1
#endif

namespace core {

namespace {

constexpr std::array<SimdLevel, 4> kLevels{SimdLevel::Scalar, SimdLevel::Sse2, SimdLevel::Avx2,
                                           SimdLevel::Avx512};

} // namespace

// __builtin_cpu_supports also checks that the OS saves the wide registers (XGETBV).
bool cpuRuns(SimdLevel level) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init(); // may run before the constructor that usually does it
    switch (level) {
    case SimdLevel::Scalar:
    case SimdLevel::Sse2: // part of x86-64 itself
        return true;
    case SimdLevel::Avx2:
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case SimdLevel::Avx512:
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }
    return false;
#else
    return level == SimdLevel::Scalar;
#endif
}

namespace {

// Where the kernels of other levels are: MHA_ENGINE_DIR, else ../lib/mha-viz beside the
// running program (bin/ and lib/ of an install prefix, or build/app and build/lib).
std::filesystem::path kernelDir() {
    if (const char* dir = std::getenv("MHA_ENGINE_DIR"); dir && *dir) return dir;
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().parent_path() / "lib" / "mha-viz";
}

// The kernel of `level` from its shared object, or null. Loaded privately (RTLD_LOCAL) and
// never unloaded; a kernel from another build (other type layouts) is refused.
const MhaEngineKernel* loadKernel(SimdLevel level, const std::filesystem::path& dir) {
#ifdef MHA_HAS_DLOPEN
    if (dir.empty()) return nullptr;
    const auto path = dir / ("libmha_engine_" + std::string(toString(level)) + ".so");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return nullptr; // not built or not installed: fine
    // From here on a failure is a broken installation: say so once, then run without it.
    auto refuse = [&](const std::string& why) {
        std::fprintf(stderr, "mha-viz: warning: engine kernel %s not used: %s\n", path.c_str(),
                     why.c_str());
    };
    void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        refuse(dlerror());
        return nullptr;
    }
    using Entry = const MhaEngineKernel* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(library, "mha_engine_kernel_v1"));
    const MhaEngineKernel* kernel = entry ? entry() : nullptr;
    if (kernel && kernel->abi == kernel::kAbi && kernel->level == int(level)) return kernel;
    refuse(!kernel                       ? "no mha_engine_kernel_v1"
           : kernel->abi != kernel::kAbi ? "built by another version of mha-viz"
                                         : "built for another SIMD level");
    dlclose(library);
#else
    (void)level, (void)dir;
#endif
    return nullptr;
}

struct Registry {
    std::array<const MhaEngineKernel*, kLevels.size()> kernels{}; // by level; null: not here
    std::atomic<const MhaEngineKernel*> active{nullptr};

    Registry() {
        static const MhaEngineKernel builtIn{kernel::kAbi,
                                             kernel::compiledLevel(),
                                             kernel::forward,
                                             kernel::multiply,
                                             kernel::multiplyTransposed,
                                             kernel::backward,
                                             kernel::rowEntropy,
                                             kernel::meanRowEntropy,
                                             kernel::multiplyMapped,
                                             kernel::attendProjected,
                                             kernel::multiplyHalf,
                                             kernel::multiplyQuant};
        const auto dir = kernelDir();
        for (SimdLevel level : kLevels) {
            if (!cpuRuns(level)) continue;
            kernels[int(level)] = int(level) == builtIn.level ? &builtIn : loadKernel(level, dir);
        }
        // The built-in path is always there, even if its level test says otherwise.
        if (!kernels[builtIn.level]) kernels[builtIn.level] = &builtIn;
        const MhaEngineKernel* best = &builtIn;
        for (const MhaEngineKernel* k : kernels)
            if (k && k->level > best->level) best = k;
        active = best;
        chooseFromEnvironment();
    }

    void chooseFromEnvironment() {
        const char* wanted = std::getenv("MHA_SIMD");
        if (!wanted || !*wanted) return;
        const auto level = parseEnum<SimdLevel>(wanted);
        if (level && kernels[int(*level)]) {
            active = kernels[int(*level)];
            return;
        }
        std::fprintf(stderr, "mha-viz: MHA_SIMD=%s is not available here; using %s\n", wanted,
                     std::string(toString(SimdLevel(active.load()->level))).c_str());
    }
};

Registry& registry() {
    static Registry instance; // loaded once, on first use, thread-safely
    return instance;
}

} // namespace

std::vector<SimdLevel> availableSimdLevels() {
    std::vector<SimdLevel> levels;
    for (SimdLevel level : kLevels)
        if (registry().kernels[int(level)]) levels.push_back(level);
    return levels;
}

SimdLevel activeSimdLevel() {
    return SimdLevel(registry().active.load()->level);
}

bool useSimdLevel(SimdLevel level) {
    const MhaEngineKernel* kernel = registry().kernels[int(level)];
    if (!kernel) return false;
    registry().active = kernel;
    return true;
}

std::string simdSummary() {
    std::string text(toString(activeSimdLevel()));
    text += " (available:";
    for (SimdLevel level : availableSimdLevels()) (text += ' ') += toString(level);
    return text += ')';
}

const MhaEngineKernel& kernel::active() {
    return *registry().active.load();
}

} // namespace core

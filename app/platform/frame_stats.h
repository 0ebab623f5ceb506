// Frame times for --bench-frames: p50, p95 and max in milliseconds, and where a frame's time
// goes (its phases), so a slow frame can be pinned on the engine, the uploads, the panels'
// ImGui code, llvmpipe's drawing or the swap.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace app {

// Engine: recomputing attention. Upload: head maps to textures. Panels: the rest of building
// the frame (ImGui's and the panels' CPU work). Draw: ImGui's draw calls and the renderer
// finishing them (glFinish). Swap: presenting the frame (and what follows it in the loop).
enum class FramePhase { Engine, Upload, Panels, Draw, Swap };
constexpr int kFramePhases = 5;
constexpr std::array<const char*, kFramePhases> kFramePhaseNames = {"engine", "upload", "panels",
                                                                    "draw", "swap"};

inline double percentileOf(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t index = std::size_t(std::ceil(p / 100.0 * double(values.size()))) - 1;
    return values[std::min(index, values.size() - 1)];
}

struct FrameStats {
    using Clock = std::chrono::steady_clock;
    std::vector<double> millis;                                // whole frames
    std::array<std::vector<double>, kFramePhases> phaseMillis; // per frame, per phase
    std::array<double, kFramePhases> current{};                // this frame's so far
    Clock::time_point lapStart;

    double percentile(double p) const { return percentileOf(millis, p); }

    void startFrame(Clock::time_point now) {
        current.fill(0);
        lapStart = now;
    }
    // The time since the last lap was spent in `phase`.
    void lap(FramePhase phase) {
        const Clock::time_point now = Clock::now();
        current[std::size_t(phase)] +=
            std::chrono::duration<double, std::milli>(now - lapStart).count();
        lapStart = now;
    }
    void endFrame(double frameMillis) {
        millis.push_back(frameMillis);
        for (int p = 0; p < kFramePhases; ++p) phaseMillis[p].push_back(current[p]);
    }

    std::string summary() const {
        char line[160];
        std::snprintf(line, sizeof line, "frames=%zu p50_ms=%.2f p95_ms=%.2f max_ms=%.2f",
                      millis.size(), percentile(50), percentile(95),
                      millis.empty() ? 0.0 : *std::max_element(millis.begin(), millis.end()));
        return line;
    }
    // "phases p50_ms engine=.. upload=.. ..." and the same for p95 (each phase's own
    // percentile, so they need not add up to the frame's).
    std::string phaseSummary(double p) const {
        std::string line = "phases p" + std::to_string(int(p)) + "_ms";
        for (int i = 0; i < kFramePhases; ++i) {
            char part[48];
            std::snprintf(part, sizeof part, " %s=%.2f", kFramePhaseNames[i],
                          percentileOf(phaseMillis[i], p));
            line += part;
        }
        return line;
    }
};

} // namespace app

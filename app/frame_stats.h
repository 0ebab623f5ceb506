// Frame times for --bench-frames: p50, p95 and max in milliseconds.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace app {

struct FrameStats {
    std::vector<double> millis;

    double percentile(double p) const {
        if (millis.empty()) return 0;
        std::vector<double> sorted = millis;
        std::sort(sorted.begin(), sorted.end());
        const std::size_t index = std::size_t(std::ceil(p / 100.0 * double(sorted.size()))) - 1;
        return sorted[std::min(index, sorted.size() - 1)];
    }

    std::string summary() const {
        char line[160];
        std::snprintf(line, sizeof line, "frames=%zu p50_ms=%.2f p95_ms=%.2f max_ms=%.2f",
                      millis.size(), percentile(50), percentile(95),
                      millis.empty() ? 0.0 : *std::max_element(millis.begin(), millis.end()));
        return line;
    }
};

} // namespace app

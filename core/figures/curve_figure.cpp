// The numbers behind the curve figures that do not depend on where things are drawn: axis
// ticks (1-2-5 steps, log decades). Series take their colours from palette.h.
#include "figures/curve_figure.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace core {

namespace {

constexpr double kEps = 1e-9; // in units of a tick step: forgives 0.1 + 0.2 and friends

// k x m x 10^e as the double nearest the decimal (3e-5, not 2.9999999999999997e-05): powers
// of ten up to 10^22 are exact, so one rounding, in the division or the product.
double decimal(double k, int m, int e) {
    return e < 0 ? k * m / std::pow(10.0, -e) : k * m * std::pow(10.0, e);
}

// "1.5", "3000", "20k": as many decimals as the step needs, thousands as k on long axes.
std::string linearLabel(double v, double step, bool thousands) {
    if (std::abs(v) < step * 1e-6) v = 0; // "0.0", not "-0.0"
    if (thousands) v /= 1000, step /= 1000;
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - kEps)));
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, v, thousands && v != 0 ? "k" : ""); // "0"
    return buf;
}

// m x 10^e as a tick label: plain decimals near 1, "1e-05"-free exponents ("2e-6") far away.
std::string logLabel(int m, int e) {
    char buf[48];
    if (e >= -4 && e <= 5)
        std::snprintf(buf, sizeof buf, "%.*f", std::max(0, -e), decimal(1, m, e));
    else
        std::snprintf(buf, sizeof buf, "%de%d", m, e);
    return buf;
}

// "10⁻⁵": a power of ten with a superscript exponent (DejaVu Sans has the glyphs), for log
// axes over many decades, where "0.0001" and "1e-5" side by side would read badly.
std::string powerOfTen(int e) {
    static const char* const digits[] = {
        "\xE2\x81\xB0", "\xC2\xB9",     "\xC2\xB2",     "\xC2\xB3",     "\xE2\x81\xB4",
        "\xE2\x81\xB5", "\xE2\x81\xB6", "\xE2\x81\xB7", "\xE2\x81\xB8", "\xE2\x81\xB9"};
    std::string out = "10";
    if (e < 0) out += "\xE2\x81\xBB"; // superscript minus
    for (char digit : std::to_string(std::abs(e))) out += digits[digit - '0'];
    return out;
}

// Ticks with the range snapped out to them (extend) or cut to [lo, hi], for one step.
long long tickCount(double lo, double hi, double step, bool extend) {
    return extend ? (long long)(std::ceil(hi / step - kEps) - std::floor(lo / step + kEps)) + 1
                  : (long long)(std::floor(hi / step + kEps) - std::ceil(lo / step - kEps)) + 1;
}

struct LogTick {
    double value;
    int m, e; // value = m x 10^e
};

// m x 10^e for every m in `mantissas` over the decades around [lo, hi], ascending.
std::vector<LogTick> logCandidates(double lo, double hi, const std::vector<int>& mantissas) {
    std::vector<LogTick> out;
    const int e0 = int(std::floor(std::log10(lo))) - 1, e1 = int(std::ceil(std::log10(hi))) + 1;
    for (int e = e0; e <= e1; ++e)
        for (int m : mantissas) out.push_back({decimal(1, m, e), m, e});
    return out;
}

// Labels the ticks `in`; over ~8 decades only every n-th power of ten, counted from the first
// (extending the range so that the last is labelled too), the others become minor ticks.
void labelDecades(std::vector<LogTick>& in, bool decades, bool extend, AxisTicks& t) {
    const int every = decades ? int((in.size() + 6) / 8) : 1, e0 = in.front().e;
    while (extend && (in.back().e - e0) % every != 0) {
        const int e = in.back().e + 1;
        in.push_back({decimal(1, 1, e), 1, e});
        t.max = in.back().value;
    }
    bool powers = false; // any decade far from 1: write them all as powers of ten
    for (const LogTick& c : in) powers = powers || (decades && (c.e < -3 || c.e > 4));
    for (const LogTick& c : in) {
        if ((c.e - e0) % every == 0) {
            t.values.push_back(c.value);
            t.labels.push_back(powers ? powerOfTen(c.e) : logLabel(c.m, c.e));
        } else {
            t.minor.push_back(c.value);
        }
    }
}

// One level of log ticks (decades, 1-2-5 or 1..9); false when it gives too few ticks (4, or 3
// for 1..9: "1, 10" or "1, 2, 5" say less than a finer level) or, when extending, a range the
// data would fill less than 60% of.
bool tryLogLevel(double lo, double hi, bool extend, const std::vector<int>& mantissas,
                 AxisTicks& t) {
    const std::vector<LogTick> all = logCandidates(lo, hi, mantissas);
    t = AxisTicks{lo, hi, {}, {}, {}};
    if (extend) {
        for (const LogTick& c : all)
            if (c.value <= lo * (1 + kEps)) t.min = c.value;
        for (auto c = all.rbegin(); c != all.rend(); ++c)
            if (c->value >= hi * (1 - kEps)) t.max = c->value;
    }
    std::vector<LogTick> in;
    for (const LogTick& c : all)
        if (c.value >= t.min * (1 - kEps) && c.value <= t.max * (1 + kEps)) in.push_back(c);
    const std::size_t fewest = mantissas.size() == 9 ? 3 : 4;
    if (in.size() < fewest || std::log(hi / lo) < 0.6 * std::log(t.max / t.min)) return false;
    labelDecades(in, mantissas.size() == 1, extend, t);
    // Minor ticks at the mantissas this level leaves out (2..9 between decades).
    const std::vector<int> finer = mantissas.size() == 1 ? std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9}
                                   : mantissas.size() == 3 ? std::vector<int>{3, 4, 6, 7, 8, 9}
                                                           : std::vector<int>{};
    for (const LogTick& c : logCandidates(lo, hi, finer))
        if (c.value > t.min * (1 + kEps) && c.value < t.max * (1 - kEps))
            t.minor.push_back(c.value);
    std::sort(t.minor.begin(), t.minor.end());
    return true;
}

} // namespace

AxisTicks linearTicks(double lo, double hi, int target, bool extend) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
    if (lo > hi) std::swap(lo, hi);
    if (hi - lo <= 1e-12 * std::max(1.0, std::abs(lo))) { // one value: centre it
        const double pad = lo == 0 ? 1.0 : 0.1 * std::abs(lo);
        lo -= pad, hi += pad;
    }
    target = std::max(target, 2);
    // The smallest step m x 10^e (m = 1, 2 or 5) that gives at most target + 1 ticks.
    int m = 0, e = int(std::floor(std::log10((hi - lo) / target))) - 1;
    for (;; ++e) {
        for (int candidate : {1, 2, 5})
            if (tickCount(lo, hi, decimal(1, candidate, e), extend) <= target + 1) {
                m = candidate;
                break;
            }
        if (m) break;
    }
    const double step = decimal(1, m, e);
    const double first = extend ? std::floor(lo / step + kEps) : std::ceil(lo / step - kEps);
    const double last = extend ? std::ceil(hi / step - kEps) : std::floor(hi / step + kEps);
    AxisTicks t;
    t.min = extend ? decimal(first, m, e) : lo;
    t.max = extend ? decimal(last, m, e) : hi;
    const bool thousands = step >= 1000 && std::max(std::abs(t.min), std::abs(t.max)) >= 10000;
    for (double k = first; k <= last + 0.5; ++k) {
        t.values.push_back(decimal(k, m, e));
        t.labels.push_back(linearLabel(t.values.back(), step, thousands));
    }
    return t;
}

AxisTicks logTicks(double lo, double hi, bool extend) {
    if (!(lo > 0) || !(hi > 0) || !std::isfinite(lo) || !std::isfinite(hi))
        throw std::invalid_argument("a log axis needs a positive range, not " + std::to_string(lo) +
                                    " to " + std::to_string(hi));
    if (lo > hi) std::swap(lo, hi);
    if (hi / lo < 1 + 1e-9) lo /= 1.25, hi *= 1.25; // one value: give it a range
    AxisTicks t;
    for (const std::vector<int>& level : {std::vector<int>{1}, std::vector<int>{1, 2, 5},
                                          std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9}})
        if (tryLogLevel(lo, hi, extend, level, t)) return t;
    // Too narrow for any of those (2.1 to 2.4): plain steps, still on the log scale.
    t = linearTicks(lo, hi, 5, extend);
    return t.min > 0 ? t : linearTicks(lo, hi, 5, false);
}

} // namespace core

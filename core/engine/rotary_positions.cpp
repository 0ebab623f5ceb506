#include "engine/rotary_positions.h"

#include <cmath>

namespace core {

double rotaryFrequency(int pair, int dims, double base) {
    return std::pow(base, -2.0 * pair / dims);
}

Rotation rotaryTables(int positions, int dims, double base, bool interleaved) {
    Rotation r;
    r.interleaved = interleaved;
    const int pairs = dims / 2;
    if (positions < 1 || pairs < 1) return r; // empty: no rotation
    r.cos.resize(positions, pairs);           // P x (r/2)
    r.sin.resize(positions, pairs);           // P x (r/2)
    for (int j = 0; j < pairs; ++j) {
        const double frequency = rotaryFrequency(j, dims, base);
        for (int p = 0; p < positions; ++p) {
            const double angle = p * frequency; // in double: the same tables on every libm
            r.cos(p, j) = Scalar(std::cos(angle));
            r.sin(p, j) = Scalar(std::sin(angle));
        }
    }
    return r;
}

} // namespace core

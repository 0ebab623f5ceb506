// Portable randomness: every bit is specified here, so a seed gives the same
// numbers with any compiler, standard library or CPU (std::hash and the
// std:: distributions do not promise that).
#pragma once

#include <cstdint>
#include <string_view>

namespace core {

// FNV-1a, 64 bit: offset basis 14695981039346656037, prime 1099511628211.
constexpr std::uint64_t fnv1a64(std::string_view bytes) {
    std::uint64_t hash = 14695981039346656037ull;
    for (unsigned char byte : bytes) {
        hash ^= byte;
        hash *= 1099511628211ull;
    }
    return hash;
}

// SplitMix64 (Steele, Lea, Flood 2014): a state increment and a fixed mix.
class SplitMix64 {
  public:
    explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}

    constexpr std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Top 24 bits / 2^24: every value is an exact float in [0, 1).
    constexpr float uniform01() { return float(next() >> 40) * (1.0f / 16777216.0f); }

    // Uniform in [-limit, limit), computed exactly the same everywhere.
    constexpr float symmetric(float limit) { return (2.0f * uniform01() - 1.0f) * limit; }

  private:
    std::uint64_t state_;
};

} // namespace core

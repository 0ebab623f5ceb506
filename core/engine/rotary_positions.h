// Rotary position tables (RoFormer, Su et al. 2021): the cos and sin of position x theta_j for
// every pair j of a head's rotated dimensions, theta_j = base^(-2j/r), as Hugging Face's
// default rotary embedding computes them. The engine's Rotation turns q and k with them.
#pragma once

#include "engine/attention.h"

namespace core {

// Tables for positions [0, positions) over the first `dims` dimensions of a head (dims even,
// at most d_head; 0 gives an empty Rotation: nothing turned). In double, rounded once to Scalar,
// so every machine gets the same bits. interleaved: the pair layout (Rotation::interleaved).
Rotation rotaryTables(int positions, int dims, double base, bool interleaved = false);

// theta_j = base^(-2j/dims): how far pair j turns per position, in radians (pair 0: 1 radian).
double rotaryFrequency(int pair, int dims, double base);

// The rotated dimensions of a head of d_head for the toy scenes: all of them, an even count
// (d_head 5 turns its first 4; d_head 1 turns none).
inline int rotaryDims(int d_head) {
    return d_head - d_head % 2;
}

} // namespace core

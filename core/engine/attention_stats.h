// Summary numbers of a forward pass that the UI shows next to the maps.
#pragma once

#include "engine/attention.h"

namespace core {

// Shannon entropy (natural log) of query i's attention row in head h of sentence b,
// over the keys it may see: 0 for a one-hot row, ln(visible keys) for a uniform one,
// 0 when every key is masked.
double rowEntropy(const Attention& a, int b, int h, int i);

// The entropy of a uniform row over `keys` visible keys, ln(keys): the most a row can have;
// 0 for none.
double uniformEntropy(int keys);

// Nats to bits, where a view shows entropy in bits (the Stats tab, its figure and CSV).
inline double natsToBits(double nats) {
    return nats / 0.69314718055994530942; // ln 2
}

// Mean rowEntropy over every row (all sentences, heads, queries) with at least one
// visible key; 0 when there is none. Higher = flatter attention.
double meanRowEntropy(const Attention& a);

} // namespace core

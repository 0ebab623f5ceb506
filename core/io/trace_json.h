// The trace as JSON ("format": "mha-trace", "version": 1), the contract in README ("Trace JSON").
#pragma once

#include "engine/trace.h"

#include <ostream>
#include <string>

namespace core {

inline constexpr int kTraceJsonVersion = 1;

void writeTraceJson(const Trace& trace, std::ostream& out);
std::string traceJson(const Trace& trace);

} // namespace core

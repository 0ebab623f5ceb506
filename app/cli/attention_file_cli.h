// `mha-viz --attention FILE` (docs/attention-files.md): attention another framework saved, read
// and checked by parseCli (bad input is one line and exit 2, before any window); the window
// shows it, or --json writes its v2 trace and --export its figures.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace app {

struct CliOptions;

// The flags that need the model, or a sentence of one's own: refused with --attention.
// Returns the one-line error, or "" with the file read into options.savedAttention.
std::string loadAttentionFileOptions(const CLI::App& cli, CliOptions& options);

// --json and/or --export of the file read. Returns the exit code.
int runAttentionFileHeadless(const CliOptions& options);

} // namespace app

// How every command reads its arguments (mha-viz, mha-viz train, mha-viz plot): CLI11 parses,
// then `check` adds what CLI11 cannot see, returning one line naming the problem ("" when
// there is none) or throwing std::invalid_argument with it. --help and --version print and
// give exit code 0; bad input prints "PROGRAM: error: LINE" and gives exit code 2 (the CLI
// contract). True when the command should go on.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace app {

bool parseCommandLine(CLI::App& cli, int argc, char** argv, std::string_view program,
                      const std::function<std::string()>& check, int& exitCode);

} // namespace app

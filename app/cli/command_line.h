// How every command reads its arguments (mha-viz, mha-viz train, mha-viz plot): CLI11 parses,
// then `check` adds what CLI11 cannot see, returning one line naming the problem ("" when
// there is none) or throwing std::invalid_argument with it. --help and --version print and
// give exit code 0; bad input prints "PROGRAM: error: LINE" and gives exit code 2 (the CLI
// contract). True when the command should go on.
#pragma once

#include "base/enum_names.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace app {

bool parseCommandLine(CLI::App& cli, int argc, char** argv, std::string_view program,
                      const std::function<std::string()>& check, int& exitCode);

// An option whose value is one of a closed set's names: the allowed values and the default
// shown by --help come from its name table, and `value` is set as the flag is read.
template <core::NamedEnum Enum>
CLI::Option* addEnumOption(CLI::App& cli, const std::string& flag, Enum& value,
                           const std::string& description) {
    return cli
        .add_option_function<std::string>(
            flag, [&value](const std::string& text) { value = *core::parseEnum<Enum>(text); },
            description)
        ->check(CLI::IsMember(core::enumNameList<Enum>()))
        ->default_str(std::string(core::toString(value)));
}

} // namespace app

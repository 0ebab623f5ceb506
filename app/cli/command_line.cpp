#include "cli/command_line.h"

#include "cli/cli.h"

#include <stdexcept>

namespace app {

bool parseCommandLine(CLI::App& cli, int argc, char** argv, std::string_view program,
                      const std::function<std::string()>& check, int& exitCode) {
    std::string error;
    try {
        cli.parse(argc, argv);
        error = check();
    } catch (const CLI::Success& e) { // --help or --version: printed, exit 0
        exitCode = cli.exit(e);
        return false;
    } catch (const CLI::ParseError& e) {
        error = e.what();
    } catch (const std::invalid_argument& e) {
        error = e.what();
    }
    if (!error.empty()) { // the one place bad input ends: one line naming the value, exit 2
        printError(program, error);
        exitCode = kExitBadInput;
        return false;
    }
    exitCode = 0;
    return true;
}

} // namespace app

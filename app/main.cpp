// mha-viz: the command line and (next) the window.
#include "cli.h"

#include "trace.h"

#include <cstdio>

int main(int argc, char** argv) {
    int exitCode = 0;
    const auto options = app::parseCli(argc, argv, exitCode);
    if (!options) return exitCode;
    if (options->headless()) return app::runHeadless(*options);
    return app::runHeadless(*options);
}

#include "platform/thread_policy.h"

#include <cstdlib>

#ifdef __linux__
#include <unistd.h>
#endif

namespace app {

void restartWithSleepingWorkers(char** argv) {
#ifdef __linux__
    if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return; // the user's
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv); // on failure the window opens anyway, with spinning workers
#else
    (void)argv;
#endif
}

} // namespace app

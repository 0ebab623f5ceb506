// How the window's OpenMP worker threads wait between recomputes.
#pragma once

namespace app {

// The window shares the cores with llvmpipe's rasteriser threads. libgomp's default keeps an
// idle worker spinning for milliseconds after each parallel region, on a core llvmpipe needs
// to draw the frame (p50 -1 to -3 ms, p95 -2 to -4 ms at N = 128, H = 16 when it sleeps at
// once). libgomp reads its wait policy before main, so unless the user chose one
// (OMP_WAIT_POLICY or GOMP_SPINCOUNT), this sets OMP_WAIT_POLICY=passive and executes the
// program again with the same arguments. Returns only if it did nothing (or exec failed).
void restartWithSleepingWorkers(char** argv);

} // namespace app

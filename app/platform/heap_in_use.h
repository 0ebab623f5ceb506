#pragma once
// Bytes the program holds from the allocator now: what a leak grows. The resident size (RSS)
// also counts what the allocator keeps after free for the next allocation, which main.cpp's
// mallopt settings make up to 128 MB on purpose, and ASan's quarantine of freed blocks (256 MB):
// both grow with use and are not leaks. -1 where neither glibc nor a sanitizer runtime tells.
namespace app {

long long heapInUseBytes();

} // namespace app

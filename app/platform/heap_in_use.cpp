#include "platform/heap_in_use.h"

#include <cstddef>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// The sanitizer runtimes' count, present only when one is linked (ASan replaces malloc, and
// glibc's statistics then say nothing).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));

namespace app {

long long heapInUseBytes() {
    if (__sanitizer_get_current_allocated_bytes) // the address of a weak symbol: null if absent
        return static_cast<long long>(__sanitizer_get_current_allocated_bytes());
#if defined(__GLIBC__)
    const struct mallinfo2 info = mallinfo2(); // every arena: small blocks plus mmapped ones
    return static_cast<long long>(info.uordblks + info.hblkhd);
#else
    return -1;
#endif
}

} // namespace app

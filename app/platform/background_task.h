// Work off the frame thread, and its result polled by the frame that needs it. On the desktop
// a task runs on a thread of its own (std::async); in the browser, which has no threads without
// SharedArrayBuffer (and where std::async's own thread would hang the page), it runs deferred,
// in the frame that polls it. Callers read the same way everywhere: startTask, then taskReady
// each frame, then get().
#pragma once

#include <chrono>
#include <future>
#include <type_traits>
#include <utility>

namespace app {

template <class F>
std::future<std::invoke_result_t<std::decay_t<F>>> startTask(F&& work) {
#ifdef __EMSCRIPTEN__
    return std::async(std::launch::deferred, std::forward<F>(work));
#else
    return std::async(std::launch::async, std::forward<F>(work)); // throws when no thread can start
#endif
}

// True once the task's result can be taken with get() without waiting (in the browser: after
// running it, now). False for no task.
template <class T>
bool taskReady(const std::future<T>& task) {
    if (!task.valid()) return false;
#ifdef __EMSCRIPTEN__
    task.wait(); // a deferred task runs here
    return true;
#else
    return task.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
#endif
}

} // namespace app

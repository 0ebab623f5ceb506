// Keys a browser keeps for itself whatever the page does (Ctrl+T opens a tab), and the key the
// app's labels name instead in the browser build (the key table binds both everywhere).
#pragma once

namespace app {

#ifdef __EMSCRIPTEN__
inline constexpr const char* kTrainKeyName = "F9";
#else
inline constexpr const char* kTrainKeyName = "Ctrl+T";
#endif

} // namespace app

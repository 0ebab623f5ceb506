// Files between the app and the user. What the app wrote (exports, saved runs) stays where
// the notice says on the desktop; in the browser, whose file system is the page's memory, each
// file is handed to the browser as a download (app/web/browser.cpp), then removed from memory.
// And files the app opens: in the browser the page's file picker gives them (the desktop types
// a path, or drops a folder on the window).
#pragma once

#include <string>
#include <vector>

namespace app {

#ifdef __EMSCRIPTEN__
inline constexpr bool kFilesAreDownloads = true;
// Each path; a folder: every file in it.
void offerFiles(const std::vector<std::string>& paths);
// The browser's picker, several files at once (a model's or a run's files, or a scene): they
// are opened as if dropped on the window, together as one folder.
void pickFilesToOpen();
// What the app keeps between visits (scenes, saved runs, recent models, settings) is written
// back to the browser's storage now, not at the next periodic write.
void keepFiles();
#else
inline constexpr bool kFilesAreDownloads = false;
inline void offerFiles(const std::vector<std::string>&) {}
inline void pickFilesToOpen() {}
inline void keepFiles() {}
#endif

} // namespace app

// What the page gives the app that GLFW does not (app/web: the browser build, README "In the
// browser"): the canvas's size in device pixels, the clipboard, downloads, files the user picks
// or drops, settings kept between visits, the page's keys, and a word to the page (and its
// tests) that the app is ready. Each is a few lines of JavaScript (EM_JS) in browser.cpp.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace app::web {

// The canvas's CSS size times devicePixelRatio, which it is resized to: the size ImGui draws.
struct CanvasSize {
    int width = 0, height = 0;
    float pixelRatio = 1;
};
CanvasSize fitCanvas();

// The system clipboard: the text last copied or pasted in the page (a paste event sets it).
void copyToClipboard(const std::string& text);
const std::string& pastedText();

// The file, downloaded by the browser under `name`.
void download(const std::string& name, std::string_view bytes, const std::string& mime);

// Files dropped on the page, or chosen in its picker (platform/file_offer.h), copied into the
// app's file system under /upload/<n>/ and opened as if dropped on a desktop window.
void installFiles();

// Settings and scenes kept between visits: /persist is an IndexedDB file system, read before
// the first frame (ready() says so) and written back after `flushPersistent`.
void mountPersistent(std::function<void()> ready);
void flushPersistent();
// flushPersistent when the page is hidden or closed.
void flushWhenLeaving();

// Attributes of the page's body, each the milliseconds since the page was asked for, and a
// console line: data-mha-first-frame (the first frame is drawn), data-mha-ready (the first
// frames, fonts and layout settled: tests start here), data-mha-finished (the app ended, as a
// --bench-frames run does).
void announceFirstFrame();
void announceReady();
void announceFinished();
// A key the page would otherwise act on (Ctrl+S, Ctrl+O, Ctrl+E, F1 ...) stays in the app.
void keepAppKeys();
// The mouse wheel from the page, in notches, into the app's input queue.
void installWheel();

} // namespace app::web

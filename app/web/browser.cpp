// The page's side of the browser build (browser.h), in JavaScript the C++ calls (EM_JS) and
// C++ the JavaScript calls back (EMSCRIPTEN_KEEPALIVE). Strings cross as UTF-8.
#include "web/browser.h"

#include "platform/file_offer.h"
#include "platform/input_queue.h"
#include "session/shortcuts.h"

#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

namespace app::web {
namespace {

std::string& pasted() {
    static std::string text;
    return text;
}

std::function<void()>& persistReady() {
    static std::function<void()> callback;
    return callback;
}

// clang-format off
EM_JS(void, jsCopy, (const char* text), {
    const value = UTF8ToString(text);
    if (navigator.clipboard) navigator.clipboard.writeText(value).catch(() => {});
});

EM_JS(void, jsListenForPaste, (), {
    document.addEventListener('paste', (e) => {
        const text = e.clipboardData ? e.clipboardData.getData('text/plain') : "";
        Module.ccall('mha_web_pasted', null, ['string'], [text]);
    });
});

EM_JS(void, jsDownload, (const char* name, const char* data, int size, const char* mime), {
    const bytes = HEAPU8.slice(data, data + size); // a copy: the heap may grow meanwhile
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([bytes], {type: UTF8ToString(mime)}));
    link.download = UTF8ToString(name);
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10000);
});

// Files from the picker or a drop into /upload/<n>/ (folders kept as folders), then the app
// opens them: one file as itself, one folder as itself, several as the folder holding them.
EM_JS(void, jsInstallFiles, (), {
    Module.mhaUploads = 0;
    Module.mhaStore = async (entries) => {
        const folder = '/upload/' + (++Module.mhaUploads);
        FS.mkdirTree(folder);
        for (const entry of entries) {
            const full = folder + '/' + entry.path;
            FS.mkdirTree(full.substring(0, full.lastIndexOf('/')));
            FS.writeFile(full, new Uint8Array(await entry.file.arrayBuffer()));
        }
        const tops = new Set(entries.map((e) => e.path.split('/')[0]));
        const opened = tops.size === 1 ? folder + '/' + [...tops][0] : folder;
        Module.ccall('mha_web_open', null, ['string'], [opened]);
    };
    const walk = async (entry, prefix, out) => {
        if (entry.isFile) {
            const file = await new Promise((ok, fail) => entry.file(ok, fail));
            out.push({path: prefix + entry.name, file: file});
        } else if (entry.isDirectory) {
            const reader = entry.createReader();
            for (;;) {
                const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
                if (batch.length === 0) break;
                for (const child of batch) await walk(child, prefix + entry.name + '/', out);
            }
        }
    };
    const failed = (err) => console.error('mha-viz: the files were not read: ' + err);
    Module.canvas.addEventListener('dragover', (e) => e.preventDefault(), true);
    Module.canvas.addEventListener('drop', (e) => {
        e.preventDefault();
        e.stopPropagation();
        // Entries now: the drop's data is gone once this handler returns.
        const entries = Array.from(e.dataTransfer.items || [])
            .map((item) => item.webkitGetAsEntry ? item.webkitGetAsEntry() : null)
            .filter((entry) => entry);
        const files = Array.from(e.dataTransfer.files);
        (async () => {
            const out = [];
            for (const entry of entries) await walk(entry, "", out);
            if (entries.length === 0) for (const f of files) out.push({path: f.name, file: f});
            if (out.length) await Module.mhaStore(out);
        })().catch(failed);
    }, true);
    Module.mhaPick = () => {
        const input = document.createElement('input');
        input.type = 'file';
        input.multiple = true;
        input.style.display = 'none';
        input.addEventListener('change', () => {
            const out = Array.from(input.files).map((f) => ({path: f.name, file: f}));
            input.remove();
            if (out.length) Module.mhaStore(out).catch(failed);
        });
        input.addEventListener('cancel', () => input.remove());
        document.body.appendChild(input);
        input.click();
    };
});

EM_JS(void, jsPickFiles, (), { Module.mhaPick(); });

EM_JS(void, jsMountPersistent, (), {
    try { FS.mkdir('/persist'); } catch (e) {}
    FS.mount(IDBFS, {}, '/persist');
    FS.syncfs(true, (err) => {
        if (err) console.log('mha-viz: settings from an earlier visit not read: ' + err);
        Module.ccall('mha_web_persist_ready', null, [], []);
    });
});

// One write-back at a time; a flush asked for meanwhile runs after it. body[data-mha-kept] is
// the count of flushes asked for (Module.mhaFlushes) that are in the browser's storage.
EM_JS(void, jsFlushPersistent, (), {
    Module.mhaFlushes = (Module.mhaFlushes || 0) + 1;
    if (Module.mhaSyncing) {
        Module.mhaSyncAgain = true;
        return;
    }
    const run = () => {
        Module.mhaSyncing = true;
        Module.mhaSyncAgain = false;
        const covers = Module.mhaFlushes;
        FS.syncfs(false, (err) => {
            Module.mhaSyncing = false;
            if (err) console.log('mha-viz: settings not kept: ' + err);
            else document.body.setAttribute('data-mha-kept', String(covers));
            if (Module.mhaSyncAgain) run();
        });
    };
    run();
});

// Before the page goes away (closed, reloaded, hidden on a phone): what changed is written.
EM_JS(void, jsFlushOnLeave, (), {
    const flush = () => { Module.ccall('mha_web_leaving', null, [], []); };
    window.addEventListener('pagehide', flush);
    document.addEventListener('visibilitychange', () => {
        if (document.visibilityState === 'hidden') flush();
    });
});

// body[data-mha-WHAT] = the milliseconds since the page was asked for.
EM_JS(void, jsAnnounce, (const char* what), {
    const ms = Math.round(performance.now());
    document.body.setAttribute('data-mha-' + UTF8ToString(what), String(ms));
    console.log('mha-viz: ' + UTF8ToString(what) + ' at ' + ms + ' ms');
});

// Ctrl or Meta with S, O, E, T, Z, 0, +, - and the function keys are the app's, not the page's.
EM_JS(void, jsKeepAppKeys, (), {
    window.addEventListener('keydown', (e) => {
        const ctrl = e.ctrlKey || e.metaKey;
        const appKeys = ['s', 'o', 'e', 't', 'z', '0', '=', '+', '-'];
        if ((ctrl && appKeys.includes(e.key.toLowerCase())) || /^F[0-9]+$/.test(e.key))
            e.preventDefault();
    }, true);
});
// clang-format on

EM_BOOL onWheel(int, const EmscriptenWheelEvent* e, void*) {
    // Pixels, lines or pages into notches, up positive as GLFW's scroll callback has them.
    const double perNotch = e->deltaMode == DOM_DELTA_PIXEL  ? 100.0
                            : e->deltaMode == DOM_DELTA_LINE ? 3.0
                                                             : 1.0;
    queueScroll(-e->deltaX / perNotch, -e->deltaY / perNotch);
    return EM_TRUE;
}

} // namespace

CanvasSize fitCanvas() {
    CanvasSize size;
    double cssWidth = 0, cssHeight = 0;
    emscripten_get_element_css_size("#canvas", &cssWidth, &cssHeight);
    size.pixelRatio = float(emscripten_get_device_pixel_ratio());
    size.width = int(cssWidth * size.pixelRatio + 0.5);
    size.height = int(cssHeight * size.pixelRatio + 0.5);
    int width = 0, height = 0;
    emscripten_get_canvas_element_size("#canvas", &width, &height);
    if (width != size.width || height != size.height)
        emscripten_set_canvas_element_size("#canvas", size.width, size.height);
    return size;
}

void copyToClipboard(const std::string& text) {
    pasted() = text; // a paste inside the page gets it even without clipboard permission
    jsCopy(text.c_str());
}

const std::string& pastedText() {
    static bool listening = false;
    if (!std::exchange(listening, true)) jsListenForPaste();
    return pasted();
}

void download(const std::string& name, std::string_view bytes, const std::string& mime) {
    jsDownload(name.c_str(), bytes.data(), int(bytes.size()), mime.c_str());
}

void installFiles() {
    jsInstallFiles();
}

void mountPersistent(std::function<void()> ready) {
    persistReady() = std::move(ready);
    jsMountPersistent();
}

void flushPersistent() {
    jsFlushPersistent();
}

void flushWhenLeaving() {
    jsFlushOnLeave();
}

void announceFirstFrame() {
    jsAnnounce("first-frame");
}

void announceReady() {
    jsAnnounce("ready");
}

void announceFinished() {
    jsAnnounce("finished");
}

void keepAppKeys() {
    jsKeepAppKeys();
}

void installWheel() {
    emscripten_set_wheel_callback("#canvas", nullptr, EM_FALSE, onWheel);
}

} // namespace app::web

namespace app {

namespace {

std::string mimeOf(const std::filesystem::path& file) {
    const std::string ext = file.extension().string();
    if (ext == ".png") return "image/png";
    if (ext == ".svg") return "image/svg+xml";
    if (ext == ".csv") return "text/csv";
    if (ext == ".json") return "application/json";
    return "application/octet-stream";
}

// The file as a download, then out of the page's memory.
void offerFile(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    web::download(file.filename().string(), bytes, mimeOf(file));
    std::error_code ec;
    std::filesystem::remove(file, ec);
}

} // namespace

void offerFiles(const std::vector<std::string>& paths) {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const std::string& path : paths) {
        if (!fs::is_directory(path, ec)) {
            offerFile(path);
            continue;
        }
        std::vector<fs::path> files; // listed first: offering removes them
        for (const auto& entry : fs::recursive_directory_iterator(path, ec))
            if (entry.is_regular_file(ec)) files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) offerFile(file);
    }
    web::flushPersistent(); // the removals too
}

void keepFiles() {
    web::flushPersistent();
}

void pickFilesToOpen() {
    web::jsPickFiles();
}

} // namespace app

extern "C" {

EMSCRIPTEN_KEEPALIVE void mha_web_pasted(const char* text) {
    app::web::pasted() = text;
}

EMSCRIPTEN_KEEPALIVE void mha_web_open(const char* path) {
    app::dropPath(path);
}

EMSCRIPTEN_KEEPALIVE void mha_web_leaving() {
    app::web::flushPersistent();
}

EMSCRIPTEN_KEEPALIVE void mha_web_persist_ready() {
    if (auto& ready = app::web::persistReady()) ready();
}

} // extern "C"

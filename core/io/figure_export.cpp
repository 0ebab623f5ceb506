#include "io/figure_export.h"

#include "figures/figure.h"
#include "figures/image.h"
#include "io/atomic_file.h"
#include "io/trace_json.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <type_traits>

namespace core {

namespace fs = std::filesystem;

namespace {

// The first of "<dir>/<stem>", "<dir>/<stem>-2", -3, ... that is not `taken`.
template <class Taken>
std::string firstFreeStem(const std::string& dir, const std::string& stem, const Taken& taken) {
    for (int k = 1;; ++k) {
        std::string candidate = (fs::path(dir) / stem).string();
        if (k > 1)
            candidate.append("-").append(std::to_string(k)); // not "-" + ...: GCC 12 -Wrestrict
        if (!taken(candidate)) return candidate;
    }
}

} // namespace

std::string freeStem(const std::string& dir, const std::string& stem,
                     std::initializer_list<std::string> exts) {
    return firstFreeStem(dir, stem, [&](const std::string& candidate) {
        std::error_code ec;
        for (const std::string& ext : exts)
            if (fs::exists(candidate + ext, ec)) return true;
        return false;
    });
}

void prepareExportFolder(const std::string& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir, ec))
        throw std::runtime_error("cannot create the export folder '" + dir + "'" +
                                 (ec ? ": " + ec.message() : ""));
}

ExportError::ExportError(const std::string& what, std::vector<std::string> written)
    : std::runtime_error(what), written(std::move(written)) {}

std::string freePath(const std::string& dir, const std::string& stem, const std::string& ext) {
    return freeStem(dir, stem, {ext}) + ext;
}

namespace {

// A head name as a file name part: letters, digits and '-' only.
std::string slug(const std::string& name) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
    return out;
}

} // namespace

ExportFormats offeredFormats(ExportWhat what) {
    ExportFormats offered;
    offered.csv = what != ExportWhat::Grid; // a grid's cells are several heads' maps
    offered.json = true;
    return offered;
}

namespace {

// One figure's files: which of PNG, SVG, CSV it can be written as, and how.
struct FigureJob {
    std::string stem;
    std::function<std::string()> svg, csv;
    std::function<std::vector<std::uint8_t>(int scale)> png; // PNG bytes
};

std::string headStem(const Trace& trace, const std::string& prefix, int h) {
    char number[16];
    std::snprintf(number, sizeof number, "%02d", h + 1);
    const std::string& name = trace.headNames[std::size_t(h)];
    std::string stem = prefix + "-head-" + number;
    if (name != std::string("head ").append(std::to_string(h + 1)))
        stem.append("-").append(slug(name)); // a preset's name; plain "head N" adds nothing
    return stem;
}

// How a request names its files and titles: a scene's "mha-viz-head-03", or a model layer's
// "mha-viz-gpt2-L10-H11" titled "gpt2 · L10-H11".
struct Names {
    const Trace& trace;
    const ExportRequest& r;
    std::string prefix; // of every file of the sentence
    bool model() const { return !r.modelName.empty(); }
    // "gpt2" of "openai-community/gpt2".
    std::string shortModel() const { return r.modelName.substr(r.modelName.rfind('/') + 1); }
    // Appended: GCC 12 warns on "L" + string (-Wrestrict).
    std::string layer() const { return std::string("L").append(std::to_string(trace.layer + 1)); }
    std::string layerHead(int h) const { return layer() + "-H" + std::to_string(h + 1); }
    std::string stem(int h, const std::string& view = "") const {
        if (model()) return prefix + "-H" + std::to_string(h + 1) + view;
        return headStem(trace, view.empty() ? prefix : prefix + view, h);
    }
    // " · A → B" when a pair view hides part of the map: the title says which part it shows.
    std::string pairView() const {
        if (r.pairView == PairView::All || trace.pairStart <= 0) return "";
        return std::string(" \xC2\xB7 ").append(labelOf(r.pairView));
    }
    std::string headTitle(const std::string& title, int h) const {
        return (model() ? shortModel() + " \xC2\xB7 " + layerHead(h) : title) + pairView();
    }
    // A view of the whole layer: "gpt2 · L10 · mean over 12 heads".
    std::string viewTitle(const std::string& title) const {
        return (model() ? shortModel() + " \xC2\xB7 " + layer() + " \xC2\xB7 " + title : title) +
               pairView();
    }
};

Names namesFor(const Trace& trace, const ExportRequest& r, int b) {
    Names n{trace, r, trace.batch() > 1 ? "mha-viz-sentence-" + std::to_string(b + 1) : "mha-viz"};
    if (n.model()) n.prefix = "mha-viz-" + slug(n.shortModel()) + "-" + n.layer();
    return n;
}

// A head's figure titled as `names` says.
HeatmapFigure namedHead(const Names& names, int b, int h) {
    HeatmapFigure f = headFigure(names.trace, b, h, names.r.colormap, names.r.pairView);
    f.title = names.headTitle(f.title, h);
    return f;
}

FigureJob heatmapJob(std::string stem, HeatmapFigure figure, bool csv = true) {
    auto f = std::make_shared<const HeatmapFigure>(std::move(figure));
    FigureJob job{std::move(stem),
                  [f] { return heatmapSvg(*f); },
                  {},
                  [f](int scale) { return encodeHeatmapPng(*f, scale); }};
    if (csv) job.csv = [f] { return heatmapCsv(*f); };
    return job;
}

// The figure with its caption, or with its title alone when the request turns captions off.
// The caller's lines replace the scene's, the pair view's note kept.
template <class Figure>
Figure captioned(Figure figure, const ExportRequest& r) {
    if (!r.caption) {
        figure.captionLines.clear();
    } else if (!r.captionLines.empty()) { // the caller's own description, and which figure
        const bool pairNote = r.pairView != PairView::All &&
                              std::count(figure.captionLines.begin(), figure.captionLines.end(),
                                         pairViewNote(r.pairView)) > 0;
        figure.captionLines = r.captionLines;
        if constexpr (std::is_same_v<Figure, GridFigure>) {
            if (!figure.title.empty()) figure.captionLines.push_back(figure.title);
        } else {
            figure.captionLines.push_back(figure.title);
        }
        if (pairNote) figure.captionLines.push_back(pairViewNote(r.pairView));
    }
    return figure;
}

// The layer's heads side by side under one colour bar, titled as `names` says, shrunk to a
// slide's pixels at the request's scale unless it asks for full resolution.
GridFigure namedGrid(const Names& names, int b) {
    GridFigure grid = gridFigure(names.trace, b, names.r.colormap, names.r.pairView);
    for (int h = 0; h < int(grid.panels.size()); ++h)
        grid.panels[std::size_t(h)].title =
            names.model() ? names.layerHead(h) + names.pairView()
                          : names.headTitle(grid.panels[std::size_t(h)].title, h);
    if (names.model()) grid.title = names.viewTitle("every head");
    return grid;
}

FigureJob gridJob(std::string stem, GridFigure figure, const ExportRequest& r) {
    if (!r.fullResolution) fitGridToPixels(figure, r.scale, kSlidePixels);
    auto grid = std::make_shared<const GridFigure>(captioned(std::move(figure), r));
    return {std::move(stem),
            [grid] { return gridSvg(*grid); },
            {},
            [grid](int scale) { return encodeGridPng(*grid, fittingGridScale(*grid, scale)); }};
}

FigureJob differenceJob(const Names& names, int b, int head, int headB) {
    const ExportRequest& r = names.r;
    HeatmapFigure f = differenceFigure(names.trace, b, head, headB, r.pairView);
    if (names.model())
        f.title = names.shortModel() + " \xC2\xB7 " + names.layerHead(head) + " \xE2\x88\x92 " +
                  names.layerHead(headB) + names.pairView();
    else
        f.title += names.pairView();
    char stem[64];
    if (names.model())
        std::snprintf(stem, sizeof stem, "-difference-H%d-H%d", head + 1, headB + 1);
    else
        std::snprintf(stem, sizeof stem, "-difference-head-%02d-head-%02d", head + 1, headB + 1);
    return heatmapJob(names.prefix + stem, captioned(std::move(f), r));
}

FigureJob linesJob(const Names& names, int b, int head) {
    const ExportRequest& r = names.r;
    LineFigure line = lineFigure(names.trace, b, head, r.pairView);
    line.title = names.headTitle(line.title, head);
    auto lines = std::make_shared<const LineFigure>(captioned(std::move(line), r));
    const HeatmapFigure weights = headFigure(names.trace, b, head, r.colormap, r.pairView);
    return {names.stem(head, "-lines"), [lines] { return lineSvg(*lines); },
            [weights] { return heatmapCsv(weights); },
            [lines](int scale) { return encodePng(linePng(*lines, scale)); }};
}

std::vector<FigureJob> jobsFor(const Trace& trace, const ExportRequest& r, int b) {
    const Names names = namesFor(trace, r, b);
    const std::string& prefix = names.prefix;
    const int heads = trace.attention.heads;
    const int head = std::clamp(r.head, 0, heads - 1), headB = std::clamp(r.headB, 0, heads - 1);
    std::vector<FigureJob> jobs;
    switch (r.what) {
    case ExportWhat::Head:
        jobs.push_back(heatmapJob(names.stem(head), captioned(namedHead(names, b, head), r)));
        break;
    case ExportWhat::EachHead:
        for (int h = 0; h < heads; ++h)
            jobs.push_back(heatmapJob(names.stem(h), captioned(namedHead(names, b, h), r)));
        break;
    case ExportWhat::Grid:
        jobs.push_back(gridJob(prefix + "-grid", namedGrid(names, b), r));
        break;
    case ExportWhat::Mean: {
        HeatmapFigure mean = meanFigure(trace, b, r.colormap, r.pairView);
        mean.title = names.viewTitle(mean.title);
        jobs.push_back(heatmapJob(prefix + "-mean", captioned(std::move(mean), r)));
        break;
    }
    case ExportWhat::Difference:
        jobs.push_back(differenceJob(names, b, head, headB));
        break;
    case ExportWhat::Lines:
        jobs.push_back(linesJob(names, b, head));
        break;
    case ExportWhat::Statistics: {
        HeatmapFigure entropy = entropyFigure(trace, b, r.colormap);
        entropy.title = names.viewTitle(entropy.title);
        FigureJob job = heatmapJob(prefix + "-statistics", captioned(std::move(entropy), r), false);
        job.csv = [&trace, b] { return statisticsCsv(trace, b); };
        jobs.push_back(std::move(job));
        break;
    }
    }
    return jobs;
}

std::vector<int> sentencesOf(const Trace& trace, const ExportRequest& r) {
    if (r.batchIndex >= 0) return {std::clamp(r.batchIndex, 0, trace.batch() - 1)};
    std::vector<int> all(std::size_t(trace.batch()));
    for (int b = 0; b < trace.batch(); ++b) all[std::size_t(b)] = b;
    return all;
}

int filesPerJob(const ExportFormats& f) {
    return int(f.png) + int(f.svg) + int(f.csv);
}

// What the request asks for, of what its view offers.
ExportFormats formatsToWrite(const ExportRequest& r) {
    const ExportFormats offered = offeredFormats(r.what);
    return {r.formats.png && offered.png, r.formats.svg && offered.svg,
            r.formats.csv && offered.csv, r.formats.json && offered.json};
}

// One file of an export: its path, chosen before any file is written (so names never depend
// on which worker is faster), and how to write it.
struct FileTask {
    std::string stem, ext, path;
    std::function<void(const std::string& path)> write;
};

// The request's files in order: per sentence and figure SVG, PNG, CSV; the trace JSON last.
std::vector<FileTask> fileTasks(const Trace& trace, const ExportRequest& r) {
    std::vector<FileTask> tasks;
    if (trace.batch() == 0) return tasks;
    const ExportFormats formats = formatsToWrite(r);
    const int scale = r.scale;
    for (int b : sentencesOf(trace, r))
        for (FigureJob& job : jobsFor(trace, r, b)) {
            if (formats.svg && job.svg)
                tasks.push_back({job.stem, ".svg", {}, [svg = job.svg](const std::string& path) {
                                     writeFileAtomically(path, svg());
                                 }});
            if (formats.png && job.png)
                tasks.push_back(
                    {job.stem, ".png", {}, [png = job.png, scale](const std::string& path) {
                         writeFileAtomically(path, png(scale)); // drawn, encoded, written, freed
                     }});
            if (formats.csv && job.csv)
                tasks.push_back({job.stem, ".csv", {}, [csv = job.csv](const std::string& path) {
                                     writeFileAtomically(path, csv());
                                 }});
        }
    if (formats.json)
        tasks.push_back({"mha-viz-trace", ".json", {}, [&trace](const std::string& path) {
                             writeFileAtomically(path, traceJson(trace));
                         }});
    return tasks;
}

} // namespace

int exportFileCount(const Trace& trace, const ExportRequest& r) {
    return int(fileTasks(trace, r).size());
}

namespace {

// Refuses a request that cannot write anything, before any file is touched.
void checkRequest(const Trace& trace, const ExportRequest& r) {
    if (r.scale < 1 || r.scale > 4)
        throw ExportError("export scale " + std::to_string(r.scale) + " must be 1 to 4", {});
    if (trace.batch() == 0 || trace.attention.heads == 0)
        throw ExportError("nothing to export yet: type a sentence first", {});
    if (filesPerJob(r.formats) == 0 && !r.formats.json)
        throw ExportError("choose at least one format to export", {});
}

// Makes the folder and the tasks, and chooses each task's path: freePath's choice, also
// skipping the paths of this export's earlier files (not written yet when the workers start).
// A problem here is an ExportError with no file written.
template <class MakeTasks>
std::vector<FileTask> prepareTasks(const std::string& dir, const MakeTasks& makeTasks) {
    std::vector<FileTask> tasks;
    try {
        prepareExportFolder(dir);
        tasks = makeTasks();
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw ExportError(e.what(), {});
    }
    std::set<std::string> chosen;
    for (FileTask& task : tasks) {
        task.path = firstFreeStem(dir, task.stem,
                                  [&](const std::string& candidate) {
                                      std::error_code ec;
                                      return chosen.count(candidate + task.ext) > 0 ||
                                             fs::exists(candidate + task.ext, ec);
                                  }) +
                    task.ext;
        chosen.insert(task.path);
    }
    return tasks;
}

// Threads writing an export's files: one per core, at most 4. Each holds one figure's band and
// encoded bytes at a time, so memory grows with the workers, never with the head count.
int exportWorkers(int requested, std::size_t files) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const int workers = requested > 0 ? requested : int(std::min(cores, 4u));
    return int(std::clamp<std::size_t>(files, 1, std::size_t(workers)));
}

// What the workers share: each takes the next task in order until none is left or one failed.
struct ExportWorkers {
    ExportWorkers(std::vector<FileTask>& tasks, const ExportProgress& progress)
        : tasks(tasks), progress(progress), written(tasks.size(), 0), errors(tasks.size()) {}

    std::vector<FileTask>& tasks;
    const ExportProgress& progress;
    std::vector<char> written;              // per task: its file is in place
    std::vector<std::exception_ptr> errors; // per task
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::mutex progressMutex; // one progress call at a time, counts rising
    int done = 0;

    void work() {
        for (std::size_t i; !failed && (i = next++) < tasks.size();) {
            try {
                tasks[i].write(tasks[i].path);
                written[i] = 1;
                const std::lock_guard<std::mutex> lock(progressMutex);
                ++done;
                if (progress) progress(done, int(tasks.size()));
            } catch (...) {
                errors[i] = std::current_exception();
                failed = true; // the others finish the file they are on, and start no other
            }
        }
    }
};

// The first failure (in task order) as an ExportError with every file written, which stay.
[[noreturn]] void throwExportError(const std::exception_ptr& error,
                                   std::vector<std::string> written) {
    try {
        std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
        throw;                          // the caller says how to need less memory
    } catch (const std::exception& e) { // a file, the font, a figure
        throw ExportError(e.what(), std::move(written));
    }
}

// Writes every task's file on `workers` threads, this one included; the paths written, in
// task order.
std::vector<std::string> writeAll(std::vector<FileTask>& tasks, int workers,
                                  const ExportProgress& progress) {
    ExportWorkers state(tasks, progress);
    std::vector<std::thread> threads;
    try {
        for (int w = 1; w < exportWorkers(workers, tasks.size()); ++w)
            threads.emplace_back([&state] { state.work(); });
    } catch (const std::system_error&) { // no thread to be had: fewer workers
    }
    state.work();
    for (std::thread& thread : threads) thread.join();
    std::vector<std::string> files;
    for (std::size_t i = 0; i < tasks.size(); ++i)
        if (state.written[i]) files.push_back(tasks[i].path);
    for (const std::exception_ptr& error : state.errors)
        if (error) throwExportError(error, std::move(files));
    return files;
}

} // namespace

std::vector<std::string> exportView(const Trace& trace, const ExportRequest& r,
                                    const ExportProgress& progress) {
    checkRequest(trace, r);
    std::vector<FileTask> tasks = prepareTasks(r.dir, [&] { return fileTasks(trace, r); });
    return writeAll(tasks, r.workers, progress);
}

std::vector<std::string> exportFigures(const Trace& trace, const std::string& dir, int scale,
                                       ColormapId colormap, int workers, bool caption) {
    ExportRequest request;
    request.dir = dir, request.scale = scale, request.colormap = colormap;
    request.caption = caption, request.workers = workers;
    return exportFigures(trace, request, {});
}

std::vector<std::string> exportFigures(const Trace& trace, const ExportRequest& base,
                                       const ExportProgress& progress) {
    ExportRequest request = base;
    request.batchIndex = -1; // every sentence
    request.formats = {};
    checkRequest(trace, request);
    // One list for every view, so the workers keep busy across them.
    std::vector<FileTask> tasks = prepareTasks(request.dir, [&] {
        std::vector<FileTask> all;
        for (ExportWhat what :
             {ExportWhat::EachHead, ExportWhat::Grid, ExportWhat::Mean, ExportWhat::Statistics}) {
            request.what = what;
            request.formats.json = what == ExportWhat::Statistics && base.traceJson; // at the end
            for (FileTask& task : fileTasks(trace, request)) all.push_back(std::move(task));
        }
        return all;
    });
    return writeAll(tasks, request.workers, progress);
}

void writeCurveFigure(const CurveFigure& figure, const std::string& stem, int scale,
                      std::atomic<int>* done) {
    writeFileAtomically(stem + ".svg", curveSvg(figure));
    if (done) ++*done;
    writePng(stem + ".png", curvePng(figure, scale));
    if (done) ++*done;
}

void writeCurveFile(const std::string& path, const CurveFigure& figure, int scale) {
    if (path.ends_with(".svg"))
        writeFileAtomically(path, curveSvg(figure));
    else
        writePng(path, curvePng(figure, scale));
}

void writeGridPng(const std::string& path, const GridFigure& grid, int scale) {
    writeFileAtomically(path, encodeGridPng(grid, fittingGridScale(grid, scale)));
}

} // namespace core

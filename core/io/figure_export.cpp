#include "io/figure_export.h"

#include "figures/figure.h"
#include "figures/image.h"
#include "io/atomic_file.h"
#include "io/trace_json.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <new>
#include <stdexcept>

namespace core {

namespace fs = std::filesystem;

std::string freeStem(const std::string& dir, const std::string& stem,
                     std::initializer_list<std::string> exts) {
    for (int k = 1;; ++k) {
        std::string candidate = (fs::path(dir) / stem).string();
        if (k > 1)
            candidate.append("-").append(std::to_string(k)); // not "-" + ...: GCC 12 -Wrestrict
        std::error_code ec;
        bool free = true;
        for (const std::string& ext : exts) free = free && !fs::exists(candidate + ext, ec);
        if (free) return candidate;
    }
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

FigureJob heatmapJob(std::string stem, HeatmapFigure figure, bool csv = true) {
    auto f = std::make_shared<const HeatmapFigure>(std::move(figure));
    FigureJob job{std::move(stem),
                  [f] { return heatmapSvg(*f); },
                  {},
                  [f](int scale) { return encodeHeatmapPng(*f, scale); }};
    if (csv) job.csv = [f] { return heatmapCsv(*f); };
    return job;
}

std::vector<FigureJob> jobsFor(const Trace& trace, const ExportRequest& r, int b) {
    const std::string prefix =
        trace.batch() > 1 ? "mha-viz-sentence-" + std::to_string(b + 1) : "mha-viz";
    const int heads = trace.attention.heads;
    const int head = std::clamp(r.head, 0, heads - 1), headB = std::clamp(r.headB, 0, heads - 1);
    std::vector<FigureJob> jobs;
    switch (r.what) {
    case ExportWhat::Head:
        jobs.push_back(
            heatmapJob(headStem(trace, prefix, head), headFigure(trace, b, head, r.colormap)));
        break;
    case ExportWhat::EachHead:
        for (int h = 0; h < heads; ++h)
            jobs.push_back(
                heatmapJob(headStem(trace, prefix, h), headFigure(trace, b, h, r.colormap)));
        break;
    case ExportWhat::Grid: {
        auto grid = std::make_shared<const GridFigure>(gridFigure(trace, b, r.colormap));
        jobs.push_back({prefix + "-grid",
                        [grid] { return gridSvg(*grid); },
                        {},
                        [grid](int scale) { return encodeGridPng(*grid, scale); }});
        break;
    }
    case ExportWhat::Mean:
        jobs.push_back(heatmapJob(prefix + "-mean", meanFigure(trace, b, r.colormap)));
        break;
    case ExportWhat::Difference: {
        char stem[64];
        std::snprintf(stem, sizeof stem, "-difference-head-%02d-head-%02d", head + 1, headB + 1);
        jobs.push_back(heatmapJob(prefix + stem, differenceFigure(trace, b, head, headB)));
        break;
    }
    case ExportWhat::Lines: {
        auto lines = std::make_shared<const LineFigure>(lineFigure(trace, b, head));
        const HeatmapFigure weights = headFigure(trace, b, head, r.colormap);
        jobs.push_back({headStem(trace, prefix + "-lines", head),
                        [lines] { return lineSvg(*lines); },
                        [weights] { return heatmapCsv(weights); },
                        [lines](int scale) { return encodePng(linePng(*lines, scale)); }});
        break;
    }
    case ExportWhat::Statistics: {
        FigureJob job =
            heatmapJob(prefix + "-statistics", entropyFigure(trace, b, r.colormap), false);
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

} // namespace

int exportFileCount(const Trace& trace, const ExportRequest& r) {
    if (trace.batch() == 0) return 0;
    const ExportFormats formats = formatsToWrite(r);
    int count = 0;
    for (int b : sentencesOf(trace, r))
        for (const FigureJob& job : jobsFor(trace, r, b))
            count += int(formats.png && job.png) + int(formats.svg && job.svg) +
                     int(formats.csv && job.csv);
    return count + int(formats.json);
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

// Every file of the request, in order; `files` grows as they are written.
void writeFiles(const Trace& trace, const ExportRequest& r, const ExportProgress& progress,
                std::vector<std::string>& files) {
    prepareExportFolder(r.dir);
    const ExportFormats formats = formatsToWrite(r);
    const int total = exportFileCount(trace, r);
    auto write = [&](const std::string& stem, const std::string& ext, std::string_view contents) {
        const std::string path = freePath(r.dir, stem, ext);
        writeFileAtomically(path, contents);
        files.push_back(path);
        if (progress) progress(int(files.size()), total);
    };
    for (int b : sentencesOf(trace, r))
        for (const FigureJob& job : jobsFor(trace, r, b)) {
            if (formats.svg && job.svg) write(job.stem, ".svg", job.svg());
            if (formats.png && job.png) {
                const std::vector<std::uint8_t> png = job.png(r.scale);
                write(job.stem, ".png",
                      std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
            }
            if (formats.csv && job.csv) write(job.stem, ".csv", job.csv());
        }
    if (formats.json) write("mha-viz-trace", ".json", traceJson(trace));
}

} // namespace

std::vector<std::string> exportView(const Trace& trace, const ExportRequest& r,
                                    const ExportProgress& progress) {
    checkRequest(trace, r);
    std::vector<std::string> files;
    try {
        writeFiles(trace, r, progress, files);
    } catch (const ExportError&) {
        throw;
    } catch (const std::bad_alloc&) {
        throw;                          // the caller says how to need less memory
    } catch (const std::exception& e) { // a file, the font, a figure: keep what was written
        throw ExportError(e.what(), std::move(files));
    }
    return files;
}

std::vector<std::string> exportFigures(const Trace& trace, const std::string& dir, int scale,
                                       ColormapId colormap) {
    std::vector<std::string> all;
    ExportRequest request;
    request.dir = dir, request.scale = scale, request.colormap = colormap;
    request.batchIndex = -1; // every sentence
    for (ExportWhat what :
         {ExportWhat::EachHead, ExportWhat::Grid, ExportWhat::Mean, ExportWhat::Statistics}) {
        request.what = what;
        request.formats.json = what == ExportWhat::Statistics; // once, at the end
        try {
            const std::vector<std::string> part = exportView(trace, request);
            all.insert(all.end(), part.begin(), part.end());
        } catch (ExportError& e) {
            all.insert(all.end(), e.written.begin(), e.written.end());
            throw ExportError(e.what(), std::move(all));
        }
    }
    return all;
}

} // namespace core

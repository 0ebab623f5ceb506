#include "figure_export.h"

#include "atomic_file.h"
#include "figure.h"
#include "image.h"
#include "trace_json.h"

#include <cctype>
#include <cstdio>
#include <filesystem>

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

ExportResult exportFigures(const Trace& trace, const std::string& dir, int scale) {
    ExportResult result;
    if (scale < 1 || scale > 4) {
        result.error = "export scale " + std::to_string(scale) + " must be 1 to 4";
        return result;
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        result.error =
            "cannot create the export folder '" + dir + "'" + (ec ? ": " + ec.message() : "");
        return result;
    }
    auto write = [&](const std::string& stem, const std::string& ext, std::string_view contents) {
        if (!result.error.empty()) return;
        const std::string path = freePath(dir, stem, ext);
        result.error = writeFileAtomically(path, contents);
        if (result.error.empty()) result.files.push_back(path);
    };
    auto writePngFile = [&](const std::string& stem, const Image& image,
                            const std::string& pngError) {
        if (!result.error.empty()) return;
        if (!pngError.empty()) {
            result.error = pngError;
            return;
        }
        const std::vector<std::uint8_t> png = encodePng(image);
        write(stem, ".png",
              std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
    };

    for (int b = 0; b < trace.batch(); ++b) {
        const std::string prefix =
            trace.batch() > 1 ? "mha-viz-sentence-" + std::to_string(b + 1) : "mha-viz";
        for (int h = 0; h < trace.attention.heads; ++h) {
            char number[16];
            std::snprintf(number, sizeof number, "%02d", h + 1);
            const std::string& name = trace.headNames[std::size_t(h)];
            std::string stem = prefix + "-head-" + number;
            if (name != std::string("head ").append(std::to_string(h + 1)))
                stem.append("-").append(slug(name)); // a preset's name; plain "head N" adds nothing
            const HeatmapFigure figure = headFigure(trace, b, h);
            write(stem, ".svg", heatmapSvg(figure));
            std::string pngError;
            const Image image = heatmapPng(figure, scale, pngError);
            writePngFile(stem, image, pngError);
            write(stem, ".csv", heatmapCsv(figure));
        }
        const GridFigure grid = gridFigure(trace, b);
        write(prefix + "-grid", ".svg", gridSvg(grid));
        std::string pngError;
        const Image image = gridPng(grid, scale, pngError);
        writePngFile(prefix + "-grid", image, pngError);
    }
    write("mha-viz-trace", ".json", traceJson(trace));
    return result;
}

} // namespace core

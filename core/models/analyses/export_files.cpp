// The files a whole model's export writes (export_files.h).
#include "models/analyses/export_files.h"

#include "io/atomic_file.h"

#include <cctype>
#include <cstdio>

namespace core::models {

void ModelFiles::done(const std::string& path) {
    written.push_back(path);
    if (progress) progress(int(written.size()), total);
}

void ModelFiles::text(const std::string& stem, const std::string& ext,
                      const std::string& contents) {
    const std::string path = freePath(dir, stem, ext);
    writeFileAtomically(path, contents);
    done(path);
}

void ModelFiles::figure(const std::string& stem, const HeatmapFigure& figure, int scale, bool csv) {
    const std::string base = freeStem(dir, stem, {".svg", ".png", ".csv"});
    writeFileAtomically(base + ".svg", heatmapSvg(figure));
    done(base + ".svg");
    writeFileAtomically(base + ".png", encodeHeatmapPng(figure, scale));
    done(base + ".png");
    if (!csv) return;
    writeFileAtomically(base + ".csv", heatmapCsv(figure));
    done(base + ".csv");
}

void ModelFiles::grid(const std::string& stem, GridFigure grid, int scale, bool fullResolution) {
    if (!fullResolution) fitGridToPixels(grid, scale, kSlidePixels);
    const std::string base = freeStem(dir, stem, {".svg", ".png"});
    writeFileAtomically(base + ".svg", gridSvg(grid));
    done(base + ".svg");
    writeGridPng(base + ".png", grid, scale); // lowers the scale if it would not open
    done(base + ".png");
}

int layerFileCount(const Trace& layer, bool traceJson) {
    ExportRequest request;
    request.batchIndex = -1;
    int files = 0;
    for (ExportWhat what :
         {ExportWhat::EachHead, ExportWhat::Grid, ExportWhat::Mean, ExportWhat::Statistics}) {
        request.what = what;
        request.formats.json = what == ExportWhat::Statistics && traceJson;
        files += exportFileCount(layer, request);
    }
    return files;
}

HeatmapFigure captioned(HeatmapFigure figure, const std::vector<std::string>& lines, bool caption) {
    std::vector<std::string> all = caption ? lines : std::vector<std::string>{};
    if (caption) all.insert(all.end(), figure.captionLines.begin(), figure.captionLines.end());
    figure.captionLines = std::move(all);
    return figure;
}

std::string fileNamePart(const std::string& name) {
    std::string out;
    for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '-';
    return out;
}

void exportLayerFolders(const LayerFolders& folders, const ExportRequest& base, ModelFiles& files) {
    for (int l = 0; l < folders.layers; ++l) {
        char stem[64];
        std::snprintf(stem, sizeof stem, "%s-%02d", folders.stem.c_str(), l + 1);
        ExportRequest request = base;
        request.dir = freeStem(files.dir, stem, {""}); // a folder of an earlier export: -2
        request.modelName = folders.modelName;
        request.captionLines = folders.captionLines;
        request.captionLines.push_back("layer " + std::to_string(l + 1) + " of " +
                                       std::to_string(folders.layers));
        const int before = int(files.written.size());
        std::vector<std::string> layerFiles;
        try {
            const std::shared_ptr<const Trace> layer = folders.layerAt(l);
            layerFiles = exportFigures(*layer, request, [&](int done, int) {
                if (files.progress) files.progress(before + done, files.total);
            });
        } catch (const ExportError& e) { // with the files written so far, every layer's
            files.written.insert(files.written.end(), e.written.begin(), e.written.end());
            throw ExportError(e.what(), files.written);
        }
        files.written.insert(files.written.end(), layerFiles.begin(), layerFiles.end());
    }
}

ExportRequest layerRequest(const RealExportOptions& options) {
    ExportRequest request;
    request.scale = options.scale, request.colormap = options.colormap;
    request.caption = options.caption, request.fullResolution = options.fullResolution;
    request.traceJson = options.traces == ExportTraces::Full;
    return request;
}

} // namespace core::models

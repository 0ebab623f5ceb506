// The Session's side of the A-B tab across two models: model B opened off the frame thread,
// its comparison kept in step with the trace shown, the tab's state filled each frame, and the
// tab's export (docs/real-models.md, "Comparing two models").
#include "session/session.h"

#include "figures/figure.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "models/analyses/real_model_figures.h"
#include "models/formats/model_folder.h"
#include "platform/file_offer.h"

#include <imgui.h>

#include <filesystem>
#include <iostream>

namespace app {

void Session::openComparison(const std::string& dirOrName) {
    if (!model_.runner.isReal()) return; // B is compared with an open checkpoint
    if (model_.comparison.loading()) {
        showNotice("Still opening " + model_.comparison.loadingName() + " as model B; " +
                       dirOrName + " was not opened",
                   4.0);
        return;
    }
    try {
        core::models::locateModel(dirOrName); // a mistyped path is refused now, in one line
        model_.comparison.open(dirOrName);
    } catch (const std::exception& e) {
        showNotice(std::string("Model B not opened: ") + e.what(), 6.0);
        explorer_.openModel.focusPath = explorer_.openModel.open;
        std::cerr << "mha-viz: " << window_.notice.text << '\n';
        return;
    }
    explorer_.openModel.loading = dirOrName;
    showNotice("Opening " + dirOrName + " as model B ...", 60.0);
}

namespace {

// Model B as the tab names it: "NAME (its weights)".
std::string namedWithWeights(const core::models::RealModel& model) {
    return core::models::modelDisplayName(model.location) + " (" + model.net->weightTypes() + ")";
}

} // namespace

void Session::followComparison() {
    ComparisonRunner& runner = model_.comparison;
    ComparisonTabState& tab = explorer_.comparison;
    const bool real = model_.runner.isReal();
    if (const auto loaded = runner.takeLoaded(real ? &model_.runner.realModel() : nullptr)) {
        explorer_.openModel.loading.clear();
        if (loaded->empty()) {
            showNotice("Comparing with " + core::models::modelDisplayName(runner.model().location) +
                           ": the A\xE2\x88\x92"
                           "B tab shows what moved",
                       4.0);
            explorer_.openModel.open = false; // the dialog did its job
            tab.acrossModels = true;
            explorer_.saved.tab = core::ViewTab::Difference;
        } else {
            showNotice("Model B not opened: " + *loaded, 6.0);
            explorer_.openModel.focusPath = explorer_.openModel.open;
            std::cerr << "mha-viz: " << window_.notice.text << '\n';
        }
    }
    tab.available = real;
    tab.loading = runner.loadingName();
    const auto& traceA = model_.runner.realTrace();
    if (real) runner.update(model_.runner.realModelShared(), traceA);
    tab.nameA = real ? namedWithWeights(model_.runner.realModel()) : std::string();
    tab.nameB = runner.hasModel() ? namedWithWeights(runner.model()) : std::string();
    tab.summaryB = runner.hasModel() ? core::models::modelSummary(runner.model()) : std::string();
    tab.error = runner.error();
    tab.computing = runner.computing();
    const auto& result = runner.result();
    tab.result = real && traceA && result && sameRun(*traceA, *result->traceA)
                     ? result
                     : std::shared_ptr<const ModelComparison>();
    // B's layer of the one A's maps show (made on a worker when not kept), only while shown.
    const bool shown = tab.acrossModels && explorer_.saved.tab == core::ViewTab::Difference;
    tab.layerB = tab.result && shown && model_.shownLayer >= 0
                     ? runner.layerOfB(model_.shownLayer)
                     : std::shared_ptr<const core::Trace>();
    const core::Attention &a = trace_->attention,
                          *b = tab.layerB ? &tab.layerB->attention : nullptr;
    if (b && (b->heads != a.heads || b->queryLen != a.queryLen || b->keyLen != a.keyLen))
        tab.layerB.reset(); // the maps shown are not yet of this run (the next frame's are)
}

void Session::exportComparison() {
    const ComparisonTabState& tab = explorer_.comparison;
    if (!tab.result) return;
    const ModelComparison& c = *tab.result;
    try {
        core::models::ComparisonExport options;
        options.colormap = explorer_.saved.colormap;
        options.scale = explorer_.exportPanel.scale;
        std::vector<std::string> files = core::models::exportComparison(
            exportDir_, *c.modelA, *c.modelB, *c.traceA, c.heads, options);
        if (tab.layerB) { // the head shown, A - B
            const int layer = model_.shownLayer, head = explorer_.saved.selectedHead;
            core::HeatmapFigure f = core::modelDifferenceFigure(
                *trace_, *tab.layerB, explorer_.selection.batchIndex, head,
                core::models::modelDisplayName(c.modelA->location),
                core::models::modelDisplayName(c.modelB->location), shownPairView());
            std::vector<std::string> caption = core::models::realModelCaption(*c.modelA, *c.traceA);
            caption.push_back("layer " + std::to_string(layer + 1) + " of " +
                              std::to_string(explorer_.model.layers));
            f.captionLines.insert(f.captionLines.begin(), caption.begin(), caption.end());
            const std::string stem = core::freeStem(exportDir_,
                                                    std::string("compare-L")
                                                        .append(std::to_string(layer + 1))
                                                        .append("-H")
                                                        .append(std::to_string(head + 1)),
                                                    {".svg", ".png"});
            core::writeFileAtomically(stem + ".svg", core::heatmapSvg(f));
            core::writeFileAtomically(stem + ".png", core::encodeHeatmapPng(f, options.scale));
            files.push_back(stem + ".svg"), files.push_back(stem + ".png");
        }
        offerFiles(files);
        showNotice("Wrote " + std::to_string(files.size()) + " files to " + exportDir_ + ": " +
                       std::filesystem::path(files.front()).filename().string() + " ...",
                   5.0);
    } catch (const std::exception& e) {
        showNotice(std::string("Not written: ") + e.what(), 6.0);
    }
}

} // namespace app

// The Session's encoder-decoder exports: the alignment view's figure, and every view of the
// trace shown (core::models::exportSeq2Seq) into a new folder, both on a worker with the notice
// turning; what they wrote is offered as downloads in the browser.
#include "platform/background_task.h"
#include "session/session.h"

#include "io/atomic_file.h"
#include "models/analyses/seq2seq_figures.h"
#include "models/analyses/seq2seq_stacks.h"
#include "platform/file_offer.h"

#include <imgui.h>

#include <filesystem>
#include <iostream>

namespace app {

namespace {

// The trace as the view shows it: the scrubber's first tokens, or all.
core::models::Seq2SeqTrace shownTrace(const ModelRunner& runner) {
    const core::models::Seq2SeqTrace& whole = *runner.seq2seqTrace();
    return runner.writtenShown() < 0
               ? whole
               : core::models::firstTargetTokens(whole, runner.writtenShown());
}

} // namespace

void Session::exportAlignment() {
    if (!model_.runner.isSeq2Seq() || !model_.runner.seq2seqTrace()) return;
    const ModelView& view = explorer_.model;
    const int layer = view.alignment == ModelChoices::Alignment::EveryLayer ? -1 : view.layer;
    const int head =
        view.alignment == ModelChoices::Alignment::Head ? explorer_.saved.selectedHead : -1;
    core::models::Seq2SeqExportOptions options;
    options.scale = 2; // slides: twice the screen's resolution
    options.colormap = explorer_.saved.colormap;
    try {
        const std::vector<std::string> written =
            core::models::exportAlignment(exportDir_, model_.runner.seq2seqModel(),
                                          shownTrace(model_.runner), layer, head, options);
        offerFiles(written);
        showNotice(kFilesAreDownloads
                       ? "Downloaded " + std::filesystem::path(written.front()).filename().string()
                       : "Wrote " + written.front() + " and .png",
                   5.0);
    } catch (const std::exception& e) {
        showNotice(std::string("Not written: ") + e.what(), 6.0);
    }
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
}

void Session::exportSeq2SeqViews() {
    if (!model_.runner.seq2seqTrace()) return;
    if (model_.exportingSeq2Seq.valid()) {
        showNotice("An export is still being written; try again when it is done");
        return;
    }
    const std::string dir = core::freeStem(exportDir_, "mha-viz-model", {""});
    core::models::Seq2SeqExportOptions options;
    options.colormap = explorer_.saved.colormap;
    // Off the frame thread: every layer of each kind is a grid to draw (t5-base: 36 of them).
    model_.exportingSeq2Seq = startTask(
        [model = model_.runner.seq2seqShared(), trace = shownTrace(model_.runner), dir, options] {
            SeqExport done;
            try {
                done.written = core::models::exportSeq2Seq(dir, *model, trace, options);
            } catch (const std::exception& e) {
                done.error = e.what();
            }
            done.dir = dir;
            return done;
        });
    showNotice("Writing every figure into " + dir + " ...", 60.0);
}

void Session::followSeq2SeqExport() {
    if (!model_.exportingSeq2Seq.valid() || !taskReady(model_.exportingSeq2Seq)) return;
    const SeqExport done = model_.exportingSeq2Seq.get();
    if (done.error.empty()) {
        offerFiles(done.written);
        showNotice("Wrote " + std::to_string(done.written.size()) + " files into " + done.dir, 5.0);
    } else {
        showNotice("Not written: " + done.error, 6.0);
    }
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
}

} // namespace app

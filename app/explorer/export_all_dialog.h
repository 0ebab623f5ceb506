// What the "Export all" question holds (panel_export_all.cpp draws it): the model and trace (or
// the attention file) to write, the folder, the choices and the estimate of the files they make.
#pragma once

#include "models/analyses/real_model_export_estimate.h"
#include "models/analyses/saved_attention.h"

#include <memory>
#include <string>
#include <vector>

namespace app {

struct ExportAllDialog {
    bool requested = false; // opens on the next frame
    std::string dir;        // the new folder it writes into
    std::shared_ptr<const core::models::RealModel> model;
    std::shared_ptr<const core::models::RealTrace> trace;
    // Or an attention file (model and trace null): its own views, made when it was read.
    std::shared_ptr<const core::models::SavedAttention> saved;
    std::vector<core::models::HeadDetectorScores> detectors;
    core::models::RealExportOptions options; // figures only unless chosen
    // The estimate of `estimated`'s files, made again when a choice changes.
    core::models::ExportEstimate estimate;
    core::models::RealExportOptions estimated;
    bool hasEstimate = false;
    bool isOpen = false; // shown now (for the state file)
};

} // namespace app

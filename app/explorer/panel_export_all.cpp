// A real model's "Export all" asks before it writes (issue 36: 14 tokens of GPT-2 small were 558
// files and 700 MB without a word): the folder, how many files and about how many bytes, and the
// choices that change them. Write starts the export panel's job; Esc or Cancel leaves it.
#include "explorer/panels.h"

#include "models/analyses/saved_attention_export.h"

#include <imgui.h>

#include <utility>

namespace app {

namespace {

constexpr const char* kPopup = "Export all###export-all";

bool sameChoices(const core::models::RealExportOptions& a,
                 const core::models::RealExportOptions& b) {
    return a.scale == b.scale && a.traces == b.traces && a.fullResolution == b.fullResolution &&
           a.caption == b.caption && a.colormap == b.colormap;
}

// The estimate of the current choices: a first layer drawn and counted (a moment for GPT-2
// small), so only when a choice changed.
void updateEstimate(ExportAllDialog& d) {
    if (d.hasEstimate && sameChoices(d.estimated, d.options)) return;
    if (d.saved) { // the files counted; no bytes guessed: the maps are the file's own
        d.estimate = {core::models::savedAttentionExportFileCount(*d.saved, d.options), 0};
        d.estimated = d.options;
        d.hasEstimate = true;
        return;
    }
    try {
        d.estimate =
            core::models::estimateRealModelExport(*d.model, *d.trace, d.detectors, d.options);
    } catch (const std::exception&) { // no font, say: the count alone
        d.estimate = {core::models::realModelExportFileCount(*d.trace, d.detectors, d.options), 0};
    }
    d.estimated = d.options;
    d.hasEstimate = true;
}

// The radio choices, the PNG scale and full resolution.
void choices(ExportAllDialog& d) {
    for (const auto& entry : core::namesOf<core::models::ExportTraces>()) {
        // An attention file has no weights or activations to add: full is the model's.
        if (d.saved && entry.value == core::models::ExportTraces::Full) continue;
        if (ImGui::RadioButton(std::string(entry.shown()).c_str(), d.options.traces == entry.value))
            d.options.traces = entry.value;
    }
    itemTooltip("Full traces hold every layer's weights and activations: tens of MB a layer "
                "for GPT-2 small. The attention-only JSON has the tokens, predictions and every "
                "head's weights.");
    ImGui::TextDisabled("PNG scale");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    ImGui::SliderInt("##all-scale", &d.options.scale, 1, 4, "%dx");
    ImGui::Checkbox("Full-resolution grids", &d.options.fullResolution);
    itemTooltip("Off: the grids of every head shrink their cells to at most 25 megapixels at "
                "this scale, what a slide takes. On: every cell at full size (large files).");
}

void startExportAll(ExportPanel& panel, Notice& notice) {
    ExportAllDialog& d = panel.exportAll;
    auto work = [model = d.model, trace = d.trace, saved = d.saved, detectors = d.detectors,
                 dir = d.dir, options = d.options](const core::ExportProgress& progress) {
        if (saved) return core::models::exportSavedAttention(*saved, dir, options, progress);
        return core::models::exportRealModel(*model, *trace, detectors, dir, options, progress);
    };
    panel.lastFiles.clear();
    panel.lastError.clear();
    panel.jobFolder = d.dir;
    panel.jobStart = ImGui::GetTime();
    panel.job = std::make_unique<ExportJob>(std::move(work), d.estimate.files);
    notice.show(std::string("Exporting every view of the ") + (d.saved ? "file" : "model") +
                    " into " + d.dir + " ...",
                ImGui::GetTime(), 3.0);
}

} // namespace

void openExportAll(ExportPanel& panel, ExportAllDialog dialog) {
    dialog.options.scale = panel.scale;
    dialog.options.caption = panel.caption;
    dialog.requested = true;
    panel.exportAll = std::move(dialog);
}

void drawExportAllDialog(ExportPanel& panel, Notice& notice) {
    ExportAllDialog& d = panel.exportAll;
    if (std::exchange(d.requested, false)) ImGui::OpenPopup(kPopup);
    d.isOpen = (d.model || d.saved) && ImGui::BeginPopupModal(kPopup, nullptr,
                                                              ImGuiWindowFlags_AlwaysAutoResize |
                                                                  ImGuiWindowFlags_NoSavedSettings);
    if (!d.isOpen) { // Esc closed it, or it was never opened: nothing held
        d.model.reset(), d.trace.reset(), d.saved.reset(), d.detectors.clear();
        return;
    }
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30);
    if (d.saved)
        ImGui::TextWrapped("Every view of the %s into a new folder:",
                           core::models::savedAttentionTitle(*d.saved).c_str());
    else
        ImGui::TextWrapped("Every view of %s on this sentence into a new folder:",
                           core::models::modelDisplayName(d.model->location).c_str());
    ImGui::TextUnformatted(d.dir.c_str());
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    choices(d);
    updateEstimate(d);
    ImGui::Spacing();
    const std::string size =
        d.estimate.bytes > 0 ? ", " + core::models::aboutBytes(d.estimate.bytes) : std::string();
    ImGui::Text("%d files%s", d.estimate.files, size.c_str());
    const float button = ImGui::GetFontSize() * 6;
    const bool enter = ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false) ||
                       ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter), false);
    const bool write = ImGui::Button("Write", ImVec2(button, 0)) || enter;
    ImGui::SameLine();
    if (write) {
        startExportAll(panel, notice);
        ImGui::CloseCurrentPopup();
    } else if (ImGui::Button("Cancel", ImVec2(button, 0))) {
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

} // namespace app

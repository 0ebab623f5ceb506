// Ctrl+Shift+E: the export panel. What (a head, the grid, every head, the mean, a difference,
// the line view, the statistics, the whole window), which formats, the PNG scale and the
// folder; the export runs on a worker thread with a progress bar, then lists what it wrote.
#include "explorer/panels.h"
#include "platform/appearance.h" // errorColor
#include "platform/file_offer.h"
#include "widgets/text_field.h"

#include <cstdio>
#include <iostream>
#include <utility>

namespace app {

namespace {

struct Choice {
    ExportChoice what;
    const char* label;
};

constexpr Choice kChoices[] = {
    {ExportChoice::Head, "Selected head"},
    {ExportChoice::Grid, "All heads as a grid"},
    {ExportChoice::EachHead, "All heads, one file each"},
    {ExportChoice::Mean, "Mean over heads"},
    {ExportChoice::Difference, "Difference of two heads"},
    {ExportChoice::Lines, "Line view of the selected head"},
    {ExportChoice::Statistics, "Head statistics (entropy, argmax)"},
    {ExportChoice::Window, "The whole window (screenshot)"},
};

void finish(ExportPanel& panel, Notice& notice, std::vector<std::string> files, std::string error) {
    offerFiles(files);
    panel.lastFiles = std::move(files);
    panel.lastError = std::move(error);
    // "Export all" spreads its files over layer folders: the notice names the folder of them all.
    panel.lastFolder = std::exchange(panel.jobFolder, "");
    // One line across the window, as the notice shows it.
    const float room = ImGui::GetIO().DisplaySize.x - ImGui::GetFontSize() * 3;
    const auto fits = [room](const std::string& line) {
        return ImGui::CalcTextSize(line.c_str()).x <= room;
    };
    const std::string message = !panel.lastError.empty() ? "Export failed: " + panel.lastError
                                : panel.lastFolder.empty()
                                    ? savedMessage(panel.lastFiles, fits)
                                    : "Saved " + std::to_string(panel.lastFiles.size()) +
                                          " files in " + panel.lastFolder + "/";
    notice.show(message, ImGui::GetTime(), 5.0);
    std::cerr << "mha-viz: " << message << '\n';
}

void startExport(const std::shared_ptr<const core::Trace>& trace, ExportPanel& panel,
                 const ExportTarget& target, Notice& notice) {
    panel.lastFiles.clear();
    panel.lastError.clear();
    if (panel.folder.empty()) {
        finish(panel, notice, {}, "choose a folder to export into");
        return;
    }
    if (panel.what == ExportChoice::Window) {
        panel.captureCountdown = 2; // the next frame is drawn without this panel, then captured
        return;
    }
    const core::ExportFormats offered = offeredFormats(panel.what);
    core::ExportRequest request;
    request.what = coreExportWhat(panel.what);
    request.formats = {panel.formats.png && offered.png, panel.formats.svg && offered.svg,
                       panel.formats.csv && offered.csv, panel.formats.json};
    request.scale = panel.scale;
    request.dir = panel.folder;
    request.batchIndex = target.batchIndex;
    request.head = target.head;
    request.headB = target.headB;
    request.colormap = target.colormap;
    request.caption = panel.caption;
    request.captionLines = target.captionLines;
    request.pairView = target.pairView;
    request.modelName = target.modelName;
    panel.jobStart = ImGui::GetTime();
    panel.job = std::make_unique<ExportJob>(trace, request);
}

} // namespace

void openExportPanel(ExportPanel& panel, ExportChoice what) {
    panel.open = true;
    panel.what = what;
}

void finishWindowCapture(ExportPanel& panel, Notice& notice, const std::string& path,
                         const std::string& error) {
    std::vector<std::string> files;
    if (!path.empty()) files.push_back(path);
    finish(panel, notice, std::move(files), error);
}

namespace {

// The radio list of what to export, each naming the heads it would take.
void choiceList(const core::Trace& trace, ExportPanel& panel, const ExportTarget& target) {
    ImGui::TextDisabled("What");
    for (const Choice& c : kChoices) {
        std::string label = c.label;
        if (c.what == ExportChoice::Head || c.what == ExportChoice::Lines)
            label += "  (" + trace.headNames[std::size_t(target.head)] + ")";
        if (c.what == ExportChoice::Difference)
            label += "  (head " + std::to_string(target.head + 1) + " \xE2\x88\x92 head " +
                     std::to_string(target.headB + 1) + ")";
        if (ImGui::RadioButton(label.c_str(), panel.what == c.what)) panel.what = c.what;
    }
}

// PNG, SVG, CSV (those the choice does not offer disabled, saying why), JSON, the PNG scale.
void formatControls(ExportPanel& panel) {
    const core::ExportFormats offered = offeredFormats(panel.what);
    ImGui::Spacing();
    ImGui::TextDisabled("Format");
    auto format = [](const char* label, bool& value, bool applies, const char* why) {
        ImGui::BeginDisabled(!applies);
        bool shown = value && applies;
        if (ImGui::Checkbox(label, &shown) && applies) value = shown;
        ImGui::EndDisabled();
        if (!applies && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", why);
        ImGui::SameLine();
    };
    format("PNG", panel.formats.png, offered.png, "");
    format("SVG", panel.formats.svg, offered.svg, "A screenshot is pixels: PNG only.");
    format("CSV", panel.formats.csv, offered.csv,
           panel.what == ExportChoice::Grid ? "One CSV per head: choose 'All heads, one file each'."
                                            : "A screenshot is pixels: PNG only.");
    ImGui::Checkbox("JSON (the trace)", &panel.formats.json);
    itemTooltip("Every number of this computation (mha-trace v1), beside the figures.");

    ImGui::TextDisabled("PNG scale");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    ImGui::BeginDisabled(panel.what == ExportChoice::Window);
    ImGui::SliderInt("##scale", &panel.scale, 1, 4, "%dx");
    itemTooltip("Multiplies the PNG's resolution: 2x for slides, 4x for print.");
    ImGui::SameLine();
    ImGui::Checkbox("Caption", &panel.caption);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", panel.what == ExportChoice::Window
                                    ? "A screenshot is the window as it is."
                                    : "The sentence, the settings and the head under each "
                                      "figure. Off: the title alone, for a slide that says "
                                      "the rest.");
}

// While exporting: the progress; after: the error, or what was saved with "Copy path".
void exportStatus(ExportPanel& panel, Notice& notice, bool busy) {
    if (busy) {
        // A progress bar once it takes more than a moment; quick exports just finish.
        if (ImGui::GetTime() - panel.jobStart > 0.15) {
            char overlay[64];
            std::snprintf(overlay, sizeof overlay, "%d / %d files", panel.job->done(),
                          panel.job->total());
            ImGui::ProgressBar(panel.job->total() > 0
                                   ? float(panel.job->done()) / float(panel.job->total())
                                   : 0.0f,
                               ImVec2(-1, 0), overlay);
        }
    } else if (!panel.lastError.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, errorColor()); // readable in every theme
        ImGui::TextWrapped("Not exported: %s", panel.lastError.c_str());
        ImGui::PopStyleColor();
    } else if (!panel.lastFiles.empty()) {
        // Beside the Export button, where it stays whatever the message's length. One file:
        // its path; several: the folder they went to.
        const std::string& path = panel.lastFiles.size() == 1 ? panel.lastFiles.front()
                                  : panel.lastFolder.empty()  ? panel.folder
                                                              : panel.lastFolder;
        ImGui::SameLine();
        if (ImGui::Button("Copy path")) {
            ImGui::SetClipboardText(path.c_str());
            notice.show("Copied " + path, ImGui::GetTime(), 2.5);
        }
        itemTooltip(path.c_str());
        // The files by name, on up to three lines: a long list must not widen the panel.
        const float wrap = ImGui::GetFontSize() * 26;
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
        ImGui::TextUnformatted(savedMessage(panel.lastFiles, [wrap](const std::string& line) {
                                   return ImGui::CalcTextSize(line.c_str()).x <= wrap * 2.6f;
                               }).c_str());
        ImGui::PopTextWrapPos();
    }
}

} // namespace

void drawExportPanel(const std::shared_ptr<const core::Trace>& trace, ExportPanel& panel,
                     const ExportTarget& target, Notice& notice, const std::string& defaultFolder) {
    if (panel.job && panel.job->finished()) { // collect a finished export, even when closed
        const ExportReport result = panel.job->result();
        panel.job.reset();
        finish(panel, notice, result.files, result.error);
    }
    if (!panel.open || panel.captureCountdown > 0) return;
    if (panel.folder.empty()) panel.folder = defaultFolder;

    const ImVec2 display = ImGui::GetIO().DisplaySize;
    // Once: it stays where it was (and where a hand expects it) when it reopens or grows.
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.45f), ImGuiCond_Once,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Export (Ctrl+Shift+E)", &panel.open,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    const bool busy = panel.job != nullptr;
    ImGui::BeginDisabled(busy);
    choiceList(*trace, panel, target);
    formatControls(panel);

    ImGui::TextDisabled("Folder");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 24);
    const bool enter =
        textField("##folder", "", panel.folder, ImGuiInputTextFlags_EnterReturnsTrue);
    itemTooltip("Created if missing. Nothing is overwritten: new files get -2, -3, ...");

    const bool enterKey = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) &&
                          !ImGui::GetIO().WantTextInput &&
                          ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false);
    if (ImGui::Button("Export", ImVec2(ImGui::GetFontSize() * 8, 0)) || enter || enterKey)
        startExport(trace, panel, target, notice);
    ImGui::EndDisabled();
    exportStatus(panel, notice, busy);
    ImGui::End();
}

} // namespace app

// The window's exports run on a worker thread (which writes the files on core's export
// workers), so a large export (every head at 4x) never freezes the window; the export panel
// shows its progress and the files it wrote.
#pragma once

#include "engine/trace.h"
#include "explorer/export_all_dialog.h"
#include "io/figure_export.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace app {

// What a finished export did, as the panel reports it: the files written and, when it
// stopped early, why (one line). The files written before a failure stay.
struct ExportReport {
    std::vector<std::string> files;
    std::string error;
};

// The one line a finished export reports: "Saved head.png, head.svg, head.csv in /path/", the
// files by name, then their folder. While the whole line does not `fit`, the last names give way
// to "and 21 more"; when not even one name fits: "Saved 24 files in /path/".
std::string savedMessage(const std::vector<std::string>& files,
                         const std::function<bool(const std::string&)>& fits);

class ExportJob {
  public:
    // Starts at once. The trace is shared, so a recompute meanwhile does not disturb it.
    ExportJob(std::shared_ptr<const core::Trace> trace, core::ExportRequest request);
    // Any export (a real model's every view): `work` writes the files, reporting progress, and
    // returns them or throws as core::exportView does; `total` files are expected.
    using Work = std::function<std::vector<std::string>(const core::ExportProgress&)>;
    ExportJob(Work work, int total);
    ~ExportJob(); // waits for the worker
    ExportJob(const ExportJob&) = delete;
    ExportJob& operator=(const ExportJob&) = delete;

    bool finished() const { return finished_; }
    int done() const { return done_; }
    int total() const { return total_; }
    const ExportReport& result() const { return result_; } // once finished()

  private:
    void run(const Work& work);
    std::atomic<int> done_{0}, total_{0};
    std::atomic<bool> finished_{false};
    ExportReport result_; // written by the worker before finished_ is set
    std::thread worker_;
};

// What the export panel can write: core's views, plus the whole window (a screenshot).
enum class ExportChoice { Head, Grid, EachHead, Mean, Difference, Lines, Statistics, Window };

// The view core exports for a choice (the window is captured by the frame loop instead).
core::ExportWhat coreExportWhat(ExportChoice what);
// core::offeredFormats of the choice's view; a screenshot of the window is pixels: PNG only.
core::ExportFormats offeredFormats(ExportChoice what);

struct ExportPanel {
    bool open = false;
    ExportChoice what = ExportChoice::Head;
    core::ExportFormats formats;
    int scale = 2;       // PNG resolution multiplier: 2x reads well on slides
    bool caption = true; // the caption under each figure; off: the title alone
    std::string folder;  // empty until first opened: then the export folder
    std::unique_ptr<ExportJob> job;
    double jobStart = 0;      // ImGui time the job started (progress shows after a moment)
    int captureCountdown = 0; // whole window: frames left until the capture (panel hidden)
    std::vector<std::string> lastFiles;
    std::string lastError;
    // "Export all": the question before it, and the folder its files go to (in layer folders
    // below it), which the notice names when it is done.
    ExportAllDialog exportAll;
    std::string jobFolder, lastFolder;
};

} // namespace app

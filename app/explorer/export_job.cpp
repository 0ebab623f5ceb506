#include "explorer/export_job.h"

#include "platform/file_offer.h"

#include <exception>
#include <filesystem>
#include <new>

namespace app {

std::string savedMessage(const std::vector<std::string>& files,
                         const std::function<bool(const std::string&)>& fits) {
    namespace fs = std::filesystem;
    if (files.empty()) return "Saved no file";
    std::string folder = fs::path(files.front()).parent_path().string();
    if (folder.empty()) folder.push_back('.'); // not = ".": GCC 12's -Wrestrict
    if (folder.back() != '/') folder += '/';
    // In the browser each file went to the browser's downloads: no folder to name.
    const std::string where = kFilesAreDownloads ? "" : " in " + folder;
    const auto line = [&](std::size_t shown) -> std::string {
        std::string out = kFilesAreDownloads ? "Downloaded " : "Saved ";
        if (shown == 0)
            return out.append(std::to_string(files.size()))
                .append(files.size() == 1 ? " file" : " files")
                .append(where);
        for (std::size_t i = 0; i < shown; ++i)
            out.append(i > 0 ? ", " : "").append(fs::path(files[i]).filename().string());
        if (shown < files.size())
            out.append(" and ").append(std::to_string(files.size() - shown)).append(" more");
        return out.append(where);
    };
    for (std::size_t shown = files.size(); shown > 0; --shown)
        if (fits(line(shown))) return line(shown);
    return line(0);
}

ExportJob::ExportJob(std::shared_ptr<const core::Trace> trace, core::ExportRequest request)
    : ExportJob(
          [trace, request](const core::ExportProgress& progress) {
              return core::exportView(*trace, request, progress);
          },
          core::exportFileCount(*trace, request)) {}

ExportJob::ExportJob(Work work, int total) {
    total_ = total;
#ifdef __EMSCRIPTEN__
    run(work); // the browser has no thread for it: the frame that starts it writes it
#else
    worker_ = std::thread([this, work = std::move(work)] { run(work); });
#endif
}

void ExportJob::run(const Work& work) {
    try {
        // Called by whichever export worker finished a file, one call at a time, `done`
        // rising: the panel reads the counters as they are.
        result_.files = work([this](int done, int total) {
            done_ = done;
            total_ = total;
        });
    } catch (const core::ExportError& e) {
        result_ = {e.written, e.what()};
    } catch (const std::bad_alloc&) {
        result_.error = "not enough memory for this export; try a smaller scale";
    } catch (const std::exception& e) {
        result_.error = e.what();
    }
    finished_ = true;
}

ExportJob::~ExportJob() {
    if (worker_.joinable()) worker_.join();
}

core::ExportWhat coreExportWhat(ExportChoice what) {
    switch (what) {
    case ExportChoice::Grid:
        return core::ExportWhat::Grid;
    case ExportChoice::EachHead:
        return core::ExportWhat::EachHead;
    case ExportChoice::Mean:
        return core::ExportWhat::Mean;
    case ExportChoice::Difference:
        return core::ExportWhat::Difference;
    case ExportChoice::Lines:
        return core::ExportWhat::Lines;
    case ExportChoice::Statistics:
        return core::ExportWhat::Statistics;
    default:
        return core::ExportWhat::Head;
    }
}

core::ExportFormats offeredFormats(ExportChoice what) {
    if (what == ExportChoice::Window) return {true, false, false, true};
    return core::offeredFormats(coreExportWhat(what));
}

} // namespace app

#include "io/trained_run.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <utility>

namespace core {

namespace fs = std::filesystem;

namespace {

// "0, 500, 1000" or, for many, the first and last few.
std::string listSteps(const std::vector<int>& steps) {
    std::string text;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (steps.size() > 12 && i == 6) {
            text += ", ...";
            i = steps.size() - 4;
        }
        text += (text.empty() ? "" : ", ") + std::to_string(steps[i]);
    }
    return text;
}

} // namespace

TrainedRun loadTrainedRun(const std::string& dir, int step) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw std::invalid_argument("model folder '" + dir + "' does not exist" +
                                    (fs::exists(dir, ec) ? " (it is a file)" : ""));
    ModelInfo info;
    try {
        info = readModelInfo(dir); // an unreadable file says "is it a run folder ...?"
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        throw std::invalid_argument(what.starts_with("cannot read") ? what
                                                                    : "'" + dir + "': " + what);
    }
    TrainedRun run;
    run.dir = dir;
    run.task = info.task;
    try {
        run.steps = checkpointSteps(dir);
    } catch (const std::runtime_error& e) { // an unreadable folder is bad input too
        throw std::invalid_argument(e.what());
    }
    if (run.steps.empty())
        throw std::invalid_argument("'" + dir + "' has no checkpoint-SSSSSS.safetensors");
    run.step = step == kLastCheckpoint ? run.steps.back() : step;
    if (!std::binary_search(run.steps.begin(), run.steps.end(), run.step))
        throw std::invalid_argument("'" + dir + "' has no checkpoint at step " +
                                    std::to_string(step) + "; it has steps " +
                                    listSteps(run.steps));
    train::Params params;
    try {
        params = readCheckpoint(dir + "/" + checkpointFileName(run.step), info.config);
    } catch (const std::runtime_error& e) { // unreadable: bad input all the same
        throw std::invalid_argument(e.what());
    }
    for (const train::ConstNamedTensor& t : train::namedTensors(std::as_const(params)))
        if (const Eigen::Index bad = (!t.tensor->array().isFinite()).count(); bad > 0)
            run.warnings.push_back("tensor " + t.name + " holds " + std::to_string(bad) +
                                   " non-finite values (NaN or Inf)");
    run.model = train::makeTrainedModel(info.config, info.vocab, info.seed, std::move(params));
    return run;
}

} // namespace core

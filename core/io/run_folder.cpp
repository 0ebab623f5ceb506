#include "io/run_folder.h"
#include "io/text_file.h"

#include "io/json_fields.h"

#include "io/atomic_file.h"
#include "io/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string numbered(const char* stem, int number, const char* extension) {
    char name[64];
    std::snprintf(name, sizeof name, "%s-%06d%s", stem, number, extension);
    return name;
}

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

std::string readRunFile(const std::string& path) {
    TextFile file = readTextFile(path, kRunFileCap);
    if (file.problem == FileProblem::TooLarge)
        throw std::invalid_argument("'" + path + "' is " +
                                    describeProblem(file.problem, kRunFileCap));
    if (!file.ok())
        throw std::invalid_argument("cannot read '" + path +
                                    "'; is it a run folder of mha-viz train?");
    return std::move(file.text); // an empty file is read as "" (and then refused by its parser)
}

} // namespace

void prepareRunFolder(const std::string& dir) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        refuse("--out '" + dir + "' is a file; give a new or empty folder");
    if (dir.empty()) refuse("--out is empty; give a new or empty folder");
    if (fs::is_directory(dir, ec)) {
        const bool empty = fs::is_empty(dir, ec);
        if (ec)
            throw std::runtime_error("cannot read the run folder '" + dir + "': " + ec.message());
        if (!empty) refuse("--out '" + dir + "' is not empty; give a new or empty folder");
    }
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir))
        throw std::runtime_error("cannot create the run folder '" + dir + "'" +
                                 (ec ? ": " + ec.message() : ""));
}

std::string checkpointFileName(int step) {
    return numbered("checkpoint", step, ".safetensors");
}

std::vector<int> checkpointSteps(const std::string& dir) {
    std::vector<int> steps;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        int step = -1;
        const char* digits = name.c_str() + std::string_view("checkpoint-").size();
        if (name.size() != checkpointFileName(0).size() || !name.starts_with("checkpoint-") ||
            !name.ends_with(".safetensors") ||
            std::from_chars(digits, digits + 6, step).ptr != digits + 6)
            continue;
        steps.push_back(step);
    }
    if (ec) throw std::runtime_error("cannot read the run folder '" + dir + "': " + ec.message());
    std::sort(steps.begin(), steps.end());
    return steps;
}

std::string batchesFileName(int update) {
    return numbered("batches", update, ".json");
}

std::string modelJson(const train::TrainSettings& s, const std::vector<std::string>& vocab) {
    const json model = {{"format", "mha-model"},
                        {"version", 1},
                        {"task", toString(s.task)},
                        {"vocab", vocab},
                        {"d_model", s.model.d_model},
                        {"heads", s.model.heads},
                        {"layers", s.model.layers},
                        {"seq", s.model.seq},
                        {"seed", s.seed}};
    return model.dump(2) + "\n";
}

ModelInfo parseModelJson(const std::string& text) {
    const json model = json::parse(text, nullptr, false);
    if (!model.is_object()) refuse("model.json is not a JSON object");
    const JsonFields f(model, "model.json: ");
    if (model.value("format", json()) != "mha-model" || model.value("version", json()) != 1)
        f.bad("not an mha-model version 1 file");
    ModelInfo info;
    if (!f.has("task")) f.bad("missing \"task\"");
    info.task = f.oneOf("task", info.task);
    const json vocab = model.value("vocab", json());
    if (!vocab.is_array() || vocab.size() < 2 || vocab.size() > std::size_t(train::kMaxTrainVocab))
        f.bad("\"vocab\" must be a list of 2 to " + std::to_string(train::kMaxTrainVocab) +
              " token strings");
    info.vocab = f.strings("vocab", true);
    info.config.vocab = int(info.vocab.size());
    info.config.d_model = f.integer("d_model", 1, train::kMaxTrainDModel);
    info.config.heads = f.integer("heads", 1, info.config.d_model);
    info.config.layers = f.integer("layers", 1, train::kMaxTrainLayers);
    info.config.seq = f.integer("seq", 2, train::kMaxTrainSeq);
    train::validate(info.config); // heads must divide d_model
    if (!f.has("seed")) f.bad("missing \"seed\"");
    info.seed = f.unsignedInteger("seed", 0);
    return info;
}

ModelInfo readModelInfo(const std::string& dir) {
    return parseModelJson(readRunFile(dir + "/model.json"));
}

CsvTable readMetrics(const std::string& dir) {
    CsvTable metrics = parseCsv(readRunFile(dir + "/metrics.csv"));
    metrics.column("step"); // throws naming it when missing
    return metrics;
}

void writeCheckpoint(const std::string& path, const train::Params& params, int step) {
    std::vector<NamedMatrix> tensors;
    for (const train::ConstNamedTensor& t : train::namedTensors(params))
        tensors.push_back({t.name, *t.tensor});
    writeSafetensors(path, tensors, {{"format", "mha-model"}, {"step", std::to_string(step)}});
}

train::Params readCheckpoint(const std::string& path, const train::ModelConfig& config) {
    const SafetensorsFile file = readSafetensors(path);
    train::Params params = train::zeroParams(config);
    for (const train::NamedTensor& t : train::namedTensors(params)) {
        const NamedMatrix* stored = file.find(t.name);
        if (!stored) refuse("'" + path + "' has no tensor '" + t.name + "'");
        if (stored->values.rows() != t.tensor->rows() || stored->values.cols() != t.tensor->cols())
            refuse("'" + path + "': tensor '" + t.name + "' is [" +
                   std::to_string(stored->values.rows()) + ", " +
                   std::to_string(stored->values.cols()) + "], model.json needs [" +
                   std::to_string(t.tensor->rows()) + ", " + std::to_string(t.tensor->cols()) +
                   "]");
        *t.tensor = stored->values;
    }
    return params;
}

std::string batchesJson(const train::Batch& batch) {
    const json out = {{"tokens", batch.tokens}, {"loss_mask", batch.lossMask}};
    return out.dump() + "\n";
}

MetricsCsv::MetricsCsv(const std::string& path, const std::vector<std::string>& probeColumns)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    std::vector<std::string> header = {"step", "train_loss"};
    header.insert(header.end(), probeColumns.begin(), probeColumns.end());
    out_ << csvRecord(header) << std::flush;
    if (!out_) throw std::runtime_error("cannot write '" + path + "'");
}

void MetricsCsv::append(int step, double trainLoss, const std::vector<train::Metric>& metrics) {
    std::vector<double> row = {double(step), trainLoss};
    for (const train::Metric& metric : metrics) row.push_back(metric.value);
    out_ << csvRecord(row) << std::flush;
    if (!out_) throw std::runtime_error("cannot write '" + path_ + "' (is the disk full?)");
}

namespace {

std::string ablationRow(const char* kind, int removed, int total, const train::AblationPoint& p,
                        bool withHead, double baselineLoss) {
    std::string row = std::string(kind) + "," + std::to_string(removed) + "," +
                      formatNumber(double(removed) / total) + ",";
    row += withHead ? std::to_string(p.head.layer + 1) + "," + std::to_string(p.head.head + 1)
                    : std::string(",");
    return row + "," + formatNumber(p.heldoutLoss) + "," +
           formatNumber(p.heldoutLoss - baselineLoss) + "," + formatNumber(p.accuracy) + "\n";
}

} // namespace

std::string ablationCsv(const train::AblationReport& report, train::TaskKind task) {
    const int total = std::max(1, report.totalHeads);
    const double base = report.baseline.heldoutLoss;
    std::string csv = std::string("kind,heads_removed,fraction_pruned,layer,head,heldout_loss,"
                                  "loss_increase,") +
                      train::accuracyColumn(task) + "\n";
    csv += ablationRow("baseline", 0, total, report.baseline, false, base);
    for (const train::AblationPoint& p : report.single)
        csv += ablationRow("single", 1, total, p, true, base);
    for (std::size_t i = 0; i < report.pruning.size(); ++i)
        csv += ablationRow("pruning", int(i + 1), total, report.pruning[i], true, base);
    return csv;
}

namespace {

void startRunFolder(const std::string& dir, const train::TrainSettings& settings,
                    const std::vector<std::string>& vocab) {
    prepareRunFolder(dir);
    writeFileAtomically(dir + "/model.json", modelJson(settings, vocab));
}

} // namespace

RunFolderWriter::RunFolderWriter(const std::string& dir, const train::TrainSettings& settings,
                                 const std::vector<std::string>& vocab,
                                 const std::vector<std::string>& probeColumns)
    : dir_((startRunFolder(dir, settings, vocab), dir)), task_(settings.task),
      metrics_(dir + "/metrics.csv", probeColumns) {}

void RunFolderWriter::metricsRow(int step, double trainLoss,
                                 const std::vector<train::Metric>& metrics) {
    metrics_.append(step, trainLoss, metrics);
}

void RunFolderWriter::checkpoint(int step, const train::Params& params) {
    writeCheckpoint(path(checkpointFileName(step)), params, step);
}

void RunFolderWriter::batch(int update, const train::Batch& batch) {
    writeFileAtomically(path(batchesFileName(update)), batchesJson(batch));
}

void RunFolderWriter::ablation(const train::AblationReport& report) {
    writeFileAtomically(path("ablation.csv"), ablationCsv(report, task_));
}

void writeRunFolder(const std::string& dir, const train::RunSetup& setup, const CsvTable& metrics,
                    const std::vector<train::TrainSnapshot>& snapshots, std::atomic<int>& done) {
    startRunFolder(dir, setup.settings, setup.task.vocab());
    writeFileAtomically(dir + "/metrics.csv", csvText(metrics));
    ++done;
    for (const train::TrainSnapshot& s : snapshots) {
        writeCheckpoint(dir + "/" + checkpointFileName(s.step), *s.params, s.step);
        ++done;
    }
}

} // namespace core

// The real-model part of the command line (real_model_cli.h).
#include "cli/real_model_cli.h"

#include "cli/cli.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "models/analyses/model_comparison.h"
#include "models/analyses/real_model_export.h"
#include "models/analyses/real_model_figures.h"
#include "models/analyses/real_trace_json.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <new>
#include <sstream>

namespace app {
namespace {

core::models::RealTraceOptions traceOptions(const CliOptions& options) {
    core::models::RealTraceOptions o;
    o.topK = options.real.topK;
    o.keepLogits = options.real.jsonLogits;
    o.pair = options.real.pair;
    return o;
}

// N token ids for the benchmark: the default sentence's words (no special tokens), repeated.
std::vector<int> benchIds(const core::models::RealModel& model, int n) {
    const core::models::Encoding e = model.tokenizer->encode(
        std::string(" ") + core::models::kDefaultRealSentence, nullptr, 1 << 20);
    std::vector<int> sentence;
    for (std::size_t i = 0; i < e.ids.size(); ++i)
        if (!e.special[i]) sentence.push_back(e.ids[i]);
    std::vector<int> ids;
    while (int(ids.size()) < n) ids.push_back(sentence[ids.size() % sentence.size()]);
    return ids;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

} // namespace

double realForwardFlops(const core::models::ModelConfig& c, int tokens) {
    const double n = tokens, d = c.dModel, q = double(c.heads) * c.headSize();
    const double kv = double(c.kvHeadCount()) * c.headSize();
    const bool gated = !c.decoder.rope.empty();      // the modern decoders' MLP has three matrices
    const double perLayer = 2 * n * d * (q + 2 * kv) // q, k, v
                            + 2 * 2 * n * n * q      // scores and weights x V, every head
                            + 2 * n * q * d          // the out projection
                            + (gated ? 3 : 2) * 2 * n * d * c.dInner; // the MLP
    return c.layers * perLayer + 2 * n * d * c.vocabSize;             // + the unembedding
}

namespace {

// --compare MODEL: the second model, checked against the first before anything runs.
std::string loadComparedModel(CliOptions& options) {
    if (options.real.benchForward > 0) return "--compare and --bench-forward: one at a time";
    auto other = std::shared_ptr<const core::models::RealModel>(
        core::models::openRealModel(options.real.compare));
    const core::models::ModelConfig &a = options.realModel->config(), &b = other->config();
    if (a.layers != b.layers || a.heads != b.heads)
        return "--compare " + options.real.compare + ": " + std::to_string(b.layers) +
               (b.layers == 1 ? " layer x " : " layers x ") + std::to_string(b.heads) +
               " heads, the first model " + std::to_string(a.layers) + " x " +
               std::to_string(a.heads) + ": compare two versions of one model";
    options.compareModel = std::move(other);
    return {};
}

} // namespace

std::string loadRealModel(CliOptions& options, const std::vector<std::string>& sentences) {
    if (sentences.size() > 1) return "--model with a Hugging Face model takes one --sentence";
    try {
        auto model = std::shared_ptr<const core::models::RealModel>(
            core::models::openRealModel(options.modelDir));
        options.scene.sentences = {sentences.empty() ? model->defaultSentence() : sentences[0]};
        if (options.real.pairGiven && !model->tokenizer->takesPairs())
            return "--pair is for encoders (BERT, RoBERTa, DistilBERT); " + model->family +
                   " reads one text";
        if (options.real.pairGiven && options.real.pair.empty()) return "--pair needs a sentence B";
        if (options.modelLayer > model->config().layers)
            return "--layer " + std::to_string(options.modelLayer) + ": the model has " +
                   std::to_string(model->config().layers) + " layers";
        if (options.real.benchForward > model->config().nPositions)
            return "--bench-forward " + std::to_string(options.real.benchForward) +
                   ": the model has " + std::to_string(model->config().nPositions) + " positions";
        if (options.real.benchForward == 0) // the text checked now, so bad text is exit 2
            model->tokenizer->encode(options.scene.sentences[0],
                                     options.real.pairGiven ? &options.real.pair : nullptr,
                                     model->config().nPositions);
        options.realModel = std::move(model);
        if (!options.real.compare.empty()) return loadComparedModel(options);
    } catch (const std::bad_alloc&) {
        return "not enough memory for this model";
    } catch (const std::exception& e) {
        return e.what();
    }
    options.weightsGiven = true;
    return {};
}

namespace {

// --json FILE|-: the v2 trace.
void writeRealJson(const CliOptions& options, const core::models::RealModel& model,
                   const core::models::RealTrace& trace) {
    core::models::RealTraceJsonOptions json;
    json.logits = options.real.jsonLogits;
    json.attentionOnly = options.real.jsonAttentionOnly;
    json.precision = options.real.jsonPrecision;
    writeJsonOutput(options.jsonPath, [&](std::ostream& out) { // streamed layer by layer
        core::models::writeRealTraceJson(model, trace, json, out);
    });
}

// --export DIR: every layer's figures and the model's own views (real_model_export.h), with
// the head detectors the window runs: TransformerLens's 2 x 50 random tokens, fewer when the
// context is shorter. A line when it starts, at each quarter, and when it is done.
void exportRealFigures(const CliOptions& options, const core::models::RealModel& model,
                       const core::models::RealTrace& trace) {
    core::prepareExportFolder(options.exportPath); // before any progress line: bad input gives
                                                   // exactly one line
    std::cerr << "mha-viz: exporting figures of " << model.location.source << " to "
              << options.exportPath << " ...\n";
    const std::vector<core::models::HeadDetectorScores> detectors = // + the sink on the text
        core::models::withSentenceSink(core::models::detectModelHeads(trace), trace);
    int quarter = 0;
    const auto progress = [&quarter](int done, int total) {
        if (done * 4 < (quarter + 1) * total || done == total) return;
        quarter = done * 4 / total;
        std::cerr << "mha-viz: " << done << " of " << total << " files\n";
    };
    core::models::RealExportOptions exportOptions;
    exportOptions.scale = options.exportScale, exportOptions.colormap = options.view.colormap;
    exportOptions.caption = options.exportCaption;
    exportOptions.traces = options.real.exportTraces;
    exportOptions.fullResolution = options.exportFullSize;
    const std::vector<std::string> files = core::models::exportRealModel(
        model, trace, detectors, options.exportPath, exportOptions, progress);
    std::cerr << "mha-viz: wrote " << files.size() << " files to " << options.exportPath << '\n';
}

// The comparison's lines on stdout: the two models, the heads that moved most, the largest
// single change and the predictions.
void printComparison(const CliOptions& options, const core::models::RealTrace& a,
                     const core::models::TraceComparison& c) {
    const auto& ma = *options.realModel;
    const auto& mb = *options.compareModel;
    std::cout << "compared: " << ma.location.source << " (" << core::models::modelSummary(ma)
              << ")\n"
              << "    with: " << mb.location.source << " (" << core::models::modelSummary(mb)
              << ")\n"
              << "on " << c.tokens << " tokens, " << c.layers << " x " << c.heads << " heads\n"
              << "most moved heads (mean total variation of their rows, 0..1): "
              << core::models::mostMovedHeads(c, 5) << '\n';
    if (!c.ranked.empty()) {
        const core::models::HeadShift& s =
            *std::max_element(c.ranked.begin(), c.ranked.end(),
                              [](const auto& x, const auto& y) { return x.maxAbs < y.maxAbs; });
        std::cout << "largest single change: " << s.maxAbs << " at L" << s.layer + 1 << " H"
                  << s.head + 1 << ", query " << s.query << " ("
                  << a.tokens.tokens[std::size_t(s.query)].text << "), key " << s.key << " ("
                  << a.tokens.tokens[std::size_t(s.key)].text << ")\n";
    }
    if (c.positions > 0)
        std::cout << "predictions: the top token agrees at " << c.topAgree << " of " << c.positions
                  << " positions";
    if (c.positions > 0 && std::isfinite(c.lossA))
        std::cout << "; loss " << c.lossA << " against " << c.lossB << " nats";
    if (c.positions > 0) std::cout << '\n';
    std::cout.flush();
}

// --compare: the second model on the same text; the lines, and with --export its CSV and
// the per-head figure.
int compareModels(const CliOptions& options, const core::models::RealTrace& a) {
    const core::models::RealTrace b = core::models::traceRealModel(
        *options.compareModel, options.scene.sentences[0], traceOptions(options));
    const core::models::TraceComparison c = core::models::compareTraces(a, b);
    printComparison(options, a, c);
    if (options.exportPath.empty()) return 0;
    core::models::ComparisonExport files;
    files.scale = options.exportScale, files.colormap = options.view.colormap;
    files.caption = options.exportCaption;
    const std::vector<std::string> written = core::models::exportComparison(
        options.exportPath, *options.realModel, *options.compareModel, a, c, files);
    std::cerr << "mha-viz: wrote " << written[0] << ", " << written[1] << " and .png\n";
    return 0;
}

} // namespace

int runRealModelHeadless(const CliOptions& options) {
    if (options.real.benchForward > 0) return benchForward(options);
    const core::models::RealModel& model = *options.realModel;
    try {
        const core::models::RealTrace trace =
            core::models::traceRealModel(model, options.scene.sentences[0], traceOptions(options));
        for (const std::string& w : trace.warnings) std::cerr << "mha-viz: warning: " << w << '\n';
        for (const std::string& w : model.net->warnings())
            std::cerr << "mha-viz: warning: " << w << '\n';
        if (options.compareModel) return compareModels(options, trace);
        if (!options.jsonPath.empty()) writeRealJson(options, model, trace);
        if (!options.exportPath.empty()) exportRealFigures(options, model, trace);
    } catch (const std::bad_alloc&) {
        printError("mha-viz", "not enough memory for this sentence");
        return kExitBadInput;
    } catch (const std::exception& e) {
        printError("mha-viz", e.what());
        return kExitBadInput;
    }
    return 0;
}

int benchForward(const CliOptions& options) {
    const core::models::RealModel& model = *options.realModel;
    const std::vector<int> ids = benchIds(model, options.real.benchForward);
    std::vector<double> times;
    for (int run = 0; run < 7; ++run) { // the first warms caches and the thread pool
        const auto start = std::chrono::steady_clock::now();
        const core::models::ForwardResult out =
            core::models::runForward(*model.net, ids, {}, {}, nullptr);
        const auto end = std::chrono::steady_clock::now();
        if (run > 0)
            times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    const double ms = median(times);
    const double gflops = realForwardFlops(model.config(), int(ids.size())) / (ms * 1e6);
    std::printf("model: %s (%s)\n", model.location.source.c_str(),
                core::models::modelSummary(model).c_str());
    std::printf("load: %.1f ms\n", model.loadMilliseconds);
    std::printf("forward: %.2f ms (median of %zu runs, %zu tokens, %s)\n", ms, times.size(),
                ids.size(),
                !model.net->hasHead() ? "no head"
                : model.isEncoder()   ? "with the MLM head"
                                      : "with the logits");
    std::printf("forward rate: %.1f GFLOP/s\n", gflops);
    return 0;
}

} // namespace app

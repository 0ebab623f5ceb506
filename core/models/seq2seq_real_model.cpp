// An encoder-decoder checkpoint and its traces (seq2seq_real_model.h).
#include "models/seq2seq_real_model.h"

#include "io/json_fields.h"
#include "models/tensor_ops.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>

namespace core::models {
namespace {

// "t5, mt5, bart, marian": what the refusals name.
std::string seq2seqNames() {
    std::string names;
    for (const Seq2SeqArchitecture& a : seq2seqArchitectures())
        for (const std::string& t : a.modelTypes) names += (names.empty() ? "" : ", ") + t;
    return names;
}

} // namespace

bool isSeq2SeqFolder(const ModelLocation& location) {
    if (location.kind != ModelFolderKind::HuggingFace) return false;
    const std::string path = location.dir + "/config.json";
    nlohmann::json config;
    try {
        config = readJsonObjectFile(path);
    } catch (const std::invalid_argument&) {
        return false; // missing or broken: the folder's own reader says what is wrong
    }
    if (!config.contains("model_type") || !config["model_type"].is_string()) return false;
    const std::string type = config["model_type"];
    if (findSeq2SeqArchitecture(type)) return true;
    if (config.value("is_encoder_decoder", false) && !findArchitecture(type))
        throw std::invalid_argument(path + ": model_type \"" + type +
                                    "\" is an encoder-decoder this build does not open; it opens " +
                                    seq2seqNames());
    return false;
}

std::unique_ptr<Seq2SeqRealModel> openSeq2SeqModel(const ModelLocation& location) {
    const auto start = std::chrono::steady_clock::now();
    auto model = std::make_unique<Seq2SeqRealModel>();
    model->location = location;
    const HfFiles files = hfFiles(location);
    const nlohmann::json config = readJsonObjectFile(files.config);
    const JsonFields fields(config, files.config);
    model->family = fields.string("model_type", "");
    model->architecture = findSeq2SeqArchitecture(model->family);
    if (!model->architecture)
        fields.bad("model_type \"" + model->family +
                   "\" is not an encoder-decoder this build "
                   "opens (" +
                   seq2seqNames() + ")");
    model->net = model->architecture->load(fields, files);
    model->source = model->architecture->sourceTokenizer(files, model->net->config());
    model->target = model->architecture->targetTokenizer(files, model->net->config());
    const int V = model->net->config().base.vocabSize;
    for (const ModelTokenizer* t : {model->source.get(), model->target.get()})
        if (t->vocabSize() > V)
            throw std::invalid_argument("the tokenizer has " + std::to_string(t->vocabSize()) +
                                        " tokens, config.json's vocab_size is " +
                                        std::to_string(V));
    model->loadMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return model;
}

namespace {

// The tokens a side may hold: the model's positions, or (relative positions) a bound that keeps
// the maps' memory sane.
int sideLimit(const Seq2SeqRealModel& model) {
    const int positions = model.config().positions;
    return positions > 0 ? positions : 4096;
}

// The teacher-forced run of `labels` after `source`, its predictions and loss.
void runOver(const Seq2SeqRealModel& model, Seq2SeqTrace& t, int topK,
             const Seq2SeqAblation& ablated) {
    if (t.labels.empty()) throw std::invalid_argument("the target has no tokens");
    t.decoderInput = {model.config().decoderStartId};
    t.decoderInput.insert(t.decoderInput.end(), t.labels.begin(), t.labels.end() - 1);
    if (int(t.decoderInput.size()) > sideLimit(model))
        throw std::invalid_argument("the target has " + std::to_string(t.labels.size()) +
                                    " tokens, the decoder reads " +
                                    std::to_string(sideLimit(model)) + " at most");
    for (int id : t.decoderInput) t.decoderTokens.push_back(model.target->readable(id));
    t.run = runSeq2Seq(*model.net, t.source.ids, t.decoderInput, ablated);
    double sum = 0;
    for (int i = 0; i < int(t.labels.size()); ++i) {
        const Eigen::RowVectorXd logp = logSoftmax(t.run.logits.row(i));
        sum -= logp(t.labels[std::size_t(i)]);
        t.predictions.push_back(topTokens(*model.target, t.run.logits.row(i), topK));
    }
    t.loss = sum / double(t.labels.size());
}

Seq2SeqTrace encodedSource(const Seq2SeqRealModel& model, const std::string& source) {
    Seq2SeqTrace t;
    t.sourceText = source;
    t.source = model.source->encode(source, nullptr, sideLimit(model));
    if (t.source.ids.empty()) throw std::invalid_argument("the source has no tokens");
    t.warnings = t.source.warnings;
    return t;
}

} // namespace

Seq2SeqTrace traceSeq2Seq(const Seq2SeqRealModel& model, const std::string& source,
                          const std::string& target, int topK, const Seq2SeqAblation& ablated) {
    Seq2SeqTrace t = encodedSource(model, source);
    t.targetText = target;
    // Whole: a target past the decoder's positions is refused (runOver), never cut unseen.
    const Encoding e = model.target->encode(target, nullptr, 1 << 20);
    for (const std::string& w : e.warnings) t.warnings.push_back("target: " + w);
    t.labels = e.ids;
    runOver(model, t, topK, ablated);
    return t;
}

Seq2SeqTrace traceSeq2SeqIds(const Seq2SeqRealModel& model, const std::string& source,
                             const std::vector<int>& labels, int topK,
                             const Seq2SeqAblation& ablated) {
    Seq2SeqTrace t = encodedSource(model, source);
    t.labels = labels;
    for (int id : labels)
        if (id < 0 || id >= model.config().base.vocabSize)
            throw std::invalid_argument("the target's token id " + std::to_string(id) +
                                        " is outside the vocabulary");
    runOver(model, t, topK, ablated);
    return t;
}

Seq2SeqTrace generateSeq2Seq(const Seq2SeqRealModel& model, const std::string& source,
                             int maxTokens, int topK, const Seq2SeqAblation& ablated) {
    Seq2SeqTrace t = encodedSource(model, source);
    t.generated = true;
    const Seq2SeqRun encoded = encodeSource(*model.net, t.source.ids, ablated);
    const GreedyOutput out =
        generateGreedy(*model.net, encoded, std::min(maxTokens, sideLimit(model) - 1),
                       model.config().neverGenerated, ablated);
    t.labels = out.ids; // no text: the tokens are what the decoder wrote
    runOver(model, t, topK, ablated);
    return t;
}

} // namespace core::models

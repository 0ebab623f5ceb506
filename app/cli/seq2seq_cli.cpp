// An encoder-decoder on the command line (seq2seq_cli.h).
#include "cli/seq2seq_cli.h"

#include "io/atomic_file.h"
#include "models/analyses/seq2seq_figures.h"
#include "models/analyses/seq2seq_trace_json.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>

namespace app {
namespace {

// The decoders' and encoders' flags an encoder-decoder does not take.
constexpr const char* kNotForSeq2Seq[] = {"--pair", "--compare", "--bench-typing", "--json-logits",
                                          "--layer"};

std::string checkFlags(const std::function<bool(const char*)>& given, const CliOptions& options,
                       const std::vector<std::string>& sentences) {
    for (const char* flag : kNotForSeq2Seq)
        if (given(flag))
            return std::string(flag) + " does not apply to an encoder-decoder (--json writes " +
                   "its encoder, decoder and cross-attention)";
    if (options.real.targetGiven && options.real.generate > 0)
        return "--target and --generate: one at a time (the decoder reads a target, or writes one)";
    if (options.real.benchForward > 0 && options.real.targetGiven)
        return "--bench-forward times a target of --generate N tokens (default 32), not --target";
    if (options.real.targetGiven && options.real.target.empty())
        return "--target needs a text (the decoder reads it after its start token)";
    if (sentences.size() > 1) return "an encoder-decoder reads one --sentence (the source)";
    return {};
}

// A max-token count and the model's positions: the decoder reads its start token too.
std::string checkLengths(const CliOptions& options) {
    const core::models::Seq2SeqRealModel& m = *options.seq2seqModel;
    const int positions = m.config().positions;
    if (positions > 0 && options.real.generate >= positions)
        return "--generate " + std::to_string(options.real.generate) + ": the decoder reads " +
               std::to_string(positions) + " positions, its start token among them";
    if (positions > 0 && options.real.benchForward > positions)
        return "--bench-forward " + std::to_string(options.real.benchForward) +
               ": the encoder reads " + std::to_string(positions) + " positions";
    m.source->encode(options.scene.sentences[0], nullptr, positions > 0 ? positions : 4096);
    if (options.real.targetGiven) {
        const core::models::Encoding target =
            m.target->encode(options.real.target, nullptr, 1 << 20);
        if (positions > 0 && int(target.ids.size()) > positions)
            return "--target has " + std::to_string(target.ids.size()) +
                   " tokens, the decoder reads " + std::to_string(positions);
    }
    return {};
}

} // namespace

std::optional<std::string> loadSeq2SeqIfOne(const core::models::ModelLocation& where,
                                            const std::function<bool(const char*)>& given,
                                            CliOptions& options,
                                            const std::vector<std::string>& sentences) {
    try {
        if (!core::models::isSeq2SeqFolder(where)) {
            if (given("--target") || given("--generate"))
                return std::string(given("--target") ? "--target" : "--generate") +
                       " is for encoder-decoders (T5, BART, Marian): " + where.source +
                       " reads one text";
            return std::nullopt;
        }
        if (std::string error = checkFlags(given, options, sentences); !error.empty()) return error;
        auto model = std::shared_ptr<const core::models::Seq2SeqRealModel>(
            core::models::openSeq2SeqModel(where));
        options.scene.sentences = {sentences.empty() ? model->architecture->defaultSource
                                                     : sentences[0]};
        // The window opens on it unless --json or --export asks for files.
        if (!options.real.targetGiven && options.real.generate == 0) options.real.generate = 32;
        options.seq2seqModel = std::move(model);
        return checkLengths(options);
    } catch (const std::bad_alloc&) {
        return std::string("not enough memory for this model");
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
}

namespace {

std::string joined(const std::vector<std::string>& tokens) {
    std::string out;
    for (const std::string& t : tokens) out += (out.empty() ? "" : " ") + t;
    return out;
}

// The lines without --json: the model, the source's tokens, what the decoder read or wrote.
void printSummary(const core::models::Seq2SeqRealModel& m, const core::models::Seq2SeqTrace& t) {
    const core::models::Seq2SeqConfig& c = m.config();
    std::cout << "model: " << m.location.source << " (" << m.family << ", " << c.base.layers
              << " + " << c.decoderLayers << " layers, " << c.base.heads << " heads, d_model "
              << c.base.dModel << ", " << m.net->dtype() << ")\n";
    std::vector<std::string> source;
    for (const core::Token& token : t.source.tokens.tokens) source.push_back(token.text);
    std::cout << "source: " << source.size() << " tokens: " << joined(source) << '\n';
    std::vector<std::string> written;
    for (int id : t.labels) written.push_back(m.target->readable(id));
    std::cout << (t.generated ? "generated: " : "target: ") << written.size()
              << " tokens: " << joined(written) << '\n';
    if (!t.generated) {
        std::vector<std::string> guesses;
        for (const auto& top : t.predictions)
            if (!top.empty()) guesses.push_back(top.front().token);
        std::cout << "predicted: " << joined(guesses) << '\n';
    }
    char loss[64];
    std::snprintf(loss, sizeof loss, "%.4f", t.loss);
    std::cout << "loss: " << loss << " nats\n";
}

} // namespace

namespace {

// N ids for the benchmark: the default source's words (no special tokens), repeated.
std::vector<int> benchIds(const core::models::Seq2SeqRealModel& m, int n) {
    const core::models::Encoding e = m.source->encode(m.architecture->defaultSource, nullptr, 4096);
    std::vector<int> words;
    for (std::size_t i = 0; i < e.ids.size(); ++i)
        if (!e.special[i]) words.push_back(e.ids[i]);
    if (words.empty()) words.push_back(m.config().padId);
    std::vector<int> ids;
    while (int(ids.size()) < n) ids.push_back(words[ids.size() % words.size()]);
    return ids;
}

// The median of 6 timed runs of `work` after one that warms the caches and the thread pool.
template <typename Work>
double medianMs(const Work& work) {
    std::vector<double> times;
    for (int run = 0; run < 7; ++run) {
        const auto start = std::chrono::steady_clock::now();
        work();
        const auto end = std::chrono::steady_clock::now();
        if (run > 0)
            times.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// --bench-forward N on an encoder-decoder: the teacher-forced forward of N source tokens and a
// target of M (--generate), and greedy generation of exactly M tokens on the key/value cache
// (the end token suppressed, as Hugging Face's min_new_tokens does), the encoder included.
int benchSeq2Seq(const CliOptions& options) {
    const core::models::Seq2SeqRealModel& m = *options.seq2seqModel;
    const core::models::Seq2SeqConfig& c = m.config();
    const int n = options.real.benchForward, steps = options.real.generate;
    const std::vector<int> source = benchIds(m, n), words = benchIds(m, steps - 1);
    std::vector<int> decoderInput = {c.decoderStartId};
    decoderInput.insert(decoderInput.end(), words.begin(), words.end());
    std::vector<int> suppressed = c.neverGenerated;
    suppressed.push_back(c.eosId);
    const double forward =
        medianMs([&] { core::models::runSeq2Seq(*m.net, source, decoderInput); });
    std::size_t written = 0;
    const double generate = medianMs([&] {
        const core::models::Seq2SeqRun encoded = core::models::encodeSource(*m.net, source);
        written = core::models::generateGreedy(*m.net, encoded, steps, suppressed).ids.size();
    });
    std::printf("model: %s (%s, %d + %d layers, %d heads, d_model %d, %s)\n",
                m.location.source.c_str(), m.family.c_str(), c.base.layers, c.decoderLayers,
                c.base.heads, c.base.dModel, m.net->dtype().c_str());
    std::printf("load: %.1f ms\n", m.loadMilliseconds);
    std::printf("forward: %.2f ms (median of 6 runs, %d source tokens, %d target tokens "
                "teacher-forced, with the logits)\n",
                forward, n, steps);
    std::printf("forward rate: %.1f GFLOP/s\n", seq2seqForwardFlops(c, n, steps) / (forward * 1e6));
    std::printf("generate: %.2f ms (median of 6 runs, %d source tokens, %zu tokens greedy on the "
                "key/value cache, the encoder included)\n",
                generate, n, written);
    return 0;
}

} // namespace

double seq2seqForwardFlops(const core::models::Seq2SeqConfig& c, int sourceTokens,
                           int targetTokens) {
    const double n = sourceTokens, t = targetTokens, d = c.base.dModel;
    const double q = double(c.base.heads) * c.base.headSize(), f = c.base.dInner;
    const double ff = 2; // wi and wo (a gated feed-forward's wi_1 is not counted)
    const double encoder =
        2 * n * d * 3 * q + 2 * 2 * n * n * q + 2 * n * q * d + ff * 2 * n * d * f;
    const double self = 2 * t * d * 3 * q + 2 * 2 * t * t * q + 2 * t * q * d;
    const double cross = 2 * t * d * q + 2 * n * d * 2 * q + 2 * 2 * t * n * q + 2 * t * q * d;
    return c.base.layers * encoder + c.decoderLayers * (self + cross + ff * 2 * t * d * f) +
           2 * t * d * c.base.vocabSize;
}

int runSeq2SeqHeadless(const CliOptions& options) {
    const core::models::Seq2SeqRealModel& m = *options.seq2seqModel;
    try {
        if (options.real.benchForward > 0) return benchSeq2Seq(options);
        const std::string& source = options.scene.sentences[0];
        const core::models::Seq2SeqTrace t =
            options.real.generate > 0
                ? core::models::generateSeq2Seq(m, source, options.real.generate, options.real.topK)
                : core::models::traceSeq2Seq(m, source, options.real.target, options.real.topK);
        for (const std::string& w : t.warnings) std::cerr << "mha-viz: warning: " << w << '\n';
        const int precision = options.real.jsonPrecision;
        if (!options.jsonPath.empty())
            writeJsonOutput(options.jsonPath, [&](std::ostream& out) {
                core::models::writeSeq2SeqTraceJson(m, t, precision, out);
            });
        if (!options.exportPath.empty()) {
            core::models::Seq2SeqExportOptions figures;
            figures.scale = options.exportScale, figures.colormap = options.view.colormap;
            figures.caption = options.exportCaption;
            const std::vector<std::string> files =
                core::models::exportSeq2Seq(options.exportPath, m, t, figures);
            std::cerr << "mha-viz: wrote " << files.size() << " files to " << options.exportPath
                      << '\n';
        }
        if (options.jsonPath != "-") printSummary(m, t); // stdout is not the JSON's
    } catch (const std::bad_alloc&) {
        printError("mha-viz", "not enough memory for this source and target");
        return kExitBadInput;
    } catch (const std::exception& e) {
        printError("mha-viz", e.what());
        return kExitBadInput;
    }
    return 0;
}

} // namespace app

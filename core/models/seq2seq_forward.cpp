// The encoder-decoder forward and greedy decoding (seq2seq_forward.h).
#include "models/seq2seq_forward.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace core::models {
namespace {

const std::vector<int> kNone;

void checkIds(const Seq2SeqModel& model, const std::vector<int>& ids, const char* side) {
    const Seq2SeqConfig& c = model.config();
    if (ids.empty()) throw std::invalid_argument(std::string("the ") + side + " has no tokens");
    if (c.positions > 0 && int(ids.size()) > c.positions)
        throw std::invalid_argument(std::string("the ") + side + " has " +
                                    std::to_string(ids.size()) + " tokens, the model reads " +
                                    std::to_string(c.positions) + " at most");
    for (int id : ids)
        if (id < 0 || id >= c.base.vocabSize)
            throw std::invalid_argument(std::string("the ") + side + "'s token id " +
                                        std::to_string(id) + " is outside the vocabulary of " +
                                        std::to_string(c.base.vocabSize));
}

void checkAblation(const Seq2SeqModel& model, const Seq2SeqAblation& a) {
    const int H = model.config().base.heads;
    const auto check = [H](const std::vector<int>& heads) {
        for (int h : heads)
            if (h < 0 || h >= H)
                throw std::invalid_argument("head " + std::to_string(h + 1) +
                                            " does not exist: the model has " + std::to_string(H) +
                                            " heads a layer");
    };
    for (const auto& heads : a.encoder) check(heads);
    for (const DecoderAblation& d : a.decoder) check(d.self), check(d.cross);
}

const DecoderAblation& decoderAblation(const Seq2SeqAblation& a, int l) {
    static const DecoderAblation none;
    return std::size_t(l) < a.decoder.size() ? a.decoder[std::size_t(l)] : none;
}

// The index of the largest logit not suppressed, and its margin over the next.
std::pair<int, double> bestOf(const Eigen::Ref<const RowVec>& logits,
                              const std::vector<int>& suppressed) {
    int best = -1, second = -1;
    for (int v = 0; v < int(logits.size()); ++v) {
        if (std::find(suppressed.begin(), suppressed.end(), v) != suppressed.end()) continue;
        if (best < 0 || logits(v) > logits(best))
            second = best, best = v;
        else if (second < 0 || logits(v) > logits(second))
            second = v;
    }
    if (best < 0) throw std::invalid_argument("every token is suppressed");
    return {best, second < 0 ? 0.0 : double(logits(best)) - double(logits(second))};
}

} // namespace

void attendDecoderSelf(int l, AttentionInput& in, DecoderCache& cache, Attention& out) {
    Mat& keys = cache.selfKeys.at(std::size_t(l));
    Mat& values = cache.selfValues.at(std::size_t(l));
    const int past = int(keys.rows());
    in.queryLen = int(in.q.rows()), in.keyLen = past + in.queryLen, in.causal = true;
    if (past > 0) in.pastKeys = std::move(keys), in.pastValues = std::move(values);
    attendProjected(in, out);
    keys = out.k, values = out.v; // (P + n) x (H*d_head): the next step's past
}

void attendDecoderCross(int l, AttentionInput& in, DecoderCache& cache, Attention& out) {
    Mat& keys = cache.crossKeys.at(std::size_t(l));
    Mat& values = cache.crossValues.at(std::size_t(l));
    in.queryLen = int(in.q.rows()), in.keyLen = int(cache.encoded.rows());
    in.xSource = std::move(cache.encoded); // Ns x d: marks the attention as cross
    in.k = std::move(keys), in.v = std::move(values);
    try {
        attendProjected(in, out);
    } catch (...) { // the cache stays whole for the caller's next try
        cache.encoded = std::move(in.xSource);
        if (in.k.size() > 0) keys = std::move(in.k), values = std::move(in.v);
        if (out.k.size() > 0) keys = std::move(out.k), values = std::move(out.v);
        throw;
    }
    cache.encoded = std::move(in.xSource);
    keys = std::move(out.k), values = std::move(out.v); // Ns x (H*d_head), back in the cache
}

Seq2SeqRun encodeSource(const Seq2SeqModel& model, const std::vector<int>& source,
                        const Seq2SeqAblation& ablated) {
    checkIds(model, source, "source");
    checkAblation(model, ablated);
    Seq2SeqRun run;
    Mat x = model.embedSource(source); // Ns x d
    const int L = model.config().base.layers;
    run.encoder.resize(std::size_t(L)), run.encoderRead.resize(std::size_t(L));
    for (int l = 0; l < L; ++l)
        model.encoderLayer(
            l, x, std::size_t(l) < ablated.encoder.size() ? ablated.encoder[std::size_t(l)] : kNone,
            run.encoder[std::size_t(l)], &run.encoderRead[std::size_t(l)]);
    run.encoded = model.encoderOutput(x);
    return run;
}

Seq2SeqRun runSeq2Seq(const Seq2SeqModel& model, const std::vector<int>& source,
                      const std::vector<int>& decoderInput, const Seq2SeqAblation& ablated) {
    checkIds(model, decoderInput, "target");
    Seq2SeqRun run = encodeSource(model, source, ablated);
    DecoderCache cache = model.startDecoder(run.encoded);
    Mat y = model.embedTarget(decoderInput, 0); // Nt x d
    const int L = model.config().decoderLayers;
    run.decoderSelf.resize(std::size_t(L)), run.cross.resize(std::size_t(L));
    for (int l = 0; l < L; ++l) {
        std::pair<Mat, Mat> read; // what the two attentions read: Nt x d each
        model.decoderLayer(l, y, cache, decoderAblation(ablated, l),
                           run.decoderSelf[std::size_t(l)], run.cross[std::size_t(l)], &read);
        run.selfRead.push_back(std::move(read.first));
        run.crossRead.push_back(std::move(read.second));
    }
    run.logits = model.head(y);
    return run;
}

GreedyOutput generateGreedy(const Seq2SeqModel& model, const Seq2SeqRun& encoded, int maxTokens,
                            const std::vector<int>& suppressed, const Seq2SeqAblation& ablated) {
    const Seq2SeqConfig& c = model.config();
    const int L = c.decoderLayers, H = c.base.heads, Ns = int(encoded.encoded.rows());
    if (c.positions > 0) maxTokens = std::min(maxTokens, c.positions - 1);
    GreedyOutput out;
    out.cross.assign(std::size_t(L), Mat(0, Ns));
    DecoderCache cache = model.startDecoder(encoded.encoded);
    std::vector<Mat> crossRows(static_cast<std::size_t>(L)); // per layer, step-major (n*H) x Ns
    std::vector<RowVec> logitRows;
    int token = c.decoderStartId;
    for (int step = 0; step < maxTokens; ++step) {
        Mat y = model.embedTarget({token}, step); // 1 x d
        for (int l = 0; l < L; ++l) {
            Attention self, cross;
            model.decoderLayer(l, y, cache, decoderAblation(ablated, l), self, cross);
            Mat& rows = crossRows[std::size_t(l)];
            rows.conservativeResize(rows.rows() + H, Ns);
            rows.bottomRows(H) = cross.attention; // H x Ns: one query, every head
        }
        const Mat logits = model.head(y); // 1 x V
        logitRows.push_back(logits.row(0));
        const auto [best, margin] = bestOf(logits.row(0), suppressed);
        out.ids.push_back(best), out.margins.push_back(margin);
        token = best;
        if (best == c.eosId) break;
    }
    const int n = int(out.ids.size());
    for (int l = 0; l < L; ++l) { // (H*n) x Ns, head-major as Attention's blocks
        Mat& m = out.cross[std::size_t(l)];
        m.resize(Eigen::Index(H) * n, Ns);
        for (int s = 0; s < n; ++s)
            for (int h = 0; h < H; ++h)
                m.row(Eigen::Index(h) * n + s) =
                    crossRows[std::size_t(l)].row(Eigen::Index(s) * H + h);
    }
    out.logits.resize(n, c.base.vocabSize);
    for (int s = 0; s < n; ++s) out.logits.row(s) = logitRows[std::size_t(s)];
    return out;
}

} // namespace core::models

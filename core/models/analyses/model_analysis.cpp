// The analyses of a real model's trace (model_analysis.h): head detectors, attention rollout,
// value-weighted attention and the logit lens.
#include "models/analyses/model_analysis.h"

#include "base/prng.h"
#include "io/csv_table.h"

#include <stdexcept>

namespace core::models {
namespace {

// The analyses read one self-attention sentence: what a real model's trace holds.
void checkOneSentence(const Attention& a, const char* what) {
    if (a.batch != 1 || a.cross || a.queryLen != a.keyLen)
        throw std::invalid_argument(std::string(what) + " reads one self-attention sentence");
}

// The shared check of a stack of layers: each one sentence of n tokens with the same heads.
void checkLayers(const std::vector<std::shared_ptr<const Trace>>& layers, int n, const char* what) {
    for (const auto& layer : layers) {
        if (!layer) throw std::invalid_argument(std::string(what) + ": a layer is missing");
        checkOneSentence(layer->attention, what);
        if (layer->attention.queryLen != n || layer->attention.heads != layers[0]->attention.heads)
            throw std::invalid_argument(std::string(what) +
                                        ": the layers differ in length or heads");
    }
}

const char* const kPreviousExplanation =
    "share of the head's attention from each token to the token before it (TransformerLens "
    "previous_token_head, mul); an exact previous-token head scores (N-1)/N";
const char* const kDuplicateExplanation =
    "share of the head's attention to earlier copies of the current token (TransformerLens "
    "duplicate_token_head, mul)";
const char* const kInductionExplanation =
    "share of the head's attention to the token after an earlier copy of the current token "
    "(TransformerLens induction_head, mul); an exact induction head on R tokens repeated after a "
    "BOS scores R/(2R+1)";
const char* const kFirstExplanation =
    "mean attention to the first token over the later tokens: 1 for an attention sink";

} // namespace

Mat previousTokenPattern(int n) {
    Mat p = Mat::Zero(n, n); // N x N
    for (int i = 1; i < n; ++i) p(i, i - 1) = 1;
    return p;
}

Mat duplicateTokenPattern(const std::vector<int>& ids) {
    const int n = int(ids.size());
    Mat p = Mat::Zero(n, n); // N x N; the diagonal stays 0: every token is a copy of itself
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (ids[std::size_t(j)] == ids[std::size_t(i)]) p(i, j) = 1;
    return p;
}

Mat inductionPattern(const std::vector<int>& ids) {
    const int n = int(ids.size());
    Mat p = Mat::Zero(n, n); // N x N: the duplicate pattern moved one key to the right
    for (int i = 0; i < n; ++i)
        for (int j = 1; j <= i; ++j)
            if (ids[std::size_t(j - 1)] == ids[std::size_t(i)]) p(i, j) = 1;
    return p;
}

double detectionScore(const Mat& attention, const Mat& pattern,
                      const HeadDetectorOptions& options) {
    if (attention.rows() != attention.cols() || attention.rows() != pattern.rows() ||
        pattern.rows() != pattern.cols())
        throw std::invalid_argument("detectionScore: attention and pattern must be the same N x N");
    Eigen::MatrixXd a = attention.cast<double>(); // N x N, in double for the sums
    if (options.excludeBos && a.cols() > 0) a.col(0).setZero();
    if (options.excludeCurrentToken) a.diagonal().setZero();
    const double total = a.sum();
    if (total == 0) return 0;
    return a.cwiseProduct(pattern.cast<double>()).sum() / total;
}

double firstTokenScore(const Mat& attention) {
    const Eigen::Index n = attention.rows();
    if (n < 2 || attention.cols() != n)
        throw std::invalid_argument("firstTokenScore needs an N x N attention with N >= 2");
    return attention.col(0).tail(n - 1).cast<double>().mean();
}

Mat headAttention(const Attention& attention, int head) {
    checkOneSentence(attention, "headAttention");
    if (head < 0 || head >= attention.heads)
        throw std::invalid_argument("headAttention: no head " + std::to_string(head));
    return attention.attention.middleRows(attention.headRow(0, head), attention.queryLen); // N x N
}

std::vector<HeadDetectorScores> detectHeads(const std::vector<std::shared_ptr<const Trace>>& layers,
                                            const std::vector<int>& ids,
                                            const HeadDetectorOptions& options) {
    const int n = int(ids.size());
    if (n < 2) throw std::invalid_argument("detectHeads needs at least 2 tokens");
    checkLayers(layers, n, "detectHeads");
    const int L = int(layers.size());
    const int H = layers.empty() ? 0 : layers[0]->attention.heads;
    const Mat patterns[] = {previousTokenPattern(n), duplicateTokenPattern(ids),
                            inductionPattern(ids)}; // each N x N
    std::vector<HeadDetectorScores> out = {
        {"previous_token", Mat(L, H), kPreviousExplanation}, // each L x H
        {"duplicate_token", Mat(L, H), kDuplicateExplanation},
        {"induction", Mat(L, H), kInductionExplanation},
        {"first_token", Mat(L, H), kFirstExplanation}};
    for (int l = 0; l < L; ++l)
        for (int h = 0; h < H; ++h) {
            const Mat a = headAttention(layers[std::size_t(l)]->attention, h); // N x N
            for (std::size_t s = 0; s < 3; ++s)
                out[s].scores(l, h) = Scalar(detectionScore(a, patterns[s], options));
            out[3].scores(l, h) = Scalar(firstTokenScore(a));
        }
    return out;
}

std::vector<int> repeatedRandomTokens(int vocabSize, int length, std::uint64_t seed, int bosId) {
    const bool bosDrawable = bosId >= 0 && bosId < vocabSize;
    if (length < 1 || vocabSize - (bosDrawable ? 1 : 0) < 2)
        throw std::invalid_argument("repeatedRandomTokens needs length >= 1 and two tokens");
    SplitMix64 rng(seed);
    std::vector<int> half;
    while (int(half.size()) < length) {
        // The modulo's bias is below vocabSize / 2^64: nothing a detector could see.
        const int id = int(rng.next() % std::uint64_t(vocabSize));
        if (id != bosId) half.push_back(id); // the BOS stays the only first-token marker
    }
    std::vector<int> ids;
    if (bosId >= 0) ids.push_back(bosId);
    ids.insert(ids.end(), half.begin(), half.end());
    ids.insert(ids.end(), half.begin(), half.end());
    return ids;
}

std::vector<HeadDetectorScores> detectHeadsOnRepeatedTokens(const RealModel& model, int length,
                                                            std::uint64_t seed,
                                                            const HeadDetectorOptions& options) {
    const int bos = model.tokenizer->startId();
    const std::vector<int> ids =
        repeatedRandomTokens(model.tokenizer->vocabSize(), length, seed, bos);
    if (int(ids.size()) > model.config().nPositions)
        throw std::invalid_argument("the repeated sequence has " + std::to_string(ids.size()) +
                                    " tokens, more than the model's context of " +
                                    std::to_string(model.config().nPositions));
    ForwardOptions run;
    run.logits = false; // only the attention is read
    std::vector<std::shared_ptr<const Trace>> layers;
    runForward(*model.net, ids, {}, run, [&](int l, Attention&& attention, Mat&&) {
        auto layer = std::make_shared<Trace>(); // the attention is all the detectors read
        layer->layer = l;
        layer->attention = std::move(attention);
        layers.push_back(std::move(layer));
    });
    return detectHeads(layers, ids, options);
}

namespace {

const char* const kNextExplanation =
    "mean attention from each token to the token after it (Clark et al. 2019); > 0.5 for their "
    "next-token heads";
const char* const kPreviousMeanExplanation =
    "mean attention from each token to the token before it (Clark et al. 2019); > 0.5 for their "
    "previous-token heads";
const char* const kSelfExplanation = "mean attention from each token to itself (Clark et al. 2019)";

// Mean over the queries i that have a key i + offset of the attention to it.
double offsetScore(const Mat& a /* N x N */, int offset) {
    double sum = 0;
    int count = 0;
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
        const Eigen::Index j = i + offset;
        if (j < 0 || j >= a.cols()) continue;
        sum += a(i, j);
        ++count;
    }
    return count ? sum / count : 0;
}

// Mean over the queries of the attention to the keys `positions` together.
double tokenScore(const Mat& a /* N x N */, const std::vector<int>& positions) {
    double sum = 0;
    for (int j : positions) sum += a.col(j).cast<double>().sum();
    return a.rows() ? sum / double(a.rows()) : 0;
}

} // namespace

std::vector<HeadDetectorScores> detectEncoderHeads(const RealTrace& trace) {
    const RealModel& model = *trace.model;
    const int L = trace.layerCount(), H = model.config().heads, n = int(trace.ids.size());
    std::vector<int> first, separators; // [CLS] / <s> and [SEP] / </s> positions
    const std::vector<int> specials = model.tokenizer->specialIds();
    for (int i = 0; i < n; ++i) {
        const int id = trace.ids[std::size_t(i)];
        if (!specials.empty() && id == specials.front()) first.push_back(i);
        if (specials.size() > 1 && id == specials[1]) separators.push_back(i);
    }
    const std::string cls = specials.empty() ? "?" : model.tokenizer->readable(specials.front());
    const std::string sep = specials.size() < 2 ? "?" : model.tokenizer->readable(specials[1]);
    std::vector<HeadDetectorScores> out = {
        {"previous_token", Mat(L, H), kPreviousMeanExplanation},
        {"next_token", Mat(L, H), kNextExplanation},
        {"self", Mat(L, H), kSelfExplanation},
        {"cls", Mat(L, H), "mean attention to " + cls + " (Clark et al. 2019)"},
        {"sep", Mat(L, H),
         "mean attention to " + sep + ", where heads with nothing to do look (Clark et al. 2019)"}};
    for (HeadDetectorScores& s : out) s.onSentence = true;
    for (int l = 0; l < L; ++l) {
        const std::shared_ptr<const Trace> layer = trace.layer(l);
        for (int h = 0; h < H; ++h) {
            const Mat a = headAttention(layer->attention, h); // N x N
            out[0].scores(l, h) = Scalar(offsetScore(a, -1));
            out[1].scores(l, h) = Scalar(offsetScore(a, 1));
            out[2].scores(l, h) = Scalar(offsetScore(a, 0));
            out[3].scores(l, h) = Scalar(tokenScore(a, first));
            out[4].scores(l, h) = Scalar(tokenScore(a, separators));
        }
    }
    return out;
}

namespace {

// The half of detectModelHeads's repeated sequence: TransformerLens's 50, or what fits.
int repeatedHalf(const RealModel& model) {
    return std::min(50, (model.config().nPositions - 1) / 2);
}

} // namespace

std::vector<HeadDetectorScores> detectModelHeads(const RealTrace& trace) {
    const RealModel& model = *trace.model;
    if (model.architecture->detectors == Detectors::SentenceShown) return detectEncoderHeads(trace);
    return detectHeadsOnRepeatedTokens(model, repeatedHalf(model), 1);
}

std::string detectorsInputLine(const RealModel& model) {
    if (model.architecture->detectors == Detectors::SentenceShown)
        return "Scored on the sentence shown: they change as you type.";
    const int half = repeatedHalf(model);
    const bool bos = model.tokenizer->startId() >= 0;
    return "Scored on " + std::to_string(half) + " random tokens repeated twice (" +
           std::to_string(2 * half + (bos ? 1 : 0)) + (bos ? " with the start token" : " tokens") +
           "), not on the typed sentence: the same whatever you type.";
}

namespace {

const char* const kSinkTitle = "attention sink (first token) on your sentence";
const char* const kSinkExplanation =
    "mean attention to the first token over the later tokens of the sentence shown (Xiao et al. "
    "2023, attention sinks): 1 when every token looks only at the first";

} // namespace

Mat attentionSinkShares(const RealTrace& trace) {
    const int L = trace.layerCount();
    if (int(trace.firstKeyWeights.size()) != L)
        throw std::invalid_argument("attentionSinkShares: the trace has no first-key weights");
    const Eigen::Index H = L > 0 ? trace.firstKeyWeights[0].cols() : 0;
    Mat shares = Mat::Zero(L, H); // L x H
    for (int l = 0; l < L; ++l) {
        const Mat& column = trace.firstKeyWeights[std::size_t(l)]; // N x H
        if (column.cols() != H)
            throw std::invalid_argument("attentionSinkShares: the layers differ in heads");
        if (column.rows() < 2) continue; // no query after the first
        shares.row(l) = (column.bottomRows(column.rows() - 1).cast<double>().colwise().sum() /
                         double(column.rows() - 1))
                            .cast<Scalar>();
    }
    return shares;
}

Mat attentionSinkShares(const std::vector<std::shared_ptr<const Trace>>& layers) {
    const int n = layers.empty() || !layers[0] ? 0 : layers[0]->attention.queryLen;
    checkLayers(layers, n, "attentionSinkShares");
    const int H = layers.empty() ? 0 : layers[0]->attention.heads;
    Mat shares(int(layers.size()), H); // L x H
    for (std::size_t l = 0; l < layers.size(); ++l)
        for (int h = 0; h < H; ++h)
            shares(Eigen::Index(l), h) =
                Scalar(firstTokenScore(headAttention(layers[l]->attention, h)));
    return shares;
}

HeadDetectorScores sinkDetectorScores(Mat shares) {
    HeadDetectorScores s{"first_token_on_sentence", std::move(shares), kSinkExplanation};
    s.title = kSinkTitle;
    s.onSentence = true;
    return s;
}

HeadDetectorScores sentenceSinkScores(const RealTrace& trace) {
    return sinkDetectorScores(attentionSinkShares(trace));
}

std::vector<HeadDetectorScores> withSentenceSink(std::vector<HeadDetectorScores> detectors,
                                                 const RealTrace& trace) {
    HeadDetectorScores sink = sentenceSinkScores(trace);
    const bool fits = detectors.empty() || (detectors[0].scores.rows() == sink.scores.rows() &&
                                            detectors[0].scores.cols() == sink.scores.cols());
    if (fits) detectors.push_back(std::move(sink));
    return detectors;
}

std::string headScoresCsv(const std::vector<HeadDetectorScores>& scores) {
    CsvTable table;
    table.names = {"layer", "head"};
    const Eigen::Index L = scores.empty() ? 0 : scores[0].scores.rows();
    const Eigen::Index H = scores.empty() ? 0 : scores[0].scores.cols();
    table.columns.resize(2 + scores.size());
    for (const HeadDetectorScores& s : scores) {
        if (s.scores.rows() != L || s.scores.cols() != H)
            throw std::invalid_argument("headScoresCsv: the grids differ in shape");
        table.names.push_back(s.name);
    }
    for (Eigen::Index l = 0; l < L; ++l)
        for (Eigen::Index h = 0; h < H; ++h) {
            table.columns[0].push_back(double(l + 1));
            table.columns[1].push_back(double(h + 1));
            for (std::size_t s = 0; s < scores.size(); ++s)
                table.columns[2 + s].push_back(double(scores[s].scores(l, h)));
        }
    return csvText(table);
}

namespace {

// The rollout after layers 1..upToLayer, each step handed to `after` (layer from 1, N x N).
template <typename After>
void rollOut(const std::vector<Mat>& means, int upToLayer, const After& after) {
    if (upToLayer < 0 || upToLayer > int(means.size()))
        throw std::invalid_argument("attentionRollout: no layer " + std::to_string(upToLayer));
    if (means.empty()) throw std::invalid_argument("attentionRollout needs layers");
    const Eigen::Index n = means[0].rows();
    for (const Mat& m : means)
        if (m.rows() != n || m.cols() != n)
            throw std::invalid_argument("attentionRollout: the layers differ in length");
    Eigen::MatrixXd rollout = Eigen::MatrixXd::Identity(n, n); // N x N, in double for the products
    for (int l = 0; l < upToLayer; ++l) {
        Eigen::MatrixXd mix = 0.5 * means[std::size_t(l)].cast<double>() +
                              0.5 * Eigen::MatrixXd::Identity(n, n); // the residual carries each on
        const Eigen::VectorXd rowSums = mix.rowwise().sum();         // N
        mix = rowSums.cwiseInverse().asDiagonal() * mix;
        rollout = mix * rollout;
        after(l + 1, rollout);
    }
    if (upToLayer == 0) after(0, rollout);
}

} // namespace

std::vector<Mat> layerMeans(const std::vector<std::shared_ptr<const Trace>>& layers) {
    if (layers.empty()) throw std::invalid_argument("attentionRollout needs layers");
    const int n = layers[0] ? layers[0]->attention.queryLen : 0;
    checkLayers(layers, n, "attentionRollout");
    std::vector<Mat> means; // L of N x N
    for (const std::shared_ptr<const Trace>& layer : layers) {
        const Attention& a = layer->attention;
        Mat mix = Mat::Zero(n, n); // N x N: mean over heads
        for (int h = 0; h < a.heads; ++h) mix += headAttention(a, h);
        means.push_back(mix / Scalar(std::max(a.heads, 1)));
    }
    return means;
}

Mat attentionRollout(const std::vector<Mat>& means, int upToLayer) {
    Mat out; // N x N
    rollOut(means, upToLayer, [&](int l, const Eigen::MatrixXd& r) {
        if (l == upToLayer) out = r.cast<Scalar>();
    });
    return out;
}

std::vector<Mat> attentionRollouts(const std::vector<Mat>& means) {
    std::vector<Mat> out; // L of N x N
    rollOut(means, int(means.size()), [&](int l, const Eigen::MatrixXd& r) {
        if (l > 0) out.push_back(r.cast<Scalar>());
    });
    return out;
}

namespace {

// Rows [a, b) of a causal layer's rollout, mix (n x N, n = b - a: the layer's normalised mixing
// of those rows) times the rollout before the layer: row i reads rows <= i only, and those are
// zero past column i, so only the b x b corner takes part.
Eigen::MatrixXd causalRows(const Eigen::MatrixXd& mix, const Eigen::MatrixXd& before, int b) {
    return mix.leftCols(b) * before.topLeftCorner(b, b); // n x b
}

} // namespace

std::vector<Mat> attentionRolloutsAfter(const std::vector<Mat>& means,
                                        const std::vector<Mat>& earlier, int P) {
    if (means.empty() || (P > 0 && earlier.size() != means.size()))
        throw std::invalid_argument("attentionRolloutsAfter: the rollouts are of other layers");
    const Eigen::Index n = means[0].rows();
    for (std::size_t l = 0; l < means.size(); ++l)
        if (means[l].rows() != n || means[l].cols() != n || P < 0 || P >= n ||
            (P > 0 && (earlier[l].rows() < P || earlier[l].cols() < P)))
            throw std::invalid_argument("attentionRolloutsAfter: the rows do not fit");
    constexpr Eigen::Index kBlock = 64; // rows at a time: each block reads its own corner
    Eigen::MatrixXd rollout = Eigen::MatrixXd::Identity(n, n); // N x N: after the layers so far
    std::vector<Mat> out;                                      // L of N x N
    for (std::size_t l = 0; l < means.size(); ++l) {
        Eigen::MatrixXd next(n, n); // N x N
        // The earlier text may be shorter: its rows [0, P) end at key P - 1 (causal).
        if (P > 0) next.topLeftCorner(P, P) = earlier[l].topLeftCorner(P, P).cast<double>();
        for (Eigen::Index a = P; a < n; a += kBlock) {
            const Eigen::Index rows = std::min(kBlock, n - a), b = a + rows;
            Eigen::MatrixXd mix = 0.5 * means[l].middleRows(a, rows).cast<double>(); // rows x N
            mix.middleCols(a, rows).diagonal().array() += 0.5; // the residual carries each on
            const Eigen::VectorXd rowSums = mix.rowwise().sum();
            mix = rowSums.cwiseInverse().asDiagonal() * mix;
            next.middleRows(a, rows).setZero();
            next.block(a, 0, rows, b) = causalRows(mix, rollout, int(b));
        }
        if (P > 0) next.topRightCorner(P, n - P).setZero(); // later keys: a causal model's 0
        rollout = std::move(next);
        out.push_back(rollout.cast<Scalar>());
    }
    return out;
}

Mat valueWeightedAttention(const Trace& layer, int head) {
    const Attention& a = layer.attention;
    checkOneSentence(a, "valueWeightedAttention");
    if (head < 0 || head >= a.heads)
        throw std::invalid_argument("valueWeightedAttention: no head " + std::to_string(head));
    if (a.reshapeBug)
        throw std::invalid_argument("valueWeightedAttention: with the reshape bug a head owns no "
                                    "rows of W_O");
    const int n = a.queryLen;
    if (std::size_t(head) < a.headAblated.size() && a.headAblated[std::size_t(head)])
        return Mat::Zero(n, n);
    // With grouped-query attention the values a query head weighs are its K/V head's.
    const Mat values =
        a.v.middleCols(Eigen::Index(a.kvHeadOf(head)) * a.d_head, a.d_head); // N x d_head
    Mat sent = values; // N x d_model: f(x_j) per row (N x d_head without the out projection)
    if (a.outProjection) {
        if (!layer.weights) throw std::invalid_argument("valueWeightedAttention needs the weights");
        sent = values * layer.weights->wO.middleRows(Eigen::Index(head) * a.d_head, a.d_head);
    }
    const RowVec norms = sent.rowwise().norm().transpose(); // 1 x N: |f(x_j)|
    // alpha_ij >= 0, so |alpha_ij f(x_j)| = alpha_ij |f(x_j)|.
    return (headAttention(a, head).array().rowwise() * norms.array()).matrix(); // N x N
}

Mat normalizedRows(const Mat& m) {
    Mat out = m; // rows x cols
    for (Eigen::Index i = 0; i < out.rows(); ++i) {
        const Scalar sum = out.row(i).sum();
        if (sum != 0) out.row(i) /= sum;
    }
    return out;
}

std::vector<std::vector<TokenChoice>> logitLens(const RealModel& model, const RealTrace& trace,
                                                int position, int k) {
    if (trace.residual.size() < 2)
        throw std::invalid_argument("logitLens needs the trace's residual stream");
    if (!model.net->hasHead())
        throw std::invalid_argument("this checkpoint has no head to read the stream through");
    if (position < 0 || position >= trace.residual[0].rows())
        throw std::invalid_argument("logitLens: no position " + std::to_string(position));
    std::vector<std::vector<TokenChoice>> lens;
    for (std::size_t l = 1; l < trace.residual.size(); ++l) {
        const Mat stream = trace.residual[l].row(position); // 1 x d: after layer l
        const Mat logits = model.net->head(stream);         // 1 x V
        lens.push_back(topTokens(model, logits.row(0), k));
    }
    return lens;
}

} // namespace core::models

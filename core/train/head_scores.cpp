#include "train/head_scores.h"

#include <stdexcept>

namespace core::train {

namespace {

void checkHead(const Attention& attention, int head) {
    if (head < 0 || head >= attention.heads)
        throw std::invalid_argument("head " + std::to_string(head) + " is outside 0.." +
                                    std::to_string(attention.heads - 1));
}

// attention.attention is (B*H*N) x N; row headRow(b, h, i) holds query i's weights.
double weight(const Attention& attention, int b, int head, int from, int to) {
    return double(attention.attention(attention.headRow(b, head, from), to));
}

} // namespace

double previousTokenScore(const Attention& attention, int head) {
    checkHead(attention, head);
    double sum = 0;
    long long count = 0;
    for (int b = 0; b < attention.batch; ++b)
        for (int t = 1; t < attention.queryLen; ++t, ++count)
            sum += weight(attention, b, head, t, t - 1);
    return count > 0 ? sum / double(count) : 0.0;
}

double inductionScore(const Attention& attention, int head, int half) {
    checkHead(attention, head);
    if (half < 1 || attention.queryLen != 2 * half || attention.keyLen != 2 * half)
        throw std::invalid_argument("half " + std::to_string(half) +
                                    " does not fit sequences of length " +
                                    std::to_string(attention.queryLen));
    double sum = 0;
    long long count = 0;
    for (int b = 0; b < attention.batch; ++b)
        for (int t = half; t < 2 * half; ++t, ++count)
            sum += weight(attention, b, head, t, t - half + 1);
    return count > 0 ? sum / double(count) : 0.0;
}

double subjectScore(const Attention& attention, int head, const std::vector<VerbSite>& verbs) {
    checkHead(attention, head);
    double sum = 0;
    for (const VerbSite& site : verbs) {
        if (site.batch < 0 || site.batch >= attention.batch || site.verb < 1 ||
            site.verb >= attention.queryLen || site.subject < 0 || site.subject >= site.verb)
            throw std::invalid_argument("verb site at " + std::to_string(site.verb) +
                                        " of sequence " + std::to_string(site.batch) +
                                        " is outside the attention");
        sum += weight(attention, site.batch, head, site.verb - 1, site.subject);
    }
    return verbs.empty() ? 0.0 : sum / double(verbs.size());
}

double tokenAccuracy(const Mat& logits /* (B*n) x V */, const Batch& batch) {
    const int n = batch.length();
    if (logits.rows() != Eigen::Index(batch.size()) * n)
        throw std::invalid_argument("logits rows " + std::to_string(logits.rows()) +
                                    " do not match the batch's " +
                                    std::to_string(batch.size() * n));
    long long right = 0, count = 0;
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t + 1 < n; ++t) {
            if (!batch.lossMask[b][t]) continue;
            Eigen::Index best = 0;
            logits.row(Eigen::Index(b) * n + t).maxCoeff(&best); // first maximum on a tie
            right += best == batch.tokens[b][t + 1];
            ++count;
        }
    return count > 0 ? double(right) / double(count) : 0.0;
}

double agreementAccuracy(const Mat& logits /* (B*n) x V */, int length,
                         const std::vector<VerbSite>& verbs) {
    long long right = 0;
    for (const VerbSite& site : verbs) {
        const Eigen::Index row = Eigen::Index(site.batch) * length + site.verb - 1;
        if (site.verb < 1 || site.verb >= length || row >= logits.rows() ||
            site.rightToken >= logits.cols() || site.wrongToken >= logits.cols())
            throw std::invalid_argument("verb site at " + std::to_string(site.verb) +
                                        " of sequence " + std::to_string(site.batch) +
                                        " is outside the logits");
        right += logits(row, site.rightToken) > logits(row, site.wrongToken);
    }
    return verbs.empty() ? 0.0 : double(right) / double(verbs.size());
}

std::vector<std::string> headScoreNames(TaskKind kind) {
    std::vector<std::string> names = {"previous_token", "induction"};
    if (kind == TaskKind::Agreement) names.push_back("subject");
    return names;
}

std::string headScoreColumn(int layer, int head, const std::string& score) {
    // append, not "L" + ...: GCC 12's -Wrestrict false positive on a literal + std::string
    std::string column("L");
    column.append(std::to_string(layer + 1)).append("H").append(std::to_string(head + 1));
    return column.append(".").append(score);
}

const char* accuracyColumn(TaskKind kind) {
    return kind == TaskKind::Agreement ? "agreement_accuracy" : "accuracy";
}

double taskAccuracy(const ForwardPass& task, const ProbeSet& probe) {
    return probe.kind == TaskKind::Agreement
               ? agreementAccuracy(task.logits, task.length, probe.task.verbs)
               : tokenAccuracy(task.logits, probe.task.batch);
}

std::vector<std::string> probeColumns(const ModelConfig& config, TaskKind kind) {
    std::vector<std::string> names = {"heldout_loss", accuracyColumn(kind)};
    for (int l = 0; l < config.layers; ++l)
        for (int h = 0; h < config.heads; ++h)
            for (const std::string& score : headScoreNames(kind))
                names.push_back(headScoreColumn(l, h, score));
    return names;
}

namespace {

// One head's score, by its name in headScoreNames.
double headScore(const std::string& score, int layer, int head, const ForwardPass& task,
                 const ForwardPass& repeated, const ProbeSet& probe) {
    if (score == "previous_token") return previousTokenScore(repeated.heads[layer], head);
    if (score == "induction") return inductionScore(repeated.heads[layer], head, probe.half);
    return subjectScore(task.heads[layer], head, probe.task.verbs);
}

} // namespace

std::vector<Metric> probeMetrics(const ModelConfig& config, const Params& params,
                                 const ProbeSet& probe) {
    const ForwardPass task = forwardPass(config, params, probe.task.batch);
    const ForwardPass repeated = forwardPass(config, params, probe.repeated);
    std::vector<Metric> metrics = {{"heldout_loss", task.loss},
                                   {accuracyColumn(probe.kind), taskAccuracy(task, probe)}};
    for (int l = 0; l < config.layers; ++l)
        for (int h = 0; h < config.heads; ++h)
            for (const std::string& score : headScoreNames(probe.kind))
                metrics.push_back(
                    {headScoreColumn(l, h, score), headScore(score, l, h, task, repeated, probe)});
    return metrics;
}

} // namespace core::train

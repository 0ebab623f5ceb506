// What "Watch heads learn" plots while a model trains (docs/run-folder.md, "metrics.csv"
// and "Head scores"): the held-out loss, the task's accuracy, and per layer and head how much of
// its attention follows each known pattern. Each score is a mean attention weight, so 1 means the
// head does exactly that and a uniform causal head scores the mean of 1/(t+1).
#pragma once

#include "train/model.h"
#include "train/tasks.h"

#include <string>
#include <vector>

namespace core::train {

// Mean over sequences and t >= 1 of the weight from t to t-1 of head h.
double previousTokenScore(const Attention& attention, int head);

// On sequences of length 2*half whose second half repeats the first: mean over t in the second
// half of the weight from t to t - half + 1, the token after the earlier copy of tokens[t].
// Throws std::invalid_argument when the attention's length is not 2*half (half >= 1).
double inductionScore(const Attention& attention, int head, int half);

// Mean over the verbs of the weight from the position before each verb to its subject noun.
// Throws std::invalid_argument for a site outside the attention's batch or length; 0 for none.
double subjectScore(const Attention& attention, int head, const std::vector<VerbSite>& verbs);

// Share of the loss-masked positions whose largest logit (the first, on a tie) is the next
// token. logits: (B*n) x V, rows as ForwardPass::logits.
double tokenAccuracy(const Mat& logits, const Batch& batch);

// Share of the verbs whose right number form has a higher logit than the wrong form at the
// position before the verb. logits: (B*n) x V with n = length; 0 for no verbs.
double agreementAccuracy(const Mat& logits, int length, const std::vector<VerbSite>& verbs);

// One metrics.csv column.
struct Metric {
    std::string name;
    double value = 0;
};

// The score names of a task, in column order: previous_token, induction, then subject for
// agreement.
std::vector<std::string> headScoreNames(TaskKind kind);

// "L{l}H{h}.{score}" with l and h from 1, as the window shows them.
std::string headScoreColumn(int layer, int head, const std::string& score);

// The task's accuracy column: "agreement_accuracy" for agreement, "accuracy" otherwise.
const char* accuracyColumn(TaskKind kind);

// The task's accuracy on the probe set's task sequences from their forward pass: agreement
// accuracy for agreement, token accuracy otherwise.
double taskAccuracy(const ForwardPass& task, const ProbeSet& probe);

// The names of probeMetrics' columns, in order, without running the model.
std::vector<std::string> probeColumns(const ModelConfig& config, TaskKind kind);

// The probe columns of metrics.csv after step and train_loss: heldout_loss, then accuracy
// (agreement_accuracy for agreement), then per layer, per head, per score name the head score.
// Runs the model on probe.task (loss, accuracy, subject) and probe.repeated (previous_token,
// induction).
std::vector<Metric> probeMetrics(const ModelConfig& config, const Params& params,
                                 const ProbeSet& probe);

} // namespace core::train

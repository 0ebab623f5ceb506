// `mha-viz --model DIR|NAME` for a real checkpoint (docs/real-models.md, "Command line"): the
// v2 trace as JSON, every figure (--export) and the forward benchmark. A run folder of `mha-viz
// train` goes through cli.cpp's trained-model path instead; the folder says which kind it is.
#pragma once

#include "models/analyses/real_model_export.h"
#include "models/real_model.h"

#include <memory>
#include <string>
#include <vector>

namespace app {

struct CliOptions;

struct RealModelFlags {
    int topK = 1;                   // --top-k K: predictions per position
    bool jsonLogits = false;        // --json-logits: the full N x V logits in the trace
    bool jsonAttentionOnly = false; // --json-attention-only: each layer's attention, no weights
    int jsonPrecision = 0;          // --json-precision D: significant digits; 0 = exact
    // --export-traces: the traces beside --export's figures (attention: model-trace.json with
    // the attention alone, kilobytes where the full traces are gigabytes).
    core::models::ExportTraces exportTraces = core::models::ExportTraces::Attention;
    int benchForward = 0; // --bench-forward N: time load and forward on N tokens, exit
    std::string pair;     // --pair TEXT: an encoder's sentence B ([CLS] A [SEP] B [SEP])
    std::string compare;  // --compare MODEL: a second model on the same text, head by head
    bool pairGiven = false;
    // An encoder-decoder's target (seq2seq_cli.h): --target TEXT read teacher-forced, or
    // --generate N greedy tokens.
    std::string target;
    bool targetGiven = false;
    int generate = 0;
};

// Opens the model and checks the sentence (one; the default when none is given). Returns the
// one-line error, or "".
std::string loadRealModel(CliOptions& options, const std::vector<std::string>& sentences);

// --json and/or --export with a real model (the trace once, for both). Returns the exit code.
int runRealModelHeadless(const CliOptions& options);

// --bench-forward N: prints "load: X ms", "forward: Y ms" (median) and the forward's GFLOP/s.
int benchForward(const CliOptions& options);

// FLOPs of one forward over N tokens with the logits: projections, attention, MLP, unembedding
// (multiply-adds count 2).
double realForwardFlops(const core::models::ModelConfig& config, int tokens);

} // namespace app

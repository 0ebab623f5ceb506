// --model naming an encoder-decoder (T5, mT5, BART, Marian; docs/real-models.md,
// "Encoder-decoders"): the source is --sentence, the target --target TEXT (read teacher-forced
// after the decoder's start token) or --generate N (greedy, stopping at the end token; the
// default, 32 tokens, when neither is given). --json writes the v2 trace with every encoder,
// decoder self- and cross-attention map; without it the tokens, the decoder's output or
// predictions and the loss are printed. Bad input is one line and exit 2.
#pragma once

#include "cli/cli.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace app {

// When `where` is an encoder-decoder's folder: opens it into options.seq2seqModel and checks the
// flags and the source; returns "" when all is well, else the one-line error. nullopt when it is
// another model (--target and --generate are then refused, as a decoder reads no target).
// `given` says whether a flag was on the command line.
std::optional<std::string> loadSeq2SeqIfOne(const core::models::ModelLocation& where,
                                            const std::function<bool(const char*)>& given,
                                            CliOptions& options,
                                            const std::vector<std::string>& sentences);

// The trace once: written with --json, else summarised on stdout; with --bench-forward N the
// benchmark instead (the teacher-forced forward of N source tokens and a target of --generate M,
// and greedy generation of exactly M tokens, medians in ms). Returns the exit code.
int runSeq2SeqHeadless(const CliOptions& options);

// The FLOPs of the teacher-forced forward (projections, scores, weights x V, a two-matrix
// feed-forward, the cross keys and values, every target position's logits): --bench-forward's rate.
double seq2seqForwardFlops(const core::models::Seq2SeqConfig& c, int sourceTokens,
                           int targetTokens);

} // namespace app

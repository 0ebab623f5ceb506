// What a real model's trace says beyond its attention maps: which heads are previous-token,
// duplicate-token, induction or first-token (attention sink) heads, scored as TransformerLens's
// head detector scores them; how much each token draws from each input token through the whole
// stack (attention rollout); what a token really sends through a head (value-weighted attention);
// and what the model would predict after each layer (the logit lens). GUI-free: the explorer and
// the CLI draw and write what these return.
#pragma once

#include "engine/trace.h"
#include "models/real_model.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

// ---- Head detectors -------------------------------------------------------------------------
//
// TransformerLens (Nanda et al., its head detector, detect_head) scores a head against a
// detection pattern P, an N x N matrix of 0 and 1 on and below the diagonal that marks the
// query -> key cells a head of that kind attends to. With its default error measure ("mul") the
// score is sum(A .* P) / sum(A) over the whole N x N attention A of the head: the share of all
// the head's attention that lands on the marked cells. Its defaults keep the first token and the
// diagonal (exclude_bos and exclude_current_token false). Query rows with no marked cell still
// count in the denominator, so even an exact head scores below 1: (N-1)/N for previous-token,
// R/(2R+1) for induction on R random tokens repeated twice after a BOS.
// The patterns, made from the tokens actually present:
//   previous_token:  P(i, i-1) = 1.
//   duplicate_token: P(i, j) = 1 for j < i when token j is the same token as token i.
//   induction:       P(i, j) = 1 for 1 <= j <= i when token j-1 is the same token as token i
//                    (the token after an earlier copy of the current one).
// first_token is this project's own: the mean attention to position 0 over the queries >= 1 (an
// attention sink scores 1; a uniform causal head the mean of 1/(i+1)).

struct HeadDetectorOptions {
    bool excludeBos = false;          // zero the attention to position 0 before scoring
    bool excludeCurrentToken = false; // zero the diagonal before scoring
};

struct HeadDetectorScores {
    std::string name;        // previous_token, duplicate_token, induction, first_token
    Mat scores;              // L x H, layers and heads from 0
    std::string explanation; // one sentence for a tooltip or the CSV's reader
    std::string title = {};  // for people, where it differs from the name ("": the name)
    bool onSentence = false; // scored on the text shown, not on a test sequence of its own

    const std::string& shownName() const { return title.empty() ? name : title; }
};

// The detection patterns, N x N (0 or 1, lower-triangular).
Mat previousTokenPattern(int n);
Mat duplicateTokenPattern(const std::vector<int>& ids);
Mat inductionPattern(const std::vector<int>& ids);

// TransformerLens's "mul" score of one head's attention (N x N, rows the queries) against a
// pattern of the same shape; 0 when the attention left after the exclusions sums to 0.
double detectionScore(const Mat& attention, const Mat& pattern,
                      const HeadDetectorOptions& options = {});

// Mean attention to key 0 over the queries 1..N-1 of an N x N attention (N >= 2).
double firstTokenScore(const Mat& attention);

// Head h's N x N attention in sentence 0 of a self-attention layer.
Mat headAttention(const Attention& attention, int head);

// The four scores (previous_token, duplicate_token, induction, first_token) of every head of
// the layers, run on `ids` (the tokens the layers saw, N >= 2). Throws std::invalid_argument
// when a layer is not one self-attention sentence of ids.size() tokens or the layers disagree on
// the head count.
std::vector<HeadDetectorScores> detectHeads(const std::vector<std::shared_ptr<const Trace>>& layers,
                                            const std::vector<int>& ids,
                                            const HeadDetectorOptions& options = {});

// TransformerLens's test sequence for induction: `length` tokens drawn uniformly from
// [0, vocabSize) by SplitMix64(seed) (core/base/prng.h), never bosId, then the same tokens
// again; bosId first when it is >= 0 (2*length or 2*length + 1 ids). Throws
// std::invalid_argument for length < 1 or fewer than two drawable tokens.
std::vector<int> repeatedRandomTokens(int vocabSize, int length, std::uint64_t seed, int bosId);

// Runs the model on repeatedRandomTokens(the tokenizer's vocabulary, length, seed, the
// token its sequences start with: <|endoftext|> for GPT-2) and detects its heads. Throws
// std::invalid_argument when the sequence does not fit the model's context.
std::vector<HeadDetectorScores>
detectHeadsOnRepeatedTokens(const RealModel& model, int length, std::uint64_t seed,
                            const HeadDetectorOptions& options = {});

// An encoder's heads as Clark et al. 2019 ("What Does BERT Look At?") measure them, on the
// sentence of the trace: each score the mean over the queries of the head's attention to
//   previous_token: the token before (queries 1..N-1),  next_token: the token after
//   (queries 0..N-2),  self: itself,  cls: [CLS] (<s>),  sep: every [SEP] (</s>) together.
// Heads above 0.5 on previous_token or next_token are their positional heads; attention to
// [SEP] is where heads with nothing to do on this input put it.
std::vector<HeadDetectorScores> detectEncoderHeads(const RealTrace& trace);

// The detectors the trace's family runs (its registry entry, architectures.h): an encoder's
// on the trace's sentence (detectEncoderHeads), a decoder's on TransformerLens's 2 x 50 random
// tokens after its start token, fewer when the context is shorter (detectHeadsOnRepeatedTokens,
// seed 1). The window and the CLI both ask this.
std::vector<HeadDetectorScores> detectModelHeads(const RealTrace& trace);
// What detectModelHeads scores for this model, said where its scores show: "scored on 50
// random tokens repeated twice (101 with the start token), not on the typed sentence", or
// "scored on the sentence shown".
std::string detectorsInputLine(const RealModel& model);

// ---- Attention sinks ------------------------------------------------------------------------
//
// Xiao et al. 2023 ("Efficient Streaming Language Models with Attention Sinks", StreamingLLM):
// trained decoders put much of many heads' attention on the first token whatever it is, a place
// to park the softmax's mass when nothing else matters. A head's sink share on the trace's own
// text is firstTokenScore of its map: the mean over the queries 1..N-1 of the weight on key 0
// (1: every later token looks only at the first; a uniform causal head: the mean of 1/(i+1)).

// L x H, layers and heads from 0, from RealTrace::firstKeyWeights (every layer, kept or not).
// All 0 for a one-token text (no query after the first). Throws std::invalid_argument for a
// trace without them (one not made by traceRealModel).
Mat attentionSinkShares(const RealTrace& trace);
// The same from layer traces (each one self-attention sentence of N >= 2 tokens): the check.
Mat attentionSinkShares(const std::vector<std::shared_ptr<const Trace>>& layers);

// attentionSinkShares as a detector's scores: first_token_on_sentence, titled "attention sink
// (first token) on your sentence", scored on the text (onSentence).
HeadDetectorScores sentenceSinkScores(const RealTrace& trace);
// The same of shares already made (L x H).
HeadDetectorScores sinkDetectorScores(Mat shares);
// `detectors` with sentenceSinkScores(trace) after them: what the window's grid, its CSV and the
// export show. The sink is left out when its grid differs in shape from the others' (a trace of
// another model).
std::vector<HeadDetectorScores> withSentenceSink(std::vector<HeadDetectorScores> detectors,
                                                 const RealTrace& trace);

// "layer,head,<name>..." then one row per head, layers and heads numbered from 1 (as the window
// names them), layer by layer. Throws std::invalid_argument when the grids differ in shape.
std::string headScoresCsv(const std::vector<HeadDetectorScores>& scores);

// ---- Attention rollout ----------------------------------------------------------------------
//
// Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers": the residual connection
// carries each token on, so a layer mixes tokens by 0.5 * (mean over heads of its attention) +
// 0.5 * I, rows renormalised; the layers' mixings multiplied, last layer on the left. Row i of
// the N x N result: how much token i's stream after layer upToLayer draws from each input token.
// Rows sum to 1, and a causal model's rollout stays lower-triangular. The input is each layer's
// mean attention over its heads (RealTrace::meanAttention, or layerMeans). upToLayer counts
// layers from 1 (0 gives the identity: the input itself). Throws std::invalid_argument for
// upToLayer outside 0..L or layers of different lengths.
Mat attentionRollout(const std::vector<Mat>& layerMeans, int upToLayer);
// attentionRollout after each layer 1..L (entry l: after layer l + 1), in one pass: each layer's
// mixing multiplied once, not again for every later layer.
std::vector<Mat> attentionRollouts(const std::vector<Mat>& layerMeans);
// attentionRollouts of a causal model (lower-triangular means), whose rows [0, P) are those of
// `earlier` (L entries of at least P rows: the rollouts of a text the new one starts with), or
// all made when P = 0 (`earlier` empty). Under the causal mask row i reads rows <= i only, so
// just rows [P, N) are multiplied, each block of rows by the corner it reads (a third of the
// whole product's work for P = 0). Throws std::invalid_argument when `earlier` does not fit.
std::vector<Mat> attentionRolloutsAfter(const std::vector<Mat>& layerMeans,
                                        const std::vector<Mat>& earlier, int P);
// Each layer's attention averaged over its heads (N x N), for the rollout. Throws
// std::invalid_argument for a layer that is not one self-attention sentence of the same length.
std::vector<Mat> layerMeans(const std::vector<std::shared_ptr<const Trace>>& layers);

// ---- Value-weighted attention ---------------------------------------------------------------
//
// Kobayashi et al. 2020, "Attention is Not Only a Weight: Analyzing Transformers with Vector
// Norms": a small weight on a token with a large transformed vector can move the output more
// than a large weight on a small one. Entry (i, j) is |alpha_ij f(x_j)|, with
// f(x_j) = (x_j W_V,h + b_V,h) W_O,h, token j's value in head h through head h's d_head rows of
// W_O: the norm of the vector token j adds to token i's output through head h. b_O is added once
// to the sum of all heads, so it belongs to no head and is left out. An ablated head contributes
// nothing and gives zeros; without the out projection (a teaching scene) f is the value itself.
// N x N for sentence 0. Throws std::invalid_argument for a head outside the layer, a
// cross-attention layer or the reshape bug (whose heads do not own their rows of W_O).
Mat valueWeightedAttention(const Trace& layer, int head);

// Each row divided by its sum (a row summing to 0 stays 0): value-weighted attention on the
// scale of attention weights, for display.
Mat normalizedRows(const Mat& m);

// ---- Logit lens -----------------------------------------------------------------------------
//
// nostalgebraist 2020, "interpreting GPT: the logit lens": the residual stream after layer l,
// read through the final LayerNorm and the unembedding as if it were the last layer, says what
// the model would predict there (an encoder's hidden state through its MLM head: what it would
// fill in at that position). One entry per layer output (layers 1..L, from index 0): the
// top k tokens at `position`; the last entry is the model's own prediction. Throws
// std::invalid_argument for a position outside the trace, a trace without its residual stream
// or a model without a head.
std::vector<std::vector<TokenChoice>> logitLens(const RealModel& model, const RealTrace& trace,
                                                int position, int k);

} // namespace core::models

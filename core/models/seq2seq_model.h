// What an encoder-decoder (T5, mT5, BART, Marian) is to the rest of the app: an encoder stack
// that reads the source, a decoder stack that reads the target with causal self-attention and
// cross-attention to the encoder's output, each layer around the engine's attention. The
// families implement it (core/models/families/t5_model.h, ...); the forward, the greedy
// generation with its key/value cache and the traces are written once against it
// (seq2seq_forward.h). docs/real-models.md, "Encoder-decoders", has the contract.
#pragma once

#include "engine/attention.h"
#include "engine/weights.h"
#include "models/formats/model_config.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core::models {

// The three attentions of an encoder-decoder: the encoder's self-attention over the source, the
// decoder's causal self-attention over the target, and its cross-attention (the target's queries
// on the encoder's output).
enum class Seq2SeqKind { Encoder, DecoderSelf, Cross };

struct Seq2SeqConfig {
    // modelType, dModel, heads, headDim, dInner, vocabSize, layerNormEpsilon, activation; its
    // `layers` are the encoder's.
    ModelConfig base;
    int decoderLayers = 0;
    int decoderStartId = 0, eosId = 1, padId = 0;
    int positions = 0; // the tokens a side reads at most (a position table's rows); 0: any
    std::vector<int> neverGenerated; // bad_words_ids of one token (Marian's pad)
};

// What the decoder keeps of one source and the target tokens read so far, per decoder layer:
// its self-attention's keys and values of those tokens, and the cross-attention's keys and
// values of the encoder's output (made once per source).
struct DecoderCache {
    std::vector<Mat> selfKeys, selfValues;   // L_dec, P x (H*d_head)
    std::vector<Mat> crossKeys, crossValues; // L_dec, Ns x (H*d_head)
    Mat encoded;                             // Ns x d: the encoder's output (the cross side)
    int past() const { return selfKeys.empty() ? 0 : int(selfKeys.front().rows()); }
    int pastOf(int l) const { return int(selfKeys.at(std::size_t(l)).rows()); } // layer l's P
};

// The decoder's two attentions as every family runs them once it has projected q, k and v of its
// n new tokens (in.x what the sublayer read; in.heads, in.ablatedHeads, the scale and any score
// bias set): layer l's causal self-attention after the keys and values the cache holds, which
// then holds all P + n tokens'; and its cross-attention of in.q (in.k, in.v unset) on the
// encoder output's keys and values, lent to the engine and put back (out.k and out.v stay
// empty: a step would otherwise copy Ns x (H*d_head) twice a layer). seq2seq_forward.cpp.
void attendDecoderSelf(int l, AttentionInput& in, DecoderCache& cache, Attention& out);
void attendDecoderCross(int l, AttentionInput& in, DecoderCache& cache, Attention& out);

// The heads switched off in one decoder layer: its self-attention's and its cross-attention's.
struct DecoderAblation {
    std::vector<int> self, cross;
};

class Seq2SeqModel {
  public:
    virtual ~Seq2SeqModel() = default;

    virtual const Seq2SeqConfig& config() const = 0;
    virtual std::string dtype() const = 0;
    virtual const std::vector<std::string>& warnings() const = 0;

    // Ns x d: the encoder's input stream.
    virtual Mat embedSource(const std::vector<int>& ids) const = 0;
    // Encoder layer l (from 0) on `stream` (Ns x d, replaced by what it hands on). `read`, when
    // given, gets what its attention read (Ns x d, after the norm): the window's steps show it.
    virtual void encoderLayer(int l, Mat& stream, const std::vector<int>& ablated,
                              Attention& attention, Mat* read = nullptr) const = 0;
    // Ns x d: what the cross-attention reads (after T5's final norm; the stream itself for a
    // post-LN stack).
    virtual Mat encoderOutput(const Mat& stream) const = 0;
    // A cache for decoding after `encoded`: the cross keys and values of every decoder layer,
    // no target token yet.
    virtual DecoderCache startDecoder(const Mat& encoded) const = 0;
    // n x d: the decoder's input for target tokens at positions [first, first + n).
    virtual Mat embedTarget(const std::vector<int>& ids, int first) const = 0;
    // Decoder layer l on `stream` (n x d: the tokens after cache.past(), replaced by what the
    // layer hands on): self-attention over the cached keys and these tokens', cross-attention
    // over the encoder's; this layer's keys and values of the n tokens join the cache. `read`,
    // when given, gets what the two attentions read (n x d each, after their norms).
    virtual void decoderLayer(int l, Mat& stream, DecoderCache& cache,
                              const DecoderAblation& ablated, Attention& self, Attention& cross,
                              std::pair<Mat, Mat>* read = nullptr) const = 0;
    // rows x V: the logits of decoder stream rows (after its last layer).
    virtual Mat head(const Mat& stream) const = 0;
    // Layer l's projections of one kind in the engine's convention (x W + b); a cross layer's
    // W_K and W_V read the encoder's output.
    virtual std::shared_ptr<const Weights> attentionWeights(Seq2SeqKind kind, int l) const = 0;
};

} // namespace core::models

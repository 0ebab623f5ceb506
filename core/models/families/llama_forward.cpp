// The modern decoders' forward (llama_model.h): the arithmetic of Hugging Face's
// modeling_llama.py and its variants, step by step, with the engine's attention in the middle of
// each layer.
#include "models/families/llama_model.h"

#include "models/tensor_ops.h"

#include <cmath>
#include <stdexcept>

namespace core::models {

Mat LlamaModel::embed(const std::vector<int>& ids, const std::vector<int>& types) const {
    for (int t : types)
        if (t != 0) throw std::invalid_argument(w_.config.family + " has no token types");
    const int N = int(ids.size()), d = w_.config.dModel;
    Mat x(N, d); // N x d
    for (int i = 0; i < N; ++i) copyRow(*w_.embed, ids[std::size_t(i)], x.row(i).data());
    if (w_.config.decoder.embedScale) x *= Scalar(std::sqrt(double(d))); // Gemma, in float
    return x;
}

Mat LlamaModel::norm(const Mat& x, const TensorView* weight) const {
    return rmsNorm(x, *weight, w_.config.layerNormEpsilon, w_.config.decoder.gemmaNorm);
}

Rotation LlamaModel::rotation(int l, int positions) const {
    const DecoderSpec& s = w_.config.decoder;
    // Gemma 3 turns its windowed layers by its local base (the only family with a localRope).
    const bool local = !s.localRope.empty() && s.window[std::size_t(l)] > 0;
    const RopeSpec& spec = local ? s.localRope : s.rope;
    // LongRoPE and dynamic NTK change their frequencies with the text's length.
    const bool lengthDependent = spec.type == "longrope" || spec.type == "dynamic";
    if (lengthDependent) return rotationTables(spec, positions, positions);
    const std::lock_guard<std::mutex> lock(tablesLock_);
    Rotation& table = tables_[local ? 1 : 0];
    if (table.cos.rows() < positions) {
        const int rows = std::min(std::max(positions, 2 * int(table.cos.rows())),
                                  std::max(positions, w_.config.nPositions));
        table = rotationTables(spec, rows, rows);
    }
    Rotation r;
    r.cos = table.cos.topRows(positions); // positions x (r/2)
    r.sin = table.sin.topRows(positions);
    return r;
}

void unpairHeadColumns(Mat& x, int hd) {
    const Eigen::Index heads = x.cols() / hd, half = hd / 2;
    RowVec row(x.cols()); // 1 x (heads*hd)
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        row = x.row(r);
        for (Eigen::Index h = 0; h < heads; ++h)
            for (Eigen::Index i = 0; i < half; ++i) {
                x(r, h * hd + i) = row(h * hd + 2 * i);
                x(r, h * hd + half + i) = row(h * hd + 2 * i + 1);
            }
    }
}

void LlamaModel::attend(int l, AttentionInput& in, Attention& attention) const {
    const ModelConfig& c = w_.config;
    const LlamaBlock& b = w_.blocks.at(std::size_t(l));
    in.q = linear(in.x, b.q, b.qBias); // N x (H*hd)
    in.k = linear(in.x, b.k, b.kBias); // N x (H_kv*hd)
    in.v = linear(in.x, b.v, b.vBias); // N x (H_kv*hd)
    if (w_.pairedQk) { // GGUF's llama: back to Hugging Face's order, as cheap columns moves
        unpairHeadColumns(in.q, c.headSize());
        unpairHeadColumns(in.k, c.headSize());
    }
    using QkNorm = DecoderSpec::QkNorm;
    const double eps = c.layerNormEpsilon;
    if (c.decoder.qkNorm == QkNorm::Whole) { // OLMo 2: over the whole projection
        in.q = rmsNorm(in.q, *b.qNorm, eps, false);
        in.k = rmsNorm(in.k, *b.kNorm, eps, false);
    } else if (c.decoder.qkNorm == QkNorm::PerHead) { // Qwen 3, Gemma 3
        rmsNormHeads(in.q, *b.qNorm, eps, c.decoder.gemmaNorm);
        rmsNormHeads(in.k, *b.kNorm, eps, c.decoder.gemmaNorm);
    }
    in.heads = c.heads;
    in.causal = true;
    in.window = c.decoder.window.empty() ? 0 : c.decoder.window[std::size_t(l)];
    in.scoreCap = Scalar(c.decoder.attentionSoftcap);
    in.scaleValue = Scalar(c.decoder.queryScale > 0 ? c.decoder.queryScale
                                                    : 1.0 / std::sqrt(double(c.headSize())));
    in.rotation = rotation(l, in.keyLen);
    attendProjected(in, attention);
    projectOut(attention, b.o, b.oBias);
}

Mat LlamaModel::mlp(const LlamaBlock& b, const Mat& x) const {
    Mat gate = linear(x, b.gate, b.gateBias); // N x I
    activate(gate, w_.config.activation);
    gate.array() *= linear(x, b.up, b.upBias).array();
    return linear(gate, b.down, b.downBias); // N x d
}

void LlamaModel::block(int l, Mat& x, AttentionInput& in, Attention& attention,
                       Mat& attentionInput) const {
    const DecoderSpec& s = w_.config.decoder;
    const LlamaBlock& b = w_.blocks.at(std::size_t(l));
    in.queryLen = int(x.rows());
    in.keyLen = in.pastLen() + in.queryLen;
    in.x = s.normAfter ? x : norm(x, b.inputNorm); // N x d
    attend(l, in, attention);
    if (s.sandwichNorms || s.normAfter)
        x += norm(attention.output, b.attentionNorm);
    else
        x += attention.output;
    attentionInput = std::move(in.x);
    const Mat h = s.normAfter ? x : norm(x, s.sandwichNorms ? b.preMlpNorm : b.attentionNorm);
    if (s.sandwichNorms || s.normAfter)
        x += norm(mlp(b, h), b.postMlpNorm);
    else
        x += mlp(b, h);
}

void LlamaModel::layer(int l, Mat& x, const std::vector<int>& ablated, Attention& attention,
                       Mat& attentionInput) const {
    AttentionInput in;
    in.ablatedHeads = ablated;
    block(l, x, in, attention, attentionInput);
}

void LlamaModel::layerAfter(int l, Mat& x, Mat&& pastKeys, Mat&& pastValues,
                            const std::vector<int>& ablated, Attention& attention,
                            Mat& attentionInput) const {
    AttentionInput in;
    in.ablatedHeads = ablated;
    in.pastKeys = std::move(pastKeys);     // P x (H_kv*hd), turned
    in.pastValues = std::move(pastValues); // P x (H_kv*hd)
    block(l, x, in, attention, attentionInput);
}

Mat LlamaModel::head(const Mat& stream) const {
    Mat logits = linear(norm(stream, w_.norm), *w_.lmHead, nullptr); // rows x V
    softCap(logits, w_.config.decoder.finalSoftcap);
    return logits;
}

} // namespace core::models

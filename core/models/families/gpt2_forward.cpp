// GPT-2's forward (gpt2_model.h): the arithmetic of Hugging Face's GPT2Model and GPT2LMHeadModel,
// step by step, with the engine's attention in the middle of each block.
#include "models/families/gpt2_model.h"

#include "models/tensor_ops.h"

#include <stdexcept>

namespace core::models {

Mat Gpt2Model::embed(const std::vector<int>& ids, const std::vector<int>& types) const {
    for (int t : types)
        if (t != 0) throw std::invalid_argument("GPT-2 has no token types");
    const int N = int(ids.size()), d = w_.config.dModel;
    Mat x(N, d); // N x d: token embedding + position embedding
    RowVec position(d);
    for (int i = 0; i < N; ++i) {
        copyRow(*w_.wte, ids[std::size_t(i)], x.row(i).data());
        copyRow(*w_.wpe, i, position.data());
        x.row(i) += position;
    }
    return x;
}

void Gpt2Model::layer(int l, Mat& x, const std::vector<int>& ablated, Attention& attention,
                      Mat& attentionInput) const {
    AttentionInput in;
    in.ablatedHeads = ablated;
    block(l, x, in, attention, attentionInput);
}

void Gpt2Model::layerAfter(int l, Mat& x, Mat&& pastKeys, Mat&& pastValues,
                           const std::vector<int>& ablated, Attention& attention,
                           Mat& attentionInput) const {
    AttentionInput in;
    in.ablatedHeads = ablated;
    in.pastKeys = std::move(pastKeys);     // P x d
    in.pastValues = std::move(pastValues); // P x d
    block(l, x, in, attention, attentionInput);
}

void Gpt2Model::block(int l, Mat& x, AttentionInput& in, Attention& attention,
                      Mat& attentionInput) const {
    const ModelConfig& c = w_.config;
    const Gpt2Block& b = w_.blocks.at(std::size_t(l));
    in.queryLen = int(x.rows());
    in.keyLen = in.pastLen() + in.queryLen;
    in.heads = c.heads;
    in.causal = true;
    in.x = layerNorm(x, *b.ln1Weight, *b.ln1Bias, c.layerNormEpsilon); // N x d
    forward(in, *b.attention, attention);
    x += attention.output;
    attentionInput = std::move(in.x);
    Mat hidden = conv1d(layerNorm(x, *b.ln2Weight, *b.ln2Bias, c.layerNormEpsilon), *b.fcWeight,
                        b.fcBias); // N x inner
    activate(hidden, c.activation);
    x += conv1d(hidden, *b.projWeight, b.projBias); // N x d
}

Mat Gpt2Model::head(const Mat& residual) const {
    const Mat normed = layerNorm(residual, *w_.lnFWeight, *w_.lnFBias, w_.config.layerNormEpsilon);
    // rows x V: the largest product of the forward, on the engine's path
    return linear(normed, *w_.lmHead, nullptr);
}

} // namespace core::models

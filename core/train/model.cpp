// The model's shapes, initial weights and forward pass; the backward pass is in
// model_backward.cpp, the embedding and the loss with their backwards in embed_and_loss.cpp.
#include "train/model.h"

#include "train/embed_and_loss.h"

#include "base/prng.h"

#include <cmath>
#include <stdexcept>

namespace core::train {

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

std::string layerName(int layer, const char* matrix) {
    return "layers." + std::to_string(layer) + "." + matrix;
}

// The one walk over the tensors, shared by the const and mutable namedTensors.
template <class Tensor, class ParamsRef>
std::vector<Tensor> tensorsOf(ParamsRef& params) {
    std::vector<Tensor> tensors{{"embed", &params.embed}, {"pos", &params.pos}};
    for (int l = 0; l < int(params.layers.size()); ++l) {
        auto& w = params.layers[l];
        tensors.push_back({layerName(l, "w_q"), &w.wQ});
        tensors.push_back({layerName(l, "w_k"), &w.wK});
        tensors.push_back({layerName(l, "w_v"), &w.wV});
        tensors.push_back({layerName(l, "w_o"), &w.wO});
    }
    tensors.push_back({"unembed", &params.unembed});
    return tensors;
}

void checkShape(const ConstNamedTensor& t, Eigen::Index rows, Eigen::Index cols) {
    if (t.tensor->rows() != rows || t.tensor->cols() != cols)
        refuse("parameter " + t.name + " is " + std::to_string(t.tensor->rows()) + " x " +
               std::to_string(t.tensor->cols()) + ", the model needs " + std::to_string(rows) +
               " x " + std::to_string(cols));
}

void checkParams(const ModelConfig& config, const Params& params) {
    if (int(params.layers.size()) != config.layers)
        refuse("parameters have " + std::to_string(params.layers.size()) +
               " layers, the model needs " + std::to_string(config.layers));
    const int V = config.vocab, D = config.d_model, N = config.seq;
    for (const ConstNamedTensor& t : namedTensors(params)) {
        if (t.name == "embed")
            checkShape(t, V, D);
        else if (t.name == "pos")
            checkShape(t, N, D);
        else if (t.name == "unembed")
            checkShape(t, D, V);
        else
            checkShape(t, D, D);
    }
}

// rows x cols uniform in [-limit, limit), row by row from the tensor's own stream.
Mat uniformTensor(std::uint64_t seed, const std::string& name, int rows, int cols, float limit) {
    SplitMix64 rng(seed ^ fnv1a64(name));
    Mat m(rows, cols); // rows x cols
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) m(r, c) = rng.symmetric(limit);
    return m;
}

} // namespace

void validate(const ModelConfig& config) {
    if (config.vocab < 2) refuse("vocab " + std::to_string(config.vocab) + " must be >= 2");
    if (config.d_model < 1) refuse("d_model " + std::to_string(config.d_model) + " must be >= 1");
    if (config.heads < 1) refuse("heads " + std::to_string(config.heads) + " must be >= 1");
    if (config.d_model % config.heads != 0)
        refuse("heads " + std::to_string(config.heads) + " does not divide d_model " +
               std::to_string(config.d_model) + " (d_head = d_model / heads must be whole)");
    if (config.layers < 1) refuse("layers " + std::to_string(config.layers) + " must be >= 1");
    if (config.seq < 2)
        refuse("seq " + std::to_string(config.seq) + " must be >= 2 (a token and its successor)");
}

long long Params::parameterCount() const {
    long long count = embed.size() + pos.size() + unembed.size();
    for (const Weights& w : layers) count += w.parameterCount();
    return count;
}

std::vector<NamedTensor> namedTensors(Params& params) {
    return tensorsOf<NamedTensor>(params);
}

std::vector<ConstNamedTensor> namedTensors(const Params& params) {
    return tensorsOf<ConstNamedTensor>(params);
}

Params zeroParams(const ModelConfig& config) {
    validate(config);
    const int V = config.vocab, D = config.d_model, N = config.seq;
    Params p;
    p.embed = Mat::Zero(V, D);                               // V x D
    p.pos = Mat::Zero(N, D);                                 // N x D
    Weights zero;                                            // no biases: the toy models have none
    zero.wQ = zero.wK = zero.wV = zero.wO = Mat::Zero(D, D); // D x D each
    p.layers.assign(config.layers, zero);
    p.unembed = Mat::Zero(D, V); // D x V
    return p;
}

Params initParams(const ModelConfig& config, std::uint64_t seed) {
    Params p = zeroParams(config);
    const float D = float(config.d_model), V = float(config.vocab);
    const float unitRow = std::sqrt(3.0f / D);            // std 1/sqrt(D)
    const float glorotSquare = std::sqrt(6.0f / (D + D)); // = sqrt(3/D)
    const float glorotUnembed = std::sqrt(6.0f / (D + V));
    for (const NamedTensor& t : namedTensors(p)) {
        const float limit = t.name == "unembed"                      ? glorotUnembed
                            : (t.name == "embed" || t.name == "pos") ? unitRow
                                                                     : glorotSquare;
        *t.tensor =
            uniformTensor(seed, t.name, int(t.tensor->rows()), int(t.tensor->cols()), limit);
    }
    return p;
}

void validate(const Batch& batch, const ModelConfig& config) {
    const int n = batch.length();
    if (batch.size() < 1) refuse("the batch has no sequence");
    if (n < 2 || n > config.seq)
        refuse("sequence length " + std::to_string(n) + " must be between 2 and seq " +
               std::to_string(config.seq));
    if (int(batch.lossMask.size()) != batch.size())
        refuse("the loss mask has " + std::to_string(batch.lossMask.size()) + " rows, tokens " +
               std::to_string(batch.size()));
    bool anyPosition = false;
    for (int b = 0; b < batch.size(); ++b) {
        const std::string where = "sequence " + std::to_string(b);
        if (int(batch.tokens[b].size()) != n || int(batch.lossMask[b].size()) != n)
            refuse(where + " is not " + std::to_string(n) + " long in tokens and loss mask");
        for (int t = 0; t < n; ++t)
            if (batch.tokens[b][t] < 0 || batch.tokens[b][t] >= config.vocab)
                refuse("token " + std::to_string(batch.tokens[b][t]) + " at " + where +
                       ", position " + std::to_string(t) + " is outside the vocab (0 .. " +
                       std::to_string(config.vocab - 1) + ")");
        if (batch.lossMask[b][n - 1])
            refuse("loss mask of " + where + " is set at the last position " +
                   std::to_string(n - 1) + ", which has no next token");
        for (int t = 0; t < n; ++t) anyPosition = anyPosition || batch.lossMask[b][t];
    }
    if (!anyPosition) refuse("the loss mask selects no position");
}

namespace {

void checkAblated(const ModelConfig& config, const HeadLists& ablated) {
    if (ablated.empty()) return;
    if (int(ablated.size()) != config.layers)
        refuse("ablated heads are given for " + std::to_string(ablated.size()) +
               " layers, the model has " + std::to_string(config.layers));
    for (const std::vector<int>& heads : ablated)
        for (int h : heads)
            if (h < 0 || h >= config.heads)
                refuse("ablated head " + std::to_string(h + 1) +
                       " does not exist (heads = " + std::to_string(config.heads) + ")");
}

} // namespace

ForwardPass forwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                        const HeadLists& ablated) {
    ForwardPass pass;
    forwardPass(config, params, batch, ablated, pass);
    return pass;
}

void forwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                 const HeadLists& ablated, ForwardPass& pass) {
    validate(config);
    checkParams(config, params);
    validate(batch, config);
    checkAblated(config, ablated);
    pass.batch = batch.size(), pass.length = batch.length();
    pass.residual.resize(config.layers + 1);
    pass.heads.resize(config.layers);
    embedTokens(params, batch, pass.residual.front()); // (B*n) x D
    AttentionInput in;
    in.batch = pass.batch;
    in.queryLen = in.keyLen = pass.length;
    in.heads = config.heads;
    in.causal = true;
    in.scale = ScaleKind::SqrtDHead;
    in.intermediates = false; // scores and headOutputs: the explorer's, never read here
    for (int l = 0; l < config.layers; ++l) {
        in.x.swap(pass.residual[l]); // lent to the engine, no copy: (B*n) x D
        if (!ablated.empty()) in.ablatedHeads = ablated[l];
        core::forward(in, params.layers[l], pass.heads[l]); // the explorer's engine
        in.x.swap(pass.residual[l]);
        pass.residual[l + 1] = pass.residual[l] + pass.heads[l].output; // x + MHA(x)
    }
    core::engineMultiply(pass.residual.back(), params.unembed, pass.logits); // (B*n) x V
    pass.loss = meanCrossEntropy(pass.logits, batch, pass.lossPositions);
}

LossAndGradients lossAndGradients(const ModelConfig& config, const Params& params,
                                  const Batch& batch) {
    const ForwardPass pass = forwardPass(config, params, batch);
    return {pass.loss, backwardPass(config, params, batch, pass)};
}

double lossAndGradients(const ModelConfig& config, const Params& params, const Batch& batch,
                        StepBuffers& buffers) {
    forwardPass(config, params, batch, {}, buffers.pass);
    backwardPass(config, params, batch, buffers.pass, buffers.gradients, buffers.backward);
    return buffers.pass.loss;
}

} // namespace core::train

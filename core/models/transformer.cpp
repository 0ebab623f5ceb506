// The forward loop every family shares (transformer.h).
#include "models/transformer.h"

#include <stdexcept>

namespace core::models {
namespace {

void checkInput(const Transformer& model, const std::vector<int>& ids,
                const std::vector<int>& types, const ForwardOptions& options) {
    const ModelConfig& c = model.config();
    if (ids.empty()) throw std::invalid_argument("the sentence has no tokens");
    if (int(ids.size()) > c.nPositions)
        throw std::invalid_argument(std::to_string(ids.size()) + " tokens, more than the model's " +
                                    std::to_string(c.nPositions) + " positions");
    for (int id : ids)
        if (id < 0 || id >= c.vocabSize)
            throw std::invalid_argument("token id " + std::to_string(id) +
                                        " is outside the vocabulary (" +
                                        std::to_string(c.vocabSize) + ")");
    if (!types.empty() && types.size() != ids.size())
        throw std::invalid_argument("token types for " + std::to_string(types.size()) +
                                    " tokens, ids for " + std::to_string(ids.size()));
    for (int t : types)
        if (t < 0 || t >= std::max(c.typeVocabSize, 1))
            throw std::invalid_argument("token type " + std::to_string(t) + " is not one of the " +
                                        std::to_string(std::max(c.typeVocabSize, 1)) +
                                        " the model has");
    if (options.ablated.size() > std::size_t(c.layers))
        throw std::invalid_argument("heads switched off in layer " +
                                    std::to_string(options.ablated.size()) + " of " +
                                    std::to_string(c.layers));
}

} // namespace

const std::vector<int>& ablatedIn(const std::vector<std::vector<int>>& ablated, int l) {
    static const std::vector<int> none;
    return l >= 0 && std::size_t(l) < ablated.size() ? ablated[std::size_t(l)] : none;
}

ForwardResult runForward(const Transformer& model, const std::vector<int>& ids,
                         const std::vector<int>& types, const ForwardOptions& options,
                         const LayerSink& sink) {
    checkInput(model, ids, types, options);
    return runForwardFrom(model, model.embed(ids, types), 0, ids, types, options, sink);
}

ForwardResult runForwardFrom(const Transformer& model, Mat x /* N x d */, int first,
                             const std::vector<int>& ids, const std::vector<int>& types,
                             const ForwardOptions& options, const LayerSink& sink) {
    checkInput(model, ids, types, options);
    if (first < 0 || first > model.config().layers || x.rows() != Eigen::Index(ids.size()) ||
        x.cols() != model.config().dModel)
        throw std::invalid_argument("the forward resumes at a layer of the model, on N x d");
    ForwardResult out;
    for (int l = first; l < model.config().layers; ++l) {
        out.stream.push_back(x);
        Attention attention;
        Mat attentionInput; // N x d
        model.layer(l, x, ablatedIn(options.ablated, l), attention, attentionInput);
        if (sink) sink(l, std::move(attention), std::move(attentionInput));
    }
    if (options.logits && model.hasHead()) out.logits = model.head(x);
    out.stream.push_back(std::move(x));
    return out;
}

void Transformer::layerAfter(int, Mat&, Mat&&, Mat&&, const std::vector<int>&, Attention&,
                             Mat&) const {
    throw std::logic_error("only a decoder's layers run after cached keys and values");
}

ForwardResult runForwardAfter(const Transformer& model, Mat x /* n x d */,
                              const std::vector<int>& ids, const std::vector<Mat>& pastKeys,
                              const std::vector<Mat>& pastValues, const ForwardOptions& options,
                              const LayerSink& sink) {
    checkInput(model, ids, {}, options);
    const int L = model.config().layers, P = int(ids.size()) - int(x.rows());
    if (!model.causal() || P < 1 || x.rows() < 1 || x.cols() != model.config().dModel ||
        int(pastKeys.size()) != L || int(pastValues.size()) != L)
        throw std::invalid_argument("a decoder resumes after P >= 1 tokens, on n x d");
    ForwardResult out;
    for (int l = 0; l < L; ++l) {
        if (pastKeys[std::size_t(l)].rows() < P || pastValues[std::size_t(l)].rows() < P)
            throw std::invalid_argument("the cached keys and values end before the new tokens");
        Mat k = pastKeys[std::size_t(l)].topRows(P); // P x (H_kv*d_head), handed on, not copied
        Mat v = pastValues[std::size_t(l)].topRows(P);
        out.stream.push_back(x);
        Attention attention;
        Mat attentionInput; // n x d
        model.layerAfter(l, x, std::move(k), std::move(v), ablatedIn(options.ablated, l), attention,
                         attentionInput);
        if (sink) sink(l, std::move(attention), std::move(attentionInput));
    }
    if (options.logits && model.hasHead()) out.logits = model.head(x);
    out.stream.push_back(std::move(x));
    return out;
}

CollectedForward collectForward(const Transformer& model, const std::vector<int>& ids,
                                const std::vector<int>& types, const ForwardOptions& options) {
    CollectedForward out;
    out.result = runForward(model, ids, types, options, [&](int, Attention&& attention, Mat&&) {
        out.layers.push_back(std::move(attention));
    });
    return out;
}

} // namespace core::models

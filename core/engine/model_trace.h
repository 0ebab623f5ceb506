// A model run on typed sentences as the explorer's views read it, whatever the model: one
// core::Trace per layer, the tokens each sentence became and the model's guess at each. A
// trained model's run (train/model_trace.h) makes it, and so does the window's runner for a
// real checkpoint (app/explorer/real_model_runner.cpp, from its models::RealTrace).
#pragma once

#include "engine/trace.h"
#include "text/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace core {

// The model's guess for the token after a position: the argmax of its logits.
struct Prediction {
    int token = 0;         // vocab id
    float probability = 0; // softmax of the logits at that id
};

// One typed sentence as the model read it.
struct ModelSentence {
    Tokenized tokens;                    // only the words in the vocabulary (offsets into text)
    std::vector<int> ids;                // their vocab ids, as fed to the model
    std::vector<std::string> unknown;    // words not in the vocabulary, in text order; not fed
    std::vector<Prediction> predictions; // one per token: what the model expects next
};

struct ModelTrace {
    std::vector<ModelSentence> sentences;             // B
    std::vector<std::shared_ptr<const Trace>> layers; // L: x = the residual entering the layer
    std::vector<std::string> warnings;                // e.g. a sentence cut at seq
    Mat logits;                                       // (B*N) x V; padded rows are 0
};

} // namespace core

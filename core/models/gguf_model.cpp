// A GGUF file opened as a real model (gguf_model.h).
#include "models/gguf_model.h"

#include <chrono>
#include <stdexcept>

namespace core::models {

const Architecture& ggufArchitecture(const GgufFile& file) {
    const auto arch = file.string("general.architecture");
    std::string names;
    for (const std::string& name : ggufArchitectureNames())
        names += (names.empty() ? "" : ", ") + name;
    if (!arch) file.bad("general.architecture", "is missing (mha-viz opens " + names + ")");
    const Architecture* found = findGgufArchitecture(*arch);
    if (!found || !found->readGgufConfig || !found->loadGguf)
        file.bad("general.architecture",
                 "\"" + *arch + "\" is not one mha-viz opens (" + names + ")");
    return *found;
}

ModelConfig readGgufConfig(const GgufModel& model) {
    const Architecture& a = ggufArchitecture(model.first());
    const std::string arch = *model.first().string("general.architecture");
    ModelConfig config = a.readGgufConfig(model, arch);
    config.modelType = a.modelTypes.front();
    config.family = a.name;
    if (config.positionRows == 0) config.positionRows = config.nPositions;
    return config;
}

namespace {

// A token id key, -1 when absent; one past the vocabulary is refused.
int tokenId(const GgufFile& f, const char* key, std::size_t tokens) {
    const auto id = f.unsignedValue(key);
    if (!id) return -1;
    if (*id >= tokens)
        f.bad(key,
              "is " + std::to_string(*id) + ", past the " + std::to_string(tokens) + " tokens");
    return int(*id);
}

} // namespace

GgufVocab readGgufVocab(const GgufFile& f) {
    GgufVocab v;
    v.model = f.string("tokenizer.ggml.model").value_or("");
    v.pre = f.string("tokenizer.ggml.pre").value_or("");
    v.tokens = f.strings("tokenizer.ggml.tokens");
    if (v.model.empty() || v.tokens.empty())
        f.bad("tokenizer.ggml.model", "and tokenizer.ggml.tokens are needed (the file has no "
                                      "tokenizer)");
    for (double s : f.numbers("tokenizer.ggml.scores")) v.scores.push_back(float(s));
    for (double t : f.numbers("tokenizer.ggml.token_type")) v.tokenTypes.push_back(int(t));
    if (!v.scores.empty() && v.scores.size() != v.tokens.size())
        f.bad("tokenizer.ggml.scores", "has " + std::to_string(v.scores.size()) + " values for " +
                                           std::to_string(v.tokens.size()) + " tokens");
    if (!v.tokenTypes.empty() && v.tokenTypes.size() != v.tokens.size())
        f.bad("tokenizer.ggml.token_type", "has " + std::to_string(v.tokenTypes.size()) +
                                               " values for " + std::to_string(v.tokens.size()) +
                                               " tokens");
    v.merges = f.strings("tokenizer.ggml.merges");
    v.bos = tokenId(f, "tokenizer.ggml.bos_token_id", v.tokens.size());
    v.eos = tokenId(f, "tokenizer.ggml.eos_token_id", v.tokens.size());
    v.unknown = tokenId(f, "tokenizer.ggml.unknown_token_id", v.tokens.size());
    v.padding = tokenId(f, "tokenizer.ggml.padding_token_id", v.tokens.size());
    v.addBos = f.boolean("tokenizer.ggml.add_bos_token");
    v.addEos = f.boolean("tokenizer.ggml.add_eos_token");
    v.addSpacePrefix = f.boolean("tokenizer.ggml.add_space_prefix");
    v.chatTemplate = f.string("tokenizer.chat_template").value_or("");
    v.modelName = f.string("general.name").value_or("");
    return v;
}

std::unique_ptr<RealModel> openGgufModel(const ModelLocation& location) {
    const auto start = std::chrono::steady_clock::now();
    auto model = std::make_unique<RealModel>();
    model->location = location;
    const GgufModel file = openGguf(location.file);
    const ModelConfig config = readGgufConfig(file);
    model->family = config.modelType;
    model->architecture = &ggufArchitecture(file.first());
    model->tokenizer = openGgufTokenizer(readGgufVocab(file.first()));
    model->net =
        model->architecture->loadGguf(config, file, *file.first().string("general.architecture"));
    if (model->tokenizer->vocabSize() > config.vocabSize)
        throw std::invalid_argument(
            location.file + ": the tokenizer has " + std::to_string(model->tokenizer->vocabSize()) +
            " tokens, token_embd has " + std::to_string(config.vocabSize) + " rows");
    model->loadMilliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return model;
}

} // namespace core::models

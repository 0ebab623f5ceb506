// config.json's shared part (model_config.h); each family's names are read in its own file.
#include "models/formats/model_config.h"

#include "io/json_fields.h"
#include "models/architectures.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace core::models {

namespace config_fields {

int integerOrNull(const JsonFields& fields, const char* name, int high, int fallback) {
    if (!fields.has(name) || fields.at(name).is_null()) return fallback;
    return fields.integer(name, 1, high);
}

void checkHeads(const JsonFields& fields, const ModelConfig& c, const char* headsName,
                const char* dModelName) {
    if (c.heads > c.dModel || c.dModel % c.heads != 0)
        fields.bad(std::string(headsName) + " " + std::to_string(c.heads) + " does not divide " +
                   dModelName + " " + std::to_string(c.dModel));
}

void readShape(const JsonFields& fields, const char* layersName, const char* headsName,
               const char* dModelName, ModelConfig& c) {
    c.layers = fields.integer(layersName, 1, kMaxLayers);
    c.heads = fields.integer(headsName, 1, kMaxDModel);
    c.dModel = fields.integer(dModelName, 1, kMaxDModel);
    checkHeads(fields, c, headsName, dModelName);
}

double numberOrNull(const JsonFields& fields, const char* name, double fallback) {
    return fields.has(name) && !fields.at(name).is_null() ? fields.number(name, fallback)
                                                          : fallback;
}

double positiveEpsilon(const JsonFields& fields, const char* name, double fallback) {
    const double eps = fields.number(name, fallback);
    if (!(eps > 0 && eps < 1)) fields.bad(std::string("\"") + name + "\" must be in (0, 1)");
    return eps;
}

int padTokenId(const JsonFields& fields, int vocabSize) {
    if (!fields.has("pad_token_id") || fields.at("pad_token_id").is_null()) return -1;
    return fields.integer("pad_token_id", 0, vocabSize - 1);
}

} // namespace config_fields

namespace {

std::vector<std::string> registryModelTypes() {
    std::vector<std::string> names;
    for (const Architecture& a : architectures())
        names.insert(names.end(), a.modelTypes.begin(), a.modelTypes.end());
    return names;
}

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
}

} // namespace

std::string headLayout(const ModelConfig& c) {
    const int H = c.heads, G = c.kvHeadCount();
    const std::string dHead = "d_head " + std::to_string(c.headSize());
    if (G == H) return std::to_string(H) + " heads (" + dHead + ")";
    const std::string kind = G == 1 ? "MQA" : "GQA, " + std::to_string(H / G) + " per group";
    return std::to_string(H) + " query heads, " + std::to_string(G) + " K/V head" +
           (G == 1 ? "" : "s") + " (" + kind + "), " + dHead;
}

const std::vector<std::string>& supportedModelTypes() {
    static const std::vector<std::string> types = registryModelTypes();
    return types;
}

const std::vector<std::string>& readableModelTypes() {
    return supportedModelTypes();
}

ModelConfig parseModelConfig(const std::string& text, const std::vector<std::string>& families) {
    const nlohmann::json root = nlohmann::json::parse(text, nullptr, false);
    if (root.is_discarded()) throw std::invalid_argument("config.json: " + jsonSyntaxProblem(text));
    if (!root.is_object()) throw std::invalid_argument("config.json: not a JSON object");
    const JsonFields fields(root, "config.json: ");
    if (!fields.has("model_type"))
        fields.bad("missing \"model_type\" (supported: " + joined(families) + ")");
    const std::string type = fields.string("model_type", "");
    const Architecture* family = findArchitecture(type);
    if (!family || std::find(families.begin(), families.end(), type) == families.end())
        fields.bad("model_type \"" + type +
                   "\" is not supported yet (supported: " + joined(families) + ")");
    ModelConfig config = family->readConfig(fields);
    config.modelType = type;
    config.family = family->name;
    if (config.positionRows == 0) config.positionRows = config.nPositions;
    return config;
}

} // namespace core::models

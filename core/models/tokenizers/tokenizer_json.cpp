// Loading a tokenizer.json (tokenizer_json.h): the pipeline's parts read and checked.
#include "models/tokenizers/tokenizer_json.h"

#include "io/text_file.h"
#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/tokenizer_config.h"
#include "text/utf8.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace core::models {
namespace {

using json = nlohmann::json;

// Control characters (a type name or pattern of the file may hold any) as '?': one line.
[[noreturn]] void fail(const std::string& path, std::string what) {
    for (char& c : what)
        if (static_cast<unsigned char>(c) < 0x20) c = '?';
    throw std::invalid_argument(path + ": " + what);
}

// Runs a part's reader, its message prefixed with the file: "PATH: normalizer ...".
template <typename Read>
auto readPart(const std::string& path, Read&& read) {
    try {
        return read();
    } catch (const std::invalid_argument& e) {
        fail(path, e.what());
    } catch (const json::exception& e) { // a field of an unexpected type
        fail(path, std::string("a field of an unexpected type (") + e.what() + ")");
    }
}

const json& member(const json& root, const char* key) {
    static const json null;
    return root.is_object() && root.contains(key) ? root[key] : null;
}

std::string readConfigText(const std::string& path) {
    if (path.empty()) return {};
    const TextFile file = readTextFile(path, kSettingsFileCap);
    if (!file.ok()) fail(path, describeProblem(file.problem, kSettingsFileCap));
    return file.text;
}

// The classes whose fast tokenizer rebuilds the template from add_bos_token / add_eos_token.
bool rebuildsTemplate(const std::string& tokenizerClass) {
    for (const char* name : {"LlamaTokenizer", "LlamaTokenizerFast", "CodeLlamaTokenizer",
                             "CodeLlamaTokenizerFast", "GemmaTokenizer", "GemmaTokenizerFast"})
        if (tokenizerClass == name) return true;
    return false;
}

// A Unigram model object: "vocab" [[piece, score], ...] (the id is the place), "unk_id",
// "byte_fallback"; Hugging Face's flavour of the walk (every entry in it, sums in double).
UnigramModel readUnigram(const json& model, const std::string& path) {
    const json& vocab = member(model, "vocab");
    if (!vocab.is_array() || vocab.empty())
        fail(path, "the Unigram vocab is not a [piece, score] list");
    std::vector<std::string> pieces;
    std::vector<double> scores;
    for (const json& entry : vocab) {
        if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() ||
            !entry[1].is_number())
            fail(path,
                 "Unigram vocab entry " + std::to_string(pieces.size()) + " is not [piece, score]");
        pieces.push_back(entry[0].get<std::string>());
        scores.push_back(entry[1].get<double>());
    }
    const json& unk = member(model, "unk_id");
    if (!unk.is_number_integer() || unk.get<long long>() < 0 ||
        unk.get<long long>() >= (long long)pieces.size())
        fail(path, "the Unigram unk_id is not one of its vocab's ids");
    const json& fallback = member(model, "byte_fallback");
    if (!fallback.is_null() && !fallback.is_boolean())
        fail(path, "the Unigram byte_fallback is not true or false");
    std::vector<UnigramPieceKind> kinds(pieces.size(), UnigramPieceKind::Normal);
    return UnigramModel(std::move(pieces), std::move(scores), std::move(kinds),
                        int(unk.get<long long>()), fallback.is_boolean() && fallback.get<bool>(),
                        UnigramFlavor::HuggingFace);
}

} // namespace

std::unique_ptr<TokenizerJson> TokenizerJson::open(const HfFiles& files,
                                                   const TokenizerJsonOptions& options) {
    if (files.tokenizerJson.empty())
        throw std::invalid_argument("no tokenizer.json in the model folder");
    TokenizerJsonFile file = readTokenizerJsonFile(files.tokenizerJson);
    auto t = std::unique_ptr<TokenizerJson>(new TokenizerJson());
    t->options_ = options;
    t->load(file, files.tokenizerConfig, readConfigText(files.tokenizerConfig));
    return t;
}

std::unique_ptr<TokenizerJson> TokenizerJson::fromText(const std::string& tokenizerJson,
                                                       const std::string& config,
                                                       const TokenizerJsonOptions& options,
                                                       const std::string& path) {
    TokenizerJsonFile file = parseTokenizerJson(tokenizerJson, path);
    auto t = std::unique_ptr<TokenizerJson>(new TokenizerJson());
    t->options_ = options;
    t->load(file, "", config);
    return t;
}

std::unique_ptr<TokenizerJson> TokenizerJson::fromFile(TokenizerJsonFile file,
                                                       const std::string& config,
                                                       const TokenizerJsonOptions& options) {
    auto t = std::unique_ptr<TokenizerJson>(new TokenizerJson());
    t->options_ = options;
    t->load(file, "", config);
    return t;
}

void TokenizerJson::load(TokenizerJsonFile& file, const std::string& configPath,
                         const std::string& configText) {
    const std::string& path = file.path;
    const json& root = file.root;
    if (!root.is_object()) fail(path, "not a JSON object");
    const json& model = member(root, "model");
    if (!model.is_object()) fail(path, "no \"model\" object");
    const bool unigram = model.contains("type") && model["type"] == "Unigram";
    if (model.contains("type") && model["type"] != "BPE" && !unigram)
        fail(path, "model \"" +
                       (model["type"].is_string() ? model["type"].get<std::string>() : "?") +
                       "\" is not supported (only BPE and Unigram)");
    normalizer_ = readPart(path, [&] { return TextNormalizer::read(member(root, "normalizer")); });
    preTokenizer_ =
        readPart(path, [&] { return PreTokenizer::read(member(root, "pre_tokenizer")); });
    if (unigram)
        unigram_ = std::make_shared<const UnigramModel>(readUnigram(model, path));
    else
        model_ = BpeModel::read(file, model);
    readAddedTokens(member(root, "added_tokens"), path);
    post_ = readPart(path, [&] { return PostProcessor::read(member(root, "post_processor")); });
    readDecoding(member(root, "decoder"));
    applyConfig(configPath, configText, path);
    finish(path);
}

void TokenizerJson::readAddedTokens(const json& list, const std::string& path) {
    if (list.is_null()) return;
    if (!list.is_array()) fail(path, "added_tokens is not a list");
    for (const json& token : list) {
        if (!token.is_object() || !member(token, "id").is_number_integer() ||
            !member(token, "content").is_string())
            fail(path, "an added token without a whole-number id and a content string");
        AddedTokenSpec spec;
        spec.content = token["content"].get<std::string>();
        const long long id = token["id"].get<long long>();
        if (id < 0 || id >= (1 << 24))
            fail(path, "added token " + quotedToken(spec.content) + " has id " +
                           std::to_string(id) + ", outside 0..16777215");
        const int entry = modelIdOf(spec.content); // tokenizers gives the vocabulary's id
        spec.id = entry >= 0 ? entry : int(id);
        const auto flag = [&](const char* key, bool fallback) {
            const json& v = member(token, key);
            if (!v.is_null() && !v.is_boolean())
                fail(path, std::string("added token \"") + key + "\" is not true or false");
            return v.is_boolean() ? v.get<bool>() : fallback;
        };
        spec.special = flag("special", false);
        spec.singleWord = flag("single_word", false), spec.lstrip = flag("lstrip", false);
        spec.rstrip = flag("rstrip", false), spec.normalized = flag("normalized", !spec.special);
        UnitText form = unitsOf(spec.content);
        if (spec.normalized) normalizer_.apply(form);
        added_.add(spec, form);
    }
}

// The decoder's steps that change one token's text: ByteLevel, Replace of a string, ByteFallback
// and Metaspace (Strip, Fuse and the others only join tokens). Without a decoder, the
// pre-tokenizer's ByteLevel or Metaspace says it.
void TokenizerJson::readDecoding(const json& decoder) {
    std::vector<const json*> steps;
    if (member(decoder, "type") == "Sequence" && member(decoder, "decoders").is_array())
        for (const json& step : decoder["decoders"]) steps.push_back(&step);
    else if (decoder.is_object())
        steps.push_back(&decoder);
    for (const json* step : steps) {
        const json& type = member(*step, "type");
        if (type == "ByteLevel") decoding_.byteLevel = true;
        if (type == "ByteFallback") decoding_.byteFallback = true;
        const json& pattern = member(member(*step, "pattern"), "String");
        if (type == "Replace" && pattern.is_string() && member(*step, "content").is_string())
            decoding_.replace.emplace_back(decodeUtf8(pattern.get<std::string>()),
                                           decodeUtf8((*step)["content"].get<std::string>()));
        if (type == "Metaspace" && member(*step, "replacement").is_string())
            decoding_.replace.emplace_back(decodeUtf8((*step)["replacement"].get<std::string>()),
                                           U" ");
    }
    if (!steps.empty()) return;
    decoding_.byteLevel = preTokenizer_.byteLevel();
    if (const char32_t r = preTokenizer_.metaspace())
        decoding_.replace.emplace_back(std::u32string(1, r), U" ");
    decoding_.byteFallback = modelByteFallback();
}

// tokenizer_config.json: LlamaTokenizerFast's template, the start and mask tokens, sentence
// marks where the family's class adds them and the file has no post-processor.
void TokenizerJson::applyConfig(const std::string& configPath, const std::string& configText,
                                const std::string& path) {
    TokenizerConfig config;
    if (!configText.empty()) {
        const std::string where = configPath.empty() ? "tokenizer_config.json" : configPath;
        config = parseTokenizerConfig(configText, where);
    }
    if (options_.prefixSpaceFromConfig)
        preTokenizer_.setAddPrefixSpace(config.addPrefixSpace.value_or(false));
    const bool gemma = config.tokenizerClass.rfind("Gemma", 0) == 0;
    if (rebuildsTemplate(config.tokenizerClass)) {
        const std::string bos = config.token("bos_token", gemma ? "<bos>" : "<s>");
        const std::string eos = config.token("eos_token", gemma ? "<eos>" : "</s>");
        const bool addBos = config.addBosToken.value_or(true);
        const bool addEos = config.addEosToken.value_or(false);
        const int bosId = addBos ? idOf(bos) : -1, eosId = addEos ? idOf(eos) : -1;
        if ((addBos && bosId < 0) || (addEos && eosId < 0))
            fail(path, "add_bos_token / add_eos_token name a token that is not in it");
        post_ = PostProcessor::bosEos(bos, bosId, eos, eosId);
    } else if (post_.none() && options_.sentenceMarks) {
        const std::string bos = config.token("bos_token", "<s>"),
                          eos = config.token("eos_token", "</s>");
        for (const std::string& mark : {bos, eos})
            if (idOf(mark) < 0) fail(path, "the sentence mark " + mark + " is not in it");
        post_ = readPart(path, [&] {
            return PostProcessor::read({{"type", "RobertaProcessing"},
                                        {"cls", {bos, idOf(bos)}},
                                        {"sep", {eos, idOf(eos)}}});
        });
    }
    const Layout single = post_.layout(false);
    if (!single.empty() && single.front().sequence < 0 && !single.front().ids.empty())
        start_ = single.front().ids.front();
    else if (const auto bos = config.specialTokens.find("bos_token");
             bos != config.specialTokens.end())
        start_ = idOf(bos->second);
    if (start_ < 0 && !options_.defaultStartToken.empty())
        start_ = idOf(options_.defaultStartToken);
    if (options_.encoder) mask_ = idOf(config.token("mask_token", "<mask>"));
}

void TokenizerJson::finish(const std::string& path) {
    vocabSize_ = modelSize();
    for (const AddedTokenSpec& token : added_.tokens())
        vocabSize_ = std::max(vocabSize_, token.id + 1);
    if (options_.encoder && mask_ < 0) fail(path, "the model's mask token is not in it");
}

int TokenizerJson::idOf(std::string_view token) const {
    const int added = added_.idOf(std::string(token));
    return added >= 0 ? added : modelIdOf(token);
}

std::unique_ptr<ModelTokenizer> openTokenizerJson(const HfFiles& files, bool decoder) {
    TokenizerJsonOptions options;
    options.encoder = !decoder;
    return TokenizerJson::open(files, options);
}

} // namespace core::models

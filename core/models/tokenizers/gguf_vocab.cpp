// A GGUF file's tokenizer (gguf_vocab.h): the tokenizer.ggml.* metadata checked and written as
// the parts of a tokenizer.json (vocabulary, merges, added tokens, normalizer, pre-tokenizer,
// decoder, LlamaTokenizerFast's BOS / EOS switches) that the tokenizer.json engine then runs.
#include "models/tokenizers/gguf_vocab.h"

#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/flat_tables.h"
#include "models/tokenizers/sentencepiece_merges.h"
#include "models/tokenizers/tokenizer_json.h"
#include "text/utf8.h"

#include <cctype>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace core::models {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxTokens = std::size_t(1) << 24; // as the BPE model's ids
constexpr const char* kMetaspace = "\xE2\x96\x81";       // U+2581, SentencePiece's space
constexpr const char* kPreNames = "llama-bpe, llama3, llama-v3, tekken, dbrx, smaug-bpe, qwen2, "
                                  "smollm, gpt-2, olmo, mpt, default";

// The split patterns as the models' tokenizer.json files write them (llama.cpp's
// llama.cpp's vocabulary code cites each as the original its own form rewrites).
constexpr const char* kLlama3Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kTekkenSplit =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// llama.cpp's fallback ("default"): four splits in turn.
constexpr const char* kDefaultSplits[] = {
    R"([\p{P}\$\+<=>\^~\|]+)",
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))", R"(\p{N}+)",
    R"([0-9][0-9][0-9])"};

[[noreturn]] void fail(const std::string& what) {
    throw std::invalid_argument(what);
}

// What a gpt2 vocabulary's `pre` stands for: its tokenizer.json parts and llama.cpp's switches.
struct Pipeline {
    json normalizer, preTokenizer;
    bool ignoreMerges = false, addBos = false;
};

json splitStep(const char* regex) {
    return {{"type", "Split"},
            {"pattern", {{"Regex", regex}}},
            {"behavior", "Isolated"},
            {"invert", false}};
}

json byteLevelStep(bool useRegex) {
    return {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", useRegex}};
}

json sequenceOf(std::vector<json> steps) {
    return {{"type", "Sequence"}, {"pretokenizers", std::move(steps)}};
}

// The pipeline of each `pre` llama.cpp defines that has a tokenizer.json equivalent here.
Pipeline gpt2Pipeline(const std::string& pre) {
    Pipeline p;
    const auto is = [&](std::initializer_list<const char*> names) {
        for (const char* name : names)
            if (pre == name) return true;
        return false;
    };
    if (is({"llama-bpe", "llama3", "llama-v3", "tekken"})) {
        p.preTokenizer = sequenceOf(
            {splitStep(pre == "tekken" ? kTekkenSplit : kLlama3Split), byteLevelStep(false)});
        p.ignoreMerges = p.addBos = true;
    } else if (is({"dbrx", "smaug-bpe"})) {
        p.preTokenizer = sequenceOf({splitStep(kLlama3Split), byteLevelStep(false)});
    } else if (pre == "qwen2") {
        p.normalizer = {{"type", "NFC"}};
        p.preTokenizer = sequenceOf({splitStep(kQwen2Split), byteLevelStep(false)});
    } else if (pre == "smollm") {
        p.preTokenizer =
            sequenceOf({{{"type", "Digits"}, {"individual_digits", true}}, byteLevelStep(true)});
    } else if (is({"gpt-2", "olmo", "mpt"})) {
        if (pre != "gpt-2") p.normalizer = {{"type", "NFC"}};
        p.preTokenizer = byteLevelStep(true);
    } else if (is({"default", ""})) {
        std::vector<json> steps;
        for (const char* regex : kDefaultSplits) steps.push_back(splitStep(regex));
        steps.push_back(byteLevelStep(false));
        p.preTokenizer = sequenceOf(std::move(steps));
    } else {
        fail("tokenizer.ggml.pre " + quotedToken(pre) + " is not supported (" + kPreNames + ")");
    }
    return p;
}

// SentencePiece's pipeline: spaces as U+2581 (one before each stretch with add_space_prefix).
Pipeline llamaPipeline(bool addSpacePrefix) {
    Pipeline p;
    const json replace = {
        {"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kMetaspace}};
    p.normalizer =
        addSpacePrefix
            ? json{{"type", "Sequence"},
                   {"normalizers", {{{"type", "Prepend"}, {"prepend", kMetaspace}}, replace}}}
            : replace;
    p.addBos = true;
    return p;
}

// An id's type: NORMAL without token_type; a number llama.cpp does not know is UNDEFINED (it
// then acts as NORMAL), as llama.cpp reads them.
GgufTokenType typeOf(const GgufVocab& v, std::size_t id) {
    if (v.tokenTypes.empty()) return GgufTokenType::Normal;
    const std::int32_t t = v.tokenTypes[id];
    return t >= 0 && t <= 6 ? GgufTokenType(t) : GgufTokenType::Undefined;
}

// The types llama.cpp splits out of the text before tokenizing it: Hugging Face's added tokens.
bool isAdded(GgufTokenType t) {
    return t == GgufTokenType::Control || t == GgufTokenType::UserDefined ||
           t == GgufTokenType::Unknown;
}

// The arrays' sizes, the tokens (UTF-8, none twice) and the special ids.
void checkVocab(const GgufVocab& v) {
    if (v.model != "gpt2" && v.model != "llama")
        fail("tokenizer.ggml.model " + quotedToken(v.model) + " is not supported (gpt2, llama)");
    if (v.tokens.empty()) fail("tokenizer.ggml.tokens is empty");
    const std::size_t n = v.tokens.size();
    if (n > kMaxTokens)
        fail("tokenizer.ggml.tokens has " + std::to_string(n) + " tokens, more than " +
             std::to_string(kMaxTokens));
    const auto sized = [&](std::size_t size, const char* key) {
        if (size != 0 && size < n)
            fail(std::string("tokenizer.ggml.") + key + " has " + std::to_string(size) +
                 " entries for " + std::to_string(n) + " tokens");
    };
    sized(v.scores.size(), "scores"), sized(v.tokenTypes.size(), "token_type");
    TokenIndex seen;
    seen.reserve(n);
    for (std::size_t id = 0; id < n; ++id) {
        const std::string& token = v.tokens[id];
        if (firstInvalidUtf8(token) != std::string_view::npos)
            fail("tokenizer.ggml.tokens[" + std::to_string(id) + "] is not valid UTF-8");
        if (token.empty()) continue;
        if (const int before = seen.find(token); before >= 0)
            fail("tokenizer.ggml.tokens: " + quotedToken(token) + " is both token " +
                 std::to_string(before) + " and token " + std::to_string(id));
        seen.set(token, int(id));
    }
    const std::pair<int, const char*> ids[] = {{v.bos, "bos_token_id"},
                                               {v.eos, "eos_token_id"},
                                               {v.unknown, "unknown_token_id"},
                                               {v.padding, "padding_token_id"}};
    for (const auto& [id, key] : ids)
        if (id < -1 || id >= int(n))
            fail(std::string("tokenizer.ggml.") + key + " " + std::to_string(id) +
                 " is not one of the " + std::to_string(n) + " tokens");
    if (v.model == "gpt2" && v.merges.empty())
        fail("tokenizer.ggml.merges is missing: a gpt2 tokenizer needs its merges");
}

// Each id's text in the BPE vocabulary, "" for an id left out (UNUSED).
std::vector<std::string> entryTexts(const GgufVocab& v) {
    const bool sentencePiece = v.model == "llama";
    std::vector<std::string> texts(v.tokens.size());
    for (std::size_t id = 0; id < texts.size(); ++id) {
        const GgufTokenType type = typeOf(v, id);
        if (type == GgufTokenType::Unused) continue;
        std::string text =
            v.tokens[id].empty() ? "[EMPTY_" + std::to_string(id) + "]" : v.tokens[id];
        if (sentencePiece && type == GgufTokenType::UserDefined)
            for (std::size_t at = text.find(' '); at != std::string::npos;
                 at = text.find(' ', at + 3))
                text.replace(at, 1, kMetaspace);
        texts[id] = std::move(text);
    }
    return texts;
}

// A gpt2 vocabulary's merges, "a b" split at the first space after the first byte (as
// llama.cpp reads them); one whose parts or join the vocabulary lacks never applies and is
// left out.
void gpt2Merges(const GgufVocab& v, const std::vector<std::string>& texts,
                TokenizerJsonFile& file) {
    TokenIndex known;
    known.reserve(texts.size());
    for (std::size_t id = 0; id < texts.size(); ++id)
        if (!texts[id].empty()) known.set(texts[id], int(id));
    file.merges.reserve(v.merges.size());
    std::string joined;
    for (std::size_t i = 0; i < v.merges.size(); ++i) {
        const std::string_view line = v.merges[i];
        const std::size_t space = line.find(' ', 1);
        if (space == std::string_view::npos)
            fail("tokenizer.ggml.merges[" + std::to_string(i) + "] " + quotedToken(line) +
                 " is not two tokens with a space between");
        const std::string_view left = line.substr(0, space), right = line.substr(space + 1);
        joined.assign(left).append(right);
        if (known.find(left) >= 0 && known.find(right) >= 0 && known.find(joined) >= 0)
            file.merges.emplace_back(left, right);
    }
}

// A SentencePiece vocabulary's merges: its scores, the added tokens at SentencePiece's 0.
void sentencePieceMergesOf(const GgufVocab& v, const std::vector<std::string>& texts,
                           TokenizerJsonFile& file) {
    std::vector<float> scores(texts.size(), 0.0f);
    for (std::size_t id = 0; id < texts.size(); ++id)
        if (!v.scores.empty() && !isAdded(typeOf(v, id))) scores[id] = v.scores[id];
    file.merges = sentencePieceMerges(texts, scores);
}

// GGUF keeps no lstrip / rstrip. Phi-3's tokenizer.json has its chat tokens (<|user|>, <|end|>,
// ...) and </s> take the whitespace after them, <unk>, <s> and <|endoftext|> not; llama.cpp
// knows such a file by its general.name, and so does this.
bool rstripsAfter(const GgufVocab& v, const std::string& token) {
    std::string name = v.modelName;
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    const bool phi3 = name.find("phi-3") != std::string::npos ||
                      name.find("phi3") != std::string::npos ||
                      name.find("phi 3") != std::string::npos;
    return phi3 && token != "<unk>" && token != "<s>" && token != "<|endoftext|>";
}

// The CONTROL, USER_DEFINED and UNKNOWN tokens as tokenizer.json's added tokens, matched on
// the text as typed (llama.cpp splits them out of the raw text too).
json addedTokens(const GgufVocab& v, const std::vector<std::string>& texts) {
    json list = json::array();
    for (std::size_t id = 0; id < texts.size(); ++id) {
        const GgufTokenType type = typeOf(v, id);
        if (!isAdded(type)) continue;
        list.push_back({{"id", id},
                        {"content", texts[id]},
                        {"special", type != GgufTokenType::UserDefined},
                        {"normalized", false},
                        {"lstrip", false},
                        {"rstrip", rstripsAfter(v, texts[id])},
                        {"single_word", false}});
    }
    return list;
}

// The decoder: how a token's text reads (readable pieces).
json decoderOf(bool sentencePiece) {
    if (!sentencePiece) return byteLevelStep(true);
    return {{"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", kMetaspace}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}}}}};
}

// The whole tokenizer.json the metadata stands for.
TokenizerJsonFile fileOf(const GgufVocab& v, const Pipeline& p, int unknown) {
    const bool sentencePiece = v.model == "llama";
    const std::vector<std::string> texts = entryTexts(v);
    TokenizerJsonFile file;
    file.path = "tokenizer.ggml";
    file.hasVocab = file.hasMerges = true;
    for (std::size_t id = 0; id < texts.size(); ++id)
        if (!texts[id].empty()) file.vocab.emplace_back(texts[id], std::int64_t(id));
    if (sentencePiece)
        sentencePieceMergesOf(v, texts, file);
    else
        gpt2Merges(v, texts, file);
    const bool unk = sentencePiece && unknown >= 0 && !texts[std::size_t(unknown)].empty();
    file.root = {{"model",
                  {{"type", "BPE"},
                   {"unk_token", unk ? json(texts[std::size_t(unknown)]) : json()},
                   {"byte_fallback", sentencePiece},
                   {"fuse_unk", sentencePiece},
                   {"ignore_merges", p.ignoreMerges}}},
                 {"normalizer", p.normalizer},
                 {"pre_tokenizer", p.preTokenizer},
                 {"added_tokens", addedTokens(v, texts)},
                 {"post_processor", nullptr},
                 {"decoder", decoderOf(sentencePiece)}};
    return file;
}

// A special id: the file's, else llama.cpp's default for a "llama" vocabulary (that has it).
int specialId(const GgufVocab& v, int id, int sentencePieceDefault) {
    if (id >= 0 || v.model != "llama") return id;
    return sentencePieceDefault < int(v.tokens.size()) ? sentencePieceDefault : -1;
}

// What the window and the CLI see: the engine with the GGUF's size and description.
class GgufTokenizer final : public ModelTokenizer {
  public:
    GgufTokenizer(std::unique_ptr<TokenizerJson> engine, const GgufVocab& v, std::string about)
        : engine_(std::move(engine)), size_(int(v.tokens.size())), about_(std::move(about)) {
        for (std::size_t id = 0; id < v.tokens.size(); ++id)
            if (typeOf(v, id) == GgufTokenType::Unused) unused_.emplace(int(id), v.tokens[id]);
    }
    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override {
        return engine_->encode(text, pair, maxTokens);
    }
    std::string readable(int id) const override {
        const auto found = unused_.find(id);
        return found != unused_.end() ? found->second : engine_->readable(id);
    }
    int vocabSize() const override { return size_; }
    bool takesPairs() const override { return false; }
    int startId() const override { return engine_->startId(); }
    int maskId() const override { return -1; }
    std::vector<int> specialIds() const override { return engine_->specialIds(); }
    std::string describe() const override { return about_; }

  private:
    std::unique_ptr<TokenizerJson> engine_;
    int size_;
    std::string about_;
    std::unordered_map<int, std::string> unused_; // the UNUSED ids' texts
};

// SentencePiece merges follow the scores; some converters write one placeholder (-1000) for
// every normal piece, and then nothing says which merge comes first.
bool scoresAllEqual(const GgufVocab& v) {
    std::optional<float> first;
    for (std::size_t id = 0; id < v.tokens.size(); ++id) {
        if (typeOf(v, id) != GgufTokenType::Normal) continue;
        const float score = id < v.scores.size() ? v.scores[id] : 0.0f;
        if (first && score != *first) return false;
        first = score;
    }
    return first.has_value() && v.tokens.size() > 1;
}

} // namespace

std::unique_ptr<ModelTokenizer> openGgufTokenizer(const GgufVocab& vocab) {
    checkVocab(vocab);
    const bool sentencePiece = vocab.model == "llama";
    const Pipeline p = sentencePiece ? llamaPipeline(vocab.addSpacePrefix.value_or(true))
                                     : gpt2Pipeline(vocab.pre);
    const int bos = specialId(vocab, vocab.bos, 1), eos = specialId(vocab, vocab.eos, 2);
    const bool addBos = vocab.addBos.value_or(p.addBos), addEos = vocab.addEos.value_or(false);
    if (addBos && bos < 0)
        fail("tokenizer.ggml.add_bos_token is true but there is no tokenizer.ggml.bos_token_id");
    if (addEos && eos < 0)
        fail("tokenizer.ggml.add_eos_token is true but there is no tokenizer.ggml.eos_token_id");
    json config = {{"tokenizer_class", "LlamaTokenizerFast"},
                   {"add_bos_token", addBos},
                   {"add_eos_token", addEos}};
    if (addBos) config["bos_token"] = vocab.tokens[std::size_t(bos)];
    if (addEos) config["eos_token"] = vocab.tokens[std::size_t(eos)];
    auto engine = TokenizerJson::fromFile(fileOf(vocab, p, specialId(vocab, vocab.unknown, 0)),
                                          config.dump());
    const std::string marks = (addBos ? vocab.tokens[std::size_t(bos)] + " " : "") + "text" +
                              (addEos ? " " + vocab.tokens[std::size_t(eos)] : "");
    std::string about = sentencePiece ? "any text: SentencePiece BPE with byte fallback (GGUF, "
                                      : "any text: byte-level BPE (GGUF, pre-tokenizer " +
                                            (vocab.pre.empty() ? "default" : vocab.pre) + ", ";
    about +=
        std::to_string(vocab.tokens.size()) + " tokens)" + (marks == "text" ? "" : ", " + marks);
    if (sentencePiece && scoresAllEqual(vocab)) // said where the tokens show, not hidden
        about += "; every score in the file is the same (a converter's placeholder), so pieces "
                 "merge in vocabulary order: the ids may differ from the model's own tokenizer";
    return std::make_unique<GgufTokenizer>(std::move(engine), vocab, std::move(about));
}

} // namespace core::models

// Reading an attention file (attention_file.h).
#include "models/formats/attention_file.h"

#include "io/text_file.h"
#include "models/formats/safetensors_map.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace core::models {
namespace {

using json = nlohmann::json;

// How far a weight may pass 0 or 1 by rounding (a softmax in F32 reaches 1.0000001).
constexpr double kRangeSlack = 1e-3;
// How far a row's sum may be from 1 before it is named: a 16-bit weight carries about three
// significant digits, so its rows sum to 1 less closely than F32's.
constexpr double kSumSlackF32 = 1e-3;
constexpr double kSumSlack16 = 2e-2;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
    throw std::invalid_argument(path + ": " + what);
}

// The three kinds of tensor the contract names, in the order they are checked.
struct StackName {
    const char* prefix;
    AttentionStack AttentionFile::*stack;
};
constexpr StackName kStacks[] = {{"layers", &AttentionFile::self},
                                 {"encoder", &AttentionFile::encoder},
                                 {"cross", &AttentionFile::cross}};

// "layers.12" -> 12 for `prefix` "layers"; -1 for any other name. Throws for an index that is
// not a plain number or is past kMaxAttentionLayers.
int layerIndex(const std::string& path, const std::string& name, const std::string& prefix) {
    if (name.size() <= prefix.size() + 1 || name.compare(0, prefix.size(), prefix) != 0 ||
        name[prefix.size()] != '.')
        return -1;
    const std::string digits = name.substr(prefix.size() + 1);
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1; // "layers.0.weight": not one of the contract's names
    if (digits.size() > 1 && digits[0] == '0')
        refuse(path, "tensor " + name + ": layers are numbered 0, 1, 2 ... without leading zeros");
    if (digits.size() > 4 || std::stoi(digits) >= kMaxAttentionLayers)
        refuse(path,
               "tensor " + name + ": more than " + std::to_string(kMaxAttentionLayers) + " layers");
    return std::stoi(digits);
}

// The file's tensors of each kind, in layer order; a gap is refused, names outside the
// contract are counted for a warning.
std::map<std::string, std::vector<const TensorView*>>
tensorsByKind(const std::string& path, const TensorStore& store, std::vector<std::string>& other) {
    std::map<std::string, std::map<int, const TensorView*>> found;
    for (const auto& [name, view] : store.tensors()) {
        bool matched = false;
        for (const StackName& kind : kStacks)
            if (const int l = layerIndex(path, name, kind.prefix); l >= 0) {
                found[kind.prefix][l] = &view;
                matched = true;
            }
        if (!matched) other.push_back(name);
    }
    std::map<std::string, std::vector<const TensorView*>> stacks;
    for (const auto& [prefix, layers] : found) {
        int next = 0;
        for (const auto& [l, view] : layers) {
            if (l != next)
                refuse(path, "tensor " + prefix + "." + std::to_string(next) + " is missing (the " +
                                 "file has " + prefix + "." + std::to_string(l) +
                                 "): layers are numbered 0, 1, 2 ... without gaps");
            stacks[prefix].push_back(view);
            ++next;
        }
    }
    return stacks;
}

// A JSON list of strings, each made valid UTF-8; `what` names it in the refusal.
std::vector<std::string> stringList(const std::string& path, const json& value,
                                    const std::string& what) {
    if (!value.is_array())
        refuse(path, what + " is not a JSON list of strings (e.g. [\"The\", \" cat\"])");
    std::vector<std::string> out;
    for (const json& item : value) {
        if (!item.is_string())
            refuse(path, what + " holds " + std::string(item.type_name()) +
                             ", not only strings (one string per token)");
        out.push_back(sanitizeUtf8(item.get<std::string>()));
    }
    return out;
}

// The list under `key` of the file's metadata (its value is JSON text), or none.
std::optional<std::vector<std::string>> metadataList(const std::string& path,
                                                     const TensorStore& store, const char* key) {
    const auto it = store.metadata().find(key);
    if (it == store.metadata().end()) return std::nullopt;
    const json value = json::parse(it->second, nullptr, false);
    if (value.is_discarded())
        refuse(path, std::string("the metadata's ") + key + " is not JSON (a list saved with " +
                         "json.dumps)");
    return stringList(path, value, std::string("the metadata's ") + key);
}

// The tokens (and an encoder's) from the metadata, else from tokens.json beside the file: a
// list, or an object with "tokens" and "source_tokens".
void readTokens(const TensorStore& store, AttentionFile& file) {
    if (auto tokens = metadataList(file.path, store, "tokens")) {
        file.tokens = std::move(*tokens);
        file.tokensFrom = "the file's metadata";
        if (auto source = metadataList(file.path, store, "source_tokens"))
            file.sourceTokens = std::move(*source);
        return;
    }
    const std::string beside = tokensFileBeside(file.path);
    const TextFile text = readTextFile(beside, kSettingsFileCap);
    if (text.problem == FileProblem::Missing)
        refuse(file.path, "no tokens: the metadata has no \"tokens\" list and there is no " +
                              beside + " (docs/attention-files.md)");
    if (!text.ok())
        refuse(file.path, beside + ": " + describeProblem(text.problem, kSettingsFileCap));
    const json value = json::parse(text.text, nullptr, false);
    if (value.is_discarded()) refuse(file.path, beside + " is not JSON");
    file.tokensFrom = beside;
    if (!value.is_object()) {
        file.tokens = stringList(file.path, value, beside);
        return;
    }
    if (!value.contains("tokens")) refuse(file.path, beside + " has no \"tokens\" list");
    file.tokens = stringList(file.path, value["tokens"], beside + "'s tokens");
    if (value.contains("source_tokens"))
        file.sourceTokens =
            stringList(file.path, value["source_tokens"], beside + "'s source_tokens");
}

// "[12][9][9]": a shape as the messages name it.
std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string text;
    for (std::int64_t d : shape)
        text.append("[")
            .append(std::to_string(d))
            .append("]"); // GCC 12's -Wrestrict: no "[" + string
    return text;
}

// The tensor's H, Nq and Nk: [H][Nq][Nk], or [1][H][Nq][Nk]. A batch of more sentences is
// refused: its shorter sentences would be padding the tokens do not name.
void readShape(const std::string& path, const TensorView& t, int& heads, int& queries, int& keys) {
    const std::string where = "tensor " + t.name + " " + shapeText(t.shape);
    if (t.shape.size() == 4 && t.shape[0] != 1)
        refuse(path, where + " holds a batch of " + std::to_string(t.shape[0]) +
                         " sentences: save one (attentions[l][0], or [b:b+1]) with its tokens");
    if (t.shape.size() != 3 && t.shape.size() != 4)
        refuse(path, where + " is not [H][N][N] or [1][H][N][N] (one layer's attention)");
    const std::size_t first = t.shape.size() - 3;
    for (std::size_t d = first; d < t.shape.size(); ++d)
        if (t.shape[d] < 1 || t.shape[d] > (1 << 20))
            refuse(path, where + " has an empty or huge side");
    if (t.shape[first] > kMaxAttentionHeads)
        refuse(path, where + " has more than " + std::to_string(kMaxAttentionHeads) + " heads");
    heads = int(t.shape[first]), queries = int(t.shape[first + 1]), keys = int(t.shape[first + 2]);
    if (t.dtype != Dtype::F32 && t.dtype != Dtype::F16 && t.dtype != Dtype::BF16)
        refuse(path, "tensor " + t.name + " has dtype " + t.dtypeText + ", not F32, F16 or BF16");
}

} // namespace

Mat AttentionStack::head(int l, int h) const {
    return layers.at(std::size_t(l)).middleRows(Eigen::Index(h) * queries, queries); // Nq x Nk
}

std::string tokensFileBeside(const std::string& path) {
    return (std::filesystem::path(path).parent_path() / "tokens.json").string();
}

bool looksLikeAttentionFile(const std::string& path) {
    std::error_code ec;
    return std::filesystem::path(path).extension() == ".safetensors" &&
           std::filesystem::is_regular_file(path, ec);
}

namespace {

// What every weight of a file must be, and the first row that does not sum to 1.
struct RowCheck {
    const std::string& path;
    std::string firstOff; // "layers.2, head 1, row 4 sums to 0.53"
    long long offRows = 0;
};

// A layer's (H*Nq) x Nk map checked: finite, in [0, 1]; rows off 1 counted.
void checkWeights(const Mat& map, const TensorView& t, int queries, RowCheck& check) {
    const double slack = t.dtype == Dtype::F32 ? kSumSlackF32 : kSumSlack16;
    for (Eigen::Index r = 0; r < map.rows(); ++r) {
        double sum = 0;
        for (Eigen::Index c = 0; c < map.cols(); ++c) {
            const float w = map(r, c);
            if (!std::isfinite(w) || w < -kRangeSlack || w > 1 + kRangeSlack) {
                char value[32];
                std::snprintf(value, sizeof value, "%g", double(w));
                refuse(check.path, "tensor " + t.name + ", head " +
                                       std::to_string(r / queries + 1) + ", row " +
                                       std::to_string(r % queries + 1) + ", column " +
                                       std::to_string(c + 1) + " holds " + value +
                                       ": attention weights are 0 to 1 (the softmax's output, "
                                       "not the scores)");
            }
            sum += w;
        }
        if (std::abs(sum - 1) <= slack) continue;
        if (check.offRows++ > 0) continue;
        char text[64];
        std::snprintf(text, sizeof text, " sums to %.4g", sum);
        check.firstOff = t.name + ", head " + std::to_string(r / queries + 1) + ", row " +
                         std::to_string(r % queries + 1) + text;
    }
}

// One stack read: shapes agreeing with each other and with `queries` x `keys` (-1: any, set by
// the first tensor), every map converted and checked.
AttentionStack readStack(const std::vector<const TensorView*>& tensors, int queries, int keys,
                         const std::string& sides, RowCheck& check) {
    AttentionStack stack;
    Mat scratch;
    for (const TensorView* t : tensors) {
        int h = 0, q = 0, k = 0;
        readShape(check.path, *t, h, q, k);
        if (stack.heads == 0) {
            stack.heads = h;
            stack.queries = queries < 0 ? q : queries;
            stack.keys = keys < 0 ? k : keys;
        }
        if (h != stack.heads)
            refuse(check.path, "tensor " + t->name + " has " + std::to_string(h) + " heads, " +
                                   tensors.front()->name + " " + std::to_string(stack.heads));
        if (q != stack.queries || k != stack.keys)
            refuse(check.path, "tensor " + t->name + " " + shapeText(t->shape) + " is not [" +
                                   std::to_string(h) + "][" + std::to_string(stack.queries) + "][" +
                                   std::to_string(stack.keys) + "] for " + sides);
        stack.layers.push_back(Mat(tensorAsFloat(*t, scratch))); // (H*Nq) x Nk
        checkWeights(stack.layers.back(), *t, stack.queries, check);
    }
    return stack;
}

// "the 9 tokens (from the file's metadata)".
std::string tokensText(std::size_t n, const std::string& what, const std::string& from) {
    return "the " + std::to_string(n) + " " + what + " (from " + from + ")";
}

// The dtypes of the tensors read: "BF16", or "F32 and BF16".
std::string dtypesOf(const std::map<std::string, std::vector<const TensorView*>>& stacks) {
    std::set<std::string> names;
    for (const auto& [prefix, tensors] : stacks)
        for (const TensorView* t : tensors) names.insert(t->dtypeText);
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : " and ") + name;
    return text;
}

// The encoder's and the cross-attention's stacks, sized by the source tokens (or, without
// them, by the encoder's own maps, the tokens then named by number with a warning).
void readSourceStacks(const std::map<std::string, std::vector<const TensorView*>>& stacks,
                      AttentionFile& file, RowCheck& check) {
    const auto encoder = stacks.find("encoder"), cross = stacks.find("cross");
    if (encoder == stacks.end() && cross == stacks.end()) return;
    const int given = file.sourceTokens.empty() ? -1 : int(file.sourceTokens.size());
    const std::string sources =
        given < 0 ? std::string("the source tokens")
                  : tokensText(file.sourceTokens.size(), "source tokens", file.tokensFrom);
    if (encoder != stacks.end()) {
        file.encoder = readStack(encoder->second, given, given, sources, check);
        if (file.encoder.queries != file.encoder.keys) // without source tokens to size it
            refuse(file.path, "tensor " + encoder->second.front()->name + " " +
                                  shapeText(encoder->second.front()->shape) +
                                  " is not [H][N_s][N_s]: the encoder's self-attention is square");
    }
    const int ns = given >= 0 ? given : file.encoder.empty() ? -1 : file.encoder.keys;
    if (cross != stacks.end())
        file.cross = readStack(cross->second, int(file.tokens.size()), ns,
                               tokensText(file.tokens.size(), "tokens", file.tokensFrom) + " and " +
                                   (ns < 0 ? sources : std::to_string(ns) + " sources"),
                               check);
    if (given >= 0) return;
    const int n = file.encoder.empty() ? file.cross.keys : file.encoder.keys;
    for (int i = 0; i < n; ++i) file.sourceTokens.push_back("src " + std::to_string(i + 1));
    file.warnings.push_back(file.path + ": no source_tokens list: the encoder's tokens are " +
                            "named src 1 to src " + std::to_string(n));
}

} // namespace

AttentionFile readAttentionFile(const std::string& path) {
    TensorStore store;
    store.addFile(path); // "path: ..." for a file that is not safetensors
    AttentionFile file;
    file.path = path;
    std::vector<std::string> other;
    const auto stacks = tensorsByKind(path, store, other);
    if (!stacks.count("layers")) {
        std::string held = other.empty() ? "no tensors" : "tensors such as " + other.front();
        refuse(path, "no tensor layers.0: an attention file holds layers.<l> tensors [H][N][N] " +
                         ("(this one holds " + held + "; a model is opened by its folder)"));
    }
    readTokens(store, file);
    if (file.tokens.empty())
        refuse(path, "the tokens list (from " + file.tokensFrom + ") is empty");
    RowCheck check{path, {}, 0};
    const int n = int(file.tokens.size());
    file.self = readStack(stacks.at("layers"), n, n,
                          tokensText(file.tokens.size(), "tokens", file.tokensFrom), check);
    readSourceStacks(stacks, file, check);
    file.dtype = dtypesOf(stacks);
    if (check.offRows > 0)
        file.warnings.push_back(path + ": " + check.firstOff + ", not 1" +
                                (check.offRows > 1
                                     ? " (and " + std::to_string(check.offRows - 1) + " more rows)"
                                     : std::string()) +
                                ": shown as saved (pre-dropout or masked rows?)");
    if (!other.empty())
        file.warnings.push_back(path + ": left out " + std::to_string(other.size()) +
                                " tensor(s) that are not layers.<l>, encoder.<l> or cross.<l> "
                                "(such as " +
                                other.front() + ")");
    return file;
}

} // namespace core::models

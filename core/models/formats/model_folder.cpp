#include "models/formats/model_folder.h"

#include "models/formats/model_stores.h"

#include "models/architectures.h"
#include "models/formats/gguf_file.h"

#include "io/json_fields.h"
#include "io/text_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace core::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

[[noreturn]] void refuse(const std::string& message) {
    throw std::invalid_argument(message);
}

// Present as a name in the folder, even when it is a link whose blob is missing: such a file
// is reported as missing by name rather than making the folder look like something else.
bool present(const fs::path& path) {
    std::error_code ec;
    return fs::exists(fs::symlink_status(path, ec));
}

bool isDanglingLink(const fs::path& path) {
    std::error_code ec;
    return fs::is_symlink(fs::symlink_status(path, ec)) && !fs::exists(path, ec);
}

// `path` as a string when it is a readable file; `missing` is the message when it is absent.
std::string requireFile(const fs::path& path, const std::string& missing) {
    std::error_code ec;
    if (isDanglingLink(path))
        refuse(path.string() + " is a link to a missing file (an interrupted download?); " +
               "download " + path.filename().string() + " again");
    if (!fs::is_regular_file(path, ec)) refuse(missing);
    return path.string();
}

// config.json and the shard index are kilobytes: a huge file with one of their names is a
// mistake, not something to load into memory (io/text_file.h).
std::string readSmallFile(const std::string& path, const std::string& where) {
    if (isDanglingLink(path))
        refuse(where + path + " is a link to a missing file (an interrupted download?)");
    TextFile file = readTextFile(path, kSettingsFileCap);
    if (file.problem == FileProblem::TooLarge)
        refuse(where + path + " is " + describeProblem(file.problem, kSettingsFileCap));
    if (!file.ok()) refuse(where + "cannot read " + path);
    return std::move(file.text);
}

json parseJsonObject(const std::string& text, const std::string& where) {
    json root = json::parse(text, nullptr, false);
    if (root.is_discarded()) refuse(where + jsonSyntaxProblem(text));
    if (!root.is_object()) refuse(where + "not a JSON object");
    return root;
}

// Weights in a format mha-viz does not read (PyTorch pickles, TensorFlow, Flax): the first
// one found, for the message, or "" when there is none.
std::string otherWeights(const fs::path& dir) {
    for (const char* name : {"pytorch_model.bin", "pytorch_model.bin.index.json", "tf_model.h5",
                             "flax_model.msgpack", "model.ckpt.index"})
        if (present(dir / name)) return name;
    std::error_code ec;
    std::vector<std::string> bins;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".bin") bins.push_back(entry.path().filename().string());
    std::sort(bins.begin(), bins.end());
    return bins.empty() ? "" : bins.front();
}

bool hasSafetensors(const fs::path& dir) {
    return present(dir / "model.safetensors") || present(dir / "model.safetensors.index.json");
}

[[noreturn]] void refuseOtherWeights(const std::string& dir, const std::string& found) {
    refuse(dir + ": only " + found + ", which mha-viz does not read; download model.safetensors" +
           " from the model's page");
}

// ---- the Hugging Face cache ----

std::string envOrEmpty(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// huggingface_hub's own order, so a model it downloaded is found where it put it; "" when no
// variable says where a cache could be.
fs::path hubCache() {
    for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
        if (const std::string dir = envOrEmpty(name); !dir.empty()) return dir;
    if (const std::string home = envOrEmpty("HF_HOME"); !home.empty())
        return fs::path(home) / "hub";
    if (const std::string xdg = envOrEmpty("XDG_CACHE_HOME"); !xdg.empty())
        return fs::path(xdg) / "huggingface" / "hub";
    if (const std::string home = envOrEmpty("HOME"); !home.empty())
        return fs::path(home) / ".cache" / "huggingface" / "hub";
    return {};
}

// One part of ORG/NAME as the hub allows it; anything else (a path such as ./x or /tmp/x) is
// not looked up, so a mistyped folder is never read from an unrelated cache entry.
bool isNamePart(const std::string& part) {
    if (part.empty() || part == "." || part == ".." || part.size() > 96) return false;
    return std::all_of(part.begin(), part.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
    });
}

bool isModelName(const std::string& name) {
    const std::size_t slash = name.find('/');
    if (slash == std::string::npos) return isNamePart(name);
    return isNamePart(name.substr(0, slash)) && isNamePart(name.substr(slash + 1));
}

// The cache's folder names: models--gpt2, and for a bare name also the hub's current
// models--openai-community--gpt2 (the original GPT-2 names were moved there).
std::vector<std::string> cacheFolderNames(const std::string& name) {
    std::string folder = "models--" + name;
    if (const std::size_t slash = folder.find('/'); slash != std::string::npos)
        folder.replace(slash, 1, "--");
    if (name.find('/') != std::string::npos) return {folder};
    return {folder, "models--openai-community--" + name};
}

std::string trimmed(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// With no refs/main (a cache copied by hand, or one made by a download of a single revision)
// the snapshot is the only one; of several, the most recently written, which is the last
// download (ties by name, so the choice does not depend on the listing's order).
fs::path newestSnapshot(const fs::path& repo) {
    std::error_code ec;
    fs::path best;
    fs::file_time_type bestTime{};
    for (const fs::directory_entry& entry : fs::directory_iterator(repo / "snapshots", ec)) {
        if (!entry.is_directory(ec)) continue;
        const fs::file_time_type time = fs::last_write_time(entry.path(), ec);
        if (best.empty() || time > bestTime || (time == bestTime && entry.path() > best)) {
            best = entry.path();
            bestTime = time;
        }
    }
    if (best.empty()) refuse(repo.string() + ": no snapshots; nothing is downloaded by mha-viz");
    return best;
}

fs::path snapshotOf(const fs::path& repo) {
    const fs::path ref = repo / "refs" / "main";
    if (!present(ref)) return newestSnapshot(repo);
    std::ifstream in(ref);
    std::string text;
    std::getline(in, text);
    const std::string hash = trimmed(text);
    if (!in || !isNamePart(hash) || hash.find('.') != std::string::npos)
        refuse(ref.string() + ": not a commit hash");
    const fs::path snapshot = repo / "snapshots" / hash;
    std::error_code ec;
    if (!fs::is_directory(snapshot, ec))
        refuse(ref.string() + " names snapshot " + hash + ", which is missing");
    return snapshot;
}

std::string cachedModelName(const std::string& folder); // below: "ORG/NAME" of a folder

// A bare name under any organisation: bert-base-uncased is google-bert/bert-base-uncased in
// today's hub. The folders of the cache that end in "--NAME", sorted.
std::vector<std::string> foldersNamed(const fs::path& cache, const std::string& name) {
    std::vector<std::string> found;
    std::error_code ec;
    const std::string tail = "--" + name;
    for (const fs::directory_entry& entry : fs::directory_iterator(cache, ec)) {
        const std::string folder = entry.path().filename().string();
        if (folder.rfind("models--", 0) == 0 && folder.size() > tail.size() + 8 &&
            folder.compare(folder.size() - tail.size(), tail.size(), tail) == 0 &&
            entry.is_directory(ec))
            found.push_back(folder);
    }
    std::sort(found.begin(), found.end());
    return found;
}

fs::path findInCache(const std::string& name) {
    const fs::path cache = hubCache();
    const std::vector<std::string> folders = cacheFolderNames(name);
    std::error_code ec;
    if (!cache.empty())
        for (const std::string& folder : folders)
            if (fs::is_directory(cache / folder, ec)) return snapshotOf(cache / folder);
    if (!cache.empty() && name.find('/') == std::string::npos) {
        const std::vector<std::string> any = foldersNamed(cache, name);
        if (any.size() == 1) return snapshotOf(cache / any.front());
        if (any.size() > 1)
            refuse("'" + name + "' is in the Hugging Face cache " + cache.string() + " as " +
                   cachedModelName(any[0]) + " and " + cachedModelName(any[1]) +
                   (any.size() > 2 ? " (and more)" : "") + ": name one of them");
    }
    std::string tried = folders[0] + (folders.size() > 1 ? " or " + folders[1] : "");
    refuse("'" + name + "' is not a folder, and the Hugging Face cache " +
           (cache.empty() ? std::string("(no HF_HOME or HOME set)") : cache.string()) + " has no " +
           tried + "; mha-viz downloads nothing: give the path of a model folder" +
           " (config.json, model.safetensors and the tokenizer files)");
}

// "models--ORG--NAME" -> "ORG/NAME" (the hub allows no "--" inside a name part); "" for
// other folders of the cache (datasets--, spaces--, .locks).
std::string cachedModelName(const std::string& folder) {
    const std::string prefix = "models--";
    if (folder.rfind(prefix, 0) != 0) return "";
    std::string name = folder.substr(prefix.size());
    if (const std::size_t sep = name.find("--"); sep != std::string::npos)
        name.replace(sep, 2, "/");
    return isModelName(name) ? name : "";
}

// The type and whether this build opens it; a bad config is described, not thrown.
void describeCachedModel(CachedModel& model) {
    try {
        const std::string where = "config.json: ";
        const json root = parseJsonObject(
            readSmallFile((fs::path(model.dir) / "config.json").string(), where), where);
        if (root.contains("model_type") && root.at("model_type").is_string())
            model.modelType = root.at("model_type").get<std::string>();
        if (findSeq2SeqArchitecture(model.modelType)) { // its own reader checks it on opening
            model.supported = true;
            return;
        }
        const std::vector<std::string>& supported = supportedModelTypes();
        if (std::find(supported.begin(), supported.end(), model.modelType) == supported.end())
            refuse(model.modelType.empty() ? "config.json: no model_type"
                                           : "not supported: " + model.modelType);
        parseModelConfig(root.dump(), supported); // sizes present and consistent
        model.supported = true;
    } catch (const std::exception& e) {
        model.error = e.what();
    }
}

// Whether the file starts with GGUF's magic: Ollama keeps its models as blobs named by their
// digest (sha256-...), without the .gguf ending.
bool startsAsGguf(const fs::path& file) {
    char magic[4] = {};
    std::ifstream in(file, std::ios::binary);
    return in.read(magic, 4) && std::string(magic, 4) == "GGUF";
}

// A GGUF file named directly: the folder it is in, the file itself.
ModelLocation ggufLocation(const fs::path& file, const std::string& source) {
    ModelLocation location;
    location.kind = ModelFolderKind::Gguf;
    location.dir = file.parent_path().empty() ? "." : file.parent_path().string();
    location.file = file.string();
    location.source = source;
    return location;
}

// The GGUF models in a folder: each file, the parts of a split model counted once (by its first
// part), llama.cpp's multimodal projectors (mmproj-*) left out; sorted.
std::vector<std::string> ggufModelsIn(const fs::path& dir) {
    static const std::regex laterPart(R"(.*-(\d{5})-of-\d{5}\.gguf)", std::regex::icase);
    std::vector<std::string> found;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        std::smatch m;
        if (!isGgufName(name) || name.rfind("mmproj", 0) == 0 || !entry.is_regular_file(ec))
            continue;
        if (std::regex_match(name, m, laterPart) && m[1].str() != "00001") continue;
        found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    return found;
}

ModelLocation classifyGguf(const std::string& dir, const std::string& source) {
    const std::vector<std::string> models = ggufModelsIn(dir);
    if (models.empty())
        refuse(dir + ": not a model folder (no config.json, model.json or .gguf file)");
    if (models.size() > 1)
        refuse(dir + ": holds " + std::to_string(models.size()) + " GGUF models (" +
               fs::path(models[0]).filename().string() + ", " +
               fs::path(models[1]).filename().string() + (models.size() > 2 ? ", ..." : "") +
               "); name the file to open");
    return ggufLocation(models.front(), source);
}

ModelLocation classify(const std::string& dir, const std::string& source) {
    ModelLocation location;
    location.dir = dir;
    location.source = source;
    if (present(fs::path(dir) / "model.json")) {
        location.kind = ModelFolderKind::TrainRun;
        return location;
    }
    if (!present(fs::path(dir) / "config.json")) return classifyGguf(dir, source);
    location.kind = ModelFolderKind::HuggingFace;
    if (!hasSafetensors(dir))
        if (const std::string found = otherWeights(dir); !found.empty())
            refuseOtherWeights(dir, found);
    return location;
}

// ---- the files of a Hugging Face folder ----

bool isPlainFileName(const std::string& name) {
    return !name.empty() && name.find('/') == std::string::npos &&
           name.find('\\') == std::string::npos && name.find('\0') == std::string::npos &&
           name.find("..") == std::string::npos;
}

// model.safetensors.index.json: {"metadata": {...}, "weight_map": {tensor: shard file}}.
// Shards are listed in the order they first appear over the tensor names sorted (how the
// JSON object is read), so the list does not depend on the file's formatting.
void readShardIndex(const fs::path& dir, HfFiles& files) {
    const std::string where = "model.safetensors.index.json: ";
    const std::string path =
        requireFile(dir / "model.safetensors.index.json", dir.string() + ": no weights");
    const json index = parseJsonObject(readSmallFile(path, where), where);
    if (!index.contains("weight_map") || !index.at("weight_map").is_object())
        refuse(where + "missing \"weight_map\" (an object: tensor name -> shard file)");
    const json& map = index.at("weight_map");
    if (map.empty()) refuse(where + "\"weight_map\" names no tensors");
    std::set<std::string> seen;
    for (const auto& [tensor, shardName] : map.items()) {
        if (!shardName.is_string())
            refuse(where + "the shard of tensor '" + tensor + "' must be a file name");
        const std::string shard = shardName.get<std::string>();
        if (!isPlainFileName(shard))
            refuse(where + "shard '" + shard + "' must be a file name in the same folder");
        if (!shard.ends_with(".safetensors"))
            refuse(where + "shard '" + shard + "' is not a .safetensors file");
        const std::string shardPath = (dir / shard).string();
        if (seen.insert(shard).second) {
            requireFile(dir / shard, where + "shard '" + shard + "' is missing from " +
                                         dir.string() + "; download it from the model's page");
            files.weights.push_back(shardPath);
        }
        files.shardOf[tensor] = shardPath;
    }
}

void readWeights(const fs::path& dir, HfFiles& files) {
    if (present(dir / "model.safetensors")) {
        files.weights = {requireFile(dir / "model.safetensors",
                                     (dir / "model.safetensors").string() + " is not a file")};
        return;
    }
    if (present(dir / "model.safetensors.index.json")) return readShardIndex(dir, files);
    if (const std::string found = otherWeights(dir); !found.empty())
        refuseOtherWeights(dir.string(), found);
    refuse(dir.string() + ": no weights (model.safetensors, or model.safetensors.index.json" +
           " with its shards)");
}

// The file's path when it is there, "" when not; a link whose blob is missing is refused.
std::string optionalFile(const fs::path& dir, const char* name) {
    if (!present(dir / name)) return "";
    return requireFile(dir / name, (dir / name).string() + " is not a file");
}

void readTokenizerFiles(const fs::path& dir, HfFiles& files) {
    files.vocabJson = optionalFile(dir, "vocab.json");
    files.merges = optionalFile(dir, "merges.txt");
    files.tokenizerJson = optionalFile(dir, "tokenizer.json");
    files.vocabTxt = optionalFile(dir, "vocab.txt");
    files.tokenizerConfig = optionalFile(dir, "tokenizer_config.json");
    files.sentencePiece = optionalFile(dir, "spiece.model");
    files.sourceSpm = optionalFile(dir, "source.spm");
    files.targetSpm = optionalFile(dir, "target.spm");
    const bool bpe = !files.vocabJson.empty() && !files.merges.empty();
    const bool marian = !files.sourceSpm.empty() && !files.targetSpm.empty();
    if (bpe || !files.tokenizerJson.empty() || !files.vocabTxt.empty() ||
        !files.sentencePiece.empty() || marian)
        return;
    std::string half;
    if (!files.vocabJson.empty()) half = " (it has vocab.json but not merges.txt)";
    if (!files.merges.empty()) half = " (it has merges.txt but not vocab.json)";
    if (files.sourceSpm.empty() != files.targetSpm.empty()) // half of Marian's pair
        half = files.sourceSpm.empty() ? " (it has target.spm but not source.spm)"
                                       : " (it has source.spm but not target.spm)";
    refuse(dir.string() + ": no tokenizer files" + half +
           "; expected vocab.json + merges.txt or tokenizer.json (GPT-2), vocab.txt or" +
           " tokenizer.json (BERT), spiece.model (T5), source.spm + target.spm + vocab.json" +
           " (Marian)");
}

} // namespace

namespace {

// A GGUF of Ollama's store (`ollama` true) or LM Studio's folders, by the store's name.
ModelLocation storedLocation(const std::string& name, bool ollama, const std::string& source) {
    const StoredModel found = ollama ? findOllamaModel(name) : findLmStudioModel(name);
    ModelLocation location = ggufLocation(found.file, source);
    location.storeName = found.name;
    return location;
}

// Whether `name` could be an Ollama name (NAME[:TAG] or NAMESPACE/NAME[:TAG]) or LM Studio's
// PUBLISHER/REPO[/FILE]: the stores are searched for it.
bool mayBeStored(const std::string& name) {
    return !name.empty() && name.front() != '/' && name.front() != '.' &&
           name.find("..") == std::string::npos;
}

// A name: the Hugging Face cache, then Ollama's store, then LM Studio's folders; the cache's
// refusal, naming the stores searched too, when none has it.
ModelLocation locateName(const std::string& name) {
    std::string cacheRefusal;
    if (isModelName(name)) {
        try {
            return classify(findInCache(name).string(), name);
        } catch (const std::invalid_argument& e) {
            cacheRefusal = e.what();
            if (cacheRefusal.find("is not a folder, and the Hugging Face cache") ==
                std::string::npos)
                throw; // found, but ambiguous or broken: that is the answer
        }
    }
    if (mayBeStored(name))
        for (const bool ollama : {true, false}) {
            try {
                return storedLocation(name, ollama, name);
            } catch (const std::invalid_argument&) { // not in that store: the next
            }
        }
    if (cacheRefusal.empty())
        refuse(name + ": no such folder (nor a model name such as gpt2 or" +
               " openai-community/gpt2, ollama:NAME[:TAG] or lmstudio:PUBLISHER/REPO)");
    refuse(cacheRefusal + "; nor is it in Ollama's store or LM Studio's folders");
}

} // namespace

ModelLocation locateModel(const std::string& dirOrName) {
    if (dirOrName.empty()) refuse("no model given: name a model folder or a name such as gpt2");
    std::error_code ec;
    if (fs::is_directory(dirOrName, ec)) return classify(dirOrName, dirOrName);
    if (fs::exists(dirOrName, ec) && (isGgufName(dirOrName) || startsAsGguf(dirOrName)))
        return ggufLocation(dirOrName, dirOrName);
    if (fs::exists(dirOrName, ec))
        refuse(dirOrName + ": a file, not a model folder (nor a .gguf file)");
    for (const char* store : {"ollama:", "lmstudio:"}) // one store, named
        if (dirOrName.rfind(store, 0) == 0)
            return storedLocation(dirOrName.substr(std::strlen(store)), store[0] == 'o', dirOrName);
    return locateName(dirOrName);
}

std::string modelDisplayName(const ModelLocation& location) {
    if (!location.storeName.empty()) return location.storeName; // not an Ollama blob's digest
    if (location.kind == ModelFolderKind::Gguf) {
        static const std::regex part(R"((.*)-\d{5}-of-\d{5})");
        std::string stem = fs::path(location.file).filename().string();
        if (isGgufName(stem)) stem = stem.substr(0, stem.size() - 5); // ".gguf"
        std::smatch m;
        return std::regex_match(stem, m, part) ? m[1].str() : stem;
    }
    std::error_code ec; // "." names the folder it is
    fs::path dir = fs::absolute(location.dir, ec).lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path(); // "gpt2/" names "gpt2"
    // <cache>/models--ORG--NAME/snapshots/<hash>: the repository's id.
    if (dir.parent_path().filename() == "snapshots")
        if (std::string name = cachedModelName(dir.parent_path().parent_path().filename().string());
            !name.empty())
            return name;
    const std::string base = dir.filename().string();
    return base.empty() ? location.source : base;
}

std::string hubCacheDir() {
    return hubCache().string();
}

std::vector<CachedModel> listCachedModels() {
    std::vector<CachedModel> models;
    const fs::path cache = hubCache();
    std::error_code ec;
    if (cache.empty()) return models;
    // increment(ec), not a range-for: a folder vanishing mid-listing must not throw.
    for (fs::directory_iterator it(cache, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::directory_entry& entry = *it;
        CachedModel model;
        model.name = cachedModelName(entry.path().filename().string());
        if (model.name.empty() || !entry.is_directory(ec)) continue;
        try {
            model.dir = snapshotOf(entry.path()).string();
        } catch (const std::exception&) {
            continue; // no snapshot to open: not a model the dialog can offer
        }
        if (!present(fs::path(model.dir) / "config.json")) continue;
        describeCachedModel(model);
        models.push_back(std::move(model));
    }
    std::sort(models.begin(), models.end(),
              [](const CachedModel& a, const CachedModel& b) { return a.name < b.name; });
    return models;
}

HfFiles hfFiles(const ModelLocation& location) {
    const fs::path dir = location.dir;
    HfFiles files;
    files.config =
        requireFile(dir / "config.json", location.dir + ": not a model folder (no config.json)");
    readWeights(dir, files);
    readTokenizerFiles(dir, files);
    return files;
}

json readJsonObjectFile(const std::string& path) {
    const std::string where = path + ": ";
    return parseJsonObject(readSmallFile(path, where), where);
}

ModelConfig readModelConfig(const std::string& path) {
    try {
        return parseModelConfig(readSmallFile(path, "config.json: "), supportedModelTypes());
    } catch (const std::invalid_argument& e) { // named by its path: which model's config
        const std::string what = e.what(), prefix = "config.json: ";
        if (what.rfind(prefix, 0) != 0 || what.find(path) != std::string::npos) throw;
        refuse(path + ": " + what.substr(prefix.size()));
    }
}

} // namespace core::models

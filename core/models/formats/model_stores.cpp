// Ollama's store and LM Studio's folders (model_stores.h).
#include "models/formats/model_stores.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <system_error>

namespace core::models {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kOllamaRegistry = "registry.ollama.ai";
constexpr const char* kModelLayer = "application/vnd.ollama.image.model";

[[noreturn]] void refuse(const std::string& what) {
    throw std::invalid_argument(what);
}

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

bool isDir(const fs::path& p) {
    std::error_code ec;
    return fs::is_directory(p, ec);
}

bool isFile(const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec);
}

std::uint64_t sizeOf(const fs::path& p) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    return ec ? 0 : std::uint64_t(size);
}

// A part of a name that stays inside the store: no separators, no "." or "..", not empty.
bool safePart(const std::string& part) {
    return !part.empty() && part != "." && part != ".." &&
           part.find_first_of("/\\") == std::string::npos;
}

std::vector<std::string> split(const std::string& text, char by) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find(by, from)) != std::string::npos; from = at + 1)
        parts.push_back(text.substr(from, at - from));
    parts.push_back(text.substr(from));
    return parts;
}

// ---- Ollama ----

// HOST, NAMESPACE, NAME and TAG of an Ollama name, as `ollama pull` spells them.
struct OllamaName {
    std::string host = kOllamaRegistry, space = "library", model, tag = "latest";
};

OllamaName parseOllamaName(const std::string& text) {
    OllamaName n;
    std::string path = text;
    if (const auto colon = text.rfind(':');
        colon != std::string::npos && text.find('/', colon) == std::string::npos) {
        path = text.substr(0, colon);
        n.tag = text.substr(colon + 1);
    }
    const std::vector<std::string> parts = split(path, '/');
    if (parts.size() > 3 || !safePart(n.tag) || !std::all_of(parts.begin(), parts.end(), safePart))
        refuse("ollama:" + text + ": not an Ollama model name (NAME[:TAG], NAMESPACE/NAME[:TAG] " +
               "or HOST/NAMESPACE/NAME[:TAG])");
    n.model = parts.back();
    if (parts.size() >= 2) n.space = parts[parts.size() - 2];
    if (parts.size() == 3) n.host = parts[0];
    return n;
}

// The name `ollama list` shows: the library's models bare, others with their namespace.
std::string displayName(const OllamaName& n) {
    std::string name = n.host == kOllamaRegistry ? "" : n.host + "/";
    if (n.host != kOllamaRegistry || n.space != "library") name += n.space + "/";
    return name + n.model + ":" + n.tag;
}

// The model layer's blob of a manifest file; throws naming what is wrong.
fs::path blobOf(const fs::path& store, const fs::path& manifest, const std::string& name) {
    json doc;
    try {
        std::ifstream in(manifest, std::ios::binary);
        doc = json::parse(in);
    } catch (const std::exception&) {
        refuse("ollama:" + name + ": " + manifest.string() + " is not an Ollama manifest (JSON)");
    }
    const json* layers = doc.is_object() && doc.contains("layers") ? &doc["layers"] : nullptr;
    if (!layers || !layers->is_array())
        refuse("ollama:" + name + ": " + manifest.string() + " has no layers");
    for (const json& layer : *layers) {
        if (!layer.is_object() || layer.value("mediaType", "") != kModelLayer) continue;
        const std::string digest = layer.value("digest", "");
        if (digest.rfind("sha256:", 0) != 0 || !safePart(digest.substr(7)))
            refuse("ollama:" + name + ": the manifest's model layer has no sha256 digest");
        const std::string hex = digest.substr(7);
        for (const fs::path& blob : {store / "blobs" / ("sha256-" + hex), store / "blobs" / digest})
            if (isFile(blob)) return blob;
        refuse("ollama:" + name + ": its weights, blob sha256-" + hex.substr(0, 12) +
               "..., are missing from " + (store / "blobs").string() +
               " (an interrupted pull? `ollama pull " + name + "` completes it)");
    }
    refuse("ollama:" + name + ": the manifest has no model layer (" + kModelLayer +
           "): an adapter or a projector alone?");
}

// Ollama's config layer (application/vnd.docker.container.image.v1+json): family, size and
// file type as the store recorded them. Leaves the fields empty when it cannot be read.
void describeFromConfig(const fs::path& store, const json& manifest, StoredModel& model) {
    if (!manifest.contains("config") || !manifest["config"].is_object()) return;
    const std::string digest = manifest["config"].value("digest", "");
    if (digest.rfind("sha256:", 0) != 0 || !safePart(digest.substr(7))) return;
    const fs::path blob = store / "blobs" / ("sha256-" + digest.substr(7));
    if (sizeOf(blob) == 0 || sizeOf(blob) > (1u << 20)) return; // a config is a few hundred bytes
    try {
        std::ifstream in(blob, std::ios::binary);
        const json config = json::parse(in);
        model.family = config.value("model_family", "");
        model.parameters = config.value("model_type", "");
        model.quantization = config.value("file_type", "");
    } catch (const std::exception&) {
    }
}

// The manifest as JSON (null when unreadable).
json readManifest(const fs::path& manifest) {
    try {
        std::ifstream in(manifest, std::ios::binary);
        return json::parse(in);
    } catch (const std::exception&) {
        return nullptr;
    }
}

// A found blob described from its manifest's config, and judged.
StoredModel ollamaEntry(const fs::path& store, const fs::path& manifest, const std::string& name,
                        const fs::path& blob) {
    StoredModel model;
    model.name = name, model.store = "ollama", model.file = blob.string();
    model.bytes = sizeOf(blob);
    describeFromConfig(store, readManifest(manifest), model);
    model.unsupported = quantizationProblem(model.quantization);
    return model;
}

} // namespace

std::string quantizationProblem(const std::string& quantization) {
    std::string q = quantization;
    std::transform(q.begin(), q.end(), q.begin(), [](unsigned char c) { return std::toupper(c); });
    if (q.rfind("IQ", 0) == 0 || q.rfind("TQ", 0) == 0 || q.rfind("MXFP4", 0) == 0)
        return q + " weights (mha-viz reads F32, F16, BF16, Q4_0 to Q8_0 and the K-quants)";
    return "";
}

std::string architectureProblem(const std::string& family,
                                const std::vector<std::string>& runnable) {
    if (family.empty() || std::find(runnable.begin(), runnable.end(), family) != runnable.end())
        return "";
    std::string list;
    for (const std::string& name : runnable) list += (list.empty() ? "" : ", ") + name;
    return "architecture " + family + " (mha-viz runs " + list + ")";
}

std::string ollamaModelsDir() {
    if (const std::string dir = env("OLLAMA_MODELS"); !dir.empty()) return dir;
    if (const std::string home = env("HOME"); !home.empty()) {
        const fs::path dir = fs::path(home) / ".ollama" / "models";
        if (isDir(dir)) return dir.string();
    }
    const fs::path service = "/usr/share/ollama/.ollama/models"; // the Linux installer's user
    return isDir(service) ? service.string() : "";
}

StoredModel findOllamaModel(const std::string& name) {
    const OllamaName n = parseOllamaName(name);
    const std::string store = ollamaModelsDir();
    if (store.empty())
        refuse("ollama:" + name + ": no Ollama store (set OLLAMA_MODELS, or HOME with " +
               "~/.ollama/models)");
    const fs::path manifest = fs::path(store) / "manifests" / n.host / n.space / n.model / n.tag;
    if (!isFile(manifest))
        refuse("ollama:" + name + ": not in Ollama's store " + store + " (no " + manifest.string() +
               "; `ollama list` shows what is there)");
    const std::string shown = displayName(n);
    return ollamaEntry(store, manifest, shown, blobOf(store, manifest, shown));
}

std::vector<StoredModel> listOllamaModels() {
    std::vector<StoredModel> found;
    const std::string store = ollamaModelsDir();
    const fs::path root = fs::path(store) / "manifests";
    if (store.empty() || !isDir(root)) return found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it.depth() != 3 || !it->is_regular_file(ec)) continue; // HOST/NS/NAME/TAG
        const fs::path rel = fs::relative(it->path(), root, ec);
        const std::vector<std::string> p = split(rel.generic_string(), '/');
        if (p.size() != 4) continue;
        const OllamaName n{p[0], p[1], p[2], p[3]};
        try {
            const fs::path blob = blobOf(store, it->path(), displayName(n));
            found.push_back(ollamaEntry(store, it->path(), displayName(n), blob));
        } catch (const std::invalid_argument&) { // listed only when it can be opened
        }
    }
    std::sort(found.begin(), found.end(),
              [](const StoredModel& a, const StoredModel& b) { return a.name < b.name; });
    return found;
}

// ---- LM Studio ----

namespace {

// The GGUFs of a REPO folder a user would open: not vision projectors (mmproj-*), and of a
// split model only its first part.
std::vector<fs::path> modelFiles(const fs::path& repo) {
    static const std::regex laterPart(R"(.*-000(0[2-9]|[1-9]\d)-of-\d{5}\.gguf)",
                                      std::regex::icase);
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(repo, ec)) {
        const std::string file = entry.path().filename().string();
        if (!entry.is_regular_file(ec) || entry.path().extension() != ".gguf") continue;
        if (file.rfind("mmproj", 0) == 0 || std::regex_match(file, laterPart)) continue;
        files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

// The quantization a file's name gives (Llama-3.2-1B-Instruct-Q4_K_M.gguf -> Q4_K_M), "" when
// it names none.
std::string quantizationOfName(const std::string& file) {
    static const std::regex type(
        R"((?:^|[-._])((?:I?Q[1-8](?:_[A-Z0-9]+)*)|BF16|F16|F32|MXFP4)(?=[-._]))",
        std::regex::icase);
    std::smatch m;
    std::string last;
    for (auto it = file.cbegin(); std::regex_search(it, file.cend(), m, type); it = m[1].second)
        last = m[1].str(); // the last one: "Qwen2-7B-Q4_K_M" names no other
    std::transform(last.begin(), last.end(), last.begin(),
                   [](unsigned char c) { return std::toupper(c); });
    return last;
}

StoredModel lmStudioEntry(const std::string& name, const fs::path& file) {
    StoredModel model;
    model.name = name, model.store = "lmstudio", model.file = file.string();
    model.bytes = sizeOf(file);
    model.quantization = quantizationOfName(file.filename().string());
    model.unsupported = quantizationProblem(model.quantization);
    return model;
}

} // namespace

std::vector<std::string> lmStudioModelDirs() {
    std::vector<std::string> dirs;
    const std::string home = env("HOME");
    if (home.empty()) return dirs;
    for (const fs::path& dir : {fs::path(home) / ".lmstudio" / "models",
                                fs::path(home) / ".cache" / "lm-studio" / "models"})
        if (isDir(dir)) dirs.push_back(dir.string());
    return dirs;
}

StoredModel findLmStudioModel(const std::string& name) {
    const std::vector<std::string> parts = split(name, '/');
    if ((parts.size() != 2 && parts.size() != 3) ||
        !std::all_of(parts.begin(), parts.end(), safePart))
        refuse("lmstudio:" + name + ": not an LM Studio model (PUBLISHER/REPO or " +
               "PUBLISHER/REPO/FILE.gguf)");
    const std::vector<std::string> dirs = lmStudioModelDirs();
    for (const std::string& dir : dirs) {
        const fs::path repo = fs::path(dir) / parts[0] / parts[1];
        if (!isDir(repo)) continue;
        if (parts.size() == 3) {
            if (isFile(repo / parts[2])) return lmStudioEntry(name, repo / parts[2]);
            continue;
        }
        const std::vector<fs::path> files = modelFiles(repo);
        if (files.size() == 1) return lmStudioEntry(name, files[0]);
        if (files.size() > 1) {
            std::string list;
            for (const fs::path& f : files)
                list += (list.empty() ? "" : ", ") + f.filename().string();
            refuse("lmstudio:" + name + ": holds " + std::to_string(files.size()) +
                   " GGUF files (" + list + "): name one, e.g. lmstudio:" + name + "/" +
                   files[0].filename().string());
        }
    }
    std::string searched;
    for (const std::string& dir : dirs) searched += (searched.empty() ? "" : ", ") + dir;
    refuse("lmstudio:" + name + ": not in LM Studio's folders (" +
           (searched.empty() ? std::string("none: no ~/.lmstudio/models") : searched) + ")");
}

std::vector<StoredModel> listLmStudioModels() {
    std::vector<StoredModel> found;
    std::error_code ec;
    for (const std::string& dir : lmStudioModelDirs())
        for (const auto& publisher : fs::directory_iterator(dir, ec))
            for (const auto& repo : fs::directory_iterator(publisher.path(), ec)) {
                const std::vector<fs::path> files = modelFiles(repo.path());
                const std::string base =
                    publisher.path().filename().string() + "/" + repo.path().filename().string();
                for (const fs::path& f : files)
                    found.push_back(lmStudioEntry(
                        files.size() == 1 ? base : base + "/" + f.filename().string(), f));
            }
    std::stable_sort(found.begin(), found.end(),
                     [](const StoredModel& a, const StoredModel& b) { return a.name < b.name; });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const StoredModel& a, const StoredModel& b) {
                                return a.name == b.name; // the newer folder comes first
                            }),
                found.end());
    return found;
}

} // namespace core::models

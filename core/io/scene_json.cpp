#include "io/scene_json.h"

#include "figures/colormap.h"
#include "io/atomic_file.h"
#include "text/utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core {

using nlohmann::json;

namespace {

// JSON holds only UTF-8, but --sentence takes any bytes: broken ones are saved as U+FFFD,
// which is what the tokenizer makes of them anyway, so the saved scene computes the same.
std::vector<std::string> validUtf8(const std::vector<std::string>& texts) {
    std::vector<std::string> out;
    for (const std::string& t : texts) out.push_back(sanitizeUtf8(t));
    return out;
}

} // namespace

std::string_view toString(ViewTab tab) {
    return kViewTabs[std::size_t(tab)];
}

std::string_view toString(Theme theme) {
    return kThemes[std::size_t(theme)];
}

std::optional<ViewTab> parseViewTab(std::string_view text) {
    for (std::size_t i = 0; i < std::size(kViewTabs); ++i)
        if (text == kViewTabs[i]) return ViewTab(i);
    return std::nullopt;
}

std::optional<Theme> parseTheme(std::string_view text) {
    for (std::size_t i = 0; i < std::size(kThemes); ++i)
        if (text == kThemes[i]) return Theme(i);
    return std::nullopt;
}

std::string sceneToJson(const Scene& s, const SceneView* view) {
    json ablate = json::array();
    for (int h : s.ablatedHeads) ablate.push_back(h + 1); // numbered from 1, as in the UI
    json j = {
        {"format", "mha-scene"},
        {"version", kSceneJsonVersion},
        {"sentences", validUtf8(s.sentences)},
        {"sources", validUtf8(s.sources)},
        {"d_model", s.d_model},
        {"heads", s.heads},
        {"mask", std::string(toString(s.mask))},
        {"scale", std::string(toString(s.scale))},
        {"seed", s.seed},
        {"weights", std::string(toString(s.weights))},
        {"head_presets", validUtf8(s.headPresets)},
        {"positional", s.positional},
        {"out_proj", s.outProjection},
        {"ablate", ablate},
        {"reshape_bug", s.reshapeBug},
    };
    if (view)
        j["view"] = {{"tab", std::string(toString(view->tab))},
                     {"colormap", std::string(toString(view->colormap))},
                     {"theme", std::string(toString(view->theme))},
                     {"head", view->selectedHead + 1},
                     {"compare_head", view->compareHead + 1},
                     {"per_head_scale", view->perHeadScale}};
    return j.dump(2) + "\n";
}

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw std::invalid_argument("scene: " + what);
}

const json& field(const json& j, const char* name) {
    if (!j.contains(name)) bad(std::string("missing \"") + name + "\"");
    return j.at(name);
}

int intField(const json& j, const char* name, int low, int high) {
    const json& v = field(j, name);
    if (!v.is_number_integer()) bad(std::string("\"") + name + "\" must be a whole number");
    const long long n = v.get<long long>();
    if (n < low || n > high)
        bad(std::string("\"") + name + "\" " + std::to_string(n) + " is out of range (" +
            std::to_string(low) + " to " + std::to_string(high) + ")");
    return int(n);
}

bool boolField(const json& j, const char* name, bool fallback) {
    if (!j.contains(name)) return fallback;
    if (!j.at(name).is_boolean()) bad(std::string("\"") + name + "\" must be true or false");
    return j.at(name).get<bool>();
}

std::vector<std::string> stringList(const json& j, const char* name, bool required) {
    if (!j.contains(name)) {
        if (required) bad(std::string("missing \"") + name + "\"");
        return {};
    }
    const json& v = j.at(name);
    if (!v.is_array()) bad(std::string("\"") + name + "\" must be a list of strings");
    std::vector<std::string> out;
    for (const json& item : v) {
        if (!item.is_string()) bad(std::string("\"") + name + "\" must be a list of strings");
        out.push_back(item.get<std::string>());
    }
    return out;
}

std::string stringField(const json& j, const char* name, const std::string& fallback) {
    if (!j.contains(name)) return fallback;
    if (!j.at(name).is_string()) bad(std::string("\"") + name + "\" must be a string");
    return j.at(name).get<std::string>();
}

// The field as one of a closed set whose names are `names` (in the enum's order).
template <class Enum, std::size_t n>
Enum oneOf(const json& j, const char* name, Enum fallback, const char* const (&names)[n]) {
    const std::string value = stringField(j, name, names[std::size_t(fallback)]);
    std::string list;
    for (std::size_t i = 0; i < n; ++i) {
        if (value == names[i]) return Enum(i);
        list += (list.empty() ? "" : ", ") + std::string(names[i]);
    }
    bad(std::string("\"") + name + "\" must be one of " + list);
}

SceneView viewFromJson(const json& j, int heads) {
    if (!j.is_object()) bad("\"view\" must be an object");
    SceneView v;
    v.tab = oneOf(j, "tab", v.tab, kViewTabs);
    const auto colormap = parseColormapId(stringField(j, "colormap", "viridis"));
    if (!colormap) bad("\"colormap\" must be viridis, magma, cividis, greys or rdbu");
    v.colormap = *colormap;
    v.theme = oneOf(j, "theme", v.theme, kThemes);
    // Heads past H (a hand-edited file) are clamped rather than refused: only the view changes.
    v.selectedHead = std::min(j.contains("head") ? intField(j, "head", 1, 1024) : 1, heads) - 1;
    v.compareHead =
        std::min(j.contains("compare_head") ? intField(j, "compare_head", 1, 1024) : 2, heads) - 1;
    v.perHeadScale = boolField(j, "per_head_scale", false);
    return v;
}

} // namespace

Scene sceneFromJson(std::string_view text, SceneView* view) {
    json j;
    try {
        // Refuse deep nesting before it can exhaust the stack.
        j = json::parse(text, [](int depth, json::parse_event_t, json&) {
            if (depth > 32) throw std::invalid_argument("scene: nested deeper than 32 levels");
            return true;
        });
    } catch (const json::parse_error& e) {
        bad("not valid JSON (byte " + std::to_string(e.byte) + ")");
    } catch (const json::out_of_range&) { // e.g. 2e308: no double holds it
        bad("a number is too large to read");
    }
    if (!j.is_object()) bad("the file must hold a JSON object");
    if (stringField(j, "format", "") != "mha-scene") bad("\"format\" must be \"mha-scene\"");
    if (intField(j, "version", 1, 1000) != kSceneJsonVersion)
        bad("version " + j.at("version").dump() + " is not supported");

    Scene s;
    s.sentences = stringList(j, "sentences", true);
    s.sources = stringList(j, "sources", false);
    s.d_model = intField(j, "d_model", 2, 1024);
    s.heads = intField(j, "heads", 1, 1024);
    const auto mask = parseMaskKind(stringField(j, "mask", "none"));
    if (!mask) bad("\"mask\" must be none or causal");
    s.mask = *mask;
    const auto scale = parseScaleKind(stringField(j, "scale", "sqrt_d_head"));
    if (!scale) bad("\"scale\" must be sqrt_d_head, sqrt_d_model or none");
    s.scale = *scale;
    if (j.contains("seed")) {
        if (!j.at("seed").is_number_unsigned() &&
            !(j.at("seed").is_number_integer() && j.at("seed").get<long long>() >= 0))
            bad("\"seed\" must be a whole number >= 0");
        s.seed = j.at("seed").get<std::uint64_t>();
    }
    const std::string weights = stringField(j, "weights", "random");
    const auto weightsKind = parseWeightsKind(weights);
    if (!weightsKind)
        bad("weights '" + sanitizeUtf8(weights) + "' is unknown (use random or designed)");
    s.weights = *weightsKind;
    s.headPresets = stringList(j, "head_presets", false);
    s.positional = boolField(j, "positional", true);
    s.outProjection = boolField(j, "out_proj", true);
    s.reshapeBug = boolField(j, "reshape_bug", false);
    if (j.contains("ablate")) {
        if (!j.at("ablate").is_array()) bad("\"ablate\" must be a list of head numbers");
        for (const json& h : j.at("ablate")) {
            if (!h.is_number_integer() || h.get<long long>() < 1 || h.get<long long>() > s.heads)
                bad("\"ablate\" holds " + h.dump() + ", not a head from 1 to " +
                    std::to_string(s.heads));
            s.ablatedHeads.push_back(int(h.get<long long>()) - 1);
        }
        std::sort(s.ablatedHeads.begin(), s.ablatedHeads.end());
        s.ablatedHeads.erase(std::unique(s.ablatedHeads.begin(), s.ablatedHeads.end()),
                             s.ablatedHeads.end());
    }
    if (std::string error = validationError(s); !error.empty()) bad(error);
    SceneView fileView = j.contains("view") ? viewFromJson(j.at("view"), s.heads) : SceneView{};
    fileView.compareHead = std::min(fileView.compareHead, s.heads - 1);
    if (view) *view = fileView;
    return s;
}

Scene demoScene(std::string_view name, SceneView* view) {
    const std::string_view text = sceneAsset("scenes/" + std::string(name) + ".json");
    if (text.empty()) throw std::invalid_argument("no demo scene '" + std::string(name) + "'");
    return sceneFromJson(text, view);
}

Scene loadSceneFile(const std::string& path, SceneView* view) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read scene '" + path + "'");
    std::string text;
    text.resize(16u << 20);
    in.read(text.data(), std::streamsize(text.size()));
    if (in.gcount() == std::streamsize(text.size()))
        throw std::invalid_argument("scene '" + path + "' is larger than 16 MB");
    text.resize(std::size_t(in.gcount()));
    try {
        return sceneFromJson(text, view);
    } catch (const std::exception& e) { // the file's own one-line message, with its path
        throw std::invalid_argument(std::string(e.what()) + " ('" + path + "')");
    }
}

void saveSceneFile(const std::string& path, const Scene& scene, const SceneView* view) {
    writeFileAtomically(path, sceneToJson(scene, view));
}

} // namespace core

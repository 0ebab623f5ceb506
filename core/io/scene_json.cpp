#include "io/scene_json.h"
#include "io/text_file.h"

#include "figures/colormap.h"
#include "io/atomic_file.h"
#include "io/json_fields.h"
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

// Sinusoidal and none as the booleans every version wrote (so older builds still read such
// files); rotary by name.
json positionalJson(PositionalKind kind) {
    if (kind == PositionalKind::Rotary) return std::string(toString(kind));
    return kind == PositionalKind::Sinusoidal;
}

} // namespace

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
        {"positional", positionalJson(s.positional)},
        {"out_proj", s.outProjection},
        {"ablate", ablate},
        {"reshape_bug", s.reshapeBug},
    };
    if (s.chosenHeads > 0) j["chosen_heads"] = s.chosenHeads; // only while it differs from H
    j["kv_heads"] = s.kvHeadCount();
    if (s.positional == PositionalKind::Rotary) j["rope_theta"] = s.ropeTheta;
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

SceneView viewFromJson(const json& j, int heads) {
    if (!j.is_object()) bad("\"view\" must be an object");
    const JsonFields f(j, "scene: ");
    SceneView v;
    v.tab = f.oneOf("tab", v.tab);
    v.colormap = f.oneOf("colormap", v.colormap);
    v.theme = f.oneOf("theme", v.theme);
    // Heads past H (a hand-edited file) are clamped rather than refused: only the view changes.
    v.selectedHead = std::min(f.integer("head", 1, 1024, 1), heads) - 1;
    v.compareHead = std::min(f.integer("compare_head", 1, 1024, 2), heads) - 1;
    v.perHeadScale = f.boolean("per_head_scale", false);
    return v;
}

// "positional": true (sinusoidal), false (none), or a PositionalKind's name.
PositionalKind positionalFromJson(const JsonFields& f) {
    if (f.has("positional") && f.at("positional").is_boolean())
        return f.at("positional").get<bool>() ? PositionalKind::Sinusoidal : PositionalKind::None;
    if (f.has("positional") && !f.at("positional").is_string())
        f.bad("\"positional\" must be true, false or " + describeEnumNames<PositionalKind>());
    return f.oneOf("positional", PositionalKind::Sinusoidal);
}

// "kv_heads": a divisor of H, kept as Scene does (0 when it is H).
int kvHeadsFromJson(const JsonFields& f, int heads) {
    const int kvHeads = f.integer("kv_heads", 1, 1024, heads);
    return kvHeads == heads ? 0 : kvHeads;
}

// Head numbers from 1, as the file writes them, to Scene's sorted set from 0.
std::vector<int> ablatedFromJson(const JsonFields& f, int heads) {
    if (!f.has("ablate")) return {};
    if (!f.at("ablate").is_array()) f.bad("\"ablate\" must be a list of head numbers");
    std::vector<int> ablated;
    for (const json& h : f.at("ablate")) {
        if (!h.is_number_integer() || h.get<long long>() < 1 || h.get<long long>() > heads)
            f.bad("\"ablate\" holds " + h.dump() + ", not a head from 1 to " +
                  std::to_string(heads));
        ablated.push_back(int(h.get<long long>()) - 1);
    }
    return headSet(std::move(ablated));
}

json parseSceneText(std::string_view text) {
    try {
        // Refuse deep nesting before it can exhaust the stack.
        return json::parse(text, [](int depth, json::parse_event_t, json&) {
            if (depth > 32) throw std::invalid_argument("scene: nested deeper than 32 levels");
            return true;
        });
    } catch (const json::parse_error& e) {
        bad("not valid JSON (byte " + std::to_string(e.byte) + ")");
    } catch (const json::out_of_range&) { // e.g. 2e308: no double holds it
        bad("a number is too large to read");
    }
}

} // namespace

Scene sceneFromJson(std::string_view text, SceneView* view) {
    const json j = parseSceneText(text);
    if (!j.is_object()) bad("the file must hold a JSON object");
    const JsonFields f(j, "scene: ");
    if (f.string("format", "") != "mha-scene") bad("\"format\" must be \"mha-scene\"");
    if (f.integer("version", 1, 1000) != kSceneJsonVersion)
        bad("version " + j.at("version").dump() + " is not supported");
    Scene s;
    s.sentences = f.strings("sentences", true);
    s.sources = f.strings("sources", false);
    s.d_model = f.integer("d_model", 2, 1024);
    s.heads = f.integer("heads", 1, 1024);
    if (const int chosen = f.integer("chosen_heads", 1, 1024, s.heads); chosen != s.heads)
        s.chosenHeads = chosen;
    s.mask = f.oneOf("mask", s.mask);
    s.scale = f.oneOf("scale", s.scale);
    s.seed = f.unsignedInteger("seed", s.seed);
    s.weights = f.oneOf("weights", s.weights);
    s.headPresets = f.strings("head_presets", false);
    s.kvHeads = kvHeadsFromJson(f, s.heads);
    s.positional = positionalFromJson(f);
    s.ropeTheta = f.number("rope_theta", kDefaultRopeTheta);
    s.outProjection = f.boolean("out_proj", true);
    s.reshapeBug = f.boolean("reshape_bug", false);
    s.ablatedHeads = ablatedFromJson(f, s.heads);
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

std::string readSceneText(const std::string& path) {
    TextFile file = readTextFile(path, kSceneFileCap);
    if (file.problem == FileProblem::TooLarge)
        throw std::invalid_argument("scene '" + path + "' is larger than " +
                                    std::to_string(kSceneFileCap.maxBytes >> 20) + " MB");
    if (!file.ok()) throw std::runtime_error("cannot read scene '" + path + "'");
    return std::move(file.text);
}

Scene loadSceneFile(const std::string& path, SceneView* view) {
    const std::string text = readSceneText(path);
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

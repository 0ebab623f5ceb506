#include "io/train_scene.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace core {

using nlohmann::json;

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw std::invalid_argument("scene's \"train\": " + what);
}

int intField(const json& j, const char* name, int fallback) {
    if (!j.contains(name)) return fallback;
    const json& v = j.at(name);
    if (!v.is_number_integer() || v.get<long long>() < -1000000000 ||
        v.get<long long>() > 1000000000)
        bad(std::string("\"") + name + "\" must be a whole number, not " + v.dump());
    return int(v.get<long long>());
}

std::string stringField(const json& j, const char* name, std::string fallback) {
    if (!j.contains(name)) return fallback;
    if (!j.at(name).is_string()) bad(std::string("\"") + name + "\" must be a string");
    return j.at(name).get<std::string>();
}

train::TrainSettings settingsFrom(const json& t) {
    if (!t.is_object()) bad("must be an object");
    train::TrainSettings s;
    s.evalEvery = 20; // the window's default: a curve point several times a second
    const auto task = train::parseTaskKind(stringField(t, "task", "induction"));
    if (!task) bad("\"task\" must be previous-token, induction or agreement");
    s.task = *task;
    s.model.layers = intField(t, "layers", s.model.layers);
    s.model.d_model = intField(t, "d_model", s.model.d_model);
    s.model.heads = intField(t, "heads", s.model.heads);
    s.model.seq = intField(t, "seq", s.model.seq);
    s.batch = intField(t, "batch", s.batch);
    s.steps = intField(t, "steps", s.steps);
    s.evalEvery = intField(t, "eval_every", s.evalEvery);
    if (t.contains("lr")) {
        if (!t.at("lr").is_number()) bad("\"lr\" must be a number");
        s.learningRate = t.at("lr").get<double>();
    }
    const auto optimizer = train::parseOptimizerKind(stringField(t, "optimizer", "adam"));
    if (!optimizer) bad("\"optimizer\" must be adam or sgd");
    s.optimizer = *optimizer;
    if (t.contains("seed")) {
        if (!t.at("seed").is_number_unsigned()) bad("\"seed\" must be a whole number >= 0");
        s.seed = t.at("seed").get<std::uint64_t>();
    }
    s.model.vocab = train::Task(s.task).vocabSize();
    try {
        train::validate(s);
    } catch (const std::invalid_argument& e) {
        bad(e.what());
    }
    return s;
}

} // namespace

std::optional<train::TrainSettings> sceneTrainSettings(std::string_view sceneText) {
    const json j = json::parse(sceneText, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("train")) return std::nullopt;
    return settingsFrom(j.at("train"));
}

std::optional<train::TrainSettings> sceneFileTrainSettings(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read scene '" + path + "'");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return sceneTrainSettings(text.str());
    } catch (const std::invalid_argument& e) { // with the file's name, as loadSceneFile says
        throw std::invalid_argument(std::string(e.what()) + " ('" + path + "')");
    }
}

std::string trainSettingsJson(const train::TrainSettings& s) {
    const json t = {{"task", train::toString(s.task)},
                    {"layers", s.model.layers},
                    {"d_model", s.model.d_model},
                    {"heads", s.model.heads},
                    {"seq", s.model.seq},
                    {"batch", s.batch},
                    {"steps", s.steps},
                    {"lr", s.learningRate},
                    {"optimizer", train::toString(s.optimizer)},
                    {"seed", s.seed},
                    {"eval_every", s.evalEvery}};
    return t.dump(2);
}

} // namespace core

#include "io/train_scene.h"

#include "io/json_fields.h"
#include "io/scene_json.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace core {

using nlohmann::json;

namespace {

constexpr int kAnyInt = 1000000000; // validate() names the flag of a value out of its range

train::TrainSettings settingsFrom(const json& t) {
    const JsonFields f(t, "scene's \"train\": ");
    if (!t.is_object()) f.bad("must be an object");
    train::TrainSettings s;
    s.evalEvery = 20; // the window's default: a curve point several times a second
    s.task = f.oneOf("task", s.task);
    s.model.layers = f.integer("layers", -kAnyInt, kAnyInt, s.model.layers);
    s.model.d_model = f.integer("d_model", -kAnyInt, kAnyInt, s.model.d_model);
    s.model.heads = f.integer("heads", -kAnyInt, kAnyInt, s.model.heads);
    s.model.seq = f.integer("seq", -kAnyInt, kAnyInt, s.model.seq);
    s.batch = f.integer("batch", -kAnyInt, kAnyInt, s.batch);
    s.steps = f.integer("steps", -kAnyInt, kAnyInt, s.steps);
    s.evalEvery = f.integer("eval_every", -kAnyInt, kAnyInt, s.evalEvery);
    s.learningRate = f.number("lr", s.learningRate);
    s.optimizer = f.oneOf("optimizer", s.optimizer);
    s.seed = f.unsignedInteger("seed", s.seed);
    s.model.vocab = train::Task(s.task).vocabSize();
    try {
        train::validate(s);
    } catch (const std::invalid_argument& e) {
        f.bad(e.what());
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
    const std::string text = readSceneText(path);
    try {
        return sceneTrainSettings(text);
    } catch (const std::invalid_argument& e) { // with the file's name, as loadSceneFile says
        throw std::invalid_argument(std::string(e.what()) + " ('" + path + "')");
    }
}

std::string trainSettingsJson(const train::TrainSettings& s) {
    const json t = {{"task", toString(s.task)},
                    {"layers", s.model.layers},
                    {"d_model", s.model.d_model},
                    {"heads", s.model.heads},
                    {"seq", s.model.seq},
                    {"batch", s.batch},
                    {"steps", s.steps},
                    {"lr", s.learningRate},
                    {"optimizer", toString(s.optimizer)},
                    {"seed", s.seed},
                    {"eval_every", s.evalEvery}};
    return t.dump(2);
}

} // namespace core

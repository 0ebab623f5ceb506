// Arbitrary bytes -> core::sceneFromJson. The one failure it documents is
// std::invalid_argument; any other exception escapes and counts as a crash. A scene it
// accepts must be valid and survive save -> load unchanged. Saving must also cope with
// sentences no JSON file gave: the CLI's --sentence takes any bytes.
#include "fuzz_check.h"

#include "io/scene_json.h"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace {

void checkLoad(std::string_view text) {
    core::Scene scene;
    core::SceneView view;
    try {
        scene = core::sceneFromJson(text, &view);
    } catch (const std::invalid_argument&) {
        return;
    }
    FUZZ_CHECK(core::validationError(scene).empty());
    FUZZ_CHECK(view.selectedHead >= 0 && view.selectedHead < scene.heads);
    FUZZ_CHECK(view.compareHead >= 0 && view.compareHead < scene.heads);
    const std::string saved = core::sceneToJson(scene, &view);
    core::SceneView loadedView;
    const core::Scene loaded = core::sceneFromJson(saved, &loadedView); // must not throw either
    FUZZ_CHECK(loaded == scene && loadedView == view);
    FUZZ_CHECK(core::sceneToJson(loaded, &loadedView) == saved);
}

void checkSaveRawSentence(std::string_view bytes) {
    core::Scene scene;
    scene.sentences = {std::string(bytes)};
    const std::string saved = core::sceneToJson(scene); // must not throw
    try {
        const core::Scene loaded = core::sceneFromJson(saved);
        FUZZ_CHECK(core::validationError(loaded).empty());
    } catch (const std::invalid_argument&) {
        // e.g. a blank sentence: refused on load, as it should be
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    checkLoad(text);
    checkSaveRawSentence(text);
    return 0;
}

// Every file the app reads whole into memory (settings JSON, scenes, tokenizer files, the
// recent-models list, a run's files) goes through readTextFile, with a cap for its kind: a file
// far larger than its kind ever is is a mistake (a wrong file picked, /dev/zero, a damaged
// download), refused after reading at most one byte past the cap, whatever the file's size says.
// The callers word the refusal for their file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace core {

struct FileCap {
    const char* kind; // "JSON settings file": for messages
    std::uintmax_t maxBytes;
};

// config.json, model.safetensors.index.json, tokenizer_config.json, a run's model.json.
inline constexpr FileCap kSettingsFileCap{"JSON settings file", std::uintmax_t(64) << 20};
// A scene file (`--scene`, the Scenes panel).
inline constexpr FileCap kSceneFileCap{"scene", std::uintmax_t(16) << 20};
// vocab.json, merges.txt, tokenizer.json, vocab.txt: the largest real ones are tens of MB.
inline constexpr FileCap kTokenizerFileCap{"tokenizer file", std::uintmax_t(1) << 30};
// The recent-models list: a few hundred bytes.
inline constexpr FileCap kListFileCap{"list", std::uintmax_t(1) << 20};
// A training run's metrics and batches, read back for the curves.
inline constexpr FileCap kRunFileCap{"run file", std::uintmax_t(1) << 30};

enum class FileProblem { None, Missing, Unreadable, TooLarge };

struct TextFile {
    std::string text; // the whole file when problem is None
    FileProblem problem = FileProblem::None;
    bool ok() const { return problem == FileProblem::None; }
};

// The file's bytes as they are. Never throws for a bad file (only std::bad_alloc).
TextFile readTextFile(const std::string& path, const FileCap& cap);

// "no such file", "cannot be read", "larger than the 16 MB a scene may be".
std::string describeProblem(FileProblem problem, const FileCap& cap);

} // namespace core

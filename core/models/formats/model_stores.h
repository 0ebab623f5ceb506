// Where local LLM apps keep their GGUF files (docs/real-models.md, "Ollama and LM Studio"):
// Ollama's store (a manifest per NAME:TAG naming content-addressed blobs) and LM Studio's
// folders (PUBLISHER/REPO/*.gguf). Nothing is downloaded and nothing in the stores is written.
// Every failure is std::invalid_argument with one line naming the problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace core::models {

// Ollama's models folder: $OLLAMA_MODELS, else ~/.ollama/models, else the Linux service's
// /usr/share/ollama/.ollama/models when it exists; "" when none is set or there.
std::string ollamaModelsDir();

// LM Studio's models folders that exist: ~/.lmstudio/models, then the older
// ~/.cache/lm-studio/models.
std::vector<std::string> lmStudioModelDirs();

// A GGUF found in a store.
struct StoredModel {
    std::string name;  // what --model takes: "llama3.2:latest", "lmstudio-community/Qwen3-4B-GGUF"
    std::string store; // "ollama" or "lmstudio"
    std::string file;  // the GGUF (an Ollama blob, named by its digest)
    std::uint64_t bytes = 0;
    // What the store says without opening the GGUF: Ollama's config layer (model_family,
    // model_type, file_type), LM Studio's file name (the quantization only); "" when unknown.
    std::string family, parameters, quantization;
    std::string unsupported; // why this build cannot run its quantization ("" when it may)
};

// Why weights of this quantization (a file type such as Q4_K_M, IQ3_XXS) cannot be run, ""
// when they can or it is not known.
std::string quantizationProblem(const std::string& quantization);

// Why a GGUF of this family (general.architecture, Ollama's model_family) cannot be run, given
// the architectures that can; "" when it can or is not known.
std::string architectureProblem(const std::string& family,
                                const std::vector<std::string>& runnable);

// An Ollama name: NAME, NAME:TAG (TAG default "latest"), NAMESPACE/NAME[:TAG], or
// HOST/NAMESPACE/NAME[:TAG] (hf.co/ORG/REPO:Q4_K_M); NAME without a namespace is Ollama's
// "library". The manifest's layer of media type application/vnd.ollama.image.model gives the
// blob. Throws when the store, the manifest or the blob is missing (naming which), or when the
// manifest is not Ollama's JSON.
StoredModel findOllamaModel(const std::string& name);

// PUBLISHER/REPO (its one GGUF, vision projectors `mmproj-*` aside) or PUBLISHER/REPO/FILE.gguf
// in the LM Studio folders. Throws naming the folders searched when absent, and listing the
// files when REPO holds several.
StoredModel findLmStudioModel(const std::string& name);

// Every model of both stores, sorted by store then name; never throws (an unreadable manifest
// or folder is left out).
std::vector<StoredModel> listOllamaModels();
std::vector<StoredModel> listLmStudioModels();

} // namespace core::models

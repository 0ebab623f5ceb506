// Where a model comes from (docs/real-models.md, "Folders and names"): `--model DIR|NAME` is a
// run folder of `mha-viz train` (it has model.json), a Hugging Face model folder (config.json),
// or a name (`gpt2`, `openai-community/gpt2`) looked up in the local Hugging Face cache. Nothing
// is downloaded. Every failure is std::invalid_argument with one line naming the problem.
#pragma once

#include "models/formats/model_config.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace core::models {

// A run of mha-viz train, a Hugging Face folder, or a GGUF file (gguf_file.h).
enum class ModelFolderKind { TrainRun, HuggingFace, Gguf };

struct ModelLocation {
    ModelFolderKind kind = ModelFolderKind::HuggingFace;
    std::string dir;    // the folder holding the files (a snapshot folder for a cache name)
    std::string source; // what the user gave, as given (shown in the trace and the window)
    std::string file;   // a GGUF model's file (its first part's, or the part named, when split)
    // The store's name of a GGUF found in Ollama's store or LM Studio's folders
    // ("llama3.2:latest"; an Ollama blob is named by its digest); "" otherwise.
    std::string storeName;
};

// A GGUF file (`*.gguf`, or any file that starts with GGUF's magic: an Ollama blob), a folder
// holding one GGUF model (one file, or the parts of one split
// model; mmproj-* projector files beside it are not models), or a folder or cache name,
// resolved: $HF_HUB_CACHE (or its old
// name $HUGGINGFACE_HUB_CACHE), else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else
// ~/.cache/huggingface/hub, then models--ORG--NAME/snapshots/<refs/main>/ (without refs/main,
// the newest snapshot; a bare NAME such as `gpt2` is also tried as openai-community/NAME).
// Refuses a folder with neither model.json, config.json nor a GGUF file, one with several GGUF
// models (naming two), and a Hugging Face folder whose only weights are pytorch_model.bin (the
// message says to download model.safetensors).
ModelLocation locateModel(const std::string& dirOrName);

// The model's name for captions, titles and file names: the hub id of a folder in the cache
// (".../models--openai-community--gpt2/snapshots/<hash>" -> "openai-community/gpt2"), else the
// folder's own name ("runs/gpt2-medium/" -> "gpt2-medium"); a GGUF file's name without
// ".gguf" and without a split part's "-00001-of-00003". A cut local path says nothing.
std::string modelDisplayName(const ModelLocation& location);

// The Hugging Face cache folder locateModel searches (the same variables, in the same order);
// "" when no variable says where one could be.
std::string hubCacheDir();

// A model in the cache, as the window's "Open model" dialog lists it.
struct CachedModel {
    std::string name;      // "ORG/NAME" (or "NAME" for an old models--NAME), what locateModel takes
    std::string dir;       // the snapshot folder
    std::string modelType; // config.json's model_type ("" when it cannot be read)
    std::string error;     // why it cannot be opened ("" when supported)
    bool supported = false;
};

// Every models--ORG--NAME folder of hubCacheDir() whose snapshot (refs/main, else the newest)
// holds a config.json, sorted by name. Reads only the config files; never throws: an entry
// whose snapshot cannot be resolved is left out, one whose config is bad is listed with its
// error.
std::vector<CachedModel> listCachedModels();

// The files of a Hugging Face folder; optional ones are empty when absent.
struct HfFiles {
    std::string config;               // config.json
    std::vector<std::string> weights; // model.safetensors, or each shard once, in index order
    std::map<std::string, std::string> shardOf; // tensor name -> shard path (sharded only)
    std::string vocabJson, merges;              // byte-level BPE (GPT-2, RoBERTa)
    std::string tokenizerJson;                  // tokenizer.json (any family)
    std::string vocabTxt;                       // WordPiece (BERT)
    std::string tokenizerConfig;                // tokenizer_config.json
    std::string sentencePiece;                  // spiece.model (T5, mT5)
    std::string sourceSpm, targetSpm;           // Marian's source.spm and target.spm
};

// Lists the files of location.dir, reading model.safetensors.index.json for shards (each
// shard it names must exist). Refuses a folder without weights or without a tokenizer.
HfFiles hfFiles(const ModelLocation& location);

// A small JSON object file (config.json, a shard index) under the settings files' cap; throws
// std::invalid_argument naming the path for a missing, dangling, huge or broken one.
nlohmann::json readJsonObjectFile(const std::string& path);

// Reads and checks config.json (parseModelConfig with every supported model_type).
ModelConfig readModelConfig(const std::string& path);

} // namespace core::models

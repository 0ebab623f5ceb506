// Ctrl+Shift+O: open a real model (or a run folder of mha-viz train, or an attention file) by
// path or name, from the recent list or from the Hugging Face cache. The session opens it off the
// frame thread (Session::openModelPath), so the window stays usable while the weights load.
#include "explorer/panels.h"

#include "models/architectures.h"

#include "platform/file_offer.h"
#include "widgets/text_field.h"

#include <cstdio>
#include <string>
#include <utility>

namespace app {

namespace {

void pathRow(OpenModelState& dialog, ExplorerRequest& request) {
    ImGui::TextUnformatted("A model folder, a .gguf file or a name such as gpt2 or "
                           "bert-base-uncased:");
    ImGui::TextDisabled("config.json, model.safetensors (or its shards) and the tokenizer's "
                        "files:");
    ImGui::TextDisabled("vocab.json + merges.txt or tokenizer.json (GPT-2, RoBERTa), vocab.txt "
                        "(BERT, DistilBERT)");
    ImGui::TextDisabled("or one GGUF file (llama.cpp, Ollama, LM Studio) of Llama, Mistral, Qwen, "
                        "Gemma, Phi-3 or OLMo 2");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 30);
    if (ImGui::IsWindowAppearing() || std::exchange(dialog.focusPath, false))
        ImGui::SetKeyboardFocusHere();
    const bool enter = textField("##model-path", "/path/to/model or openai-community/gpt2",
                                 dialog.pathInput, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open##model-path") || enter) && !dialog.pathInput.empty())
        request.openModel = dialog.pathInput;
    if (kFilesAreDownloads) { // in the browser: the page's own files
        ImGui::SameLine();
        if (ImGui::Button("Choose files...")) pickFilesToOpen();
        itemTooltip("Select a model's files together (config.json, model.safetensors and the "
                    "tokenizer's files), or every file of a run folder");
    }
    ImGui::TextDisabled("Or an attention file saved elsewhere: a .safetensors of layers.<l> "
                        "maps and their tokens (docs/attention-files.md).");
    if (!dialog.loading.empty())
        ImGui::Text("%s Opening %s ...", spinner(), dialog.loading.c_str());
    else
        ImGui::TextDisabled("Dropping a model folder, its files, a .gguf file or an attention "
                            "file onto the window opens it too.");
}

void recentList(const OpenModelState& dialog, ExplorerRequest& request) {
    ImGui::TextUnformatted("Recent");
    ImGui::Indent();
    if (dialog.recent.empty()) ImGui::TextDisabled("none yet: the models you open appear here");
    for (std::size_t i = 0; i < dialog.recent.size(); ++i) {
        const std::string label = dialog.recent[i] + "##recent" + std::to_string(i);
        if (ImGui::Selectable(label.c_str())) request.openModel = dialog.recent[i];
    }
    ImGui::Unindent();
}

// One row per cached model: its name and type; a type this build does not open is greyed
// and says so, and cannot be clicked.
void cachedRow(OpenModelState& dialog, std::size_t i, ExplorerRequest& request) {
    const core::models::CachedModel& model = dialog.cached[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (!model.supported) ImGui::BeginDisabled();
    const std::string label = model.name + "##cached" + std::to_string(i);
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
        request.openModel = model.name;
    const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
    dialog.cachedAt[i] = {min.x, min.y, max.x, max.y};
    if (model.supported) itemTooltip(model.dir.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(model.supported ? model.modelType.c_str() : model.error.c_str());
    if (!model.supported) ImGui::EndDisabled();
}

// The cache's models as a table, or, with none, what to do instead.
void cachedModels(OpenModelState& dialog, ExplorerRequest& request, const std::string& where) {
    if (dialog.cached.empty() && kFilesAreDownloads) { // the page sees no folder of the computer
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
        ImGui::TextDisabled("A web page cannot read the Hugging Face cache: choose the model's "
                            "files (config.json, model.safetensors and the tokenizer's files, "
                            "from the cache's snapshot folder or the model's page) or drop them "
                            "onto the page.");
        ImGui::PopTextWrapPos();
        return;
    }
    if (dialog.cached.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 36);
        ImGui::TextDisabled("No models in the Hugging Face cache at %s; download config.json, "
                            "model.safetensors and the tokenizer's files (above) from the "
                            "model's page into a folder and type its path.",
                            where.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
    if (!ImGui::BeginTable("cached-models", 2, flags)) return;
    for (std::size_t i = 0; i < dialog.cached.size(); ++i) cachedRow(dialog, i, request);
    ImGui::EndTable();
}

void cacheList(OpenModelState& dialog, ExplorerRequest& request) {
    const std::string where = dialog.cacheDir.empty() ? "no HF_HOME or HOME set" : dialog.cacheDir;
    ImGui::Text("In the Hugging Face cache (%s)", where.c_str());
    dialog.cachedAt.assign(dialog.cached.size(), {0, 0, 0, 0});
    ImGui::Indent();
    cachedModels(dialog, request, where);
    ImGui::Unindent();
}

// One stored GGUF: its name, then what the store says of it (family, size, quantization, file
// size); one this build cannot run is greyed with the reason.
void storedRow(OpenModelState& dialog, std::size_t i, ExplorerRequest& request) {
    const core::models::StoredModel& model = dialog.stored[i];
    const bool runs = model.unsupported.empty();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    if (!runs) ImGui::BeginDisabled();
    const std::string label = model.name + "##stored" + std::to_string(i);
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns))
        request.openModel = model.store + ":" + model.name;
    const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
    dialog.storedAt[i] = {min.x, min.y, max.x, max.y};
    if (runs) itemTooltip(model.file.c_str());
    char size[32]; // a quantized 1B is well under a gigabyte
    if (model.bytes >= 1000000000u)
        std::snprintf(size, sizeof size, "%.2f GB", double(model.bytes) / 1e9);
    else
        std::snprintf(size, sizeof size, "%.1f MB", double(model.bytes) / 1e6);
    for (const std::string& cell : {model.family, model.parameters, model.quantization,
                                    std::string(size), model.unsupported}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cell.c_str());
    }
    if (!runs) ImGui::EndDisabled();
}

// One store's GGUFs as a table, or where it was looked for.
void storeList(OpenModelState& dialog, ExplorerRequest& request, const char* store,
               const std::string& where) {
    ImGui::Text("In %s (%s)", store[0] == 'o' ? "Ollama's store" : "LM Studio's folders",
                where.empty() ? "none found" : where.c_str());
    ImGui::Indent();
    bool any = false;
    for (const core::models::StoredModel& m : dialog.stored) any = any || m.store == store;
    if (!any) ImGui::TextDisabled("no models");
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
    if (any && ImGui::BeginTable(store, 6, flags)) {
        for (const char* column : {"model", "family", "size", "weights", "file", ""})
            ImGui::TableSetupColumn(column);
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < dialog.stored.size(); ++i)
            if (dialog.stored[i].store == store) storedRow(dialog, i, request);
        ImGui::EndTable();
    }
    ImGui::Unindent();
}

// The cache and the stores as they are now, read once per opening of the dialog (a download
// may have finished). Only small files are read (configs, manifests): no GGUF is opened.
void listModels(OpenModelState& dialog) {
    dialog.cacheDir = core::models::hubCacheDir();
    dialog.cached = core::models::listCachedModels();
    dialog.ollamaDir = core::models::ollamaModelsDir();
    dialog.lmStudioDirs = core::models::lmStudioModelDirs();
    dialog.stored = core::models::listOllamaModels();
    for (core::models::StoredModel& m : core::models::listLmStudioModels())
        dialog.stored.push_back(std::move(m));
    const std::vector<std::string> runnable = core::models::ggufArchitectureNames();
    for (core::models::StoredModel& m : dialog.stored)
        if (const std::string why = core::models::architectureProblem(m.family, runnable);
            !why.empty())
            m.unsupported = why;
    dialog.storedAt.assign(dialog.stored.size(), {0, 0, 0, 0});
    dialog.listed = true;
}

} // namespace

ExplorerRequest drawOpenModelPanel(OpenModelState& dialog) {
    ExplorerRequest request;
    if (!dialog.open) {
        dialog.listed = false;
        dialog.choosingB.clear(); // the next opening opens a model, unless asked again
        return request;
    }
    if (!dialog.listed) listModels(dialog);
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f); // opaque over the maps, like the key legend
    // One window either way (###): the A-B tab's "Choose model B" reuses it to pick model B.
    const std::string title =
        dialog.choosingB.empty() ? std::string("Open a model (Ctrl+Shift+O)###open-model")
                                 : "Model B, to compare with " + dialog.choosingB + "###open-model";
    ImGui::Begin(title.c_str(), &dialog.open,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    pathRow(dialog, request);
    ImGui::Separator();
    recentList(dialog, request);
    ImGui::Separator();
    cacheList(dialog, request);
    if (!kFilesAreDownloads) { // a page sees no folder of the computer
        ImGui::Separator();
        storeList(dialog, request, "ollama", dialog.ollamaDir);
        std::string folders;
        for (const std::string& d : dialog.lmStudioDirs)
            folders += (folders.empty() ? "" : ", ") + d;
        storeList(dialog, request, "lmstudio", folders);
    }
    ImGui::End();
    if (!dialog.choosingB.empty() && !request.openModel.empty()) // B opens beside the model
        request.compareWith = std::exchange(request.openModel, std::string());
    return request;
}

} // namespace app

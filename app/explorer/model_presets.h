// Real model sizes for the cost panel; picking one draws the pipeline at that size
// (shape only: attention itself is computed for the toy sizes).
#pragma once

namespace app {

struct ModelPreset {
    const char* name;
    int d_model, heads, d_head;
};

inline constexpr ModelPreset kModelPresets[] = {
    {"BERT-base", 768, 12, 64},
    {"GPT-2 small", 768, 12, 64},
    {"GPT-3 175B", 12288, 96, 128},
    {"LLaMA-2-7B", 4096, 32, 128},
};

} // namespace app

// Controls section: the classic pitfalls as switches, each changing the real computation
// and each explained in one line next to it.
#include "engine/attention_stats.h"
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>

namespace app {

namespace {

void explanation(const char* text) {
    ImGui::Indent();
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX());
    ImGui::TextDisabled("%s", text);
    ImGui::PopTextWrapPos();
    ImGui::Unindent();
}

} // namespace

void drawPitfallsSection(core::Scene& scene, const core::Trace& trace, const HeadMaps& shown,
                         Selection& selection) {
    ImGui::TextUnformatted("Pitfalls (each changes the real computation)");
    const core::Attention& a = trace.attention;

    // In bits, as the Stats tab and the figures: O(B*H*N*M), computed once per recompute.
    ImGui::TextDisabled("scale: mean row entropy %.2f bits", shown.meanEntropyBits);
    itemTooltip("How spread out the attention rows are: 0 bits = all weight on one key, "
                "log2(N) bits = uniform.");
    ImGui::SameLine();
    ImGui::TextDisabled("(uniform: %.2f)", core::natsToBits(core::uniformEntropy(a.keyLen)));
    explanation(scene.scale == core::ScaleKind::SqrtDHead
                    ? "sqrt(d_head) keeps the scores' spread near 1 whatever the head size."
                : scene.scale == core::ScaleKind::SqrtDModel
                    ? "sqrt(d_model) over-shrinks the scores: the maps flatten toward uniform."
                    : "No scaling: scores grow with d_head and the softmax saturates to one key.");

    bool withoutOut = !scene.outProjection;
    if (ImGui::Checkbox("switch W_O off", &withoutOut)) scene.outProjection = !withoutOut;
    itemTooltip("Skip the output projection: output = concat.");
    explanation("Without W_O the heads' outputs are only placed side by side, never mixed.");

    ImGui::Checkbox("reshape bug", &scene.reshapeBug);
    itemTooltip("Split heads by viewing (B,N,d_model) as (B,H,N,d_head) without the transpose.");
    explanation("Viewing (B,N,d_model) as (B,H,N,d_head) without the transpose scrambles tokens "
                "and features "
                "(see the Pipeline tab).");

    ImGui::TextUnformatted("switch heads off:");
    itemTooltip("Ablate heads: their outputs are zeroed before W_O.");
    for (int h = 0; h < scene.heads && h < 64; ++h) {
        const bool off = core::containsHead(scene.ablatedHeads, h);
        if (h % 8 != 0) ImGui::SameLine(0, 3);
        ImGui::PushID(h);
        ImGui::PushStyleColor(ImGuiCol_Button,
                              off ? ImVec4(0.25f, 0.25f, 0.27f, 1.0f)
                                  : ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h, 0.55f)));
        if (ImGui::Button(std::to_string(h + 1).c_str(), ImVec2(ImGui::GetFontSize() * 2.0f, 0)))
            core::switchHead(scene.ablatedHeads, h, !off);
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
            selection.nextHoverHead = h;
            ImGui::SetTooltip(off ? "head %d is off: click to switch it back on"
                                  : "click to switch head %d off",
                              h + 1);
        }
        ImGui::PopID();
    }
    if (scene.heads > 64) ImGui::TextDisabled("(first 64 heads shown)");
    // Per token: how far the output moved because of the switched-off heads.
    if (a.outputShift.size() > 0 && !shown.heads.empty()) {
        ImGui::TextDisabled("output moved by (norm of the change), per token:");
        const auto& labels = shown.heads.front().queryLabels;
        const float maxShift = std::max(a.outputShift.maxCoeff(), 1e-6f);
        const float barWidth = ImGui::GetContentRegionAvail().x * 0.5f;
        for (int i = 0; i < a.queryLen && i < 24; ++i) {
            const float shift = a.outputShift[Eigen::Index(selection.batchIndex) * a.queryLen + i];
            ImGui::TextUnformatted(labels[std::size_t(i)].c_str());
            ImGui::SameLine(ImGui::GetFontSize() * 6);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            ImGui::GetWindowDrawList()->AddRectFilled(
                p, ImVec2(p.x + barWidth * shift / maxShift, p.y + ImGui::GetFontSize()),
                IM_COL32(255, 140, 0, 200));
            ImGui::Dummy(ImVec2(barWidth, ImGui::GetFontSize()));
            ImGui::SameLine();
            ImGui::Text("%.3f", shift);
        }
    }
}

} // namespace app

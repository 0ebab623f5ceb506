// Train mode, bottom: the timeline. Snapshots kept every K steps (core/train/snapshot_history.h):
// drag to replay the maps and the curves as they were (before and after the drop), play it back,
// or go live.
#include "train_view/train_panels.h"

#include <algorithm>
#include <cstdio>

namespace app {

void drawTrainTimeline(const PanelRect& rect, TrainView& train) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Timeline", nullptr, kPanelFlags | ImGuiWindowFlags_NoScrollbar);
    if (!train.run || train.run->history().empty()) {
        ImGui::End();
        return;
    }
    const auto& all = train.run->history().all();
    const int count = int(all.size());
    const bool live = train.scrubStep < 0;
    int index = live ? count : std::max(train.run->history().indexAtOrBefore(train.scrubStep), 0);
    if (ImGui::Button(train.playing ? "Pause (P)" : "Play (P)")) toggleTimelinePlay(train);
    itemTooltip("Replay the maps and curves from step 0 (one snapshot every few frames).");
    ImGui::SameLine();
    ImGui::BeginDisabled(live);
    if (ImGui::Button("Live (End)")) scrubTo(train, train.run->step());
    ImGui::EndDisabled();
    ImGui::SameLine();
    char label[96];
    if (live)
        std::snprintf(label, sizeof label, "live: step %d", train.run->step());
    else
        std::snprintf(label, sizeof label, "step %d of %d", all[std::size_t(index)].step,
                      train.run->step());
    ImGui::SetNextItemWidth(-ImGui::CalcTextSize("every 9999 steps, 150 kept").x - 16);
    if (ImGui::SliderInt("##timeline", &index, 0, count, label, ImGuiSliderFlags_AlwaysClamp)) {
        train.playing = false;
        if (index >= count)
            scrubTo(train, train.run->step());
        else
            scrubTo(train, all[std::size_t(index)].step);
    }
    itemTooltip("Drag to see the model at an earlier step (Left / Right: one snapshot).");
    ImGui::SameLine();
    ImGui::TextDisabled("every %d steps, %d kept", train.run->history().spacing(), count);
    ImGui::End();
}

void toggleTimelinePlay(TrainView& train) {
    if (!train.run) return;
    train.playing = !train.playing;
    if (train.playing && train.scrubStep < 0) scrubTo(train, 0); // from the start
    train.playClock = ImGui::GetTime();
}

} // namespace app

// What every panel of both modes shares: where it sits, how its window is set up, a tooltip on
// the last item, a section title.
#pragma once

#include <imgui.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace app {

// Fixed panels. NoBackground: the frame is cleared to the window colour once instead of
// blending four full-size rectangles, which llvmpipe (software GL) pays for per pixel.
inline constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus;

struct PanelRect {
    ImVec2 pos, size;
};

// A one-sentence tooltip on the last item (every control has one), also when it is disabled.
void itemTooltip(const char* text);

// The single keys a panel advertises ("G: next view"), dimmed. While a text field has the
// keyboard those keys type into it, so the hint says Esc comes first; hovering says why.
void keysHint(const char* keys);

// A few characters turning a quarter each eighth of a second: something loads, the frame runs.
const char* spinner();

// `text` cut to maxWidth pixels, ending in an ellipsis; whole code points only.
std::string fitText(const std::string& text, float maxWidth);

// One line cut to the space left with an ellipsis, its whole text in a tooltip when cut: a
// label never ends mid-glyph at the panel's edge.
void fittedText(const std::string& text, bool disabled = false);

// Short pieces laid out left to right, each kept whole (a token and its "15.6%" never split
// across lines): a piece that does not fit starts the next line, one wider than the panel is
// cut as fittedText cuts it.
void flowText(const std::vector<std::string>& pieces, bool disabled = false);

// SameLine when an item `width` wide still fits after the last one; else it starts a line.
void sameLineIfFits(float width);

// A section's title with a rule under it (ImGui 1.86 has no SeparatorText).
void sectionTitle(const char* text);

// A table of numbers as the Cost and Steps tabs draw them: bordered, striped, each column as
// wide as its cells, the header row drawn. True when it is open (then end it with EndTable).
bool beginNumberTable(const char* id, std::initializer_list<const char*> columns);

} // namespace app

// Text that fits its panel (widgets/panel_frame.h), as a user reported it: mask-fill shares
// broken across lines ("carefully 15." / "6%"), an ablation summary cut mid-number, labels
// clipped without an ellipsis. ImGui's own default font measures the text; no window, no GL.
#include "widgets/panel_frame.h"

#include "text/utf8.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <string>
#include <vector>

namespace {

// An ImGui context with its default font built and one frame begun, so text can be measured
// and laid out in a window `width` pixels wide.
class PanelText : public ::testing::Test {
  protected:
    void SetUp() override {
        context_ = ImGui::CreateContext();
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr; // no imgui.ini left in the working directory
        io.Fonts->AddFontDefault();
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h); // builds the atlas
        io.DisplaySize = ImVec2(800, 600);
        io.DeltaTime = 1.0f / 60.0f;
        ImGui::NewFrame();
    }
    void TearDown() override {
        ImGui::EndFrame();
        ImGui::DestroyContext(context_);
    }
    void beginWindow(float width) {
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(width, 400));
        ImGui::Begin("panel", nullptr, ImGuiWindowFlags_NoDecoration);
    }
    float right() const { return ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x; }

  private:
    ImGuiContext* context_ = nullptr;
};

TEST_F(PanelText, FitTextKeepsWholeCharactersWithinTheWidthAndEndsInAnEllipsis) {
    const std::string text = "Gro\xC3\x9F"
                             "e Katzen sa\xC3\x9F"
                             "en auf der Matte \xE2\x90\xA3mat";
    const float full = ImGui::CalcTextSize(text.c_str()).x;
    EXPECT_EQ(app::fitText(text, full + 1), text); // it fits: unchanged
    for (float width = 8; width < full; width += 3) {
        const std::string cut = app::fitText(text, width);
        EXPECT_LE(ImGui::CalcTextSize(cut.c_str()).x, width) << width;
        if (cut.empty()) continue; // not even one character and the ellipsis fit
        const std::u32string points = core::decodeUtf8(cut); // valid UTF-8: no half character
        std::string again;
        for (char32_t c : points) core::appendUtf8(again, c);
        EXPECT_EQ(again, cut) << width;
        const std::string kept =
            cut.substr(0, cut.rfind(cut.back() == '.' ? ".." : "\xE2\x80\xA6"));
        EXPECT_EQ(text.rfind(kept, 0), 0u) << "a prefix of the text: " << cut;
    }
}

TEST_F(PanelText, FlowTextStartsALineRatherThanSplittingAPiece) {
    beginWindow(220);
    const float left = ImGui::GetCursorScreenPos().x;
    const std::vector<std::string> pieces = {"carefully 15.6%", "gently 12.1%", "slowly 9.9%",
                                             "quietly 8.0%"};
    const float lineTop = ImGui::GetCursorScreenPos().y;
    app::flowText(pieces);
    // Four pieces of ~90 px in ~200: two lines at least, every piece whole and inside the panel.
    EXPECT_GT(ImGui::GetItemRectMin().y, lineTop + ImGui::GetTextLineHeight() * 0.5f);
    EXPECT_LE(ImGui::GetItemRectMax().x, right() + 0.5f);
    EXPECT_GE(ImGui::GetItemRectMin().x, left - 0.5f);
    ImGui::End();
}

TEST_F(PanelText, APieceWiderThanThePanelIsCutToItWithAnEllipsis) {
    beginWindow(120);
    app::fittedText("the ablation summary: loss 3.348 nats (all heads on: 3.300)");
    EXPECT_LE(ImGui::GetItemRectMax().x, right() + 0.5f);
    ImGui::End();
}

} // namespace

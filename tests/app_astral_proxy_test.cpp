// The stand-ins that carry characters beyond U+FFFF through Dear ImGui's 16-bit text: what
// goes in comes back byte for byte, whatever the user typed or pasted.
#include "platform/astral_proxy.h"

#include <gtest/gtest.h>

#include <string>

namespace {

bool inPrivateUse(unsigned cp) {
    return cp >= 0xE000 && cp <= 0xF8FF;
}

// No byte of a character beyond U+FFFF (lead F0 to F4) is left for ImGui to turn into U+FFFD.
bool sixteenBitSafe(const std::string& text) {
    for (const char c : text)
        if (static_cast<unsigned char>(c) >= 0xF0) return false;
    return true;
}

TEST(AstralProxy, EmojiAndZwjSequencesComeBackExactly) {
    const std::string typed = "emoji \U0001F600 \U0001F44D family "
                              "\U0001F468\u200D\U0001F469\u200D\U0001F467 end";
    const std::string shown = app::toImGuiText(typed);
    EXPECT_TRUE(sixteenBitSafe(shown));
    EXPECT_NE(shown, typed);
    EXPECT_EQ(app::fromImGuiText(shown), typed);
}

TEST(AstralProxy, EachCharacterKeepsOneStandIn) {
    const unsigned grin = app::imguiChar(0x1F600), rocket = app::imguiChar(0x1F680);
    EXPECT_TRUE(inPrivateUse(grin));
    EXPECT_TRUE(inPrivateUse(rocket));
    EXPECT_NE(grin, rocket);
    EXPECT_EQ(app::imguiChar(0x1F600), grin); // typed later: the same stand-in as pasted before
    EXPECT_EQ(app::imguiChar('a'), unsigned('a'));
    EXPECT_EQ(app::imguiChar(0x4E2D), 0x4E2Du); // CJK stays itself: the font can draw it
}

TEST(AstralProxy, TypedPrivateUseCharactersAreNotTakenForStandIns) {
    // U+E000 is the first stand-in given out; a user's own U+E000 must still come back as is.
    const std::string typed = "\U0001F9E0 \uE000 \uE001 \uF8FF \U000F0000";
    const std::string shown = app::toImGuiText(typed);
    EXPECT_TRUE(sixteenBitSafe(shown));
    EXPECT_EQ(app::fromImGuiText(shown), typed);
}

TEST(AstralProxy, InvalidBytesAndOtherScriptsPassUntouched) {
    const std::string mixed = "caf\u00E9 \u65E5\u672C \uD55C \xF0\x9F bad \xFF\xEE tail \uFFFD";
    EXPECT_EQ(app::fromImGuiText(app::toImGuiText(mixed)), mixed);
    const std::string plain = "the cat sat on the mat";
    EXPECT_EQ(app::toImGuiText(plain), plain);
}

TEST(AstralProxy, EditingBetweenStandInsKeepsThem) {
    // What a field does: ImGui edits the shown text, the scene gets it back.
    const std::string shown = app::toImGuiText("a\U0001F600b");
    // "x" typed before the emoji, another emoji typed at the end
    const std::string edited = "ax" + shown.substr(1) + app::toImGuiText("\U0001F44D");
    EXPECT_EQ(app::fromImGuiText(edited), "ax\U0001F600b\U0001F44D");
}

} // namespace

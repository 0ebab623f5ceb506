// The three classes of code point GPT-2's pre-tokenizer tells apart (byte_level_bpe.h). The
// table is generated at build time from the machine's Unicode data (cmake/unicode_classes.py,
// Debian's unicode-data), so the repository holds no copy of it and the app needs no ICU.
#pragma once

namespace core::models {

// Letter: General Category L*; Number: N*; Space: the White_Space property; Other: the rest,
// unassigned code points included.
enum class CharClass : unsigned char { Letter, Number, Space, Other };

CharClass charClass(char32_t cp);

// The Unicode data file the table came from, e.g. "PropList-15.0.0.txt".
const char* unicodeClassesVersion();

} // namespace core::models

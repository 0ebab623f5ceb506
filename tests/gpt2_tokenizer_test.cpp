#include "models/gpt2_tokenizer.h"
#include <gtest/gtest.h>
TEST(Gpt2Tokenizer, Placeholder) {}

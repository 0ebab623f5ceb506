// The project's error convention (docs/layout.md, "Errors"): a failing call throws one line. Tests
// compare that line the way they compare any other string.
#pragma once

#include <exception>
#include <string>

namespace testing_support {

// The message `call` throws, or "" when it returns normally.
template <class Call>
std::string thrownMessage(Call&& call) {
    try {
        call();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

} // namespace testing_support

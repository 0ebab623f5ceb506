// The OpenGL API the widgets draw with: OpenGL 3.3 core through the glad loader on the desktop,
// WebGL 2 (OpenGL ES 3.0) through emscripten's headers in the browser. Shaders are written for
// the desktop's "#version 330 core"; glslSource turns one into GLSL ES 3.00 for the browser.
#pragma once

#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <glad/gl.h>
#endif

#include <string>
#include <string_view>

namespace app {

// The shader as this build's GL takes it: unchanged on the desktop; in the browser its
// "#version 330 core" line becomes "#version 300 es" with high float and int precision.
inline std::string glslSource(std::string_view source) {
#ifdef __EMSCRIPTEN__
    const std::string_view desktop = "#version 330 core";
    if (source.substr(0, desktop.size()) == desktop)
        return "#version 300 es\nprecision highp float;\nprecision highp int;\n" +
               std::string(source.substr(desktop.size()));
#endif
    return std::string(source);
}

} // namespace app

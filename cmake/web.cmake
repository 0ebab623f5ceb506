# The web build (emcmake cmake ...; `bash cmake/setup.sh web` runs it): the same core and app
# compiled to WebAssembly by Debian's emscripten. Here the dependencies the desktop build finds
# as packages become targets of this build: Eigen, nlohmann/json, CLI11 and stb are headers of
# the build machine (linked into a folder of this build, so no other /usr/include header reaches
# emcc); Dear ImGui and zlib are compiled from Debian's source packages, which the set-up script
# unpacks into MHA_IMGUI_SOURCE_DIR and MHA_ZLIB_SOURCE_DIR; GLFW and WebGL 2 are emscripten's.
set(MHA_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(MHA_BUILD_BENCH OFF CACHE BOOL "" FORCE)
set(MHA_IMGUI_SOURCE_DIR "" CACHE PATH "Dear ImGui 1.86's sources (apt-get source imgui)")
set(MHA_ZLIB_SOURCE_DIR "" CACHE PATH "zlib's sources (apt-get source zlib)")
foreach(dir MHA_IMGUI_SOURCE_DIR MHA_ZLIB_SOURCE_DIR)
  if(NOT IS_DIRECTORY "${${dir}}")
    message(FATAL_ERROR "${dir} is not a folder: run `bash cmake/setup.sh web`, which unpacks "
                        "Debian's source packages into the build folder")
  endif()
endforeach()

# Exceptions on (bad input is refused by throwing); the browser's threads are not used.
# WebAssembly SIMD (every current browser has it): the induction demo's drop came at 47 s, not 61.
add_compile_options(-fexceptions -msimd128)
add_link_options(-fexceptions)

# The build machine's header-only libraries, each linked alone into one include folder.
set(hostInclude "${CMAKE_BINARY_DIR}/host-include")
file(MAKE_DIRECTORY "${hostInclude}")
foreach(header nlohmann CLI stb)
  if(NOT EXISTS "${hostInclude}/${header}")
    file(CREATE_LINK "/usr/include/${header}" "${hostInclude}/${header}" SYMBOLIC)
  endif()
endforeach()
add_library(Eigen3::Eigen INTERFACE IMPORTED)
target_include_directories(Eigen3::Eigen SYSTEM INTERFACE /usr/include/eigen3)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE "${hostInclude}")
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 SYSTEM INTERFACE "${hostInclude}")
# stb_truetype's implementation, which the desktop takes from Debian's libstb.
set(stbSource "${CMAKE_BINARY_DIR}/stb_truetype.c")
file(WRITE "${stbSource}" "#define STB_TRUETYPE_IMPLEMENTATION\n#include <stb_truetype.h>\n")
add_library(mha_web_stb STATIC "${stbSource}")
target_include_directories(mha_web_stb SYSTEM PUBLIC "${hostInclude}/stb")
target_compile_options(mha_web_stb PRIVATE -w)
add_library(PkgConfig::STB ALIAS mha_web_stb)

# zlib from its sources (PNG compression).
file(GLOB zlibSources "${MHA_ZLIB_SOURCE_DIR}/*.c")
list(FILTER zlibSources EXCLUDE REGEX "/(example|minigzip)[^/]*\\.c$")
add_library(mha_web_zlib STATIC ${zlibSources})
target_include_directories(mha_web_zlib SYSTEM PUBLIC "${MHA_ZLIB_SOURCE_DIR}")
target_compile_options(mha_web_zlib PRIVATE -w)
add_library(ZLIB::ZLIB ALIAS mha_web_zlib)

# Dear ImGui with its GLFW and OpenGL 3 (here WebGL 2: GLSL ES 3.00) backends.
add_library(mha_web_imgui STATIC
  "${MHA_IMGUI_SOURCE_DIR}/imgui.cpp" "${MHA_IMGUI_SOURCE_DIR}/imgui_draw.cpp"
  "${MHA_IMGUI_SOURCE_DIR}/imgui_tables.cpp" "${MHA_IMGUI_SOURCE_DIR}/imgui_widgets.cpp"
  "${MHA_IMGUI_SOURCE_DIR}/backends/imgui_impl_glfw.cpp"
  "${MHA_IMGUI_SOURCE_DIR}/backends/imgui_impl_opengl3.cpp"
  "${MHA_IMGUI_SOURCE_DIR}/misc/cpp/imgui_stdlib.cpp")
target_include_directories(mha_web_imgui SYSTEM PUBLIC "${MHA_IMGUI_SOURCE_DIR}"
  "${MHA_IMGUI_SOURCE_DIR}/backends" "${MHA_IMGUI_SOURCE_DIR}/misc/cpp")
target_compile_definitions(mha_web_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)
target_compile_options(mha_web_imgui PRIVATE -w)
target_link_options(mha_web_imgui INTERFACE -sUSE_GLFW=3 -sUSE_WEBGL2=1 -sMIN_WEBGL_VERSION=2
                    -sMAX_WEBGL_VERSION=2)
add_library(imgui::imgui ALIAS mha_web_imgui)

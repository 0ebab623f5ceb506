# Installs mha-viz like a desktop app and packages it as a .deb (cpack). Included from the
# top-level CMakeLists.txt after add_subdirectory(app). The layout follows the freedesktop
# specs, so menus, docks and software centres find the app, its icon and its description:
#   bin/mha-viz                                lib/mha-viz/libmha_engine_*.so (SIMD kernels)
#   share/applications/mha-viz.desktop        share/metainfo/io.github.mha_viz.mha_viz.metainfo.xml
#   share/icons/hicolor/{NxN,scalable}/apps/   share/man/man1/mha-viz.1.gz
include(GNUInstallDirs)

set(MHA_ASSETS ${PROJECT_SOURCE_DIR}/assets)

# --- The icon: drawn by core/figures/app_icon.h at build time, one PNG per hicolor size and an SVG.
# Generated, not committed: a change to the design reaches every size at the next build.
add_executable(make_icons ${PROJECT_SOURCE_DIR}/app/platform/make_icons.cpp)
target_link_libraries(make_icons PRIVATE mha_core)

set(MHA_ICON_DIR ${CMAKE_BINARY_DIR}/icons)
set(MHA_ICON_FILES ${MHA_ICON_DIR}/hicolor/scalable/apps/mha-viz.svg)
foreach(size 16 24 32 48 64 128 256) # core::kAppIconSizes, which app/platform/make_icons.cpp writes
  list(APPEND MHA_ICON_FILES ${MHA_ICON_DIR}/hicolor/${size}x${size}/apps/mha-viz.png)
endforeach()
add_custom_command(
  OUTPUT ${MHA_ICON_FILES}
  COMMAND $<TARGET_FILE:make_icons> ${MHA_ICON_DIR}
  DEPENDS make_icons
  COMMENT "Drawing the app icon into ${MHA_ICON_DIR}"
  VERBATIM)
add_custom_target(mha_icons ALL DEPENDS ${MHA_ICON_FILES})

# --- The man page, gzipped as Debian policy wants it (-n: no name or time stamp inside, so
# the package is reproducible). Plain when there is no gzip (other systems).
find_program(MHA_GZIP gzip)
if(MHA_GZIP)
  set(MHA_MAN_PAGE ${CMAKE_BINARY_DIR}/man/mha-viz.1.gz)
  add_custom_command(
    OUTPUT ${MHA_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -E copy ${MHA_ASSETS}/mha-viz.1 ${CMAKE_BINARY_DIR}/man/mha-viz.1
    COMMAND ${MHA_GZIP} -9 -n -f ${CMAKE_BINARY_DIR}/man/mha-viz.1
    DEPENDS ${MHA_ASSETS}/mha-viz.1
    COMMENT "Compressing the man page"
    VERBATIM)
  add_custom_target(mha_man_page ALL DEPENDS ${MHA_MAN_PAGE})
else()
  set(MHA_MAN_PAGE ${MHA_ASSETS}/mha-viz.1)
endif()

# --- What is installed.
install(TARGETS mha-viz RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The engine's AVX2 / AVX-512 (and scalar) kernels, where core/engine/simd.cpp looks:
# bin/../lib/mha-viz.
if(MHA_ENGINE_TARGETS)
  install(TARGETS ${MHA_ENGINE_TARGETS} LIBRARY DESTINATION ${MHA_ENGINE_SUBDIR})
endif()
install(FILES ${MHA_ASSETS}/mha-viz.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${MHA_ASSETS}/io.github.mha_viz.mha_viz.metainfo.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(DIRECTORY ${MHA_ICON_DIR}/hicolor DESTINATION ${CMAKE_INSTALL_DATADIR}/icons)
install(FILES ${MHA_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# --- cpack: a Debian package. Library dependencies come from dpkg-shlibdeps (SHLIBDEPS), so
# they match what was linked; only what the binaries cannot show is named by hand: the font
# core::findFigureFont opens at run time, and Mesa's drivers for OpenGL without a vendor GPU
# driver (llvmpipe).
set(MHA_PACKAGE_MAINTAINER "mha-viz maintainers <maintainers@mha-viz.invalid>"
    CACHE STRING "The Maintainer field of the .deb (name <email>)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME mha-viz)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "${MHA_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${MHA_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see multi-head attention, head by head")
string(CONCAT CPACK_PACKAGE_DESCRIPTION # lines under 80 columns, as dpkg shows them
  "mha-viz shows every head of a multi-head attention layer live as a heatmap:\n"
  "type a sentence, change d_model, the number of heads, the mask or the score\n"
  "scale, and follow the reshape into heads and back. For students, lecturers\n"
  "and anyone who needs a clean figure of attention (SVG, PNG, CSV), also from\n"
  "the command line without a display.")
set(CPACK_DEBIAN_PACKAGE_SECTION education) # as the desktop file's main category
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # mha-viz_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core") # shlibdeps' list is appended
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgl1-mesa-dri, fonts-wqy-microhei") # CJK in the UI
set(CPACK_STRIP_FILES ON) # a Release build still carries symbols dpkg users never need
if(MHA_NATIVE) # what is packaged runs on any x86-64 CPU (docs/portability.md)
  set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/refuse_native_package.cmake)
endif()
include(CPack)

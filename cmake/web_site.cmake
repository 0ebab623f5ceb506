# The browser build's executable and its static site (included by app/CMakeLists.txt when the
# compiler is emscripten): mha-viz.js + mha-viz.wasm, mha-viz.data (the font the window and
# the figures draw text with, at the path they read it from on Debian) and assets/web's
# index.html, copied together into <build>/site. Any static host serves that folder.
set(MHA_WEB_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf" CACHE FILEPATH
    "The UI and figure font packed into the site (fonts-dejavu-core)")
if(NOT EXISTS "${MHA_WEB_FONT}")
  message(FATAL_ERROR "${MHA_WEB_FONT} is missing: install fonts-dejavu-core")
endif()
add_executable(mha-viz web/web_main.cpp)
target_link_libraries(mha-viz PRIVATE mha_app)
set_target_properties(mha-viz PROPERTIES SUFFIX ".js")
target_link_options(mha-viz PRIVATE
  -sALLOW_MEMORY_GROWTH=1 -sMAXIMUM_MEMORY=4GB -sTOTAL_STACK=4MB -sFORCE_FILESYSTEM=1 -lidbfs.js
  -sEXPORTED_RUNTIME_METHODS=ccall,FS
  -sEXPORTED_FUNCTIONS=_main,_mha_web_pasted,_mha_web_open,_mha_web_leaving,_mha_web_persist_ready
  "SHELL:--preload-file ${MHA_WEB_FONT}@${MHA_WEB_FONT}")

set(site "${CMAKE_BINARY_DIR}/site")
add_custom_target(mha-viz-site ALL
  COMMAND ${CMAKE_COMMAND} -E make_directory "${site}"
  COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE_DIR:mha-viz>/mha-viz.js"
          "$<TARGET_FILE_DIR:mha-viz>/mha-viz.wasm" "$<TARGET_FILE_DIR:mha-viz>/mha-viz.data"
          "${PROJECT_SOURCE_DIR}/assets/web/index.html" "${site}/"
  DEPENDS mha-viz "${PROJECT_SOURCE_DIR}/assets/web/index.html"
  COMMENT "Making the static site in ${site}"
  VERBATIM)

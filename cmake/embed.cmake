# mha_embed_files(<target> NAMESPACE ns FUNCTION fn BASE_DIR dir FILES f1 f2 ...)
# Adds a generated source to <target> that embeds the files (data and shaders are
# compiled into the binary, never read from the working directory).
function(mha_embed_files target)
  cmake_parse_arguments(EMBED "" "NAMESPACE;FUNCTION;BASE_DIR" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_${EMBED_FUNCTION}.cpp")
  set(deps "")
  foreach(name IN LISTS EMBED_FILES)
    list(APPEND deps "${EMBED_BASE_DIR}/${name}")
  endforeach()
  string(REPLACE ";" "|" fileList "${EMBED_FILES}") # a list cannot cross the command line
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNAMESPACE=${EMBED_NAMESPACE}
            -DFUNCTION=${EMBED_FUNCTION} -DBASE_DIR=${EMBED_BASE_DIR} "-DFILES=${fileList}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    DEPENDS ${deps} "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    COMMENT "Embedding ${EMBED_FUNCTION} files"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()

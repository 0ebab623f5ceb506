# Generates the glad 2 OpenGL 3.3 core loader into the build folder at configure time
# and defines the static library `glad`. --reproducible uses glad's bundled Khronos
# XML: no network. MHA_GLAD_PYTHON may point at another interpreter with glad.
set(MHA_GLAD_PYTHON "/usr/bin/python3" CACHE FILEPATH "Python interpreter that has the glad 2 package")
set(gladDir "${CMAKE_BINARY_DIR}/glad")
if(NOT EXISTS "${gladDir}/src/gl.c")
  message(STATUS "Generating the glad OpenGL loader")
  execute_process(
    COMMAND "${MHA_GLAD_PYTHON}" -m glad --api gl:core=3.3 --reproducible --quiet
            --out-path "${gladDir}" c
    RESULT_VARIABLE gladResult
    OUTPUT_QUIET ERROR_VARIABLE gladError)
  if(NOT gladResult EQUAL 0)
    message(FATAL_ERROR "glad generation failed (install glad 2, e.g. Debian's python3-glad): ${gladError}")
  endif()
endif()
add_library(glad STATIC "${gladDir}/src/gl.c")
target_include_directories(glad SYSTEM PUBLIC "${gladDir}/include")

# Run by cpack (CPACK_PRE_BUILD_SCRIPTS) when the build is -DMHA_NATIVE=ON.
message(FATAL_ERROR "mha-viz: this build is tuned for one CPU (-DMHA_NATIVE=ON) and may die with "
                    "'Illegal instruction' elsewhere; package a portable build (-DMHA_NATIVE=OFF), "
                    "as bash cmake/setup.sh package does")

"""Which BLAS torch really runs on: the benchmarks print it beside their figures.

torch's build info names the BLAS it was built against; the libraries mapped into this
process say which one it loaded (Debian's torch picks up OpenBLAS once libopenblas0 is
installed), and OpenBLAS itself says which kernels it chose for this CPU (it falls back to its
SSE3 "Prescott" kernels on a CPU it does not know; OPENBLAS_CORETYPE overrides that).
"""
import ctypes
import re

import torch


def blas_report():
    """What torch's build says about BLAS, and the BLAS libraries mapped into this process."""
    build = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    lines = [f"torch {torch.__version__}, BLAS_INFO={build.group(1) if build else '?'}"]
    with open("/proc/self/maps") as maps:
        libraries = sorted({line.split()[-1] for line in maps
                            if re.search(r"blas|lapack|mkl|blis", line.split()[-1])})
    lines.append("BLAS loaded: " + (", ".join(libraries) if libraries else "none"))
    for path in libraries:  # OpenBLAS says which kernels (its "core") and how many threads
        try:
            library = ctypes.CDLL(path)
            library.openblas_get_config.restype = ctypes.c_char_p
            library.openblas_get_corename.restype = ctypes.c_char_p
            line = (f"  OpenBLAS: {library.openblas_get_config().decode()}, core "
                    f"{library.openblas_get_corename().decode()}, "
                    f"threads {library.openblas_get_num_threads()}")
        except (OSError, AttributeError):
            continue
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)

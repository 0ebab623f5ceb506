// The one numeric type of the engine and the matrix shapes built on it.
#pragma once

#include <Eigen/Core>

namespace core {

using Scalar = float; // PyTorch's default dtype; references agree to 1e-5

// Row-major, so a token's vector is one contiguous row and a head's slice of
// (B*N) x d_model is the column block [h*d_head, (h+1)*d_head).
using Mat = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVec = Eigen::Matrix<Scalar, 1, Eigen::Dynamic>;
using BoolMat = Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace core

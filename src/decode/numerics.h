// The exact float32 arithmetic of the official decoder, operation for operation.
//
// laya's `_decode_answers` runs on numpy float32 arrays and the action softmax in torch on CPU.
// Rounding to 4 decimals makes the last bit of a probability matter near a rounding boundary, so
// the transcendental functions are scalar transcriptions of the exact kernels those libraries run
// on x86-64 with AVX2/AVX-512 (the machines the official package runs on):
// - numpy_exp_f32 / numpy_log_f32: numpy's `simd_exp_FLOAT` / `simd_log_FLOAT`
//   (loops_exponent_log.dispatch.c.src: Cody-Waite reduction + rational minimax polynomials);
// - numpy_sum_f32 / numpy_sum_f64: numpy's pairwise summation (8 accumulators, blocks of 128);
// - sleef_expf_u10: SLEEF's expf (u10), which torch's Vectorized<float>::exp() calls;
// - torch_softmax_f32: ATen's _vec_softmax_lastdim (max, exp, sum, multiply by 1/sum).
#pragma once

#include <cstddef>
#include <span>

namespace laya::decode {

float numpy_exp_f32(float x);
float numpy_log_f32(float x);
float numpy_sum_f32(std::span<const float> a);
double numpy_sum_f64(std::span<const double> a);
float sleef_expf_u10(float x);
void torch_softmax_f32(std::span<const float> in, std::span<float> out);

}  // namespace laya::decode

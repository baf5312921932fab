// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//! The digits as guest/components/wit_classify_digits.c does them, for p3_classify and p3_nn
//! (compiled into each, over its own wasi:nn bindings at the crate's root): each row of X
//! (64 floats) one compute on a [1, 64] FP32 tensor named "input"; stdout the first ten rows'
//! lines and the accuracy, byte for byte the C guest's.
use crate::wasi::nn::tensor::{Tensor, TensorType};

/// The rows' logits, in order, after printing what wit_classify_digits prints. `compute` gives
/// the first output's bytes for one input tensor. Err(reason) for rows that do not fit.
pub async fn classify<E>(
    x: &[u8],
    y: &[u8],
    mut compute: impl AsyncFnMut(Vec<(String, Tensor)>) -> Result<Vec<u8>, E>,
) -> Result<Result<Vec<u8>, E>, String> {
    let n = y.len();
    if x.len() != n * 256 {
        return Err(format!("X holds {} bytes, not {n} rows of 64 floats", x.len()));
    }
    let mut logits_out = Vec::with_capacity(n * 40);
    let mut correct = 0;
    for i in 0..n {
        let input = Tensor::new(&[1, 64], TensorType::Fp32, &x[i * 256..(i + 1) * 256]);
        let bytes = match compute(vec![("input".to_string(), input)]).await {
            Ok(b) => b,
            Err(e) => return Ok(Err(e)),
        };
        let v: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let predicted = (0..v.len()).fold(0, |best, k| if v[k] > v[best] { k } else { best });
        correct += (predicted == y[i] as usize) as usize;
        if i < 10 {
            let wrong = if predicted == y[i] as usize { "" } else { "  <- wrong" };
            println!("digit {i:2}: predicted {predicted}, label {}{wrong}", y[i]);
        }
        logits_out.extend_from_slice(&bytes);
    }
    println!("accuracy: {correct}/{n} = {:.2}%", 100.0 * correct as f64 / n as f64);
    Ok(Ok(logits_out))
}

// `nn::Data` marks values that are not differentiated: wrapping an active one is an error, not a
// derivative silently lost.
use autodiff_runtime::{differentiate, nn};

#[differentiate]
fn layer(x: &[f64], w: &[f64], b: &[f64]) -> f64 {
    let mut y = vec![0.0; 2];
    nn::dense_data(nn::Data(x), w, b, &mut y, 1, 3, 2);
    y[0] + y[1]
}

fn main() {}

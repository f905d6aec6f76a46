use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, n: usize) -> f64 {
    // A local holding rows of `Vec`s other than `vec![vec![x; c]; r]`, annotated or built.
    let a: Vec<Vec<f64>> = Vec::new();
    let mut b = vec![vec![0.0; 3], vec![0.0; n]];
    b[0][0] = x;
    b[0][0] * x
}

// An output of rows of `Vec`s given other than by a local built by `vec![vec![x; c]; r]`.
#[differentiate]
fn g(x: f64) -> Vec<Vec<f64>> {
    vec![vec![x]]
}

// ... or given early.
#[differentiate]
fn g2(x: f64, n: usize) -> Vec<Vec<f64>> {
    let mut m = vec![vec![x; 2]; n];
    if n > 3 {
        return m;
    }
    m[0][0] = x * x;
    m
}

// Options an output of rows of `Vec`s does not serve yet.
#[differentiate(split)]
fn g3(x: f64) -> Vec<Vec<f64>> {
    let m = vec![vec![x; 2]; 2];
    m
}

#[differentiate(vector)]
fn g4(x: f64) -> Vec<Vec<f64>> {
    let m = vec![vec![x; 2]; 2];
    m
}

// Options the flat form does not serve yet.
#[differentiate(vector)]
fn h(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

#[differentiate(split)]
fn k(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

#[differentiate(hvp)]
fn l(m: &[Vec<f64>]) -> f64 {
    m[0][0]
}

fn main() {}

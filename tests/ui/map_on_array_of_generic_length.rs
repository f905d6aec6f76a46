use autodiff_runtime::differentiate;

#[differentiate]
fn f<const N: usize>(a: [f64; N]) -> f64 {
    let b = a.map(|x| x * x);
    b[0]
}

fn main() {}

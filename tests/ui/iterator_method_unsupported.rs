use autodiff_runtime::differentiate;

#[differentiate]
fn f(v: &[f64]) -> f64 {
    v.iter()
        .scan(0.0, |acc, &a| {
            *acc += a;
            Some(*acc)
        })
        .sum()
}

fn main() {}

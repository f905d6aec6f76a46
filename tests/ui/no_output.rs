use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64) {
    println!("{}", x * x);
}

fn main() {}

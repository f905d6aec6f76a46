// A `vector` function calls its callees' `_jvpn`: a callee differentiated without `vector` (or a
// custom rule without a hand-written `_jvpn`) has none, and rustc says so at the call.
use autodiff_runtime::differentiate;

#[differentiate]
fn g(a: f64) -> f64 {
    a.sin()
}

#[differentiate(vector)]
fn f(x: f64) -> f64 {
    g(x) * x
}

fn main() {}

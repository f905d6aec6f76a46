use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
union Bits {
    f: f64,
    n: u64,
}

fn main() {}

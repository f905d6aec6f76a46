use autodiff_runtime::differentiate;

trait Foo {
    fn foo(self) -> f64;
}

impl Foo for f64 {
    fn foo(self) -> f64 {
        self * 3.0
    }
}

#[differentiate]
fn f(x: f64) -> f64 {
    x.foo() + x
}

fn main() {}

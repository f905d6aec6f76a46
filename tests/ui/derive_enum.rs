use autodiff_runtime::Differentiable;

#[derive(Differentiable)]
enum Shape {
    Circle { r: f64 },
    Square(f64),
}

fn main() {}

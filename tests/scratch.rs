use autodiff_runtime::differentiate;

#[differentiate]
fn f(x: f64, v: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += v[i] * x.sin();
    }
    let y = if s > 0.0 { s * s } else { -s };
    y + x.powi(2)
}

#[test]
fn t() {
    let v = [1.0, 2.0, 3.0];
    let (y, dy) = f_jvp(0.5, &v, 3, 1.0, &[0.0; 3]);
    println!("{y} {dy}");
    let mut dx = 0.0;
    let mut dv = [0.0; 3];
    let y2 = f_vjp(0.5, &v, 3, &mut dx, &mut dv, 1.0);
    println!("{y2} {dx} {dv:?}");
    let (_, g) = f_grad(0.5, &v, 3);
    println!("{g:?}");
}

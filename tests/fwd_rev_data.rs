use autodiff_runtime::differentiate;

#[differentiate]
fn bv_a(x: f64) -> f64 {
    let mut i = 0;
    let r = loop {
        i += 1;
        if i == 3 {
            break x * 2.0;
        }
    };
    r
}

#[differentiate]
fn bv_b(x: f64) -> f64 {
    let mut i = 0;
    loop {
        i += 1;
        if i == 3 {
            break x * 2.0;
        }
    }
}

#[differentiate]
fn bv_c(x: f64) -> f64 {
    let r = 'outer: loop {
        loop {
            break 'outer x * 2.0;
        }
    };
    r
}

#[differentiate]
fn bv_d(x: f64) -> f64 {
    let mut s = x;
    let r = loop {
        s = s * 0.5;
        if s < 0.1 {
            break s;
        }
    };
    r
}

#[differentiate]
fn bv_e(x: f64) -> f64 {
    let r: f64 = loop {
        break x * 2.0;
    };
    r
}

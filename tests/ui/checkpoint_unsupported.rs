use autodiff_runtime::differentiate;

#[differentiate]
fn step(s: &mut [f64], k: f64) {
    s[0] *= k;
}

#[differentiate]
fn two(a: &mut [f64], b: &mut [f64]) {
    a[0] += b[0];
    b[0] *= 2.0;
}

// Two statements in the body.
#[differentiate]
fn body_of_two(x: f64, n: usize) -> f64 {
    let mut s = vec![x; 2];
    #[checkpoint]
    for _ in 0..n {
        step(&mut s, 2.0);
        s[1] += 1.0;
    }
    s[0]
}

// The step reads a value the function changes.
#[differentiate]
fn reads_mut(x: f64, n: usize) -> f64 {
    let mut s = vec![x; 2];
    let mut k = 2.0;
    k *= x;
    #[checkpoint]
    for _ in 0..n {
        step(&mut s, k);
    }
    s[0]
}

// Over an iterator, and over a reversed range.
#[differentiate]
fn over_iter(x: f64, ks: &[f64]) -> f64 {
    let mut s = vec![x; 2];
    #[checkpoint]
    for k in ks.iter() {
        step(&mut s, *k);
    }
    #[checkpoint]
    for _ in (0..3).rev() {
        step(&mut s, 2.0);
    }
    s[0]
}

// Part of a state, and two states.
#[differentiate]
fn states(x: f64, n: usize) -> f64 {
    let mut s = vec![x; 4];
    let mut t = vec![x; 2];
    #[checkpoint]
    for _ in 0..n {
        step(&mut s[1..], 2.0);
    }
    #[checkpoint]
    for _ in 0..n {
        two(&mut s, &mut t);
    }
    s[0]
}

// An unknown option, and the attribute on something else.
#[differentiate]
fn misplaced(x: f64, n: usize) -> f64 {
    let mut s = vec![x; 2];
    #[checkpoint(every = 3)]
    for _ in 0..n {
        step(&mut s, 2.0);
    }
    #[checkpoint]
    while s[0] < 1.0 {
        step(&mut s, 2.0);
    }
    s[0]
}

fn main() {}

use autodiff_runtime::kernels::*;
use std::time::Instant;
fn main() {
    for &n in &[64usize, 256, 1024] {
        let a: Vec<f64> = (0..n * n).map(|i| ((i * 7 % 13) as f64) * 0.1).collect();
        let b: Vec<f64> = (0..n * n).map(|i| ((i * 5 % 11) as f64) * 0.1).collect();
        let mut c = vec![0.0f64; n * n];
        for isa in available_isas() {
            let reps = (2e9 / (2.0 * (n * n * n) as f64)).max(1.0) as usize;
            with_isa(isa, || {
                matmul(1.0, MatRef::new(&a, n, n), MatRef::new(&b, n, n), 0.0, MatMut::new(&mut c, n, n));
                let t = Instant::now();
                for _ in 0..reps {
                    matmul(1.0, MatRef::new(&a, n, n), MatRef::new(&b, n, n), 0.0, MatMut::new(&mut c, n, n));
                }
                let s = t.elapsed().as_secs_f64() / reps as f64;
                println!("f64 n={n} {isa:?}: {:.1} GFLOP/s", 2.0 * (n * n * n) as f64 / s / 1e9);
            });
        }
        let a: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let b: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let mut c = vec![0.0f32; n * n];
        for isa in available_isas() {
            let reps = (4e9 / (2.0 * (n * n * n) as f64)).max(1.0) as usize;
            with_isa(isa, || {
                let t = Instant::now();
                for _ in 0..reps {
                    matmul(1.0, MatRef::new(&a, n, n), MatRef::new(&b, n, n), 0.0, MatMut::new(&mut c, n, n));
                }
                let s = t.elapsed().as_secs_f64() / reps as f64;
                println!("f32 n={n} {isa:?}: {:.1} GFLOP/s", 2.0 * (n * n * n) as f64 / s / 1e9);
            });
        }
    }
}

//! What the overhead benchmark's binaries share: takes nothing, gives the variant type and names,
//! the seeded inputs' helpers and the table printing.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One way to compute a problem: a name and a closure that owns its buffers and returns the value.
pub type Variant<'a> = (&'static str, Box<dyn FnMut() -> f64 + 'a>);

/// The variant names, in table order; a problem may lack the generated ones.
pub const PRIMAL: &str = "primal";
pub const HAND_VJP: &str = "hand_vjp";
pub const GENERATED_VJP: &str = "generated_vjp";
pub const GENERATED_GRAD: &str = "generated_grad";
pub const HAND_JVP: &str = "hand_jvp";
pub const GENERATED_JVP: &str = "generated_jvp";

/// Seed of the tangent directions of the forward-mode variants (apart from the inputs' stream, so
/// adding or removing variants leaves the inputs as they were).
pub const DIRECTION_SEED: u64 = 77;

/// A tangent direction for a forward-mode variant: `len` components in [-1, 1].
pub fn direction(len: usize) -> Vec<f64> {
    uniform(
        &mut ChaCha8Rng::seed_from_u64(DIRECTION_SEED),
        len,
        -1.0,
        1.0,
    )
}

pub fn uniform(rng: &mut ChaCha8Rng, len: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..len).map(|_| rng.gen_range(lo..hi)).collect()
}

/// Seed of the two-variable functions' points (apart from the large problems' stream).
pub const SMALL_SEED: u64 = 2025;

pub fn small_rng() -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(SMALL_SEED)
}

pub fn format_time(seconds: Option<f64>) -> String {
    match seconds {
        None => "-".to_string(),
        Some(s) if s < 1e-3 => format!("{:.2} us", s * 1e6),
        Some(s) => format!("{:.3} ms", s * 1e3),
    }
}

pub fn format_ratio(num: Option<f64>, den: Option<f64>) -> String {
    match (num, den) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "-".to_string(),
    }
}

/// Prints `rows` under `header`, columns padded to their widest cell.
pub fn print_table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) {
    let widths: Vec<usize> = (0..header.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].len())
                .max()
                .unwrap_or(0)
                .max(header[c].len())
        })
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        println!("{}", padded.join("  "));
    };
    line(&header.map(String::from));
    for row in rows {
        line(row);
    }
}

/// Median seconds per call of every variant: each calibrated to samples about `sample` long,
/// then `rounds` rounds that time one sample of every variant in turn (interleaved, so that a
/// noisy neighbour slows them all alike).
pub fn interleaved_medians(
    variants: &mut [Variant<'_>],
    sample: std::time::Duration,
    rounds: usize,
) -> Vec<f64> {
    let reps: Vec<u64> = variants
        .iter_mut()
        .map(|(_, run)| calibrate(&mut **run, sample))
        .collect();
    let mut samples = vec![Vec::with_capacity(rounds); variants.len()];
    for _ in 0..rounds {
        for (i, (_, run)) in variants.iter_mut().enumerate() {
            samples[i].push(time_sample(&mut **run, reps[i]));
        }
    }
    samples.into_iter().map(median).collect()
}

/// Seconds per call of `run` over `reps` calls.
fn time_sample(run: &mut dyn FnMut() -> f64, reps: u64) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..reps {
        std::hint::black_box(run());
    }
    start.elapsed().as_secs_f64() / reps as f64
}

/// Repetitions that make one sample of `run` last about `sample`; warms `run` up on the way.
fn calibrate(run: &mut dyn FnMut() -> f64, sample: std::time::Duration) -> u64 {
    let mut reps = 1;
    loop {
        let start = std::time::Instant::now();
        for _ in 0..reps {
            std::hint::black_box(run());
        }
        let elapsed = start.elapsed();
        if elapsed >= sample / 4 {
            let per_call = elapsed.as_secs_f64() / reps as f64;
            return ((sample.as_secs_f64() / per_call).round() as u64).max(1);
        }
        reps *= 2;
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

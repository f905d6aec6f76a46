//! Train a two-layer network (2 -> 64 tanh -> 2 logits) to separate two interleaved spirals,
//! with a `#[differentiate]` cross-entropy loss built from the `autodiff_runtime::nn` layers
//! (whose derivatives run the matrix kernels) and Adam written out below. The same loss written
//! with nalgebra (`DMatrix` products, `from_fn`) is differentiated too and checked against it
//! first. Shows a progress bar, then saves the loss curve and the decision boundary as PNGs and
//! prints where.
//!
//! Run with `cargo run --release --example mlp`.

mod common;

use autodiff_runtime::{check, differentiate, nn};
use indicatif::{ProgressBar, ProgressStyle};
use nalgebra::{DMatrix, DVector};
use plotters::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Inputs and outputs per sample.
const N_IN: usize = 2;
const N_OUT: usize = 2;

/// The network's logits for a batch `x` (`rows x 2`, one point a row) written into `logits`
/// (`rows x 2`): `tanh(x w1 + b1) w2 + b2`, `w1` `2 x hidden`, `w2` `hidden x 2`.
#[allow(clippy::too_many_arguments)]
#[differentiate]
fn forward(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    x: &[f64],
    logits: &mut [f64],
    rows: usize,
    hidden: usize,
) {
    // The macro asks for the type of a module-level constant passed to a call.
    let (n_in, n_out): (usize, usize) = (N_IN, N_OUT);
    let mut z = vec![0.0; rows * hidden];
    nn::dense(x, w1, b1, &mut z, rows, n_in, hidden);
    let mut a = vec![0.0; rows * hidden];
    nn::tanh(&z, &mut a);
    nn::dense(&a, w2, b2, logits, rows, hidden, n_out);
}

/// Mean softmax cross-entropy of the network on the batch `x` with classes `labels`.
#[allow(clippy::too_many_arguments)]
#[differentiate(wrt(w1, b1, w2, b2))]
fn loss(
    w1: &[f64],
    b1: &[f64],
    w2: &[f64],
    b2: &[f64],
    x: &[f64],
    labels: &[usize],
    rows: usize,
    hidden: usize,
) -> f64 {
    let n_out: usize = N_OUT;
    let mut logits = vec![0.0; rows * n_out];
    forward(w1, b1, w2, b2, x, &mut logits, rows, hidden);
    nn::cross_entropy(&logits, labels, rows, n_out)
}

/// The same loss written with nalgebra, one point a column: `x` is `2 x rows`, `w1` `hidden x 2`,
/// `w2` `2 x hidden`. Their column-major storage is the row-major storage of [`loss`]'s `x`,
/// `w1` and `w2`, so both read the same numbers.
#[differentiate(wrt(w1, b1, w2, b2))]
fn loss_nalgebra(
    w1: &DMatrix<f64>,
    b1: &DVector<f64>,
    w2: &DMatrix<f64>,
    b2: &DVector<f64>,
    x: &DMatrix<f64>,
    labels: &[usize],
) -> f64 {
    let z = w1 * x;
    let a = DMatrix::from_fn(z.nrows(), z.ncols(), |i, j| (z[(i, j)] + b1[i]).tanh());
    let y = w2 * &a;
    let logits = DMatrix::from_fn(y.nrows(), y.ncols(), |i, j| y[(i, j)] + b2[i]);
    // Column-major `2 x rows` is row-major `rows x 2`, what the loss takes.
    nn::cross_entropy(logits.as_slice(), labels, labels.len(), logits.nrows())
}

/// The network's weights, one buffer per layer argument.
struct Params {
    hidden: usize,
    w1: Vec<f64>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: Vec<f64>,
}

impl Params {
    /// Uniform random weights; the first layer's are large so that tanh can bend the boundary
    /// around the spirals from the start.
    fn random(hidden: usize, rng: &mut StdRng) -> Params {
        let mut uniform = |n: usize, scale: f64| -> Vec<f64> {
            (0..n).map(|_| rng.gen_range(-scale..scale)).collect()
        };
        Params {
            hidden,
            w1: uniform(N_IN * hidden, 4.0),
            b1: uniform(hidden, 2.0),
            w2: uniform(hidden * N_OUT, (6.0 / (hidden + N_OUT) as f64).sqrt()),
            b2: vec![0.0; N_OUT],
        }
    }

    fn zeros_like(&self) -> Params {
        Params {
            hidden: self.hidden,
            w1: vec![0.0; self.w1.len()],
            b1: vec![0.0; self.b1.len()],
            w2: vec![0.0; self.w2.len()],
            b2: vec![0.0; self.b2.len()],
        }
    }

    fn buffers(&self) -> [&Vec<f64>; 4] {
        [&self.w1, &self.b1, &self.w2, &self.b2]
    }

    fn buffers_mut(&mut self) -> [&mut Vec<f64>; 4] {
        [&mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2]
    }

    fn loss(&self, data: &Data) -> f64 {
        let p = self;
        loss(
            &p.w1,
            &p.b1,
            &p.w2,
            &p.b2,
            &data.x,
            &data.labels,
            data.rows(),
            p.hidden,
        )
    }

    /// The loss, with its gradient added into `grad` (which the caller zeroes).
    fn loss_and_gradient(&self, data: &Data, grad: &mut Params) -> f64 {
        let p = self;
        let g = grad;
        loss_vjp(
            &p.w1,
            &p.b1,
            &p.w2,
            &p.b2,
            &data.x,
            &data.labels,
            data.rows(),
            p.hidden,
            &mut g.w1,
            &mut g.b1,
            &mut g.w2,
            &mut g.b2,
            1.0,
        )
    }

    /// The probability of class 1 at each point of `x` (`rows x 2`).
    fn prob_class1(&self, x: &[f64]) -> Vec<f64> {
        let rows = x.len() / N_IN;
        let mut logits = vec![0.0; rows * N_OUT];
        let p = self;
        forward(&p.w1, &p.b1, &p.w2, &p.b2, x, &mut logits, rows, p.hidden);
        logits
            .chunks_exact(N_OUT)
            .map(|l| 1.0 / (1.0 + (l[0] - l[1]).exp()))
            .collect()
    }
}

/// Adam (Kingma and Ba), one moment pair per parameter buffer.
struct Adam {
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    t: i32,
    m: Params,
    v: Params,
}

impl Adam {
    fn new(params: &Params, lr: f64) -> Adam {
        Adam {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            t: 0,
            m: params.zeros_like(),
            v: params.zeros_like(),
        }
    }

    fn step(&mut self, params: &mut Params, grad: &Params) {
        self.t += 1;
        let c1 = 1.0 - self.beta1.powi(self.t);
        let c2 = 1.0 - self.beta2.powi(self.t);
        let (b1, b2) = (self.beta1, self.beta2);
        for (((p, g), m), v) in params
            .buffers_mut()
            .into_iter()
            .zip(grad.buffers())
            .zip(self.m.buffers_mut())
            .zip(self.v.buffers_mut())
        {
            for i in 0..p.len() {
                m[i] = b1 * m[i] + (1.0 - b1) * g[i];
                v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
                p[i] -= self.lr * (m[i] / c1) / ((v[i] / c2).sqrt() + self.eps);
            }
        }
    }
}

/// Points in the plane (`x`, `rows x 2`) and their classes.
struct Data {
    x: Vec<f64>,
    labels: Vec<usize>,
}

impl Data {
    /// Two spirals of `per_class` points each, one and a half turns, class `c` rotated by
    /// `c * pi`, with a little uniform noise; inside the unit disc.
    fn two_spirals(per_class: usize, rng: &mut StdRng) -> Data {
        let mut x = Vec::with_capacity(2 * per_class * N_IN);
        let mut labels = Vec::with_capacity(2 * per_class);
        for class in 0..2 {
            for i in 0..per_class {
                let s = i as f64 / per_class as f64;
                let angle = 3.0 * std::f64::consts::PI * s + class as f64 * std::f64::consts::PI;
                let radius = 0.1 + 0.85 * s;
                x.push(radius * angle.cos() + rng.gen_range(-0.03..0.03));
                x.push(radius * angle.sin() + rng.gen_range(-0.03..0.03));
                labels.push(class);
            }
        }
        Data { x, labels }
    }

    fn rows(&self) -> usize {
        self.labels.len()
    }

    fn accuracy(&self, params: &Params) -> f64 {
        let p1 = params.prob_class1(&self.x);
        let right = p1
            .iter()
            .zip(&self.labels)
            .filter(|(&p, &c)| (p > 0.5) == (c == 1))
            .count();
        right as f64 / self.rows() as f64
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = StdRng::seed_from_u64(14);
    let data = Data::two_spirals(300, &mut rng);
    let mut params = Params::random(64, &mut rng);
    let steps = 4000;
    println!(
        "two spirals: {} points; network 2 -> {} tanh -> 2, {} weights; Adam, {steps} full-batch \
         steps",
        data.rows(),
        params.hidden,
        params.buffers().iter().map(|b| b.len()).sum::<usize>()
    );

    // Check the generated gradient against central differences along a random direction.
    let mut grad = params.zeros_like();
    let l0 = params.loss_and_gradient(&data, &mut grad);
    let flat =
        |p: &Params| -> Vec<f64> { p.buffers().iter().flat_map(|b| b.iter().copied()).collect() };
    let theta = flat(&params);
    let dir: Vec<f64> = (0..theta.len()).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let from_flat = |v: &[f64]| -> f64 {
        let mut q = params.zeros_like();
        let mut rest = v;
        for b in q.buffers_mut() {
            let (head, tail) = rest.split_at(b.len());
            b.copy_from_slice(head);
            rest = tail;
        }
        q.loss(&data)
    };
    let fd = check::central_difference_scalar(from_flat, &theta, &dir, check::default_step());
    let ad = check::dot(&flat(&grad), &dir);
    println!(
        "initial loss {l0:.4}; gradient along a random direction: reverse mode {ad:.10}, central \
         differences {fd:.10}"
    );
    if !check::close(ad, fd, 1e-6, 1e-9) {
        eprintln!("gradient check failed");
        std::process::exit(1);
    }
    // The nalgebra version: the same value and gradient (to rounding: its tanh is `f64::tanh`,
    // the layer's is the kernels' polynomial).
    let h = params.hidden;
    let (w1, b1) = (
        DMatrix::from_column_slice(h, N_IN, &params.w1),
        DVector::from_column_slice(&params.b1),
    );
    let (w2, b2) = (
        DMatrix::from_column_slice(N_OUT, h, &params.w2),
        DVector::from_column_slice(&params.b2),
    );
    let xm = DMatrix::from_column_slice(N_IN, data.rows(), &data.x);
    let (ln, gn) = loss_nalgebra_grad(&w1, &b1, &w2, &b2, &xm, &data.labels);
    // nalgebra's own product rounds like the kernels' to within an ulp or so.
    let primal = loss_nalgebra(&w1, &b1, &w2, &b2, &xm, &data.labels);
    assert!(check::close(primal, ln, 1e-12, 1e-12));
    let gn_flat: Vec<f64> = [
        gn.w1.as_slice(),
        gn.b1.as_slice(),
        gn.w2.as_slice(),
        gn.b2.as_slice(),
    ]
    .concat();
    let g_flat = flat(&grad);
    let scale = g_flat.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let diff = g_flat
        .iter()
        .zip(&gn_flat)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    println!(
        "the same loss written with nalgebra: {ln:.10} (nn layers {l0:.10}); largest gradient \
         difference {:.1e} of the largest entry",
        diff / scale
    );
    if !check::close(ln, l0, 1e-12, 1e-12) || diff > 1e-10 * scale {
        eprintln!("the nalgebra version disagrees");
        std::process::exit(1);
    }

    let mut adam = Adam::new(&params, 0.01);
    let mut losses = Vec::with_capacity(steps);
    let bar = ProgressBar::new(steps as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos:>5}/{len} [{elapsed_precise}] {msg}",
        )?
        .progress_chars("##-"),
    );
    let start = std::time::Instant::now();
    for step in 0..steps {
        for b in grad.buffers_mut() {
            b.fill(0.0);
        }
        let l = params.loss_and_gradient(&data, &mut grad);
        losses.push(l);
        adam.step(&mut params, &grad);
        if step % 50 == 0 {
            bar.set_message(format!("loss {l:.4}"));
        }
        if step % 1000 == 0 {
            let acc = data.accuracy(&params);
            bar.suspend(|| println!("step {step:>5}: loss {l:.4}, accuracy {:.1} %", 100.0 * acc));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let elapsed = start.elapsed();
    let final_loss = params.loss(&data);
    println!(
        "step {steps:>5}: loss {final_loss:.4}, accuracy {:.1} %  ({:.2} s, {:.0} µs a step)",
        100.0 * data.accuracy(&params),
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / steps as f64
    );

    let dir = common::output_dir();
    let loss_png = dir.join("mlp_loss.png");
    common::loss_curve(
        &loss_png,
        "two spirals: training loss",
        "Adam step",
        "cross-entropy",
        &losses,
    )?;
    let boundary_png = dir.join("mlp_decision_boundary.png");
    decision_boundary(&boundary_png, &params, &data)?;
    println!("wrote {}", loss_png.display());
    println!("wrote {}", boundary_png.display());
    Ok(())
}

/// The plane coloured by the network's probability of class 1 (red 0, blue 1, the boundary
/// where they meet), with the training points on top.
fn decision_boundary(
    path: &std::path::Path,
    params: &Params,
    data: &Data,
) -> Result<(), Box<dyn std::error::Error>> {
    let text = common::font_available();
    let root = BitMapBackend::new(path, (700, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(15);
    if text {
        builder
            .caption("two spirals: decision boundary", ("sans-serif", 24))
            .x_label_area_size(30)
            .y_label_area_size(40);
    }
    let lim = 1.1;
    let mut chart = builder.build_cartesian_2d(-lim..lim, -lim..lim)?;
    if text {
        chart.configure_mesh().disable_mesh().draw()?;
    }

    // One evaluation of the network over a grid of cells.
    let n = 200;
    let cell = 2.0 * lim / n as f64;
    let mut grid = Vec::with_capacity(n * n * N_IN);
    for i in 0..n {
        for j in 0..n {
            grid.push(-lim + (j as f64 + 0.5) * cell);
            grid.push(-lim + (i as f64 + 0.5) * cell);
        }
    }
    let p1 = params.prob_class1(&grid);
    chart.draw_series(grid.chunks_exact(N_IN).zip(&p1).map(|(c, &p)| {
        let (light0, light1) = ((255.0, 190.0, 190.0), (190.0, 200.0, 255.0));
        let mix = |a: f64, b: f64| (a + p * (b - a)) as u8;
        let color = RGBColor(
            mix(light0.0, light1.0),
            mix(light0.1, light1.1),
            mix(light0.2, light1.2),
        );
        let h = cell / 2.0;
        Rectangle::new([(c[0] - h, c[1] - h), (c[0] + h, c[1] + h)], color.filled())
    }))?;
    for (class, color) in [(0, RED), (1, BLUE)] {
        chart.draw_series(
            data.x
                .chunks_exact(N_IN)
                .zip(&data.labels)
                .filter(|(_, &c)| c == class)
                .map(|(q, _)| Circle::new((q[0], q[1]), 3, color.filled())),
        )?;
    }
    root.present()?;
    Ok(())
}

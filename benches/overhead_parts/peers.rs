//! Files for `benches/peers/overhead.py` (JAX on the same problems): takes the large problems'
//! inputs and this run's medians, writes into a folder one file per problem with its sizes,
//! constants and inputs, and the value and gradient of the generated `_grad` (the script checks
//! JAX's against them), and `ours.txt` with this run's medians (the script prints them beside
//! JAX's).
//!
//! Format, one item a line, numbers in Rust's shortest round-trip notation:
//! `scalar <name> <value>`, `array <name> <len> <values...>`, `value <value>`,
//! `grad <name> <len> <values...>`; `ours.txt`: `<problem> <primal> <vjp> <grad> <hand_vjp>`
//! in seconds (`nan` where a variant is absent).

use std::fmt::Write as _;
use std::path::Path;

use super::large::LargeInputs;
use crate::problems::*;

/// Medians of one problem's variants in seconds: primal, generated `_vjp`, generated `_grad`,
/// hand-written adjoint.
pub type OursRow = (&'static str, [Option<f64>; 4]);

struct File(String);

impl File {
    fn scalar(&mut self, name: &str, v: f64) -> &mut Self {
        writeln!(self.0, "scalar {name} {v:e}").unwrap();
        self
    }
    fn items(&mut self, kind: &str, name: &str, v: &[f64]) -> &mut Self {
        write!(self.0, "{kind} {name} {}", v.len()).unwrap();
        for x in v {
            write!(self.0, " {x:e}").unwrap();
        }
        self.0.push('\n');
        self
    }
    fn array(&mut self, name: &str, v: &[f64]) -> &mut Self {
        self.items("array", name, v)
    }
    fn grad(&mut self, name: &str, v: &[f64]) -> &mut Self {
        self.items("grad", name, v)
    }
    fn value(&mut self, v: f64) -> &mut Self {
        writeln!(self.0, "value {v:e}").unwrap();
        self
    }
}

/// Writes the problem files and `ours.txt` into `dir` (made if missing).
pub fn write_peer_files(dir: &Path, ours: &[OursRow]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let inputs = LargeInputs::new();
    let mut files: Vec<(&str, File)> = Vec::new();

    let x = &inputs.rosenbrock.x;
    let (v, g) = generated::rosenbrock_grad(x, ROSENBROCK_N);
    let mut f = File(String::new());
    f.scalar("n", ROSENBROCK_N as f64)
        .array("x", x)
        .value(v)
        .grad("x", &g.x);
    files.push(("rosenbrock", f));

    let s = &inputs.springs;
    let (c, dt, n, steps) = (SPRING_C, SPRING_DT, SPRING_N, SPRING_STEPS);
    let (v, g) = generated::spring_chain_grad(&s.k, &s.x0, &s.v0, c, dt, n, steps);
    let mut f = File(String::new());
    f.scalar("c", c).scalar("dt", dt).scalar("n", n as f64);
    f.scalar("steps", steps as f64);
    f.array("k", &s.k)
        .array("x0", &s.x0)
        .array("v0", &s.v0)
        .value(v);
    f.grad("k", &g.k).grad("x0", &g.x0).grad("v0", &g.v0);
    files.push(("spring_chain", f));

    let t = &inputs.net;
    let (d, h, o, batch) = (NET_D, NET_H, NET_O, NET_BATCH);
    let (v, g) =
        generated::two_layer_loss_grad(&t.w1, &t.b1, &t.w2, &t.b2, &t.xs, &t.ys, d, h, o, batch);
    let mut f = File(String::new());
    f.scalar("d", d as f64)
        .scalar("h", h as f64)
        .scalar("o", o as f64);
    f.scalar("batch", batch as f64);
    f.array("w1", &t.w1)
        .array("b1", &t.b1)
        .array("w2", &t.w2)
        .array("b2", &t.b2);
    f.array("xs", &t.xs).array("ys", &t.ys).value(v);
    f.grad("w1", &g.w1)
        .grad("b1", &g.b1)
        .grad("w2", &g.w2)
        .grad("b2", &g.b2);
    files.push(("two_layer_loss", f));

    let q = &inputs.heat;
    let (alpha, n, steps) = (HEAT_ALPHA, HEAT_N, HEAT_STEPS);
    let (v, g) = generated::heat_grad(&q.u0, alpha, &q.target, n, steps);
    let mut f = File(String::new());
    f.scalar("alpha", alpha)
        .scalar("n", n as f64)
        .scalar("steps", steps as f64);
    f.array("u0", &q.u0).array("target", &q.target).value(v);
    f.grad("u0", &g.u0).grad("alpha", &[g.alpha]);
    files.push(("heat_2d", f));

    let l = &inputs.lv;
    let (h, steps) = (LV_H, LV_STEPS);
    let (v, g) = generated::lv_fit_grad(&l.p, &l.y0, &l.obs, h, steps);
    let mut f = File(String::new());
    f.scalar("h", h).scalar("steps", steps as f64);
    f.array("p", &l.p)
        .array("y0", &l.y0)
        .array("obs", &l.obs)
        .value(v);
    f.grad("p", &g.p).grad("y0", &g.y0);
    files.push(("rk4_lotka_volterra", f));

    for (name, f) in files {
        std::fs::write(dir.join(format!("{name}.txt")), f.0)?;
    }
    let mut text = String::new();
    for (problem, times) in ours {
        write!(text, "{problem}").unwrap();
        for t in times {
            write!(text, " {:e}", t.unwrap_or(f64::NAN)).unwrap();
        }
        text.push('\n');
    }
    std::fs::write(dir.join("ours.txt"), text)
}

//! Helpers shared by the examples that draw PNGs: where to write them, a font for their text, and
//! a loss curve. (A directory without `main.rs`, so cargo does not take it for an example.)

// Each example uses some of these helpers.
#![allow(dead_code)]

use plotters::prelude::*;
use plotters::style::register_font;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The directory the examples write their pictures into: `<target dir>/example-plots`, found
/// from the running executable (`<target dir>/<profile>/examples/<name>`), or
/// `target/example-plots` when that does not work. Created if missing.
pub fn output_dir() -> PathBuf {
    let from_exe = std::env::current_exe().ok().and_then(|exe| {
        let examples = exe.parent()?;
        let profile = examples.parent()?;
        Some(profile.parent()?.join("example-plots"))
    });
    let dir = from_exe.unwrap_or_else(|| PathBuf::from("target/example-plots"));
    std::fs::create_dir_all(&dir).expect("create the directory for the plots");
    dir
}

/// Whether text can be drawn: plotters is built with its pure-Rust `ab_glyph` text renderer,
/// which needs a TrueType font registered at run time. This looks for one where Linux, macOS
/// and Windows keep common fonts (or at `$EXAMPLE_FONT`), registers it as "sans-serif" and
/// returns `true`; without one (or with `EXAMPLE_FONT` set but empty) the plots are drawn
/// without text.
pub fn font_available() -> bool {
    static FOUND: OnceLock<bool> = OnceLock::new();
    *FOUND.get_or_init(|| {
        let mut candidates: Vec<PathBuf> = Vec::new();
        match std::env::var_os("EXAMPLE_FONT") {
            // Set but empty: plots without text.
            Some(p) if p.is_empty() => return false,
            Some(p) => candidates.push(p.into()),
            None => {}
        }
        for p in [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
            "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
            "/System/Library/Fonts/Supplemental/Arial.ttf",
            "/Library/Fonts/Arial.ttf",
            "C:\\Windows\\Fonts\\arial.ttf",
        ] {
            candidates.push(p.into());
        }
        for path in candidates {
            if let Ok(bytes) = std::fs::read(&path) {
                // plotters keeps the font for the rest of the program.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        eprintln!(
            "note: no TrueType font found (set EXAMPLE_FONT to a .ttf file); \
             the plots will have no text"
        );
        false
    })
}

/// Draws `values` (one per step, all positive) against the step, on a logarithmic axis, into a
/// PNG at `path`. (The axis is `log10` of the values, labelled with the values: plotters' own
/// logarithmic axis leaves the lower decades of a long descent unlabelled.)
pub fn loss_curve(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    values: &[f64],
) -> Result<(), Box<dyn std::error::Error>> {
    let text = font_available();
    let root = BitMapBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let logs: Vec<f64> = values.iter().map(|v| v.log10()).collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min).floor();
    let hi = logs
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .ceil();
    let mut builder = ChartBuilder::on(&root);
    builder.margin(15);
    if text {
        builder
            .caption(title, ("sans-serif", 24))
            .x_label_area_size(40)
            .y_label_area_size(70);
    }
    let mut chart = builder.build_cartesian_2d(0..values.len(), lo..hi.max(lo + 1.0))?;
    // Without a font, no grid either: plotters lays the grid out from the labels (and loops
    // forever on an axis asked for zero labels).
    if text {
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .y_label_formatter(&|v| format!("{:.0e}", 10f64.powf(*v)))
            .draw()?;
    }
    chart.draw_series(LineSeries::new(
        logs.iter().enumerate().map(|(i, &v)| (i, v)),
        BLUE.stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}

/// Gradient descent with momentum (heavy ball) on `theta`, from `lr`, the step halved (and the
/// momentum dropped) whenever the loss grows, with a progress bar and a line every 250
/// iterations naming `theta[0]` as `first`. `loss_grad` gives the loss and its gradient at a
/// point. Returns the losses, one per iteration.
pub fn heavy_ball(
    theta: &mut [f64],
    iterations: usize,
    mut lr: f64,
    first: &str,
    mut loss_grad: impl FnMut(&[f64]) -> (f64, Vec<f64>),
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    use indicatif::{ProgressBar, ProgressStyle};
    let momentum = 0.9;
    let mut velocity = vec![0.0; theta.len()];
    let mut losses = Vec::with_capacity(iterations);
    let mut previous = f64::INFINITY;
    let bar = ProgressBar::new(iterations as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40.cyan/blue} {pos:>5}/{len} [{elapsed_precise}] {msg}",
        )?
        .progress_chars("##-"),
    );
    for it in 0..iterations {
        let (loss, grad) = loss_grad(theta);
        losses.push(loss);
        if loss > previous {
            lr *= 0.5;
            velocity.fill(0.0);
        }
        previous = loss;
        for ((t, v), g) in theta.iter_mut().zip(&mut velocity).zip(&grad) {
            *v = momentum * *v - lr * g;
            *t += *v;
        }
        if it % 50 == 0 {
            bar.set_message(format!("misfit {loss:.3e}, {first} {:.5}", theta[0]));
        }
        if it % 250 == 0 {
            bar.suspend(|| {
                println!(
                    "iteration {it:>5}: misfit {loss:.3e}, {first} = {:.6}",
                    theta[0]
                )
            });
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(losses)
}

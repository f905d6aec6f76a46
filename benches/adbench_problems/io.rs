//! Readers for ADBench's files: takes an input file (GMM, BA, LSTM) or an expected output
//! (`_F_`/`_J_` files of the Manual module), gives the numbers in the layout the objectives take.
//!
//! Every file is read as whitespace-separated tokens, as ADBench's C++ reader (`fscanf`) does:
//! line structure is ignored, and the words of the BA `_F_` files (`Reprojection error:`) are
//! skipped.

use std::path::Path;

/// All tokens of a file that parse as numbers, in order (words are skipped).
pub fn read_numbers(path: &Path) -> Vec<f64> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.split_whitespace()
        .filter_map(|t| t.parse::<f64>().ok())
        .collect()
}

/// A cursor over a file's numbers that names the file when it runs short.
struct Tokens {
    what: String,
    numbers: Vec<f64>,
    at: usize,
}

impl Tokens {
    fn new(path: &Path) -> Self {
        Tokens {
            numbers: read_numbers(path),
            what: path.display().to_string(),
            at: 0,
        }
    }

    fn next(&mut self) -> f64 {
        let v = *self
            .numbers
            .get(self.at)
            .unwrap_or_else(|| panic!("{}: ends after {} numbers", self.what, self.at));
        self.at += 1;
        v
    }

    fn count(&mut self) -> usize {
        let v = self.next();
        assert!(
            v >= 0.0 && v.fract() == 0.0,
            "{}: expected a count at number {}, found {v}",
            self.what,
            self.at
        );
        v as usize
    }

    fn take(&mut self, len: usize) -> Vec<f64> {
        (0..len).map(|_| self.next()).collect()
    }

    fn array<const N: usize>(&mut self) -> [f64; N] {
        std::array::from_fn(|_| self.next())
    }

    fn finish(&self) {
        assert_eq!(
            self.at,
            self.numbers.len(),
            "{}: {} numbers left over",
            self.what,
            self.numbers.len() - self.at
        );
    }
}

// ---------------------------------------------------------------------------------------------
// GMM
// ---------------------------------------------------------------------------------------------

/// A GMM instance: `d` dimensions, `k` components, `n` points; flat row-major arrays.
#[derive(Clone, Debug)]
pub struct GmmInput {
    pub d: usize,
    pub k: usize,
    pub n: usize,
    /// `k` mixture weights (before the softmax).
    pub alphas: Vec<f64>,
    /// `k * d` means, component `c` at `c * d ..`.
    pub means: Vec<f64>,
    /// `k * d (d + 1) / 2` inverse-covariance factors: per component `d` log-diagonal entries,
    /// then the strictly lower part column by column.
    pub icf: Vec<f64>,
    /// `n * d` points.
    pub x: Vec<f64>,
    /// Wishart prior parameters.
    pub gamma: f64,
    pub m: usize,
}

impl GmmInput {
    /// Entries of the inverse-covariance factor of one component.
    pub fn icf_len(&self) -> usize {
        self.d * (self.d + 1) / 2
    }

    /// Length of the gradient: alphas, means, icf.
    pub fn params(&self) -> usize {
        self.alphas.len() + self.means.len() + self.icf.len()
    }
}

/// Reads `gmm_d{D}_K{K}.txt`. With `replicate`, the file holds one point that stands for all `n`
/// (ADBench's `-rep` mode for the 2.5M files).
pub fn read_gmm(path: &Path, replicate: bool) -> GmmInput {
    let mut t = Tokens::new(path);
    let (d, k, n) = (t.count(), t.count(), t.count());
    let alphas = t.take(k);
    let means = t.take(k * d);
    let icf = t.take(k * d * (d + 1) / 2);
    let x = if replicate {
        let point = t.take(d);
        (0..n).flat_map(|_| point.iter().copied()).collect()
    } else {
        t.take(n * d)
    };
    let gamma = t.next();
    let m = t.count();
    t.finish();
    GmmInput {
        d,
        k,
        n,
        alphas,
        means,
        icf,
        x,
        gamma,
        m,
    }
}

// ---------------------------------------------------------------------------------------------
// Bundle adjustment
// ---------------------------------------------------------------------------------------------

/// A BA instance, expanded as ADBench's reader does: observation `i` links camera `i mod n` with
/// point `i mod m`.
#[derive(Clone, Debug)]
pub struct BaInput {
    /// `[r(3), C(3), f, x0(2), kappa(2)]` per camera.
    pub cams: Vec<[f64; 11]>,
    pub points: Vec<[f64; 3]>,
    /// One weight per observation.
    pub weights: Vec<f64>,
    /// One measured image point per observation.
    pub feats: Vec<[f64; 2]>,
    /// `(camera, point)` of each observation.
    pub obs: Vec<(usize, usize)>,
}

impl BaInput {
    pub fn n(&self) -> usize {
        self.cams.len()
    }
    pub fn m(&self) -> usize {
        self.points.len()
    }
    pub fn p(&self) -> usize {
        self.obs.len()
    }
}

/// Reads `ba*.txt` (one camera, point, weight and feature, replicated).
pub fn read_ba(path: &Path) -> BaInput {
    let mut t = Tokens::new(path);
    let (n, m, p) = (t.count(), t.count(), t.count());
    let cam: [f64; 11] = t.array();
    let point: [f64; 3] = t.array();
    let w = t.next();
    let feat: [f64; 2] = t.array();
    t.finish();
    BaInput {
        cams: vec![cam; n],
        points: vec![point; m],
        weights: vec![w; p],
        feats: vec![feat; p],
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    }
}

/// An expected BA `_F_` file: the reprojection errors (x, y per observation), then the weight
/// errors.
pub fn read_ba_expected_f(path: &Path, p: usize) -> (Vec<f64>, Vec<f64>) {
    let mut t = Tokens::new(path);
    let reproj = t.take(2 * p);
    let weight = t.take(p);
    t.finish();
    (reproj, weight)
}

/// A sparse matrix in compressed rows, as ADBench's BA `_J_` files store it.
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    pub nrows: usize,
    pub ncols: usize,
    /// `nrows + 1` offsets into `cols` and `vals`.
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    pub vals: Vec<f64>,
}

/// Reads a BA `_J_` file: `nrows ncols`, `len(rows)`, rows, `len(cols)`, cols, vals.
pub fn read_csr(path: &Path) -> Csr {
    let mut t = Tokens::new(path);
    let (nrows, ncols) = (t.count(), t.count());
    let nr = t.count();
    assert_eq!(nr, nrows + 1, "{}: row pointer length", path.display());
    let rows: Vec<usize> = (0..nr).map(|_| t.count()).collect();
    let nnz = t.count();
    let cols: Vec<usize> = (0..nnz).map(|_| t.count()).collect();
    let vals = t.take(nnz);
    t.finish();
    Csr {
        nrows,
        ncols,
        rows,
        cols,
        vals,
    }
}

// ---------------------------------------------------------------------------------------------
// Expected scalar and vector outputs
// ---------------------------------------------------------------------------------------------

/// An expected `_F_` file holding one number.
pub fn read_scalar(path: &Path) -> f64 {
    let v = read_numbers(path);
    assert_eq!(v.len(), 1, "{}: one number expected", path.display());
    v[0]
}

// ---------------------------------------------------------------------------------------------
// LSTM
// ---------------------------------------------------------------------------------------------

/// An LSTM instance: `l` layers, a sequence of `c` characters of `b` bits each.
#[derive(Clone, Debug)]
pub struct LstmInput {
    pub l: usize,
    pub c: usize,
    pub b: usize,
    /// `8 b l`: per layer the weights then the biases, each four `b`-vectors (forget, input,
    /// output, candidate).
    pub main_params: Vec<f64>,
    /// `3 b`: input weights, output weights, output biases.
    pub extra_params: Vec<f64>,
    /// `2 b l`: per layer the hidden state then the cell state.
    pub state: Vec<f64>,
    /// `c b` bits.
    pub sequence: Vec<f64>,
}

impl LstmInput {
    /// Length of the gradient: main then extra parameters.
    pub fn params(&self) -> usize {
        self.main_params.len() + self.extra_params.len()
    }
}

/// Reads `lstm_l{l}_c{c}.txt`.
pub fn read_lstm(path: &Path) -> LstmInput {
    let mut t = Tokens::new(path);
    let (l, c, b) = (t.count(), t.count(), t.count());
    let main_params = t.take(8 * b * l);
    let extra_params = t.take(3 * b);
    let state = t.take(2 * b * l);
    let sequence = t.take(c * b);
    t.finish();
    LstmInput {
        l,
        c,
        b,
        main_params,
        extra_params,
        state,
        sequence,
    }
}

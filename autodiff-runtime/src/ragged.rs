//! Ragged sequences (`&[Vec<T>]`, `Vec<Vec<T>>`): takes the rows a generated public companion
//! receives, gives the flat row-major storage and the row offsets the inner companions work on
//! (`m[i][j]` is `flat[off[i] + j]`, row `i` is `flat[off[i]..off[i + 1]]`), and writes flat
//! storage back into rows. Tangents and adjoint buffers are checked to have the argument's row
//! lengths: a mismatch panics with a message naming both, never reads out of bounds.

/// The row offsets of `m`: `rows + 1` of them, `off[0] = 0`, `off[i + 1] - off[i]` the length
/// of row `i`.
pub fn offsets<T>(m: &[Vec<T>]) -> Vec<usize> {
    let mut off = Vec::with_capacity(m.len() + 1);
    let mut at = 0;
    off.push(at);
    for row in m {
        at += row.len();
        off.push(at);
    }
    off
}

/// The row offsets of `rows` rows of `cols` elements each (a local `vec![vec![x; cols]; rows]`
/// kept flat): `0, cols, 2 cols, .., rows cols`.
pub fn rect_offsets(rows: usize, cols: usize) -> Vec<usize> {
    (0..=rows).map(|i| i * cols).collect()
}

/// The rows of `m`, one after another.
pub fn flatten<T: Copy>(m: &[Vec<T>]) -> Vec<T> {
    let mut flat = Vec::with_capacity(m.iter().map(Vec::len).sum());
    for row in m {
        flat.extend_from_slice(row);
    }
    flat
}

/// The rows of `d`, a tangent or adjoint buffer named `what` of an argument named `of` whose
/// row offsets are `off`, one after another; panics unless `d` has the argument's row lengths.
#[track_caller]
pub fn flatten_like<T: Copy>(d: &[Vec<T>], off: &[usize], what: &str, of: &str) -> Vec<T> {
    check_rows(d, off, what, of);
    flatten(d)
}

/// Writes flat row-major storage back into the rows of `m` (which have the lengths `flat` was
/// made from).
#[track_caller]
pub fn write_back<T: Copy>(m: &mut [Vec<T>], flat: &[T]) {
    let mut at = 0;
    for row in m.iter_mut() {
        let n = row.len();
        row.copy_from_slice(&flat[at..at + n]);
        at += n;
    }
    assert_eq!(
        at,
        flat.len(),
        "#[differentiate]: ragged rows written back (a bug in the macro, please report it)"
    );
}

/// Writes the row offsets `off` of a function's output into `rows` (the inner companions of a
/// function giving `Vec<Vec<T>>` give its rows this way).
pub fn set_rows(rows: &mut Vec<usize>, off: &[usize]) {
    rows.clear();
    rows.extend_from_slice(off);
}

/// The rows of `flat` that the offsets `off` describe.
pub fn unflatten<T: Copy>(flat: &[T], off: &[usize]) -> Vec<Vec<T>> {
    off.windows(2).map(|w| flat[w[0]..w[1]].to_vec()).collect()
}

/// Panics unless the seed of a function giving `Vec<Vec<T>>` has the output's row lengths
/// (`off`); an empty seed (no rows) stands for zero.
#[track_caller]
pub fn check_seed<T>(seed: &[Vec<T>], off: &[usize]) {
    if !seed.is_empty() {
        check_rows(seed, off, "seed", "the output");
    }
}

/// Panics unless `d` has the row lengths `off` describes.
#[track_caller]
fn check_rows<T>(d: &[Vec<T>], off: &[usize], what: &str, of: &str) {
    let rows = off.len().saturating_sub(1);
    if d.len() != rows {
        panic!(
            "#[differentiate]: `{what}` has {} rows but `{of}` has {rows}: a tangent or adjoint \
             buffer must have the shape of its argument",
            d.len()
        );
    }
    for (i, row) in d.iter().enumerate() {
        let n = off[i + 1] - off[i];
        if row.len() != n {
            panic!(
                "#[differentiate]: row {i} of `{what}` has length {} but row {i} of `{of}` has \
                 length {n}: a tangent or adjoint buffer must have the shape of its argument",
                row.len()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattens_and_writes_back_rows_of_any_length() {
        let m = vec![vec![1.0, 2.0], vec![], vec![3.0, 4.0, 5.0]];
        let off = offsets(&m);
        assert_eq!(off, vec![0, 2, 2, 5]);
        let flat = flatten(&m);
        assert_eq!(flat, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
        let mut d = vec![vec![0.0; 2], vec![], vec![0.0; 3]];
        write_back(&mut d, &flat);
        assert_eq!(d, m);
        assert_eq!(flatten_like(&d, &off, "dm", "m"), flat);
        assert_eq!(offsets::<f64>(&[]), vec![0]);
    }

    #[test]
    #[should_panic(expected = "row 2 of `dm` has length 2 but row 2 of `m` has length 3")]
    fn a_buffer_with_other_row_lengths_panics() {
        let off = offsets(&[vec![1.0, 2.0], vec![], vec![3.0, 4.0, 5.0]]);
        let d = vec![vec![0.0; 2], vec![], vec![0.0; 2]];
        flatten_like(&d, &off, "dm", "m");
    }

    #[test]
    #[should_panic(expected = "`dm` has 2 rows but `m` has 3")]
    fn a_buffer_with_another_number_of_rows_panics() {
        let off = offsets(&[vec![1.0], vec![2.0], vec![3.0]]);
        flatten_like(&[vec![0.0], vec![0.0]], &off, "dm", "m");
    }
}

//! An argument taken by `&mut` that holds no floats: `tally: &mut Vec<usize>` (programs only,
//! not helpers), changed by its methods (`push`, `sort`, `reverse`, `rotate_left`, `swap`)
//! between reads of its elements inside float expressions (`tally[k % tally.len()] as f64`).
//! Each call starts from a fresh `vec![3, 1, 4]`; a method left out, run twice, or a read
//! taken after a later change shows in the values and derivatives the harness compares.

use super::*;

impl FnGen<'_> {
    /// Adds the parameter `tally` to about one program in seven (programs only), chosen by a
    /// hash of the seed and the program's number, not drawn: other programs are unchanged.
    pub(super) fn tally_param(&mut self, k: u64, params: &mut Vec<Param>) {
        let mut x = self.cfg.seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03);
        x ^= x >> 31;
        x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^= x >> 29;
        if self.is_helper || !self.on(Construct::TallyParam) || x % 7 != 3 {
            return;
        }
        self.count(Construct::TallyParam);
        // Last: a method's receiver stays first.
        params.push(Param::Tally("tally".into()));
        self.tally = true;
    }

    /// `(tally[k % tally.len()] as f64)`: an element, at most 4.
    pub(super) fn tally_read(&mut self) -> Ex {
        self.count(Construct::TallyRead);
        let k = match self.index_vars().as_slice() {
            [] => self.rng.gen_range(0..5).to_string(),
            vs => {
                let v = self.pick(vs);
                self.vars[v].name.clone()
            }
        };
        Ex::atom(format!("(tally[{k} % tally.len()] as f64)"), 4.0)
    }

    /// A method changing `tally`.
    pub(super) fn s_tally(&mut self) {
        self.count(Construct::TallyMethod);
        let line = match self.rng.gen_range(0..5) {
            0 => {
                let k = match self.index_vars().as_slice() {
                    [] => self.rng.gen_range(0..5).to_string(),
                    vs => {
                        let v = self.pick(vs);
                        format!("({} % 5)", self.vars[v].name)
                    }
                };
                format!("tally.push({k});")
            }
            1 => "tally.sort();".to_string(),
            2 => "tally.reverse();".to_string(),
            3 => "tally.rotate_left(1);".to_string(),
            _ => "tally.swap(0, 2);".to_string(),
        };
        self.line(line);
    }
}

//! The primitive table (`autodiff-macros/src/primitives.rs`) against the rules: takes every rule
//! with what its table entry says each partial reads, gives checks, by evaluating the rule at
//! many points, that the entry is exact:
//!
//! - a partial does not change when the values it is declared not to read change, in particular
//!   when they are all replaced by zeros, which is what the reverse sweep passes for them (so a
//!   linear or zero tag on a rule that reads values fails here instead of giving a wrong
//!   gradient);
//! - a partial declared zero is zero;
//! - every value a partial is declared to read changes it somewhere (or the reverse sweep keeps
//!   values it does not need);
//! - every rule in `rules.rs` has a table entry.
//!
//! That each entry's rule exists with the right arguments is checked at build time
//! (`__primitive_table!(check_rules)` in `rules.rs`).

/// One rule, as `__primitive_table!(test_table)` describes it.
struct Primitive {
    name: &'static str,
    /// The rule's arguments: operands, then outputs.
    args: &'static [Arg],
    /// In the order the rule returns them.
    partials: &'static [Partial],
    /// The rule at these arguments (an `i32` argument passed as an `f64`).
    eval: fn(&[f64]) -> Vec<f64>,
}

struct Arg {
    name: &'static str,
    int: bool,
}

enum Partial {
    Zero,
    Reads(&'static [&'static str]),
}

fn table() -> Vec<Primitive> {
    autodiff_macros::__primitive_table!(test_table)
}

/// Points per rule.
const POINTS: usize = 4000;

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Special values a quarter of the time (zeros, ±1, integers, tiny, huge, infinite, NaN),
    /// otherwise a random sign and magnitude between 1e-3 and 1e3.
    fn float(&mut self) -> f64 {
        const SPECIAL: [f64; 20] = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            0.5,
            -0.5,
            3.0,
            -3.0,
            1e-300,
            -1e-300,
            5e-324,
            1e300,
            -1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1.0 + f64::EPSILON,
        ];
        if self.below(4) == 0 {
            SPECIAL[self.below(SPECIAL.len())]
        } else {
            let sign = if self.below(2) == 0 { 1.0 } else { -1.0 };
            sign * 10f64.powf(6.0 * self.unit() - 3.0)
        }
    }

    fn int(&mut self) -> f64 {
        const SPECIAL: [i32; 6] = [0, 1, -1, 2, i32::MIN, i32::MAX];
        if self.below(4) == 0 {
            SPECIAL[self.below(SPECIAL.len())] as f64
        } else {
            self.below(21) as f64 - 10.0
        }
    }

    fn arg(&mut self, a: &Arg) -> f64 {
        if a.int {
            self.int()
        } else {
            self.float()
        }
    }
}

/// The same `f64`, NaNs of any payload included (signed zeros differ).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn reads(p: &Primitive, k: usize) -> Vec<bool> {
    match &p.partials[k] {
        Partial::Zero => vec![false; p.args.len()],
        Partial::Reads(r) => p.args.iter().map(|a| r.contains(&a.name)).collect(),
    }
}

fn point(p: &Primitive, rng: &mut Rng) -> Vec<f64> {
    p.args.iter().map(|a| rng.arg(a)).collect()
}

#[test]
fn table_is_not_empty() {
    let t = table();
    assert!(t.iter().any(|p| p.name == "sin"));
    assert!(t.iter().any(|p| p.name == "mul"));
}

#[test]
fn partials_do_not_read_values_their_entry_says_they_do_not_read() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for p in table() {
        for _ in 0..POINTS {
            let v = point(&p, &mut rng);
            let got = (p.eval)(&v);
            for (k, (partial, &value)) in p.partials.iter().zip(&got).enumerate() {
                let r = reads(&p, k);
                if let Partial::Zero = partial {
                    assert!(
                        value == 0.0,
                        "rules::{}: partial {k} is declared zero but is {value} at {v:?}",
                        p.name
                    );
                }
                // What the reverse sweep passes: zeros for every value not read.
                let zeroed: Vec<f64> = v
                    .iter()
                    .zip(&r)
                    .map(|(&x, &read)| if read { x } else { 0.0 })
                    .collect();
                let z = (p.eval)(&zeroed)[k];
                assert!(
                    same(z, value),
                    "rules::{}: partial {k} is {value} at {v:?} but {z} with the values it is \
                     declared not to read set to zero ({zeroed:?}): fix its entry in \
                     autodiff-macros/src/primitives.rs",
                    p.name
                );
                // Each value not read, changed alone.
                for (j, a) in p.args.iter().enumerate() {
                    if r[j] {
                        continue;
                    }
                    let mut w = v.clone();
                    w[j] = rng.arg(a);
                    let changed = (p.eval)(&w)[k];
                    assert!(
                        same(changed, value),
                        "rules::{}: partial {k} reads `{}`, which its entry in \
                         autodiff-macros/src/primitives.rs says it does not read: {value} at \
                         {v:?}, {changed} at {w:?}",
                        p.name,
                        a.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_value_a_partial_is_declared_to_read_changes_it_somewhere() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for p in table() {
        for k in 0..p.partials.len() {
            let r = reads(&p, k);
            for (j, a) in p.args.iter().enumerate() {
                if !r[j] {
                    continue;
                }
                let found = (0..POINTS).any(|_| {
                    let v = point(&p, &mut rng);
                    let mut w = v.clone();
                    w[j] = rng.arg(a);
                    !same((p.eval)(&v)[k], (p.eval)(&w)[k])
                });
                assert!(
                    found,
                    "rules::{}: partial {k} is declared to read `{}` but does not depend on it \
                     at any sampled point: drop it from the entry in \
                     autodiff-macros/src/primitives.rs (the reverse sweep would keep a value \
                     it does not need)",
                    p.name, a.name
                );
            }
        }
    }
}

#[test]
fn every_rule_has_a_table_entry() {
    let names: Vec<&str> = table().iter().map(|p| p.name).collect();
    let source = include_str!("../src/rules.rs");
    let mut rules = 0;
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("pub fn ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        assert!(
            names.contains(&name.as_str()),
            "rules::{name} has no entry in autodiff-macros/src/primitives.rs: the macro does not \
             know it exists"
        );
        rules += 1;
    }
    assert_eq!(rules, names.len(), "rules.rs has a rule per table entry");
}

//! `ream-bench calibrate`: what a second busy core costs on this machine.
//!
//! Three fixed workloads run alone, then as N copies at once on N threads
//! (default: every core), `--rounds` times each: a shift-xor-multiply
//! loop that touches no memory, `copy_from_slice` between two 64 MiB buffers (memory
//! bandwidth), and faulting in fresh 4 KiB pages (the kernel's page-fault
//! path). Where the second and third slow down when run at once, a read
//! that mostly inflates and writes memory cannot scale linearly with
//! threads either, however well its work is split; BENCHMARKS.md uses
//! this to read the two-thread ratios of the XLSX suite.

use anyhow::Result;
use std::hint::black_box;
use std::time::Instant;

/// Arguments of `ream-bench calibrate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Rounds of (alone, at once) per workload.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Copies run at once (0 = one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// One workload: a name and the work, returning a value to keep alive.
type Work = (&'static str, fn() -> u64);

const WORKS: [Work; 3] = [
    ("shift-xor-multiply loop, 300 M steps (no memory)", compute),
    ("copy between two 64 MiB buffers, 40 times", copy),
    ("fault in 1 GiB of fresh 4 KiB pages (4 x 256 MiB)", faults),
];

fn compute() -> u64 {
    // Shift-xor-multiply steps: a dependent chain the compiler cannot
    // fold (an affine step such as an LCG's can be).
    let mut x = black_box(1u64);
    for _ in 0..300_000_000u64 {
        x = (x ^ (x >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    }
    x
}

fn copy() -> u64 {
    let n = 64 << 20;
    let (mut a, mut b) = (vec![1u8; n], vec![2u8; n]);
    for i in 0..40 {
        if i % 2 == 0 {
            a.copy_from_slice(&b);
        } else {
            b.copy_from_slice(&a);
        }
    }
    u64::from(black_box(a.get(n / 2).copied().unwrap_or(0)))
}

fn faults() -> u64 {
    let mut sum = 0u64;
    for _ in 0..4 {
        // Zeroed allocations this size are fresh mappings: every page is
        // faulted in by the first write below.
        let mut v = vec![0u8; 256 << 20];
        for page in v.chunks_mut(4096) {
            if let Some(b) = page.first_mut() {
                *b = 1;
            }
        }
        sum += u64::from(black_box(v.get(4096).copied().unwrap_or(0)));
    }
    sum
}

/// Seconds each of `n` copies of `work` took, run at once.
fn at_once(work: fn() -> u64, n: usize) -> Vec<f64> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(move || {
                    let t = Instant::now();
                    black_box(work());
                    t.elapsed().as_secs_f64()
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

fn span(v: &[f64]) -> String {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(0.0, f64::max);
    format!("{lo:.3}-{hi:.3}")
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Runs the calibration and prints a Markdown table.
pub fn run(a: &Args) -> Result<()> {
    let n = if a.threads == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        a.threads
    };
    println!("| work | alone s | {n} at once s (each) | at once / alone (means) |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, work) in WORKS {
        let (mut alone, mut both) = (Vec::new(), Vec::new());
        for _ in 0..a.rounds.max(1) {
            alone.extend(at_once(work, 1));
            both.extend(at_once(work, n));
        }
        println!(
            "| {name} | {} | {} | {:.2} |",
            span(&alone),
            span(&both),
            mean(&both) / mean(&alone)
        );
    }
    Ok(())
}

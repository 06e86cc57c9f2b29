//! Micro-benchmark: cost of the counting allocator, off vs on.
//!
//! `cargo run --release -p ream-alloc --example overhead [N]` times `N`
//! (default 10,000,000) small `Box<u64>` allocate+free pairs with counting
//! off, then on, and prints nanoseconds per allocation. Timings are
//! informative only.

use std::hint::black_box;
use std::time::Instant;

use ream_alloc::CountingAlloc;

#[global_allocator]
static A: CountingAlloc = CountingAlloc;

fn run(n: u64) -> f64 {
    let t = Instant::now();
    for i in 0..n {
        let b = Box::new(black_box(i));
        black_box(&b);
        drop(b);
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000_000);

    // Warm up the allocator and the thread's slot.
    ream_alloc::enable();
    run(n / 10 + 1);
    ream_alloc::disable();

    let off = run(n);
    ream_alloc::enable();
    let before = ream_alloc::snapshot();
    let on = run(n);
    let d = ream_alloc::snapshot().since(&before);
    ream_alloc::disable();
    let off2 = run(n);

    println!("allocations per run: {n}");
    println!("counting off: {off:.2} ns/alloc (again: {off2:.2})");
    println!("counting on:  {on:.2} ns/alloc");
    println!(
        "counted: allocs={} le32={} frees={} live_bytes={}",
        d.allocs, d.allocs_le32, d.frees, d.live_bytes
    );
    if let Some(cpu) = ream_alloc::cpu_time() {
        println!("process cpu time: {:.3} s", cpu.as_secs_f64());
    }
}

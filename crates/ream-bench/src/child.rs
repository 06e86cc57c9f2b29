//! Running one measurement in a fresh child process (so peak RSS is that
//! measurement's own): spawn `ream-bench ARGS`, collect its output with a
//! time limit, and read the JSON line it prints last.

use anyhow::{Context, Result, bail};
use serde_json::Value;
use std::ffi::OsString;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs this executable with `args`, killing it after `timeout`. Returns the
/// last JSON line of its stdout when it has `"ok": true`; otherwise an error
/// with the child's `"error"` text or the tail of its stderr.
pub fn run_json(args: Vec<OsString>, timeout: Duration) -> Result<Value> {
    let exe = std::env::current_exe().context("locating own executable")?;
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("spawning measure child")?;
    let mut out_pipe = child.stdout.take().context("child stdout")?;
    let mut err_pipe = child.stderr.take().context("child stderr")?;
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out_pipe.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err_pipe.read_to_string(&mut s);
        s
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break Some(st);
        }
        if t0.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let Some(status) = status else {
        bail!("timed out after {:.0} s", timeout.as_secs_f64());
    };
    let parsed: Option<Value> = stdout
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .and_then(|l| serde_json::from_str(l).ok());
    match parsed {
        Some(v) if v.get("ok") == Some(&Value::Bool(true)) => Ok(v),
        Some(v) => bail!(
            "{}",
            v.get("error")
                .and_then(Value::as_str)
                .unwrap_or("engine failed")
        ),
        None => {
            let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
            bail!("child exited with {status}: {}", tail.join(" / "))
        }
    }
}

/// The child side: prints a measurement's JSON line (or `{"ok": false,
/// "error": ...}`) and returns the exit status, 0 when it succeeded.
pub fn print_result(result: Result<Value>) -> i32 {
    let line = match result {
        Ok(v) => v,
        Err(e) => serde_json::json!({"ok": false, "error": format!("{e:#}")}),
    };
    println!("{line}");
    i32::from(line.get("ok") != Some(&Value::Bool(true)))
}

//! Process isolation: each slot owns one long-lived worker process, fed
//! requests over its standard input; a wall-time limit kills it, a memory
//! limit is set before it starts, and a dead worker is replaced by a fresh
//! one on the slot's next job.

mod limits;

use crate::dispatch::Executor;
use crate::inputs::Job;
use crate::raw::{Analysis, DocFormat, Outcome};
use crate::worker::{Answer, Request, path_to_hex};
use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Bytes of a worker's standard error kept for crash messages.
const STDERR_TAIL: usize = 4096;
/// How long a worker may take to exit after its input is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// How to start and limit workers.
#[derive(Debug, Clone)]
pub(crate) struct IsolateConfig {
    /// Program and arguments.
    pub command: Vec<OsString>,
    /// Wall-time limit per job (`None`: wait forever).
    pub timeout: Option<Duration>,
    /// Data-size limit in bytes (0: none).
    pub max_mem: u64,
    /// Passed on in each request.
    pub test_engines: bool,
    /// Passed on in each request.
    pub text_key_cap: usize,
}

/// A slot's executor: runs jobs in its worker process.
pub(crate) struct Isolated<'a> {
    cfg: &'a IsolateConfig,
    worker: Option<Worker>,
}

impl<'a> Isolated<'a> {
    /// An executor that starts its worker on the first job.
    pub(crate) fn new(cfg: &'a IsolateConfig) -> Isolated<'a> {
        Isolated { cfg, worker: None }
    }
}

impl Executor for Isolated<'_> {
    fn run(&mut self, job: &Job, threads: usize) -> Analysis {
        let deadline = self.cfg.timeout.map(|t| Instant::now() + t);
        let mut w = match self.worker.take() {
            Some(w) => w,
            None => match Worker::spawn(self.cfg) {
                Ok(w) => w,
                Err(e) => {
                    let prog = self.cfg.command.first().cloned().unwrap_or_default();
                    return Analysis::failed(
                        DocFormat::Unknown,
                        Outcome::error(
                            "worker",
                            format!("cannot start the worker process {prog:?}: {e}"),
                        ),
                    );
                }
            },
        };
        let req = Request {
            path_hex: path_to_hex(&job.path),
            threads,
            test_engines: self.cfg.test_engines,
            text_key_cap: self.cfg.text_key_cap,
        };
        if w.send(&req).is_err() {
            // It died between jobs (or cannot read): say how.
            return Analysis::failed(DocFormat::Unknown, w.reap(self.cfg.max_mem));
        }
        let mut format = DocFormat::Unknown;
        loop {
            match w.recv(deadline) {
                Ok(line) => match serde_json::from_str::<Answer>(&line) {
                    Ok(Answer::Format(f)) => format = f,
                    Ok(Answer::Done(a)) => {
                        self.worker = Some(w);
                        return *a;
                    }
                    Err(e) => {
                        w.kill();
                        return Analysis::failed(
                            format,
                            Outcome::error(
                                "worker",
                                format!("unreadable answer from the worker ({e}); it was replaced"),
                            ),
                        );
                    }
                },
                Err(RecvTimeoutError::Timeout) => {
                    w.kill();
                    return Analysis::failed(format, Outcome::Timeout);
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Analysis::failed(format, w.reap(self.cfg.max_mem));
                }
            }
        }
    }

    fn shutdown(&mut self) {
        if let Some(w) = self.worker.take() {
            w.shutdown();
        }
    }
}

/// One running worker process and the threads draining its output.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    reader: Option<JoinHandle<()>>,
    stderr: Option<JoinHandle<Vec<u8>>>,
    waited: bool,
}

impl Worker {
    fn spawn(cfg: &IsolateConfig) -> std::io::Result<Worker> {
        let (prog, args) = cfg
            .command
            .split_first()
            .ok_or_else(|| std::io::Error::other("empty worker command"))?;
        let mut cmd = Command::new(prog);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        limits::limit_child(&mut cmd, cfg.max_mem);
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let (tx, lines) = crossbeam_channel::unbounded();
        // From here on a failure must not leave the child running.
        let mut w = Worker {
            child,
            stdin,
            lines,
            reader: None,
            stderr: None,
            waited: false,
        };
        if let Some(out) = stdout {
            w.reader = Some(
                std::thread::Builder::new()
                    .name("ream-batch-pipe".into())
                    .spawn(move || {
                        let mut r = BufReader::new(out);
                        loop {
                            let mut line = String::new();
                            match r.read_line(&mut line) {
                                Ok(0) | Err(_) => break,
                                Ok(_) => {
                                    if tx.send(line).is_err() {
                                        break;
                                    }
                                }
                            }
                        }
                    })?,
            );
        }
        if let Some(mut err) = stderr {
            w.stderr = Some(
                std::thread::Builder::new()
                    .name("ream-batch-stderr".into())
                    .spawn(move || {
                        let mut tail = Vec::new();
                        let mut buf = [0u8; 4096];
                        while let Ok(n) = err.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            tail.extend_from_slice(buf.get(..n).unwrap_or_default());
                            if tail.len() > 2 * STDERR_TAIL {
                                tail.drain(..tail.len() - STDERR_TAIL);
                            }
                        }
                        tail
                    })?,
            );
        }
        Ok(w)
    }

    fn send(&mut self, req: &Request) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(req).map_err(std::io::Error::from)?;
        line.push(b'\n');
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("worker input closed"))?;
        stdin.write_all(&line)?;
        stdin.flush()
    }

    fn recv(&self, deadline: Option<Instant>) -> Result<String, RecvTimeoutError> {
        match deadline {
            Some(d) => self
                .lines
                .recv_timeout(d.saturating_duration_since(Instant::now())),
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        }
    }

    /// Kills the worker and waits for it and its threads.
    fn kill(mut self) {
        let _ = self.child.kill();
        self.finish();
    }

    /// Waits for a worker that stopped answering and says why it died.
    fn reap(mut self, max_mem: u64) -> Outcome {
        self.stdin = None;
        let status = match wait_at_most(&mut self.child, EXIT_GRACE) {
            Some(s) => s,
            None => {
                let _ = self.child.kill();
                match self.child.wait() {
                    Ok(s) => s,
                    Err(e) => {
                        self.waited = true;
                        return Outcome::error("worker", format!("lost the worker: {e}"));
                    }
                }
            }
        };
        self.waited = true;
        let tail = self.finish();
        classify(status, &tail, max_mem)
    }

    /// Closes the worker's input and lets it exit (killed after a grace
    /// period).
    fn shutdown(mut self) {
        self.stdin = None;
        if wait_at_most(&mut self.child, EXIT_GRACE).is_none() {
            let _ = self.child.kill();
        }
        self.finish();
    }

    /// Reaps the child and joins the pipe threads; returns the end of its
    /// standard error.
    fn finish(&mut self) -> Vec<u8> {
        self.stdin = None;
        if !self.waited {
            let _ = self.child.wait();
            self.waited = true;
        }
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if !self.waited {
            let _ = self.child.kill();
            self.finish();
        }
    }
}

/// Polls `child` for up to `limit`.
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let end = Instant::now() + limit;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGABRT => "SIGABRT (abort)",
        libc::SIGSEGV => "SIGSEGV (invalid memory access)",
        libc::SIGBUS => "SIGBUS (bus error; a mapped file shrank?)",
        libc::SIGKILL => "SIGKILL (killed, e.g. by the kernel's OOM killer)",
        libc::SIGILL => "SIGILL (illegal instruction)",
        libc::SIGFPE => "SIGFPE (arithmetic fault)",
        libc::SIGTERM => "SIGTERM (terminated)",
        _ => "signal",
    }
}

/// The outcome of a worker that died mid-job, from its exit status and the
/// end of its standard error.
fn classify(status: ExitStatus, tail: &[u8], max_mem: u64) -> Outcome {
    let text = String::from_utf8_lossy(tail);
    let last = text
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let how = match status.signal() {
        Some(sig) => format!("signal {sig}"),
        None => format!("exit {}", status.code().unwrap_or(-1)),
    };
    if let Some(alloc) = text
        .lines()
        .rev()
        .find(|l| l.contains("memory allocation of"))
    {
        let limit = if max_mem > 0 {
            format!("memory limit {} MiB", max_mem >> 20)
        } else {
            "no memory limit set".to_string()
        };
        return Outcome::error(
            "out_of_memory",
            format!("{} ({limit}); the worker stopped with {how}", alloc.trim()),
        );
    }
    let message = match status.signal() {
        Some(sig) if last.is_empty() => signal_name(sig).to_string(),
        Some(sig) => format!("{}; its last words: {last}", signal_name(sig)),
        None if last.is_empty() => "the worker exited mid-job".to_string(),
        None => format!("the worker exited mid-job; its last words: {last}"),
    };
    Outcome::Crashed {
        cause: how,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_classes() {
        let abrt = ExitStatus::from_raw(libc::SIGABRT);
        match classify(abrt, b"boom\n\n", 0) {
            Outcome::Crashed { cause, message } => {
                assert_eq!(cause, "signal 6");
                assert!(
                    message.contains("SIGABRT") && message.contains("boom"),
                    "{message}"
                );
            }
            o => panic!("{o:?}"),
        }
        let oom = classify(
            abrt,
            b"memory allocation of 67108864 bytes failed\n",
            256 << 20,
        );
        match oom {
            Outcome::Error { kind, message } => {
                assert_eq!(kind, "out_of_memory");
                assert!(
                    message.contains("256 MiB") && message.contains("signal 6"),
                    "{message}"
                );
            }
            o => panic!("{o:?}"),
        }
        let exit3 = ExitStatus::from_raw(3 << 8);
        assert!(
            matches!(classify(exit3, b"", 0), Outcome::Crashed { cause, .. } if cause == "exit 3")
        );
    }

    #[test]
    fn missing_program_is_a_worker_error() {
        let cfg = IsolateConfig {
            command: vec!["/nonexistent/ream-worker".into()],
            timeout: Some(Duration::from_secs(1)),
            max_mem: 0,
            test_engines: false,
            text_key_cap: 10,
        };
        let job = Job {
            path: "x".into(),
            shown: "x".into(),
            size: 0,
            mtime_ns: 0,
        };
        let a = Isolated::new(&cfg).run(&job, 1);
        assert!(
            matches!(&a.outcome, Outcome::Error { kind, message } if kind == "worker" && message.contains("ream-worker")),
            "{a:?}"
        );
    }
}

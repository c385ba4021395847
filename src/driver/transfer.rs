//! `storebench transfer`: one file sent to a socket (or a file) by each method and buffer size, with
//! the sender's CPU per GiB against read-write's. `--serve` is the receiving end, outside the driver:
//! it receives until stopped and has no report.

use super::{Command, Concluded, Rank};
use crate::cli::transfer::TransferArgs;
use crate::error::Error;
use crate::export::manager::Outputs;
use crate::stats::cpu::CpuTimes;
use crate::stats::report::Params;
use crate::stats::transfer::{figures, relate_to_baseline, TransferParams, TransferRun, TransferSection};
use crate::workload::transfer::{self as t, Method, Source, CHUNK};
use crate::workload::Failure;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The command and what it learns on the way.
pub struct Transfer {
    args: TransferArgs,
    timeout: Duration,
    methods: Vec<Method>,
    buffers: Vec<u64>,
    /// The test file this run made (removed when the command ends, however it ends).
    made: Option<PathBuf>,
    src: Option<Source>,
    source_crc: Option<u32>,
    dest: Option<std::net::SocketAddr>,
    runs: Vec<TransferRun>,
    failure: Option<Failure>,
}

impl Drop for Transfer {
    fn drop(&mut self) {
        if let Some(p) = self.made.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// `--timeout`, checked (both ends take it).
fn timeout_of(args: &TransferArgs) -> Result<Duration, String> {
    if args.timeout == 0 || args.timeout > 86_400 {
        return Err(format!("invalid --timeout {}: expected 1 to 86400 seconds", args.timeout));
    }
    Ok(Duration::from_secs(args.timeout))
}

/// Runs `transfer` with these arguments (`--serve` is the receiving end, outside the driver): the
/// entry `app`'s command table points at.
pub fn run(args: TransferArgs) -> Result<(), Error> {
    if args.serve.is_some() {
        return serve(&args);
    }
    super::drive(Transfer::new(args))
}

/// `transfer --serve`: receives transfers on 127.0.0.1 (or `--bind`) until stopped or
/// `--max-connections` transfers are done.
pub fn serve(args: &TransferArgs) -> Result<(), Error> {
    let spec = args.serve.as_deref().unwrap_or_default();
    check_buffers(args).map_err(Error::Usage)?;
    let timeout = timeout_of(args).map_err(Error::Usage)?;
    if args.max_connections == Some(0) {
        return Err(Error::Usage("invalid --max-connections 0: expected 1 or more transfers".into()));
    }
    let addr = match (spec.rsplit_once(':'), &args.bind) {
        (Some(_), Some(_)) => {
            return Err(Error::Usage(format!("--serve {spec} names a host already: drop --bind, or give --serve PORT")))
        }
        (Some(_), None) => spec.to_string(),
        (None, bind) => format!("{}:{spec}", bind.as_deref().unwrap_or("127.0.0.1")),
    };
    let stop = crate::run::signal::stop_flag();
    let listener =
        std::net::TcpListener::bind(&addr).map_err(|e| Error::Run(format!("--serve: cannot listen on {addr}: {e}")))?;
    eprintln!("storebench: receiving on {}", listener.local_addr().map_or(addr.clone(), |a| a.to_string()));
    t::serve(listener, args.max_connections, timeout, &stop).map_err(|e| Error::Run(format!("--serve: {e}")))?;
    if stop.load(Ordering::Relaxed) {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

fn check_buffers(args: &TransferArgs) -> Result<(), String> {
    if let Some(&b) = args.buffer.iter().find(|&&b| b == 0 || b > crate::plan::MAX_BLOCK) {
        return Err(format!("invalid --buffer {b}: expected 1 byte to 1 GiB (e.g. 4k,64k,128k,1m)"));
    }
    if args.direct {
        if let Some(b) = args.buffer.iter().find(|&&b| b % 4096 != 0) {
            return Err(format!("invalid --buffer {b} with --direct: expected a multiple of 4096"));
        }
    }
    Ok(())
}

impl Transfer {
    /// The command for these arguments.
    pub fn new(args: TransferArgs) -> Self {
        Transfer {
            args,
            timeout: Duration::ZERO,
            methods: Vec::new(),
            buffers: Vec::new(),
            made: None,
            src: None,
            source_crc: None,
            dest: None,
            runs: Vec::new(),
            failure: None,
        }
    }

    /// Where the data goes, in words.
    fn to(&self) -> String {
        match (&self.args.to_file, self.dest) {
            (Some(p), _) => format!("file {}", p.display()),
            (None, Some(a)) if self.args.to.is_none() => format!("{a} (loopback receiver in this process)"),
            (None, Some(a)) => a.to_string(),
            _ => String::new(),
        }
    }

    /// One method and buffer, once; `Err` ends the whole run.
    fn one(&mut self, m: Method, b: u64, run: u32) -> Result<(), Failure> {
        let args = &self.args;
        let unsupported = |why: String| {
            let mut r = figures(m.name(), b, run, 0, 0.0, CpuTimes::default(), None);
            r.status = format!("unsupported: {why}");
            r
        };
        if args.to_file.is_none() && m == Method::CopyFileRange {
            self.runs.push(unsupported("copy_file_range copies between files only: use --to-file".into()));
            return Ok(());
        }
        if args.to_file.is_some() && (m == Method::IoUring || m == Method::Sendfile) {
            self.runs.push(unsupported(format!(
                "{} sends to sockets; --to-file compares read-write, copy-file-range, splice and mmap",
                m.name()
            )));
            return Ok(());
        }
        if args.direct && m != Method::ReadWrite {
            self.runs.push(unsupported("only read-write reads with --direct".into()));
            return Ok(());
        }
        let src = self.src.as_ref().expect("prepared");
        if args.drop_cache {
            // SAFETY: advisory call on an open descriptor.
            unsafe { libc::posix_fadvise(src.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
        match (&args.to_file, self.dest) {
            (Some(p), _) => {
                let out = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(p)
                    .map_err(|e| Failure::Failed(format!("--to-file {}: {e}", p.display())))?;
                let start = std::time::Instant::now();
                let (cpu0, wait0) = (CpuTimes::thread(), crate::run::thread_cpu_wait_s());
                let r = t::send(src, out.as_raw_fd(), m, b as usize, args.direct);
                let cpu = CpuTimes::thread().since(cpu0);
                let wait = crate::run::thread_cpu_wait_since(wait0);
                let wall = start.elapsed().as_secs_f64();
                drop(out);
                let crc = if args.verify { t::file_crc(p).ok() } else { None };
                let _ = std::fs::remove_file(p);
                match r {
                    Ok(Ok(n)) => {
                        let mut f = figures(m.name(), b, run, n, wall, cpu, None);
                        f.crc32 = crc;
                        f.sender_wait_s = wait;
                        if args.verify && (crc != self.source_crc || n != src.len) {
                            self.failure =
                                Some(Failure::Failed(format!("{}: the copy differs from {}", m.name(), src.path)));
                        }
                        self.runs.push(f);
                    }
                    Ok(Err(why)) => self.runs.push(unsupported(why)),
                    Err(e) => {
                        return Err(Failure::Failed(format!(
                            "{}: writing {} failed after {} bytes: {}",
                            m.name(),
                            p.display(),
                            e.sent,
                            e.error
                        )))
                    }
                }
            }
            (None, Some(a)) => match t::to_socket(src, a, m, b as usize, args.direct, args.verify, self.timeout) {
                Ok((Ok(n), wall, cpu, wait, receipt)) => {
                    let mut f = figures(m.name(), b, run, n, wall, cpu, receipt.map(|r| r.cpu));
                    f.sender_wait_s = wait;
                    if args.verify {
                        f.crc32 = receipt.map(|r| r.crc32);
                        if f.crc32 != self.source_crc {
                            self.failure = Some(Failure::Failed(format!(
                                "{}: the receiver's CRC32 differs from the file's",
                                m.name()
                            )));
                        }
                    }
                    self.runs.push(f);
                }
                Ok((Err(why), ..)) => self.runs.push(unsupported(why)),
                Err(e) => return Err(Failure::Failed(e)),
            },
            (None, None) => unreachable!("a destination is always chosen"),
        }
        Ok(())
    }
}

impl Command for Transfer {
    type Part = ();
    const NAME: &'static str = "transfer";

    fn outputs(&self) -> Outputs {
        Outputs {
            json: self.args.json.clone(),
            html: self.args.html.clone(),
            format: self.args.format,
            quiet: self.args.quiet,
            ..Default::default()
        }
    }

    fn distributed(&self) -> bool {
        false
    }

    fn plan(&mut self, _launch: super::Launch) -> Result<Vec<String>, String> {
        let args = &self.args;
        check_buffers(args)?;
        if args.runs == 0 {
            return Err("invalid --runs 0: expected 1 or more".into());
        }
        self.timeout = timeout_of(args)?;
        if args.file.is_none() && args.size == 0 {
            return Err("invalid --size 0: the test file needs at least 1 byte (e.g. 1g)".into());
        }
        if let Some(p) = &args.to_file {
            if std::fs::symlink_metadata(p).is_ok() {
                return Err(format!("--to-file {}: it exists; storebench will not replace it", p.display()));
            }
        }
        if let (None, Some(to)) = (&args.to_file, &args.to) {
            use std::net::ToSocketAddrs;
            match to.to_socket_addrs().map(|mut a| a.next()) {
                Ok(Some(a)) => self.dest = Some(a),
                _ => return Err(format!("invalid --to '{to}': expected HOST:PORT of a storebench transfer --serve")),
            }
        }
        let socket_methods = [Method::ReadWrite, Method::Sendfile, Method::Splice, Method::Mmap, Method::IoUring];
        let file_methods = [Method::ReadWrite, Method::CopyFileRange, Method::Splice, Method::Mmap];
        let all = if args.to_file.is_some() { &file_methods[..] } else { &socket_methods[..] };
        self.methods = if args.method.contains(&Method::All) {
            all.to_vec()
        } else {
            args.method.iter().copied().filter(|m| *m != Method::All).collect()
        };
        self.buffers = args.buffer.clone();
        self.buffers.sort_unstable();
        self.buffers.dedup();
        Ok(Vec::new())
    }

    fn prepare(&mut self, rank: &Rank) -> Result<(), Error> {
        // The source: the user's file, or one made here (and removed at the end).
        let path = match &self.args.file {
            Some(p) => p.clone(),
            None => {
                let p = t::make_test_file(self.args.size, &rank.stop).map_err(|e| {
                    if rank.stop.load(Ordering::Relaxed) {
                        Error::Interrupted
                    } else {
                        Error::Run(e)
                    }
                })?;
                self.made = Some(p.clone());
                p
            }
        };
        let src = Source::open(&path, self.args.direct).map_err(Error::Usage)?;
        self.source_crc = if self.args.verify { t::file_crc(&path).ok() } else { None };
        self.src = Some(src);
        if self.args.to_file.is_none() && self.args.to.is_none() {
            // A receiver thread on 127.0.0.1 for exactly the transfers this run makes.
            let attempts: u64 =
                self.methods.iter().map(|m| if m.uses_buffer() { self.buffers.len() as u64 } else { 1 }).sum::<u64>()
                    * self.args.runs as u64;
            let l = std::net::TcpListener::bind("127.0.0.1:0")
                .map_err(|e| Error::Run(format!("cannot listen on 127.0.0.1: {e}")))?;
            let a = l.local_addr().map_err(|e| Error::Run(e.to_string()))?;
            let never = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            let timeout = self.timeout;
            std::thread::spawn(move || t::serve(l, Some(attempts), timeout, &never));
            self.dest = Some(a);
        }
        Ok(())
    }

    fn run(&mut self, rank: &Rank) -> Result<(), Error> {
        'all: for run in 1..=self.args.runs {
            for m in self.methods.clone() {
                let sizes: Vec<u64> = if m.uses_buffer() { self.buffers.clone() } else { vec![CHUNK as u64] };
                for b in sizes {
                    if rank.stop.load(Ordering::Relaxed) {
                        self.failure = Some(Failure::Interrupted);
                        break 'all;
                    }
                    if let Err(f) = self.one(m, b, run) {
                        self.failure = Some(f);
                        break 'all;
                    }
                }
            }
        }
        Ok(())
    }

    fn conclude(&mut self, rank: &Rank, _: Vec<()>) -> Result<Concluded, Error> {
        if let Some(p) = self.made.take() {
            let _ = std::fs::remove_file(p);
        }
        let mut runs = std::mem::take(&mut self.runs);
        relate_to_baseline(&mut runs);
        let src = self.src.as_ref().expect("prepared");
        let to = self.to();
        let params = Params::Transfer(TransferParams {
            methods: self.methods.iter().map(|m| m.name().to_string()).collect(),
            buffers: self.buffers.clone(),
            runs: self.args.runs,
            direct: self.args.direct,
            verify: self.args.verify,
        });
        let engine = if self.args.to_file.is_some() { "file to file" } else { "file to TCP socket" };
        let failure = self.failure.take();
        let mut report = crate::workload::envelope(
            "transfer",
            &to,
            engine.into(),
            params,
            failure.as_ref(),
            rank.started_at.clone(),
        );
        report.section = Some(crate::stats::report::Section::Transfer(TransferSection {
            source: src.path.clone(),
            bytes: src.len,
            to,
            runs,
        }));
        Ok(Concluded { report, failure, cleanup_errors: Vec::new(), file_errors: Vec::new() })
    }
}

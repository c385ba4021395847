//! HDFS through `hdfs-native`, a pure-Rust client of the NameNode and DataNode protocols (no JVM, no
//! libhdfs).
//!
//! URLs: `hdfs://host:port/path`, `hdfs://nameservice/path` (HA, resolved from `dfs.nameservices`,
//! `dfs.ha.namenodes.*` and `dfs.namenode.rpc-address.*`) and `hdfs:///path` (the `fs.defaultFS`).
//! Configuration comes the Hadoop way: `-D`, `--xmlfile`, Doris' `--conf` file and `HADOOP_CONF_DIR`
//! (read by `plan::store_config`); `hadoop.username` or `HADOOP_USER_NAME` names the user.
//! `dfs.replication` and `dfs.blocksize` set what new files get (else the NameNode's defaults).
//!
//! Durability: hdfs-native has hsync but no hflush, so `--hflush` runs hsync (which also makes every
//! DataNode in the pipeline sync the block to disk: it costs more than Hadoop's hflush would), and
//! `--fsync-on-close` runs hsync inside the timed close().

mod error;
mod read;
#[cfg(test)]
mod tests;
mod write;
use error::*;
use read::*;
use write::*;

use super::*;
use crate::store::counters::counter_set;
use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use hdfs_native::{Client, ClientBuilder, HdfsError};
use std::time::Duration;
use tokio::runtime::Runtime;

/// Whom a stream talks to once its file is open: connection failures there are DataNode failures.
const DATANODE: &str = "a DataNode of the file's block pipeline";

/// Key prefixes the HDFS store hands to the client (and so never warns about).
const KEY_PREFIXES: &[&str] = &["dfs.", "hadoop.", "ipc.", "fs.defaultFS", "fs.viewfs.", "fs.hdfs."];

counter_set! {
    /// What the store asked of the NameNode and DataNodes, named as docs/metrics.md lists them.
    struct Counts {
        rpc_create = "namenode_create",
        rpc_append = "namenode_append",
        rpc_open = "namenode_open",
        rpc_stat = "namenode_stat",
        rpc_list = "namenode_list",
        rpc_rename = "namenode_rename",
        rpc_delete = "namenode_delete",
        rpc_mkdirs = "namenode_mkdirs",
        hsyncs = "hsync_calls",
        files_closed = "files_closed",
        bytes_written = "bytes_written",
        datanode_reads = "datanode_reads",
        bytes_read = "bytes_read",
        errors = "errors",
        blocks_written = "blocks_written",
    }
}

/// One HDFS namespace.
pub struct HdfsStore {
    client: Arc<Client>,
    rt: Arc<Runtime>,
    /// `hdfs://authority`, for reports and messages.
    root: String,
    /// Who is asked, for messages: "the NameNode at host:port" or "nameservice NS (host:port, ...)".
    namenode: String,
    /// The first NameNode's RPC address (host:port), for the link probe.
    first_address: Option<String>,
    replication: Option<u32>,
    block_size: Option<u64>,
    counts: Arc<Counts>,
    /// Worker threads of the runtime the client runs on.
    io_threads: usize,
}

/// Where the client connects, from the URL's authority and the configuration: a description for
/// messages and the NameNode addresses.
fn namenodes(authority: &str, config: &StoreConfig) -> (String, Vec<String>) {
    let services = config.get("dfs.nameservices").unwrap_or("");
    if services.split(',').any(|s| s.trim() == authority) {
        let nns = config.get(&format!("dfs.ha.namenodes.{authority}")).unwrap_or("");
        let mut shown = Vec::new();
        let mut addrs = Vec::new();
        for n in nns.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let a = config.get(&format!("dfs.namenode.rpc-address.{authority}.{n}")).unwrap_or("?");
            shown.push(format!("{n}={a}"));
            addrs.push(a.to_string());
        }
        (format!("nameservice {authority} ({})", shown.join(", ")), addrs)
    } else {
        let a = if authority.contains(':') { authority.to_string() } else { format!("{authority}:8020") };
        (format!("the NameNode at {a}"), vec![a])
    }
}

/// Whether any of `addrs` accepts a TCP connection within `timeout`; else why not.
fn reachable(addrs: &[String], timeout: Duration) -> Result<(), String> {
    use std::net::ToSocketAddrs;
    let mut why = Vec::new();
    for a in addrs {
        let resolved = match a.to_socket_addrs() {
            Ok(r) => r.collect::<Vec<_>>(),
            Err(e) => {
                why.push(format!("{a}: {e}"));
                continue;
            }
        };
        for sa in resolved {
            match std::net::TcpStream::connect_timeout(&sa, timeout) {
                Ok(_) => return Ok(()),
                Err(e) => why.push(format!("{a}: {e}")),
            }
        }
    }
    Err(why.join("; "))
}

fn u64_key(config: &StoreConfig, key: &str, default: u64) -> Result<u64, String> {
    match config.get(key) {
        None => Ok(default),
        Some(v) => v.trim().parse().map_err(|_| format!("invalid {key} '{v}': expected a whole number")),
    }
}

impl HdfsStore {
    /// A target for `hdfs://authority/path` (`rest` is what follows `://`).
    pub fn target(url: &str, rest: &str, config: &StoreConfig) -> Result<Target, String> {
        let shown = redact_url(url);
        let (mut authority, path) = match rest.find('/') {
            Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
            None => (rest.to_string(), "/".to_string()),
        };
        if authority.is_empty() {
            let Some(default_fs) = config.get("fs.defaultFS") else {
                return Err(format!(
                    "'{shown}' names no NameNode and fs.defaultFS is not set: write hdfs://host:port/path, or set \
                     fs.defaultFS with -D, --xmlfile core-site.xml or HADOOP_CONF_DIR"
                ));
            };
            match default_fs.strip_prefix("hdfs://") {
                Some(a) if !a.trim_end_matches('/').is_empty() => authority = a.trim_end_matches('/').to_string(),
                _ => {
                    return Err(format!(
                        "'{shown}' uses fs.defaultFS, which is '{default_fs}': expected hdfs://host:port or \
                         hdfs://nameservice"
                    ))
                }
            }
        }
        if authority.contains('@') {
            return Err(format!(
                "invalid URL '{shown}': HDFS URLs carry no user; set hadoop.username (-D) or HADOOP_USER_NAME"
            ));
        }
        let replication = match config.get("dfs.replication") {
            None => None,
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n) if n > 0 => Some(n),
                _ => return Err(format!("invalid dfs.replication '{v}': expected a count of 1 or more")),
            },
        };
        let block_size = match config.get("dfs.blocksize") {
            None => None,
            Some(v) => {
                let b = crate::units::parse_size(v).map_err(|e| format!("dfs.blocksize: {e}"))?;
                if b == 0 || b % 512 != 0 {
                    return Err(format!(
                        "invalid dfs.blocksize '{v}': expected a positive multiple of 512 bytes (e.g. 128m)"
                    ));
                }
                Some(b)
            }
        };
        let connect_timeout = Duration::from_millis(u64_key(config, "ipc.client.connect.timeout", 5_000)?);
        let retries = u64_key(config, "ipc.client.connect.max.retries", 2)?;
        let interval = Duration::from_millis(u64_key(config, "ipc.client.connect.retry.interval", 500)?);

        let (rt, io_threads) = super::asyncio::runtime(super::asyncio::io_threads(config)?)?;
        let pass: Vec<(String, String)> = config
            .keys()
            .filter(|k| KEY_PREFIXES.iter().any(|p| k.starts_with(p)))
            .filter_map(|k| config.get(k).map(|v| (k.to_string(), v.to_string())))
            .collect();
        let mut builder = ClientBuilder::new()
            .with_url(format!("hdfs://{authority}"))
            .with_config(pass)
            .with_io_runtime(rt.handle().clone());
        if let Some(user) = config.get("hadoop.username") {
            builder = builder.with_user(user);
        }
        let (namenode, addrs) = namenodes(&authority, config);
        let client = builder.build().map_err(|e| format!("cannot configure the HDFS client for '{shown}': {e}"))?;

        // Before the run: an unreachable NameNode is said once, clearly, after bounded retries (the
        // client's own failover loop would sleep and retry for minutes).
        let mut attempt = 0;
        while let Err(why) = reachable(&addrs, connect_timeout) {
            attempt += 1;
            if attempt > retries {
                return Err(format!(
                    "cannot reach {namenode}: {why} (tried {attempt} times, {} ms apart; \
                     ipc.client.connect.max.retries and ipc.client.connect.retry.interval change that)",
                    interval.as_millis()
                ));
            }
            std::thread::sleep(interval);
        }
        // Then one call, which also says whether it speaks HDFS and lets this user in.
        let probe = rt.block_on(async { tokio::time::timeout(connect_timeout * 4, client.get_file_info("/")).await });
        match probe {
            Ok(Ok(_)) | Ok(Err(HdfsError::FileNotFound(_))) => {}
            Ok(Err(e)) => return Err(format!("{shown}: {}", map_err("connect to", "/", &namenode, e))),
            Err(_) => {
                return Err(format!(
                    "{namenode} accepts connections but did not answer in {} ms: is it an HDFS NameNode's RPC port?",
                    (connect_timeout * 4).as_millis()
                ))
            }
        }

        let used: Vec<&str> = config
            .keys()
            .filter(|k| KEY_PREFIXES.iter().any(|p| k.starts_with(p)) || *k == crate::store::config::IO_THREADS_KEY)
            .collect();
        let store = HdfsStore {
            client: Arc::new(client),
            rt,
            root: format!("hdfs://{authority}"),
            namenode,
            first_address: addrs.first().cloned(),
            replication,
            block_size,
            counts: Arc::new(Counts::default()),
            io_threads,
        };
        Ok(Target { store: Arc::new(store), path, warnings: config.unused_definitions("hdfs://", &used) })
    }

    fn path(path: &str) -> String {
        if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        }
    }

    fn err(&self, op: &'static str, path: &str, e: HdfsError) -> StoreError {
        self.counts.errors.inc();
        map_err(op, &format!("{}{}", self.root, Self::path(path)), &self.namenode, e)
    }

    fn writer(&self, path: &str, writer: hdfs_native::file::FileWriter, opts: &WriteOptions) -> HdfsWrite {
        HdfsWrite {
            writer: Some(writer),
            client: self.client.clone(),
            rt: self.rt.clone(),
            counts: self.counts.clone(),
            path: Self::path(path),
            shown: format!("{}{}", self.root, Self::path(path)),
            fsync_on_close: opts.fsync_on_close,
            appending: false,
            written: 0,
            hsyncs: 0,
            block_size: self.block_size,
        }
    }
}

impl Store for HdfsStore {
    fn url(&self) -> String {
        self.root.clone()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            writable: true,
            direct_io: false,
            hflush: true,
            append: true,
            atomic_rename: true,
            directories: true,
            conditional_create: true,
            vectored_read: true,
            prefetch: false,
            in_memory: false,
            page_cache: false,
        }
    }

    fn engine(&self, _direct: bool) -> String {
        let repl = self.replication.map_or("the NameNode's default".into(), |r| r.to_string());
        let block = self.block_size.map_or("the NameNode's default".into(), crate::units::human_bytes);
        format!(
            "hdfs-native (Rust NameNode/DataNode protocols), replication {repl}, block size {block}, {}",
            super::asyncio::io_threads_words(self.io_threads)
        )
    }

    fn create(&self, path: &str, opts: &WriteOptions) -> Result<Box<dyn WriteStream>, StoreError> {
        if opts.direct {
            return Err(StoreError::Unsupported(format!(
                "{}{path} cannot be written with O_DIRECT: HDFS has no page cache to bypass; drop --direct",
                self.root
            )));
        }
        self.counts.rpc_create.inc();
        let mut w = hdfs_native::WriteOptions::default().overwrite(opts.overwrite).create_parent(false);
        if let Some(r) = self.replication {
            w = w.replication(r);
        }
        if let Some(b) = self.block_size {
            w = w.block_size(b);
        }
        let writer =
            self.rt.block_on(self.client.create(&Self::path(path), w)).map_err(|e| self.err("create", path, e))?;
        Ok(Box::new(self.writer(path, writer, opts)))
    }

    fn append(&self, path: &str) -> Result<Box<dyn WriteStream>, StoreError> {
        self.counts.rpc_append.inc();
        let w = self.rt.block_on(self.client.append(&Self::path(path))).map_err(|e| self.err("append to", path, e))?;
        let mut w = self.writer(path, w, &WriteOptions::default());
        w.appending = true;
        Ok(Box::new(w))
    }

    fn open(&self, path: &str, _opts: &ReadOptions) -> Result<Box<dyn ReadStream>, StoreError> {
        self.counts.rpc_open.inc();
        let reader = self.rt.block_on(self.client.read(&Self::path(path))).map_err(|e| self.err("open", path, e))?;
        Ok(Box::new(HdfsRead {
            len: reader.file_length() as u64,
            reader: Arc::new(reader),
            rt: self.rt.clone(),
            counts: self.counts.clone(),
            shown: format!("{}{}", self.root, Self::path(path)),
            stream: None,
            leftover: Bytes::new(),
            next: 0,
            datanode_reads: 0,
        }))
    }

    fn stat(&self, path: &str) -> Result<Option<Meta>, StoreError> {
        self.counts.rpc_stat.inc();
        match self.rt.block_on(self.client.get_file_info(&Self::path(path))) {
            Ok(s) => Ok(Some(Meta { size: if s.isdir { 0 } else { s.length as u64 }, is_dir: s.isdir })),
            Err(HdfsError::FileNotFound(_)) => Ok(None),
            Err(e) => match self.err("stat", path, e) {
                StoreError::NotFound { .. } => Ok(None),
                other => Err(other),
            },
        }
    }

    fn list(&self, dir: &str) -> Result<Vec<String>, StoreError> {
        self.counts.rpc_list.inc();
        let entries =
            self.rt.block_on(self.client.list_status(&Self::path(dir), false)).map_err(|e| self.err("list", dir, e))?;
        let mut names: Vec<String> =
            entries.into_iter().map(|s| s.path.rsplit('/').next().unwrap_or(&s.path).to_string()).collect();
        names.sort();
        Ok(names)
    }

    fn rename(&self, from: &str, to: &str) -> Result<(), StoreError> {
        self.counts.rpc_rename.inc();
        match self.rt.block_on(self.client.rename(&Self::path(from), &Self::path(to), false)) {
            Ok(()) => Ok(()),
            Err(HdfsError::AlreadyExists(_)) => Err(StoreError::Failed {
                op: "rename",
                path: format!("{}{}", self.root, Self::path(from)),
                detail: format!("{} already exists; storebench never replaces it", Self::path(to)),
            }),
            Err(e) => Err(self.err("rename", from, e)),
        }
    }

    fn delete(&self, path: &str) -> Result<(), StoreError> {
        self.counts.rpc_delete.inc();
        match self.rt.block_on(self.client.delete(&Self::path(path), false)) {
            Ok(true) => Ok(()),
            Ok(false) => Err(StoreError::NotFound { path: format!("{}{}", self.root, Self::path(path)) }),
            Err(e) => Err(self.err("delete", path, e)),
        }
    }

    fn create_dir(&self, path: &str) -> Result<(), StoreError> {
        // HDFS mkdirs succeeds on an existing directory; storebench's create_dir must not.
        if self.stat(path)?.is_some() {
            return Err(StoreError::AlreadyExists { path: format!("{}{}", self.root, Self::path(path)) });
        }
        self.counts.rpc_mkdirs.inc();
        self.rt
            .block_on(self.client.mkdirs(&Self::path(path), 0o755, false))
            .map_err(|e| self.err("create directory", path, e))
    }

    fn remove_dir(&self, path: &str) -> Result<(), StoreError> {
        self.counts.rpc_delete.inc();
        match self.rt.block_on(self.client.delete(&Self::path(path), false)) {
            Ok(_) => Ok(()),
            Err(e) => Err(self.err("remove directory", path, e)),
        }
    }

    fn remote(&self) -> Option<crate::store::Remote> {
        // The NameNode's host: DataNodes are other hosts, but their bytes cross the same interface when
        // they are remote too (a mini-cluster on this host is loopback, and has no link).
        crate::store::Remote::of_url(self.first_address.as_deref()?)
    }

    fn counters(&self) -> Counters {
        let mut all = self.counts.list();
        if self.block_size.is_none() {
            // Blocks are counted against a block size the run set; without one they mean nothing.
            all.retain(|(name, _)| name != "blocks_written");
        }
        all
    }
}

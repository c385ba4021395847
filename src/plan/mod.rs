//! Validation: raw arguments become a plan once, with sizes, counts, the target and its capabilities
//! checked together. Every error names the bad value and what would be valid.

use crate::cli::bandwidth::BandwidthArgs;
use crate::cli::store::{StoreArgs, StoreFlags};
use crate::store::memory::fits_in_memory;
use crate::store::{open_target, StoreConfig, Target};
use crate::units::{human_bytes, with_commas};
use crate::workload::bandwidth::BandwidthPlan;
use crate::workload::data::TestData;

/// The largest block storebench allocates a buffer for.
pub const MAX_BLOCK: u64 = 1 << 30;
/// Block size when none is given (capped at SIZE).
pub const DEFAULT_BLOCK: u64 = 8 << 20;
/// O_DIRECT alignment required of sizes and blocks.
pub const DIRECT_ALIGN: u64 = 4096;
/// The most worker threads (ops, dfsio) or GETs in flight (ranges) one process runs.
pub const MAX_THREADS: usize = 4096;
/// The slowest `--rate`: one operation every 1,000 s.
pub const MIN_RATE: f64 = 0.001;
/// The fastest `--rate`: a billion operations per second.
pub const MAX_RATE: f64 = 1e9;
/// The most `--repeats`: each repeat keeps its own report (summary, histograms), so the count bounds
/// the memory a run holds; statistics across repeats settle long before it.
pub const MAX_REPEATS: usize = 10_000;

/// The configuration `-D`, `--xmlfile`, the store flags and the environment give.
pub fn store_args_config(args: &StoreArgs) -> Result<StoreConfig, String> {
    store_config(&args.xmlfile, &args.define, &args.store)
}

/// Builds the store configuration: environment, then `--conf` and `--xmlfile` files, then `-D`, then
/// flags, each winning over the ones before.
pub fn store_config(
    xmlfiles: &[std::path::PathBuf],
    defines: &[String],
    flags: &StoreFlags,
) -> Result<StoreConfig, String> {
    use crate::store::config::Origin;
    let mut c = StoreConfig::default();
    #[cfg(feature = "s3")]
    for (var, key) in crate::store::object::ENV_KEYS {
        if let Ok(v) = std::env::var(var) {
            if !v.is_empty() && c.get(key).is_none() {
                c.set(key, &v, Origin::Env);
            }
        }
    }
    // A Hadoop client's configuration directory, as the hadoop command finds it.
    let conf_dir =
        std::env::var_os("HADOOP_CONF_DIR").filter(|d| !d.is_empty()).map(std::path::PathBuf::from).or_else(|| {
            std::env::var_os("HADOOP_HOME")
                .filter(|d| !d.is_empty())
                .map(|h| std::path::Path::new(&h).join("etc/hadoop"))
                .filter(|d| d.is_dir())
        });
    if let Some(dir) = conf_dir {
        c.add_hadoop_conf_dir(&dir)?;
    }
    if let Some(path) = &flags.conf {
        c.add_conf_file(path)?;
    }
    for f in xmlfiles {
        c.add_xml_file(f)?;
    }
    c.add_definitions(defines)?;
    if let Some(e) = &flags.endpoint {
        for key in ["fs.s3a.endpoint", "fs.gs.storage.root.url", "fs.azure.endpoint"] {
            c.set(key, e, Origin::Option);
        }
    }
    if let Some(p) = &flags.profile {
        c.set("fs.s3a.profile", p, Origin::Option);
    }
    if let Some(r) = &flags.region {
        c.set("fs.s3a.endpoint.region", r, Origin::Option);
    }
    if flags.path_style {
        c.set("fs.s3a.path.style.access", "true", Origin::Option);
    }
    if flags.allow_http {
        c.set("fs.s3a.connection.ssl.enabled", "false", Origin::Option);
    }
    if let Some(n) = &flags.io_threads {
        c.set(crate::store::config::IO_THREADS_KEY, n, Origin::Option);
    }
    Ok(c)
}

/// Validates `ops` arguments into a plan and its target. Returns whether the base directory is the
/// default (a fresh one to make under the temporary directory).
pub fn ops(
    args: &crate::cli::ops::OpsArgs,
    run_seed: u64,
) -> Result<(crate::workload::ops::OpsPlan, Target, bool), String> {
    use crate::workload::ops::Op;
    use crate::workload::ops::{parse_mix, OpsPlan};
    let mix = match (&args.mix, args.op) {
        (Some(m), _) => parse_mix(m)?,
        (None, Some(op)) => vec![(op, 1)],
        (None, None) => return Err("give --op OP or --mix op=weight,...".into()),
    };
    let has = |o: Op| mix.iter().any(|(m, _)| *m == o);
    if args.threads == 0 || args.threads > MAX_THREADS {
        return Err(format!("invalid --threads '{}': between 1 and {MAX_THREADS} threads", args.threads));
    }
    if args.iterations == Some(0) {
        return Err("invalid --iterations '0': at least 1 operation per thread (or use --duration)".into());
    }
    if args.repeats == 0 || args.repeats > MAX_REPEATS {
        return Err(format!(
            "invalid --repeats '{}': between 1 and {} repeats",
            with_commas(args.repeats as u64),
            with_commas(MAX_REPEATS as u64)
        ));
    }
    if let Some(r) = args.rate {
        if !(MIN_RATE..=MAX_RATE).contains(&r) {
            return Err(format!(
                "invalid --rate '{r}': operations per second from {MIN_RATE} to {MAX_RATE:e}, e.g. 500"
            ));
        }
    }
    if has(Op::Delete) && args.duration.is_some() {
        return Err("delete removes one prepared file per iteration: give --iterations, not --duration".into());
    }
    if args.random && !has(Op::SingleRead) {
        return Err("--random applies to single_read only".into());
    }
    if has(Op::PrefetchRead) && args.prefetch == 0 {
        return Err("invalid --prefetch '0': prefetch_read needs at least 1 block ahead".into());
    }
    if let Some(n) = args.controls.reorder {
        if !has(Op::OpenRead) {
            return Err(format!(
                "--reorder {n} applies to open_read (thread K reads the test_K another rank's thread wrote); \
                 this run does not read test_K"
            ));
        }
        if has(Op::CreateWrite) || has(Op::Rename) {
            return Err(format!(
                "--reorder {n}: create_write and rename change the test_K files other ranks read in the same run; \
                 write them first with --op create_write --keep on the same ranks and --threads, then read them \
                 with --op open_read --reorder {n}"
            ));
        }
    }
    let mut config = store_args_config(&args.config)?;
    // The Doris seed's conf keys that describe the workload, not the store; flags win over them.
    let conf_size = |config: &mut StoreConfig, key: &str| -> Result<Option<u64>, String> {
        config.take(key).map(|v| crate::units::parse_size(&v).map_err(|e| format!("--conf {key}: {e}"))).transpose()
    };
    let file_size = args.file_size.or(conf_size(&mut config, "file_size")?);
    let buffer = args.buffer_size.or(conf_size(&mut config, "buffer_size")?);
    let base_dir = config.take("base_dir");
    let file_path = args.file_path.clone().or(config.take("file_path"));
    let reads_whole = mix.iter().all(|(o, _)| matches!(o, Op::SingleRead | Op::PrefetchRead));
    let file_size = file_size.unwrap_or(if reads_whole { 0 } else { 10 << 20 });
    if file_size == 0 && !reads_whole {
        return Err(
            "invalid --file-size '0': only single_read and prefetch_read read a whole file with 0 (e.g. 10m)".into()
        );
    }
    if args.random && file_size == 0 {
        return Err("--random needs --file-size: the bytes each random read takes (e.g. 4k)".into());
    }
    let buffer_size = buffer.unwrap_or(if file_size == 0 { 1 << 20 } else { (1 << 20).min(file_size) });
    if buffer_size == 0 || buffer_size > MAX_BLOCK {
        return Err(format!("invalid --buffer-size '{}': between 1 byte and 1 GiB", with_commas(buffer_size)));
    }
    let (url, default_base) = match (&args.url, base_dir) {
        (Some(u), _) => (u.clone(), false),
        (None, Some(b)) => (b, false),
        (None, None) => (std::env::temp_dir().to_string_lossy().into_owned(), true),
    };
    if let (Some(n), true) = (args.controls.reorder, args.prepare || default_base) {
        return Err(format!(
            "--reorder {n} reads the files each rank wrote, but --prepare (or no URL) has rank 0 make them all: \
             write them with --op create_write --keep on the same ranks and --threads, and give that URL"
        ));
    }
    let target = open_target(&url, &config)?;
    check_drop_cache(args.controls.drop_cache, &target)?;
    if target.store.capabilities().in_memory {
        let files = (args.threads as u64).saturating_mul(if has(Op::Delete) {
            args.iterations.unwrap_or(1).saturating_mul(args.repeats as u64) + 1
        } else {
            1
        });
        fits_in_memory(
            files.saturating_mul(file_size.max(1)),
            &format!("{files} file(s) of {} on memory://", human_bytes(file_size)),
        )?;
    }
    // --file-path may be a URL of the same store, or a path in it.
    let file_path = file_path.map(|f| {
        let root = target.store.url();
        match f.strip_prefix(&root) {
            Some(rest) if root != "file://" => rest.to_string(),
            _ => f.strip_prefix("file://").map_or(f.clone(), str::to_string),
        }
    });
    let seed = args.seed.unwrap_or(run_seed);
    let plan = OpsPlan {
        mix,
        threads: args.threads,
        iterations: match args.duration {
            Some(_) => None,
            None => Some(args.iterations.unwrap_or(1)),
        },
        duration: args.duration,
        repeats: args.repeats,
        rate: args.rate,
        file_size,
        buffer_size,
        file_path,
        random: args.random,
        prefetch: args.prefetch,
        // A fresh default directory holds nothing yet: make what the operations need.
        prepare: args.prepare || default_base,
        fail_fast: args.fail_fast,
        keep: args.keep,
        seed,
        data: TestData::resolve(args.controls.data, seed),
        drop_cache: args.controls.drop_cache,
        reorder: args.controls.reorder,
        ranks: 1,
    };
    Ok((plan, target, default_base))
}

/// Validates `ranges` arguments: the plan, the target, and the object's size. `ours`: the object at
/// the URL is the one an earlier point of this sweep prepared (--prepare would refuse any other).
pub fn ranges(
    args: &crate::cli::ranges::RangesArgs,
    run_seed: u64,
    ours: bool,
) -> Result<(crate::workload::ranges::RangesPlan, Target, u64), String> {
    use crate::workload::ranges as r;
    use crate::workload::ranges::Strategy;
    if args.concurrency > MAX_THREADS {
        return Err(format!("invalid --concurrency '{}': at most {MAX_THREADS} GETs in flight", args.concurrency));
    }
    if args.concurrency == 0 {
        return Err("invalid --concurrency '0': parallel, split and coalesce need at least 1 GET in flight".into());
    }
    if args.split_size == 0 {
        return Err("invalid --split-size '0': pieces of at least 1 byte (e.g. 10k)".into());
    }
    if args.prepare == Some(0) {
        return Err("invalid --prepare '0': the test object needs at least 1 byte (e.g. 48m)".into());
    }
    let seed = args.seed.unwrap_or(run_seed);
    let config = store_args_config(&args.config)?;
    let target = open_target(&args.url, &config)?;
    check_drop_cache(args.controls.drop_cache, &target)?;
    let meta = target.store.stat(&target.path).map_err(|e| e.to_string())?;
    let size = match (args.prepare, meta) {
        (Some(s), Some(m)) if ours && m.size == s => s,
        (Some(_), Some(_)) => {
            return Err(format!(
                "--prepare: {} already exists and storebench will not replace it; give a new path",
                args.url
            ))
        }
        (Some(s), None) => s,
        (None, Some(m)) if !m.is_dir => m.size,
        (None, Some(_)) => return Err(format!("{} is a directory; give an object or file to read", args.url)),
        (None, None) => {
            return Err(format!("{} does not exist: give an existing object, or --prepare SIZE to write one", args.url))
        }
    };
    let ranges = if let Some(f) = &args.ranges {
        r::parse_ranges_file(f)?
    } else if let Some(g) = &args.generate {
        r::generate(g, size, seed)?
    } else {
        args.range.iter().map(|x| r::parse_range(x).map_err(|e| format!("--range: {e}"))).collect::<Result<_, _>>()?
    };
    r::check_ranges(&ranges, size, &args.url)?;
    if args.warm > r::MAX_WARM {
        return Err(format!("invalid --warm {}: at most {} warm passes", args.warm, r::MAX_WARM));
    }
    if args.strategy.iter().any(|s| matches!(s, Strategy::Split | Strategy::All)) {
        let pieces = ranges.iter().fold(0u64, |a, x| a.saturating_add((x.end - x.start).div_ceil(args.split_size)));
        if pieces > r::MAX_FETCHES {
            return Err(format!(
                "--split-size {} cuts the ranges into {pieces} GETs; a pass makes at most {}: give a larger --split-size",
                args.split_size,
                r::MAX_FETCHES
            ));
        }
    }
    // Each GET lands in a buffer of its length, one per reader; `whole` and --verify hold the span
    // that covers every range.
    let largest = ranges.iter().map(|x| x.end - x.start).max().unwrap_or(0);
    let span = ranges.iter().map(|x| x.end).max().unwrap_or(0) - ranges.iter().map(|x| x.start).min().unwrap_or(0);
    let whole = args.verify || args.strategy.iter().any(|s| matches!(s, Strategy::Whole | Strategy::All));
    let need = largest.saturating_mul(args.concurrency as u64).max(if whole { span } else { 0 });
    fits_in_memory(
        need,
        &format!("reading ranges of up to {} ({} at a time)", human_bytes(largest), args.concurrency),
    )?;
    let strategies = if args.strategy.contains(&Strategy::All) {
        Strategy::EACH.to_vec()
    } else {
        let mut s = args.strategy.clone();
        s.dedup();
        s
    };
    let plan = r::RangesPlan {
        ranges,
        strategies,
        split_size: args.split_size,
        coalesce_gap: args.coalesce_gap,
        concurrency: args.concurrency,
        warm: args.warm,
        verify: args.verify,
        seed,
        data: TestData::resolve(args.controls.data, seed),
        drop_cache: args.controls.drop_cache,
        prepare: args.prepare,
    };
    Ok((plan, target, size))
}

/// `--drop-cache` applies where files sit in this host's page cache (local files).
fn check_drop_cache(drop: Option<crate::workload::DropCache>, target: &Target) -> Result<(), String> {
    if drop.is_some() && !target.store.capabilities().page_cache {
        return Err(format!(
            "--drop-cache evicts files from this host's page cache, which holds local files only: {} keeps its data \
elsewhere (its server, or this process's memory)",
            target.store.url()
        ));
    }
    Ok(())
}

/// A seed from the clock, for runs that did not ask for one.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
}

/// Validates `bandwidth` arguments into a plan and its target.
pub fn bandwidth(args: &BandwidthArgs, run_seed: u64) -> Result<(BandwidthPlan, Target), String> {
    if args.size == 0 {
        return Err("invalid SIZE '0': the data size must be at least 1 byte (e.g. 128m)".into());
    }
    let block = args.block.unwrap_or(DEFAULT_BLOCK.min(args.size));
    if block == 0 {
        return Err("invalid --block '0': the block size must be at least 1 byte (e.g. 8m)".into());
    }
    if block > args.size {
        return Err(format!(
            "--block {} ({}) is larger than SIZE {} ({}): give a block no larger than the data size",
            with_commas(block),
            human_bytes(block),
            with_commas(args.size),
            human_bytes(args.size)
        ));
    }
    if block > MAX_BLOCK {
        return Err(format!(
            "--block {} is larger than the 1 GiB storebench allows for one buffer",
            human_bytes(block)
        ));
    }
    if args.read_only && args.verify && args.seed.is_none() && args.controls.data.and_then(|d| d.seed).is_none() {
        return Err("--verify with --read-only checks a file an earlier `bandwidth --keep` wrote: give the --seed \
(and --block, --data) it was written with (its report's params.seed)"
            .into());
    }
    if args.direct {
        for (name, v) in [("SIZE", args.size), ("--block", block)] {
            if v % DIRECT_ALIGN != 0 {
                return Err(format!(
                    "--direct needs {name} to be a multiple of 4096 bytes (O_DIRECT alignment); {} is not",
                    with_commas(v)
                ));
            }
        }
    }
    use crate::workload::bandwidth::ReadPolicy;
    if matches!(args.policy, ReadPolicy::Prefetch | ReadPolicy::Vector) && args.prefetch == 0 {
        return Err(format!(
            "invalid --prefetch '0': the {} policy needs at least 1 block (ahead, or per vectored read)",
            args.policy.name()
        ));
    }
    let config = store_config(&args.xmlfile, &args.define, &args.store)?;
    let url = match &args.url {
        Some(u) => u.clone(),
        None => std::env::temp_dir().to_string_lossy().into_owned(),
    };
    let target = open_target(&url, &config)?;
    check_drop_cache(args.controls.drop_cache, &target)?;
    let caps = target.store.capabilities();
    if args.direct && !caps.direct_io {
        return Err(format!(
            "--direct is not possible on {}: the store has no page cache to bypass",
            target.store.url()
        ));
    }
    if args.hflush && !caps.hflush {
        return Err(format!(
            "--hflush is not possible on {}: the store cannot make data durable before close()",
            target.store.url()
        ));
    }
    // Every block is timed and kept for the report: its events must fit in memory, and so must the
    // data itself on memory://.
    let events =
        (args.size.div_ceil(block)).saturating_mul(2 * std::mem::size_of::<crate::stats::sample::Event>() as u64);
    fits_in_memory(events.saturating_add(block), &format!("timing {} blocks", with_commas(args.size.div_ceil(block))))?;
    if caps.in_memory {
        fits_in_memory(
            args.size,
            &format!("SIZE {} on memory:// (it keeps every byte in RAM)", human_bytes(args.size)),
        )?;
    }
    let seed = args.seed.unwrap_or(run_seed);
    let plan = BandwidthPlan {
        size: args.size,
        block,
        policy: args.policy,
        flush: args.flush,
        hflush: args.hflush,
        keep: args.keep,
        rename: args.rename,
        verify: args.verify,
        direct: args.direct,
        fsync_on_close: args.fsync_on_close,
        overwrite: args.overwrite,
        read_only: args.read_only,
        seed,
        data: TestData::resolve(args.controls.data, seed),
        drop_cache: args.controls.drop_cache,
        prefetch: args.prefetch,
    };
    Ok((plan, target))
}

/// Validates `dfsio` arguments: the plan and the target its root names.
pub fn dfsio(
    args: &crate::cli::dfsio::DfsioArgs,
    run_seed: u64,
) -> Result<(crate::workload::dfsio::DfsioPlan, Target), String> {
    use crate::workload::dfsio::{DfsioPlan, Mode, ReadOrder};
    let config = store_args_config(&args.config)?;
    let file_size = crate::units::parse_size_with_default_unit(&args.file_size, 20)
        .map_err(|e| format!("invalid -fileSize '{}': {e}", args.file_size))?;
    let needs_size = !args.clean;
    if needs_size && file_size == 0 {
        return Err(format!("invalid -fileSize '{}': expected more than 0 bytes (e.g. 64MB)", args.file_size));
    }
    if args.nr_files == 0 {
        return Err("invalid -nrFiles 0: expected 1 or more files".into());
    }
    if args.buffer_size == 0 || args.buffer_size > MAX_BLOCK {
        return Err(format!(
            "invalid -bufferSize {}: expected 1 to {} bytes",
            args.buffer_size,
            with_commas(MAX_BLOCK)
        ));
    }
    if args.threads.is_some_and(|t| t == 0 || t > MAX_THREADS) {
        return Err(format!("invalid --threads {}: expected 1 to {MAX_THREADS}", args.threads.unwrap_or(0)));
    }
    let mode = match (args.write, args.read, args.append) {
        (true, _, _) => Mode::Write,
        (_, true, _) => Mode::Read,
        (_, _, true) => Mode::Append,
        _ => Mode::Clean,
    };
    let order = if args.random {
        ReadOrder::Random
    } else if args.backward {
        ReadOrder::Backward
    } else if args.skip {
        ReadOrder::Skip { skip: args.skip_size.unwrap_or(args.buffer_size) }
    } else {
        ReadOrder::Sequential
    };
    if let (Some(n), false) = (args.controls.reorder, mode == Mode::Read) {
        return Err(format!(
            "--reorder {n} applies to -read (rank r reads the files rank (r + {n}) mod ranks wrote); write with \
             -write on the same number of ranks, then read with -read --reorder {n}"
        ));
    }
    let root = match (&args.root_dir, config.get("fs.defaultFS")) {
        (Some(r), _) => r.clone(),
        (None, Some(fs)) if !fs.starts_with("file:") => format!("{}/benchmarks/TestDFSIO", fs.trim_end_matches('/')),
        _ => {
            let tmp = std::env::temp_dir();
            check_own_dirs(&tmp, &["benchmarks", "TestDFSIO"])?;
            tmp.join("benchmarks/TestDFSIO").to_string_lossy().into_owned()
        }
    };
    let target = open_target(&root, &config)?;
    check_drop_cache(args.controls.drop_cache, &target)?;
    if target.store.capabilities().in_memory && mode == Mode::Write {
        let total = args.nr_files.saturating_mul(file_size);
        fits_in_memory(
            total,
            &format!("-nrFiles {} x -fileSize {} on memory://", args.nr_files, human_bytes(file_size)),
        )?;
    }
    let seed = run_seed;
    let plan = DfsioPlan {
        mode,
        order,
        nr_files: args.nr_files,
        file_size,
        buffer_size: args.buffer_size,
        threads: args.threads.unwrap_or(args.nr_files.min(64) as usize),
        root: target.path.clone(),
        seed,
        data: TestData::resolve(args.controls.data, seed),
        drop_cache: args.controls.drop_cache,
        reorder: args.controls.reorder,
        ranks: 1,
    };
    Ok((plan, target))
}

/// Checks the directories of a default path under a shared place such as the temporary directory:
/// each of `parts` below `base` that exists must be a real directory (not a symbolic link) owned by
/// this user, so nothing another user planted there is written into. Missing ones are made later.
pub fn check_own_dirs(base: &std::path::Path, parts: &[&str]) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    let mut p = base.to_path_buf();
    for part in parts {
        p.push(part);
        match std::fs::symlink_metadata(&p) {
            Err(_) => return Ok(()),
            Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
                return Err(format!(
                "the default root's {} is not a directory of yours (it is a symbolic link or a file): give -rootDir",
                p.display()
            ))
            }
            Ok(m) if m.uid() != me => {
                return Err(format!(
                    "the default root's {} belongs to user id {}, not to you ({me}): give -rootDir",
                    p.display(),
                    m.uid()
                ))
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

//! The store options every command shares: `-D`, `--xmlfile` and the connection flags. Arguments
//! only; `plan::store_config` turns them into a `StoreConfig`.

/// Store options given as flags; each sets a configuration key with the highest precedence.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct StoreFlags {
    /// Object store endpoint, e.g. http://127.0.0.1:7070 (fs.s3a.endpoint, fs.gs.storage.root.url,
    /// fs.azure.endpoint).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// AWS named profile from ~/.aws/credentials and ~/.aws/config (fs.s3a.profile; AWS_PROFILE).
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Object store region (fs.s3a.endpoint.region).
    #[arg(long)]
    pub region: Option<String>,
    /// Path-style addressing: http://host/bucket/key (fs.s3a.path.style.access=true).
    #[arg(long)]
    pub path_style: bool,
    /// Allow plain http:// endpoints, for local servers (fs.s3a.connection.ssl.enabled=false).
    #[arg(long)]
    pub allow_http: bool,
    /// Worker threads of the object-store and HDFS clients' network I/O [default: half the CPUs, at
    /// least 1] (storebench.io.threads).
    #[arg(long, value_name = "N")]
    pub io_threads: Option<String>,
    /// Apache Doris fs_benchmark_tool's key=value connection file (AWS_ACCESS_KEY, AWS_SECRET_KEY,
    /// AWS_ENDPOINT, AWS_REGION, and any Hadoop key).
    #[arg(long, value_name = "FILE")]
    pub conf: Option<std::path::PathBuf>,
}

/// The store configuration options every workload but bandwidth takes the same way (bandwidth keeps
/// its own for cloudstore's spellings).
#[derive(Clone, Debug, Default, clap::Args)]
pub struct StoreArgs {
    /// Hadoop configuration key=value for the store (repeatable), e.g. -D fs.s3a.endpoint=http://...
    #[arg(short = 'D', value_name = "KEY=VALUE")]
    pub define: Vec<String>,
    /// Hadoop XML configuration file (core-site.xml) with store keys (repeatable).
    #[arg(long, value_name = "FILE")]
    pub xmlfile: Vec<std::path::PathBuf>,
    /// Store connection options.
    #[command(flatten)]
    pub store: StoreFlags,
}

//! One builder per object store: how a URL and the configuration keys become an object_store client.
//!
//! Every key means the same wherever it comes from (env < `--conf`/`--xmlfile` < `-D` < flags); the
//! keys each store reads are listed beside it and in docs/metrics.md.

use super::profile;
use super::wire::{AnswerTimeout, CountingConnector, Wire};
use crate::store::config::StoreConfig;
use crate::units::parse_size;
use object_store::aws::AmazonS3Builder;
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::GoogleCloudStorageBuilder;
use object_store::http::HttpBuilder;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, RetryConfig};
use std::sync::Arc;
use std::time::Duration;

/// Keys every object store reads.
pub const COMMON_KEYS: &[&str] = &[
    "storebench.multipart.size",
    "storebench.upload.active.blocks",
    "storebench.attempts.maximum",
    "storebench.connection.establish.timeout",
    "storebench.connection.timeout",
    "storebench.request.timeout",
    crate::store::config::IO_THREADS_KEY,
];

/// The timeout keys of the stores without keys of their own (GCS, Azure, HTTP).
const GENERIC_TIMEOUT_KEYS: [&str; 2] = ["storebench.connection.establish.timeout", "storebench.connection.timeout"];
/// Default wait for a TCP connection to the store.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default wait for a request's answer to begin.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// Default bound of one whole request, its body included (a large GET or part must fit in it).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);

/// The keys the S3 store reads (besides [`COMMON_KEYS`]).
pub const S3_KEYS: &[&str] = &[
    "fs.s3a.endpoint",
    "fs.s3a.endpoint.region",
    "fs.s3a.access.key",
    "fs.s3a.secret.key",
    "fs.s3a.session.token",
    "fs.s3a.path.style.access",
    "fs.s3a.connection.ssl.enabled",
    "fs.s3a.multipart.size",
    "fs.s3a.fast.upload.active.blocks",
    "fs.s3a.attempts.maximum",
    "fs.s3a.connection.establish.timeout",
    "fs.s3a.connection.timeout",
    "fs.s3a.profile",
    "storebench.s3.unsigned.payload",
];

/// The keys the GCS store reads.
pub const GCS_KEYS: &[&str] = &["fs.gs.storage.root.url", "fs.gs.auth.service.account.json.keyfile"];

/// The keys the Azure Blob store reads (and any `fs.azure.account.key.ACCOUNT...` key).
pub const AZURE_KEYS: &[&str] = &[
    "fs.azure.account.name",
    "fs.azure.account.key",
    "fs.azure.sas.token",
    "fs.azure.endpoint",
    "fs.azure.use.emulator",
];

/// Environment variables and the keys they set (lowest precedence).
pub const ENV_KEYS: &[(&str, &str)] = &[
    ("AWS_ENDPOINT_URL", "fs.s3a.endpoint"),
    ("AWS_ENDPOINT", "fs.s3a.endpoint"),
    ("AWS_REGION", "fs.s3a.endpoint.region"),
    ("AWS_DEFAULT_REGION", "fs.s3a.endpoint.region"),
    ("AWS_ACCESS_KEY_ID", "fs.s3a.access.key"),
    ("AWS_SECRET_ACCESS_KEY", "fs.s3a.secret.key"),
    ("AWS_SESSION_TOKEN", "fs.s3a.session.token"),
    ("AWS_PROFILE", "fs.s3a.profile"),
    ("STORAGE_EMULATOR_HOST", "fs.gs.storage.root.url"),
    ("GOOGLE_APPLICATION_CREDENTIALS", "fs.gs.auth.service.account.json.keyfile"),
    ("AZURE_STORAGE_ACCOUNT_NAME", "fs.azure.account.name"),
    ("AZURE_STORAGE_ACCOUNT_KEY", "fs.azure.account.key"),
    ("AZURE_STORAGE_SAS_TOKEN", "fs.azure.sas.token"),
    ("AZURE_STORAGE_ENDPOINT", "fs.azure.endpoint"),
    ("AZURE_STORAGE_USE_EMULATOR", "fs.azure.use.emulator"),
];

/// A client and what storebench says about it.
pub struct Built {
    pub inner: Arc<dyn ObjectStore>,
    /// Bucket, container or host, as the URL names it.
    pub bucket: String,
    /// The path inside it.
    pub path: String,
    /// Where requests go, for messages ("" = the cloud's own endpoint).
    pub endpoint: String,
    /// The credential's public name (access key id, account, client email), never the secret.
    pub key_id: String,
    /// Upload part size and parts in flight.
    pub part_size: usize,
    pub active_blocks: usize,
    /// Whether the store can write at all.
    pub writable: bool,
    /// Warnings about keys it ignored.
    pub warnings: Vec<String>,
}

pub fn bool_key(config: &StoreConfig, key: &str, default: bool) -> Result<bool, String> {
    match config.get(key) {
        None => Ok(default),
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Ok(true),
            "false" | "0" | "no" => Ok(false),
            _ => Err(format!("invalid {key} '{v}': expected true or false")),
        },
    }
}

/// The first key of `keys` that is set.
fn first<'a>(config: &'a StoreConfig, keys: &[&str]) -> Option<(&'a str, String)> {
    keys.iter().find_map(|k| config.get(k).map(|v| (v, k.to_string())))
}

/// Client options, retries and the counting connector every store shares.
struct Client {
    options: ClientOptions,
    retry: RetryConfig,
    connector: CountingConnector,
}

/// A timeout key's value, Hadoop's way: a bare number is milliseconds, else a duration with its unit
/// (`5s`, `2m`, `500ms`). Between 1 ms and 1 day.
pub fn timeout_value(key: &str, v: &str) -> Result<Duration, String> {
    let v = v.trim();
    let d = if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<u64>().ok().map(Duration::from_millis)
    } else {
        humantime::parse_duration(v).ok()
    };
    match d {
        Some(d) if d >= Duration::from_millis(1) && d <= Duration::from_secs(86_400) => Ok(d),
        _ => Err(format!("invalid {key} '{v}': expected a duration from 1 ms to 1 day (e.g. 5s, 60000 = 60 s)")),
    }
}

/// The first of `keys` that is set, as a timeout, else `default`; with the key that set it (or the
/// first key, which would).
fn timeout_of(
    config: &StoreConfig,
    keys: &[&'static str],
    default: Duration,
) -> Result<(Duration, &'static str), String> {
    for k in keys {
        if let Some(v) = config.get(k) {
            return Ok((timeout_value(k, v)?, k));
        }
    }
    Ok((default, keys[0]))
}

fn client(
    config: &StoreConfig,
    attempts_keys: &[&str],
    own_timeout_keys: [&'static str; 2],
    allow_http: bool,
    wire: &Arc<Wire>,
) -> Result<Client, String> {
    let attempts: usize = match first(config, attempts_keys) {
        None => 3,
        Some((v, k)) => match v.parse() {
            Ok(n) if n <= 100 => n,
            _ => return Err(format!("invalid {k} '{v}': expected a count of retries from 0 to 100")),
        },
    };
    let [own_connect, own_answer] = own_timeout_keys;
    let (connect, _) = timeout_of(config, &[own_connect, "storebench.connection.establish.timeout"], CONNECT_TIMEOUT)?;
    let (answer, answer_key) = timeout_of(config, &[own_answer, "storebench.connection.timeout"], ANSWER_TIMEOUT)?;
    let (request, _) = timeout_of(config, &["storebench.request.timeout"], REQUEST_TIMEOUT)?;
    Ok(Client {
        options: ClientOptions::new()
            .with_connect_timeout(connect)
            .with_timeout(request.max(answer))
            .with_allow_http(allow_http),
        retry: RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: attempts,
            retry_timeout: Duration::from_secs(20),
        },
        connector: CountingConnector(wire.clone(), AnswerTimeout { wait: answer, key: answer_key }),
    })
}

/// Upload geometry: part size (at least `min_part`) and parts in flight.
fn geometry(
    config: &StoreConfig,
    size_keys: &[&str],
    blocks_keys: &[&str],
    min_part: usize,
) -> Result<(usize, usize), String> {
    let part_size = match first(config, size_keys) {
        None => 64 << 20,
        Some((v, k)) => parse_size(v).map_err(|e| format!("{k}: {e}"))? as usize,
    };
    if part_size < min_part {
        return Err(format!(
            "{} {part_size} is below the store's minimum part size of {} MiB",
            size_keys[0],
            min_part >> 20
        ));
    }
    let active = match first(config, blocks_keys) {
        None => 4,
        Some((v, k)) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => return Err(format!("invalid {k} '{v}': expected a count of 1 or more")),
        },
    };
    Ok((part_size, active))
}

fn unused(config: &StoreConfig, scheme: &str, specific: &[&str], extra: impl Fn(&str) -> bool) -> Vec<String> {
    let used: Vec<&str> =
        COMMON_KEYS.iter().chain(specific).copied().chain(config.keys().filter(|k| extra(k))).collect();
    config.unused(scheme, &used)
}

/// Splits `bucket/path`.
fn split<'a>(url: &str, rest: &'a str, what: &str, example: &str) -> Result<(&'a str, &'a str), String> {
    let (bucket, path) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(format!("invalid URL '{url}': no {what}; expected {example}"));
    }
    Ok((bucket, path))
}

/// The error of a client that could not be built, without credentials from the URL or the error.
fn cannot_configure(cloud: &str, url: &str, e: object_store::Error) -> String {
    format!(
        "cannot configure {cloud} for '{}': {}",
        crate::store::redact_url(url),
        crate::store::redact_text(&e.to_string())
    )
}

/// `s3://bucket/path`.
pub fn s3(url: &str, rest: &str, config: &StoreConfig, wire: &Arc<Wire>) -> Result<Built, String> {
    let (bucket, path) = split(url, rest, "bucket", "s3://bucket/path")?;
    let mut config = config.clone();
    if let Some(name) = config.get("fs.s3a.profile").map(str::to_string) {
        profile::apply(&mut config, &name)?;
    }
    let ssl = bool_key(&config, "fs.s3a.connection.ssl.enabled", true)?;
    let endpoint = match config.get("fs.s3a.endpoint") {
        Some(e) if e.contains("://") => e.to_string(),
        Some(e) => format!("{}://{e}", if ssl { "https" } else { "http" }),
        None => String::new(),
    };
    let c = client(
        &config,
        &["fs.s3a.attempts.maximum", "storebench.attempts.maximum"],
        ["fs.s3a.connection.establish.timeout", "fs.s3a.connection.timeout"],
        endpoint.starts_with("http://"),
        wire,
    )?;
    let mut b = AmazonS3Builder::new()
        .with_bucket_name(bucket)
        .with_client_options(c.options)
        .with_retry(c.retry)
        .with_http_connector(c.connector);
    if !endpoint.is_empty() {
        b = b.with_endpoint(&endpoint);
    }
    let path_style = bool_key(&config, "fs.s3a.path.style.access", !endpoint.is_empty())?;
    b = b.with_virtual_hosted_style_request(!path_style);
    b = b.with_region(config.get("fs.s3a.endpoint.region").unwrap_or("us-east-1"));
    if let Some(k) = config.get("fs.s3a.access.key") {
        b = b.with_access_key_id(k);
    }
    if let Some(s) = config.get("fs.s3a.secret.key") {
        b = b.with_secret_access_key(s);
    }
    if let Some(t) = config.get("fs.s3a.session.token") {
        b = b.with_token(t);
    }
    let has_keys = config.get("fs.s3a.access.key").is_some() && config.get("fs.s3a.secret.key").is_some();
    let no_endpoint = endpoint.is_empty();
    if !has_keys {
        if !no_endpoint {
            // An explicit endpoint is never a cloud instance: never ask instance metadata; requests go
            // unsigned (anonymous), and a refusal says that no credentials were found.
            b = b.with_skip_signature(true);
        } else {
            instance_metadata_reachable()?;
        }
    }
    // UNSIGNED-PAYLOAD by default, as the AWS CRT and the SDKs over HTTPS: signing a SHA-256 of every
    // body costs about 0.9 CPU-s/GiB here and is a client cost, not the store's. `false` signs bodies.
    b = b.with_unsigned_payload(bool_key(&config, "storebench.s3.unsigned.payload", true)?);
    let (part_size, active_blocks) = geometry(
        &config,
        &["fs.s3a.multipart.size", "storebench.multipart.size"],
        &["fs.s3a.fast.upload.active.blocks", "storebench.upload.active.blocks"],
        5 << 20,
    )?;
    let inner = b.build().map_err(|e| cannot_configure("S3", url, e))?;
    Ok(Built {
        inner: Arc::new(inner),
        bucket: bucket.into(),
        path: path.into(),
        endpoint,
        key_id: match (config.get("fs.s3a.access.key"), no_endpoint) {
            (Some(k), _) => k.to_string(),
            (None, false) => NO_CREDENTIALS.to_string(),
            (None, true) => "(instance credentials)".to_string(),
        },
        part_size,
        active_blocks,
        writable: true,
        warnings: unused(&config, "s3://", S3_KEYS, |_| false),
    })
}

/// What a refusal says when no credentials were given: where storebench looked.
pub const NO_CREDENTIALS: &str =
    "(none: no credentials found, looked in: env, profile, --conf, --xmlfile, -D; sent anonymously)";

/// The cloud's instance-metadata service, asked for credentials only when no endpoint and no keys
/// were given, as the AWS SDKs do.
const INSTANCE_METADATA: &str = "169.254.169.254:80";

/// Checks, within 1 s, that instance metadata can be asked for credentials; the error says where
/// storebench looked. `AWS_EC2_METADATA_DISABLED=true` turns the look-up off, as in the AWS SDKs.
fn instance_metadata_reachable() -> Result<(), String> {
    metadata_reachable(
        "no credentials found (looked in: env, profile, --conf, --xmlfile, -D, instance metadata)",
        "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or --profile, or --endpoint for a server that allows anonymous access",
        "AWS_EC2_METADATA_DISABLED",
    )
}

/// The bounded look-up of any cloud's instance-metadata service: `none` says where storebench looked,
/// `hint` what to set. `disable_var=true` (or `STOREBENCH_NO_INSTANCE_METADATA=true`) turns it off.
fn metadata_reachable(none: &str, hint: &str, disable_var: &str) -> Result<(), String> {
    for var in [disable_var, "STOREBENCH_NO_INSTANCE_METADATA"] {
        if std::env::var(var).is_ok_and(|v| v.eq_ignore_ascii_case("true")) {
            return Err(format!("{none}: instance metadata is disabled by {var}; {hint}"));
        }
    }
    let addr: std::net::SocketAddr = INSTANCE_METADATA.parse().map_err(|e| format!("{e}"))?;
    std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1))
        .map(drop)
        .map_err(|_| format!("{none}: instance metadata did not answer in 1 s; {hint}"))
}

/// `gs://bucket/path`.
pub fn gcs(url: &str, rest: &str, config: &StoreConfig, wire: &Arc<Wire>) -> Result<Built, String> {
    let (bucket, path) = split(url, rest, "bucket", "gs://bucket/path")?;
    let endpoint = config.get("fs.gs.storage.root.url").map(|e| {
        if e.contains("://") {
            e.trim_end_matches('/').to_string()
        } else {
            format!("http://{}", e.trim_end_matches('/'))
        }
    });
    let c = client(
        config,
        &["storebench.attempts.maximum"],
        GENERIC_TIMEOUT_KEYS,
        endpoint.as_deref().is_some_and(|e| e.starts_with("http://")),
        wire,
    )?;
    let mut b = GoogleCloudStorageBuilder::new()
        .with_bucket_name(bucket)
        .with_client_options(c.options)
        .with_retry(c.retry)
        .with_http_connector(c.connector);
    let keyfile = config.get("fs.gs.auth.service.account.json.keyfile");
    let mut key_id = "(application default credentials)".to_string();
    if let Some(f) = keyfile {
        let text = crate::store::config::read_input(
            std::path::Path::new(f),
            "GCS key file",
            crate::store::config::MAX_CONFIG_FILE,
        )?;
        let mut json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| format!("GCS key file {f} is not JSON: {e}"))?;
        if let Some(email) = json.get("client_email").and_then(|v| v.as_str()) {
            key_id = email.to_string();
        }
        match (&endpoint, json.as_object_mut()) {
            // object_store takes a custom endpoint only from inside the service account JSON.
            (Some(e), Some(obj)) => {
                obj.insert("gcs_base_url".into(), e.clone().into());
                b = b.with_service_account_key(json.to_string());
            }
            (None, _) => b = b.with_application_credentials(f),
            (Some(_), None) => return Err(format!("GCS key file {f} is not a JSON object")),
        }
    } else if endpoint.is_none() {
        // Application default credentials: gcloud's file, else the instance's metadata (bounded).
        let adc = std::env::var_os("HOME")
            .map(|h| std::path::Path::new(&h).join(".config/gcloud/application_default_credentials.json"));
        if !adc.is_some_and(|p| p.is_file()) {
            metadata_reachable(
                "no GCS credentials found (looked in: GOOGLE_APPLICATION_CREDENTIALS, -D fs.gs.auth.service.account.json.keyfile, gcloud's application default credentials, instance metadata)",
                "set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, or --endpoint for an emulator",
                "STOREBENCH_NO_INSTANCE_METADATA",
            )?;
        }
    } else if let Some(e) = &endpoint {
        // An emulator without credentials (fake-gcs-server): no OAuth.
        key_id = "(anonymous)".into();
        let json = serde_json::json!({
            "gcs_base_url": e, "disable_oauth": true, "client_email": "", "private_key": "", "private_key_id": ""
        });
        b = b.with_service_account_key(json.to_string());
    }
    let (part_size, active_blocks) =
        geometry(config, &["storebench.multipart.size"], &["storebench.upload.active.blocks"], 5 << 20)?;
    let inner = b.build().map_err(|e| cannot_configure("GCS", url, e))?;
    Ok(Built {
        inner: Arc::new(inner),
        bucket: bucket.into(),
        path: path.into(),
        endpoint: endpoint.unwrap_or_default(),
        key_id,
        part_size,
        active_blocks,
        writable: true,
        warnings: unused(config, "gs://", GCS_KEYS, |_| false),
    })
}

/// The well-known Azurite account and key (public, documented by Microsoft).
const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

/// `az://container/path` (Azure Blob Storage).
pub fn azure(url: &str, rest: &str, config: &StoreConfig, wire: &Arc<Wire>) -> Result<Built, String> {
    let (container, path) = split(url, rest, "container", "az://container/path")?;
    let emulator = bool_key(config, "fs.azure.use.emulator", false)?;
    let account = config
        .get("fs.azure.account.name")
        .map(str::to_string)
        .or_else(|| emulator.then(|| AZURITE_ACCOUNT.to_string()))
        .ok_or_else(|| {
            format!(
                "no Azure storage account for '{url}': set fs.azure.account.name (-D) or AZURE_STORAGE_ACCOUNT_NAME"
            )
        })?;
    // Hadoop's per-account key names win over the plain one.
    let hadoop_key = [
        format!("fs.azure.account.key.{account}.blob.core.windows.net"),
        format!("fs.azure.account.key.{account}.dfs.core.windows.net"),
    ];
    let key = hadoop_key
        .iter()
        .find_map(|k| config.get(k))
        .or_else(|| config.get("fs.azure.account.key"))
        .or(emulator.then_some(AZURITE_KEY));
    let endpoint = match config.get("fs.azure.endpoint") {
        Some(e) => e.trim_end_matches('/').to_string(),
        None if emulator => format!("http://127.0.0.1:10000/{account}"),
        None => String::new(),
    };
    let c =
        client(config, &["storebench.attempts.maximum"], GENERIC_TIMEOUT_KEYS, endpoint.starts_with("http://"), wire)?;
    let mut b = MicrosoftAzureBuilder::new()
        .with_account(&account)
        .with_container_name(container)
        .with_client_options(c.options)
        .with_retry(c.retry)
        .with_http_connector(c.connector);
    if !endpoint.is_empty() {
        b = b.with_endpoint(endpoint.clone());
    }
    if let Some(k) = key {
        b = b.with_access_key(k);
    } else if let Some(sas) = config.get("fs.azure.sas.token") {
        b = b.with_config(AzureConfigKey::SasKey, sas);
    } else if !endpoint.is_empty() {
        // An explicit endpoint without a key: anonymous requests, never the instance's identity.
        b = b.with_skip_signature(true);
    } else {
        metadata_reachable(
            "no Azure credentials found (looked in: fs.azure.account.key, AZURE_STORAGE_ACCOUNT_KEY, fs.azure.sas.token, AZURE_STORAGE_SAS_TOKEN, instance metadata)",
            "set AZURE_STORAGE_ACCOUNT_KEY or AZURE_STORAGE_SAS_TOKEN",
            "STOREBENCH_NO_INSTANCE_METADATA",
        )?;
    }
    let (part_size, active_blocks) =
        geometry(config, &["storebench.multipart.size"], &["storebench.upload.active.blocks"], 1)?;
    let inner = b.build().map_err(|e| cannot_configure("Azure", url, e))?;
    Ok(Built {
        inner: Arc::new(inner),
        bucket: container.into(),
        path: path.into(),
        endpoint,
        key_id: format!("account {account}"),
        part_size,
        active_blocks,
        writable: true,
        warnings: unused(config, "az://", AZURE_KEYS, |k| k.starts_with("fs.azure.account.key.")),
    })
}

/// `http(s)://host[:port]/path`: GET and HEAD on a web server (PUT, DELETE and listing need WebDAV).
pub fn http(url: &str, scheme: &str, rest: &str, config: &StoreConfig, wire: &Arc<Wire>) -> Result<Built, String> {
    let (host, path) = split(url, rest, "host", "http://host:port/path")?;
    let base = format!("{scheme}://{host}");
    let c = client(config, &["storebench.attempts.maximum"], GENERIC_TIMEOUT_KEYS, scheme == "http", wire)?;
    let inner = HttpBuilder::new()
        .with_url(&base)
        .with_client_options(c.options)
        .with_retry(c.retry)
        .with_http_connector(c.connector)
        .build()
        .map_err(|e| cannot_configure("HTTP", url, e))?;
    let (part_size, active_blocks) =
        geometry(config, &["storebench.multipart.size"], &["storebench.upload.active.blocks"], 1)?;
    Ok(Built {
        inner: Arc::new(inner),
        bucket: host.into(),
        path: path.into(),
        endpoint: base,
        key_id: "(none)".into(),
        part_size,
        active_blocks,
        writable: false,
        warnings: unused(config, &format!("{scheme}://"), &[], |_| false),
    })
}

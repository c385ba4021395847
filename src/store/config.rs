//! Store configuration keys, the Hadoop way: `-D key=value`, `--xmlfile core-site.xml`, environment.
//!
//! A key means the same wherever it comes from. Precedence: `-D` flags win over XML files, which win
//! over the environment. Values are never printed: some of them are secrets.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The largest configuration file read (`--xmlfile`, `--conf`, Hadoop's site files, AWS profiles,
/// a GCS key file).
pub const MAX_CONFIG_FILE: u64 = 1 << 20;
/// The key that sets the worker threads of the object-store and HDFS clients' runtime
/// (`store::asyncio::io_threads`).
pub const IO_THREADS_KEY: &str = "storebench.io.threads";
/// The deepest element nesting accepted in an XML configuration file (Hadoop's has 3 levels).
pub const MAX_XML_DEPTH: usize = 32;

/// Reads a text input file of at most `cap` bytes. Only regular files are read: a FIFO, device or
/// directory is refused at once (it is opened without blocking and checked on the open handle), and a
/// larger file is refused naming the cap. `what` names the file in errors.
pub fn read_input(path: &Path, what: &str, cap: u64) -> Result<String, String> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let shown = path.display();
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    let meta = f.metadata().map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if let Some(kind) = super::local::not_regular(meta.mode() as libc::mode_t) {
        return Err(format!("cannot read {what} {shown}: it is {kind}; give a regular file"));
    }
    if meta.len() > cap {
        return Err(format!(
            "{what} {shown} holds {} bytes, more than the {} storebench reads",
            meta.len(),
            crate::units::human_bytes(cap)
        ));
    }
    let mut text = String::new();
    f.take(cap + 1).read_to_string(&mut text).map_err(|e| format!("cannot read {what} {shown}: {e}"))?;
    if text.len() as u64 > cap {
        return Err(format!("{what} {shown} grew past the {} storebench reads", crate::units::human_bytes(cap)));
    }
    Ok(text)
}

/// The deepest element nesting of an XML text, counted without parsing it (so a hostile file cannot
/// exhaust the parser's stack): start tags open a level, end tags close one, `<?`, `<!` and `/>` do not.
pub fn xml_depth(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut max, mut i) = (0usize, 0usize, 0usize);
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'/') => depth = depth.saturating_sub(1),
            Some(b'?') | Some(b'!') => {}
            _ => {
                let close = b[i..].iter().position(|&c| c == b'>').map_or(b.len(), |p| i + p);
                if close == b.len() || b[close - 1] != b'/' {
                    depth += 1;
                    max = max.max(depth);
                }
            }
        }
        i += 1;
    }
    max
}

/// Where a key's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// An environment variable.
    Env,
    /// A Hadoop XML configuration file.
    XmlFile,
    /// A `-D key=value` flag.
    Flag,
    /// A store option given as its own flag (`--endpoint`, `--region`, ...), which sets the key of
    /// every store that has one.
    Option,
}

/// Configuration keys for stores, with the origin of each value.
#[derive(Clone, Debug, Default)]
pub struct StoreConfig {
    values: BTreeMap<String, (String, Origin)>,
}

impl StoreConfig {
    /// Sets a key unless a higher-precedence origin already set it.
    pub fn set(&mut self, key: &str, value: &str, origin: Origin) {
        match self.values.get(key) {
            Some((_, o)) if *o > origin => {}
            _ => {
                self.values.insert(key.to_string(), (value.to_string(), origin));
            }
        }
    }

    /// Sets a key only if nothing set it yet (an AWS profile, below the variables it stands beside).
    pub fn set_if_absent(&mut self, key: &str, value: &str, origin: Origin) {
        if !self.values.contains_key(key) {
            self.values.insert(key.to_string(), (value.to_string(), origin));
        }
    }

    /// The value of a key.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|(v, _)| v.as_str())
    }

    /// Removes a key and returns its value (keys meant for a workload, not a store).
    pub fn take(&mut self, key: &str) -> Option<String> {
        self.values.remove(key).map(|(v, _)| v)
    }

    /// Every key that is set.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(|k| k.as_str())
    }

    /// Adds `-D key=value` definitions.
    pub fn add_definitions(&mut self, defs: &[String]) -> Result<(), String> {
        for d in defs {
            let Some((k, v)) = d.split_once('=') else {
                return Err(format!("invalid -D '{}': expected key=value", redact_definition(d)));
            };
            let k = k.trim();
            if k.is_empty() {
                return Err(format!("invalid -D '{}': the key is empty; expected key=value", redact_definition(d)));
            }
            self.set(k, v.trim(), Origin::Flag);
        }
        Ok(())
    }

    /// Loads a Hadoop configuration XML file (`<configuration><property><name/><value/>`).
    pub fn add_xml_file(&mut self, path: &Path) -> Result<(), String> {
        self.add_xml(path, Origin::XmlFile)
    }

    /// Loads `core-site.xml` and `hdfs-site.xml` from a Hadoop configuration directory
    /// (`HADOOP_CONF_DIR`), below everything else: a cluster's files hold many keys a run never uses,
    /// so they count as environment and are never warned about.
    pub fn add_hadoop_conf_dir(&mut self, dir: &Path) -> Result<(), String> {
        if !dir.is_dir() {
            return Err(format!("HADOOP_CONF_DIR {} is not a directory", dir.display()));
        }
        for name in ["core-site.xml", "hdfs-site.xml"] {
            let f = dir.join(name);
            if f.is_file() {
                self.add_xml(&f, Origin::Env)?;
            }
        }
        Ok(())
    }

    fn add_xml(&mut self, path: &Path, origin: Origin) -> Result<(), String> {
        let text = read_input(path, "XML config file", MAX_CONFIG_FILE)?;
        let depth = xml_depth(&text);
        if depth > MAX_XML_DEPTH {
            return Err(format!(
                "XML config file {} nests elements {depth} deep; a Hadoop configuration file nests 3, and storebench reads at most {MAX_XML_DEPTH}",
                path.display()
            ));
        }
        let doc = roxmltree::Document::parse(&text)
            .map_err(|e| format!("XML config file {} is not valid XML: {e}", path.display()))?;
        let root = doc.root_element();
        if root.tag_name().name() != "configuration" {
            return Err(format!(
                "XML config file {} has root <{}>; expected a Hadoop <configuration> file",
                path.display(),
                root.tag_name().name()
            ));
        }
        for prop in root.children().filter(|n| n.has_tag_name("property")) {
            let child = |name: &str| {
                prop.children().find(|n| n.has_tag_name(name)).and_then(|n| n.text()).map(|t| t.trim().to_string())
            };
            match (child("name"), child("value")) {
                (Some(k), Some(v)) if !k.is_empty() => self.set(&k, &v, origin),
                (Some(k), None) if !k.is_empty() => self.set(&k, "", origin),
                _ => {
                    let line = doc.text_pos_at(prop.range().start).row;
                    return Err(format!("XML config file {} line {line}: <property> without a <name>", path.display()));
                }
            }
        }
        Ok(())
    }

    /// Loads Apache Doris fs_benchmark_tool's key=value connection file (`--conf`). Its AWS_* keys mean
    /// the Hadoop keys in [`DORIS_KEYS`]; other keys are taken as written. `#` starts a comment line.
    pub fn add_conf_file(&mut self, path: &Path) -> Result<(), String> {
        let text = read_input(path, "--conf file", MAX_CONFIG_FILE)?;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((k, v)) = line.split_once('=') else {
                return Err(format!("--conf file {} line {}: expected key=value", path.display(), n + 1));
            };
            let (k, v) = (k.trim(), v.trim());
            let key = DORIS_KEYS.iter().find(|(d, _)| *d == k).map_or(k, |(_, h)| *h);
            self.set(key, v, Origin::XmlFile);
        }
        Ok(())
    }

    /// Warnings for the keys a store did not use (`used` lists the keys it reads). Keys from the
    /// environment and from store flags are meant for whichever store the URL names: no warning.
    pub fn unused(&self, store: &str, used: &[&str]) -> Vec<String> {
        self.values
            .iter()
            .filter(|(k, (_, o))| !used.contains(&k.as_str()) && matches!(o, Origin::XmlFile | Origin::Flag))
            .map(|(k, _)| k)
            .map(|k| format!("warning: configuration key '{k}' is not used by the {store} store; ignored"))
            .collect()
    }
}

impl StoreConfig {
    /// Warnings for the `-D` keys a store did not use. For stores whose configuration files are
    /// whole-cluster files (Hadoop's core-site.xml holds YARN and MapReduce keys too), only keys the user
    /// typed on the command line are checked.
    pub fn unused_definitions(&self, store: &str, used: &[&str]) -> Vec<String> {
        let mut only_flags = self.clone();
        only_flags.values.retain(|_, (_, o)| *o == Origin::Flag);
        only_flags.unused(store, used)
    }
}

/// Doris conf keys and the configuration keys they mean.
pub const DORIS_KEYS: &[(&str, &str)] = &[
    ("AWS_ACCESS_KEY", "fs.s3a.access.key"),
    ("AWS_SECRET_KEY", "fs.s3a.secret.key"),
    ("AWS_ENDPOINT", "fs.s3a.endpoint"),
    ("AWS_REGION", "fs.s3a.endpoint.region"),
    ("AWS_TOKEN", "fs.s3a.session.token"),
];

/// Whether a key holds a secret whose value must never be shown.
pub fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["secret", "password", "token", "credential", "session", "account.key", "sas"].iter().any(|s| k.contains(s))
}

/// A `-D` definition fit for an error message: the value is hidden when the key holds a secret.
fn redact_definition(d: &str) -> String {
    match d.split_once('=') {
        Some((k, _)) if is_secret_key(k) => format!("{k}=***"),
        _ => d.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_files_over_env() {
        let mut c = StoreConfig::default();
        c.set("a", "env", Origin::Env);
        c.set("a", "xml", Origin::XmlFile);
        assert_eq!(c.get("a"), Some("xml"));
        c.add_definitions(&["a=flag".into()]).unwrap();
        assert_eq!(c.get("a"), Some("flag"));
        c.set("a", "xml2", Origin::XmlFile);
        assert_eq!(c.get("a"), Some("flag"));
    }

    #[test]
    fn bad_definitions() {
        let mut c = StoreConfig::default();
        assert!(c.add_definitions(&["novalue".into()]).unwrap_err().contains("'novalue'"));
        assert!(c.add_definitions(&["=x".into()]).unwrap_err().contains("key is empty"));
        let e = c.add_definitions(&["fs.s3a.secret.key".into()]).unwrap_err();
        assert!(e.contains("fs.s3a.secret.key"));
        assert!(is_secret_key("fs.s3a.secret.key"));
        assert!(!is_secret_key("fs.s3a.endpoint"));
        // Azure's account keys and SAS tokens are secrets too; its account name is not.
        assert!(is_secret_key("fs.azure.account.key.acct.blob.core.windows.net"));
        assert!(is_secret_key("fs.azure.sas.token") && !is_secret_key("fs.azure.account.name"));
    }

    #[test]
    fn reads_doris_conf() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s3.conf");
        std::fs::write(&p, "# comment\nAWS_ACCESS_KEY=ak\n\nAWS_REGION = ap-beijing\nfile_path=s3://b/k\n").unwrap();
        let mut c = StoreConfig::default();
        c.add_definitions(&["fs.s3a.endpoint.region=flag".into()]).unwrap();
        c.add_conf_file(&p).unwrap();
        assert_eq!(c.get("fs.s3a.access.key"), Some("ak"));
        assert_eq!(c.get("file_path"), Some("s3://b/k"));
        assert_eq!(c.get("fs.s3a.endpoint.region"), Some("flag"), "-D wins over the file");
        std::fs::write(&p, "AWS_ACCESS_KEY=ak\nbroken line\n").unwrap();
        let e = c.add_conf_file(&p).unwrap_err();
        assert!(e.contains("line 2: expected key=value"), "{e}");
    }

    #[test]
    fn reads_hadoop_xml() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("core-site.xml");
        std::fs::write(
            &p,
            "<?xml version=\"1.0\"?>\n<configuration>\n<property><name>fs.s3a.multipart.size</name><value> 32M </value></property>\n<property><name>fs.s3a.fast.upload.active.blocks</name><value>2</value></property>\n</configuration>\n",
        )
        .unwrap();
        let mut c = StoreConfig::default();
        c.add_xml_file(&p).unwrap();
        assert_eq!(c.get("fs.s3a.multipart.size"), Some("32M"));
        assert_eq!(c.get("fs.s3a.fast.upload.active.blocks"), Some("2"));
        std::fs::write(&p, "<configuration><property><value>1</value></property></configuration>").unwrap();
        assert!(c.add_xml_file(&p).unwrap_err().contains("without a <name>"));
        std::fs::write(&p, "<conf>").unwrap();
        assert!(c.add_xml_file(&p).unwrap_err().contains("not valid XML"));
        let warnings = c.unused("file://", &["fs.s3a.multipart.size"]);
        // A HADOOP_CONF_DIR sits below files and flags, and its keys are never warned about.
        let conf = dir.path().join("conf");
        std::fs::create_dir(&conf).unwrap();
        std::fs::write(conf.join("hdfs-site.xml"), "<configuration><property><name>dfs.replication</name><value>2</value></property><property><name>fs.s3a.multipart.size</name><value>8M</value></property></configuration>").unwrap();
        let mut h = StoreConfig::default();
        h.add_definitions(&["fs.s3a.multipart.size=16M".into()]).unwrap();
        h.add_hadoop_conf_dir(&conf).unwrap();
        assert_eq!((h.get("dfs.replication"), h.get("fs.s3a.multipart.size")), (Some("2"), Some("16M")));
        assert!(h.unused("hdfs://", &[]).iter().all(|w| !w.contains("dfs.replication")));
        h.set("yarn.x", "1", Origin::XmlFile);
        h.add_definitions(&["dfs.replicaton=2".into()]).unwrap();
        let w = h.unused_definitions("hdfs://", &[]);
        assert!(w.len() == 2 && w.iter().all(|w| !w.contains("yarn.x")), "{w:?}");
        assert!(h.add_hadoop_conf_dir(&dir.path().join("nope")).unwrap_err().contains("not a directory"));
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("fs.s3a.fast.upload.active.blocks"));
    }
}

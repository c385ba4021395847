//! AWS named profiles: `~/.aws/credentials` and `~/.aws/config` (or AWS_SHARED_CREDENTIALS_FILE and
//! AWS_CONFIG_FILE), chosen by AWS_PROFILE, `--profile` or `-D fs.s3a.profile=NAME`.
//!
//! A profile's values sit at the environment's precedence: any key given in a file, by `-D` or by a
//! flag wins over it, and so do the AWS_* variables themselves, as in the AWS SDKs.

use crate::store::config::{Origin, StoreConfig};
use std::collections::HashMap;
use std::path::PathBuf;

/// Profile entries and the keys they set.
const PROFILE_KEYS: &[(&str, &str)] = &[
    ("aws_access_key_id", "fs.s3a.access.key"),
    ("aws_secret_access_key", "fs.s3a.secret.key"),
    ("aws_session_token", "fs.s3a.session.token"),
    ("region", "fs.s3a.endpoint.region"),
    ("endpoint_url", "fs.s3a.endpoint"),
];

/// The sections of an INI file: name -> key -> value.
fn parse_ini(text: &str) -> HashMap<String, HashMap<String, String>> {
    let mut out: HashMap<String, HashMap<String, String>> = HashMap::new();
    let mut section: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.trim().to_string());
            continue;
        }
        if let (Some(s), Some((k, v))) = (&section, line.split_once('=')) {
            out.entry(s.clone()).or_default().insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    out
}

fn home_file(var: &str, default: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) if !p.is_empty() => Some(PathBuf::from(p)),
        _ => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(default)),
    }
}

/// The entries of profile `name`: the credentials file's `[name]` over the config file's
/// `[profile name]` (`[default]` in both for the default profile).
pub fn read(name: &str, credentials: Option<&str>, config: Option<&str>) -> Option<HashMap<String, String>> {
    let mut found = None::<HashMap<String, String>>;
    if let Some(text) = config {
        let mut ini = parse_ini(text);
        let section = if name == "default" { ini.remove("default") } else { None }
            .or_else(|| ini.remove(&format!("profile {name}")));
        if let Some(s) = section {
            found = Some(s);
        }
    }
    if let Some(text) = credentials {
        if let Some(s) = parse_ini(text).remove(name) {
            found.get_or_insert_with(HashMap::new).extend(s);
        }
    }
    found
}

/// Sets the keys profile `name` gives, below every other origin.
pub fn apply(config: &mut StoreConfig, name: &str) -> Result<(), String> {
    let cred_path = home_file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    let conf_path = home_file("AWS_CONFIG_FILE", ".aws/config");
    let load = |p: &Option<PathBuf>| {
        p.as_ref().and_then(|p| {
            crate::store::config::read_input(p, "AWS profile file", crate::store::config::MAX_CONFIG_FILE).ok()
        })
    };
    let (cred, conf) = (load(&cred_path), load(&conf_path));
    let Some(entries) = read(name, cred.as_deref(), conf.as_deref()) else {
        let shown = |p: &Option<PathBuf>| p.as_ref().map_or("(no HOME)".into(), |p| p.display().to_string());
        return Err(format!(
            "AWS profile '{name}' is not in {} or {}: give a profile those files define",
            shown(&cred_path),
            shown(&conf_path)
        ));
    };
    for (entry, key) in PROFILE_KEYS {
        if let Some(v) = entries.get(*entry) {
            config.set_if_absent(key, v, Origin::Env);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_file_wins_over_config_file() {
        let creds =
            "[default]\naws_access_key_id = AKD\n\n[bench]\naws_access_key_id=AKB\naws_secret_access_key = sb\n";
        let conf = "[default]\nregion=us-east-1\n[profile bench]\nregion = eu-west-1\nendpoint_url = http://127.0.0.1:1\naws_access_key_id = FROMCONF\n";
        let p = read("bench", Some(creds), Some(conf)).unwrap();
        assert_eq!(p["aws_access_key_id"], "AKB");
        assert_eq!(p["region"], "eu-west-1");
        assert_eq!(p["endpoint_url"], "http://127.0.0.1:1");
        let d = read("default", Some(creds), Some(conf)).unwrap();
        assert_eq!((d["aws_access_key_id"].as_str(), d["region"].as_str()), ("AKD", "us-east-1"));
        assert!(read("nope", Some(creds), Some(conf)).is_none());
        // The config file names non-default profiles "profile NAME", never bare.
        assert!(read("bench", None, Some("[bench]\nregion=x\n")).is_none());
    }

    #[test]
    fn profile_sits_below_env_and_flags() {
        let mut c = StoreConfig::default();
        c.set("fs.s3a.access.key", "FROMENV", Origin::Env);
        c.set("fs.s3a.endpoint.region", "flag-region", Origin::Flag);
        c.set_if_absent("fs.s3a.access.key", "FROMPROFILE", Origin::Env);
        c.set_if_absent("fs.s3a.endpoint.region", "profile-region", Origin::Env);
        c.set_if_absent("fs.s3a.secret.key", "s", Origin::Env);
        assert_eq!(c.get("fs.s3a.access.key"), Some("FROMENV"));
        assert_eq!(c.get("fs.s3a.endpoint.region"), Some("flag-region"));
        assert_eq!(c.get("fs.s3a.secret.key"), Some("s"));
    }
}

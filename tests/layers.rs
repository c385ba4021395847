//! The house rule "layers only point down", checked from the code: every `crate::` path in `src/`
//! names a top-level module, and a module may only name modules below it in [`LAYERS`]. A new import
//! that points up (or a new top-level module not placed here) fails this test with the file and line.

use std::collections::BTreeSet;
use std::path::Path;

/// Top-level modules of `src/`, from the top (what runs first) down to the leaves.
const LAYERS: &[&str] =
    &["main", "lib", "app", "driver", "plan", "cli", "export", "workload", "error", "run", "store", "stats", "units"];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules a line names through `crate::name` or `crate::{a, b::c}`.
fn named(line: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Split the group at its own commas (not those of nested groups); each item's first name.
            let first = |item: &str| -> String {
                item.trim().chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect()
            };
            let (mut depth, mut item) = (0, String::new());
            for c in group.chars() {
                match c {
                    '}' if depth == 0 => break,
                    ',' if depth == 0 => names.push(first(&std::mem::take(&mut item))),
                    _ => {
                        depth += i32::from(c == '{') - i32::from(c == '}');
                        item.push(c);
                    }
                }
            }
            names.push(first(&item));
        } else {
            names.push(rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect());
        }
    }
    names.into_iter().filter(|n| !n.is_empty()).collect()
}

fn layer(name: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == name)
}

#[test]
fn imports_only_point_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut up = Vec::new();
    let mut unknown = BTreeSet::new();
    let mut edges = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_string_lossy().trim_end_matches(".rs").to_string();
        let Some(from) = layer(&top) else {
            unknown.insert(top);
            continue;
        };
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            for name in named(line) {
                if name == top {
                    continue;
                }
                match layer(&name) {
                    None => {
                        unknown.insert(name);
                    }
                    Some(to) if to <= from => up.push(format!("src/{}:{}: {top} -> {name}", rel.display(), n + 1)),
                    Some(_) => {
                        edges.insert((top.clone(), name));
                    }
                }
            }
        }
    }
    assert!(unknown.is_empty(), "top-level modules missing from LAYERS: {unknown:?}");
    assert!(up.is_empty(), "imports that point up (or sideways):\n{}", up.join("\n"));
    // The check sees the real imports (a parser that saw nothing would pass vacuously).
    assert!(edges.contains(&("driver".into(), "workload".into())), "{edges:?}");
    assert!(edges.contains(&("workload".into(), "store".into())), "{edges:?}");
}

#[test]
fn the_parser_reads_groups_and_paths() {
    assert_eq!(named("use crate::{cli::x, store::{a, b}};"), ["cli", "store"]);
    assert_eq!(named("let x = crate::units::parse_size(s)?; crate::run::host_name()"), ["units", "run"]);
    assert!(named("use std::fs;").is_empty());
}

//! `storebench compare`: reads the reports, checks they can be compared, prints the changes, writes
//! the HTML page if asked, and fails (exit 1) under `--fail-if-slower` when a figure got significantly
//! worse by more than the limit. It measures nothing, so it does not go through [`super::drive`].

use crate::cli::compare::{CompareArgs, CompareFormat};
use crate::error::Error;
use crate::export::compare::{self, Compared};
use std::io::Write;

/// Runs `compare`.
pub fn run(args: CompareArgs) -> Result<(), Error> {
    let name = super::report::name_of;
    let base = super::report::read_report(&args.base).map_err(Error::Usage)?;
    let news = args
        .new
        .iter()
        .map(|p| super::report::read_report(p).map(|r| (name(p), r)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::Usage)?;
    let mut runs = Vec::new();
    for (n, r) in &news {
        let changes = crate::stats::compare::compare(&base, r).map_err(|e| Error::Usage(format!("{n}: {e}")))?;
        runs.push(Compared { name: n.clone(), report: r, changes });
    }
    let base_name = name(&args.base);
    let text = match args.format {
        CompareFormat::Text => compare::text(&base_name, &base, &runs),
        CompareFormat::Markdown => compare::markdown(&base_name, &base, &runs),
    };
    super::print_stdout(&text);
    if let Some(p) = &args.output {
        let page = compare::html(&base_name, &base, &runs);
        let mut f = crate::export::open_output(p, "the HTML file", false).map_err(Error::Usage)?;
        f.write_all(page.as_bytes())
            .map_err(|e| Error::Run(format!("writing the HTML file {} failed: {e}", p.display())))?;
    }
    if let Some(limit) = args.fail_if_slower {
        let worse: Vec<String> = runs
            .iter()
            .flat_map(|c| c.changes.iter().map(move |x| (c, x)))
            .filter(|(_, x)| x.significant && x.worse_pct() > limit)
            .map(|(c, x)| format!("{}: {} {:.1} % worse", c.name, x.figure, x.worse_pct()))
            .collect();
        if !worse.is_empty() {
            return Err(Error::Run(format!(
                "--fail-if-slower {limit}: {} significantly worse by more than {limit} % ({})",
                if worse.len() == 1 { "a figure got" } else { "figures got" },
                worse.join("; ")
            )));
        }
    }
    Ok(())
}

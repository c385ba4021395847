//! The operations `storebench ops` times, and their names as users type them.

use clap::ValueEnum;

/// The operations (Apache Doris fs_benchmark_tool's, plus stat and delete).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ValueEnum)]
#[value(rename_all = "snake_case")]
pub enum Op {
    /// Thread K creates BASE/test_K and writes --file-size bytes to it in --buffer-size writes.
    CreateWrite,
    /// Thread K reads BASE/test_K (--file-size bytes; 0 = the whole file) in --buffer-size reads.
    OpenRead,
    /// Every thread reads --file-path (--file-size bytes, 0 = whole; --random: at random offsets).
    SingleRead,
    /// As single_read, through a prefetching reader (--prefetch blocks of --buffer-size ahead).
    PrefetchRead,
    /// Thread K asks whether BASE/test_K exists.
    Exists,
    /// Thread K asks BASE/test_K's size.
    Stat,
    /// Thread K renames BASE/test_K to BASE/test_K_new (and back on the next iteration).
    Rename,
    /// Lists BASE.
    List,
    /// Thread K deletes BASE/test_K_I, one file per iteration (made first, untimed).
    Delete,
}

impl Op {
    /// Every operation.
    pub const ALL: [Op; 9] = [
        Op::CreateWrite,
        Op::OpenRead,
        Op::SingleRead,
        Op::PrefetchRead,
        Op::Exists,
        Op::Stat,
        Op::Rename,
        Op::List,
        Op::Delete,
    ];

    /// The operation's name as users type it.
    pub fn name(self) -> &'static str {
        match self {
            Op::CreateWrite => "create_write",
            Op::OpenRead => "open_read",
            Op::SingleRead => "single_read",
            Op::PrefetchRead => "prefetch_read",
            Op::Exists => "exists",
            Op::Stat => "stat",
            Op::Rename => "rename",
            Op::List => "list",
            Op::Delete => "delete",
        }
    }

    /// The operation named `s`.
    pub fn parse(s: &str) -> Result<Op, String> {
        Op::ALL.iter().copied().find(|o| o.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Op::ALL.iter().map(|o| o.name()).collect();
            format!("unknown operation '{s}': valid are {}", names.join(", "))
        })
    }
}

//! HDFS errors as one line each: what failed, on which path, at which NameNode or DataNode.

#[allow(unused_imports)]
use super::*;

/// The first line of a Java exception message, whitespace squashed.
pub(super) fn first_line(msg: &str) -> String {
    let line = msg.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The last part of a Java class name.
pub(super) fn short_class(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// Folds hdfs-native's errors into storebench's, on one line, naming the peer (`namenode` for metadata
/// calls, a DataNode for streams) when it cannot be reached.
pub(super) fn map_err(op: &'static str, path: &str, namenode: &str, e: HdfsError) -> StoreError {
    let failed = |detail: String| StoreError::Failed { op, path: path.into(), detail };
    match e {
        HdfsError::FileNotFound(msg) => {
            if msg.contains("arent") {
                failed(format!("the parent directory does not exist ({})", first_line(&msg)))
            } else {
                StoreError::NotFound { path: path.into() }
            }
        }
        HdfsError::AlreadyExists(msg) if msg.contains("being created") || msg.contains("lease") => {
            failed(format!("another client is writing it ({})", first_line(&msg)))
        }
        HdfsError::AlreadyExists(_) => StoreError::AlreadyExists { path: path.into() },
        HdfsError::RPCError(class, msg) | HdfsError::FatalRPCError(class, msg) => {
            let short = short_class(&class);
            let line = first_line(&msg);
            match short {
                "AccessControlException" => StoreError::PermissionDenied { op, path: path.into(), detail: line },
                "SafeModeException" => failed(format!(
                    "the NameNode is in safe mode and refuses changes ({line}); wait for it to leave safe mode \
                     (hdfs dfsadmin -safemode get)"
                )),
                "FileNotFoundException" if line.contains("arent") => {
                    failed(format!("the parent directory does not exist ({line})"))
                }
                "FileNotFoundException" => StoreError::NotFound { path: path.into() },
                "ParentNotDirectoryException" => failed(format!("a parent is a file, not a directory ({line})")),
                "PathIsNotEmptyDirectoryException" => failed(format!("the directory is not empty ({line})")),
                "DSQuotaExceededException" | "NSQuotaExceededException" => {
                    failed(format!("the quota is exceeded ({line})"))
                }
                "NotReplicatedYetException" | "RetriableException" => {
                    failed(format!("the NameNode asked to retry later: {short}: {line}"))
                }
                _ => failed(format!("{short}: {line}")),
            }
        }
        HdfsError::IOError(io) => {
            use std::io::ErrorKind::*;
            match io.kind() {
                ConnectionRefused | ConnectionReset | ConnectionAborted | TimedOut | NotConnected
                | AddrNotAvailable => failed(format!("cannot reach {namenode}: {io}")),
                _ if io.to_string().contains("failed to lookup address")
                    || io.to_string().contains("Name or service") =>
                {
                    failed(format!("cannot reach {namenode}: {io}"))
                }
                _ => failed(format!("I/O error talking to HDFS: {}", first_line(&io.to_string()))),
            }
        }
        HdfsError::DataTransferError(msg) => failed(format!("DataNode transfer failed: {}", first_line(&msg))),
        HdfsError::BlocksNotFound(msg) => {
            failed(format!("no live DataNode holds a block of it ({})", first_line(&msg)))
        }
        other => failed(first_line(&other.to_string())),
    }
}

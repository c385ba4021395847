//! Object-store errors as one line each: the operation, the key, the endpoint, and what the
//! server said (refused credentials named as such).

#[allow(unused_imports)]
use super::*;

/// Server error codes that mean the credentials were refused (versitygw says XAdminUserNotFound).
pub(super) const CREDENTIAL_CODES: &[&str] = &[
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "XAdminUserNotFound",
    "AccessDenied",
    "InvalidToken",
    "ExpiredToken",
];

pub(super) fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let from = text.find(open)? + open.len();
    let to = text[from..].find(close)? + from;
    Some(&text[from..to])
}

/// One line from an object_store error: the HTTP status and the server's Code and Message when the
/// response carried an S3 XML error, else the message with its whitespace squashed.
pub(super) fn summarize(text: &str) -> String {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let status = text.split("status code: ").nth(1).and_then(|r| r.split(':').next()).map(str::trim);
    // Azure appends "RequestId:... Time:..." on lines of their own to its messages.
    let message = |m: &str| squash(m.split("RequestId:").next().unwrap_or(m));
    match (between(text, "<Code>", "</Code>"), between(text, "<Message>", "</Message>")) {
        (Some(code), msg) => format!("HTTP {} {code}: {}", status.unwrap_or("error"), message(msg.unwrap_or("")))
            .trim_end_matches(": ")
            .to_string(),
        // GCS answers in JSON: {"error":{"code":400,"message":"..."}}.
        _ => match (status, between(text, "\"message\":\"", "\"")) {
            (Some(s), Some(m)) => format!("HTTP {s}: {}", message(m)),
            _ => squash(text),
        },
    }
}

/// Folds object_store's errors into storebench's, on one line, saying which host when it cannot be
/// reached and which access key id when credentials are refused; secrets never appear.
pub(super) fn map_err(
    op: &'static str,
    path: &str,
    endpoint: &str,
    key_id: &str,
    e: object_store::Error,
) -> StoreError {
    let text = crate::store::redact_text(&e.to_string());
    let endpoint = crate::store::redact_url(endpoint);
    let endpoint = endpoint.as_str();
    let refused = |detail: String| StoreError::PermissionDenied {
        op,
        path: path.into(),
        detail: format!("the server refused the credentials of access key id '{key_id}' ({detail})"),
    };
    match e {
        object_store::Error::NotFound { .. } => StoreError::NotFound { path: path.into() },
        object_store::Error::AlreadyExists { .. } => StoreError::AlreadyExists { path: path.into() },
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
            refused(summarize(&text))
        }
        _ if CREDENTIAL_CODES.iter().any(|c| text.contains(c)) || text.contains("403 Forbidden") => {
            refused(summarize(&text))
        }
        _ => {
            let detail = if let Some(at) = text.find("no answer from ") {
                // The answer timeout's own words, up to its closing parenthesis.
                let rest = &text[at..];
                rest[..rest.find(')').map_or(rest.len(), |i| i + 1)].to_string()
            } else if text.contains("NoSuchBucket") {
                format!("the bucket does not exist ({})", summarize(&text))
            } else if text.contains("error sending request")
                || text.contains("Connection refused")
                || text.contains("timed out")
            {
                format!("cannot reach {endpoint}: {}", summarize(&text))
            } else {
                summarize(&text)
            };
            StoreError::Failed { op, path: path.into(), detail }
        }
    }
}

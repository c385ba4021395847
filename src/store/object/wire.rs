//! What went over the wire: every HTTP request the object_store client sends, by method and by the
//! class of its answer, and the retries among them.
//!
//! object_store retries inside one call, out of sight of the caller; a counting [`HttpService`]
//! wrapped around its own reqwest client sees every attempt. An attempt is a retry when the previous
//! attempt of the same method on the same URL failed (a 5xx, a 429 or a transport error).

use async_trait::async_trait;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};
use object_store::ClientOptions;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// HTTP methods counted apart; anything else counts as "other".
const METHODS: [&str; 5] = ["GET", "HEAD", "PUT", "POST", "DELETE"];

/// Counters of HTTP attempts, shared by every client a store builds.
#[derive(Debug, Default)]
pub struct Wire {
    by_method: [AtomicU64; 6],
    ok: AtomicU64,
    client_errors: AtomicU64,
    server_errors: AtomicU64,
    throttled: AtomicU64,
    transport_errors: AtomicU64,
    retries: AtomicU64,
    /// Attempts whose answer failed and may be retried: "METHOD URL".
    failed: Mutex<HashSet<String>>,
    /// Whether `failed` may hold anything, so the common path takes no lock.
    any_failed: AtomicU64,
}

impl Wire {
    fn attempt(&self, key: &str, method: &str) {
        let i = METHODS.iter().position(|m| *m == method).unwrap_or(METHODS.len());
        self.by_method[i].fetch_add(1, Ordering::Relaxed);
        if self.any_failed.load(Ordering::Relaxed) > 0 {
            let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
            if failed.remove(key) {
                self.retries.fetch_add(1, Ordering::Relaxed);
                self.any_failed.fetch_sub(1, Ordering::Relaxed);
            }
        }
    }

    fn answered(&self, key: String, status: Option<u16>) {
        let retryable = match status {
            None => {
                self.transport_errors.fetch_add(1, Ordering::Relaxed);
                true
            }
            Some(s) if s < 400 => {
                self.ok.fetch_add(1, Ordering::Relaxed);
                false
            }
            Some(429) => {
                self.throttled.fetch_add(1, Ordering::Relaxed);
                true
            }
            Some(s) if s < 500 => {
                self.client_errors.fetch_add(1, Ordering::Relaxed);
                false
            }
            Some(s) => {
                self.server_errors.fetch_add(1, Ordering::Relaxed);
                if s == 503 {
                    self.throttled.fetch_add(1, Ordering::Relaxed);
                }
                true
            }
        };
        if retryable {
            let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
            if failed.insert(key) {
                self.any_failed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// The counters, named as docs/metrics.md lists them.
    pub fn counters(&self) -> Vec<(String, u64)> {
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let mut out: Vec<(String, u64)> = METHODS
            .iter()
            .chain(std::iter::once(&"OTHER"))
            .zip(&self.by_method)
            .map(|(m, n)| (format!("http_{}", m.to_ascii_lowercase()), l(n)))
            .collect();
        out.extend([
            ("http_attempts".to_string(), self.by_method.iter().map(l).sum()),
            ("http_ok".to_string(), l(&self.ok)),
            ("http_4xx".to_string(), l(&self.client_errors)),
            ("http_5xx".to_string(), l(&self.server_errors)),
            ("http_throttled".to_string(), l(&self.throttled)),
            ("http_transport_errors".to_string(), l(&self.transport_errors)),
            ("http_retries".to_string(), l(&self.retries)),
        ]);
        out
    }
}

/// The longest wait for an answer, and the key that sets it, for messages.
#[derive(Clone, Copy, Debug)]
pub struct AnswerTimeout {
    /// How long a request may wait for the response to begin.
    pub wait: std::time::Duration,
    /// The configuration key that sets it.
    pub key: &'static str,
}

/// An HTTP connector whose clients count every attempt in a [`Wire`] and give up on a server that
/// does not begin to answer within the [`AnswerTimeout`].
#[derive(Debug)]
pub struct CountingConnector(pub Arc<Wire>, pub AnswerTimeout);

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(Counting { inner, wire: self.0.clone(), timeout: self.1 }))
    }
}

#[derive(Debug)]
struct Counting {
    inner: HttpClient,
    wire: Arc<Wire>,
    timeout: AnswerTimeout,
}

/// The error of a server that did not answer in time; its text is what the user reads.
#[derive(Debug)]
struct NoAnswer(String);

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoAnswer {}

#[async_trait]
impl HttpService for Counting {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let method = req.method().as_str().to_string();
        let key = format!("{method} {}", req.uri());
        self.wire.attempt(&key, &method);
        // Host and port only: the authority may carry user:password.
        let uri = req.uri();
        let host = match (uri.host(), uri.port_u16()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => "the server".to_string(),
        };
        let t = self.timeout;
        let r = match tokio::time::timeout(t.wait, self.inner.execute(req)).await {
            Ok(r) => r,
            Err(_) => Err(HttpError::new(
                object_store::client::HttpErrorKind::Timeout,
                NoAnswer(format!("no answer from {host} in {} s (set by {})", t.wait.as_secs_f64(), t.key)),
            )),
        };
        self.wire.answered(key, r.as_ref().ok().map(|resp| resp.status().as_u16()));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(c: &[(String, u64)], k: &str) -> u64 {
        c.iter().find(|(n, _)| n == k).map(|(_, v)| *v).unwrap()
    }

    #[test]
    fn a_retry_is_a_repeat_of_a_failed_attempt() {
        let w = Wire::default();
        // GET a: 503, then retried and 200. PUT b: 200. GET a again later: not a retry. HEAD c: 404.
        w.attempt("GET a", "GET");
        w.answered("GET a".into(), Some(503));
        w.attempt("GET a", "GET");
        w.answered("GET a".into(), Some(200));
        w.attempt("PUT b", "PUT");
        w.answered("PUT b".into(), Some(200));
        w.attempt("GET a", "GET");
        w.answered("GET a".into(), None);
        w.attempt("HEAD c", "HEAD");
        w.answered("HEAD c".into(), Some(404));
        w.attempt("HEAD c", "HEAD");
        let c = w.counters();
        assert_eq!(get(&c, "http_get"), 3);
        assert_eq!(get(&c, "http_put"), 1);
        assert_eq!(get(&c, "http_head"), 2);
        assert_eq!(get(&c, "http_attempts"), 6);
        assert_eq!(get(&c, "http_ok"), 2);
        assert_eq!(get(&c, "http_5xx"), 1);
        assert_eq!(get(&c, "http_throttled"), 1);
        assert_eq!(get(&c, "http_4xx"), 1);
        assert_eq!(get(&c, "http_transport_errors"), 1);
        // Only the second GET a followed a failure; a 404 is not retried.
        assert_eq!(get(&c, "http_retries"), 1);
    }
}

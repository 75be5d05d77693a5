//! The native transport and sleeper: a blocking `ureq` call, or a sleep, in
//! a thread of its own, its result delivered through a oneshot channel — so
//! a caller driving futures with `futures::executor::block_on` can have
//! several requests in flight at once.

use std::time::Duration;

use futures::channel::oneshot;
use insights::complete::LocalFuture;

use crate::sleep::Sleeper;
use crate::transport::{HttpRequest, HttpResponse, Transport, TransportError};

/// The largest response body read (64 MiB).
pub const MAX_BODY_BYTES: u64 = 64 << 20;

/// HTTP(S) over `ureq` (rustls, webpki roots). Every status is a response;
/// only a failure to get one is a [`TransportError`].
#[derive(Clone, Debug)]
pub struct NativeTransport {
    agent: ureq::Agent,
}

impl Default for NativeTransport {
    fn default() -> NativeTransport {
        NativeTransport::new()
    }
}

impl NativeTransport {
    /// 30 s to connect, 10 minutes for a whole call (a long answer takes a while).
    pub fn new() -> NativeTransport {
        NativeTransport::with_timeouts(Duration::from_secs(30), Some(Duration::from_secs(600)))
    }

    pub fn with_timeouts(connect: Duration, total: Option<Duration>) -> NativeTransport {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(connect))
            .timeout_global(total)
            .user_agent(concat!("codegraph-insights/", env!("CARGO_PKG_VERSION")))
            .build();
        NativeTransport { agent: ureq::Agent::new_with_config(config) }
    }
}

fn run(agent: &ureq::Agent, r: HttpRequest) -> Result<HttpResponse, TransportError> {
    let mut builder = ureq::http::Request::builder().method(r.method.as_str()).uri(r.url.as_str());
    for (k, v) in &r.headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    let request =
        builder.body(r.body.into_bytes()).map_err(|e| TransportError::new(format!("cannot build the request: {e}")))?;
    let mut response = agent.run(request).map_err(|e| TransportError::new(e.to_string()))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let body = response
        .body_mut()
        .with_config()
        .limit(MAX_BODY_BYTES)
        .read_to_string()
        .map_err(|e| TransportError::new(format!("the answer broke off: {e}")))?;
    Ok(HttpResponse { status, headers, body })
}

impl Transport for NativeTransport {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        let (tx, rx) = oneshot::channel();
        let agent = self.agent.clone();
        let spawned = std::thread::Builder::new().name("llm-http".into()).spawn(move || {
            let _ = tx.send(run(&agent, request));
        });
        Box::pin(async move {
            spawned.map_err(|e| TransportError::new(format!("cannot start the HTTP thread: {e}")))?;
            rx.await.unwrap_or_else(|_| Err(TransportError::new("the HTTP thread ended without an answer")))
        })
    }
}

/// Sleeps in a thread of its own and wakes the future through a oneshot.
#[derive(Clone, Copy, Debug, Default)]
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()> {
        if ms == 0 {
            return Box::pin(std::future::ready(()));
        }
        let (tx, rx) = oneshot::channel::<()>();
        let spawned = std::thread::Builder::new().name("llm-sleep".into()).spawn(move || {
            std::thread::sleep(Duration::from_millis(ms));
            let _ = tx.send(());
        });
        Box::pin(async move {
            if spawned.is_ok() {
                let _ = rx.await;
            } else {
                std::thread::sleep(Duration::from_millis(ms));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::executor::block_on;
    use std::time::Instant;

    #[test]
    fn sleeps_overlap() {
        let s = ThreadSleeper;
        let start = Instant::now();
        block_on(futures::future::join3(s.sleep(200), s.sleep(200), s.sleep(0)));
        let took = start.elapsed();
        // One after the other would take 400 ms.
        assert!(took >= Duration::from_millis(200) && took < Duration::from_millis(380), "{took:?}");
    }

    #[test]
    fn a_refused_connection_is_a_transport_error() {
        // Bind then drop a listener: the port is (almost certainly) closed now.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let t = NativeTransport::with_timeouts(Duration::from_secs(2), Some(Duration::from_secs(5)));
        let r = block_on(t.send(HttpRequest::post_json(format!("http://127.0.0.1:{port}/v1"), vec![], "{}".into())));
        assert!(r.is_err(), "{r:?}");
    }
}

//! The browser transport (`fetch` through `gloo-net`) and sleeper
//! (`setTimeout` through `gloo-timers`). A CORS refusal surfaces as a
//! [`TransportError`] (the browser tells no more).

use gloo_net::http::{Method, RequestBuilder};
use insights::complete::LocalFuture;

use crate::sleep::Sleeper;
use crate::transport::{HttpRequest, HttpResponse, Transport, TransportError};

/// `fetch`, every status a response.
#[derive(Clone, Copy, Debug, Default)]
pub struct FetchTransport;

impl Transport for FetchTransport {
    fn send(&self, r: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        Box::pin(async move {
            let method = r
                .method
                .parse::<Method>()
                .map_err(|e| TransportError::new(format!("bad HTTP method `{}`: {e}", r.method)))?;
            let mut builder = RequestBuilder::new(&r.url).method(method);
            for (k, v) in &r.headers {
                builder = builder.header(k, v);
            }
            // A GET (the model list) must not carry a body, not even an empty one.
            let request = if r.body.is_empty() && matches!(r.method.as_str(), "GET" | "HEAD") {
                builder.build()
            } else {
                builder.body(r.body)
            }
            .map_err(|e| TransportError::new(format!("cannot build the request: {e}")))?;
            let response = request
                .send()
                .await
                .map_err(|e| TransportError::new(format!("the request failed (network or CORS): {e}")))?;
            let status = response.status();
            let headers = response.headers().entries().collect();
            let body = response.text().await.map_err(|e| TransportError::new(format!("the answer broke off: {e}")))?;
            Ok(HttpResponse { status, headers, body })
        })
    }
}

/// `setTimeout`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimerSleeper;

impl Sleeper for TimerSleeper {
    fn sleep(&self, ms: u64) -> LocalFuture<'_, ()> {
        Box::pin(gloo_timers::future::TimeoutFuture::new(ms.min(u32::MAX as u64) as u32))
    }
}

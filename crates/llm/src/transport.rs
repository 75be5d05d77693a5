//! The one HTTP seam: [`Transport::send`]. Everything the client knows about
//! a provider is in the request it builds and the response it reads.

use std::fmt;
use std::rc::Rc;

use insights::complete::LocalFuture;

/// Header names whose values are credentials: never printed.
pub const SECRET_HEADERS: [&str; 5] =
    ["authorization", "cf-aig-authorization", "x-api-key", "api-key", "proxy-authorization"];

/// Whether a header carries a credential (case-insensitive).
pub fn is_secret_header(name: &str) -> bool {
    SECRET_HEADERS.iter().any(|s| s.eq_ignore_ascii_case(name))
}

/// One HTTP request. Its `Debug` redacts credential headers.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpRequest {
    /// A `POST` of a JSON body.
    pub fn post_json(url: impl Into<String>, headers: Vec<(String, String)>, body: String) -> HttpRequest {
        HttpRequest { method: "POST".into(), url: url.into(), headers, body }
    }

    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

struct Headers<'a>(&'a [(String, String)]);

impl fmt::Debug for Headers<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        for (k, v) in self.0 {
            if is_secret_header(k) {
                list.entry(&(k, "<redacted>"));
            } else {
                list.entry(&(k, v));
            }
        }
        list.finish()
    }
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &Headers(&self.headers))
            .field("body", &self.body)
            .finish()
    }
}

/// One HTTP response, whatever its status. Header names as the transport
/// gave them; look them up with [`HttpResponse::header`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// A response with a body and no headers.
    pub fn new(status: u16, body: impl Into<String>) -> HttpResponse {
        HttpResponse { status, headers: Vec::new(), body: body.into() }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> HttpResponse {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The first header of that name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// No response at all: DNS, refused, reset, a timeout, a CORS refusal.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TransportError {
    pub message: String,
}

impl TransportError {
    pub fn new(message: impl Into<String>) -> TransportError {
        TransportError { message: message.into() }
    }
}

/// Sends one request and resolves to its response (any status) or to a
/// transport failure. Futures need not be `Send`; several may be in flight.
pub trait Transport {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>>;
}

impl<T: Transport + ?Sized> Transport for &T {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        (**self).send(request)
    }
}

impl<T: Transport + ?Sized> Transport for Rc<T> {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        (**self).send(request)
    }
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        (**self).send(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_redacts_credentials() {
        let r = HttpRequest::post_json(
            "https://example.invalid/v1/chat/completions",
            vec![
                ("Authorization".into(), "Bearer sk-secret-1".into()),
                ("cf-aig-authorization".into(), "Bearer cf-secret-2".into()),
                ("content-type".into(), "application/json".into()),
            ],
            "{}".into(),
        );
        let shown = format!("{r:?}");
        assert!(!shown.contains("sk-secret-1") && !shown.contains("cf-secret-2"), "{shown}");
        assert!(shown.contains("<redacted>") && shown.contains("application/json"));
        assert_eq!(r.header("AUTHORIZATION"), Some("Bearer sk-secret-1"));
    }

    #[test]
    fn response_headers_are_case_insensitive() {
        let r = HttpResponse::new(429, "").with_header("Retry-After", "2");
        assert_eq!(r.header("retry-after"), Some("2"));
        assert_eq!(r.header("x-missing"), None);
    }
}

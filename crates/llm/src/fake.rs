//! An in-memory [`Transport`] with scripted replies, for tests (here and in
//! other crates): no socket, no clock.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use insights::complete::LocalFuture;

use crate::transport::{HttpRequest, HttpResponse, Transport, TransportError};

type Responder = Box<dyn Fn(&HttpRequest, usize) -> Result<HttpResponse, TransportError>>;

/// Replies from a script (in order), then from a responder if one is set.
/// Records every request. Clones share the script and the record.
#[derive(Clone, Default)]
pub struct FakeTransport {
    inner: Rc<Inner>,
}

#[derive(Default)]
struct Inner {
    script: RefCell<VecDeque<Result<HttpResponse, TransportError>>>,
    responder: RefCell<Option<Responder>>,
    requests: RefCell<Vec<HttpRequest>>,
}

impl FakeTransport {
    pub fn new() -> FakeTransport {
        FakeTransport::default()
    }

    /// Queues a response.
    pub fn reply(&self, response: HttpResponse) -> &Self {
        self.inner.script.borrow_mut().push_back(Ok(response));
        self
    }

    /// Queues a `200` whose body is this JSON.
    pub fn reply_json(&self, body: &serde_json::Value) -> &Self {
        self.reply(HttpResponse::new(200, body.to_string()).with_header("content-type", "application/json"))
    }

    /// Queues a `200` chat completion whose message content is `content`.
    pub fn reply_content(&self, content: &str) -> &Self {
        self.reply_json(&chat_reply(content))
    }

    /// Queues a transport failure.
    pub fn fail(&self, message: &str) -> &Self {
        self.inner.script.borrow_mut().push_back(Err(TransportError::new(message)));
        self
    }

    /// Answers once the script is used up; `n` is the 1-based request number.
    pub fn respond_with(&self, f: impl Fn(&HttpRequest, usize) -> Result<HttpResponse, TransportError> + 'static) {
        *self.inner.responder.borrow_mut() = Some(Box::new(f));
    }

    /// Every request sent, in order.
    pub fn requests(&self) -> Vec<HttpRequest> {
        self.inner.requests.borrow().clone()
    }

    /// How many requests were sent.
    pub fn count(&self) -> usize {
        self.inner.requests.borrow().len()
    }

    /// The bodies sent, parsed as JSON.
    pub fn bodies(&self) -> Vec<serde_json::Value> {
        self.inner.requests.borrow().iter().map(|r| serde_json::from_str(&r.body).expect("a JSON body")).collect()
    }
}

/// A minimal chat-completion reply (`finish_reason` "stop", usage 10/5, model `fake/served`).
pub fn chat_reply(content: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "gen-1",
        "model": "fake/served",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
}

impl Transport for FakeTransport {
    fn send(&self, request: HttpRequest) -> LocalFuture<'_, Result<HttpResponse, TransportError>> {
        self.inner.requests.borrow_mut().push(request.clone());
        let n = self.inner.requests.borrow().len();
        let scripted = self.inner.script.borrow_mut().pop_front();
        let result = match scripted {
            Some(r) => r,
            None => match self.inner.responder.borrow().as_ref() {
                Some(f) => f(&request, n),
                None => Err(TransportError::new(format!("fake transport: no reply scripted for request {n}"))),
            },
        };
        Box::pin(std::future::ready(result))
    }
}

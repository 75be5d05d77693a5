//! Messages between the page (main thread) and the dedicated Worker.
//!
//! Both directions are plain serde enums, externally visible as
//! `{"type": "...", ...}` objects. On wasm32 they cross `postMessage` as
//! JS objects via `serde-wasm-bindgen` (see [`crate::wire`]); the same shape
//! round-trips through JSON, which the native tests check.

use serde::{Deserialize, Serialize};

/// Bumped whenever a message changes shape; page and worker must agree.
pub const PROTOCOL_VERSION: u32 = 1;

/// The crate version, shown by the page once the worker has answered.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Page -> Worker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToWorker {
    /// Ask the worker to (re)announce itself with [`FromWorker::Ready`].
    Hello { protocol: u32 },
}

/// Worker -> Page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker is running; sent unasked at start-up and as the answer to
    /// [`ToWorker::Hello`].
    Ready { version: String, protocol: u32 },
    /// Something the page sent could not be handled.
    Error { message: String },
}

impl FromWorker {
    pub fn ready() -> Self {
        FromWorker::Ready {
            version: APP_VERSION.to_string(),
            protocol: PROTOCOL_VERSION,
        }
    }
}

/// What the worker answers to one message from the page (pure, so it is
/// tested natively).
pub fn handle(msg: ToWorker) -> FromWorker {
    match msg {
        ToWorker::Hello { protocol } if protocol == PROTOCOL_VERSION => FromWorker::ready(),
        ToWorker::Hello { protocol } => FromWorker::Error {
            message: format!(
                "protocol mismatch: page speaks {protocol}, worker speaks {PROTOCOL_VERSION}"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_a_type_tag() {
        let json = serde_json::to_value(ToWorker::Hello { protocol: 1 }).unwrap();
        assert_eq!(json, serde_json::json!({"type": "hello", "protocol": 1}));
        let json = serde_json::to_value(FromWorker::ready()).unwrap();
        assert_eq!(json["type"], "ready");
        assert_eq!(json["version"], APP_VERSION);
    }

    #[test]
    fn messages_round_trip() {
        for msg in [
            FromWorker::ready(),
            FromWorker::Error {
                message: "x".into(),
            },
        ] {
            let back: FromWorker =
                serde_json::from_str(&serde_json::to_string(&msg).unwrap()).unwrap();
            assert_eq!(back, msg);
        }
    }

    #[test]
    fn hello_is_answered_with_ready_or_a_mismatch() {
        assert_eq!(
            handle(ToWorker::Hello {
                protocol: PROTOCOL_VERSION
            }),
            FromWorker::ready()
        );
        assert!(matches!(
            handle(ToWorker::Hello {
                protocol: PROTOCOL_VERSION + 1
            }),
            FromWorker::Error { .. }
        ));
    }
}

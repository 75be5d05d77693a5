//! The dedicated Worker: owns all state; talks to the page only through
//! [`crate::protocol`] messages.

use crate::protocol::{self, FromWorker, ToWorker};
use crate::wire;
use wasm_bindgen::prelude::*;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

pub fn start() {
    console_error_panic_hook::set_once();
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();

    let reply_scope = scope.clone();
    let onmessage = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        let answer = match wire::from_js::<ToWorker>(ev.data()) {
            Ok(msg) => protocol::handle(msg),
            Err(e) => FromWorker::Error {
                message: format!("unreadable message: {e}"),
            },
        };
        post(&reply_scope, &answer);
    });
    scope.set_onmessage(Some(onmessage.as_ref().unchecked_ref()));
    onmessage.forget();

    // Messages the page sent while our wasm was still loading had no
    // listener and are gone, so announce ourselves now.
    post(&scope, &FromWorker::ready());
}

fn post(scope: &DedicatedWorkerGlobalScope, msg: &FromWorker) {
    let sent = wire::to_js(msg).and_then(|v| scope.post_message(&v).map_err(|e| format!("{e:?}")));
    if let Err(e) = sent {
        web_sys::console::error_1(&format!("worker: cannot post {msg:?}: {e}").into());
    }
}

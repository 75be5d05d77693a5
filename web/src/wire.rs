//! Moving protocol messages across `postMessage` (wasm32 only).

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::{JsCast, JsValue};

/// Serialize a message into a structured-clonable JS object.
pub fn to_js<T: Serialize>(msg: &T) -> Result<JsValue, String> {
    serde_wasm_bindgen::to_value(msg).map_err(|e| e.to_string())
}

/// The kind of an externally tagged message (its one key), e.g. `planned`.
pub fn kind(msg: &JsValue) -> Option<String> {
    js_sys::Object::keys(msg.dyn_ref::<js_sys::Object>()?).get(0).as_string()
}

/// The body of an externally tagged message (the value of its one key):
/// where what travels beside a message (bytes, files) is put.
pub fn body(msg: &JsValue) -> Option<js_sys::Object> {
    js_sys::Object::values(msg.dyn_ref::<js_sys::Object>()?).get(0).dyn_into().ok()
}

/// Read a message out of a `MessageEvent.data`.
pub fn from_js<T: DeserializeOwned>(data: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(data).map_err(|e| e.to_string())
}

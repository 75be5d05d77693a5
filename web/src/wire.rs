//! Moving protocol messages across `postMessage` (wasm32 only).

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// Serialize a message into a structured-clonable JS object.
pub fn to_js<T: Serialize>(msg: &T) -> Result<JsValue, String> {
    serde_wasm_bindgen::to_value(msg).map_err(|e| e.to_string())
}

/// Read a message out of a `MessageEvent.data`.
pub fn from_js<T: DeserializeOwned>(data: JsValue) -> Result<T, String> {
    serde_wasm_bindgen::from_value(data).map_err(|e| e.to_string())
}

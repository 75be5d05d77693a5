//! JSON text exactly as JavaScript's `JSON.stringify` writes it: the bytes the
//! codegraph CLI hashes and exports. Strings escape `"`, `\\` and control
//! characters, as serde_json does too; numbers need JavaScript's layout.

use std::fmt::Write;

/// Writes `n` as JavaScript's `Number.prototype.toString()` (and
/// `JSON.stringify`) would: `1` not `1.0`, `1e+21`, `1e-7`, `-0` as `0`.
/// Non-finite numbers become `null`, as `JSON.stringify` writes them.
pub fn write_js_number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push_str("null");
        return;
    }
    if n == 0.0 {
        out.push('0');
        return;
    }
    // Integers below 2⁵³ print as their digits, as in JavaScript.
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        let _ = write!(out, "{}", n as i64);
        return;
    }
    write_shortest(out, n);
}

/// The general case of [`write_js_number`] (finite, non-zero `n`).
fn write_shortest(out: &mut String, n: f64) {
    // Shortest round-trip digits and decimal exponent, from Rust's `{:e}`.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exp: i32 = exp.parse().expect("exponent is an integer");
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32; // number of significant digits
    let point = exp + 1; // position of the decimal point relative to the digits
    if n < 0.0 {
        out.push('-');
    }
    if k <= point && point <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = point - 1;
        let _ = write!(out, "e{}{}", if e >= 0 { "+" } else { "-" }, e.abs());
    }
}

/// [`write_js_number`] into a new string.
pub fn js_number(n: f64) -> String {
    let mut s = String::new();
    write_js_number(&mut s, n);
    s
}

/// Writes `s` as a JSON string literal (JavaScript escaping).
pub fn write_js_string(out: &mut String, s: &str) {
    // JSON.stringify escapes `"`, `\` and the control characters (with the
    // short forms where JSON has them); a Rust string has no lone surrogate,
    // the only other thing it escapes. The same as serde_json's escaping.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    // Most strings escape nothing: one pass without early exit (it
    // vectorises) tells, and they are copied whole.
    let plain_only = s.bytes().fold(true, |ok, b| ok & (b >= 0x20 && b != b'"' && b != b'\\'));
    if plain_only {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut plain = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // Every escaped byte is ASCII, so `i` is a character boundary.
        out.push_str(&s[plain..i]);
        plain = i + 1;
        if short.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_javascript_prints_them() {
        for (n, js) in [
            (1.0, "1"),
            (-3.0, "-3"),
            (0.5, "0.5"),
            (-0.0, "0"),
            (123456789.125, "123456789.125"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (0.1 + 0.2, "0.30000000000000004"),
            (f64::NAN, "null"),
            (2.5e300, "2.5e+300"),
        ] {
            assert_eq!(js_number(n), js, "for {n:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn integers_print_as_the_general_form_does(i in -(1i64 << 53) + 1..(1i64 << 53)) {
            let n = i as f64;
            proptest::prop_assume!(n != 0.0);
            let mut general = String::new();
            write_shortest(&mut general, n);
            proptest::prop_assert_eq!(js_number(n), general);
        }
    }

    #[test]
    fn strings_escape_like_json_stringify() {
        let mut s = String::new();
        write_js_string(&mut s, "a\"b\\c\n\u{1}é\u{7f}");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001é\u{7f}\"");
    }

    proptest::proptest! {
        #[test]
        fn strings_escape_as_serde_json_does(s in "(?s).{0,40}|[\\x00-\\x20\"\\\\a-z]{0,40}") {
            let mut out = String::from("x");
            write_js_string(&mut out, &s);
            proptest::prop_assert_eq!(&out[1..], serde_json::to_string(&s).unwrap());
        }
    }
}

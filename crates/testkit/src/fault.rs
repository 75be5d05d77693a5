//! Faults a [`crate::MockProvider`] can inject, and their command-line form.

use std::time::Duration;

/// Which requests a fault applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum When {
    /// Every chat-completion request.
    Always,
    /// The n-th chat-completion request (1-based, in arrival order).
    Request(usize),
    /// Every request about this unit: its `# Unit:` id, or one of its cycle members.
    Unit(String),
}

/// What goes wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// 429, with this `Retry-After` value when given.
    RateLimited { retry_after: Option<String> },
    /// Any other status, with an OpenRouter-shaped error body (401, 402, 403, 500, 503, …).
    Status(u16),
    /// A 200 whose body is not JSON (cut in the middle of the object).
    MalformedJson,
    /// A 200 chat completion whose content is prose, not JSON.
    NotJsonContent,
    /// A cycle answer without its last member.
    MissingMember,
    /// `finish_reason: "length"` with the answer cut in half.
    LengthCut,
    /// The connection is closed without an answer.
    Drop,
    /// Answer (normally, or with another fault) after this pause.
    Delay(Duration),
}

/// A fault and when it applies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRule {
    pub when: When,
    pub fault: Fault,
}

impl FaultRule {
    pub fn new(when: When, fault: Fault) -> FaultRule {
        FaultRule { when, fault }
    }

    /// `FAULT[@WHEN]`. FAULT: `429`, `429:SECONDS` (with `Retry-After`), any
    /// other status (`401`, `402`, `403`, `500`, `503`, …), `malformed`,
    /// `not-json`, `missing-member`, `length`, `drop`, `slow:MS`. WHEN: a
    /// request number (1-based), `unit=ID`, or `*` (the default: every request).
    pub fn parse(s: &str) -> Result<FaultRule, String> {
        let (fault, when) = match s.split_once('@') {
            Some((f, w)) => (f.trim(), w.trim()),
            None => (s.trim(), "*"),
        };
        let when = if when == "*" {
            When::Always
        } else if let Some(id) = when.strip_prefix("unit=") {
            When::Unit(id.to_owned())
        } else {
            match when.parse::<usize>() {
                Ok(n) if n >= 1 => When::Request(n),
                _ => return Err(format!("`{when}`: expected a request number (1, 2, …), unit=ID or *")),
            }
        };
        let (name, arg) = match fault.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (fault, None),
        };
        let fault = match (name, arg) {
            ("429", retry_after) => Fault::RateLimited { retry_after: retry_after.map(str::to_owned) },
            ("malformed", None) => Fault::MalformedJson,
            ("not-json", None) => Fault::NotJsonContent,
            ("missing-member", None) => Fault::MissingMember,
            ("length", None) => Fault::LengthCut,
            ("drop", None) => Fault::Drop,
            ("slow" | "delay", Some(ms)) => Fault::Delay(Duration::from_millis(
                ms.parse().map_err(|_| format!("`{ms}`: expected a delay in milliseconds"))?,
            )),
            (status, None) => match status.parse::<u16>() {
                Ok(s) if (100..600).contains(&s) => Fault::Status(s),
                _ => {
                    return Err(format!(
                    "`{fault}`: expected 429[:SECONDS], a status, malformed, not-json, missing-member, length, drop \
                         or slow:MS"
                ))
                }
            },
            (_, Some(_)) => return Err(format!("`{fault}`: this fault takes no argument")),
        };
        Ok(FaultRule { when, fault })
    }

    /// Whether this rule applies to request `n` about `units`.
    pub fn applies(&self, n: usize, units: &[String]) -> bool {
        match &self.when {
            When::Always => true,
            When::Request(k) => *k == n,
            When::Unit(id) => units.iter().any(|u| u == id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        let p = |s| FaultRule::parse(s).unwrap();
        assert_eq!(p("429@1"), FaultRule::new(When::Request(1), Fault::RateLimited { retry_after: None }));
        assert_eq!(p("429:2@2").fault, Fault::RateLimited { retry_after: Some("2".into()) });
        assert_eq!(p("500"), FaultRule::new(When::Always, Fault::Status(500)));
        assert_eq!(
            p("401@unit=java:a/B#c(int)"),
            FaultRule::new(When::Unit("java:a/B#c(int)".into()), Fault::Status(401))
        );
        assert_eq!(p("slow:250@*").fault, Fault::Delay(Duration::from_millis(250)));
        for (s, f) in [
            ("malformed", Fault::MalformedJson),
            ("not-json", Fault::NotJsonContent),
            ("missing-member", Fault::MissingMember),
            ("length", Fault::LengthCut),
            ("drop", Fault::Drop),
        ] {
            assert_eq!(p(s).fault, f);
        }
        for bad in ["teapot", "500@0", "500@x", "slow:abc", "drop:1", "700"] {
            assert!(FaultRule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn applies() {
        let units = vec!["a".to_string(), "b".to_string()];
        assert!(FaultRule::parse("500@unit=b").unwrap().applies(7, &units));
        assert!(!FaultRule::parse("500@unit=c").unwrap().applies(7, &units));
        assert!(FaultRule::parse("500@7").unwrap().applies(7, &[]));
        assert!(!FaultRule::parse("500@6").unwrap().applies(7, &[]));
        assert!(FaultRule::parse("500").unwrap().applies(1, &[]));
    }
}

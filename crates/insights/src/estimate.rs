//! Estimate rules (docs/formats/units-and-walk.md §7, docs/formats/cli.md
//! §3.3): prompt tokens from text length, completion tokens per block, and
//! cost from prices per million tokens.

use crate::vocab::Level;

/// Completion tokens counted per block asked for, indexed by `Level as usize`
/// (operation 450, type 650, module 900: averages measured upstream).
pub const COMPLETION_TOKENS_PER_BLOCK: [u64; 3] = [450, 650, 900];

/// [`COMPLETION_TOKENS_PER_BLOCK`] of a level.
pub const fn completion_tokens_per_block(level: Level) -> u64 {
    COMPLETION_TOKENS_PER_BLOCK[level as usize]
}

/// `estimateTokens(text)` = ⌈UTF-16 length / 4⌉.
pub fn estimate_tokens(text: &str) -> u64 {
    tokens_of_utf16_len(model::utf16_len(text))
}

/// `estimateTokens` of a text of `len` UTF-16 code units.
pub fn tokens_of_utf16_len(len: usize) -> u64 {
    (len as u64).div_ceil(4)
}

/// USD cost: `(prompt × price_in + completion × price_out) / 1 000 000`, prices
/// in USD per million tokens. `None` unless both prices are given and finite.
/// Accepts plain `f64` prices or `Option<f64>`.
pub fn cost(
    prompt_tokens: u64,
    completion_tokens: u64,
    price_in: impl Into<Option<f64>>,
    price_out: impl Into<Option<f64>>,
) -> Option<f64> {
    let (price_in, price_out) = (price_in.into()?, price_out.into()?);
    if !(price_in.is_finite() && price_out.is_finite()) {
        return None;
    }
    Some((prompt_tokens as f64 * price_in + completion_tokens as f64 * price_out) / 1_000_000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_count_utf16_units() {
        assert_eq!(estimate_tokens("a😀b"), 1);
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("abcd"), 1);
    }

    #[test]
    fn completion_per_level() {
        assert_eq!(completion_tokens_per_block(Level::Operation), 450);
        assert_eq!(completion_tokens_per_block(Level::Type), 650);
        assert_eq!(completion_tokens_per_block(Level::Module), 900);
    }

    #[test]
    fn cost_needs_both_prices() {
        assert_eq!(cost(1_000_000, 2_000_000, 0.5, 2.0), Some(4.5));
        assert_eq!(cost(10, 10, Some(1.0), None), None);
        assert_eq!(cost(10, 10, None, Some(1.0)), None);
        assert_eq!(cost(10, 10, f64::NAN, 1.0), None);
        assert_eq!(cost(0, 0, 3.0, 15.0), Some(0.0));
    }
}

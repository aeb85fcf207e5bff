//! One reading of each tag value pgnkit reads as data: an Elo rating and
//! the variant a game is played in. `validate`, `filter`, `stats`, `split`,
//! `fix` and `ratings` all read them through here, so that no two commands
//! disagree about a game.

/// A rating tag's value (`WhiteElo`, `BlackElo`): a positive whole number
/// written in digits only, with blanks around it allowed; anything else is
/// no rating (`?`, `-`, empty, `0`, `+2500`, `2500.5`).
pub fn elo(value: Option<&str>) -> Option<u32> {
    let value = value?.trim();
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    value.parse().ok().filter(|&elo| elo > 0)
}

/// The variant a game is played in, read from its Variant tag.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Standard chess: no tag, an empty or unknown one (`?`), or `Standard`,
    /// `Normal`, `Regular`, `Chess`, or `From Position` (standard chess from
    /// the position of a FEN tag).
    Standard,
    /// Chess960: a name with `960`, `Fischer` or `Freestyle` in it, or `FRC`.
    Chess960,
    /// Any other variant, by its name compared loosely (letters and digits
    /// only, lowercase): `Crazy House` and `crazyhouse` are one variant.
    Other(String),
}

impl Variant {
    /// The variant a Variant tag names (`None`: no tag, standard chess).
    /// Case, spaces and punctuation do not matter: `Chess 960`,
    /// `chess960` and `Fischerandom` are one variant.
    #[inline]
    pub fn from_tag(tag: Option<&str>) -> Variant {
        // Inlined for the common case of no tag at all.
        match tag {
            None => Variant::Standard,
            Some(tag) => Variant::from_name(tag),
        }
    }

    fn from_name(tag: &str) -> Variant {
        // Nearly every tag is a short ASCII name: read on the stack.
        let mut short = [0u8; 32];
        let mut len = 0;
        for b in tag.bytes() {
            if !b.is_ascii() || (b.is_ascii_alphanumeric() && len == short.len()) {
                let name: String = tag.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
                return Variant::from_loose_name(name.as_bytes()).unwrap_or(Variant::Other(name));
            }
            if b.is_ascii_alphanumeric() {
                short[len] = b.to_ascii_lowercase();
                len += 1;
            }
        }
        let name = &short[..len];
        Variant::from_loose_name(name)
            .unwrap_or_else(|| Variant::Other(String::from_utf8(name.to_vec()).expect("ASCII")))
    }

    /// Standard chess or Chess960 by a loose name (letters and digits,
    /// lowercase); `None` for another variant.
    fn from_loose_name(name: &[u8]) -> Option<Variant> {
        let has = |part: &[u8]| memchr::memmem::find(name, part).is_some();
        match name {
            b"" | b"standard" | b"normal" | b"regular" | b"chess" | b"fromposition" => Some(Variant::Standard),
            b"frc" => Some(Variant::Chess960),
            _ if has(b"960") || has(b"fischer") || has(b"freestyle") => Some(Variant::Chess960),
            _ => None,
        }
    }

    /// The variant's name in outputs: `standard`, `chess960`, or the other
    /// variant's loose name.
    pub fn name(&self) -> &str {
        match self {
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
            Variant::Other(name) => name,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Variant, elo};

    #[test]
    fn an_elo_is_a_positive_number_in_digits_only() {
        assert_eq!(elo(Some("2450")), Some(2450));
        assert_eq!(elo(Some(" 2450 ")), Some(2450));
        for not_a_rating in ["+2500", "-", "?", "", "0", "2500.5", "2,500", "-2500", "99999999999"] {
            assert_eq!(elo(Some(not_a_rating)), None, "{not_a_rating:?}");
        }
        assert_eq!(elo(None), None);
    }

    #[test]
    fn variant_tags_name_standard_chess_chess960_or_another_variant_loosely() {
        for standard in
            [None, Some(""), Some("Standard"), Some("normal"), Some("From Position"), Some("from_position"), Some("?")]
        {
            assert_eq!(Variant::from_tag(standard), Variant::Standard, "{standard:?}");
        }
        for chess960 in ["Chess960", "chess 960", "Fischerandom", "FischerRandom", "FRC", "Freestyle"] {
            assert_eq!(Variant::from_tag(Some(chess960)), Variant::Chess960, "{chess960:?}");
        }
        assert_eq!(Variant::from_tag(Some("Crazy House")), Variant::Other("crazyhouse".to_owned()));
        assert_eq!(Variant::from_tag(Some("crazyhouse")).name(), "crazyhouse");
        assert_eq!(Variant::from_tag(Some("From Position")).name(), "standard");
        assert_eq!(Variant::from_tag(Some("Échecs 960")), Variant::Chess960, "non-ASCII");
        assert_eq!(Variant::from_tag(Some("Шахматы")).name(), "шахматы", "non-ASCII, lowercased");
        let long = "Three Check With A Very Long Name Indeed";
        assert_eq!(
            Variant::from_tag(Some(long)).name(),
            "threecheckwithaverylongnameindeed",
            "longer than the stack buffer"
        );
    }
}

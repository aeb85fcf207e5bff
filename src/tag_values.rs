//! One reading of each tag value pgnkit reads as data: an Elo rating, the
//! clock of a time control and the variant a game is played in.
//! `validate`, `filter`, `stats`, `split`, `fix`, `ratings` and `convert`
//! all read them through here, so that no two commands disagree about a
//! game.

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

/// A TimeControl tag's clock in the standard's sudden-death forms,
/// `SECONDS` or `SECONDS+INCREMENT` (lichess writes every game so), as
/// seconds (base, increment); none for its other forms (`?`, `-` for no
/// clock, `40/7200` moves per period, `*60` a sandclock) and anything else.
pub fn clock(value: &str) -> Option<(u64, u64)> {
    let (base, increment) = value.split_once('+').unwrap_or((value, "0"));
    Some((digits(base)?, digits(increment)?))
}

/// A number written in ASCII digits only (no sign, no blank), as the
/// fields of a TimeControl tag are.
pub(crate) fn digits(value: &str) -> Option<u64> {
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) { value.parse().ok() } else { None }
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
    use super::{Variant, clock, elo};

    #[test]
    fn a_clock_is_seconds_and_an_increment_in_the_sudden_death_forms_only() {
        assert_eq!([clock("300+0"), clock("180+2"), clock("5400")], [Some((300, 0)), Some((180, 2)), Some((5400, 0))]);
        for other in ["?", "-", "40/7200", "40/7200:3600", "*60", "", "+2", "300+", " 300+0", "3m+2", "300+0+1"] {
            assert_eq!(clock(other), None, "{other:?}");
        }
    }

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

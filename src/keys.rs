//! One definition of each tag value pgnkit reads as data: an Elo rating and
//! the variant a game is played in. `validate`, `filter`, `stats`, `split`
//! and `ratings` all read them through here, so that no two commands
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
    pub fn from_tag(tag: Option<&str>) -> Variant {
        let name: String =
            tag.unwrap_or("").chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
        match name.as_str() {
            "" | "standard" | "normal" | "regular" | "chess" | "fromposition" => Variant::Standard,
            n if n.contains("960") || n.contains("fischer") || n.contains("freestyle") || n == "frc" => {
                Variant::Chess960
            }
            _ => Variant::Other(name),
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
    }
}

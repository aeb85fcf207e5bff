//! Spellings of one player merged under one name: the `--aliases` file
//! (CSV rows `alias,name`) that every command reading players' names
//! takes, read here once, and the one rule by which a name is matched.
//!
//! The rule (docs/output-formats.md, "Aliases"): a White or Black value,
//! trimmed, that is exactly an alias of the file (case and inner spaces
//! count) stands for its name; any other value stands for itself.

use std::{collections::HashMap, path::Path};

/// The aliases of a file: each alias with the name it stands for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Aliases {
    names: HashMap<String, String>,
}

impl Aliases {
    /// Reads an aliases file: UTF-8 (a byte order mark is skipped), else
    /// Windows-1252, as names files and games are read.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or is not an aliases file ([`Aliases::parse`]),
    /// with its path.
    pub fn read(path: &Path) -> Result<Aliases, String> {
        let bytes = std::fs::read(path).map_err(|err| format!("cannot read {}: {err}", path.display()))?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        Aliases::parse(&crate::text::decode(bytes)).map_err(|err| format!("{}: {err}", path.display()))
    }

    /// Reads CSV rows `alias,name` (a first row `alias,name` is a header).
    /// Both fields are trimmed and must not be empty; an alias may stand
    /// for one name only, and a name may not itself be an alias (chains
    /// are refused rather than followed).
    ///
    /// # Errors
    ///
    /// The first row that breaks a rule, with its line.
    pub fn parse(text: &str) -> Result<Aliases, String> {
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
        let mut aliases = Aliases::default();
        let mut lines: HashMap<String, u64> = HashMap::new();
        for (index, record) in reader.records().enumerate() {
            let record = record.map_err(|err| format!("not CSV: {err}"))?;
            let line = record.position().map_or(index as u64 + 1, |p| p.line());
            let fields: Vec<&str> = record.iter().map(str::trim).collect();
            if fields.iter().all(|f| f.is_empty()) {
                continue;
            }
            if index == 0 && fields.len() == 2 && fields[0].eq_ignore_ascii_case("alias") {
                continue;
            }
            let [alias, name] = fields[..] else {
                return Err(format!("line {line}: expected two fields, alias,name; found {}", fields.len()));
            };
            if alias.is_empty() || name.is_empty() {
                return Err(format!("line {line}: an alias and a name are both needed"));
            }
            if alias == name {
                continue;
            }
            match aliases.names.get(alias) {
                Some(earlier) if earlier != name => {
                    return Err(format!(
                        "line {line}: {alias:?} is already an alias of {earlier:?} (line {})",
                        lines[alias]
                    ));
                }
                _ => {
                    aliases.names.insert(alias.to_owned(), name.to_owned());
                    lines.entry(alias.to_owned()).or_insert(line);
                }
            }
        }
        if let Some((name, target)) = aliases.names.values().find_map(|n| aliases.names.get_key_value(n.as_str())) {
            return Err(format!(
                "{name:?} is a name (of an alias) and an alias of {target:?} (line {}); write every alias with its final name",
                lines[name]
            ));
        }
        Ok(aliases)
    }

    /// The name `name` stands for: the name of its alias when `name`,
    /// trimmed, is one, else `name` as it is.
    pub fn resolve<'a>(&'a self, name: &'a str) -> &'a str {
        if self.names.is_empty() {
            return name;
        }
        self.names.get(name.trim()).map_or(name, String::as_str)
    }

    /// The name `name` stands for when it is an alias (trimmed), else `None`.
    pub fn name_of(&self, name: &str) -> Option<&str> {
        self.names.get(name.trim()).map(String::as_str)
    }

    /// How many aliases there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::Aliases;

    #[test]
    fn aliases_refuse_conflicts_chains_and_short_rows() {
        let aliases = Aliases::parse("Magnus Carlsen,\"Carlsen, Magnus\"\n\nCarlsen M,\"Carlsen, Magnus\"\n").unwrap();
        assert_eq!(aliases.len(), 2);
        assert_eq!(aliases.resolve("Carlsen M"), "Carlsen, Magnus");
        assert_eq!(aliases.resolve("Someone"), "Someone");
        let conflict = Aliases::parse("a,b\na,c\n").unwrap_err();
        assert!(conflict.contains("line 2: \"a\" is already an alias of \"b\" (line 1)"), "{conflict}");
        assert!(Aliases::parse("a,b\nb,c\n").unwrap_err().contains("\"b\" is a name"));
        assert!(Aliases::parse("a\n").unwrap_err().contains("line 1: expected two fields"));
        assert!(Aliases::parse("a, \n").unwrap_err().contains("both needed"));
    }

    #[test]
    fn a_name_matches_an_alias_trimmed_and_exactly_as_written() {
        let aliases = Aliases::parse("alias,name\nCarlsen M,\"Carlsen, Magnus\"\n").unwrap();
        assert_eq!(aliases.resolve(" Carlsen M "), "Carlsen, Magnus");
        assert_eq!(aliases.resolve("carlsen m"), "carlsen m", "case counts");
        assert_eq!(aliases.resolve("Carlsen  M"), "Carlsen  M", "inner spaces count");
        assert_eq!(aliases.resolve(" Other "), " Other ", "a name that is no alias is left as it is");
        assert_eq!(aliases.name_of("Carlsen M"), Some("Carlsen, Magnus"));
        assert_eq!(aliases.name_of("Carlsen, Magnus"), None);
    }

    #[test]
    fn a_file_is_read_with_its_byte_order_mark_skipped_and_errors_name_it() {
        let dir = std::env::temp_dir().join(format!("pgnkit-aliases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("aliases.csv");
        std::fs::write(&path, b"\xEF\xBB\xBFalias,name\nM\xFCller J,\"M\xFCller, J\"\n").unwrap();
        let aliases = Aliases::read(&path).unwrap();
        assert_eq!(aliases.resolve("Müller J"), "Müller, J", "Windows-1252, as games");
        std::fs::write(&path, "a,b\na,c\n").unwrap();
        let err = Aliases::read(&path).unwrap_err();
        assert!(err.starts_with(&format!("{}: line 2", path.display())), "{err}");
        assert!(Aliases::read(&dir.join("none.csv")).unwrap_err().starts_with("cannot read "));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

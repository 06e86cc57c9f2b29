//! Column names from a header row, as fastexcel makes them.

use std::collections::{HashMap, HashSet};

/// Makes column names unique and non-empty, one at a time, in column order.
///
/// The rule (fastexcel's): a column whose header is missing or empty is
/// named `__UNNAMED__{i}`, `i` its 0-based column; a name already taken
/// becomes `name_1`, or `name_2`, ..., the first of those not yet taken.
/// Names given to [`reserve`](Self::reserve) count as taken (e.g. a
/// `sheet` column the output adds).
///
/// Memory is the names pushed so far; each push costs O(1) expected time
/// plus the number of suffixes tried for that name.
#[derive(Debug, Default, Clone)]
pub struct ColumnNamer {
    taken: HashSet<String>,
    /// Next suffix to try per base name.
    next_suffix: HashMap<String, usize>,
}

impl ColumnNamer {
    /// A namer with no name taken.
    pub fn new() -> ColumnNamer {
        ColumnNamer::default()
    }

    /// Marks `name` as taken without naming a column.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    /// The unique name of column `col` whose header text is `header`
    /// (`None` or `""` when the header cell is empty).
    pub fn name(&mut self, col: usize, header: Option<&str>) -> String {
        let base = match header {
            Some(h) if !h.is_empty() => h.to_string(),
            _ => format!("__UNNAMED__{col}"),
        };
        let mut name = base.clone();
        if self.taken.contains(&name) {
            let n = self.next_suffix.entry(base.clone()).or_insert(1);
            loop {
                name = format!("{base}_{n}");
                *n += 1;
                if !self.taken.contains(&name) {
                    break;
                }
            }
        }
        self.taken.insert(name.clone());
        name
    }
}

/// Unique, non-empty names for a header row (see [`ColumnNamer`]):
/// `["a", "", "a", "a_1", "a"]` gives
/// `["a", "__UNNAMED__1", "a_1", "a_1_1", "a_2"]`.
pub fn column_names<'a>(headers: impl IntoIterator<Item = Option<&'a str>>) -> Vec<String> {
    let mut namer = ColumnNamer::new();
    headers
        .into_iter()
        .enumerate()
        .map(|(i, h)| namer.name(i, h))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_empty_names() {
        let names = column_names([Some("a"), Some("a"), None, Some("a"), Some("b")]);
        assert_eq!(names, ["a", "a_1", "__UNNAMED__2", "a_2", "b"]);
        let names = column_names([Some("a"), Some(""), Some("a"), Some("a_1"), Some("a")]);
        assert_eq!(names, ["a", "__UNNAMED__1", "a_1", "a_1_1", "a_2"]);
        let names = column_names([Some("a_1"), Some("a"), Some("a")]);
        assert_eq!(names, ["a_1", "a", "a_2"]);
        let names = column_names([Some("__UNNAMED__1"), None]);
        assert_eq!(names, ["__UNNAMED__1", "__UNNAMED__1_1"]);
    }

    #[test]
    fn reserved_names() {
        let mut namer = ColumnNamer::new();
        namer.reserve("sheet");
        assert_eq!(namer.name(0, Some("sheet")), "sheet_1");
        assert_eq!(namer.name(1, Some("x")), "x");
    }

    #[test]
    fn many_duplicates_stay_fast() {
        let names = column_names(std::iter::repeat_n(Some("x"), 20_000));
        assert_eq!(names.last().map(String::as_str), Some("x_19999"));
    }
}

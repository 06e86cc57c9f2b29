//! The station sets behind the 1BRC generators (see `aggen`): the 413
//! stations of the official `CreateMeasurements`, and the 10,000 names of
//! the official 10K-key variant (`CreateMeasurements3`), both built from
//! the reference data in `shared/data/1brc/` (`--data-dir`, else the
//! `REAM_1BRC_DATA` environment variable, else
//! `<workspace>/../shared/data/1brc`).

use crate::prng::SplitMix64;
use anyhow::{Context, Result, bail};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The longest station name in bytes (the 1BRC rule).
pub const MAX_NAME_BYTES: usize = 100;
/// Names in the 10K-key set.
pub const KEYS_10K: usize = 10_000;
/// Seed of the 10K-key name cutting (fixed: the set is part of the data).
const SEED_10K_NAMES: u64 = 0x1B2C_0003;

/// One station: a name of 1..=100 bytes of UTF-8 without `;`, `\r` or
/// `\n`, and the mean of its temperatures.
#[derive(Debug, Clone, PartialEq)]
pub struct Station {
    /// The name as written to the data file.
    pub name: String,
    /// Mean temperature in degrees.
    pub mean: f64,
}

/// Which station set a data file draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Keys {
    /// The 413 official stations, standard deviation 10.
    #[value(name = "413")]
    K413,
    /// The 10,000-name variant, standard deviation 7.
    #[value(name = "10k")]
    K10k,
}

impl Keys {
    /// Both sets, in report order.
    pub const BOTH: [Keys; 2] = [Keys::K413, Keys::K10k];

    /// `413` or `10k`.
    pub fn label(self) -> &'static str {
        match self {
            Keys::K413 => "413",
            Keys::K10k => "10k",
        }
    }

    /// Standard deviation of a station's values around its mean.
    pub fn sd(self) -> f64 {
        match self {
            Keys::K413 => 10.0,
            Keys::K10k => 7.0,
        }
    }

    /// Seed of the row stream (fixed; differs per set).
    pub fn seed(self) -> u64 {
        match self {
            Keys::K413 => 0x1B2C_0413,
            Keys::K10k => 0x1B2C_1000,
        }
    }

    /// Loads the stations of this set from the reference data folder.
    pub fn load(self, data_dir: &Path) -> Result<Vec<Station>> {
        match self {
            Keys::K413 => {
                let (path, text) = read_data(data_dir, "stations413.csv")?;
                parse_413(&text).with_context(|| path.display().to_string())
            }
            Keys::K10k => {
                let (path, text) = read_data(data_dir, "weather_stations_44k.csv")?;
                let cities = parse_cities(&text).with_context(|| path.display().to_string())?;
                cut_10k(&cities, SEED_10K_NAMES).with_context(|| path.display().to_string())
            }
        }
    }
}

/// The reference data folder: `REAM_1BRC_DATA` if set, else
/// `<workspace>/../shared/data/1brc`.
pub fn default_data_dir() -> PathBuf {
    match std::env::var_os("REAM_1BRC_DATA") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/1brc"),
    }
}

fn read_data(dir: &Path, name: &str) -> Result<(PathBuf, String)> {
    let path = dir.join(name);
    if !path.is_file() {
        bail!(
            "1BRC reference data {} not found: pass --data-dir (or set REAM_1BRC_DATA) to the \
             folder holding stations413.csv and weather_stations_44k.csv",
            path.display()
        );
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok((path, text))
}

/// `name;number` lines, skipping empty lines and `#` comments. Errors name
/// the 1-based line.
fn data_lines(text: &str) -> impl Iterator<Item = Result<(&str, &str)>> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            return None;
        }
        Some(
            line.split_once(';')
                .with_context(|| format!("line {}: no ';' in {line:?}", i + 1)),
        )
    })
}

/// Parses `stations413.csv` (`Abha;18.0`).
pub fn parse_413(text: &str) -> Result<Vec<Station>> {
    let mut out = Vec::new();
    for (i, row) in data_lines(text).enumerate() {
        let (name, mean) = row?;
        let mean: f64 = mean
            .trim()
            .parse()
            .with_context(|| format!("station {} ({name:?}): bad mean {mean:?}", i + 1))?;
        check_name(name).with_context(|| format!("station {}", i + 1))?;
        out.push(Station {
            name: name.to_owned(),
            mean,
        });
    }
    if out.is_empty() {
        bail!("no stations");
    }
    Ok(out)
}

/// Parses `weather_stations_44k.csv` (`Tokyo;35.6897`) into (name,
/// latitude) pairs, latitude as `f32` like the official generator.
pub fn parse_cities(text: &str) -> Result<Vec<(&str, f32)>> {
    let mut out = Vec::new();
    for (i, row) in data_lines(text).enumerate() {
        let (name, lat) = row?;
        let lat: f32 = lat
            .trim()
            .parse()
            .with_context(|| format!("city {} ({name:?}): bad latitude {lat:?}", i + 1))?;
        out.push((name, lat));
    }
    Ok(out)
}

fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_BYTES {
        bail!("name {name:?} is {} bytes (1..=100 allowed)", name.len());
    }
    if name.contains([';', '\n', '\r']) {
        bail!("name {name:?} contains ';' or a line break");
    }
    Ok(())
}

/// The official name-length curve: `4 + 2500 (u - 0.372)^7`, mostly short
/// names (median 4) with a long tail up to 100, clamped to 1..=100. Here it
/// counts bytes (the official counts UTF-16 units) so that the 100-byte
/// rule holds.
fn name_len(u: f64) -> usize {
    let len = 4.0 + 2500.0 * (u - 0.372).powi(7);
    (len as usize).clamp(1, MAX_NAME_BYTES)
}

/// A cursor over the concatenation of all city names, the official
/// "source of name randomness".
struct NameSource<'a> {
    rest: std::str::Chars<'a>,
}

impl NameSource<'_> {
    fn next_char(&mut self) -> Result<char> {
        self.rest
            .next()
            .context("name source exhausted while cutting the 10K names")
    }

    fn next_non_space(&mut self) -> Result<char> {
        loop {
            let c = self.next_char()?;
            if c != ' ' {
                return Ok(c);
            }
        }
    }

    /// The next whole characters of at most `max` bytes (at least one).
    fn take(&mut self, max: usize) -> Result<String> {
        let mut s = String::new();
        loop {
            let before = self.rest.clone();
            let c = self.next_char()?;
            if !s.is_empty() && s.len() + c.len_utf8() > max {
                self.rest = before;
                return Ok(s);
            }
            s.push(c);
            if s.len() >= max {
                return Ok(s);
            }
        }
    }
}

/// Drops leading characters until `s` has at most `MAX_NAME_BYTES` bytes.
fn trim_front_to_limit(s: &mut String) {
    while s.len() > MAX_NAME_BYTES {
        let first = s.chars().next().map_or(1, char::len_utf8);
        s.drain(..first);
    }
}

/// The 10K-key set, after the official `CreateMeasurements3`: all city
/// names concatenated; for each of the first 10,000 cities, a name of
/// `name_len` bytes cut from that string at the cursor (whole characters),
/// trimmed, extended with non-space characters while shorter than the
/// target, and shifted by one character (then refilled to the target)
/// while it repeats an earlier name;
/// the mean is `30 cos(latitude) - 10` of that city (in `f32`).
pub fn cut_10k(cities: &[(&str, f32)], seed: u64) -> Result<Vec<Station>> {
    if cities.len() < KEYS_10K {
        bail!("{} cities; the 10K-key set needs {KEYS_10K}", cities.len());
    }
    let big: String = cities.iter().map(|(n, _)| *n).collect();
    let mut src = NameSource { rest: big.chars() };
    let mut rng = SplitMix64::new(seed);
    let mut seen: HashSet<String> = HashSet::with_capacity(KEYS_10K);
    let mut out = Vec::with_capacity(KEYS_10K);
    for (i, (_, lat)) in cities.iter().take(KEYS_10K).enumerate() {
        let target = name_len(rng.unit());
        let mut name = src.take(target)?.trim_matches(|c| c <= ' ').to_owned();
        while name.len() < target {
            name.push(src.next_non_space()?);
        }
        trim_front_to_limit(&mut name);
        let (mut want, mut shifts) = (target, 0u32);
        while seen.contains(&name) {
            // Every 64 failed shifts the target grows by a byte, so a
            // source with few distinct characters still ends.
            shifts += 1;
            if shifts.is_multiple_of(64) {
                want = (want + 1).min(MAX_NAME_BYTES);
            }
            let first = name.chars().next().map_or(0, char::len_utf8);
            name.drain(..first);
            name.push(src.next_non_space()?);
            // Bytes, not characters: refill to the target length.
            while name.len() < want {
                name.push(src.next_non_space()?);
            }
            trim_front_to_limit(&mut name);
        }
        check_name(&name).with_context(|| format!("10K name {}", i + 1))?;
        seen.insert(name.clone());
        let mean = (30.0 * f64::from(*lat).to_radians().cos()) as f32 - 10.0;
        out.push(Station {
            name,
            mean: f64::from(mean),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_413_lines_and_reports_bad_ones() {
        let s = parse_413("# comment\nAbha;18.0\r\n\nAccra;26.4\n").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[1].name, "Accra");
        assert_eq!(s[1].mean, 26.4);
        let e = format!("{:#}", parse_413("Abha;18.0\nNoSemicolon\n").unwrap_err());
        assert!(e.contains("line 2"), "{e}");
        let e = format!("{:#}", parse_413("Abha;warm\n").unwrap_err());
        assert!(e.contains("bad mean"), "{e}");
        let e = format!(
            "{:#}",
            parse_413(&format!("{};1.0\n", "x".repeat(101))).unwrap_err()
        );
        assert!(e.contains("101 bytes"), "{e}");
        assert!(parse_413("").is_err());
        let e = format!("{:#}", parse_cities("Tokyo;north\n").unwrap_err());
        assert!(e.contains("bad latitude"), "{e}");
    }

    #[test]
    fn name_len_curve_spans_1_to_100() {
        assert_eq!(name_len(0.0), 1);
        assert_eq!(name_len(0.372), 4);
        assert_eq!(name_len(0.999_999), 100);
        let mut rng = SplitMix64::new(1);
        let lens: Vec<usize> = (0..100_000).map(|_| name_len(rng.unit())).collect();
        assert!(lens.iter().all(|l| (1..=100).contains(l)));
        let mean = lens.iter().sum::<usize>() as f64 / lens.len() as f64;
        assert!((9.0..13.0).contains(&mean), "{mean}");
    }

    #[test]
    fn cutting_10k_names_from_a_small_source() {
        // 10,000 synthetic cities with multi-byte characters and spaces.
        // Enough distinct characters for ~100 distinct one-character names.
        let alphabet: Vec<char> = ('a'..='z')
            .chain('A'..='Z')
            .chain('α'..='ω')
            .chain('а'..='я')
            .chain("éö  ".chars())
            .collect();
        let mut rng = SplitMix64::new(3);
        let names: Vec<String> = (0..KEYS_10K)
            .map(|_| {
                (0..40)
                    .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let cities: Vec<(&str, f32)> = names.iter().map(|n| (n.as_str(), 45.0)).collect();
        let set = cut_10k(&cities, 7).unwrap();
        assert_eq!(set.len(), KEYS_10K);
        let distinct: HashSet<&str> = set.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(distinct.len(), KEYS_10K);
        for s in &set {
            check_name(&s.name).unwrap();
            assert!(!s.name.ends_with(' '), "{:?}", s.name);
        }
        let want = f64::from((30.0 * 45f64.to_radians().cos()) as f32 - 10.0);
        assert_eq!(set[0].mean, want);
        assert_eq!(cut_10k(&cities, 7).unwrap(), set, "deterministic");
        let e = format!("{:#}", cut_10k(&cities[..10], 7).unwrap_err());
        assert!(e.contains("needs 10000"), "{e}");
    }

    #[test]
    fn source_exhaustion_is_an_error() {
        let mut src = NameSource {
            rest: "ab  ".chars(),
        };
        assert_eq!(src.take(1).unwrap(), "a");
        assert_eq!(src.next_non_space().unwrap(), 'b');
        assert!(src.next_non_space().is_err());
    }

    #[test]
    fn take_keeps_whole_characters() {
        let mut src = NameSource {
            rest: "éé".chars()
        };
        // 3 bytes allowed: one 2-byte character fits, the next does not.
        assert_eq!(src.take(3).unwrap(), "é");
        // A character longer than the budget is still taken whole.
        assert_eq!(src.take(1).unwrap(), "é");
    }

    #[test]
    fn reference_sets_load_when_present() {
        let dir = default_data_dir();
        if !dir.join("stations413.csv").is_file() {
            eprintln!("skipped: no 1BRC reference data at {}", dir.display());
            return;
        }
        let s413 = Keys::K413.load(&dir).unwrap();
        assert_eq!(s413.len(), 413);
        let s10k = Keys::K10k.load(&dir).unwrap();
        assert_eq!(s10k.len(), KEYS_10K);
        let longest = s10k.iter().map(|s| s.name.len()).max().unwrap();
        assert!(longest > 50 && longest <= 100, "{longest}");
        let e = format!(
            "{:#}",
            Keys::K413.load(Path::new("/nonexistent")).unwrap_err()
        );
        assert!(e.contains("--data-dir"), "{e}");
    }
}

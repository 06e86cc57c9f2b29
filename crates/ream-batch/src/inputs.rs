//! Turning command-line arguments into a list of files: directories are
//! walked (sorted by name), `@listfile` arguments read (one path per line),
//! include/exclude globs applied, duplicates dropped.

use crate::error::{BatchError, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One file to analyse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The path as given (a walked file is its directory argument joined
    /// with the relative path).
    pub path: PathBuf,
    /// `path` as text for the report (lossy for non-UTF-8 names).
    pub shown: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
}

/// Glob patterns of one kind (include or exclude), split by what they
/// match: a pattern without `/` matches the file (or directory) name, a
/// pattern with `/` the whole path as given.
#[derive(Debug, Clone)]
struct Patterns {
    name: GlobSet,
    path: GlobSet,
}

impl Patterns {
    /// Compiles `globs`; `None` when there are none.
    fn new(globs: &[String], what: &str) -> Result<Option<Patterns>> {
        if globs.is_empty() {
            return Ok(None);
        }
        let mut name = GlobSetBuilder::new();
        let mut path = GlobSetBuilder::new();
        for g in globs {
            let glob = Glob::new(g)
                .map_err(|e| BatchError::Usage(format!("bad {what} glob {g:?}: {e}")))?;
            if g.contains('/') {
                path.add(glob);
            } else {
                name.add(glob);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build()
                .map_err(|e| BatchError::Usage(format!("bad {what} globs: {e}")))
        };
        Ok(Some(Patterns {
            name: build(name)?,
            path: build(path)?,
        }))
    }

    fn is_match(&self, p: &Path) -> bool {
        p.file_name().is_some_and(|n| self.name.is_match(n)) || self.path.is_match(p)
    }
}

/// The include/exclude filters. A pattern without `/` matches the file
/// name (`*.xlsx`, `tmp`), one with `/` the whole path as given
/// (`data/*/2024-*.csv`, `*/tmp/*`); `*` matches `/` too.
#[derive(Debug, Clone)]
pub(crate) struct Filters {
    include: Option<Patterns>,
    exclude: Option<Patterns>,
}

impl Filters {
    /// Compiles the globs (errors name the bad pattern).
    pub(crate) fn new(include: &[String], exclude: &[String]) -> Result<Filters> {
        Ok(Filters {
            include: Patterns::new(include, "include")?,
            exclude: Patterns::new(exclude, "exclude")?,
        })
    }
    fn excluded(&self, p: &Path) -> bool {
        self.exclude.as_ref().is_some_and(|s| s.is_match(p))
    }
    fn takes(&self, p: &Path) -> bool {
        !self.excluded(p) && self.include.as_ref().is_none_or(|s| s.is_match(p))
    }
}

/// What [`collect`] found.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    /// The files, in argument order, each directory sorted by name.
    pub jobs: Vec<Job>,
    /// Paths that could not be read (walk errors, missing arguments), one
    /// message each.
    pub warnings: Vec<String>,
    /// Files left out by the include/exclude globs (files inside an
    /// excluded directory are not counted).
    pub filtered_out: u64,
}

/// The identity (device, inode) of a file to leave out (the report).
pub(crate) type FileId = (u64, u64);

/// Expands `args` into files. `skip` is left out wherever it is met.
pub(crate) fn collect(
    args: &[PathBuf],
    filters: &Filters,
    follow_links: bool,
    skip: Option<FileId>,
) -> Result<Collected> {
    let mut c = Collector {
        filters,
        follow_links,
        skip,
        seen: HashSet::new(),
        out: Collected::default(),
    };
    for a in args {
        match a.as_os_str().as_bytes().strip_prefix(b"@") {
            Some(list) => c.list_file(Path::new(OsStr::from_bytes(list)))?,
            None => c.arg(a),
        }
    }
    Ok(c.out)
}

struct Collector<'a> {
    filters: &'a Filters,
    follow_links: bool,
    skip: Option<FileId>,
    seen: HashSet<PathBuf>,
    out: Collected,
}

impl Collector<'_> {
    fn list_file(&mut self, list: &Path) -> Result<()> {
        let reader: Box<dyn BufRead> = if list == Path::new("-") {
            Box::new(BufReader::new(std::io::stdin()))
        } else {
            let f = std::fs::File::open(list).map_err(|e| BatchError::io(list, e))?;
            Box::new(BufReader::new(f))
        };
        for line in reader.split(b'\n') {
            let line = line.map_err(|e| BatchError::io(list, e))?;
            let line = line.strip_suffix(b"\r").unwrap_or(&line);
            if line.is_empty() || line.starts_with(b"#") {
                continue;
            }
            self.arg(Path::new(OsStr::from_bytes(line)));
        }
        Ok(())
    }

    fn arg(&mut self, p: &Path) {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => self.walk(p),
            Ok(m) => self.file(p, &m),
            Err(e) => self.out.warnings.push(format!("{}: {e}", p.display())),
        }
    }

    fn walk(&mut self, dir: &Path) {
        let filters = self.filters;
        let walker = walkdir::WalkDir::new(dir)
            .follow_links(self.follow_links)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !filters.excluded(e.path()));
        for entry in walker {
            match entry {
                Ok(e) if e.file_type().is_dir() => {}
                Ok(e) => match std::fs::metadata(e.path()) {
                    Ok(m) if m.is_file() => self.file(e.path(), &m),
                    Ok(_) => {} // a link to a directory, a socket, ...
                    Err(err) => self
                        .out
                        .warnings
                        .push(format!("{}: {err}", e.path().display())),
                },
                Err(err) => self.out.warnings.push(walk_error(&err, dir)),
            }
        }
    }

    fn file(&mut self, p: &Path, m: &std::fs::Metadata) {
        if self.skip == Some((m.dev(), m.ino())) {
            return;
        }
        if !self.filters.takes(p) {
            self.out.filtered_out += 1;
            return;
        }
        if !self.seen.insert(p.to_path_buf()) {
            return;
        }
        self.out.jobs.push(Job {
            path: p.to_path_buf(),
            shown: p.to_string_lossy().into_owned(),
            size: m.len(),
            mtime_ns: mtime_ns(m),
        });
    }
}

fn walk_error(err: &walkdir::Error, dir: &Path) -> String {
    let at = err.path().unwrap_or(dir);
    match err.io_error() {
        Some(io) => format!("{}: {io}", at.display()),
        None => format!("{}: {err}", at.display()),
    }
}

/// Modification time in nanoseconds since the Unix epoch.
pub(crate) fn mtime_ns(m: &std::fs::Metadata) -> i64 {
    m.mtime()
        .saturating_mul(1_000_000_000)
        .saturating_add(m.mtime_nsec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_globs_are_usage_errors() {
        let e = Filters::new(&["a[".into()], &[]).unwrap_err();
        assert!(e.to_string().contains("bad include glob \"a[\""), "{e}");
        let e = Filters::new(&[], &["{x".into()]).unwrap_err();
        assert!(e.to_string().contains("exclude"), "{e}");
    }

    #[test]
    fn include_and_exclude() {
        let f = Filters::new(&["*.xlsx".into(), "*.pdf".into()], &["*/tmp/*".into()]).unwrap();
        assert!(f.takes(Path::new("a/b.xlsx")));
        assert!(!f.takes(Path::new("a/b.csv")));
        assert!(!f.takes(Path::new("a/tmp/b.xlsx")));
        let all = Filters::new(&[], &[]).unwrap();
        assert!(all.takes(Path::new("anything")));
    }

    #[test]
    fn names_without_slash_paths_with_one() {
        // No `/`: the file name, wherever the file is.
        let f = Filters::new(&["b?.csv".into()], &["tmp".into()]).unwrap();
        assert!(f.takes(Path::new("/abs/dir/b1.csv")));
        assert!(!f.takes(Path::new("/abs/b1.csv/c.csv")));
        assert!(!f.takes(Path::new("x/tmp")));
        assert!(f.takes(Path::new("tmp/b1.csv")), "only the name is matched");
        // With `/`: the whole path.
        let f = Filters::new(&["in/*.csv".into()], &[]).unwrap();
        assert!(f.takes(Path::new("in/a.csv")));
        assert!(f.takes(Path::new("in/sub/a.csv")), "`*` matches `/`");
        assert!(!f.takes(Path::new("other/in/a.csv")));
        assert!(!f.takes(Path::new("a.csv")));
    }
}

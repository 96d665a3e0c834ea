//! The process-wide tables that number distinct sites, and how a site is named: a
//! dependency's path made readable, and the user's line that led into it.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasherDefault;
use std::panic::Location;

use super::shard::OVERFLOW;

/// Distinct sites by value (kind, file, line, column), numbered from 0 in the order they were
/// first met; shared by all threads.
pub(super) struct SiteTable {
    ids: HashMap<(u8, &'static Location<'static>), u32, BuildHasherDefault<DefaultHasher>>,
    /// The sites, indexed by number.
    keys: Vec<(u8, &'static Location<'static>)>,
    /// For a site inside a dependency: the user's line that first led there (see
    /// [`user_line`]), by site number.
    pub(super) via: BTreeMap<u32, Via>,
}

/// The user's line of a site inside a dependency: the stack captured at the site's first
/// event, read when a report first needs it (reading the debug information of a program can
/// take a few hundred milliseconds, capturing the stack takes microseconds).
pub(super) enum Via {
    Stack(Box<std::backtrace::Backtrace>),
    Line(Option<String>),
}

impl Via {
    /// The line, reading the stack the first time.
    fn line(&mut self) -> Option<String> {
        if let Via::Stack(trace) = self {
            *self = Via::Line(user_line(&trace.to_string()));
        }
        match self {
            Via::Line(line) => line.clone(),
            Via::Stack(_) => None,
        }
    }
}

impl SiteTable {
    const fn new() -> SiteTable {
        SiteTable {
            ids: HashMap::with_hasher(BuildHasherDefault::new()),
            keys: Vec::new(),
            via: BTreeMap::new(),
        }
    }

    /// The number of `(kind, loc)`, compared by value (`Location`'s `Eq`), given if there are
    /// fewer than `max` sites, and whether it was numbered by this call; `None` beyond the
    /// bound.
    pub(super) fn id(
        &mut self,
        kind: u8,
        loc: &'static Location<'static>,
        max: usize,
    ) -> Option<(u32, bool)> {
        if let Some(&id) = self.ids.get(&(kind, loc)) {
            return Some((id, false));
        }
        if self.keys.len() >= max {
            return None;
        }
        // `Config::max_sites` has no upper bound: numbers stop below `OVERFLOW`.
        let id = u32::try_from(self.keys.len())
            .ok()
            .filter(|&id| id != OVERFLOW)?;
        self.ids.insert((kind, loc), id);
        self.keys.push((kind, loc));
        Some((id, true))
    }

    /// The sites with a count in `sums` (indexed by number): kind code, location, count and
    /// the user's line that led there (read from the stack the first time).
    #[allow(clippy::type_complexity)]
    pub(super) fn counted(
        &mut self,
        sums: &[u64],
    ) -> Vec<(u8, &'static Location<'static>, u64, Option<String>)> {
        sums.iter()
            .enumerate()
            .filter(|&(_, &count)| count > 0)
            .filter_map(|(id, &count)| {
                let &(kind, loc) = self.keys.get(id)?;
                let via = self.via.get_mut(&(id as u32)).and_then(Via::line);
                Some((kind, loc, count, via))
            })
            .collect()
    }
}

/// The process-wide site tables: instability sites (per kind) and collapse sites, each with its
/// own bound.
pub(super) struct Tables {
    pub(super) sites: SiteTable,
    pub(super) collapses: SiteTable,
}

impl Tables {
    pub(super) const fn new() -> Tables {
        Tables {
            sites: SiteTable::new(),
            collapses: SiteTable::new(),
        }
    }

    /// The table of sites of kind code `kind` (`u8::MAX`: collapses).
    pub(super) fn of_kind(&mut self, kind: u8) -> &mut SiteTable {
        if kind == u8::MAX {
            &mut self.collapses
        } else {
            &mut self.sites
        }
    }
}

/// Whether a source path is outside the user's workspace: cargo names the files of workspace
/// members by relative paths, and those of other packages (registry, git, std) by absolute ones.
pub(super) fn in_dependency(file: &str) -> bool {
    std::path::Path::new(file).is_absolute() || file.starts_with("/rustc/")
}

/// A path as the report shows it: a file of a registry package as `crate-version/path`
/// (`nalgebra-0.35.0/src/linalg/lu.rs`), a git checkout as `repo-rev/path`, the standard
/// library as `rust/library/...`, another absolute path from its package's directory (the one
/// above its last `src`), a relative path unchanged.
///
/// ```text
/// /home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/nalgebra-0.35.0/src/linalg/lu.rs
///     -> nalgebra-0.35.0/src/linalg/lu.rs
/// ```
pub(super) fn readable_path(file: &str) -> String {
    if !in_dependency(file) {
        return file.to_string();
    }
    let unix = file.replace('\\', "/");
    if let Some((_, rest)) = unix.split_once("/registry/src/") {
        // rest = index.crates.io-<hash>/<crate>-<version>/...
        if let Some((_, tail)) = rest.split_once('/') {
            return tail.to_string();
        }
    }
    if let Some((_, rest)) = unix.split_once("/git/checkouts/") {
        // rest = <repo>-<hash>/<rev>/...
        let mut parts = rest.splitn(3, '/');
        if let (Some(repo), Some(rev), Some(tail)) = (parts.next(), parts.next(), parts.next()) {
            let repo = repo.rsplit_once('-').map_or(repo, |(r, _)| r);
            return format!("{repo}-{rev}/{tail}");
        }
    }
    if let Some(rest) = unix.strip_prefix("/rustc/") {
        if let Some((_, tail)) = rest.split_once('/') {
            return format!("rust/{tail}");
        }
    }
    let parts: Vec<&str> = unix.split('/').collect();
    match parts.iter().rposition(|p| *p == "src") {
        Some(i) if i >= 1 => parts[i - 1..].join("/"),
        _ => unix,
    }
}

/// The user's source line on a stack (a `Backtrace` as text): the innermost frame, below the runtime's
/// entry frames, whose file is not a package of cargo's registry or git checkouts, the standard
/// library or stoch itself (a path relative to the current directory when it is under it).
/// `None` when the binary has no line tables (release builds without `debug`).
fn user_line(trace: &str) -> Option<String> {
    let cwd = std::env::current_dir().ok();
    for line in trace.lines().map(str::trim_start) {
        if line.contains("__rust_begin_short_backtrace") || line.contains("std::rt::lang_start") {
            return None;
        }
        let Some(at) = line.strip_prefix("at ") else {
            continue;
        };
        let path = at.strip_prefix("./").unwrap_or(at);
        let unix = path.replace('\\', "/");
        let elsewhere = [
            "/registry/src/",
            "/git/checkouts/",
            "/lib/rustlib/",
            "stoch-core/",
            "stoch-macros/",
            "stoch_core/",
        ]
        .iter()
        .any(|p| unix.contains(p))
            || unix.starts_with("/rustc/");
        if elsewhere {
            continue;
        }
        let shown = cwd
            .as_deref()
            .and_then(|d| std::path::Path::new(path).strip_prefix(d).ok())
            .map_or_else(|| path.to_string(), |p| p.display().to_string());
        return Some(shown);
    }
    None
}

/// The small helper holding `loc` (see [`Site::helper`]).
pub(super) fn helper_at(loc: &Location<'_>) -> Option<String> {
    crate::small_helpers::small_helper(loc.file(), loc.line()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependency_paths_read_as_crate_and_path() {
        for (file, want) in [
            (
                "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/nalgebra-0.35.0/src/linalg/lu.rs",
                "nalgebra-0.35.0/src/linalg/lu.rs",
            ),
            (
                "/home/u/.cargo/git/checkouts/cgmath-3bd2e5f1c9a0d7e6/a1b2c3d/src/vector.rs",
                "cgmath-a1b2c3d/src/vector.rs",
            ),
            (
                "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/iter/traits/accum.rs",
                "rust/library/core/src/iter/traits/accum.rs",
            ),
            ("/opt/src/mylib/src/lib.rs", "mylib/src/lib.rs"),
            ("src/main.rs", "src/main.rs"),
            ("examples/wave3d.rs", "examples/wave3d.rs"),
        ] {
            assert_eq!(readable_path(file), want, "{file}");
        }
        assert!(in_dependency("/rustc/x/library/core/src/cmp.rs"));
        assert!(!in_dependency("src/main.rs"));
    }
}

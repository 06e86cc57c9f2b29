//! Page count (trusted `/Count`) and the verified page-tree walk.

use crate::doc::Pdf;
use crate::error::{Error, Result, Warning};
use crate::object::{Dict, ObjRef, Object};
use crate::xref::XrefEntry;
use ream_io::ErrorKind;
use std::collections::{HashMap, HashSet};

/// A rectangle `[llx lly urx ury]` as written.
pub type Rect = [f64; 4];

/// One page found by the verified walk, with its inherited attributes.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// 1-based page number.
    pub number: u64,
    /// The page object (`None` for a page dictionary written inline).
    pub object: Option<ObjRef>,
    /// `/MediaBox`, own or inherited.
    pub media_box: Option<Rect>,
    /// `/CropBox`, own or inherited.
    pub crop_box: Option<Rect>,
    /// `/Rotate` (own or inherited), normalised to 0, 90, 180 or 270.
    pub rotate: i64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Inherited {
    media_box: Option<Rect>,
    crop_box: Option<Rect>,
    rotate: Option<i64>,
}

impl Pdf {
    /// The page count the root `/Pages` node declares (`/Count`), trusted
    /// without walking the tree: the fast answer. Falls back to the walk
    /// when `/Count` is missing or not a non-negative integer.
    pub fn page_count(&self) -> Result<u64> {
        if self.catalog().is_err() {
            return Ok(self.pages()?.len() as u64);
        }
        match self.declared_count()? {
            Some(n) => Ok(n),
            None => {
                self.warn(Warning::new(
                    "root /Pages has no usable /Count; pages counted by walking the tree",
                ));
                Ok(self.pages()?.len() as u64)
            }
        }
    }

    fn declared_count(&self) -> Result<Option<u64>> {
        let Some(root) = self.catalog()?.get(b"Pages").cloned() else {
            return Ok(None);
        };
        let d = match self.resolve(&root)? {
            Object::Dict(d) => d,
            _ => return Ok(None),
        };
        let c = d.get(b"Count").map(|c| self.resolve(c)).transpose()?;
        Ok(c.and_then(|c| c.as_int())
            .and_then(|n| u64::try_from(n).ok()))
    }

    /// Walks the page tree: every leaf in order with inherited MediaBox,
    /// CropBox and Rotate. Cycle-safe (a `/Pages` node seen twice is
    /// skipped with a warning); a leaf referenced twice counts twice (with
    /// a warning), as qpdf does. A `/Count` that disagrees with the walk is
    /// a warning. Limits: `max_page_depth`, `max_pages`.
    pub fn pages(&self) -> Result<Vec<Page>> {
        let Some(root) = self.page_tree_root()? else {
            return Ok(Vec::new());
        };
        let lim = self.opts.limits;
        let mut cache = self.prefetch_tree(&root);
        let mut pages = Vec::new();
        let mut seen_nodes = HashSet::new();
        let mut seen_leaves = HashSet::new();
        // Stack of (kids, next index, inherited, depth).
        let mut stack: Vec<(Vec<Object>, usize, Inherited, usize)> =
            vec![(vec![root], 0, Inherited::default(), 0)];
        while let Some((kids, i, inh, depth)) = stack.last_mut() {
            let Some(kid) = kids.get(*i).cloned() else {
                stack.pop();
                continue;
            };
            *i += 1;
            let (inh, depth) = (*inh, *depth);
            let r = kid.as_ref();
            let fetched = match r.and_then(|r| cache.remove(&r)) {
                Some(f) => f,
                None => self.resolve(&kid),
            };
            let node = match fetched {
                Ok(Object::Dict(d)) => d,
                Ok(o) => {
                    self.warn(Warning {
                        object: r,
                        ..Warning::new(format!("page tree node is a {}, skipped", o.type_name()))
                    });
                    continue;
                }
                Err(e) if e.kind() == ErrorKind::Malformed && !self.opts.strict => {
                    self.warn(Warning::from_error(
                        "page tree node unreadable, skipped",
                        &e,
                    ));
                    continue;
                }
                Err(e) => return Err(e),
            };
            let inh = self.inherit(&node, inh);
            // `/Kids` may be unreadable, or a single reference (a writer bug).
            let kids_of = match node.get(b"Kids") {
                Some(k @ Object::Ref(_)) => match self.resolve(k) {
                    Ok(Object::Array(a)) => Some(Object::Array(a)),
                    Ok(Object::Dict(_)) | Err(_) => Some(Object::Array(vec![k.clone()])),
                    Ok(o) => Some(o),
                },
                Some(k) => Some(k.clone()),
                None => None,
            };
            let is_node = match node.name(b"Type") {
                Some(b"Pages") => true,
                Some(b"Page") => false,
                _ => kids_of.as_ref().is_some_and(|k| k.as_array().is_some()),
            };
            if is_node {
                if let Some(r) = r
                    && !seen_nodes.insert(r)
                {
                    // A cycle: qpdf, pikepdf and pypdf count the node
                    // reached again as one page; so does ream.
                    self.warn(Warning {
                        object: Some(r),
                        ..Warning::new(
                            "page tree cycle: /Pages node reached twice, counted as a page",
                        )
                    });
                    if pages.len() as u64 >= lim.max_pages {
                        return Err(Error::limit(format!(
                            "more than max_pages ({}) pages",
                            lim.max_pages
                        )));
                    }
                    pages.push(Page {
                        number: pages.len() as u64 + 1,
                        object: Some(r),
                        media_box: inh.media_box,
                        crop_box: inh.crop_box,
                        rotate: inh.rotate.unwrap_or(0).rem_euclid(360) / 90 * 90,
                    });
                    continue;
                }
                if depth + 1 > lim.max_page_depth {
                    return Err(Error::limit(format!(
                        "page tree deeper than max_page_depth ({})",
                        lim.max_page_depth
                    )));
                }
                let kids = kids_of.and_then(|k| match k {
                    Object::Array(a) => Some(a),
                    _ => None,
                });
                stack.push((kids.unwrap_or_default(), 0, inh, depth + 1));
            } else {
                if let Some(r) = r
                    && !seen_leaves.insert(r)
                {
                    self.warn(Warning {
                        object: Some(r),
                        ..Warning::new("page object referenced more than once in the page tree")
                    });
                }
                if pages.len() as u64 >= lim.max_pages {
                    return Err(Error::limit(format!(
                        "more than max_pages ({}) pages",
                        lim.max_pages
                    )));
                }
                pages.push(Page {
                    number: pages.len() as u64 + 1,
                    object: r,
                    media_box: inh.media_box,
                    crop_box: inh.crop_box,
                    rotate: inh.rotate.unwrap_or(0).rem_euclid(360) / 90 * 90,
                });
            }
        }
        if let Ok(Some(n)) = self.declared_count()
            && n != pages.len() as u64
        {
            self.warn(Warning::new(format!(
                "root /Count says {n} pages, the page tree holds {}",
                pages.len()
            )));
        }
        Ok(pages)
    }

    /// Reads the page tree level by level before the walk, each level in
    /// file order (object streams by container, then index), keeping only
    /// the keys the walk uses. The walk then visits the tree in page order
    /// without jumping between the node region and the page region of the
    /// file: a handful of sliding-window remaps and sequential reads
    /// instead of two jumps per leaf node. Bounded by `max_page_depth`
    /// levels and `max_pages` objects; what is not prefetched (inline
    /// kids, references to references, anything past the bounds) is read
    /// by the walk itself.
    fn prefetch_tree(&self, root: &Object) -> HashMap<ObjRef, Result<Object>> {
        let lim = self.opts.limits;
        let mut cache: HashMap<ObjRef, Result<Object>> = HashMap::new();
        let mut level: Vec<ObjRef> = root.as_ref().into_iter().collect();
        let cap = usize::try_from(lim.max_pages.saturating_add(1)).unwrap_or(usize::MAX);
        for _ in 0..=lim.max_page_depth {
            if level.is_empty() {
                break;
            }
            let mut keyed: Vec<((u64, u64), ObjRef)> =
                level.iter().map(|r| (self.file_order(r.num), *r)).collect();
            keyed.sort_unstable();
            keyed.dedup_by_key(|(_, r)| *r);
            let mut next = Vec::new();
            for (_, r) in keyed {
                if cache.contains_key(&r) {
                    continue;
                }
                if cache.len() >= cap {
                    return cache;
                }
                let got = match self.object(r) {
                    Ok(Object::Dict(d)) => {
                        if let Some(Object::Array(kids)) = d.get(b"Kids") {
                            next.extend(kids.iter().filter_map(Object::as_ref));
                        }
                        Ok(Object::Dict(trim(&d)))
                    }
                    // References to references and non-dictionaries: the
                    // walk resolves and reports them itself.
                    Ok(_) => continue,
                    Err(e) => Err(e),
                };
                cache.insert(r, got);
            }
            level = next;
        }
        cache
    }

    /// Where object `num` sits in the file, for sorting reads.
    fn file_order(&self, num: u32) -> (u64, u64) {
        match self.xref_entry(num) {
            Some(XrefEntry::InFile { offset, .. }) => (offset, 0),
            Some(XrefEntry::InStream { stream, index }) => match self.xref_entry(stream) {
                Some(XrefEntry::InFile { offset, .. }) => (offset, u64::from(index) + 1),
                _ => (u64::MAX, u64::from(num)),
            },
            _ => (u64::MAX, u64::from(num)),
        }
    }

    /// The root of the page tree: the catalog's `/Pages` when it is a
    /// `/Pages` node (has `/Kids` or that type), else the first such node
    /// up its `/Parent` chain (as qpdf does). `None`, with a warning, when
    /// there is none: the document then has no pages.
    fn page_tree_root(&self) -> Result<Option<Object>> {
        let cat = match self.catalog() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Malformed && !self.opts.strict => {
                self.warn(Warning::from_error("no page tree", &e));
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        let Some(mut node) = cat.get(b"Pages").cloned() else {
            self.warn(Warning::new("catalog has no /Pages: no pages"));
            return Ok(None);
        };
        let mut seen = HashSet::new();
        loop {
            let d = match self.resolve(&node) {
                Ok(Object::Dict(d)) => d,
                Err(e) if self.opts.strict => return Err(e),
                _ => {
                    self.warn(Warning::new("/Pages is not a dictionary: no pages"));
                    return Ok(None);
                }
            };
            let has_kids = d
                .get(b"Kids")
                .and_then(|k| self.resolve(k).ok())
                .is_some_and(|k| k.as_array().is_some());
            if has_kids || d.is_type(b"Pages") {
                return Ok(Some(node));
            }
            match d.get(b"Parent").cloned() {
                Some(p @ Object::Ref(r))
                    if seen.insert(r) && seen.len() < self.opts.limits.max_page_depth =>
                {
                    node = p
                }
                _ => {
                    self.warn(Warning::new("/Pages is not a page tree node: no pages"));
                    return Ok(None);
                }
            }
        }
    }

    fn inherit(&self, d: &Dict, mut inh: Inherited) -> Inherited {
        // (Reads only the keys `trim` keeps.)
        if let Some(r) = self.rect(d, b"MediaBox") {
            inh.media_box = Some(r);
        }
        if let Some(r) = self.rect(d, b"CropBox") {
            inh.crop_box = Some(r);
        }
        if let Some(r) = d
            .get(b"Rotate")
            .and_then(|o| self.resolve(o).ok())
            .and_then(|o| o.as_f64())
        {
            inh.rotate = Some(r as i64);
        }
        inh
    }

    fn rect(&self, d: &Dict, key: &[u8]) -> Option<Rect> {
        let a = self.resolve(d.get(key)?).ok()?;
        let a = a.as_array()?;
        if a.len() != 4 {
            return None;
        }
        let mut r = [0.0; 4];
        for (slot, v) in r.iter_mut().zip(a) {
            *slot = self.resolve(v).ok()?.as_f64()?;
        }
        Some(r)
    }
}

/// The keys of a page tree node or page the walk uses.
fn trim(d: &Dict) -> Dict {
    let mut out = Dict::new();
    for key in [&b"Type"[..], b"Kids", b"MediaBox", b"CropBox", b"Rotate"] {
        if let Some(v) = d.get(key) {
            out.insert(key.to_vec(), v.clone());
        }
    }
    out
}

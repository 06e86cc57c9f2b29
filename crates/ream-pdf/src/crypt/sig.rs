//! Signature dictionaries, whose `/Contents` string is stored in the
//! clear in an encrypted document (ISO 32000-2 §7.6.2): which
//! dictionaries are signatures, and which objects the signature fields of
//! the form point at.

use crate::object::{Dict, ObjRef, Object};
use std::collections::HashSet;

/// Most form fields visited when looking for signature fields.
pub(crate) const MAX_FIELDS: usize = 100_000;

/// True when `d` is a signature dictionary by its own entries: `/Type
/// /Sig` or `/DocTimeStamp`, or (no `/Type`, which is optional for
/// signatures) a `/ByteRange` array with a `/Contents` string and a
/// `/Filter` name, the entries every signature has.
pub(crate) fn is_sig_dict(d: &Dict) -> bool {
    match d.name(b"Type") {
        Some(b"Sig" | b"DocTimeStamp") => true,
        Some(_) => false,
        None => {
            matches!(d.get(b"ByteRange"), Some(Object::Array(_)))
                && matches!(d.get(b"Contents"), Some(Object::String(_)))
                && matches!(d.get(b"Filter"), Some(Object::Name(_)))
        }
    }
}

/// The objects that are the `/V` of a signature field (`/FT /Sig`, also
/// inherited from a parent field) under the form's `/Fields`, found by
/// walking the field tree from the catalog `root` with `resolve` (at most
/// [`MAX_FIELDS`] fields; the second value is true when the walk stopped
/// there).
pub(crate) fn sig_values(root: &Dict, resolve: &dyn Fn(ObjRef) -> Object) -> (HashSet<u32>, bool) {
    let mut found = HashSet::new();
    let deref = |o: &Object| match o {
        Object::Ref(r) => resolve(*r),
        o => o.clone(),
    };
    let Some(Object::Dict(form)) = root.get(b"AcroForm").map(deref) else {
        return (found, false);
    };
    let Some(Object::Array(fields)) = form.get(b"Fields").map(deref) else {
        return (found, false);
    };
    // (field, inherited /FT is /Sig)
    let mut stack: Vec<(Object, bool)> = fields.into_iter().map(|f| (f, false)).collect();
    let mut seen: HashSet<u32> = HashSet::new();
    let mut visited = 0usize;
    while let Some((f, parent_sig)) = stack.pop() {
        if let Object::Ref(r) = f
            && !seen.insert(r.num)
        {
            continue;
        }
        visited += 1;
        if visited > MAX_FIELDS {
            return (found, true);
        }
        let Object::Dict(d) = deref(&f) else {
            continue;
        };
        let is_sig = match d.name(b"FT") {
            Some(ft) => ft == b"Sig",
            None => parent_sig,
        };
        if is_sig && let Some(Object::Ref(v)) = d.get(b"V") {
            found.insert(v.num);
        }
        if let Some(Object::Array(kids)) = d.get(b"Kids").map(deref) {
            stack.extend(kids.into_iter().map(|k| (k, is_sig)));
        }
    }
    (found, false)
}

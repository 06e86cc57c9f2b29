//! What a stream dictionary loses when its document is written in the
//! clear: the `/Crypt` filter (a per-stream crypt filter) and its
//! decode parameters.

use crate::object::{Dict, Object};

/// Removes every `/Crypt` filter from `d`'s `/Filter` and the matching
/// entry of `/DecodeParms` (both followed through `resolve` when
/// indirect). A `/Filter` left empty is removed with `/DecodeParms`;
/// `/DecodeParms` left with only nulls is removed. Gives true when
/// something was removed.
pub(crate) fn strip_crypt_filter(d: &mut Dict, resolve: &dyn Fn(&Object) -> Object) -> bool {
    let Some(filter) = d.get(b"Filter").map(resolve) else {
        return false;
    };
    let filters: Vec<Object> = match filter {
        Object::Array(a) => a.iter().map(resolve).collect(),
        o => vec![o],
    };
    let is_crypt = |f: &Object| f.as_name() == Some(b"Crypt".as_slice());
    if !filters.iter().any(is_crypt) {
        return false;
    }
    let parms: Vec<Object> = match d.get(b"DecodeParms").map(resolve) {
        None | Some(Object::Null) => Vec::new(),
        Some(Object::Array(a)) => a,
        Some(o) => vec![o],
    };
    let mut kept_filters = Vec::new();
    let mut kept_parms = Vec::new();
    for (i, f) in filters.into_iter().enumerate() {
        if !is_crypt(&f) {
            kept_filters.push(f);
            kept_parms.push(parms.get(i).cloned().unwrap_or(Object::Null));
        }
    }
    d.remove(b"Filter");
    d.remove(b"DecodeParms");
    if kept_filters.is_empty() {
        return true;
    }
    let all_null = kept_parms.iter().all(|p| *p == Object::Null);
    if kept_filters.len() == 1 {
        d.insert(b"Filter".to_vec(), kept_filters.remove(0));
        if !all_null {
            d.insert(b"DecodeParms".to_vec(), kept_parms.remove(0));
        }
    } else {
        d.insert(b"Filter".to_vec(), Object::Array(kept_filters));
        if !all_null {
            d.insert(b"DecodeParms".to_vec(), Object::Array(kept_parms));
        }
    }
    true
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ObjRef;

    fn name(n: &str) -> Object {
        Object::Name(n.as_bytes().to_vec())
    }

    fn parms(n: &str) -> Object {
        let mut p = Dict::new();
        p.insert(b"Name".to_vec(), name(n));
        Object::Dict(p)
    }

    #[test]
    fn crypt_filter_and_its_parameters_go() {
        let id = |o: &Object| o.clone();
        let mut d = Dict::new();
        d.insert(
            b"Filter".to_vec(),
            Object::Array(vec![name("Crypt"), name("FlateDecode")]),
        );
        d.insert(
            b"DecodeParms".to_vec(),
            Object::Array(vec![parms("StdCF"), Object::Null]),
        );
        assert!(strip_crypt_filter(&mut d, &id));
        assert_eq!(d.get(b"Filter"), Some(&name("FlateDecode")));
        assert_eq!(d.get(b"DecodeParms"), None);
        // A lone /Crypt: no filter left.
        let mut d = Dict::new();
        d.insert(b"Filter".to_vec(), name("Crypt"));
        d.insert(b"DecodeParms".to_vec(), parms("Identity"));
        assert!(strip_crypt_filter(&mut d, &id));
        assert!(d.is_empty());
        // Parameters of the filters kept stay, arrays followed.
        let mut d = Dict::new();
        d.insert(b"Filter".to_vec(), Object::Ref(ObjRef::new(9, 0)));
        d.insert(
            b"DecodeParms".to_vec(),
            Object::Array(vec![Object::Null, parms("a"), parms("b")]),
        );
        let resolve = |o: &Object| match o {
            Object::Ref(_) => Object::Array(vec![name("Crypt"), name("A"), name("B")]),
            o => o.clone(),
        };
        assert!(strip_crypt_filter(&mut d, &resolve));
        assert_eq!(
            d.get(b"Filter"),
            Some(&Object::Array(vec![name("A"), name("B")]))
        );
        assert_eq!(
            d.get(b"DecodeParms"),
            Some(&Object::Array(vec![parms("a"), parms("b")]))
        );
        // No /Crypt: untouched.
        let mut d = Dict::new();
        d.insert(b"Filter".to_vec(), name("FlateDecode"));
        assert!(!strip_crypt_filter(&mut d, &id));
        assert_eq!(d.len(), 1);
    }
}

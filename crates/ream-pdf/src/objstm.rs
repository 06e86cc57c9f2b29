//! Object streams (PDF 1.5): the header of `(num, offset)` pairs and
//! objects parsed on demand, with a bounded LRU cache of decoded streams.

use crate::error::{Error, Result};
use crate::lexer::{Lexer, Token};
use crate::object::{ObjRef, Object};
use crate::parser::Parser;
use std::collections::HashMap;
use std::sync::Arc;

/// A decoded object stream.
#[derive(Debug)]
pub(crate) struct ObjStm {
    /// `(object number, offset from /First)` in stream order.
    pub entries: Vec<(u32, usize)>,
    pub first: usize,
    pub data: Vec<u8>,
}

impl ObjStm {
    /// Parses the header of decoded data `data` with `/N n` and `/First first`.
    pub fn new(data: Vec<u8>, n: u64, first: usize, max_n: u64) -> Result<ObjStm> {
        if n > max_n {
            return Err(Error::limit(format!(
                "object stream /N {n} exceeds max_objstm_objects ({max_n})"
            )));
        }
        let head = data.get(..first.min(data.len())).unwrap_or_default();
        let mut lx = Lexer::new(head, 0, true);
        let mut entries = Vec::with_capacity(n.min(1 << 16) as usize);
        for _ in 0..n {
            match (lx.next()?, lx.next()?) {
                (Token::Int(num), Token::Int(off)) if num >= 0 && off >= 0 => {
                    entries.push((
                        u32::try_from(num).unwrap_or(u32::MAX),
                        usize::try_from(off).unwrap_or(usize::MAX),
                    ));
                }
                _ => break, // a short header: keep the pairs read so far
            }
        }
        Ok(ObjStm {
            entries,
            first,
            data,
        })
    }

    /// Parses the object `r` stored at `index` (or found by number when the
    /// index is wrong). `None` when the stream does not hold it.
    pub fn object(&self, r: ObjRef, index: u32, max_depth: usize) -> Result<Option<Object>> {
        let i = match self.entries.get(index as usize) {
            Some((num, _)) if *num == r.num => index as usize,
            _ => match self.entries.iter().position(|(num, _)| *num == r.num) {
                Some(i) => i,
                None => return Ok(None),
            },
        };
        let Some(&(_, off)) = self.entries.get(i) else {
            return Ok(None);
        };
        let start = self.first.saturating_add(off);
        let end = self
            .entries
            .get(i + 1)
            .map(|(_, o)| self.first.saturating_add(*o))
            .filter(|e| *e > start)
            .unwrap_or(self.data.len())
            .min(self.data.len());
        let Some(text) = self.data.get(start..end) else {
            return Err(Error::new(
                ream_io::ErrorKind::Malformed,
                "object offset beyond the object stream",
            )
            .in_object(r));
        };
        let mut p = Parser::new(Lexer::new(text, 0, true), max_depth);
        p.object().map(Some).map_err(|e| e.in_object(r))
    }

    fn bytes(&self) -> u64 {
        (self.data.len() + self.entries.len() * 16) as u64
    }
}

/// A least-recently-used cache of decoded object streams, bounded in
/// streams and bytes.
#[derive(Debug)]
pub(crate) struct Cache {
    map: HashMap<u32, (Arc<ObjStm>, u64)>,
    tick: u64,
    bytes: u64,
    max_bytes: u64,
    max_streams: usize,
    pub hits: u64,
    pub misses: u64,
}

impl Cache {
    pub fn new(max_bytes: u64, max_streams: usize) -> Cache {
        Cache {
            map: HashMap::new(),
            tick: 0,
            bytes: 0,
            max_bytes,
            max_streams: max_streams.max(1),
            hits: 0,
            misses: 0,
        }
    }

    pub fn get(&mut self, num: u32) -> Option<Arc<ObjStm>> {
        self.tick += 1;
        let tick = self.tick;
        match self.map.get_mut(&num) {
            Some((s, t)) => {
                *t = tick;
                self.hits += 1;
                Some(Arc::clone(s))
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    pub fn insert(&mut self, num: u32, s: Arc<ObjStm>) {
        self.tick += 1;
        self.bytes += s.bytes();
        if let Some((old, _)) = self.map.insert(num, (s, self.tick)) {
            self.bytes = self.bytes.saturating_sub(old.bytes());
        }
        while (self.map.len() > self.max_streams || self.bytes > self.max_bytes)
            && self.map.len() > 1
        {
            let Some((&victim, _)) = self
                .map
                .iter()
                .filter(|(k, _)| **k != num)
                .min_by_key(|(_, (_, t))| *t)
            else {
                break;
            };
            if let Some((old, _)) = self.map.remove(&victim) {
                self.bytes = self.bytes.saturating_sub(old.bytes());
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn clear(&mut self) {
        self.map.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_objects_and_lru() {
        let data = b"5 0 6 4 <<>>[1 2]".to_vec();
        let s = ObjStm::new(data, 2, 8, 10).unwrap();
        assert_eq!(
            s.object(ObjRef::new(6, 0), 1, 8).unwrap(),
            Some(Object::Array(vec![Object::Int(1), Object::Int(2)]))
        );
        // Wrong index: found by number.
        assert!(
            s.object(ObjRef::new(5, 0), 1, 8)
                .unwrap()
                .unwrap()
                .as_dict()
                .is_some()
        );
        assert_eq!(s.object(ObjRef::new(7, 0), 0, 8).unwrap(), None);
        assert!(ObjStm::new(Vec::new(), 11, 0, 10).is_err());

        let mut c = Cache::new(1 << 20, 2);
        for n in 0..3 {
            c.insert(n, Arc::new(ObjStm::new(Vec::new(), 0, 0, 1).unwrap()));
            let _ = c.get(0);
        }
        assert_eq!(c.len(), 2);
        assert!(c.get(0).is_some() && c.get(1).is_none() && c.get(2).is_some());
    }
}

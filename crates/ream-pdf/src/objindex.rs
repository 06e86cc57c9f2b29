//! A metadata pass over every object: [`Pdf::index_objects`].
//!
//! Work is split into jobs so that each object stream is decoded once, by
//! one worker (its members form one job, the stream bypasses the shared
//! LRU cache), and plain objects go in contiguous offset ranges. Workers
//! take jobs from an atomic counter and keep their own results, merged at
//! the end: nothing is locked per object except what the byte source
//! does. The mapped source ([`SourceKind::Map`](crate::SourceKind)) reads
//! without a lock and scales best; the window and buffered sources hold
//! a lock per read, so threads mostly wait on each other there.

use crate::doc::{Pdf, State};
use crate::error::Result;
use crate::object::{Dict, ObjRef, Object};
use crate::xref::XrefEntry;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Plain objects per job.
const PLAIN_CHUNK: usize = 512;

/// What kind of object a summary describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ObjKind {
    /// A dictionary.
    Dict,
    /// A stream.
    Stream,
    /// An array.
    Array,
    /// An integer or real.
    Number,
    /// A string.
    String,
    /// A name.
    Name,
    /// A boolean.
    Bool,
    /// `null`.
    Null,
    /// An indirect reference.
    Ref,
}

impl ObjKind {
    fn of(o: &Object) -> ObjKind {
        match o {
            Object::Null => ObjKind::Null,
            Object::Bool(_) => ObjKind::Bool,
            Object::Int(_) | Object::Real(_) => ObjKind::Number,
            Object::String(_) => ObjKind::String,
            Object::Name(_) => ObjKind::Name,
            Object::Array(_) => ObjKind::Array,
            Object::Dict(_) => ObjKind::Dict,
            Object::Stream(_) => ObjKind::Stream,
            Object::Ref(_) => ObjKind::Ref,
        }
    }

    /// A lowercase name (`dict`, `stream`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ObjKind::Dict => "dict",
            ObjKind::Stream => "stream",
            ObjKind::Array => "array",
            ObjKind::Number => "number",
            ObjKind::String => "string",
            ObjKind::Name => "name",
            ObjKind::Bool => "bool",
            ObjKind::Null => "null",
            ObjKind::Ref => "ref",
        }
    }
}

/// A small summary of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjSummary {
    /// Object number.
    pub num: u32,
    /// Generation (0 inside object streams).
    pub generation: u16,
    /// What it is.
    pub kind: ObjKind,
    /// The `/Type` name of a dictionary or stream, lossily decoded.
    pub type_name: Option<String>,
    /// A stream's `/Length` (resolved when a reference).
    pub length: Option<i64>,
    /// A stream's `/Filter` names, in order.
    pub filters: Vec<String>,
    /// The object stream holding it, if any.
    pub in_stream: Option<u32>,
}

/// An object that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectIndexError {
    /// Object number.
    pub num: u32,
    /// What went wrong.
    pub message: String,
}

/// The result of [`Pdf::index_objects`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectIndex {
    /// One summary per readable object, by object number.
    pub objects: Vec<ObjSummary>,
    /// Objects per `/Type` name (objects without one are not counted).
    pub by_type: BTreeMap<String, u64>,
    /// Unreadable objects, by object number.
    pub errors: Vec<ObjectIndexError>,
    /// Object streams decoded (or attempted).
    pub object_streams: u64,
    /// How many threads ran.
    pub threads: usize,
}

impl ObjectIndex {
    /// Objects that are streams.
    pub fn streams(&self) -> u64 {
        self.objects
            .iter()
            .filter(|o| o.kind == ObjKind::Stream)
            .count() as u64
    }
}

enum Job {
    /// Plain objects `(num, generation, offset)`, ascending offset.
    Plain(Vec<(u32, u16)>),
    /// An object stream and its members `(num, index)`.
    Stream(u32, Vec<(u32, u32)>),
}

#[derive(Default)]
struct Part {
    objects: Vec<ObjSummary>,
    errors: Vec<ObjectIndexError>,
}

impl Pdf {
    /// Visits every object the merged xref lists (plain ones and every one
    /// inside object streams) on `threads` workers (0 = available cores)
    /// and summarizes each. A broken object becomes an entry of
    /// [`ObjectIndex::errors`]; the pass never stops for one. No repair
    /// is attempted. Scales best with the mapped byte source (lock-free
    /// reads); window and buffered sources take a lock per read.
    pub fn index_objects(&self, threads: usize) -> Result<ObjectIndex> {
        let threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, usize::from)
        } else {
            threads
        };
        let st = self.read_state();
        let st: &State = &st;
        let mut plain: Vec<(u64, u32, u16)> = Vec::new();
        let mut streams: BTreeMap<u32, Vec<(u32, u32)>> = BTreeMap::new();
        for (num, e) in st.entries.iter() {
            match e {
                XrefEntry::Free => {}
                XrefEntry::InFile { offset, generation } => plain.push((offset, num, generation)),
                XrefEntry::InStream { stream, index } => {
                    streams.entry(stream).or_default().push((num, index));
                }
            }
        }
        plain.sort_unstable();
        let object_streams = streams.len() as u64;
        let mut jobs: Vec<Job> = streams
            .into_iter()
            .map(|(s, m)| Job::Stream(s, m))
            .collect();
        // Largest object streams first, plain ranges after.
        jobs.sort_by_key(|j| match j {
            Job::Stream(_, m) => std::cmp::Reverse(m.len()),
            Job::Plain(_) => std::cmp::Reverse(0),
        });
        jobs.extend(
            plain
                .chunks(PLAIN_CHUNK)
                .map(|c| Job::Plain(c.iter().map(|&(_, n, g)| (n, g)).collect())),
        );
        let threads = threads.clamp(1, jobs.len().max(1));
        let next = AtomicUsize::new(0);
        let work = |part: &mut Part| {
            while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                self.run_job(st, job, part);
            }
        };
        let mut parts: Vec<Part> = Vec::with_capacity(threads);
        if threads == 1 {
            let mut p = Part::default();
            work(&mut p);
            parts.push(p);
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(|| {
                            let mut p = Part::default();
                            work(&mut p);
                            p
                        })
                    })
                    .collect();
                for h in handles {
                    if let Ok(p) = h.join() {
                        parts.push(p);
                    }
                }
            });
        }
        let mut out = ObjectIndex {
            object_streams,
            threads,
            ..ObjectIndex::default()
        };
        for p in parts {
            out.objects.extend(p.objects);
            out.errors.extend(p.errors);
        }
        out.objects.sort_unstable_by_key(|o| o.num);
        out.errors
            .sort_unstable_by(|a, b| (a.num, &a.message).cmp(&(b.num, &b.message)));
        for o in &out.objects {
            if let Some(t) = &o.type_name {
                *out.by_type.entry(t.clone()).or_insert(0) += 1;
            }
        }
        Ok(out)
    }

    fn run_job(&self, st: &State, job: &Job, part: &mut Part) {
        match job {
            Job::Plain(objs) => {
                for &(num, generation) in objs {
                    match self.object_in(st, ObjRef::new(num, generation), 0) {
                        Ok(o) => part
                            .objects
                            .push(self.summarize(st, num, generation, &o, None)),
                        Err(e) => part.errors.push(ObjectIndexError {
                            num,
                            message: e.to_string(),
                        }),
                    }
                }
            }
            Job::Stream(stream, members) => match self.objstm_uncached(st, *stream, 0) {
                Ok(s) => {
                    let max = self.opts.limits.max_nesting;
                    for &(num, index) in members {
                        let r = ObjRef::new(num, 0);
                        match s.object(r, index, max) {
                            Ok(Some(o)) => {
                                part.objects
                                    .push(self.summarize(st, num, 0, &o, Some(*stream)));
                            }
                            Ok(None) => part.errors.push(ObjectIndexError {
                                num,
                                message: format!("object stream {stream} does not hold it"),
                            }),
                            Err(e) => part.errors.push(ObjectIndexError {
                                num,
                                message: e.to_string(),
                            }),
                        }
                    }
                }
                Err(e) => {
                    let message = format!("object stream {stream}: {e}");
                    part.errors
                        .extend(members.iter().map(|&(num, _)| ObjectIndexError {
                            num,
                            message: message.clone(),
                        }));
                }
            },
        }
    }

    fn summarize(
        &self,
        st: &State,
        num: u32,
        generation: u16,
        o: &Object,
        in_stream: Option<u32>,
    ) -> ObjSummary {
        let dict: Option<&Dict> = match o {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        };
        let type_name = dict
            .and_then(|d| d.name(b"Type"))
            .map(|n| String::from_utf8_lossy(n).into_owned());
        let (length, filters) = match o {
            Object::Stream(s) => {
                let length = match s.dict.get(b"Length") {
                    Some(Object::Int(n)) => Some(*n),
                    Some(Object::Ref(r)) => self.object_in(st, *r, 1).ok().and_then(|o| o.as_int()),
                    _ => None,
                };
                let names = |o: &Object| -> Vec<String> {
                    match o {
                        Object::Name(n) => vec![String::from_utf8_lossy(n).into_owned()],
                        Object::Array(a) => a
                            .iter()
                            .filter_map(Object::as_name)
                            .map(|n| String::from_utf8_lossy(n).into_owned())
                            .collect(),
                        _ => Vec::new(),
                    }
                };
                let filters = match s.dict.get(b"Filter") {
                    Some(Object::Ref(r)) => self
                        .object_in(st, *r, 1)
                        .map(|o| names(&o))
                        .unwrap_or_default(),
                    Some(f) => names(f),
                    None => Vec::new(),
                };
                (length, filters)
            }
            _ => (None, Vec::new()),
        };
        ObjSummary {
            num,
            generation,
            kind: ObjKind::of(o),
            type_name,
            length,
            filters,
            in_stream,
        }
    }
}

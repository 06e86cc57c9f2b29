//! The PDF object model: values parsed from the file, owned.

use std::fmt;

/// An indirect object reference `num generation R`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjRef {
    /// Object number.
    pub num: u32,
    /// Generation number.
    pub generation: u16,
}

impl ObjRef {
    /// A reference to `num generation`.
    pub fn new(num: u32, generation: u16) -> ObjRef {
        ObjRef { num, generation }
    }
}

impl fmt::Display for ObjRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.num, self.generation)
    }
}

/// A PDF value. Strings and names hold their decoded bytes (escapes and
/// `#xx` resolved); streams hold their dictionary and where their data
/// starts in the file (read with [`Pdf::stream_data`](crate::Pdf::stream_data)).
#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    /// `null` (also what free and missing objects resolve to).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real number.
    Real(f64),
    /// A literal or hex string (bytes).
    String(Vec<u8>),
    /// A name, without the slash.
    Name(Vec<u8>),
    /// An array.
    Array(Vec<Object>),
    /// A dictionary.
    Dict(Dict),
    /// A stream (only as an indirect object).
    Stream(Box<Stream>),
    /// An indirect reference.
    Ref(ObjRef),
}

/// A stream: its dictionary and the absolute offset of its data.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    /// The stream dictionary.
    pub dict: Dict,
    /// Absolute offset of the first data byte (after `stream` and its EOL).
    pub data_offset: u64,
    /// The object this stream is (`num gen` of its `obj` header), set when
    /// it was read through the document; an encrypted document's stream
    /// data is decrypted with this object's key. `None` for streams built
    /// by hand.
    pub object: Option<ObjRef>,
}

/// A dictionary in file order; a repeated key keeps the last value.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dict(Vec<(Vec<u8>, Object)>);

impl Dict {
    /// An empty dictionary.
    pub fn new() -> Dict {
        Dict(Vec::new())
    }

    /// The value of `key` (name without slash).
    pub fn get(&self, key: &[u8]) -> Option<&Object> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Sets `key` (replacing an existing value in place).
    pub fn insert(&mut self, key: Vec<u8>, value: Object) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &[u8]) -> Option<Object> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    /// The entries in file order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &Object)> {
        self.0.iter().map(|(k, v)| (k.as_slice(), v))
    }

    /// The values in file order, to change in place.
    pub(crate) fn values_mut(&mut self) -> impl Iterator<Item = &mut Object> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    /// The entries in file order, values to change in place.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = (&[u8], &mut Object)> {
        self.0.iter_mut().map(|(k, v)| (k.as_slice(), v))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `key` when it is a name.
    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        self.get(key).and_then(Object::as_name)
    }

    /// The value of `key` when it is an integer.
    pub fn int(&self, key: &[u8]) -> Option<i64> {
        self.get(key).and_then(Object::as_int)
    }

    /// True when `/Type` is the name `ty`.
    pub fn is_type(&self, ty: &[u8]) -> bool {
        self.name(b"Type") == Some(ty)
    }
}

impl Object {
    /// The integer value (reals with no fraction are not converted).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Object::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The numeric value of an integer or real.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Object::Int(i) => Some(*i as f64),
            Object::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The name bytes.
    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Object::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The string bytes.
    pub fn as_string(&self) -> Option<&[u8]> {
        match self {
            Object::String(s) => Some(s),
            _ => None,
        }
    }

    /// The dictionary (a stream's dictionary too).
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    /// The array elements.
    pub fn as_array(&self) -> Option<&[Object]> {
        match self {
            Object::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The reference.
    pub fn as_ref(&self) -> Option<ObjRef> {
        match self {
            Object::Ref(r) => Some(*r),
            _ => None,
        }
    }

    /// The stream.
    pub fn as_stream(&self) -> Option<&Stream> {
        match self {
            Object::Stream(s) => Some(s),
            _ => None,
        }
    }

    /// A short type name (`null`, `int`, `dict`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Object::Null => "null",
            Object::Bool(_) => "bool",
            Object::Int(_) => "int",
            Object::Real(_) => "real",
            Object::String(_) => "string",
            Object::Name(_) => "name",
            Object::Array(_) => "array",
            Object::Dict(_) => "dict",
            Object::Stream(_) => "stream",
            Object::Ref(_) => "ref",
        }
    }
}

impl fmt::Display for Object {
    /// PDF syntax (streams print their dictionary and `stream ... endstream`
    /// without data).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::syntax::write_object(f, self)
    }
}

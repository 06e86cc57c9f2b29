//! A small XML event reader over a template's parts, with errors naming
//! the template and the part.

use crate::error::{Error, ErrorKind, Result};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

/// The SpreadsheetML namespace of strict OOXML (ISO/IEC 29500 strict),
/// which the writer does not take as a template.
const STRICT_NS: &str = "http://purl.oclc.org/ooxml/spreadsheetml/main";

/// Events of one part; `what` names the part in errors (`template
/// book.xlsx, part xl/styles.xml`).
pub(crate) struct Part<'a> {
    r: Reader<&'a [u8]>,
    xml: &'a [u8],
    what: &'a str,
}

impl<'a> Part<'a> {
    pub(crate) fn new(xml: &'a [u8], what: &'a str) -> Part<'a> {
        Part {
            r: Reader::from_reader(xml),
            xml,
            what,
        }
    }

    /// The whole part.
    pub(crate) fn input(&self) -> &'a [u8] {
        self.xml
    }

    /// The byte offset after the last event.
    pub(crate) fn pos(&self) -> usize {
        usize::try_from(self.r.buffer_position()).unwrap_or(usize::MAX)
    }

    /// A malformed-part error at the current position.
    pub(crate) fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::new(
            ErrorKind::Malformed,
            format!("{}: {msg} (at byte {})", self.what, self.pos()),
        )
    }

    /// The next event and the offset it starts at. DTDs are refused.
    pub(crate) fn next(&mut self) -> Result<(usize, Event<'a>)> {
        let pos = self.pos();
        let ev = self.r.read_event().map_err(|e| {
            Error::new(
                ErrorKind::Malformed,
                format!(
                    "{}: XML: {e} (at byte {})",
                    self.what,
                    self.r.error_position()
                ),
            )
        })?;
        if let Event::DocType(_) = ev {
            return Err(self.error("DTD declarations are not allowed"));
        }
        Ok((pos, ev))
    }

    /// Skips past the end of the element `e` just started; returns the
    /// offset after its end tag.
    pub(crate) fn skip(&mut self, e: &BytesStart<'a>) -> Result<usize> {
        let name = e.name();
        self.r.read_to_end(name).map_err(|err| {
            Error::new(
                ErrorKind::Malformed,
                format!(
                    "{}: XML: {err} (at byte {})",
                    self.what,
                    self.r.error_position()
                ),
            )
        })?;
        Ok(self.pos())
    }

    /// The value of the attribute named `key` (exactly, prefix included),
    /// entities resolved.
    pub(crate) fn attr(&self, e: &BytesStart<'_>, key: &str) -> Result<Option<String>> {
        for a in e.attributes() {
            let a = a.map_err(|err| self.error(format!("XML attribute: {err}")))?;
            if a.key.0 != key {
                continue;
            }
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| self.error(format!("XML attribute value: {err}")))?;
            return Ok(Some(v.into_owned()));
        }
        Ok(None)
    }

    /// Appends the text of a text, CDATA or entity event to `out`.
    pub(crate) fn text(&self, ev: &Event<'_>, out: &mut String) -> Result<()> {
        match ev {
            Event::Text(t) => out.push_str(&t.xml10_content()),
            Event::CData(t) => out.push_str(&t.xml10_content()),
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(c)) => out.push(c),
                Ok(None) => match quick_xml::escape::resolve_predefined_entity(r) {
                    Some(s) => out.push_str(s),
                    None => return Err(self.error(format!("undefined entity &{};", &**r))),
                },
                Err(e) => return Err(self.error(format!("bad character reference: {e}"))),
            },
            _ => {}
        }
        Ok(())
    }

    /// Checks the root element: named `want` without a namespace prefix,
    /// not strict OOXML.
    pub(crate) fn check_root(&self, e: &BytesStart<'_>, want: &str) -> Result<()> {
        let raw = e.name().0.to_string();
        if raw.contains(':') {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "{}: unsupported template: the root element <{raw}> has a namespace \
                     prefix (only unprefixed SpreadsheetML is taken)",
                    self.what
                ),
            ));
        }
        if raw != want {
            return Err(self.error(format!("the root element is <{raw}>, not <{want}>")));
        }
        if self.attr(e, "xmlns")?.as_deref() == Some(STRICT_NS) {
            return Err(Error::new(
                ErrorKind::Unsupported,
                format!(
                    "{}: unsupported template: strict OOXML (save it as an ordinary .xlsx)",
                    self.what
                ),
            ));
        }
        Ok(())
    }
}

/// The local name of an element (`x:row` -> `row`).
pub(crate) fn name<'e>(e: &'e BytesStart<'_>) -> &'e str {
    e.local_name().into_inner()
}

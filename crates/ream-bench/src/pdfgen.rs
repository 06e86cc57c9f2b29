//! Deterministic generator of big PDFs for `ream-bench pdf`.
//!
//! Each file has tens of thousands of pages (6 objects per page: the page,
//! its content stream, resources, two link annotations and a private
//! piece-info dictionary), a page tree of fan-out 32, a few fonts, large
//! incompressible image streams spread through the file, and three
//! incremental updates appended after the original (each a new Info, 40
//! pages rotated with one new annotation each) chained with `/Prev`.
//! Object numbers are a fixed-seed shuffle of the file order.
//!
//! Two syntaxes per size: `xrefstream` (small objects packed 80 to an
//! object stream, xref streams; updates pack theirs too) and `classic`
//! (every object plain, classic xref tables). Written by streaming through
//! one buffer into `NAME.pdf.partial`, renamed when complete, so an
//! existing file is always whole and is never generated twice.

use crate::prng::SplitMix64;
use anyhow::{Context, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Sizes of the generated files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Size {
    /// About 20 MB: 800 pages, 18 images of 1 MiB.
    Small,
    /// About 100 MB: 3,200 pages, 90 images of 1 MiB.
    Medium,
    /// About 320 MB: 10,000 pages, 290 images of 1 MiB.
    Large,
    /// About 1.5 GB: 50,000 pages (~305,000 objects), 1,400 images of 1 MiB.
    Big,
}

impl Size {
    /// `small`, `medium`, `large` or `big`.
    pub fn as_str(self) -> &'static str {
        match self {
            Size::Small => "small",
            Size::Medium => "medium",
            Size::Large => "large",
            Size::Big => "big",
        }
    }
}

/// One file to generate.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Size class.
    pub size: Size,
    /// Xref streams and object streams (else classic tables, plain objects).
    pub xref_stream: bool,
    /// Pages.
    pub pages: u32,
    /// Large incompressible image streams.
    pub images: u32,
    /// Bytes per image.
    pub image_bytes: usize,
    /// Incremental updates appended.
    pub updates: u32,
}

impl Spec {
    /// The two files of a size: xref streams first, then classic.
    pub fn both(size: Size) -> [Spec; 2] {
        let (pages, images) = match size {
            Size::Small => (800, 18),
            Size::Medium => (3_200, 90),
            Size::Large => (10_000, 290),
            Size::Big => (50_000, 1_400),
        };
        let s = Spec {
            size,
            xref_stream: true,
            pages,
            images,
            image_bytes: 1 << 20,
            updates: 3,
        };
        [
            s,
            Spec {
                xref_stream: false,
                ..s
            },
        ]
    }

    /// `xrefstream` or `classic`.
    pub fn kind(&self) -> &'static str {
        if self.xref_stream {
            "xrefstream"
        } else {
            "classic"
        }
    }

    /// File name in the data folder.
    pub fn file_name(&self) -> String {
        format!("pdf-{}-{}.pdf", self.size.as_str(), self.kind())
    }
}

/// What [`generate`] produced or found.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The file.
    pub path: PathBuf,
    /// True when written now (false: it existed).
    pub written: bool,
    /// Seconds spent writing.
    pub secs: f64,
    /// File length.
    pub bytes: u64,
}

const FONTS: u32 = 8;
const FANOUT: usize = 32;
/// Small objects per object stream (16 pages x 5).
const PER_OBJSTM: usize = 80;
/// Pages changed by each update.
const CHANGED: u32 = 40;

/// Generates `spec` into `dir` unless the file exists (or `force`).
pub fn generate(dir: &Path, spec: &Spec, force: bool) -> Result<Generated> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(spec.file_name());
    if path.is_file() && !force {
        let bytes = std::fs::metadata(&path)?.len();
        return Ok(Generated {
            path,
            written: false,
            secs: 0.0,
            bytes,
        });
    }
    let partial = dir.join(format!("{}.partial", spec.file_name()));
    let t0 = Instant::now();
    let file = File::create(&partial).with_context(|| format!("creating {}", partial.display()))?;
    let mut w = Out {
        w: BufWriter::with_capacity(8 << 20, file),
        pos: 0,
    };
    Gen::new(spec).write(&mut w)?;
    let file = w.w.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&partial, &path)?;
    let bytes = std::fs::metadata(&path)?.len();
    Ok(Generated {
        path,
        written: true,
        secs: t0.elapsed().as_secs_f64(),
        bytes,
    })
}

/// A counting writer.
struct Out {
    w: BufWriter<File>,
    pos: u64,
}

impl Out {
    fn put(&mut self, b: &[u8]) -> Result<()> {
        self.w.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }
}

/// Where an object went.
#[derive(Debug, Clone, Copy)]
enum Loc {
    None,
    At(u64),
    In(u32, u32),
}

/// The logical objects and their shuffled numbers.
struct Gen {
    spec: Spec,
    rng: SplitMix64,
    /// Logical id -> object number.
    num: Vec<u32>,
    /// Object number -> location (index 0 unused).
    loc: Vec<Loc>,
    catalog: usize,
    info: usize,
    fonts: usize,
    /// Page tree nodes: (logical id, parent logical id or none, kids, count).
    nodes: Vec<(usize, Option<usize>, Vec<usize>, u32)>,
    root: usize,
    /// Logical id of page 0's first object (6 per page).
    pages: usize,
    page_parent: Vec<usize>,
    images: usize,
    containers: usize,
    container_count: usize,
    xref_obj: usize,
}

impl Gen {
    fn new(spec: &Spec) -> Gen {
        let mut next = 0usize;
        let mut alloc = |n: usize| {
            let s = next;
            next += n;
            s
        };
        let catalog = alloc(1);
        let info = alloc(1);
        let fonts = alloc(FONTS as usize);
        let pages = alloc(spec.pages as usize * 6);
        let images = alloc(spec.images as usize);
        // Page tree: leaves of FANOUT pages, then nodes of FANOUT nodes.
        let mut nodes = Vec::new();
        let mut page_parent = vec![0usize; spec.pages as usize];
        let mut level: Vec<(usize, u32)> = (0..spec.pages as usize)
            .map(|i| (pages + 6 * i, 1))
            .collect();
        let mut first = true;
        let root;
        loop {
            let mut up = Vec::new();
            for chunk in level.chunks(FANOUT) {
                let id = alloc(1);
                let count = chunk.iter().map(|(_, c)| c).sum();
                let kids: Vec<usize> = chunk.iter().map(|(k, _)| *k).collect();
                if first {
                    for &k in &kids {
                        if let Some(p) = page_parent.get_mut((k - pages) / 6) {
                            *p = id;
                        }
                    }
                } else {
                    for &k in &kids {
                        if let Some(n) = nodes
                            .iter_mut()
                            .find(|n: &&mut (usize, Option<usize>, Vec<usize>, u32)| n.0 == k)
                        {
                            n.1 = Some(id);
                        }
                    }
                }
                nodes.push((id, None, kids, count));
                up.push((id, count));
            }
            first = false;
            if up.len() == 1 {
                root = up.first().map_or(0, |u| u.0);
                break;
            }
            level = up;
        }
        let small = 2 + FONTS as usize + nodes.len() + spec.pages as usize * 5;
        let container_count = if spec.xref_stream {
            // Head (catalog, info, fonts, nodes) then per 16 pages.
            let head = 2 + FONTS as usize + nodes.len();
            head.div_ceil(PER_OBJSTM) + (spec.pages as usize).div_ceil(PER_OBJSTM / 5)
        } else {
            0
        };
        let _ = small;
        let containers = alloc(container_count);
        let xref_obj = alloc(usize::from(spec.xref_stream));
        let total = next;
        // Shuffled numbering: a Fisher-Yates permutation of 1..=total.
        let mut rng = SplitMix64::new(0x5EED_0002 ^ u64::from(spec.pages));
        let mut num: Vec<u32> = (1..=total as u32).collect();
        for i in (1..num.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            num.swap(i, j);
        }
        Gen {
            spec: *spec,
            rng,
            num,
            loc: vec![Loc::None; total + 1],
            catalog,
            info,
            fonts,
            nodes,
            root,
            pages,
            page_parent,
            images,
            containers,
            container_count,
            xref_obj,
        }
    }

    fn n(&self, id: usize) -> u32 {
        self.num.get(id).copied().unwrap_or(0)
    }

    fn r(&self, id: usize) -> String {
        format!("{} 0 R", self.n(id))
    }

    fn page_dict(&self, i: u32, rotate: Option<u32>, extra_annot: Option<u32>) -> String {
        let base = self.pages + 6 * i as usize;
        let parent = self.page_parent.get(i as usize).copied().unwrap_or(0);
        let mut s = format!(
            "<< /Type /Page /Parent {} /Resources {} /Contents {} /Annots [{} {}",
            self.r(parent),
            self.r(base + 2),
            self.r(base + 1),
            self.r(base + 3),
            self.r(base + 4)
        );
        if let Some(a) = extra_annot {
            s.push_str(&format!(" {a} 0 R"));
        }
        s.push_str(&format!(
            "] /StructParents {i} /PieceInfo << /Ream << /LastModified (D:20240101000000Z) /Private {} >> >>",
            self.r(base + 5)
        ));
        if i.is_multiple_of(7) {
            s.push_str(" /MediaBox [0 0 595 842]");
        }
        if i.is_multiple_of(11) {
            s.push_str(" /CropBox [10 10 585 832]");
        }
        if let Some(r) = rotate {
            s.push_str(&format!(" /Rotate {r}"));
        } else if i.is_multiple_of(13) {
            s.push_str(" /Rotate 90");
        }
        s.push_str(" >>");
        s
    }

    fn image_of_page(&self, i: u32) -> Option<usize> {
        let step = (self.spec.pages / self.spec.images.max(1)).max(1);
        (i.is_multiple_of(step) && i / step < self.spec.images)
            .then(|| self.images + (i / step) as usize)
    }

    fn resources(&self, i: u32) -> String {
        let f1 = self.fonts + (i % FONTS) as usize;
        let f2 = self.fonts + ((i + 3) % FONTS) as usize;
        let mut s = format!(
            "<< /Font << /F1 {} /F2 {} >> /ProcSet [/PDF /Text /ImageB]",
            self.r(f1),
            self.r(f2)
        );
        if let Some(im) = self.image_of_page(i) {
            s.push_str(&format!(" /XObject << /Im0 {} >>", self.r(im)));
        }
        s.push_str(" >>");
        s
    }

    fn annot(&self, i: u32, k: u32, page_num: u32) -> String {
        let y = 700 - 40 * k;
        format!(
            "<< /Type /Annot /Subtype /Link /Rect [72 {y} 300 {}] /Border [0 0 0] /A << /S /URI /URI (https://example.com/doc/page/{i}/link/{k}) >> /P {page_num} 0 R >>",
            y + 14
        )
    }

    fn content(&mut self, i: u32) -> Vec<u8> {
        let mut s = String::with_capacity(2048);
        s.push_str("BT /F1 11 Tf 14 TL 72 760 Td\n");
        for line in 0..24 {
            let v = self.rng.below(1_000_000);
            s.push_str(&format!(
                "(Page {i} line {line}: amount {}.{:02} ref {v:06x} lorem ipsum dolor sit) '\n",
                v / 100,
                v % 100
            ));
        }
        s.push_str("ET\n");
        if self.image_of_page(i).is_some() {
            s.push_str("q 200 0 0 200 72 300 cm /Im0 Do Q\n");
        }
        deflate(s.as_bytes(), 1)
    }

    fn set(&mut self, num: u32, l: Loc) {
        if let Some(slot) = self.loc.get_mut(num as usize) {
            *slot = l;
        }
    }

    fn plain(&mut self, w: &mut Out, num: u32, body: &str) -> Result<()> {
        self.set(num, Loc::At(w.pos));
        w.put(format!("{num} 0 obj\n{body}\nendobj\n").as_bytes())
    }

    fn stream(&mut self, w: &mut Out, num: u32, dict: &str, data: &[u8]) -> Result<()> {
        self.set(num, Loc::At(w.pos));
        w.put(format!("{num} 0 obj\n<< {dict} /Length {} >>\nstream\n", data.len()).as_bytes())?;
        w.put(data)?;
        w.put(b"\nendstream\nendobj\n")
    }

    /// Writes small objects: packed into object stream `container` (a
    /// number), or plain.
    fn small(&mut self, w: &mut Out, container: Option<u32>, objs: &[(u32, String)]) -> Result<()> {
        let Some(c) = container else {
            for (n, body) in objs {
                self.plain(w, *n, body)?;
            }
            return Ok(());
        };
        let mut head = String::new();
        let mut body = String::new();
        for (i, (n, text)) in objs.iter().enumerate() {
            head.push_str(&format!("{n} {} ", body.len()));
            body.push_str(text);
            body.push('\n');
            self.set(*n, Loc::In(c, i as u32));
        }
        head.push('\n');
        let first = head.len();
        head.push_str(&body);
        let data = deflate(head.as_bytes(), 6);
        self.stream(
            w,
            c,
            &format!(
                "/Type /ObjStm /N {} /First {first} /Filter /FlateDecode",
                objs.len()
            ),
            &data,
        )
    }

    fn write(mut self, w: &mut Out) -> Result<()> {
        w.put(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")?;
        let xs = self.spec.xref_stream;
        let mut next_container = 0usize;
        let mut container = |g: &Gen| -> Option<u32> {
            if !xs {
                return None;
            }
            let c = g.containers + next_container;
            next_container += 1;
            Some(g.n(c))
        };
        // Head objects: catalog, info, fonts, page tree nodes.
        let mut head: Vec<(u32, String)> = vec![
            (
                self.n(self.catalog),
                format!(
                    "<< /Type /Catalog /Pages {} /PageLayout /OneColumn >>",
                    self.r(self.root)
                ),
            ),
            (self.n(self.info), info_dict(0)),
        ];
        for f in 0..FONTS {
            let name = [
                "Helvetica",
                "Times-Roman",
                "Courier",
                "Helvetica-Bold",
                "Times-Bold",
                "Courier-Bold",
                "Symbol",
                "ZapfDingbats",
            ]
            .get(f as usize)
            .copied()
            .unwrap_or("Helvetica");
            head.push((
                self.n(self.fonts + f as usize),
                format!(
                    "<< /Type /Font /Subtype /Type1 /BaseFont /{name} /Encoding /WinAnsiEncoding >>"
                ),
            ));
        }
        for (id, parent, kids, count) in &self.nodes {
            let kids: Vec<String> = kids.iter().map(|k| self.r(*k)).collect();
            let mut d = format!("<< /Type /Pages /Kids [{}] /Count {count}", kids.join(" "));
            match parent {
                Some(p) => d.push_str(&format!(" /Parent {}", self.r(*p))),
                None => d.push_str(" /MediaBox [0 0 612 792] /Resources << >>"),
            }
            d.push_str(" >>");
            head.push((self.n(*id), d));
        }
        for chunk in head.chunks(PER_OBJSTM) {
            let c = container(&self);
            self.small(w, c, chunk)?;
        }
        // Pages in groups of 16: content streams, images, then the group's
        // small objects.
        let per_group = (PER_OBJSTM / 5) as u32;
        let mut image = vec![0u8; self.spec.image_bytes];
        let mut i = 0;
        while i < self.spec.pages {
            let end = (i + per_group).min(self.spec.pages);
            let mut small = Vec::with_capacity(PER_OBJSTM);
            for p in i..end {
                let base = self.pages + 6 * p as usize;
                let data = self.content(p);
                let cn = self.n(base + 1);
                self.stream(w, cn, "/Filter /FlateDecode", &data)?;
                if let Some(im) = self.image_of_page(p) {
                    for chunk in image.chunks_mut(8) {
                        let v = self.rng.next_u64().to_le_bytes();
                        chunk.copy_from_slice(v.get(..chunk.len()).unwrap_or_default());
                    }
                    let side = ((self.spec.image_bytes as f64).sqrt() as usize).max(1);
                    let imn = self.n(im);
                    self.stream(
                        w,
                        imn,
                        &format!(
                            "/Type /XObject /Subtype /Image /Width {side} /Height {} /BitsPerComponent 8 /ColorSpace /DeviceGray",
                            self.spec.image_bytes / side
                        ),
                        &image,
                    )?;
                }
                let page_num = self.n(base);
                small.push((page_num, self.page_dict(p, None, None)));
                small.push((self.n(base + 2), self.resources(p)));
                small.push((self.n(base + 3), self.annot(p, 0, page_num)));
                small.push((self.n(base + 4), self.annot(p, 1, page_num)));
                small.push((
                    self.n(base + 5),
                    format!("<< /Type /StructElem /S /P /Pg {page_num} 0 R /K {p} >>"),
                ));
            }
            let c = container(&self);
            self.small(w, c, &small)?;
            i = end;
        }
        debug_assert!(!xs || next_container == self.container_count);
        // The original's cross-reference section.
        let total = self.num.len() as u32;
        let id = id_string(&self.spec);
        let trailer = format!(
            "/Root {} /Info {} /ID [<{id}> <{id}>]",
            self.r(self.catalog),
            self.r(self.info)
        );
        let mut prev = if xs {
            let xn = self.n(self.xref_obj);
            let nums: Vec<u32> = (0..=total).collect();
            self.xref_stream(w, xn, &nums, total + 1, &trailer, None)?
        } else {
            let nums: Vec<u32> = (0..=total).collect();
            self.xref_table(w, &nums, total + 1, &trailer, None)?
        };
        // Incremental updates.
        let mut size = total + 1;
        for u in 1..=self.spec.updates {
            let mut small = vec![(self.n(self.info), info_dict(u))];
            let mut changed = Vec::new();
            for k in 0..CHANGED {
                let p = ((u64::from(k) * 7919 + u64::from(u) * 104_729)
                    % u64::from(self.spec.pages)) as u32;
                let annot_num = size;
                size += 1;
                self.loc.push(Loc::None);
                let page_num = self.n(self.pages + 6 * p as usize);
                small.push((annot_num, self.annot(p, 2 + u, page_num)));
                small.push((
                    page_num,
                    self.page_dict(p, Some(90 * u % 360), Some(annot_num)),
                ));
                changed.push(annot_num);
            }
            let c = if xs {
                let c = size;
                size += 1;
                self.loc.push(Loc::None);
                Some(c)
            } else {
                None
            };
            self.small(w, c, &small)?;
            let mut nums: Vec<u32> = small.iter().map(|(n, _)| *n).collect();
            nums.extend(c);
            nums.sort_unstable();
            nums.dedup();
            let trailer = format!(
                "/Root {} /Info {} /ID [<{id}> <{id}{u:02x}>]",
                self.r(self.catalog),
                self.r(self.info)
            );
            prev = if xs {
                let xn = size;
                size += 1;
                self.loc.push(Loc::None);
                nums.push(xn);
                self.xref_stream(w, xn, &nums, size, &trailer, Some(prev))?
            } else {
                self.xref_table(w, &nums, size, &trailer, Some(prev))?
            };
        }
        w.w.flush()?;
        Ok(())
    }

    fn entry(&self, n: u32) -> (u8, u64, u64) {
        match self.loc.get(n as usize) {
            Some(Loc::At(o)) => (1, *o, 0),
            Some(Loc::In(c, i)) => (2, u64::from(*c), u64::from(*i)),
            _ => (0, 0, if n == 0 { 65535 } else { 0 }),
        }
    }

    /// Writes an xref stream object `xn` listing `nums` (sorted, `xn`
    /// last or included); returns its offset.
    fn xref_stream(
        &mut self,
        w: &mut Out,
        xn: u32,
        nums: &[u32],
        size: u32,
        trailer: &str,
        prev: Option<u64>,
    ) -> Result<u64> {
        let at = w.pos;
        self.set(xn, Loc::At(at));
        let mut nums = nums.to_vec();
        nums.sort_unstable();
        nums.dedup();
        let mut raw = Vec::with_capacity(nums.len() * 8);
        for &n in &nums {
            let (t, f2, f3) = self.entry(n);
            raw.push(t);
            raw.extend_from_slice(&f2.to_be_bytes()[3..]);
            raw.extend_from_slice(&(f3 as u16).to_be_bytes());
        }
        let mut index = String::new();
        for (s, c) in runs(&nums) {
            index.push_str(&format!("{s} {c} "));
        }
        let data = deflate(&raw, 6);
        let prev = prev.map(|p| format!(" /Prev {p}")).unwrap_or_default();
        w.put(
            format!(
                "{xn} 0 obj\n<< /Type /XRef /Size {size} /W [1 5 2] /Index [{}] {trailer}{prev} /Filter /FlateDecode /Length {} >>\nstream\n",
                index.trim_end(),
                data.len()
            )
            .as_bytes(),
        )?;
        w.put(&data)?;
        w.put(format!("\nendstream\nendobj\nstartxref\n{at}\n%%EOF\n").as_bytes())?;
        Ok(at)
    }

    /// Writes a classic table for `nums`; returns its offset.
    fn xref_table(
        &mut self,
        w: &mut Out,
        nums: &[u32],
        size: u32,
        trailer: &str,
        prev: Option<u64>,
    ) -> Result<u64> {
        let at = w.pos;
        let mut out = String::with_capacity(nums.len() * 20 + 256);
        out.push_str("xref\n");
        let mut it = nums.iter();
        for (s, c) in runs(nums) {
            out.push_str(&format!("{s} {c}\n"));
            for _ in 0..c {
                let n = it.next().copied().unwrap_or(0);
                let (t, f2, f3) = self.entry(n);
                let k = if t == 1 { 'n' } else { 'f' };
                out.push_str(&format!("{f2:010} {f3:05} {k}\r\n"));
            }
        }
        let prev = prev.map(|p| format!(" /Prev {p}")).unwrap_or_default();
        out.push_str(&format!(
            "trailer\n<< /Size {size} {trailer}{prev} >>\nstartxref\n{at}\n%%EOF\n"
        ));
        w.put(out.as_bytes())?;
        Ok(at)
    }
}

fn info_dict(update: u32) -> String {
    let title = if update == 0 {
        "ream benchmark document".to_string()
    } else {
        format!("ream benchmark document (update {update})")
    };
    let mut s = format!(
        "<< /Title ({title}) /Author (ream-bench) /Subject (Generated for issue 4: gigabyte PDFs) /Keywords (ream, pdf, benchmark) /Creator (ream-bench pdfgen) /Producer (ream-bench) /CreationDate (D:20240101000000Z)"
    );
    if update > 0 {
        s.push_str(&format!(" /ModDate (D:202402{:02}000000Z)", update));
    }
    s.push_str(" >>");
    s
}

fn id_string(spec: &Spec) -> String {
    format!(
        "5245414D{:08X}{:08X}{:08X}",
        spec.pages,
        spec.images,
        u32::from(spec.xref_stream)
    )
}

/// Runs of consecutive numbers: `(first, count)`.
fn runs(nums: &[u32]) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = Vec::new();
    for &n in nums {
        match out.last_mut() {
            Some((s, c)) if *s + *c == n => *c += 1,
            _ => out.push((n, 1)),
        }
    }
    out
}

fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut e = flate2::write::ZlibEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        flate2::Compression::new(level),
    );
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A tiny spec opens in ream with the page count, Info and revisions
    /// it was written with, in both syntaxes; generation is deterministic.
    #[test]
    fn tiny_files_open_in_ream() {
        let dir = std::env::temp_dir().join(format!("ream-pdfgen-{}", std::process::id()));
        for xref_stream in [true, false] {
            let spec = Spec {
                size: Size::Small,
                xref_stream,
                pages: 100,
                images: 3,
                image_bytes: 4096,
                updates: 3,
            };
            let g = generate(&dir, &spec, true).unwrap();
            let bytes = std::fs::read(&g.path).unwrap();
            let again = generate(&dir, &spec, true).unwrap();
            assert_eq!(std::fs::read(&again.path).unwrap(), bytes, "deterministic");
            let pdf =
                ream_pdf::Pdf::open(&g.path, &ream_pdf::PdfOptions::new().strict(true)).unwrap();
            assert_eq!(pdf.page_count().unwrap(), 100);
            let pages = pdf.pages().unwrap();
            assert_eq!(pages.len(), 100);
            assert!(pdf.warnings().is_empty(), "{:?}", pdf.warnings());
            assert_eq!(pdf.revisions().len(), 4);
            let title = pdf
                .info()
                .unwrap()
                .into_iter()
                .find(|(k, _)| k == "Title")
                .unwrap()
                .1;
            assert_eq!(title.to_string(), "ream benchmark document (update 3)");
            assert!(pages.iter().any(|p| p.rotate == 270));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

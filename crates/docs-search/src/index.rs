//! The in-memory index: pages, sections and postings; ranking.

use crate::dict::{Dict, ENGLISH, SPANISH, stemmers};
use crate::markdown::{self, ParsedPage};
use crate::root::{Listed, Root, Stamp};
use crate::snippet;
use crate::text::{fold, fold_into, identifier_parts, is_stopword, words};
use crate::{Mirror, SearchHit};

/// Posting flag: the term is in the section's heading.
const IN_HEADING: u32 = 1;
/// Posting flag: the term is in the section's body, outside code blocks.
const IN_BODY: u32 = 2;
/// Posting flag: the term is in the title of the section's page or in a
/// heading above the section's own.
const IN_TITLE: u32 = 4;
/// Posting flag: the term is in a code block of the section.
const IN_CODE: u32 = 8;
/// Bits of a posting used by flags; the section id is above them.
const FLAG_BITS: u32 = 4;
/// The fields of BM25F, in the order of a posting's packed frequencies.
const HEADING: usize = 0;
/// See [`HEADING`].
const BODY: usize = 1;
/// See [`HEADING`].
const CODE: usize = 2;
/// See [`HEADING`]: the page title and the headings above the section's.
const CONTEXT: usize = 3;
/// Number of fields.
const FIELDS: usize = 4;

/// The field of a posting flag.
fn field_of(flag: u32) -> usize {
    match flag {
        IN_HEADING => HEADING,
        IN_BODY => BODY,
        IN_CODE => CODE,
        _ => CONTEXT,
    }
}
/// Separates heading, body and code in a section's term sequence, so no
/// phrase spans two of them.
const SEPARATOR: u32 = u32::MAX;

/// The ranking's weights, in one place so the ranking stays explainable.
/// Tuned on the odd-numbered queries of the shared FastAPI set and on the
/// project's own known items (`src/tests.rs`); `coverage_b` on the three
/// vendored sets, and checked leaving each set out in turn (DECISIONS.md);
/// see the crate docs.
#[derive(Debug, Clone, Copy)]
struct Weights {
    /// BM25F: each field's weight (heading, body, code, context), the share
    /// of a term frequency it counts.
    field: [f64; FIELDS],
    /// BM25F: each field's length normalisation (`b`; 0: none, 1: full).
    b: [f64; FIELDS],
    /// BM25's term-frequency saturation `k1`.
    k1: f64,
    /// A query identifier's parts (`serve`, `stream` of `serve_stream`) weigh
    /// this share of their IDF, besides the identifier itself.
    part: f64,
    /// An occurrence of a word sharing the query word's stem (not the word
    /// itself) counts this share of an occurrence.
    stem: f64,
    /// A function word (`the`, `de`) weighs this share of its IDF.
    stopword: f64,
    /// Coverage bonus: this share of the total IDF of the query's words
    /// (function words aside), times the squared share of that IDF the
    /// section's matched words hold, over the section's length normalisation
    /// (see `coverage_b`).
    coverage: f64,
    /// The coverage bonus's length normalisation (`b`, as BM25's, over the
    /// section's words in heading, body and code): a long section holds more
    /// of the query's words by chance, so a short one holding as many is
    /// better evidence.
    coverage_b: f64,
    /// Heading bonus: the IDF of the query words found in the heading, times
    /// this, times the share of the heading's words they cover.
    heading_coverage: f64,
    /// Exact-phrase bonus: this share of the query's total IDF.
    phrase: f64,
    /// Locale bonus: this share of the query's total IDF for a section in the
    /// query's locale.
    locale: f64,
    /// Example bonus: this share of the IDF of the query words a section holds,
    /// for a section with code (a code block or an included code file): a
    /// question about a task is more often answered by the section that shows
    /// how, and the bonus grows with how well the section matches.
    example: f64,
    /// Neighbour bonus: this share of the score of the better of the sections
    /// just before and just after it on the same page (a question's words are
    /// often spread over neighbours: the problem told in one section, the
    /// fix shown in the next).
    neighbour: f64,
    /// How much likelier (natural log) a query must be in another locale than
    /// in the root's to be taken as that locale's.
    locale_margin: f64,
}

/// The weights in use.
const WEIGHTS: Weights = Weights {
    field: [3.0, 1.0, 0.5, 1.0],
    b: [0.5, 0.9, 0.75, 0.5],
    k1: 1.2,
    part: 0.5,
    stem: 0.5,
    stopword: 0.3,
    coverage: 1.0,
    coverage_b: 0.3,
    heading_coverage: 1.0,
    phrase: 1.0,
    locale: 0.3,
    example: 0.3,
    neighbour: 0.1,
    locale_margin: 1.0,
};

/// The weights in use.
fn w() -> &'static Weights {
    &WEIGHTS
}

/// The locale of a page: its first folder when that is a language code
/// (`es`, `pt-br`), else the root's (empty).
fn locale_of(rel: &str) -> &str {
    let Some((first, _)) = rel.split_once('/') else {
        return "";
    };
    let bytes = first.as_bytes();
    let lang = |b: &[u8]| b.len() == 2 && b.iter().all(u8::is_ascii_lowercase);
    let ok = match bytes.len() {
        2 => lang(bytes),
        5 => {
            lang(&bytes[..2]) && bytes[2] == b'-' && bytes[3..].iter().all(u8::is_ascii_alphabetic)
        }
        _ => false,
    };
    if ok { first } else { "" }
}

/// The stemming language of a locale.
fn lang_of(locale: &str) -> usize {
    if locale == "es" { SPANISH } else { ENGLISH }
}

/// One section of a page, ready for matching and snippets.
#[derive(Debug)]
struct Section {
    /// The heading's plain text (empty before the first heading).
    heading: String,
    /// The body's plain text outside code blocks.
    text: String,
    /// The text of the body's code blocks.
    code: String,
    /// The term sequence: heading words, [`SEPARATOR`], body words,
    /// [`SEPARATOR`], code words (whole words, in order).
    seq: Box<[u32]>,
    /// Distinct words in the heading, function words aside.
    heading_words: u16,
    /// Terms of the headings above this one (with identifier parts), sorted and distinct.
    parents: Box<[u32]>,
    /// The section's anchor, unique in its page (see [`markdown::RawSection`]).
    anchor: Box<str>,
    /// Whether the anchor is written in the Markdown (not a slug of the heading).
    explicit: bool,
}

/// One indexed page.
#[derive(Debug)]
struct Page {
    rel: String,
    stamp: Stamp,
    title: String,
    /// The title's terms, with identifier parts, sorted and distinct.
    title_terms: Box<[u32]>,
    sections: Vec<Section>,
    /// The Markdown size in bytes.
    bytes: usize,
}

/// The file name without `.md`, the title of last resort.
fn file_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.strip_suffix(".md").unwrap_or(name)
}

/// Reads and parses one listed page: its sections and its Markdown size.
///
/// An unreadable page is kept as an empty one, so the next change check does
/// not count it as new again (and rebuild at every search).
fn read_page(root: &Root, listed: &Listed) -> (ParsedPage, usize) {
    let source = root.read_listed(&listed.rel).unwrap_or_else(|error| {
        tracing::warn!(page = %listed.rel, %error, "skipping an unreadable page");
        String::new()
    });
    let (page, fallback) = markdown::parse_safely(&source);
    if let Some(fallback) = fallback {
        tracing::warn!(
            page = %listed.rel,
            ?fallback,
            "the Markdown parser failed on this page; indexed it in a simpler way"
        );
    }
    (page, source.len())
}

/// Below this many pages to read, a refresh reads and parses them on the
/// calling thread (a thread would cost more than it saves).
const PIPELINE_PAGES: usize = 16;

/// Reads and parses `pages` in order, handing each to `build` in that
/// order. With more than a few pages and a second core, a helper thread
/// reads and parses the next pages while `build` interns the previous one
/// (the dictionary is filled on the calling thread, in page order, so the
/// index is the same either way).
fn read_pages(root: &Root, pages: &[&Listed], mut build: impl FnMut(ParsedPage, usize)) {
    let parallel = pages.len() >= PIPELINE_PAGES
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    if !parallel {
        for listed in pages {
            let (parsed, bytes) = read_page(root, listed);
            build(parsed, bytes);
        }
        return;
    }
    std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel(32);
        let reader = std::thread::Builder::new()
            .name("docs-reader".to_owned())
            .spawn_scoped(scope, move || {
                for listed in pages {
                    if sender.send(read_page(root, listed)).is_err() {
                        break;
                    }
                }
            });
        if reader.is_err() {
            // No thread to be had: read on this one.
            for listed in pages {
                let (parsed, bytes) = read_page(root, listed);
                build(parsed, bytes);
            }
            return;
        }
        for listed in pages {
            // The reader sends every page unless it panicked (the scope then
            // re-raises the panic); read the page here meanwhile.
            let (parsed, bytes) = receiver.recv().unwrap_or_else(|_| read_page(root, listed));
            build(parsed, bytes);
        }
    });
}

/// Turns one parsed page into terms.
fn build_page(dict: &mut Dict, listed: &Listed, parsed: ParsedPage, bytes: usize) -> Page {
    let ParsedPage { title, sections } = parsed;
    // A part of an entry (`Usage` under each component) is searched as the entry's text.
    let mut entries: Vec<markdown::RawSection> = Vec::with_capacity(sections.len());
    for raw in sections {
        match entries.last_mut() {
            Some(entry) if raw.part => {
                for (into, from) in [(&mut entry.text, raw.text), (&mut entry.code, raw.code)] {
                    if !into.is_empty() && !from.is_empty() {
                        into.push(' ');
                    }
                    into.push_str(&from);
                }
            }
            _ => entries.push(raw),
        }
    }
    let title = title.unwrap_or_else(|| file_stem(&listed.rel).to_owned());
    let lang = lang_of(locale_of(&listed.rel));
    let stemmer = &stemmers()[lang];
    let mut scratch = String::new();
    let mut tokenize = |dict: &mut Dict, text: &str, seq: &mut Vec<u32>| {
        for (_, word) in words(text) {
            seq.push(dict.intern(word, lang, stemmer, &mut scratch));
        }
    };
    let mut seq = Vec::new();
    let mut title_terms = Vec::new();
    tokenize(dict, &title, &mut title_terms);
    let parts: Vec<u32> = title_terms
        .iter()
        .flat_map(|&t| dict.parts(t).to_vec())
        .collect();
    title_terms.extend(parts);
    title_terms.sort_unstable();
    title_terms.dedup();
    let sections = entries
        .into_iter()
        .map(|raw| {
            seq.clear();
            tokenize(dict, &raw.heading, &mut seq);
            // Function words do not count in the heading's size.
            let mut heading_words: Vec<u32> = seq
                .iter()
                .copied()
                .filter(|&t| !dict.is_stopword(t))
                .collect();
            heading_words.sort_unstable();
            heading_words.dedup();
            seq.push(SEPARATOR);
            tokenize(dict, &raw.text, &mut seq);
            seq.push(SEPARATOR);
            tokenize(dict, &raw.code, &mut seq);
            let mut parents = Vec::new();
            tokenize(dict, &raw.parents, &mut parents);
            let parts: Vec<u32> = parents
                .iter()
                .flat_map(|&t| dict.parts(t).to_vec())
                .collect();
            parents.extend(parts);
            parents.sort_unstable();
            parents.dedup();
            Section {
                parents: parents.into_boxed_slice(),
                heading: raw.heading,
                heading_words: u16::try_from(heading_words.len()).unwrap_or(u16::MAX),
                text: raw.text,
                code: raw.code,
                seq: Box::from(seq.as_slice()),
                anchor: raw.anchor.into_boxed_str(),
                explicit: raw.explicit,
            }
        })
        .collect();
    Page {
        rel: listed.rel.clone(),
        stamp: listed.stamp,
        title,
        title_terms: title_terms.into_boxed_slice(),
        sections,
        bytes,
    }
}

/// Sizes of the index, for benchmarks and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IndexStats {
    /// Indexed pages.
    pub pages: usize,
    /// Indexed sections.
    pub sections: usize,
    /// Distinct terms in the dictionary.
    pub terms: usize,
    /// Total Markdown size of the indexed pages, in bytes.
    pub markdown_bytes: usize,
    /// Estimated heap bytes held by the index (texts, term sequences,
    /// postings, dictionary), from the structures' lengths.
    pub index_bytes: usize,
}

/// A term that counts as finding a query word.
#[derive(Debug, Clone, Copy)]
struct GroupTerm {
    term: u32,
    /// The share of a whole-word match this term's occurrences count
    /// (1 for the word itself, less for a word sharing its stem).
    factor: f64,
    /// For stem matches: only sections of this stemming language count.
    lang: Option<usize>,
}

/// One query word: the terms that count as finding it.
#[derive(Debug)]
struct Group {
    terms: Vec<GroupTerm>,
    /// The word's IDF, for coverage.
    idf: f64,
    /// Whether the word is a function word (`the`, `de`): it counts little,
    /// and not for coverage.
    function: bool,
    /// Per stemming language of the section: the IDF times the factor of
    /// this kind of word (a function word, an identifier's part count less).
    weight: [f64; 2],
}

/// A query, resolved against the dictionary.
#[derive(Debug)]
struct Query {
    /// One group per distinct known query word (or identifier part).
    groups: Vec<Group>,
    /// The query's whole words as terms, when there are two or more and all are known.
    phrase: Option<Vec<u32>>,
    /// The index in `Index::locales` of the query's likeliest locale.
    locale: usize,
}

impl Query {
    /// The group a term belongs to, for snippets.
    fn group_of(&self, term: u32) -> Option<usize> {
        self.groups
            .iter()
            .position(|g| g.terms.iter().any(|t| t.term == term))
    }
}

/// One section's running score for the query being answered.
#[derive(Debug, Clone, Copy, Default)]
struct SectionScore {
    /// Sum of the saturated scores of the matched groups, but the current one.
    score: f64,
    /// The current group's pseudo term frequency so far (BM25F's weighted,
    /// length-normalised sum over fields and matching terms).
    tf: f64,
    /// The current group's weight (its IDF times the factor of its kind).
    weight: f64,
    /// Sum of the IDF of the matched groups.
    matched_idf: f64,
    /// Sum of the IDF of the matched groups that are no function words.
    matched_content_idf: f64,
    /// Sum of the IDF of the groups found in the heading.
    heading_idf: f64,
    /// The current group's index plus one (0: none yet).
    group: u16,
    /// Number of matched groups.
    matched: u16,
    /// The last group found in the heading, plus one.
    heading_group: u16,
    /// Number of groups found in the heading.
    heading_hits: u16,
}

impl SectionScore {
    /// Adds the current group's saturated score (BM25's `tf (k1 + 1) / (tf + k1)`).
    fn close_group(&mut self, k1: f64) {
        if self.tf > 0.0 {
            self.score += self.weight * self.tf * (k1 + 1.0) / (self.tf + k1);
        }
        self.tf = 0.0;
    }
}

/// The index of one docs tree.
#[derive(Debug, Default)]
pub(crate) struct Index {
    dict: Dict,
    /// Pages sorted by relative path.
    pages: Vec<Page>,
    /// Section id → (page index, section index), in path then document order.
    sections: Vec<(u32, u32)>,
    /// Term id → where its postings start in `postings` (and end, at the next term's start).
    postings_at: Vec<u32>,
    /// Postings by term, ascending section ids: `(section id << FLAG_BITS) |
    /// flags`, then the term's frequency in each field, a byte each
    /// (saturating), field `f` at bits `8 f` (side by side: one cache line
    /// per posting while building and ranking).
    postings: Vec<[u32; 2]>,
    /// Section id → number of words in each field.
    /// Section id → what one occurrence in each field counts: the field's
    /// weight over BM25F's length normalisation (`1 - b + b * length / mean
    /// length`), computed once per build.
    field_norms: Vec<[f64; FIELDS]>,
    /// Section id → the coverage bonus's length normalisation, `1 / (1 - b + b
    /// * length / mean length)` over its words in heading, body and code.
    coverage_norms: Vec<f64>,
    /// Section id → index in `locales`.
    section_locale: Vec<u8>,
    /// Section id → stemming language.
    section_lang: Vec<u8>,
    /// Section id → distinct words in its heading, function words aside.
    heading_words: Vec<u16>,
    /// Section id → whether it has code (a code block or an included file).
    has_code: Vec<bool>,
    /// Locale names (`""` for the root's, first), their section counts and stemming languages.
    locales: Vec<(String, u32, usize)>,
    /// Per locale, its first section id and one past its last, when its
    /// sections are one run of ids (always, for the locales other than the
    /// root's: a locale is a top-level folder, and pages are sorted by path),
    /// so a term's document frequency in it is two binary searches of the
    /// term's (ascending) postings instead of a pass over them all.
    locale_spans: Option<Vec<(u32, u32)>>,
    /// Section id → running score, all default between queries.
    scratch: Vec<SectionScore>,
    /// Section id → the next section of its mirror group, the same section in
    /// the pages of the same path under other locales (itself when alone):
    /// each group is a cycle.
    mirror_next: Vec<u32>,
    /// The most sections in one mirror group (1 without mirrors).
    mirror_most: usize,
}

impl Index {
    /// Brings the index up to date with `listing` (a [`Root::scan`] of the
    /// tree): re-reads pages whose size or modification time changed, adds new
    /// ones, drops removed ones, and rebuilds the postings only when something
    /// changed. Returns whether it did.
    pub(crate) fn refresh(&mut self, root: &Root, listing: &[Listed]) -> bool {
        let unchanged = listing.len() == self.pages.len()
            && listing
                .iter()
                .zip(&self.pages)
                .all(|(l, p)| l.rel == p.rel && l.stamp == p.stamp);
        if unchanged {
            return false;
        }
        self.dict.start_indexing(listing.len());
        let mut old = std::mem::take(&mut self.pages).into_iter().peekable();
        // Unchanged pages are kept; the others (`None`) are read again.
        let mut kept: Vec<Option<Page>> = Vec::with_capacity(listing.len());
        let mut fresh = Vec::new();
        for listed in listing {
            while old.next_if(|p| p.rel < listed.rel).is_some() {}
            let page = old.next_if(|p| p.rel == listed.rel && p.stamp == listed.stamp);
            if page.is_none() {
                fresh.push(listed);
            }
            kept.push(page);
        }
        drop(old);
        let mut built = Vec::with_capacity(fresh.len());
        read_pages(root, &fresh, |parsed, bytes| {
            let listed = fresh[built.len()];
            built.push(build_page(&mut self.dict, listed, parsed, bytes));
        });
        let mut built = built.into_iter();
        let pages: Vec<Page> = kept
            .into_iter()
            .filter_map(|page| page.or_else(|| built.next()))
            .collect();
        self.dict.end_indexing();
        self.dict.index_stems();
        self.pages = pages;
        self.rebuild_postings();
        true
    }

    /// Calls `f(term, flag, section id)` for every word occurrence of every
    /// section (identifier parts included, but for code's), then for its context terms.
    fn visit_terms(&self, mut f: impl FnMut(u32, u32, u32)) {
        let mut id = 0u32;
        for page in &self.pages {
            for section in &page.sections {
                let mut flag = IN_HEADING;
                for &term in section.seq.iter() {
                    if term == SEPARATOR {
                        flag = if flag == IN_HEADING { IN_BODY } else { IN_CODE };
                        continue;
                    }
                    f(term, flag, id);
                    // An identifier in code is found by its whole name only: its parts
                    // (`port` of `devServerPort`) made plain questions match API code
                    // (measured on both sets; see the crate docs).
                    if flag != IN_CODE {
                        for &part in self.dict.parts(term) {
                            f(part, flag, id);
                        }
                    }
                }
                for &term in page.title_terms.iter().chain(section.parents.iter()) {
                    f(term, IN_TITLE, id);
                }
                id += 1;
            }
        }
    }

    /// Rebuilds the postings and the per-section tables from the pages: one
    /// pass counts each term's sections, a second fills one flat array (no
    /// per-term lists, so no transient copies of the postings).
    fn rebuild_postings(&mut self) {
        let mut sections = Vec::new();
        let mut lengths = Vec::new();
        let mut section_locale = Vec::new();
        let mut section_lang = Vec::new();
        let mut heading_words = Vec::new();
        let mut has_code = Vec::new();
        let mut locales: Vec<(String, u32, usize)> = vec![(String::new(), 0, ENGLISH)];
        let mut spans: Vec<(u32, u32)> = vec![(0, 0)];
        for (page_ix, page) in self.pages.iter().enumerate() {
            let locale = locale_of(&page.rel);
            let locale_ix = match locales.iter().position(|(l, _, _)| l == locale) {
                Some(ix) => ix,
                None if locales.len() < usize::from(u8::MAX) => {
                    locales.push((locale.to_owned(), 0, lang_of(locale)));
                    let first = u32::try_from(sections.len()).unwrap_or(u32::MAX);
                    spans.push((first, first));
                    locales.len() - 1
                }
                None => 0,
            };
            locales[locale_ix].1 += u32::try_from(page.sections.len()).unwrap_or(u32::MAX);
            if let Some(span) = spans.get_mut(locale_ix) {
                span.1 = u32::try_from(sections.len() + page.sections.len()).unwrap_or(u32::MAX);
            }
            for (section_ix, section) in page.sections.iter().enumerate() {
                let mut len = [0u16; FIELDS];
                let mut field = HEADING;
                for &term in section.seq.iter() {
                    if term == SEPARATOR {
                        field = if field == HEADING { BODY } else { CODE };
                    } else {
                        len[field] = len[field].saturating_add(1);
                    }
                }
                len[CONTEXT] = u16::try_from(page.title_terms.len() + section.parents.len())
                    .unwrap_or(u16::MAX);
                lengths.push(len);
                section_locale.push(u8::try_from(locale_ix).expect("at most 255 locales"));
                section_lang.push(u8::try_from(locales[locale_ix].2).expect("two languages"));
                heading_words.push(section.heading_words);
                has_code.push(len[CODE] > 0);
                assert!(
                    sections.len() < 1 << (32 - FLAG_BITS),
                    "fewer than 2^28 sections"
                );
                sections.push((
                    u32::try_from(page_ix).expect("fewer than 2^32 pages"),
                    u32::try_from(section_ix).expect("fewer than 2^32 sections in a page"),
                ));
            }
        }
        let terms = self.dict.len();
        let mut last = vec![u32::MAX; terms];
        let mut at = vec![0u32; terms + 1];
        self.visit_terms(|term, _, id| {
            let t = term as usize;
            if last[t] != id {
                last[t] = id;
                at[t + 1] += 1;
            }
        });
        for t in 1..at.len() {
            at[t] += at[t - 1];
        }
        let mut flat = vec![[0u32; 2]; at[terms] as usize];
        let mut next = at.clone();
        last.iter_mut().for_each(|l| *l = u32::MAX);
        self.visit_terms(|term, flag, id| {
            let t = term as usize;
            let slot = if last[t] == id {
                next[t] as usize - 1
            } else {
                last[t] = id;
                next[t] += 1;
                next[t] as usize - 1
            };
            let [posting, freqs] = &mut flat[slot];
            *posting = (id << FLAG_BITS) | (*posting & ((1 << FLAG_BITS) - 1)) | flag;
            let shift = 8 * field_of(flag);
            if (*freqs >> shift) & 0xff < 0xff {
                *freqs += 1 << shift;
            }
        });
        let mut mean_length = [1.0; FIELDS];
        for (f, mean) in mean_length.iter_mut().enumerate() {
            if !lengths.is_empty() {
                let sum: f64 = lengths.iter().map(|l| f64::from(l[f])).sum();
                *mean = (sum / lengths.len() as f64).max(1.0);
            }
        }
        let w = w();
        self.field_norms = lengths
            .iter()
            .map(|length| {
                let mut norms = [0.0; FIELDS];
                for (f, norm) in norms.iter_mut().enumerate() {
                    let relative = f64::from(length[f]) / mean_length[f];
                    *norm = w.field[f] / (1.0 - w.b[f] + w.b[f] * relative);
                }
                norms
            })
            .collect();
        let words = |length: &[u16; FIELDS]| {
            f64::from(length[HEADING]) + f64::from(length[BODY]) + f64::from(length[CODE])
        };
        let mean_words = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().map(words).sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        self.coverage_norms = lengths
            .iter()
            .map(|length| 1.0 / (1.0 - w.coverage_b + w.coverage_b * words(length) / mean_words))
            .collect();
        self.postings = flat;
        self.postings_at = at;
        self.sections = sections;
        self.section_locale = section_locale;
        self.section_lang = section_lang;
        self.heading_words = heading_words;
        self.has_code = has_code;
        let contiguous = locales
            .iter()
            .zip(&spans)
            .skip(1)
            .all(|((_, count, _), (first, end))| end - first == *count);
        self.locale_spans = contiguous.then_some(spans);
        self.locales = locales;
        self.scratch = Vec::new();
        let (next, most) = self.mirror_groups();
        self.mirror_next = next;
        self.mirror_most = most;
    }

    /// The mirror groups (see `mirror_next`): pages of the same path below
    /// their locale folder (`guide/a.md`, `es/guide/a.md`, or `en/x.md`,
    /// `es/x.md`) are copies in other languages, and two of their sections are
    /// the same when both write the same anchor, else (neither writes one, or
    /// only one does) when they are at the same place in pages of as many
    /// sections. Each page is paired with the first of its copies (in path order).
    fn mirror_groups(&self) -> (Vec<u32>, usize) {
        let mut next: Vec<u32> =
            (0..u32::try_from(self.sections.len()).unwrap_or(u32::MAX)).collect();
        let mut first = Vec::with_capacity(self.pages.len());
        let mut at = 0u32;
        for page in &self.pages {
            first.push(at);
            at += u32::try_from(page.sections.len()).unwrap_or(u32::MAX);
        }
        let mut copies: rustc_hash::FxHashMap<&str, Vec<usize>> = rustc_hash::FxHashMap::default();
        for (ix, page) in self.pages.iter().enumerate() {
            let locale = locale_of(&page.rel);
            let key = if locale.is_empty() {
                page.rel.as_str()
            } else {
                &page.rel[locale.len() + 1..]
            };
            copies.entry(key).or_default().push(ix);
        }
        let mut size = vec![1usize; self.sections.len()];
        let mut most = 1;
        let mut groups: Vec<&Vec<usize>> = copies.values().filter(|p| p.len() > 1).collect();
        groups.sort_unstable();
        for pages in groups {
            let reference = &self.pages[pages[0]];
            let anchors: rustc_hash::FxHashMap<&str, usize> = reference
                .sections
                .iter()
                .enumerate()
                .filter(|(_, s)| s.explicit)
                .map(|(i, s)| (&*s.anchor, i))
                .collect();
            for &other in &pages[1..] {
                let copy = &self.pages[other];
                let same_shape = copy.sections.len() == reference.sections.len();
                let mut taken = vec![false; reference.sections.len()];
                for (j, section) in copy.sections.iter().enumerate() {
                    let by_anchor = section
                        .explicit
                        .then(|| anchors.get(&*section.anchor).copied())
                        .flatten();
                    let by_place = (same_shape
                        && !(section.explicit && reference.sections[j].explicit))
                        .then_some(j);
                    let Some(i) = by_anchor.or(by_place).filter(|&i| !taken[i]) else {
                        continue;
                    };
                    taken[i] = true;
                    let (a, b) = (first[pages[0]] + i as u32, first[other] + j as u32);
                    // Splice b's cycle (itself alone) into a's.
                    next.swap(a as usize, b as usize);
                    size[a as usize] += 1;
                    most = most.max(size[a as usize]);
                }
            }
        }
        (next, most)
    }

    /// The postings of a term.
    fn postings_of(&self, term: u32) -> &[[u32; 2]] {
        let t = term as usize;
        match (self.postings_at.get(t), self.postings_at.get(t + 1)) {
            (Some(&from), Some(&to)) => &self.postings[from as usize..to as usize],
            _ => &[],
        }
    }

    fn df(&self, term: u32) -> usize {
        self.postings_of(term).len()
    }

    fn idf_of_df(&self, df: usize) -> f64 {
        let n = self.sections.len() as f64;
        let df = df as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn idf(&self, term: u32) -> f64 {
        self.idf_of_df(self.df(term))
    }

    fn known(&self, folded: &str) -> Option<u32> {
        self.dict.get(folded).filter(|&id| self.df(id) > 0)
    }

    fn section_lang(&self, id: usize) -> usize {
        usize::from(self.section_lang[id])
    }

    /// The terms sharing the stem of `word` in `lang` (the word's own term
    /// included), and the IDF of finding any of them in a section of that language.
    fn stem_matches(&self, word: &str, lang: usize, marks: &mut [bool]) -> (Vec<u32>, f64) {
        let members: Vec<u32> = self.dict.stem_group(word, lang, &stemmers()[lang]).to_vec();
        let mut df = 0;
        let mut marked = Vec::new();
        for &member in &members {
            for &[posting, _] in self.postings_of(member) {
                let id = (posting >> FLAG_BITS) as usize;
                if !marks[id] && self.section_lang(id) == lang {
                    marks[id] = true;
                    marked.push(id);
                    df += 1;
                }
            }
        }
        for id in marked {
            marks[id] = false;
        }
        (members, self.idf_of_df(df))
    }

    fn resolve(&self, query: &str) -> Query {
        let w = w();
        let mut groups: Vec<Group> = Vec::new();
        let mut phrase = Vec::new();
        let mut phrase_ok = true;
        let mut folded = String::new();
        let mut marks = vec![false; self.sections.len()];
        let push = |group: Group, groups: &mut Vec<Group>| {
            let first = group.terms.first().map(|t| t.term);
            if first.is_some()
                && group.weight[0] > 0.0
                && !groups
                    .iter()
                    .any(|g| g.terms.first().map(|t| t.term) == first)
            {
                groups.push(group);
            }
        };
        let single = |term: u32, idf: f64, factor: f64, function: bool| Group {
            terms: vec![GroupTerm {
                term,
                factor: 1.0,
                lang: None,
            }],
            idf,
            function,
            weight: [idf * factor; 2],
        };
        let all_stopwords = words(query).all(|(_, word)| is_stopword(&fold(word)));
        for (_, word) in words(query) {
            fold_into(word, &mut folded);
            let whole = self.known(&folded);
            if !all_stopwords && is_stopword(&folded) {
                // Function words count little in BM25F (their heading matches still count;
                // leaving them out measured worse on the tuning half).
                match whole {
                    Some(id) => {
                        phrase.push(id);
                        push(single(id, self.idf(id), w.stopword, true), &mut groups);
                    }
                    None => phrase_ok = false,
                }
                continue;
            }
            let split = identifier_parts(word);
            // An identifier's parts count a little; alone when the identifier appears nowhere.
            let part_factor = if whole.is_some() { w.part } else { 1.0 };
            for part in &split {
                fold_into(part, &mut folded);
                if let Some(id) = self.known(&folded) {
                    push(single(id, self.idf(id), part_factor, false), &mut groups);
                }
            }
            if !split.is_empty() && whole.is_none() {
                phrase_ok = false;
                continue;
            }
            let mut group = Group {
                terms: Vec::new(),
                idf: 0.0,
                function: false,
                weight: [0.0; 2],
            };
            let mut stem_idfs = [0.0; 2];
            if let Some(id) = whole {
                group.idf = self.idf(id);
                group.terms.push(GroupTerm {
                    term: id,
                    factor: 1.0,
                    lang: None,
                });
                phrase.push(id);
            } else {
                phrase_ok = false;
            }
            for lang in [ENGLISH, SPANISH] {
                let (members, stem_idf) = self.stem_matches(word, lang, &mut marks);
                stem_idfs[lang] = stem_idf;
                for term in members {
                    if Some(term) != whole {
                        group.terms.push(GroupTerm {
                            term,
                            factor: w.stem,
                            lang: Some(lang),
                        });
                    }
                }
                if whole.is_none() && group.terms.iter().any(|t| t.lang == Some(lang)) {
                    group.idf = group.idf.max(stem_idf);
                }
            }
            for lang in [ENGLISH, SPANISH] {
                let variants = group.terms.iter().any(|t| t.lang == Some(lang));
                // Found through its stem, a word is as rare as its stem is.
                group.weight[lang] = if variants {
                    stem_idfs[lang].min(group.idf)
                } else {
                    group.idf
                };
            }
            push(group, &mut groups);
        }
        let phrase = (phrase_ok && phrase.len() >= 2).then_some(phrase);
        Query {
            groups,
            phrase,
            locale: self.likeliest_locale(query),
        }
    }

    /// The locale whose sections make the query's known words likeliest
    /// (document frequencies per locale, function words included); another
    /// locale than the root's must beat it by a margin.
    fn likeliest_locale(&self, query: &str) -> usize {
        let mut likelihood = vec![0.0f64; self.locales.len()];
        let mut df = vec![0u32; self.locales.len()];
        let mut folded = String::new();
        for (_, word) in words(query) {
            fold_into(word, &mut folded);
            let Some(term) = self.known(&folded) else {
                continue;
            };
            let postings = self.postings_of(term);
            if let Some(spans) = &self.locale_spans {
                let below = |id: u32| postings.partition_point(|&[p, _]| p >> FLAG_BITS < id);
                let mut rest = postings.len();
                for (d, &(first, end)) in df.iter_mut().zip(spans).skip(1) {
                    let n = below(end) - below(first);
                    rest -= n;
                    *d = u32::try_from(n).unwrap_or(u32::MAX);
                }
                df[0] = u32::try_from(rest).unwrap_or(u32::MAX);
            } else {
                df.iter_mut().for_each(|d| *d = 0);
                for &[posting, _] in postings {
                    df[usize::from(self.section_locale[(posting >> FLAG_BITS) as usize])] += 1;
                }
            }
            for (l, (_, n, _)) in self.locales.iter().enumerate() {
                likelihood[l] += ((f64::from(df[l]) + 0.5) / (f64::from(*n) + 1.0)).ln();
            }
        }
        let mut best = 0;
        for l in 1..likelihood.len() {
            if likelihood[l] > likelihood[best].max(likelihood[0] + w().locale_margin) {
                best = l;
            }
        }
        best
    }

    fn section(&self, id: u32) -> (&Page, &Section) {
        let (page, section) = self.sections[id as usize];
        let page = &self.pages[page as usize];
        (page, &page.sections[section as usize])
    }

    /// BM25F's pseudo term frequency of one posting: the term's frequency in
    /// each field, times the field's weight, each normalised by the field's
    /// length relative to its mean.
    fn field_tf(&self, id: usize, freqs: u32) -> f64 {
        // Branch-free: a field without the term adds zero.
        let norms = &self.field_norms[id];
        f64::from(freqs & 0xff) * norms[HEADING]
            + f64::from((freqs >> 8) & 0xff) * norms[BODY]
            + f64::from((freqs >> 16) & 0xff) * norms[CODE]
            + f64::from(freqs >> 24) * norms[CONTEXT]
    }

    /// The best `wanted` results for `query` (a section each, its copies in
    /// other languages folded into it).
    pub(crate) fn search(&mut self, query: &str, wanted: usize) -> Vec<SearchHit> {
        let w = w();
        let query = self.resolve(query);
        if query.groups.is_empty() || wanted == 0 {
            return Vec::new();
        }
        // Enough of the ranking to fill `wanted` results after folding mirrors
        // (each result stands for at most `mirror_most` sections), so a short
        // list is the start of a longer one.
        let limit = wanted.saturating_mul(self.mirror_most.max(1));
        let mut scores = std::mem::take(&mut self.scratch);
        scores.resize(self.sections.len(), SectionScore::default());
        let total_idf: f64 = query.groups.iter().map(|g| g.idf).sum();
        let content_idf: f64 = query
            .groups
            .iter()
            .filter(|g| !g.function)
            .map(|g| g.idf)
            .sum();
        // What a section holding the query's words in a row gains.
        let phrase_bonus = w.phrase * total_idf;
        let mut touched = Vec::new();
        for (g, group) in query.groups.iter().enumerate() {
            let mark = u16::try_from(g + 1).unwrap_or(u16::MAX);
            for term in &group.terms {
                for &[posting, freqs] in self.postings_of(term.term) {
                    let id = (posting >> FLAG_BITS) as usize;
                    if term.lang.is_some_and(|lang| self.section_lang(id) != lang) {
                        continue;
                    }
                    let tf = term.factor * self.field_tf(id, freqs);
                    let a = &mut scores[id];
                    if a.group != mark {
                        if a.matched == 0 {
                            touched.push(id as u32);
                        }
                        a.close_group(w.k1);
                        a.group = mark;
                        a.weight = group.weight[self.section_lang(id)];
                        a.matched += 1;
                        a.matched_idf += group.idf;
                        if !group.function {
                            a.matched_content_idf += group.idf;
                        }
                    }
                    a.tf += tf;
                    if posting & IN_HEADING != 0 && a.heading_group != mark {
                        a.heading_group = mark;
                        a.heading_hits += 1;
                        a.heading_idf += group.idf;
                    }
                }
            }
        }
        let all = u16::try_from(query.groups.len()).unwrap_or(u16::MAX);
        // Scores without the phrase bonus, and whether the section holds every query word.
        let mut scored: Vec<(f64, u32, bool)> = touched
            .iter()
            .map(|&id| {
                let i = id as usize;
                let a = &mut scores[i];
                a.close_group(w.k1);
                let a = *a;
                let coverage = if content_idf > 0.0 {
                    a.matched_content_idf / content_idf
                } else {
                    0.0
                };
                let mut score = a.score
                    + w.coverage * content_idf * coverage * coverage * self.coverage_norms[i];
                let heading_words = self.heading_words[i];
                if a.heading_hits > 0 && heading_words > 0 {
                    let covered = (f64::from(a.heading_hits) / f64::from(heading_words)).min(1.0);
                    score += w.heading_coverage * a.heading_idf * covered;
                }
                if usize::from(self.section_locale[i]) == query.locale {
                    score += w.locale * total_idf;
                }
                if self.has_code[i] {
                    score += w.example * a.matched_idf;
                }
                (score, id, a.matched == all)
            })
            .collect();
        if w.neighbour > 0.0 {
            // Each touched section's score, where its neighbours can read it
            // (an untouched section's is zero); all read before any changes.
            for &(score, id, _) in &scored {
                scores[id as usize].score = score;
            }
            // Only a section that could still reach the `limit`-th best score
            // with the largest bonuses it could get needs its neighbours read;
            // the others leave now (exact: no bonus is negative).
            if scored.len() > limit {
                let mut base: Vec<f64> = scored.iter().map(|s| s.0).collect();
                let (above, kth, _) = base.select_nth_unstable_by(limit - 1, |a, b| b.total_cmp(a));
                let floor = *kth - 0.002;
                let most = w.neighbour * above.iter().fold(*kth, |m, &s| m.max(s));
                let phrase = if query.phrase.is_some() {
                    phrase_bonus
                } else {
                    0.0
                };
                scored.retain(|s| s.0 + most + if s.2 { phrase } else { 0.0 } >= floor);
            }
            let near = |i: usize, page: u32| {
                self.sections
                    .get(i)
                    .filter(|s| s.0 == page)
                    .map_or(0.0, |_| scores[i].score)
            };
            let borrowed: Vec<f64> = scored
                .iter()
                .map(|&(_, id, _)| {
                    let i = id as usize;
                    let page = self.sections[i].0;
                    let before = i.checked_sub(1).map_or(0.0, |j| near(j, page));
                    w.neighbour * before.max(near(i + 1, page))
                })
                .collect();
            for (entry, add) in scored.iter_mut().zip(borrowed) {
                entry.0 += add;
            }
        }
        for &id in &touched {
            scores[id as usize] = SectionScore::default();
        }
        self.scratch = scores;
        if let Some(phrase) = &query.phrase {
            // The phrase bonus is the same for every section holding the phrase:
            // only sections that would reach the `limit`-th best score without
            // it by adding it need the (costlier) check; the result is exact.
            // Anchored on the phrase's rarest word: the fewest candidates.
            let anchor = (0..phrase.len())
                .min_by_key(|&k| self.df(phrase[k]))
                .unwrap_or(0);
            let threshold = if scored.len() > limit {
                let mut scores: Vec<f64> = scored.iter().map(|s| s.0).collect();
                let (_, kth, _) = scores.select_nth_unstable_by(limit - 1, |a, b| b.total_cmp(a));
                *kth - 0.001
            } else {
                f64::NEG_INFINITY
            };
            for entry in &mut scored {
                if entry.2
                    && entry.0 + phrase_bonus >= threshold
                    && contains_run(&self.section(entry.1).1.seq, phrase, anchor)
                {
                    entry.0 += phrase_bonus;
                }
            }
        }
        let mut scored: Vec<(f64, u32)> = scored
            .into_iter()
            .map(|(score, id, _)| ((score * 1000.0).round() / 1000.0, id))
            .collect();
        let order = |a: &(f64, u32), b: &(f64, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > limit {
            scored.select_nth_unstable_by(limit, order);
            scored.truncate(limit);
        }
        scored.sort_by(order);
        let mut hits = Vec::with_capacity(wanted.min(scored.len()));
        let mut folded: Vec<u32> = Vec::new();
        for (score, id) in scored {
            if hits.len() == wanted {
                break;
            }
            if folded.contains(&id) {
                continue;
            }
            // The section's group, in cycle order from it.
            let mut group = vec![id];
            let mut member = self.mirror_next[id as usize];
            while member != id && group.len() <= self.mirror_most {
                group.push(member);
                member = self.mirror_next[member as usize];
            }
            folded.extend(&group[1..]);
            // Shown: the copy ranked first, which the locale bonus makes the
            // copy in the query's language unless another matches clearly better.
            let shown = id;
            let mut mirrors: Vec<Mirror> = group
                .iter()
                .filter(|&&m| m != shown)
                .map(|&m| {
                    let (page, section) = self.section(m);
                    Mirror {
                        path: page.rel.clone(),
                        heading: section.heading.clone(),
                        anchor: section.anchor.to_string(),
                    }
                })
                .collect();
            mirrors.sort_by(|a, b| a.path.cmp(&b.path));
            let (page, section) = self.section(shown);
            hits.push(SearchHit {
                path: page.rel.clone(),
                title: page.title.clone(),
                heading: section.heading.clone(),
                anchor: section.anchor.to_string(),
                snippet: self.snippet(section, &query),
                score,
                mirrors,
            });
        }
        hits
    }

    /// The snippet of a hit: its body text (then its code) around the best match.
    fn snippet(&self, section: &Section, query: &Query) -> String {
        let mut folded = String::new();
        let mut group_of_word = |word: &str| {
            fold_into(word, &mut folded);
            let term = self.dict.get(&folded)?;
            query.group_of(term).or_else(|| {
                self.dict
                    .parts(term)
                    .iter()
                    .find_map(|&part| query.group_of(part))
            })
        };
        if section.code.is_empty() {
            snippet::snippet(&section.text, &mut group_of_word)
        } else if section.text.is_empty() {
            snippet::snippet(&section.code, &mut group_of_word)
        } else {
            let text = format!("{} {}", section.text, section.code);
            snippet::snippet(&text, &mut group_of_word)
        }
    }

    /// Sizes of the index.
    pub(crate) fn stats(&self) -> IndexStats {
        let mut index_bytes = 0;
        let mut markdown_bytes = 0;
        let mut sections = 0;
        for page in &self.pages {
            markdown_bytes += page.bytes;
            index_bytes += std::mem::size_of::<Page>()
                + page.rel.len()
                + page.title.len()
                + page.title_terms.len() * 4;
            for s in &page.sections {
                sections += 1;
                index_bytes += std::mem::size_of::<Section>()
                    + s.heading.len()
                    + s.text.len()
                    + s.code.len()
                    + 4 * (s.seq.len() + s.parents.len());
            }
        }
        // Per section: its (page, section) pair, locale, language, heading
        // words, code flag, scratch score, field norms and coverage norm.
        index_bytes += self.sections.len()
            * (8 + 1 + 1 + 2 + 1 + std::mem::size_of::<SectionScore>() + 8 * FIELDS + 8);
        index_bytes += 8 * self.postings.len() + 4 * self.postings_at.len();
        index_bytes += self.dict.heap_bytes();
        IndexStats {
            pages: self.pages.len(),
            sections,
            terms: self.dict.len(),
            markdown_bytes,
            index_bytes,
        }
    }
}

/// Whether `haystack` holds `needle` as a run, looked for from the
/// occurrences of the needle's `anchor`-th term (its rarest: the fewest
/// candidates). The haystack is scanned for the anchor a chunk at a time
/// with a comparison without early exit, which the compiler vectorizes.
fn contains_run(haystack: &[u32], needle: &[u32], anchor: usize) -> bool {
    const CHUNK: usize = 32;
    let Some(&key) = needle.get(anchor) else {
        return false;
    };
    let run_at = |i: usize| {
        i.checked_sub(anchor)
            .and_then(|start| haystack.get(start..start + needle.len()))
            .is_some_and(|window| window.iter().zip(needle).all(|(a, b)| a == b))
    };
    haystack.chunks(CHUNK).enumerate().any(|(c, chunk)| {
        chunk.iter().fold(false, |any, &t| any | (t == key))
            && chunk
                .iter()
                .enumerate()
                .any(|(j, &t)| t == key && run_at(c * CHUNK + j))
    })
}

#[cfg(test)]
mod run_tests {
    use super::contains_run;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 512,
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x5e9),
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Any anchor finds exactly the runs a plain window comparison finds,
        /// in haystacks shorter and longer than a chunk, with few distinct
        /// terms so that runs and near misses are common.
        #[test]
        fn contains_run_agrees_with_windows(
            haystack in proptest::collection::vec(0u32..4, 0..100),
            needle in proptest::collection::vec(0u32..4, 1..5),
            anchor in 0usize..5,
        ) {
            let anchor = anchor % needle.len();
            let expected = haystack.windows(needle.len()).any(|w| w == needle.as_slice());
            prop_assert_eq!(contains_run(&haystack, &needle, anchor), expected);
        }
    }

    #[test]
    fn a_run_across_a_chunk_boundary_is_found() {
        let mut haystack = vec![9u32; 64];
        haystack[30..35].copy_from_slice(&[1, 2, 3, 4, 5]);
        for anchor in 0..5 {
            assert!(contains_run(&haystack, &[1, 2, 3, 4, 5], anchor));
            assert!(!contains_run(&haystack, &[1, 2, 4, 5], anchor.min(3)));
        }
        assert!(!contains_run(&haystack, &[], 0));
        assert!(!contains_run(&[], &[1], 0));
    }
}

//! The in-memory index: pages, sections, the term dictionary and postings; ranking.

use std::collections::HashMap;

use rust_stemmers::{Algorithm, Stemmer};

use crate::markdown::{self, ParsedPage};
use crate::root::{Listed, Root, Stamp};
use crate::snippet;
use crate::text::{fold, fold_into, identifier_parts, is_stopword, words};
use crate::{Error, SearchHit};

/// Posting flag: the term is in the section's heading.
const IN_HEADING: u32 = 1;
/// Posting flag: the term is in the section's body.
const IN_BODY: u32 = 2;
/// Posting flag: the term is in the title of the section's page.
const IN_TITLE: u32 = 4;
/// Posting flag: the term is in a code block of the section.
const IN_CODE: u32 = 8;
/// Bits of a posting used by flags; the section id is above them.
const FLAG_BITS: u32 = 4;
/// Separates the heading from the body in a section's term sequence, so no
/// phrase spans both.
const SEPARATOR: u32 = u32::MAX;
/// Marks stem terms in the dictionary (`~button`), apart from whole words.
const STEM_MARK: char = '~';

/// The ranking's weights, in one place so the ranking stays explainable.
mod weight {
    /// A term in the section's heading (headings weigh double).
    pub(super) const HEADING: f64 = 2.0;
    /// A term in the section's body.
    pub(super) const BODY: f64 = 1.0;
    /// A term only in the section's code blocks.
    pub(super) const CODE: f64 = 0.5;
    /// Heading bonus: the IDF of the query words found in the heading, times
    /// this, times the share of the heading's words they cover.
    pub(super) const HEADING_COVERAGE: f64 = 1.0;
    /// A query identifier's parts (`serve`, `stream` of `serve_stream`) count
    /// this share of a whole word, besides the identifier itself.
    pub(super) const PART: f64 = 0.5;
    /// A term in the page title, added to the heading or body weight.
    pub(super) const TITLE: f64 = 0.5;
    /// Coverage bonus: this share of the query's total IDF, times the
    /// squared share of that IDF the section's matched words hold.
    pub(super) const COVERAGE: f64 = 1.0;
    /// Exact-phrase bonus: this share of the query's total IDF.
    pub(super) const PHRASE: f64 = 1.0;
    /// A function word (`the`, `de`) counts this share of its IDF.
    pub(super) const STOPWORD: f64 = 0.3;
    /// A word found only through its stem counts this share of a whole-word match.
    pub(super) const STEM: f64 = 0.7;
    /// Locale bonus: this share of the query's total IDF for a section in the query's locale.
    pub(super) const LOCALE: f64 = 0.1;
    /// Body length normalisation (BM25's `k1` and `b` with a term frequency of one).
    pub(super) const K1: f64 = 1.2;
    /// See [`K1`].
    pub(super) const B: f64 = 0.75;
    /// How much likelier (natural log) a query must be in another locale than
    /// in the root's to be taken as that locale's.
    pub(super) const LOCALE_MARGIN: f64 = 1.0;
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
    /// [`SEPARATOR`], code words (whole words only, in order; for phrases).
    seq: Box<[u32]>,
    /// Distinct whole words in the heading.
    heading_words: u16,
    /// Identifier parts found in the heading.
    heading_parts: Box<[u32]>,
    /// Identifier parts found in the body.
    body_parts: Box<[u32]>,
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

/// Term ids for folded words.
#[derive(Debug, Default)]
struct Dict {
    ids: HashMap<Box<str>, u32>,
}

impl Dict {
    fn intern(&mut self, folded: &str) -> u32 {
        if let Some(&id) = self.ids.get(folded) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).expect("fewer than 2^32 distinct terms");
        self.ids.insert(folded.into(), id);
        id
    }

    fn get(&self, folded: &str) -> Option<u32> {
        self.ids.get(folded).copied()
    }

    fn len(&self) -> usize {
        self.ids.len()
    }
}

/// Appends the whole-word terms of `text` to `seq`, and its identifier parts
/// and word stems (in the page's language) to `parts`.
fn tokenize(
    dict: &mut Dict,
    stemmer: &Stemmer,
    text: &str,
    seq: &mut Vec<u32>,
    parts: &mut Vec<u32>,
) {
    let mut folded = String::new();
    let mut stem = String::new();
    for (_, word) in words(text) {
        fold_into(word, &mut folded);
        seq.push(dict.intern(&folded));
        let split = identifier_parts(word);
        if split.is_empty() {
            if stem_term(stemmer, &folded, &mut stem) {
                parts.push(dict.intern(&stem));
            }
        } else {
            for part in split {
                fold_into(part, &mut folded);
                parts.push(dict.intern(&folded));
            }
        }
    }
}

/// Writes the stem term of a folded word (`~` and its stem) to `out`; false
/// for words that are not stemmed (shorter than 3 characters, or not all letters).
pub(crate) fn stem_term(stemmer: &Stemmer, folded: &str, out: &mut String) -> bool {
    if folded.len() < 3 || !folded.chars().all(char::is_alphabetic) {
        return false;
    }
    out.clear();
    out.push(STEM_MARK);
    out.push_str(&stemmer.stem(folded));
    true
}

/// The stemmer for a page's locale: Spanish for `es/`, English otherwise.
fn stemmer_for(locale: &str) -> Stemmer {
    Stemmer::create(if locale == "es" {
        Algorithm::Spanish
    } else {
        Algorithm::English
    })
}

fn sorted_distinct(mut ids: Vec<u32>) -> Box<[u32]> {
    ids.sort_unstable();
    ids.dedup();
    ids.into_boxed_slice()
}

/// The file name without `.md`, the title of last resort.
fn file_stem(rel: &str) -> &str {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.strip_suffix(".md").unwrap_or(name)
}

fn build_page(dict: &mut Dict, listed: &Listed, source: &str) -> Page {
    let ParsedPage { title, sections } = markdown::parse(source);
    let title = title.unwrap_or_else(|| file_stem(&listed.rel).to_owned());
    let stemmer = stemmer_for(locale_of(&listed.rel));
    let mut title_seq = Vec::new();
    let mut title_parts = Vec::new();
    tokenize(dict, &stemmer, &title, &mut title_seq, &mut title_parts);
    title_seq.append(&mut title_parts);
    let sections = sections
        .into_iter()
        .map(|raw| {
            let mut seq = Vec::new();
            let mut heading_parts = Vec::new();
            let mut body_parts = Vec::new();
            tokenize(dict, &stemmer, &raw.heading, &mut seq, &mut heading_parts);
            let mut heading_words = seq.clone();
            heading_words.sort_unstable();
            heading_words.dedup();
            seq.push(SEPARATOR);
            tokenize(dict, &stemmer, &raw.text, &mut seq, &mut body_parts);
            seq.push(SEPARATOR);
            let mut code_parts = Vec::new();
            tokenize(dict, &stemmer, &raw.code, &mut seq, &mut code_parts);
            body_parts.append(&mut code_parts);
            Section {
                heading: raw.heading,
                heading_words: u16::try_from(heading_words.len()).unwrap_or(u16::MAX),
                text: raw.text,
                code: raw.code,
                seq: seq.into_boxed_slice(),
                heading_parts: sorted_distinct(heading_parts),
                body_parts: sorted_distinct(body_parts),
            }
        })
        .collect();
    Page {
        rel: listed.rel.clone(),
        stamp: listed.stamp,
        title,
        title_terms: sorted_distinct(title_seq),
        sections,
        bytes: source.len(),
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

/// One query word: the terms that count as finding it, with their weights.
#[derive(Debug)]
struct Group {
    /// `(term, idf × factor)`: the word itself, or its stems at [`weight::STEM`].
    terms: Vec<(u32, f64)>,
    /// The word's IDF (its best term's), for coverage.
    idf: f64,
}

/// A query, resolved against the dictionary.
#[derive(Debug)]
struct Query {
    /// One group per distinct known query word (or identifier part).
    groups: Vec<Group>,
    /// Folded words and stem terms, for snippets.
    snippet_terms: Vec<String>,
    /// The query's whole words as terms, when there are two or more and all are known.
    phrase: Option<Vec<u32>>,
    /// The index in `Index::locales` of the query's likeliest locale.
    locale: usize,
}

/// Per-section accumulator of one query.
#[derive(Debug, Clone, Copy, Default)]
struct Acc {
    /// Sum of the best weight of each matched group.
    score: f64,
    /// The current group's best weight so far.
    current: f64,
    /// Sum of the IDF of the matched groups.
    matched_idf: f64,
    /// The current group's index plus one (0: none yet).
    group: u16,
    /// Number of matched groups.
    matched: u16,
    /// The last group found in the heading, plus one.
    heading_group: u16,
    /// Number of groups found in the heading.
    heading_hits: u16,
    /// Sum of the IDF of the groups found in the heading.
    heading_idf: f64,
}

/// The index of one docs tree.
#[derive(Debug, Default)]
pub(crate) struct Index {
    dict: Dict,
    /// Pages sorted by relative path.
    pages: Vec<Page>,
    /// Section id → (page index, section index), in path then document order.
    sections: Vec<(u32, u32)>,
    /// Term id → postings `(section id << FLAG_BITS) | flags`, ascending.
    postings: Vec<Vec<u32>>,
    /// Section id → number of words (heading and body).
    lengths: Vec<u32>,
    /// The mean of `lengths`.
    mean_length: f64,
    /// Section id → index in `locales`.
    section_locale: Vec<u8>,
    /// Locale names (`""` for the root's, first) and their section counts.
    locales: Vec<(String, u32)>,
    /// Section id → accumulator, all default between queries.
    scratch: Vec<Acc>,
}

impl Index {
    /// Brings the index up to date with the tree: re-reads pages whose size or
    /// modification time changed, adds new ones, drops removed ones, and
    /// rebuilds the postings only when something changed. Returns whether it did.
    pub(crate) fn refresh(&mut self, root: &Root) -> Result<bool, Error> {
        let listing = root.scan()?;
        let unchanged = listing.len() == self.pages.len()
            && listing
                .iter()
                .zip(&self.pages)
                .all(|(l, p)| l.rel == p.rel && l.stamp == p.stamp);
        if unchanged {
            return Ok(false);
        }
        let mut old: Vec<Option<Page>> = std::mem::take(&mut self.pages)
            .into_iter()
            .map(Some)
            .collect();
        let mut old_at = 0;
        let mut pages = Vec::with_capacity(listing.len());
        for listed in &listing {
            while old_at < old.len()
                && old[old_at]
                    .as_ref()
                    .is_some_and(|p| p.rel.as_str() < listed.rel.as_str())
            {
                old_at += 1;
            }
            if let Some(slot) = old.get_mut(old_at)
                && slot
                    .as_ref()
                    .is_some_and(|p| p.rel == listed.rel && p.stamp == listed.stamp)
                && let Some(page) = slot.take()
            {
                pages.push(page);
                continue;
            }
            match root.read_listed(&listed.rel) {
                Ok(source) => pages.push(build_page(&mut self.dict, listed, &source)),
                Err(error) => {
                    tracing::warn!(page = %listed.rel, error = %error, "skipping an unreadable page");
                }
            }
        }
        self.pages = pages;
        self.rebuild_postings();
        Ok(true)
    }

    fn rebuild_postings(&mut self) {
        let terms = self.dict.len();
        let mut postings: Vec<Vec<u32>> = vec![Vec::new(); terms];
        let mut last = vec![u32::MAX; terms];
        let mut sections = Vec::new();
        let mut lengths = Vec::new();
        let mut section_locale = Vec::new();
        let mut locales: Vec<(String, u32)> = vec![(String::new(), 0)];
        for (page_ix, page) in self.pages.iter().enumerate() {
            let locale = locale_of(&page.rel);
            let locale_ix = match locales.iter().position(|(l, _)| l == locale) {
                Some(ix) => ix,
                None if locales.len() < usize::from(u8::MAX) => {
                    locales.push((locale.to_owned(), 0));
                    locales.len() - 1
                }
                None => 0,
            };
            locales[locale_ix].1 += u32::try_from(page.sections.len()).unwrap_or(u32::MAX);
            for (section_ix, section) in page.sections.iter().enumerate() {
                lengths.push(u32::try_from(section.seq.len() - 2).unwrap_or(u32::MAX));
                section_locale.push(u8::try_from(locale_ix).expect("at most 255 locales"));
                let id = u32::try_from(sections.len()).expect("fewer than 2^29 sections");
                sections.push((
                    u32::try_from(page_ix).expect("fewer than 2^32 pages"),
                    u32::try_from(section_ix).expect("fewer than 2^32 sections in a page"),
                ));
                let mut add = |term: u32, flag: u32| {
                    let t = term as usize;
                    let list = &mut postings[t];
                    if last[t] == id {
                        if let Some(posting) = list.last_mut() {
                            *posting |= flag;
                        }
                    } else {
                        last[t] = id;
                        list.push((id << FLAG_BITS) | flag);
                    }
                };
                let mut flag = IN_HEADING;
                for &term in section.seq.iter() {
                    if term == SEPARATOR {
                        flag = if flag == IN_HEADING { IN_BODY } else { IN_CODE };
                    } else {
                        add(term, flag);
                    }
                }
                for &term in section.heading_parts.iter() {
                    add(term, IN_HEADING);
                }
                for &term in section.body_parts.iter() {
                    add(term, IN_BODY);
                }
                for &term in page.title_terms.iter() {
                    add(term, IN_TITLE);
                }
            }
        }
        for list in &mut postings {
            list.shrink_to_fit();
        }
        self.postings = postings;
        self.sections = sections;
        self.mean_length = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / lengths.len() as f64).max(1.0)
        };
        self.lengths = lengths;
        self.section_locale = section_locale;
        self.locales = locales;
    }

    fn idf(&self, term: u32) -> f64 {
        let n = self.sections.len() as f64;
        let df = self.postings.get(term as usize).map_or(0, Vec::len) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn known(&self, folded: &str) -> Option<u32> {
        self.dict.get(folded).filter(|&id| {
            self.postings
                .get(id as usize)
                .is_some_and(|l| !l.is_empty())
        })
    }

    fn resolve(&self, query: &str) -> Query {
        let stemmers = [stemmer_for(""), stemmer_for("es")];
        let mut groups: Vec<Group> = Vec::new();
        let mut snippet_terms = Vec::new();
        let mut phrase = Vec::new();
        let mut phrase_ok = true;
        let mut folded = String::new();
        let mut stem = String::new();
        let push = |group: Group, groups: &mut Vec<Group>| {
            if !group.terms.is_empty() && !groups.iter().any(|g| g.terms[0].0 == group.terms[0].0) {
                groups.push(group);
            }
        };
        let all_stopwords = words(query).all(|(_, word)| is_stopword(&fold(word)));
        for (_, word) in words(query) {
            fold_into(word, &mut folded);
            let whole = self.known(&folded);
            if !all_stopwords && is_stopword(&folded) {
                // Function words count little, and not towards headings.
                match whole {
                    Some(id) => {
                        phrase.push(id);
                        let idf = self.idf(id) * weight::STOPWORD;
                        if idf > 0.0 {
                            push(
                                Group {
                                    terms: vec![(id, idf)],
                                    idf,
                                },
                                &mut groups,
                            );
                        }
                    }
                    None => phrase_ok = false,
                }
                continue;
            }
            let split = identifier_parts(word);
            if whole.is_none() && !split.is_empty() {
                // An identifier absent from the docs is searched as its parts.
                phrase_ok = false;
                for part in split {
                    fold_into(part, &mut folded);
                    if let Some(id) = self.known(&folded) {
                        let idf = self.idf(id);
                        push(
                            Group {
                                terms: vec![(id, idf)],
                                idf,
                            },
                            &mut groups,
                        );
                        snippet_terms.push(folded.clone());
                    }
                }
                continue;
            }
            if whole.is_some() {
                for part in &split {
                    fold_into(part, &mut folded);
                    if let Some(id) = self.known(&folded) {
                        let idf = self.idf(id) * weight::PART;
                        push(
                            Group {
                                terms: vec![(id, idf)],
                                idf,
                            },
                            &mut groups,
                        );
                        snippet_terms.push(folded.clone());
                    }
                }
                fold_into(word, &mut folded);
            }
            let mut group = Group {
                terms: Vec::new(),
                idf: 0.0,
            };
            if let Some(id) = whole {
                group.idf = self.idf(id);
                group.terms.push((id, group.idf));
                phrase.push(id);
                snippet_terms.push(folded.clone());
            } else {
                phrase_ok = false;
            }
            for stemmer in &stemmers {
                if stem_term(stemmer, &folded, &mut stem)
                    && let Some(id) = self.known(&stem)
                    && !group.terms.iter().any(|&(t, _)| t == id)
                {
                    // A stem never weighs more than the word itself.
                    let idf = if whole.is_some() {
                        self.idf(id).min(group.idf)
                    } else {
                        self.idf(id)
                    };
                    group.terms.push((id, idf * weight::STEM));
                    if whole.is_none() {
                        group.idf = group.idf.max(idf);
                    }
                    snippet_terms.push(stem.clone());
                }
            }
            push(group, &mut groups);
        }
        let locale = self.likeliest_locale(query);
        let phrase = (phrase_ok && phrase.len() >= 2).then_some(phrase);
        Query {
            groups,
            snippet_terms,
            phrase,
            locale,
        }
    }

    /// The locale whose sections make the query's known words likeliest
    /// (document frequencies per locale, function words included); another
    /// locale than the root's must beat it by [`weight::LOCALE_MARGIN`].
    fn likeliest_locale(&self, query: &str) -> usize {
        let mut likelihood = vec![0.0f64; self.locales.len()];
        let mut df = vec![0u32; self.locales.len()];
        let mut folded = String::new();
        for (_, word) in words(query) {
            fold_into(word, &mut folded);
            let Some(term) = self.known(&folded) else {
                continue;
            };
            df.iter_mut().for_each(|d| *d = 0);
            for &posting in &self.postings[term as usize] {
                df[usize::from(self.section_locale[(posting >> FLAG_BITS) as usize])] += 1;
            }
            for (l, (_, n)) in self.locales.iter().enumerate() {
                likelihood[l] += ((f64::from(df[l]) + 0.5) / (f64::from(*n) + 1.0)).ln();
            }
        }
        let mut best = 0;
        for l in 1..likelihood.len() {
            if likelihood[l] > likelihood[best].max(likelihood[0] + weight::LOCALE_MARGIN) {
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

    /// The weight of one posting: where the term is, with the body length-normalised.
    fn place_weight(&self, posting: u32) -> f64 {
        let id = (posting >> FLAG_BITS) as usize;
        let mut w = 0.0;
        if posting & IN_HEADING != 0 {
            w += weight::HEADING;
        } else if posting & (IN_BODY | IN_CODE) != 0 {
            let relative = f64::from(self.lengths[id]) / self.mean_length;
            let place = if posting & IN_BODY != 0 {
                weight::BODY
            } else {
                weight::CODE
            };
            w += place * (weight::K1 + 1.0)
                / (1.0 + weight::K1 * (1.0 - weight::B + weight::B * relative));
        }
        if posting & IN_TITLE != 0 {
            w += weight::TITLE;
        }
        w
    }

    /// The best `limit` sections for `query`.
    pub(crate) fn search(&mut self, query: &str, limit: usize) -> Vec<SearchHit> {
        let query = self.resolve(query);
        if query.groups.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut acc = std::mem::take(&mut self.scratch);
        acc.resize(self.sections.len(), Acc::default());
        let total_idf: f64 = query.groups.iter().map(|g| g.idf).sum();
        let mut touched = Vec::new();
        for (g, group) in query.groups.iter().enumerate() {
            let mark = u16::try_from(g + 1).unwrap_or(u16::MAX);
            for &(term, idf) in &group.terms {
                for &posting in &self.postings[term as usize] {
                    let id = (posting >> FLAG_BITS) as usize;
                    let w = idf * self.place_weight(posting);
                    let a = &mut acc[id];
                    if a.group != mark {
                        if a.matched == 0 {
                            touched.push(id as u32);
                        }
                        a.group = mark;
                        a.matched += 1;
                        a.matched_idf += group.idf;
                        a.current = w;
                        a.score += w;
                    } else if w > a.current {
                        a.score += w - a.current;
                        a.current = w;
                    }
                    if posting & IN_HEADING != 0 && a.heading_group != mark {
                        a.heading_group = mark;
                        a.heading_hits += 1;
                        a.heading_idf += group.idf;
                    }
                }
            }
        }
        let query_locale = query.locale;
        let all = u16::try_from(query.groups.len()).unwrap_or(u16::MAX);
        let mut scored: Vec<(f64, u32)> = touched
            .iter()
            .map(|&id| {
                let a = acc[id as usize];
                let coverage = if total_idf > 0.0 {
                    a.matched_idf / total_idf
                } else {
                    1.0
                };
                let mut score = a.score + weight::COVERAGE * total_idf * coverage * coverage;
                let heading_words = self.section(id).1.heading_words;
                if a.heading_hits > 0 && heading_words > 0 {
                    let covered = (f64::from(a.heading_hits) / f64::from(heading_words)).min(1.0);
                    score += weight::HEADING_COVERAGE * a.heading_idf * covered;
                }
                if a.matched == all
                    && let Some(phrase) = &query.phrase
                    && contains_run(&self.section(id).1.seq, phrase)
                {
                    score += weight::PHRASE * total_idf;
                }
                if usize::from(self.section_locale[id as usize]) == query_locale {
                    score += weight::LOCALE * total_idf;
                }
                ((score * 1000.0).round() / 1000.0, id)
            })
            .collect();
        for &id in &touched {
            acc[id as usize] = Acc::default();
        }
        self.scratch = acc;
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.truncate(limit);
        scored
            .into_iter()
            .map(|(score, id)| {
                let (page, section) = self.section(id);
                let stemmer = stemmer_for(locale_of(&page.rel));
                SearchHit {
                    path: page.rel.clone(),
                    title: page.title.clone(),
                    heading: section.heading.clone(),
                    snippet: if section.code.is_empty() {
                        snippet::snippet(&section.text, &query.snippet_terms, &stemmer)
                    } else {
                        let text = format!("{} {}", section.text, section.code);
                        snippet::snippet(text.trim(), &query.snippet_terms, &stemmer)
                    },
                    score,
                }
            })
            .collect()
    }

    /// Sizes of the index.
    pub(crate) fn stats(&self) -> IndexStats {
        let mut index_bytes = 0;
        let mut markdown_bytes = 0;
        let mut sections = 0;
        for page in &self.pages {
            markdown_bytes += page.bytes;
            index_bytes += page.rel.len() + page.title.len() + page.title_terms.len() * 4;
            index_bytes += std::mem::size_of::<Page>();
            for s in &page.sections {
                sections += 1;
                index_bytes += std::mem::size_of::<Section>()
                    + s.heading.len()
                    + s.text.len()
                    + s.code.len()
                    + 4 * (s.seq.len() + s.heading_parts.len() + s.body_parts.len());
            }
        }
        index_bytes += self.sections.len() * 8;
        index_bytes += self
            .postings
            .iter()
            .map(|l| 24 + l.len() * 4)
            .sum::<usize>();
        // A hash map entry: the boxed key (16 + text), the id, about one control byte.
        index_bytes += self
            .dict
            .ids
            .keys()
            .map(|k| 16 + k.len() + 4 + 1)
            .sum::<usize>();
        IndexStats {
            pages: self.pages.len(),
            sections,
            terms: self.dict.len(),
            markdown_bytes,
            index_bytes,
        }
    }
}

/// Whether `needle` occurs as a contiguous run in `haystack`.
fn contains_run(haystack: &[u32], needle: &[u32]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return false;
    };
    haystack
        .iter()
        .enumerate()
        .any(|(i, &t)| t == first && haystack.get(i + 1..i + 1 + rest.len()) == Some(rest))
}

//! The term dictionary: ids for folded words, their identifier parts and their stems.
//!
//! Parts and stems are computed once per distinct word (per language for
//! stems), not per occurrence, which keeps indexing fast; stems are not
//! posted, a query word's stem is expanded to the words sharing it instead,
//! which keeps the postings small.

use std::collections::HashMap;
use std::hash::Hasher;

use rust_stemmers::{Algorithm, Stemmer};

use crate::text::{fold_into, identifier_parts, is_stopword};

/// A word as a map key: its bytes inline when short (no pointer to follow
/// on a lookup, which is what indexing spends its time on), boxed otherwise.
#[derive(Debug, Clone)]
pub(crate) enum Key {
    /// Up to [`INLINE`] bytes.
    Inline(u8, [u8; INLINE]),
    /// Longer words.
    Boxed(Box<[u8]>),
}

/// The longest word kept inline in a [`Key`].
const INLINE: usize = 22;

impl Key {
    fn new(word: &str) -> Key {
        let bytes = word.as_bytes();
        match u8::try_from(bytes.len()) {
            Ok(len) if bytes.len() <= INLINE => {
                let mut inline = [0u8; INLINE];
                inline[..bytes.len()].copy_from_slice(bytes);
                Key::Inline(len, inline)
            }
            _ => Key::Boxed(bytes.into()),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Key::Inline(len, bytes) => &bytes[..usize::from(*len)],
            Key::Boxed(bytes) => bytes,
        }
    }

    /// Heap bytes beyond the key itself.
    fn heap(&self) -> usize {
        match self {
            Key::Inline(..) => 0,
            Key::Boxed(bytes) => bytes.len(),
        }
    }
}

impl std::borrow::Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.bytes()
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Key {}

impl std::hash::Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

/// A map keyed by words (look up with `word.as_bytes()`).
/// Hashed with `rustc-hash`'s Fx hash: fast on short keys, and the keys are
/// the docs' own words, so flooding is not a concern.
pub(crate) type WordMap<V> = HashMap<Key, V, rustc_hash::FxBuildHasher>;

/// The stemming languages: English for the root's pages and every locale
/// but Spanish, Spanish for `es/`.
pub(crate) const LANGS: usize = 2;
/// Index of English in per-language arrays.
pub(crate) const ENGLISH: usize = 0;
/// Index of Spanish in per-language arrays.
pub(crate) const SPANISH: usize = 1;

/// The stemmers, by language index.
pub(crate) fn stemmers() -> [Stemmer; LANGS] {
    [
        Stemmer::create(Algorithm::English),
        Stemmer::create(Algorithm::Spanish),
    ]
}

/// No stem: the word is not stemmed (short, or not all letters).
const NO_STEM: u32 = u32::MAX;
/// Not computed yet for that language.
const UNSET: u32 = u32::MAX - 1;
/// [`Term::stemmed`]: the first bit of "stemmed from an accented spelling".
const ACCENTED: u8 = 1 << LANGS;
/// The term has no identifier parts.
const NO_PARTS: u32 = u32::MAX;

/// The stem of a lowercased word (accents kept, as the Snowball stemmers
/// expect them: Spanish `configuración` stems to `configur`, its unaccented
/// spelling would not), folded; `None` when it is not stemmed (shorter than
/// 3 bytes, or not all letters).
pub(crate) fn stem_of(stemmer: &Stemmer, lowered: &str) -> Option<String> {
    let letters = if lowered.is_ascii() {
        lowered.bytes().all(|b| b.is_ascii_alphabetic())
    } else {
        lowered.chars().all(char::is_alphabetic)
    };
    if lowered.len() < 3 || !letters {
        return None;
    }
    let stem = stemmer.stem(lowered);
    Some(if stem.is_ascii() {
        stem.into_owned()
    } else {
        let mut folded = String::new();
        fold_into(&stem, &mut folded);
        folded
    })
}

/// Whether a word may be a compound identifier (cheap pre-check for
/// [`identifier_parts`]).
fn maybe_identifier(word: &str) -> bool {
    // A name with a version number (`oauth2`) ends with a digit.
    if word.ends_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    if word.is_ascii() {
        let bytes = word.as_bytes();
        return bytes.contains(&b'_')
            || (bytes.iter().skip(1).any(u8::is_ascii_uppercase)
                && bytes
                    .iter()
                    .any(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
    }
    let mut chars = word.chars();
    chars.next();
    word.contains('_')
        || (chars.any(char::is_uppercase)
            && word.chars().any(|c| c.is_lowercase() || c.is_numeric()))
}

/// A term of the dictionary, as the word map holds it.
#[derive(Debug, Clone, Copy)]
struct Term {
    id: u32,
    /// Bit `lang` set: the term's stem in that language is known (the same
    /// as `stems[id][lang] != UNSET`, kept beside the id so that interning a
    /// known word touches one table, not two). Bit `ACCENTED << lang` set: it
    /// was computed from a spelling with accents (the stemmers need them).
    stemmed: u8,
}

/// Term ids for folded words.
#[derive(Debug, Default)]
pub(crate) struct Dict {
    ids: WordMap<Term>,
    /// Term id → where its identifier parts start in `part_lists` (a count,
    /// then the ids), or [`NO_PARTS`]; from the first spelling that had any.
    parts_at: Vec<u32>,
    part_lists: Vec<u32>,
    /// Term id → whether it is a function word.
    stopword: Vec<bool>,
    /// Term id → stem id per language ([`NO_STEM`], or [`UNSET`] until the
    /// word is seen in that language).
    stems: Vec<[u32; LANGS]>,
    stem_ids: WordMap<u32>,
    /// Per language, stem id → the terms with that stem, as offsets into
    /// `stem_terms` (rebuilt by [`Dict::index_stems`]).
    stem_offsets: [Vec<u32>; LANGS],
    stem_terms: [Vec<u32>; LANGS],
    /// While indexing: non-ASCII spellings already seen, per language, to
    /// skip folding them again (emptied by [`Dict::end_indexing`]).
    spellings: [WordMap<u32>; LANGS],
}

impl Dict {
    /// The id of a folded word, added if new.
    fn intern_folded(&mut self, folded: &str) -> u32 {
        self.lookup(folded).0
    }

    /// The term of a folded word, added if new.
    fn lookup(&mut self, folded: &str) -> (u32, u8) {
        if let Some(term) = self.ids.get(folded.as_bytes()) {
            return (term.id, term.stemmed);
        }
        let id = u32::try_from(self.ids.len()).expect("fewer than 2^32 distinct terms");
        self.ids.insert(Key::new(folded), Term { id, stemmed: 0 });
        self.parts_at.push(NO_PARTS);
        self.stopword.push(is_stopword(folded));
        self.stems.push([UNSET; LANGS]);
        (id, 0)
    }

    /// Computes the stem of term `id` (folded `folded`) in `lang` from its
    /// spelling `word`: once, or once more when `word` is the first spelling
    /// with accents (the stem of `configuración`, not of `configuracion`).
    fn stem_once(&mut self, id: u32, folded: &str, word: &str, lang: usize, stemmer: &Stemmer) {
        let accented = !word.is_ascii();
        let stemmed = self.ids.get(folded.as_bytes()).map_or(0, |t| t.stemmed);
        if stemmed & (1 << lang) != 0 && (!accented || stemmed & (ACCENTED << lang) != 0) {
            return;
        }
        let lowered = if accented {
            word.to_lowercase()
        } else {
            folded.to_owned()
        };
        let stem_id = match stem_of(stemmer, &lowered) {
            None => NO_STEM,
            Some(stem) => match self.stem_ids.get(stem.as_bytes()) {
                Some(&stem_id) => stem_id,
                None => {
                    let next = u32::try_from(self.stem_ids.len()).expect("fewer than 2^32 stems");
                    self.stem_ids.insert(Key::new(&stem), next);
                    next
                }
            },
        };
        self.stems[id as usize][lang] = stem_id;
        if let Some(term) = self.ids.get_mut(folded.as_bytes()) {
            term.stemmed |= 1 << lang;
            if accented {
                term.stemmed |= ACCENTED << lang;
            }
        }
    }

    /// The id of `word` as written in a page of language `lang`; records its
    /// identifier parts and its stem on first sight. `scratch` is a buffer.
    pub(crate) fn intern(
        &mut self,
        word: &str,
        lang: usize,
        stemmer: &Stemmer,
        scratch: &mut String,
    ) -> u32 {
        if word.is_ascii() {
            // ASCII words fold by lowercasing, cheaper than a cache lookup.
            return self.intern_spelling(word, lang, stemmer, scratch);
        }
        if let Some(&id) = self.spellings[lang].get(word.as_bytes()) {
            return id;
        }
        let id = self.intern_spelling(word, lang, stemmer, scratch);
        self.spellings[lang].insert(Key::new(word), id);
        id
    }

    /// Forgets the spellings cache that speeds up indexing.
    pub(crate) fn end_indexing(&mut self) {
        self.spellings = Default::default();
    }

    /// Prepares the spellings cache for indexing about `pages` pages.
    pub(crate) fn start_indexing(&mut self, pages: usize) {
        let guess = (self.ids.len() / 8).max(pages.min(4096) * 4);
        for map in &mut self.spellings {
            map.reserve(guess);
        }
        if self.ids.is_empty() {
            // A first build: room for a few dozen distinct words per page
            // saves the early rehashes of the term table as it grows.
            self.ids.reserve(pages.min(1 << 16) * 32);
        }
    }

    fn intern_spelling(
        &mut self,
        word: &str,
        lang: usize,
        stemmer: &Stemmer,
        scratch: &mut String,
    ) -> u32 {
        let (id, stemmed) = if word.bytes().all(|b| !b.is_ascii_uppercase()) && word.is_ascii() {
            self.lookup(word)
        } else {
            fold_into(word, scratch);
            self.lookup(scratch)
        };
        if stemmed & (1 << lang) == 0 || (!word.is_ascii() && stemmed & (ACCENTED << lang) == 0) {
            fold_into(word, scratch);
            let folded = std::mem::take(scratch);
            self.stem_once(id, &folded, word, lang, stemmer);
            *scratch = folded;
        }
        if maybe_identifier(word) && self.parts_at[id as usize] == NO_PARTS {
            let split = identifier_parts(word);
            if !split.is_empty() {
                let mut parts = Vec::with_capacity(split.len());
                for part in split {
                    fold_into(part, scratch);
                    let part_id = self.intern_folded(scratch);
                    let folded = std::mem::take(scratch);
                    self.stem_once(part_id, &folded, part, lang, stemmer);
                    *scratch = folded;
                    if !parts.contains(&part_id) && part_id != id {
                        parts.push(part_id);
                    }
                }
                if !parts.is_empty() {
                    self.parts_at[id as usize] =
                        u32::try_from(self.part_lists.len()).expect("fewer than 2^32 parts");
                    self.part_lists
                        .push(u32::try_from(parts.len()).unwrap_or(u32::MAX));
                    self.part_lists.extend(parts);
                }
            }
        }
        id
    }

    /// The id of a folded word, if known.
    pub(crate) fn get(&self, folded: &str) -> Option<u32> {
        self.ids.get(folded.as_bytes()).map(|term| term.id)
    }

    /// The identifier parts of a term.
    pub(crate) fn parts(&self, id: u32) -> &[u32] {
        match self.parts_at.get(id as usize) {
            Some(&at) if at != NO_PARTS => {
                let at = at as usize;
                &self.part_lists[at + 1..at + 1 + self.part_lists[at] as usize]
            }
            _ => &[],
        }
    }

    /// Whether a term is a function word.
    pub(crate) fn is_stopword(&self, id: u32) -> bool {
        self.stopword.get(id as usize).copied().unwrap_or(false)
    }

    /// Rebuilds the stem → terms lists from the terms' stems.
    pub(crate) fn index_stems(&mut self) {
        let stems = self.stem_ids.len();
        for lang in 0..LANGS {
            let mut offsets = vec![0u32; stems + 1];
            for s in &self.stems {
                if let Some(count) = offsets.get_mut(s[lang] as usize + 1) {
                    *count += 1;
                }
            }
            for i in 1..offsets.len() {
                offsets[i] += offsets[i - 1];
            }
            let mut fill = offsets.clone();
            let mut terms = vec![0u32; offsets[stems] as usize];
            for (term, s) in self.stems.iter().enumerate() {
                if let Some(at) = fill.get_mut(s[lang] as usize) {
                    terms[*at as usize] = u32::try_from(term).expect("fewer than 2^32 terms");
                    *at += 1;
                }
            }
            self.stem_offsets[lang] = offsets;
            self.stem_terms[lang] = terms;
        }
    }

    /// The terms of language `lang` whose stem is `stem` (as of the last
    /// [`Dict::index_stems`]).
    pub(crate) fn stem_members(&self, stem: &str, lang: usize) -> &[u32] {
        match self.stem_ids.get(stem.as_bytes()) {
            Some(&s) => self.stem_members_of(s, lang),
            None => &[],
        }
    }

    /// The terms of language `lang` sharing the stem of `word` in that
    /// language: the stem its indexed spelling had when `word` is a known
    /// term (so `configuracion` finds what `configuración` stems with),
    /// else the stem of `word` itself.
    pub(crate) fn stem_group(&self, word: &str, lang: usize, stemmer: &Stemmer) -> &[u32] {
        let mut folded = String::new();
        fold_into(word, &mut folded);
        if let Some(term) = self.ids.get(folded.as_bytes())
            && self.stems[term.id as usize][lang] < UNSET
        {
            return self.stem_members_of(self.stems[term.id as usize][lang], lang);
        }
        match stem_of(stemmer, &word.to_lowercase()) {
            Some(stem) => self.stem_members(&stem, lang),
            None => &[],
        }
    }

    fn stem_members_of(&self, s: u32, lang: usize) -> &[u32] {
        let offsets = &self.stem_offsets[lang];
        match (offsets.get(s as usize), offsets.get(s as usize + 1)) {
            (Some(&from), Some(&to)) => &self.stem_terms[lang][from as usize..to as usize],
            _ => &[],
        }
    }

    /// Number of distinct terms.
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Estimated heap bytes.
    pub(crate) fn heap_bytes(&self) -> usize {
        let entry = std::mem::size_of::<(Key, Term)>() + 1;
        let words: usize = self.ids.keys().map(|k| entry + k.heap()).sum();
        let entry = std::mem::size_of::<(Key, u32)>() + 1;
        let parts = 4 * (self.parts_at.len() + self.part_lists.len());
        let stems = self.stems.len() * (4 * LANGS + 1);
        let stem_words: usize = self.stem_ids.keys().map(|k| entry + k.heap()).sum();
        let members: usize = (0..LANGS)
            .map(|l| 4 * (self.stem_offsets[l].len() + self.stem_terms[l].len()))
            .sum();
        words + parts + stems + stem_words + members
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_and_stems_are_recorded_once_per_word() {
        let mut dict = Dict::default();
        let [en, es] = stemmers();
        let mut scratch = String::new();
        let id = dict.intern("appendLog", ENGLISH, &en, &mut scratch);
        assert_eq!(dict.intern("APPENDLOG", ENGLISH, &en, &mut scratch), id);
        let parts: Vec<_> = dict.parts(id).to_vec();
        assert_eq!(
            parts,
            vec![dict.get("append").unwrap(), dict.get("log").unwrap()]
        );
        let buttons = dict.intern("buttons", ENGLISH, &en, &mut scratch);
        let button = dict.intern("Button", ENGLISH, &en, &mut scratch);
        let revisiones = dict.intern("revisiones", SPANISH, &es, &mut scratch);
        let revision = dict.intern("revisión", SPANISH, &es, &mut scratch);
        dict.end_indexing();
        dict.index_stems();
        assert_eq!(dict.stem_members("button", ENGLISH), &[buttons, button]);
        assert_eq!(
            dict.stem_members("revision", SPANISH),
            &[revisiones, revision]
        );
        assert!(dict.stem_members("revision", ENGLISH).is_empty());
        assert!(dict.is_stopword(dict.get("the").unwrap_or(u32::MAX)) == dict.get("the").is_some());
        let oauth2 = dict.intern("oauth2", ENGLISH, &en, &mut scratch);
        assert_eq!(dict.parts(oauth2), &[dict.get("oauth").unwrap()]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            cases: 1024,
            rng_seed: proptest::test_runner::RngSeed::Fixed(11),
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]
        /// The cheap pre-check never hides a word's parts from the index.
        #[test]
        fn every_word_with_parts_passes_the_pre_check(word in "[a-zA-Z0-9_ÁáÉéñÑ]{1,12}") {
            if !identifier_parts(&word).is_empty() {
                proptest::prop_assert!(maybe_identifier(&word), "{word}");
            }
        }
    }
}

//! RE2 patterns (`ask.pattern`, the `matches` condition) compiled to a small Thompson NFA.
//!
//! The pattern is rewritten by `botmesh-flow-schema` into text `regex-syntax` reads as RE2 does,
//! then `\d`, `\w`, `\s` and `\b` (ASCII-only in RE2, Unicode-aware in `regex-syntax`) are
//! spelled out as ASCII classes, and `regex-syntax` translates it into its HIR (Unicode classes,
//! simple case folding). The runtime only asks whether a text matches (no captures, so
//! greediness does not matter), which a breadth-first simulation of the NFA answers in time
//! linear in the text for a given pattern: no backtracking, no catastrophic pattern.
//!
//! Two bounds keep a hostile pattern from taking the process: a program of at most
//! [`MAX_PROGRAM`] instructions (RE2 refuses patterns that large too), and the work of all
//! matches of one conversation, counted in NFA states visited, at most [`MAX_MATCH_WORK`].

use regex_syntax::hir::{Class, Hir, HirKind, Look};

use botmesh_flow_schema::in_ranges;

/// The most instructions one compiled pattern may have (a counted repetition is unrolled):
/// validation's bound plus the two anchors a whole-reply pattern gets, so a pattern that
/// validates compiles (validation counts at least as many instructions as this compiler
/// emits); kept as a check for sets built around validation.
pub const MAX_PROGRAM: usize = botmesh_flow_schema::MAX_PATTERN_PROGRAM + 2;

/// The most NFA states all the pattern matches of one conversation may visit together.
pub const MAX_MATCH_WORK: u64 = 200_000_000;

/// Why a pattern could not be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The pattern is not RE2 syntax (documents are validated first, so this is unexpected).
    #[error("the pattern {0:?} is not RE2 syntax")]
    Syntax(String),
    /// The compiled pattern would exceed [`MAX_PROGRAM`] instructions.
    #[error("the pattern is too large to run (more than {MAX_PROGRAM} instructions)")]
    TooLarge,
}

#[derive(Debug, Clone)]
enum Inst {
    /// One character in one of the ranges.
    Class(Box<[(char, char)]>),
    /// One given character.
    Char(char),
    /// A zero-width assertion.
    Look(Look),
    /// Go on at both.
    Split(usize, usize),
    /// Go on there.
    Jump(usize),
    /// The pattern matched.
    Match,
}

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    program: Vec<Inst>,
    /// True when the pattern starts with `\A` in every alternative (a search need not restart).
    anchored: bool,
}

impl Pattern {
    /// Compiles an RE2 pattern; `whole` anchors it at both ends (an `ask` reply must match
    /// whole), otherwise it is searched for anywhere (`matches`).
    pub fn new(pattern: &str, whole: bool) -> Result<Self, PatternError> {
        let syntax = || PatternError::Syntax(crate::text::short(pattern, 40));
        let text = botmesh_flow_schema::re2_as_regex_syntax(pattern).ok_or_else(syntax)?;
        let mut text = ascii_perl_classes(&text);
        if whole {
            text = format!(r"\A(?:{text})\z");
        }
        let hir = regex_syntax::ParserBuilder::new()
            .octal(true)
            .nest_limit(1000)
            .build()
            .parse(&text)
            .map_err(|_| syntax())?;
        let mut compiler = Compiler {
            program: Vec::new(),
        };
        compiler.hir(&hir)?;
        compiler.push(Inst::Match)?;
        let anchored = whole || starts_anchored(&hir);
        Ok(Self {
            program: compiler.program,
            anchored,
        })
    }

    /// True when the pattern matches somewhere in `text` (the whole of it for a pattern
    /// compiled with `whole`). `work` is the conversation's budget of states visited; `None`
    /// when it ran out.
    pub fn is_match(&self, text: &str, work: &mut u64) -> Option<bool> {
        let size = self.program.len();
        let mut current = States::new(size);
        let mut next = States::new(size);
        let mut stack = Vec::new();
        let mut previous: Option<char> = None;
        let mut chars = text.chars();
        let mut at_start = true;
        loop {
            let here = chars.clone().next();
            if at_start || !self.anchored {
                let context = Context {
                    previous,
                    next: here,
                };
                if self.add(&mut current, 0, context, &mut stack, work)? {
                    return Some(true);
                }
            }
            at_start = false;
            let Some(c) = chars.next() else {
                return Some(false);
            };
            let after = Context {
                previous: Some(c),
                next: chars.clone().next(),
            };
            next.clear();
            for index in 0..current.list.len() {
                let pc = current.list[index];
                let step = match &self.program[pc] {
                    Inst::Char(want) => *want == c,
                    Inst::Class(ranges) => in_ranges(ranges, c),
                    _ => false,
                };
                if step && self.add(&mut next, pc + 1, after, &mut stack, work)? {
                    return Some(true);
                }
            }
            std::mem::swap(&mut current, &mut next);
            if current.list.is_empty() && self.anchored {
                return Some(false);
            }
            previous = Some(c);
        }
    }

    /// Adds `pc` and what it reaches without reading a character; true when that reaches
    /// `Match`.
    fn add(
        &self,
        states: &mut States,
        pc: usize,
        context: Context,
        stack: &mut Vec<usize>,
        work: &mut u64,
    ) -> Option<bool> {
        stack.push(pc);
        while let Some(pc) = stack.pop() {
            if !states.insert(pc) {
                continue;
            }
            *work = work.checked_sub(1)?;
            match &self.program[pc] {
                Inst::Match => return Some(true),
                Inst::Jump(to) => stack.push(*to),
                Inst::Split(first, second) => {
                    stack.push(*second);
                    stack.push(*first);
                }
                Inst::Look(look) => {
                    if context.holds(*look) {
                        stack.push(pc + 1);
                    }
                }
                Inst::Char(_) | Inst::Class(_) => {}
            }
        }
        Some(false)
    }
}

/// What a witness search may learn about a character: the four kinds of character the
/// assertions (`^`, `$`, `\b`, …) tell apart, and the end of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    /// No character: the end of the text (as a next character only).
    End,
    /// An ASCII word character (`[0-9A-Za-z_]`).
    Word,
    /// `\n`.
    Newline,
    /// `\r`.
    Return,
    /// Any other character.
    Other,
}

impl Kind {
    const CHARACTERS: [Self; 4] = [Self::Word, Self::Other, Self::Newline, Self::Return];

    fn of(c: char) -> Self {
        match c {
            '\n' => Self::Newline,
            '\r' => Self::Return,
            c if c.is_ascii_alphanumeric() || c == '_' => Self::Word,
            _ => Self::Other,
        }
    }

    /// A character of this kind, as [`Context::holds`] reads it.
    fn sample(self) -> Option<char> {
        match self {
            Self::End => None,
            Self::Word => Some('a'),
            Self::Newline => Some('\n'),
            Self::Return => Some('\r'),
            Self::Other => Some(' '),
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// Every kind a next character may have.
const ANY_NEXT: u8 = 0b1_1111;

/// Word characters tried first when a class offers them, most readable first.
const WORD_CHARACTERS: &str = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_";
/// Other characters tried first when a class offers them (a space comes last: a reply is
/// trimmed, so a witness should not end in one).
const OTHER_CHARACTERS: &str = ".-,/#@+:!?'()ñéáíóú ";

/// A character of kind `kind` in `ranges` (a readable one when there is one).
fn sample_in(ranges: &[(char, char)], kind: Kind) -> Option<char> {
    let preferred = match kind {
        Kind::Word => WORD_CHARACTERS,
        Kind::Other => OTHER_CHARACTERS,
        Kind::Newline => "\n",
        Kind::Return => "\r",
        Kind::End => return None,
    };
    if let Some(c) = preferred.chars().find(|&c| in_ranges(ranges, c)) {
        return Some(c);
    }
    if kind != Kind::Other {
        return None;
    }
    // Any other character of the class: a printable one first, then any.
    let candidates = |printable: bool| {
        ranges.iter().find_map(|&(low, high)| {
            (u32::from(low)..=u32::from(high))
                .take(256)
                .filter_map(char::from_u32)
                .find(|&c| Kind::of(c) == Kind::Other && (!printable || !c.is_control()))
        })
    };
    candidates(true).or_else(|| candidates(false))
}

/// One state of the witness search: a program counter, how much of the prefix is read (all
/// of it once the text goes past it), the
/// kind of the previous character (`None` at the start) and the kinds the next one may have.
type WitnessState = (usize, usize, Option<Kind>, u8);

impl Pattern {
    /// The shortest text that starts with `prefix` and that this pattern matches (whole, or
    /// somewhere for a search), found by a breadth-first search of the compiled program, the
    /// same one [`Pattern::is_match`] runs, then checked by it. Each character read is
    /// picked from its class (a readable one first: a letter, a digit, a space); assertions
    /// are followed by the kinds of character around them. `None` when no such text exists
    /// or the search visits more than `budget` states (each counted in `work`).
    pub fn witness(&self, prefix: &str, budget: usize, work: &mut usize) -> Option<String> {
        use std::collections::{HashSet, VecDeque};
        let prefix: Vec<char> = prefix.chars().collect();
        // Every state reached, with the state it came from and the character read on the way.
        let mut states: Vec<(WitnessState, Option<usize>, Option<char>)> = Vec::new();
        let mut seen: HashSet<WitnessState> = HashSet::new();
        let mut queue: VecDeque<usize> = VecDeque::new();
        let mut visit = |state: WitnessState,
                         parent: Option<usize>,
                         read: Option<char>,
                         front: bool,
                         states: &mut Vec<(WitnessState, Option<usize>, Option<char>)>,
                         queue: &mut VecDeque<usize>| {
            if seen.insert(state) {
                states.push((state, parent, read));
                if front {
                    queue.push_front(states.len() - 1);
                } else {
                    queue.push_back(states.len() - 1);
                }
            }
        };
        // A search may start its match after any part of the prefix.
        let starts = if self.anchored { 1 } else { prefix.len() + 1 };
        for skipped in 0..starts {
            let previous = skipped.checked_sub(1).map(|i| Kind::of(prefix[i]));
            visit(
                (0, skipped, previous, ANY_NEXT),
                None,
                None,
                false,
                &mut states,
                &mut queue,
            );
        }
        let mut popped = 0;
        while let Some(index) = queue.pop_front() {
            popped += 1;
            *work += 1;
            if popped > budget {
                return None;
            }
            let ((pc, read, previous, next), _, _) = states[index];
            let mut step = |c: char, states: &mut Vec<_>, queue: &mut VecDeque<usize>| {
                let kind = Kind::of(c);
                if next & kind.bit() != 0 {
                    let read = (read + 1).min(prefix.len());
                    let state = (pc + 1, read, Some(kind), ANY_NEXT);
                    visit(state, Some(index), Some(c), false, states, queue);
                }
            };
            match &self.program[pc] {
                Inst::Match => {
                    // The text ends here, or goes on with the rest of the prefix (a match
                    // need not reach the text's end unless the pattern says `\z`, whose
                    // assertion left `next` at the end only).
                    let follows = prefix.get(read).map_or(Kind::End, |&c| Kind::of(c));
                    if next & follows.bit() != 0 {
                        let mut text = Self::spell(&states, index, &prefix);
                        text.extend(&prefix[read..]);
                        let mut work = MAX_MATCH_WORK;
                        // The kinds of character are a sample of what an assertion tells
                        // apart; a text the matcher refuses is passed over, not the end.
                        if self.is_match(&text, &mut work) == Some(true) {
                            return Some(text);
                        }
                    }
                }
                Inst::Jump(to) => {
                    let state = (*to, read, previous, next);
                    visit(state, Some(index), None, true, &mut states, &mut queue);
                }
                Inst::Split(first, second) => {
                    for to in [*second, *first] {
                        let state = (to, read, previous, next);
                        visit(state, Some(index), None, true, &mut states, &mut queue);
                    }
                }
                Inst::Look(look) => {
                    let mut allowed = 0;
                    for kind in [
                        Kind::End,
                        Kind::Word,
                        Kind::Newline,
                        Kind::Return,
                        Kind::Other,
                    ] {
                        let context = Context {
                            previous: previous.and_then(Kind::sample),
                            next: kind.sample(),
                        };
                        if next & kind.bit() != 0 && context.holds(*look) {
                            allowed |= kind.bit();
                        }
                    }
                    if allowed != 0 {
                        let state = (pc + 1, read, previous, allowed);
                        visit(state, Some(index), None, true, &mut states, &mut queue);
                    }
                }
                Inst::Char(want) => {
                    if prefix.get(read).is_none_or(|c| c == want) {
                        step(*want, &mut states, &mut queue);
                    }
                }
                Inst::Class(ranges) => match prefix.get(read) {
                    Some(&c) => {
                        if in_ranges(ranges, c) {
                            step(c, &mut states, &mut queue);
                        }
                    }
                    None => {
                        for kind in Kind::CHARACTERS {
                            if let Some(c) = sample_in(ranges, kind) {
                                step(c, &mut states, &mut queue);
                            }
                        }
                    }
                },
            }
        }
        None
    }

    /// The characters a text this pattern matches can begin with (for a search: its match),
    /// in program order: each character the program can read first and, for a class, one of
    /// each kind it offers (a word character, another one, a line break); at most `limit`.
    /// A witness after each is a set of texts that take different alternatives.
    pub fn first_characters(&self, limit: usize) -> Vec<char> {
        let mut out: Vec<char> = Vec::new();
        let mut stack = vec![0];
        let mut seen = vec![false; self.program.len()];
        while let Some(pc) = stack.pop() {
            if std::mem::replace(&mut seen[pc], true) {
                continue;
            }
            let mut push = |c: char| {
                if !out.contains(&c) {
                    out.push(c);
                }
            };
            match &self.program[pc] {
                Inst::Char(c) => push(*c),
                Inst::Class(ranges) => {
                    for kind in Kind::CHARACTERS {
                        if let Some(c) = sample_in(ranges, kind) {
                            push(c);
                        }
                    }
                }
                Inst::Split(first, second) => {
                    stack.push(*second);
                    stack.push(*first);
                }
                Inst::Jump(to) => stack.push(*to),
                Inst::Look(_) => stack.push(pc + 1),
                Inst::Match => {}
            }
        }
        out.truncate(limit);
        out
    }

    /// The text read on the way to state `index`: the prefix skipped before the match began,
    /// then every character read.
    fn spell(
        states: &[(WitnessState, Option<usize>, Option<char>)],
        mut index: usize,
        prefix: &[char],
    ) -> String {
        let mut read = Vec::new();
        loop {
            let ((_, at, _, _), parent, c) = states[index];
            if let Some(c) = c {
                read.push(c);
            }
            match parent {
                Some(parent) => index = parent,
                None => {
                    let mut text: String = prefix[..at].iter().collect();
                    text.extend(read.iter().rev());
                    return text;
                }
            }
        }
    }
}

/// The characters around a position of the text.
#[derive(Debug, Clone, Copy)]
struct Context {
    previous: Option<char>,
    next: Option<char>,
}

impl Context {
    fn holds(self, look: Look) -> bool {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let (before, after) = (word(self.previous), word(self.next));
        match look {
            Look::Start => self.previous.is_none(),
            Look::End => self.next.is_none(),
            Look::StartLF => matches!(self.previous, None | Some('\n')),
            Look::EndLF => matches!(self.next, None | Some('\n')),
            Look::StartCRLF => {
                matches!(self.previous, None | Some('\n'))
                    || (self.previous == Some('\r') && self.next != Some('\n'))
            }
            Look::EndCRLF => {
                matches!(self.next, None | Some('\r'))
                    || (self.next == Some('\n') && self.previous != Some('\r'))
            }
            // RE2's word boundaries are ASCII; `\b` is spelled `(?-u:\b)` before parsing.
            Look::WordAscii | Look::WordUnicode => before != after,
            Look::WordAsciiNegate | Look::WordUnicodeNegate => before == after,
            Look::WordStartAscii | Look::WordStartUnicode => !before && after,
            Look::WordEndAscii | Look::WordEndUnicode => before && !after,
            Look::WordStartHalfAscii | Look::WordStartHalfUnicode => !before,
            Look::WordEndHalfAscii | Look::WordEndHalfUnicode => !after,
        }
    }
}

/// A set of program counters with insertion order (a sparse set, cleared in O(1)).
struct States {
    list: Vec<usize>,
    seen: Vec<u32>,
    generation: u32,
}

impl States {
    fn new(size: usize) -> Self {
        Self {
            list: Vec::new(),
            seen: vec![0; size],
            generation: 1,
        }
    }

    fn clear(&mut self) {
        self.list.clear();
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.generation = 1;
        }
    }

    fn insert(&mut self, pc: usize) -> bool {
        if self.seen[pc] == self.generation {
            return false;
        }
        self.seen[pc] = self.generation;
        self.list.push(pc);
        true
    }
}

struct Compiler {
    program: Vec<Inst>,
}

impl Compiler {
    fn push(&mut self, inst: Inst) -> Result<usize, PatternError> {
        if self.program.len() >= MAX_PROGRAM {
            return Err(PatternError::TooLarge);
        }
        self.program.push(inst);
        Ok(self.program.len() - 1)
    }

    fn hir(&mut self, hir: &Hir) -> Result<(), PatternError> {
        match hir.kind() {
            HirKind::Empty => {}
            HirKind::Literal(literal) => {
                for c in String::from_utf8_lossy(&literal.0).chars() {
                    self.push(Inst::Char(c))?;
                }
            }
            HirKind::Class(Class::Unicode(class)) => {
                let ranges = class
                    .ranges()
                    .iter()
                    .map(|r| (r.start(), r.end()))
                    .collect();
                self.push(Inst::Class(ranges))?;
            }
            HirKind::Class(Class::Bytes(class)) => {
                // Only ASCII bytes can come out of an RE2 pattern here; they are characters.
                let ranges = class
                    .ranges()
                    .iter()
                    .filter(|r| r.start() < 0x80)
                    .map(|r| (char::from(r.start()), char::from(r.end().min(0x7f))))
                    .collect();
                self.push(Inst::Class(ranges))?;
            }
            HirKind::Look(look) => {
                self.push(Inst::Look(*look))?;
            }
            HirKind::Capture(capture) => self.hir(&capture.sub)?,
            HirKind::Concat(items) => {
                for item in items {
                    self.hir(item)?;
                }
            }
            HirKind::Alternation(items) => {
                // split L1, L2 / L1: a; jump end / L2: split …
                let mut jumps = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    if index + 1 < items.len() {
                        let split = self.push(Inst::Split(0, 0))?;
                        self.hir(item)?;
                        jumps.push(self.push(Inst::Jump(0))?);
                        let next = self.program.len();
                        self.program[split] = Inst::Split(split + 1, next);
                    } else {
                        self.hir(item)?;
                    }
                }
                let end = self.program.len();
                for jump in jumps {
                    self.program[jump] = Inst::Jump(end);
                }
            }
            HirKind::Repetition(repetition) => {
                let sub = &repetition.sub;
                for _ in 0..repetition.min {
                    self.hir(sub)?;
                }
                match repetition.max {
                    None => {
                        // L: split body, out / body / jump L
                        let split = self.push(Inst::Split(0, 0))?;
                        self.hir(sub)?;
                        self.push(Inst::Jump(split))?;
                        let out = self.program.len();
                        self.program[split] = Inst::Split(split + 1, out);
                    }
                    Some(max) => {
                        // Each optional copy may be skipped to the very end.
                        let mut splits = Vec::new();
                        for _ in repetition.min..max {
                            splits.push(self.push(Inst::Split(0, 0))?);
                            self.hir(sub)?;
                        }
                        let out = self.program.len();
                        for split in splits {
                            self.program[split] = Inst::Split(split + 1, out);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// True when every way through `hir` starts with `\A`.
fn starts_anchored(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Look(Look::Start) => true,
        HirKind::Capture(capture) => starts_anchored(&capture.sub),
        HirKind::Concat(items) => items.first().is_some_and(starts_anchored),
        HirKind::Alternation(items) => items.iter().all(starts_anchored),
        _ => false,
    }
}

/// Spells RE2's ASCII-only Perl classes and word boundaries out for `regex-syntax`:
/// `\d` `[0-9]`, `\w` `[0-9A-Za-z_]`, `\s` `[\t\n\f\r ]` (RE2's `\s` has no `\v`), their
/// negations, and `\b`/`\B` as ASCII boundaries. Inside a bracketed class the spelled class is
/// a nested class, which `regex-syntax` reads as its union.
fn ascii_perl_classes(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str(r"[\t\n\f\r ]"),
            Some('S') => out.push_str(r"[^\t\n\f\r ]"),
            Some('b') => out.push_str(r"(?-u:\b)"),
            Some('B') => out.push_str(r"(?-u:\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search(pattern: &str, text: &str) -> bool {
        let mut work = MAX_MATCH_WORK;
        Pattern::new(pattern, false)
            .unwrap()
            .is_match(text, &mut work)
            .unwrap()
    }

    fn whole(pattern: &str, text: &str) -> bool {
        let mut work = MAX_MATCH_WORK;
        Pattern::new(pattern, true)
            .unwrap()
            .is_match(text, &mut work)
            .unwrap()
    }

    #[test]
    fn searches_and_whole_matches() {
        assert!(search("b+", "abbbc"));
        assert!(!search("^b", "abc"));
        assert!(search("c$", "abc"));
        assert!(whole("^.{8,200}$", "Calle 5 #10"));
        assert!(!whole("^.{8,200}$", "short"));
        assert!(whole("a|ab", "ab"));
        assert!(!whole("a", "ab"));
        assert!(whole("(a|b)*c", "ababc"));
        assert!(whole("x{2,3}", "xxx"));
        assert!(!whole("x{2,3}", "xxxx"));
        assert!(whole("", ""));
        assert!(whole("a?", ""));
        assert!(search("", "anything"));
    }

    #[test]
    fn perl_classes_and_boundaries_are_ascii() {
        assert!(whole(r"\d+", "123"));
        assert!(!whole(r"\d", "٣"));
        assert!(!whole(r"\w", "ñ"));
        assert!(whole(r"\W", "ñ"));
        assert!(whole(r"[\d.]+", "1.5"));
        assert!(!whole(r"\s", "\u{a0}"));
        assert!(!whole(r"\s", "\u{b}"));
        assert!(whole(r"\s", "\t"));
        // `ñ` is not a word character for RE2: a boundary lies between `a` and `ñ`.
        assert!(search(r"a\b", "añ"));
        assert!(!search(r"a\b", "ab"));
        assert!(search(r"\Bb", "ab"));
    }

    #[test]
    fn unicode_classes_case_folding_and_re2_spellings() {
        assert!(whole(r"\pL+", "ñandú"));
        assert!(whole(r"\p{Greek}+", "αβγ"));
        assert!(!whole("(?i)straße", "STRASSE"));
        assert!(whole("(?i)ñ", "Ñ"));
        assert!(
            whole("a{,2}", "a{,2}"),
            "RE2: a brace that starts no count is literal"
        );
        assert!(whole(r"\Qa.b\E", "a.b"));
        assert!(!whole(r"\Qa.b\E", "axb"));
        assert!(whole("[[:digit:]]+", "42"));
        assert!(whole(".", "é"));
        assert!(!whole(".", "\n"));
        assert!(whole("(?s).", "\n"));
        assert!(search("(?m)^b", "a\nb"));
    }

    /// Validation's count of instructions (`flow-schema`) is never below this compiler's, so
    /// every pattern that validates compiles, anchored or not; at the bound, one more character
    /// is refused by both.
    #[test]
    fn every_pattern_validation_accepts_compiles() {
        let validates = |pattern: &str| {
            let document = serde_json::json!({ "version": 2, "id": "f", "steps": [
                { "id": "a", "kind": "ask", "text": "?", "input": "text", "pattern": pattern, "save": "x" },
                { "id": "e", "kind": "end" }
            ]});
            botmesh_flow_schema::validate(&document).valid
        };
        let mut accepted = 0;
        let mut refused = 0;
        for body in [
            "a",
            "ab|c",
            "[a-z]\\d",
            "(?i)x|y|z",
            "a?b*",
            "(ab)+",
            "\\bw{3}\\b",
        ] {
            for repeat in [1, 9, 10, 100] {
                let body = body.repeat(repeat);
                for count in [1, 10, 100, 999, 1000] {
                    let pattern = format!("(?:{body}){{{count}}}");
                    if validates(&pattern) {
                        accepted += 1;
                        for whole in [true, false] {
                            assert!(Pattern::new(&pattern, whole).is_ok(), "{pattern}");
                        }
                    } else {
                        refused += 1;
                    }
                }
            }
        }
        assert!(accepted > 50 && refused > 5, "{accepted} {refused}");
        let fits = format!("({}){{1000}}", "a".repeat(99));
        assert!(validates(&fits));
        let over = format!("({}){{1000}}", "a".repeat(100));
        assert!(!validates(&over));
        assert!(matches!(
            Pattern::new(&format!("({}){{1001}}", "a".repeat(100)), false),
            Err(PatternError::TooLarge)
        ));
    }

    fn witness(pattern: &str, whole: bool, prefix: &str) -> Option<String> {
        let mut work = 0;
        Pattern::new(pattern, whole)
            .unwrap()
            .witness(prefix, 100_000, &mut work)
    }

    /// The witness search finds the shortest text the matcher accepts, readable where the
    /// class allows it, honouring assertions, or says there is none.
    #[test]
    fn witnesses_are_short_readable_and_accepted() {
        let cases: &[(&str, bool, &str, Option<&str>)] = &[
            ("^.{8,200}$", true, "", Some("aaaaaaaa")),
            ("^[0-9]{8}[A-Z]$", true, "", Some("00000000A")),
            ("^(08|28)[0-9]{3}$", true, "", Some("28000")),
            ("^(08|28)[0-9]{3}$", true, "28", Some("28000")),
            ("^INV-\\d{6}$", true, "", Some("INV-000000")),
            ("^\\S+@\\S+$", true, "", Some("a@a")),
            ("(?i)^hola", false, "", Some("hola")),
            ("a\\b", false, "", Some("a")),
            ("a\\bb", false, "", None),
            ("^$", true, "x", None),
            ("[^a-zA-Z0-9_]", true, "", Some(".")),
            ("[ \\t]", true, "", Some(" ")),
            ("x$", false, "abc", Some("abcx")),
            ("^Z[0-9]{3}$", false, "", Some("Z000")),
            ("(?m)^b$\\n^c", false, "", Some("b\nc")),
            // Anchored at the start only: the match may end inside the prefix.
            ("^ab", false, "abc", Some("abc")),
            ("^ab", true, "abc", None),
        ];
        for &(pattern, whole, prefix, expected) in cases {
            let found = witness(pattern, whole, prefix);
            assert_eq!(found.as_deref(), expected, "{pattern} after {prefix:?}");
            if let Some(text) = found {
                let mut work = MAX_MATCH_WORK;
                let compiled = Pattern::new(pattern, whole).unwrap();
                assert_eq!(compiled.is_match(&text, &mut work), Some(true));
            }
        }
        let firsts = |pattern: &str| Pattern::new(pattern, true).unwrap().first_characters(4);
        assert_eq!(firsts("^(08|28)[0-9]{3}$"), ['0', '2']);
        assert_eq!(firsts("(yes|no|maybe)"), ['y', 'n', 'm']);
        assert_eq!(firsts("^.+$"), ['a', '.', '\r']);
        // A budget too small for the pattern finds nothing, and says how much it looked.
        let mut work = 0;
        let long = Pattern::new("^a{900}$", true).unwrap();
        assert_eq!(long.witness("", 100, &mut work), None);
        assert_eq!(work, 101);
    }

    #[test]
    fn hostile_patterns_are_bounded() {
        assert!(matches!(
            Pattern::new("((a{1000}){1000}){1000}", false),
            Err(PatternError::TooLarge | PatternError::Syntax(_))
        ));
        let pattern = Pattern::new("(a|a)*(a|a)*(a|a)*b", true).unwrap();
        let mut work = MAX_MATCH_WORK;
        assert_eq!(
            pattern.is_match(&"a".repeat(10_000), &mut work),
            Some(false)
        );
        let mut tiny = 10;
        assert_eq!(pattern.is_match(&"a".repeat(10_000), &mut tiny), None);
    }
}

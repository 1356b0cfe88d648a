//! Tests of reading a page in parts.

use super::{PageSlice, slice_page};
use proptest::prelude::*;

#[test]
fn a_page_that_fits_is_returned_whole() {
    let page = "# T\n\nbody\n";
    assert_eq!(
        slice_page(page, 0, 100).unwrap(),
        PageSlice {
            text: page,
            offset: 0,
            total: 10,
            next: None
        }
    );
}

#[test]
fn a_cut_ends_after_the_last_whole_line_that_fits() {
    let page = "one\ntwo\nthree\n";
    let part = slice_page(page, 0, 9).unwrap();
    assert_eq!((part.text, part.next), ("one\ntwo\n", Some(8)));
    let rest = slice_page(page, 8, 9).unwrap();
    assert_eq!((rest.text, rest.offset, rest.next), ("three\n", 8, None));
}

#[test]
fn an_offset_inside_a_line_is_honoured() {
    let page = "one\ntwo\nthree\n";
    let part = slice_page(page, 10, 100).unwrap();
    assert_eq!((part.text, part.offset), ("ree\n", 10));
}

#[test]
fn a_line_longer_than_the_length_is_cut_inside_and_counted_in_characters() {
    let page = "ñandú ñandú\nfin\n";
    let part = slice_page(page, 0, 4).unwrap();
    assert_eq!((part.text, part.next), ("ñand", Some(4)));
    let rest = slice_page(page, 4, 8).unwrap();
    assert_eq!((rest.text, rest.next), ("ú ñandú\n", Some(12)));
    let end = slice_page(page, 12, 4).unwrap();
    assert_eq!((end.text, end.offset, end.next), ("fin\n", 12, None));
}

#[test]
fn an_offset_past_the_end_is_an_error_and_the_end_itself_is_empty() {
    let error = slice_page("abc\n", 5, 10).unwrap_err();
    assert_eq!(
        error.to_string(),
        "offset 5 is past the end of the page (4 characters)"
    );
    let end = slice_page("abc\n", 4, 10).unwrap();
    assert_eq!((end.text, end.offset, end.next), ("", 4, None));
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x51ce),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn following_next_reads_every_character_once_in_bounded_parts(
        page in "(\\PC{0,30}\n){0,12}\\PC{0,30}",
        length in 1usize..40,
    ) {
        let mut read = String::new();
        let mut offset = 0;
        loop {
            let part = slice_page(&page, offset, length).unwrap();
            prop_assert_eq!(part.offset, offset);
            prop_assert_eq!(part.total, page.chars().count());
            prop_assert!(part.text.chars().count() <= length);
            read.push_str(part.text);
            match part.next {
                Some(next) => {
                    prop_assert!(next > offset, "no progress at {}", offset);
                    let whole_line = part.text.ends_with('\n');
                    let long_line = !part.text.contains('\n');
                    prop_assert!(whole_line || long_line, "cut inside a line: {:?}", part.text);
                    offset = next;
                }
                None => break,
            }
        }
        prop_assert_eq!(read, page);
    }
}

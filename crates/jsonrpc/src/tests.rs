//! Framing and processing tests: what a client on the other end of the pipe relies on.

use crate::{
    DEFAULT_MAX_MESSAGE_LENGTH, Frame, LineFramer, Message, Response, parse_message, process_frame,
    read_frames, too_long,
};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::io::Read;
use std::ops::ControlFlow;

/// A handler that answers every request with `{"echo": method}` and every method `fail` with an
/// error; notifications are recorded.
fn echo(message: Message) -> Option<Response> {
    match message {
        Message::Request(request) => Some(Response::result(
            request.id,
            json!({ "echo": request.method, "params": request.params }),
        )),
        Message::Notification(_) => Some(Response::result(
            crate::Id::String("bogus".into()),
            json!({}),
        )),
    }
}

/// Runs a whole stream, cut into the given chunk sizes (cycled), and returns the answer lines.
fn run_chunked(input: &[u8], sizes: &[usize], max: usize) -> Vec<String> {
    let mut framer = LineFramer::new(max);
    let mut out = Vec::new();
    let mut on_frame = |frame: Frame| {
        if let Some(line) = process_frame(frame, max, &mut echo) {
            out.push(line);
        }
    };
    let mut rest = input;
    let mut i = 0;
    while !rest.is_empty() {
        let size = sizes[i % sizes.len()].clamp(1, rest.len());
        framer.push(&rest[..size], &mut on_frame);
        rest = &rest[size..];
        i += 1;
    }
    framer.finish(&mut on_frame);
    out
}

fn run(input: &str) -> Vec<Value> {
    run_chunked(input.as_bytes(), &[usize::MAX], DEFAULT_MAX_MESSAGE_LENGTH)
        .iter()
        .map(|line| serde_json::from_str(line).expect("answers are JSON"))
        .collect()
}

#[test]
fn one_message_per_line_crlf_and_last_line_without_newline() {
    let answers = run(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\r\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"b\"}",
    );
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["id"], json!(1));
    assert_eq!(answers[0]["result"]["echo"], "a");
    assert_eq!(answers[1]["id"], json!("x"), "string ids stay strings");
}

#[test]
fn malformed_line_answers_parse_error_with_null_id_and_session_continues() {
    let answers = run("{not json\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ok\"}\n");
    assert_eq!(answers[0]["error"]["code"], -32700);
    assert_eq!(answers[0]["id"], Value::Null);
    assert_eq!(answers[1]["result"]["echo"], "ok");
}

#[test]
fn structurally_invalid_requests_answer_invalid_request() {
    let cases = [
        (r#"{"jsonrpc":"1.0","id":1,"method":"a"}"#, json!(1)),
        (r#"{"id":1,"method":"a"}"#, json!(1)),
        (r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":{},"method":"a"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":1.5,"method":"a"}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":3,"method":7}"#, json!(3)),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"a","params":"x"}"#,
            json!(3),
        ),
        (r#"{"jsonrpc":"2.0","id":4}"#, json!(4)),
        ("42", Value::Null),
        ("\"text\"", Value::Null),
    ];
    for (line, id) in cases {
        let answers = run(line);
        assert_eq!(answers.len(), 1, "{line}");
        assert_eq!(answers[0]["error"]["code"], -32600, "{line}");
        assert_eq!(answers[0]["id"], id, "{line}");
    }
}

#[test]
fn notifications_and_peer_responses_are_never_answered() {
    let answers = run(concat!(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"error\":{\"code\":1,\"message\":\"x\"}}\n",
    ));
    assert!(answers.is_empty(), "{answers:?}");
}

#[test]
fn batches() {
    let answers = run(concat!(
        r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":2,"method":"b"},5]"#,
        "\n",
        r#"[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","method":"m"}]"#,
        "\n[]\n"
    ));
    assert_eq!(
        answers.len(),
        2,
        "the all-notification batch gets no answer: {answers:?}"
    );
    let batch = answers[0]
        .as_array()
        .expect("a batch answers with an array");
    assert_eq!(batch.len(), 3, "notifications are left out");
    assert_eq!(batch[0]["id"], 1);
    assert_eq!(batch[1]["id"], 2);
    assert_eq!(batch[2]["error"]["code"], -32600);
    assert_eq!(
        answers[1]["error"]["code"], -32600,
        "[] is an invalid request"
    );
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    let out = run_chunked(b"{\"a\":\"\xff\"}\n", &[3], 100);
    assert_eq!(out.len(), 1);
    assert!(out[0].contains("-32700"));
}

/// What a line of `bytes` is answered, or `None` when `parse_message` finds a message in them.
fn answer_to_a_whole_message(bytes: &[u8]) -> Option<String> {
    parse_message(bytes).err().map(|answer| answer.to_line())
}

#[test]
fn a_whole_message_that_is_not_one_gets_the_answer_of_the_same_line() {
    for bytes in [
        &b"{\"jsonrpc\":"[..],
        b"42",
        b"\"text\"",
        b"null",
        b"{\"a\":\"\xff\"}",
        b"{\"a\": 1,}",
        b"\xef\xbb\xbf[]x",
    ] {
        let answer = answer_to_a_whole_message(bytes).expect("no message");
        let mut line = bytes.to_vec();
        line.push(b'\n');
        assert_eq!(run_chunked(&line, &[5], 100), vec![answer], "{bytes:?}");
    }
    let expected = [
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: EOF while parsing a value at line 1 column 11"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message must be a JSON object"}}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid UTF-8"}}"#,
    ];
    let shown = [&b"{\"jsonrpc\":"[..], b"42", b"{\"a\":\"\xff\"}"].map(answer_to_a_whole_message);
    assert_eq!(
        shown.map(Option::unwrap_or_default),
        expected.map(str::to_owned)
    );
    assert_eq!(parse_message(b"[1]").ok(), Some(json!([1])));
    assert_eq!(
        too_long(64, "bytes").to_line(),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: message longer than 64 bytes"}}"#
    );
}

#[test]
fn long_line_is_refused_and_the_next_line_is_served() {
    let max = 64;
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{}\"}}\n",
        "x".repeat(100)
    );
    let ok = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ok\"}\n";
    let input = format!("{long}{ok}");
    for sizes in [&[1usize][..], &[7], &[1000]] {
        let out = run_chunked(input.as_bytes(), sizes, max);
        assert_eq!(out.len(), 2, "{sizes:?}: {out:?}");
        assert!(out[0].contains("-32600") && out[0].contains("\"id\":null"));
        assert!(out[1].contains("\"echo\":\"ok\""));
    }
}

#[test]
fn limit_counts_characters_not_bytes() {
    // 10 characters of two bytes each: 20 bytes, but within a 12-character limit with quotes.
    let line = format!("\"{}\"\n", "é".repeat(10));
    let out = run_chunked(line.as_bytes(), &[1], 12);
    assert!(!out[0].contains("longer than"), "{out:?}");
    let out = run_chunked(line.as_bytes(), &[1], 11);
    assert!(
        out[0].contains("message longer than 11 characters"),
        "{out:?}"
    );
}

/// A reader producing one huge line without a newline, then a good message.
struct HugeLine {
    remaining: usize,
    tail: &'static [u8],
}

impl Read for HugeLine {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.remaining > 0 {
            let n = buf.len().min(self.remaining);
            buf[..n].fill(b'a');
            self.remaining -= n;
            return Ok(n);
        }
        let n = buf.len().min(self.tail.len());
        buf[..n].copy_from_slice(&self.tail[..n]);
        self.tail = &self.tail[n..];
        Ok(n)
    }
}

#[test]
fn a_200_mib_line_is_never_buffered_beyond_the_limit_plus_one_read() {
    let max = DEFAULT_MAX_MESSAGE_LENGTH;
    let mut reader = HugeLine {
        remaining: 200 * 1024 * 1024,
        tail: b"\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"after\"}\n",
    };
    let mut framer = LineFramer::new(max);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut out = Vec::new();
    let mut peak = 0;
    loop {
        let n = reader.read(&mut chunk).expect("in-memory reader");
        if n == 0 {
            break;
        }
        framer.push(&chunk[..n], &mut |frame| {
            out.extend(process_frame(frame, max, &mut echo));
        });
        peak = peak.max(framer.buffered_len());
    }
    framer.finish(&mut |frame| out.extend(process_frame(frame, max, &mut echo)));
    assert!(peak <= max + chunk.len(), "peak buffer {peak} bytes");
    assert_eq!(
        out.len(),
        2,
        "{:?}",
        out.iter()
            .map(|l| &l[..l.len().min(80)])
            .collect::<Vec<_>>()
    );
    assert!(out[0].contains("-32600"));
    assert!(out[1].contains("\"echo\":\"after\""));
}

#[test]
fn read_frames_stops_on_break() {
    let input = b"{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n";
    let mut seen = 0;
    read_frames(&input[..], 100, |_| {
        seen += 1;
        if seen == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .expect("in-memory reader");
    assert_eq!(seen, 2);
}

#[test]
fn large_integer_ids_are_echoed_exactly() {
    let answers = run_chunked(
        b"{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"method\":\"a\"}\n",
        &[5],
        1000,
    );
    assert!(
        answers[0].starts_with("{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,"),
        "{answers:?}"
    );
}

fn message_strategy() -> impl Strategy<Value = String> {
    let text = "[a-z\u{e9}\u{1F600}\n\r\u{2028} \"\\\\]{0,12}";
    prop_oneof![
        (any::<u32>(), text).prop_map(|(id, method)| {
            json!({"jsonrpc":"2.0","id":id,"method":method,"params":{"t":method}}).to_string()
        }),
        text.prop_map(|method| json!({"jsonrpc":"2.0","method":method}).to_string()),
        (any::<u32>(), text).prop_map(|(id, s)| {
            json!([{"jsonrpc":"2.0","id":id,"method":s},{"jsonrpc":"2.0","method":"n"}]).to_string()
        }),
        "[^\n]{0,20}",
        Just(String::new()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed), ..ProptestConfig::default() })]

    /// The answers never depend on how the stream is cut into reads (UTF-8 characters split,
    /// `\r\n`, a last line without newline).
    #[test]
    fn chunking_never_changes_the_answers(
        messages in proptest::collection::vec(message_strategy(), 0..12),
        crlf in any::<bool>(),
        trailing_newline in any::<bool>(),
        sizes in proptest::collection::vec(1usize..40, 1..8),
    ) {
        let sep = if crlf { "\r\n" } else { "\n" };
        let mut input = messages.join(sep);
        if trailing_newline { input.push_str(sep); }
        let whole = run_chunked(input.as_bytes(), &[usize::MAX], 200);
        let cut = run_chunked(input.as_bytes(), &sizes, 200);
        prop_assert_eq!(whole, cut);
    }

    /// Arbitrary bytes never panic, and every answer is one JSON value on one line.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300), sizes in proptest::collection::vec(1usize..17, 1..4)) {
        for line in run_chunked(&bytes, &sizes, 50) {
            prop_assert!(!line.contains('\n'));
            prop_assert!(serde_json::from_str::<Value>(&line).is_ok());
        }
    }

    /// Whatever the strings hold, the line is one line for Python's `str.splitlines()` (which
    /// breaks on U+000A-U+000D, U+001C-U+001E, U+0085, U+2028 and U+2029) and the same value;
    /// a string without those characters is written exactly as serde_json writes it.
    #[test]
    fn a_line_never_holds_a_line_separator(text in "[a\u{2028}\u{2029}\u{85}\u{84}\u{b}\u{c}\u{1c}-\u{1e}\u{e2}\u{2027}\u{202a}\u{20ac}\n\r]{0,16}") {
        let value = json!({"jsonrpc":"2.0","id":1,"result":{ text.clone(): [text.clone()] }});
        let line = crate::to_json_line(&value);
        prop_assert!(!line.contains(['\u{85}', '\u{2028}', '\u{2029}', '\n', '\r', '\u{b}', '\u{c}', '\u{1c}', '\u{1d}', '\u{1e}']), "{:?}", line);
        prop_assert_eq!(serde_json::from_str::<Value>(&line).expect("json"), value.clone());
        let plain = serde_json::to_string(&value).expect("json");
        if !text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
            prop_assert_eq!(line, plain, "nothing else changes");
        }
    }

    /// Each request line is answered once, with its own id, whatever its strings hold.
    #[test]
    fn requests_round_trip(ids in proptest::collection::vec(any::<i64>(), 1..10), text in "\\PC{0,30}") {
        let input: String = ids.iter().map(|id| format!("{}\n", json!({"jsonrpc":"2.0","id":id,"method":text}))).collect();
        let out = run_chunked(input.as_bytes(), &[3], DEFAULT_MAX_MESSAGE_LENGTH);
        prop_assert_eq!(out.len(), ids.len());
        for (line, id) in out.iter().zip(&ids) {
            let value: Value = serde_json::from_str(line).expect("json");
            prop_assert_eq!(&value["id"], &json!(id));
            prop_assert_eq!(&value["result"]["echo"], &json!(text));
        }
    }
}

#[test]
fn extra_fields_follow_an_object_result_and_never_an_error() {
    static EXTRA: std::sync::LazyLock<serde_json::Map<String, Value>> =
        std::sync::LazyLock::new(|| {
            json!({"resultType": "complete"})
                .as_object()
                .cloned()
                .unwrap_or_default()
        });
    let id = crate::Id::Number(1.into());
    let ok = Response::result(id.clone(), json!({"a": 1})).with_extra(&EXTRA);
    assert_eq!(
        ok.to_line(),
        r#"{"jsonrpc":"2.0","id":1,"result":{"a":1,"resultType":"complete"}}"#
    );
    assert_eq!(ok.to_value()["result"]["resultType"], "complete");
    let error = Response::error(Some(id), crate::ErrorObject::new(-32601, "no")).with_extra(&EXTRA);
    assert!(!error.to_line().contains("resultType"));
}

#[test]
fn malformed_notifications_are_dropped_not_answered() {
    let answers = run(concat!(
        "{\"method\":\"notifications/initialized\"}\n",
        "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/initialized\"}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":5}\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":\"x\"}\n",
        "[{\"method\":\"n\"},{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}]\n",
    ));
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(
        answers[0].as_array().map(Vec::len),
        Some(1),
        "only the request is answered"
    );
}

#[test]
fn batches_longer_than_the_limit_are_refused_whole() {
    let batch = |n: usize| {
        let items: Vec<Value> = (0..n)
            .map(|id| json!({"jsonrpc":"2.0","id":id,"method":"a"}))
            .collect();
        format!("{}\n", Value::Array(items))
    };
    let at_limit = run(&batch(crate::MAX_BATCH_LENGTH));
    assert_eq!(
        at_limit[0].as_array().map(Vec::len),
        Some(crate::MAX_BATCH_LENGTH)
    );
    let over = run(&batch(crate::MAX_BATCH_LENGTH + 1));
    assert_eq!(over[0]["error"]["code"], -32600);
    assert!(
        over[0]["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("limit of 100")
    );
}

#[test]
fn a_crlf_line_of_exactly_the_limit_is_accepted() {
    for sizes in [&[1usize][..], &[5], &[6], &[100]] {
        let mut frames = Vec::new();
        let mut framer = LineFramer::new(5);
        let input = b"12345\r\n123456\r\n";
        let mut rest = &input[..];
        let mut i = 0;
        while !rest.is_empty() {
            let n = sizes[i % sizes.len()].min(rest.len());
            framer.push(&rest[..n], &mut |frame| frames.push(frame));
            rest = &rest[n..];
            i += 1;
        }
        framer.finish(&mut |frame| frames.push(frame));
        assert_eq!(
            frames,
            [Frame::Line("12345".into()), Frame::TooLong],
            "{sizes:?}"
        );
    }
}

#[test]
fn integer_ids_beyond_64_bits_are_invalid_requests() {
    let answers = run("{\"jsonrpc\":\"2.0\",\"id\":18446744073709551616,\"method\":\"a\"}\n");
    assert_eq!(answers[0]["error"]["code"], -32600);
    assert_eq!(answers[0]["id"], Value::Null);
}

#[test]
fn separators_are_escaped_in_single_and_batch_answers() {
    let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\u{2028}b\u{2029}c\u{85}\"}\n\
                 [{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"\u{2029}\"}]\n";
    let answers = run_chunked(input.as_bytes(), &[usize::MAX], 200);
    assert_eq!(
        answers,
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{"echo":"a\u2028b\u2029c\u0085","params":null}}"#,
            r#"[{"jsonrpc":"2.0","id":2,"result":{"echo":"\u2029","params":null}}]"#,
        ]
    );
    assert_eq!(
        crate::escape_line_separators("\u{2027}\u{20ac}\u{84}\u{2028}".to_owned()),
        "\u{2027}\u{20ac}\u{84}\\u2028",
        "other characters led by 0xE2 or 0xC2 stay as they are"
    );
}
